//! FTCO under faults (FTCO §2 fail-stop, §3 Def. 3.1–3.2, §4 Alg. 4): random inactive nodes
//! (crashed at 0) and run-time faults, never a root (roots are fault-immune, docs/reference/ftco.md
//! rule 10).
//!
//! With `Contributions` as the operator the result names whose operand it holds and how often,
//! so Def. 3.2 is checked exactly: every live process completes with the same value, which
//! holds every process that did not fail before it finished (`RemainingNodes ⊆ ReducedNodes`;
//! for Reduce, Def. 3.1: every process not failed by the root's completion) and no operand
//! twice ("each value is used only once", §4).

use crate::ftco_common;

use ftco_common::*;
use ftcoll::automaton::{Contributions, Min, Reduction, Sum};
use ftcoll::protocols::ftco::FtcoConfig;

use ftcoll::topology::ftco::{Collective, FtcoKind};
use ftcoll::{Rank, Time};
use proptest::prelude::*;

fn kinds() -> impl Strategy<Value = FtcoKind> {
    prop_oneof![
        Just(FtcoKind::KAry(2)),
        Just(FtcoKind::KAry(3)),
        Just(FtcoKind::KNomial(2)),
        Just(FtcoKind::KNomial(3)),
        Just(FtcoKind::KNomial(4)),
    ]
}

fn collectives() -> impl Strategy<Value = Collective> {
    prop_oneof![
        Just(Collective::Bcast),
        Just(Collective::Reduce),
        Just(Collective::Allreduce)
    ]
}

/// `(kind, roots, procs, crashes)`: up to 6 non-root crashes, at 0 (inactive) or at run time.
fn setups() -> impl Strategy<Value = (FtcoKind, u64, u32, Vec<(Rank, Time)>)> {
    (kinds(), 0usize..3, 4u32..=40).prop_flat_map(|(kind, r, procs)| {
        let roots = [1, 2, kind.k()][r].min(u64::from(procs) - 1);
        let crash = (
            roots as Rank..procs as Rank,
            prop_oneof![Just(0u64), 0u64..120],
        );
        (
            Just(kind),
            Just(roots),
            Just(procs),
            proptest::collection::vec(crash, 0..=6),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn ftco_def_3_2_every_live_process_completes_with_one_value_holding_each_survivor_once(
        (kind, roots, procs, crashes) in setups(),
        collective in collectives(),
        latency in prop_oneof![Just(1u64), Just(10u64)],
    ) {
        let cfg = config(topology(kind, roots, procs), collective, Contributions, contribution, latency);
        let what = format!("{kind} R={roots} P={procs} {collective:?} L={latency} crashes {crashes:?}");
        let report = run_ftco(&cfg, &scenario(latency, &crashes));
        check_live(&report, collective, &crashes, bound(&cfg, crashes.len()), &what);
        check_contributions(&report, collective, &crashes, &what);
    }

    #[test]
    fn ftco_4_sum_and_min_agree_everywhere_under_faults(
        (kind, roots, procs, crashes) in setups(),
        collective in prop_oneof![Just(Collective::Reduce), Just(Collective::Allreduce)],
    ) {
        let what = format!("{kind} R={roots} P={procs} {collective:?} crashes {crashes:?}");
        let cfg = sum_config(kind, roots, procs, collective, 10);
        let report = run_ftco(&cfg, &scenario(10, &crashes));
        check_live(&report, collective, &crashes, bound(&cfg, crashes.len()), &what);
        let survivors: u64 = (0..procs as Rank).filter(|&r| crash_time(&crashes, r).is_none()).map(sum_operand).sum();
        let value = report.completions[0].2;
        prop_assert!(value >= survivors && value <= full_sum(procs), "{}", what);

        let cfg = config(topology(kind, roots, procs), collective, Min, min_operand, 10);
        let report = run_ftco(&cfg, &scenario(10, &crashes));
        check_live(&report, collective, &crashes, bound(&cfg, crashes.len()), &what);
        let floor = (0..procs as Rank).filter(|&r| crash_time(&crashes, r).is_none()).map(min_operand).min().unwrap_or(u64::MAX);
        let value = report.completions[0].2;
        prop_assert!(value <= floor, "{}", what);
    }
}

fn sim_to_end<R>(
    cfg: &FtcoConfig<R>,
    crashes: &[(Rank, Time)],
) -> ftcoll_sim::Sim<ftcoll::protocols::ftco::FtcoNode<R>>
where
    R: Reduction + Clone + Eq + core::hash::Hash,
{
    let procs = cfg.topology.procs();
    let mut sim = ftcoll_sim::Sim::new(cfg, procs, &scenario(cfg.latency, crashes)).expect("sim");
    while sim.next_time().is_some() {
        sim.step(cfg).expect("step");
    }
    sim
}

#[test]
fn ftco_4_an_inactive_child_is_replaced_by_its_children_and_each_value_counts_once() {
    // Binary heap 0..15, rank 1 (children 3, 4) inactive: 3 and 4 get no ACK for their partials
    // (§3, Fig. 3: DATA timeout), re-send them to the root, which adopts them after its own
    // child 2, and the root times out on 1 too; the result holds every other rank exactly once.
    let cfg = config(
        topology(FtcoKind::KAry(2), 1, 15),
        Collective::Reduce,
        Contributions,
        contribution,
        10,
    );
    let sim = sim_to_end(&cfg, &[(1, 0)]);
    let report = sim.report();
    let expected: Vec<(Rank, u32)> = (0..15).filter(|&r| r != 1).map(|r| (r, 1)).collect();
    assert_eq!(report.completions.len(), 1);
    assert_eq!(report.completions[0].2, expected);
    let root = sim.automaton(0).expect("root");
    assert_eq!(root.suspected(), &[1]);
    assert_eq!(root.down().collect::<Vec<_>>(), vec![2, 3, 4]);
}

#[test]
fn ftco_4_a_failed_parent_is_bypassed_upwards_in_an_allreduce() {
    // Rank 1 fails at 0: its children 3 and 4 are adopted by the root, get the result, and the
    // result is the same everywhere without rank 1.
    let cfg = config(
        topology(FtcoKind::KAry(2), 1, 15),
        Collective::Allreduce,
        Contributions,
        contribution,
        10,
    );
    let sim = sim_to_end(&cfg, &[(1, 0)]);
    let report = sim.report();
    let expected: Vec<(Rank, u32)> = (0..15).filter(|&r| r != 1).map(|r| (r, 1)).collect();
    assert_eq!(report.completions.len(), 14);
    assert!(report.completions.iter().all(|c| c.2 == expected));
    for child in [3, 4] {
        assert_eq!(
            sim.automaton(child).expect("rank").up().collect::<Vec<_>>(),
            vec![0]
        );
    }
}

#[test]
fn ftco_4_disruption_a_chain_with_two_failures_reaches_the_root_by_keepalives() {
    // FTCO §4 "Data Propagation Disruptions": chain 0 → 1 → 3 → 7 of a binary heap Bcast. The
    // third node (3) is inactive; the second (1) forwards to 3 and 4 and then fails (it holds the
    // data at 12 and sends in steps 12 and 13). The fourth (7) waits past its ETA, sends a
    // KEEPALIVE to 3, times out, then to 1, times out, then to the root, which answers with DATA.
    let cfg = sum_config(FtcoKind::KAry(2), 1, 15, Collective::Bcast, 10);
    let sim = sim_to_end(&cfg, &[(3, 0), (1, 14)]);
    let report = sim.report();
    for r in (0..15).filter(|&r| r != 1 && r != 3) {
        assert_eq!(report.deliveries(r), 1, "rank {r}");
        assert_eq!(report.delivered_value(r), Some(&1), "rank {r}");
    }
    let fourth = sim.automaton(7).expect("rank 7");
    assert_eq!(fourth.suspected(), &[1, 3]);
    assert_eq!(fourth.up().collect::<Vec<_>>(), vec![0]);
    assert!(fourth.keepalives() >= 3);
    // Rank 4 got the data from rank 1 before it failed: no detour.
    assert!(sim.automaton(4).expect("rank 4").suspected().is_empty());
}

#[test]
fn ftco_4_too_short_timeouts_suspect_live_nodes_but_never_count_a_value_twice() {
    // A deliberately short f_timeout (the knob a checker will turn): children give up on
    // parents that are only slow to ACK, re-send to grandparents, and the covering rule
    // (a counted partial supersedes the partials below it) keeps every operand once.
    for collective in [Collective::Reduce, Collective::Allreduce] {
        for procs in 2..40u32 {
            let mut cfg = config(
                topology(FtcoKind::KNomial(3), 1, procs),
                collective,
                Contributions,
                contribution,
                10,
            );
            cfg.timeout = ftcoll::protocols::ftco::TimeoutRule {
                round_trip: 1,
                per_load: 0,
            };
            let report = run_ftco(&cfg, &scenario(10, &[]));
            let all: Vec<(Rank, u32)> = (0..procs as Rank).map(|r| (r, 1)).collect();
            assert!(
                report.completions.iter().all(|c| c.2 == all),
                "{collective:?} P={procs}"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// The contract: handlers never panic on peer input (unknown senders, ranks `>= P`,
    /// duplicates, messages out of order).
    #[test]
    fn ftco_handlers_never_panic_on_arbitrary_peer_input(
        kind in kinds(),
        collective in collectives(),
        inputs in proptest::collection::vec((0u32..40, 0u8..4, 0u64..3, 0u64..400), 0..60),
    ) {
        use ftcoll::automaton::{Automaton, Outbox};
        use ftcoll::protocols::ftco::{FtcoMsg, FtcoNode};
        let cfg = sum_config(kind, 2, 30, collective, 10);
        let mut nodes: Vec<FtcoNode<Sum>> = (0..30).map(|r| FtcoNode::new(&cfg, r)).collect();
        let mut out = Outbox::new();
        for node in &mut nodes {
            node.on_start(&cfg, 0, &mut out);
        }
        let mut now = 0;
        for (i, (from, kind, value, dt)) in inputs.into_iter().enumerate() {
            now += dt;
            let msg = match kind {
                0 => FtcoMsg::Partial(value),
                1 => FtcoMsg::Result(value),
                2 => FtcoMsg::Keepalive,
                _ => FtcoMsg::Ack,
            };
            let node = &mut nodes[i % 30];
            let _ = node.select_receive(&cfg, now, &[(from, msg.clone())]);
            node.on_message(&cfg, now, from, msg, &mut out);
            node.on_timer(&cfg, now, ftcoll::automaton::TimerId(0), &mut out);
            node.on_send_slot(&cfg, now, &mut out);
            out.drain();
        }
    }
}

/// FTCO §4 ("Data Propagation Disruptions"), rule 1 of docs/reference/ftco.md: the gather's `f_ETA`
/// is the exact fault-free arrival of the children's data. The oracle is the driver's trace of
/// the fault-free run (when the last child's DATA reached the parent), not the automaton's
/// schedule: with one child dead from the start, the parent's first KEEPALIVE to it leaves one
/// step after that instant (Alg. 4 line 21: `now > f_ETA`). An ETA late by any number of steps fails this; "no KEEPALIVE without
/// faults" only catches an early one.
#[test]
fn ftco_4_first_keepalive_leaves_one_step_after_the_fault_free_arrival() {
    use ftcoll::automaton::Phase;
    use ftcoll_sim::TraceEvent;
    for (kind, procs, dead) in [
        (FtcoKind::KAry(2), 3u32, 2u32),
        (FtcoKind::KAry(2), 7, 5),
        (FtcoKind::KNomial(3), 9, 4),
    ] {
        for latency in [1u64, 10] {
            let cfg = sum_config(kind, 1, procs, Collective::Reduce, latency);
            let parent = cfg.topology.parent(dead).expect("a non-root");
            let mut calm = scenario(latency, &[]);
            calm.trace = true;
            let calm = run_ftco(&cfg, &calm);
            let children: Vec<u32> = cfg.topology.children(parent).collect();
            let arrival = calm
                .trace
                .iter()
                .filter_map(|e| match *e {
                    TraceEvent::Message {
                        from, to, received, ..
                    } if to == parent && children.contains(&from) => Some(received),
                    _ => None,
                })
                .max()
                .expect("the children's DATA in the fault-free trace");
            let mut broken = scenario(latency, &[(dead, 0)]);
            broken.trace = true;
            let broken = run_ftco(&cfg, &broken);
            let first_keepalive = broken
                .trace
                .iter()
                .filter_map(|e| match *e {
                    TraceEvent::Message {
                        from,
                        to,
                        sent,
                        phase: Phase::Liveness,
                        ..
                    }
                    | TraceEvent::Lost {
                        from,
                        to,
                        sent,
                        phase: Phase::Liveness,
                        ..
                    } if from == parent && to == dead => Some(sent),
                    _ => None,
                })
                .min()
                .expect("a KEEPALIVE to the dead child");
            assert_eq!(
                first_keepalive,
                arrival + 1,
                "{kind:?} P={procs} L={latency}: KEEPALIVE to {dead} at {first_keepalive}, the last child DATA arrived at {arrival} fault-free"
            );
        }
    }
}

/// Regression (found by `reproduce ftco`, Fig. 8–9): run 74 of seed 1 of an Allreduce with
/// `P = 2048`, multi-root 12-nomial (`R = 12`, the best radix for `L = 10`) and 100 inactive
/// ranks never quiesced. Root 9 had adopted inactive rank 1125 and waited for its partial,
/// but with Alg. 4's ACK-before-KEEPALIVE order its ~70 askers kept an ACK owed at every idle
/// step, so the KEEPALIVE that would time 1125 out was never sent (a livelock). Fair service
/// of ACKs and KEEPALIVEs (docs/reference/ftco.md, rule 11, "Fair fault service") lets it complete
/// with every
/// live operand once.
#[test]
fn alg4_a_due_keepalive_is_not_starved_by_owed_acks() {
    use ftcoll::topology::ftco::FtcoTopology;
    use ftcoll_lab::experiment::ftco::FtcoPoint;
    use ftcoll_sim::scenario::FaultSpec;

    let topology = FtcoTopology::new(FtcoKind::KNomial(12), 12, 2048).unwrap();
    let mut point = FtcoPoint::new(topology, Collective::Allreduce);
    point.inactive = FaultSpec::Count(100);
    point.alg5 = false;
    let prepared = point.prepare().unwrap();
    let outcome = prepared.run(1, 74).unwrap();
    assert!(!outcome.budget_exhausted, "run 74 did not quiesce");
    assert_eq!(outcome.inactive, 100);
    assert!(outcome.consistent, "{:?}", outcome.metrics);
    assert_eq!(outcome.metrics.incomplete, 0);
    assert_eq!(outcome.metrics.completions, 2048 - 100);

    // The same run step by step: it still is the situation of the livelock (rank 1125 is
    // inactive, and root 9 ends up waiting on it), and root 9 now times it out.
    use ftcoll::protocols::ftco::FtcoNode;
    use ftcoll::topology::LogP;
    use ftcoll_lab::experiment::ftco::{draw_run, enter, RuntimeFaults};
    use ftcoll_sim::scenario::{ArrivalSpec, ScenarioSpec};
    use ftcoll_sim::{PortModel, Sim};
    let spec = ScenarioSpec {
        procs: 2048,
        logp: LogP::new(10, 1).unwrap(),
        model: PortModel::SinglePort,
        immune: 12,
        faults: FaultSpec::Count(100),
        crash_at: Vec::new(),
        arrivals: ArrivalSpec::None,
        ignored: Default::default(),
    };
    let (mut scenario, failed, _) = draw_run(&spec, RuntimeFaults::default(), 1, 74).unwrap();
    assert!(
        failed.contains(&1125),
        "the draw no longer makes rank 1125 inactive"
    );
    let mut config = FtcoConfig::new(
        topology,
        Collective::Allreduce,
        Sum,
        |r| u64::from(r) + 1,
        10,
    )
    .unwrap();
    enter(&mut config, &mut scenario, false);
    let mut sim = Sim::<FtcoNode<Sum>>::new(&config, 2048, &scenario).unwrap();
    while sim.next_time().is_some() && sim.report().events < 50_000_000 {
        sim.step(&config).unwrap();
    }
    assert_eq!(sim.next_time(), None, "quiescent");
    let root9 = sim.automaton(9).unwrap();
    assert!(
        root9.suspected().contains(&1125),
        "root 9 suspected {:?}",
        root9.suspected()
    );
}

/// The sends of `node` at its idle send slots from `from` on (one poll per step), up to `n`.
fn idle_sends(
    node: &mut ftcoll::protocols::ftco::FtcoNode<Sum>,
    cfg: &FtcoConfig<Sum>,
    from: Time,
    n: usize,
) -> Vec<(Rank, ftcoll::protocols::ftco::FtcoMsg<u64>)> {
    use ftcoll::automaton::{Action, Automaton, Outbox};
    let mut sent = Vec::new();
    let mut now = from;
    while sent.len() < n && now < from + 200 {
        let mut out = Outbox::new();
        node.on_send_slot(cfg, now, &mut out);
        for a in out.drain() {
            if let Action::Send { to, msg } = a {
                sent.push((to, msg));
            }
        }
        now += 1;
    }
    sent
}

/// docs/reference/ftco.md rule 11 (fair fault service), both halves, on one process driven by hand:
/// rank 1 of a binary Reduce owes ACKs to its parent (a KEEPALIVE from 0) and to child 3 (its
/// partial) while child 4 is silent past its ETA, so a KEEPALIVE to 4 is due. The two kinds
/// alternate — ACK, KEEPALIVE, ACK — where Alg. 4's order would send both ACKs first and a
/// KEEPALIVE-first order both ACKs after. With only ACKs owed (before 4's ETA), Alg. 4's order
/// is unchanged: the ACKs go out back to back.
#[test]
fn rule11_owed_acks_and_a_due_keepalive_alternate() {
    use ftcoll::automaton::{Automaton, Outbox};
    use ftcoll::protocols::ftco::{FtcoMsg, FtcoNode};
    let cfg = sum_config(FtcoKind::KAry(2), 1, 7, Collective::Reduce, 2);
    let start = || {
        let mut node = FtcoNode::new(&cfg, 1);
        let mut sink = Outbox::new();
        node.on_start(&cfg, 0, &mut sink);
        node.on_message(&cfg, 1, 3, FtcoMsg::Partial(4), &mut sink);
        node.on_message(&cfg, 2, 0, FtcoMsg::Keepalive, &mut sink);
        node
    };
    // Late enough for 4's ETA to have passed.
    let late = 60;
    let kinds = |sends: &[(Rank, FtcoMsg<u64>)]| -> Vec<FtcoMsg<u64>> {
        sends.iter().map(|(_, m)| m.clone()).collect()
    };
    let mut node = start();
    let sends = idle_sends(&mut node, &cfg, late, 3);
    assert_eq!(
        kinds(&sends),
        [FtcoMsg::Ack, FtcoMsg::Keepalive, FtcoMsg::Ack],
        "{sends:?}"
    );
    let mut acked: Vec<Rank> = vec![sends[0].0, sends[2].0];
    acked.sort_unstable();
    assert_eq!((acked, sends[1].0), (vec![0, 3], 4));
    // Before 4's ETA no KEEPALIVE is due: the two ACKs go out back to back (Alg. 4's order).
    let mut node = start();
    let sends = idle_sends(&mut node, &cfg, 3, 2);
    assert_eq!(kinds(&sends), [FtcoMsg::Ack, FtcoMsg::Ack], "{sends:?}");
}
