//! [`proptest`](mod@proptest) strategies for trees and fault sets (feature `proptest`), to property-test the
//! tree lemmas of CT §3.2 on your own trees (`examples/lemma_properties.rs`).
//!
//! ```
//! use ftcoll::strategies::{interleaved_trees, trees_with_faults};
//! use ftcoll::topology::{check_interleaved, Reach};
//! use proptest::prelude::*;
//! use proptest::test_runner::TestRunner;
//!
//! let mut runner = TestRunner::default();
//! // CT Lemma 1: interleaved trees satisfy Definition 1.
//! runner
//!     .run(&interleaved_trees(1..=64)?, |tree| {
//!         prop_assert_eq!(check_interleaved(&tree), None);
//!         Ok(())
//!     })
//!     .unwrap();
//! // The reach of a fault set never colors a failed rank.
//! runner
//!     .run(&trees_with_faults(1..=64, 3)?, |(tree, failed)| {
//!         let reach = Reach::compute(&tree, &failed).unwrap();
//!         prop_assert!(failed.iter().all(|f| !reach.uncolored.contains(f)));
//!         Ok(())
//!     })
//!     .unwrap();
//! # Ok::<(), ftcoll::topology::TopologyError>(())
//! ```
//!
//! Every strategy builds valid values only (`k` in `1..=8`, `L` in `0..=8`, `o` in `1..=4`, the
//! root never in a fault set), and shrinks toward small `P`, small `k` and fewer faults.

use alloc::vec::Vec;
use core::ops::RangeInclusive;

use num_integer::Integer;
use proptest::prelude::*;
use proptest::sample::subsequence;

use crate::topology::{LogP, Order, TopologyError, Tree, TreeKind, MAX_PROCS};
use crate::Rank;

/// Tree kinds: `kary:K` and `lame:K` with `K` in `1..=8`, binomial and optimal.
pub fn tree_kinds() -> impl Strategy<Value = TreeKind> + Clone {
    prop_oneof![
        (1..=8u64).prop_map(TreeKind::KAry),
        Just(TreeKind::Binomial),
        (1..=8u64).prop_map(TreeKind::Lame),
        Just(TreeKind::Optimal),
    ]
}

/// Both numberings.
pub fn orders() -> impl Strategy<Value = Order> + Clone {
    prop_oneof![Just(Order::Interleaved), Just(Order::InOrder)]
}

/// LogP parameters: `L` in `0..=8`, `o` in `1..=4`.
pub fn logps() -> impl Strategy<Value = LogP> + Clone {
    (0..=8u64, 1..=4u64).prop_map(|(l, o)| LogP::new(l, o).expect("L and o within range"))
}

/// `procs` as a non-empty range of valid `P`, or the error naming it.
fn check_procs(procs: &RangeInclusive<u32>) -> Result<(), TopologyError> {
    let (&lo, &hi) = (procs.start(), procs.end());
    if lo == 0 || hi < lo {
        return Err(TopologyError::OutOfRange {
            field: "procs",
            value: u64::from(if lo == 0 { lo } else { hi }),
            min: 1,
            max: u64::from(MAX_PROCS),
        });
    }
    Ok(())
}

/// Trees of every kind and numbering with `P` in `procs`.
///
/// Errors: `procs` empty or containing 0 ([`TopologyError::OutOfRange`], field `procs`).
pub fn trees(
    procs: RangeInclusive<u32>,
) -> Result<impl Strategy<Value = Tree> + Clone, TopologyError> {
    check_procs(&procs)?;
    Ok(
        (tree_kinds(), orders(), procs, logps()).prop_map(|(kind, order, p, logp)| {
            Tree::new(kind, order, p, logp).expect("parameters within range")
        }),
    )
}

/// The trees CT Lemma 1 speaks of: interleaved numbering, of every kind (the optimal tree only
/// when `o` divides `L`: with `o ∤ L` its numbering is not interleaved, docs/reference/topology.md
/// ("Where the CT paper is wrong or incomplete", item 2)), with
/// `P` in `procs`.
///
/// Errors: as [`trees`].
pub fn interleaved_trees(
    procs: RangeInclusive<u32>,
) -> Result<impl Strategy<Value = Tree> + Clone, TopologyError> {
    check_procs(&procs)?;
    let params = (tree_kinds(), procs, logps()).prop_filter(
        "the optimal tree is interleaved only when o divides L",
        |(kind, _, logp)| {
            *kind != TreeKind::Optimal || Integer::is_multiple_of(&logp.latency(), &logp.overhead())
        },
    );
    Ok(params.prop_map(|(kind, p, logp)| {
        Tree::new(kind, Order::Interleaved, p, logp).expect("parameters within range")
    }))
}

/// Fault sets of a `procs`-process operation: up to `max_faults` distinct non-root ranks
/// (fewer when `P − 1` is smaller), ascending. Costs `O(P)` per value.
pub fn fault_sets(procs: u32, max_faults: u32) -> impl Strategy<Value = Vec<Rank>> + Clone {
    let candidates: Vec<Rank> = (1..procs).collect();
    let most = (max_faults as usize).min(candidates.len());
    subsequence(candidates, 0..=most)
}

/// A tree from [`trees`] and a fault set from [`fault_sets`] for its `P`.
///
/// Errors: as [`trees`].
pub fn trees_with_faults(
    procs: RangeInclusive<u32>,
    max_faults: u32,
) -> Result<impl Strategy<Value = (Tree, Vec<Rank>)> + Clone, TopologyError> {
    Ok(trees(procs)?.prop_flat_map(move |tree| {
        let faults = fault_sets(tree.procs(), max_faults);
        (Just(tree), faults)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    #[test]
    fn bad_procs_ranges_are_refused_by_name() {
        #[allow(clippy::reversed_empty_ranges)] // an empty range is the point
        let empty = 5..=4;
        for range in [0..=5, empty] {
            match trees(range.clone()).map(|_| ()) {
                Err(TopologyError::OutOfRange { field, min, .. }) => {
                    assert_eq!((field, min), ("procs", 1), "{range:?}");
                }
                other => panic!("{range:?}: {other:?}"),
            }
            assert!(interleaved_trees(range.clone()).is_err());
            assert!(trees_with_faults(range, 2).is_err());
        }
    }

    #[test]
    fn values_are_within_their_bounds() {
        let mut runner = TestRunner::deterministic();
        let strategy = trees_with_faults(1..=40, 5).expect("valid range");
        let interleaved = interleaved_trees(1..=40).expect("valid range");
        let (mut saw_faults, mut saw_in_order) = (false, false);
        for _ in 0..500 {
            let (tree, faults) = strategy.new_tree(&mut runner).expect("value").current();
            assert!((1..=40).contains(&tree.procs()));
            assert!(faults.len() <= 5 && faults.windows(2).all(|w| w[0] < w[1]));
            assert!(faults.iter().all(|&f| f >= 1 && f < tree.procs()));
            saw_faults |= !faults.is_empty();
            saw_in_order |= tree.order() == Order::InOrder;
            let t = interleaved.new_tree(&mut runner).expect("value").current();
            assert_eq!(t.order(), Order::Interleaved);
            let logp = t.logp();
            assert!(
                t.kind() != TreeKind::Optimal
                    || Integer::is_multiple_of(&logp.latency(), &logp.overhead())
            );
        }
        assert!(saw_faults && saw_in_order);
        let lone = fault_sets(1, 3).new_tree(&mut runner).expect("value");
        assert!(lone.current().is_empty());
    }
}
