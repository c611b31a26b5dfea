//! # ftcoll-verify — exhaustive model checking of the ftcoll automata
//!
//! Two [`stateright`] models run the **unchanged** protocol automata of `ftcoll` (DESIGN §6):
//!
//! - [`TimedModel`]: the LogP driver's exact semantics ([`ftcoll_sim::Sim`]); the only
//!   nondeterminism is which non-root processes crash (at most `f`, crash-stop) and at which
//!   instant — before the operation ([`CrashTiming::Pre`]) or before any instant of it
//!   ([`CrashTiming::Any`]). Time strictly increases along every path and crashes are counted,
//!   so the state graph is acyclic and properties checked at quiescent states are sound.
//! - [`AsyncModel`]: any delivery order, timers firing at any moment, crashes at any moment,
//!   for protocols that claim timing independence.
//!
//! Properties, named as English phrases (CT §2.1, CG §II, DESIGN §6):
//! - *integrity*: every delivery is the root's payload;
//! - *no duplicates*: no process delivers twice;
//! - *non-faulty liveness*: at quiescence every live process has delivered;
//! - *termination*: the operation is quiescent by the horizon.
//!
//! Each is shown able to fail by a mutant in [`mutants`] (tests in `verify/tests/families/mutants.rs`), and
//! `sometimes` properties show the interesting states are reached.
//!
//! The timed model is searched by the depth-first search (`depth.rs`: depth first over the crash schedules, each state
//! visited once with nothing held per state: without choices its graph is a tree; the default),
//! by the layered search (`layered.rs`: layer by layer in the order of (instant, crashes), keeping only the layers in
//! progress) or by stateright's breadth-first search (models with choices: gossip targets),
//! see [`budget::Search`]; the asynchronous model by BFS, by [`fingerprints`] (depth first,
//! holding one 64-bit fingerprint per state seen) or by [`dpor`] (one run per trace).

#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![warn(unreachable_pub)]

pub mod asynchronous;
pub mod budget;
pub mod corrected_tree;
mod depth;
pub mod dpor;
pub mod fingerprints;
pub mod ftco;
pub mod gossip;
mod layered;
pub mod matrix;
pub mod mutants;
pub mod search;
pub mod timed;
pub mod transactions;

pub use asynchronous::AsyncModel;
pub use budget::{Budget, Halt, Stop};
/// The Corrected Tree family's specification, at the crate root for the checks that take it.
pub use corrected_tree::CorrectedTreeSpec;
pub use timed::{CrashTiming, TimedModel, TimedModelBuilder};

use ftcoll_sim::Report;

/// Names of the four properties, shared by both models and the matrix.
pub mod property {
    /// Every delivery is the root's payload.
    pub const INTEGRITY: &str = "integrity: every delivery is the root's payload";
    /// No process delivers twice.
    pub const NO_DUPLICATES: &str = "no duplicates: no process delivers twice";
    /// At quiescence every live process delivered.
    pub const LIVENESS: &str = "non-faulty liveness: at quiescence every live process delivered";
    /// Quiescent by the horizon.
    pub const TERMINATION: &str = "termination: quiescent by the horizon";
    /// Reachability: some process is colored by correction.
    pub const SOMETIMES_CORRECTED: &str = "sometimes: a process is colored by correction";
    /// Reachability: some run reaches quiescence.
    pub const SOMETIMES_QUIESCENT: &str = "sometimes: the operation becomes quiescent";
    /// The broadcast properties every cell decides, in matrix column order, with their short
    /// names.
    pub const COLUMNS: [Column; 4] = [
        Column::new(INTEGRITY, "integrity"),
        Column::new(NO_DUPLICATES, "no duplicates"),
        Column::new(LIVENESS, "liveness"),
        Column::new(TERMINATION, "termination"),
    ];
    /// The statements of [`COLUMNS`].
    pub const ALL: [&str; 4] = statements(COLUMNS);

    pub use crate::corrected_tree::{
        CHECKED_GAP_LATENCY, CHECKED_LATENCY, CHECKED_MESSAGES, C_NODES_SILENT, DELAYED_MESSAGES,
        FAILPROOF_FAULT_FREE_NO_SOS, FAILPROOF_NO_SOS, FAILPROOF_WAITS, OPTIMIZED_MESSAGES, RULES,
        RULE_COLUMNS, SEND_BOUND, STOPPED_SILENT,
    };
    pub use crate::gossip::{CORRECTION_REACH, OCG_WORK};

    /// A property as a family declares it for the matrix: the statement every verdict names it
    /// by (an English phrase with its source) and the short name a matrix cell shows.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Column {
        /// The statement, e.g. [`INTEGRITY`].
        pub property: &'static str,
        /// The short name, e.g. "integrity".
        pub short: &'static str,
    }

    impl Column {
        /// The column of `property`, shown as `short`.
        pub const fn new(property: &'static str, short: &'static str) -> Self {
            Self { property, short }
        }
    }

    /// The statements of `columns`, in order (a family's list of properties, derived from its
    /// columns so the two cannot disagree).
    pub const fn statements<const N: usize>(columns: [Column; N]) -> [&'static str; N] {
        let mut out = [""; N];
        let mut i = 0;
        while i < N {
            out[i] = columns[i].property;
            i += 1;
        }
        out
    }

    /// The short name of `property` among `columns` ("?" if it is not there).
    pub fn short(columns: &[Column], property: &str) -> &'static str {
        columns
            .iter()
            .find(|c| c.property == property)
            .map_or("?", |c| c.short)
    }
}

/// The property predicates on a run's metrics (shared by both models).
pub mod predicates {
    use super::*;

    /// Every recorded delivery carries `payload`.
    pub fn integrity<V: PartialEq>(report: &Report<V>, payload: &V) -> bool {
        (0..report.procs).all(|r| report.delivered_value(r).is_none_or(|v| v == payload))
    }

    /// Nobody delivered twice.
    pub fn no_duplicates<V>(report: &Report<V>) -> bool {
        report.duplicates() == 0
    }

    /// Every process that never crashes delivered.
    pub fn all_live_delivered<V>(report: &Report<V>) -> bool {
        report.undelivered() == 0
    }

    /// Some non-root process was first colored by a non-dissemination message.
    pub fn some_corrected<V>(report: &Report<V>) -> bool {
        (1..report.procs).any(|r| report.delivered_at(r).is_some() && !report.by_dissemination(r))
    }
}

/// Which model to check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ModelKind {
    /// [`TimedModel`].
    Timed,
    /// [`AsyncModel`].
    Async,
}

/// The outcome of checking one protocol under one fault bound.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckResult {
    /// Properties violated (in [`property::ALL`] order), each with its shortest counterexample:
    /// the actions, human-readable, and for the timed model the replayed message trace. A
    /// violation is definite even when a budget stopped the search.
    pub violations: Vec<Violation>,
    /// Unique states explored (every one of them was checked against every property).
    pub states: usize,
    /// Wall time.
    pub seconds: f64,
    /// `sometimes` properties that were reached.
    pub reached: Vec<&'static str>,
    /// The budget that stopped the search before it covered the whole state graph, if one did.
    pub stopped: Option<Stop>,
    /// Every `always` property the check decided, in the order its family declares them
    /// ([`property::ALL`] for a broadcast).
    pub properties: Vec<&'static str>,
    /// Properties about quiescent states (liveness) that no counterexample violates but that
    /// runs cut at the horizon leave undecided ([`timed::HORIZON_CUT`]): empty when no run
    /// reached the horizon.
    pub cut_by_horizon: Vec<&'static str>,
}

/// One violated property.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The property.
    pub property: &'static str,
    /// The counterexample, one line per step.
    pub trace: Vec<String>,
}

/// The overall verdict of a check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// The whole state graph was explored and no property has a counterexample.
    Holds,
    /// Some property has a counterexample, and every property is decided: the search was
    /// complete, or every property of [`property::ALL`] has a counterexample.
    Violated,
    /// A budget stopped the search while some property had no counterexample: those are only
    /// "not violated within [`CheckResult::states`] states". Others may be definitely violated.
    /// Also when runs cut at the horizon leave a liveness property undecided
    /// ([`CheckResult::cut_by_horizon`]).
    Partial,
}

impl Verdict {
    /// `holds`, `violated` or `partial`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Holds => "holds",
            Self::Violated => "violated",
            Self::Partial => "partial",
        }
    }
}

impl CheckResult {
    /// Whether `property` has a counterexample (definite, budget or not).
    pub fn violated(&self, property: &str) -> bool {
        self.violations.iter().any(|v| v.property == property)
    }

    /// Whether `property` holds: the search was complete, found no counterexample, and no run
    /// cut at the horizon leaves it undecided.
    pub fn holds(&self, property: &str) -> bool {
        self.stopped.is_none()
            && !self.violated(property)
            && !self.cut_by_horizon.contains(&property)
    }

    /// The properties of [`Self::properties`] a budget left undecided: no counterexample
    /// within [`Self::states`] states, but the search stopped early. Empty for a complete
    /// search.
    pub fn unresolved(&self) -> Vec<&'static str> {
        if self.stopped.is_none() {
            return self.cut_by_horizon.clone();
        }
        self.properties
            .iter()
            .copied()
            .filter(|p| !self.violated(p))
            .collect()
    }

    /// The overall verdict.
    pub fn verdict(&self) -> Verdict {
        if !self.unresolved().is_empty() {
            Verdict::Partial
        } else if self.violations.is_empty() {
            Verdict::Holds
        } else {
            Verdict::Violated
        }
    }
}

/// Why a check could not run.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CheckError {
    /// The protocol cannot be built (tree kind and process count).
    Topology(ftcoll::topology::TopologyError),
    /// The initial states alone do not fit the budget `by` ([`Stop::States`]: more initial
    /// states than `--max-states`; [`Stop::Memory`]: they need more than the memory budget, see
    /// [`budget::initial_bytes`]). Nothing was allocated.
    TooManyInitialStates {
        /// Initial states of the model.
        initial: u64,
        /// The smallest budget that fits them: states for [`Stop::States`], bytes for
        /// [`Stop::Memory`].
        needed: u64,
        /// The budget that is too small.
        by: Stop,
    },
    /// A checker thread panicked (a bug in a model or an automaton; the panic message was
    /// printed on stderr).
    CheckerFailed,
    /// The asynchronous model's depth-first search refused the protocol before any work
    /// ([`dpor::Refusal`]: synchronized correction reads the clock).
    Refused(dpor::Refusal),
}

impl core::fmt::Display for CheckError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Topology(e) => write!(f, "{e}"),
            Self::TooManyInitialStates {
                initial,
                needed,
                by,
            } => write!(
                f,
                "the {by} budget cannot hold the {initial} initial states (it needs {needed})"
            ),
            Self::CheckerFailed => f.write_str("a checker thread panicked"),
            Self::Refused(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for CheckError {}

impl From<ftcoll::topology::TopologyError> for CheckError {
    fn from(e: ftcoll::topology::TopologyError) -> Self {
        Self::Topology(e)
    }
}

/// Initial states of a model, computed without building them: every non-root crash set of at
/// most `crashes` ranks for the timed model with [`CrashTiming::Pre`], else one. Saturates.
pub fn initial_states(procs: u32, crashes: u32, timing: CrashTiming, model: ModelKind) -> u64 {
    if model == ModelKind::Async || timing == CrashTiming::Any {
        return 1;
    }
    let n = u128::from(procs.saturating_sub(1));
    let (mut total, mut binomial) = (1u128, 1u128);
    for k in 0..u128::from(crashes).min(n) {
        binomial = match binomial.checked_mul(n - k) {
            Some(b) => b / (k + 1),
            None => return u64::MAX,
        };
        total = total.saturating_add(binomial);
    }
    u64::try_from(total).unwrap_or(u64::MAX)
}

/// Refuses a check whose `initial` states alone exceed `budget` (before anything is
/// allocated): more than `--max-states`, or more bytes than the memory budget.
pub fn admit_initial(
    initial: u64,
    procs: u32,
    model: ModelKind,
    budget: &Budget,
) -> Result<(), CheckError> {
    if budget.max_states.is_some_and(|n| initial > n) {
        return Err(CheckError::TooManyInitialStates {
            initial,
            needed: initial,
            by: Stop::States,
        });
    }
    let needed = budget::initial_bytes(model, procs, initial);
    if budget.memory.is_some_and(|m| needed > m) {
        return Err(CheckError::TooManyInitialStates {
            initial,
            needed,
            by: Stop::Memory,
        });
    }
    Ok(())
}

/// Searches the model of `spec` with at most `crashes` crashes and returns every property's
/// verdict, each counterexample minimized. No budget: the search
/// covers the whole state graph.
pub fn check(
    spec: &CorrectedTreeSpec,
    crashes: u32,
    timing: CrashTiming,
    model: ModelKind,
) -> Result<CheckResult, ftcoll::topology::TopologyError> {
    match check_within(spec, crashes, timing, model, &Budget::UNLIMITED, None) {
        Ok(result) => Ok(result),
        Err(CheckError::Topology(e)) => Err(e),
        // No cap, so no TooManyInitialStates; a checker panic stays a panic here, as before.
        Err(e) => panic!("{e}"),
    }
}

/// Progress of a running check: unique states so far and the time since it started.
pub type Progress<'a> = &'a mut dyn FnMut(usize, std::time::Duration);

/// [`check`] within `budget`: the search stops when a limit is reached and the result says
/// which ([`CheckResult::stopped`], [`CheckResult::verdict`]). If the initial states alone
/// exceed the state cap, nothing is allocated and [`CheckError::TooManyInitialStates`] is
/// returned. `progress` is called about once a second while the search runs.
pub fn check_within(
    spec: &CorrectedTreeSpec,
    crashes: u32,
    timing: CrashTiming,
    model: ModelKind,
    budget: &Budget,
    progress: Option<Progress<'_>>,
) -> Result<CheckResult, CheckError> {
    use stateright::Checker;
    let start = std::time::Instant::now();
    let initial = initial_states(spec.procs, crashes, timing, model);
    admit_initial(initial, spec.procs, model, budget)?;
    let cap = budget.state_cap(budget::bytes_per_state(model));
    match model {
        ModelKind::Timed => {
            let model = TimedModel::corrected_tree(spec, crashes, timing)?;
            check_timed(model, initial, budget, start, progress)
        }
        ModelKind::Async if budget.search == budget::Search::Dpor => {
            let model = AsyncModel::corrected_tree(spec, crashes)?;
            if let Some(cap) = budget.max_states {
                model.halt.cap(cap.saturating_sub(initial), Stop::States);
            }
            let explored = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                dpor::explore(&model, budget, start, progress)
            }))
            .map_err(|_| CheckError::CheckerFailed)?
            .map_err(CheckError::Refused)?;
            let stopped = model.halt.reason();
            model.halt.release();
            Ok(async_result(
                |name| explored.discoveries.get(name).cloned(),
                explored.events,
                stopped,
                start,
            ))
        }
        ModelKind::Async if budget.search == budget::Search::Transactions => {
            let mut model = AsyncModel::corrected_tree(spec, crashes)?;
            model.crashes_at_events_only = budget.crashes_at_events_only;
            let halt = model.halt.clone();
            let model = transactions::TransactionModel::new(model).map_err(CheckError::Refused)?;
            by_fingerprints(&model, &halt, initial, budget, start, progress, |steps| {
                steps
                    .iter()
                    .flat_map(|step| step.actions.iter())
                    .map(|a| format!("{a:?}"))
                    .collect()
            })
        }
        ModelKind::Async if budget.search == budget::Search::Fingerprints => {
            let mut model = AsyncModel::corrected_tree(spec, crashes)?;
            model.crashes_at_events_only = budget.crashes_at_events_only;
            let halt = model.halt.clone();
            by_fingerprints(&model, &halt, initial, budget, start, progress, |actions| {
                actions.iter().map(|a| format!("{a:?}")).collect()
            })
        }
        ModelKind::Async => {
            let mut model = AsyncModel::corrected_tree(spec, crashes)?;
            model.crashes_at_events_only = budget.crashes_at_events_only;
            let halt = model.halt.clone();
            let checker = run_budgeted(model, &halt, initial, cap, budget, start, progress)?;
            let stopped = halt.reason();
            halt.release();
            Ok(async_result(
                |name| {
                    checker.discovery(name).map(|path| {
                        path.into_actions()
                            .iter()
                            .map(|a| format!("{a:?}"))
                            .collect()
                    })
                },
                checker.unique_state_count() as u64,
                stopped,
                start,
            ))
        }
    }
}

/// An asynchronous check searched by fingerprints ([`fingerprints::explore`]) within `budget`;
/// `trace` writes a discovery's actions as lines.
fn by_fingerprints<M>(
    model: &M,
    halt: &Halt,
    initial: u64,
    budget: &Budget,
    start: std::time::Instant,
    progress: Option<Progress<'_>>,
    trace: impl Fn(&[M::Action]) -> Vec<String>,
) -> Result<CheckResult, CheckError>
where
    M: fingerprints::Fingerprints + Sync,
    M::State: std::hash::Hash + Send + Sync,
    M::Action: Clone + Send + Sync,
{
    if let Some(cap) = budget.max_states {
        halt.cap(cap.saturating_sub(initial), Stop::States);
    }
    // Memory is watched as resident bytes: the set grows with unique states, not with the
    // successors a cap counts.
    let explored = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        fingerprints::explore(model, halt, budget, start, progress)
    }))
    .map_err(|_| CheckError::CheckerFailed)?
    .map_err(|_| CheckError::CheckerFailed)?;
    let stopped = halt.reason();
    halt.release();
    Ok(async_result(
        |name| {
            explored
                .discoveries
                .get(name)
                .map(|(_, actions)| trace(actions))
        },
        explored.states,
        stopped,
        start,
    ))
}

/// The result of an asynchronous check from its engine's discoveries (`trace(name)`: the
/// actions that show the property, if any were found), its count and what stopped it.
fn async_result(
    trace: impl Fn(&'static str) -> Option<Vec<String>>,
    states: u64,
    stopped: Option<Stop>,
    start: std::time::Instant,
) -> CheckResult {
    let violations = property::ALL
        .iter()
        .filter_map(|&name| {
            trace(name).map(|trace| Violation {
                property: name,
                trace,
            })
        })
        .collect();
    let reached = [property::SOMETIMES_QUIESCENT]
        .into_iter()
        .filter(|&n| trace(n).is_some())
        .collect();
    CheckResult {
        violations,
        states: usize::try_from(states).unwrap_or(usize::MAX),
        seconds: start.elapsed().as_secs_f64(),
        reached,
        stopped,
        properties: property::ALL.to_vec(),
        cut_by_horizon: Vec::new(),
    }
}

/// Checks a timed model of any automaton within `budget`: the protocol-neutral core of
/// [`check_within`] and [`ftco::check`]. `initial` is the model's number of initial states
/// (for the state cap); `start` is when the check began.
pub fn check_timed<A>(
    model: TimedModel<A>,
    initial: u64,
    budget: &Budget,
    start: std::time::Instant,
    progress: Option<Progress<'_>>,
) -> Result<CheckResult, CheckError>
where
    A: timed::Checkable,
    A::Config: Clone,
{
    let mut model = model;
    model.crashes_at_events_only |= budget.crashes_at_events_only;
    model.crashes_before_sends_only |= budget.crashes_before_sends_only;
    let halt = model.halt.clone();
    let search = match budget.search {
        budget::Search::Auto
        | budget::Search::Dpor
        | budget::Search::Fingerprints
        | budget::Search::Transactions
            if model.choices.is_some() =>
        {
            budget::Search::Bfs
        }
        budget::Search::Auto
        | budget::Search::Dpor
        | budget::Search::Fingerprints
        | budget::Search::Transactions => budget::Search::Depth,
        chosen => chosen,
    };
    if search == budget::Search::Bfs {
        let cap = budget.state_cap(budget::bytes_per_state(ModelKind::Timed));
        let checker = run_budgeted(model.clone(), &halt, initial, cap, budget, start, progress)?;
        let stopped = halt.reason();
        halt.release();
        let mut result = timed_result(&model, &checker, start);
        result.stopped = stopped;
        return Ok(result);
    }
    let depth_first = search == budget::Search::Depth;
    // The depth-first search holds no states: only a state budget caps it (the resident memory
    // is still watched).
    let cap = if depth_first {
        budget.max_states.map(|n| (n, Stop::States))
    } else {
        budget.state_cap(budget::LAYERED_BYTES_PER_STATE)
    };
    if let Some((cap, by)) = cap {
        halt.cap(cap.saturating_sub(initial), by);
    }
    let explored = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if depth_first {
            depth::explore(&model, budget, start, progress)
        } else {
            layered::explore(&model, budget, start, progress)
        }
    }))
    .map_err(|_| CheckError::CheckerFailed)?;
    let stopped = halt.reason();
    halt.release();
    let discovery = |name: &'static str| explored.discoveries.get(name).cloned();
    let mut result = discoveries_result(&model, discovery, explored.unique, start);
    result.stopped = stopped;
    Ok(result)
}

/// Checks any timed model within `budget`: the entry point for a protocol of your own. Build
/// the model with [`TimedModel::builder`] (your automaton's configuration, `P`, the payload
/// integrity compares with and a horizon containing every timer your protocol sets; then LogP,
/// `f` and the crash timing by name), add your own [`timed::TimedProperty`]s to `model.properties`, and read
/// the verdict of each property, with a shortest counterexample, from the result.
/// `verify/examples/check_a_variant.rs` does this for a user-written broadcast.
///
/// The automaton `A`, its message type `A::Msg` and its value type `A::Value` must implement
/// serde's `Serialize` and `Deserialize` (and be `Send + Sync`; see [`timed::Checkable`]): the
/// layered search holds the states it has yet to explore, messages in flight included, as
/// bytes. Add `serde = { version = "1", features = ["derive"] }` to your `Cargo.toml` and derive
/// both traits, as the example does (primitive values such as `u64` already have them).
pub fn check_model<A>(model: TimedModel<A>, budget: &Budget) -> Result<CheckResult, CheckError>
where
    A: timed::Checkable,
    A::Config: Clone,
{
    let start = std::time::Instant::now();
    let crashable = model.crashable.len() as u32;
    let initial = initial_states(
        crashable + 1,
        model.max_crashes,
        model.timing,
        ModelKind::Timed,
    );
    admit_initial(initial, model.procs, ModelKind::Timed, budget)?;
    check_timed(model, initial, budget, start, None)
}

/// How often a budgeted search looks at the clock and the resident memory.
const POLL: std::time::Duration = std::time::Duration::from_millis(10);

/// Runs stateright's BFS (on [`Budget::threads`] threads) on `model` until it finishes or `budget` (whose state cap
/// is `cap`) halts it through `halt` (which `model` must share). The halt is left set: read its
/// reason, then release it before rebuilding counterexample paths.
fn run_budgeted<M>(
    model: M,
    halt: &Halt,
    initial: u64,
    cap: Option<(u64, Stop)>,
    budget: &Budget,
    start: std::time::Instant,
    progress: Option<Progress<'_>>,
) -> Result<impl stateright::Checker<M>, CheckError>
where
    M: stateright::Model + Send + Sync + 'static,
    M::State: Clone + PartialEq + core::hash::Hash + Send + Sync + 'static,
    M::Action: Clone + PartialEq,
{
    use stateright::Checker;
    if let Some((cap, by)) = cap {
        halt.cap(cap.saturating_sub(initial), by);
    }
    let threads = budget.threads.max(1) as usize;
    let mut checker = model.checker().threads(threads).spawn_bfs();
    let handles = checker.handles();
    if !budget.is_limited() && progress.is_none() {
        let mut ok = true;
        for h in handles {
            ok &= h.join().is_ok();
        }
        return if ok {
            Ok(checker)
        } else {
            Err(CheckError::CheckerFailed)
        };
    }
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut ok = true;
        for h in handles {
            ok &= h.join().is_ok();
        }
        let _ = done_tx.send(ok);
    });
    let mut watch = budget::Watch::new(budget, start, progress);
    let ok = loop {
        match done_rx.recv_timeout(POLL) {
            Ok(ok) => break ok,
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break false,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
        }
        watch.look(halt, || checker.unique_state_count());
    };
    if ok {
        Ok(checker)
    } else {
        Err(CheckError::CheckerFailed)
    }
}

/// Collects the verdicts of a finished stateright check of a timed model, replaying each
/// counterexample with tracing ([`CheckResult::stopped`] is left `None`: the caller knows
/// whether a budget stopped it).
pub fn timed_result<A, C>(
    model: &TimedModel<A>,
    checker: &C,
    start: std::time::Instant,
) -> CheckResult
where
    A: timed::Checkable,
    C: stateright::Checker<TimedModel<A>>,
{
    let discovery = |name: &'static str| {
        checker.discovery(name).map(|path| {
            let steps = path.into_vec();
            let initial: Vec<ftcoll::Rank> = steps
                .first()
                .map(|(s, _)| {
                    model
                        .crashable
                        .iter()
                        .copied()
                        .filter(|&r| s.sim.has_crashed(r))
                        .collect()
                })
                .unwrap_or_default();
            let actions: Vec<timed::TimedAction> = steps.iter().filter_map(|(_, a)| *a).collect();
            (initial, actions)
        })
    };
    discoveries_result(model, discovery, checker.unique_state_count(), start)
}

/// The verdicts of a timed check from its discoveries (`discovery(name)`: the crashes before
/// the operation and the actions that reach the property's first counterexample or example),
/// each counterexample minimized and replayed with tracing. Shared by both search engines.
fn discoveries_result<A>(
    model: &TimedModel<A>,
    discovery: impl Fn(&'static str) -> Option<(Vec<ftcoll::Rank>, Vec<timed::TimedAction>)>,
    states: usize,
    start: std::time::Instant,
) -> CheckResult
where
    A: timed::Checkable,
{
    let mut violations = Vec::new();
    let properties = model.always_properties();
    for &name in &properties {
        if let Some((mut initial, mut actions)) = discovery(name) {
            // Pre-operation crashes: report the smallest crash set that fails, not merely the
            // shortest path BFS found.
            if model.timing == CrashTiming::Pre && model.choices.is_none() {
                let condition = model.properties.iter().find(|p| p.name == name);
                if let Some((set, path)) =
                    condition.and_then(|p| model.smallest_pre_counterexample(p.condition))
                {
                    initial = set;
                    actions = path;
                }
            }
            let during: Vec<(ftcoll::Rank, ftcoll::Time)> = actions
                .iter()
                .filter_map(|a| match *a {
                    timed::TimedAction::Crash { rank, time } => Some((rank, time)),
                    _ => None,
                })
                .collect();
            // Crashes at any instant: a search gives a shortest or an earliest path, not the
            // fewest crashes at the earliest instants; minimize it the way `search` does (kept
            // only while the same property still fails).
            // (Not with choices left to the checker, e.g. gossip targets: a schedule of crashes
            // alone does not say them.)
            if model.timing == CrashTiming::Any && model.choices.is_none() {
                if let Some(p) = model.properties.iter().find(|p| p.name == name) {
                    if let Some((pre, d)) = model.minimized(p.condition, &initial, &during) {
                        actions = model.schedule(&pre, &d);
                        initial = pre;
                    }
                }
            }
            let (events, report) = model.replay(&initial, &actions);
            let mut trace = Vec::new();
            if !initial.is_empty() {
                trace.push(format!("before the operation: ranks {initial:?} crash"));
            }
            trace.extend(timeline(
                &model.vocabulary,
                &notes(&actions),
                &events,
                &report,
            ));
            trace.push(end_line(&model.vocabulary, &report));
            violations.push(Violation {
                property: name,
                trace,
            });
        }
    }
    let reached = model
        .sometimes_properties()
        .into_iter()
        .filter(|&n| discovery(n).is_some())
        .collect();
    let cut_by_horizon = if discovery(timed::HORIZON_CUT).is_some() {
        model
            .properties
            .iter()
            .filter(|p| p.at_quiescence && !violations.iter().any(|v| v.property == p.name))
            .map(|p| p.name)
            .collect()
    } else {
        Vec::new()
    };
    CheckResult {
        violations,
        states,
        seconds: start.elapsed().as_secs_f64(),
        reached,
        stopped: None,
        properties,
        cut_by_horizon,
    }
}

/// The model's own actions a trace shows, at their instants: crashes during the operation and
/// the outcomes of choices left to the checker.
pub fn notes(actions: &[timed::TimedAction]) -> Vec<(ftcoll::Time, String)> {
    actions
        .iter()
        .filter_map(|a| match *a {
            timed::TimedAction::Crash { rank, time } => {
                Some((time, format!("t={time}: rank {rank} crashes")))
            }
            timed::TimedAction::Choose {
                rank,
                outcome,
                time,
            } => Some((
                time,
                format!("t={time}: rank {rank}'s next random draw has outcome {outcome}"),
            )),
            timed::TimedAction::Step { .. } => None,
        })
        .collect()
}

/// A run as a timeline a person can follow: one line per happening, in the
/// order of the instant it begins — the model's own actions (`notes`, see [`notes`]: crashes
/// during the operation, choices), a message at the instant its send starts (with the instant it is received or
/// lost), a first delivery or a completion, an ignored input — so every message appears after
/// whatever made its sender send it. Happenings of one instant: the notes, then deliveries and
/// completions, then messages and ignored inputs in the driver's order.
pub fn timeline<V: core::fmt::Debug>(
    words: &timed::Vocabulary,
    notes: &[(ftcoll::Time, String)],
    events: &[ftcoll_sim::TraceEvent],
    report: &Report<V>,
) -> Vec<String> {
    use ftcoll_sim::TraceEvent;
    let mut lines: Vec<(ftcoll::Time, u8, usize, String)> = Vec::new();
    for (i, (time, note)) in notes.iter().enumerate() {
        lines.push((*time, 0, i, note.clone()));
    }
    if words.completes {
        for (i, (rank, time, value)) in report.completions.iter().enumerate() {
            lines.push((
                *time,
                1,
                i,
                format!("t={time}: rank {rank} completes: {value:?}"),
            ));
        }
    } else {
        for (rank, at) in (0..report.procs).zip(report.delivery_times()) {
            if let Some(time) = at {
                let how = if rank == 0 {
                    "its own payload (the root)".to_string()
                } else if report.by_dissemination(rank) {
                    format!("colored by a {}", words.messages[0].to_lowercase())
                } else {
                    format!("colored by a {}", words.messages[1].to_lowercase())
                };
                lines.push((
                    time,
                    1,
                    rank as usize,
                    format!("t={time}: rank {rank} delivers, {how}"),
                ));
            }
        }
    }
    for (i, event) in events.iter().enumerate() {
        let at = match event {
            TraceEvent::Message { sent, .. } | TraceEvent::Lost { sent, .. } => *sent,
            TraceEvent::Ignored { at, .. } => *at,
            // `TraceEvent` is `#[non_exhaustive]`: a later kind goes at the end of the run.
            _ => report.last_activity,
        };
        lines.push((at, 2, i, describe_in(event, words)));
    }
    lines.sort_by_key(|&(time, kind, i, _)| (time, kind, i));
    lines.into_iter().map(|(.., line)| line).collect()
}

/// The last line of a trace: when the run ended and who was left without a delivery (or a
/// completion).
pub fn end_line<V: core::fmt::Debug>(words: &timed::Vocabulary, report: &Report<V>) -> String {
    if words.completes {
        let incomplete: Vec<u32> = (0..report.procs)
            .filter(|&r| report.is_live(r) && !report.completions.iter().any(|c| c.0 == r))
            .collect();
        let completions: Vec<String> = report
            .completions
            .iter()
            .map(|(r, t, v)| format!("rank {r} at t={t}: {v:?}"))
            .collect();
        format!(
            "end: t={}, completions: [{}], live processes without a completion: {incomplete:?}",
            report.last_activity,
            completions.join("; ")
        )
    } else {
        let undelivered: Vec<u32> = (0..report.procs)
            .filter(|&r| report.is_live(r) && report.delivered_at(r).is_none())
            .collect();
        format!(
            "end: t={}, live processes that never delivered: {undelivered:?}, duplicate deliveries: {}",
            report.last_activity,
            report.duplicates()
        )
    }
}

/// One trace line, in a broadcast's words.
pub fn describe(event: &ftcoll_sim::TraceEvent) -> String {
    describe_in(event, &timed::Vocabulary::BROADCAST)
}

/// One trace line, naming messages in `words`.
pub fn describe_in(event: &ftcoll_sim::TraceEvent, words: &timed::Vocabulary) -> String {
    use ftcoll::automaton::Phase;
    use ftcoll_sim::TraceEvent;
    let name = |phase: &Phase| match phase {
        Phase::Dissemination => words.messages[0],
        Phase::Correction => words.messages[1],
        Phase::Acknowledgment => words.messages[2],
        Phase::Liveness => words.messages[3],
    };
    match event {
        TraceEvent::Message {
            from,
            to,
            sent,
            received,
            phase,
        } => {
            format!("t={sent}..{received}: {} {from} -> {to}", name(phase))
        }
        TraceEvent::Lost {
            from,
            to,
            sent,
            at,
            phase,
        } => {
            format!(
                "t={sent}..{at}: {} {from} -> {to} lost (receiver crashed)",
                name(phase)
            )
        }
        TraceEvent::Ignored { rank, at, reason } => {
            format!("t={at}: rank {rank} ignores a message: {reason}")
        }
        // `TraceEvent` is `#[non_exhaustive]`: an event kind added later is shown as recorded.
        other => format!("{other:?}"),
    }
}
