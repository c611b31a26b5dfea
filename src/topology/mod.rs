//! Tree numbering arithmetic of CT §3.2.
//!
//! A [`Tree`] answers, for any rank of `P` processes (`1 <= P <= 2^32 - 1`), its parent, its
//! children in send order, its level, its first send iteration and its fault-free receive time
//! under dual-port LogP, in `O(depth · log T)` time from `O(T)` tables indexed by time (never by
//! rank), `T` being the construction time needed to reach `P` processes.
//!
//! Every kind comes in two numberings of the same shape: [`Order::Interleaved`] (CT Eq. 2 and
//! §3.2.1) and [`Order::InOrder`] (depth-first pre-order, children in send order, CT Fig. 3
//! left). [`check_interleaved`] decides CT Definition 1 and [`Reach`] gives the dissemination
//! reach of a failure set.
//!
//! [`ftco`] gives FTCO's k-ary and k-nomial trees, single- and multi-root, with the lookups of
//! FTCO Alg. 3–4 and their fault-free latency under the single-port step model.

use alloc::vec;
use alloc::vec::Vec;
use core::fmt;
use core::str::FromStr;

pub mod ftco;
mod inorder;
mod interleaving;
mod kary;
mod logp;
mod reach;
mod ready;
mod schedule;

pub use interleaving::{check_interleaved, check_interleaved_parents, Violation};
pub use logp::{LogP, PapMode, MAX_LOGP_PARAMETER};
pub use reach::{longest_circular_run, Gap, Reach};
pub use ready::{ReadySequence, ReadyValues, MAX_ORDER};

use crate::{Rank, Time};
use kary::{KAry, KAryChildren};
use schedule::{Schedule, ScheduleChildren};

/// Largest number of processes: ranks are [`Rank`] = `u32`, and so is every process count of
/// the public API.
pub const MAX_PROCS: u32 = u32::MAX;

/// An invalid parameter or an impossible request; every variant names the offending field.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TopologyError {
    /// A numeric parameter is outside `min..=max`.
    OutOfRange {
        /// The parameter, as users name it (`procs`, `k`, `L`, `o`, …).
        field: &'static str,
        /// The rejected value.
        value: u64,
        /// Smallest allowed value.
        min: u64,
        /// Largest allowed value.
        max: u64,
    },
    /// A rank is not below the number of processes.
    RankOutOfRange {
        /// The parameter holding the rank.
        field: &'static str,
        /// The rejected rank.
        rank: u64,
        /// The number of processes; allowed ranks are `1..P` (rank 0, the root, is never
        /// a valid target for these fields).
        procs: u64,
    },
    /// The root (rank 0) was listed as failed; the papers assume a live root.
    RootFailed,
    /// A tree or order name that does not parse.
    Unknown {
        /// What was being parsed (`tree`, `order`).
        field: &'static str,
        /// The allowed spellings.
        allowed: &'static str,
    },
    /// Parent links that do not form a tree rooted at 0 with parents below their children.
    NotATree {
        /// The first rank whose parent link is wrong.
        rank: u64,
    },
    /// A value does not fit in 64 bits.
    Overflow {
        /// The quantity that overflowed.
        what: &'static str,
    },
}

impl fmt::Display for TopologyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::OutOfRange {
                field,
                value,
                min,
                max,
            } => write!(
                f,
                "{field} = {value} is out of range: allowed {min}..={max}"
            ),
            Self::RankOutOfRange { field, rank, procs } => write!(
                f,
                "{field}: rank {rank} does not exist: allowed ranks are 1..={} (P = {procs})",
                procs.saturating_sub(1)
            ),
            Self::RootFailed => write!(
                f,
                "faults: the root (rank 0) cannot fail: allowed ranks are 1..=P-1"
            ),
            Self::Unknown { field, allowed } => write!(f, "{field}: allowed values are {allowed}"),
            Self::NotATree { rank } => write!(
                f,
                "parents: rank {rank} needs a parent with a smaller rank (only rank 0 has none)"
            ),
            Self::Overflow { what } => write!(f, "{what} does not fit in 64 bits"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for TopologyError {}

/// `procs` is in `1..=MAX_PROCS`, or the error naming it.
pub(crate) fn check_procs(procs: u32) -> Result<(), TopologyError> {
    if procs == 0 {
        return Err(procs_out_of_range(0));
    }
    Ok(())
}

/// The error for a process count outside `1..=MAX_PROCS` (`value` may be wider than `u32`: a
/// count read as `u64` from a file).
pub(crate) fn procs_out_of_range(value: u64) -> TopologyError {
    TopologyError::OutOfRange {
        field: "procs",
        value,
        min: 1,
        max: u64::from(MAX_PROCS),
    }
}

/// A process count read as `u64` (a serialized form), narrowed to `u32` or the error naming
/// `procs`.
#[cfg(feature = "serde")]
pub(crate) fn procs_from_u64(value: u64) -> Result<u32, TopologyError> {
    match u32::try_from(value) {
        Ok(procs) if procs > 0 => Ok(procs),
        _ => Err(procs_out_of_range(value)),
    }
}

/// The tree shapes of CT §3.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(try_from = "alloc::string::String", into = "alloc::string::String")
)]
#[non_exhaustive]
pub enum TreeKind {
    /// k-ary tree, `k` in `1..=65536` (CT §3.2.1).
    KAry(u64),
    /// Binomial tree (CT §3.2.2; Lamé of order 1).
    Binomial,
    /// Lamé tree of order `k` in `1..=65536` (CT §3.2.2, Eq. 1–2).
    Lame(u64),
    /// LogP-optimal tree for the tree's `(L, o)` (CT §3.2.3).
    Optimal,
}

impl fmt::Display for TreeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::KAry(k) => write!(f, "kary:{k}"),
            Self::Binomial => write!(f, "binomial"),
            Self::Lame(k) => write!(f, "lame:{k}"),
            Self::Optimal => write!(f, "optimal"),
        }
    }
}

const TREE_SPELLINGS: &str = "kary:K, binomial, lame:K or optimal (K in 1..=65536)";

impl FromStr for TreeKind {
    type Err = TopologyError;

    /// Parses `kary:K`, `binomial`, `lame:K` and `optimal`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let unknown = TopologyError::Unknown {
            field: "tree",
            allowed: TREE_SPELLINGS,
        };
        let order = |digits: &str| -> Result<u64, TopologyError> {
            let k: u64 = digits.parse().map_err(|_| unknown.clone())?;
            if k == 0 || k > MAX_ORDER {
                return Err(TopologyError::OutOfRange {
                    field: "k",
                    value: k,
                    min: 1,
                    max: MAX_ORDER,
                });
            }
            Ok(k)
        };
        match s.split_once(':') {
            None if s == "binomial" => Ok(Self::Binomial),
            None if s == "optimal" => Ok(Self::Optimal),
            Some(("kary", k)) => Ok(Self::KAry(order(k)?)),
            Some(("lame", k)) => Ok(Self::Lame(order(k)?)),
            _ => Err(unknown),
        }
    }
}

/// How the ranks of a tree shape are numbered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(try_from = "alloc::string::String", into = "alloc::string::String")
)]
#[non_exhaustive]
pub enum Order {
    /// CT Definition 1 numbering: siblings' subtrees are spread over the ring.
    #[default]
    Interleaved,
    /// Depth-first pre-order with children in send order (CT Fig. 3 left).
    InOrder,
}

impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Interleaved => "interleaved",
            Self::InOrder => "in-order",
        })
    }
}

impl FromStr for Order {
    type Err = TopologyError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "interleaved" => Ok(Self::Interleaved),
            "in-order" => Ok(Self::InOrder),
            _ => Err(TopologyError::Unknown {
                field: "order",
                allowed: "interleaved or in-order",
            }),
        }
    }
}

/// The interleaved shape underneath both numberings.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Shape {
    KAry(KAry),
    Schedule(Schedule),
}

impl Shape {
    fn parent(&self, rank: u64) -> Option<u64> {
        match self {
            Self::KAry(t) => t.parent(rank),
            Self::Schedule(t) => t.parent(rank),
        }
    }

    fn children(&self, rank: u64) -> ShapeChildren<'_> {
        match self {
            Self::KAry(t) => ShapeChildren::KAry(t.children(rank)),
            Self::Schedule(t) => ShapeChildren::Schedule(t.children(rank)),
        }
    }

    fn depth(&self, rank: u64) -> u32 {
        match self {
            Self::KAry(t) => t.depth(rank),
            Self::Schedule(t) => t.depth(rank),
        }
    }

    fn subtree_size(&self, rank: u64) -> u64 {
        match self {
            Self::KAry(t) => t.subtree_size(rank),
            Self::Schedule(t) => t.subtree_size(rank),
        }
    }

    fn receive_time(&self, logp: LogP, rank: u64) -> Time {
        match self {
            Self::KAry(t) => t.receive_time(logp, rank),
            Self::Schedule(t) => t.receive_time(logp, rank),
        }
    }

    fn first_send_iteration(&self, rank: u64) -> u64 {
        match self {
            Self::KAry(t) => t.first_send_iteration(rank),
            Self::Schedule(t) => t.first_send_iteration(rank),
        }
    }

    fn deadline(&self) -> Time {
        match self {
            Self::KAry(t) => t.deadline(),
            Self::Schedule(t) => t.deadline(),
        }
    }
}

#[derive(Clone, Debug)]
enum ShapeChildren<'a> {
    KAry(KAryChildren),
    Schedule(ScheduleChildren<'a>),
}

impl Iterator for ShapeChildren<'_> {
    type Item = Rank;

    fn next(&mut self) -> Option<Rank> {
        match self {
            Self::KAry(c) => c.next(),
            Self::Schedule(c) => c.next(),
        }
    }

    fn nth(&mut self, n: usize) -> Option<Rank> {
        match self {
            Self::KAry(c) => c.nth(n),
            Self::Schedule(c) => c.nth(n),
        }
    }
}

/// A broadcast tree over ranks `0..P` rooted at 0, with its fault-free LogP timing.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(
        try_from = "crate::serde_support::TreeParams",
        into = "crate::serde_support::TreeParams"
    )
)]
pub struct Tree {
    kind: TreeKind,
    order: Order,
    procs: u32,
    logp: LogP,
    shape: Shape,
}

impl Tree {
    /// Builds the tree; `procs` must be in `1..=2^32 - 1` and `k` in `1..=65536`.
    ///
    /// `procs` is a `u32` like [`Rank`] and like every process count of the crate's API
    /// (`Sim::new`, `GossipConfig::new`, `PapConfig::new`, `FtcoTopology::new`, …), so one
    /// variable serves them all. `0` is [`TopologyError::OutOfRange`] naming `procs` and the
    /// allowed range `1..=`[`MAX_PROCS`]. A count read from a user as a wider integer must be
    /// narrowed by the caller (`u32::try_from`), never truncated with `as u32`.
    pub fn new(
        kind: TreeKind,
        order: Order,
        procs: u32,
        logp: LogP,
    ) -> Result<Self, TopologyError> {
        check_procs(procs)?;
        let shape = match kind {
            TreeKind::KAry(k) => {
                if k == 0 || k > MAX_ORDER {
                    return Err(TopologyError::OutOfRange {
                        field: "k",
                        value: k,
                        min: 1,
                        max: MAX_ORDER,
                    });
                }
                Shape::KAry(KAry::new(k, procs, logp))
            }
            TreeKind::Binomial => {
                Shape::Schedule(Schedule::new(ReadySequence::binomial(), procs, logp))
            }
            TreeKind::Lame(k) => {
                Shape::Schedule(Schedule::new(ReadySequence::lame(k)?, procs, logp))
            }
            TreeKind::Optimal => {
                Shape::Schedule(Schedule::new(ReadySequence::optimal(logp), procs, logp))
            }
        };
        Ok(Self {
            kind,
            order,
            procs,
            logp,
            shape,
        })
    }

    /// The tree kind.
    pub fn kind(&self) -> TreeKind {
        self.kind
    }

    /// The numbering.
    pub fn order(&self) -> Order {
        self.order
    }

    /// Number of processes `P`.
    pub fn procs(&self) -> u32 {
        self.procs
    }

    /// The LogP parameters used for receive times (and for the optimal tree's shape).
    pub fn logp(&self) -> LogP {
        self.logp
    }

    /// The numbering arithmetic to use: a chain (k-ary with k = 1) is numbered depth-first and
    /// interleaved alike, so it uses the O(1) interleaved arithmetic instead of walking the chain.
    fn numbering(&self) -> Order {
        if self.kind == TreeKind::KAry(1) {
            Order::Interleaved
        } else {
            self.order
        }
    }

    /// Whether `rank < P`.
    pub fn contains(&self, rank: Rank) -> bool {
        rank < self.procs
    }

    /// The interleaved node carrying `rank`, and for in-order trees the rank of its parent.
    fn locate(&self, rank: Rank) -> (u64, Option<Rank>) {
        match self.numbering() {
            Order::Interleaved => (
                u64::from(rank),
                self.shape.parent(u64::from(rank)).map(|p| p as Rank),
            ),
            Order::InOrder => inorder::locate(&self.shape, u64::from(rank)),
        }
    }

    /// Parent of `rank`; `None` for the root and for ranks `>= P`.
    pub fn parent(&self, rank: Rank) -> Option<Rank> {
        if !self.contains(rank) {
            return None;
        }
        self.locate(rank).1
    }

    /// Children of `rank` in send order (empty for ranks `>= P`).
    pub fn children(&self, rank: Rank) -> Children<'_> {
        let inner = match self.numbering() {
            Order::Interleaved => ChildrenInner::Interleaved(self.shape.children(u64::from(rank))),
            Order::InOrder if self.contains(rank) => {
                let (node, _) = self.locate(rank);
                ChildrenInner::InOrder {
                    shape: &self.shape,
                    inner: self.shape.children(node),
                    next: u64::from(rank) + 1,
                }
            }
            Order::InOrder => {
                ChildrenInner::Interleaved(self.shape.children(u64::from(self.procs)))
            }
        };
        Children { inner }
    }

    /// Depth of `rank` (the root is on level 0); `None` for ranks `>= P`.
    pub fn level(&self, rank: Rank) -> Option<u32> {
        self.contains(rank)
            .then(|| self.shape.depth(self.locate(rank).0))
    }

    /// The construction iteration in which `rank` can send first: CT Eq. 2's `s'` for binomial
    /// and Lamé trees, the LogP time it holds the message for the optimal tree (§3.2.3), the level
    /// for k-ary trees. `None` for ranks `>= P`.
    pub fn first_send_iteration(&self, rank: Rank) -> Option<u64> {
        self.contains(rank)
            .then(|| self.shape.first_send_iteration(self.locate(rank).0))
    }

    /// Fault-free time at which `rank` holds the message under dual-port LogP when the root starts
    /// at 0 and every process sends to its children back to back in send order. `None` for ranks
    /// `>= P`.
    pub fn receive_time(&self, rank: Rank) -> Option<Time> {
        self.contains(rank)
            .then(|| self.shape.receive_time(self.logp, self.locate(rank).0))
    }

    /// Number of ranks in the subtree of `rank` (itself included); `None` for ranks `>= P`.
    pub fn subtree_size(&self, rank: Rank) -> Option<u64> {
        self.contains(rank)
            .then(|| self.shape.subtree_size(self.locate(rank).0))
    }

    /// The fault-free deadline: the latest fault-free receive time of any rank (the coloring
    /// latency of the plain tree, CT §4).
    pub fn deadline(&self) -> Time {
        self.shape.deadline()
    }

    /// Every rank with its parent, children, level and receive time, in rank order, holding only
    /// `O(depth · fan-out)` memory: for printing or streaming trees of any size.
    pub fn nodes(&self) -> Nodes<'_> {
        Nodes {
            tree: self,
            next_rank: 0,
            stack: Vec::new(),
        }
    }

    /// Every rank's parent (`None` for the root), materialized in `O(P)` memory for checkers.
    pub fn parents(&self) -> Vec<Option<Rank>> {
        let mut parents = vec![None; self.procs as usize];
        match self.numbering() {
            Order::Interleaved => {
                for rank in 0..self.procs {
                    for child in self.children(rank) {
                        parents[child as usize] = Some(rank);
                    }
                }
            }
            Order::InOrder => inorder::for_each_edge(&self.shape, |parent, child| {
                parents[child as usize] = Some(parent);
            }),
        }
        parents
    }
}

/// Children of one rank in send order; see [`Tree::children`].
#[derive(Clone, Debug)]
pub struct Children<'a> {
    inner: ChildrenInner<'a>,
}

#[derive(Clone, Debug)]
enum ChildrenInner<'a> {
    Interleaved(ShapeChildren<'a>),
    /// Pre-order rank of the next child = previous child's rank + its subtree size.
    InOrder {
        shape: &'a Shape,
        inner: ShapeChildren<'a>,
        next: u64,
    },
}

impl Iterator for Children<'_> {
    type Item = Rank;

    fn next(&mut self) -> Option<Rank> {
        match &mut self.inner {
            ChildrenInner::Interleaved(c) => c.next(),
            ChildrenInner::InOrder { shape, inner, next } => {
                let child = inner.next()?;
                let rank = *next;
                *next += shape.subtree_size(u64::from(child));
                Some(rank as Rank)
            }
        }
    }

    fn nth(&mut self, n: usize) -> Option<Rank> {
        match &mut self.inner {
            ChildrenInner::Interleaved(c) => c.nth(n),
            // (Each child's rank follows from the previous one's subtree: one by one.)
            ChildrenInner::InOrder { .. } => {
                for _ in 0..n {
                    self.next()?;
                }
                self.next()
            }
        }
    }
}

/// One rank of a tree as yielded by [`Tree::nodes`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Node {
    /// The rank.
    pub rank: Rank,
    /// Its parent, `None` for the root.
    pub parent: Option<Rank>,
    /// Its children in send order.
    pub children: Vec<Rank>,
    /// Its depth (root: 0).
    pub level: u32,
    /// Its fault-free receive time (see [`Tree::receive_time`]).
    pub receive_time: Time,
}

/// Iterator over every [`Node`] in rank order; see [`Tree::nodes`].
#[derive(Clone, Debug)]
pub struct Nodes<'a> {
    tree: &'a Tree,
    next_rank: u64,
    /// In-order trees: the depth-first path, each frame holding the node's pending children as
    /// (shape node, rank) pairs, reversed, so pre-order visits ranks in increasing order.
    stack: Vec<(Node, Vec<(u64, Rank)>)>,
}

impl Nodes<'_> {
    /// The in-order node for shape node `shape_node` at pre-order `rank`, and its pending children.
    fn in_order_node(
        &self,
        shape_node: u64,
        rank: Rank,
        parent: Option<Rank>,
        level: u32,
        receive_time: Time,
    ) -> (Node, Vec<(u64, Rank)>) {
        let shape = &self.tree.shape;
        let mut next = u64::from(rank) + 1;
        let mut pending = Vec::new();
        for child in shape.children(shape_node) {
            pending.push((u64::from(child), next as Rank));
            next += shape.subtree_size(u64::from(child));
        }
        let node = Node {
            rank,
            parent,
            children: pending.iter().map(|&(_, r)| r).collect(),
            level,
            receive_time,
        };
        pending.reverse();
        (node, pending)
    }
}

impl Iterator for Nodes<'_> {
    type Item = Node;

    fn next(&mut self) -> Option<Node> {
        let tree = self.tree;
        if self.next_rank >= u64::from(tree.procs) {
            return None;
        }
        let rank = self.next_rank as Rank;
        self.next_rank += 1;
        if tree.numbering() == Order::Interleaved {
            return Some(Node {
                rank,
                parent: tree.parent(rank),
                children: tree.children(rank).collect(),
                level: tree.level(rank).unwrap_or(0),
                receive_time: tree.receive_time(rank).unwrap_or(0),
            });
        }
        let frame = if rank == 0 {
            self.in_order_node(0, 0, None, 0, 0)
        } else {
            // Pop finished frames; the next pending child on top is exactly `rank`.
            loop {
                let (parent, pending) = self.stack.last_mut()?;
                if let Some((shape_node, child_rank)) = pending.pop() {
                    let index = (parent.children.len() - pending.len() - 1) as u64;
                    let logp = tree.logp;
                    let time = parent.receive_time + index * logp.overhead() + logp.hop();
                    let (parent_rank, level) = (parent.rank, parent.level + 1);
                    debug_assert_eq!(child_rank, rank);
                    break self.in_order_node(
                        shape_node,
                        child_rank,
                        Some(parent_rank),
                        level,
                        time,
                    );
                }
                self.stack.pop();
            }
        };
        let node = frame.0.clone();
        self.stack.push(frame);
        Some(node)
    }
}
