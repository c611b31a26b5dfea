//! In-order (depth-first) numbering of a tree shape (CT Fig. 3 and 4, left).
//!
//! The in-order rank of a node is its position in a pre-order traversal that visits children in
//! send order, so every subtree is a contiguous range of ranks. Ranks are mapped to the
//! interleaved shape by descending from the root with subtree sizes, in
//! `O(depth · fan-out)` subtree-size queries.

use super::Shape;
use crate::Rank;

/// The interleaved node at pre-order position `rank`, and the pre-order rank of its parent.
pub(super) fn locate(shape: &Shape, rank: u64) -> (u64, Option<Rank>) {
    let (mut node, mut position, mut parent) = (0u64, 0u64, None);
    while position != rank {
        let mut start = position + 1;
        let mut descended = false;
        for child in shape.children(node) {
            let size = shape.subtree_size(u64::from(child));
            if rank < start + size {
                parent = Some(position as Rank);
                node = u64::from(child);
                position = start;
                descended = true;
                break;
            }
            start += size;
        }
        if !descended {
            // Unreachable for rank < P: the subtree sizes of the children cover the range.
            break;
        }
    }
    (node, parent)
}

/// Calls `edge(parent, child)` for every edge, in pre-order ranks, in `O(P)` total time.
pub(super) fn for_each_edge(shape: &Shape, mut edge: impl FnMut(Rank, Rank)) {
    let mut stack = alloc::vec![(shape.children(0), 0 as Rank)];
    let mut counter: Rank = 0;
    while let Some((children, rank)) = stack.last_mut() {
        let rank = *rank;
        match children.next() {
            Some(child) => {
                counter += 1;
                edge(rank, counter);
                stack.push((shape.children(u64::from(child)), counter));
            }
            None => {
                stack.pop();
            }
        }
    }
}
