//! The automaton's own share of a driver run: every call the general driver makes on
//! the automata of one run, recorded in order, and replayed on fresh automata without the driver.
//!
//! Replaying costs what the automaton's handlers cost (`on_start`, `on_message`, `on_timer`,
//! `on_send_slot` and the `send_slot_is_idle` question), in the same order; the driver's queue,
//! ports, timers, message slots and report are left out, and the automata are kept in a plain
//! `Vec` rather than in the driver's records. Each replayed call's actions are taken out of the
//! outbox, as the driver takes them. A replay is a driver reduced to nothing (it is handed its
//! schedule), so the rest of a run's time is the driver's own. `sim/benches/driver.rs` times both in
//! one run.

use std::cell::RefCell;
use std::hash::{DefaultHasher, Hash, Hasher};

use ftcoll::automaton::{Action, Automaton, Outbox, TimerId};
use ftcoll::{Rank, Time};
use ftcoll_sim::{self as sim, Scenario, SimError};

/// One call of the driver on one process's automaton.
#[derive(Clone, Debug)]
pub enum Call<M> {
    /// `on_start`.
    Start {
        /// The process.
        rank: Rank,
        /// The instant.
        now: Time,
    },
    /// `on_message`.
    Message {
        /// The receiver.
        rank: Rank,
        /// The instant.
        now: Time,
        /// The sender.
        from: Rank,
        /// The message.
        msg: M,
    },
    /// `on_timer`.
    Timer {
        /// The process.
        rank: Rank,
        /// The instant.
        now: Time,
        /// The timer.
        id: TimerId,
    },
    /// `on_send_slot`.
    SendSlot {
        /// The process.
        rank: Rank,
        /// The instant.
        now: Time,
    },
    /// `send_slot_is_idle`, asked at instant `now` (right after a handler of the same process)
    /// about the slot at `at`, which is later while the port is busy.
    IsIdle {
        /// The process.
        rank: Rank,
        /// The instant it was asked at.
        now: Time,
        /// The slot's time.
        at: Time,
    },
}

impl<M> Call<M> {
    /// The call's process and instant.
    fn rank_and_instant(&self) -> (Rank, Time) {
        match *self {
            Call::Start { rank, now }
            | Call::Message { rank, now, .. }
            | Call::Timer { rank, now, .. }
            | Call::SendSlot { rank, now }
            | Call::IsIdle { rank, now, .. } => (rank, now),
        }
    }
}

/// What a recording keeps while the run goes on (type-erased: one message type per recording).
struct Log<M> {
    calls: Vec<Call<M>>,
    actions: Digest,
}

thread_local! {
    /// The log of the [`Recorded`] automata on this thread.
    static LOG: RefCell<Option<Box<dyn std::any::Any>>> = const { RefCell::new(None) };
}

fn with_log<M: 'static>(f: impl FnOnce(&mut Log<M>)) {
    LOG.with(|log| {
        let mut log = log.borrow_mut();
        let log = log
            .get_or_insert_with(|| {
                Box::new(Log::<M> {
                    calls: Vec::new(),
                    actions: Digest::default(),
                })
            })
            .downcast_mut::<Log<M>>()
            .expect("one message type per recording");
        f(log);
    });
}

/// What a run's automata emitted, process by process: for each process a running hash of its
/// actions and its idle answers, each with the instant of the call, in the order it gave them (so two sequences of calls digest alike when every
/// process emitted the same actions in the same order, however the processes interleave).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Digest {
    per_rank: Vec<u64>,
    actions: u64,
}

impl Digest {
    fn add<M: Hash, V: Hash>(&mut self, rank: Rank, now: Time, action: &Action<M, V>) {
        let r = rank as usize;
        if self.per_rank.len() <= r {
            self.per_rank.resize(r + 1, 0);
        }
        // `DefaultHasher::new()` has fixed keys: the same sequence gives the same digest.
        let mut hasher = DefaultHasher::new();
        (self.per_rank[r], now, action).hash(&mut hasher);
        self.per_rank[r] = hasher.finish();
        self.actions += 1;
    }

    fn add_answer(&mut self, rank: Rank, now: Time, idle: bool) {
        let r = rank as usize;
        if self.per_rank.len() <= r {
            self.per_rank.resize(r + 1, 0);
        }
        let mut hasher = DefaultHasher::new();
        (self.per_rank[r], now, "idle", idle).hash(&mut hasher);
        self.per_rank[r] = hasher.finish();
    }

    /// How many actions it covers.
    pub fn actions(&self) -> u64 {
        self.actions
    }
}

/// An automaton that records every call made on it, then makes it on the automaton it wraps.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Recorded<A> {
    rank: Rank,
    /// The instant of its last handler call: the instant an idle question is asked at.
    instant: Time,
    inner: A,
}

impl<A: Automaton> Recorded<A>
where
    A::Msg: 'static,
{
    /// Records `call`, runs `handler` on the wrapped automaton, and adds the actions it queued to
    /// the log's digest.
    fn handle(
        &mut self,
        now: Time,
        call: Call<A::Msg>,
        out: &mut Outbox<A::Msg, A::Value>,
        handler: impl FnOnce(&mut A, &mut Outbox<A::Msg, A::Value>),
    ) {
        self.instant = now;
        let before = out.actions().len();
        handler(&mut self.inner, out);
        let rank = self.rank;
        with_log::<A::Msg>(|log| {
            log.calls.push(call);
            for action in &out.actions()[before..] {
                log.actions.add(rank, now, action);
            }
        });
    }
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
            instant: 0,
            inner: A::new(config, rank),
        }
    }

    fn procs(config: &A::Config) -> Option<u32> {
        A::procs(config)
    }

    fn on_start(&mut self, config: &A::Config, now: Time, out: &mut Outbox<A::Msg, A::Value>) {
        let call = Call::Start {
            rank: self.rank,
            now,
        };
        self.handle(now, call, out, |a, out| a.on_start(config, now, out));
    }

    fn on_message(
        &mut self,
        config: &A::Config,
        now: Time,
        from: Rank,
        msg: A::Msg,
        out: &mut Outbox<A::Msg, A::Value>,
    ) {
        let call = Call::Message {
            rank: self.rank,
            now,
            from,
            msg: msg.clone(),
        };
        self.handle(now, call, out, |a, out| {
            a.on_message(config, now, from, msg, out)
        });
    }

    fn on_timer(
        &mut self,
        config: &A::Config,
        now: Time,
        id: TimerId,
        out: &mut Outbox<A::Msg, A::Value>,
    ) {
        let call = Call::Timer {
            rank: self.rank,
            now,
            id,
        };
        self.handle(now, call, out, |a, out| a.on_timer(config, now, id, out));
    }

    fn on_send_slot(&mut self, config: &A::Config, now: Time, out: &mut Outbox<A::Msg, A::Value>) {
        let call = Call::SendSlot {
            rank: self.rank,
            now,
        };
        self.handle(now, call, out, |a, out| a.on_send_slot(config, now, out));
    }

    fn send_slot_is_idle(&self, config: &A::Config, at: Time) -> bool {
        let idle = self.inner.send_slot_is_idle(config, at);
        with_log::<A::Msg>(|log| {
            log.calls.push(Call::IsIdle {
                rank: self.rank,
                now: self.instant,
                at,
            });
            log.actions.add_answer(self.rank, self.instant, idle);
        });
        idle
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

/// Puts `calls` in instant order, by rank within an instant, each process's own calls staying
/// in their order (a stable sort): the order a driver could choose for locality. A replay of it
/// makes every automaton the same calls in the same order, so it emits the same actions
/// ([`verified`] checks it). The general driver could apply an instant's events in it:
/// every event it creates at an instant is for the process whose event created it, since a
/// message takes `o + L > 0` to arrive.
pub fn by_instant_and_rank<M>(calls: &mut [Call<M>]) {
    calls.sort_by_key(|call| {
        let (rank, now) = call.rank_and_instant();
        (now, rank)
    });
}

/// A driver run's calls, in order, what they emitted, and the messages the run sent.
pub struct Recording<M> {
    /// Every call, in the order the driver made it.
    pub calls: Vec<Call<M>>,
    /// The digest of every action the calls emitted, in that order.
    pub actions: Digest,
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
    let log = LOG.with(|log| log.borrow_mut().take()).map(|log| {
        *log.downcast::<Log<A::Msg>>()
            .expect("this message type's log")
    });
    let (calls, actions) = log.map_or_else(
        || (Vec::new(), Digest::default()),
        |log| (log.calls, log.actions),
    );
    Ok(Recording {
        calls,
        actions,
        messages: report.messages_total(),
    })
}

/// Makes `calls` on fresh automata of a `procs`-process run, handing each action to `take`
/// and each idle answer to `answer`, with the process and the call's instant.
#[inline(always)]
fn replay_with<A: Automaton>(
    config: &A::Config,
    procs: u32,
    calls: Vec<Call<A::Msg>>,
    mut take: impl FnMut(Rank, Time, Action<A::Msg, A::Value>),
    mut answer: impl FnMut(Rank, Time, bool),
) {
    let mut automata: Vec<A> = (0..procs).map(|rank| A::new(config, rank)).collect();
    let mut out = Outbox::new();
    for call in calls {
        let (rank, now) = match call {
            Call::Start { rank, now } => {
                automata[rank as usize].on_start(config, now, &mut out);
                (rank, now)
            }
            Call::Message {
                rank,
                now,
                from,
                msg,
            } => {
                automata[rank as usize].on_message(config, now, from, msg, &mut out);
                (rank, now)
            }
            Call::Timer { rank, now, id } => {
                automata[rank as usize].on_timer(config, now, id, &mut out);
                (rank, now)
            }
            Call::SendSlot { rank, now } => {
                automata[rank as usize].on_send_slot(config, now, &mut out);
                (rank, now)
            }
            Call::IsIdle { rank, now, at } => {
                // A question: it queues nothing.
                answer(
                    rank,
                    now,
                    automata[rank as usize].send_slot_is_idle(config, at),
                );
                continue;
            }
        };
        if !out.is_empty() {
            for action in out.drain() {
                take(rank, now, action);
            }
        }
    }
}

/// Makes `calls` on fresh automata of a `procs`-process run; returns how many sends they
/// emitted. This is what the bench times.
#[inline(never)]
pub fn replay<A: Automaton>(config: &A::Config, procs: u32, calls: Vec<Call<A::Msg>>) -> u64 {
    let mut sends = 0;
    replay_with::<A>(
        config,
        procs,
        calls,
        |_, _, action| sends += u64::from(matches!(action, Action::Send { .. })),
        |_, _, idle| {
            std::hint::black_box(idle);
        },
    );
    sends
}

/// The digest of every action and idle answer a replay of `calls` gives: equal to the
/// recording's when the replay is faithful (every automaton got the same calls in the same
/// order). (Not named `replay…`, so that a profiler's `replay::replay*` pattern takes the timed
/// replay alone.)
fn digest_of<A: Automaton>(config: &A::Config, procs: u32, calls: Vec<Call<A::Msg>>) -> Digest {
    let mut digest = Digest::default();
    let cell = RefCell::new(&mut digest);
    replay_with::<A>(
        config,
        procs,
        calls,
        |rank, now, action| cell.borrow_mut().add(rank, now, &action),
        |rank, now, idle| cell.borrow_mut().add_answer(rank, now, idle),
    );
    digest
}

/// Records a run of `scenario` ([`record`]), in instant and rank order if `by_rank`
/// ([`by_instant_and_rank`]), and checks it before anything is timed: the recorded run sent
/// the plain run's messages, and a replay gives the recording's actions and idle answers,
/// process by process, and its messages.
pub fn verified<A: Automaton>(
    config: &A::Config,
    procs: u32,
    scenario: &Scenario,
    by_rank: bool,
) -> Result<Recording<A::Msg>, String>
where
    A::Msg: 'static,
{
    let plain = sim::run::<A>(config, procs, scenario, u64::MAX)
        .map_err(|e| format!("simulation: {e}"))?
        .messages_total();
    let mut recording =
        record::<A>(config, procs, scenario).map_err(|e| format!("simulation: {e}"))?;
    if recording.messages != plain {
        return Err(format!(
            "the recorded run sent {} messages, the plain run {plain}",
            recording.messages
        ));
    }
    if by_rank {
        by_instant_and_rank(&mut recording.calls);
    }
    let digest = digest_of::<A>(config, procs, recording.calls.clone());
    if digest != recording.actions {
        return Err(format!(
            "the replay gave other actions or idle answers than the run ({} actions against \
             {}, or a process's differing)",
            digest.actions(),
            recording.actions.actions()
        ));
    }
    let sends = replay::<A>(config, procs, recording.calls.clone());
    if sends != recording.messages {
        return Err(format!(
            "the replay sent {sends} messages, the run {}",
            recording.messages
        ));
    }
    Ok(recording)
}
