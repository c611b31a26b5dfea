//! `Budget::threads` (issue 13, item 4: stateright's parallel BFS on both cores): a search that
//! runs to its end finds the same unique states and the same verdicts on two threads as on one.

use ftcoll::protocols::corrected_tree::{CorrectionSpec, StartMode};
use ftcoll::topology::{LogP, Order, TreeKind};
use ftcoll_verify::budget::Budget;
use ftcoll_verify::{check_within, CheckResult, CrashTiming, ModelKind, ProtocolSpec};

fn spec(tree: TreeKind, correction: CorrectionSpec, start: StartMode, procs: u32) -> ProtocolSpec {
    ProtocolSpec {
        tree,
        order: Order::Interleaved,
        correction,
        start,
        procs,
        logp: LogP::default(),
    }
}

fn run(
    spec: &ProtocolSpec,
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
        ),
        // Liveness violated (opportunistic:1 leaves a gap of two uncovered).
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
        ),
    ];
    for (s, f, timing, model) in cases {
        let one = run(&s, f, timing, model, 1);
        let two = run(&s, f, timing, model, 2);
        assert_eq!(two.states, one.states, "{s:?} f={f}");
        assert_eq!(violated(&two), violated(&one), "{s:?} f={f}");
        assert_eq!(two.reached, one.reached, "{s:?} f={f}");
    }
}

#[test]
fn one_thread_is_the_default_and_repeats_its_traces() {
    let s = spec(
        TreeKind::Binomial,
        CorrectionSpec::Opportunistic { distance: 1 },
        StartMode::Overlapped,
        9,
    );
    assert_eq!(Budget::default().threads.max(1), Budget::UNLIMITED.threads);
    let a = run(&s, 2, CrashTiming::Any, ModelKind::Timed, 1);
    let b = run(&s, 2, CrashTiming::Any, ModelKind::Timed, 1);
    assert!(!a.violations.is_empty());
    let traces = |r: &CheckResult| -> Vec<Vec<String>> {
        r.violations.iter().map(|v| v.trace.clone()).collect()
    };
    assert_eq!(traces(&a), traces(&b));
}
