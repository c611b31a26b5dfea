//! The automaton's own share of a driver run (issue 16): every call the general driver makes on
//! the automata of one run, recorded in order, and replayed on fresh automata without the driver.
//!
//! Replaying costs what the automaton's handlers cost (`on_start`, `on_message`, `on_timer`,
//! `on_send_slot` and the `send_slot_is_idle` question), in the same order over the same records,
//! so with the same cache behaviour; the driver's queue, ports, timers, message slots and report
//! are left out. Each replayed call's actions are taken out of the outbox, as the driver takes
//! them. A replay is a driver reduced to nothing (it is handed its schedule), so the
//! rest of a run's time is the driver's own. `benches/driver.rs` times both in one run.

use std::cell::RefCell;

use ftcoll::automaton::{Action, Automaton, Outbox, TimerId};
use ftcoll::sim::{self, Scenario, SimError};
use ftcoll::{Rank, Time};

/// One call of the driver on one process's automaton.
#[derive(Clone, Debug)]
pub enum Call<M> {
    /// `on_start`.
    Start(Rank, Time),
    /// `on_message` from the sender with the message.
    Message(Rank, Time, Rank, M),
    /// `on_timer`.
    Timer(Rank, Time, TimerId),
    /// `on_send_slot`.
    SendSlot(Rank, Time),
    /// `send_slot_is_idle` at the slot's time.
    IsIdle(Rank, Time),
}

thread_local! {
    /// The calls recorded by [`Recorded`] automata on this thread (type-erased: one log per
    /// message type is all a bench needs, and the recorder downcasts it).
    static LOG: RefCell<Option<Box<dyn std::any::Any>>> = const { RefCell::new(None) };
}

fn log<M: 'static>(call: Call<M>) {
    LOG.with(|log| {
        let mut log = log.borrow_mut();
        let calls = log
            .get_or_insert_with(|| Box::new(Vec::<Call<M>>::new()))
            .downcast_mut::<Vec<Call<M>>>()
            .expect("one message type per recording");
        calls.push(call);
    });
}

/// An automaton that records every call made on it, then makes it on the automaton it wraps.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Recorded<A> {
    rank: Rank,
    inner: A,
}

impl<A: Automaton> Automaton for Recorded<A>
where
    A::Msg: 'static,
{
    type Msg = A::Msg;
    type Value = A::Value;
    type Config = A::Config;

    fn new(config: &A::Config, rank: Rank) -> Self {
        Self {
            rank,
            inner: A::new(config, rank),
        }
    }

    fn procs(config: &A::Config) -> Option<u32> {
        A::procs(config)
    }

    fn on_start(&mut self, config: &A::Config, now: Time, out: &mut Outbox<A::Msg, A::Value>) {
        log::<A::Msg>(Call::Start(self.rank, now));
        self.inner.on_start(config, now, out);
    }

    fn on_message(
        &mut self,
        config: &A::Config,
        now: Time,
        from: Rank,
        msg: A::Msg,
        out: &mut Outbox<A::Msg, A::Value>,
    ) {
        log(Call::Message(self.rank, now, from, msg.clone()));
        self.inner.on_message(config, now, from, msg, out);
    }

    fn on_timer(
        &mut self,
        config: &A::Config,
        now: Time,
        id: TimerId,
        out: &mut Outbox<A::Msg, A::Value>,
    ) {
        log::<A::Msg>(Call::Timer(self.rank, now, id));
        self.inner.on_timer(config, now, id, out);
    }

    fn on_send_slot(&mut self, config: &A::Config, now: Time, out: &mut Outbox<A::Msg, A::Value>) {
        log::<A::Msg>(Call::SendSlot(self.rank, now));
        self.inner.on_send_slot(config, now, out);
    }

    fn send_slot_is_idle(&self, config: &A::Config, at: Time) -> bool {
        log::<A::Msg>(Call::IsIdle(self.rank, at));
        self.inner.send_slot_is_idle(config, at)
    }

    fn is_done(&self, config: &A::Config) -> bool {
        self.inner.is_done(config)
    }

    fn select_receive(
        &self,
        config: &A::Config,
        now: Time,
        queue: &[(Rank, A::Msg)],
    ) -> Option<usize> {
        self.inner.select_receive(config, now, queue)
    }
}

impl<M> Call<M> {
    /// The call's process and time.
    fn rank_and_time(&self) -> (Rank, Time) {
        match *self {
            Call::Start(rank, now)
            | Call::Message(rank, now, ..)
            | Call::Timer(rank, now, _)
            | Call::SendSlot(rank, now)
            | Call::IsIdle(rank, now) => (rank, now),
        }
    }
}

/// Puts `calls` in time order, by rank within an instant, each process's own calls staying in
/// their order: the order a driver could choose for locality. It makes the same calls on every
/// automaton, so a replay of it emits the same actions: within an instant no call's input
/// depends on another process's call (every message takes `o + L > 0` to arrive).
#[allow(dead_code)] // (only the example's `--alone-by-rank` reads it)
pub fn by_instant_and_rank<M>(calls: &mut [Call<M>]) {
    calls.sort_by_key(|call| {
        let (rank, time) = call.rank_and_time();
        (time, rank)
    });
}

/// A driver run's calls, in order, and the messages the run sent.
pub struct Recording<M> {
    /// Every call, in the order the driver made it.
    pub calls: Vec<Call<M>>,
    /// The run's `Report::messages_total`.
    pub messages: u64,
}

/// Runs `sim::run` on [`Recorded`] automata and returns its calls.
pub fn record<A: Automaton>(
    config: &A::Config,
    procs: u32,
    scenario: &Scenario,
) -> Result<Recording<A::Msg>, SimError>
where
    A::Msg: 'static,
{
    LOG.with(|log| log.borrow_mut().take());
    let report = sim::run::<Recorded<A>>(config, procs, scenario, u64::MAX)?;
    let calls = LOG
        .with(|log| log.borrow_mut().take())
        .map(|calls| {
            *calls
                .downcast::<Vec<Call<A::Msg>>>()
                .expect("the log of this message type")
        })
        .unwrap_or_default();
    Ok(Recording {
        calls,
        messages: report.messages_total(),
    })
}

/// Makes `calls` on fresh automata of a `procs`-process run; returns how many sends they emitted
/// (equal to the recorded run's messages when the replay is faithful).
#[inline(never)]
pub fn replay<A: Automaton>(config: &A::Config, procs: u32, calls: Vec<Call<A::Msg>>) -> u64 {
    let mut automata: Vec<A> = (0..procs).map(|rank| A::new(config, rank)).collect();
    let mut out = Outbox::new();
    let mut sends = 0;
    for call in calls {
        match call {
            Call::Start(rank, now) => automata[rank as usize].on_start(config, now, &mut out),
            Call::Message(rank, now, from, msg) => {
                automata[rank as usize].on_message(config, now, from, msg, &mut out)
            }
            Call::Timer(rank, now, id) => {
                automata[rank as usize].on_timer(config, now, id, &mut out)
            }
            Call::SendSlot(rank, now) => {
                automata[rank as usize].on_send_slot(config, now, &mut out)
            }
            Call::IsIdle(rank, at) => {
                // A question: it queues nothing.
                std::hint::black_box(automata[rank as usize].send_slot_is_idle(config, at));
                continue;
            }
        }
        if !out.is_empty() {
            sends += out
                .drain()
                .filter(|action| matches!(action, Action::Send { .. }))
                .count() as u64;
        }
    }
    sends
}
