//! Unique states per second of the timed and asynchronous models, of the
//! timed model's three search engines on one and two threads, and of the layered search holding
//! its waiting states whole or as bytes. The cases without an engine named
//! use the default (`Search::Auto`: the depth-first search for the timed model).
//!
//! Run: `cargo bench -p ftcoll-verify --bench checker`. Criterion reports the throughput in
//! states/s (elements/s) for each model.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ftcoll::protocols::corrected_tree::{CorrectionSpec, StartMode};
use ftcoll::topology::{LogP, Order, TreeKind};
use ftcoll_verify::budget::{Budget, Search};
use ftcoll_verify::{check, check_within, CorrectedTreeSpec, CrashTiming, ModelKind};

fn spec(correction: CorrectionSpec, start: StartMode, procs: u32) -> CorrectedTreeSpec {
    CorrectedTreeSpec {
        tree: TreeKind::Lame(2),
        order: Order::Interleaved,
        correction,
        start,
        procs,
        logp: LogP::default(),
    }
}

fn states_per_second(c: &mut Criterion) {
    let mut group = c.benchmark_group("checker");
    group.sample_size(10);
    let cases = [
        (
            "timed checked P=8 f=2 any",
            spec(CorrectionSpec::Checked, StartMode::Synchronized, 8),
            2,
            CrashTiming::Any,
            ModelKind::Timed,
        ),
        (
            "timed failproof:1 P=8 f=1 any",
            spec(
                CorrectionSpec::FailProof {
                    faults: 1,
                    sos_timeout: None,
                    sos_on_full_loop: true,
                },
                StartMode::Synchronized,
                8,
            ),
            1,
            CrashTiming::Any,
            ModelKind::Timed,
        ),
        (
            "async opportunistic:2 P=4 f=0",
            spec(
                CorrectionSpec::Opportunistic { distance: 2 },
                StartMode::Overlapped,
                4,
            ),
            0,
            CrashTiming::Any,
            ModelKind::Async,
        ),
    ];
    for (name, spec, crashes, timing, model) in cases {
        let states = check(&spec, crashes, timing, model).unwrap().states;
        group.throughput(Throughput::Elements(states as u64));
        group.bench_function(name, |b| {
            b.iter(|| check(&spec, crashes, timing, model).unwrap().states)
        });
    }
    // The three engines of the timed model (`Budget::search`, `ftcoll-verify check --search`),
    // each on one and on two threads (`Budget::threads`, `--threads`); and the layered search
    // holding its waiting states whole (`Budget::pack_from` above any count, `--pack-from`)
    // against as compressed bytes (the default): what the smaller memory costs in time.
    let spec = spec(CorrectionSpec::Checked, StartMode::Synchronized, 11);
    let engines = [
        (Search::Depth, 0, "depth"),
        (Search::Layered, 0, "layered"),
        (Search::Bfs, 0, "bfs"),
        (Search::Layered, usize::MAX, "layered, held whole"),
    ];
    for (search, pack_from, name) in engines {
        for threads in [1, 2] {
            let budget = Budget {
                threads,
                search,
                pack_from,
                ..Budget::UNLIMITED
            };
            let run = || {
                check_within(&spec, 2, CrashTiming::Any, ModelKind::Timed, &budget, None)
                    .unwrap()
                    .states
            };
            group.throughput(Throughput::Elements(run() as u64));
            group.bench_function(
                format!("timed checked P=11 f=2 any, {name}, {threads} thread(s)"),
                |b| b.iter(run),
            );
        }
    }
    // The crash points of the timed model with crashes at any instant: every instant, only
    // instants with an event of the process (`Budget::crashes_at_events_only`), only instants
    // at which it sends (`Budget::crashes_before_sends_only`): the same verdicts, in fewer
    // states (docs/reference/checker.md, "Crashes before sends"). What counts is the time to the
    // verdict;
    // each reports its own states per second.
    let failproof = CorrectedTreeSpec {
        correction: CorrectionSpec::FailProof {
            faults: 3,
            sos_timeout: None,
            sos_on_full_loop: true,
        },
        ..spec
    };
    for (spec, what) in [(&spec, "checked P=11"), (&failproof, "failproof:3 P=11")] {
        for (events_only, sends_only, rule) in [
            (false, false, "every instant"),
            (true, false, "events only"),
            (false, true, "sends only"),
        ] {
            let budget = Budget {
                crashes_at_events_only: events_only,
                crashes_before_sends_only: sends_only,
                pack_from: usize::MAX,
                ..Budget::UNLIMITED
            };
            let run = || {
                check_within(spec, 2, CrashTiming::Any, ModelKind::Timed, &budget, None)
                    .unwrap()
                    .states
            };
            group.throughput(Throughput::Elements(run() as u64));
            group.bench_function(format!("timed {what} f=2 any, crashes: {rule}"), |b| {
                b.iter(run)
            });
        }
    }
    // The asynchronous model's four exhaustive engines (`--search bfs`, the default, `--search
    // dpor`, `--search fingerprints` and `--search transactions`) on one and two threads, and
    // its random runs (`dpor::walks`), at P = 4 with one crash: the reduction counts events
    // (states visited again across runs), transactions the reduced model's states, the other
    // two unique states, so compare the times. The search by
    // fingerprints also prints what its visited set holds per state.
    let optimized = crate::spec(
        CorrectionSpec::Optimized { distance: 2 },
        StartMode::Overlapped,
        4,
    );
    for (search, name) in [
        (Search::Bfs, "bfs"),
        (Search::Dpor, "dpor"),
        (Search::Fingerprints, "fingerprints"),
        (Search::Transactions, "transactions"),
    ] {
        for threads in [1, 2] {
            let budget = Budget {
                threads,
                search,
                ..Budget::UNLIMITED
            };
            let run = || {
                check_within(
                    &optimized,
                    1,
                    CrashTiming::Any,
                    ModelKind::Async,
                    &budget,
                    None,
                )
                .unwrap()
                .states
            };
            group.throughput(Throughput::Elements(run() as u64));
            group.bench_function(
                format!("async optimized:2 P=4 f=1, {name}, {threads} thread(s)"),
                |b| b.iter(run),
            );
        }
    }
    let model = ftcoll_verify::AsyncModel::corrected_tree(&optimized, 1).unwrap();
    let explored = ftcoll_verify::fingerprints::explore(
        &model,
        &model.halt,
        &Budget::UNLIMITED,
        std::time::Instant::now(),
        None,
    )
    .expect("no eventually property");
    eprintln!(
        "async optimized:2 P=4 f=1, fingerprints: {} states, visited set {} B, {:.1} B per state",
        explored.states,
        explored.set_bytes,
        explored.set_bytes as f64 / explored.states as f64
    );
    let six = ftcoll_verify::AsyncModel::corrected_tree(
        &crate::spec(CorrectionSpec::Checked, StartMode::Overlapped, 6),
        2,
    )
    .unwrap();
    let walk = || {
        ftcoll_verify::dpor::walks(&six, 10_000, 1, 1)
            .expect("few crash sets")
            .events
    };
    group.throughput(Throughput::Elements(walk()));
    group.bench_function("async checked P=6 f=2, 10000 random runs, 1 thread", |b| {
        b.iter(walk)
    });
    group.finish();
}

criterion_group!(benches, states_per_second);
criterion_main!(benches);
