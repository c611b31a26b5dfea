//! The layered search (`ftcoll_verify::layered`, the timed model's default engine before the
//! depth-first search; `depth.rs` beside it compares that one with it) against
//! stateright's breadth-first search on the same models: the same unique states, the same
//! verdicts, the same examples reached and — where counterexamples are minimized afterwards
//! (every model without choices) — the same traces; and the same result, traces included, on
//! one thread or two. Broadcasts (every correction variant, both start modes, both crash
//! timings), Corrected Gossip cells (choices made by the model) and FTCO.

use crate::common;

use common::assert_same;
use ftcoll::protocols::corrected_tree::StartMode;
use ftcoll::topology::ftco::{Collective, FtcoKind};
use ftcoll::topology::TreeKind;
use ftcoll_verify::budget::Search;
use ftcoll_verify::corrected_tree::EVERY_VARIANT;
use ftcoll_verify::ftco::{self, FtcoSpec};
use ftcoll_verify::gossip;
use ftcoll_verify::{check_within, Budget, CheckResult, CorrectedTreeSpec, CrashTiming, ModelKind};

fn budget(search: Search, threads: u32) -> Budget {
    Budget {
        search,
        threads,
        ..Budget::UNLIMITED
    }
}

#[test]
fn broadcasts_explore_the_same_states_and_reach_the_same_verdicts() {
    let mut violated = 0;
    for correction in EVERY_VARIANT {
        for start in [StartMode::Synchronized, StartMode::Overlapped] {
            for (procs, f, timing) in [
                (5, 2, CrashTiming::Pre),
                (6, 1, CrashTiming::Any),
                (5, 2, CrashTiming::Any),
            ] {
                let spec =
                    CorrectedTreeSpec::interleaved(TreeKind::Binomial, correction, start, procs);
                let what = format!("{} f={f} {timing}", spec.name());
                let run = |search, threads| {
                    check_within(
                        &spec,
                        f,
                        timing,
                        ModelKind::Timed,
                        &budget(search, threads),
                        None,
                    )
                    .expect("valid spec")
                };
                let layered = run(Search::Layered, 1);
                assert_same(&what, &layered, &run(Search::Bfs, 1), true);
                assert_eq!(
                    layered,
                    seconds_of(run(Search::Layered, 2), &layered),
                    "{what}: threads"
                );
                violated += usize::from(!layered.violations.is_empty());
            }
        }
    }
    // The comparison covers counterexamples, not only holding cells.
    assert!(
        violated >= 6,
        "only {violated} configurations with a violation"
    );
}

/// `result` with the run time of `like`: the only field two runs of one search may differ in.
fn seconds_of(mut result: CheckResult, like: &CheckResult) -> CheckResult {
    result.seconds = like.seconds;
    result
}

#[test]
fn gossip_cells_explore_the_same_states_and_reach_the_same_verdicts() {
    // Every cell but the largest (ccg-any, 196 K states, which tests/crash_instants.rs checks
    // under both crash offers); the layered search reports the first counterexample in layer
    // order, BFS a shortest one, so traces may differ here.
    let cells: Vec<_> = gossip::cells()
        .into_iter()
        .filter(|c| c.id != "ccg-any")
        .collect();
    // (A filter by size once left no cell at all: the comparison must cover most of them.)
    assert!(cells.len() >= 10, "only {} gossip cells", cells.len());
    for cell in cells {
        let run = |search, threads| {
            gossip::run_cell(&cell, &budget(search, threads)).expect("valid cell")
        };
        let layered = run(Search::Layered, 1);
        assert_same(cell.id, &layered.result, &run(Search::Bfs, 1).result, false);
        let two = run(Search::Layered, 2);
        assert_eq!(
            layered.result,
            seconds_of(two.result, &layered.result),
            "{}: threads",
            cell.id
        );
    }
}

#[test]
fn ftco_explores_the_same_states_and_reaches_the_same_verdicts() {
    for collective in [Collective::Bcast, Collective::Reduce, Collective::Allreduce] {
        for (kind, procs, f, timing) in [
            (FtcoKind::KAry(2), 4, 1, CrashTiming::Any),
            (FtcoKind::KNomial(2), 4, 2, CrashTiming::Pre),
        ] {
            let spec = FtcoSpec::new(collective, kind, procs);
            let what = format!("{} f={f} {timing}", spec.name());
            let run = |search| ftco::check(&spec, f, timing, &budget(search, 1), None).unwrap();
            assert_same(&what, &run(Search::Layered), &run(Search::Bfs), true);
        }
    }
}

/// A budget that holds states as bytes from the `pack_from`-th held state on.
fn packing(pack_from: usize, threads: u32) -> Budget {
    Budget {
        pack_from,
        ..budget(Search::Layered, threads)
    }
}

/// Holding the waiting states as bytes (every one, some, or none) changes nothing a check
/// reports: the bytes read back to the same states, with the same fingerprints.
#[test]
fn holding_states_as_bytes_changes_no_result() {
    for correction in EVERY_VARIANT {
        for start in [StartMode::Synchronized, StartMode::Overlapped] {
            for (procs, f) in [(6, 1), (5, 2)] {
                let spec =
                    CorrectedTreeSpec::interleaved(TreeKind::Binomial, correction, start, procs);
                let what = format!("{} f={f}", spec.name());
                let run = |b: &Budget| {
                    check_within(&spec, f, CrashTiming::Any, ModelKind::Timed, b, None)
                        .expect("valid spec")
                };
                let whole = run(&packing(usize::MAX, 1));
                for (pack_from, threads) in [(0, 1), (0, 2), (40, 1)] {
                    assert_eq!(
                        whole,
                        seconds_of(run(&packing(pack_from, threads)), &whole),
                        "{what}: packed from {pack_from} on {threads} threads"
                    );
                }
            }
        }
    }
    for cell in gossip::cells().into_iter().filter(|c| c.id != "ccg-any") {
        let run = |b: &Budget| gossip::run_cell(&cell, b).expect("valid cell").result;
        let whole = run(&packing(usize::MAX, 1));
        assert_eq!(
            whole,
            seconds_of(run(&packing(0, 1)), &whole),
            "{}",
            cell.id
        );
    }
    for collective in [Collective::Bcast, Collective::Reduce, Collective::Allreduce] {
        let spec = FtcoSpec::new(collective, FtcoKind::KAry(2), 4);
        let run = |b: &Budget| ftco::check(&spec, 1, CrashTiming::Any, b, None).unwrap();
        let whole = run(&packing(usize::MAX, 1));
        assert_eq!(
            whole,
            seconds_of(run(&packing(0, 2)), &whole),
            "{}",
            spec.name()
        );
    }
}
