//! `Budget::threads` (stateright's parallel BFS on both cores): a search that
//! runs to its end finds the same unique states and the same verdicts on two threads as on one.

use ftcoll::protocols::corrected_tree::{CorrectionSpec, StartMode};
use ftcoll::topology::TreeKind;
use std::sync::Mutex;
use std::thread::ThreadId;

use ftcoll_verify::budget::Budget;
use ftcoll_verify::budget::Search;
use ftcoll_verify::timed::{TimedModel, TimedProperty};
use ftcoll_verify::{
    check_model, check_within, property, CheckResult, CorrectedTreeSpec, CrashTiming, ModelKind,
};

fn spec(
    tree: TreeKind,
    correction: CorrectionSpec,
    start: StartMode,
    procs: u32,
) -> CorrectedTreeSpec {
    CorrectedTreeSpec::interleaved(tree, correction, start, procs)
}

fn run(
    spec: &CorrectedTreeSpec,
    f: u32,
    timing: CrashTiming,
    model: ModelKind,
    threads: u32,
) -> CheckResult {
    let budget = Budget {
        threads,
        ..Budget::UNLIMITED
    };
    check_within(spec, f, timing, model, &budget, None).unwrap()
}

fn violated(r: &CheckResult) -> Vec<&'static str> {
    r.violations.iter().map(|v| v.property).collect()
}

#[test]
fn two_threads_find_the_same_states_and_verdicts() {
    let cases = [
        // Holds everywhere.
        (
            spec(
                TreeKind::Lame(2),
                CorrectionSpec::Checked,
                StartMode::Synchronized,
                8,
            ),
            2,
            CrashTiming::Any,
            ModelKind::Timed,
            vec![],
        ),
        // Liveness violated: opportunistic:1 covers one process on each side, so two adjacent
        // crashed tree parents leave a gap it cannot close.
        (
            spec(
                TreeKind::Binomial,
                CorrectionSpec::Opportunistic { distance: 1 },
                StartMode::Overlapped,
                9,
            ),
            2,
            CrashTiming::Any,
            ModelKind::Timed,
            vec![property::LIVENESS],
        ),
        (
            spec(
                TreeKind::Binomial,
                CorrectionSpec::Opportunistic { distance: 2 },
                StartMode::Overlapped,
                4,
            ),
            1,
            CrashTiming::Any,
            ModelKind::Async,
            vec![],
        ),
    ];
    for (s, f, timing, model, expected) in cases {
        let one = run(&s, f, timing, model, 1);
        let two = run(&s, f, timing, model, 2);
        assert_eq!(violated(&one), expected, "{s:?} f={f}");
        assert_eq!(two.states, one.states, "{s:?} f={f}");
        assert_eq!(violated(&two), violated(&one), "{s:?} f={f}");
        assert_eq!(two.reached, one.reached, "{s:?} f={f}");
    }
}

/// The threads of the BFS that evaluated a property (only this test's model records them).
static SEEN: Mutex<Vec<ThreadId>> = Mutex::new(Vec::new());

fn record_thread<A: ftcoll::automaton::Automaton>(
    _: &TimedModel<A>,
    _: &ftcoll_verify::timed::TimedState<A>,
) -> bool {
    let id = std::thread::current().id();
    let mut seen = SEEN.lock().unwrap();
    if !seen.contains(&id) {
        seen.push(id);
    }
    false
}

/// `threads` is not ignored: with two, the states are checked on two threads (stateright's
/// BFS: exactly its two workers; the layered search: scoped threads, two per round it splits,
/// so at least two; the depth-first search: its two workers and the expansion before them).
#[test]
fn two_threads_do_the_work_on_two_threads() {
    for search in [Search::Bfs, Search::Layered, Search::Depth] {
        SEEN.lock().unwrap().clear();
        let threads = checking_threads(search);
        match search {
            Search::Bfs => assert_eq!(threads, 2),
            // Two workers, and the calling thread's expansion.
            Search::Depth => assert!(threads >= 3, "{threads} threads"),
            _ => assert!(threads >= 2, "{threads} threads"),
        }
    }
}

fn checking_threads(search: Search) -> usize {
    let s = spec(
        TreeKind::Lame(2),
        CorrectionSpec::Checked,
        StartMode::Synchronized,
        8,
    );
    let mut model = TimedModel::corrected_tree(&s, 2, CrashTiming::Any).unwrap();
    model.properties.push(TimedProperty::sometimes(
        "records the thread that checks each state",
        record_thread,
    ));
    let budget = Budget {
        threads: 2,
        search,
        ..Budget::UNLIMITED
    };
    let result = check_model(model, &budget).unwrap();
    assert!(result.states > 10_000);
    let seen = SEEN.lock().unwrap();
    seen.len()
}

#[test]
fn one_thread_is_the_default_and_repeats_its_traces() {
    let s = spec(
        TreeKind::Binomial,
        CorrectionSpec::Opportunistic { distance: 1 },
        StartMode::Overlapped,
        9,
    );
    // `Budget::default()` has `threads: 0`, which means one thread.
    assert_eq!(Budget::default().threads, 0);
    let zero = run(&s, 2, CrashTiming::Any, ModelKind::Timed, 0);
    let a = run(&s, 2, CrashTiming::Any, ModelKind::Timed, 1);
    assert_eq!(zero.states, a.states);
    assert_eq!(violated(&zero), violated(&a));
    let b = run(&s, 2, CrashTiming::Any, ModelKind::Timed, 1);
    assert!(!a.violations.is_empty());
    let traces = |r: &CheckResult| -> Vec<Vec<String>> {
        r.violations.iter().map(|v| v.trace.clone()).collect()
    };
    assert_eq!(traces(&a), traces(&b));
}
