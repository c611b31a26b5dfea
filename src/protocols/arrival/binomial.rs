//! The binomial tree (PAP §3.3, Fig. 3b; MPICH, Open MPI): in step `i`, each process
//! `p < 2^(i−1)` that holds the message sends it to `p ⊕ 2^(i−1)`. So process `r` receives
//! from `r` minus its highest bit and sends to `r + 2^k` for every `2^k > r` with
//! `r + 2^k < n`, smallest `k` first. Theorem 2: `PERF(binomial) = ∞` non-blocking, `Ω(n)`
//! blocking.

use super::forward::{ForwardNode, Forwarding};
use super::PapConfig;
use crate::Rank;

/// The binomial tree's schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Binomial(pub PapConfig);

/// One process of the binomial tree.
pub type BinomialNode = ForwardNode<Binomial>;

impl Forwarding for Binomial {
    fn procs(&self) -> u32 {
        self.0.procs()
    }

    fn segment_size(&self, _i: u32) -> u64 {
        self.0.msize()
    }

    fn destination(&self, rank: Rank, k: u32) -> Option<Rank> {
        // The first k with 2^k > rank: the bit length of rank.
        let first = u64::from(u32::BITS - rank.leading_zeros());
        let shift = first + u64::from(k);
        let to = u64::from(rank) + 1u64.checked_shl(u32::try_from(shift).ok()?)?;
        (to < u64::from(self.0.procs())).then_some(to as Rank)
    }
}
