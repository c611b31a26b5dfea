//! Throughput of the general LogP driver: simulated messages per second of
//! `ftcoll_sim::run` on Corrected Tree broadcasts at P = 2^16 (and 2^20 in the `driver_2e20`
//! group), binomial tree, `L = 2, o = 1`, dual-port LogP, for opportunistic:2 overlapped, checked
//! synchronized and failure-proof:1 synchronized correction, fault-free and with 1 % of the
//! non-root ranks failed before the operation (`round(0.01·P)` ranks drawn as `simulate
//! --fault-count` draws them, seed 1, run 0).
//!
//! Run: `cargo bench -p ftcoll-sim --bench driver` (P = 2^16 only: `cargo bench -p ftcoll-sim --bench driver -- 2e16`).
//! Criterion's `thrpt` is simulated messages per second (one iteration is one whole run, setup of
//! the driver included: building the processes, the queue and the report is part of a run).
//! `sim/benches/automaton_alone.rs` times the same runs' automata without the driver; it is a bench
//! of its own because a second automaton type driven in this binary (its recorder) changes how
//! the compiler inlines the driver here (docs/performance.md, "The automata without the driver").

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ftcoll::protocols::corrected_tree::CorrectedTreeNode;
use ftcoll_sim as sim;

#[path = "support/driver_case.rs"]
mod driver_case;

fn group(c: &mut Criterion, name: &str, procs: u32) {
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    driver_case::for_each_case(procs, |label, config, scenario| {
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

fn driver(c: &mut Criterion) {
    group(c, "driver_2e16", 1 << 16);
    group(c, "driver_2e20", 1 << 20);
}

criterion_group!(benches, driver);
criterion_main!(benches);
