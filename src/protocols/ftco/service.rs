//! Service distance (FTCO App. A, Alg. 1 line 6, Alg. 2 `should_handle`), the message
//! timeout `f_timeout` (Alg. 4, App. A) and the slack of `f_ETA` (§4, "Data Propagation
//! Disruptions").

use crate::{Rank, Time};

/// Which nodes a step prioritizes (FTCO App. A). `0` is the wild card of Alg. 2 line 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum ServiceDistance {
    /// No prioritization: every step serves distance 0, the wild card (Alg. 1 then reads: tree
    /// progress, any message by type priority, any fault-tolerance action).
    None,
    /// Randomized Service-Distance `⌈log_r(Y)⌉`, `Y ~ U(0, 1]`, with `r = 1 / inverse_r`
    /// (`inverse_r >= 2`, the paper's `0 < r <= 1/2`). `Y` is a hash of `(seed, rank, step)`,
    /// so the automaton stays a pure function of its inputs.
    Rsd {
        /// `1 / r`.
        inverse_r: u32,
        /// Seed of the hash.
        seed: u64,
    },
    /// Deterministic Intervals Service-Distance. App. A fixes the proportions (half of each
    /// interval for distance 1, a quarter for 2, …) and the interval length (four times the
    /// number of distance-1 nodes) but not the pattern; ftcoll interleaves them as a ruler
    /// sequence: in an interval of `I` steps (`4 · degree` rounded up to a power of two), step
    /// `j` serves distance `1 + trailing_zeros(j + 1)`, except the last step of the interval,
    /// which is the wild card. Interleaving bounds the wait of distance `d` by `2^d` steps
    /// instead of a whole interval, and the wild card keeps every distance served (App. A's "no
    /// starvation") even beyond `log2 I`.
    Disd,
}

/// SplitMix64's finalizer: a stateless hash for RSD.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl ServiceDistance {
    /// The distance served by `rank` in step `now` (0: any); `degree` is the number of
    /// distance-1 nodes of `rank`.
    pub fn at(&self, rank: Rank, degree: u64, now: Time) -> u32 {
        match *self {
            Self::None => 0,
            Self::Rsd { inverse_r, seed } => {
                let m = u128::from(inverse_r.max(2));
                // Y = (u + 1) / 2^64 in (0, 1]; d = ⌈log_r Y⌉ is the least d with Y > r^d
                // (d = 0 only for Y = 1, the wild card).
                let y = u128::from(mix(seed ^ mix(u64::from(rank) ^ mix(now)))) + 1;
                let mut threshold = (1u128 << 64) / m;
                let mut d = 1;
                if y == 1u128 << 64 {
                    return 0;
                }
                while y <= threshold && d < 64 {
                    d += 1;
                    threshold /= m;
                }
                d
            }
            Self::Disd => {
                let interval = (4 * degree.max(1)).next_power_of_two();
                let j = now % interval;
                if j == interval - 1 {
                    0
                } else {
                    1 + (j + 1).trailing_zeros()
                }
            }
        }
    }
}

/// `f_timeout(me, x)` (Alg. 4 lines 5 and 22, App. A): how long `me` waits for an ACK from `x`,
/// and the interval between KEEPALIVEs. FTCO says only that it is "proportional to the degree of
/// the destination node and the distance between the source and destination"; ftcoll uses
///
/// `f_timeout(me, x) = round_trip + per_load · (degree(x) + degree(me)) · distance(me, x)`
///
/// `round_trip` is the unloaded round trip (`2L + 4`: send step, `L + 1` to the queue, one step
/// to handle it, the ACK's send step, `L + 1` back, one step to handle the ACK). `x` may first
/// have to handle and forward DATA from each of its neighbours (DATA and tree sends have
/// priority), and `me` reads ACKs after its own DATA and KEEPALIVEs, hence the two degrees;
/// the factor `distance` follows the paper (a re-parented node two levels away is served less
/// often by a nepotistic service distance). A checker can set it too short on purpose.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TimeoutRule {
    /// Steps of an unloaded round trip.
    pub round_trip: Time,
    /// Steps allowed per neighbour of either end, per unit of tree distance.
    pub per_load: Time,
}

impl TimeoutRule {
    /// The default rule for latency `L` (steps): `round_trip = 2L + 4`, `per_load = 2`.
    pub fn for_latency(latency_steps: u64) -> Self {
        Self {
            round_trip: 2 * latency_steps + 4,
            per_load: 2,
        }
    }

    /// `f_timeout` for the given degrees and tree distance.
    pub fn timeout(&self, degree_me: u64, degree_x: u64, distance: u32) -> Time {
        self.round_trip.saturating_add(
            self.per_load
                .saturating_mul(degree_me.saturating_add(degree_x))
                .saturating_mul(u64::from(distance.max(1))),
        )
    }
}

/// How much later than the fault-free schedule a process expects the result (Bcast value or
/// Allreduce result) before it sends KEEPALIVEs up (`f_ETA`, §4 "Data Propagation
/// Disruptions", Alg. 4 line 21). The paper computes `f_ETA` "assuming no nodes fail" and leaves
/// the function open (§4 lists `f_ETA(n) → N` among the functions "which calculate certain
/// parameters without traversing the tree"). The gather ETA (a parent awaiting its children's
/// partials) is exact under every rule: a late partial is how an inactive child is detected.
///
/// With [`Self::Exact`] any delay anywhere in the gather makes every process below the roots
/// pass its ETA and exchange a KEEPALIVE and an ACK with its live parent; a slack lets a live
/// parent that is itself still recovering finish before its children ask. A slack never
/// suspects anyone (suspicion needs an unanswered message, Alg. 4 line 5); it only delays the
/// detection of a parent that failed after the gather.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum EtaRule {
    /// The fault-free arrival time itself (the default): a fault-free run sends no KEEPALIVE
    /// and one late step makes a waiting process ask.
    #[default]
    Exact,
    /// A process whose parent `p` is not a root expects the result one recovery of `p` later:
    /// `f_timeout(p, parent(p)) + round_trip`, the time `p` needs to suspect a failed parent
    /// (Alg. 4 line 5) and to fetch the result from the next ancestor (a KEEPALIVE answered
    /// with DATA, one unloaded round trip). Children of a root keep the exact ETA (a root
    /// never fails).
    ParentRecovery,
    /// As [`Self::ParentRecovery`], summed over every non-root ancestor: a process waits for
    /// each ancestor above it to recover once, so only the processes right below a failed
    /// node ask (the detection of a failed parent is later by the whole sum).
    AncestorRecovery,
}

impl EtaRule {
    /// The rule's command-line name: `exact`, `parent-recovery` or `ancestor-recovery`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Exact => "exact",
            Self::ParentRecovery => "parent-recovery",
            Self::AncestorRecovery => "ancestor-recovery",
        }
    }
}

impl core::fmt::Display for EtaRule {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

impl core::str::FromStr for EtaRule {
    type Err = alloc::string::String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "exact" => Ok(Self::Exact),
            "parent-recovery" => Ok(Self::ParentRecovery),
            "ancestor-recovery" => Ok(Self::AncestorRecovery),
            other => Err(alloc::format!(
                "unknown ETA rule '{other}': expected exact, parent-recovery or ancestor-recovery"
            )),
        }
    }
}
