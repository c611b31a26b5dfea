//! PAP §2's measures of an arrival pattern and of a run, and the bounds of §3.2 on the optimal
//! average per node time: Lemma 1 (upper, by `nearopt`) and Lemma 2 (lower). `PERF(r, PAP) =
//! ē(r, PAP) / OPT(PAP)` is known only between the two bounds, so [`PapMetrics::perf`] gives
//! that interval, exactly (as fractions of integers).

use core::cmp::Ordering;

use crate::topology::PapMode;
use crate::Time;

/// An exact non-negative fraction `num / den` (`den > 0`), kept in lowest terms, so equality
/// is equality of values. Comparisons are exact (256-bit cross products).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Ratio {
    /// Numerator.
    pub num: u128,
    /// Denominator.
    pub den: u128,
}

/// `a · b` as `(high, low)` 128-bit halves.
fn wide_mul(a: u128, b: u128) -> (u128, u128) {
    const HALF: u32 = 64;
    let mask = u128::from(u64::MAX);
    let (a1, a0) = (a >> HALF, a & mask);
    let (b1, b0) = (b >> HALF, b & mask);
    let (lo, mid1, mid2, hi) = (a0 * b0, a0 * b1, a1 * b0, a1 * b1);
    let (mid, carry_mid) = mid1.overflowing_add(mid2);
    let (low, carry_low) = lo.overflowing_add(mid << HALF);
    let high = hi + (mid >> HALF) + (u128::from(carry_mid) << HALF) + u128::from(carry_low);
    (high, low)
}

impl Ratio {
    /// `num / den` in lowest terms; `den = 0` is taken as 1 (only for empty patterns).
    pub fn new(num: u128, den: u128) -> Self {
        let den = den.max(1);
        let g = num_integer::gcd(num, den).max(1);
        Self {
            num: num / g,
            den: den / g,
        }
    }

    /// The value as a float, for reports.
    pub fn to_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }

    /// `self / other`; `None` when `other` is 0 (a ratio to nothing, e.g. `PERF` of a single
    /// process, whose every bound is 0).
    pub fn over(self, other: Self) -> Option<Self> {
        if other.num == 0 {
            return None;
        }
        // Cross-reduce first so the products stay small when they can.
        let g1 = num_integer::gcd(self.num, other.num).max(1);
        let g2 = num_integer::gcd(other.den, self.den).max(1);
        let num = (self.num / g1).checked_mul(other.den / g2);
        let den = (self.den / g2).checked_mul(other.num / g1);
        match (num, den) {
            (Some(n), Some(d)) => Some(Self::new(n, d)),
            // Beyond 128 bits: the nearest representable value (reports only).
            _ => Some(Self::new(
                (self.to_f64() / other.to_f64() * 1e18) as u128,
                1_000_000_000_000_000_000,
            )),
        }
    }
}

impl PartialOrd for Ratio {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ratio {
    fn cmp(&self, other: &Self) -> Ordering {
        wide_mul(self.num, other.den).cmp(&wide_mul(other.num, self.den))
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
    /// `Σ (a_0 − a_i)` over the receivers that arrive before the root. PAP §3.1 treats such a
    /// receiver as arriving with the root "and add\[s\] `a_i − a_0` in calculating the total
    /// communication time": the OPT bounds below include it (`total_elapsed` does when the exits
    /// are measured against these true arrivals, as the PAP driver's are).
    pub early_wait: u128,
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
        let a0 = a.first().copied().unwrap_or(0);
        let early_wait = a.iter().map(|&ai| u128::from(a0.saturating_sub(ai))).sum();
        Self {
            procs: n as u64,
            mean_arrival: mean,
            average_imbalance,
            worst_imbalance: hi - lo,
            delta: hi.saturating_sub(a0),
            early_wait,
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

    /// Lemma 1: `OPT(PAP) ≤ T` non-blocking, `≤ Δ/n + T` blocking (`nearopt`'s `ē`), plus
    /// `early_wait / n` (§3.1's rule for receivers before the root).
    pub fn opt_upper(&self, mode: PapMode, t: Time) -> Ratio {
        let n = u128::from(self.procs);
        let base = match mode {
            PapMode::NonBlocking => n * u128::from(t),
            PapMode::Blocking => u128::from(self.delta) + n * u128::from(t),
        };
        Ratio::new(base + self.early_wait, n)
    }

    /// Lemma 2: `OPT(PAP) ≥ (n−1)/n · T` non-blocking, `≥ (Δ + (n−1)·T) / n` blocking, plus
    /// `early_wait / n`.
    pub fn opt_lower(&self, mode: PapMode, t: Time) -> Ratio {
        let n = u128::from(self.procs);
        let receivers = n.saturating_sub(1) * u128::from(t);
        let base = match mode {
            PapMode::NonBlocking => receivers,
            PapMode::Blocking => u128::from(self.delta) + receivers,
        };
        Ratio::new(base + self.early_wait, n)
    }

    /// `PERF(r, PAP) = ē / OPT(PAP)` lies in `[ē / opt_upper, ē / opt_lower]`; `None` where
    /// a bound is 0 (a single process: nothing to broadcast).
    pub fn perf(&self, mode: PapMode, t: Time) -> (Option<Ratio>, Option<Ratio>) {
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
        assert_eq!((lo, hi), (Some(Ratio::new(3, 4)), Some(Ratio::new(1, 1))));
        assert_eq!(m.early_wait, 0);
    }

    #[test]
    fn receivers_before_the_root_add_their_wait_to_opt() {
        // a = (10, 4, 10, 12): receiver 1 waits 6 for the root (§3.1); Δ = 2.
        let m = PapMetrics::new(&[10, 4, 10, 12], &[15, 15, 25, 22]);
        assert_eq!((m.early_wait, m.delta), (6, 2));
        // Lemma 1 non-blocking with T = 5: T + 6/4; blocking: (2 + 20 + 6)/4.
        assert_eq!(m.opt_upper(PapMode::NonBlocking, 5), Ratio::new(26, 4));
        assert_eq!(m.opt_upper(PapMode::Blocking, 5), Ratio::new(28, 4));
        // Lemma 2: (15 + 6)/4 and (2 + 15 + 6)/4.
        assert_eq!(m.opt_lower(PapMode::NonBlocking, 5), Ratio::new(21, 4));
        assert_eq!(m.opt_lower(PapMode::Blocking, 5), Ratio::new(23, 4));
        // e = (5, 11, 15, 10): Σe = 41 includes the wait.
        assert_eq!(m.total_elapsed, 41);
        assert_eq!(
            PapMetrics::new(&[0], &[0]).perf(PapMode::Blocking, 5).1,
            None
        );
    }

    #[test]
    fn ratios_compare_exactly() {
        assert!(Ratio::new(1, 3) < Ratio::new(334, 1000));
        assert_eq!(Ratio::new(2, 6), Ratio::new(1, 3));
        assert_eq!(Ratio::new(3, 1), Ratio::new(9, 3));
        // Products beyond 128 bits still compare exactly (saturation would say Equal).
        let big = 1u128 << 100;
        assert!(Ratio::new(big, (1 << 30) + 1) < Ratio::new(big, 1 << 30));
        assert_eq!(wide_mul(u128::MAX, u128::MAX), (u128::MAX - 1, 1));
        assert_eq!(wide_mul(1 << 64, 1 << 64), (1, 0));
        assert_eq!(Ratio::new(1, 2).over(Ratio::new(0, 1)), None);
    }
}
