//! The depth-first search (`ftcoll_verify::depth`) against the layered search on the same
//! models. Its soundness rests on one claim (docs/reference/checker.md, "The depth-first search"):
//! without
//! choices left to the checker the timed model's state graph is a tree once the crashes before
//! one instant are taken in rank order, so visiting every path visits every state exactly once.
//! The layered search deduplicates by fingerprint; equal counts therefore check the claim on
//! every model compared (a search that visited a state twice, or missed one, would differ), and
//! the verdicts, examples, horizon cuts and minimized traces must agree too. Broadcasts (every
//! correction variant, both start modes, both crash timings, every crash-instant reduction) and
//! FTCO; the split between threads and its size change nothing.

use crate::common;

use common::assert_same;
use ftcoll::protocols::corrected_tree::{CorrectionSpec, StartMode};
use ftcoll::topology::ftco::{Collective, FtcoKind};
use ftcoll::topology::TreeKind;
use ftcoll_verify::budget::{Search, Stop};
use ftcoll_verify::corrected_tree::EVERY_VARIANT;
use ftcoll_verify::ftco::{self, FtcoSpec};
use ftcoll_verify::{check_within, Budget, CorrectedTreeSpec, CrashTiming, ModelKind, Verdict};

fn budget(search: Search, threads: u32, events: bool, sends: bool) -> Budget {
    Budget {
        search,
        threads,
        crashes_at_events_only: events,
        crashes_before_sends_only: sends,
        ..Budget::UNLIMITED
    }
}

#[test]
fn broadcasts_visit_each_state_once_and_reach_the_same_verdicts() {
    let mut violated = 0;
    let mut compared = 0;
    for correction in EVERY_VARIANT {
        for start in [StartMode::Synchronized, StartMode::Overlapped] {
            for (procs, f, timing) in [
                (5, 2, CrashTiming::Pre),
                (6, 1, CrashTiming::Any),
                (5, 2, CrashTiming::Any),
                (7, 2, CrashTiming::Any),
            ] {
                let reductions: &[(bool, bool)] = match timing {
                    CrashTiming::Pre => &[(false, false)],
                    CrashTiming::Any => &[(false, false), (true, false), (false, true)],
                };
                for &(events, sends) in reductions {
                    let spec = CorrectedTreeSpec::interleaved(
                        TreeKind::Binomial,
                        correction,
                        start,
                        procs,
                    );
                    let what = format!(
                        "{} f={f} {timing} events={events} sends={sends}",
                        spec.name()
                    );
                    let run = |search, threads| {
                        check_within(
                            &spec,
                            f,
                            timing,
                            ModelKind::Timed,
                            &budget(search, threads, events, sends),
                            None,
                        )
                        .expect("valid spec")
                    };
                    let layered = run(Search::Layered, 1);
                    assert_same(&what, &layered, &run(Search::Depth, 1), true);
                    assert_same(&what, &layered, &run(Search::Depth, 2), true);
                    violated += usize::from(!layered.violations.is_empty());
                    compared += 1;
                }
            }
        }
    }
    assert!(compared >= 100, "only {compared} configurations");
    // The comparison covers counterexamples, not only holding cells.
    assert!(
        violated >= 10,
        "only {violated} configurations with a violation"
    );
}

#[test]
fn ftco_visits_each_state_once_and_reaches_the_same_verdicts() {
    for collective in [Collective::Bcast, Collective::Reduce, Collective::Allreduce] {
        for (kind, procs, f, timing) in [
            (FtcoKind::KAry(2), 4, 1, CrashTiming::Any),
            (FtcoKind::KAry(2), 5, 2, CrashTiming::Any),
            (FtcoKind::KNomial(2), 4, 2, CrashTiming::Pre),
        ] {
            let spec = FtcoSpec::new(collective, kind, procs);
            let what = format!("{} f={f} {timing}", spec.name());
            let run = |search, threads| {
                ftco::check(
                    &spec,
                    f,
                    timing,
                    &budget(search, threads, false, false),
                    None,
                )
                .unwrap()
            };
            let layered = run(Search::Layered, 1);
            assert_same(&what, &layered, &run(Search::Depth, 1), true);
            assert_same(&what, &layered, &run(Search::Depth, 2), true);
        }
    }
}

/// Either engine stops at a state budget with a partial verdict and at most that many states.
#[test]
fn a_state_budget_stops_the_search_with_a_partial_verdict() {
    let spec = CorrectedTreeSpec::interleaved(
        TreeKind::Binomial,
        CorrectionSpec::Checked,
        StartMode::Synchronized,
        8,
    );
    for (search, threads) in [(Search::Depth, 2), (Search::Depth, 1), (Search::Layered, 1)] {
        let capped = Budget {
            max_states: Some(500),
            ..budget(search, threads, false, false)
        };
        let result =
            check_within(&spec, 2, CrashTiming::Any, ModelKind::Timed, &capped, None).unwrap();
        assert_eq!(result.stopped, Some(Stop::States), "{search:?}");
        assert_eq!(result.verdict(), Verdict::Partial, "{search:?}");
        assert!(result.states <= 500, "{search:?}: {} states", result.states);
    }
}
