//! PAP §2's measures of an arrival pattern and of a run, and the bounds of §3.2 on the optimal
//! average per node time: Lemma 1 (upper, by `nearopt`) and Lemma 2 (lower). `PERF(r, PAP) =
//! ē(r, PAP) / OPT(PAP)` is known only between the two bounds, so [`PapMetrics::perf`] gives
//! that interval, exactly (as fractions of integers).

use core::cmp::Ordering;

use crate::sim::pap::PapMode;
use crate::Time;

/// An exact non-negative fraction `num / den` (`den > 0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Ratio {
    /// Numerator.
    pub num: u128,
    /// Denominator.
    pub den: u128,
}

impl Ratio {
    /// `num / den`; `den = 0` is taken as 1 (only for empty patterns).
    pub fn new(num: u128, den: u128) -> Self {
        Self {
            num,
            den: den.max(1),
        }
    }

    /// The value as a float, for reports.
    pub fn to_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }

    /// `self / other` (`other` must be non-zero; a zero `other` gives `u128::MAX / 1`).
    pub fn over(self, other: Self) -> Self {
        if other.num == 0 {
            return Self::new(u128::MAX, 1);
        }
        Self::new(
            self.num.saturating_mul(other.den),
            self.den.saturating_mul(other.num),
        )
    }
}

impl PartialOrd for Ratio {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ratio {
    fn cmp(&self, other: &Self) -> Ordering {
        self.num
            .saturating_mul(other.den)
            .cmp(&other.num.saturating_mul(self.den))
    }
}

/// PAP §2–3 measures of one run: the arrival pattern `(a_0, …, a_{n−1})`, the exit pattern
/// `(f_0, …, f_{n−1})` and what follows from them.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PapMetrics {
    /// `n`.
    pub procs: u64,
    /// `ā`, the average arrival time.
    pub mean_arrival: f64,
    /// `δ̄ = Σ |a_i − ā| / n`, the average case imbalance time.
    pub average_imbalance: f64,
    /// `ω = max a_i − min a_i`, the worst case imbalance time.
    pub worst_imbalance: Time,
    /// `Δ = max a_i − a_0` (§3.1; 0 if every receiver arrives before the root).
    pub delta: Time,
    /// `Σ e_i = Σ (f_i − a_i)`, the total time of the operation.
    pub total_elapsed: u128,
    /// `g = max e_i`, the worst case per node time.
    pub worst_elapsed: Time,
}

impl PapMetrics {
    /// The measures of arrivals `a` and exits `f` (one entry per process, rank 0 the root;
    /// an exit before its arrival counts as 0 elapsed time).
    pub fn new(arrivals: &[Time], exits: &[Time]) -> Self {
        let n = arrivals.len().min(exits.len());
        let (a, f) = (&arrivals[..n], &exits[..n]);
        let sum: u128 = a.iter().map(|&x| u128::from(x)).sum();
        let mean = if n == 0 { 0.0 } else { sum as f64 / n as f64 };
        let average_imbalance = if n == 0 {
            0.0
        } else {
            a.iter().map(|&x| (x as f64 - mean).abs()).sum::<f64>() / n as f64
        };
        let (lo, hi) = (
            a.iter().copied().min().unwrap_or(0),
            a.iter().copied().max().unwrap_or(0),
        );
        let elapsed = a.iter().zip(f).map(|(&ai, &fi)| fi.saturating_sub(ai));
        Self {
            procs: n as u64,
            mean_arrival: mean,
            average_imbalance,
            worst_imbalance: hi - lo,
            delta: a.first().map_or(0, |&a0| hi.saturating_sub(a0)),
            total_elapsed: elapsed.clone().map(u128::from).sum(),
            worst_elapsed: elapsed.max().unwrap_or(0),
        }
    }

    /// `ē`, the average per node time (§2.2), exactly.
    pub fn mean_elapsed(&self) -> Ratio {
        Ratio::new(self.total_elapsed, u128::from(self.procs))
    }

    /// The average and worst case imbalance factors `δ̄ / T` and `ω / T` (§2.1), with `T` the
    /// time of one message.
    pub fn imbalance_factors(&self, t: Time) -> (f64, f64) {
        let t = t.max(1) as f64;
        (self.average_imbalance / t, self.worst_imbalance as f64 / t)
    }

    /// Lemma 1: `OPT(PAP) ≤ T` non-blocking, `≤ Δ/n + T` blocking (`nearopt`'s `ē`).
    pub fn opt_upper(&self, mode: PapMode, t: Time) -> Ratio {
        let n = u128::from(self.procs);
        match mode {
            PapMode::NonBlocking => Ratio::new(u128::from(t), 1),
            PapMode::Blocking => Ratio::new(u128::from(self.delta) + n * u128::from(t), n),
        }
    }

    /// Lemma 2: `OPT(PAP) ≥ (n−1)/n · T` non-blocking, `≥ (Δ + (n−1)·T) / n` blocking.
    pub fn opt_lower(&self, mode: PapMode, t: Time) -> Ratio {
        let n = u128::from(self.procs);
        let receivers = n.saturating_sub(1) * u128::from(t);
        match mode {
            PapMode::NonBlocking => Ratio::new(receivers, n),
            PapMode::Blocking => Ratio::new(u128::from(self.delta) + receivers, n),
        }
    }

    /// `PERF(r, PAP) = ē / OPT(PAP)` lies in `[ē / opt_upper, ē / opt_lower]`.
    pub fn perf(&self, mode: PapMode, t: Time) -> (Ratio, Ratio) {
        let e = self.mean_elapsed();
        (
            e.over(self.opt_upper(mode, t)),
            e.over(self.opt_lower(mode, t)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pap_section_2_measures_of_a_small_pattern() {
        // a = (0, 2, 4, 10), f = (5, 7, 9, 10): ā = 4, δ = (4, 2, 0, 6), δ̄ = 3, ω = 10, Δ = 10,
        // e = (5, 5, 5, 0), Σe = 15, g = 5.
        let m = PapMetrics::new(&[0, 2, 4, 10], &[5, 7, 9, 10]);
        assert_eq!(m.mean_arrival, 4.0);
        assert_eq!(m.average_imbalance, 3.0);
        assert_eq!((m.worst_imbalance, m.delta), (10, 10));
        assert_eq!((m.total_elapsed, m.worst_elapsed), (15, 5));
        assert_eq!(m.mean_elapsed(), Ratio::new(15, 4));
        assert_eq!(m.imbalance_factors(2), (1.5, 5.0));
        // Lemma 1 with T = 5: non-blocking 5, blocking 10/4 + 5 = 30/4.
        assert_eq!(m.opt_upper(PapMode::NonBlocking, 5), Ratio::new(5, 1));
        assert_eq!(m.opt_upper(PapMode::Blocking, 5).to_f64(), 7.5);
        // Lemma 2: non-blocking 3/4 · 5, blocking (10 + 15) / 4.
        assert_eq!(m.opt_lower(PapMode::NonBlocking, 5).to_f64(), 3.75);
        assert_eq!(m.opt_lower(PapMode::Blocking, 5).to_f64(), 6.25);
        let (lo, hi) = m.perf(PapMode::NonBlocking, 5);
        assert_eq!((lo.to_f64(), hi.to_f64()), (0.75, 1.0));
    }

    #[test]
    fn ratios_compare_exactly() {
        assert!(Ratio::new(1, 3) < Ratio::new(334, 1000));
        assert!(Ratio::new(2, 6) == Ratio::new(1, 3).max(Ratio::new(2, 6)));
        assert_eq!(Ratio::new(3, 1).cmp(&Ratio::new(9, 3)), Ordering::Equal);
    }
}
