//! The model-driven choice of the gossip time `T` and the correction time `C` (CG §III.A–D,
//! Lemma 1, Eq. 2–5, Appendix B).
//!
//! Everything is the paper's approximation, computed literally:
//!
//! - **Lemma 1 (Eq. 1)**, the expected number of g-nodes at time `t` on `N` processes of which `n`
//!   are active: `c(t + O) = c(t) + (n − c(t))·[1 − (1 − 1/(N − 1))^c(t − L − O)]`, `c(0) = 1`,
//!   `c(t < 0) = 0` ([`Model::gnodes`]);
//! - **Eq. 2**, the distribution of the longest run of consecutive non-g-nodes once correction
//!   starts, with `c = c(T + L + O)`: `p(K) = c²(N − c)^K / N^(K+2)`, `α_K = 1 − (1 − p(K))^N`,
//!   `p_K = α_K · Π_{i=1}^{N−K−1} (1 − α_{K+i})` ([`Model::longest_gap`]);
//! - **`K̄`** (Claim 2): the smallest `K` with `Σ_{i=K+1}^{N−1} p_i < δ` ([`Model::k_bar`]);
//! - **Eq. 3** (OCG): `T_opt = argmin_T T + 2L + (2 + K̄)O`, with `C = K̄O + L + O`;
//! - **Eq. 4** (CCG): `T_opt = argmin_T T + 2L + (2 + 2K̄)O`;
//! - **Appendix B** (FCG, `f = 1`): `q(G, V) = c^V (N − c)^(G−V) (G−2)! / (N^G (V−2)! (G−V)!)`,
//!   `β_G = 1 − (1 − q(G, V))^N`, `q_G = β_G Π_{j>G} (1 − β_j)`, `Ḡ_V` the smallest `G` with
//!   `Σ_{i=G+1}^{N} q_i < δ` ([`Model::g_bar`]) and **Eq. 5**
//!   `T_opt = argmin_T T + 4Ḡ_V O + L − 13O` with `V = 5`.
//!
//! Time is in LogP steps, `T` a multiple of `O` (the model advances in steps of `O` and, like the
//! paper, needs `O | L`). **Ties.** Several `T` can reach the minimum; the paper recommends "the
//! `T` that can withstand the largest reduction in δ". ftcoll reads it as: among the minimizers,
//! the one whose bound (`K̄` or `Ḡ_V`) has the smallest tail probability, so that it keeps its
//! bound, hence its latency, for the smallest `δ` ([`Plan::t`]; [`Plan::first_minimizer`] is the
//! smallest minimizer). [`Plan::recommended_t`] adds the one `O` the paper added to `T` in all
//! its experiments ("In all our experiments, we added one O to T"). With this reading
//! `recommended_t` is Fig. 3's `T = 24` (OCG, `N = n = 1024`, `L = O = 1`, `δ = 6.93·10⁻⁷`) and
//! Table 7's `T` for OCG (32), CCG with `f̂ = 3` (34) and FCG (37) at `N = 4096`, `L = 2`,
//! `O = 1`; Eq. 3's minimum there, 42, is Table 7's OCG latency. Fig. 5's CCG `T = 25` is not
//! a minimizer of Eq. 4 (they are 24 and 26): `lab/tests/protocols/gossip_plan.rs`,
//! docs/reference/gossip.md ("The model", "Ties decide Fig. 5 and Table 7 differently").
//!
//! Cost: the search visits every candidate `T` below the best latency found, but skips, with a
//! proof, each whose chain bound must exceed what could still win (a window of the bound's
//! tail already reaches `δ`), and stops once Lemma 1's count can no longer change; Lemma 1 is
//! iterated once per search. The answer is the exhaustive search's; `N = 2^24` takes well under
//! a second. With `n < N/64` active processes the optimum lies `O(N/n)` steps out, so above
//! `N = 4096` such a plan is refused ([`Model::plan`]).

use alloc::vec::Vec;
use core::fmt;

use super::math::{exp, exp_m1, ln, ln_1p};
use crate::topology::LogP;
use crate::Time;

/// Largest `N` the model accepts (its cost is `O(N)` per candidate `T`).
pub const MAX_MODEL_PROCS: u32 = 1 << 24;

/// The largest `N` at which [`Model::plan`] takes any `n`; above it `n >= N/64`, since with
/// fewer active processes the optimum lies `O(N/n)` steps out (docs/performance.md).
const SLOW_PLAN_PROCS: u32 = 4096;

/// `V`, the g-nodes per chain of FCG's model (Eq. 5 uses `Ḡ_5`); FCG needs `N >= V`.
const FCG_CHAIN: u32 = 5;

/// Why a model cannot be built or evaluated.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum PlanError {
    /// A parameter is outside its allowed range (`field` as users name it: `procs`, `active`,
    /// `L`, `delta`, `faults`).
    OutOfRange {
        /// The parameter.
        field: &'static str,
        /// What is allowed.
        allowed: &'static str,
    },
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::OutOfRange { field, allowed } => write!(f, "{field}: expected {allowed}"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for PlanError {}

/// The protocol a plan is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum PlanProtocol {
    /// Opportunistic Corrected Gossip, Eq. 3.
    Ocg,
    /// Checked Corrected Gossip, Eq. 4.
    Ccg,
    /// Failure-proof Corrected Gossip with `f = 1`, Eq. 5 (Appendix B derives it for `f = 1`
    /// only).
    Fcg,
}

impl fmt::Display for PlanProtocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Ocg => "ocg",
            Self::Ccg => "ccg",
            Self::Fcg => "fcg",
        })
    }
}

/// A chain bound for one `T`: `K̄` (Eq. 2) or `Ḡ_V` (Appendix B), and the tail probability
/// `Σ_{i > bound} p_i` it leaves (below `δ`).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ChainBound {
    /// `K̄` or `Ḡ_V`.
    pub bound: u32,
    /// The probability that the longest chain exceeds `bound`, as the model computes it.
    pub tail: f64,
}

/// The model's choice for one protocol.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Plan {
    /// The protocol.
    pub protocol: PlanProtocol,
    /// `T_opt`: among the gossip times reaching the minimum of the protocol's latency formula,
    /// the one whose chain bound has the smallest tail (it keeps its bound, hence its latency,
    /// for the largest reduction of `δ`: the paper's tie rule as ftcoll reads it).
    pub t: Time,
    /// The smallest gossip time reaching the minimum (equal to `t` unless there are ties).
    pub first_minimizer: Time,
    /// Expected g-nodes when correction starts, `c(T + L + O)`.
    pub gnodes: f64,
    /// `K̄` (OCG, CCG) or `Ḡ_5` (FCG) at `T`.
    pub chain: ChainBound,
    /// The correction time the model predicts at `t`: OCG's fixed `C = K̄O + L + O` (Claim 2),
    /// CCG's `2K̄O + L + O` (§III.C), FCG's `4Ḡ_V O + L − 13O` (Appendix B, `T_1–4`).
    pub correction: Time,
    /// The same formula at [`Plan::recommended_t`], the gossip time a run uses: more g-nodes
    /// when correction starts, so `K̄` and `C` can be smaller than at `t`. This is the `C` that
    /// OCG runs with (at Table 7's `N = 4096`, `L = 2`, `O = 1`: `K̄ = 4`, `C = 7` at `T = 32`,
    /// against `K̄ = 5`, `C = 8` at `t = 31`).
    pub run_correction: Time,
    /// The predicted latency: Eq. 3 `T + 2L + (2 + K̄)O`, Eq. 4 `T + 2L + (2 + 2K̄)O` or Eq. 5
    /// `T + 4Ḡ_V O + L − 13O` (as printed: Eq. 5 has no `L + O` wait between phases).
    pub latency: Time,
    /// The overhead `O` (for [`Plan::recommended_t`]).
    pub overhead: Time,
}

impl Plan {
    /// `T + O`: the paper added one `O` to the model's `T` in all its experiments (§III.B,
    /// "Discussion").
    pub fn recommended_t(&self) -> Time {
        self.t + self.overhead
    }
}

/// CG's model for `N` processes, `n` of them active, under LogP `(L, O)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Model {
    procs: u32,
    active: u32,
    logp: LogP,
}

/// `δ` such that `m` runs all succeed with probability at least `1 − ψ`:
/// `δ = 1 − (1 − ψ)^(1/m)` (§III.B). `m = 10⁶`, `ψ = 0.5` gives the paper's `6.93·10⁻⁷`.
pub fn delta_for_runs(runs: u64, failure: f64) -> f64 {
    // 1 − e^{ln(1 − ψ)/m}, without cancellation.
    -exp_m1(ln_1p(-failure) / runs.max(1) as f64)
}

/// `1 − (1 − p)^N` without cancellation.
fn at_least_once(p: f64, n: f64) -> f64 {
    if p >= 1.0 {
        1.0
    } else {
        -exp_m1(n * ln_1p(-p))
    }
}

impl Model {
    /// `N = procs` in `2..=2^24`, `n = active` in `1..=N`, `O | L` (the model's time step is
    /// `O`; the paper assumes "L is divisible by O").
    pub fn new(procs: u32, active: u32, logp: LogP) -> Result<Self, PlanError> {
        if !(2..=MAX_MODEL_PROCS).contains(&procs) {
            return Err(PlanError::OutOfRange {
                field: "procs",
                allowed: "an integer in 2..=16777216",
            });
        }
        if active == 0 || active > procs {
            return Err(PlanError::OutOfRange {
                field: "active",
                allowed: "an integer in 1..=procs",
            });
        }
        if logp.latency() % logp.overhead() != 0 {
            return Err(PlanError::OutOfRange {
                field: "L",
                allowed: "a multiple of o (CG's model assumes L divisible by O)",
            });
        }
        Ok(Self {
            procs,
            active,
            logp,
        })
    }

    /// `N`.
    pub fn procs(&self) -> u32 {
        self.procs
    }

    /// `n`.
    pub fn active(&self) -> u32 {
        self.active
    }

    /// `L` and `O`.
    pub fn logp(&self) -> LogP {
        self.logp
    }

    /// Lemma 1: `c(kO)` for `k = 0..=steps` (entry `k` is the expected g-node count at time `kO`).
    pub fn gnodes(&self, steps: u64) -> Vec<f64> {
        let mut lemma = Lemma1::new(self);
        let mut c = Vec::with_capacity(steps as usize + 1);
        c.push(lemma.current());
        for _ in 0..steps {
            c.push(lemma.advance());
        }
        c
    }

    /// `c(T + L + O)`: expected g-nodes when correction starts after gossip time `t`.
    pub fn gnodes_at_correction(&self, t: Time) -> f64 {
        let o = self.logp.overhead();
        let k = t / o + self.logp.latency() / o + 1;
        let mut lemma = Lemma1::new(self);
        for _ in 0..k {
            lemma.advance();
        }
        lemma.current()
    }

    /// Eq. 2: `p_K` for `K = 0..N` given `colored = c(T + L + O)` expected g-nodes.
    pub fn longest_gap(&self, colored: f64) -> Vec<f64> {
        let n = self.procs as usize;
        let alpha: Vec<f64> = (0..n).map(|k| self.alpha(colored, k as u32)).collect();
        let mut p = alpha.clone();
        let mut suffix = 1.0; // Π_{j > K} (1 − α_j)
        for k in (0..n).rev() {
            p[k] = alpha[k] * suffix;
            suffix *= 1.0 - alpha[k];
        }
        p
    }

    /// `α_K = 1 − (1 − p(K))^N`, `p(K) = (c/N)²(1 − c/N)^K`.
    fn alpha(&self, colored: f64, k: u32) -> f64 {
        let big_n = f64::from(self.procs);
        let share = (colored / big_n).min(1.0);
        let ln_p = if k == 0 {
            2.0 * ln(share)
        } else {
            2.0 * ln(share) + f64::from(k) * ln((big_n - colored).max(0.0) / big_n)
        };
        at_least_once(exp(ln_p), big_n)
    }

    /// `K̄` (Claim 2): the smallest `K` with `Σ_{i=K+1}^{N−1} p_i < δ`, for gossip time `t`.
    pub fn k_bar(&self, t: Time, delta: f64) -> ChainBound {
        self.chain_bound(self.gnodes_at_correction(t), delta)
    }

    /// Eq. 2's bound for `colored` g-nodes: the smallest `K` with `Σ_{i=K+1}^{N−1} p_i < δ`
    /// (with `δ = 0.01`, CG Fig. 1's 99 %-probable longest uncolored chain).
    pub fn chain_bound(&self, colored: f64, delta: f64) -> ChainBound {
        let top = self.procs - 1;
        smallest_below(delta, top, 0, |k| self.alpha(colored, k))
    }

    /// `Ḡ_V` (Appendix B): the smallest `G >= V` with `Σ_{i=G+1}^{N} q_i < δ`, for gossip time
    /// `t` and `v >= 2` g-nodes per chain.
    pub fn g_bar(&self, t: Time, v: u32, delta: f64) -> ChainBound {
        self.g_bar_of(self.gnodes_at_correction(t), v, delta)
    }

    /// [`Model::g_bar`] given `colored = c(T + L + O)`.
    fn g_bar_of(&self, colored: f64, v: u32, delta: f64) -> ChainBound {
        let v = v.max(2);
        if v > self.procs {
            return ChainBound {
                bound: self.procs,
                tail: 0.0,
            };
        }
        smallest_below(delta, self.procs, v, |g| self.beta(colored, v, g))
    }

    /// `β_G = 1 − (1 − q(G, V))^N` for `G >= V >= 2`.
    fn beta(&self, colored: f64, v: u32, g: u32) -> f64 {
        let big_n = f64::from(self.procs);
        let share = (colored / big_n).min(1.0);
        let extra = g - v;
        // ln C(G − 2, V − 2) = Σ_{i=1}^{V−2} ln((G − V + i)/i), in O(V) per term: the search
        // reads a few terms, so a table over all N would cost more than it saves.
        let ln_binom: f64 = (1..=v - 2)
            .map(|i| ln(f64::from(extra + i) / f64::from(i)))
            .sum();
        let ln_q = f64::from(v) * ln(share)
            + if extra == 0 {
                0.0
            } else {
                f64::from(extra) * ln((big_n - colored).max(0.0) / big_n)
            }
            + ln_binom;
        at_least_once(exp(ln_q), big_n)
    }

    /// GOS's gossip time (CG §IV.A, §IV.B.1): the smallest `T` (a multiple of `O`) whose
    /// expected number of live processes still uncolored when the last gossip message lands,
    /// `n − c(T + L + O)` by Lemma 1, is below `δ`. No `O` is added: at `N = 4096`, `L = 2`,
    /// `O = 1`, `δ = 6.9315·10⁻⁷` this is Table 7's `T = 50` as is (`lab/tests/reproduce/reproduce_cg.rs`).
    pub fn gos_time(&self, delta: f64) -> Result<Time, PlanError> {
        if !(delta > 0.0 && delta < 1.0) {
            return Err(PlanError::OutOfRange {
                field: "delta",
                allowed: "a probability strictly between 0 and 1",
            });
        }
        let o = self.logp.overhead();
        let lag = self.logp.latency() / o + 1;
        let n = f64::from(self.active);
        // Past 8N + 64 steps (or once Lemma 1 stops moving) the answer is that cap, as it was
        // when the search doubled its horizon up to it.
        let mut limit = 64u64;
        while limit < 8 * u64::from(self.procs) + 64 {
            limit *= 2;
        }
        let mut lemma = Lemma1::new(self);
        for _ in 0..lag {
            lemma.advance();
        }
        for k in 0..=limit {
            if n - lemma.current() < delta {
                return Ok(k * o);
            }
            if lemma.is_settled() {
                break;
            }
            lemma.advance();
        }
        Ok(limit * o)
    }

    /// The plan for `protocol` at `δ`: `T_opt` by Eq. 3, 4 or 5, the smallest minimizer. FCG's
    /// plan needs `N >= 5` (Eq. 5's `Ḡ_5` counts chains of five g-nodes): a smaller `N` is
    /// [`PlanError::OutOfRange`] naming `procs`. Above `N = 4096` the plan needs `n >= N/64`
    /// (else `OutOfRange` naming `active`): the search is exhaustive over `T`, and with few
    /// active processes the optimum lies `O(N/n)` steps out.
    pub fn plan(&self, protocol: PlanProtocol, delta: f64) -> Result<Plan, PlanError> {
        if !(delta > 0.0 && delta < 1.0) {
            return Err(PlanError::OutOfRange {
                field: "delta",
                allowed: "a probability strictly between 0 and 1",
            });
        }
        if self.procs > SLOW_PLAN_PROCS && self.active < self.procs / 64 {
            return Err(PlanError::OutOfRange {
                field: "active",
                allowed: "at least N/64 once N > 4096 (with fewer active processes Lemma 1's \
                          count creeps for O(N/n) steps and the search over T takes minutes)",
            });
        }
        if protocol == PlanProtocol::Fcg && self.procs < FCG_CHAIN {
            return Err(PlanError::OutOfRange {
                field: "procs",
                allowed: "an integer in 5..=16777216 for FCG (Appendix B's chains hold V = 5 \
                          g-nodes)",
            });
        }
        let o = self.logp.overhead();
        let l = self.logp.latency();
        let mut best: Option<Plan> = None;
        let mut first_minimizer: Time = 0;
        let mut t: Time = 0;
        // Latency >= T, so no T at or past the best latency can win; the cap only guards
        // against a model that never settles.
        let cap = (u64::from(self.procs) + 8) * 8 * o + 4 * l;
        // A latency some T reaches, found where Lemma 1 has (nearly) settled and the chain
        // bound is quick to compute: every T whose bound provably exceeds what it allows is
        // skipped, which leaves the search's outcome as it was (a skipped T loses to the best).
        let reachable = self.reachable_latency(protocol, delta, cap);
        let mut lemma = Lemma1::new(self);
        for _ in 0..l / o + 1 {
            lemma.advance();
        }
        while best.is_none_or(|b| t < b.latency) && t <= cap {
            let bar = best.map_or(reachable, |b| b.latency.min(reachable));
            let Some(plan) = self.plan_within(protocol, t, lemma.current(), delta, bar) else {
                if lemma.is_settled() {
                    // Every later T has this T's bound and a larger latency.
                    break;
                }
                t += o;
                lemma.advance();
                continue;
            };
            let settled = lemma.is_settled();
            match best {
                Some(b) if plan.latency > b.latency => {}
                // A tie: keep the T whose bound survives the smaller δ (smaller tail).
                Some(b) if plan.latency == b.latency => {
                    if plan.chain.tail < b.chain.tail {
                        best = Some(plan);
                    }
                }
                _ => {
                    first_minimizer = t;
                    best = Some(plan);
                }
            }
            if settled {
                break;
            }
            t += o;
            lemma.advance();
        }
        let mut plan = best.unwrap_or_else(|| self.unbounded_plan(protocol, 0, delta));
        plan.first_minimizer = first_minimizer;
        Ok(self.with_run_correction(plan, delta))
    }

    /// The latency of the first `T` at which Lemma 1's count is within half a process of `n`
    /// or stops moving (`u64::MAX` if none is found below `cap`): an upper bound on the optimum.
    fn reachable_latency(&self, protocol: PlanProtocol, delta: f64, cap: Time) -> Time {
        let o = self.logp.overhead();
        let mut lemma = Lemma1::new(self);
        for _ in 0..self.logp.latency() / o + 1 {
            lemma.advance();
        }
        let n = f64::from(self.active);
        let mut t = 0;
        while t <= cap {
            if n - lemma.current() < 0.5 || lemma.is_settled() {
                return self
                    .plan_within(protocol, t, lemma.current(), delta, Time::MAX)
                    .map_or(Time::MAX, |p| p.latency);
            }
            t += o;
            lemma.advance();
        }
        Time::MAX
    }

    /// The model's numbers for `protocol` at a given gossip time `t` (no minimization).
    pub fn plan_at(&self, protocol: PlanProtocol, t: Time, delta: f64) -> Plan {
        let plan = self.unbounded_plan(protocol, t, delta);
        self.with_run_correction(plan, delta)
    }

    /// [`Model::plan_within`] with no bar, `run_correction` not yet set.
    fn unbounded_plan(&self, protocol: PlanProtocol, t: Time, delta: f64) -> Plan {
        let colored = self.gnodes_at_correction(t);
        self.plan_within(protocol, t, colored, delta, Time::MAX)
            .unwrap_or_else(|| unreachable!("no latency exceeds Time::MAX"))
    }

    /// `plan` with its `run_correction`: the correction formula at `T + O`.
    fn with_run_correction(&self, mut plan: Plan, delta: f64) -> Plan {
        let run_t = plan.recommended_t();
        plan.run_correction = self.unbounded_plan(plan.protocol, run_t, delta).correction;
        plan
    }

    /// [`Model::plan_at`] given `colored = c(T + L + O)`, or `None` when the latency provably
    /// exceeds `bar` (the chain bound it would need is too small for this `T`).
    fn plan_within(
        &self,
        protocol: PlanProtocol,
        t: Time,
        colored: f64,
        delta: f64,
        bar: Time,
    ) -> Option<Plan> {
        let o = self.logp.overhead();
        let l = self.logp.latency();
        let gnodes = colored;
        // The largest chain bound whose latency stays within `bar`.
        let room = bar.saturating_sub(t);
        let most = |per_unit: Time, fixed: Time| -> u64 {
            if bar == Time::MAX {
                u64::MAX
            } else {
                room.saturating_sub(fixed) / per_unit
            }
        };
        let (chain, correction, latency) = match protocol {
            PlanProtocol::Ocg => {
                let k = self.bounded_chain(colored, delta, most(o, 2 * l + 2 * o))?;
                let c = u64::from(k.bound) * o + l + o;
                (k, c, t + 2 * l + (2 + u64::from(k.bound)) * o)
            }
            PlanProtocol::Ccg => {
                let k = self.bounded_chain(colored, delta, most(2 * o, 2 * l + 2 * o))?;
                let c = 2 * u64::from(k.bound) * o + l + o;
                (k, c, t + 2 * l + (2 + 2 * u64::from(k.bound)) * o)
            }
            PlanProtocol::Fcg => {
                // t + 4Ḡo + l − 13o <= bar.
                let most_g = if bar == Time::MAX {
                    u64::MAX
                } else {
                    (room + 13 * o).saturating_sub(l) / (4 * o)
                };
                let g = self.bounded_g(colored, delta, most_g)?;
                // Ḡ_5 >= 5 once N >= 5, so 4Ḡ − 13 >= 7; below that the formula has no meaning
                // (`plan` refuses it) and saturates here instead of wrapping.
                let c = (4 * u64::from(g.bound) * o + l).saturating_sub(13 * o);
                (g, c, t + c)
            }
        };
        Some(Plan {
            protocol,
            t,
            first_minimizer: t,
            gnodes,
            chain,
            correction,
            run_correction: correction,
            latency,
            overhead: o,
        })
    }

    /// Eq. 2's bound for `colored`, or `None` if it provably exceeds `most`.
    fn bounded_chain(&self, colored: f64, delta: f64, most: u64) -> Option<ChainBound> {
        let top = self.procs - 1;
        let alpha = |k| self.alpha(colored, k);
        // α_K falls from K = 0 on: the window right above `most` holds the largest terms.
        if exceeds(delta, top, most, 0, alpha) {
            return None;
        }
        Some(smallest_below(delta, top, 0, alpha))
    }

    /// Appendix B's `Ḡ_5` for `colored`, or `None` if it provably exceeds `most`.
    fn bounded_g(&self, colored: f64, delta: f64, most: u64) -> Option<ChainBound> {
        if self.procs < FCG_CHAIN {
            return Some(self.g_bar_of(colored, FCG_CHAIN, delta));
        }
        // Ḡ_5 >= 5.
        if most < u64::from(FCG_CHAIN) {
            return None;
        }
        // q(G, V) peaks where (1 − c/N)(G − 1)/(G − V + 1) = 1, near G = (V − 2)N/c.
        let peak = (f64::from(FCG_CHAIN - 2) * f64::from(self.procs) / colored.max(1.0))
            .min(f64::from(self.procs)) as u32;
        if exceeds(delta, self.procs, most, peak, |g| {
            self.beta(colored, FCG_CHAIN, g)
        }) {
            return None;
        }
        Some(self.g_bar_of(colored, FCG_CHAIN, delta))
    }
}

/// Whether the smallest bound `b` with `Σ_{i>b} a_i Π_{j>i}(1 − a_j) < δ` is provably above
/// `most`: that sum over `i > most` is `1 − Π_{j>most}(1 − a_j)`, at least the same product's
/// complement over any window of terms above `most`; a window reaching `δ` proves it. The
/// window is put around `peak`, where the terms are largest.
fn exceeds(delta: f64, top: u32, most: u64, peak: u32, alpha: impl Fn(u32) -> f64) -> bool {
    const WINDOW: u32 = 4096;
    if most >= u64::from(top) {
        return false;
    }
    let margin = delta * (1.0 + 1.0 / 1_099_511_627_776.0);
    // From `peak` on the terms fall, so `w` of them starting there hold at least
    // `1 − (1 − a_{start+w})^w`: doubling `w` proves most cases in a few evaluations.
    let start = (most as u32 + 1).max(peak.min(top));
    let mut w: u32 = 1;
    while let Some(j) = start.checked_add(w - 1).filter(|&j| j <= top) {
        let a = alpha(j);
        if -exp_m1(f64::from(w) * ln_1p(-a)) >= margin {
            return true;
        }
        match w.checked_mul(2) {
            Some(next) => w = next,
            None => break,
        }
    }
    let first = (most as u32 + 1)
        .max(peak.saturating_sub(WINDOW / 2))
        .min(top.saturating_sub(WINDOW).max(most as u32 + 1));
    let mut kept = 1.0; // Π (1 − a_j) over the window so far
    for j in first..=top.min(first.saturating_add(WINDOW)) {
        kept *= 1.0 - alpha(j);
        // A margin of 2⁻⁴⁰ over δ keeps rounding from deciding a case at the edge.
        if 1.0 - kept >= margin {
            return true;
        }
    }
    false
}

/// Lemma 1's recurrence step by step, holding only the last `L/O + 1` values:
/// `c(k + 1) = c(k) + (n − c(k))·[1 − (1 − 1/(N − 1))^c(k − L/O − 1)]`.
struct Lemma1 {
    n: f64,
    ln_miss: f64,
    /// `c(k − lag ..= k)`, oldest first.
    window: alloc::collections::VecDeque<f64>,
    lag: usize,
    /// Steps taken; `c(k)` for `k < 0` is 0.
    k: usize,
    /// Consecutive steps that left `c` unchanged.
    still: usize,
}

impl Lemma1 {
    fn new(model: &Model) -> Self {
        let lag = (model.logp.latency() / model.logp.overhead()) as usize + 1;
        let mut window = alloc::collections::VecDeque::with_capacity(lag + 1);
        window.push_back(1.0);
        Self {
            n: f64::from(model.active),
            // ln(1 − 1/(N − 1)); N = 2 makes it −inf: one sender surely hits the only other rank.
            ln_miss: ln_1p(-1.0 / (f64::from(model.procs) - 1.0)),
            window,
            lag,
            k: 0,
            still: 0,
        }
    }

    /// `c(k)`.
    fn current(&self) -> f64 {
        *self.window.back().unwrap_or(&1.0)
    }

    /// Steps to `c(k + 1)` and returns it.
    fn advance(&mut self) -> f64 {
        let c = self.current();
        let senders = if self.k >= self.lag {
            self.window[self.window.len() - 1 - self.lag]
        } else {
            0.0
        };
        let reached = if senders == 0.0 {
            0.0
        } else {
            -exp_m1(senders * self.ln_miss)
        };
        let next = c + (self.n - c) * reached;
        self.still = if next == c { self.still + 1 } else { 0 };
        if self.window.len() > self.lag {
            self.window.pop_front();
        }
        self.window.push_back(next);
        self.k += 1;
        next
    }

    /// Whether `c` is constant from here on: the last `lag + 1` values are equal, so every
    /// input of the recurrence is, and it can never move again.
    fn is_settled(&self) -> bool {
        self.k > self.lag && self.still > self.lag
    }
}

/// The smallest `b` in `low..=top` with `Σ_{i=b+1}^{top} a_i Π_{j>i}^{top} (1 − a_j) < δ`, where
/// `a_i = alpha(i)`: the tails of Eq. 2 and of Appendix B's `q_G`. Walks down from `top`, where
/// the tail is 0, and skips the terms that underflow to 0.
fn smallest_below(delta: f64, top: u32, low: u32, alpha: impl Fn(u32) -> f64) -> ChainBound {
    // α decreases geometrically in the index; the terms from where it falls below `negligible`
    // to `top` add up to less than δ·2⁻⁶⁴, too little to move the bound, so the walk starts
    // there (found by bisection) and its cost follows the chain lengths, not `N`.
    let negligible = delta / 18_446_744_073_709_551_616.0 / f64::from(top.max(1));
    let (mut lo, mut hi) = (low, top);
    if alpha(top) < negligible {
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if alpha(mid) < negligible {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
    } else {
        lo = top;
    }
    let mut tail = 0.0; // Σ_{i > b} of the terms
    let mut above = 0.0; // Σ_{i > b + 1}
    let mut suffix = 1.0; // Π_{j > b} (1 − α_j)
    let mut b = lo.min(top);
    loop {
        if tail >= delta {
            // The tail above b is too large: b + 1 is the smallest bound.
            return ChainBound {
                bound: b + 1,
                tail: above,
            };
        }
        if b == low {
            return ChainBound { bound: low, tail };
        }
        let a = alpha(b);
        above = tail;
        tail += a * suffix;
        suffix *= 1.0 - a;
        b -= 1;
    }
}

/// The binomial graph's fault-free latency (CG §IV.B.3): `(2O + L)·⌈log₂ P⌉ + O·⌈log₂ P⌉`.
pub fn big_latency(procs: u32, logp: LogP) -> Time {
    let log = u64::from(ceil_log2(procs));
    logp.hop() * log + logp.overhead() * log
}

/// The binomial graph's work (CG Table 7): every process sends to its `⌈log₂ P⌉` neighbours,
/// `P·⌈log₂ P⌉` messages.
pub fn big_work(procs: u32) -> u64 {
    u64::from(procs) * u64::from(ceil_log2(procs))
}

/// Buntinas' broadcast's fault-free latency (CG §IV.B.2): `2(2O + L)·⌈log₂ N⌉`.
pub fn bfb_latency(procs: u32, logp: LogP) -> Time {
    2 * logp.hop() * u64::from(ceil_log2(procs))
}

fn ceil_log2(p: u32) -> u32 {
    if p <= 1 {
        0
    } else {
        32 - (p - 1).leading_zeros()
    }
}
