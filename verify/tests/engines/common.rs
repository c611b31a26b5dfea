//! Helpers shared by the tests that compare the search engines (`layered.rs`, `depth.rs`;
//! `fingerprints.rs` and `transactions.rs` replay counterexamples in the asynchronous model).

use ftcoll::automaton::Automaton;
use ftcoll::protocols::corrected_tree::{CorrectionSpec, StartMode};
use ftcoll::topology::{LogP, Order, TreeKind};
use ftcoll_verify::asynchronous::{AsyncAction, AsyncState};
use ftcoll_verify::mutants::Bug;
use ftcoll_verify::{AsyncModel, CheckResult, CorrectedTreeSpec};
use stateright::Model;

/// Mutants of the asynchronous model, with the correction and crashes that show them: integrity,
/// no duplicates, liveness and termination.
pub const ASYNC_MUTANTS: [(Bug, CorrectionSpec, u32); 4] = [
    (Bug::CorruptsRelayedPayload, CorrectionSpec::None, 0),
    (
        Bug::DeliversEveryCopy,
        CorrectionSpec::Opportunistic { distance: 1 },
        0,
    ),
    (Bug::ConfusesDirections, CorrectionSpec::Checked, 1),
    (
        Bug::EchoesCorrection,
        CorrectionSpec::Opportunistic { distance: 1 },
        0,
    ),
];

/// Replays `actions` from initial state `origin` of `model`, asserting that each is one the
/// model offers where it is taken, and returns the last state.
pub fn replay<'a, A>(
    model: &AsyncModel<A>,
    origin: usize,
    actions: impl IntoIterator<Item = &'a AsyncAction<A::Msg>>,
    what: &str,
) -> AsyncState<A>
where
    A: Automaton + Send + Sync + 'static,
    A::Msg: Ord + Send + Sync + 'a,
    A::Config: Send + Sync + 'static,
{
    let mut state = model.init_states().swap_remove(origin);
    for action in actions {
        let mut enabled = Vec::new();
        model.actions(&state, &mut enabled);
        assert!(enabled.contains(action), "{what}: {action:?} not enabled");
        state = model
            .next_state(&state, action.clone())
            .expect("a successor");
    }
    state
}

/// What must not depend on the engine: everything but the run time, and the traces only when
/// `traces` (models without choices minimize their counterexamples the same way).
pub fn assert_same(what: &str, a: &CheckResult, b: &CheckResult, traces: bool) {
    assert_eq!(a.states, b.states, "{what}: unique states");
    assert_eq!(a.verdict(), b.verdict(), "{what}: verdict");
    assert_eq!(a.reached, b.reached, "{what}: examples reached");
    assert_eq!(a.cut_by_horizon, b.cut_by_horizon, "{what}: horizon");
    assert_eq!(a.stopped, b.stopped, "{what}: budget");
    let names = |r: &CheckResult| r.violations.iter().map(|v| v.property).collect::<Vec<_>>();
    assert_eq!(names(a), names(b), "{what}: violated properties");
    if traces {
        assert_eq!(a.violations, b.violations, "{what}: traces");
    }
}

/// An interleaved broadcast with overlapped start: the asynchronous engines' configurations.
pub fn spec(tree: TreeKind, correction: CorrectionSpec, procs: u32) -> CorrectedTreeSpec {
    CorrectedTreeSpec {
        tree,
        order: Order::Interleaved,
        correction,
        start: StartMode::Overlapped,
        procs,
        logp: LogP::default(),
    }
}

/// The violated properties of a check, in order.
pub fn violated(r: &CheckResult) -> Vec<&'static str> {
    r.violations.iter().map(|v| v.property).collect()
}
