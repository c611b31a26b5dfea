//! The contract's values and reductions (docs/guide.md, "Values and reductions"; FTCO §3–4):
//! every provided operator is associative and commutative, and its idempotence flag tells the
//! truth — protocols rely on that flag to decide whether a value may be counted twice (FTCO §4:
//! "each value is used only once" for non-idempotent operators).

use ftcoll::automaton::{BitOr, Contributions, Max, Message, Min, Reduction, Sum};
use ftcoll::protocols::corrected_tree::{
    CorrectedTreeConfig, CorrectedTreeNode, CorrectionSpec, StartMode,
};
use ftcoll::topology::{LogP, Order, Tree, TreeKind};
use ftcoll_sim::{self as sim, Scenario};
use proptest::prelude::*;

fn laws<R: Reduction>(op: &R, a: &R::Value, b: &R::Value, c: &R::Value) {
    let ab_c = op.combine(&op.combine(a, b), c);
    let a_bc = op.combine(a, &op.combine(b, c));
    assert_eq!(ab_c, a_bc, "{op:?} is not associative");
    if op.is_commutative() {
        assert_eq!(
            op.combine(a, b),
            op.combine(b, a),
            "{op:?} is not commutative"
        );
    }
    if op.is_idempotent() {
        assert_eq!(&op.combine(a, a), a, "{op:?} claims idempotence");
    }
}

fn contributions() -> impl Strategy<Value = Vec<(u32, u32)>> {
    proptest::collection::btree_map(0u32..16, 1u32..4, 0..6)
        .prop_map(|m| m.into_iter().collect::<Vec<_>>())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn integer_operators_are_associative_commutative_and_honest(a: u64, b: u64, c: u64) {
        // FTCO combines partials in the order the tree delivers them: these must say so.
        prop_assert!(Sum.is_commutative() && Min.is_commutative());
        prop_assert!(Max.is_commutative() && BitOr.is_commutative());
        prop_assert!(Contributions.is_commutative());
        laws(&Sum, &a, &b, &c);
        laws(&Min, &a, &b, &c);
        laws(&Max, &a, &b, &c);
        laws(&BitOr, &a, &b, &c);
    }

    #[test]
    fn contributions_count_every_operand_exactly(
        a in contributions(),
        b in contributions(),
        c in contributions(),
    ) {
        laws(&Contributions, &a, &b, &c);
        let total = |v: &Vec<(u32, u32)>| v.iter().map(|x| u64::from(x.1)).sum::<u64>();
        let all = Contributions.combine(&Contributions.combine(&a, &b), &c);
        prop_assert_eq!(total(&all), total(&a) + total(&b) + total(&c));
        prop_assert!(all.windows(2).all(|w| w[0].0 < w[1].0), "sorted, one entry per rank");
    }
}

/// The non-idempotent operators really are: counting a value twice changes the result, which is
/// what a protocol that double-counts would be caught by.
#[test]
fn sum_and_contributions_are_not_idempotent() {
    assert!(!Sum.is_idempotent());
    assert_ne!(Sum.combine(&3, &3), 3);
    assert!(!Contributions.is_idempotent());
    let one = vec![(5u32, 1u32)];
    assert_eq!(Contributions.combine(&one, &one), vec![(5, 2)]);
    // Overflow wraps instead of panicking (the contract: no panic on any operand).
    assert_eq!(Sum.combine(&u64::MAX, &2), 1);
}

/// The Corrected Tree family keeps its `u64` payload and charges nothing by size: its messages
/// report size 0, and a run's report carries the configured payload.
#[test]
fn corrected_tree_values_are_the_configured_payload() {
    let tree = Tree::new(
        TreeKind::Lame(2),
        Order::Interleaved,
        16,
        LogP::new(2, 1).unwrap(),
    )
    .unwrap();
    let mut config =
        CorrectedTreeConfig::new(tree, CorrectionSpec::Checked, StartMode::Synchronized);
    config.payload = 0xfeed;
    let scenario = Scenario {
        logp: LogP::new(2, 1).unwrap(),
        model: sim::PortModel::DualPort,
        arrivals: Vec::new(),
        crashes: Vec::new(),
        trace: false,
        ignored: Default::default(),
    };
    let report = sim::run::<CorrectedTreeNode>(&config, 16, &scenario, 1 << 20).unwrap();
    assert!((0..report.procs).all(|k| report.delivered_value(k) == Some(&0xfeed)));
    let msg = ftcoll::protocols::message::Msg {
        value: 1,
        body: ftcoll::protocols::message::Body::Tree,
    };
    assert_eq!(msg.size(), 0);
}
