//! The automata of `sim/benches/driver.rs`'s runs without the driver: every call the
//! driver made on them, recorded once and replayed on fresh automata
//! (`sim/benches/support/replay.rs`; building the automata is part of an iteration, copying the
//! recorded calls is not; each case is first checked: the recorded run sends the plain run's
//! messages, and a replay gives its actions and idle answers, process by process). The replay
//! is a driver reduced to nothing: it is handed its schedule as a list, and only reads the next
//! call, makes it, and takes the actions out of the outbox. The time between a `driver_*` row
//! and its `automaton_alone_*` row is the driver's own (docs/performance.md, "The automata without the driver").
//!
//! Run: `cargo bench -p ftcoll-sim --bench driver --bench automaton_alone` (both, one after the other), or
//! `cargo bench -p ftcoll-sim --bench automaton_alone -- 2e16`.

use criterion::{
    black_box, criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput,
};
use ftcoll::protocols::corrected_tree::CorrectedTreeNode;

#[path = "support/driver_case.rs"]
mod driver_case;
#[path = "support/replay.rs"]
mod replay;

fn group(c: &mut Criterion, name: &str, procs: u32) {
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    driver_case::for_each_case(procs, |label, config, scenario| {
        let recording = replay::verified::<CorrectedTreeNode>(config, procs, scenario, false)
            .unwrap_or_else(|e| panic!("{label}: {e}"));
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

fn automaton_alone(c: &mut Criterion) {
    group(c, "automaton_alone_2e16", 1 << 16);
    group(c, "automaton_alone_2e20", 1 << 20);
}

criterion_group!(benches, automaton_alone);
criterion_main!(benches);
