//! The asynchronous model reduced to transactions: receptions moved to the sender's next send.
//!
//! In [`AsyncModel`] a process's actions are of two kinds. A *reception* (a delivery, a timer
//! firing, or the delivery of a message to a crashed process, which only removes it) changes the
//! process and sends nothing. A *send slot* or a *crash* ends a stretch of receptions. Between
//! processes, a reception is a right mover (Lipton, "Reduction: a method of proving properties
//! of parallel programs", CACM 1975): it can always be moved after an action of another process
//! with the same result, since it removes only a message already in flight and that action
//! neither reads nor disables it. So every run can be reordered, without changing its length or
//! its last state, so that each process's receptions come right before its own next send slot or
//! crash, and its receptions after its last one come at the end of the run. The model here
//! explores those runs only:
//!
//! - **a transaction** of process `p`: some of the receptions open to `p` in the current state,
//!   in any order, then a send slot or a crash of `p`; a crash only where the send slot would
//!   change `p` (a crash where it would not changes nothing the properties read but `p`'s own
//!   obligation to deliver: the run in which `p` goes on receiving and crashes at its next send
//!   shows every violation of the first);
//! - **the ending**: every process's remaining receptions, leaving it with nothing to do (no
//!   message to it, no timer, a send slot that would change nothing); these are the quiescent
//!   states of [`AsyncModel`];
//! - **a witness**: some receptions of one process after which a property fails (a value
//!   delivered that is not the payload, a second delivery, a broken contract), or the longest
//!   runs of receptions when they reach the horizon.
//!
//! A stored state is a state of [`AsyncModel`] in which no process has a reception behind it that
//! it has not yet followed by a send slot or a crash; the states where some process has received
//! part of its messages are passed through inside a transaction, never stored. That is where the
//! reduction comes from: a process's receptions in any order are many states of the whole
//! machine, and here only their outcomes followed by a send are. A state's fingerprint is a sum
//! of hashes of its parts, so a transaction's successor is fingerprinted from what it changes
//! and built only if it is new ([`crate::fingerprints::Fingerprints`]).
//!
//! **Why every verdict is the asynchronous model's** (docs/reference/checker.md, "The
//! asynchronous model reduced to transactions", has the whole argument):
//!
//! - every action here is one [`AsyncModel`] offers at that point, so each state is one of its
//!   reachable states and each counterexample is one of its runs;
//! - a quiescent state of [`AsyncModel`] is reached by a run whose reordering is transactions
//!   then the ending, so it is reached here: liveness and `sometimes quiescent` are decided on
//!   the same states;
//! - integrity, no duplicates and the contract can fail only at the process that acts; the run
//!   up to the first failure reorders into transactions then receptions of other processes
//!   (which can be dropped) and of the failing process, which is a witness;
//! - the horizon: reordering keeps a run's length, so a run reaching it reorders into
//!   transactions then receptions, whose longest per-process stretches sum to at least the
//!   horizon: also a witness.
//!
//! This needs each process's send slot, and the outcome of its receptions, to depend on its own
//! state only (the outcomes are kept by the process's fingerprint and reused at other clocks):
//! an automaton that reads the clock is refused ([`crate::dpor::Refusal::ReadsClock`]).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use ftcoll::automaton::{Automaton, Outbox, TimerId};
use ftcoll::{Rank, Time};
use stateright::{Model, Property};

use crate::asynchronous::{
    apply_outbox, integrity, liveness, no_duplicates, quiescent, termination, AsyncAction,
    AsyncModel, AsyncState,
};
use crate::fingerprints::fingerprint;
use crate::property;

/// Where a state of the reduced model stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Reached by transactions: processes may still send.
    Transactions,
    /// The ending: every process received what was left for it; a quiescent state.
    Ended,
    /// A state in which a property fails, reached by receptions of one process (or the
    /// longest receptions of all, at the horizon); nothing follows it.
    Witness,
}

/// A state of the reduced model: a state of [`AsyncModel`] and its stage.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TransactionState<A: Automaton> {
    /// The state of the asynchronous model.
    pub state: AsyncState<A>,
    /// Where it stands.
    pub stage: Stage,
}

/// A step of the reduced model: actions of [`AsyncModel`] taken one after another. The state
/// they lead to is fingerprinted when the step is offered and built only if it is new.
#[derive(Clone)]
pub struct Step<A: Automaton> {
    /// The actions, in order.
    pub actions: Vec<AsyncAction<A::Msg>>,
    fingerprint: u64,
    build: Build<A>,
}

impl<A: Automaton> std::fmt::Debug for Step<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(&self.actions).finish()
    }
}

/// How the state after a step is built.
#[derive(Clone)]
enum Build<A: Automaton> {
    /// Built already (the ending and witnesses).
    Ready(Arc<TransactionState<A>>),
    /// Transaction `index` of `rank`'s receptions, ended by its send slot or by a crash.
    Transaction {
        rank: Rank,
        found: Arc<Receptions<A>>,
        index: usize,
        crash: bool,
    },
}

/// A transaction's receptions and send slot, at one process.
struct Transaction<A: Automaton> {
    /// The receptions then the send slot.
    actions: Vec<AsyncAction<A::Msg>>,
    /// The process after the receptions.
    received: Local<A>,
    /// After the send slot too.
    polled: Local<A>,
    /// What the send slot sent.
    sent: Option<(Rank, A::Msg)>,
}

/// [`AsyncModel`] reduced to transactions (see the module's documentation).
pub struct TransactionModel<A: Automaton> {
    /// The asynchronous model whose runs are reordered.
    pub inner: AsyncModel<A>,
    /// The receptions of a process found so far, by the fingerprint of the process before them
    /// (in shards chosen by its top bits): a process's receptions depend on it alone, and it
    /// recurs across many states of the machine.
    known: Vec<Mutex<HashMap<u64, Arc<Receptions<A>>>>>,
}

impl<A: Automaton> std::fmt::Debug for TransactionModel<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TransactionModel")
            .field("inner", &self.inner)
            .finish_non_exhaustive()
    }
}

/// Shards of [`TransactionModel::known`].
const SHARDS: usize = 64;
/// Receptions kept per shard; a full shard is emptied (a bound on memory, not on correctness).
const KNOWN_PER_SHARD: usize = 4096;

/// One process after some receptions from a state of the whole machine: all of the machine
/// that receptions at this process can change.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Local<A: Automaton> {
    node: A,
    /// Messages to it still in flight `(from, msg)`, sorted.
    inbox: Vec<(Rank, A::Msg)>,
    /// Its pending timers, sorted.
    timers: Vec<(Rank, TimerId)>,
    delivered: (u32, Option<A::Value>),
    broken: bool,
    /// Receptions taken.
    taken: Time,
}

/// Receptions of one process and the process after them.
type Outcome<A> = (Vec<AsyncAction<<A as Automaton>::Msg>>, Local<A>);

/// What one process can do from a state by receptions alone: each outcome is the receptions
/// and the process after them.
struct Receptions<A: Automaton> {
    /// Receptions followed by a send slot (the last action); a crash may take the place of
    /// the send slot, where the crash budget allows (a crash only where the process would send:
    /// one where it would not changes nothing the properties read but its own obligation to
    /// deliver; module docs).
    transactions: Vec<Transaction<A>>,
    /// Receptions after which the process has nothing left to do.
    endings: Vec<Outcome<A>>,
    /// Receptions after which integrity, no duplicates or the contract fails.
    failures: Vec<Outcome<A>>,
    /// A longest run of receptions, preferring one after which the process could still send.
    longest: (Vec<AsyncAction<A::Msg>>, Option<Local<A>>),
    /// Whether the room left before the horizon cut some run of receptions short.
    cut: bool,
    /// The most receptions in a run.
    deepest: Time,
}

impl<A> TransactionModel<A>
where
    A: Automaton,
    A::Msg: Ord,
{
    /// The reduced model of `inner`; refused if its automaton reads the clock
    /// ([`AsyncModel::reads_clock`]), whose receptions would then not move.
    pub fn new(inner: AsyncModel<A>) -> Result<Self, crate::dpor::Refusal> {
        if inner.reads_clock {
            return Err(crate::dpor::Refusal::ReadsClock);
        }
        Ok(Self {
            inner,
            known: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
        })
    }

    /// [`Self::receptions`], looked up first among those found: a run of receptions found
    /// without reaching the horizon is the same from any state that leaves it the room.
    fn receptions_known(&self, state: &AsyncState<A>, rank: Rank) -> Arc<Receptions<A>> {
        if state.crashed[rank as usize] {
            return Arc::new(self.receptions(state, rank));
        }
        let key = fingerprint(&self.local(state, rank));
        let room = self.inner.horizon.saturating_sub(state.clock);
        let shard = &self.known[(key >> 58) as usize % SHARDS];
        if let Some(found) = shard.lock().expect("known receptions").get(&key) {
            if found.deepest < room {
                return Arc::clone(found);
            }
        }
        let found = Arc::new(self.receptions(state, rank));
        if !found.cut {
            let mut known = shard.lock().expect("known receptions");
            if known.len() >= KNOWN_PER_SHARD {
                known.clear();
            }
            known.insert(key, Arc::clone(&found));
        }
        found
    }

    fn local(&self, state: &AsyncState<A>, rank: Rank) -> Local<A> {
        let r = rank as usize;
        Local {
            node: state.nodes[r].clone(),
            inbox: state
                .network
                .iter()
                .filter(|&&(_, to, _)| to == rank)
                .map(|(from, _, msg)| (*from, msg.clone()))
                .collect(),
            timers: state
                .timers
                .iter()
                .filter(|&&(t, _)| t == rank)
                .copied()
                .collect(),
            delivered: state.deliveries[r].clone(),
            broken: false,
            taken: 0,
        }
    }

    /// `state` with `rank` replaced by `local`: the receptions applied.
    fn with(&self, state: &AsyncState<A>, rank: Rank, local: &Local<A>) -> AsyncState<A> {
        let mut next = self.received(state, rank, local);
        let r = rank as usize;
        next.pollable[r] =
            !state.crashed[r] && self.inner.slot_changes(&local.node, next.clock + 1);
        next
    }

    /// [`Self::with`] but for `rank`'s send-slot answer, left for the send slot or crash that
    /// follows to set.
    fn received(&self, state: &AsyncState<A>, rank: Rank, local: &Local<A>) -> AsyncState<A> {
        let r = rank as usize;
        let mut next = state.clone();
        next.clock += local.taken;
        next.nodes[r] = local.node.clone();
        next.network.retain(|&(_, to, _)| to != rank);
        next.network.extend(
            local
                .inbox
                .iter()
                .map(|(from, msg)| (*from, rank, msg.clone())),
        );
        next.network.sort();
        next.timers.retain(|&(t, _)| t != rank);
        next.timers.extend(local.timers.iter().copied());
        next.timers.sort();
        next.deliveries[r] = local.delivered.clone();
        next.broken |= local.broken;
        next
    }

    /// One reception at a live process: the delivery of `inbox[at]` or, past the inbox, the
    /// firing of `timers[at - inbox.len()]`.
    fn receive(
        &self,
        local: &Local<A>,
        rank: Rank,
        clock: Time,
        at: usize,
    ) -> (AsyncAction<A::Msg>, Local<A>) {
        let m = &self.inner;
        let mut next = local.clone();
        next.taken += 1;
        let now = clock + next.taken;
        let mut out = Outbox::new();
        let action = if at < local.inbox.len() {
            let (from, msg) = next.inbox.remove(at);
            next.node
                .on_message(&m.config, now, from, msg.clone(), &mut out);
            AsyncAction::Deliver(from, rank, msg)
        } else {
            let (_, id) = next.timers.remove(at - local.inbox.len());
            next.node.on_timer(&m.config, now, id, &mut out);
            AsyncAction::Timer(rank, id)
        };
        apply_outbox(
            &mut out,
            rank,
            m.procs,
            false,
            &mut next.timers,
            &mut next.delivered,
            &mut next.broken,
            |_, _| {},
        );
        (action, next)
    }

    /// A step whose state is built already.
    fn ready(
        &self,
        actions: Vec<AsyncAction<A::Msg>>,
        next: AsyncState<A>,
        stage: Stage,
    ) -> Step<A> {
        let fingerprint = Parts::staged(&next, stage).total();
        Step {
            actions,
            fingerprint,
            build: Build::Ready(Arc::new(TransactionState { state: next, stage })),
        }
    }

    /// Every outcome of `rank`'s receptions from `state` (a breadth-first search over the
    /// process's states, each reached once).
    fn receptions(&self, state: &AsyncState<A>, rank: Rank) -> Receptions<A> {
        let m = &self.inner;
        let horizon: Time = m.horizon;
        let r = rank as usize;
        let start = self.local(state, rank);
        let mut found = Receptions {
            transactions: Vec::new(),
            endings: Vec::new(),
            failures: Vec::new(),
            longest: (Vec::new(), None),
            cut: false,
            deepest: 0,
        };
        if state.crashed[r] {
            // Removing the messages to a crashed process changes nothing else, in any order.
            let removals: Vec<_> = start
                .inbox
                .iter()
                .map(|(from, msg)| AsyncAction::Deliver(*from, rank, msg.clone()))
                .collect();
            let mut end = start;
            end.taken = removals.len() as Time;
            end.inbox.clear();
            found.deepest = end.taken;
            found.longest = (removals.clone(), Some(end.clone()));
            found.endings.push((removals, end));
            return found;
        }
        let mut longest_sends = false;
        let mut seen = HashSet::new();
        seen.insert(fingerprint(&start));
        let mut queue: Vec<Outcome<A>> = vec![(Vec::new(), start)];
        let mut at = 0;
        while at < queue.len() {
            let (path, here) = queue[at].clone();
            at += 1;
            let clock = state.clock + here.taken;
            found.deepest = found.deepest.max(here.taken);
            if !path.is_empty()
                && (here.broken
                    || here.delivered.0 > 1
                    || here.delivered.1.as_ref().is_some_and(|v| *v != m.payload))
            {
                found.failures.push((path.clone(), here.clone()));
            }
            let sends = m.slot_changes(&here.node, clock + 1);
            if path.len() > found.longest.0.len()
                || (path.len() == found.longest.0.len() && sends && !longest_sends)
            {
                found.longest = (path.clone(), Some(here.clone()));
                longest_sends = sends;
            }
            let open = here.inbox.len() + here.timers.len();
            if open == 0 && !sends {
                found.endings.push((path.clone(), here.clone()));
            }
            if clock >= horizon {
                found.cut = true;
                continue;
            }
            if sends {
                let mut actions = path.clone();
                actions.push(AsyncAction::Poll(rank));
                let mut polled = here.clone();
                polled.taken += 1;
                let mut out = Outbox::new();
                polled.node.on_send_slot(&m.config, clock + 1, &mut out);
                let mut sent = None;
                apply_outbox(
                    &mut out,
                    rank,
                    m.procs,
                    true,
                    &mut polled.timers,
                    &mut polled.delivered,
                    &mut polled.broken,
                    |to, msg| sent = Some((to, msg)),
                );
                found.transactions.push(Transaction {
                    actions,
                    received: here.clone(),
                    polled,
                    sent,
                });
            }
            for i in 0..open {
                if i > 0 && i < here.inbox.len() && here.inbox[i] == here.inbox[i - 1] {
                    continue;
                }
                let (action, next) = self.receive(&here, rank, state.clock, i);
                if seen.insert(fingerprint(&next)) {
                    let mut p = path.clone();
                    p.push(action);
                    queue.push((p, next));
                }
            }
        }
        found
    }
}

/// The fingerprint of a state of the reduced model is a sum of hashes, one for the global
/// fields, one per process (its automaton, whether it crashed, its deliveries), one per message
/// in flight and one per timer, so that a transaction's successor is fingerprinted from the
/// parts it changes. (The send-slot answers are left out: they follow from the automata.)
fn global_hash(stage: Stage, clock: Time, crashes: u32, broken: bool) -> u64 {
    fingerprint(&(0u8, stage, clock, crashes, broken))
}

fn process_hash<A: Automaton>(
    rank: Rank,
    node: &A,
    crashed: bool,
    delivered: &(u32, Option<A::Value>),
) -> u64 {
    fingerprint(&(1u8, rank, node, crashed, delivered))
}

fn message_hash<M: std::hash::Hash>(from: Rank, to: Rank, msg: &M) -> u64 {
    fingerprint(&(2u8, from, to, msg))
}

fn timer_hash(rank: Rank, id: TimerId) -> u64 {
    fingerprint(&(3u8, rank, id))
}

/// A state's hashes by process: its own, its incoming messages' and its timers'.
struct Parts {
    global: u64,
    process: Vec<u64>,
    to: Vec<u64>,
    timers: Vec<u64>,
}

impl Parts {
    fn of<A: Automaton>(s: &AsyncState<A>) -> Self {
        Self::staged(s, Stage::Transactions)
    }

    fn staged<A: Automaton>(s: &AsyncState<A>, stage: Stage) -> Self {
        let n = s.nodes.len();
        let mut to = vec![0u64; n];
        for (from, dest, msg) in &s.network {
            to[*dest as usize] = to[*dest as usize].wrapping_add(message_hash(*from, *dest, msg));
        }
        let mut timers = vec![0u64; n];
        for &(rank, id) in &s.timers {
            timers[rank as usize] = timers[rank as usize].wrapping_add(timer_hash(rank, id));
        }
        Self {
            global: global_hash(stage, s.clock, s.crashes, s.broken),
            process: (0..n)
                .map(|r| process_hash(r as Rank, &s.nodes[r], s.crashed[r], &s.deliveries[r]))
                .collect(),
            to,
            timers,
        }
    }

    fn total(&self) -> u64 {
        self.process
            .iter()
            .chain(&self.to)
            .chain(&self.timers)
            .fold(self.global, |h, x| h.wrapping_add(*x))
    }
}

impl<A> crate::fingerprints::Fingerprints for TransactionModel<A>
where
    A: Automaton + Send + Sync + 'static,
    A::Msg: Ord + Send + Sync,
    A::Config: Send + Sync + 'static,
{
    fn fingerprint_of(&self, state: &TransactionState<A>) -> u64 {
        Parts::staged(&state.state, state.stage).total()
    }

    fn fingerprint_after(&self, _: &TransactionState<A>, step: &Step<A>) -> Option<u64> {
        Some(step.fingerprint)
    }
}

impl<A> Model for TransactionModel<A>
where
    A: Automaton + Send + Sync + 'static,
    A::Msg: Ord + Send + Sync,
    A::Config: Send + Sync + 'static,
{
    type State = TransactionState<A>;
    type Action = Step<A>;

    fn init_states(&self) -> Vec<Self::State> {
        self.inner
            .init_states()
            .into_iter()
            .map(|state| TransactionState {
                state,
                stage: Stage::Transactions,
            })
            .collect()
    }

    fn actions(&self, state: &Self::State, actions: &mut Vec<Self::Action>) {
        if state.stage != Stage::Transactions || self.inner.halt.is_halted() {
            return;
        }
        let s = &state.state;
        let all: Vec<Arc<Receptions<A>>> = (0..self.inner.procs)
            .map(|rank| self.receptions_known(s, rank))
            .collect();
        let parts = Parts::of(s);
        let discard = self.inner.discards_to_crashed();
        for (rank, found) in (0..self.inner.procs).zip(&all) {
            let r = rank as usize;
            // The fingerprint of the state without `rank`'s process, messages and timers.
            let rest = parts
                .total()
                .wrapping_sub(parts.global)
                .wrapping_sub(parts.process[r])
                .wrapping_sub(parts.to[r])
                .wrapping_sub(parts.timers[r]);
            for (index, t) in found.transactions.iter().enumerate() {
                let inbox = |local: &Local<A>| -> u64 {
                    local.inbox.iter().fold(0u64, |h, (from, msg)| {
                        h.wrapping_add(message_hash(*from, rank, msg))
                    })
                };
                if rank != 0 && s.crashes < self.inner.max_crashes {
                    let mut crash = t.actions.clone();
                    *crash.last_mut().expect("not empty") = AsyncAction::Crash(rank);
                    let local = &t.received;
                    let fingerprint = rest
                        .wrapping_add(global_hash(
                            Stage::Transactions,
                            s.clock + local.taken + 1,
                            s.crashes + 1,
                            s.broken || local.broken,
                        ))
                        .wrapping_add(process_hash(rank, &local.node, true, &local.delivered))
                        .wrapping_add(if discard { 0 } else { inbox(local) });
                    actions.push(Step {
                        actions: crash,
                        fingerprint,
                        build: Build::Transaction {
                            rank,
                            found: Arc::clone(found),
                            index,
                            crash: true,
                        },
                    });
                }
                let local = &t.polled;
                let sent = match &t.sent {
                    Some((to, msg)) if !(discard && s.crashed[*to as usize]) => {
                        message_hash(rank, *to, msg)
                    }
                    _ => 0,
                };
                let fingerprint = rest
                    .wrapping_add(global_hash(
                        Stage::Transactions,
                        s.clock + local.taken,
                        s.crashes,
                        s.broken || local.broken,
                    ))
                    .wrapping_add(process_hash(rank, &local.node, false, &local.delivered))
                    .wrapping_add(inbox(local))
                    .wrapping_add(sent)
                    .wrapping_add(
                        local
                            .timers
                            .iter()
                            .fold(0u64, |h, &(t, id)| h.wrapping_add(timer_hash(t, id))),
                    );
                actions.push(Step {
                    actions: t.actions.clone(),
                    fingerprint,
                    build: Build::Transaction {
                        rank,
                        found: Arc::clone(found),
                        index,
                        crash: false,
                    },
                });
            }
            for (f, local) in &found.failures {
                actions.push(self.ready(f.clone(), self.with(s, rank, local), Stage::Witness));
            }
        }
        // The horizon: the longest receptions of every process, one after another, cut there.
        let longest: Time = all.iter().map(|f| f.longest.0.len() as Time).sum();
        if longest > 0 && s.clock + longest >= self.inner.horizon {
            let mut room = self.inner.horizon.saturating_sub(s.clock);
            let mut cut = Vec::new();
            let mut next = s.clone();
            for f in &all {
                if room == 0 {
                    break;
                }
                for action in f.longest.0.iter().take(room as usize) {
                    if let Some(after) = self.inner.apply(&next, action.clone()) {
                        next = after;
                        cut.push(action.clone());
                        room -= 1;
                    }
                }
            }
            if !cut.is_empty() {
                actions.push(self.ready(cut, next, Stage::Witness));
            }
        }
        // The ending: every combination of the processes' endings, in rank order.
        if all.iter().any(|f| f.endings.is_empty())
            || all
                .iter()
                .all(|f| f.endings.iter().all(|(e, _)| e.is_empty()))
        {
            return;
        }
        let mut combination = vec![0usize; all.len()];
        loop {
            let taken: Time = all
                .iter()
                .zip(&combination)
                .map(|(f, &i)| f.endings[i].0.len() as Time)
                .sum();
            if s.clock + taken <= self.inner.horizon {
                let mut next = s.clone();
                let mut steps = Vec::new();
                for (rank, (f, &i)) in (0..self.inner.procs).zip(all.iter().zip(&combination)) {
                    let (path, local) = &f.endings[i];
                    if !path.is_empty() {
                        next = self.with(&next, rank, local);
                        steps.extend(path.iter().cloned());
                    }
                }
                actions.push(self.ready(steps, next, Stage::Ended));
            }
            let mut digit = 0;
            loop {
                if digit == all.len() {
                    return;
                }
                combination[digit] += 1;
                if combination[digit] < all[digit].endings.len() {
                    break;
                }
                combination[digit] = 0;
                digit += 1;
            }
        }
    }

    fn next_state(&self, state: &Self::State, step: Self::Action) -> Option<Self::State> {
        if !self.inner.halt.admit() {
            return None;
        }
        match step.build {
            Build::Ready(next) => Some(Arc::unwrap_or_clone(next)),
            Build::Transaction {
                rank,
                found,
                index,
                crash,
            } => {
                let t = &found.transactions[index];
                let mut next = self.received(&state.state, rank, &t.received);
                let last = if crash {
                    AsyncAction::Crash(rank)
                } else {
                    AsyncAction::Poll(rank)
                };
                self.inner
                    .apply_mut(&mut next, last)
                    .then_some(TransactionState {
                        state: next,
                        stage: Stage::Transactions,
                    })
            }
        }
    }

    fn properties(&self) -> Vec<Property<Self>> {
        vec![
            Property::always(property::INTEGRITY, |m: &Self, s: &Self::State| {
                integrity(&m.inner, &s.state)
            }),
            Property::always(property::NO_DUPLICATES, |m: &Self, s: &Self::State| {
                no_duplicates(&m.inner, &s.state)
            }),
            Property::always(property::LIVENESS, |m: &Self, s: &Self::State| {
                liveness(&m.inner, &s.state)
            }),
            Property::always(property::TERMINATION, |m: &Self, s: &Self::State| {
                termination(&m.inner, &s.state)
            }),
            Property::sometimes(
                property::SOMETIMES_QUIESCENT,
                |m: &Self, s: &Self::State| quiescent(&m.inner, &s.state),
            ),
        ]
    }
}
