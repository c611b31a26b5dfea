//! Dynamic partial-order reduction of the asynchronous model: one run per way the processes
//! can order what they see, instead of every interleaving of the whole machine.
//!
//! **Why most interleavings are redundant.** In [`AsyncModel`] an action happens at one
//! process: a delivery at its receiver, a timer, a send slot or a crash at its owner. Actions
//! at two different processes commute — each changes only its own process, takes a message out
//! of or adds messages to the network (a multiset), and neither disables the other — provided
//! an automaton's behaviour depends on its own history only. So this search gives each process
//! its own logical clock (`now` is the number of events the process has taken: time moves
//! forward at every process, and no process reads another's), where the breadth-first
//! search passes the number of actions taken by the whole machine. The two agree on every
//! automaton that does not read `now` beyond setting timers (timers fire at any moment here),
//! which is every variant the asynchronous rows check (overlapped start: the correction never
//! waits for an instant); a model whose automaton reads it ([`AsyncModel::reads_clock`]) is
//! refused ([`Refusal::ReadsClock`]). Two runs that differ only in the order of commuting actions
//! (the same Mazurkiewicz trace) reach the same state, so it suffices to explore one run per
//! trace, and every property checked here is decided by the runs' last states:
//!
//! - integrity, no duplicates and the contract (termination's "no broken automaton") can only
//!   go from true to false along a run, and the state graph is acyclic and finite, so a state
//!   that violates one extends to a final state that violates it too, and every final state
//!   is the last state of a run of its trace;
//! - liveness and "quiescent" are about final states (nothing left to happen) by definition;
//! - a run longer than the horizon has every run of its trace as long.
//!
//! **The algorithm** is Source-DPOR with sleep sets (Abdulla, Aronis, Jonsson, Sagonas,
//! "Optimal dynamic partial order reduction", POPL 2014, Algorithm 1). Its "threads" are the
//! model's actions by identity — deliver a message with this sender, receiver and content,
//! fire this timer, offer this process a send slot, crash this process — each performed by
//! one process, and two events are dependent exactly when the same process performs them.
//! Happens-before is program order at each process plus send-before-delivery, kept as vector
//! clocks. When an event races with the previous event of its process (dependent, and not also
//! ordered through the message's sender), the search schedules, at the state before the earlier
//! event, a thread that begins a run reversing the race, unless one already is: the new
//! event's own thread if it is enabled there (an action of the process that was enabled before
//! its previous event, or a delivery whose message was sent by then), else the first event of
//! the run in between that nothing in it precedes (the sender of the message, say).
//! Actions of one process can disable each other (a message that cancels a timer or leaves a
//! send slot nothing to send, a crash): such an action never runs below, so no race reveals
//! it, and the search schedules it before the action that disabled it directly.
//!
//! **Crashes.** "At most `f` crashes" would make every crash depend on every other (a shared
//! budget). Instead the search explores each crash set of at most `f` non-root ranks in turn
//! (fewest first), and a member of the set may crash at any moment, a local event like the
//! others. A run of [`AsyncModel`] whose crashed set is `C` is a run of the search for `C`
//! that ends with the same state. The search for `C` also lets a member crash after the rest
//! of the machine fell quiet, which [`AsyncModel`] does not: a state with only crashes left
//! is checked as quiescent (liveness), and the horizon does not count such crashes; the runs
//! go on only so that reversing their races places the crashes earlier.
//!
//! An automaton that breaks the contract (a send outside a send slot) is reported as a
//! termination violation and the run goes on, in both engines.
//!
//! **What it reports.** The count is the number of events executed (each a state visited,
//! possibly the same state again from another run; nothing is held but the current run).
//! Discoveries are ranked by crash set, then by depth-first order, so the result is the same on
//! any number of threads; a counterexample is the run found first in that order, not the
//! shortest. `verify/tests/engines/dpor.rs` compares the verdicts with the breadth-first search's.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use ftcoll::automaton::{Automaton, Outbox, TimerId};
use ftcoll::{Rank, Time};

use crate::asynchronous::{
    delivered_at_most_once, delivered_payload_only, live_ones_delivered, AsyncAction, AsyncModel,
};
use crate::budget::{Budget, Watch};
use crate::property;

/// How often (in events) a worker publishes its count.
const SLICE: u64 = 1 << 12;

/// What the search found.
#[derive(Clone, Debug, Default)]
pub struct Explored {
    /// Events executed (states visited, with repetitions across runs), initial states included.
    pub events: u64,
    /// Runs explored to their end (quiescent, or cut at the horizon).
    pub runs: u64,
    /// For each property with a discovery: the run that shows it, as actions.
    pub discoveries: BTreeMap<&'static str, Vec<String>>,
}

/// The state of the machine during the search.
#[derive(Clone, Debug)]
struct Machine<A: Automaton> {
    nodes: Vec<A>,
    crashed: Vec<bool>,
    /// Members of the crash set that may still crash.
    may_crash: Vec<bool>,
    /// Messages in flight `(from, to, msg, sent by event)`, sorted; `NONE` for `on_start`.
    network: Vec<(Rank, Rank, A::Msg, u32)>,
    /// Pending timers, sorted.
    timers: Vec<(Rank, TimerId)>,
    /// Deliveries per process and the first value delivered.
    deliveries: Vec<(u32, Option<A::Value>)>,
    /// Events per process: its logical clock.
    clock: Vec<u32>,
    /// Whether a send slot would change anything at each process (false once crashed).
    pollable: Vec<bool>,
    /// An automaton broke the contract.
    broken: bool,
}

/// No event: a message sent by `on_start`, or no previous event.
const NONE: u32 = u32::MAX;

/// One event of the current run.
#[derive(Clone, Debug)]
struct Event<M> {
    thread: AsyncAction<M>,
    /// 1-based index among its process's events.
    index: u32,
    /// The previous event of the same process (`NONE`: none).
    previous: u32,
    /// Vector clock: for each process, how many of its events happen before or at this one.
    clock: Vec<u32>,
}

/// A state on the current run and the threads to explore from it.
struct Frame<A: Automaton> {
    machine: Machine<A>,
    backtrack: Vec<AsyncAction<A::Msg>>,
    sleep: Vec<AsyncAction<A::Msg>>,
    /// The thread being explored from this state.
    current: Option<AsyncAction<A::Msg>>,
}

/// Where the copy of `msg` from `from` to `to` that a delivery takes is in the network (kept
/// sorted by sender, receiver, message and sending event: the earliest sent), if one is there.
fn find_message<A: Automaton>(m: &Machine<A>, from: Rank, to: Rank, msg: &A::Msg) -> Option<usize>
where
    A::Msg: Ord,
{
    let i = m
        .network
        .partition_point(|(f, t, x, _)| (*f, *t, x) < (from, to, msg));
    m.network
        .get(i)
        .filter(|(f, t, x, _)| *f == from && *t == to && x == msg)
        .map(|_| i)
}

/// The process that performs an action.
fn process<M>(action: &AsyncAction<M>) -> Rank {
    match action {
        AsyncAction::Deliver(_, to, _) => *to,
        AsyncAction::Timer(rank, _) | AsyncAction::Poll(rank) | AsyncAction::Crash(rank) => *rank,
    }
}

/// Every crash set of at most `f` ranks among `1..procs`, fewest first, then in lexicographic
/// order: the timed model's list ([`crate::timed::crash_sets`]), which the exhaustive search
/// takes in turn.
pub use crate::timed::crash_sets;

struct Search<'m, A: Automaton> {
    model: &'m AsyncModel<A>,
    events: Vec<Event<A::Msg>>,
    /// The latest event of each process on the current run.
    latest: Vec<u32>,
    frames: Vec<Frame<A>>,
    found: BTreeMap<&'static str, Vec<String>>,
    explored: u64,
    runs: u64,
    unpublished: u64,
    /// Buffers reused by every step (`threads_of`, the race search and `open`'s enabled
    /// threads; each step used to allocate them; the sleep sets and backtrack lists it keeps
    /// are still allocated per state).
    scratch_threads: Vec<AsyncAction<A::Msg>>,
    scratch_enabled: Vec<AsyncAction<A::Msg>>,
    scratch_first: Vec<u32>,
    scratch_notdep: Vec<usize>,
}

impl<A> AsyncModel<A>
where
    A: Automaton,
    A::Msg: Ord,
{
    fn machine_absorb(
        &self,
        m: &mut Machine<A>,
        rank: Rank,
        out: &mut Outbox<A::Msg, A::Value>,
        send_slot: bool,
        event: u32,
    ) {
        let network = &mut m.network;
        crate::asynchronous::apply_outbox(
            out,
            rank,
            self.procs,
            send_slot,
            &mut m.timers,
            &mut m.deliveries[rank as usize],
            &mut m.broken,
            |to, msg| {
                let at = network
                    .partition_point(|(f, t, x, e)| (*f, *t, x, *e) < (rank, to, &msg, event));
                network.insert(at, (rank, to, msg, event));
            },
        );
    }

    fn machine_pollable(&self, m: &Machine<A>, rank: Rank) -> bool {
        if m.crashed[rank as usize] {
            return false;
        }
        let mut node = m.nodes[rank as usize].clone();
        let mut out = Outbox::new();
        let now = Time::from(m.clock[rank as usize] + 1);
        node.on_send_slot(&self.config, now, &mut out);
        !out.is_empty() || node != m.nodes[rank as usize]
    }

    fn initial_machine(&self, crash_set: &[Rank]) -> Machine<A> {
        let n = self.procs as usize;
        let mut m = Machine {
            nodes: (0..self.procs).map(|r| A::new(&self.config, r)).collect(),
            crashed: vec![false; n],
            may_crash: vec![false; n],
            network: Vec::new(),
            timers: Vec::new(),
            deliveries: vec![(0, None); n],
            clock: vec![0; n],
            pollable: vec![false; n],
            broken: false,
        };
        for &r in crash_set {
            m.may_crash[r as usize] = true;
        }
        for rank in 0..self.procs {
            let mut out = Outbox::new();
            m.nodes[rank as usize].on_start(&self.config, 0, &mut out);
            self.machine_absorb(&mut m, rank, &mut out, false, NONE);
        }
        for rank in 0..self.procs {
            m.pollable[rank as usize] = self.machine_pollable(&m, rank);
        }
        m
    }

    /// The enabled threads, in a fixed order: deliveries, timers, send slots, crashes.
    fn enabled(&self, m: &Machine<A>, threads: &mut Vec<AsyncAction<A::Msg>>) {
        threads.clear();
        self.threads_of(m, None, threads);
    }

    /// The enabled threads performed by `rank`, in [`Self::enabled`]'s order.
    fn local_enabled(&self, m: &Machine<A>, rank: Rank, threads: &mut Vec<AsyncAction<A::Msg>>) {
        self.threads_of(m, Some(rank), threads);
    }

    /// Appends the enabled threads (of `only`, if given): deliveries, timers, send slots,
    /// crashes.
    fn threads_of(
        &self,
        m: &Machine<A>,
        only: Option<Rank>,
        threads: &mut Vec<AsyncAction<A::Msg>>,
    ) {
        let mine = |rank: Rank| only.is_none_or(|o| o == rank);
        for (i, (from, to, msg, _)) in m.network.iter().enumerate() {
            // Copies of one message are adjacent: one thread delivers them in sending order.
            let copy = i > 0 && {
                let (f, t, x, _) = &m.network[i - 1];
                (f, t, x) == (from, to, msg)
            };
            if mine(*to) && !copy {
                threads.push(AsyncAction::Deliver(*from, *to, msg.clone()));
            }
        }
        threads.extend(
            m.timers
                .iter()
                .filter(|t| mine(t.0))
                .map(|&(r, id)| AsyncAction::Timer(r, id)),
        );
        let ranks = || (0..self.procs).filter(|&r| mine(r));
        threads.extend(
            ranks()
                .filter(|&r| m.pollable[r as usize])
                .map(AsyncAction::Poll),
        );
        threads.extend(
            ranks()
                .filter(|&r| m.may_crash[r as usize] && !m.crashed[r as usize])
                .map(AsyncAction::Crash),
        );
    }

    /// Whether `thread` is enabled in `m`.
    fn is_enabled(&self, m: &Machine<A>, thread: &AsyncAction<A::Msg>) -> bool {
        match thread {
            AsyncAction::Deliver(from, to, msg) => find_message(m, *from, *to, msg).is_some(),
            AsyncAction::Timer(rank, id) => m.timers.binary_search(&(*rank, *id)).is_ok(),
            AsyncAction::Poll(rank) => m.pollable[*rank as usize],
            AsyncAction::Crash(rank) => m.may_crash[*rank as usize] && !m.crashed[*rank as usize],
        }
    }

    /// The event that sent the message `thread` would deliver next (`NONE`: `on_start`).
    fn sender_event(m: &Machine<A>, thread: &AsyncAction<A::Msg>) -> u32 {
        match thread {
            AsyncAction::Deliver(from, to, msg) => {
                find_message(m, *from, *to, msg).map_or(NONE, |i| m.network[i].3)
            }
            _ => NONE,
        }
    }

    /// Executes `thread` (enabled) as event number `event`.
    fn execute(&self, m: &mut Machine<A>, thread: &AsyncAction<A::Msg>, event: u32) {
        let rank = process(thread);
        let r = rank as usize;
        m.clock[r] += 1;
        let now = Time::from(m.clock[r]);
        let mut out = Outbox::new();
        match thread {
            AsyncAction::Deliver(from, to, msg) => {
                let Some(i) = find_message(m, *from, *to, msg) else {
                    return;
                };
                let (_, _, msg, _) = m.network.remove(i);
                if !m.crashed[r] {
                    m.nodes[r].on_message(&self.config, now, *from, msg, &mut out);
                    self.machine_absorb(m, rank, &mut out, false, event);
                }
            }
            AsyncAction::Timer(_, id) => {
                m.timers.retain(|&t| t != (rank, *id));
                if !m.crashed[r] {
                    m.nodes[r].on_timer(&self.config, now, *id, &mut out);
                    self.machine_absorb(m, rank, &mut out, false, event);
                }
            }
            AsyncAction::Poll(_) => {
                m.nodes[r].on_send_slot(&self.config, now, &mut out);
                self.machine_absorb(m, rank, &mut out, true, event);
            }
            AsyncAction::Crash(_) => {
                m.crashed[r] = true;
                m.timers.retain(|&(t, _)| t != rank);
            }
        }
        m.pollable[r] = self.machine_pollable(m, rank);
    }
}

impl<'m, A> Search<'m, A>
where
    A: Automaton,
    A::Msg: Ord,
{
    fn new(model: &'m AsyncModel<A>) -> Self {
        Self {
            model,
            events: Vec::new(),
            latest: vec![NONE; model.procs as usize],
            frames: Vec::new(),
            found: BTreeMap::new(),
            explored: 0,
            runs: 0,
            unpublished: 0,
            scratch_threads: Vec::new(),
            scratch_enabled: Vec::new(),
            scratch_first: Vec::new(),
            scratch_notdep: Vec::new(),
        }
    }

    fn trace(&self) -> Vec<String> {
        self.events
            .iter()
            .map(|e| format!("{:?}", e.thread))
            .collect()
    }

    fn discover(&mut self, name: &'static str) {
        if !self.found.contains_key(name) {
            let trace = self.trace();
            self.found.insert(name, trace);
        }
    }

    /// The stable properties, checked at every state.
    fn check_state(&mut self, m: &Machine<A>) {
        if !delivered_payload_only(&m.deliveries, &self.model.payload) {
            self.discover(property::INTEGRITY);
        }
        if !delivered_at_most_once(&m.deliveries) {
            self.discover(property::NO_DUPLICATES);
        }
        if m.broken {
            self.discover(property::TERMINATION);
        }
    }

    /// The properties of a final state (nothing left to happen).
    fn check_final(&mut self, m: &Machine<A>) {
        self.discover(property::SOMETIMES_QUIESCENT);
        if !live_ones_delivered(&m.deliveries, &m.crashed) {
            self.discover(property::LIVENESS);
        }
    }

    /// The race of the next event of `thread` (at the state of the top frame) with the
    /// previous event of its process, if there is one: then a thread that starts a run
    /// reversing it is scheduled at the state before that event. `sent`: the sender event of the
    /// message `thread` delivers (`NONE` otherwise).
    fn reverse_race(&mut self, thread: &AsyncAction<A::Msg>, sent: u32) {
        let rank = process(thread);
        let r = rank as usize;
        let last = self.latest[r];
        if last == NONE {
            return;
        }
        let e = &self.events[last as usize];
        if e.thread == *thread {
            return;
        }
        let e_index = e.index;
        // Ordered through the message's sender: the delivery cannot come first.
        if sent != NONE && sent >= last && self.events[sent as usize].clock[r] >= e_index {
            return;
        }
        let before = &self.frames[last as usize].machine;
        let enabled_before = match thread {
            AsyncAction::Deliver(..) => true,
            other => self.model.is_enabled(before, other),
        };
        if !enabled_before {
            return;
        }
        // v = notdep(e, E).thread: the events after e that do not happen after it, then the
        // thread's event; its initials are the threads whose first event in v has no
        // predecessor in v.
        let procs = self.latest.len();
        let mut first_in_v = std::mem::take(&mut self.scratch_first);
        first_in_v.clear();
        first_in_v.resize(procs, u32::MAX);
        let mut notdep = std::mem::take(&mut self.scratch_notdep);
        notdep.clear();
        notdep.extend(
            ((last as usize + 1)..self.events.len()).filter(|&j| self.events[j].clock[r] < e_index),
        );
        for &j in &notdep {
            let p = process(&self.events[j].thread) as usize;
            first_in_v[p] = first_in_v[p].min(self.events[j].index);
        }
        let mut initials: Vec<&AsyncAction<A::Msg>> = Vec::new();
        for &j in &notdep {
            let ev = &self.events[j];
            let p = process(&ev.thread) as usize;
            let has_predecessor = (0..procs).any(|q| {
                if q == p {
                    first_in_v[q] < ev.index
                } else {
                    ev.clock[q] >= first_in_v[q]
                }
            });
            if !has_predecessor && !initials.contains(&&ev.thread) {
                initials.push(&ev.thread);
            }
        }
        let thread_initial = !(sent != NONE && sent > last);
        if thread_initial && !initials.contains(&thread) {
            initials.push(thread);
        }
        let backtrack = &self.frames[last as usize].backtrack;
        let pick = if initials.iter().any(|t| backtrack.contains(t)) {
            None
        } else if thread_initial {
            Some(thread.clone())
        } else {
            Some(initials[0].clone())
        };
        drop(initials);
        self.scratch_first = first_in_v;
        self.scratch_notdep = notdep;
        if let Some(pick) = pick {
            self.frames[last as usize].backtrack.push(pick);
        }
    }

    /// Pushes the event of `thread` on the run.
    fn push_event(&mut self, thread: &AsyncAction<A::Msg>, sent: u32) {
        let r = process(thread) as usize;
        let previous = self.latest[r];
        let mut clock = if previous == NONE {
            vec![0; self.latest.len()]
        } else {
            self.events[previous as usize].clock.clone()
        };
        if sent != NONE {
            for (c, s) in clock.iter_mut().zip(&self.events[sent as usize].clock) {
                *c = (*c).max(*s);
            }
        }
        clock[r] += 1;
        let index = clock[r];
        self.latest[r] = self.events.len() as u32;
        self.events.push(Event {
            thread: thread.clone(),
            index,
            previous,
            clock,
        });
    }

    /// A random run's event: its action alone, for the trace (the clocks and links of
    /// [`Search::push_event`] serve only the reduction; a walk has none to reverse).
    fn push_action(&mut self, thread: AsyncAction<A::Msg>) {
        self.events.push(Event {
            thread,
            index: 0,
            previous: NONE,
            clock: Vec::new(),
        });
    }

    fn pop_event(&mut self) {
        if let Some(e) = self.events.pop() {
            self.latest[process(&e.thread) as usize] = e.previous;
        }
    }

    /// Opens the frame of a state reached: checks it and picks its first thread. Returns
    /// false if nothing is to be explored from it.
    fn open(&mut self, machine: Machine<A>, sleep: Vec<AsyncAction<A::Msg>>) -> bool {
        self.explored += 1;
        self.unpublished += 1;
        self.check_state(&machine);
        let mut enabled = std::mem::take(&mut self.scratch_enabled);
        self.model.enabled(&machine, &mut enabled);
        let depth = self.events.len() as Time;
        let mut backtrack = Vec::new();
        // Nothing left but crashes: quiescent as `AsyncModel` sees it (it offers no crash then).
        // The crashes are still explored (reversing their races moves them earlier), and the
        // horizon does not count them.
        let quiet = enabled.iter().all(|t| matches!(t, AsyncAction::Crash(_)));
        if quiet {
            self.check_final(&machine);
        }
        if enabled.is_empty() {
            self.runs += 1;
        } else if depth >= self.model.horizon {
            self.runs += 1;
            if !quiet {
                self.discover(property::TERMINATION);
            }
        } else if let Some(p) = enabled.iter().find(|t| !sleep.contains(t)) {
            backtrack.push(p.clone());
        }
        self.scratch_enabled = enabled;
        let open = !backtrack.is_empty();
        self.frames.push(Frame {
            machine,
            backtrack,
            sleep,
            current: None,
        });
        open
    }

    /// Explores every run from the initial state of `crash_set`.
    fn run(&mut self, crash_set: &[Rank], halt: &crate::budget::Halt, shared: &AtomicU64) {
        let machine = self.model.initial_machine(crash_set);
        self.open(machine, Vec::new());
        while let Some(top) = self.frames.last_mut() {
            if let Some(done) = top.current.take() {
                top.sleep.push(done);
            }
            let next = top
                .backtrack
                .iter()
                .find(|t| !top.sleep.contains(t))
                .cloned();
            let Some(thread) = next.filter(|_| !halt.is_halted()) else {
                self.frames.pop();
                self.pop_event();
                continue;
            };
            if !halt.admit() {
                continue;
            }
            // The delivered message's sender event: read by the race and by the new event.
            let sent = AsyncModel::<A>::sender_event(
                &self.frames.last().expect("a frame").machine,
                &thread,
            );
            self.reverse_race(&thread, sent);
            let top = self.frames.last_mut().expect("a frame");
            top.current = Some(thread.clone());
            let sleep: Vec<_> = top
                .sleep
                .iter()
                .filter(|q| process(*q) != process(&thread))
                .cloned()
                .collect();
            let mut machine = top.machine.clone();
            let event = self.events.len() as u32;
            self.model.execute(&mut machine, &thread, event);
            // An action of the same process that this one disables (a cancelled timer, a send
            // slot with nothing left to send, anything after a crash) never runs below, so no
            // race reveals that it could have come first: schedule it here.
            let rank = process(&thread);
            let mut before = std::mem::take(&mut self.scratch_threads);
            before.clear();
            self.model.local_enabled(&top.machine, rank, &mut before);
            for q in before.drain(..) {
                if q != thread
                    && !self.model.is_enabled(&machine, &q)
                    && !top.backtrack.contains(&q)
                {
                    top.backtrack.push(q);
                }
            }
            self.scratch_threads = before;
            self.push_event(&thread, sent);
            if !self.open(machine, sleep) {
                self.frames.pop();
                self.pop_event();
            }
            if self.unpublished >= SLICE {
                shared.fetch_add(self.unpublished, Ordering::Relaxed);
                self.unpublished = 0;
            }
        }
    }
}

/// Searches every crash set of at most the model's `f` ranks, the sets shared among
/// [`Budget::threads`] workers in order; the budget is looked at every 10 ms by the calling
/// thread. The model's `halt` is left set if a budget stopped the search. A model whose
/// automaton reads the clock ([`AsyncModel::reads_clock`]) is refused before any work.
pub fn explore<A>(
    model: &AsyncModel<A>,
    budget: &Budget,
    start: std::time::Instant,
    progress: Option<crate::Progress<'_>>,
) -> Result<Explored, Refusal>
where
    A: Automaton + Send + Sync,
    A::Msg: Ord + Send + Sync,
    A::Value: Send + Sync,
    A::Config: Sync,
{
    if model.reads_clock {
        return Err(Refusal::ReadsClock);
    }
    let sets = crash_sets(model.procs, model.max_crashes);
    let next = AtomicUsize::new(0);
    let visited = AtomicU64::new(0);
    let results: Mutex<Vec<Option<Explored>>> = Mutex::new(vec![None; sets.len()]);
    let threads = budget.threads.max(1) as usize;
    let mut watch = Watch::new(budget, start, progress);
    let halt = &model.halt;
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= sets.len() || halt.is_halted() {
                        break;
                    }
                    let mut search = Search::new(model);
                    search.run(&sets[i], halt, &visited);
                    visited.fetch_add(search.unpublished, Ordering::Relaxed);
                    results.lock().expect("results")[i] = Some(Explored {
                        events: search.explored,
                        runs: search.runs,
                        discoveries: search.found,
                    });
                })
            })
            .collect();
        while !workers.iter().all(|w| w.is_finished()) {
            std::thread::sleep(std::time::Duration::from_millis(10));
            watch.look(halt, || visited.load(Ordering::Relaxed) as usize);
        }
    });
    let mut total = Explored::default();
    for found in results.into_inner().expect("results").into_iter().flatten() {
        total.events += found.events;
        total.runs += found.runs;
        for (name, trace) in found.discoveries {
            total.discoveries.entry(name).or_insert(trace);
        }
    }
    Ok(total)
}

/// Random runs of the asynchronous model, for sizes no exhaustive search reaches.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Walked {
    /// Runs drawn.
    pub walks: u64,
    /// Events executed over all runs.
    pub events: u64,
    /// For each property with a discovery: the lowest walk that made it, and its run.
    pub found: BTreeMap<&'static str, (u64, Vec<String>)>,
}

/// More crash sets than 64 bits number (`crashes` among `procs` ranks): [`walks`] cannot draw one
/// uniformly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooManyCrashSets {
    /// `P`.
    pub procs: u32,
    /// The most crashes per run.
    pub crashes: u32,
}

impl std::fmt::Display for TooManyCrashSets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} crashes among the {} non-root ranks make more than 2^64 crash sets to draw from",
            self.crashes,
            self.procs.saturating_sub(1)
        )
    }
}

impl TooManyCrashSets {
    /// The most crashes per run whose crash sets still number at most 2^64 at this `P`.
    pub fn most_crashes_allowed(&self) -> u32 {
        (0..self.crashes)
            .rev()
            .find(|&f| crate::timed::crash_set_count(self.procs, f).is_some())
            .unwrap_or(0)
    }
}

impl std::error::Error for TooManyCrashSets {}

/// Why [`explore`] or [`walks`] refuses a model, before any work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// The automaton reads `now` beyond setting timers ([`AsyncModel::reads_clock`]):
    /// per-process clocks would not agree with the asynchronous model's one clock, so the
    /// reduction would not decide what the breadth-first search decides.
    ReadsClock,
    /// More crash sets than 64 bits number ([`walks`] draws one by its number).
    TooManyCrashSets(TooManyCrashSets),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::ReadsClock => f.write_str(
                "the automaton reads the clock beyond setting timers (as synchronized \
                 correction does): per-process clocks would not agree with the asynchronous \
                 model's one clock",
            ),
            Self::TooManyCrashSets(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Refusal {}

impl From<TooManyCrashSets> for Refusal {
    fn from(e: TooManyCrashSets) -> Self {
        Self::TooManyCrashSets(e)
    }
}

/// Draws `walks` random runs of `model`: walk `i` uses stream `i` of `seed`
/// ([`ftcoll::rng::SplitMix64::stream`]) to pick one of [`crash_sets`] (by its number,
/// [`crate::timed::crash_set_at`], so the list is never built) and then, at every state,
/// one of the enabled actions uniformly (a crash among them, so crashes fall at any moment),
/// until nothing is left to happen or the horizon. Every state is checked as in [`explore`];
/// a discovery is kept from the lowest walk that made it, so the result is the same on any
/// number of `threads`. Finding nothing is "not violated in N walks", never "holds". Refused
/// before any work, as by [`explore`], when the automaton reads the clock, and when the crash
/// sets are too many to number.
pub fn walks<A>(
    model: &AsyncModel<A>,
    walks: u64,
    seed: u64,
    threads: u32,
) -> Result<Walked, Refusal>
where
    A: Automaton + Send + Sync,
    A::Msg: Ord + Send + Sync,
    A::Value: Send + Sync,
    A::Config: Sync,
{
    if model.reads_clock {
        return Err(Refusal::ReadsClock);
    }
    let (procs, crashes) = (model.procs, model.max_crashes);
    let sets =
        crate::timed::crash_set_count(procs, crashes).ok_or(TooManyCrashSets { procs, crashes })?;
    let next = std::sync::atomic::AtomicU64::new(0);
    let total = Mutex::new(Walked {
        walks,
        ..Walked::default()
    });
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                let mut mine = Walked::default();
                let mut search = Search::new(model);
                let mut enabled = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= walks {
                        break;
                    }
                    let mut rng = ftcoll::rng::SplitMix64::stream(seed, i);
                    let set = crate::timed::crash_set_at(procs, crashes, rng.below(sets))
                        .expect("a number below the count names a set");
                    let mut machine = model.initial_machine(&set);
                    search.events.clear();
                    // Walks come in increasing order on a thread: what it already found, a later
                    // walk cannot improve (placeholders keep `discover` from copying runs).
                    search.found = mine.found.keys().map(|&k| (k, Vec::new())).collect();
                    loop {
                        mine.events += 1;
                        search.check_state(&machine);
                        model.enabled(&machine, &mut enabled);
                        let quiet = enabled.iter().all(|t| matches!(t, AsyncAction::Crash(_)));
                        if quiet {
                            // Quiescent as `AsyncModel` sees it: later crashes change nothing.
                            search.check_final(&machine);
                            break;
                        }
                        if search.events.len() as Time >= model.horizon {
                            search.discover(property::TERMINATION);
                            break;
                        }
                        let thread = enabled[rng.below(enabled.len() as u64) as usize].clone();
                        let event = search.events.len() as u32;
                        model.execute(&mut machine, &thread, event);
                        search.push_action(thread);
                    }
                    for (name, trace) in std::mem::take(&mut search.found) {
                        mine.found.entry(name).or_insert((i, trace));
                    }
                }
                let mut total = total.lock().expect("walks");
                total.events += mine.events;
                for (name, found) in mine.found {
                    let better = total.found.get(name).is_none_or(|(w, _)| *w > found.0);
                    if better {
                        total.found.insert(name, found);
                    }
                }
            });
        }
    });
    Ok(total.into_inner().expect("walks"))
}
