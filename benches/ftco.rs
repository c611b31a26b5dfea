//! FTCO at the paper's scale (issue 15): one 64 K-node Allreduce on the multi-root 9-nomial
//! (`R = 9`, the best `k` for `L = 10`), fault-free and with 10 inactive nodes, one run per
//! iteration on one thread (the reproduction's `FtcoPrepared::run`: the scenario's draws, the
//! configuration, the LogP driver and the metrics; the 10 inactive ranks are those of run `i`
//! of seed 1, so every iteration is a different placement).
//!
//! Run: `cargo bench --bench ftco`. Criterion's `thrpt` is events/s.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use ftcoll::experiment::ftco::FtcoPoint;
use ftcoll::sim::scenario::FaultSpec;
use ftcoll::topology::ftco::{Collective, FtcoKind, FtcoTopology};

fn allreduce_64k(c: &mut Criterion) {
    let topology = FtcoTopology::new(FtcoKind::KNomial(9), 9, 65_536).unwrap();
    let mut group = c.benchmark_group("ftco_allreduce_64k");
    group.sample_size(20);
    for (name, inactive) in [
        ("fault_free", FaultSpec::None),
        ("inactive_10", FaultSpec::Count(10)),
    ] {
        let mut point = FtcoPoint::new(topology, Collective::Allreduce);
        point.inactive = inactive;
        let prepared = point.prepare().unwrap();
        let events = prepared.run(1, 0).unwrap().events;
        group.throughput(Throughput::Elements(events));
        let mut run = 0u64;
        group.bench_function(name, |b| {
            b.iter(|| {
                run += 1;
                black_box(prepared.run(1, run).unwrap().metrics.latency)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, allreduce_64k);
criterion_main!(benches);
