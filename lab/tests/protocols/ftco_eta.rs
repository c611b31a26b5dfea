//! The slack of the result's `f_ETA` (FTCO §4, "Data Propagation Disruptions"; `EtaRule`):
//! what each rule adds, that fault-free runs do not change, and that `parent-recovery` keeps one
//! inactive node's work penalty within twice the paper's Fig. 9 (0.5 messages per process at
//! 1 K nodes) without suspecting any live process.

use crate::ftco_common;

use ftco_common::*;
use ftcoll::automaton::Sum;
use ftcoll::protocols::ftco::{EtaRule, FtcoConfig, FtcoNode, TimeoutRule};
use ftcoll::topology::ftco::{Collective, FtcoKind};
use ftcoll::Rank;
use ftcoll_lab::ftco_metrics::FtcoMetrics;
use ftcoll_sim::Sim;

/// FTCO §5.2.2, Fig. 9: "with 1K nodes and one inactive node, each of the 1023 nodes sends on
/// average 0.5 more messages during a run".
const PAPER_WORK_PENALTY_1K: f64 = 0.5;

#[test]
fn each_rule_adds_its_recoveries_of_non_root_ancestors() {
    // Binary heap 0..15, L = 10: f_timeout(a, b) = 24 + 2 · (deg(a) + deg(b)) for neighbours
    // (rule 2), round trip 24. deg(0) = 2, deg(1) = deg(3) = 3.
    let mut cfg = sum_config(FtcoKind::KAry(2), 1, 15, Collective::Allreduce, 10);
    let recovery_1 = 24 + 2 * (3 + 2) + 24; // rank 1 suspects rank 0, fetches from nobody higher
    let recovery_3 = 24 + 2 * (3 + 3) + 24;
    assert_eq!(cfg.result_slack(7), 0, "exact is the default");
    cfg.eta = EtaRule::ParentRecovery;
    assert_eq!(cfg.result_slack(0), 0, "the root");
    assert_eq!(cfg.result_slack(1), 0, "a root's child");
    assert_eq!(cfg.result_slack(3), recovery_1);
    assert_eq!(cfg.result_slack(7), recovery_3);
    cfg.eta = EtaRule::AncestorRecovery;
    assert_eq!(cfg.result_slack(1), 0);
    assert_eq!(cfg.result_slack(3), recovery_1);
    assert_eq!(cfg.result_slack(7), recovery_3 + recovery_1);
    // The slack follows the timeout rule.
    cfg.timeout = TimeoutRule {
        round_trip: 5,
        per_load: 0,
    };
    assert_eq!(cfg.result_slack(7), 10 + 10);
}

#[test]
fn the_eta_rule_does_not_change_a_fault_free_run() {
    for kind in [
        FtcoKind::KAry(2),
        FtcoKind::KNomial(3),
        FtcoKind::KNomial(9),
    ] {
        for roots in [1, 3] {
            for collective in COLLECTIVES {
                let procs = 200;
                let mut cfg = sum_config(kind, roots, procs, collective, 10);
                let exact =
                    FtcoMetrics::from_report(&run_ftco(&cfg, &scenario(10, &[])), collective);
                assert_eq!(exact.keepalive, 0);
                for eta in [EtaRule::ParentRecovery, EtaRule::AncestorRecovery] {
                    cfg.eta = eta;
                    let slack =
                        FtcoMetrics::from_report(&run_ftco(&cfg, &scenario(10, &[])), collective);
                    assert_eq!(slack, exact, "{kind} R={roots} {collective:?} {eta}");
                }
            }
        }
    }
}

/// One run of `cfg` with `inactive` crashed at 0: messages per process, and whether some live
/// process suspected a live one.
fn one_inactive(cfg: &FtcoConfig<Sum>, inactive: Rank) -> (f64, u64, bool) {
    let procs = cfg.topology.procs();
    let mut sim = Sim::<FtcoNode<Sum>>::new(cfg, procs, &scenario(cfg.latency, &[(inactive, 0)]))
        .expect("sim");
    while sim.next_time().is_some() {
        sim.step(cfg).expect("step");
    }
    let report = sim.report();
    let metrics = FtcoMetrics::from_report(report, cfg.collective);
    assert_eq!(metrics.incomplete, 0, "inactive {inactive}");
    let false_suspicion = (0..procs).filter(|&r| r != inactive).any(|r| {
        sim.automaton(r)
            .is_some_and(|a| a.suspected().iter().any(|&x| x != inactive))
    });
    let latency = measured(report, cfg.collective);
    (
        metrics.messages as f64 / f64::from(procs),
        latency,
        false_suspicion,
    )
}

#[test]
fn parent_recovery_keeps_one_inactive_nodes_work_within_twice_the_papers_fig_9() {
    // The best multi-root k-nomial at 1 K (Fig. 8–9's configuration): k = R = 11, L = 10.
    // Inactive nodes spread evenly over the non-roots, every 23rd rank (inner nodes and leaves
    // at every depth), instead of random draws.
    let mut cfg = sum_config(FtcoKind::KNomial(11), 11, 1024, Collective::Allreduce, 10);
    let fault_free_run = run_ftco(&cfg, &scenario(10, &[]));
    let fault_free = FtcoMetrics::from_report(&fault_free_run, cfg.collective);
    let free_work = fault_free.messages as f64 / 1024.0;
    let free_latency = measured(&fault_free_run, cfg.collective);
    let ranks: Vec<Rank> = (11..1024).step_by(23).collect();
    let mean = |cfg: &FtcoConfig<Sum>| {
        let (mut work, mut latency) = (0.0, 0.0);
        for &r in &ranks {
            let (w, l, false_suspicion) = one_inactive(cfg, r);
            assert!(!false_suspicion, "{}: inactive {r}", cfg.eta);
            work += w - free_work;
            latency += (l - free_latency) as f64;
        }
        let n = ranks.len() as f64;
        (work / n, latency / n)
    };
    let (exact_work, exact_latency) = mean(&cfg);
    cfg.eta = EtaRule::ParentRecovery;
    let (work, latency) = mean(&cfg);
    eprintln!(
        "work penalty per process: parent-recovery {work:.3}, exact {exact_work:.3}; \
         latency penalty {latency:.1} / {exact_latency:.1} over {} placements",
        ranks.len()
    );
    assert!(
        work <= 2.0 * PAPER_WORK_PENALTY_1K,
        "parent-recovery: work penalty {work:.2} per process (exact ETA: {exact_work:.2}), \
         the paper {PAPER_WORK_PENALTY_1K}"
    );
    // The slack costs an inactive node no latency: its parent detects it on the exact gather
    // ETA and adopts its children before the result comes down.
    assert_eq!(latency, exact_latency);
    // And the exact ETA is what makes the whole tree talk.
    assert!(exact_work > 2.0 * PAPER_WORK_PENALTY_1K, "{exact_work:.2}");
}
