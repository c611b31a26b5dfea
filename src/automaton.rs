//! The automaton contract (DESIGN §2, docs/guide.md ("The automaton contract")).
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
//! - **Polling the send port.** A driver calls [`Automaton::on_send_slot`] after every input
//!   (`on_start`, `on_message`, `on_timer`) while the port is free, and again each time the port
//!   becomes free after a send. A poll that emits no send means the automaton does not want the
//!   port until its next input: an automaton that needs the port later sets a timer. A
//!   transport with an always-free port (a channel) simply polls after each input until a poll
//!   emits no send. An automaton may also declare a coming poll idle
//!   ([`Automaton::send_slot_is_idle`]: it would emit nothing and change nothing); a driver may
//!   then skip it, which saves work and changes no run. The LogP driver asks after a send,
//!   after a received message (where 522 K of the 528 K empty polls of a 64 K-process FTCO run
//!   were) and after a start (a broadcast's processes but the root wait for the payload), not
//!   after a timer, whose poll is rarely empty.
//! - **Messages that arrive before `on_start`.** A process has not joined the operation before
//!   `on_start`, so drivers hold back every message that reaches it earlier and hand them over,
//!   in arrival order, right after `on_start` (the LogP driver starts their receive overhead at
//!   the arrival; the PAP driver buffers them). [`Automaton::on_message`] is never called before
//!   [`Automaton::on_start`]; an automaton that receives one anyway (a driver that breaks this
//!   rule) must not panic, and may ignore it, as the Corrected Tree root does.
//! - **Done.** [`Automaton::is_done`] tells a driver that a process has finished its part: no
//!   input can make it send, deliver, complete or set a timer any more. A transport may then
//!   stop serving it. The default is `false` ("not known"), which is always correct.
//! - Randomness lives in the state: a protocol that chooses at random (gossip, CG §III.A) holds
//!   a [`SplitMix64`](crate::rng::SplitMix64) seeded in [`Automaton::new`] with
//!   `SplitMix64::stream(seed, rank)`, `seed` taken from the config. It draws only for its own
//!   random choices, so the same seed and inputs give the same run in every driver, and the
//!   state stays `Clone + Eq + Hash`. No clock, thread-local or global RNG.

use alloc::vec::Vec;
use core::fmt::Debug;
use core::hash::Hash;

use crate::{Rank, Time};

/// The default application value: the Corrected Tree family's broadcast payload. Protocols
/// choose their own value type ([`Automaton::Value`]); this is what `Action`, `Outbox` and the
/// driver's report use when none is named.
pub type Value = u64;

/// What a value type needs: automata hold values in hashed state and report them in actions.
pub trait Payload: Clone + Eq + Hash + Debug {}

impl<T: Clone + Eq + Hash + Debug> Payload for T {}

/// A timer identifier, chosen by the automaton; setting a timer again replaces it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TimerId(pub u32);

/// What a message is for, so drivers can count messages per phase without knowing protocols.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Phase {
    /// Tree or gossip dissemination.
    Dissemination,
    /// Ring correction (CT §3.1, CG §III).
    Correction,
    /// Acknowledgments and other replies.
    Acknowledgment,
    /// Probes of a peer's liveness that carry no data (FTCO §4: KEEPALIVE).
    Liveness,
}

/// A protocol message.
pub trait Message: Clone + Eq + Hash + Debug {
    /// The phase this message belongs to.
    fn phase(&self) -> Phase;

    /// Bytes of application data the message carries, for timing models that charge a message
    /// by its size (PAP §3.1: `T(msize)`); control messages carry 0. The LogP models of CT, CG
    /// and FTCO charge every message the same and ignore it. Default: 0.
    fn size(&self) -> u64 {
        0
    }
}

/// An associative reduction operator `⊕` over values (FTCO §3–4: Reduce and Allreduce).
///
/// Protocols may combine operands in any grouping (associativity), but never in any order
/// unless [`Reduction::is_commutative`] says so, and never use one process's operand twice
/// unless [`Reduction::is_idempotent`] says so (FTCO §4: for non-idempotent operators such as
/// addition "each value is used only once").
pub trait Reduction: Debug {
    /// The operand and result type.
    type Value: Payload;
    /// `a ⊕ b`. Must not panic on any operands (use wrapping or saturating arithmetic).
    fn combine(&self, a: &Self::Value, b: &Self::Value) -> Self::Value;
    /// Whether `a ⊕ a = a` (minimum, maximum, bitwise or): a value counted twice does no harm.
    fn is_idempotent(&self) -> bool;
    /// Whether `a ⊕ b = b ⊕ a`.
    fn is_commutative(&self) -> bool {
        true
    }
}

/// Wrapping sum of `u64` (not idempotent: a value counted twice changes the result).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Sum;

impl Reduction for Sum {
    type Value = u64;
    fn combine(&self, a: &u64, b: &u64) -> u64 {
        a.wrapping_add(*b)
    }
    fn is_idempotent(&self) -> bool {
        false
    }
}

/// Idempotent `u64` operators: `name`, doc, `combine` body over `a`, `b`.
macro_rules! idempotent_u64 {
    ($($(#[$doc:meta])* $name:ident: |$a:ident, $b:ident| $body:expr;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        pub struct $name;

        impl Reduction for $name {
            type Value = u64;
            fn combine(&self, $a: &u64, $b: &u64) -> u64 {
                $body
            }
            fn is_idempotent(&self) -> bool {
                true
            }
        }
    )*};
}

idempotent_u64! {
    /// Minimum of `u64` (idempotent).
    Min: |a, b| *a.min(b);
    /// Maximum of `u64` (idempotent).
    Max: |a, b| *a.max(b);
    /// Bitwise or of `u64` (idempotent): with operand `1 << rank` it records who contributed.
    BitOr: |a, b| a | b;
}

/// A multiset of contributors as a value: `⊕` adds the counts, so a result tells exactly whose
/// operands it contains and how often — what a checker needs to decide FTCO's consistency ("it
/// includes every process that did not fail before the end and counts no value twice"). Not
/// idempotent, by design. Sorted `(rank, count)` pairs; meant for small `P`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Contributions;

impl Reduction for Contributions {
    type Value = Vec<(Rank, u32)>;
    fn combine(&self, a: &Self::Value, b: &Self::Value) -> Self::Value {
        let mut out = Vec::with_capacity(a.len() + b.len());
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            match (a.get(i), b.get(j)) {
                (Some(&(ra, ca)), Some(&(rb, cb))) if ra == rb => {
                    out.push((ra, ca.saturating_add(cb)));
                    i += 1;
                    j += 1;
                }
                (Some(&x), Some(&y)) if x.0 < y.0 => {
                    out.push(x);
                    i += 1;
                }
                (Some(_), Some(&y)) => {
                    out.push(y);
                    j += 1;
                }
                (Some(&x), None) => {
                    out.push(x);
                    i += 1;
                }
                (None, Some(&y)) => {
                    out.push(y);
                    j += 1;
                }
                (None, None) => break,
            }
        }
        out
    }
    fn is_idempotent(&self) -> bool {
        false
    }
}

/// One reaction of an automaton; `V` is the automaton's value type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Action<M, V = Value> {
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
    Deliver(V),
    /// The collective has completed locally with this value (root of a broadcast with
    /// acknowledgments, every process of a reduction).
    Complete(V),
    /// An input was ignored; the reason is for traces and tests.
    Ignored(&'static str),
}

/// The sink an automaton writes its reactions into; drivers drain it after each call.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Outbox<M, V = Value> {
    actions: Vec<Action<M, V>>,
}

impl<M, V> Default for Outbox<M, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<M, V> Outbox<M, V> {
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
    pub fn deliver(&mut self, value: V) {
        self.actions.push(Action::Deliver(value));
    }

    /// Reports local completion.
    pub fn complete(&mut self, value: V) {
        self.actions.push(Action::Complete(value));
    }

    /// Records why an input was ignored.
    pub fn ignore(&mut self, reason: &'static str) {
        self.actions.push(Action::Ignored(reason));
    }

    /// The queued actions, in order.
    pub fn actions(&self) -> &[Action<M, V>] {
        &self.actions
    }

    /// Removes and returns the queued actions, in order.
    pub fn drain(&mut self) -> alloc::vec::Drain<'_, Action<M, V>> {
        self.actions.drain(..)
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.actions.is_empty()
    }

    /// Puts the queued actions in the order [`Outbox::pop_next`] takes them: the driver's way
    /// to take them one by one while it changes its own state between two, without a
    /// [`Outbox::drain`] borrowing the outbox (the drain's construction and drop cost
    /// as much as handling the one action most calls queue).
    pub fn start_taking(&mut self) {
        self.actions.reverse();
    }

    /// The next action after [`Outbox::start_taking`], in the order they were queued.
    #[inline]
    pub fn pop_next(&mut self) -> Option<Action<M, V>> {
        self.actions.pop()
    }

    /// Drops whatever is left (a driver's way out after an error).
    pub fn clear(&mut self) {
        self.actions.clear();
    }
}

/// One process of a protocol. See the module documentation for the contract.
pub trait Automaton: Clone + Eq + Hash + Debug {
    /// Messages exchanged by this protocol.
    type Msg: Message;
    /// The application value: what is broadcast, or the operand and result of a reduction
    /// (chosen by the protocol, often a type parameter the user picks).
    type Value: Payload;
    /// Parameters shared by every process of one operation (not part of the hashed state).
    type Config: Debug;

    /// The process's initial state, before it arrives at the operation.
    fn new(config: &Self::Config, rank: Rank) -> Self;

    /// The number of processes `P` the configuration was built for, when it names one (a tree,
    /// a ring). The drivers (`ftcoll_sim::run`, `ftcoll_sim::Sim::new`,
    /// `ftcoll_sim::pap::run`) refuse to run a different number of processes
    /// (`ftcoll_sim::SimError::ProcsMismatch`); a driver of one's own
    /// should do the same. Default: `None` (the configuration does not know `P`; nothing is
    /// checked). Every automaton of this crate answers `Some`.
    fn procs(config: &Self::Config) -> Option<u32> {
        let _ = config;
        None
    }

    /// The process arrives at the operation (the root starts it). Called once, before any other
    /// handler.
    fn on_start(
        &mut self,
        config: &Self::Config,
        now: Time,
        out: &mut Outbox<Self::Msg, Self::Value>,
    );

    /// A message from `from` has been received (at the end of its receive overhead).
    fn on_message(
        &mut self,
        config: &Self::Config,
        now: Time,
        from: Rank,
        msg: Self::Msg,
        out: &mut Outbox<Self::Msg, Self::Value>,
    );

    /// Timer `id` fired.
    fn on_timer(
        &mut self,
        config: &Self::Config,
        now: Time,
        id: TimerId,
        out: &mut Outbox<Self::Msg, Self::Value>,
    );

    /// The send port is free: emit at most one [`Action::Send`]. Called after every input that
    /// might enable a send while the port is free, and whenever the port becomes free.
    fn on_send_slot(
        &mut self,
        config: &Self::Config,
        now: Time,
        out: &mut Outbox<Self::Msg, Self::Value>,
    );

    /// Whether a send slot offered at `at` would be idle: `true` promises that, if no input
    /// reaches this process before then, [`Self::on_send_slot`] at `at` would emit no action
    /// and leave the state equal (`==`) to what it is now. A driver may then skip the slot
    /// (see "Polling the send port" in the module documentation).
    ///
    /// It is a pure query that only saves work: the default, `false`, is always correct, and
    /// an answer of `true` must never change a run.
    fn send_slot_is_idle(&self, _config: &Self::Config, _at: Time) -> bool {
        false
    }

    /// Whether this process would act on `msg` from `from` if it read it now: `false`
    /// promises that [`Self::on_message`] with it would leave the state equal (`==`) and emit
    /// nothing but [`Action::Ignored`] (CG §III.B: "already-colored nodes ignore all further
    /// messages"). A driver's receive model decides what the answer costs: under
    /// `ftcoll_sim::IgnoredMessages::Free` the LogP driver asks when
    /// a message reaches its receiver and drops an unread one there, without its receive
    /// overhead; under the default, `Charged`, it never asks. The default, `true`, is always
    /// correct.
    fn reads(&self, _config: &Self::Config, _from: Rank, _msg: &Self::Msg) -> bool {
        true
    }

    /// Whether this process has finished its part of the operation: whatever it receives from
    /// now on (messages, timer firings), it will never again send, deliver, complete or set a
    /// timer — later inputs are at most [`Action::Ignored`] or change nothing observable. A
    /// driver may then stop serving it (drop its later messages, end its thread).
    ///
    /// `false` means "not known to be done", so the default, `false`, is always correct;
    /// protocols that can tell override it. It does not change any run: the LogP and PAP
    /// drivers never call it; `ftcoll-verify`'s model checker reads it to check the promise.
    fn is_done(&self, _config: &Self::Config) -> bool {
        false
    }

    /// Single-port model only (FTCO §2): with `queue` holding the messages waiting to be
    /// received (oldest first), choose one to handle in this step instead of sending, or `None`
    /// to offer the step to [`Self::on_send_slot`]. A step whose send slot then sends nothing is
    /// still free, and the driver asks once more in it (after the slot's changes). The default
    /// handles the oldest first.
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
