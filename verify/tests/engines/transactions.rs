//! The asynchronous model reduced to transactions (`ftcoll_verify::transactions`, `--search
//! transactions`) against the search of every state (`--search fingerprints`, itself compared
//! with the breadth-first search in `fingerprints.rs`): the same violated properties and the same
//! `sometimes` examples on every correction variant with overlapped start, two trees, P = 2 … 5
//! and f = 0 … 2, under both crash rules, and on eight mutants; every counterexample it reports
//! is a run of the asynchronous model that ends in a violating state. A reduction that offers no
//! crash (tried by hand) fails the first comparison at the tree without correction.

use crate::common::{spec, violated};
use ftcoll::automaton::Automaton;
use ftcoll::protocols::corrected_tree::{CorrectionSpec, StartMode};
use ftcoll::topology::TreeKind;
use ftcoll_verify::budget::{Budget, Search};
use ftcoll_verify::fingerprints::explore;
use ftcoll_verify::mutants::{async_model, Bug};
use ftcoll_verify::transactions::TransactionModel;
use ftcoll_verify::{
    check_within, property, AsyncModel, CheckResult, CorrectedTreeSpec, CrashTiming, ModelKind,
    Stop,
};
use stateright::Model;

/// Generated states after which a comparison is skipped: both searches must finish.
const CAP: u64 = 300_000;

fn run(spec: &CorrectedTreeSpec, f: u32, search: Search, events_only: bool) -> CheckResult {
    let budget = Budget {
        max_states: Some(CAP),
        search,
        crashes_at_events_only: events_only,
        ..Budget::UNLIMITED
    };
    check_within(spec, f, CrashTiming::Any, ModelKind::Async, &budget, None).unwrap()
}

const CORRECTIONS: [CorrectionSpec; 9] = [
    CorrectionSpec::None,
    CorrectionSpec::Ack,
    CorrectionSpec::Opportunistic { distance: 1 },
    CorrectionSpec::Opportunistic { distance: 2 },
    CorrectionSpec::Optimized { distance: 1 },
    CorrectionSpec::Optimized { distance: 2 },
    CorrectionSpec::Checked,
    CorrectionSpec::Delayed { delay: 3 },
    CorrectionSpec::FailProof {
        faults: 1,
        sos_timeout: None,
        sos_on_full_loop: true,
    },
];

/// The same verdicts as the search of every state, and (where neither stopped early) fewer
/// states in most configurations.
#[test]
fn same_verdicts_as_the_search_of_every_state() {
    let (mut compared, mut violating, mut fewer) = (0, 0, 0);
    for tree in [TreeKind::Lame(2), TreeKind::KAry(2)] {
        for correction in CORRECTIONS {
            for procs in 2..=5 {
                for f in 0..=2 {
                    for events_only in [false, true] {
                        let s = spec(tree, correction, procs);
                        let what = format!("{} f={f} events only {events_only}", s.name());
                        let full = run(&s, f, Search::Fingerprints, events_only);
                        if full.stopped.is_some() {
                            continue;
                        }
                        let reduced = run(&s, f, Search::Transactions, events_only);
                        assert_eq!(reduced.stopped, None, "{what}: stopped");
                        assert_eq!(violated(&full), violated(&reduced), "{what}: violated");
                        assert_eq!(full.reached, reduced.reached, "{what}: reached");
                        compared += 1;
                        violating += usize::from(!full.violations.is_empty());
                        fewer += usize::from(reduced.states < full.states);
                    }
                }
            }
        }
    }
    eprintln!("compared {compared}, violating {violating}, fewer states in {fewer}");
    // The grid must not shrink unnoticed: 2 trees × 9 variants × 4 sizes × 3 bounds × 2 rules
    // = 432 configurations, of which the search of every state finishes within the cap in 280.
    assert!(compared >= 250, "compared only {compared}");
    assert!(violating >= 20, "only {violating} violating");
    assert!(fewer * 10 >= compared * 8, "fewer states in only {fewer}");
}

/// Replays each counterexample the reduced model reports, action by action, through the
/// asynchronous model (each action one it offers there) and returns the properties shown.
fn replayed<A>(model: AsyncModel<A>, what: &str) -> Vec<&'static str>
where
    A: Automaton + Send + Sync + 'static,
    A::Msg: Ord + Send + Sync,
    A::Value: Send + Sync,
    A::Config: Send + Sync + 'static,
{
    let halt = model.halt.clone();
    halt.cap(CAP, Stop::States);
    let reduced = TransactionModel::new(model).expect("overlapped start reads no clock");
    let explored = explore(
        &reduced,
        &halt,
        &Budget::UNLIMITED,
        std::time::Instant::now(),
        None,
    )
    .expect("no eventually property");
    halt.release();
    let model = &reduced.inner;
    let mut shown = Vec::new();
    for p in model.properties() {
        if p.name == property::SOMETIMES_QUIESCENT {
            continue;
        }
        let Some((origin, steps)) = explored.discoveries.get(p.name) else {
            continue;
        };
        let actions = steps.iter().flat_map(|step| step.actions.iter());
        let state = crate::common::replay(model, *origin, actions, what);
        assert!(!(p.condition)(model, &state), "{what}: '{}' holds", p.name);
        shown.push(p.name);
    }
    shown
}

/// Mutants: the same violated properties as the search of every state, and each counterexample
/// a run of the asynchronous model ending in a violation.
#[test]
fn mutants_are_caught_with_counterexamples_that_replay() {
    let more = [
        (Bug::StopsOnlyAtNeighbours, CorrectionSpec::Checked, 1),
        (
            Bug::IgnoresCoverage,
            CorrectionSpec::Optimized { distance: 2 },
            1,
        ),
        (
            Bug::CNodeForwards,
            CorrectionSpec::Opportunistic { distance: 2 },
            1,
        ),
        (
            Bug::NeverRepliesStop,
            CorrectionSpec::Delayed { delay: 3 },
            1,
        ),
    ];
    let mut caught = 0;
    for (bug, correction, f) in crate::common::ASYNC_MUTANTS.into_iter().chain(more) {
        for procs in [4, 5] {
            let s = spec(TreeKind::KAry(2), correction, procs);
            let what = format!("{bug:?} P={procs} f={f}");
            let full_model = async_model(&s, bug, f).unwrap();
            full_model.halt.cap(CAP, Stop::States);
            let full = explore(
                &full_model,
                &full_model.halt.clone(),
                &Budget::UNLIMITED,
                std::time::Instant::now(),
                None,
            )
            .unwrap();
            let complete = full_model.halt.reason().is_none();
            full_model.halt.release();
            let mut expected: Vec<&str> = full
                .discoveries
                .keys()
                .copied()
                .filter(|&n| n != property::SOMETIMES_QUIESCENT)
                .collect();
            expected.sort_unstable();
            let mut shown = replayed(async_model(&s, bug, f).unwrap(), &what);
            shown.sort_unstable();
            if complete {
                assert_eq!(expected, shown, "{what}");
            } else {
                // Stopped early: whatever it found must be found too.
                assert!(expected.iter().all(|e| shown.contains(e)), "{what}");
            }
            caught += usize::from(!shown.is_empty());
        }
    }
    assert!(caught >= 9, "only {caught} of 16 mutant runs caught");
    let real = spec(TreeKind::KAry(2), CorrectionSpec::None, 4);
    let model = AsyncModel::corrected_tree(&real, 1).unwrap();
    assert_eq!(
        replayed(model, "no correction f=1"),
        vec![property::LIVENESS],
        "a crash under a tree without correction"
    );
}

/// An automaton that reads the clock (synchronized correction) is refused before any work.
#[test]
fn an_automaton_that_reads_the_clock_is_refused() {
    let mut s = spec(TreeKind::Lame(2), CorrectionSpec::Checked, 4);
    s.start = StartMode::Synchronized;
    let budget = Budget {
        search: Search::Transactions,
        ..Budget::UNLIMITED
    };
    let refused = check_within(&s, 1, CrashTiming::Any, ModelKind::Async, &budget, None);
    assert!(
        matches!(refused, Err(ftcoll_verify::CheckError::Refused(_))),
        "{refused:?}"
    );
}
