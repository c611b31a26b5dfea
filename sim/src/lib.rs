//! The deterministic LogP driver (DESIGN §3): runs any [`Automaton`] under dual-port LogP or
//! FTCO's single-port step model, with per-process arrival times and crash-stop faults, and
//! measures latency and messages. It knows nothing protocol-specific: it only reads the
//! [`Phase`] of each message and the actions automata emit.
//!
//! # Timing (dual-port LogP, CT §2.2)
//!
//! A send started at `t` occupies the sender's send port during `[t, t + o)` and reaches the
//! receiver at `t + o + L`; the receive port handles messages FIFO, `o` each, and the message is
//! handed to the automaton at the end of its receive overhead. Sending and receiving overlap.
//! A process that has not arrived yet buffers messages; it starts receiving them at its arrival.
//!
//! # Timing (single-port step model, FTCO §2, §5.2)
//!
//! One port per process: in each step of length `o` a process either handles one queued message
//! (chosen by [`Automaton::select_receive`], handed over at the end of the step) or sends one
//! message, which enters the receiver's queue `L + o` after the step started.
//!
//! # Simultaneous events
//!
//! At one instant: arrivals at receive ports, then receive completions, then timers, then process
//! arrivals (`on_start`), then send-port polls; within a class, by rank, then by creation order.
//!
//! # Idle send slots
//!
//! A send-port poll the automaton declares idle ([`Automaton::send_slot_is_idle`]) after a send,
//! a received message or a start is not scheduled: it would do nothing. Runs are the same
//! either way (`sim/tests/drivers/sim_idle_slots.rs`) but for [`Report::events`]; [`Sim::offer_every_send_slot`]
//! schedules every poll, as the model checker does.
//!
//! # Arrivals taken at the send
//!
//! In [`run`], where every crash is known at the start, a dual-port message whose receiver is
//! alive when it arrives takes its receive-port turn when it is sent (every message takes
//! `o + L`, so a receive port sees messages in send order): one event less per message, the same
//! run but for [`Report::events`]. [`Sim::step`], which a model checker interleaves with crashes,
//! keeps the arrival events.
//!
//! # Crash-stop
//!
//! A process crashing at `c` does nothing at or after `c`: no send starts at `t >= c`, no receive
//! completes at `t >= c`, no timer fires, and messages reaching it at `t >= c` are lost (their
//! activity ends when they reach it). A send that started before `c` is delivered. Crashing at 0
//! is crashing before the operation.

#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![warn(unreachable_pub)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

mod metrics;
pub mod pap;
mod queue;
pub mod scenario;
#[cfg(feature = "serde")]
mod serde_map;
mod slots;
mod time_code;
mod trace;

use alloc::collections::{BTreeMap, VecDeque};
use alloc::vec::Vec;
use core::fmt;

pub use metrics::longest_circular_run;
pub use metrics::{Report, RunMetrics};
use time_code::{FarTimes, NEVER_CODE};
pub use trace::TraceEvent;

use ftcoll::automaton::{Action, Automaton, Message, Outbox, Phase, TimerId};
use ftcoll::topology::LogP;
use ftcoll::{Rank, Time};

/// Which LogP variant to simulate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum PortModel {
    /// Dual-port LogP (CT §2.2, CG §II).
    #[default]
    DualPort,
    /// FTCO's single-port step model (FTCO §2, §5.2).
    SinglePort,
}

/// What a message that the receiver will not act on costs it ([`Automaton::reads`]).
///
/// CG's Table 7 latencies fit a receiver that drops such messages without reading them (GOS's
/// 53 = `T + L + O`); a receiver that must take every message off the wire before it can tell
/// it is a duplicate pays `o` for each, and its receive queue delays the messages behind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum IgnoredMessages {
    /// Every message occupies the receive port for `o`, read or not.
    #[default]
    Charged,
    /// A message whose receiver answers [`Automaton::reads`] `false` when the message reaches
    /// it (before the receive completions of that instant) is dropped there: it takes no port
    /// time, so it delays no other message, and the automaton never sees it
    /// ([`Report::unread`] counts these). The operation's activity still lasts until its
    /// receive overhead would have ended (`arrival + o`), as every message's does: GOS's last
    /// gossip message, sent at `T − O`, ends it at `T + L + O`.
    Free,
}

/// What happens in one run besides the protocol: timing, arrivals, crashes.
///
/// Its `Default` is dual-port LogP with `L = 2`, `o = 1` (the papers' default), everyone
/// arriving at 0, no crashes and no trace: set what differs and fill the rest with
/// `..Default::default()` (`Scenario { crashes: vec![(3, 0)], ..Default::default() }`), or draw
/// it from a seeded [`scenario::ScenarioSpec`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Scenario {
    /// `L` and `o`.
    pub logp: LogP,
    /// Dual- or single-port.
    pub model: PortModel,
    /// Arrival time of each process (empty: everyone at 0).
    pub arrivals: Vec<Time>,
    /// `(rank, time)`: the rank crashes at `time` (0: before the operation). The root may crash
    /// only if the caller wants to study that; most users never pass rank 0.
    pub crashes: Vec<(Rank, Time)>,
    /// Record a trace of every send and receive.
    pub trace: bool,
    /// What a message the receiver ignores costs it.
    #[cfg_attr(feature = "serde", serde(default))]
    pub ignored: IgnoredMessages,
}

/// A run that could not be carried out.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SimError {
    /// The `procs` given to the driver is not the `P` the configuration was built for
    /// ([`Automaton::procs`]).
    ProcsMismatch {
        /// The `procs` argument.
        given: u32,
        /// The configuration's `P`.
        config: u32,
    },
    /// A rank in the scenario is not below `P`.
    RankOutOfRange {
        /// The scenario field.
        field: &'static str,
        /// The rank.
        rank: Rank,
        /// `P`.
        procs: u32,
    },
    /// `arrivals` has the wrong length.
    ArrivalsLength {
        /// Its length.
        len: usize,
        /// `P`.
        procs: u32,
    },
    /// An automaton broke the contract (e.g. sent outside its send slot).
    Contract {
        /// The process.
        rank: Rank,
        /// When.
        time: Time,
        /// What it did.
        what: &'static str,
    },
    /// The run exceeded its event budget (a protocol that never quiesces).
    EventBudget {
        /// Events processed.
        events: u64,
    },
    /// More than the driver numbers with 32 bits: 2^32 messages in flight at once, or 2^31
    /// timer events of generations 2^31 or later scheduled for one instant, stale ones included
    /// (far beyond the memory of any machine this runs on).
    Capacity {
        /// What overflowed.
        what: &'static str,
    },
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::RankOutOfRange { field, rank, procs } => {
                write!(
                    f,
                    "{field}: rank {rank} does not exist: allowed 0..={}",
                    procs.saturating_sub(1)
                )
            }
            Self::ProcsMismatch { given, config } => write!(
                f,
                "procs: {given} given, but the configuration is for P = {config} (allowed: {config})"
            ),
            Self::ArrivalsLength { len, procs } => {
                write!(f, "arrivals: {len} times given, expected P = {procs}")
            }
            Self::Contract { rank, time, what } => write!(f, "rank {rank} at t={time}: {what}"),
            Self::EventBudget { events } => {
                write!(f, "the run did not quiesce within {events} events")
            }
            Self::Capacity { what } => write!(f, "more than 2^32 {what} (at most 2^32 allowed)"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for SimError {}

const NEVER: Time = Time::MAX;

/// A message in flight: sender and message. The receiver is the rank of its ARRIVE or DELIVER
/// event, and the send time, which only a trace reads, is in `Sim::sent_times` (a slot of 40 B
/// instead of 48 B with a Corrected Tree message). Hashed and encoded as the pair
/// `(from, msg)` was.
#[derive(Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct InFlight<M> {
    from: Rank,
    msg: M,
}

/// A copy into a busy slot copies the message with its `clone_from` (which may reuse its
/// allocation: a failure-proof message's list of correctors).
impl<M: Clone> Clone for InFlight<M> {
    fn clone(&self) -> Self {
        Self {
            from: self.from,
            msg: self.msg.clone(),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.from = source.from;
        self.msg.clone_from(&source.msg);
    }
}

/// Where a message sent travels: in a message slot, or carried by its delivery event.
enum Carried<M> {
    Slot(u32),
    Message(M),
}

/// A broken contract (out of line: no run of this crate's automata takes it).
#[cold]
fn contract(rank: Rank, time: Time, what: &'static str) -> SimError {
    SimError::Contract { rank, time, what }
}

/// The input an automaton just reacted to ([`Sim::apply`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Input {
    Start,
    Message,
    Timer,
    SendSlot,
}

/// Events whose records [`Sim::warm`] reads ahead.
const WARM: usize = 16;

/// Event classes in the order they apply at one instant.
const ARRIVE: usize = 0;
const DELIVER: usize = 1;
const TIMER: usize = queue::TIMER_CLASS;
const START: usize = 3;
const POLL: usize = queue::POLL_CLASS;

#[derive(Clone, Copy, Debug)]
struct Event {
    time: Time,
    rank: Rank,
    /// Message slot (ARRIVE, DELIVER), timer generation (TIMER), unused otherwise.
    data: u64,
}

impl Event {
    /// The message slot of an ARRIVE or DELIVER event: the queue holds those as 32 bits
    /// (`Queue::push` takes a `u32`), so the conversion is exact.
    fn slot(&self) -> u32 {
        self.data as u32
    }
}

/// One process: its automaton and the driver's few words about it, kept together so an event
/// touches one record. What only some runs use lives in [`Sim`]'s side tables: arrival times,
/// timers, and the single-port queues. (With the Corrected Tree node the record is 64 B: 48 B
/// node, 16 B driver; it was 120 B with 64-bit times and the first timer in it, 96 B with 64-bit
/// port times and a 64 B node, 88 B with a 56 B node.)
#[derive(Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Process<A> {
    automaton: A,
    /// When its send port frees, when its receive port frees and when its pending send-port
    /// poll is ([`PORT_FREE`], [`RECEIVE_FREE`], [`POLL_AT`]), each a 32-bit [`Sim::time`]
    /// code ([`time_code`]: the time, [`NEVER`], or far: in `Sim::far_times`).
    times: [u32; 3],
    /// Bit 31: the process arrived (`on_start` ran). Bits 0–30: its crash code
    /// ([`Process::crash_code`]): [`NO_CRASH`], [`FAR_CRASH`] (the time is in
    /// `Sim::far_crashes`) or the time itself.
    crash_arrived: u32,
}

/// A copy into an existing record copies the automaton with its `clone_from`, which may reuse
/// its allocations (the model checker's recycled states).
impl<A: Clone> Clone for Process<A> {
    fn clone(&self) -> Self {
        Self {
            automaton: self.automaton.clone(),
            times: self.times,
            crash_arrived: self.crash_arrived,
        }
    }

    fn clone_from(&mut self, source: &Self) {
        let Self {
            automaton,
            times,
            crash_arrived,
        } = self;
        automaton.clone_from(&source.automaton);
        *times = source.times;
        *crash_arrived = source.crash_arrived;
    }
}

/// [`Process::times`] index: when the send port frees.
const PORT_FREE: usize = 0;
/// [`Process::times`] index: when the receive port frees (dual-port LogP).
const RECEIVE_FREE: usize = 1;
/// [`Process::times`] index: the pending send-port poll ([`NEVER`]: none).
const POLL_AT: usize = 2;

/// A 31-bit crash code: the process does not crash.
const NO_CRASH: u32 = (1 << 31) - 1;
/// A 31-bit crash code: the process crashes at a time of 2^31 − 2 or later, kept aside.
const FAR_CRASH: u32 = (1 << 31) - 2;
/// [`Process::crash_arrived`]'s arrived bit.
const ARRIVED_BIT: u32 = 1 << 31;

impl<A> Process<A> {
    fn crash_code(&self) -> u32 {
        self.crash_arrived & !ARRIVED_BIT
    }

    fn set_crash_code(&mut self, code: u32) {
        self.crash_arrived = (self.crash_arrived & ARRIVED_BIT) | code;
    }

    fn arrived(&self) -> bool {
        self.crash_arrived & ARRIVED_BIT != 0
    }
}

/// A pending timer: id and generation. Its firing time is not kept: generations are unique
/// (one per [`Action::SetTimer`] of the run), so the generation alone names the timer, and the
/// timer's event in the queue, which carries the generation, is at that time.
type Timer = (TimerId, u64);

/// A process's first pending timer in 8 B instead of a [`Timer`]'s 16: its id and its
/// generation as a 32-bit code (0: no timer, generations start at 1; kept as a time is,
/// [`time_code`]: a generation of 2^32 − 2 or more is `Sim::far_times`' [`FIRST_TIMER_GENERATION`]
/// entry). (16 B with its time in it; at P = 2^24 the table is 128 MiB.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct FirstTimer {
    id: TimerId,
    generation: u32,
}

/// No timer.
const NO_TIMER: FirstTimer = FirstTimer {
    id: TimerId(0),
    generation: 0,
};

/// `Sim::far_times` field of a far first-timer generation (after the record's three times).
const FIRST_TIMER_GENERATION: usize = 3;

/// A process's pending timers as one list, the first kept inline: most processes have at most
/// one, and a heap list per process would cost an allocation each.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
struct Timers {
    /// The list's first entry (`None` only when the list is empty).
    first: Option<Timer>,
    /// The rest, in order.
    rest: Vec<Timer>,
}

impl Timers {
    fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.rest.len()
    }

    fn get(&self, i: usize) -> Option<&Timer> {
        if i == 0 {
            self.first.as_ref()
        } else {
            self.rest.get(i - 1)
        }
    }

    fn push(&mut self, t: Timer) {
        if self.first.is_none() {
            self.first = Some(t);
        } else {
            self.rest.push(t);
        }
    }

    fn position(&self, pred: impl Fn(&Timer) -> bool) -> Option<usize> {
        (0..self.len()).find(|&i| self.get(i).is_some_and(&pred))
    }

    /// `Vec::retain` on the list.
    fn retain(&mut self, keep: impl Fn(&Timer) -> bool) {
        self.rest.retain(&keep);
        while let Some(t) = self.first {
            if keep(&t) {
                break;
            }
            self.first = if self.rest.is_empty() {
                None
            } else {
                Some(self.rest.remove(0))
            };
        }
    }

    /// `Vec::swap_remove` on the list.
    fn swap_remove(&mut self, i: usize) -> Timer {
        let last = match self.rest.pop() {
            Some(t) => t,
            None => return self.first.take().expect("timer index in range"),
        };
        if i == 0 {
            self.first.replace(last).expect("timer index in range")
        } else if i - 1 == self.rest.len() {
            last
        } else {
            core::mem::replace(&mut self.rest[i - 1], last)
        }
    }
}

/// An event budget for [`run`] that every protocol here stays far below at `P = procs`
/// (`64·P·max(P, 64) + 10^6`): a run that exceeds it does not quiesce. (`run` counts no event
/// for a dual-port arrival it folds into the send, so a run can take fewer events than a
/// [`Sim::step`] loop.)
pub fn default_budget(procs: u32) -> u64 {
    let p = u64::from(procs);
    64 * p * p.max(64) + 1_000_000
}

/// Runs one operation of `P = procs` processes of automaton `A` to quiescence.
///
/// `procs` must be the `P` the configuration was built for (its tree's, for every automaton of
/// this crate): another value is [`SimError::ProcsMismatch`], not a run of the wrong size.
///
/// `max_events` bounds the work (protocols that never quiesce end with
/// [`SimError::EventBudget`]).
pub fn run<A: Automaton>(
    config: &A::Config,
    procs: u32,
    scenario: &Scenario,
    max_events: u64,
) -> Result<Report<A::Value>, SimError> {
    run_observed::<A>(config, procs, scenario, max_events, |_| {})
}

/// [`run`], calling `observe` with the metrics so far at the end of an instant once at least
/// [`OBSERVE_EVENTS`] events passed since the last call (for progress displays; it cannot
/// change the run, and costs the event loop one comparison per instant). The metrics seen
/// there are those of the run so far as `run` counts them: without the arrival events it folds
/// into sends (module documentation), so `events` and `last_activity` can be lower than a
/// [`Sim::step`] loop's at the same instant; the final report is the same but for `events`.
pub fn run_observed<A: Automaton>(
    config: &A::Config,
    procs: u32,
    scenario: &Scenario,
    max_events: u64,
    mut observe: impl FnMut(&Report<A::Value>),
) -> Result<Report<A::Value>, SimError> {
    let mut sim = Sim::<A>::new(config, procs, scenario)?;
    sim.crashes_fixed = true;
    let mut next_observation = OBSERVE_EVENTS;
    while sim.next_time().is_some() {
        sim.step(config)?;
        if sim.report.events > max_events {
            return Err(SimError::EventBudget {
                events: sim.report.events,
            });
        }
        if sim.report.events >= next_observation {
            next_observation = sim.report.events + OBSERVE_EVENTS;
            observe(&sim.report);
        }
    }
    Ok(sim.report)
}

/// [`SimError::ProcsMismatch`] unless `procs` is the configuration's `P` (when it names one).
pub(crate) fn check_procs<A: Automaton>(config: &A::Config, procs: u32) -> Result<(), SimError> {
    match A::procs(config) {
        Some(p) if p != procs => Err(SimError::ProcsMismatch {
            given: procs,
            config: p,
        }),
        _ => Ok(()),
    }
}

/// Events between two calls of [`run_observed`]'s `observe`.
pub const OBSERVE_EVENTS: u64 = 1 << 16;

/// The whole state of one simulated operation: every automaton, every message in flight, every
/// pending timer and port. It is `Clone + Eq + Hash`, so a model checker can explore it; a run
/// is a sequence of [`Sim::step`]s, each applying every event of the next instant.
///
/// With the `serde` feature it is `Serialize + Deserialize`, so a model checker can hold the
/// states it has yet to explore as bytes (the scratch lists, empty between steps, are left
/// out); a state read back equals, and hashes as, the one written.
#[derive(Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound(
        serialize = "A: serde::Serialize, A::Msg: serde::Serialize, A::Value: serde::Serialize",
        deserialize = "A: serde::de::DeserializeOwned, A::Msg: serde::de::DeserializeOwned, \
                       A::Value: serde::de::DeserializeOwned"
    ))
)]
pub struct Sim<A: Automaton> {
    logp: LogP,
    model: PortModel,
    trace: bool,
    /// Offer every send slot the contract describes, even those the automaton declares idle
    /// ([`Automaton::send_slot_is_idle`]); see [`Sim::offer_every_send_slot`].
    every_slot: bool,
    /// No crash is added after the start ([`run`]): under dual-port LogP a message whose
    /// receiver is alive when it arrives then takes its receive-port turn when it is sent,
    /// without an arrival event (see `Sim::send`). Off for a model checker, which crashes
    /// processes between instants.
    crashes_fixed: bool,
    /// What a message the receiver ignores costs ([`Scenario::ignored`]).
    ignored: IgnoredMessages,
    procs: Vec<Process<A>>,
    /// Each process's arrival time; empty when everyone arrives at 0.
    arrivals: Vec<Time>,
    /// The crash times of 2^48 − 2 or later (their records say [`FAR_CRASH`]); empty in every
    /// run of this crate's tools. Every other crash time is in its process record, so equality
    /// means what it meant with a 64-bit time there. (A map of every crashing process's time was
    /// tried instead: 20–25 % slower at 30 % failed, where most events touch a crashing process;
    /// docs/performance.md.)
    far_crashes: BTreeMap<Rank, Time>,
    /// The record times ([`PORT_FREE`], [`RECEIVE_FREE`], [`POLL_AT`]) and first timers'
    /// generations ([`FIRST_TIMER_GENERATION`]) too large for their 32-bit codes.
    far_times: FarTimes,
    /// Each process's first pending timer ([`NO_TIMER`] when none); empty while no process has
    /// a timer pending, so that automata without timers pay nothing for them, and a run whose
    /// timers have all fired no more (a synchronized correction's start timers: 8 B a
    /// process, 128 MiB at P = 2^24, when its messages in flight peak). Empty exactly
    /// while `first_timers_pending` is 0, so equal states keep equal tables.
    first_timers: Vec<FirstTimer>,
    /// Entries of `first_timers` that hold a timer.
    first_timers_pending: u32,
    /// Pending timers after each process's first one, in order (only non-empty lists).
    more_timers: BTreeMap<Rank, Vec<Timer>>,
    /// Single-port: each process's messages waiting to be handled (message slots); empty under
    /// dual-port LogP.
    queues: Vec<VecDeque<u32>>,
    /// Scratch for `select_receive`'s view of a queue; empty between events.
    #[cfg_attr(feature = "serde", serde(skip))]
    queue_view: Vec<(Rank, A::Msg)>,
    events: queue::Queue<A::Msg>,
    /// In-flight messages.
    slots: slots::Slots<InFlight<A::Msg>>,
    /// With tracing on, each message slot's send time (for the trace's `sent`); empty otherwise.
    sent_times: Vec<Time>,
    #[cfg_attr(feature = "serde", serde(skip))]
    outbox: Outbox<A::Msg, A::Value>,
    report: Report<A::Value>,
    timer_generation: u64,
}

impl<A: Automaton> Clone for Sim<A> {
    fn clone(&self) -> Self {
        let mut copy = Self {
            logp: self.logp,
            model: self.model,
            trace: self.trace,
            every_slot: self.every_slot,
            crashes_fixed: self.crashes_fixed,
            ignored: self.ignored,
            procs: Vec::new(),
            arrivals: Vec::new(),
            far_crashes: BTreeMap::new(),
            far_times: FarTimes::new(),
            first_timers: Vec::new(),
            first_timers_pending: self.first_timers_pending,
            more_timers: BTreeMap::new(),
            queues: Vec::new(),
            queue_view: Vec::new(),
            events: self.events.clone(),
            slots: slots::Slots::new(),
            sent_times: Vec::new(),
            outbox: Outbox::new(),
            report: self.report.clone(),
            timer_generation: self.timer_generation,
        };
        copy.clone_from(self);
        copy
    }

    /// Field by field, reusing this state's allocations: a model checker that recycles the
    /// states it has explored copies a successor without allocating.
    fn clone_from(&mut self, source: &Self) {
        let Self {
            logp,
            model,
            trace,
            every_slot,
            crashes_fixed,
            ignored,
            procs,
            arrivals,
            far_crashes,
            far_times,
            first_timers,
            first_timers_pending,
            more_timers,
            queues,
            queue_view,
            events,
            slots,
            sent_times,
            outbox,
            report,
            timer_generation,
        } = self;
        *logp = source.logp;
        *model = source.model;
        *trace = source.trace;
        *every_slot = source.every_slot;
        *crashes_fixed = source.crashes_fixed;
        *ignored = source.ignored;
        procs.clone_from(&source.procs);
        arrivals.clone_from(&source.arrivals);
        far_crashes.clone_from(&source.far_crashes);
        far_times.clone_from(&source.far_times);
        first_timers.clone_from(&source.first_timers);
        *first_timers_pending = source.first_timers_pending;
        more_timers.clone_from(&source.more_timers);
        queues.clone_from(&source.queues);
        queue_view.clone_from(&source.queue_view);
        events.clone_from(&source.events);
        slots.clone_from(&source.slots);
        sent_times.clone_from(&source.sent_times);
        outbox.clone_from(&source.outbox);
        report.clone_from(&source.report);
        *timer_generation = source.timer_generation;
    }
}

impl<A: Automaton> Sim<A> {
    /// The state before anything happened: every process waits for its arrival.
    pub fn new(config: &A::Config, procs: u32, scenario: &Scenario) -> Result<Self, SimError> {
        check_procs::<A>(config, procs)?;
        if !scenario.arrivals.is_empty() && scenario.arrivals.len() != procs as usize {
            return Err(SimError::ArrivalsLength {
                len: scenario.arrivals.len(),
                procs,
            });
        }
        if let Some(&(rank, _)) = scenario.crashes.iter().find(|&&(r, _)| r >= procs) {
            return Err(SimError::RankOutOfRange {
                field: "crashes",
                rank,
                procs,
            });
        }
        let processes: Vec<Process<A>> = (0..procs)
            .map(|rank| Process {
                automaton: A::new(config, rank),
                times: [0, 0, NEVER_CODE],
                crash_arrived: NO_CRASH,
            })
            .collect();
        let mut driver = Self {
            logp: scenario.logp,
            model: scenario.model,
            trace: scenario.trace,
            every_slot: false,
            crashes_fixed: false,
            ignored: scenario.ignored,
            procs: processes,
            arrivals: if scenario.arrivals.iter().all(|&t| t == 0) {
                Vec::new()
            } else {
                scenario.arrivals.clone()
            },
            far_crashes: BTreeMap::new(),
            far_times: FarTimes::new(),
            first_timers: Vec::new(),
            first_timers_pending: 0,
            more_timers: BTreeMap::new(),
            queues: match scenario.model {
                PortModel::DualPort => Vec::new(),
                PortModel::SinglePort => (0..procs).map(|_| VecDeque::new()).collect(),
            },
            queue_view: Vec::new(),
            events: queue::Queue::new(scenario.trace),
            slots: slots::Slots::new(),
            sent_times: Vec::new(),
            outbox: Outbox::new(),
            report: Report::new(procs),
            timer_generation: 0,
        };
        for rank in 0..procs {
            let arrival = driver.arrival(rank);
            driver.push(arrival, START, rank, 0);
        }
        for &(rank, time) in &scenario.crashes {
            driver.set_crash(rank, time);
        }
        for &(rank, _) in &scenario.crashes {
            // A crash at `NEVER` is no crash (as the scenario's own minimum would say).
            driver
                .report
                .set_crashed(rank, driver.crash_time(rank) != NEVER);
        }
        Ok(driver)
    }

    /// Offers every send slot, including those the automaton declares idle
    /// ([`Automaton::send_slot_is_idle`]). Results are the same either way; a model checker
    /// calls this so that its states, and their counts, do not depend on the hint.
    pub fn offer_every_send_slot(&mut self) {
        self.every_slot = true;
    }

    fn push(&mut self, time: Time, class: usize, rank: Rank, data: u32) {
        self.events.push(time, class, rank, data);
    }

    /// Schedules a send slot for `rank` at `at` (or when its port frees) unless the automaton
    /// declares it idle and no message waits in its single-port queue.
    fn offer_slot(&mut self, config: &A::Config, rank: Rank, at: Time) {
        if !self.every_slot {
            let p = &self.procs[rank as usize];
            let waiting = self
                .queues
                .get(rank as usize)
                .is_some_and(|q| !q.is_empty());
            let port_free = self.decode(rank, PORT_FREE, p.times[PORT_FREE]);
            if !waiting && p.automaton.send_slot_is_idle(config, at.max(port_free)) {
                return;
            }
        }
        self.schedule_poll(rank, at);
    }

    /// When `rank` arrives.
    fn arrival(&self, rank: Rank) -> Time {
        self.arrivals.get(rank as usize).copied().unwrap_or(0)
    }

    fn alive(&self, rank: Rank, time: Time) -> bool {
        time < self.crash_time(rank)
    }

    /// When `rank` crashes ([`NEVER`] if it does not).
    fn crash_time(&self, rank: Rank) -> Time {
        match self.procs.get(rank as usize).map(Process::crash_code) {
            None | Some(NO_CRASH) => NEVER,
            Some(FAR_CRASH) => self.far_crashes.get(&rank).copied().unwrap_or(NEVER),
            Some(time) => Time::from(time),
        }
    }

    /// The time `field` ([`PORT_FREE`], [`RECEIVE_FREE`], [`POLL_AT`]) of `rank`'s record.
    fn time(&self, rank: Rank, field: usize) -> Time {
        self.decode(rank, field, self.procs[rank as usize].times[field])
    }

    /// The time a record's code `code` of `field` stands for.
    #[inline]
    fn decode(&self, rank: Rank, field: usize, code: u32) -> Time {
        self.far_times.decode(rank, field as u8, code)
    }

    /// Sets the time `field` of `rank`'s record.
    #[inline]
    fn set_time(&mut self, rank: Rank, field: usize, time: Time) {
        let old = self.procs[rank as usize].times[field];
        let code = self.far_times.encode(rank, field as u8, old, time);
        self.procs[rank as usize].times[field] = code;
    }

    fn activity(&mut self, time: Time) {
        self.report.last_activity = self.report.last_activity.max(time);
    }

    fn process_activity(&mut self, rank: Rank, time: Time) {
        self.activity(time);
        self.report.record_finish(rank, time);
    }

    /// The ranks with a pending event at instant `time` (an arrival, receive, timer, start or
    /// send slot), as a flag per rank: the only instants at which a process's crash changes
    /// what the driver does, since [`Sim::step`] reads a process's crash time only when applying
    /// one of its own events. (Only [`run`], which adds no crash after the start, also reads a
    /// receiver's crash time when a message to it is sent.) A model checker uses it to offer
    /// crashes only where they matter.
    pub fn ranks_with_events_at(&self, time: Time) -> Vec<bool> {
        let mut ranks = alloc::vec![false; self.procs.len()];
        self.events.ranks_at(time, &mut ranks);
        ranks
    }

    /// The time of the next event, `None` once the operation is quiescent.
    pub fn next_time(&self) -> Option<Time> {
        self.events.next_time()
    }

    /// Applies every event of the next instant (including those it creates at that instant).
    pub fn step(&mut self, config: &A::Config) -> Result<(), SimError> {
        let Some(now) = self.next_time() else {
            return Ok(());
        };
        let mut warm = 0;
        loop {
            if warm == 0 {
                warm = self.warm(now);
            }
            warm -= 1;
            let popped = match self.events.pop(now) {
                None => break,
                Some(popped) => popped,
            };
            self.report.events += 1;
            let result = match popped {
                queue::Popped::Delivery(queue::Delivery { to, from, msg }) => {
                    self.deliver(config, now, to, from, msg, 0)
                }
                queue::Popped::Event(class, rank, data) => {
                    let event = Event {
                        time: now,
                        rank,
                        data,
                    };
                    match class {
                        ARRIVE => {
                            self.on_arrive(config, event);
                            Ok(())
                        }
                        DELIVER => self.on_deliver(config, event),
                        TIMER => self.on_timer(config, event),
                        START => self.on_start(config, event),
                        _ => self.on_poll(config, event),
                    }
                }
            };
            if result.is_err() {
                self.events.finish(now);
                return result;
            }
        }
        self.events.finish(now);
        // What equality relies on (`first_timers`' documentation).
        debug_assert_eq!(self.first_timers.is_empty(), self.first_timers_pending == 0);
        Ok(())
    }

    /// Reads the driver's records of the next [`WARM`] events of instant `now` (process, report
    /// row, message slot) before any of them is applied, so that their cache misses overlap
    /// instead of stalling one event each; returns how many events that covers (at least 1). It
    /// changes nothing.
    fn warm(&mut self, now: Time) -> usize {
        let (class, list) = match self.events.ahead(now) {
            None => return 1,
            Some(queue::Ahead::Entries(class, list)) => (class, list),
            Some(queue::Ahead::Deliveries(deliveries)) => {
                let mut acc: Time = 0;
                let mut n = 0;
                for to in deliveries.first_receivers().take(WARM) {
                    acc ^= Self::touch(&self.procs, &self.report, to);
                    n += 1;
                }
                core::hint::black_box(acc);
                return n.max(1);
            }
        };
        let list = list.take(WARM);
        let mut acc: Time = 0;
        for (rank, data) in list.iter() {
            acc ^= Self::touch(&self.procs, &self.report, rank);
            if class <= DELIVER {
                if let Some(m) = self.slots.get(data as usize) {
                    acc ^= Time::from(m.from);
                }
            }
        }
        core::hint::black_box(acc);
        list.len().max(1)
    }

    /// Reads what an event of `rank` reads and writes first (its record, and its report row:
    /// `Report::record_finish`, `record_delivery`, `record_send`), without changing anything.
    fn touch(procs: &[Process<A>], report: &Report<A::Value>, rank: Rank) -> Time {
        let record = procs
            .get(rank as usize)
            .map_or(0, |p| p.times[PORT_FREE] ^ p.crash_arrived);
        Time::from(record) ^ report.touch(rank)
    }

    /// Crashes `rank` now: it does nothing at or after `at` (see the module documentation).
    /// Used by model checkers to inject crashes between instants.
    pub fn crash(&mut self, rank: Rank, at: Time) {
        // `run` folds arrivals into sends because no crash comes later (see `send`).
        debug_assert!(
            !self.crashes_fixed,
            "a crash added to a run that folds arrivals"
        );
        if self.set_crash(rank, at) {
            // As in `Sim::new`: a crash at `NEVER` is no crash.
            let crashes = self.crash_time(rank) != NEVER;
            self.report.set_crashed(rank, crashes);
        }
    }

    /// Makes `rank` crash at `at` unless it crashes earlier; whether `rank` exists. A crash at
    /// [`NEVER`] changes nothing: the process still never crashes.
    fn set_crash(&mut self, rank: Rank, at: Time) -> bool {
        if rank as usize >= self.procs.len() {
            return false;
        }
        let time = self.crash_time(rank).min(at);
        if time == NEVER {
            return true;
        }
        let code = if time < Time::from(FAR_CRASH) {
            self.far_crashes.remove(&rank);
            // Exact: the time is below 2^31 − 2.
            time as u32
        } else {
            self.far_crashes.insert(rank, time);
            FAR_CRASH
        };
        self.procs[rank as usize].set_crash_code(code);
        true
    }

    /// The first instant at which `rank`'s send port (single-port: its only port) is free:
    /// the end of its last send's overhead, or (single-port) of the receive it took last.
    /// `None` for ranks `>= P`.
    pub fn port_free_at(&self, rank: Rank) -> Option<Time> {
        ((rank as usize) < self.procs.len()).then(|| self.time(rank, PORT_FREE))
    }

    /// The instant from which `rank` does nothing, if it crashes in this scenario.
    pub fn crash_instant(&self, rank: Rank) -> Option<Time> {
        let at = self.crash_time(rank);
        (at != NEVER).then_some(at)
    }

    /// Whether `rank` has crashed or will crash in this scenario.
    pub fn has_crashed(&self, rank: Rank) -> bool {
        rank as usize >= self.procs.len() || self.crash_time(rank) != NEVER
    }

    /// The automaton of `rank`.
    pub fn automaton(&self, rank: Rank) -> Option<&A> {
        self.procs.get(rank as usize).map(|p| &p.automaton)
    }

    /// The automaton of `rank`, mutably: for model checkers that resolve a choice the automaton
    /// left to its environment between two instants (`ftcoll::rng::Chooser::External`), never
    /// for a run of the protocol itself.
    pub fn automaton_mut(&mut self, rank: Rank) -> Option<&mut A> {
        self.procs.get_mut(rank as usize).map(|p| &mut p.automaton)
    }

    /// Single-port: the messages that reached `rank` and wait for its receive, in arrival
    /// order (the queue [`Automaton::select_receive`] chooses from). Empty under dual-port LogP
    /// and for ranks `>= P`.
    pub fn waiting(&self, rank: Rank) -> impl Iterator<Item = (Rank, &A::Msg)> + '_ {
        self.queues
            .get(rank as usize)
            .into_iter()
            .flatten()
            .filter_map(|&slot| self.slots.get(slot as usize))
            .map(|InFlight { from, msg }| (*from, msg))
    }

    /// The metrics so far.
    pub fn report(&self) -> &Report<A::Value> {
        &self.report
    }

    /// Number of messages in flight.
    pub fn in_flight(&self) -> usize {
        self.slots.in_use() + self.events.deliveries()
    }

    /// The pending timers of `rank` as one list, taken out of the two side tables (give them
    /// back with [`Sim::put_timers`]).
    fn take_timers(&mut self, rank: Rank) -> Timers {
        let first = self
            .first_timers
            .get_mut(rank as usize)
            .map_or(NO_TIMER, |t| core::mem::replace(t, NO_TIMER));
        if first.generation == 0 {
            return Timers::default();
        }
        // (`put_timers` frees the table if no timer is left pending. Saturating: a deserialized
        // state may hold any count.)
        self.first_timers_pending = self.first_timers_pending.saturating_sub(1);
        let generation = self.decode(rank, FIRST_TIMER_GENERATION, first.generation);
        // The table now says "no timer", whose code holds no far generation.
        self.far_times
            .encode(rank, FIRST_TIMER_GENERATION as u8, first.generation, 0);
        Timers {
            first: Some((first.id, generation)),
            rest: self.more_timers.remove(&rank).unwrap_or_default(),
        }
    }

    fn put_timers(&mut self, rank: Rank, timers: Timers) {
        let Some(first) = timers.first else {
            // Nothing pending: the first timer was taken out already, if the table exists.
            if self.first_timers_pending == 0 {
                self.first_timers = Vec::new();
            }
            return;
        };
        if self.first_timers.is_empty() {
            self.first_timers = alloc::vec![NO_TIMER; self.procs.len()];
        }
        self.first_timers_pending += 1;
        let (id, generation) = first;
        // The slot is empty (`take_timers` emptied it): its code holds no far generation.
        let generation = self
            .far_times
            .encode(rank, FIRST_TIMER_GENERATION as u8, 0, generation);
        self.first_timers[rank as usize] = FirstTimer { id, generation };
        debug_assert!(self.timer_generation > 0, "a timer that was never set");
        if !timers.rest.is_empty() {
            self.more_timers.insert(rank, timers.rest);
        }
    }

    /// Takes the message out of `slot`: sender, message and (tracing only, 0 otherwise) send
    /// time. The send time's entry is reset, so that a free slot's entry is 0 whatever it held
    /// before, as a free slot is whatever message it held.
    fn take_slot(&mut self, slot: u32) -> (Rank, A::Msg, Time) {
        let InFlight { from, msg } = self.slots.take(slot as usize).expect("live message slot");
        let sent = self
            .sent_times
            .get_mut(slot as usize)
            .map_or(0, core::mem::take);
        (from, msg, sent)
    }

    /// Whether `to` would read the message in `slot` now ([`Automaton::reads`]).
    fn reads(&self, config: &A::Config, to: Rank, slot: u32) -> bool {
        let InFlight { from, msg } = self.slots.get(slot as usize).expect("live message slot");
        self.procs[to as usize].automaton.reads(config, *from, msg)
    }

    fn on_arrive(&mut self, config: &A::Config, event: Event) {
        let slot = event.slot();
        let to = event.rank;
        let now = event.time;
        if !self.alive(to, now) {
            self.activity(now);
            let (from, msg, sent) = self.take_slot(slot);
            self.report.lost += 1;
            if self.trace {
                self.report.trace.push(TraceEvent::Lost {
                    from,
                    to,
                    sent,
                    at: now,
                    phase: msg.phase(),
                });
            }
            return;
        }
        if self.ignored == IgnoredMessages::Free && !self.reads(config, to, slot) {
            let _ = self.take_slot(slot);
            // On the wire until its receive overhead would have ended, as every message is.
            self.activity(now + self.logp.overhead());
            self.report.unread += 1;
            if self.trace {
                self.trace_ignored(to, now, "dropped unread");
            }
            return;
        }
        self.activity(now);
        let o = self.logp.overhead();
        let arrival = self.arrival(to);
        match self.model {
            PortModel::DualPort => {
                let start = now.max(self.time(to, RECEIVE_FREE)).max(arrival);
                self.set_time(to, RECEIVE_FREE, start + o);
                self.push(start + o, DELIVER, to, slot);
            }
            PortModel::SinglePort => {
                let at = now.max(self.time(to, PORT_FREE)).max(arrival);
                let queue = &mut self.queues[to as usize];
                queue.push_back(slot);
                let waiting = queue.len() as u64;
                self.report.longest_queue = self.report.longest_queue.max(waiting);
                self.schedule_poll(to, at);
            }
        }
    }

    fn on_deliver(&mut self, config: &A::Config, event: Event) -> Result<(), SimError> {
        let (from, msg, sent) = self.take_slot(event.slot());
        self.deliver(config, event.time, event.rank, from, msg, sent)
    }

    /// Hands `msg`, sent by `from` at `sent` (0 unless tracing), to `to` at `now`: the end of
    /// its receive overhead.
    fn deliver(
        &mut self,
        config: &A::Config,
        now: Time,
        to: Rank,
        from: Rank,
        msg: A::Msg,
        sent: Time,
    ) -> Result<(), SimError> {
        self.activity(now);
        if !self.alive(to, now) {
            self.report.lost += 1;
            return Ok(());
        }
        self.process_activity(to, now);
        if self.trace {
            self.report.trace.push(TraceEvent::Message {
                from,
                to,
                sent,
                received: now,
                phase: msg.phase(),
            });
        }
        let phase = msg.phase();
        let p = &mut self.procs[to as usize];
        p.automaton
            .on_message(config, now, from, msg, &mut self.outbox);
        self.apply(config, to, now, Some(phase), Input::Message)
    }

    fn on_timer(&mut self, config: &A::Config, event: Event) -> Result<(), SimError> {
        let (rank, now) = (event.rank, event.time);
        if !self.alive(rank, now) {
            return Ok(());
        }
        let mut timers = self.take_timers(rank);
        // (The generation names the timer; its event is at its time: `Timer`.)
        let found = timers.position(|&(_, generation)| generation == event.data);
        let id = found.map(|index| timers.swap_remove(index).0);
        self.put_timers(rank, timers);
        let Some(id) = id else {
            return Ok(()); // replaced or cancelled
        };
        let p = &mut self.procs[rank as usize];
        p.automaton.on_timer(config, now, id, &mut self.outbox);
        self.apply(config, rank, now, None, Input::Timer)
    }

    fn on_start(&mut self, config: &A::Config, event: Event) -> Result<(), SimError> {
        let (rank, now) = (event.rank, event.time);
        if !self.alive(rank, now) {
            return Ok(());
        }
        let p = &mut self.procs[rank as usize];
        p.crash_arrived |= ARRIVED_BIT;
        if rank == 0 {
            self.report.root_start = now;
        }
        p.automaton.on_start(config, now, &mut self.outbox);
        let result = self.apply(
            config,
            rank,
            now,
            if rank == 0 {
                Some(Phase::Dissemination)
            } else {
                None
            },
            Input::Start,
        );
        if self.model == PortModel::SinglePort && !self.queues[rank as usize].is_empty() {
            self.schedule_poll(rank, now);
        }
        result
    }

    fn schedule_poll(&mut self, rank: Rank, at: Time) {
        let at = at.max(self.time(rank, PORT_FREE));
        let poll_at = self.time(rank, POLL_AT);
        if poll_at <= at && poll_at != NEVER {
            return; // an earlier or equal poll is pending
        }
        self.set_time(rank, POLL_AT, at);
        self.push(at, POLL, rank, 0);
    }

    fn on_poll(&mut self, config: &A::Config, event: Event) -> Result<(), SimError> {
        let (rank, now) = (event.rank, event.time);
        if self.time(rank, POLL_AT) != now {
            return Ok(()); // superseded
        }
        self.set_time(rank, POLL_AT, NEVER);
        if !self.procs[rank as usize].arrived() || self.time(rank, PORT_FREE) > now {
            return Ok(());
        }
        if !self.alive(rank, now) {
            return Ok(());
        }
        if self.model == PortModel::SinglePort {
            let o = self.logp.overhead();
            let queue = &mut self.queues[rank as usize];
            if !queue.is_empty() {
                let mut view = core::mem::take(&mut self.queue_view);
                view.extend(queue.iter().map(|&s| {
                    let InFlight { from, msg } =
                        self.slots.get(s as usize).expect("queued message");
                    (*from, msg.clone())
                }));
                let p = &mut self.procs[rank as usize];
                let chosen = p.automaton.select_receive(config, now, &view);
                view.clear();
                self.queue_view = view;
                if let Some(i) = chosen {
                    let Some(slot) = self.queues[rank as usize].remove(i) else {
                        return Err(SimError::Contract {
                            rank,
                            time: now,
                            what: "select_receive returned an index outside the queue",
                        });
                    };
                    self.set_time(rank, PORT_FREE, now + o);
                    self.push(now + o, DELIVER, rank, slot);
                    if self.every_slot {
                        self.schedule_poll(rank, now + o);
                    }
                    // Otherwise the delivery offers the slot (`apply`), knowing the message.
                    return Ok(());
                }
            }
        }
        let p = &mut self.procs[rank as usize];
        p.automaton.on_send_slot(config, now, &mut self.outbox);
        self.apply(config, rank, now, None, Input::SendSlot)
    }

    /// Applies the actions an automaton just emitted.
    fn apply(
        &mut self,
        config: &A::Config,
        rank: Rank,
        now: Time,
        cause: Option<Phase>,
        input: Input,
    ) -> Result<(), SimError> {
        let send_slot = input == Input::SendSlot;
        let mut sent = false;
        if !self.outbox.is_empty() {
            self.outbox.start_taking();
            let result = self.apply_actions(rank, now, cause, send_slot, &mut sent);
            if result.is_err() {
                self.outbox.clear();
                return result;
            }
        }
        if sent {
            // The port is busy until `now + o`: offer it again then.
            let at = now + self.logp.overhead();
            self.offer_slot(config, rank, at);
        } else if !send_slot {
            // Something changed: offer a send slot once every input at this instant has been
            // applied (POLL is the last class), or when the port frees.
            let free = self.time(rank, PORT_FREE);
            if free <= now || !self.every_slot {
                // (While the port is busy a slot at `free` is pending, unless it was skipped
                // as idle: then this input may have changed that.) Only after a message or a
                // start is the automaton asked whether the slot is idle: after a timer the
                // slot is rarely idle, and asking costs the automaton a scan
                // (docs/performance.md, FTCO); a start often leaves a process waiting
                // for its first message.
                if input != Input::Timer {
                    self.offer_slot(config, rank, now);
                } else {
                    self.schedule_poll(rank, now);
                }
            }
        }
        Ok(())
    }

    fn apply_actions(
        &mut self,
        rank: Rank,
        now: Time,
        cause: Option<Phase>,
        send_slot: bool,
        sent: &mut bool,
    ) -> Result<(), SimError> {
        // One action at a time out of the outbox, which `send` and the rest leave alone.
        while let Some(action) = self.outbox.pop_next() {
            match action {
                Action::Send { to, msg } => {
                    if !send_slot {
                        return Err(contract(rank, now, "sent outside on_send_slot"));
                    }
                    if *sent {
                        return Err(contract(rank, now, "sent twice in one send slot"));
                    }
                    if to as usize >= self.procs.len() || to == rank {
                        return Err(contract(
                            rank,
                            now,
                            "sent to a rank outside 0..P or to itself",
                        ));
                    }
                    *sent = true;
                    self.send(rank, to, msg, now)?;
                }
                Action::SetTimer { id, at } => self.set_timer(rank, now, id, at)?,
                Action::CancelTimer { id } => self.cancel_timer(rank, id),
                Action::Deliver(value) => self.report.record_delivery(rank, now, value, cause),
                Action::Complete(value) => self.report.record_completion(rank, now, value),
                Action::Ignored(reason) => {
                    self.report.ignored += 1;
                    if self.trace {
                        self.trace_ignored(rank, now, reason);
                    }
                }
            }
        }
        Ok(())
    }

    // What only some runs do is out of line, so the common actions' path stays short.

    #[inline(never)]
    fn set_timer(&mut self, rank: Rank, now: Time, id: TimerId, at: Time) -> Result<(), SimError> {
        self.timer_generation += 1;
        let generation = self.timer_generation;
        let at = at.max(now);
        let mut timers = self.take_timers(rank);
        timers.retain(|&(t, _)| t != id);
        timers.push((id, generation));
        self.put_timers(rank, timers);
        self.events
            .push_timer(at, rank, generation)
            .map_err(|queue::Full| SimError::Capacity {
                what: "timer events scheduled for one instant",
            })
    }

    #[inline(never)]
    fn cancel_timer(&mut self, rank: Rank, id: TimerId) {
        let mut timers = self.take_timers(rank);
        timers.retain(|&(t, _)| t != id);
        self.put_timers(rank, timers);
    }

    #[cold]
    fn trace_ignored(&mut self, rank: Rank, at: Time, reason: &'static str) {
        self.report.trace.push(TraceEvent::Ignored {
            rank,
            at,
            reason: reason.into(),
        });
    }

    fn send(&mut self, from: Rank, to: Rank, msg: A::Msg, now: Time) -> Result<(), SimError> {
        let logp = self.logp;
        let o = logp.overhead();
        let phase = msg.phase();
        let arrive = now + o + logp.latency();
        // What `on_arrive` would do at `arrive` can be done now when no crash can come between
        // (`run`): the receive port serves messages in arrival order, which is the order they
        // are sent in (every message takes `o + L`), and only `on_arrive` reads
        // `receive_free`. Its `activity(arrive)` is left out: the delivery's own, later,
        // covers it. One event less per message; and without a trace the delivery carries the
        // message itself, so it needs no message slot (32 B instead of a 32 B slot and an 8 B
        // entry with a Corrected Tree message).
        // (Not when an ignored message is free: whether it is read is asked when it arrives.)
        let fold = self.crashes_fixed
            && self.model == PortModel::DualPort
            && self.ignored == IgnoredMessages::Charged
            && self.alive(to, arrive);
        let carried = if fold && !self.trace {
            Carried::Message(msg)
        } else {
            let slot = self.slots.insert(InFlight { from, msg });
            let Ok(slot) = u32::try_from(slot) else {
                self.slots.take(slot);
                return Err(SimError::Capacity {
                    what: "messages in flight",
                });
            };
            if self.trace {
                let index = slot as usize;
                if self.sent_times.len() <= index {
                    self.sent_times.resize(index + 1, 0);
                }
                self.sent_times[index] = now;
            }
            Carried::Slot(slot)
        };
        self.report.record_send(from, now, phase);
        self.set_time(from, PORT_FREE, now + o);
        self.process_activity(from, now + o);
        if fold {
            let arrival = self.arrival(to);
            let start = arrive.max(self.time(to, RECEIVE_FREE)).max(arrival);
            self.set_time(to, RECEIVE_FREE, start + o);
            match carried {
                Carried::Slot(slot) => self.push(start + o, DELIVER, to, slot),
                Carried::Message(msg) => {
                    let delivery = queue::Delivery { to, from, msg };
                    self.events.push_delivery(start + o, delivery);
                }
            }
        } else if let Carried::Slot(slot) = carried {
            // (Not folded: always in a slot.)
            self.push(arrive, ARRIVE, to, slot);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ftcoll::protocols::corrected_tree::CorrectedTreeNode;

    /// The record sizes docs/performance.md states: the driver's part of a process
    /// record is 16 B, its three port and poll times and its crash time in 32 bits each (times
    /// too large for them aside) and the arrived flag in the crash word's spare bit; timers are
    /// in side tables (8 B per process once any timer is set).
    #[test]
    fn a_corrected_tree_process_record_is_64_bytes() {
        assert_eq!(core::mem::size_of::<CorrectedTreeNode>(), 48);
        assert_eq!(core::mem::size_of::<Process<CorrectedTreeNode>>(), 64);
        // A process's first pending timer, in a table allocated at the first timer.
        assert_eq!(core::mem::size_of::<FirstTimer>(), 8);
    }

    /// Whether every far-time map holds exactly the times its records mark far: what makes
    /// equal states equal values.
    fn far_maps_are_canonical<A: Automaton>(sim: &Sim<A>) -> bool {
        let records =
            sim.procs.iter().enumerate().flat_map(|(r, p)| {
                (0..3).map(move |field| (r as Rank, field as u8, p.times[field]))
            });
        let timers = (sim.first_timers.iter().enumerate())
            .map(|(r, t)| (r as Rank, FIRST_TIMER_GENERATION as u8, t.generation));
        sim.far_times.matches(records.chain(timers)) && sim.report.far_times_are_canonical()
    }

    /// A run started 2^40 later is the same run, 2^40 later: every time the record and the
    /// report keep in 32 bits is then kept aside (`far_times`, `far_crashes`),
    /// and every metric must come out shifted by exactly 2^40, for both port models, the
    /// variants with timers, traced (message slots) and not (deliveries carrying their
    /// messages). Stepped (as a model checker does), the far-time maps stay canonical after
    /// every instant.
    #[test]
    fn a_run_shifted_beyond_32_bit_times_is_the_same_run_shifted() {
        use ftcoll::protocols::corrected_tree::{CorrectedTreeConfig, CorrectionSpec, StartMode};
        use ftcoll::topology::{Order, Tree, TreeKind};
        const SHIFT: Time = 1 << 40;
        let logp = LogP::new(2, 1).expect("valid LogP");
        let tree = Tree::new(TreeKind::Binomial, Order::Interleaved, 16, logp).expect("tree");
        let specs = [
            CorrectionSpec::Checked,
            CorrectionSpec::Opportunistic { distance: 2 },
            CorrectionSpec::Delayed { delay: 5 },
            CorrectionSpec::FailProof {
                faults: 1,
                sos_timeout: Some(40),
                sos_on_full_loop: true,
            },
        ];
        let shift = |t: Time| if t == 0 { 0 } else { t + SHIFT };
        let mut shifted_runs = 0;
        for (model, trace) in [
            (PortModel::DualPort, true),
            (PortModel::DualPort, false),
            (PortModel::SinglePort, true),
        ] {
            for spec in specs {
                let config = CorrectedTreeConfig::new(tree.clone(), spec, StartMode::Overlapped);
                let base = Scenario {
                    logp,
                    model,
                    arrivals: (0..16).map(|r| (r * 7) % 5).collect(),
                    crashes: alloc::vec![(3, 0), (5, 4), (9, 7), (12, 30)],
                    trace,
                    ..Scenario::default()
                };
                let later = Scenario {
                    arrivals: base.arrivals.iter().map(|&t| t + SHIFT).collect(),
                    crashes: base.crashes.iter().map(|&(r, t)| (r, t + SHIFT)).collect(),
                    ..base.clone()
                };
                let a = run::<CorrectedTreeNode>(&config, 16, &base, 1 << 20).expect("runs");
                let b = run::<CorrectedTreeNode>(&config, 16, &later, 1 << 20).expect("runs");
                let what = (model, trace, &spec);
                assert_eq!(b.last_activity, a.last_activity + SHIFT, "{what:?}");
                assert_eq!(b.messages, a.messages, "{what:?}");
                assert_eq!(b.lost, a.lost, "{what:?}");
                let delivered =
                    |r: &Report<_>| -> Vec<Option<Time>> { r.delivery_times().collect() };
                let expected: Vec<_> = delivered(&a).iter().map(|t| t.map(|t| t + SHIFT)).collect();
                assert_eq!(delivered(&b), expected, "{what:?}");
                assert!(expected.iter().flatten().count() >= 12, "{what:?}");
                let sent: Vec<_> = a.sent_counts().collect();
                assert_eq!(b.sent_counts().collect::<Vec<_>>(), sent, "{what:?}");
                let finish: Vec<_> = a.finish_times().map(shift).collect();
                assert_eq!(b.finish_times().collect::<Vec<_>>(), finish, "{what:?}");
                let times = |e: &TraceEvent| match *e {
                    TraceEvent::Message { sent, received, .. } => (sent, received),
                    TraceEvent::Lost { sent, at, .. } => (sent, at),
                    TraceEvent::Ignored { at, .. } => (at, at),
                };
                assert_eq!(a.trace.len(), b.trace.len(), "{what:?}");
                assert_eq!(a.trace.is_empty(), !trace, "{what:?}");
                for (x, y) in a.trace.iter().zip(&b.trace) {
                    let (s, r) = times(x);
                    assert_eq!(times(y), (s + SHIFT, r + SHIFT), "{what:?}");
                }
                let mut sim = Sim::<CorrectedTreeNode>::new(&config, 16, &later).expect("valid");
                let mut kept_aside = 0;
                while sim.next_time().is_some() {
                    sim.step(&config).expect("steps");
                    assert!(far_maps_are_canonical(&sim), "{what:?}");
                    kept_aside = kept_aside.max(sim.far_times.len());
                }
                assert!(kept_aside > 0, "{what:?}");
                assert_eq!(delivered(sim.report()), expected, "{what:?}");
                shifted_runs += 1;
            }
        }
        assert_eq!(shifted_runs, 12);
    }

    /// Timer generations past 32 bits (a first timer keeps its generation in a 32-bit code,
    /// the larger ones aside): a run whose generations start just below 2^32 − 2 is the same
    /// run, for checked, delayed and failure-proof synchronized correction (start timers, the
    /// delay timer, the SOS timer), and the far-time map stays canonical after every instant
    /// and holds some generation on the way.
    #[test]
    fn timer_generations_beyond_32_bits_read_back() {
        use ftcoll::protocols::corrected_tree::{CorrectedTreeConfig, CorrectionSpec, StartMode};
        use ftcoll::topology::{Order, Tree, TreeKind};
        let logp = LogP::new(2, 1).expect("valid LogP");
        let tree = Tree::new(TreeKind::Binomial, Order::Interleaved, 16, logp).expect("tree");
        let specs = [
            CorrectionSpec::Checked,
            CorrectionSpec::Delayed { delay: 5 },
            CorrectionSpec::FailProof {
                faults: 1,
                sos_timeout: Some(40),
                sos_on_full_loop: true,
            },
        ];
        let scenario = Scenario {
            logp,
            model: PortModel::DualPort,
            arrivals: Vec::new(),
            crashes: alloc::vec![(3, 0), (5, 4), (9, 7), (12, 30)],
            trace: true,
            ..Scenario::default()
        };
        for spec in specs {
            // Synchronized: every process sets a start timer, and some set more.
            let config = CorrectedTreeConfig::new(tree.clone(), spec, StartMode::Synchronized);
            let stepped = |first_generation: u64| {
                let mut sim = Sim::<CorrectedTreeNode>::new(&config, 16, &scenario).expect("valid");
                sim.timer_generation = first_generation;
                let mut kept_aside = 0;
                while sim.next_time().is_some() {
                    sim.step(&config).expect("steps");
                    assert!(far_maps_are_canonical(&sim), "{spec:?}");
                    kept_aside = kept_aside.max(sim.far_times.len());
                }
                (
                    sim.report,
                    kept_aside,
                    sim.timer_generation - first_generation,
                )
            };
            let (near, near_aside, set) = stepped(0);
            let (far, far_aside, far_set) = stepped(u64::from(time_code::FAR_CODE) - 6);
            assert_eq!(far, near, "{spec:?}");
            assert_eq!((near_aside, far_set), (0, set), "{spec:?}");
            assert!(
                set > 6 && far_aside > 0,
                "{spec:?}: {set} timers, {far_aside} aside"
            );
        }
    }

    /// A message slot holds the sender and the message only: 32 B with a Corrected
    /// Tree message of 24 B, 48 B when it held the receiver and the send time and the message
    /// was 32 B.
    #[test]
    fn a_corrected_tree_message_slot_is_32_bytes() {
        use ftcoll::protocols::message::Msg;
        assert_eq!(core::mem::size_of::<slots::Slot<InFlight<Msg>>>(), 32);
        // A carried delivery's message, one per run (`queue::Carried`): as large as the
        // message itself, so distinct messages in flight cost 8 B, the message and a bit.
        assert_eq!(core::mem::size_of::<Option<Msg>>(), 24);
    }

    /// Crash times kept in 31 bits of the record, or aside from 2^31 − 2 on, read back exactly,
    /// the earliest of several winning, and `NEVER` is no crash.
    #[test]
    fn crash_times_read_back_exactly() {
        use ftcoll::protocols::corrected_tree::{CorrectedTreeConfig, CorrectionSpec, StartMode};
        use ftcoll::topology::{Order, Tree, TreeKind};
        let logp = LogP::new(2, 1).expect("valid LogP");
        let tree = Tree::new(TreeKind::Binomial, Order::Interleaved, 8, logp).expect("tree");
        let config = CorrectedTreeConfig::new(tree, CorrectionSpec::Checked, StartMode::Overlapped);
        let scenario = Scenario {
            logp,
            ..Scenario::default()
        };
        let far = Time::from(FAR_CRASH);
        let cases: [&[Time]; 8] = [
            &[0],
            &[5, 9],
            &[9, 5],
            &[far - 1],
            &[far],
            &[u64::MAX - 1, 1 << 60],
            &[1 << 60, 7],
            &[NEVER],
        ];
        for times in cases {
            let mut sim = Sim::<CorrectedTreeNode>::new(&config, 8, &scenario).expect("valid");
            for &t in times {
                sim.crash(3, t);
            }
            let expected = times.iter().copied().min().unwrap_or(NEVER);
            assert_eq!(sim.crash_time(3), expected, "{times:?}");
            assert_eq!(
                sim.crash_instant(3),
                (expected != NEVER).then_some(expected),
                "{times:?}"
            );
            assert_eq!(sim.has_crashed(3), expected != NEVER, "{times:?}");
            assert_eq!(sim.report().crashed(3), expected != NEVER, "{times:?}");
            assert_eq!(
                sim.far_crashes.len(),
                usize::from(expected >= far && expected != NEVER)
            );
            assert_eq!(sim.crash_time(2), NEVER);
            assert_eq!(sim.crash_instant(2), None);
            assert_eq!(sim.crash_instant(8), None, "no such rank");
        }
    }

    /// `port_free_at` reads a send's overhead: free at 0 before anything, `o` after the
    /// root's first send at 0, and `None` past the last rank.
    #[test]
    fn the_port_is_free_after_the_send_overhead() {
        use ftcoll::protocols::corrected_tree::{CorrectedTreeConfig, CorrectionSpec, StartMode};
        use ftcoll::topology::{Order, Tree, TreeKind};
        let logp = LogP::new(2, 3).expect("valid LogP");
        let tree = Tree::new(TreeKind::Binomial, Order::Interleaved, 4, logp).expect("tree");
        let config = CorrectedTreeConfig::new(tree, CorrectionSpec::Checked, StartMode::Overlapped);
        let scenario = Scenario {
            logp,
            ..Scenario::default()
        };
        let mut sim = Sim::<CorrectedTreeNode>::new(&config, 4, &scenario).expect("valid");
        assert_eq!(sim.port_free_at(0), Some(0));
        assert_eq!(sim.port_free_at(4), None);
        while sim.next_time() == Some(0) {
            sim.step(&config).expect("step");
        }
        assert_eq!(
            sim.port_free_at(0),
            Some(3),
            "the root sent at 0 with o = 3"
        );
        assert_eq!(sim.port_free_at(1), Some(0), "rank 1 has sent nothing");
    }
}
