//! The tree constructions of CT §3.2 against independent oracles: every kind and numbering is a
//! spanning tree rooted at 0 equal to the oracle's materialized tree (parents, children in send
//! order, levels, first send times, LogP receive times, subtree sizes, deadline); the identities
//! binomial = Lamé(1) and optimal(L, o = 1) = Lamé(L + 2); and the ready-to-send sequences R(t).

use crate::common;

use common::{all_kinds, build, greedy_informed_counts, oracle, OracleTree};
use ftcoll::topology::{LogP, Order, ReadySequence, TopologyError, Tree, TreeKind};
use proptest::prelude::*;

/// Spanning-tree laws read only from the crate's answers: rank 0 has no parent, every other rank
/// has exactly one parent, smaller than itself; `parents()` agrees with `parent()` and with
/// `children()`; a walk along `children()` from 0 reaches every rank exactly once.
fn assert_spanning(tree: &Tree, what: &str) {
    let procs = tree.procs() as usize;
    let parents = tree.parents();
    assert_eq!(parents.len(), procs, "{what}");
    assert_eq!(parents[0], None, "{what}: root has a parent");
    assert_eq!(tree.parent(0), None, "{what}");
    let mut seen = vec![false; procs];
    seen[0] = true;
    let mut stack = vec![0u32];
    let mut edges = 0;
    while let Some(r) = stack.pop() {
        for c in tree.children(r) {
            edges += 1;
            assert!(
                (c as usize) < procs,
                "{what}: child {c} of {r} out of range"
            );
            assert!(!seen[c as usize], "{what}: rank {c} reached twice");
            seen[c as usize] = true;
            assert!(r < c, "{what}: parent {r} not below child {c}");
            assert_eq!(parents[c as usize], Some(r), "{what}: parents()[{c}]");
            assert_eq!(tree.parent(c), Some(r), "{what}: parent({c})");
            stack.push(c);
        }
    }
    assert_eq!(edges, procs - 1, "{what}: edge count");
    assert!(seen.iter().all(|&s| s), "{what}: not spanning");
}

/// Compares every per-rank query of the crate's tree with the oracle.
fn assert_matches_oracle(
    tree: &Tree,
    expected: &OracleTree,
    l: u64,
    o: u64,
    ranks: &[u32],
    what: &str,
) {
    let levels = expected.levels();
    let sizes = expected.subtree_sizes();
    let times = expected.receive_times(l, o);
    for &r in ranks {
        let i = r as usize;
        assert_eq!(tree.parent(r), expected.parent[i], "{what}: parent({r})");
        let children: Vec<u32> = tree.children(r).collect();
        assert_eq!(children, expected.children[i], "{what}: children({r})");
        // `nth` jumps where `next` steps: the same child, or none past the last,
        // however far, and the iterator goes on from there.
        let expect = &expected.children[i];
        for n in (0..expect.len() + 2).chain([1 << 20, usize::MAX]) {
            let mut it = tree.children(r);
            assert_eq!(
                it.nth(n),
                expect.get(n).copied(),
                "{what}: children({r}).nth({n})"
            );
            let rest = expect.get(n.saturating_add(1)..).unwrap_or(&[]);
            assert_eq!(
                it.collect::<Vec<_>>(),
                rest,
                "{what}: children({r}) after nth({n})"
            );
        }
        if let Some(n) = expect.len().checked_sub(2) {
            let mut it = tree.children(r);
            assert_eq!(it.next(), expect.first().copied(), "{what}");
            assert_eq!(it.nth(n), expect.last().copied(), "{what}: nth after next");
        }
        assert_eq!(tree.level(r), Some(levels[i]), "{what}: level({r})");
        assert_eq!(
            tree.subtree_size(r),
            Some(sizes[i]),
            "{what}: subtree_size({r})"
        );
        assert_eq!(
            tree.receive_time(r),
            Some(times[i]),
            "{what}: receive_time({r})"
        );
        assert_eq!(
            tree.first_send_iteration(r),
            Some(expected.first_send[i]),
            "{what}: first_send_iteration({r})"
        );
    }
    assert_eq!(
        tree.deadline(),
        times.iter().copied().max().unwrap(),
        "{what}: deadline"
    );
}

/// CT §3.2 (all constructions, DESIGN.md §4): for every kind (k-ary k ∈ {1,2,3,4,7}, binomial,
/// Lamé k ∈ {1,2,3,5}, optimal for ten `(L, o)` pairs incl. `o ∤ L` and `L = 0`) and both
/// numberings, every `P ≤ 300`: a spanning tree rooted at 0 with parents below children, equal
/// rank by rank to the oracle (k-ary level arithmetic, event-driven ready-to-send construction,
/// pre-order renumbering; BFS levels/sizes/LogP receive times); ranks `>= P` answer nothing.
#[test]
fn every_tree_is_the_oracle_spanning_tree_up_to_300() {
    for (kind, l, o) in all_kinds() {
        for order in [Order::Interleaved, Order::InOrder] {
            for procs in 1..=300usize {
                let what = format!("{kind} {order} P={procs} L={l} o={o}");
                let tree = build(kind, order, procs as u32, l, o);
                assert_eq!(tree.procs() as usize, procs);
                assert_eq!((tree.kind(), tree.order()), (kind, order));
                assert_spanning(&tree, &what);
                let expected = oracle(kind, order, procs, l, o);
                assert_eq!(tree.parents(), expected.parent, "{what}: parents()");
                let ranks: Vec<u32> = (0..procs as u32).collect();
                assert_matches_oracle(&tree, &expected, l, o, &ranks, &what);
                for beyond in [procs as u32, procs as u32 + 1, u32::MAX] {
                    assert!(!tree.contains(beyond));
                    assert_eq!(tree.parent(beyond), None, "{what}");
                    assert_eq!(tree.children(beyond).count(), 0, "{what}");
                    assert_eq!(tree.level(beyond), None, "{what}");
                    assert_eq!(tree.receive_time(beyond), None, "{what}");
                    assert_eq!(tree.subtree_size(beyond), None, "{what}");
                    assert_eq!(tree.first_send_iteration(beyond), None, "{what}");
                }
            }
        }
    }
}

/// In-order numbering (CT Fig. 3/4 left) is the pre-order renumbering of the interleaved shape:
/// every subtree is a contiguous rank range starting at its root, and the multiset of
/// (level, subtree size, receive time) is the same for both numberings. P ≤ 300, all kinds.
#[test]
fn in_order_is_a_renumbering_with_contiguous_subtrees() {
    for (kind, l, o) in all_kinds() {
        for procs in [1u32, 2, 3, 7, 8, 9, 31, 100, 300] {
            let inter = build(kind, Order::Interleaved, procs, l, o);
            let pre = build(kind, Order::InOrder, procs, l, o);
            let profile = |t: &Tree| {
                let mut v: Vec<_> = (0..procs)
                    .map(|r| {
                        (
                            t.level(r),
                            t.subtree_size(r),
                            t.receive_time(r),
                            t.children(r).count(),
                        )
                    })
                    .collect();
                v.sort();
                v
            };
            assert_eq!(profile(&inter), profile(&pre), "{kind} P={procs}");
            assert_eq!(inter.deadline(), pre.deadline(), "{kind} P={procs}");
            for r in 1..procs {
                // r is in the subtree of s iff s <= r < s + size(s), for its parent chain.
                let p = pre.parent(r).unwrap();
                let size = pre.subtree_size(p).unwrap();
                assert!(
                    p < r && u64::from(r) < u64::from(p) + size,
                    "{kind} P={procs} rank {r}"
                );
            }
        }
    }
}

fn case_strategy() -> impl Strategy<Value = (TreeKind, u64, u64, Order)> {
    let kinds = all_kinds();
    (0..kinds.len(), any::<bool>()).prop_map(move |(i, pre)| {
        let (k, l, o) = kinds[i];
        (
            k,
            l,
            o,
            if pre {
                Order::InOrder
            } else {
                Order::Interleaved
            },
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    /// CT §3.2 at scale: for sampled `P ≤ 10^5`, every kind and numbering, 64 random ranks (plus
    /// the first and last) agree with the oracle on parent, children (send order), level,
    /// first send time, LogP receive time and subtree size; the deadline is the oracle maximum.
    #[test]
    fn sampled_ranks_match_oracle_up_to_1e5(
        (kind, l, o, order) in case_strategy(),
        procs in 1usize..=100_000,
        picks in proptest::collection::vec(any::<u32>(), 64),
    ) {
        let tree = build(kind, order, procs as u32, l, o);
        let expected = oracle(kind, order, procs, l, o);
        let mut ranks: Vec<u32> = picks.iter().map(|x| x % procs as u32).collect();
        ranks.push(0);
        ranks.push(procs as u32 - 1);
        let what = format!("{kind} {order} P={procs} L={l} o={o}");
        assert_matches_oracle(&tree, &expected, l, o, &ranks, &what);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 30, ..ProptestConfig::default() })]

    /// CT §3.2.1 and Eq. (1)–(2) for arbitrary orders: k-ary trees with k ∈ 2..=300 and Lamé
    /// trees with k ∈ 1..=40, both numberings, `P ≤ 3·10^4`, random LogP: every rank's parent,
    /// children, level and receive time, and the deadline, equal the oracle's.
    #[test]
    fn random_orders_match_oracle(
        kary in any::<bool>(),
        k_raw in 0u64..10_000,
        in_order in any::<bool>(),
        procs in 1usize..=30_000,
        l in 0u64..=20,
        o in 1u64..=5,
    ) {
        let kind = if kary { TreeKind::KAry(2 + k_raw % 299) } else { TreeKind::Lame(1 + k_raw % 40) };
        let order = if in_order { Order::InOrder } else { Order::Interleaved };
        let tree = build(kind, order, procs as u32, l, o);
        let expected = oracle(kind, order, procs, l, o);
        let what = format!("{kind} {order} P={procs} L={l} o={o}");
        assert_eq!(tree.parents(), expected.parent, "{what}");
        let ranks: Vec<u32> = (0..procs as u32).step_by(1 + procs / 500).chain([procs as u32 - 1]).collect();
        assert_matches_oracle(&tree, &expected, l, o, &ranks, &what);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 60, ..ProptestConfig::default() })]

    /// CT §3.2.3 for arbitrary LogP parameters (mostly `o ∤ L`, where the construction departs
    /// from the paper's formula): the optimal tree, both numberings, `P ≤ 3·10^4`, equals the
    /// event-driven greedy construction rank by rank (parents, children, level, first send time,
    /// receive time, subtree size, deadline).
    #[test]
    fn random_logp_optimal_matches_oracle(
        l in 0u64..=40,
        o in 1u64..=9,
        in_order in any::<bool>(),
        procs in 1usize..=30_000,
    ) {
        let order = if in_order { Order::InOrder } else { Order::Interleaved };
        let tree = build(TreeKind::Optimal, order, procs as u32, l, o);
        let expected = oracle(TreeKind::Optimal, order, procs, l, o);
        let what = format!("optimal {order} P={procs} L={l} o={o}");
        assert_eq!(tree.parents(), expected.parent, "{what}");
        let ranks: Vec<u32> = (0..procs as u32).step_by(1 + procs / 500).chain([procs as u32 - 1]).collect();
        assert_matches_oracle(&tree, &expected, l, o, &ranks, &what);
    }
}

/// `Tree::nodes()` (the streaming view of the CT §3.2 tree) yields every rank once, in rank
/// order, with the oracle's parent, children (send order), level and LogP receive time — all
/// kinds, both numberings, selected `P ≤ 700`.
#[test]
fn nodes_stream_matches_oracle() {
    for (kind, l, o) in all_kinds() {
        for order in [Order::Interleaved, Order::InOrder] {
            for procs in [1usize, 2, 3, 9, 64, 65, 250, 700] {
                let tree = build(kind, order, procs as u32, l, o);
                let expected = oracle(kind, order, procs, l, o);
                let levels = expected.levels();
                let times = expected.receive_times(l, o);
                let nodes: Vec<_> = tree.nodes().collect();
                assert_eq!(nodes.len(), procs, "{kind} {order} P={procs}");
                for (i, node) in nodes.iter().enumerate() {
                    let what = format!("{kind} {order} P={procs} L={l} o={o} rank {i}");
                    assert_eq!(node.rank as usize, i, "{what}");
                    assert_eq!(node.parent, expected.parent[i], "{what}");
                    assert_eq!(node.children, expected.children[i], "{what}");
                    assert_eq!(node.level, levels[i], "{what}");
                    assert_eq!(node.receive_time, times[i], "{what}");
                }
            }
        }
    }
}

/// CT §3.2.2: "With k = 1 the tree is binomial": binomial and Lamé(1) give identical trees (both
/// numberings, every rank's children, receive times, deadline) for all `P ≤ 500`.
#[test]
fn binomial_is_lame_1() {
    for order in [Order::Interleaved, Order::InOrder] {
        for procs in 1..=500u32 {
            let a = build(TreeKind::Binomial, order, procs, 3, 2);
            let b = build(TreeKind::Lame(1), order, procs, 3, 2);
            assert_eq!(a.parents(), b.parents(), "{order} P={procs}");
            assert_eq!(a.deadline(), b.deadline(), "{order} P={procs}");
            for r in 0..procs {
                assert!(
                    a.children(r).eq(b.children(r)),
                    "{order} P={procs} rank {r}"
                );
                assert_eq!(a.receive_time(r), b.receive_time(r));
                assert_eq!(a.first_send_iteration(r), b.first_send_iteration(r));
            }
        }
    }
}

/// CT §3.2.3: "A Lamé tree can constitute an optimal communication topology when 2o + L = k":
/// with `o = 1` the optimal tree is Lamé of order `L + 2` (same children for every rank, both
/// numberings, same receive times under the same LogP), for `P ≤ 500` and several `L`. More
/// generally for `o | L` the optimal shape is Lamé(2 + L/o) (time measured in units of `o`).
#[test]
fn optimal_with_unit_overhead_is_lame_l_plus_2() {
    let cases = [
        (0, 1),
        (1, 1),
        (2, 1),
        (3, 1),
        (5, 1),
        (8, 1),
        (4, 2),
        (0, 3),
        (6, 3),
        (12, 4),
    ];
    for (l, o) in cases {
        let k = 2 + l / o;
        for order in [Order::Interleaved, Order::InOrder] {
            for procs in 1..=500u32 {
                let opt = build(TreeKind::Optimal, order, procs, l, o);
                let lame = build(TreeKind::Lame(k), order, procs, l, o);
                assert_eq!(
                    opt.parents(),
                    lame.parents(),
                    "L={l} o={o} {order} P={procs}"
                );
                assert_eq!(
                    opt.deadline(),
                    lame.deadline(),
                    "L={l} o={o} {order} P={procs}"
                );
                for r in 0..procs {
                    assert!(
                        opt.children(r).eq(lame.children(r)),
                        "L={l} o={o} P={procs} rank {r}"
                    );
                    assert_eq!(
                        opt.receive_time(r),
                        lame.receive_time(r),
                        "L={l} o={o} rank {r}"
                    );
                    if o == 1 {
                        assert_eq!(opt.first_send_iteration(r), lame.first_send_iteration(r));
                    }
                }
            }
        }
    }
}

/// CT §3.2.3: in the optimal tree a process is ready to send exactly when it holds the message,
/// so its first send time (LogP time) equals its fault-free receive time, for all `(L, o)` of the
/// suite and `P ≤ 400`, both numberings.
#[test]
fn optimal_first_send_time_is_receive_time() {
    for &(l, o) in common::LOGPS {
        for order in [Order::Interleaved, Order::InOrder] {
            for procs in [1u32, 2, 5, 17, 100, 399, 400] {
                let tree = build(TreeKind::Optimal, order, procs, l, o);
                for r in 0..procs {
                    assert_eq!(
                        tree.first_send_iteration(r),
                        tree.receive_time(r),
                        "L={l} o={o} {order} P={procs} rank {r}"
                    );
                }
            }
        }
    }
}

/// CT Eq. (1), k = 3: R(0..10) = 1, 1, 1, 2, 3, 4, 6, 9, 13, 19 (hand-derived:
/// R(3) = R(2) + R(0) = 2, R(4) = R(3) + R(1) = 3, R(5) = 3 + 1 = 4, R(6) = 4 + 2 = 6,
/// R(7) = 6 + 3 = 9, R(8) = 9 + 4 = 13, R(9) = 13 + 6 = 19); R(t) = 0 for t < 0.
#[test]
fn lame3_ready_sequence_first_terms() {
    let seq = ReadySequence::lame(3).unwrap();
    let expected = [1u64, 1, 1, 2, 3, 4, 6, 9, 13, 19];
    for (t, &want) in expected.iter().enumerate() {
        assert_eq!(seq.value(t as i64), Ok(want), "R({t})");
    }
    let head: Vec<u64> = seq.iter().take(10).map(Result::unwrap).collect();
    assert_eq!(head, expected);
    for t in [-1i64, -2, -100, i64::MIN] {
        assert_eq!(seq.value(t), Ok(0), "R({t})");
    }
    assert_eq!((seq.step(), seq.ready_after()), (1, 3));
}

/// CT §3.2.2: the binomial sequence is R(t) = 2^t; R(63) = 2^63 is the last value in 64 bits,
/// R(64) reports Overflow (no panic), and the iterator yields 64 values, one Err and then stops.
#[test]
fn binomial_ready_sequence_is_powers_of_two_then_overflow() {
    for seq in [ReadySequence::binomial(), ReadySequence::lame(1).unwrap()] {
        for t in 0..64i64 {
            assert_eq!(seq.value(t), Ok(1u64 << t), "R({t})");
        }
        assert_eq!(seq.value(64), Err(TopologyError::Overflow { what: "R(t)" }));
        assert!(matches!(
            seq.value(1000),
            Err(TopologyError::Overflow { .. })
        ));
        assert!(matches!(
            seq.value(i64::MAX),
            Err(TopologyError::Overflow { .. })
        ));
        let all: Vec<_> = seq.iter().collect();
        assert_eq!(all.len(), 65);
        assert!(all[..64].iter().all(Result::is_ok));
        assert!(all[64].is_err());
    }
}

/// CT §3.2.2 footnote: Lamé of order 2 is the Fibonacci sequence, R(t) = F(t + 1)
/// (F(1) = F(2) = 1), computed here in u128; the first value beyond u64 reports Overflow.
#[test]
fn lame2_ready_sequence_is_fibonacci() {
    let seq = ReadySequence::lame(2).unwrap();
    let (mut a, mut b) = (1u128, 1u128); // F(1), F(2)
    let mut t = 0i64;
    loop {
        // a = F(t + 1)
        if a > u128::from(u64::MAX) {
            assert!(
                matches!(seq.value(t), Err(TopologyError::Overflow { .. })),
                "R({t})"
            );
            break;
        }
        assert_eq!(seq.value(t), Ok(a as u64), "R({t})");
        (a, b) = (b, a + b);
        t += 1;
    }
    assert_eq!(t, 93, "F(94) is the first Fibonacci number beyond u64");
}

/// CT §3.2.3: the optimal tree's R(t) counts processes informed by LogP time t in the greedy
/// broadcast (count-only event simulation), for every `(L, o)` of the suite, t ≤ 200 (up to the
/// first value beyond u64, which must be an Overflow error); its parameters are `a = o`, `b = 2o + L`.
#[test]
fn optimal_ready_sequence_counts_greedy_informed_processes() {
    for &(l, o) in common::LOGPS {
        let seq = ReadySequence::optimal(LogP::new(l, o).unwrap());
        assert_eq!((seq.step(), seq.ready_after()), (o, 2 * o + l));
        let counts = greedy_informed_counts(l, o, 200);
        let mut values = Vec::new();
        for (t, (value, &count)) in seq.iter().zip(&counts).enumerate() {
            if count > u128::from(u64::MAX) {
                assert!(value.is_err(), "L={l} o={o}: R({t}) = {value:?} beyond u64");
                break;
            }
            assert_eq!(value, Ok(count as u64), "L={l} o={o}: R({t})");
            values.push(count as u64);
        }
        // Hand-derived for L = 1, o = 2 (root sends at 0, 2, 4, …; receivers ready 5 later):
        if (l, o) == (1, 2) {
            assert_eq!(values[..11], [1, 1, 1, 1, 1, 2, 2, 3, 3, 4, 5]);
        }
    }
}

/// CT Eq. (1) domain: Lamé order must be in 1..=65536; huge `t` on the slowest-growing sequence
/// reports Overflow rather than panicking.
#[test]
fn ready_sequence_bounds_and_overflow() {
    assert!(matches!(
        ReadySequence::lame(0),
        Err(TopologyError::OutOfRange {
            field: "k",
            value: 0,
            ..
        })
    ));
    assert!(matches!(
        ReadySequence::lame(65_537),
        Err(TopologyError::OutOfRange {
            field: "k",
            value: 65_537,
            ..
        })
    ));
    let slow = ReadySequence::lame(65_536).unwrap();
    assert_eq!(slow.value(65_535), Ok(1));
    assert_eq!(slow.value(65_536), Ok(2));
    assert!(matches!(
        slow.value(i64::MAX),
        Err(TopologyError::Overflow { .. })
    ));
    assert!(matches!(
        ReadySequence::lame(5).unwrap().value(100_000),
        Err(TopologyError::Overflow { .. })
    ));
}
