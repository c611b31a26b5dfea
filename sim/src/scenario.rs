//! Seeded fault and arrival patterns (DESIGN §3, §6; PAP §2; FTCO §5.2.4).
//!
//! Everything random is drawn from [`SplitMix64::stream`]`(seed, run)`, so run `i` of a seed is the
//! same whatever other runs are made, and equal seeds give identical scenarios.

use alloc::vec::Vec;

use super::{IgnoredMessages, PortModel, Scenario};
use ftcoll::rng::SplitMix64;
use ftcoll::topology::LogP;
use ftcoll::{Rank, Time};

/// Which processes fail before the operation.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum FaultSpec {
    /// Nobody.
    None,
    /// Exactly these ranks (never a fault-immune one).
    List(Vec<Rank>),
    /// `n` distinct ranks chosen uniformly among those that may fail.
    Count(u32),
    /// Every rank that may fail independently with this probability (`0.0..=1.0`).
    Rate(f64),
}

/// When processes arrive at the operation (PAP §2, FTCO §5.2.4), in the model's time steps.
///
/// `None`, `Uniform`, `Normal` and `SymmetricNormal` are drawn for every rank, the root 0
/// included, and used as drawn (the root may arrive after others). `Random`, `Late` and `Times` follow PAP §3.1's root
/// rule instead: the pattern is shifted so that the root arrives at 0, and a process that would
/// arrive before the root arrives with it: `a'_p = max(a_p, a_0) − a_0` (see [`draw_arrivals`]).
/// Not `Copy` (since `Times` owns its list): pass it by reference or clone it.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ArrivalSpec {
    /// Everyone at 0.
    None,
    /// Uniform in `0..=spread`.
    Uniform(Time),
    /// `|N(0, spread)|`, rounded down (Irwin–Hall approximation with 12 uniforms).
    Normal(Time),
    /// PAP's controlled random pattern (Fig. 6): every rank, the root included, draws `r`
    /// uniform in `0..max_if` and arrives at `r · unit`, `unit` being the time of one message
    /// (`L + 2o` under dual-port LogP, `L + 2` in FTCO's single-port steps); then the root rule.
    Random {
        /// `MAX_IF` (at least 1): `r` is in `0..max_if`.
        max_if: u64,
        /// The time of one message, in time steps.
        unit: Time,
    },
    /// PAP Figs. 9–10, a few late processes: the root arrives at 0, every other rank
    /// independently arrives at `delay` with probability `fraction` (`0.0..=1.0`), else at 0.
    Late {
        /// The probability that a non-root rank is late.
        fraction: f64,
        /// How late, in time steps.
        delay: Time,
    },
    /// Given per-rank arrival times (exactly `P` of them, rank order); then the root rule.
    Times(Vec<Time>),
    /// `N(0, σ)` for every rank, its sign kept, then shifted so that the earliest rank arrives
    /// at 0: symmetric about the middle of the drawn spread (about `8.2 σ` wide for 64 K
    /// ranks), where `Normal` is the half-normal `|N(0, σ)|`. FTCO §5.2.4 draws "a normal
    /// distribution" with `StartTime_first = 0` without saying which; Table 2's ratios fit this
    /// one (docs/results/ftco.md). At most [`ArrivalSpec::MAX_SYMMETRIC_SIGMA`].
    SymmetricNormal(Time),
}

impl ArrivalSpec {
    /// The largest `σ` of [`ArrivalSpec::SymmetricNormal`]: its draws reach `6 σ` on either
    /// side, so the spread stays below `2^32` steps.
    pub const MAX_SYMMETRIC_SIGMA: Time = (u32::MAX / 12) as Time;
}

/// An invalid scenario parameter.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ScenarioError {
    /// A listed rank is fault-immune (below `immune`) or not below `P`.
    BadRank {
        /// The field.
        field: &'static str,
        /// The rank.
        rank: Rank,
        /// `P`.
        procs: u32,
        /// The fault-immune prefix: ranks `0..immune` never fail (1: the root 0).
        immune: u32,
    },
    /// A fault count above `P - immune`.
    TooManyFaults {
        /// Requested.
        count: u32,
        /// `P - immune`.
        max: u32,
    },
    /// A fault rate outside `0..=1`.
    BadRate,
    /// A [`ArrivalSpec::SymmetricNormal`] `σ` above [`ArrivalSpec::MAX_SYMMETRIC_SIGMA`].
    SigmaOutOfRange {
        /// Requested.
        sigma: Time,
    },
}

impl core::fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::BadRank {
                field,
                rank,
                procs,
                immune,
            } => {
                write!(f, "{field}: rank {rank} is not allowed: ")?;
                allowed_ranks(f, *immune, *procs)
            }
            Self::TooManyFaults { count, max } => {
                write!(f, "fault-count: {count} is out of range: allowed 0..={max}")
            }
            Self::BadRate => write!(f, "fault-rate: allowed values are 0.0..=1.0"),
            Self::SigmaOutOfRange { sigma } => write!(
                f,
                "arrival: symmetric normal σ {sigma} is out of range 0..={}",
                ArrivalSpec::MAX_SYMMETRIC_SIGMA
            ),
        }
    }
}

/// `allowed ranks are …` for the ranks `immune..procs` that may fail.
fn allowed_ranks(f: &mut core::fmt::Formatter<'_>, immune: u32, procs: u32) -> core::fmt::Result {
    let last = procs.saturating_sub(1);
    match immune {
        _ if immune >= procs => write!(
            f,
            "every rank is fault-immune (the {immune} lowest of P = {procs}): no rank may fail"
        ),
        0 => write!(f, "allowed ranks are 0..={last}"),
        1 => write!(f, "allowed ranks are 1..={last} (the root 0 never fails)"),
        _ => write!(
            f,
            "allowed ranks are {immune}..={last} (the roots 0..={} are fault-immune)",
            immune - 1
        ),
    }
}

#[cfg(feature = "std")]
impl std::error::Error for ScenarioError {}

/// The non-root ranks (`1..procs`) that fail before the operation, ascending:
/// [`draw_faults_among`] with the root 0 fault-immune.
pub fn draw_faults(
    spec: &FaultSpec,
    procs: u32,
    rng: &mut SplitMix64,
) -> Result<Vec<Rank>, ScenarioError> {
    draw_faults_among(spec, 1, procs, rng)
}

/// The ranks of `immune..procs` that fail before the operation, ascending; the fault-immune
/// prefix `0..immune` never does (the root 0 of a Corrected Tree, FTCO's `R` roots). For a given
/// spec and stream the picks are those of the `m = procs − immune` candidates, shifted by
/// `immune`: the same random choices whatever the prefix.
pub fn draw_faults_among(
    spec: &FaultSpec,
    immune: u32,
    procs: u32,
    rng: &mut SplitMix64,
) -> Result<Vec<Rank>, ScenarioError> {
    let candidates = procs.saturating_sub(immune);
    let mut faults = match spec {
        FaultSpec::None => Vec::new(),
        FaultSpec::List(list) => {
            for &rank in list {
                if rank < immune || rank >= procs {
                    return Err(ScenarioError::BadRank {
                        field: "faults",
                        rank,
                        procs,
                        immune,
                    });
                }
            }
            list.clone()
        }
        FaultSpec::Count(n) => {
            let max = candidates;
            if *n > max {
                return Err(ScenarioError::TooManyFaults { count: *n, max });
            }
            // Floyd's sampling of n distinct candidate indices in 0..max (rank = immune + index).
            let mut chosen: Vec<u32> = Vec::with_capacity(*n as usize);
            // Membership: a linear scan for a few faults, a bitset or a tree beyond (same picks).
            let mut bits: Vec<u64> = Vec::new();
            let mut tree = alloc::collections::BTreeSet::new();
            let use_bits = *n > 32 && max < 1 << 26;
            if use_bits {
                bits.resize(max as usize / 64 + 1, 0);
            }
            for j in (max - n)..max {
                let t = rng.below(u64::from(j) + 1) as u32;
                let taken = if *n <= 32 {
                    chosen.contains(&t)
                } else if use_bits {
                    bits[t as usize / 64] >> (t % 64) & 1 == 1
                } else {
                    tree.contains(&t)
                };
                let pick = if taken { j } else { t };
                if use_bits {
                    bits[pick as usize / 64] |= 1 << (pick % 64);
                } else if *n > 32 {
                    tree.insert(pick);
                }
                chosen.push(pick);
            }
            chosen.into_iter().map(|i| immune + i).collect()
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
            (immune.min(procs)..procs)
                .filter(|_| rng.chance(threshold) || *rate >= 1.0)
                .collect()
        }
    };
    faults.sort_unstable();
    faults.dedup();
    Ok(faults)
}

/// Arrival times for every rank (empty: everyone at 0).
///
/// Draw order from `rng` (after the pre-operation failures, see [`ScenarioSpec::build`]):
/// - `None`, `Times`: nothing;
/// - `Uniform`: one `below(spread + 1)` per rank, ranks `0..P` ascending;
/// - `Normal`, `SymmetricNormal`: twelve `next_u64` per rank, ranks `0..P` ascending;
/// - `Random`: one `below(max_if)` per rank, ranks `0..P` ascending (the root's first);
/// - `Late`: one `chance` per non-root rank, ranks `1..P` ascending (the root draws nothing),
///   made even when `fraction` is 0 or 1 so the stream after it depends on `P` only.
///
/// `Random` and `Times` are then shifted so that the root's arrival is 0 (earlier arrivals become
/// 0, PAP §3.1). A `Times` list whose length is not `P` is returned as given, and the driver
/// refuses it ([`crate::SimError::ArrivalsLength`]).
pub fn draw_arrivals(spec: ArrivalSpec, procs: u32, rng: &mut SplitMix64) -> Vec<Time> {
    let shift = matches!(spec, ArrivalSpec::Random { .. } | ArrivalSpec::Times(_));
    let drawn = draw_arrivals_as_drawn(spec, procs, rng);
    if shift {
        from_root(drawn)
    } else {
        drawn
    }
}

/// [`draw_arrivals`] without the root rule: the times as drawn (or given), the root's
/// included, so a receiver may arrive before the root. For the PAP model, whose metrics charge
/// such a receiver its wait for the root (PAP §3.1; `protocols::arrival::metrics`). The same
/// draws in the same order.
pub fn draw_arrivals_as_drawn(spec: ArrivalSpec, procs: u32, rng: &mut SplitMix64) -> Vec<Time> {
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
        ArrivalSpec::Random { max_if, unit } => (0..procs)
            .map(|_| rng.below(max_if.max(1)).saturating_mul(unit))
            .collect(),
        ArrivalSpec::Late { fraction, delay } => {
            let threshold = if fraction >= 1.0 {
                u64::MAX
            } else if fraction > 0.0 {
                (fraction * 18_446_744_073_709_551_616.0) as u64
            } else {
                0
            };
            (0..procs)
                .map(|rank| {
                    let late = rank > 0 && (rng.chance(threshold) || fraction >= 1.0);
                    if late {
                        delay
                    } else {
                        0
                    }
                })
                .collect()
        }
        ArrivalSpec::Times(times) => times,
        ArrivalSpec::SymmetricNormal(sigma) => draw_symmetric_normal(sigma, procs, rng),
    }
}

/// `P` times of [`ArrivalSpec::SymmetricNormal`]`(sigma)`: for each rank, ascending, twelve
/// `next_u64` (the Irwin–Hall sum of `Normal`, its sign kept), scaled by `sigma` and rounded
/// toward −∞; then every time is shifted by the smallest, so the earliest rank arrives at 0.
fn draw_symmetric_normal(sigma: Time, procs: u32, rng: &mut SplitMix64) -> Vec<Time> {
    let drawn: Vec<i128> = (0..procs)
        .map(|_| {
            // Sum of 12 uniforms in [0, 2^16): mean 6·2^16, standard deviation 2^16.
            let sum: i64 = (0..12).map(|_| (rng.next_u64() >> 48) as i64).sum();
            let z = i128::from(sum - 6 * 65_536);
            // An arithmetic shift rounds toward −∞ on both sides: no value is favoured at 0.
            (z * i128::from(sigma)) >> 16
        })
        .collect();
    let first = drawn.iter().copied().min().unwrap_or(0);
    drawn.into_iter().map(|t| (t - first) as Time).collect()
}

/// PAP §3.1's root rule: `a_p ← max(a_p, a_0) − a_0`, so the root arrives at 0 and nobody before
/// it.
fn from_root(mut times: Vec<Time>) -> Vec<Time> {
    if let Some(&root) = times.first() {
        for t in &mut times {
            *t = t.saturating_sub(root);
        }
    }
    times
}

/// Everything that defines the scenarios of a simulation, before drawing randomness.
///
/// Build it with [`ScenarioSpec::new`] and the `with_…` setters (every field is also public):
///
/// ```
/// use ftcoll_sim::scenario::{FaultSpec, ScenarioSpec};
/// use ftcoll::topology::LogP;
///
/// let spec = ScenarioSpec::new(64, LogP::new(2, 1)?)
///     .with_faults(FaultSpec::Count(3))
///     .with_crash_at(vec![(10, 5)]);
/// let (scenario, failed) = spec.build(7, 0)?;
/// assert_eq!(failed.len(), 3);
/// assert_eq!(scenario.crashes.len(), 4); // the 3 drawn at time 0, then rank 10 at 5
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ScenarioSpec {
    /// `P`.
    pub procs: u32,
    /// `L` and `o`.
    pub logp: LogP,
    /// Dual- or single-port.
    pub model: PortModel,
    /// The fault-immune prefix: ranks `0..immune` never fail, before or during the operation
    /// (1 for a Corrected Tree's root; `R` for FTCO's roots; 0 when every rank may fail).
    #[cfg_attr(feature = "serde", serde(default = "one"))]
    pub immune: u32,
    /// Pre-operation failures (drawn among `immune..procs`).
    pub faults: FaultSpec,
    /// Crashes during the operation: `(rank, time)`.
    pub crash_at: Vec<(Rank, Time)>,
    /// Arrival pattern.
    pub arrivals: ArrivalSpec,
    /// What a message the receiver ignores costs it (default: charged).
    #[cfg_attr(feature = "serde", serde(default))]
    pub ignored: IgnoredMessages,
}

/// The default fault-immune prefix of a deserialized spec: the root 0.
#[cfg(feature = "serde")]
fn one() -> u32 {
    1
}

impl ScenarioSpec {
    /// `procs` processes under `logp` with the defaults of a fault-free Corrected Tree run:
    /// dual-port LogP ([`PortModel::DualPort`]), fault-immune prefix 1 (the root 0), no
    /// pre-operation failures ([`FaultSpec::None`]), no crashes during the operation and
    /// everyone arriving at 0 ([`ArrivalSpec::None`]). Change them with the `with_…` setters.
    /// Nothing is checked here: [`ScenarioSpec::build`] refuses ranks outside `immune..procs`,
    /// and a driver refuses a `procs` other than its configuration's.
    pub fn new(procs: u32, logp: LogP) -> Self {
        Self {
            procs,
            logp,
            model: PortModel::DualPort,
            immune: 1,
            faults: FaultSpec::None,
            crash_at: Vec::new(),
            arrivals: ArrivalSpec::None,
            ignored: IgnoredMessages::Charged,
        }
    }

    /// The port model (default: [`PortModel::DualPort`]; FTCO runs use
    /// [`PortModel::SinglePort`]).
    #[must_use]
    pub fn with_model(mut self, model: PortModel) -> Self {
        self.model = model;
        self
    }

    /// The fault-immune prefix: ranks `0..immune` never fail (default 1, the root; FTCO's `R`
    /// roots; 0 when every rank may fail).
    #[must_use]
    pub fn with_immune(mut self, immune: u32) -> Self {
        self.immune = immune;
        self
    }

    /// The pre-operation failures, drawn among `immune..procs` (default [`FaultSpec::None`]).
    #[must_use]
    pub fn with_faults(mut self, faults: FaultSpec) -> Self {
        self.faults = faults;
        self
    }

    /// Crashes during the operation, `(rank, time)` (default none).
    #[must_use]
    pub fn with_crash_at(mut self, crash_at: Vec<(Rank, Time)>) -> Self {
        self.crash_at = crash_at;
        self
    }

    /// The arrival pattern (default [`ArrivalSpec::None`]: everyone at 0).
    #[must_use]
    pub fn with_arrivals(mut self, arrivals: ArrivalSpec) -> Self {
        self.arrivals = arrivals;
        self
    }

    /// What a message the receiver ignores costs it (default [`IgnoredMessages::Charged`]).
    #[must_use]
    pub fn with_ignored(mut self, ignored: IgnoredMessages) -> Self {
        self.ignored = ignored;
        self
    }

    /// The pre-operation failures of run `run` of `seed` (drawn first from the run's stream, so
    /// every engine sees the same ones), and the stream for what `build` draws next.
    pub fn draw_failed(
        &self,
        seed: u64,
        run: u64,
    ) -> Result<(Vec<Rank>, SplitMix64), ScenarioError> {
        let mut rng = SplitMix64::stream(seed, run);
        let failed = draw_faults_among(&self.faults, self.immune, self.procs, &mut rng)?;
        Ok((failed, rng))
    }

    /// The scenario of run `run` of `seed`, and its pre-operation failures (ascending).
    pub fn build(&self, seed: u64, run: u64) -> Result<(Scenario, Vec<Rank>), ScenarioError> {
        self.build_with_stream(seed, run)
            .map(|(scenario, failed, _)| (scenario, failed))
    }

    /// [`ScenarioSpec::build`], and the run's stream after what it drew (failures, then
    /// arrivals), for whatever else a run draws (FTCO's RSD seed, random crashes).
    pub fn build_with_stream(
        &self,
        seed: u64,
        run: u64,
    ) -> Result<(Scenario, Vec<Rank>, SplitMix64), ScenarioError> {
        if let ArrivalSpec::SymmetricNormal(sigma) = self.arrivals {
            if sigma > ArrivalSpec::MAX_SYMMETRIC_SIGMA {
                return Err(ScenarioError::SigmaOutOfRange { sigma });
            }
        }
        let procs = self.procs;
        let (failed, mut rng) = self.draw_failed(seed, run)?;
        for &(rank, _) in &self.crash_at {
            if rank < self.immune || rank >= procs {
                return Err(ScenarioError::BadRank {
                    field: "crash-at",
                    rank,
                    procs,
                    immune: self.immune,
                });
            }
        }
        let arrivals = draw_arrivals(self.arrivals.clone(), procs, &mut rng);
        let mut crashes: Vec<(Rank, Time)> = failed.iter().map(|&r| (r, 0)).collect();
        crashes.extend_from_slice(&self.crash_at);
        Ok((
            Scenario {
                logp: self.logp,
                model: self.model,
                arrivals,
                crashes,
                trace: false,
                ignored: self.ignored,
            },
            failed,
            rng,
        ))
    }
}
