//! The timed model: the LogP driver's exact semantics as a [`stateright::Model`].
//!
//! A state is a whole [`Sim`] (every automaton, message, timer and port) plus the number of
//! crashes so far. Actions: `Step` applies every event of the next instant (deterministic);
//! `Crash(r)` crashes a live non-root process right before the next instant (only with
//! [`CrashTiming::Any`], at most `f` times). With [`CrashTiming::Pre`] the crash sets are the
//! initial states. Time increases with every `Step` and crashes only add up, so the state graph
//! is acyclic; liveness is an `always` property of quiescent states.
//!
//! With a [`ChoiceHook`] ([`TimedModel::choices`]) the model also explores the choices an
//! automaton leaves to its environment ([`ftcoll::rng::Chooser::External`]: gossip targets):
//! before applying an instant it runs the instant on a copy; if some process's draw found no
//! outcome there, the state's successors are one `Choose` per outcome of the lowest such
//! process's draw (the same instant, nothing else changed) instead of the `Step`. So every
//! draw happens where the protocol makes it, with every outcome (docs/verification-gossip.md).
//! Choices are consumed, so the graph stays acyclic.
//!
//! The model knows no protocol: what it decides is the list of [`TimedProperty`]s the
//! protocol family declares ([`broadcast_properties`] for the broadcasts, `crate::ftco` for
//! FTCO), and which ranks may crash is a list too ([`TimedModel::crashable`]).

use ftcoll::automaton::Automaton;
use ftcoll::topology::LogP;
use ftcoll::{Rank, Time};
use ftcoll_sim::{PortModel, Report, Scenario, Sim, SimError, TraceEvent};
use serde::de::DeserializeOwned;
use serde::Serialize;
use stateright::{Model, Property};

use crate::budget::Halt;

mod crash_sets;
mod properties;

pub use crash_sets::{crash_set_at, crash_set_count, crash_sets, crash_sets_of};
pub(crate) use properties::cut_at_horizon;
pub use properties::{
    broadcast_properties, quiescent, stopped_stays_silent, termination, Expectation, TimedProperty,
    HORIZON_CUT,
};

/// When crashes may happen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CrashTiming {
    /// Before the operation only.
    Pre,
    /// Before the operation or right before any instant of it.
    Any,
}

impl core::fmt::Display for CrashTiming {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::Pre => "pre",
            Self::Any => "any",
        })
    }
}
/// What a check needs of an automaton beyond the contract: its state, messages, values and
/// configuration move between the search's threads, and its state, messages and values can be
/// written as bytes (the layered search holds the states it has yet to explore that way, see
/// the layered search). Every `Send + Sync` automaton with serde's derives has it.
pub trait Checkable:
    Automaton<
        Msg: Send + Sync + Serialize + DeserializeOwned,
        Value: Send + Sync + Serialize + DeserializeOwned,
        Config: Send + Sync + 'static,
    > + Serialize
    + DeserializeOwned
    + Send
    + Sync
    + 'static
{
}

impl<A> Checkable for A where
    A: Automaton<
            Msg: Send + Sync + Serialize + DeserializeOwned,
            Value: Send + Sync + Serialize + DeserializeOwned,
            Config: Send + Sync + 'static,
        > + Serialize
        + DeserializeOwned
        + Send
        + Sync
        + 'static
{
}

/// A timed model of one operation of automaton `A`.
#[derive(Clone, Debug)]
pub struct TimedModel<A: Automaton> {
    /// The protocol configuration.
    pub config: A::Config,
    /// `P`.
    pub procs: u32,
    /// Timing.
    pub logp: LogP,
    /// Dual- or single-port.
    pub port_model: PortModel,
    /// The root's payload (for integrity).
    pub payload: A::Value,
    /// `f`: at most this many crashes.
    pub max_crashes: u32,
    /// When crashes happen.
    pub timing: CrashTiming,
    /// Latest instant by which the operation must be quiescent.
    pub horizon: Time,
    /// The budget switch of the check running this model (see [`crate::budget`]).
    pub halt: Halt,
    /// The ranks that may crash, ascending (default: every rank but the root, 0).
    pub crashable: Vec<Rank>,
    /// What the check decides (default: [`broadcast_properties`]).
    pub properties: Vec<TimedProperty<A>>,
    /// When each process arrives (`Scenario::arrivals`; empty: everyone at 0).
    pub arrivals: Vec<Time>,
    /// How counterexample traces name the messages of each phase (dissemination, correction,
    /// acknowledgment) and what they call completing.
    pub vocabulary: Vocabulary,
    /// The family's guide for [`crate::search`]: the pairs of processes a still-uncovered part
    /// of the operation depends on (for the ring corrections, the two ends of each gap), whose
    /// crashes a guided walk prefers. `None`: uniform victims.
    pub guide: Option<Guide<A>>,
    /// Offer a crash of a process only before an instant at which it has an event, and before
    /// the first instant (default `false`: before every instant). The driver reads a process's
    /// crash time only when it applies one of that process's events, so a crash before an
    /// instant without one changes nothing any process does until its next event: the run
    /// that crashes it there instead (or never, if it has none) is the same run, with the
    /// crash recorded later. docs/reference/checker.md ("Crashes where they matter") argues why
    /// every
    /// property keeps its verdict; `verify/tests/engines/crash_instants.rs` compares the verdicts
    /// (Corrected Tree, FTCO and Corrected Gossip models).
    pub crashes_at_events_only: bool,
    /// Offer a crash of a process only before an instant at which it sends, and before the
    /// first instant (default `false`; implies [`Self::crashes_at_events_only`]'s reduction
    /// and goes further). A process that sends nothing during an instant changes nothing any
    /// other process does then or later by what it does in it, so crashing it before that
    /// instant or before its next sending instant (or never) gives every other process the
    /// same run; its own history only grows. docs/reference/checker.md ("Crashes before sends")
    /// argues
    /// why every property keeps its verdict; `verify/tests/engines/crash_instants.rs` compares the
    /// verdicts. Which processes send is found by running the instant on a copy; with a
    /// [`ChoiceHook`] it falls back to the events-only reduction (a draw on the copy would
    /// need a choice).
    pub crashes_before_sends_only: bool,
    /// How to read and resolve the choices an automaton leaves to the model (gossip targets,
    /// [`ftcoll::rng::Chooser::External`]); `None`: the automaton makes none. Only the
    /// stateright model ([`Model::actions`]) and [`Self::replay`] resolve choices; the
    /// deterministic helpers ([`Self::schedule`], [`Self::run_crashes`],
    /// [`Self::smallest_pre_counterexample`]) do not, so they are not used with a hook.
    pub choices: Option<ChoiceHook<A>>,
}

/// How the timed model reads and resolves a process's pending choice: `wanted` is the bound
/// of a draw that found no outcome (`ftcoll::rng::Chooser::wanted`), `supply` hands the next
/// draw its outcome (`ftcoll::rng::Chooser::supply`). Protocol-neutral: a family gives the two
/// functions for its automaton.
pub struct ChoiceHook<A> {
    /// The bound of the draw the process could not make, if any.
    pub wanted: fn(&A) -> Option<u64>,
    /// Supplies the outcome of the process's next draw.
    pub supply: fn(&mut A, u64),
}

impl<A> Clone for ChoiceHook<A> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<A> Copy for ChoiceHook<A> {}

impl<A> core::fmt::Debug for ChoiceHook<A> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("ChoiceHook")
    }
}

/// See [`TimedModel::guide`].
pub type Guide<A> = fn(&TimedModel<A>, &TimedState<A>) -> Vec<(Rank, Rank)>;

/// The words a counterexample trace uses for a protocol family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Vocabulary {
    /// Message names by phase: dissemination, correction, acknowledgment, liveness.
    pub messages: [&'static str; 4],
    /// Whether the family's outcome is a completion (`Complete`, a reduction) rather than a
    /// delivery (a broadcast).
    pub completes: bool,
}

impl Vocabulary {
    /// The broadcasts' words: tree/gossip, correction and acknowledgment messages, deliveries.
    pub const BROADCAST: Self = Self {
        messages: [
            "Dissemination message",
            "Correction message",
            "Acknowledgment message",
            "Liveness probe",
        ],
        completes: false,
    };

    /// FTCO's words (FTCO §3, "Message Flow"): DATA, ACK, KEEPALIVE (it sends nothing in the
    /// correction phase); completions.
    pub const FTCO: Self = Self {
        messages: ["DATA", "Correction message", "ACK", "KEEPALIVE"],
        completes: true,
    };
}

/// A state of the timed model.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct TimedState<A: Automaton> {
    /// The simulation.
    pub sim: Sim<A>,
    /// Crashes injected so far.
    pub crashes: u32,
    /// A driver error (an automaton broke the contract), if any.
    pub error: Option<SimError>,
    /// The first process seen acting after it said it had stopped: it sent, delivered or
    /// completed in an instant that began with its [`Automaton::is_done`] true. `None` in
    /// every state of a protocol that keeps the promise (so it never splits a state).
    pub acted_after_done: Option<Rank>,
}

impl<A: Automaton> Clone for TimedState<A> {
    fn clone(&self) -> Self {
        Self {
            sim: self.sim.clone(),
            crashes: self.crashes,
            error: self.error.clone(),
            acted_after_done: self.acted_after_done,
        }
    }

    /// Reuses this state's allocations ([`Sim`]'s `clone_from`): the layered search copies
    /// successors into states it has finished with.
    fn clone_from(&mut self, source: &Self) {
        self.sim.clone_from(&source.sim);
        self.crashes = source.crashes;
        self.error.clone_from(&source.error);
        self.acted_after_done = source.acted_after_done;
    }
}

/// An action of the timed model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimedAction {
    /// Apply every event of the instant `time`.
    Step {
        /// The instant.
        time: Time,
    },
    /// Crash `rank` right before the instant `time`.
    Crash {
        /// The process.
        rank: Rank,
        /// The instant it is dead from.
        time: Time,
    },
    /// The next draw of `rank` (made during the instant `time`) has outcome `outcome`
    /// ([`TimedModel::choices`]).
    Choose {
        /// The process.
        rank: Rank,
        /// The outcome, in `0..bound` of its draw.
        outcome: u64,
        /// The instant of the draw.
        time: Time,
    },
}

/// Builds a [`TimedModel`] of any automaton with named settings: start with
/// [`TimedModel::builder`], set what differs from the defaults, then [`Self::build`].
#[derive(Clone, Debug)]
#[must_use = "a builder does nothing until `build`"]
pub struct TimedModelBuilder<A: Automaton> {
    config: A::Config,
    procs: u32,
    payload: A::Value,
    horizon: Time,
    logp: LogP,
    max_crashes: u32,
    timing: CrashTiming,
}

impl<A: Automaton> TimedModelBuilder<A> {
    /// LogP timing (default [`LogP::default`]: `L = 2`, `o = 1`, the papers' evaluation).
    pub fn logp(mut self, logp: LogP) -> Self {
        self.logp = logp;
        self
    }

    /// `f`: at most this many processes crash (default 0: fault-free runs only).
    pub fn max_crashes(mut self, max_crashes: u32) -> Self {
        self.max_crashes = max_crashes;
        self
    }

    /// When crashes happen (default [`CrashTiming::Any`]: before the operation or before any
    /// instant of it; [`CrashTiming::Pre`] checks the smaller state space of crashes before it
    /// only).
    pub fn timing(mut self, timing: CrashTiming) -> Self {
        self.timing = timing;
        self
    }

    /// The model: dual-port, every rank but the root (0) may crash, [`broadcast_properties`],
    /// everyone arrives at 0, no guide, no choices and no reduction of crash instants. Its
    /// fields are public: change any of these (e.g. push your own properties) before checking.
    pub fn build(self) -> TimedModel<A> {
        TimedModel {
            config: self.config,
            procs: self.procs,
            logp: self.logp,
            port_model: PortModel::DualPort,
            payload: self.payload,
            max_crashes: self.max_crashes,
            timing: self.timing,
            horizon: self.horizon,
            halt: Halt::new(),
            crashable: (1..self.procs).collect(),
            properties: broadcast_properties(),
            arrivals: Vec::new(),
            vocabulary: Vocabulary::BROADCAST,
            guide: None,
            choices: None,
            crashes_at_events_only: false,
            crashes_before_sends_only: false,
        }
    }
}

impl<A: Automaton> TimedModel<A> {
    /// A builder of a model of any automaton, with what has no default: the protocol's
    /// `config`, `procs` (`P`), the `payload` integrity compares deliveries with, and the
    /// `horizon`, the instant by which the operation must be quiescent (termination), which
    /// must contain every timer the protocol sets. The rest has defaults
    /// ([`TimedModelBuilder`]'s setters).
    ///
    /// ```
    /// use ftcoll::protocols::corrected_tree::{CorrectedTreeNode, CorrectionSpec, StartMode};
    /// use ftcoll::topology::{LogP, Order, TreeKind};
    /// use ftcoll_verify::{check_model, property, Budget, CrashTiming, CorrectedTreeSpec, TimedModel};
    ///
    /// let spec = CorrectedTreeSpec {
    ///     tree: TreeKind::Binomial,
    ///     order: Order::Interleaved,
    ///     correction: CorrectionSpec::Checked,
    ///     start: StartMode::Synchronized,
    ///     procs: 4,
    ///     logp: LogP::new(2, 1)?,
    /// };
    /// let config = spec.config()?;
    /// let payload = config.payload;
    /// let model = TimedModel::<CorrectedTreeNode>::builder(config, spec.procs, payload, 1000)
    ///     .logp(spec.logp)
    ///     .max_crashes(1)
    ///     .timing(CrashTiming::Any)
    ///     .build();
    /// let result = check_model(model, &Budget::UNLIMITED).expect("a small model");
    /// assert!(!result.violated(property::INTEGRITY));
    /// assert!(!result.violated(property::LIVENESS));
    /// # Ok::<(), ftcoll::topology::TopologyError>(())
    /// ```
    pub fn builder(
        config: A::Config,
        procs: u32,
        payload: A::Value,
        horizon: Time,
    ) -> TimedModelBuilder<A> {
        TimedModelBuilder {
            config,
            procs,
            payload,
            horizon,
            logp: LogP::default(),
            max_crashes: 0,
            timing: CrashTiming::Any,
        }
    }

    /// The ranks a crash before instant `time` of `state` may matter for, as a flag per rank
    /// (past the first instant, with a reduction on): the ranks that send during the instant
    /// with [`Self::crashes_before_sends_only`] (found by applying it to a copy, which is then
    /// the `Step` successor and returned with the flags so it is not computed twice; on a
    /// driver error there, or with a choice hook, every rank with an event), else every rank
    /// with an event at it. `spares`: finished states to copy into.
    fn crash_points(
        &self,
        state: &TimedState<A>,
        time: Time,
        spares: &mut Vec<Box<TimedState<A>>>,
    ) -> (Vec<bool>, Option<Box<TimedState<A>>>) {
        if self.crashes_before_sends_only && self.choices.is_none() {
            let mut stepped = match spares.pop() {
                Some(mut spare) => {
                    spare.as_mut().clone_from(state);
                    spare
                }
                None => Box::new(state.clone()),
            };
            self.step(&mut stepped);
            if stepped.error.is_none() {
                let senders = state
                    .sim
                    .report()
                    .sent_counts()
                    .zip(stepped.sim.report().sent_counts())
                    .map(|(before, after)| before != after)
                    .collect();
                return (senders, Some(stepped));
            }
            return (state.sim.ranks_with_events_at(time), Some(stepped));
        }
        (state.sim.ranks_with_events_at(time), None)
    }

    /// [`Model::actions`], also returning the `Step` successor when finding the crash points
    /// computed it ([`Self::crash_points`]); the layered search takes it instead of applying
    /// `Step` again. `spares`: finished states to copy into.
    pub(crate) fn actions_stepping(
        &self,
        state: &TimedState<A>,
        actions: &mut Vec<TimedAction>,
        spares: &mut Vec<Box<TimedState<A>>>,
    ) -> Option<Box<TimedState<A>>> {
        if state.error.is_some() || self.halt.is_halted() {
            return None;
        }
        let time = state.sim.next_time()?;
        if time > self.horizon {
            return None;
        }
        match self.pending_choice(state) {
            Some((rank, bound)) => actions.extend((0..bound).map(|outcome| TimedAction::Choose {
                rank,
                outcome,
                time,
            })),
            None => actions.push(TimedAction::Step { time }),
        }
        let mut stepped = None;
        if self.timing == CrashTiming::Any && state.crashes < self.max_crashes {
            // Before the first instant every crash is offered (a crash there is a crash before
            // the operation, which some claims single out).
            let reduced = self.crashes_at_events_only || self.crashes_before_sends_only;
            let active = (reduced && state.sim.report().events > 0).then(|| {
                let (points, step) = self.crash_points(state, time, spares);
                stepped = step;
                points
            });
            for &rank in &self.crashable {
                let matters = active
                    .as_ref()
                    .is_none_or(|a| a.get(rank as usize).copied().unwrap_or(false));
                if matters && !state.sim.has_crashed(rank) {
                    actions.push(TimedAction::Crash { rank, time });
                }
            }
        }
        stepped
    }

    /// The choice the next instant of `state` needs first, with a [`ChoiceHook`]: the lowest
    /// live process whose draw finds no outcome when the instant runs on a copy, and the bound
    /// of that draw.
    pub fn pending_choice(&self, state: &TimedState<A>) -> Option<(Rank, u64)> {
        let hook = self.choices?;
        let mut trial = state.sim.clone();
        let _ = trial.step(&self.config);
        (0..self.procs).find_map(|r| {
            let bound = (hook.wanted)(trial.automaton(r)?)?;
            Some((r, bound))
        })
    }

    /// The names of the `always` properties, in the order the family declared them: the
    /// columns of a verdict.
    pub fn always_properties(&self) -> Vec<&'static str> {
        self.properties
            .iter()
            .filter(|p| p.expectation == Expectation::Always)
            .map(|p| p.name)
            .collect()
    }

    /// The names of the `sometimes` properties.
    pub fn sometimes_properties(&self) -> Vec<&'static str> {
        self.properties
            .iter()
            .filter(|p| p.expectation == Expectation::Sometimes)
            .map(|p| p.name)
            .collect()
    }

    /// The actions that replay a fixed schedule: `crash_at` crashes `(rank, time)` happen right
    /// before the first instant at or after `time`; steps run to quiescence or the horizon. With
    /// [`Self::replay`] this turns a simulated counterexample into a trace of the checker's model.
    pub fn schedule(&self, pre: &[Rank], crash_at: &[(Rank, Time)]) -> Vec<TimedAction> {
        let mut state = self.initial(pre, false);
        let mut pending: Vec<(Rank, Time)> = crash_at.to_vec();
        pending.sort_by_key(|&(r, t)| (t, r));
        let mut actions = Vec::new();
        while let Some(time) = state.sim.next_time().filter(|&t| t <= self.horizon) {
            while let Some(&(rank, at)) = pending.first().filter(|&&(_, at)| at <= time) {
                let _ = at;
                pending.remove(0);
                let action = TimedAction::Crash { rank, time };
                actions.push(action);
                state = self.apply(&state, action).expect("crash applies");
            }
            let action = TimedAction::Step { time };
            actions.push(action);
            state = self.apply(&state, action).expect("step applies");
            if state.error.is_some() {
                break;
            }
        }
        actions
    }
}

impl<A: Automaton> TimedModel<A> {
    fn scenario(&self, crashed: &[Rank], trace: bool) -> Scenario {
        Scenario {
            logp: self.logp,
            model: self.port_model,
            arrivals: self.arrivals.clone(),
            crashes: crashed.iter().map(|&r| (r, 0)).collect(),
            trace,
            ignored: Default::default(),
        }
    }

    /// Runs the deterministic schedule `pre` (dead before the operation) and `during` (each
    /// `(rank, time)` dead from the first instant at or after `time`), calling `visit` on every
    /// state before its next instant (and on the last one); stops when `visit` returns `false`,
    /// at quiescence, at the horizon or after a driver error. Returns the last state.
    pub fn run_crashes(
        &self,
        pre: &[Rank],
        during: &[(Rank, Time)],
        mut visit: impl FnMut(&TimedState<A>) -> bool,
    ) -> TimedState<A> {
        let mut state = self.initial(pre, false);
        let mut pending = during.to_vec();
        pending.sort_by_key(|&(r, t)| (t, r));
        let mut next = 0;
        while visit(&state) && state.error.is_none() {
            let Some(time) = state.sim.next_time().filter(|&t| t <= self.horizon) else {
                break;
            };
            while next < pending.len() && pending[next].1 <= time {
                let rank = pending[next].0;
                if !state.sim.has_crashed(rank) {
                    state.sim.crash(rank, time);
                    state.crashes += 1;
                }
                next += 1;
            }
            self.step(&mut state);
        }
        state
    }

    /// Applies every event of the next instant to `state`: the one way every caller (the
    /// checker, replays, [`crate::search`]) advances a run. Records a driver error in
    /// [`TimedState::error`] and the first process that acts although it had stopped in
    /// [`TimedState::acted_after_done`].
    pub fn step(&self, state: &mut TimedState<A>) {
        let watch = state.acted_after_done.is_none();
        let before: smallvec::SmallVec<[(Rank, u64); 16]> = if watch {
            (0..self.procs)
                .filter(|&r| {
                    state
                        .sim
                        .automaton(r)
                        .is_some_and(|a| a.is_done(&self.config))
                })
                .map(|r| (r, activity(state.sim.report(), r)))
                .collect()
        } else {
            smallvec::SmallVec::new()
        };
        if let Err(e) = state.sim.step(&self.config) {
            state.error = Some(e);
        }
        if watch {
            let report = state.sim.report();
            state.acted_after_done = before
                .into_iter()
                .find(|&(r, seen)| activity(report, r) != seen)
                .map(|(r, _)| r);
        }
    }

    /// The schedule `pre`/`during` ([`Self::schedule`]) replayed with tracing on, as trace lines:
    /// `first`, one line per event in the family's words, and an end line naming the live
    /// processes that never delivered; with whether there is none.
    pub fn describe_run(
        &self,
        pre: &[Rank],
        during: &[(Rank, Time)],
        first: String,
    ) -> (bool, Vec<String>) {
        let actions = self.schedule(pre, during);
        let (events, report) = self.replay(pre, &actions);
        // The crashes at the instants they took effect (the first at or after each asked one).
        let notes = crate::notes(&actions);
        let mut trace = vec![first];
        trace.extend(crate::timeline(&self.vocabulary, &notes, &events, &report));
        trace.push(crate::end_line(&self.vocabulary, &report));
        let all = (0..report.procs).all(|r| !report.is_live(r) || report.delivered_at(r).is_some());
        (all, trace)
    }

    /// The initial state with `crashed` dead before the operation, tracing off.
    pub(crate) fn initial_state(&self, crashed: &[Rank]) -> TimedState<A> {
        self.initial(crashed, false)
    }

    fn initial(&self, crashed: &[Rank], trace: bool) -> TimedState<A> {
        let scenario = self.scenario(crashed, trace);
        // Every send slot the contract describes, also those an automaton declares idle: the
        // states and their counts do not depend on that hint (`sim/tests/drivers/sim_idle_slots.rs` shows
        // that skipping changes no run).
        let every_slot = |mut sim: Sim<A>| {
            sim.offer_every_send_slot();
            sim
        };
        match Sim::new(&self.config, self.procs, &scenario).map(every_slot) {
            Ok(sim) => TimedState {
                sim,
                crashes: crashed.len() as u32,
                error: None,
                acted_after_done: None,
            },
            Err(e) => TimedState {
                sim: every_slot(
                    Sim::new(&self.config, self.procs, &self.scenario(&[], trace))
                        .expect("empty scenario is valid"),
                ),
                crashes: 0,
                error: Some(e),
                acted_after_done: None,
            },
        }
    }

    /// Replays `actions` from the matching initial state with tracing on, returning every event
    /// and the final report: the counterexample traces of `docs/traces/`.
    pub fn replay(
        &self,
        initial_crashes: &[Rank],
        actions: &[TimedAction],
    ) -> (Vec<TraceEvent>, Report<A::Value>) {
        let mut state = self.initial(initial_crashes, true);
        for &action in actions {
            if let Some(next) = self.apply(&state, action) {
                state = next;
            }
        }
        let report = state.sim.report().clone();
        (report.trace.clone(), report)
    }

    pub(crate) fn apply(
        &self,
        state: &TimedState<A>,
        action: TimedAction,
    ) -> Option<TimedState<A>> {
        let mut next = state.clone();
        self.apply_in_place(&mut next, action).then_some(next)
    }

    /// Applies `action` to `state` itself; `false` if it does not apply (a choice without a
    /// hook or for a rank that does not exist).
    pub(crate) fn apply_in_place(&self, state: &mut TimedState<A>, action: TimedAction) -> bool {
        match action {
            TimedAction::Step { .. } => self.step(state),
            TimedAction::Crash { rank, time } => {
                state.sim.crash(rank, time);
                state.crashes += 1;
            }
            TimedAction::Choose { rank, outcome, .. } => {
                let Some(hook) = self.choices else {
                    return false;
                };
                let Some(automaton) = state.sim.automaton_mut(rank) else {
                    return false;
                };
                (hook.supply)(automaton, outcome);
            }
        }
        true
    }

    /// The smallest crash set (fewest ranks, then lexicographically first) of
    /// [`CrashTiming::Pre`] whose run reaches a state violating `condition`, with the steps to
    /// the first such state. With pre-operation crashes every run is deterministic, so this
    /// replays the crash sets in order instead of searching; BFS alone returns a shortest path,
    /// whose crash set need not be the smallest (`{1,2,6}` where `{1,2,3}` fails the
    /// same way).
    pub fn smallest_pre_counterexample(
        &self,
        condition: fn(&Self, &TimedState<A>) -> bool,
    ) -> Option<(Vec<Rank>, Vec<TimedAction>)> {
        for set in crash_sets_of(&self.crashable, self.max_crashes) {
            let mut state = self.initial(&set, false);
            let mut actions = Vec::new();
            loop {
                if !condition(self, &state) {
                    return Some((set, actions));
                }
                if state.error.is_some() {
                    break;
                }
                let Some(time) = state.sim.next_time().filter(|&t| t <= self.horizon) else {
                    break;
                };
                let action = TimedAction::Step { time };
                actions.push(action);
                state = self.apply(&state, action)?;
            }
        }
        None
    }

    /// Whether nothing is left to happen.
    pub fn quiescent(state: &TimedState<A>) -> bool {
        state.sim.next_time().is_none() || state.error.is_some()
    }
}

/// What a process has done so far that a stopped process must not do again: its sends, its
/// deliveries and its completions, summed.
fn activity<V>(report: &Report<V>, rank: Rank) -> u64 {
    let sent: u64 = report.sent(rank).iter().map(|&n| u64::from(n)).sum();
    let completions = report.completions.iter().filter(|c| c.0 == rank).count() as u64;
    sent + u64::from(report.deliveries(rank)) + completions
}
impl<A> Model for TimedModel<A>
where
    A: Automaton + Send + Sync + 'static,
    A::Msg: Send + Sync,
    A::Config: Send + Sync + 'static,
{
    type State = TimedState<A>;
    type Action = TimedAction;

    fn init_states(&self) -> Vec<Self::State> {
        match self.timing {
            CrashTiming::Pre => crash_sets_of(&self.crashable, self.max_crashes)
                .iter()
                .map(|set| self.initial(set, false))
                .collect(),
            CrashTiming::Any => vec![self.initial(&[], false)],
        }
    }

    fn actions(&self, state: &Self::State, actions: &mut Vec<Self::Action>) {
        self.actions_stepping(state, actions, &mut Vec::new());
    }

    fn next_state(&self, state: &Self::State, action: Self::Action) -> Option<Self::State> {
        if !self.halt.admit() {
            return None;
        }
        self.apply(state, action)
    }

    fn format_action(&self, action: &Self::Action) -> String {
        match action {
            TimedAction::Step { time } => format!("t={time}: apply every event"),
            TimedAction::Crash { rank, time } => format!("rank {rank} crashes before t={time}"),
            TimedAction::Choose {
                rank,
                outcome,
                time,
            } => format!("rank {rank}'s draw at t={time} has outcome {outcome}"),
        }
    }

    fn properties(&self) -> Vec<Property<Self>> {
        self.properties
            .iter()
            .map(|p| match p.expectation {
                Expectation::Always => Property::always(p.name, p.condition),
                Expectation::Sometimes => Property::sometimes(p.name, p.condition),
            })
            .chain([Property::sometimes(HORIZON_CUT, cut_at_horizon::<A>)])
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corrected_tree::EVERY_VARIANT;
    use crate::CorrectedTreeSpec;
    use ftcoll::protocols::corrected_tree::StartMode;
    use ftcoll::topology::TreeKind;

    /// The builder's defaults are the documented ones, and each setter sets its own field.
    #[test]
    fn the_builder_sets_what_it_names_and_defaults_the_rest() {
        use ftcoll::protocols::corrected_tree::CorrectedTreeNode;
        let spec = CorrectedTreeSpec {
            tree: TreeKind::Binomial,
            order: ftcoll::topology::Order::Interleaved,
            correction: ftcoll::protocols::corrected_tree::CorrectionSpec::Checked,
            start: StartMode::Synchronized,
            procs: 5,
            logp: LogP::new(3, 2).unwrap(),
        };
        let config = spec.config().unwrap();
        let payload = config.payload;
        let build = || TimedModel::<CorrectedTreeNode>::builder(config.clone(), 5, payload, 77);
        let plain = build().build();
        assert_eq!(
            (plain.procs, plain.payload, plain.horizon),
            (5, payload, 77)
        );
        assert_eq!(plain.logp, LogP::default());
        assert_eq!(plain.max_crashes, 0);
        assert_eq!(plain.timing, CrashTiming::Any);
        assert_eq!(plain.crashable, vec![1, 2, 3, 4]);
        assert_eq!(plain.port_model, PortModel::DualPort);
        let set = build()
            .logp(spec.logp)
            .max_crashes(2)
            .timing(CrashTiming::Pre)
            .build();
        assert_eq!(
            (set.logp, set.max_crashes, set.timing),
            (spec.logp, 2, CrashTiming::Pre)
        );
    }

    /// The `Step` successor [`TimedModel::actions_stepping`] hands over (computed while finding
    /// the senders, into a spare state from another run) is the state `Step` itself gives,
    /// along runs of every correction variant with a crash during the operation.
    #[test]
    fn the_step_successor_found_with_the_senders_is_the_step() {
        let mut compared = 0;
        for correction in EVERY_VARIANT {
            let spec = CorrectedTreeSpec::interleaved(
                TreeKind::Lame(2),
                correction,
                StartMode::Synchronized,
                9,
            );
            let mut model = TimedModel::corrected_tree(&spec, 2, CrashTiming::Any).unwrap();
            model.crashes_before_sends_only = true;
            let mut state = model.initial(&[], false);
            let mut spares = vec![Box::new(model.initial(&[3], false))];
            let mut actions = Vec::new();
            loop {
                actions.clear();
                let stepped = model.actions_stepping(&state, &mut actions, &mut spares);
                let Some(&TimedAction::Step { time }) = actions.first() else {
                    break;
                };
                let expected = model.apply(&state, TimedAction::Step { time }).unwrap();
                if let Some(stepped) = stepped {
                    assert!(*stepped == expected, "{correction:?} at t={time}");
                    compared += 1;
                    spares.push(stepped);
                }
                // One crash, the first offered after t = 4, so the run continues with one.
                let crash = actions
                    .iter()
                    .find(|a| matches!(a, TimedAction::Crash { .. }));
                state = match crash {
                    Some(&crash) if state.crashes == 0 && time > 4 => {
                        model.apply(&state, crash).unwrap()
                    }
                    _ => expected,
                };
            }
        }
        assert!(compared >= 30, "only {compared} successors compared");
    }
}
