//! Dissemination reach of a tree under a set of failed processes (CT §3.1–3.2).
//!
//! After the tree phase a live rank is *uncolored* when one of its ancestors failed. On the
//! correction ring (ranks `0..P`, `P - 1` next to 0) a *gap* is a maximal run of consecutive
//! ranks that hold no message: failed or uncolored (DESIGN §3). Its size counts every rank of the
//! run, failed ones included, because correction messages must cross them: that is the `g_max`
//! of CT Lemma 3 (a run of failed ranks alone still delays correction, see
//! `sim/tests/drivers/sim_lemmas.rs`). Each gap also reports how many of its ranks are live and uncolored
//! (CT Fig. 3's text counts only those). Rank 0 is always colored, so no run crosses the
//! wrap-around from `P - 1` to 0.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use super::{Order, TopologyError, Tree};
use crate::Rank;

/// One gap on the correction ring.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Gap {
    /// First rank of the run.
    pub start: Rank,
    /// Number of ranks in the run (failed and uncolored).
    pub size: u64,
    /// Live uncolored ranks in the run (0 for a run of failed ranks only).
    pub uncolored: u64,
}

/// Uncolored live ranks and ring gaps after the tree phase.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Reach {
    /// Live ranks that the tree phase does not reach, ascending.
    pub uncolored: Vec<Rank>,
    /// The gaps in ring order.
    pub gaps: Vec<Gap>,
}

impl Reach {
    /// Reach of `tree` when the ranks in `failed` crash before the operation. Fails if a rank is
    /// `>= P` or is the root. Work is proportional to the failed subtrees, not to `P`.
    pub fn compute(tree: &Tree, failed: &[Rank]) -> Result<Self, TopologyError> {
        let mut failed: Vec<Rank> = failed.to_vec();
        failed.sort_unstable();
        failed.dedup();
        for &rank in &failed {
            if rank == 0 {
                return Err(TopologyError::RootFailed);
            }
            if !tree.contains(rank) {
                return Err(TopologyError::RankOutOfRange {
                    field: "faults",
                    rank: u64::from(rank),
                    procs: u64::from(tree.procs()),
                });
            }
        }
        // Every rank below a failed one, failed ranks included.
        let mut dark: Vec<Rank> = Vec::new();
        for &root in &failed {
            if has_failed_ancestor(tree, root, &failed) {
                continue;
            }
            match tree.order() {
                // Pre-order numbering: a subtree is a contiguous range.
                Order::InOrder => {
                    let size = tree.subtree_size(root).unwrap_or(1) as Rank;
                    dark.extend(root..root + size);
                }
                Order::Interleaved => {
                    let mut stack = alloc::vec![root];
                    while let Some(node) = stack.pop() {
                        dark.push(node);
                        stack.extend(tree.children(node));
                    }
                }
            }
        }
        dark.sort_unstable();
        let is_failed = |r: Rank| failed.binary_search(&r).is_ok();
        let uncolored: Vec<Rank> = dark.iter().copied().filter(|&r| !is_failed(r)).collect();
        let mut gaps = Vec::new();
        let mut i = 0;
        while i < dark.len() {
            let start = dark[i];
            let mut j = i;
            while j + 1 < dark.len() && dark[j + 1] == dark[j] + 1 {
                j += 1;
            }
            let live = dark[i..=j].iter().filter(|&&r| !is_failed(r)).count() as u64;
            gaps.push(Gap {
                start,
                size: (j - i + 1) as u64,
                uncolored: live,
            });
            i = j + 1;
        }
        Ok(Self { uncolored, gaps })
    }

    /// `g_max`: the largest gap size, 0 when every live rank is colored.
    pub fn gmax(&self) -> u64 {
        self.gaps.iter().map(|g| g.size).max().unwrap_or(0)
    }

    /// Gap size → number of gaps of that size.
    pub fn histogram(&self) -> BTreeMap<u64, u64> {
        let mut histogram = BTreeMap::new();
        for gap in &self.gaps {
            *histogram.entry(gap.size).or_insert(0) += 1;
        }
        histogram
    }
}

fn has_failed_ancestor(tree: &Tree, rank: Rank, failed: &[Rank]) -> bool {
    let mut at = rank;
    while let Some(parent) = tree.parent(at) {
        if failed.binary_search(&parent).is_ok() {
            return true;
        }
        at = parent;
    }
    false
}

/// The longest run of consecutive ranks `r` of a ring of `n` (wrapping around) with `dark(r)`:
/// `n` when every rank is dark. CT's measured `g_max` and CG's uncolored chains (Fig. 1) are
/// both this.
pub fn longest_circular_run(n: usize, dark: impl Fn(usize) -> bool) -> u64 {
    // Start right after a rank that is not dark, so that no run is split by the wrap-around.
    let Some(start) = (0..n).find(|&r| !dark(r)) else {
        return n as u64;
    };
    let (mut longest, mut run) = (0u64, 0u64);
    for k in 1..=n {
        if dark((start + k) % n) {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    longest
}
