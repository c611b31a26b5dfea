//! Arrival patterns of an experiment: the scenario's ([`ArrivalSpec`]), or a symmetric normal,
//! which those lack. Protocol-neutral: a pattern gives each rank a time; what a late rank does
//! is the protocol's business.
//!
//! `ArrivalSpec::Normal` draws `|N(0, σ)|`, a half-normal: most processes arrive early and a
//! thin tail arrives late. FTCO §5.2.4 draws "a uniform and a normal distribution" with
//! `StartTime_first = 0`; a normal symmetric about the middle of the spread, shifted so that the
//! earliest process starts at 0, is the other reading, and [`Arrival::SymmetricNormal`] draws it.

use alloc::vec::Vec;

use crate::rng::SplitMix64;
use crate::sim::scenario::ArrivalSpec;
use crate::Time;

/// An experiment's arrival pattern.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Arrival {
    /// One of the scenario's patterns, drawn by `ScenarioSpec::build` as usual.
    Pattern(ArrivalSpec),
    /// `N(0, σ)` for every rank, then shifted so that the earliest rank arrives at 0: symmetric
    /// about the middle of the drawn spread (about `8.2 σ` wide for 64 K ranks). Drawn by
    /// [`draw_symmetric_normal`] in the arrivals' place of a run's stream.
    SymmetricNormal(Time),
}

impl Arrival {
    /// The largest `σ` of [`Arrival::SymmetricNormal`]: its draws reach `6 σ` on either side,
    /// so the spread stays below `2^32` steps, the CLI's bound on any arrival time.
    pub const MAX_SIGMA: Time = (u32::MAX / 12) as Time;

    /// The pattern the scenario draws: the pattern itself, or none for a symmetric normal
    /// (drawn afterwards, from the same stream).
    pub fn scenario_pattern(&self) -> ArrivalSpec {
        match self {
            Self::Pattern(spec) => spec.clone(),
            Self::SymmetricNormal(_) => ArrivalSpec::None,
        }
    }

    /// `σ` of a symmetric normal, `None` for a scenario pattern.
    pub fn symmetric_sigma(&self) -> Option<Time> {
        match self {
            Self::SymmetricNormal(sigma) => Some(*sigma),
            Self::Pattern(_) => None,
        }
    }
}

impl From<ArrivalSpec> for Arrival {
    fn from(spec: ArrivalSpec) -> Self {
        Self::Pattern(spec)
    }
}

/// `P` arrival times of [`Arrival::SymmetricNormal`]`(sigma)`: for each rank, ascending,
/// twelve `next_u64` (the Irwin–Hall sum that `ArrivalSpec::Normal` uses, with its sign kept),
/// scaled by `sigma` and rounded down; then every time is shifted by the smallest, so the
/// earliest rank arrives at 0 (FTCO §5.2.4: `StartTime_first = 0`). Empty for `P = 0`.
pub fn draw_symmetric_normal(sigma: Time, procs: u32, rng: &mut SplitMix64) -> Vec<Time> {
    let drawn: Vec<i128> = (0..procs)
        .map(|_| {
            // Sum of 12 uniforms in [0, 2^16): mean 6·2^16, standard deviation 2^16.
            let sum: i64 = (0..12).map(|_| (rng.next_u64() >> 48) as i64).sum();
            let z = i128::from(sum - 6 * 65_536);
            // Arithmetic shift: rounds toward −∞ on both sides, so no value is favoured at 0.
            (z * i128::from(sigma)) >> 16
        })
        .collect();
    let first = drawn.iter().copied().min().unwrap_or(0);
    drawn.into_iter().map(|t| (t - first) as Time).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetric_normal_starts_at_0_and_is_centred() {
        let mut rng = SplitMix64::new(7);
        let t = draw_symmetric_normal(1000, 65_536, &mut rng);
        assert_eq!(t.len(), 65_536);
        assert_eq!(t.iter().min(), Some(&0));
        let n = t.len() as f64;
        let mean = t.iter().sum::<u64>() as f64 / n;
        let var = t.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / n;
        // Symmetric: half the draws lie below the mean (a half-normal puts 57.5 % there), with
        // standard deviation σ; 64 K draws span about 8 σ.
        let below = t.iter().filter(|&&x| (x as f64) < mean).count() as f64 / n;
        assert!((below - 0.5).abs() < 0.01, "{below}");
        assert!((var.sqrt() / 1000.0 - 1.0).abs() < 0.02, "σ {}", var.sqrt());
        let max = *t.iter().max().unwrap();
        assert!((7000..9500).contains(&max), "max {max}");
        // Twelve draws per rank, as `ArrivalSpec::Normal`.
        let mut a = SplitMix64::new(3);
        let mut b = SplitMix64::new(3);
        draw_symmetric_normal(5, 10, &mut a);
        for _ in 0..120 {
            b.next_u64();
        }
        assert_eq!(a.next_u64(), b.next_u64());
    }

    #[test]
    fn symmetric_normal_of_sigma_0_is_everyone_at_0() {
        let mut rng = SplitMix64::new(1);
        assert_eq!(draw_symmetric_normal(0, 4, &mut rng), [0, 0, 0, 0]);
        assert!(draw_symmetric_normal(9, 0, &mut rng).is_empty());
    }
}
