//! The flat tree (PAP §3.3, Fig. 3a; Open MPI): the root sends the message to every receiver
//! in turn, `1, 2, …, n − 1`. Theorem 1: `PERF(flat) = Ω(n)` in both models.

use super::forward::{ForwardNode, Forwarding};
use super::PapConfig;
use crate::Rank;

/// The flat tree's schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Flat(pub PapConfig);

/// One process of the flat tree.
pub type FlatNode = ForwardNode<Flat>;

impl Forwarding for Flat {
    fn procs(&self) -> u32 {
        self.0.procs()
    }

    fn segment_size(&self, _i: u32) -> u64 {
        self.0.msize()
    }

    fn destination(&self, rank: Rank, k: u32) -> Option<Rank> {
        (rank == 0)
            .then_some(k + 1)
            .filter(|&to| to < self.0.procs())
    }
}
