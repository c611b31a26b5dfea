//! CT Definition 1: a tree is interleaved iff, for every subtree `T_s` and the ring `R_s` of its
//! nodes in rank order, any two adjacent distinct nodes either descend from each other or have
//! `root(T_s)` as their only common ancestor.
//!
//! With parents numbered below their children, the root of `T_s` is its smallest rank, so the
//! ring's wrap-around pair always involves it. A pair `u < v` adjacent in the ring of `x` whose
//! lowest common ancestor `w` lies strictly below `x` (and is neither `u` nor `v`) is a
//! violation; such a pair is also adjacent in the ring of `w`'s parent, where both nodes come from
//! the same child. So it suffices to merge, at every node, the sorted rank lists of its
//! children's subtrees and look for two adjacent ranks from one child that are not ancestor and
//! descendant. Total work is `O(Σ subtree sizes at branching nodes)`, i.e. `O(P · depth)`.

use alloc::collections::BinaryHeap;
use alloc::vec;
use alloc::vec::Vec;
use core::cmp::Reverse;

use super::{TopologyError, Tree};
use crate::Rank;

/// A witness that a tree is not interleaved (CT Definition 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Violation {
    /// Root of the subtree `T_s` whose ring holds the pair.
    pub subtree_root: Rank,
    /// Two ranks adjacent on the ring of `T_s`, smaller first.
    pub pair: (Rank, Rank),
    /// Their lowest common ancestor: a strict descendant of `subtree_root`, neither of the pair.
    pub common_ancestor: Rank,
}

/// Checks CT Definition 1 on `tree`: `None` if it is interleaved, else a witness.
/// Materializes the tree (`O(P)` memory); `P = 2^20` takes well under a second in release mode.
pub fn check_interleaved(tree: &Tree) -> Option<Violation> {
    check_interleaved_parents(&tree.parents()).unwrap_or(None)
}

/// Checks CT Definition 1 on a tree given by parent links (`parents[0] = None`, every other rank
/// has a parent with a smaller rank). Errors name the first rank that breaks that shape.
pub fn check_interleaved_parents(
    parents: &[Option<Rank>],
) -> Result<Option<Violation>, TopologyError> {
    let procs = parents.len();
    if procs == 0 {
        return Err(TopologyError::OutOfRange {
            field: "procs",
            value: 0,
            min: 1,
            max: u64::from(super::MAX_PROCS),
        });
    }
    for (rank, parent) in parents.iter().enumerate() {
        let ok = match parent {
            None => rank == 0,
            Some(p) => (*p as usize) < rank,
        };
        if !ok {
            return Err(TopologyError::NotATree { rank: rank as u64 });
        }
    }
    // Euler tour intervals for O(1) ancestor tests: children in rank order (counting sort).
    let mut first_child = vec![0u32; procs + 1];
    for p in parents.iter().flatten() {
        first_child[*p as usize + 1] += 1;
    }
    for i in 0..procs {
        first_child[i + 1] += first_child[i];
    }
    let mut fill = first_child.clone();
    let mut child_list = vec![0 as Rank; procs - 1];
    for (rank, parent) in parents.iter().enumerate() {
        if let Some(p) = parent {
            child_list[fill[*p as usize] as usize] = rank as Rank;
            fill[*p as usize] += 1;
        }
    }
    let children = |x: usize| &child_list[first_child[x] as usize..first_child[x + 1] as usize];
    let (mut enter, mut leave) = (vec![0u32; procs], vec![0u32; procs]);
    let mut clock = 0u32;
    let mut stack = vec![(0usize, 0usize)];
    enter[0] = 0;
    while let Some((node, next)) = stack.last_mut() {
        let node = *node;
        if let Some(&child) = children(node).get(*next) {
            *next += 1;
            clock += 1;
            enter[child as usize] = clock;
            stack.push((child as usize, 0));
        } else {
            leave[node] = clock;
            stack.pop();
        }
    }
    let is_ancestor = |a: Rank, d: Rank| {
        enter[a as usize] <= enter[d as usize] && leave[d as usize] <= leave[a as usize]
    };
    let lca = |mut u: Rank, v: Rank| {
        while !is_ancestor(u, v) {
            u = parents[u as usize].unwrap_or(0);
        }
        u
    };

    // Sorted subtree lists, stored descending so a parent (the minimum) is pushed last.
    let mut lists: Vec<Vec<Rank>> = vec![Vec::new(); procs];
    // Some adjacent pair in the list that is not ancestor/descendant (its LCA is the list's root).
    let mut cross: Vec<Option<(Rank, Rank)>> = vec![None; procs];
    for x in (0..procs).rev() {
        let kids = children(x);
        let violation = |pair: (Rank, Rank)| Violation {
            subtree_root: x as Rank,
            pair,
            common_ancestor: lca(pair.0, pair.1),
        };
        let mut list = match kids {
            [] => Vec::new(),
            [only] => {
                if let Some(pair) = cross[*only as usize] {
                    return Ok(Some(violation(pair)));
                }
                core::mem::take(&mut lists[*only as usize])
            }
            _ => {
                let total = kids.iter().map(|c| lists[*c as usize].len()).sum();
                let mut merged = Vec::with_capacity(total + 1);
                let mut sources: Vec<Vec<Rank>> = kids
                    .iter()
                    .map(|c| core::mem::take(&mut lists[*c as usize]))
                    .collect();
                // Min-heap of (next smallest rank, source); lists are descending, pop from the back.
                let mut heap: BinaryHeap<Reverse<(Rank, usize)>> = sources
                    .iter()
                    .enumerate()
                    .filter_map(|(i, l)| l.last().map(|&r| Reverse((r, i))))
                    .collect();
                let mut previous: Option<(Rank, usize)> = None;
                let mut ascending = Vec::with_capacity(total);
                while let Some(Reverse((rank, source))) = heap.pop() {
                    sources[source].pop();
                    if let Some(&next) = sources[source].last() {
                        heap.push(Reverse((next, source)));
                    }
                    if let Some((prev, prev_source)) = previous {
                        if prev_source != source {
                            cross[x].get_or_insert((prev, rank));
                        } else if !is_ancestor(prev, rank) {
                            return Ok(Some(violation((prev, rank))));
                        }
                    }
                    previous = Some((rank, source));
                    ascending.push(rank);
                }
                merged.extend(ascending.into_iter().rev());
                merged
            }
        };
        list.push(x as Rank);
        lists[x] = list;
    }
    Ok(None)
}
