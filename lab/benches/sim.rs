//! Simulator throughput: events/s, messages/s and runs/s of the full LogP driver and of
//! the synchronized-checked fast path, at P ∈ {2^10, 2^16, 2^20}.
//!
//! Run: `cargo bench -p ftcoll-lab --bench sim` (or one group: `cargo bench -p ftcoll-lab --bench sim -- driver`).
//! Criterion's `thrpt` is events/s, messages/s or runs/s as the group name says.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ftcoll::protocols::corrected_tree::CorrectionSpec;
use ftcoll::protocols::corrected_tree::{CorrectedTreeConfig, CorrectedTreeNode, StartMode};
use ftcoll::protocols::Side;
use ftcoll::rng::SplitMix64;
use ftcoll::topology::{LogP, Order, Tree, TreeKind};
use ftcoll_lab::fastpath::{SyncChecked, Workspace};
use ftcoll_sim::scenario::{draw_faults, FaultSpec};
use ftcoll_sim::{self as sim, Scenario};

const SIZES: [u32; 3] = [1 << 10, 1 << 16, 1 << 20];

fn config(procs: u32) -> CorrectedTreeConfig {
    let tree = Tree::new(
        TreeKind::Lame(2),
        Order::Interleaved,
        procs,
        LogP::new(2, 1).unwrap(),
    )
    .unwrap();
    CorrectedTreeConfig::new(tree, CorrectionSpec::Checked, StartMode::Synchronized)
}

/// The full driver, fault-free Lamé(2) + synchronized checked correction: events/s and
/// messages/s (one iteration is one run, so runs/s is 1 / time).
fn driver(c: &mut Criterion) {
    for (name, per_event) in [("driver_events", true), ("driver_messages", false)] {
        let mut group = c.benchmark_group(name);
        group.sample_size(10);
        for procs in SIZES {
            let config = config(procs);
            let scenario = Scenario::default();
            let report =
                sim::run::<CorrectedTreeNode>(&config, procs, &scenario, u64::MAX).unwrap();
            let units = if per_event {
                report.events
            } else {
                report.messages_total()
            };
            group.throughput(Throughput::Elements(units));
            group.bench_function(BenchmarkId::from_parameter(procs), |b| {
                b.iter(|| {
                    black_box(
                        sim::run::<CorrectedTreeNode>(&config, procs, &scenario, u64::MAX)
                            .unwrap()
                            .events,
                    )
                })
            });
        }
        group.finish();
    }
}

/// The fast path fault-free: the segment engine (every correction message simulated, calm ones
/// in bulk passes) in messages/s, and the two-phase engine CT's `L = 2, o = 1` takes (messages
/// counted from the ranks' kinds, none simulated one by one: its "messages/s" is only its run
/// time in other units). Tree messages are in the count.
fn fast_fault_free(c: &mut Criterion) {
    let mut group = c.benchmark_group("fastpath_fault_free_messages");
    group.sample_size(10);
    for procs in SIZES {
        let phased = SyncChecked::new(&config(procs).tree, Side::Left);
        assert!(phased.is_two_phase());
        let segment = phased.clone().segment_only();
        for (name, engine) in [("segment", &segment), ("two-phase", &phased)] {
            let mut ws = Workspace::new();
            let m = engine.run(&mut ws, &[]).unwrap();
            group.throughput(Throughput::Elements(m.messages));
            group.bench_function(BenchmarkId::new(name, procs), |b| {
                b.iter(|| black_box(engine.run(&mut ws, &[]).unwrap().quiescence_latency))
            });
        }
    }
    group.finish();
}

/// The fast path on random failure sets (`round(F·P)` failed ranks, as in CT Table 1), both
/// engines: runs/s. Every iteration draws 16 fresh failure sets inside the timed loop, as a
/// sweep does, so the window memo warms up as in a sweep (reusing a few sets would make every
/// window a memo hit).
fn fast_runs(c: &mut Criterion) {
    let mut group = c.benchmark_group("fastpath_runs");
    group.sample_size(10);
    for procs in SIZES {
        let phased = SyncChecked::new(&config(procs).tree, Side::Left);
        let segment = phased.clone().segment_only();
        for fraction in [0.0001, 0.01, 0.04] {
            let faults = FaultSpec::Count((fraction * f64::from(procs)).round() as u32);
            for (name, engine) in [("segment", &segment), ("two-phase", &phased)] {
                let mut ws = Workspace::new();
                let mut run = 0;
                group.throughput(Throughput::Elements(16));
                let id = BenchmarkId::new(format!("{name}/F={fraction}"), procs);
                group.bench_function(id, |b| {
                    b.iter(|| {
                        let mut acc = 0;
                        for _ in 0..16 {
                            let mut rng = SplitMix64::stream(1, run);
                            run += 1;
                            let set = draw_faults(&faults, procs, &mut rng).unwrap();
                            acc += engine.run(&mut ws, &set).unwrap().quiescence_latency;
                        }
                        black_box(acc)
                    })
                });
            }
        }
    }
    group.finish();
}

criterion_group!(benches, driver, fast_fault_free, fast_runs);
criterion_main!(benches);
