//! Serving one process of any [`Automaton`] over a real transport (MPI, sockets, threads and
//! channels): the loop a runtime engineer writes around the contract (`ftcoll::automaton`,
//! docs/guide.md), written once and knowing no protocol.
//!
//! The transport gives a monotonic clock in the automaton's time units, non-blocking sends
//! and receives that wait until a deadline at most ([`Transport`]). [`serve`] then
//!
//! 1. calls `on_start` first (messages that arrive earlier wait in the transport: the
//!    early-message rule);
//! 2. applies every handler's actions at once: timers, deliveries, completions;
//! 3. takes every message already received into a queue and hands them over as
//!    [`Automaton::select_receive`] chooses (a dual-port automaton takes them all, oldest first;
//!    a single-port one, FTCO §2, may prefer to send first);
//! 4. offers the send port with [`Automaton::on_send_slot`] while it sends, each send keeping
//!    the port busy for [`Serving::send_gap`] (LogP's `o`; a transport's send itself does not
//!    block); a slot that sends nothing means "not until my next input";
//! 5. fires each timer when the clock reaches it;
//! 6. stops when the process is done ([`Automaton::is_done`]), when it has delivered or
//!    completed and heard nothing for [`Serving::quiet`] time units (for protocols that cannot
//!    tell they are done), at [`Serving::give_up`], or when it crashes on purpose
//!    ([`CrashPlan`], as CT §4.4 emulated failures).
//!
//! A crash stops the process silently: it sends nothing more and the protocol never learns of
//! it; what the transport does with messages to it (drop them, drain them) is the transport's
//! business.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use ftcoll::automaton::{Action, Automaton, Outbox, Phase, TimerId};
use ftcoll::{Rank, Time};

/// What [`serve`] needs of a transport: a clock, sends that never block, receives that wait
/// until a deadline at most.
pub trait Transport<M> {
    /// Now, in the automaton's time units, counted from a start every process of the
    /// operation shares (approximately: the processes' clocks only need to run at one rate).
    fn now(&mut self) -> Time;
    /// Sends `msg` to `to` without blocking. A message to a process that crashed is lost; the
    /// sender is not told.
    fn send(&mut self, to: Rank, msg: &M);
    /// A message already received, if any, without waiting.
    fn try_receive(&mut self) -> Option<(Rank, M)>;
    /// The next message, waiting until `deadline` (an instant of [`Self::now`]) at most;
    /// `None` once it passed without one.
    fn receive_until(&mut self, deadline: Time) -> Option<(Rank, M)>;
}

/// When the served process crashes on purpose: never, at the first instant the clock reaches
/// a time, or right after it has taken a number of actions (sends, deliveries and completions
/// together).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CrashPlan {
    /// The process runs to its end.
    #[default]
    Never,
    /// It stops at the first input or slot at or after this instant.
    At(Time),
    /// It stops right after its `n`-th action (`0`: before `on_start`, as a failed process).
    AfterActions(u64),
}

/// How long a process is served.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Serving {
    /// The process stops at this instant whatever happened (the operation failed for it).
    pub give_up: Time,
    /// A process that delivered or completed stops after this many time units without an
    /// input, a timer or a send (protocols whose processes cannot tell they are done never
    /// stop otherwise). `None`: only [`Automaton::is_done`] and `give_up` stop it.
    pub quiet: Option<Time>,
    /// When it crashes on purpose.
    pub crash: CrashPlan,
    /// Time units the send port stays busy after a send (LogP's `o`): the next send slot is
    /// offered no earlier. A protocol that sends for as long as a deadline allows (gossip
    /// until `T`) sends at that rate, as in the model; 0 offers the port again at once.
    pub send_gap: Time,
}

/// Why [`serve`] returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// [`Automaton::is_done`] said so.
    Done,
    /// It delivered or completed and stayed quiet for [`Serving::quiet`].
    Quiet,
    /// [`Serving::give_up`] passed.
    GaveUp,
    /// It crashed on purpose ([`Serving::crash`]).
    Crashed,
}

/// What happened at one served process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Served<V> {
    /// Every value delivered ([`Action::Deliver`]), in order, with its instant.
    pub delivered: Vec<(Time, V)>,
    /// Every value completed with ([`Action::Complete`]), in order, with its instant.
    pub completed: Vec<(Time, V)>,
    /// Messages sent, per phase (dissemination, correction, acknowledgment, liveness).
    pub sent: [u64; 4],
    /// Messages received and handed to the automaton.
    pub received: u64,
    /// Inputs the automaton ignored ([`Action::Ignored`]).
    pub ignored: u64,
    /// Why serving stopped.
    pub ended: Ended,
    /// When serving stopped.
    pub at: Time,
    /// Breaches of the contract seen (a send outside a send slot, two sends in one slot, a
    /// send to itself or outside `0..procs`): each dropped, named here.
    pub violations: Vec<&'static str>,
}

fn phase_index(phase: Phase) -> usize {
    match phase {
        Phase::Dissemination => 0,
        Phase::Correction => 1,
        Phase::Acknowledgment => 2,
        Phase::Liveness => 3,
    }
}

/// The state of [`serve`] besides the automaton.
struct Server<'a, A: Automaton, T> {
    rank: Rank,
    procs: Option<u32>,
    transport: &'a mut T,
    serving: Serving,
    timers: BTreeMap<TimerId, Time>,
    out: Outbox<A::Msg, A::Value>,
    served: Served<A::Value>,
    actions: u64,
    last_activity: Time,
    port_free_at: Time,
}

impl<A: Automaton, T: Transport<A::Msg>> Server<'_, A, T> {
    /// Applies the outbox of a handler; `slot`: it was `on_send_slot` (one send allowed).
    /// Returns whether it sent.
    fn apply(&mut self, now: Time, slot: bool) -> bool {
        let mut sent = false;
        // Taken out and put back, so the outbox keeps its capacity and nothing is allocated.
        let mut out = core::mem::take(&mut self.out);
        for action in out.drain() {
            match action {
                Action::Send { to, msg } => {
                    if !slot {
                        self.served.violations.push("a send outside a send slot");
                    } else if sent {
                        self.served.violations.push("two sends in one send slot");
                    } else if to == self.rank || self.procs.is_some_and(|p| to >= p) {
                        self.served
                            .violations
                            .push("a send to itself or outside 0..procs");
                    } else {
                        sent = true;
                        self.transport.send(to, &msg);
                        self.served.sent[phase_index(ftcoll::automaton::Message::phase(&msg))] += 1;
                        self.actions += 1;
                    }
                }
                Action::SetTimer { id, at } => {
                    self.timers.insert(id, at);
                }
                Action::CancelTimer { id } => {
                    self.timers.remove(&id);
                }
                Action::Deliver(value) => {
                    self.served.delivered.push((now, value));
                    self.actions += 1;
                }
                Action::Complete(value) => {
                    self.served.completed.push((now, value));
                    self.actions += 1;
                }
                Action::Ignored(_) => self.served.ignored += 1,
            }
        }
        self.out = out;
        if sent {
            self.last_activity = now;
        }
        sent
    }

    /// Whether the crash plan stops the process now.
    fn crashes(&self, now: Time) -> bool {
        match self.serving.crash {
            CrashPlan::Never => false,
            CrashPlan::At(t) => now >= t,
            CrashPlan::AfterActions(n) => self.actions >= n,
        }
    }
}

/// Serves process `rank` of automaton `A` under `config` over `transport` until it is done,
/// quiet, gives up or crashes ([`Serving`]); returns what happened there. Knows nothing about
/// the protocol.
pub fn serve<A, T>(
    config: &A::Config,
    rank: Rank,
    transport: &mut T,
    serving: Serving,
) -> Served<A::Value>
where
    A: Automaton,
    T: Transport<A::Msg>,
{
    let start = transport.now();
    let mut s = Server::<A, T> {
        rank,
        procs: A::procs(config),
        transport,
        serving,
        timers: BTreeMap::new(),
        out: Outbox::new(),
        served: Served {
            delivered: Vec::new(),
            completed: Vec::new(),
            sent: [0; 4],
            received: 0,
            ignored: 0,
            ended: Ended::GaveUp,
            at: start,
            violations: Vec::new(),
        },
        actions: 0,
        last_activity: start,
        port_free_at: start,
    };
    let mut node = A::new(config, rank);
    let mut queue: Vec<(Rank, A::Msg)> = Vec::new();
    let ended = 'serving: {
        if s.crashes(start) {
            break 'serving Ended::Crashed;
        }
        node.on_start(config, start, &mut s.out);
        s.apply(start, false);
        loop {
            let now = s.transport.now();
            if s.crashes(now) {
                break 'serving Ended::Crashed;
            }
            // Timers whose instant came, earliest first.
            while let Some((&id, &at)) = s.timers.iter().min_by_key(|&(&id, &at)| (at, id)) {
                if at > now {
                    break;
                }
                s.timers.remove(&id);
                node.on_timer(config, now, id, &mut s.out);
                s.apply(now, false);
                s.last_activity = now;
                if s.crashes(now) {
                    break 'serving Ended::Crashed;
                }
            }
            while let Some(m) = s.transport.try_receive() {
                queue.push(m);
            }
            // Messages as the automaton chooses them, then the send port while it sends.
            let mut acted = false;
            while let Some(i) = node.select_receive(config, now, &queue) {
                let Some((from, msg)) = (i < queue.len()).then(|| queue.remove(i)) else {
                    s.served
                        .violations
                        .push("select_receive chose no waiting message");
                    break;
                };
                s.served.received += 1;
                node.on_message(config, now, from, msg, &mut s.out);
                s.apply(now, false);
                s.last_activity = now;
                acted = true;
                if s.crashes(now) {
                    break 'serving Ended::Crashed;
                }
            }
            // The port: offered while it sends, each send keeping it busy for the gap.
            let mut port_was_busy = false;
            loop {
                let at = s.transport.now();
                if at < s.port_free_at {
                    port_was_busy = true;
                    break;
                }
                node.on_send_slot(config, at, &mut s.out);
                let sent = s.apply(at, true);
                if s.crashes(at) {
                    break 'serving Ended::Crashed;
                }
                if !sent {
                    break;
                }
                s.port_free_at = at.saturating_add(s.serving.send_gap);
                acted = true;
            }
            if node.is_done(config) {
                break 'serving Ended::Done;
            }
            let finished = !s.served.delivered.is_empty() || !s.served.completed.is_empty();
            if let Some(quiet) = s.serving.quiet {
                if finished && now >= s.last_activity.saturating_add(quiet) {
                    break 'serving Ended::Quiet;
                }
            }
            if now >= s.serving.give_up {
                break 'serving Ended::GaveUp;
            }
            if acted {
                continue;
            }
            // Nothing to do before the next input, timer, crash, quiet end or give-up; a
            // single-port automaton that let a waiting message pass is asked again one unit
            // later.
            let mut deadline = s.serving.give_up;
            if let Some(&at) = s.timers.values().min() {
                deadline = deadline.min(at);
            }
            if let CrashPlan::At(t) = s.serving.crash {
                deadline = deadline.min(t);
            }
            if let (Some(quiet), true) = (s.serving.quiet, finished) {
                deadline = deadline.min(s.last_activity.saturating_add(quiet));
            }
            if !queue.is_empty() {
                deadline = deadline.min(now + 1);
            }
            if port_was_busy {
                deadline = deadline.min(s.port_free_at);
            }
            if let Some(m) = s.transport.receive_until(deadline.max(now)) {
                queue.push(m);
            }
        }
    };
    s.served.ended = ended;
    s.served.at = s.transport.now();
    s.served
}
