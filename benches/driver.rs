//! Throughput of the general LogP driver (issue 16): simulated messages per second of
//! `ftcoll::sim::run` on Corrected Tree broadcasts at P = 2^16 (and 2^20 in the `driver_2e20`
//! group), binomial tree, `L = 2, o = 1`, dual-port LogP, for opportunistic:2 overlapped, checked
//! synchronized and failure-proof:1 synchronized correction, fault-free and with 1 % of the
//! non-root ranks failed before the operation (`round(0.01·P)` ranks drawn as `simulate
//! --fault-count` draws them, seed 1, run 0).
//!
//! Run: `cargo bench --bench driver` (P = 2^16 only: `cargo bench --bench driver -- 2e16`).
//! Criterion's `thrpt` is simulated messages per second (one iteration is one whole run, setup of
//! the driver included: building the processes, the queue and the report is part of a run).
//!
//! The `automaton_alone_2e16` and `automaton_alone_2e20` groups time the same runs' automata
//! without the driver: every call the driver made on them, recorded once and replayed on fresh
//! automata (`benches/support/replay.rs`; building the automata is part of an iteration, copying
//! the recorded calls is not; before timing, each asserts that its replay emits the run's
//! actions and messages). The replay is a driver reduced to nothing: it is handed
//! its schedule as a list, and only reads the next call, makes it, and takes the actions out of
//! the outbox. The time between a `driver_*` row and its `automaton_alone_*` row is the
//! driver's own (docs/performance.md, issue 16's tenth slice).

use criterion::{
    black_box, criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput,
};
use ftcoll::protocols::corrected_tree::{
    CorrectedTreeConfig, CorrectedTreeNode, CorrectionSpec, StartMode,
};
use ftcoll::sim;

#[path = "support/driver_case.rs"]
mod driver_case;
#[path = "support/replay.rs"]
mod replay;

/// The three correction variants of the target, spelled as `simulate --correction`
/// spells them (`failproof:1` gets the CLI's SOS timeout).
const VARIANTS: [(&str, &str, StartMode); 3] = [
    (
        "opportunistic2-overlap",
        "opportunistic:2",
        StartMode::Overlapped,
    ),
    ("checked-sync", "checked", StartMode::Synchronized),
    ("failproof1-sync", "failproof:1", StartMode::Synchronized),
];

/// Calls `case` with the label, configuration and scenario of each of the six runs at
/// `P = procs`.
fn for_each_case(procs: u32, mut case: impl FnMut(String, &CorrectedTreeConfig, &sim::Scenario)) {
    for (label, correction, start) in VARIANTS {
        let spec: CorrectionSpec = correction.parse().unwrap();
        let config = driver_case::config(procs, spec, start).unwrap();
        for (faults, fraction) in [("fault-free", 0.0), ("1%", 0.01)] {
            let scenario = driver_case::scenario(procs, fraction).unwrap();
            case(format!("{label}/{faults}"), &config, &scenario);
        }
    }
}

fn group(c: &mut Criterion, name: &str, procs: u32) {
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    for_each_case(procs, |label, config, scenario| {
        let report = sim::run::<CorrectedTreeNode>(config, procs, scenario, u64::MAX).unwrap();
        group.throughput(Throughput::Elements(report.messages_total()));
        group.bench_function(BenchmarkId::new(label, procs), |b| {
            b.iter(|| {
                black_box(
                    sim::run::<CorrectedTreeNode>(config, procs, scenario, u64::MAX)
                        .unwrap()
                        .events,
                )
            })
        });
    });
    group.finish();
}

/// The automata of `group`'s runs without the driver (module documentation).
fn automaton_alone(c: &mut Criterion, name: &str, procs: u32) {
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    for_each_case(procs, |label, config, scenario| {
        let recording = replay::record::<CorrectedTreeNode>(config, procs, scenario).unwrap();
        // A faithful replay emits the run's actions, process by process, and its messages.
        let digest =
            replay::replay_digest::<CorrectedTreeNode>(config, procs, recording.calls.clone());
        assert!(
            digest == recording.actions,
            "{label}: the replay's {} actions differ from the run's {} (a process's, if the \
             counts are equal)",
            digest.actions(),
            recording.actions.actions()
        );
        let sends = replay::replay::<CorrectedTreeNode>(config, procs, recording.calls.clone());
        assert_eq!(sends, recording.messages, "{label}: replay diverged");
        group.throughput(Throughput::Elements(recording.messages));
        group.bench_function(BenchmarkId::new(label, procs), |b| {
            b.iter_batched(
                || recording.calls.clone(),
                |calls| black_box(replay::replay::<CorrectedTreeNode>(config, procs, calls)),
                BatchSize::LargeInput,
            )
        });
    });
    group.finish();
}

fn driver(c: &mut Criterion) {
    group(c, "driver_2e16", 1 << 16);
    automaton_alone(c, "automaton_alone_2e16", 1 << 16);
    group(c, "driver_2e20", 1 << 20);
    automaton_alone(c, "automaton_alone_2e20", 1 << 20);
}

criterion_group!(benches, driver);
criterion_main!(benches);
