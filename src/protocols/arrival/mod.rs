//! Broadcast under process arrival patterns (Patarasuk & Yuan, PAP): the common broadcast
//! algorithms whose competitive ratio PAP §3.3 shows unbounded or `Ω(n)`, the offline
//! `nearopt` of Lemma 1, and the two arrival-pattern-aware algorithms of §4 with competitive
//! ratio at most 3. They run on the driver's PAP model (`ftcoll_sim::pap`): a message of
//! `msize` takes `T(msize) = msize` time units, forwarding starts with the first bit, control
//! messages are free, blocking or non-blocking.
//!
//! - [`flat`]: the root sends to every receiver in turn (§3.3, Theorem 1).
//! - [`binomial`]: the hypercube tree (§3.3, Theorem 2).
//! - [`linear`]: the linear tree, pipelined in `X` segments (§3.3, Theorem 3).
//! - [`nearopt`]: the chain in arrival order, given the pattern (§3.2, Lemma 1).
//! - [`arrival_nb`]: PAP Fig. 4, non-blocking model (Theorem 5).
//! - [`arrival_b`]: PAP Fig. 5, blocking model (Theorem 6).
//! - [`metrics`]: PAP §2's measures, Lemma 1–2's bounds on `OPT(PAP)`, and `PERF(r, PAP)`.
//!
//! - [`scatter_allgather`]: binomial scatter, then ring allgather (§3.3, Theorem 4).

pub mod arrival_b;
pub mod arrival_nb;
pub mod binomial;
pub mod flat;
mod forward;
pub mod linear;
pub mod metrics;
pub mod nearopt;
pub mod scatter_allgather;
mod subgroup;

pub use forward::{ForwardNode, Forwarding};

use alloc::vec::Vec;
use core::fmt;

use crate::automaton::{Message, Phase, Value};
use crate::Rank;

/// The payload every algorithm here broadcasts.
pub const PAYLOAD: Value = 1;

/// A message of the PAP family.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum PapMsg {
    /// The broadcast message, or segment `index` of it, of `size` time units. `rest`: the
    /// ranks the receiver must still forward it to, **last first** (the next hop is the last
    /// entry): a sub-group broadcast's chain, PAP §4, the root's "header that contains the list
    /// of receivers". Empty for the tree algorithms.
    Data {
        /// `T` of this message: `msize`, or a segment's share of it.
        size: u64,
        /// The segment (0 unless pipelined).
        index: u32,
        /// Who the receiver forwards to, in chain order.
        rest: Vec<Rank>,
    },
    /// PAP Figs. 4–5: a receiver arrived and waits for a sub-group broadcast. A control
    /// message: size 0, free under PAP's model.
    Arrived,
}

impl Message for PapMsg {
    fn phase(&self) -> Phase {
        match self {
            Self::Data { .. } => Phase::Dissemination,
            Self::Arrived => Phase::Acknowledgment,
        }
    }

    fn size(&self) -> u64 {
        match self {
            Self::Data { size, .. } => *size,
            Self::Arrived => 0,
        }
    }
}

/// The parameters every algorithm here shares: `n` processes, rank 0 the root, a message of
/// `msize` time units.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PapConfig {
    procs: u32,
    msize: u64,
}

impl PapConfig {
    /// `procs ≥ 1` processes and a message of `msize ≥ 1` time units (`T(msize)`).
    pub fn new(procs: u32, msize: u64) -> Result<Self, PapError> {
        if procs == 0 {
            return Err(PapError {
                field: "procs",
                value: 0,
                allowed: "1..=4294967295",
            });
        }
        if msize == 0 {
            return Err(PapError {
                field: "msize",
                value: msize,
                allowed: "1..=18446744073709551615",
            });
        }
        Ok(Self { procs, msize })
    }

    /// `n`.
    pub fn procs(&self) -> u32 {
        self.procs
    }

    /// `T(msize)`.
    pub fn msize(&self) -> u64 {
        self.msize
    }

    /// The whole message carrying the chain `rest` (last first).
    fn data(&self, rest: Vec<Rank>) -> PapMsg {
        PapMsg::Data {
            size: self.msize,
            index: 0,
            rest,
        }
    }
}

/// An invalid parameter of a PAP algorithm.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PapError {
    /// The parameter.
    pub field: &'static str,
    /// The value given.
    pub value: u64,
    /// The allowed range.
    pub allowed: &'static str,
}

impl fmt::Display for PapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} is out of range: allowed {}",
            self.field, self.value, self.allowed
        )
    }
}

#[cfg(feature = "std")]
impl std::error::Error for PapError {}
