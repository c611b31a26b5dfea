//! # ftcoll — fault-tolerant collective communication
//!
//! Protocols from the Corrected Trees (CT), Corrected Gossip (CG), FTCO and arrival-pattern
//! (PAP) papers written as pure automata, plus the arithmetic they stand on. This crate is the
//! bottom of a stack: `ftcoll-sim` drives the automata (LogP, FTCO's single-port steps, PAP's
//! model), `ftcoll-verify` model-checks them, and `ftcoll-lab` holds the experiments, the
//! paper reproductions and the `ftcoll` command line.
//!
//! Three ways to use it:
//! - **a library of automata** for your own runtime: every protocol is one
//!   [`Automaton`](automaton::Automaton) per process, driven by your event loop (below, and
//!   `examples/embed_in_your_transport.rs` over threads and channels);
//! - **model checking**: the companion crate `ftcoll-verify` checks any automaton with the
//!   standard broadcast properties (`verify/examples/check_a_variant.rs`);
//! - **property tests** of the tree lemmas on your own trees, with the strategies of
//!   `strategies` (feature `proptest`, `examples/lemma_properties.rs`).
//!
//! ## Modules
//!
//! - [`topology`]: the tree numberings of CT §3.2 (k-ary, binomial, Lamé, LogP-optimal; interleaved
//!   and in-order), the ready-to-send sequences `R(t)`, the Definition 1 checker and the
//!   dissemination reach (uncolored ranks, ring gaps, `g_max`) for a failure set; FTCO's trees.
//! - [`automaton`]: the contract every protocol implements (inputs, the [`Outbox`](automaton::Outbox)
//!   of reactions, `now` passed in, the polling and early-message rules, `is_done`).
//! - [`protocols`]: Corrected Tree broadcast and its ring corrections, Corrected Gossip, FTCO's
//!   Bcast/Reduce/Allreduce, and the PAP broadcasts.
//! - [`rng`]: the SplitMix64 generator automata carry.
//!
//! ## Features
//!
//! The core is `#![no_std]` + `alloc`.
//! - `std` (default): `std::error::Error` implementations.
//! - `serde`: `Serialize`/`Deserialize` on every public configuration, spec, topology parameter,
//!   scenario, report, metric summary, trace event and protocol message (no_std compatible).
//! - `proptest`: the `strategies` module (trees, fault sets) for property tests.
//!
//! ## Driving an automaton by hand
//!
//! A driver creates one automaton per rank, calls `on_start`, hands over messages with
//! `on_message`, fires timers with `on_timer`, and after every input polls `on_send_slot` until
//! a poll sends nothing. Here the network is a FIFO queue, rank 3 has failed (messages to it are
//! lost) and time is a message counter (an overlapped start sets no timers):
//!
//! ```
//! use std::collections::VecDeque;
//! use ftcoll::automaton::{Action, Automaton, Outbox};
//! use ftcoll::protocols::corrected_tree::{
//!     CorrectedTreeConfig, CorrectedTreeNode, CorrectionSpec, StartMode,
//! };
//! use ftcoll::protocols::Msg;
//! use ftcoll::topology::{LogP, Order, Tree, TreeKind};
//! use ftcoll::{Rank, Time};
//!
//! let tree = Tree::new(TreeKind::Binomial, Order::Interleaved, 8, LogP::new(2, 1)?)?;
//! // `CorrectionSpec::Checked`, spelled as on the command line:
//! let correction: CorrectionSpec = "checked".parse()?;
//! let config = CorrectedTreeConfig::new(tree, correction, StartMode::Overlapped);
//! let failed: Rank = 3;
//! let mut nodes: Vec<_> = (0..8).map(|r| CorrectedTreeNode::new(&config, r)).collect();
//! let mut network = VecDeque::new();
//! let mut delivered = [0u32; 8];
//! let mut out = Outbox::new();
//!
//! // After an input: apply its reactions, then poll the send port until it stays idle.
//! type Network = VecDeque<(Rank, Rank, Msg)>;
//! let settle = |rank: Rank, now: Time, node: &mut CorrectedTreeNode, out: &mut Outbox<Msg>,
//!               network: &mut Network, delivered: &mut [u32]| loop {
//!     node.on_send_slot(&config, now, out);
//!     let mut sent = false;
//!     for action in out.drain() {
//!         match action {
//!             Action::Send { to, msg } => {
//!                 sent = true;
//!                 network.push_back((rank, to, msg));
//!             }
//!             Action::Deliver(value) => {
//!                 assert_eq!(value, config.payload);
//!                 delivered[rank as usize] += 1;
//!             }
//!             _ => {} // timers (none here), ignored inputs
//!         }
//!     }
//!     if !sent {
//!         break;
//!     }
//! };
//! for rank in (0..8).filter(|&r| r != failed) {
//!     nodes[rank as usize].on_start(&config, 0, &mut out);
//!     settle(rank, 0, &mut nodes[rank as usize], &mut out, &mut network, &mut delivered);
//! }
//! let mut now: Time = 0;
//! while let Some((from, to, msg)) = network.pop_front() {
//!     now += 1;
//!     if to != failed {
//!         nodes[to as usize].on_message(&config, now, from, msg, &mut out);
//!         settle(to, now, &mut nodes[to as usize], &mut out, &mut network, &mut delivered);
//!     }
//! }
//! for rank in (0..8).filter(|&r| r != failed) {
//!     assert_eq!(delivered[rank as usize], 1, "rank {rank}");
//!     assert!(nodes[rank as usize].is_done(&config));
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The `ftcoll-sim` driver is this loop with LogP timing; `ftcoll_sim::run` runs a whole
//! operation.
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![warn(unreachable_pub)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod automaton;
pub mod protocols;
pub mod rng;
#[cfg(feature = "serde")]
pub mod serde_support;
#[cfg(feature = "proptest")]
pub mod strategies;
pub mod topology;

/// A process rank: `0..P`, rank 0 is the root of every collective.
pub type Rank = u32;

/// Simulated time in integer LogP steps.
pub type Time = u64;

/// The README's code (its Rust example runs as a doctest, so it cannot drift from the crate).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
