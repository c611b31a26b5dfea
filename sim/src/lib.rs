//! The deterministic LogP driver (DESIGN §3): runs any [`Automaton`] under dual-port LogP or
//! FTCO's single-port step model, with per-process arrival times and crash-stop faults, and
//! measures latency and messages. It knows nothing protocol-specific: it only reads the
//! [`Phase`](ftcoll::automaton::Phase) of each message and the actions automata emit.
//!
//! Every timing model is reached through one seam, [`TimingModel`]: [`Scenario`] (the LogP
//! models below) and [`pap::PapScenario`] (PAP §3.1) each run any automaton with
//! `timing.run::<A>(&config, procs, max_events)`, check a scenario's faults and an automaton's
//! sends by the same rules, and fill the same [`Report`] (the [`timing`] module
//! documentation). [`run`] and [`pap::run`] are the same runs as free functions; [`Sim`]
//! exposes the LogP models one instant at a time, for model checkers and other explorers of
//! interleavings.
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
//! message, which enters the receiver's queue `L + o` after the step started. A step offered to
//! the send slot that sends nothing is still free: `select_receive` is asked once more in it.
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

mod error;
mod events;
mod metrics;
pub mod pap;
mod process;
mod queue;
pub mod scenario;
#[cfg(feature = "serde")]
mod serde_map;
mod slots;
#[cfg(test)]
mod tests;
mod time_code;
pub mod timing;
mod trace;
pub mod transport;

use alloc::collections::{BTreeMap, VecDeque};
use alloc::vec::Vec;

pub use error::SimError;
use events::START;
pub use metrics::Report;
use process::{FirstTimer, Process, Timer, FAR_CRASH, NO_CRASH, PORT_FREE};
use time_code::{FarTimes, NEVER_CODE};
pub use timing::TimingModel;
pub use trace::TraceEvent;

use ftcoll::automaton::{Automaton, Outbox};
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

impl TimingModel for Scenario {
    fn arrivals(&self) -> &[Time] {
        &self.arrivals
    }

    fn crashes(&self) -> &[(Rank, Time)] {
        &self.crashes
    }

    fn run<A: Automaton>(
        &self,
        config: &A::Config,
        procs: u32,
        max_events: u64,
    ) -> Result<Report<A::Value>, SimError> {
        run::<A>(config, procs, self, max_events)
    }
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
        timing::check_faults::<A>(config, procs, &scenario.arrivals, &scenario.crashes)?;
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
}
