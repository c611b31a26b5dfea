//! FTCO without faults (FTCO §3 "Message Priorities", §5.2, §5.2.1): every collective on k-ary
//! and k-nomial trees, single- and multi-root, gives the right value everywhere, takes exactly
//! the topology module's fault-free latency, and never sends a KEEPALIVE or re-parents.

use crate::ftco_common;

use ftco_common::*;
use ftcoll::automaton::Phase;
use ftcoll::automaton::Sum;
use ftcoll::protocols::ftco::FtcoNode;
use ftcoll::topology::ftco::{Collective, FtcoKind};
use ftcoll_sim::Sim;

fn check(
    kind: ftcoll::topology::ftco::FtcoKind,
    roots: u64,
    procs: u32,
    collective: Collective,
    latency: u64,
) {
    let (cfg, report) = sum_run(kind, roots, procs, collective, latency);
    let p = procs;
    let what = format!("{kind} R={roots} P={procs} {collective:?} L={latency}");
    match collective {
        Collective::Bcast => {
            assert_eq!(report.undelivered(), 0, "{what}");
            assert_eq!(report.duplicates(), 0, "{what}");
            assert!(
                (0..report.procs).all(|k| report.delivered_value(k) == Some(&1)),
                "{what}"
            );
        }
        Collective::Reduce => {
            assert_eq!(report.completions.len(), 1, "{what}");
            assert_eq!(report.completions[0].0, 0, "{what}");
            assert_eq!(report.completions[0].2, full_sum(p), "{what}");
        }
        Collective::Allreduce => {
            assert_eq!(report.completions.len(), procs as usize, "{what}");
            assert!(
                report.completions.iter().all(|c| c.2 == full_sum(p)),
                "{what}"
            );
        }
    }
    assert_eq!(
        measured(&report, collective),
        predicted(&cfg.topology, collective, latency),
        "{what}"
    );
    assert_eq!(
        report.messages_in(Phase::Liveness),
        0,
        "no KEEPALIVE: {what}"
    );
    assert_eq!(report.ignored, 0, "{what}");
}

#[test]
fn ftco_5_2_fault_free_latency_equals_the_topology_schedule_for_small_p() {
    for kind in KINDS {
        for procs in 1..=40u32 {
            for roots in [1, 2, 3, kind.k()] {
                if roots > u64::from(procs) {
                    continue;
                }
                for collective in COLLECTIVES {
                    for latency in [0, 1, 10] {
                        check(kind, roots, procs, collective, latency);
                    }
                }
            }
        }
    }
}

#[test]
fn ftco_5_2_fault_free_latency_equals_the_topology_schedule_for_large_p() {
    use ftcoll::topology::ftco::FtcoKind::*;
    for (kind, roots, procs) in [
        (KNomial(2), 1, 1000),
        (KNomial(10), 10, 1024),
        (KAry(4), 1, 2000),
        (KAry(3), 3, 3000),
        (KNomial(7), 1, 4096),
        (KNomial(9), 9, 5000),
    ] {
        for collective in COLLECTIVES {
            check(kind, roots, procs, collective, 10);
        }
    }
}

#[test]
fn ftco_3_no_false_suspicion_without_faults() {
    use ftcoll::topology::ftco::FtcoKind::*;
    for (kind, roots, procs) in [
        (KNomial(3), 1, 200),
        (KAry(2), 2, 150),
        (KNomial(9), 9, 700),
    ] {
        for collective in COLLECTIVES {
            let cfg = sum_config(kind, roots, procs, collective, 10);
            let mut sim = Sim::<FtcoNode<Sum>>::new(&cfg, procs, &scenario(10, &[])).expect("sim");
            while sim.next_time().is_some() {
                sim.step(&cfg).expect("step");
            }
            for r in 0..procs {
                let node = sim.automaton(r).expect("rank");
                assert!(
                    node.suspected().is_empty(),
                    "{kind} {collective:?} rank {r}"
                );
                assert_eq!(node.keepalives(), 0, "{kind} {collective:?} rank {r}");
                assert!(node.completed(), "{kind} {collective:?} rank {r}");
                let parent = cfg.topology.parent(r);
                if roots == 1 || r >= roots as u32 {
                    assert_eq!(
                        node.up().collect::<Vec<_>>(),
                        parent.into_iter().collect::<Vec<_>>()
                    );
                }
            }
        }
    }
}

#[test]
fn ftco_app_a_service_distances_disd_and_rsd_cost_nothing_without_faults() {
    // App. A: "negligible difference in latency between the two functions". Without faults all
    // DATA comes from distance 1, and a step serving another distance finds nothing there and
    // falls through to the wild card, so both keep the fault-free schedule exactly.
    use ftcoll::protocols::ftco::ServiceDistance;
    use ftcoll::topology::ftco::FtcoKind::*;
    for service in [
        ServiceDistance::Disd,
        ServiceDistance::Rsd {
            inverse_r: 2,
            seed: 7,
        },
    ] {
        for (kind, roots, procs) in [(KNomial(3), 1, 100), (KAry(2), 2, 90), (KNomial(9), 9, 700)] {
            for collective in COLLECTIVES {
                let mut cfg = sum_config(kind, roots, procs, collective, 10);
                cfg.service = service;
                let report = run_ftco(&cfg, &scenario(10, &[]));
                let what = format!("{service:?} {kind} R={roots} P={procs} {collective:?}");
                let latency = measured(&report, collective);
                let ff = predicted(&cfg.topology, collective, 10);
                assert_eq!(latency, ff, "{what}");
                assert_eq!(report.messages_in(Phase::Liveness), 0, "{what}");
                match collective {
                    Collective::Bcast => assert_eq!(report.undelivered(), 0, "{what}"),
                    _ => assert!(
                        report.completions.iter().all(|c| c.2 == full_sum(procs)),
                        "{what}"
                    ),
                }
            }
        }
    }
}

#[test]
fn ftco_5_2_4_output_spread_leaves_out_the_root() {
    // §5.2.4: output spread = FinishTime_last (the last *non-root* to finish) − FinishTime_first.
    // The root stays active throughout (§4), so it has no finish at either end.
    use ftcoll_lab::ftco_metrics::FtcoMetrics;
    // Bcast: rank 0 sends its first DATA in step 0, which its first child holds one hop
    // (L + 2 steps) later; the last delivery is the latency. Counting rank 0 (delivering at 0)
    // would make every Bcast's spread its latency.
    for kind in KINDS {
        for procs in [2u32, 3, 17, 40, 700] {
            for roots in [1, kind.k()] {
                if roots > u64::from(procs) {
                    continue;
                }
                for latency in [1u64, 10] {
                    let (cfg, report) = sum_run(kind, roots, procs, Collective::Bcast, latency);
                    let m = FtcoMetrics::from_report(&report, Collective::Bcast);
                    let what = format!("{kind} R={roots} P={procs} L={latency}");
                    let ff = predicted(&cfg.topology, Collective::Bcast, latency);
                    assert_eq!(m.latency, ff, "{what}");
                    assert_eq!(m.spread, ff - (latency + 2), "{what}");
                }
            }
        }
    }
    // P = 4096, 4-nomial, L = 10: latency 84, spread 72 (with the root counted it would be 84).
    let (_, report) = sum_run(FtcoKind::KNomial(4), 1, 4096, Collective::Bcast, 10);
    let m = FtcoMetrics::from_report(&report, Collective::Bcast);
    assert_eq!((m.latency, m.spread), (84, 72));
    // Single-root Allreduce, binary heap of 3, L = 10, by hand: the leaves' partials reach rank
    // 0 at 12 and 13; it sends the result to 1 in step 13 and to 2 in step 14 and finishes at
    // 15; the leaves hold it, and finish, at 25 and 26. Spread 26 − 25 = 1 (with rank 0: 11).
    let (_, report) = sum_run(FtcoKind::KAry(2), 1, 3, Collective::Allreduce, 10);
    let finish: Vec<(u32, u64)> = report.completions.iter().map(|c| (c.0, c.1)).collect();
    assert_eq!(finish, [(0, 15), (1, 25), (2, 26)]);
    let m = FtcoMetrics::from_report(&report, Collective::Allreduce);
    assert_eq!((m.latency, m.spread), (26, 1));
    // A Reduce records no finish below rank 0: spread 0.
    let (_, report) = sum_run(FtcoKind::KNomial(3), 1, 40, Collective::Reduce, 10);
    assert_eq!(
        FtcoMetrics::from_report(&report, Collective::Reduce).spread,
        0
    );
}

#[test]
fn ftco_3_reduce_acknowledges_every_partial_and_rank_0_completes_when_it_holds_the_value() {
    // §3, "Message Flow": in a Reduce a node passes DATA to its parent, then ACKs its children,
    // and waits for its parent's ACK. Fault-free that is one ACK per partial: P − 1 DATA and
    // P − 1 ACKs, 2 messages per process less 2/P. Rank 0's completion is RootTime (§5.2.4: it
    // knows the result), the instant it has handled its last child's partial: no step later.
    use ftcoll::protocols::ftco::ServiceDistance;
    use ftcoll::topology::ftco::FtcoKind::*;
    use ftcoll_sim::TraceEvent;
    for (kind, roots, procs) in [
        (KAry(2), 1, 15),
        (KNomial(2), 1, 64),
        (KNomial(3), 3, 200),
        (KAry(3), 1, 300),
        (KNomial(9), 9, 5000),
    ] {
        let cfg = sum_config(kind, roots, procs, Collective::Reduce, 10);
        let mut sc = scenario(10, &[]);
        sc.trace = true;
        let report = run_ftco(&cfg, &sc);
        let what = format!("{kind} R={roots} P={procs}");
        let edges = u64::from(procs) - 1;
        assert_eq!(report.messages_in(Phase::Dissemination), edges, "{what}");
        assert_eq!(report.messages_in(Phase::Acknowledgment), edges, "{what}");
        assert_eq!(report.messages_in(Phase::Liveness), 0, "{what}");
        let last_partial = report
            .trace
            .iter()
            .filter_map(|e| match e {
                TraceEvent::Message {
                    to: 0,
                    received,
                    phase: Phase::Dissemination,
                    ..
                } => Some(*received),
                _ => None,
            })
            .max();
        assert_eq!(report.completions.len(), 1, "{what}");
        assert_eq!(Some(report.completions[0].1), last_partial, "{what}");
        assert_eq!(
            report.completions[0].1,
            predicted(&cfg.topology, Collective::Reduce, 10),
            "{what}"
        );
    }
    // The 64 K case, with RSD: 65,535 ACKs, one per partial (a node that dropped the ACKs it
    // owes once it finished would send far fewer), and the latency 95.
    let mut cfg = sum_config(KNomial(9), 1, 65_536, Collective::Reduce, 10);
    cfg.service = ServiceDistance::Rsd {
        inverse_r: 2,
        seed: 1,
    };
    let report = run_ftco(&cfg, &scenario(10, &[]));
    assert_eq!(report.messages_in(Phase::Acknowledgment), 65_535);
    assert_eq!(report.completions[0].1, 95);
    assert_eq!(report.completions[0].2, full_sum(65_536));
}
