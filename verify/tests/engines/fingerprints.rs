//! The depth-first search with a visited set of fingerprints (`ftcoll_verify::fingerprints`,
//! `--search fingerprints`) against stateright's breadth-first search of the asynchronous
//! model: the same unique states and verdicts on every correction variant with overlapped
//! start, two trees, P = 2 … 4 and f = 0 … 2, on one and two threads; its counterexamples
//! replay to a state that violates the property; and the asynchronous model's crash reduction
//! (`--crashes-at-events-only`) keeps every verdict. A search that skips a state it has not
//! seen, or reports a path that is not the one it took, fails here.

use crate::common::{spec, violated};
use ftcoll::protocols::corrected_tree::CorrectionSpec;
use ftcoll::topology::TreeKind;
use ftcoll_verify::budget::{Budget, Search};
use ftcoll_verify::fingerprints::{explore, Fingerprints, Refusal};
use ftcoll_verify::mutants::{async_model, Bug, Mutant};
use ftcoll_verify::{
    check_within, property, AsyncModel, CheckResult, CorrectedTreeSpec, CrashTiming, Halt,
    ModelKind, Stop,
};
use stateright::{Model, Property};

/// Generated states after which a comparison is skipped: both engines must finish.
const CAP: u64 = 100_000;

fn run(
    spec: &CorrectedTreeSpec,
    f: u32,
    search: Search,
    threads: u32,
    reduce: bool,
) -> CheckResult {
    let budget = Budget {
        max_states: Some(CAP),
        threads,
        search,
        crashes_at_events_only: reduce,
        ..Budget::UNLIMITED
    };
    check_within(spec, f, CrashTiming::Any, ModelKind::Async, &budget, None).unwrap()
}

const CORRECTIONS: [CorrectionSpec; 7] = [
    CorrectionSpec::None,
    CorrectionSpec::Ack,
    CorrectionSpec::Opportunistic { distance: 1 },
    CorrectionSpec::Opportunistic { distance: 2 },
    CorrectionSpec::Optimized { distance: 1 },
    CorrectionSpec::Optimized { distance: 2 },
    CorrectionSpec::Checked,
];

/// Every reachable state once: the breadth-first search's unique states and verdicts, on one
/// thread and on two.
#[test]
fn same_states_and_verdicts_as_the_breadth_first_search() {
    let (mut compared, mut counted, mut with_violation) = (0, 0, 0);
    for tree in [TreeKind::Lame(2), TreeKind::KAry(2)] {
        for correction in CORRECTIONS {
            for procs in 2..=4 {
                for f in 0..=2 {
                    let s = spec(tree, correction, procs);
                    let what = format!("{} f={f}", s.name());
                    let bfs = run(&s, f, Search::Bfs, 1, false);
                    if bfs.stopped.is_some() {
                        continue;
                    }
                    for threads in [1, 2] {
                        let fp = run(&s, f, Search::Fingerprints, threads, false);
                        assert_eq!(fp.stopped, None, "{what}: stopped");
                        assert_eq!(violated(&bfs), violated(&fp), "{what}: violated");
                        assert_eq!(bfs.reached, fp.reached, "{what}: reached");
                        // Both stop once every property has a discovery; otherwise both
                        // explore every reachable state.
                        if bfs.violations.len() + bfs.reached.len() < 5 {
                            assert_eq!(bfs.states, fp.states, "{what}, {threads} threads: states");
                            counted += 1;
                        }
                    }
                    compared += 1;
                    with_violation += usize::from(!bfs.violations.is_empty());
                }
            }
        }
    }
    // The grid must not shrink unnoticed: 2 trees × 7 variants × 3 sizes × 3 bounds = 126.
    assert!(compared >= 100, "compared only {compared}");
    assert!(counted >= 150, "counted only {counted}");
    eprintln!("compared {compared}, counted {counted}, violating {with_violation}");
    assert!(with_violation >= 4, "only {with_violation} violating");
}

/// Offering a crash only to a process with something to do, and discarding messages to crashed
/// processes, changes no verdict and never adds a state.
#[test]
fn the_crash_reduction_keeps_every_verdict() {
    let (mut compared, mut fewer, mut violating) = (0, 0, 0);
    for tree in [TreeKind::Lame(2), TreeKind::KAry(2)] {
        for correction in CORRECTIONS {
            for procs in 3..=4 {
                for f in 1..=2 {
                    let s = spec(tree, correction, procs);
                    let what = format!("{} f={f}", s.name());
                    let full = run(&s, f, Search::Fingerprints, 1, false);
                    let reduced = run(&s, f, Search::Fingerprints, 1, true);
                    if full.stopped.is_some() || reduced.stopped.is_some() {
                        continue;
                    }
                    compared += 1;
                    violating += usize::from(!full.violations.is_empty());
                    assert_eq!(violated(&full), violated(&reduced), "{what}: violated");
                    assert_eq!(full.reached, reduced.reached, "{what}: reached");
                    if full.violations.len() + full.reached.len() < 5 {
                        assert!(reduced.states <= full.states, "{what}: more states");
                        fewer += usize::from(reduced.states < full.states);
                    }
                }
            }
        }
    }
    eprintln!("compared {compared}, fewer states in {fewer}, violating {violating}");
    assert!(compared >= 30, "compared only {compared}");
    assert!(violating >= 2, "only {violating} violating");
    assert!(fewer >= 20, "fewer states in only {fewer}");
}

/// The asynchronous model of a mutant (`ftcoll_verify::mutants::async_model`) on a binary tree.
fn mutant_model(bug: Bug, correction: CorrectionSpec, procs: u32, f: u32) -> AsyncModel<Mutant> {
    async_model(&spec(TreeKind::KAry(2), correction, procs), bug, f).unwrap()
}

/// Replays each counterexample `explore` reports for `model` and counts those that end in a
/// state violating their property (each action enabled where it is taken).
fn replayed<A>(model: &AsyncModel<A>, what: &str) -> usize
where
    A: ftcoll::automaton::Automaton + Send + Sync + 'static,
    A::Msg: Ord + Send + Sync,
    A::Value: Send + Sync,
    A::Config: Send + Sync + 'static,
{
    // A mutant that never terminates has no end to its states; its counterexample comes early.
    model.halt.cap(200_000, Stop::States);
    let explored = explore(
        model,
        &model.halt,
        &Budget::UNLIMITED,
        std::time::Instant::now(),
        None,
    )
    .expect("no eventually property");
    model.halt.release();
    let mut shown = 0;
    for p in model.properties() {
        if p.name == property::SOMETIMES_QUIESCENT {
            continue;
        }
        let Some((origin, actions)) = explored.discoveries.get(p.name) else {
            continue;
        };
        let state = crate::common::replay(model, *origin, actions, what);
        assert!(!(p.condition)(model, &state), "{what}: '{}' holds", p.name);
        shown += 1;
    }
    shown
}

/// Each counterexample is a run of the model: its actions, replayed from its initial state,
/// end in a state that violates the property. Mutants that break integrity, no duplicates,
/// liveness and termination, and a tree without correction, whose liveness fails with one
/// crash.
#[test]
fn every_counterexample_replays_to_a_violation() {
    for (bug, correction, f) in crate::common::ASYNC_MUTANTS {
        let model = mutant_model(bug, correction, 4, f);
        let shown = replayed(&model, &format!("{bug:?}"));
        assert!(shown >= 1, "{bug:?}: no counterexample");
    }
    let real = spec(TreeKind::KAry(2), CorrectionSpec::None, 4);
    let model = AsyncModel::corrected_tree(&real, 1).unwrap();
    assert!(
        replayed(&model, "no correction f=1") >= 1,
        "no liveness violation"
    );
}

/// A model with an `eventually` property is refused before any work: merging paths would
/// decide it wrongly.
#[test]
fn an_eventually_property_is_refused() {
    #[derive(Clone)]
    struct Count;
    impl Model for Count {
        type State = u8;
        type Action = u8;
        fn init_states(&self) -> Vec<u8> {
            vec![0]
        }
        fn actions(&self, s: &u8, actions: &mut Vec<u8>) {
            if *s < 3 {
                actions.push(1);
            }
        }
        fn next_state(&self, s: &u8, a: u8) -> Option<u8> {
            Some(s + a)
        }
        fn properties(&self) -> Vec<Property<Self>> {
            vec![Property::eventually("reaches three", |_, s| *s == 3)]
        }
    }
    impl Fingerprints for Count {}
    let refused = explore(
        &Count,
        &Halt::new(),
        &Budget::UNLIMITED,
        std::time::Instant::now(),
        None,
    );
    assert_eq!(
        refused.map(|e| e.states),
        Err(Refusal::Eventually("reaches three"))
    );
}
