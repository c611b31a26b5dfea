//! FTCO with process imbalance (FTCO §5.2.4, App. B, Alg. 5): processes enter the collective at
//! different times. With [`Imbalance::Alg5`] a process is reachable before it enters: it
//! answers DATA and KEEPALIVE with an ACK and keeps the DATA, so a waiting neighbour does not
//! take it for failed. Without it (the driver's `Scenario::arrivals` alone) a late process is
//! silent, and its neighbours suspect it.

use crate::ftco_common;

use ftco_common::*;
use ftcoll::automaton::{Contributions, Reduction, Sum};
use ftcoll::protocols::ftco::{FtcoConfig, FtcoNode, Imbalance};
use ftcoll::topology::ftco::{Collective, FtcoKind};
use ftcoll::{Rank, Time};
use ftcoll_sim::{Report, Sim};
use proptest::prelude::*;

/// Runs a config to quiescence and returns the simulator (for the automata) and the report.
fn sim_to_end<R>(
    cfg: &FtcoConfig<R>,
    arrivals: &[Time],
    crashes: &[(Rank, Time)],
) -> Sim<FtcoNode<R>>
where
    R: Reduction + Clone + Eq + core::hash::Hash,
{
    let procs = cfg.topology.procs();
    let mut scenario = scenario(cfg.latency, crashes);
    scenario.arrivals = arrivals.to_vec();
    let mut sim = Sim::new(cfg, procs, &scenario).expect("sim");
    let mut events = 0u64;
    while sim.next_time().is_some() {
        sim.step(cfg).expect("step");
        events += 1;
        assert!(events < 50_000_000, "the run quiesces");
    }
    sim
}

/// The run with Alg. 5: the process is reachable from 0 and enters at `start[rank]`.
fn with_alg5<R: Reduction>(mut cfg: FtcoConfig<R>, start: &[Time]) -> FtcoConfig<R> {
    cfg.imbalance = Imbalance::Alg5 {
        start: start.to_vec(),
    };
    cfg
}

/// `FinishTime_last - StartTime_last` (§5.2.4): the last completion (Bcast: delivery) after the
/// last live process started.
fn imbalance_latency<V>(report: &Report<V>, collective: Collective, start: &[Time]) -> Time {
    let finish = match collective {
        Collective::Bcast => report.delivery_times().flatten().max(),
        _ => report.completions.iter().map(|c| c.1).max(),
    }
    .expect("something completed");
    finish.saturating_sub(start.iter().copied().max().unwrap_or(0))
}

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

/// `(kind, roots, procs, crashes, start times)`: up to 4 non-root crashes, at 0 or at run time,
/// and start times spread uniformly over `0..=spread`.
#[allow(clippy::type_complexity)]
fn setups() -> impl Strategy<Value = (FtcoKind, u64, u32, Vec<(Rank, Time)>, Vec<Time>)> {
    (
        kinds(),
        0usize..3,
        4u32..=32,
        prop_oneof![Just(0u64), Just(40), Just(300), Just(1500)],
    )
        .prop_flat_map(|(kind, r, procs, spread)| {
            let roots = [1, 2, kind.k()][r].min(u64::from(procs) - 1);
            let crash = (
                roots as Rank..procs as Rank,
                prop_oneof![Just(0u64), 0u64..(200 + spread)],
            );
            (
                Just(kind),
                Just(roots),
                Just(procs),
                proptest::collection::vec(crash, 0..=4),
                proptest::collection::vec(0..=spread, procs as usize),
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Def. 3.1–3.2 with random arrival spreads and faults: every live process completes once
    /// with one value holding every process that finished before it failed, no operand twice.
    #[test]
    fn ftco_app_b_alg5_keeps_def_3_2_with_random_arrivals_and_faults(
        (kind, roots, procs, crashes, start) in setups(),
        collective in collectives(),
        latency in prop_oneof![Just(1u64), Just(10u64)],
    ) {
        let cfg = with_alg5(
            config(topology(kind, roots, procs), collective, Contributions, contribution, latency),
            &start,
        );
        let what = format!(
            "{kind} R={roots} P={procs} {collective:?} L={latency} crashes {crashes:?} start {start:?}"
        );
        let report = run_ftco(&cfg, &scenario(latency, &crashes));
        let late = start.iter().copied().max().unwrap_or(0);
        check_live(&report, collective, &crashes, late + bound(&cfg, crashes.len()), &what);
        check_contributions(&report, collective, &crashes, &what);
        if crashes.is_empty() && collective != Collective::Bcast {
            // Without faults nobody is suspected, so every operand is in.
            let all: Vec<(Rank, u32)> = (0..procs as Rank).map(|r| (r, 1)).collect();
            prop_assert_eq!(&report.completions[0].2, &all, "{}", what);
        }
    }

    /// Without faults, Alg. 5 never suspects a late process: no process times out on anyone.
    #[test]
    fn ftco_app_b_alg5_never_suspects_a_late_process(
        (kind, roots, procs, _crashes, start) in setups(),
        collective in collectives(),
    ) {
        let cfg = with_alg5(sum_config(kind, roots, procs, collective, 10), &start);
        let sim = sim_to_end(&cfg, &[], &[]);
        for r in 0..procs as Rank {
            let node = sim.automaton(r).expect("rank");
            prop_assert!(node.suspected().is_empty(), "rank {} suspected {:?}", r, node.suspected());
        }
        if collective != Collective::Bcast {
            prop_assert_eq!(sim.report().completions[0].2, full_sum(procs));
        }
    }
}

#[test]
fn ftco_app_b_alg5_with_equal_start_times_changes_nothing() {
    // StartTime = 0 everywhere: the same run, message for message, as without the extension
    // (so Table 2's fault-free row and every other result stay as they are).
    for kind in [FtcoKind::KAry(2), FtcoKind::KNomial(3)] {
        for collective in COLLECTIVES {
            for roots in [1, 3] {
                let cfg = sum_config(kind, roots, 40, collective, 10);
                let off = run_ftco(&cfg, &scenario(10, &[(7, 30)]));
                let on = with_alg5(cfg, &[0; 40]);
                let on = run_ftco(&on, &scenario(10, &[(7, 30)]));
                assert_eq!(off, on, "{kind} {collective:?} R={roots}");
            }
        }
    }
}

#[test]
fn ftco_app_b_a_late_inner_node_is_suspected_without_alg5_and_counted_with_it() {
    // Binary heap 0..15, Reduce, L = 10: rank 1 (children 3, 4) enters at 300, long after the
    // root's gather ETA. Without Alg. 5 it cannot answer the root's KEEPALIVE, the root suspects
    // it and adopts 3 and 4, and rank 1's operand is lost although rank 1 never fails. With
    // Alg. 5 it ACKs, the root keeps waiting, and every operand is in.
    let mut start = vec![0; 15];
    start[1] = 300;
    let cfg = config(
        topology(FtcoKind::KAry(2), 1, 15),
        Collective::Reduce,
        Contributions,
        contribution,
        10,
    );
    let all: Vec<(Rank, u32)> = (0..15).map(|r| (r, 1)).collect();
    let off = sim_to_end(&cfg, &start, &[]);
    let root = off.automaton(0).expect("root");
    assert_eq!(root.suspected(), &[1]);
    let value = &off.report().completions[0].2;
    assert!(!value.iter().any(|c| c.0 == 1), "{value:?}");
    assert_ne!(value, &all);

    let cfg = with_alg5(cfg, &start);
    let on = sim_to_end(&cfg, &[], &[]);
    for r in 0..15 {
        assert!(
            on.automaton(r).expect("rank").suspected().is_empty(),
            "rank {r}"
        );
    }
    assert_eq!(on.report().completions.len(), 1);
    assert_eq!(on.report().completions[0].2, all);
    // The waiting root kept asking: KEEPALIVEs, answered (App. B: "respond with ACK").
    assert!(on.automaton(0).expect("root").keepalives() >= 1);
    // Rank 1 ACKed before it entered (its children's DATA and the root's KEEPALIVEs).
    assert!(on.report().sent(1)[2] >= 3, "{:?}", on.report().sent(1));
}

#[test]
fn ftco_5_2_4_alg5_absorbs_the_spread_where_the_driver_arrivals_alone_lose_operands() {
    // §5.2.4, Table 2: with a uniform arrival spread, FinishTime_last - StartTime_last falls
    // below the fault-free latency ("absorbing" the imbalance: the last process's DATA meets
    // a tree that already progressed), and every operand is in. With the driver's arrivals
    // alone, late processes are suspected: operands of live processes are lost (or the run
    // never quiesces: a late node whose parent suspected it asks forever for the result).
    use ftcoll::rng::SplitMix64;
    use ftcoll_sim::scenario::{draw_arrivals, ArrivalSpec};
    let procs = 256u32;
    for collective in [Collective::Reduce, Collective::Allreduce] {
        for spread in [64, 256, 1024] {
            let mut rng = SplitMix64::new(spread);
            let start = draw_arrivals(ArrivalSpec::Uniform(spread), procs, &mut rng);
            let cfg = sum_config(FtcoKind::KNomial(4), 1, procs, collective, 10);
            let fault_free = predicted(&cfg.topology, collective, 10);
            let what = format!("{collective:?} spread {spread}");

            let mut off = scenario(10, &[]);
            off.arrivals = start.clone();
            let off = ftcoll_sim::run::<FtcoNode<Sum>>(&cfg, procs, &off, 2_000_000);
            // Without Alg. 5 either a live operand is lost or the run never quiesces (the event
            // budget); any other error is a bug, not evidence.
            match &off {
                Ok(off) => assert!(
                    off.completions.iter().any(|c| c.2 != full_sum(procs)),
                    "without Alg. 5 a live operand is lost: {what}"
                ),
                Err(ftcoll_sim::SimError::EventBudget { .. }) => {}
                Err(e) => panic!("{what}: {e}"),
            }

            let on = with_alg5(cfg, &start);
            let on = run_ftco(&on, &scenario(10, &[]));
            assert!(
                on.completions.iter().all(|c| c.2 == full_sum(procs)),
                "{what}"
            );
            let latency = imbalance_latency(&on, collective, &start);
            assert!(latency < fault_free, "{what}: {latency} vs {fault_free}");
            // Alg. 5 adds no DATA: only the waiting nodes' KEEPALIVEs and their ACKs.
            let (dissemination, _) = (on.messages[0], on.messages[1]);
            let expected = if collective == Collective::Reduce {
                u64::from(procs) - 1
            } else {
                2 * (u64::from(procs) - 1)
            };
            assert_eq!(dissemination, expected, "{what}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// The contract with Alg. 5: handlers never panic on arbitrary peer input, before and
    /// after StartTime.
    #[test]
    fn ftco_app_b_handlers_never_panic_on_arbitrary_peer_input(
        kind in kinds(),
        collective in collectives(),
        start in proptest::collection::vec(0u64..500, 0..40),
        inputs in proptest::collection::vec((0u32..40, 0u8..4, 0u64..3, 0u64..100), 0..80),
    ) {
        let cfg = with_alg5(sum_config(kind, 2, 30, collective, 10), &start);
        fuzz_handlers(&cfg, &inputs, |v| v);
    }
}

#[test]
fn ftco_app_b_a_keepalive_from_a_re_parented_descendant_before_the_entry_still_counts_it() {
    // Found by the proptest: binary heap 0..8, Allreduce, L = 1, rank 1 inactive, the root
    // enters at 221 and rank 7 at 233. Rank 3 (child of 1, parent of 7) suspects 1 and asks
    // the root for the result (KEEPALIVE) long before the root entered and suspected 1 itself.
    // The root must still wait for rank 3's partial (which waits for rank 7's): every live
    // operand is in.
    let mut start = vec![0; 8];
    start[0] = 221;
    start[7] = 233;
    let cfg = with_alg5(
        config(
            topology(FtcoKind::KAry(2), 1, 8),
            Collective::Allreduce,
            Contributions,
            contribution,
            1,
        ),
        &start,
    );
    let report = run_ftco(&cfg, &scenario(1, &[(1, 0)]));
    let expected: Vec<(Rank, u32)> = [0, 2, 3, 4, 5, 6, 7].iter().map(|&r| (r, 1)).collect();
    assert_eq!(report.completions.len(), 7);
    assert!(report.completions.iter().all(|c| c.2 == expected));
}
