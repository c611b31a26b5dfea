//! `P` is given once: a driver refuses a process count other than the configuration's.
//! Before the check, 32 processes against a 16-process tree ran and
//! reported 16 "undelivered" ranks as if they had been lost.

use crate::sim_common;

use ftcoll::protocols::arrival::arrival_b::ArrivalBNode;
use ftcoll::protocols::arrival::PapConfig;
use ftcoll::protocols::corrected_tree::{CorrectedTreeNode, CorrectionSpec, StartMode};
use ftcoll::protocols::gossip::gos::Gos;
use ftcoll::protocols::gossip::GossipConfig;
use ftcoll::topology::{Order, TreeKind};
use ftcoll_sim::pap::{self, PapScenario};
use ftcoll_sim::{self as sim, Scenario, Sim, SimError};
use sim_common::*;

fn ct16() -> ftcoll::protocols::corrected_tree::CorrectedTreeConfig {
    config(
        tree(TreeKind::Binomial, Order::Interleaved, 16, 2, 1),
        CorrectionSpec::Checked,
        StartMode::Synchronized,
    )
}

#[test]
fn sim_run_refuses_more_processes_than_the_tree() {
    let c = ct16();
    let err = sim::run::<CorrectedTreeNode>(&c, 32, &scenario(2, 1, &[]), 1 << 20).unwrap_err();
    assert_eq!(
        err,
        SimError::ProcsMismatch {
            given: 32,
            config: 16
        }
    );
    let text = err.to_string();
    assert!(text.starts_with("procs:"), "{text}");
    assert!(text.contains("32") && text.contains("P = 16"), "{text}");
}

#[test]
fn sim_run_refuses_fewer_processes_than_the_tree() {
    let c = ct16();
    let err = sim::run::<CorrectedTreeNode>(&c, 8, &scenario(2, 1, &[]), 1 << 20).unwrap_err();
    assert_eq!(
        err,
        SimError::ProcsMismatch {
            given: 8,
            config: 16
        }
    );
}

#[test]
fn the_matching_count_runs_and_delivers_everywhere() {
    let c = ct16();
    let report = sim::run::<CorrectedTreeNode>(&c, 16, &scenario(2, 1, &[]), 1 << 20).unwrap();
    assert_eq!(report.procs, 16);
    assert_eq!(report.undelivered(), 0);
}

#[test]
fn sim_new_and_run_observed_refuse_a_mismatch() {
    let c = ct16();
    let s = scenario(2, 1, &[]);
    assert!(matches!(
        Sim::<CorrectedTreeNode>::new(&c, 32, &s),
        Err(SimError::ProcsMismatch {
            given: 32,
            config: 16
        })
    ));
    assert!(matches!(
        sim::run_observed::<CorrectedTreeNode>(&c, 17, &s, 1 << 20, |_| {}),
        Err(SimError::ProcsMismatch {
            given: 17,
            config: 16
        })
    ));
}

#[test]
fn gossip_refuses_a_mismatch() {
    let g = GossipConfig::new(16, logp(2, 1), 10, 1).unwrap();
    let err = sim::run::<Gos>(&g, 32, &Scenario::default(), 1 << 20).unwrap_err();
    assert_eq!(
        err,
        SimError::ProcsMismatch {
            given: 32,
            config: 16
        }
    );
}

#[test]
fn pap_run_refuses_a_mismatch() {
    let c = PapConfig::new(16, 3).unwrap();
    let err = pap::run::<ArrivalBNode>(&c, 32, &PapScenario::default(), 1 << 20).unwrap_err();
    assert_eq!(
        err,
        SimError::ProcsMismatch {
            given: 32,
            config: 16
        }
    );
}

/// Every process count of the API is a `u32`: one `procs` variable builds the tree, the other
/// protocols' configurations, the scenario and the driver, with no conversion in between (a
/// constructor taking another integer type does not compile here).
#[test]
fn one_u32_process_count_serves_every_constructor_and_the_driver() {
    use ftcoll::protocols::gossip::bfb::BfbConfig;
    use ftcoll::protocols::gossip::big::BigConfig;
    use ftcoll::topology::ftco::{best_knomial, Collective, FtcoKind, FtcoTopology, Roots};
    use ftcoll::topology::{LogP, Tree};
    use ftcoll_sim::scenario::ScenarioSpec;

    let procs: u32 = 16;
    let logp = LogP::new(2, 1).unwrap();
    let tree = Tree::new(TreeKind::Binomial, Order::Interleaved, procs, logp).unwrap();
    assert_eq!(tree.procs(), procs);
    let c = config(tree, CorrectionSpec::Checked, StartMode::Synchronized);
    let (s, failed) = ScenarioSpec::new(procs, logp).build(1, 0).unwrap();
    assert!(failed.is_empty());
    let driver = Sim::<CorrectedTreeNode>::new(&c, procs, &s).unwrap();
    assert_eq!(driver.report().procs, procs);
    let report = sim::run::<CorrectedTreeNode>(&c, procs, &s, sim::default_budget(procs)).unwrap();
    assert_eq!(report.undelivered(), 0);

    assert_eq!(GossipConfig::new(procs, logp, 10, 1).unwrap().procs, procs);
    assert_eq!(BigConfig::new(procs).unwrap().procs, procs);
    assert_eq!(BfbConfig::new(procs, logp).unwrap().procs, procs);
    assert_eq!(PapConfig::new(procs, 3).unwrap().procs(), procs);
    let ftco = FtcoTopology::new(FtcoKind::KNomial(2), 1, procs).unwrap();
    assert_eq!(ftco.procs(), procs);
    assert!(best_knomial(Collective::Bcast, procs, 2, Roots::Single).is_ok());
}

/// `P = 0` is refused by every constructor that takes a process count, as `procs` out of
/// `1..=2^32 − 1`, before anything is built.
#[test]
fn zero_processes_is_out_of_range_naming_procs() {
    use ftcoll::protocols::gossip::bfb::BfbConfig;
    use ftcoll::protocols::gossip::big::BigConfig;
    use ftcoll::topology::ftco::{best_knomial, Collective, FtcoKind, FtcoTopology, Roots};
    use ftcoll::topology::{LogP, TopologyError, Tree, MAX_PROCS};

    let procs: u32 = 0;
    let logp = LogP::new(2, 1).unwrap();
    let expected = TopologyError::OutOfRange {
        field: "procs",
        value: 0,
        min: 1,
        max: u64::from(MAX_PROCS),
    };
    let message = "procs = 0 is out of range: allowed 1..=4294967295";
    let tree = Tree::new(TreeKind::Binomial, Order::Interleaved, procs, logp).unwrap_err();
    assert_eq!(tree, expected);
    assert_eq!(tree.to_string(), message);
    for e in [
        GossipConfig::new(procs, logp, 10, 1).unwrap_err(),
        BigConfig::new(procs).unwrap_err(),
        BfbConfig::new(procs, logp).unwrap_err(),
        FtcoTopology::new(FtcoKind::KNomial(2), 1, procs).unwrap_err(),
        best_knomial(Collective::Bcast, procs, 2, Roots::Single).unwrap_err(),
    ] {
        assert_eq!(e, expected);
    }
    let pap = PapConfig::new(procs, 3).unwrap_err();
    assert!(pap.to_string().starts_with("procs"), "{pap}");
    assert!(pap.to_string().contains("1..=4294967295"), "{pap}");
}
