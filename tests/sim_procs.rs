//! `P` is given once: a driver refuses a process count other than the configuration's
//! (issue 18, item 5). Before the check, 32 processes against a 16-process tree ran and
//! reported 16 "undelivered" ranks as if they had been lost.

mod sim_common;

use ftcoll::protocols::arrival::arrival_b::ArrivalBNode;
use ftcoll::protocols::arrival::PapConfig;
use ftcoll::protocols::corrected_tree::{CorrectedTreeNode, CorrectionSpec, StartMode};
use ftcoll::protocols::gossip::gos::Gos;
use ftcoll::protocols::gossip::GossipConfig;
use ftcoll::sim::pap::{self, PapScenario};
use ftcoll::sim::{self, Scenario, Sim, SimError};
use ftcoll::topology::{Order, TreeKind};
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
