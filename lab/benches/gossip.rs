//! Corrected Gossip at CG Table 7's size (N = 4096, L = 2, O = 1, f̂ = 0, `T` and OCG's `C`
//! from the model): one whole run per iteration on one thread (`CgPoint::run`: the scenario's
//! draws, the automata, the LogP driver and the metrics), for GOS, OCG, CCG and FCG(1), under
//! both receive models of the driver (`IgnoredMessages`): `free`, the paper's, which
//! `reproduce cg` runs (a duplicate is dropped unread when it arrives), and `charged` (it takes
//! `o` off the receive port). Iteration `i` runs run `i mod 10` of seed 1, a fixed set of ten
//! target sequences, so two benchmark runs compare the same work.
//!
//! Run: `cargo bench -p ftcoll-lab --bench gossip`. Criterion's `thrpt` is messages sent per second.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use ftcoll_lab::experiment::cg::{table7_rows, CgProtocol};
use ftcoll_sim::IgnoredMessages;

fn table7_fault_free(c: &mut Criterion) {
    let rows = table7_rows().unwrap();
    let mut group = c.benchmark_group("cg_table7_fault_free");
    group.sample_size(20);
    for protocol in [
        CgProtocol::Gos,
        CgProtocol::Ocg,
        CgProtocol::Ccg,
        CgProtocol::Fcg(1),
    ] {
        let row = rows
            .iter()
            .find(|r| r.protocol == protocol && r.fhat == 0 && r.t_source == "model")
            .unwrap();
        for (model, ignored) in [
            ("free", IgnoredMessages::Free),
            ("charged", IgnoredMessages::Charged),
        ] {
            let mut point = row.point.clone();
            point.spec = point.spec.clone().with_ignored(ignored);
            let sent = point.run(1, 0).unwrap().messages.iter().sum::<u64>();
            group.throughput(Throughput::Elements(sent));
            let mut iteration = 0u64;
            group.bench_function(format!("{protocol}_{model}"), |b| {
                b.iter(|| {
                    iteration += 1;
                    black_box(point.run(1, iteration % 10).unwrap().quiescence_latency)
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, table7_fault_free);
criterion_main!(benches);
