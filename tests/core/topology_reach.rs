//! Dissemination reach after the tree phase (CT §3.1–3.2.1): uncolored ranks and ring gaps for a
//! failure set, against a brute-force oracle (walk every rank to the root; scan the ring), and the
//! k-ary resilience claim of CT §3.2.1.
//!
//! Gap semantics (docs/reference/topology.md, "Dissemination reach"): a gap is a maximal run of
//! consecutive
//! ranks that are failed or uncolored; its size counts every rank of the run; it also reports the
//! number of live uncolored ranks in it. A run of failed ranks alone is a gap too.

use crate::common;

use std::collections::BTreeMap;

use common::{all_kinds, build, oracle, reach, SplitMix};
use ftcoll::topology::{Gap, Order, Reach, Tree, TreeKind};
use proptest::prelude::*;

/// Asserts that the crate's reach equals the oracle's (uncolored set, gaps, g_max, histogram).
fn assert_reach_matches(tree: &Tree, parents: &[Option<u32>], failed: &[u32], what: &str) -> Reach {
    let got = Reach::compute(tree, failed).unwrap_or_else(|e| panic!("{what}: {e}"));
    let mut distinct = failed.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    let (uncolored, runs) = reach(parents, &distinct);
    assert_eq!(got.uncolored, uncolored, "{what}: uncolored for {failed:?}");
    let gaps: Vec<Gap> = runs
        .iter()
        .map(|&(start, size, uncolored)| Gap {
            start,
            size,
            uncolored,
        })
        .collect();
    assert_eq!(got.gaps, gaps, "{what}: gaps for {failed:?}");
    assert_eq!(
        got.gmax(),
        runs.iter().map(|r| r.1).max().unwrap_or(0),
        "{what}: gmax"
    );
    let mut histogram = BTreeMap::new();
    for r in &runs {
        *histogram.entry(r.1).or_insert(0u64) += 1;
    }
    assert_eq!(got.histogram(), histogram, "{what}: histogram");
    got
}

/// CT §3.2.1: "With k − 1 failed processes at least every k-th process is colored after the
/// dissemination" — for interleaved k-ary trees, any set of at most k − 1 failed non-root ranks
/// leaves g_max ≤ k − 1 (runs counted in ring positions, failed ranks included). Exhaustive over
/// all failure sets of size k − 1 for k = 2 (P ≤ 200), k = 3 (P ≤ 60), k = 4 (P ∈ {21, 40}),
/// k = 5 (P = 26).
#[test]
fn kary_tolerates_k_minus_1_failures_exhaustively() {
    fn subsets(n: u32, size: usize, start: u32, current: &mut Vec<u32>, f: &mut dyn FnMut(&[u32])) {
        if current.len() == size {
            f(current);
            return;
        }
        for r in start..n {
            current.push(r);
            subsets(n, size, r + 1, current, f);
            current.pop();
        }
    }
    let cases: Vec<(u64, Vec<u32>)> = vec![
        (2, (2..=200).collect()),
        (3, (3..=60).collect()),
        (4, vec![21, 40]),
        (5, vec![26]),
    ];
    for (k, sizes) in cases {
        for procs in sizes {
            let tree = build(TreeKind::KAry(k), Order::Interleaved, procs, 2, 1);
            let size = (k as usize - 1).min(procs as usize - 1);
            subsets(procs, size, 1, &mut Vec::new(), &mut |failed| {
                let got = Reach::compute(&tree, failed).unwrap();
                assert!(
                    got.gmax() < k,
                    "kary:{k} P={procs} failed {failed:?}: g_max {} ({:?})",
                    got.gmax(),
                    got.gaps
                );
            });
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// CT §3.2.1 at scale: k ∈ 2..=6, P ≤ 5000, random sets of at most k − 1 failed non-root
    /// ranks: g_max ≤ k − 1 on the interleaved k-ary tree, and the reach equals the oracle's.
    #[test]
    fn kary_k_minus_1_failures_keep_gmax_below_k(
        k in 2u64..=6,
        procs in 2u32..=5000,
        raw in proptest::collection::vec(any::<u32>(), 0..6),
    ) {
        let failed: Vec<u32> = raw
            .iter()
            .take(k as usize - 1)
            .map(|x| 1 + x % (procs - 1))
            .collect();
        let tree = build(TreeKind::KAry(k), Order::Interleaved, procs, 2, 1);
        let expected = oracle(TreeKind::KAry(k), Order::Interleaved, procs as usize, 2, 1);
        let got = assert_reach_matches(&tree, &expected.parent, &failed, &format!("kary:{k} P={procs}"));
        prop_assert!(got.gmax() < k, "kary:{} P={} failed {:?}: {:?}", k, procs, failed, got.gaps);
    }

    /// CT §3.1–3.2: for every kind and numbering, P ≤ 3000, random failure sets (duplicates
    /// allowed, up to 12 ranks): uncolored ranks, gaps, g_max and histogram equal the oracle's.
    #[test]
    fn reach_matches_oracle_for_all_kinds(
        index in 0usize..20,
        in_order in any::<bool>(),
        procs in 2u32..=3000,
        raw in proptest::collection::vec(any::<u32>(), 0..12),
    ) {
        let kinds = all_kinds();
        let (kind, l, o) = kinds[index % kinds.len()];
        let order = if in_order { Order::InOrder } else { Order::Interleaved };
        let failed: Vec<u32> = raw.iter().map(|x| 1 + x % (procs - 1)).collect();
        let tree = build(kind, order, procs, l, o);
        let expected = oracle(kind, order, procs as usize, l, o);
        assert_reach_matches(&tree, &expected.parent, &failed, &format!("{kind} {order} P={procs}"));
    }
}

/// CT §3.2.1: "No such guarantee can be given for k or more failures, because in the (very
/// unlikely) worst case all children of the root process can fail." With ranks 1..=k failed,
/// every rank ≥ 1 descends from a failed root child, so the whole ring but rank 0 is one run:
/// gap {start 1, size P − 1, uncolored P − 1 − k}, g_max = P − 1 ≥ k once P ≥ k + 2.
#[test]
fn kary_k_failures_of_the_root_children_break_the_bound() {
    for k in 2u64..=6 {
        for procs in k as u32 + 2..=200 {
            let tree = build(TreeKind::KAry(k), Order::Interleaved, procs, 2, 1);
            let failed: Vec<u32> = (1..=k as u32).collect();
            let got = Reach::compute(&tree, &failed).unwrap();
            assert_eq!(
                got.gaps,
                vec![Gap {
                    start: 1,
                    size: u64::from(procs) - 1,
                    uncolored: u64::from(procs) - 1 - k
                }],
                "kary:{k} P={procs}"
            );
            assert_eq!(got.uncolored, (k as u32 + 1..procs).collect::<Vec<_>>());
            assert!(got.gmax() >= k);
        }
    }
}

/// CT §3.1–3.2: exhaustively for every kind and numbering, P ≤ 10, every failure subset of the
/// non-root ranks: the reach equals the oracle's.
#[test]
fn reach_matches_oracle_exhaustively_for_small_trees() {
    for (kind, l, o) in all_kinds() {
        for order in [Order::Interleaved, Order::InOrder] {
            for procs in 1..=10usize {
                let tree = build(kind, order, procs as u32, l, o);
                let expected = oracle(kind, order, procs, l, o);
                for mask in 0u32..1 << (procs - 1) {
                    let failed: Vec<u32> = (1..procs as u32)
                        .filter(|r| mask >> (r - 1) & 1 == 1)
                        .collect();
                    assert_reach_matches(
                        &tree,
                        &expected.parent,
                        &failed,
                        &format!("{kind} {order} P={procs}"),
                    );
                }
            }
        }
    }
}

/// CT §3.2 ("A single fault (process 4) will leave two consecutive processes uncolored"): in an
/// in-order tree a subtree is a contiguous rank range, so failing a non-root rank r yields exactly
/// one gap starting at r whose size is r's subtree size (oracle) — while on the interleaved k-ary
/// tree a single failure never leaves a gap larger than 1 (§3.2.1 with k ≥ 2). All kinds, P = 500.
#[test]
fn single_failures_in_order_versus_interleaved() {
    for (kind, l, o) in all_kinds() {
        let procs = 500usize;
        let pre = build(kind, Order::InOrder, procs as u32, l, o);
        let sizes = oracle(kind, Order::InOrder, procs, l, o).subtree_sizes();
        let mut rng = SplitMix(0xFA11);
        for _ in 0..50 {
            let r = 1 + rng.below(procs as u64 - 1) as u32;
            let got = Reach::compute(&pre, &[r]).unwrap();
            let size = sizes[r as usize];
            assert_eq!(
                got.gaps,
                vec![Gap {
                    start: r,
                    size,
                    uncolored: size - 1
                }],
                "{kind} in-order P={procs} failed {r}"
            );
        }
    }
    for k in 2u64..=7 {
        let tree = build(TreeKind::KAry(k), Order::Interleaved, 500, 2, 1);
        for r in 1..500u32 {
            assert!(
                Reach::compute(&tree, &[r]).unwrap().gmax() <= 1,
                "kary:{k} failed {r}"
            );
        }
    }
}

/// CT §3.1: with no failures every process is colored (no uncolored ranks, no gaps, g_max 0); the
/// failure list is a set (order and duplicates do not matter); a failed descendant of a failed
/// rank counts as failed, not uncolored.
#[test]
fn reach_basic_laws() {
    for (kind, l, o) in all_kinds() {
        for order in [Order::Interleaved, Order::InOrder] {
            let tree = build(kind, order, 64, l, o);
            let none = Reach::compute(&tree, &[]).unwrap();
            assert!(
                none.uncolored.is_empty() && none.gaps.is_empty(),
                "{kind} {order}"
            );
            assert_eq!(none.gmax(), 0);
            assert!(none.histogram().is_empty());
            let a = Reach::compute(&tree, &[9, 3, 40, 3, 9]).unwrap();
            let b = Reach::compute(&tree, &[3, 9, 40]).unwrap();
            assert_eq!(a, b, "{kind} {order}");
        }
    }
    // Binary interleaved P = 7: fail 1 and its child 3 → 3 is failed, 5 uncolored; ring
    // 0 [1] 2 [3] 4 [5] 6: runs {1}, {3}, {5}; only {5} holds a live uncolored rank.
    let tree = build(TreeKind::KAry(2), Order::Interleaved, 7, 2, 1);
    let got = Reach::compute(&tree, &[1, 3]).unwrap();
    assert_eq!(got.uncolored, vec![5]);
    assert_eq!(
        got.gaps
            .iter()
            .map(|g| (g.start, g.size, g.uncolored))
            .collect::<Vec<_>>(),
        vec![(1, 1, 0), (3, 1, 0), (5, 1, 1)]
    );
}
