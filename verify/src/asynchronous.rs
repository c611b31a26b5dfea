//! The asynchronous model: any delivery order, timers firing at any moment, crashes at any
//! moment — for protocols that claim timing independence (CT §4.2: optimized opportunistic
//! correction "does not depend on precise timing").
//!
//! Every process starts at logical time 0 (in rank order). An action delivers any message in
//! flight, fires any pending timer, offers a send slot to a process whose slot would do
//! something, or crashes a live non-root process (at most `f` times, only while something is
//! left to happen). `now` passed to the automata is the number of actions taken, so it increases
//! along every path; each action removes a message or a timer, or makes a process send, and the
//! automata's sends are bounded, so the graph is acyclic for the protocols checked here (a
//! boundary on the logical clock catches the others as a termination violation).

use ftcoll::automaton::{Action, Automaton, Outbox, TimerId};
use ftcoll::protocols::corrected_tree::CorrectedTreeNode;
use ftcoll::{Rank, Time};
use stateright::{Model, Property};

use crate::budget::Halt;
use crate::{property, CorrectedTreeSpec};

/// An asynchronous model of automaton `A`.
#[derive(Clone, Debug)]
pub struct AsyncModel<A: Automaton> {
    /// The protocol configuration.
    pub config: A::Config,
    /// `P`.
    pub procs: u32,
    /// The root's payload.
    pub payload: A::Value,
    /// At most this many crashes.
    pub max_crashes: u32,
    /// Largest logical time explored.
    pub horizon: Time,
    /// The budget switch of the check running this model (see [`crate::budget`]).
    pub halt: Halt,
    /// Whether the automaton reads `now` beyond setting timers (for a Corrected Tree
    /// broadcast, [`CorrectedTreeSpec::reads_clock`]). The breadth-first search passes every
    /// automaton the one clock of the whole machine, and any automaton may read it;
    /// [`crate::dpor`] gives each process its own clock, which agrees with it only when the
    /// automaton does not read `now`, so it refuses a model that says it does
    /// ([`crate::dpor::Refusal::ReadsClock`]).
    pub reads_clock: bool,
    /// Offer a crash of `r` only while `r` has something to do (a message to it in flight, a
    /// timer of its own, or a send slot that would change it), and, for an automaton that does
    /// not read the clock, discard a message to a crashed process at once instead of leaving its
    /// delivery (which changes nothing) to the scheduler: docs/reference/checker.md, "The search by
    /// fingerprints", argues that no verdict changes. Off by default (the matrix's counts).
    pub crashes_at_events_only: bool,
}

/// A state of the asynchronous model.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AsyncState<A: Automaton> {
    /// Every automaton.
    pub nodes: Vec<A>,
    /// Crashed processes.
    pub crashed: Vec<bool>,
    /// Messages in flight `(from, to, msg)`, sorted (a multiset).
    pub network: Vec<(Rank, Rank, A::Msg)>,
    /// Pending timers, sorted.
    pub timers: Vec<(Rank, TimerId)>,
    /// Deliveries per process and the first value delivered.
    pub deliveries: Vec<(u32, Option<A::Value>)>,
    /// Crashes so far.
    pub crashes: u32,
    /// Logical time: actions taken.
    pub clock: Time,
    /// An automaton broke the contract (reported as a termination violation; the run goes on).
    pub broken: bool,
    /// Derived from the fields above, once per state (`settle`): whether offering each rank a
    /// send slot would change anything (false for crashed ranks). Actions and three properties
    /// read it.
    pub pollable: Vec<bool>,
}

/// An action of the asynchronous model.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AsyncAction<M> {
    /// Deliver this message.
    Deliver(Rank, Rank, M),
    /// Fire this timer.
    Timer(Rank, TimerId),
    /// Offer a send slot.
    Poll(Rank),
    /// Crash this process.
    Crash(Rank),
}

impl AsyncModel<CorrectedTreeNode> {
    /// The asynchronous model of a Corrected Tree broadcast.
    pub fn corrected_tree(
        spec: &CorrectedTreeSpec,
        max_crashes: u32,
    ) -> Result<Self, ftcoll::topology::TopologyError> {
        let config = spec.config()?;
        let p = u64::from(spec.procs);
        Ok(Self {
            payload: config.payload,
            reads_clock: config.reads_clock(),
            config,
            procs: spec.procs,
            max_crashes,
            horizon: 16 * p * p + 64,
            halt: Halt::new(),
            crashes_at_events_only: false,
        })
    }
}

impl<A: Automaton> AsyncModel<A>
where
    A::Msg: Ord,
{
    fn absorb(
        &self,
        state: &mut AsyncState<A>,
        rank: Rank,
        out: &mut Outbox<A::Msg, A::Value>,
        send_slot: bool,
    ) {
        let network = &mut state.network;
        let crashed = &state.crashed;
        let discard = self.discards_to_crashed();
        apply_outbox(
            out,
            rank,
            self.procs,
            send_slot,
            &mut state.timers,
            &mut state.deliveries[rank as usize],
            &mut state.broken,
            |to, msg| {
                if !(discard && crashed[to as usize]) {
                    network.push((rank, to, msg));
                }
            },
        );
        state.network.sort();
    }

    /// Whether offering `rank` a send slot would change anything.
    fn poll_changes(&self, state: &AsyncState<A>, rank: Rank) -> bool {
        // The send slot would be the next action: the time `next_state` passes it.
        self.slot_changes(&state.nodes[rank as usize], state.clock + 1)
    }

    /// Whether a send slot at `now` would change `node` or make it act.
    pub(crate) fn slot_changes(&self, node: &A, now: Time) -> bool {
        let mut after = node.clone();
        let mut out = Outbox::new();
        after.on_send_slot(&self.config, now, &mut out);
        !out.is_empty() || after != *node
    }

    /// Computes the derived field `pollable` of a new state.
    fn settle(&self, mut state: AsyncState<A>) -> AsyncState<A> {
        state.pollable = (0..self.procs)
            .map(|r| !state.crashed[r as usize] && self.poll_changes(&state, r))
            .collect();
        state
    }

    /// Recomputes `pollable` after an action of `rank` alone: an automaton that does not read
    /// the clock answers a send slot from its own state only, so only the rank that acted can
    /// change its answer; one that reads it is asked again everywhere.
    fn resettle_mut(&self, state: &mut AsyncState<A>, rank: Rank) {
        if self.reads_clock {
            for r in 0..self.procs {
                state.pollable[r as usize] =
                    !state.crashed[r as usize] && self.poll_changes(state, r);
            }
            return;
        }
        let r = rank as usize;
        state.pollable[r] = !state.crashed[r] && self.poll_changes(state, rank);
    }

    /// Whether a message to a crashed process is discarded when sent or when the crash happens
    /// ([`Self::crashes_at_events_only`] with an automaton that does not read the clock).
    pub(crate) fn discards_to_crashed(&self) -> bool {
        self.crashes_at_events_only && !self.reads_clock
    }

    /// Whether `rank` has an action of its own: a message to it in flight, a timer, or a send
    /// slot that would change it.
    pub(crate) fn has_events(&self, state: &AsyncState<A>, rank: Rank) -> bool {
        state.pollable[rank as usize]
            || state.network.iter().any(|&(_, to, _)| to == rank)
            || state.timers.iter().any(|&(r, _)| r == rank)
    }

    /// Nothing is left to happen.
    pub fn quiescent(&self, state: &AsyncState<A>) -> bool {
        state.network.is_empty() && state.timers.is_empty() && !state.pollable.contains(&true)
    }

    fn live_delivered(&self, state: &AsyncState<A>) -> bool {
        live_ones_delivered(&state.deliveries, &state.crashed)
    }
}

/// Applies one handler's outbox at `rank` to a model's state (this model's and
/// [`crate::dpor`]'s): at most one send, only in a send slot and to a rank below `procs`, is
/// handed to `send` (anything else breaks the contract); `timers` stays a sorted set; a
/// delivery is counted and its first value kept.
#[allow(clippy::too_many_arguments)]
pub(crate) fn apply_outbox<M, V>(
    out: &mut Outbox<M, V>,
    rank: Rank,
    procs: u32,
    send_slot: bool,
    timers: &mut Vec<(Rank, TimerId)>,
    delivered: &mut (u32, Option<V>),
    broken: &mut bool,
    mut send: impl FnMut(Rank, M),
) {
    let mut sent = 0;
    for action in out.drain() {
        match action {
            Action::Send { to, msg } => {
                sent += 1;
                if !send_slot || sent > 1 || to >= procs {
                    *broken = true;
                } else {
                    send(to, msg);
                }
            }
            Action::SetTimer { id, .. } => {
                if let Err(at) = timers.binary_search(&(rank, id)) {
                    timers.insert(at, (rank, id));
                }
            }
            Action::CancelTimer { id } => timers.retain(|&t| t != (rank, id)),
            Action::Deliver(value) => {
                delivered.0 += 1;
                delivered.1.get_or_insert(value);
            }
            Action::Complete(_) | Action::Ignored(_) => {}
        }
    }
}

impl<A> Model for AsyncModel<A>
where
    A: Automaton + Send + Sync + 'static,
    A::Msg: Ord + Send + Sync,
    A::Config: Send + Sync + 'static,
{
    type State = AsyncState<A>;
    type Action = AsyncAction<A::Msg>;

    fn init_states(&self) -> Vec<Self::State> {
        let n = self.procs as usize;
        let mut state = AsyncState {
            nodes: (0..self.procs).map(|r| A::new(&self.config, r)).collect(),
            crashed: vec![false; n],
            network: Vec::new(),
            timers: Vec::new(),
            deliveries: vec![(0, None); n],
            crashes: 0,
            clock: 0,
            broken: false,
            pollable: Vec::new(),
        };
        for rank in 0..self.procs {
            let mut out = Outbox::new();
            state.nodes[rank as usize].on_start(&self.config, 0, &mut out);
            self.absorb(&mut state, rank, &mut out, false);
        }
        vec![self.settle(state)]
    }

    fn actions(&self, state: &Self::State, actions: &mut Vec<Self::Action>) {
        if state.clock >= self.horizon || self.halt.is_halted() {
            return;
        }
        // The network is sorted: copies of one message are adjacent.
        let start = actions.len();
        actions.extend(
            state
                .network
                .iter()
                .map(|(from, to, msg)| AsyncAction::Deliver(*from, *to, msg.clone())),
        );
        let mut delivers = actions.split_off(start);
        delivers.dedup();
        actions.extend(delivers);
        for &(rank, id) in &state.timers {
            actions.push(AsyncAction::Timer(rank, id));
        }
        for rank in 0..self.procs {
            if state.pollable[rank as usize] {
                actions.push(AsyncAction::Poll(rank));
            }
        }
        if state.crashes < self.max_crashes && !actions.is_empty() {
            for rank in 1..self.procs {
                if !state.crashed[rank as usize]
                    && (!self.crashes_at_events_only || self.has_events(state, rank))
                {
                    actions.push(AsyncAction::Crash(rank));
                }
            }
        }
    }

    fn next_state(&self, state: &Self::State, action: Self::Action) -> Option<Self::State> {
        if !self.halt.admit() {
            return None;
        }
        self.apply(state, action)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        vec![
            Property::always(property::INTEGRITY, integrity::<A>),
            Property::always(property::NO_DUPLICATES, no_duplicates::<A>),
            Property::always(property::LIVENESS, liveness::<A>),
            Property::always(property::TERMINATION, termination::<A>),
            Property::sometimes(property::SOMETIMES_QUIESCENT, quiescent::<A>),
        ]
    }
}

impl<A: Automaton> AsyncModel<A>
where
    A::Msg: Ord,
{
    /// The state after `action`, which must be one [`Model::actions`] offers in `state`
    /// (`None` if it names a message not in flight); the budget is not consulted.
    pub(crate) fn apply(
        &self,
        state: &AsyncState<A>,
        action: AsyncAction<A::Msg>,
    ) -> Option<AsyncState<A>> {
        let mut next = state.clone();
        self.apply_mut(&mut next, action).then_some(next)
    }

    /// [`Self::apply`] in place; false (and `next` partly changed) if `action` names a message
    /// not in flight.
    pub(crate) fn apply_mut(&self, next: &mut AsyncState<A>, action: AsyncAction<A::Msg>) -> bool {
        next.clock += 1;
        let now = next.clock;
        let mut out = Outbox::new();
        let actor = match action {
            AsyncAction::Deliver(_, to, _) => to,
            AsyncAction::Timer(rank, _) | AsyncAction::Poll(rank) | AsyncAction::Crash(rank) => {
                rank
            }
        };
        match action {
            AsyncAction::Deliver(from, to, msg) => {
                let Some(index) = next
                    .network
                    .iter()
                    .position(|(f, t, m)| *f == from && *t == to && *m == msg)
                else {
                    return false;
                };
                next.network.remove(index);
                if !next.crashed[to as usize] {
                    next.nodes[to as usize].on_message(&self.config, now, from, msg, &mut out);
                    self.absorb(next, to, &mut out, false);
                }
            }
            AsyncAction::Timer(rank, id) => {
                next.timers.retain(|&t| t != (rank, id));
                if !next.crashed[rank as usize] {
                    next.nodes[rank as usize].on_timer(&self.config, now, id, &mut out);
                    self.absorb(next, rank, &mut out, false);
                }
            }
            AsyncAction::Poll(rank) => {
                next.nodes[rank as usize].on_send_slot(&self.config, now, &mut out);
                self.absorb(next, rank, &mut out, true);
            }
            AsyncAction::Crash(rank) => {
                next.crashed[rank as usize] = true;
                next.crashes += 1;
                next.timers.retain(|&(r, _)| r != rank);
                if self.discards_to_crashed() {
                    next.network.retain(|&(_, to, _)| to != rank);
                }
            }
        }
        self.resettle_mut(next, actor);
        true
    }
}

/// Integrity over the deliveries (shared with [`crate::dpor`]): every value delivered is the
/// root's payload.
pub(crate) fn delivered_payload_only<V: PartialEq>(
    deliveries: &[(u32, Option<V>)],
    payload: &V,
) -> bool {
    deliveries
        .iter()
        .all(|(_, v)| v.as_ref().is_none_or(|v| v == payload))
}

/// No duplicates over the deliveries (shared with [`crate::dpor`]).
pub(crate) fn delivered_at_most_once<V>(deliveries: &[(u32, Option<V>)]) -> bool {
    deliveries.iter().all(|(d, _)| *d <= 1)
}

/// Liveness's condition at quiescence (shared with [`crate::dpor`]): every process that has not
/// crashed delivered.
pub(crate) fn live_ones_delivered<V>(deliveries: &[(u32, Option<V>)], crashed: &[bool]) -> bool {
    deliveries
        .iter()
        .zip(crashed)
        .all(|((d, _), &c)| c || *d > 0)
}

pub(crate) fn integrity<A: Automaton>(m: &AsyncModel<A>, s: &AsyncState<A>) -> bool {
    delivered_payload_only(&s.deliveries, &m.payload)
}

pub(crate) fn no_duplicates<A: Automaton>(_: &AsyncModel<A>, s: &AsyncState<A>) -> bool {
    delivered_at_most_once(&s.deliveries)
}

pub(crate) fn liveness<A: Automaton>(m: &AsyncModel<A>, s: &AsyncState<A>) -> bool
where
    A::Msg: Ord,
{
    !m.quiescent(s) || m.live_delivered(s)
}

pub(crate) fn termination<A: Automaton>(m: &AsyncModel<A>, s: &AsyncState<A>) -> bool
where
    A::Msg: Ord,
{
    !s.broken && (s.clock < m.horizon || m.quiescent(s))
}

pub(crate) fn quiescent<A: Automaton>(m: &AsyncModel<A>, s: &AsyncState<A>) -> bool
where
    A::Msg: Ord,
{
    m.quiescent(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ftcoll::protocols::corrected_tree::{CorrectionSpec, StartMode};
    use ftcoll::topology::{LogP, Order, TreeKind};

    /// The incremental send-slot answer (`resettle_mut`) is the one computed from scratch (`settle`)
    /// in every state of 200 pseudo-random runs per variant, crashes included; for an automaton
    /// that reads the clock it is the full recomputation anyway.
    #[test]
    fn the_incremental_send_slot_answer_is_the_full_one() {
        let corrections = [
            CorrectionSpec::Opportunistic { distance: 2 },
            CorrectionSpec::Optimized { distance: 2 },
            CorrectionSpec::Checked,
            CorrectionSpec::Delayed { delay: 3 },
            CorrectionSpec::FailProof {
                faults: 1,
                sos_timeout: None,
                sos_on_full_loop: true,
            },
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut checked = 0;
        for correction in corrections {
            let spec = CorrectedTreeSpec {
                tree: TreeKind::Lame(2),
                order: Order::Interleaved,
                correction,
                start: StartMode::Overlapped,
                procs: 6,
                logp: LogP::default(),
            };
            let model = AsyncModel::corrected_tree(&spec, 2).unwrap();
            assert!(!model.reads_clock, "{correction:?}: overlapped start");
            for _ in 0..200 {
                let mut state = model.init_states().remove(0);
                loop {
                    let mut actions = Vec::new();
                    model.actions(&state, &mut actions);
                    if actions.is_empty() {
                        break;
                    }
                    seed = seed
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    let pick = (seed >> 33) as usize % actions.len();
                    state = model
                        .next_state(&state, actions.swap_remove(pick))
                        .expect("a successor");
                    let full = model.settle(state.clone());
                    assert_eq!(state.pollable, full.pollable, "{correction:?}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 10_000, "only {checked} states");
    }
}
