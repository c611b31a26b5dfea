//! Bad input to the CT §3.2 topology API: every invalid parameter is a typed error naming its
//! field (DESIGN.md §2: "constructors validate parameters and return a typed error"), parsing of
//! tree and order names, the Definition 1 checker's input validation, and no panics on extreme
//! but valid sizes.

use crate::common;

use common::brute_force_violation;
use ftcoll::topology::{
    check_interleaved_parents, LogP, Order, Reach, TopologyError, Tree, TreeKind, MAX_PROCS,
};
use proptest::prelude::*;

fn field_of(e: &TopologyError) -> &'static str {
    match e {
        TopologyError::OutOfRange { field, .. }
        | TopologyError::RankOutOfRange { field, .. }
        | TopologyError::Unknown { field, .. } => field,
        TopologyError::RootFailed => "faults",
        TopologyError::NotATree { .. } => "parents",
        TopologyError::Overflow { what } => what,
        other => panic!("an error added after this test: {other}"),
    }
}

/// CT §3.2 trees take `P: u32` in 1..=2^32 − 1 (ranks are u32): 0 is rejected as `procs` out
/// of range, with the field and the allowed range named in the message; the bounds themselves
/// work. (2^32 and more cannot be passed; the serialized form, which reads a `u64`, refuses
/// them the same way: lab/tests/protocols/serde_roundtrip.rs.)
#[test]
fn procs_out_of_range() {
    let logp = LogP::default();
    for kind in [
        TreeKind::KAry(2),
        TreeKind::Binomial,
        TreeKind::Lame(2),
        TreeKind::Optimal,
    ] {
        for order in [Order::Interleaved, Order::InOrder] {
            let e = Tree::new(kind, order, 0, logp).unwrap_err();
            assert_eq!(
                e,
                TopologyError::OutOfRange {
                    field: "procs",
                    value: 0,
                    min: 1,
                    max: (1 << 32) - 1
                }
            );
            assert_eq!(
                e.to_string(),
                "procs = 0 is out of range: allowed 1..=4294967295"
            );
            assert!(Tree::new(kind, order, 1, logp).is_ok());
        }
    }
    assert_eq!(MAX_PROCS, u32::MAX);
}

/// CT §3.2.1/§3.2.2: the order `k` of k-ary and Lamé trees must be in 1..=65536; `k = 0` (and
/// 65537) is an error on field `k`.
#[test]
fn order_k_out_of_range() {
    let logp = LogP::default();
    for k in [0u64, 65_537, u64::MAX] {
        for kind in [TreeKind::KAry(k), TreeKind::Lame(k)] {
            let e = Tree::new(kind, Order::Interleaved, 10, logp).unwrap_err();
            assert!(
                matches!(e, TopologyError::OutOfRange { field: "k", value, min: 1, max: 65_536 } if value == k),
                "{kind}: {e:?}"
            );
            assert!(e.to_string().starts_with("k = "), "{e}");
        }
    }
    for k in [1u64, 65_536] {
        assert!(Tree::new(TreeKind::KAry(k), Order::Interleaved, 10, logp).is_ok());
        assert!(Tree::new(TreeKind::Lame(k), Order::Interleaved, 10, logp).is_ok());
    }
}

/// CT §2.2 LogP parameters: `L` in 0..=65535 and `o` in 1..=65535; out-of-range values are errors
/// on fields `L` and `o` respectively.
#[test]
fn logp_out_of_range() {
    for l in [65_536u64, u64::MAX] {
        let e = LogP::new(l, 1).unwrap_err();
        assert_eq!(field_of(&e), "L", "{e:?}");
        assert!(e.to_string().starts_with("L = "), "{e}");
    }
    for o in [0u64, 65_536, u64::MAX] {
        let e = LogP::new(0, o).unwrap_err();
        assert_eq!(field_of(&e), "o", "{e:?}");
        assert!(e.to_string().starts_with("o = "), "{e}");
    }
    let extreme = LogP::new(65_535, 65_535).unwrap();
    assert_eq!(
        (extreme.latency(), extreme.overhead(), extreme.hop()),
        (65_535, 65_535, 3 * 65_535)
    );
    let zero = LogP::new(0, 1).unwrap();
    assert_eq!(zero.hop(), 2);
    assert_eq!(
        (LogP::default().latency(), LogP::default().overhead()),
        (2, 1)
    );
}

/// CT §3.1–3.2 reach: the root cannot fail (`RootFailed`) and a failed rank must be `< P`
/// (`RankOutOfRange` on field `faults`); a single bad rank among good ones still errors.
#[test]
fn reach_rejects_bad_failure_sets() {
    let tree = Tree::new(TreeKind::Binomial, Order::Interleaved, 10, LogP::default()).unwrap();
    assert_eq!(Reach::compute(&tree, &[0]), Err(TopologyError::RootFailed));
    assert_eq!(
        Reach::compute(&tree, &[3, 0, 5]),
        Err(TopologyError::RootFailed)
    );
    assert!(Reach::compute(&tree, &[0])
        .unwrap_err()
        .to_string()
        .contains("faults"));
    for bad in [10u32, 11, u32::MAX] {
        let e = Reach::compute(&tree, &[1, bad]).unwrap_err();
        assert_eq!(
            e,
            TopologyError::RankOutOfRange {
                field: "faults",
                rank: u64::from(bad),
                procs: 10
            }
        );
        let text = e.to_string();
        assert!(text.starts_with("faults"), "{text}");
        assert!(text.contains(&bad.to_string()), "{text}");
    }
    let single = Tree::new(TreeKind::KAry(3), Order::InOrder, 1, LogP::default()).unwrap();
    assert!(Reach::compute(&single, &[1]).is_err());
    assert_eq!(Reach::compute(&single, &[]).unwrap().gmax(), 0);
}

/// Tree names of CT §3.2 as spelled on the command line: `kary:K`, `binomial`, `lame:K`,
/// `optimal`; `K` out of range is an `OutOfRange` on `k`, anything else an `Unknown` on `tree`.
/// Display round-trips.
#[test]
fn tree_kind_parsing() {
    assert_eq!("kary:3".parse::<TreeKind>(), Ok(TreeKind::KAry(3)));
    assert_eq!("lame:2".parse::<TreeKind>(), Ok(TreeKind::Lame(2)));
    assert_eq!("binomial".parse::<TreeKind>(), Ok(TreeKind::Binomial));
    assert_eq!("optimal".parse::<TreeKind>(), Ok(TreeKind::Optimal));
    assert_eq!("kary:65536".parse::<TreeKind>(), Ok(TreeKind::KAry(65_536)));
    for (text, value) in [("lame:0", 0u64), ("kary:0", 0), ("lame:65537", 65_537)] {
        let e = text.parse::<TreeKind>().unwrap_err();
        assert!(
            matches!(e, TopologyError::OutOfRange { field: "k", value: v, .. } if v == value),
            "{text}: {e:?}"
        );
    }
    for text in [
        "foo",
        "",
        "kary",
        "kary:",
        "kary:x",
        "kary:-1",
        "kary:3:4",
        "lame: 3",
        "kary:99999999999999999999999",
        "Binomial",
        "binomial:2",
        " optimal",
        "optimal:1",
        "tree:3",
    ] {
        let e = text.parse::<TreeKind>().unwrap_err();
        assert!(
            matches!(e, TopologyError::Unknown { field: "tree", .. }),
            "{text:?}: {e:?}"
        );
        assert!(e.to_string().starts_with("tree"), "{e}");
    }
    for kind in [
        TreeKind::KAry(1),
        TreeKind::KAry(7),
        TreeKind::Binomial,
        TreeKind::Lame(3),
        TreeKind::Optimal,
    ] {
        assert_eq!(kind.to_string().parse::<TreeKind>(), Ok(kind));
    }
}

/// Numbering names (CT Fig. 3): `interleaved` and `in-order`; anything else is `Unknown` on
/// `order`. Display round-trips; the default is interleaved.
#[test]
fn order_parsing() {
    assert_eq!("interleaved".parse::<Order>(), Ok(Order::Interleaved));
    assert_eq!("in-order".parse::<Order>(), Ok(Order::InOrder));
    for text in ["inorder", "", "Interleaved", "in_order", "pre-order"] {
        let e = text.parse::<Order>().unwrap_err();
        assert!(
            matches!(e, TopologyError::Unknown { field: "order", .. }),
            "{text:?}: {e:?}"
        );
        assert!(e.to_string().starts_with("order"), "{e}");
    }
    for order in [Order::Interleaved, Order::InOrder] {
        assert_eq!(order.to_string().parse::<Order>(), Ok(order));
    }
    assert_eq!(Order::default(), Order::Interleaved);
}

/// CT Definition 1 checker input: parent links must form a tree rooted at 0 with every parent
/// below its child; otherwise `NotATree` names the first bad rank (empty input: `procs` out of
/// range).
#[test]
fn checker_rejects_non_trees() {
    assert!(matches!(
        check_interleaved_parents(&[]),
        Err(TopologyError::OutOfRange {
            field: "procs",
            value: 0,
            ..
        })
    ));
    let cases: [(&[Option<u32>], u64); 7] = [
        (&[Some(0)], 0),
        (&[None, None], 1),
        (&[None, Some(1)], 1),
        (&[None, Some(0), Some(5)], 2),
        (&[None, Some(2), Some(1)], 1),
        (&[None, Some(0), None], 2),
        (&[Some(1), Some(0)], 0),
    ];
    for (parents, rank) in cases {
        let e = check_interleaved_parents(parents).unwrap_err();
        assert_eq!(e, TopologyError::NotATree { rank }, "{parents:?}");
        assert!(e.to_string().contains(&format!("rank {rank}")), "{e}");
    }
    assert_eq!(check_interleaved_parents(&[None]), Ok(None));
    assert_eq!(check_interleaved_parents(&[None, Some(0)]), Ok(None));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// CT Definition 1 checker on arbitrary parent vectors: never panics; accepts exactly the
    /// vectors where rank 0 has no parent and every other rank a smaller parent; on those, agrees
    /// with the brute-force checker.
    #[test]
    fn checker_never_panics(parents in proptest::collection::vec(proptest::option::of(0u32..24), 0..24)) {
        let valid = !parents.is_empty()
            && parents.iter().enumerate().all(|(r, p)| match p {
                None => r == 0,
                Some(p) => (*p as usize) < r,
            });
        let result = check_interleaved_parents(&parents);
        prop_assert_eq!(result.is_ok(), valid, "{:?} -> {:?}", parents, result);
        if valid {
            prop_assert_eq!(result.unwrap().is_some(), brute_force_violation(&parents).is_some());
        }
    }

    /// CT §3.2 constructors on arbitrary parameters: never panic; succeed exactly when
    /// `1 ≤ P ≤ 2^32 − 1`, `1 ≤ k ≤ 65536`, `L ≤ 65535`, `1 ≤ o ≤ 65535`; queries on ranks
    /// beyond P answer nothing. (P is capped at 10^6 for valid-size cases to keep memory low.)
    #[test]
    fn constructors_never_panic(
        kind_tag in 0u8..4,
        k in prop_oneof![0u64..=10, 65_530u64..=65_540, any::<u64>()],
        procs in prop_oneof![Just(0u32), 0u32..=1_000_000],
        l in prop_oneof![0u64..=12, 65_530u64..=65_540],
        o in prop_oneof![0u64..=6, 65_530u64..=65_540],
        in_order in any::<bool>(),
        probe in any::<u32>(),
    ) {
        let kind = match kind_tag {
            0 => TreeKind::KAry(k),
            1 => TreeKind::Lame(k),
            2 => TreeKind::Binomial,
            _ => TreeKind::Optimal,
        };
        // k-ary with k = 1 is a chain: in-order queries walk its whole depth; keep it small.
        let procs = if kind == TreeKind::KAry(1) { procs.min(5_000) } else { procs };
        let order = if in_order { Order::InOrder } else { Order::Interleaved };
        let logp = LogP::new(l, o);
        prop_assert_eq!(logp.is_ok(), l <= 65_535 && (1..=65_535).contains(&o));
        let Ok(logp) = logp else { return Ok(()) };
        let k_ok = match kind {
            TreeKind::KAry(k) | TreeKind::Lame(k) => (1..=65_536).contains(&k),
            _ => true,
        };
        let p_ok = (1..=MAX_PROCS).contains(&procs);
        let tree = Tree::new(kind, order, procs, logp);
        prop_assert_eq!(tree.is_ok(), k_ok && p_ok, "{} P={} -> {:?}", kind, procs, tree.as_ref().err());
        if let Ok(tree) = tree {
            let r = probe % tree.procs();
            let parent = tree.parent(r);
            prop_assert_eq!(parent.is_none(), r == 0);
            if let Some(p) = parent {
                prop_assert!(p < r);
                prop_assert!(tree.children(p).any(|c| c == r));
                prop_assert_eq!(tree.level(p).map(|d| d + 1), tree.level(r));
            }
            for c in tree.children(r) {
                prop_assert_eq!(tree.parent(c), Some(r));
            }
            prop_assert!(tree.receive_time(r).unwrap() <= tree.deadline());
            prop_assert!(tree.subtree_size(r).unwrap() <= u64::from(tree.procs() - r));
            let beyond = tree.procs().checked_add(probe % 7);
            if let Some(b) = beyond {
                prop_assert_eq!(tree.parent(b), None);
                prop_assert_eq!(tree.children(b).count(), 0);
                prop_assert_eq!(tree.level(b), None);
            }
        }
    }
}

/// CT §3.2 at the largest size, `P = 2^32 − 1`: construction and single-rank queries do not panic
/// and agree with closed forms from the paper. Binary interleaved (§3.2.1): rank 2^32 − 2 is the
/// last of level 31 (offset 2^31 − 1), its parent is first(30) + (2^31 − 1) mod 2^30 = 2^31 − 2.
/// Binomial interleaved (`r + 2^i`, `2^i > r`): the parent of r clears r's highest set bit, the
/// level is r's number of set bits. Lamé(65536) and optimal with `(L, o) = (65535, 65534)`
/// (`gcd(o, 2o + L) = 1`, the largest time tables) build and answer within the limits.
#[test]
fn largest_trees_do_not_panic() {
    let logp = LogP::default();
    let last = MAX_PROCS - 1;
    let binary = Tree::new(TreeKind::KAry(2), Order::Interleaved, MAX_PROCS, logp).unwrap();
    assert_eq!(binary.parent(last), Some((1 << 31) - 2));
    assert_eq!(binary.level(last), Some(31));
    let binomial = Tree::new(TreeKind::Binomial, Order::Interleaved, MAX_PROCS, logp).unwrap();
    for r in [last, last - 1, 1 << 31, (1 << 31) + 12345, 0x5555_5555] {
        let high = 1u32 << (31 - r.leading_zeros());
        assert_eq!(binomial.parent(r), Some(r - high), "rank {r}");
        assert_eq!(binomial.level(r), Some(r.count_ones()), "rank {r}");
    }
    // Root children 2^i for i = 0..=31, in that order.
    assert!(binomial.children(0).eq((0..32).map(|i| 1u32 << i)));
    for (kind, l, o) in [
        (TreeKind::Lame(65_536), 2, 1),
        (TreeKind::Optimal, 65_535, 65_534),
    ] {
        for order in [Order::Interleaved, Order::InOrder] {
            let tree = Tree::new(kind, order, MAX_PROCS, LogP::new(l, o).unwrap()).unwrap();
            for r in [0, 1, last / 3, last] {
                let _ = (
                    tree.parent(r),
                    tree.level(r),
                    tree.subtree_size(r),
                    tree.receive_time(r),
                );
                assert!(tree.receive_time(r).unwrap() <= tree.deadline());
            }
        }
    }
}
