//! FTCO at the paper's scale: one 64 K-node Allreduce on the multi-root 9-nomial
//! (`R = 9`, the best `k` for `L = 10`), fault-free and with 10 inactive nodes, one run per
//! iteration on one thread (the reproduction's `FtcoPrepared::run`: the scenario's draws, the
//! configuration, the LogP driver and the metrics). With inactive nodes, iteration `i` uses the
//! placement of run `i mod 10` of seed 1: a fixed set of ten placements, so that the mean is
//! comparable between two benchmark runs (placements differ a lot in cost: `ftcoll simulate
//! --procs 65536 --collective allreduce --topology knomial:best --roots k -L 10 --fault-count 10
//! --runs 3` sends 526,278 messages in run 0 and 362,709 in run 2).
//!
//! Run: `cargo bench -p ftcoll-lab --bench ftco`. Criterion's `thrpt` is events/s.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use ftcoll::topology::ftco::{Collective, FtcoKind, FtcoTopology};
use ftcoll_lab::experiment::ftco::FtcoPoint;
use ftcoll_sim::scenario::FaultSpec;

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
        let mut iteration = 0u64;
        group.bench_function(name, |b| {
            b.iter(|| {
                iteration += 1;
                black_box(prepared.run(1, iteration % 10).unwrap().metrics.latency)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, allreduce_64k);
criterion_main!(benches);
