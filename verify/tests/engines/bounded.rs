//! Sound bounded verdicts: the timed model's horizon contains every timer a
//! protocol sets, and a run the horizon cuts leaves liveness undecided instead of letting it
//! hold vacuously.

use ftcoll::protocols::corrected_tree::{CorrectionSpec, StartMode};
use ftcoll::topology::{LogP, Order, TreeKind};
use ftcoll_verify::{
    check, check_timed, property, Budget, CorrectedTreeSpec, CrashTiming, ModelKind, TimedModel,
    Verdict,
};

/// The trace of the liveness violation in `result` (`why` says why the test expects one).
fn liveness_trace<'a>(result: &'a ftcoll_verify::CheckResult, why: &str) -> &'a [String] {
    &result
        .violations
        .iter()
        .find(|v| v.property == property::LIVENESS)
        .unwrap_or_else(|| panic!("{why}"))
        .trace
}

fn delayed(delay: u64, procs: u32) -> CorrectedTreeSpec {
    CorrectedTreeSpec {
        tree: TreeKind::Lame(2),
        order: Order::Interleaved,
        correction: CorrectionSpec::Delayed { delay },
        start: StartMode::Synchronized,
        procs,
        logp: LogP::default(),
    }
}

/// CT §3.3: delayed correction with a long delay is slow but correct — it must hold, not be
/// reported as non-terminating because the horizon ignored the delay (it used to).
#[test]
fn delayed_1000_holds_fault_free_and_with_a_crash_at_any_instant() {
    for procs in 2..=6 {
        for crashes in 0..=1 {
            let result = check(
                &delayed(1000, procs),
                crashes,
                CrashTiming::Any,
                ModelKind::Timed,
            )
            .expect("valid spec");
            assert_eq!(
                result.verdict(),
                Verdict::Holds,
                "P={procs} f={crashes}: {result:?}"
            );
            assert!(result.cut_by_horizon.is_empty());
        }
    }
}

/// A horizon shorter than the protocol's own delay cuts every run: termination is violated,
/// and liveness — true of no quiescent state, since none is reached — is undecided, never
/// "holds"; the verdict is partial.
#[test]
fn a_run_cut_at_the_horizon_leaves_liveness_undecided() {
    let spec = delayed(1000, 4);
    let mut model = TimedModel::corrected_tree(&spec, 0, CrashTiming::Pre).expect("valid spec");
    model.horizon = 50;
    let result = check_timed(
        model,
        1,
        &Budget::UNLIMITED,
        std::time::Instant::now(),
        None,
    )
    .expect("checks");
    assert!(result.violated(property::TERMINATION));
    // Liveness and every claim read at quiescence (the rules of `property::RULES` that look at a
    // whole run) are undecided; the rules checked in every state are not.
    assert_eq!(result.cut_by_horizon[0], property::LIVENESS);
    assert!(result.cut_by_horizon.contains(&property::CHECKED_LATENCY));
    assert!(!result.cut_by_horizon.contains(&property::SEND_BOUND));
    assert!(!result.cut_by_horizon.contains(&property::FAILPROOF_WAITS));
    assert!(!result.holds(property::LIVENESS));
    assert!(result.holds(property::INTEGRITY));
    assert_eq!(result.verdict(), Verdict::Partial);
    // Undecided: liveness and the claims about whole runs (quiescence); the delayed row's own
    // claim among them.
    assert_eq!(
        result.unresolved(),
        [
            property::LIVENESS,
            property::CHECKED_MESSAGES,
            property::CHECKED_LATENCY,
            property::CHECKED_GAP_LATENCY,
            property::OPTIMIZED_MESSAGES,
            property::DELAYED_MESSAGES,
            property::FAILPROOF_NO_SOS,
        ]
    );
}

/// A pre-operation counterexample names the smallest crash set (fewest ranks,
/// then lexicographically first) whose run leaves a live process undelivered — found here
/// independently by running the plain driver on every crash set in that order.
#[test]
fn pre_operation_counterexamples_name_the_smallest_crash_set() {
    use ftcoll::protocols::corrected_tree::CorrectedTreeNode;
    use ftcoll_sim::{run, PortModel, Scenario};
    let cases = [
        (
            TreeKind::KAry(2),
            Order::Interleaved,
            CorrectionSpec::None,
            6,
            2,
        ),
        (
            TreeKind::KAry(2),
            Order::Interleaved,
            CorrectionSpec::Opportunistic { distance: 2 },
            8,
            2,
        ),
        (
            TreeKind::KAry(2),
            Order::InOrder,
            CorrectionSpec::Opportunistic { distance: 1 },
            8,
            1,
        ),
        (
            TreeKind::Binomial,
            Order::Interleaved,
            CorrectionSpec::Opportunistic { distance: 1 },
            8,
            2,
        ),
        (
            TreeKind::Lame(2),
            Order::InOrder,
            CorrectionSpec::Opportunistic { distance: 1 },
            8,
            2,
        ),
        // BFS alone reported {1, 6, 8} here (its run reaches quiescence soonest); {1, 2} fails
        // too.
        (
            TreeKind::KAry(2),
            Order::Interleaved,
            CorrectionSpec::Optimized { distance: 4 },
            13,
            3,
        ),
    ];
    for (tree, order, kind, procs, crashes) in cases {
        let spec = CorrectedTreeSpec {
            tree,
            order,
            correction: kind,
            start: StartMode::Synchronized,
            procs,
            logp: LogP::default(),
        };
        let config = spec.config().expect("valid spec");
        let smallest = ftcoll_verify::timed::crash_sets(procs, crashes)
            .into_iter()
            .find(|set| {
                let scenario = Scenario {
                    logp: spec.logp,
                    model: PortModel::DualPort,
                    crashes: set.iter().map(|&r| (r, 0)).collect(),
                    ..Default::default()
                };
                let report =
                    run::<CorrectedTreeNode>(&config, procs, &scenario, 1_000_000).expect("runs");
                report.undelivered() > 0
            })
            .expect("some crash set breaks liveness");
        let result = check(&spec, crashes, CrashTiming::Pre, ModelKind::Timed).expect("checks");
        let violation = result
            .violations
            .iter()
            .find(|v| v.property == property::LIVENESS)
            .expect("liveness is violated");
        assert_eq!(
            violation.trace[0],
            format!("before the operation: ranks {smallest:?} crash"),
            "{}",
            spec.name()
        );
    }
}

/// Crashes at any instant: checked with one crash more than needed, the
/// counterexample has no more crashes than the fewest any counterexample needs — found
/// independently as the smallest `f` whose own check is violated — and dropping any one of its
/// crashes (replayed in the plain driver) loses the violation.
#[test]
fn any_instant_counterexamples_have_the_fewest_crashes() {
    use ftcoll::protocols::corrected_tree::CorrectedTreeNode;
    use ftcoll_sim::{run, PortModel, Scenario};
    let cases = [
        (TreeKind::KAry(2), Order::InOrder, 1),
        (TreeKind::Lame(2), Order::InOrder, 1),
        (TreeKind::Binomial, Order::InOrder, 1),
        // Needs two crashes.
        (TreeKind::KAry(2), Order::Interleaved, 1),
    ];
    for (tree, order, distance) in cases {
        let spec = CorrectedTreeSpec {
            tree,
            order,
            correction: CorrectionSpec::Opportunistic { distance },
            start: StartMode::Synchronized,
            procs: 7,
            logp: LogP::default(),
        };
        let fewest = (0..=2)
            .find(|&f| {
                check(&spec, f, CrashTiming::Any, ModelKind::Timed)
                    .unwrap()
                    .violated(property::LIVENESS)
            })
            .expect("some f breaks liveness");
        let result = check(&spec, fewest + 1, CrashTiming::Any, ModelKind::Timed).unwrap();
        let trace = liveness_trace(&result, "violated with one crash more");
        // Crashes: the first line's set and the timeline's crash lines.
        let mut crashes: Vec<(u32, u64)> = Vec::new();
        if let Some(set) = trace[0].strip_prefix("before the operation: ranks ") {
            let set = set.trim_end_matches(" crash").trim_matches(['[', ']']);
            crashes.extend(set.split(", ").map(|r| (r.parse::<u32>().unwrap(), 0)));
        }
        for line in trace {
            if let Some(rest) = line.strip_suffix(" crashes") {
                let (t, rank) = rest.split_once(": rank ").unwrap();
                crashes.push((rank.parse().unwrap(), t[2..].parse().unwrap()));
            }
        }
        assert_eq!(crashes.len() as u32, fewest, "{}: {trace:?}", spec.name());
        let config = spec.config().unwrap();
        let undelivered = |crashes: &[(u32, u64)]| {
            let scenario = Scenario {
                logp: spec.logp,
                model: PortModel::DualPort,
                arrivals: Vec::new(),
                crashes: crashes.to_vec(),
                trace: false,
                ignored: Default::default(),
            };
            run::<CorrectedTreeNode>(&config, spec.procs, &scenario, 1_000_000)
                .unwrap()
                .undelivered()
        };
        assert!(undelivered(&crashes) > 0, "{}", spec.name());
        for i in 0..crashes.len() {
            let mut fewer = crashes.clone();
            fewer.remove(i);
            assert_eq!(undelivered(&fewer), 0, "{}: {fewer:?}", spec.name());
        }
    }
}

/// A trace is a timeline — its lines go by instant, and every message is
/// sent by a process that had the payload by then (the root, or one whose delivery line came
/// earlier), so a reader can follow the run from top to bottom.
#[test]
fn traces_read_as_a_causal_timeline() {
    let spec = CorrectedTreeSpec {
        tree: TreeKind::Lame(2),
        order: Order::Interleaved,
        correction: CorrectionSpec::Opportunistic { distance: 1 },
        start: StartMode::Overlapped,
        procs: 8,
        logp: LogP::default(),
    };
    let result = check(&spec, 2, CrashTiming::Any, ModelKind::Timed).unwrap();
    let trace = liveness_trace(
        &result,
        "opportunistic:1 misses a gap of two under two crashes",
    );
    let instant = |line: &str| -> Option<u64> {
        let t = line.strip_prefix("t=")?;
        let end = t.find(['.', ':'])?;
        t[..end].parse().ok()
    };
    let mut last = 0;
    let mut colored = std::collections::BTreeSet::new();
    let mut messages = 0;
    // The crashes before the operation (if any) open the trace, the undelivered ranks end it.
    let body = match trace.first() {
        Some(first) if first.starts_with("before the operation") => &trace[1..trace.len() - 1],
        _ => &trace[..trace.len() - 1],
    };
    for line in body {
        let t = instant(line).unwrap_or_else(|| panic!("no instant: {line}"));
        assert!(t >= last, "out of order: {line} after t={last}");
        last = t;
        if let Some(rest) = line.split_once(": rank ").map(|x| x.1) {
            if let Some((rank, _)) = rest.split_once(" delivers") {
                colored.insert(rank.parse::<u32>().unwrap());
            }
        }
        if let Some((_, arrow)) = line.split_once(" message ") {
            let from: u32 = arrow.split(" -> ").next().unwrap().parse().unwrap();
            assert!(
                colored.contains(&from),
                "{from} sends before it delivers: {line}"
            );
            messages += 1;
        }
    }
    assert!(messages > 3 && colored.len() > 3, "{trace:?}");
}
