//! FTCO: fault-tolerant Bcast, Reduce and Allreduce over k-ary and k-nomial trees, single- and
//! multi-root (Margolin & Barak, FTCO §2–4, App. A), on the single-port step model (§2, §5.2).
//!
//! One automaton, [`FtcoNode`], serves the three collectives; [`FtcoConfig`] names the
//! collective, the topology, the operator and the rules the paper leaves open. The main loop
//! (Alg. 1) is split over the contract's inputs:
//!
//! ```text
//! every step (select_receive, then on_send_slot):
//!   tree progress (Alg. 3)           -> send the next DATA: partial up, result down
//!   else handle a message of the served distance, DATA > KEEPALIVE > ACK   (Alg. 2)
//!   else fault tolerance of the served distance: ACK or KEEPALIVE, alternating (Alg. 4 l. 12–25)
//!   else any message, then any fault-tolerance action (distance 0, the wild card)
//! timeouts (Alg. 4 l. 2–10) are state changes, applied when a timer fires at the instant they
//! expire: a silent parent is replaced by the first ancestor not suspected, a silent child by
//! its topmost children not suspected; suspected nodes are remembered and never re-adopted.
//! ```
//!
//! Two options extend the paper's base algorithm, both off by default: [`Imbalance::Alg5`]
//! (App. B: a process answers before it enters the collective) and
//! [`RootFailure::ReplacedByChildren`] (end of §4: a failed rank 0 is replaced by its
//! children, acting as a group of roots).
//!
//! See `docs/reference/ftco.md` ("Rules the paper leaves open") for every rule the paper leaves
//! open and the choice
//! made here, and `node.rs` (with one module per algorithm below it) for the handlers.

mod msg;
mod node;
mod schedule;
mod service;

use alloc::vec::Vec;

pub use msg::{FtcoMsg, Kind};
pub use node::{FtcoNode, Watch};
pub use service::{EtaRule, ServiceDistance, TimeoutRule};

/// Process imbalance (FTCO App. B, Alg. 5; §5.2.4): what a process does before it enters the
/// collective.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum Imbalance {
    /// Off (the default): a process does nothing before its arrival. Give the driver the
    /// arrivals in `Scenario::arrivals`; it buffers messages until then, so a KEEPALIVE to a
    /// late process goes unanswered and the process can be suspected (a false suspicion).
    #[default]
    Off,
    /// Alg. 5: process `i` is reachable from the driver's arrival on (give the driver no
    /// arrivals, or earlier ones) and enters the collective at `start[i]` (`StartTime_i`, §5.2.4;
    /// missing entries are 0). Before that it runs Alg. 5: it handles its queue with the same
    /// service distance and type priority as Alg. 1 and answers with ACK to DATA and KEEPALIVE,
    /// keeps the DATA, and sends no DATA and no KEEPALIVE (App. B's "limited functionality").
    Alg5 {
        /// `StartTime` of each rank.
        start: Vec<Time>,
    },
}

/// What a root's failure does (FTCO §2 and the end of §4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum RootFailure {
    /// The roots are fault-immune (FTCO §2; the default). Nobody times out on a root.
    #[default]
    Immune,
    /// End of §4: "upon fault the root would be replaced by all its children". Applies to a
    /// single-root Reduce or Allreduce (elsewhere the roots stay immune). Rank 0 can be
    /// suspected. A process that suspects every ancestor up to rank 0 joins the *replacement
    /// group*: the topmost descendants of rank 0 that it does not suspect (its children when
    /// only rank 0 failed), which act as the fully connected roots of a multi-root tree. Each
    /// member sends its partial to every other member. A member that holds the result (from
    /// rank 0, before it failed, or from another member) answers with the result instead. A
    /// member without one combines the group's partials in rank order. In a Reduce, rank 0
    /// also sends the result to its children, and they and the group members report it
    /// (`Complete`). See docs/reference/ftco.md ("What holds", "What does not hold" under "Root
    /// replacement") for what is consistent and what is not.
    ReplacedByChildren,
}

impl RootFailure {
    /// Whether this mode applies to a `collective` with `roots` roots: [`Self::Immune`]
    /// everywhere, [`Self::ReplacedByChildren`] to a single-root Reduce or Allreduce only.
    /// Elsewhere a configuration keeps its roots immune ([`FtcoConfig::replaces_root`]), so a
    /// tool should refuse the pair rather than run another configuration than the one asked.
    ///
    /// ```
    /// use ftcoll::protocols::ftco::RootFailure;
    /// use ftcoll::topology::ftco::Collective;
    ///
    /// assert!(RootFailure::ReplacedByChildren.applies_to(Collective::Reduce, 1));
    /// assert!(!RootFailure::ReplacedByChildren.applies_to(Collective::Bcast, 1));
    /// assert!(!RootFailure::ReplacedByChildren.applies_to(Collective::Allreduce, 2));
    /// assert!(RootFailure::Immune.applies_to(Collective::Bcast, 3));
    /// ```
    pub fn applies_to(self, collective: Collective, roots: u32) -> bool {
        match self {
            Self::Immune => true,
            Self::ReplacedByChildren => roots == 1 && collective != Collective::Bcast,
        }
    }
}

impl Imbalance {
    /// When `rank` enters the collective (Alg. 1); 0 when off.
    pub fn start(&self, rank: Rank) -> Time {
        match self {
            Self::Off => 0,
            Self::Alg5 { start } => start.get(rank as usize).copied().unwrap_or(0),
        }
    }
}

use alloc::sync::Arc;

use crate::automaton::Reduction;
use crate::topology::ftco::{Collective, FtcoTopology};
use crate::topology::TopologyError;
use crate::{Rank, Time};

/// Parameters shared by every process of one FTCO collective.
#[derive(Clone, Debug)]
pub struct FtcoConfig<R: Reduction> {
    /// The tree (FTCO §5.2.1).
    pub topology: FtcoTopology,
    /// Bcast, Reduce or Allreduce.
    pub collective: Collective,
    /// The operator `⊕` (Reduce, Allreduce); it must be commutative (FTCO combines children's
    /// partials in the order the tree delivers them, not in rank order).
    pub op: R,
    /// Each rank's operand (Bcast: only rank 0's, the broadcast value).
    pub initial: fn(Rank) -> R::Value,
    /// `L` in steps (`o = 1`), for `f_ETA` and the default timeout.
    pub latency: u64,
    /// The service-distance function (App. A).
    pub service: ServiceDistance,
    /// `f_timeout` (Alg. 4, App. A).
    pub timeout: TimeoutRule,
    /// The slack of the result's `f_ETA` (§4); [`EtaRule::Exact`] by default.
    pub eta: EtaRule,
    /// Process imbalance (App. B, Alg. 5); [`Imbalance::Off`] by default.
    pub imbalance: Imbalance,
    /// Root failure (§4); [`RootFailure::Immune`] by default.
    pub root_failure: RootFailure,
    /// Allreduce: the fault-free time each root holds the result (the root exchange), by root.
    exchange_done: Vec<Time>,
    /// Reduce: the fault-free time rank 0 has every partial (the collective's latency).
    reduce_done: Time,
    /// Every rank's `(gather, result)` ETA, computed once here rather than by each run's `P`
    /// automata (a tree walk per rank: about 4 % of a 64 K-node Allreduce run).
    eta_table: EtaTable,
}

/// [`schedule::etas`] of every rank, and the fields it was computed from: a configuration
/// whose public fields changed since falls back to computing each rank's (see
/// [`FtcoConfig::etas`]).
#[derive(Clone, Debug)]
struct EtaTable {
    topology: FtcoTopology,
    collective: Collective,
    latency: u64,
    /// Shared: a run clones its configuration (to set its imbalance), not this `O(P)` table.
    etas: Arc<[(Time, Time)]>,
}

impl<R: Reduction> FtcoConfig<R> {
    /// A configuration with no service distance and [`TimeoutRule::for_latency`]; `latency` is
    /// `L` in steps. Errors if `L` is out of the topology's range.
    pub fn new(
        topology: FtcoTopology,
        collective: Collective,
        op: R,
        initial: fn(Rank) -> R::Value,
        latency: u64,
    ) -> Result<Self, TopologyError> {
        let reduce_done = topology.fault_free_latency(Collective::Reduce, latency)?;
        let exchange_done = schedule::exchange_done(&topology, latency)?;
        let etas: Arc<[(Time, Time)]> =
            schedule::eta_table(&topology, collective, latency, &exchange_done, reduce_done)?
                .into();
        Ok(Self {
            topology,
            collective,
            op,
            initial,
            latency,
            service: ServiceDistance::None,
            timeout: TimeoutRule::for_latency(latency),
            eta: EtaRule::Exact,
            imbalance: Imbalance::Off,
            root_failure: RootFailure::Immune,
            exchange_done,
            reduce_done,
            eta_table: EtaTable {
                topology,
                collective,
                latency,
                etas,
            },
        })
    }

    /// `(gather, result)` ETAs of `rank` for `collective`: the fault-free times
    /// ([`schedule::etas`], from the table when it was computed for the current topology,
    /// collective and `L`), the result's plus [`Self::result_slack`].
    pub(crate) fn etas(&self, collective: Collective, rank: Rank) -> (Time, Time) {
        let (gather, result) = self.exact_etas(collective, rank);
        if collective == Collective::Reduce {
            return (gather, result); // No result comes down.
        }
        (gather, result.saturating_add(self.result_slack(rank)))
    }

    fn exact_etas(&self, collective: Collective, rank: Rank) -> (Time, Time) {
        let t = &self.eta_table;
        if t.topology == self.topology && t.collective == collective && t.latency == self.latency {
            if let Some(&etas) = t.etas.get(rank as usize) {
                return etas;
            }
        }
        schedule::etas(
            &self.topology,
            collective,
            self.latency,
            &self.exchange_done,
            self.reduce_done,
            rank,
        )
    }

    /// The slack [`Self::eta`] adds to `rank`'s result ETA: per non-root ancestor `a` counted
    /// ([`EtaRule::ParentRecovery`]: the parent only; [`EtaRule::AncestorRecovery`]: all), one
    /// recovery `f_timeout(a, parent(a)) + round_trip`. 0 for roots and their children, and
    /// under [`EtaRule::Exact`].
    pub fn result_slack(&self, rank: Rank) -> Time {
        let levels = match self.eta {
            EtaRule::Exact => return 0,
            EtaRule::ParentRecovery => 1,
            EtaRule::AncestorRecovery => usize::MAX,
        };
        let mut slack: Time = 0;
        for a in self.topology.ancestors(rank).take(levels) {
            let Some(above) = self.topology.parent(a) else {
                break; // `a` is a root.
            };
            slack = slack
                .saturating_add(self.f_timeout(a, above))
                .saturating_add(self.timeout.round_trip);
        }
        slack
    }

    /// Whether `rank` is fault-immune: every root, unless [`Self::replaces_root`]. FTCO §2
    /// makes one root immune; with several roots ftcoll also treats the other roots as immune
    /// (root replacement covers single-root trees only). Immune nodes are never suspected.
    pub fn is_immune(&self, rank: Rank) -> bool {
        self.topology.is_root(rank) && !self.replaces_root()
    }

    /// Whether a failed rank 0 is replaced by its children ([`RootFailure::ReplacedByChildren`]
    /// on a single-root Reduce or Allreduce).
    pub fn replaces_root(&self) -> bool {
        self.root_failure == RootFailure::ReplacedByChildren
            && self
                .root_failure
                .applies_to(self.collective, self.topology.roots())
    }

    /// Whether `z` lies strictly below `a` in the collective's tree: in `a`'s subtree, or, for a
    /// multi-root Bcast or Reduce, anywhere below rank 0 (which heads the other roots).
    pub fn descends(&self, a: Rank, z: Rank) -> bool {
        if a == z || !self.topology.contains(z) {
            return false;
        }
        if a == 0 && self.collective != Collective::Allreduce {
            return true;
        }
        self.topology.in_subtree(a, z)
    }

    /// Tree distance (roots pairwise adjacent; `u32::MAX` for ranks `>= P`).
    pub fn distance(&self, a: Rank, b: Rank) -> u32 {
        self.topology.distance(a, b).unwrap_or(u32::MAX)
    }

    /// The number of distance-1 nodes of `rank` in this collective (for DISD and the timeout).
    pub fn degree(&self, rank: Rank) -> u64 {
        self.topology.degree(rank)
    }

    /// `f_timeout(me, x)`.
    pub fn f_timeout(&self, me: Rank, x: Rank) -> Time {
        self.timeout
            .timeout(self.degree(me), self.degree(x), self.distance(me, x))
    }
}
