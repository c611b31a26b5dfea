//! Property-testing the interleaving lemmas of CT §3.2 on your own trees, with the strategies
//! the crate exports (feature `proptest`, module `ftcoll::strategies`).
//!
//! ```text
//! cargo run --features proptest --example lemma_properties
//! ```
//!
//! The properties (CT §3.2.1–3.2.2, docs/reference/topology.md):
//!
//! 1. **Lemma 1**: an interleaved tree satisfies Definition 1.
//! 2. **Consecutive ranks are spread**: in an interleaved tree that is not a chain (`kary:1`),
//!    ranks `r` and `r + 1` (`1 <= r`) lie below different children of the root. (Definition 1
//!    on the root's ring: adjacent ranks descend from each other or meet only at the root, and
//!    no rank `r >= 1` has `r + 1` below it.)
//! 3. **So gaps stay small**: for any fault set, two consecutive ranks of one gap lie below
//!    different children of the root; a single failure leaves gaps of size 1 ("every k-th
//!    process is colored", §3.2.1).
//! 4. **In-order contrast**: the same shapes numbered in order put a failed rank's whole
//!    subtree in one gap (`g_max` = its subtree size), which is why CT interleaves.
//!
//! To test your trees, replace the strategies in [`properties`] (e.g. by
//! `Just(Tree::new(...)?)` or a `prop_oneof!` of your shapes). The example exits with status 1,
//! printing the smallest counterexample, if a property fails.

use std::process::ExitCode;

use ftcoll::strategies::{fault_sets, interleaved_trees, trees};
use ftcoll::topology::{check_interleaved, Order, Reach, TopologyError, Tree, TreeKind};
use ftcoll::Rank;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// The child of the root that `rank` descends from (`None` for the root).
fn branch(tree: &Tree, mut rank: Rank) -> Option<Rank> {
    loop {
        match tree.parent(rank)? {
            0 => return Some(rank),
            parent => rank = parent,
        }
    }
}

/// One property: its name and a function running it on a test runner.
type Property = (&'static str, fn(&mut TestRunner) -> Result<(), String>);

/// The properties of the module documentation, over trees of up to 300 processes.
fn properties() -> Vec<Property> {
    vec![
        (
            "Lemma 1: interleaved trees satisfy Definition 1",
            |runner| {
                let trees = interleaved_trees(1..=300).map_err(|e| e.to_string())?;
                report(runner.run(&trees, |tree| {
                    prop_assert_eq!(check_interleaved(&tree), None);
                    Ok(())
                }))
            },
        ),
        (
            "consecutive ranks lie below different children of the root",
            |runner| {
                let trees = interleaved_trees(2..=300).map_err(|e| e.to_string())?;
                let not_chains =
                    trees.prop_filter("kary:1 is a chain", |t| t.kind() != TreeKind::KAry(1));
                report(runner.run(&not_chains, |tree| {
                    for r in 1..tree.procs() - 1 {
                        prop_assert_ne!(
                            branch(&tree, r),
                            branch(&tree, r + 1),
                            "ranks {} and {}",
                            r,
                            r + 1
                        );
                    }
                    Ok(())
                }))
            },
        ),
        (
            "a gap's consecutive ranks lie below different children of the root",
            |runner| {
                let cases = with_faults(interleaved_trees(2..=300), 6)?;
                report(runner.run(&cases, |(tree, failed)| {
                    let reach = Reach::compute(&tree, &failed).expect("valid fault set");
                    for gap in &reach.gaps {
                        for r in gap.start..gap.start + gap.size as Rank - 1 {
                            prop_assert_ne!(
                                branch(&tree, r),
                                branch(&tree, r + 1),
                                "gap at {}",
                                gap.start
                            );
                        }
                    }
                    if failed.len() == 1 {
                        prop_assert_eq!(reach.gmax(), 1);
                    }
                    Ok(())
                }))
            },
        ),
        ("in-order: a failed subtree is one gap", |runner| {
            let in_order = trees(2..=300)
                .map_err(|e| e.to_string())?
                .prop_filter("in-order numbering", |t| t.order() == Order::InOrder);
            let cases =
                with_faults(Ok(in_order), 1)?.prop_filter("one failure", |(_, f)| f.len() == 1);
            report(runner.run(&cases, |(tree, failed)| {
                let reach = Reach::compute(&tree, &failed).expect("valid fault set");
                prop_assert_eq!(Some(reach.gmax()), tree.subtree_size(failed[0]));
                Ok(())
            }))
        }),
    ]
}

/// Pairs every tree but the chains (`kary:1`) with a fault set of at most `max` ranks.
fn with_faults<S: Strategy<Value = Tree>>(
    trees: Result<S, TopologyError>,
    max: u32,
) -> Result<impl Strategy<Value = (Tree, Vec<Rank>)>, String> {
    let trees = trees.map_err(|e| e.to_string())?;
    Ok(trees
        .prop_filter("kary:1 is a chain", |t| t.kind() != TreeKind::KAry(1))
        .prop_flat_map(move |tree| {
            let faults = fault_sets(tree.procs(), max);
            (Just(tree), faults)
        }))
}

/// A runner's verdict as a message.
fn report<T: std::fmt::Debug>(
    result: Result<(), proptest::test_runner::TestError<T>>,
) -> Result<(), String> {
    result.map_err(|e| e.to_string())
}

/// Runs every property with `cases` cases; returns the failures.
fn check_all(cases: u32) -> Vec<String> {
    let mut failures = Vec::new();
    for (name, property) in properties() {
        let mut runner = TestRunner::new(Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        });
        match property(&mut runner) {
            Ok(()) => println!("ok    {name} ({cases} cases)"),
            Err(e) => {
                println!("FAIL  {name}: {e}");
                failures.push(format!("{name}: {e}"));
            }
        }
    }
    failures
}

fn main() -> ExitCode {
    if check_all(256).is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

#[test]
fn the_lemmas_hold_on_generated_trees() {
    assert_eq!(check_all(128), Vec::<String>::new());
}

/// The properties can fail: chains (excluded above) break the second one, and the in-order
/// numbering breaks Lemma 1 as soon as a non-root node branches.
#[test]
fn the_properties_catch_trees_that_break_them() {
    let logp = ftcoll::topology::LogP::new(2, 1).expect("valid LogP");
    let chain = Tree::new(TreeKind::KAry(1), Order::Interleaved, 5, logp).expect("valid tree");
    assert_eq!(branch(&chain, 2), branch(&chain, 3));
    let in_order = Tree::new(TreeKind::Lame(2), Order::InOrder, 8, logp).expect("valid tree");
    assert!(check_interleaved(&in_order).is_some());
    let reach = Reach::compute(&in_order, &[1]).expect("valid fault set");
    assert!(reach.gmax() >= 2, "an in-order failed subtree is one gap");
}
