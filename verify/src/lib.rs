//! # ftcoll-verify — exhaustive model checking of the ftcoll automata
//!
//! Two [`stateright`] models run the **unchanged** protocol automata of `ftcoll` (DESIGN §6):
//!
//! - [`TimedModel`]: the LogP driver's exact semantics ([`ftcoll::sim::Sim`]); the only
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
//! Each is shown able to fail by a mutant in [`mutants`] (tests in `tests/mutants.rs`), and
//! `sometimes` properties show the interesting states are reached.

pub mod asynchronous;
pub mod matrix;
pub mod mutants;
pub mod timed;

pub use asynchronous::AsyncModel;
pub use timed::{CrashTiming, TimedModel};

use ftcoll::protocols::corrected_tree::{CorrectedTreeConfig, CorrectionSpec, StartMode};
use ftcoll::sim::Report;
use ftcoll::topology::{LogP, Order, Tree, TreeKind};

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
    /// All safety/liveness properties, in matrix column order.
    pub const ALL: [&str; 4] = [INTEGRITY, NO_DUPLICATES, LIVENESS, TERMINATION];

    /// Short column names for [`ALL`].
    pub const SHORT: [&str; 4] = ["integrity", "no duplicates", "liveness", "termination"];
}

/// A Corrected Tree broadcast to check: everything but the fault pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ProtocolSpec {
    /// Tree kind.
    pub tree: TreeKind,
    /// Numbering.
    pub order: Order,
    /// Correction variant.
    pub correction: CorrectionSpec,
    /// Synchronized or overlapped correction.
    pub start: StartMode,
    /// `P`.
    pub procs: u32,
    /// `L`, `o`.
    pub logp: LogP,
}

impl ProtocolSpec {
    /// The protocol configuration.
    pub fn config(&self) -> Result<CorrectedTreeConfig, ftcoll::topology::TopologyError> {
        let tree = Tree::new(self.tree, self.order, u64::from(self.procs), self.logp)?;
        Ok(self.correction.config(tree, self.start))
    }

    /// A one-line name: `lame:2 interleaved checked sync P=8 L=2 o=1`.
    pub fn name(&self) -> String {
        format!(
            "{} {} {} {} P={} L={} o={}",
            self.tree,
            self.order,
            self.correction,
            self.start,
            self.procs,
            self.logp.latency(),
            self.logp.overhead()
        )
    }
}

/// The property predicates on a run's metrics (shared by both models).
pub mod predicates {
    use super::*;

    /// Every recorded delivery carries `payload`.
    pub fn integrity<V: PartialEq>(report: &Report<V>, payload: &V) -> bool {
        report
            .delivered_value
            .iter()
            .all(|v| v.as_ref().is_none_or(|v| v == payload))
    }

    /// Nobody delivered twice.
    pub fn no_duplicates<V>(report: &Report<V>) -> bool {
        report.deliveries.iter().all(|&d| d <= 1)
    }

    /// Every process that never crashes delivered.
    pub fn all_live_delivered<V>(report: &Report<V>) -> bool {
        report.undelivered() == 0
    }

    /// Some non-root process was first colored by a non-dissemination message.
    pub fn some_corrected<V>(report: &Report<V>) -> bool {
        (1..report.procs as usize)
            .any(|r| report.delivered_at[r].is_some() && !report.by_dissemination[r])
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
    /// the actions, human-readable, and for the timed model the replayed message trace.
    pub violations: Vec<Violation>,
    /// Unique states explored.
    pub states: usize,
    /// Wall time.
    pub seconds: f64,
    /// `sometimes` properties that were reached.
    pub reached: Vec<&'static str>,
}

/// One violated property.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The property.
    pub property: &'static str,
    /// The counterexample, one line per step.
    pub trace: Vec<String>,
}

impl CheckResult {
    /// Whether `property` holds.
    pub fn holds(&self, property: &str) -> bool {
        !self.violations.iter().any(|v| v.property == property)
    }
}

/// Runs a BFS over the model of `spec` with at most `crashes` crashes and returns every
/// property's verdict. BFS makes every counterexample a shortest one.
pub fn check(
    spec: &ProtocolSpec,
    crashes: u32,
    timing: CrashTiming,
    model: ModelKind,
) -> Result<CheckResult, ftcoll::topology::TopologyError> {
    use stateright::{Checker, Model};
    let start = std::time::Instant::now();
    match model {
        ModelKind::Timed => {
            let model = TimedModel::corrected_tree(spec, crashes, timing)?;
            let checker = model.clone().checker().spawn_bfs().join();
            Ok(timed_result(&model, &checker, start))
        }
        ModelKind::Async => {
            let model = AsyncModel::corrected_tree(spec, crashes)?;
            let checker = model.clone().checker().spawn_bfs().join();
            let mut violations = Vec::new();
            for name in property::ALL {
                if let Some(path) = checker.discovery(name) {
                    let trace = path
                        .into_actions()
                        .iter()
                        .map(|a| format!("{a:?}"))
                        .collect();
                    violations.push(Violation {
                        property: name,
                        trace,
                    });
                }
            }
            let reached = [property::SOMETIMES_QUIESCENT]
                .into_iter()
                .filter(|n| checker.discovery(n).is_some())
                .collect();
            Ok(CheckResult {
                violations,
                states: checker.unique_state_count(),
                seconds: start.elapsed().as_secs_f64(),
                reached,
            })
        }
    }
}

/// Collects the verdicts of a finished timed check, replaying each counterexample with tracing.
pub fn timed_result<A, C>(
    model: &TimedModel<A>,
    checker: &C,
    start: std::time::Instant,
) -> CheckResult
where
    A: ftcoll::automaton::Automaton + Send + Sync + 'static,
    A::Msg: Send + Sync,
    A::Config: Send + Sync + 'static,
    C: stateright::Checker<TimedModel<A>>,
{
    let mut violations = Vec::new();
    for name in property::ALL {
        if let Some(path) = checker.discovery(name) {
            let steps = path.into_vec();
            let initial: Vec<ftcoll::Rank> = steps
                .first()
                .map(|(s, _)| (1..model.procs).filter(|&r| s.sim.has_crashed(r)).collect())
                .unwrap_or_default();
            let actions: Vec<timed::TimedAction> = steps.iter().filter_map(|(_, a)| *a).collect();
            let (events, report) = model.replay(&initial, &actions);
            let mut trace = Vec::new();
            if !initial.is_empty() {
                trace.push(format!("before the operation: ranks {initial:?} crash"));
            }
            for action in &actions {
                if let timed::TimedAction::Crash { rank, time } = action {
                    trace.push(format!("rank {rank} crashes at t={time}"));
                }
            }
            trace.extend(events.iter().map(describe));
            let undelivered: Vec<u32> = (0..report.procs)
                .filter(|&r| report.is_live(r) && report.delivered_at[r as usize].is_none())
                .collect();
            trace.push(format!(
                "end: t={}, live processes that never delivered: {undelivered:?}, duplicate deliveries: {}",
                report.last_activity,
                report.duplicates()
            ));
            violations.push(Violation {
                property: name,
                trace,
            });
        }
    }
    let reached = [property::SOMETIMES_CORRECTED, property::SOMETIMES_QUIESCENT]
        .into_iter()
        .filter(|n| checker.discovery(n).is_some())
        .collect();
    CheckResult {
        violations,
        states: checker.unique_state_count(),
        seconds: start.elapsed().as_secs_f64(),
        reached,
    }
}

/// One trace line.
pub fn describe(event: &ftcoll::sim::TraceEvent) -> String {
    use ftcoll::sim::TraceEvent;
    match event {
        TraceEvent::Message {
            from,
            to,
            sent,
            received,
            phase,
        } => {
            format!("t={sent}..{received}: {phase:?} message {from} -> {to}")
        }
        TraceEvent::Lost {
            from,
            to,
            sent,
            at,
            phase,
        } => {
            format!("t={sent}..{at}: {phase:?} message {from} -> {to} lost (receiver crashed)")
        }
        TraceEvent::Ignored { rank, at, reason } => {
            format!("t={at}: rank {rank} ignores a message: {reason}")
        }
    }
}
