//! FTCO tree topologies as arithmetic (FTCO §4, §5.2.1, App. A, App. D).
//!
//! An [`FtcoTopology`] is a k-ary or k-nomial tree over `P` ranks, single-root or multi-root
//! ("a collection of trees with fully-connected roots", FTCO §5.2.1). It answers what the FTCO
//! automata ask about the topology, for any rank of any `P` in `1..=2^32 − 1`, without
//! materializing anything per rank: parent, children in send order, `f_tree(n) → ⟨Down, Up⟩`
//! (Alg. 3–4), grandparent (App. D), level, height, subtree size and membership, tree distance
//! (App. A), and the lookups Alg. 4 needs to route around failed nodes. Every lookup costs
//! `O(depth)` time (iterators: to start, then `O(1)` per child, `O(depth)` per ancestor) and
//! `O(1)` memory, except [`FtcoTopology::live_frontier`], which holds one iterator per level.
//!
//! [`FtcoTopology::fault_free_latency`] gives the fault-free latency of Bcast, Reduce and
//! Allreduce under FTCO's single-port step model (§5.2) from the tree's shape alone, and
//! [`best_knomial`] searches the k-nomial parameter `k` that minimizes it (§5.2.1, Fig. 7).
//!
//! # Numbering
//!
//! **Multi-root partition.** With `R` roots, rank `r` belongs to tree `r mod R` at *local index*
//! `r div R`; the roots are the ranks `0..R` (local index 0). Why strided: rank 0 — the
//! fault-immune root of FTCO §2 — is a root; "is a root" is `r < R`; the trees differ in size by
//! at most one (the first `P mod R` trees hold `⌈P/R⌉` ranks, the others `⌊P/R⌋`), so no tree is
//! slower than it must be; and with `R = k` the multi-root k-nomial is exactly the single-root
//! k-nomial whose root's first round (ranks `1..k`) is replaced by a clique of roots, because the
//! subtree of `t < k` in the k-nomial is `{x : x ≡ t (mod k)}`. Each tree is numbered on its local
//! indices `0..n` as below; `R = 1` is the single-root tree itself.
//!
//! **k-nomial** (`k >= 2`). The standard round construction: in round `i = 0, 1, …` every node
//! that holds the data — after round `i − 1` these are the local indices `0..k^i` — sends to the
//! up to `k − 1` new nodes `x + j·k^i`, `j = 1..k`, that exist. So the parent of `x > 0` is `x`
//! without its leading base-`k` digit, the children of `x` are `x + j·k^i` for every `i` with
//! `k^i > x` (rounds ascending, `j` ascending within a round: the order a Bcast sends them), the
//! level of `x` is its number of non-zero base-`k` digits, and the subtree of `x` is
//! `{y < n : y ≡ x (mod k^e)}`, `e` the number of digits of `x`. `k = 2` is the binomial tree of
//! [`TreeKind::Binomial`](super::TreeKind::Binomial).
//!
//! **k-ary** (`k >= 2`). Heap numbering: the children of `x` are `k·x + 1 ..= k·x + k`, the parent
//! of `x > 0` is `(x − 1) div k`, and level `l` holds `(k^l − 1)/(k − 1) ..` — the complete k-ary
//! tree filled level by level, left to right. (CT §3.2.1's interleaved k-ary tree has the same
//! levels but spreads a partial last level over all parents.)
//!
//! # Step accounting (FTCO §2, §5.2)
//!
//! `o = 1` step; `L` is given in steps. In each step a node either sends one message or handles
//! one message from its incoming queue. A message whose send occupies step `s` enters the
//! receiver's queue at `s + L + 1` ("arrives after `L + o` steps into the incoming queue") and can
//! be handled in that step at the earliest; handling costs the step, reduction included ("the
//! receiver can handle one incoming message from the queue at each step, which includes the
//! reduction operation"); the handler holds the value at the end of the step and can send in the
//! next one. A hop therefore costs `L + 2` steps, LogP's `L + 2o`. A node that starts with its
//! value (the Bcast root, a Reduce leaf) holds it at 0. Only DATA is counted: in a fault-free run
//! the FTCO ACKs never delay DATA (DATA is handled first, and ACKs go out after the DATA they
//! follow), but a node completes only once its own DATA is acknowledged, which the automata will
//! add ("differs in latency by one ACK", FTCO §3).
//!
//! - **Bcast**: a node sends to its children one per step in send order, starting in the step after
//!   it holds the data. Multi-root: rank 0 sends to the other roots first (`1, 2, …, R − 1`: their
//!   trees are larger than any of its children's subtrees), then to its own children. Latency: the
//!   time the last node holds the data.
//! - **Reduce**: a leaf sends in step 0; a node handles its children's DATA one per step in arrival
//!   order and sends to its parent in the step after the last one. Multi-root: each other root
//!   sends its tree's partial to rank 0, which handles them with its children's DATA in arrival
//!   order. Latency: the time rank 0 has handled the last DATA.
//! - **Allreduce**: the Reduce of each tree, then every root sends its partial to the `R − 1` other
//!   roots (root `t` to `t + 1, t + 2, …` mod `R`: staggered, so no root is sent to by all at
//!   once), all `R − 1` sends first (Alg. 3 sends before Alg. 1 handles the queue), then handles
//!   the `R − 1` partials it receives in arrival order (a root handles other roots' DATA only after
//!   its own children's), then broadcasts the result in its tree. Single-root: Reduce then Bcast.
//!   Latency: the time the last node holds the result.

use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

use super::{check_procs, TopologyError, MAX_LOGP_PARAMETER, MAX_ORDER};
use crate::Rank;

/// Smallest accepted `k` for both kinds (`k = 1` gives a chain or a lone root).
pub const MIN_FTCO_ORDER: u64 = 2;

/// The tree shapes of FTCO §5.2.1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum FtcoKind {
    /// k-ary tree, heap-numbered, `k` in `2..=65536`.
    KAry(u64),
    /// k-nomial tree, round-numbered, `k` in `2..=65536`.
    KNomial(u64),
}

impl FtcoKind {
    /// The parameter `k`.
    pub fn k(self) -> u64 {
        match self {
            Self::KAry(k) | Self::KNomial(k) => k,
        }
    }
}

impl fmt::Display for FtcoKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::KAry(k) => write!(f, "kary:{k}"),
            Self::KNomial(k) => write!(f, "knomial:{k}"),
        }
    }
}

/// The spellings [`FtcoKind`]'s `FromStr` reads (what `Display` writes).
pub const FTCO_KIND_SPELLINGS: &str = "kary:K or knomial:K (K in 2..=65536)";

impl core::str::FromStr for FtcoKind {
    type Err = TopologyError;

    /// `kary:K` or `knomial:K`, `K` in `2..=MAX_ORDER` ([`FtcoTopology::new`] checks the rest).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let unknown = TopologyError::Unknown {
            field: "topology",
            allowed: FTCO_KIND_SPELLINGS,
        };
        let (name, k) = s.split_once(':').ok_or(unknown.clone())?;
        let k: u64 = k
            .parse()
            .ok()
            .filter(|k| (MIN_FTCO_ORDER..=MAX_ORDER).contains(k))
            .ok_or(unknown.clone())?;
        match name {
            "kary" => Ok(Self::KAry(k)),
            "knomial" => Ok(Self::KNomial(k)),
            _ => Err(unknown),
        }
    }
}

/// A fault-free collective operation of FTCO §5.2.1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Collective {
    /// Rank 0 sends its value to every rank.
    Bcast,
    /// Rank 0 gets the reduction of every rank's value.
    Reduce,
    /// Every rank gets the reduction of every rank's value.
    Allreduce,
}

/// A single- or multi-root k-ary or k-nomial tree over ranks `0..P`; see the module docs for the
/// numbering.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(
        try_from = "crate::serde_support::FtcoParams",
        into = "crate::serde_support::FtcoParams"
    )
)]
pub struct FtcoTopology {
    kind: FtcoKind,
    k: u64,
    roots: u32,
    procs: u32,
}

mod walks;
pub use walks::{Ancestors, Children, LiveFrontier, Up};

fn out_of_range(field: &'static str, value: u64, min: u64, max: u64) -> TopologyError {
    TopologyError::OutOfRange {
        field,
        value,
        min,
        max,
    }
}

fn check_latency(latency_steps: u64) -> Result<(), TopologyError> {
    if latency_steps > MAX_LOGP_PARAMETER {
        return Err(out_of_range("L", latency_steps, 0, MAX_LOGP_PARAMETER));
    }
    Ok(())
}

impl FtcoTopology {
    /// Builds the topology: `procs` in `1..=2^32 − 1`, `k` in `2..=65536`, `roots` in `1..=procs`
    /// (1: single-root). Checked in that order; the error names the first bad field.
    pub fn new(kind: FtcoKind, roots: u64, procs: u32) -> Result<Self, TopologyError> {
        check_procs(procs)?;
        let k = kind.k();
        if !(MIN_FTCO_ORDER..=MAX_ORDER).contains(&k) {
            return Err(out_of_range("k", k, MIN_FTCO_ORDER, MAX_ORDER));
        }
        let roots = match u32::try_from(roots) {
            Ok(r) if (1..=procs).contains(&r) => r,
            _ => return Err(out_of_range("roots", roots, 1, u64::from(procs))),
        };
        Ok(Self {
            kind,
            k,
            roots,
            procs,
        })
    }

    /// The tree kind.
    pub fn kind(&self) -> FtcoKind {
        self.kind
    }

    /// The number of roots `R` (1: single-root).
    pub fn roots(&self) -> u32 {
        self.roots
    }

    /// The number of ranks `P`.
    pub fn procs(&self) -> u32 {
        self.procs
    }

    /// Whether `rank < P`.
    pub fn contains(&self, rank: Rank) -> bool {
        rank < self.procs
    }

    /// Whether `rank` is a root (`rank < R`).
    pub fn is_root(&self, rank: Rank) -> bool {
        rank < self.roots && self.contains(rank)
    }

    /// The tree `rank` belongs to (`rank mod R`, which is also that tree's root); `None` for ranks
    /// `>= P`.
    pub fn tree_of(&self, rank: Rank) -> Option<Rank> {
        self.contains(rank).then(|| rank % self.roots)
    }

    /// Number of ranks in the tree rooted at `root` (`⌈(P − root)/R⌉`); `None` if `root` is not
    /// a root.
    pub fn tree_size(&self, root: Rank) -> Option<u64> {
        self.is_root(root).then(|| self.size_of_tree(root))
    }

    fn size_of_tree(&self, tree: Rank) -> u64 {
        (u64::from(self.procs) - u64::from(tree)).div_ceil(u64::from(self.roots))
    }

    /// `(tree, local index, tree size)` of a rank `< P`.
    fn split(&self, rank: Rank) -> (Rank, u64, u64) {
        let tree = rank % self.roots;
        (tree, u64::from(rank / self.roots), self.size_of_tree(tree))
    }

    fn global(&self, tree: Rank, local: u64) -> Rank {
        (local * u64::from(self.roots) + u64::from(tree)) as Rank
    }

    fn shape(&self) -> Shape {
        Shape {
            knomial: matches!(self.kind, FtcoKind::KNomial(_)),
            k: self.k,
        }
    }

    /// Parent of `rank`; `None` for roots and ranks `>= P`.
    pub fn parent(&self, rank: Rank) -> Option<Rank> {
        if !self.contains(rank) {
            return None;
        }
        let (tree, local, _) = self.split(rank);
        self.shape()
            .parent(local)
            .map(|parent| self.global(tree, parent))
    }

    /// `parent(parent(rank))`, the fall-back of FTCO App. D; `None` if `rank` has no parent or its
    /// parent is a root (a multi-root root's own fall-backs are the other roots, see
    /// [`f_tree`](Self::f_tree)).
    pub fn grandparent(&self, rank: Rank) -> Option<Rank> {
        self.parent(rank).and_then(|parent| self.parent(parent))
    }

    /// Children of `rank` in the order a Bcast sends them (k-nomial: by round, then by `j`);
    /// empty for ranks `>= P`.
    pub fn children(&self, rank: Rank) -> Children {
        if !self.contains(rank) {
            return Children {
                shape: self.shape(),
                tree: 0,
                roots: self.roots,
                local: 0,
                size: 0,
                step: 0,
                next: 0,
                j: 0,
            };
        }
        let (tree, local, size) = self.split(rank);
        let shape = self.shape();
        let (next, step) = if shape.knomial {
            // The first round in which `local` sends is the number of its digits.
            let weight = if local == 0 {
                1
            } else {
                leading_weight(local, self.k) * self.k
            };
            (local + weight, weight)
        } else {
            (self.k * local + 1, 1)
        };
        Children {
            shape,
            tree,
            roots: self.roots,
            local,
            size,
            step,
            next,
            j: 1,
        }
    }

    /// Number of children of `rank` (0 for ranks `>= P`), in `O(depth)`.
    pub fn child_count(&self, rank: Rank) -> u64 {
        if !self.contains(rank) {
            return 0;
        }
        let (_, local, size) = self.split(rank);
        self.shape().child_count(local, size)
    }

    /// The neighbours other than the children: the parent, or for a multi-root root the other
    /// roots in its exchange order (`rank + 1, rank + 2, …` mod `R`); empty for a single root and
    /// for ranks `>= P`.
    pub fn up(&self, rank: Rank) -> Up {
        if let Some(parent) = self.parent(rank) {
            return Up {
                first: Some(parent),
                me: 0,
                offset: 0,
                roots: 0,
            };
        }
        let roots = if self.is_root(rank) { self.roots } else { 0 };
        Up {
            first: None,
            me: rank,
            offset: 1,
            roots,
        }
    }

    /// `f_tree(rank) → ⟨Down, Up⟩` of FTCO Alg. 3–4: the children in send order and the
    /// [`up`](Self::up) neighbours. Alg. 4 lines 6–10 replace a failed `x` in `Up` by `f_tree(x)`'s
    /// `Up` (its parent, or the other roots) and a failed `x` in `Down` by its `Down`.
    pub fn f_tree(&self, rank: Rank) -> (Children, Up) {
        (self.children(rank), self.up(rank))
    }

    /// `|Down| + |Up|`: the number of nodes `rank` exchanges DATA with (FTCO App. A: the timeout
    /// grows with the destination's degree); 0 for ranks `>= P`.
    pub fn degree(&self, rank: Rank) -> u64 {
        if !self.contains(rank) {
            return 0;
        }
        let up = if self.parent(rank).is_some() {
            1
        } else {
            u64::from(self.roots) - 1
        };
        self.child_count(rank) + up
    }

    /// Level of `rank` in its tree (roots: 0); `None` for ranks `>= P`.
    pub fn level(&self, rank: Rank) -> Option<u32> {
        self.contains(rank)
            .then(|| self.shape().level(self.split(rank).1))
    }

    /// The height of the topology: the largest level of any rank (0 for `P = R`).
    pub fn depth(&self) -> u32 {
        // Tree 0 is a largest tree, and in both shapes a tree on n local indices is a prefix of
        // the tree on n + 1, so no smaller tree is taller.
        self.shape().height(self.size_of_tree(0))
    }

    /// Number of ranks in the subtree of `rank` (itself included; a root's subtree is its own
    /// tree, not the other roots'); `None` for ranks `>= P`.
    pub fn subtree_size(&self, rank: Rank) -> Option<u64> {
        if !self.contains(rank) {
            return None;
        }
        let (_, local, size) = self.split(rank);
        Some(self.shape().subtree_size(local, size))
    }

    /// Whether `x` is in the subtree of `rank` (`x == rank` included); `false` for ranks `>= P`.
    pub fn in_subtree(&self, rank: Rank, x: Rank) -> bool {
        self.lowest_common_ancestor(rank, x) == Some(rank)
    }

    /// The lowest common ancestor of `a` and `b`; `None` if they are in different trees of a
    /// multi-root topology or not both `< P`.
    pub fn lowest_common_ancestor(&self, a: Rank, b: Rank) -> Option<Rank> {
        if !self.contains(a) || !self.contains(b) {
            return None;
        }
        let (tree_a, local_a, _) = self.split(a);
        let (tree_b, local_b, _) = self.split(b);
        (tree_a == tree_b).then(|| self.global(tree_a, self.shape().lca(local_a, local_b)))
    }

    /// Tree distance: the number of edges between `a` and `b`, the roots of a multi-root topology
    /// being pairwise adjacent (so across trees it is `level(a) + 1 + level(b)`). This is the
    /// `distance(me, node)` of FTCO Alg. 2 and App. A. `None` for ranks `>= P`.
    pub fn distance(&self, a: Rank, b: Rank) -> Option<u32> {
        let (level_a, level_b) = (self.level(a)?, self.level(b)?);
        Some(match self.lowest_common_ancestor(a, b) {
            Some(lca) => {
                let level_lca = self.shape().level(self.split(lca).1);
                level_a + level_b - 2 * level_lca
            }
            None => level_a + level_b + 1,
        })
    }

    /// The ancestors of `rank` from its parent up to its tree's root (empty for roots and ranks
    /// `>= P`): the successive `Up` of Alg. 4 when every parent on the way fails.
    pub fn ancestors(&self, rank: Rank) -> Ancestors<'_> {
        Ancestors {
            topology: self,
            next: self.parent(rank),
        }
    }

    /// The first ancestor of `rank` that `failed` does not reject: where Alg. 4 line 8 re-parents
    /// `rank` after its parent and then grandparents time out. `None` if every ancestor up to the
    /// tree root failed (then the live other roots are the `Up` of a multi-root topology) or
    /// `rank` has no parent.
    pub fn first_live_ancestor(
        &self,
        rank: Rank,
        mut failed: impl FnMut(Rank) -> bool,
    ) -> Option<Rank> {
        self.ancestors(rank).find(|&a| !failed(a))
    }

    /// The topmost descendants of `rank` that `failed` does not reject, in send order (pre-order):
    /// the `Down` that Alg. 4 line 10 reaches by replacing each failed child by its children.
    /// `rank` itself is never yielded. Holds one children iterator per level below `rank`.
    pub fn live_frontier<F: FnMut(Rank) -> bool>(&self, rank: Rank, failed: F) -> LiveFrontier<F> {
        LiveFrontier {
            topology: *self,
            stack: vec![self.children(rank)],
            failed,
        }
    }

    /// Fault-free latency, in steps, of `collective` on this topology under FTCO's single-port
    /// step model with `L = latency_steps` (in `0..=65535`) and `o = 1`; the step accounting is
    /// in the module docs. `O(depth³)` time and `O(depth²)` memory, whatever `k` and `R`.
    pub fn fault_free_latency(
        &self,
        collective: Collective,
        latency_steps: u64,
    ) -> Result<u64, TopologyError> {
        check_latency(latency_steps)?;
        let mut timing = Timing {
            shape: self.shape(),
            latency: latency_steps,
            memo: Vec::new(),
        };
        Ok(timing.collective(collective, u64::from(self.procs), u64::from(self.roots)))
    }
}

impl FtcoTopology {
    /// Fault-free single-port times of the subtree of `rank` taken as a tree of its own (the
    /// family is closed under subtrees, see the private `Timing`): `(bcast, reduce)`, the time its last
    /// node holds data `rank` holds at 0, and the time `rank` has handled its last child's DATA
    /// when every leaf sends at 0. A multi-root root's subtree is its own tree, without the other
    /// roots. The FTCO automata derive their expected arrival times `f_ETA` from it. `None` for
    /// ranks `>= P`; `L` as in [`fault_free_latency`](Self::fault_free_latency).
    pub fn subtree_times(
        &self,
        rank: Rank,
        latency_steps: u64,
    ) -> Result<Option<(u64, u64)>, TopologyError> {
        Ok(SubtreeTimes::new(self, latency_steps)?.of(rank))
    }
}

/// [`FtcoTopology::subtree_times`] for many ranks of one topology, sharing the memo of subtree
/// sizes already timed (a tree has few distinct subtree sizes).
pub(crate) struct SubtreeTimes<'a> {
    topology: &'a FtcoTopology,
    timing: Timing,
}

impl<'a> SubtreeTimes<'a> {
    /// Errors if `L` is out of range, as `subtree_times` does.
    pub(crate) fn new(
        topology: &'a FtcoTopology,
        latency_steps: u64,
    ) -> Result<Self, TopologyError> {
        check_latency(latency_steps)?;
        Ok(Self {
            topology,
            timing: Timing {
                shape: topology.shape(),
                latency: latency_steps,
                memo: Vec::new(),
            },
        })
    }

    /// `subtree_times(rank, L)`.
    pub(crate) fn of(&mut self, rank: Rank) -> Option<(u64, u64)> {
        let size = self.topology.subtree_size(rank)?;
        Some(self.timing.times(size))
    }
}

/// `k^(e − 1)` for the `e` base-`k` digits of `x > 0`: the weight of its leading digit.
fn leading_weight(x: u64, k: u64) -> u64 {
    let mut weight = 1;
    while x / weight >= k {
        weight *= k;
    }
    weight
}

/// The shape of one tree on local indices `0..n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Shape {
    knomial: bool,
    k: u64,
}

impl Shape {
    fn parent(self, x: u64) -> Option<u64> {
        if x == 0 {
            None
        } else if self.knomial {
            Some(x % leading_weight(x, self.k))
        } else {
            Some((x - 1) / self.k)
        }
    }

    fn level(self, mut x: u64) -> u32 {
        let mut level = 0;
        if self.knomial {
            while x > 0 {
                level += u32::from(x % self.k != 0);
                x /= self.k;
            }
        } else {
            // Level l holds first(l) .. first(l) + k^l.
            let (mut first, mut width) = (0u64, 1u64);
            while x >= first + width {
                first += width;
                width *= self.k;
                level += 1;
            }
        }
        level
    }

    /// Largest level among `0..n`.
    fn height(self, n: u64) -> u32 {
        let last = n - 1;
        if !self.knomial {
            return self.level(last);
        }
        // The most non-zero digits below `last`: all of its `e` digits if `11…1` (e ones) fits
        // under it, else `e − 1`.
        let (mut digits, mut ones) = (0u32, 0u64);
        let mut rest = last;
        while rest > 0 {
            digits += 1;
            rest /= self.k;
        }
        for _ in 0..digits {
            ones = ones * self.k + 1;
        }
        if ones <= last {
            digits
        } else {
            digits - 1
        }
    }

    /// Ranks of the tree on `0..n` below `x` (itself included).
    fn subtree_size(self, x: u64, n: u64) -> u64 {
        if self.knomial {
            if x == 0 {
                return n;
            }
            // The subtree of x is {y ≡ x (mod k^e)}, e the number of digits of x.
            let modulus = leading_weight(x, self.k) * self.k;
            return (n - x).div_ceil(modulus);
        }
        // Descendants at each depth form one range [lo, hi]; clamping hi keeps it in u64.
        let (mut lo, mut hi, mut size) = (x, x, 0u64);
        while lo < n {
            hi = hi.min(n - 1);
            size += hi - lo + 1;
            lo = self.k * lo + 1;
            hi = self.k * hi + self.k;
        }
        size
    }

    fn child_count(self, x: u64, n: u64) -> u64 {
        if self.knomial {
            let mut step = if x == 0 {
                1
            } else {
                leading_weight(x, self.k) * self.k
            };
            let mut count = 0;
            while x + step < n {
                // Children x + j·step, j in 1..k, below n.
                count += ((n - 1 - x) / step).min(self.k - 1);
                step *= self.k;
            }
            count
        } else {
            let first = self.k * x + 1;
            n.saturating_sub(first).min(self.k)
        }
    }

    fn lca(self, mut a: u64, mut b: u64) -> u64 {
        if self.knomial {
            // Ancestors of x are x mod k^j: the LCA keeps the lowest digits a and b share.
            let mut modulus = 1u64;
            while a != b && a % (modulus * self.k) == b % (modulus * self.k) {
                modulus *= self.k;
            }
            return if a == b { a } else { a % modulus };
        }
        let (mut level_a, mut level_b) = (self.level(a), self.level(b));
        while level_a > level_b {
            a = (a - 1) / self.k;
            level_a -= 1;
        }
        while level_b > level_a {
            b = (b - 1) / self.k;
            level_b -= 1;
        }
        while a != b {
            a = (a - 1) / self.k;
            b = (b - 1) / self.k;
        }
        a
    }

    /// The subtree sizes of the root's children of the tree on `0..n`, in send order, as runs of
    /// `(count, size)`: at most two runs per k-nomial round and three for a k-ary root, so
    /// latency needs no per-child work even for `k = 65536`.
    fn child_runs(self, n: u64) -> Vec<(u64, u64)> {
        let mut runs: Vec<(u64, u64)> = Vec::new();
        if n <= 1 {
            return runs;
        }
        let mut push = |count: u64, size: u64| {
            if count == 0 || size == 0 {
                return;
            }
            match runs.last_mut() {
                Some(last) if last.1 == size => last.0 += count,
                _ => runs.push((count, size)),
            }
        };
        let k = self.k;
        if self.knomial {
            // Child j·p (round i, p = k^i) has subtree {y ≡ j·p (mod p·k)}: ⌈(n − j·p)/(p·k)⌉.
            let mut p = 1u64;
            while p < n {
                let mut j = 1u64;
                while j < k && j * p < n {
                    let size = (n - j * p).div_ceil(p * k);
                    // Largest j' with the same size: n − j'·p > (size − 1)·p·k.
                    let last = ((n - (size - 1) * p * k).div_ceil(p) - 1).min(k - 1);
                    push(last - j + 1, size);
                    j = last + 1;
                }
                p *= k;
            }
        } else {
            let height = self.height(n);
            if height == 1 {
                push(n - 1, 1);
            } else {
                // Each child holds full levels 0..h−2 (`full` ranks) and up to `cap` ranks of the
                // last level, which fills children left to right.
                let cap = k.pow(height - 1);
                let full = (cap - 1) / (k - 1);
                let last_level = n - (cap * k - 1) / (k - 1);
                let (filled, rest) = (last_level / cap, last_level % cap);
                push(filled, full + cap);
                push(u64::from(rest > 0), full + rest);
                push(k - filled - u64::from(rest > 0), full);
            }
        }
        runs
    }
}

/// Fault-free Bcast and Reduce times of trees by size, memoized: every subtree of a tree of the
/// family is again a tree of the family (a k-nomial subtree `{y ≡ x (mod m)}` renumbered by
/// `(y − x)/m`, a complete k-ary subtree), and the subtrees at one depth take at most three
/// sizes, so `O(depth)` sizes are ever computed.
struct Timing {
    shape: Shape,
    latency: u64,
    /// `(size, bcast, reduce)`.
    memo: Vec<(u64, u64, u64)>,
}

/// The time a single-port queue is done: batches `(arrival, count)` handled one per step in
/// arrival order, from the step `start` on.
fn queue_done(start: u64, batches: &mut [(u64, u64)]) -> u64 {
    batches.sort_unstable();
    let mut free = start;
    for &(arrival, count) in batches.iter().filter(|batch| batch.1 > 0) {
        free = free.max(arrival) + count;
    }
    free
}

impl Timing {
    /// Steps from the send of a message to the end of its handling minus one: it enters the queue
    /// `L + 1` after its send step starts.
    fn arrival(&self) -> u64 {
        self.latency + 1
    }

    /// `(bcast, reduce)` of the tree on `0..n`: the time its last node holds the root's data
    /// when the root starts at 0, and the time its root has handled its last child's DATA when
    /// every leaf sends at 0.
    fn times(&mut self, n: u64) -> (u64, u64) {
        if n <= 1 {
            return (0, 0);
        }
        if let Some(&(_, bcast, reduce)) = self.memo.iter().find(|entry| entry.0 == n) {
            return (bcast, reduce);
        }
        let runs = self.shape.child_runs(n);
        let (mut bcast, mut index) = (0u64, 0u64);
        let mut arrivals = Vec::with_capacity(runs.len());
        for &(count, size) in &runs {
            let (child_bcast, child_reduce) = self.times(size);
            // The last child of the run is sent to in step index + count − 1 and holds the data
            // L + 2 later.
            bcast = bcast.max(index + count - 1 + self.latency + 2 + child_bcast);
            index += count;
            arrivals.push((child_reduce + self.arrival(), count));
        }
        let reduce = queue_done(0, &mut arrivals);
        self.memo.push((n, bcast, reduce));
        (bcast, reduce)
    }

    fn collective(&mut self, collective: Collective, procs: u64, roots: u64) -> u64 {
        // Trees 0..big hold ⌈P/R⌉ ranks, the others ⌊P/R⌋ (see the module docs).
        let big_size = procs.div_ceil(roots);
        let small_size = procs / roots;
        let big = if procs % roots == 0 {
            roots
        } else {
            procs % roots
        };
        let (big_bcast, big_reduce) = self.times(big_size);
        let (small_bcast, small_reduce) = self.times(small_size);
        let others = roots - 1;
        let arrival = self.arrival();
        match collective {
            Collective::Bcast => {
                if roots == 1 {
                    return big_bcast;
                }
                // Root t >= 1 is sent to in step t − 1 and holds the data at t + L + 1; rank 0
                // sends to its own children from step R − 1 on. Within each size class the last
                // root is the latest.
                let mut latency = others + big_bcast;
                if big >= 2 {
                    latency = latency.max(big - 1 + arrival + big_bcast);
                }
                let last_bcast = if big == roots { big_bcast } else { small_bcast };
                latency.max(others + arrival + last_bcast)
            }
            Collective::Reduce => {
                let mut arrivals: Vec<(u64, u64)> = self
                    .shape
                    .child_runs(big_size)
                    .into_iter()
                    .map(|(count, size)| (self.times(size).1 + arrival, count))
                    .collect();
                // The other roots send their partials to rank 0 as soon as they have them.
                arrivals.push((big_reduce + arrival, big - 1));
                arrivals.push((small_reduce + arrival, roots - big));
                queue_done(0, &mut arrivals)
            }
            Collective::Allreduce => {
                if roots == 1 {
                    return big_reduce + big_bcast;
                }
                // Root j, holding its tree's partial at T_j, sends in steps T_j .. T_j + R − 1,
                // then handles in arrival order what root i sent it in slot (j − i − 1) mod R,
                // queued at T_i + slot + L + 1. Had every root the big trees' time A, each would
                // be done at A + max(2(R − 1), R − 1 + L + 1); roots finish no later with smaller
                // senders' times. See docs/reference/topology.md ("Fault-free latency", the root
                // exchange in closed form) for the cases below.
                if big >= 2 {
                    // Rank 0 hears the big roots 1..big in the last slots, consecutively, and
                    // reaches the bound; its tree is a largest one, the slowest to broadcast.
                    big_reduce + (2 * others).max(others + arrival) + big_bcast
                } else {
                    // Only rank 0 is big: it hears small roots only; root R − 1 hears rank 0 in
                    // the last slot and is the latest of the small roots.
                    let big_done = (big_reduce + 2 * others).max(small_reduce + others + arrival);
                    let small_done = (small_reduce + 2 * others).max(big_reduce + others + arrival);
                    (big_done + big_bcast).max(small_done + small_bcast)
                }
            }
        }
    }
}

/// How many roots [`best_knomial`] gives each candidate `k`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Roots {
    /// One root: the standard single-root tree.
    Single,
    /// `R = min(k, P)`: FTCO's multi-root k-nomial as this crate reads §5.2.1 — the k-nomial whose
    /// root's first round becomes a clique of `k` roots. The paper optimizes only `k`.
    PerK,
    /// A fixed `R` in `1..=P` for every `k`.
    Fixed(u64),
}

/// The result of [`best_knomial`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct KnomialChoice {
    /// The best `k`: the smallest among those of least latency.
    pub k: u64,
    /// The number of roots used with it.
    pub roots: u64,
    /// Its fault-free latency in steps.
    pub latency: u64,
}

/// The k-nomial `k` of least fault-free latency for `collective` on `procs` ranks with
/// `L = latency_steps` and `o = 1` (FTCO §5.2.1, Fig. 7). Searches every `k` in `2..=min(P, 65536)`
/// (for `k >= P` every k-nomial tree is the same star); ties go to the smallest `k`. Errors name
/// `procs`, `L` or `roots`.
pub fn best_knomial(
    collective: Collective,
    procs: u32,
    latency_steps: u64,
    roots: Roots,
) -> Result<KnomialChoice, TopologyError> {
    check_procs(procs)?;
    check_latency(latency_steps)?;
    let wide = u64::from(procs);
    if let Roots::Fixed(r) = roots {
        if r == 0 || r > wide {
            return Err(out_of_range("roots", r, 1, wide));
        }
    }
    let choice = |k: u64| -> Result<KnomialChoice, TopologyError> {
        let r = match roots {
            Roots::Single => 1,
            Roots::PerK => k.min(wide),
            Roots::Fixed(r) => r,
        };
        let topology = FtcoTopology::new(FtcoKind::KNomial(k), r, procs)?;
        Ok(KnomialChoice {
            k,
            roots: r,
            latency: topology.fault_free_latency(collective, latency_steps)?,
        })
    };
    let mut best = choice(MIN_FTCO_ORDER)?;
    for k in MIN_FTCO_ORDER + 1..=wide.min(MAX_ORDER) {
        let candidate = choice(k)?;
        if candidate.latency < best.latency {
            best = candidate;
        }
    }
    Ok(best)
}
