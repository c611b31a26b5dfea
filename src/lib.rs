//! # ftcoll — fault-tolerant collective communication
//!
//! Protocols from the Corrected Trees (CT), Corrected Gossip (CG), FTCO and arrival-pattern
//! papers written as pure automata, plus the arithmetic they stand on.
//!
//! The core is `#![no_std]` + `alloc`; the default `std` feature only adds
//! `std::error::Error` implementations; `serde` adds `Serialize`/`Deserialize` to every public
//! configuration, spec, topology parameter, scenario, report, metric summary, trace event and
//! protocol message. The command-line tool lives behind the `cli` feature.
//!
//! - [`topology`]: the tree numberings of CT §3.2 (k-ary, binomial, Lamé, LogP-optimal; interleaved
//!   and in-order), the ready-to-send sequences `R(t)`, the Definition 1 checker and the
//!   dissemination reach (uncolored ranks, ring gaps, `g_max`) for a failure set.
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod automaton;
pub mod experiment;
pub mod fastpath;
pub mod protocols;
pub mod rng;
#[cfg(feature = "serde")]
pub mod serde_support;
pub mod sim;
#[cfg(feature = "proptest")]
pub mod strategies;
pub mod topology;

/// A process rank: `0..P`, rank 0 is the root of every collective.
pub type Rank = u32;

/// Simulated time in integer LogP steps.
pub type Time = u64;
