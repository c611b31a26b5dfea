//! `Sim::clone_from` (field by field, reusing the destination's vectors; the model checker's
//! layered search copies every successor into a state it has finished with): copying any state
//! of a run into a state of *another* run — larger or smaller, other port model, other variant —
//! gives a state equal to the source, which then runs exactly as the source does.

use ftcoll::protocols::corrected_tree::{
    CorrectedTreeConfig, CorrectedTreeNode, CorrectionSpec, StartMode,
};
use ftcoll::sim::{PortModel, Scenario, Sim};
use ftcoll::topology::{LogP, Order, Tree, TreeKind};

fn setup(correction: &str, procs: u32, model: PortModel) -> (CorrectedTreeConfig, Scenario) {
    let logp = LogP::default();
    let tree = Tree::new(
        TreeKind::Binomial,
        Order::Interleaved,
        u64::from(procs),
        logp,
    )
    .unwrap();
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

#[test]
fn a_state_copied_into_another_runs_state_is_equal_and_runs_the_same() {
    let (small, small_scenario) = setup("checked", 9, PortModel::DualPort);
    let (large, large_scenario) = setup("failproof:2", 23, PortModel::SinglePort);
    let small_states = states(&small, 9, &small_scenario);
    let large_states = states(&large, 23, &large_scenario);
    assert!(small_states.len() > 5 && large_states.len() > 5);
    let mut copies = 0;
    for (sources, targets, config) in [
        (&small_states, &large_states, &small),
        (&large_states, &small_states, &large),
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
    assert!(copies > 10);
}
