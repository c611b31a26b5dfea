//! `nearopt` (PAP §3.2, Lemma 1, Fig. 2): the offline algorithm that knows the arrival
//! pattern. With the receivers sorted by arrival, `p0, p'1, …, p'(n−1)`, the root sends to
//! `p'1` and each `p'i` forwards to `p'(i+1)`. Non-blocking: `ē = T(msize)` at most; blocking:
//! `ē = Δ/n + T(msize)` (Lemma 1's proof). Ties in arrival time go by rank.

use alloc::vec::Vec;

use super::forward::{ForwardNode, Forwarding};
use super::{PapConfig, PapError};
use crate::{Rank, Time};

/// `nearopt`'s schedule: each rank's successor in the chain.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Nearopt {
    base: PapConfig,
    next: Vec<Option<Rank>>,
}

impl Nearopt {
    /// The chain for the arrival pattern `arrivals` (one time per rank).
    pub fn new(base: PapConfig, arrivals: &[Time]) -> Result<Self, PapError> {
        if arrivals.len() != base.procs() as usize {
            return Err(PapError {
                field: "arrivals",
                value: arrivals.len() as u64,
                allowed: "exactly procs entries",
            });
        }
        let mut order: Vec<Rank> = (1..base.procs()).collect();
        order.sort_by_key(|&r| (arrivals[r as usize], r));
        let mut next = alloc::vec![None; base.procs() as usize];
        let mut prev = 0;
        for r in order {
            next[prev as usize] = Some(r);
            prev = r;
        }
        Ok(Self { base, next })
    }
}

/// One process of `nearopt`.
pub type NearoptNode = ForwardNode<Nearopt>;

impl Forwarding for Nearopt {
    fn procs(&self) -> u32 {
        self.base.procs()
    }

    fn segment_size(&self, _i: u32) -> u64 {
        self.base.msize()
    }

    fn destination(&self, rank: Rank, k: u32) -> Option<Rank> {
        if k == 0 {
            self.next.get(rank as usize).copied().flatten()
        } else {
            None
        }
    }
}
