//! Seeded fault and arrival patterns (DESIGN §3, §6; PAP §2; FTCO §5.2.4).
//!
//! Everything random is drawn from [`SplitMix64::stream`]`(seed, run)`, so run `i` of a seed is the
//! same whatever other runs are made, and equal seeds give identical scenarios.

use alloc::vec::Vec;

use super::{PortModel, Scenario};
use crate::rng::SplitMix64;
use crate::topology::LogP;
use crate::{Rank, Time};

/// Which processes fail before the operation.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum FaultSpec {
    /// Nobody.
    None,
    /// Exactly these ranks (never the root).
    List(Vec<Rank>),
    /// `n` distinct non-root ranks chosen uniformly.
    Count(u32),
    /// Every non-root rank independently with this probability (`0.0..=1.0`).
    Rate(f64),
}

/// When processes arrive at the operation (PAP §2, FTCO §5.2.4).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ArrivalSpec {
    /// Everyone at 0.
    None,
    /// Uniform in `0..=spread`.
    Uniform(Time),
    /// `|N(0, spread)|`, rounded down (Irwin–Hall approximation with 12 uniforms).
    Normal(Time),
}

/// An invalid scenario parameter.
#[derive(Clone, Debug, PartialEq)]
pub enum ScenarioError {
    /// A listed rank is the root or not below `P`.
    BadRank {
        /// The field.
        field: &'static str,
        /// The rank.
        rank: Rank,
        /// `P`.
        procs: u32,
    },
    /// A fault count above `P - 1`.
    TooManyFaults {
        /// Requested.
        count: u32,
        /// `P - 1`.
        max: u32,
    },
    /// A fault rate outside `0..=1`.
    BadRate,
}

impl core::fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::BadRank { field, rank, procs } => write!(
                f,
                "{field}: rank {rank} is not allowed: allowed ranks are 1..={} (the root 0 never fails)",
                procs.saturating_sub(1)
            ),
            Self::TooManyFaults { count, max } => write!(f, "fault-count: {count} is out of range: allowed 0..={max}"),
            Self::BadRate => write!(f, "fault-rate: allowed values are 0.0..=1.0"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for ScenarioError {}

/// The non-root ranks that fail before the operation, ascending.
pub fn draw_faults(
    spec: &FaultSpec,
    procs: u32,
    rng: &mut SplitMix64,
) -> Result<Vec<Rank>, ScenarioError> {
    let mut faults = match spec {
        FaultSpec::None => Vec::new(),
        FaultSpec::List(list) => {
            for &rank in list {
                if rank == 0 || rank >= procs {
                    return Err(ScenarioError::BadRank {
                        field: "faults",
                        rank,
                        procs,
                    });
                }
            }
            list.clone()
        }
        FaultSpec::Count(n) => {
            let max = procs.saturating_sub(1);
            if *n > max {
                return Err(ScenarioError::TooManyFaults { count: *n, max });
            }
            // Floyd's sampling of n distinct values in 1..procs.
            let mut chosen: Vec<Rank> = Vec::with_capacity(*n as usize);
            // Membership: a linear scan for a few faults, a bitset or a tree beyond (same picks).
            let mut bits: Vec<u64> = Vec::new();
            let mut tree = alloc::collections::BTreeSet::new();
            let use_bits = *n > 32 && procs <= 1 << 26;
            if use_bits {
                bits.resize(procs as usize / 64 + 1, 0);
            }
            for j in (max - n)..max {
                let t = 1 + rng.below(u64::from(j) + 1) as Rank;
                let taken = if *n <= 32 {
                    chosen.contains(&t)
                } else if use_bits {
                    bits[t as usize / 64] >> (t % 64) & 1 == 1
                } else {
                    tree.contains(&t)
                };
                let pick = if taken { j + 1 } else { t };
                if use_bits {
                    bits[pick as usize / 64] |= 1 << (pick % 64);
                } else if *n > 32 {
                    tree.insert(pick);
                }
                chosen.push(pick);
            }
            chosen
        }
        FaultSpec::Rate(rate) => {
            if !(0.0..=1.0).contains(rate) {
                return Err(ScenarioError::BadRate);
            }
            let threshold = if *rate >= 1.0 {
                u64::MAX
            } else {
                (*rate * 18_446_744_073_709_551_616.0) as u64
            };
            (1..procs)
                .filter(|_| rng.chance(threshold) || *rate >= 1.0)
                .collect()
        }
    };
    faults.sort_unstable();
    faults.dedup();
    Ok(faults)
}

/// Arrival times for every rank.
pub fn draw_arrivals(spec: ArrivalSpec, procs: u32, rng: &mut SplitMix64) -> Vec<Time> {
    match spec {
        ArrivalSpec::None => Vec::new(),
        ArrivalSpec::Uniform(spread) => (0..procs).map(|_| rng.below(spread + 1)).collect(),
        ArrivalSpec::Normal(spread) => (0..procs)
            .map(|_| {
                // Sum of 12 uniforms in [0, 2^16): mean 6·2^16, standard deviation 2^16.
                let sum: i64 = (0..12).map(|_| (rng.next_u64() >> 48) as i64).sum();
                let z = (sum - 6 * 65_536).unsigned_abs();
                ((u128::from(z) * u128::from(spread)) >> 16) as Time
            })
            .collect(),
    }
}

/// Everything that defines the scenarios of a simulation, before drawing randomness.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ScenarioSpec {
    /// `P`.
    pub procs: u32,
    /// `L` and `o`.
    pub logp: LogP,
    /// Dual- or single-port.
    pub model: PortModel,
    /// Pre-operation failures.
    pub faults: FaultSpec,
    /// Crashes during the operation: `(rank, time)`.
    pub crash_at: Vec<(Rank, Time)>,
    /// Arrival pattern.
    pub arrivals: ArrivalSpec,
}

impl ScenarioSpec {
    /// The pre-operation failures of run `run` of `seed` (drawn first from the run's stream, so
    /// every engine sees the same ones), and the stream for what `build` draws next.
    pub fn draw_failed(
        &self,
        seed: u64,
        run: u64,
    ) -> Result<(Vec<Rank>, SplitMix64), ScenarioError> {
        let mut rng = SplitMix64::stream(seed, run);
        let failed = draw_faults(&self.faults, self.procs, &mut rng)?;
        Ok((failed, rng))
    }

    /// The scenario of run `run` of `seed`, and its pre-operation failures (ascending).
    pub fn build(&self, seed: u64, run: u64) -> Result<(Scenario, Vec<Rank>), ScenarioError> {
        let procs = self.procs;
        let (failed, mut rng) = self.draw_failed(seed, run)?;
        for &(rank, _) in &self.crash_at {
            if rank == 0 || rank >= procs {
                return Err(ScenarioError::BadRank {
                    field: "crash-at",
                    rank,
                    procs,
                });
            }
        }
        let arrivals = draw_arrivals(self.arrivals, procs, &mut rng);
        let mut crashes: Vec<(Rank, Time)> = failed.iter().map(|&r| (r, 0)).collect();
        crashes.extend_from_slice(&self.crash_at);
        Ok((
            Scenario {
                logp: self.logp,
                model: self.model,
                arrivals,
                crashes,
                trace: false,
            },
            failed,
        ))
    }
}
