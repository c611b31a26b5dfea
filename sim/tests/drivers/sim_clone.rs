//! `Sim::clone_from` (field by field, reusing the destination's vectors; the model checker's
//! layered search copies every successor into a state it has finished with): copying any state
//! of a run into a state of *another* run — larger or smaller, other port model, other variant —
//! gives a state equal to the source, which then runs exactly as the source does.

use ftcoll::protocols::corrected_tree::{
    CorrectedTreeConfig, CorrectedTreeNode, CorrectionSpec, StartMode,
};
use ftcoll::topology::{LogP, Order, Tree, TreeKind};
use ftcoll_sim::{PortModel, Scenario, Sim};

fn setup(correction: &str, procs: u32, model: PortModel) -> (CorrectedTreeConfig, Scenario) {
    let logp = LogP::default();
    let tree = Tree::new(TreeKind::Binomial, Order::Interleaved, procs, logp).unwrap();
    let correction: CorrectionSpec = correction.parse().unwrap();
    let config = CorrectedTreeConfig::new(tree, correction, StartMode::Overlapped);
    let scenario = Scenario {
        logp,
        model,
        crashes: vec![(3, 4), (5, 0)],
        trace: true,
        ..Default::default()
    };
    (config, scenario)
}

/// Every state of a run, in order.
fn states(
    config: &CorrectedTreeConfig,
    procs: u32,
    scenario: &Scenario,
) -> Vec<Sim<CorrectedTreeNode>> {
    let mut sim = Sim::new(config, procs, scenario).unwrap();
    let mut all = vec![sim.clone()];
    while sim.next_time().is_some() {
        sim.step(config).unwrap();
        all.push(sim.clone());
    }
    all
}

/// Copies every state of one run into a state of the other, both ways, and checks that the copy
/// equals its source and runs exactly as it does.
fn copies_between(one: (&str, u32, PortModel), other: (&str, u32, PortModel)) -> usize {
    let (first, first_scenario) = setup(one.0, one.1, one.2);
    let (second, second_scenario) = setup(other.0, other.1, other.2);
    let first_states = states(&first, one.1, &first_scenario);
    let second_states = states(&second, other.1, &second_scenario);
    assert!(first_states.len() > 5 && second_states.len() > 5);
    let mut copies = 0;
    for (sources, targets, config) in [
        (&first_states, &second_states, &first),
        (&second_states, &first_states, &second),
    ] {
        for (i, source) in sources.iter().enumerate() {
            // Copy into a target state from elsewhere in the other run.
            let mut copy = targets[(i * 7) % targets.len()].clone();
            copy.clone_from(source);
            assert!(copy == *source, "state {i} differs after clone_from");
            // And it goes on exactly as the source.
            let (mut a, mut b) = (source.clone(), copy);
            while a.next_time().is_some() {
                a.step(config).unwrap();
                b.step(config).unwrap();
                assert!(a == b, "state {i}: the copy's run diverged");
            }
            assert!(b.next_time().is_none());
            assert_eq!(a.report(), b.report());
            copies += 1;
        }
    }
    copies
}

#[test]
fn a_state_copied_into_another_runs_state_is_equal_and_runs_the_same() {
    let copies = copies_between(
        ("checked", 9, PortModel::DualPort),
        ("failproof:2", 23, PortModel::SinglePort),
    );
    assert!(copies > 10);
}

/// Into a state of the same list-holding variant, where `clone_from` copies into the
/// destination's boxes and lists (the correctors', and the messages' lists of correctors in busy
/// slots) instead of replacing them: lists of other lengths, other `f`, other sizes. This checks
/// that such copies are equal and run the same; that they allocate less is measured
/// (docs/performance.md, "Choices that rest on a measurement").
#[test]
fn a_state_copied_into_a_state_of_the_same_variant_is_equal_and_runs_the_same() {
    copies_between(
        ("failproof:1", 13, PortModel::DualPort),
        ("failproof:3", 17, PortModel::DualPort),
    );
    copies_between(
        ("delayed:3", 11, PortModel::SinglePort),
        ("delayed:5", 9, PortModel::DualPort),
    );
}
