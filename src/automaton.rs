//! The automaton contract (DESIGN §2, docs/design.md).
//!
//! Every protocol is one [`Automaton`] per process: a deterministic state machine that reacts to
//! inputs pushed by a driver — the process arriving at the operation, a message received, a timer
//! firing, the send port becoming free — and writes its reactions into an [`Outbox`] passed to each
//! call. The same implementation serves the LogP simulator, the model checker and a real
//! transport: drivers know nothing protocol-specific, and automata know nothing about drivers.
//!
//! - `now` is passed in; automata never read a clock and hold no I/O.
//! - Shared, immutable parameters (the tree, the correction variant, the payload) live in
//!   [`Automaton::Config`], passed by reference, so the per-process state stays `O(fan-out)` and
//!   can be hashed by a model checker.
//! - A process decides its next send only when its port is free ([`Automaton::on_send_slot`]),
//!   after every message received so far has been handed to it (checked correction depends on it).
//! - Handlers never panic on peer input: unexpected messages produce [`Action::Ignored`] with a
//!   reason.

use alloc::vec::Vec;
use core::fmt::Debug;
use core::hash::Hash;

use crate::{Rank, Time};

/// The application payload of a collective: a broadcast value or a reduction operand.
pub type Value = u64;

/// A timer identifier, chosen by the automaton; setting a timer again replaces it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TimerId(pub u32);

/// What a message is for, so drivers can count messages per phase without knowing protocols.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Phase {
    /// Tree or gossip dissemination.
    Dissemination,
    /// Ring correction (CT §3.1, CG §III).
    Correction,
    /// Acknowledgments and other replies.
    Acknowledgment,
}

/// A protocol message.
pub trait Message: Clone + Eq + Hash + Debug {
    /// The phase this message belongs to.
    fn phase(&self) -> Phase;
}

/// One reaction of an automaton.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Action<M> {
    /// Send `msg` to `to`. A driver accepts at most one send per [`Automaton::on_send_slot`] call
    /// and none from other handlers.
    Send {
        /// Destination rank.
        to: Rank,
        /// The message.
        msg: M,
    },
    /// Fire [`Automaton::on_timer`] with `id` at time `at` (replaces a pending timer `id`).
    SetTimer {
        /// The timer.
        id: TimerId,
        /// Absolute firing time.
        at: Time,
    },
    /// Forget the pending timer `id`, if any.
    CancelTimer {
        /// The timer.
        id: TimerId,
    },
    /// The application receives the broadcast payload (at most once per process).
    Deliver(Value),
    /// The collective has completed locally with this value (root of a broadcast with
    /// acknowledgments, every process of a reduction).
    Complete(Value),
    /// An input was ignored; the reason is for traces and tests.
    Ignored(&'static str),
}

/// The sink an automaton writes its reactions into; drivers drain it after each call.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Outbox<M> {
    actions: Vec<Action<M>>,
}

impl<M> Outbox<M> {
    /// An empty outbox.
    pub fn new() -> Self {
        Self {
            actions: Vec::new(),
        }
    }

    /// Queues a send.
    pub fn send(&mut self, to: Rank, msg: M) {
        self.actions.push(Action::Send { to, msg });
    }

    /// Sets (or replaces) a timer.
    pub fn set_timer(&mut self, id: TimerId, at: Time) {
        self.actions.push(Action::SetTimer { id, at });
    }

    /// Cancels a timer.
    pub fn cancel_timer(&mut self, id: TimerId) {
        self.actions.push(Action::CancelTimer { id });
    }

    /// Delivers the payload to the application.
    pub fn deliver(&mut self, value: Value) {
        self.actions.push(Action::Deliver(value));
    }

    /// Reports local completion.
    pub fn complete(&mut self, value: Value) {
        self.actions.push(Action::Complete(value));
    }

    /// Records why an input was ignored.
    pub fn ignore(&mut self, reason: &'static str) {
        self.actions.push(Action::Ignored(reason));
    }

    /// The queued actions, in order.
    pub fn actions(&self) -> &[Action<M>] {
        &self.actions
    }

    /// Removes and returns the queued actions, in order.
    pub fn drain(&mut self) -> alloc::vec::Drain<'_, Action<M>> {
        self.actions.drain(..)
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.actions.is_empty()
    }
}

/// One process of a protocol. See the module documentation for the contract.
pub trait Automaton: Clone + Eq + Hash + Debug {
    /// Messages exchanged by this protocol.
    type Msg: Message;
    /// Parameters shared by every process of one operation (not part of the hashed state).
    type Config: Debug;

    /// The process's initial state, before it arrives at the operation.
    fn new(config: &Self::Config, rank: Rank) -> Self;

    /// The process arrives at the operation (the root starts it). Called once, before any other
    /// handler.
    fn on_start(&mut self, config: &Self::Config, now: Time, out: &mut Outbox<Self::Msg>);

    /// A message from `from` has been received (at the end of its receive overhead).
    fn on_message(
        &mut self,
        config: &Self::Config,
        now: Time,
        from: Rank,
        msg: Self::Msg,
        out: &mut Outbox<Self::Msg>,
    );

    /// Timer `id` fired.
    fn on_timer(
        &mut self,
        config: &Self::Config,
        now: Time,
        id: TimerId,
        out: &mut Outbox<Self::Msg>,
    );

    /// The send port is free: emit at most one [`Action::Send`]. Called after every input that
    /// might enable a send while the port is free, and whenever the port becomes free.
    fn on_send_slot(&mut self, config: &Self::Config, now: Time, out: &mut Outbox<Self::Msg>);

    /// Single-port model only (FTCO §2): with `queue` holding the messages waiting to be
    /// received (oldest first), choose one to handle in this step instead of sending, or `None`
    /// to offer the step to [`Self::on_send_slot`]. The default handles the oldest first.
    fn select_receive(
        &self,
        _config: &Self::Config,
        _now: Time,
        queue: &[(Rank, Self::Msg)],
    ) -> Option<usize> {
        if queue.is_empty() {
            None
        } else {
            Some(0)
        }
    }
}
