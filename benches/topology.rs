//! Tree queries and Definition 1 checking at P = 2^20.
//!
//! Run: `cargo bench --bench topology`.

use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion};
use ftcoll::topology::{check_interleaved, LogP, Order, Reach, Tree, TreeKind};

const PROCS: u32 = 1 << 20;

fn kinds() -> [TreeKind; 4] {
    [
        TreeKind::KAry(4),
        TreeKind::Binomial,
        TreeKind::Lame(2),
        TreeKind::Optimal,
    ]
}

/// A fixed pseudo-random sequence of ranks (splitmix64) so every run queries the same ranks.
fn ranks(count: usize) -> Vec<u32> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    (0..count)
        .map(|_| {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            ((z ^ (z >> 31)) % u64::from(PROCS)) as u32
        })
        .collect()
}

fn queries(c: &mut Criterion) {
    let logp = LogP::new(2, 1).unwrap();
    let sample = ranks(1024);
    let mut group = c.benchmark_group("query_1024_ranks_p2^20");
    for kind in kinds() {
        for order in [Order::Interleaved, Order::InOrder] {
            let tree = Tree::new(kind, order, PROCS, logp).unwrap();
            group.bench_function(format!("{kind}/{order}/parent+children+recv"), |b| {
                b.iter(|| {
                    let mut acc = 0u64;
                    for &r in &sample {
                        acc += u64::from(tree.parent(r).unwrap_or(0));
                        acc += tree.children(r).map(u64::from).sum::<u64>();
                        acc += tree.receive_time(r).unwrap_or(0);
                    }
                    black_box(acc)
                })
            });
        }
    }
    group.finish();
}

fn construction(c: &mut Criterion) {
    let logp = LogP::new(2, 1).unwrap();
    let mut group = c.benchmark_group("construct_p2^20");
    for kind in kinds() {
        group.bench_function(format!("{kind}"), |b| {
            b.iter(|| black_box(Tree::new(kind, Order::Interleaved, PROCS, logp).unwrap()))
        });
    }
    group.finish();
}

fn definition1(c: &mut Criterion) {
    let logp = LogP::new(2, 1).unwrap();
    let mut group = c.benchmark_group("definition1_p2^20");
    group.sample_size(10);
    for kind in kinds() {
        for order in [Order::Interleaved, Order::InOrder] {
            let tree = Tree::new(kind, order, PROCS, logp).unwrap();
            group.bench_function(format!("{kind}/{order}"), |b| {
                b.iter(|| black_box(check_interleaved(&tree)))
            });
        }
    }
    group.finish();
}

fn reach(c: &mut Criterion) {
    let logp = LogP::new(2, 1).unwrap();
    let mut group = c.benchmark_group("reach_p2^20_1pct_faults");
    group.sample_size(10);
    let faults: Vec<u32> = ranks(PROCS as usize / 100)
        .into_iter()
        .filter(|&r| r != 0)
        .collect();
    for kind in kinds() {
        let tree = Tree::new(kind, Order::Interleaved, PROCS, logp).unwrap();
        group.bench_function(format!("{kind}"), |b| {
            b.iter_batched(
                || faults.clone(),
                |f| black_box(Reach::compute(&tree, &f).unwrap()),
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, construction, queries, definition1, reach);
criterion_main!(benches);
