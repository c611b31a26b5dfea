//! FTCO without the fault-immune root (end of FTCO §4: "upon fault the root would be replaced
//! by all its children (extending Algorithm 3)"), `RootFailure::ReplacedByChildren`: rank 0 of
//! a single-root Reduce or Allreduce may fail; the processes that suspect every ancestor up to
//! rank 0 (its children) become a fully connected replacement group, like the roots of a
//! multi-root tree. Consistency is checked with `Contributions` as in `ftco_faults.rs`.

use crate::ftco_common;

use ftco_common::*;
use ftcoll::automaton::{Contributions, Reduction};
use ftcoll::protocols::ftco::{FtcoConfig, FtcoNode, RootFailure};
use ftcoll::topology::ftco::{Collective, FtcoKind};
use ftcoll::{Rank, Time};
use ftcoll_sim::{Report, Sim};
use proptest::prelude::*;

fn replaced<R: Reduction>(mut cfg: FtcoConfig<R>) -> FtcoConfig<R> {
    cfg.root_failure = RootFailure::ReplacedByChildren;
    cfg
}

fn sim_to_end<R>(cfg: &FtcoConfig<R>, crashes: &[(Rank, Time)]) -> Sim<FtcoNode<R>>
where
    R: Reduction + Clone + Eq + core::hash::Hash,
{
    let procs = cfg.topology.procs();
    let mut sim = Sim::new(cfg, procs, &scenario(cfg.latency, crashes)).expect("sim");
    let mut events = 0u64;
    while sim.next_time().is_some() {
        sim.step(cfg).expect("step");
        events += 1;
        assert!(events < 20_000_000, "the run quiesces");
    }
    sim
}

type Contrib = Vec<(Rank, u32)>;

/// What holds with any faults (docs/reference/ftco.md ("What holds" / "What does not hold" under
/// "Root replacement")): no completion counts an operand twice, and
/// in an Allreduce every process that never fails completes exactly once.
fn holds_with_any_faults(
    report: &Report<Contrib>,
    collective: Collective,
    crashes: &[(Rank, Time)],
    what: &str,
) -> Result<(), TestCaseError> {
    for c in &report.completions {
        prop_assert!(c.2.iter().all(|&(_, n)| n == 1), "twice: {:?}: {}", c, what);
    }
    if collective == Collective::Allreduce {
        for r in (0..report.procs).filter(|&r| crash_time(crashes, r).is_none()) {
            let n = report.completions.iter().filter(|c| c.0 == r).count();
            prop_assert_eq!(n, 1, "rank {}: {}", r, what);
        }
    }
    Ok(())
}

/// Def. 3.1–3.2 with root replacement: every completion carries one value, with no operand
/// twice, holding every process that never fails and every process that completed before it
/// failed. Allreduce: every process that never fails completes exactly once. Reduce: the
/// result is reported by rank 0, or, if rank 0 fails, by every child of rank 0 that never
/// fails (the replacement group).
fn check(
    report: &Report<Contrib>,
    cfg: &FtcoConfig<Contributions>,
    crashes: &[(Rank, Time)],
    what: &str,
) {
    let procs = report.procs;
    assert!(!report.completions.is_empty(), "someone completes: {what}");
    let value = &report.completions[0].2;
    assert!(
        report.completions.iter().all(|c| &c.2 == value),
        "one value: {what}"
    );
    assert!(
        value.iter().all(|&(_, c)| c == 1),
        "no operand twice: {value:?}: {what}"
    );
    for r in 0..procs {
        let n = report.completions.iter().filter(|c| c.0 == r).count();
        assert!(n <= 1, "rank {r} completes at most once: {what}");
        let crash = crash_time(crashes, r);
        let finish = report.completions.iter().find(|c| c.0 == r).map(|c| c.1);
        let must = match crash {
            None => true,
            Some(fail) => finish.is_some_and(|f| f < fail),
        };
        if must {
            assert!(
                value.iter().any(|&(x, _)| x == r),
                "rank {r} missing from {value:?}: {what}"
            );
        }
        let reports = match cfg.collective {
            Collective::Allreduce => true,
            _ => r == 0 || (cfg.topology.parent(r) == Some(0) && crash_time(crashes, 0).is_some()),
        };
        if crash.is_none() && reports {
            assert_eq!(n, 1, "rank {r} completes: {what}");
        }
    }
}

#[test]
fn ftco_4_without_faults_root_replacement_keeps_the_allreduce_run_exactly() {
    // Rank 0 is no longer immune, but the default timeouts never suspect it without faults:
    // the Allreduce is the same run; the Reduce adds rank 0's result to its children.
    for kind in [
        FtcoKind::KAry(2),
        FtcoKind::KNomial(3),
        FtcoKind::KNomial(9),
    ] {
        for procs in [2u32, 7, 40, 300] {
            let cfg = sum_config(kind, 1, procs, Collective::Allreduce, 10);
            let off = run_ftco(&cfg, &scenario(10, &[]));
            let mut on = run_ftco(&replaced(cfg), &scenario(10, &[]));
            // Only the driver's event count differs: timers now watch rank 0's ACKs.
            on.events = off.events;
            assert_eq!(off, on, "{kind} P={procs}");

            let cfg = replaced(sum_config(kind, 1, procs, Collective::Reduce, 10));
            let sim = sim_to_end(&cfg, &[]);
            let report = sim.report();
            let children: Vec<Rank> = cfg.topology.children(0).collect();
            let mut reporters: Vec<Rank> = report.completions.iter().map(|c| c.0).collect();
            reporters.sort_unstable();
            let mut expected = vec![0];
            expected.extend(&children);
            assert_eq!(reporters, expected, "{kind} P={procs}");
            assert!(report.completions.iter().all(|c| c.2 == full_sum(procs)));
            assert_eq!(
                report.messages[0],
                u64::from(procs) - 1 + children.len() as u64,
                "{kind} P={procs}"
            );
            assert_eq!(report.messages[1], 0, "no KEEPALIVE: {kind} P={procs}");
            for r in 0..procs as Rank {
                assert!(sim.automaton(r).expect("rank").suspected().is_empty());
            }
        }
    }
}

#[test]
fn ftco_4_an_inactive_root_is_replaced_by_its_children() {
    // Binary heap 0..15, rank 0 inactive: ranks 1 and 2 suspect it, form the replacement
    // group, exchange their partials and both compute 1..15 without rank 0.
    for collective in [Collective::Reduce, Collective::Allreduce] {
        let cfg = replaced(config(
            topology(FtcoKind::KAry(2), 1, 15),
            collective,
            Contributions,
            contribution,
            10,
        ));
        let sim = sim_to_end(&cfg, &[(0, 0)]);
        let report = sim.report();
        let expected: Contrib = (1..15).map(|r| (r, 1)).collect();
        check(report, &cfg, &[(0, 0)], &format!("{collective:?}"));
        assert_eq!(report.completions[0].2, expected);
        let n = if collective == Collective::Reduce {
            2
        } else {
            14
        };
        assert_eq!(report.completions.len(), n, "{collective:?}");
        for (me, other) in [(1, 2), (2, 1)] {
            let node = sim.automaton(me).expect("rank");
            assert!(node.in_replacement_group());
            assert_eq!(node.group().collect::<Vec<_>>(), vec![other]);
            assert_eq!(node.suspected(), &[0]);
        }
    }
}

#[test]
fn ftco_4_a_root_failing_after_its_first_result_send_leaves_its_result_everywhere() {
    // Rank 0 crashes right after sending the result to its first child (rank 1): rank 1 holds
    // the full result (with rank 0's operand); rank 2 suspects rank 0, joins the group, sends
    // its partial to rank 1, and rank 1 answers with the result instead of a partial.
    for collective in [Collective::Reduce, Collective::Allreduce] {
        let cfg = replaced(config(
            topology(FtcoKind::KAry(2), 1, 15),
            collective,
            Contributions,
            contribution,
            10,
        ));
        let mut fault_free = scenario(10, &[]);
        fault_free.trace = true;
        let report = run_ftco(&cfg, &fault_free);
        let first = report
            .trace
            .iter()
            .filter_map(|e| match e {
                ftcoll_sim::TraceEvent::Message {
                    from: 0,
                    to: 1,
                    sent,
                    phase: ftcoll::automaton::Phase::Dissemination,
                    ..
                } => Some(*sent),
                _ => None,
            })
            .min()
            .expect("rank 0 sends the result to rank 1");
        let crashes = [(0, first + 1)];
        let sim = sim_to_end(&cfg, &crashes);
        let report = sim.report();
        check(report, &cfg, &crashes, &format!("{collective:?}"));
        let all: Contrib = (0..15).map(|r| (r, 1)).collect();
        assert_eq!(report.completions[0].2, all, "{collective:?}");
        assert!(sim.automaton(2).expect("rank 2").in_replacement_group());
        assert!(!sim.automaton(1).expect("rank 1").in_replacement_group());
    }
}

fn kinds() -> impl Strategy<Value = FtcoKind> {
    prop_oneof![
        Just(FtcoKind::KAry(2)),
        Just(FtcoKind::KAry(3)),
        Just(FtcoKind::KNomial(2)),
        Just(FtcoKind::KNomial(3)),
    ]
}

/// `(kind, procs, crashes)`: rank 0 crashes at 0 or at run time; up to 3 more processes are
/// inactive (crash at 0, anywhere, the root's children included) and up to 3 processes below
/// the root's children and below no inactive process crash at run time (outside the
/// replacement group: a member failing during the exchange is the case that is not
/// consistent, see docs/reference/ftco.md ("What holds" / "What does not hold" under "Root
/// replacement")).
fn setups() -> impl Strategy<Value = (FtcoKind, u32, Vec<(Rank, Time)>)> {
    (kinds(), 3u32..=24, prop_oneof![Just(0u64), 0u64..150]).prop_flat_map(|(kind, procs, root)| {
        let t = topology(kind, 1, procs);
        let deep: Vec<Rank> = (1..procs as Rank)
            .filter(|&r| t.parent(r) != Some(0))
            .collect();
        let running = if deep.is_empty() {
            Just(Vec::new()).boxed()
        } else {
            proptest::collection::vec((proptest::sample::select(deep), 1u64..150), 0..=3).boxed()
        };
        let inactive = proptest::collection::vec((1..procs as Rank, Just(0u64)), 0..=3);
        (
            Just(kind),
            Just(procs),
            (inactive, running).prop_map(move |(mut c, r)| {
                // Run-time faults stay outside the replacement group: no ancestor of theirs
                // below rank 0 is inactive (else they would be members).
                let inactive: Vec<Rank> = c.iter().map(|x| x.0).collect();
                c.extend(
                    r.into_iter()
                        .filter(|&(x, _)| !t.ancestors(x).any(|a| a != 0 && inactive.contains(&a))),
                );
                c.push((0, root));
                c
            }),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// Root crashes at 0 and at run time, with faults deeper in the tree: Def. 3.1–3.2 hold.
    #[test]
    fn ftco_4_root_replacement_keeps_def_3_2_when_the_root_fails(
        (kind, procs, crashes) in setups(),
        collective in prop_oneof![Just(Collective::Reduce), Just(Collective::Allreduce)],
        latency in prop_oneof![Just(1u64), Just(10u64)],
    ) {
        let cfg = replaced(config(topology(kind, 1, procs), collective, Contributions, contribution, latency));
        let what = format!("{kind} P={procs} {collective:?} L={latency} crashes {crashes:?}");
        if (0..procs as Rank).all(|r| crash_time(&crashes, r).is_some()) {
            return Ok(()); // nobody left
        }
        let report = ftcoll_sim::run::<FtcoNode<Contributions>>(&cfg, procs, &scenario(latency, &crashes), 5_000_000)
            .unwrap_or_else(|e| panic!("{e:?}: {what}"));
        check(&report, &cfg, &crashes, &what);
        let last = report.completions.iter().map(|c| c.1).max().unwrap_or(0);
        prop_assert!(last <= bound(&cfg, crashes.len()), "{}", what);
    }

    /// The contract with root replacement: handlers never panic on arbitrary peer input.
    #[test]
    fn ftco_4_root_replacement_handlers_never_panic_on_arbitrary_peer_input(
        kind in kinds(),
        collective in prop_oneof![Just(Collective::Reduce), Just(Collective::Allreduce), Just(Collective::Bcast)],
        inputs in proptest::collection::vec((0u32..40, 0u8..4, 0u64..3, 0u64..100), 0..80),
    ) {
        let cfg = replaced(sum_config(kind, 1, 30, collective, 10));
        fuzz_handlers(&cfg, &inputs, |v| v);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// Any faults, the replacement group's members included, at any time: the case that is
    /// not always consistent (docs/reference/ftco.md ("What holds" / "What does not hold" under
    /// "Root replacement")). What still holds: the run quiesces, someone
    /// completes, no completion counts an operand twice, and in an Allreduce every process that
    /// never fails completes exactly once.
    #[test]
    fn ftco_4_root_replacement_with_any_faults_terminates_and_never_counts_twice(
        kind in kinds(),
        procs in 3u32..=24,
        root in prop_oneof![Just(0u64), 0u64..150],
        others in proptest::collection::vec((1u32..24, prop_oneof![Just(0u64), 0u64..150]), 0..=3),
        collective in prop_oneof![Just(Collective::Reduce), Just(Collective::Allreduce)],
    ) {
        let cfg = replaced(config(topology(kind, 1, procs), collective, Contributions, contribution, 10));
        let mut crashes: Vec<(Rank, Time)> =
            others.into_iter().filter(|c| c.0 < procs).collect();
        crashes.push((0, root));
        if (0..procs as Rank).all(|r| crash_time(&crashes, r).is_some()) {
            return Ok(());
        }
        let what = format!("{kind} P={procs} {collective:?} crashes {crashes:?}");
        let report = ftcoll_sim::run::<FtcoNode<Contributions>>(&cfg, procs, &scenario(10, &crashes), 5_000_000)
            .unwrap_or_else(|e| panic!("{e:?}: {what}"));
        // A Reduce reports at rank 0 or its children; when all of them fail, the others may
        // have finished already (acknowledged) and nobody reports
        // (`ftco_4_a_reduce_whose_reporters_all_fail_reports_nowhere`).
        let reporters_all_fail = collective == Collective::Reduce
            && (0..procs as Rank)
                .filter(|&r| r == 0 || cfg.topology.parent(r) == Some(0))
                .all(|r| crash_time(&crashes, r).is_some());
        prop_assert!(reporters_all_fail || !report.completions.is_empty(), "{}", what);
        holds_with_any_faults(&report, collective, &crashes, &what)?;
    }
}

#[test]
fn ftco_4_a_group_member_failing_during_the_exchange_is_the_inconsistent_case() {
    // 2-nomial P = 17, rank 0 and its child 1 inactive, member 8 (a child of rank 0) crashes
    // at 41, during the group exchange: some members counted 8's partial, others had replaced
    // it; the completions differ (docs/reference/ftco.md, "What does not hold"). What holds: every
    // live process completes once and no value counts an operand twice.
    let crashes = [(1, 0), (8, 41), (0, 0)];
    let cfg = replaced(config(
        topology(FtcoKind::KNomial(2), 1, 17),
        Collective::Allreduce,
        Contributions,
        contribution,
        10,
    ));
    let report = run_ftco(&cfg, &scenario(10, &crashes));
    assert_eq!(report.completions.len(), 14);
    assert!(report
        .completions
        .iter()
        .all(|c| c.2.iter().all(|&(_, n)| n == 1)));
    let first = &report.completions[0].2;
    assert!(
        report.completions.iter().any(|c| &c.2 != first),
        "if this now holds one value, update docs/reference/ftco.md, \"What does not hold\""
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Both extensions at once: root replacement with Alg. 5 and random start times (the
    /// root's included). The same Def. 3.1–3.2 checks as above, in every run where no process
    /// suspected a live one. A false suspicion can make a process a member of the replacement
    /// group while its parent lives, and then the values can split
    /// (`ftco_4_a_false_suspicion_under_alg5_makes_a_member_and_splits_the_value`,
    /// docs/reference/ftco.md, "What does not hold"); those runs are held to what holds with any
    /// faults: no operand twice, and in an Allreduce every process that never fails completes
    /// once.
    #[test]
    fn ftco_4_root_replacement_with_alg5_arrivals_keeps_def_3_2(
        (kind, procs, crashes) in setups(),
        collective in prop_oneof![Just(Collective::Reduce), Just(Collective::Allreduce)],
        spread in prop_oneof![Just(0u64), Just(40), Just(300)],
        seed in any::<u64>(),
    ) {
        let mut cfg = replaced(config(topology(kind, 1, procs), collective, Contributions, contribution, 10));
        let mut rng = ftcoll::rng::SplitMix64::new(seed);
        let start = ftcoll_sim::scenario::draw_arrivals(
            ftcoll_sim::scenario::ArrivalSpec::Uniform(spread),
            procs,
            &mut rng,
        );
        cfg.imbalance = ftcoll::protocols::ftco::Imbalance::Alg5 { start: start.clone() };
        if (0..procs as Rank).all(|r| crash_time(&crashes, r).is_some()) {
            return Ok(());
        }
        let what = format!("{kind} P={procs} {collective:?} crashes {crashes:?} start {start:?}");
        let sim = sim_to_end(&cfg, &crashes);
        let report = sim.report();
        let falsely_suspected = (0..procs as Rank).any(|r| {
            sim.automaton(r)
                .is_some_and(|n| n.suspected().iter().any(|&s| crash_time(&crashes, s).is_none()))
        });
        if falsely_suspected {
            prop_assert!(!report.completions.is_empty(), "{}", what);
            holds_with_any_faults(report, collective, &crashes, &what)?;
        } else {
            check(report, &cfg, &crashes, &what);
        }
    }
}

#[test]
fn ftco_4_a_reduce_whose_reporters_all_fail_reports_nowhere() {
    // Found by the any-faults proptest (its regression file keeps the case): binary heap
    // P = 6, Reduce, rank 0 inactive, its children 2 and 1 crash at 14 and 16. The leaves
    // 3, 4, 5 sent their partials, were acknowledged and finished before their parents
    // failed; rank 0 and its children, the only reporters of a Reduce, are gone, and nobody
    // completes (docs/reference/ftco.md, "What does not hold").
    let crashes = [(1, 16), (2, 14), (0, 0)];
    let cfg = replaced(config(
        topology(FtcoKind::KAry(2), 1, 6),
        Collective::Reduce,
        Contributions,
        contribution,
        10,
    ));
    let sim = sim_to_end(&cfg, &crashes);
    for r in 3..6 {
        assert!(
            sim.automaton(r).expect("leaf").completed(),
            "leaf {r} finished"
        );
    }
    assert!(
        sim.report().completions.is_empty(),
        "if someone now reports, update docs/reference/ftco.md, \"What does not hold\""
    );
}

#[test]
fn ftco_4_a_false_suspicion_under_alg5_makes_a_member_and_splits_the_value() {
    // Found by the proptest above (its regression file keeps the seed): 3-nomial P = 21,
    // Allreduce, ranks 1, 8, 14 inactive, 5 crashes at 1, rank 0 at 100, Alg. 5 start times
    // uniform over 300 steps. Rank 16 (start 178) times out on its live parent 7 (start 18),
    // suspects every ancestor up to rank 0 and joins the replacement group, of which 7 is a
    // member too. 16 completes with 15 operands, every
    // other live process with 16 (docs/reference/ftco.md, "What does not hold").
    let procs = 21u32;
    let crashes = [(1, 0), (14, 0), (8, 0), (5, 1), (0, 100)];
    let mut cfg = replaced(config(
        topology(FtcoKind::KNomial(3), 1, procs),
        Collective::Allreduce,
        Contributions,
        contribution,
        10,
    ));
    let mut rng = ftcoll::rng::SplitMix64::new(15_543_849_429_705_215_982);
    let start = ftcoll_sim::scenario::draw_arrivals(
        ftcoll_sim::scenario::ArrivalSpec::Uniform(300),
        procs,
        &mut rng,
    );
    assert_eq!(
        (start[7], start[16]),
        (18, 178),
        "the start times of the example"
    );
    cfg.imbalance = ftcoll::protocols::ftco::Imbalance::Alg5 { start };
    let sim = sim_to_end(&cfg, &crashes);
    let sixteen = sim.automaton(16).expect("rank 16");
    assert!(
        sixteen.suspected().contains(&7),
        "16 suspects its live parent 7"
    );
    assert!(sixteen.in_replacement_group(), "and joins the group");
    let report = sim.report();
    // What holds: no operand twice, every live process completes once.
    assert!(report
        .completions
        .iter()
        .all(|c| c.2.iter().all(|&(_, n)| n == 1)));
    for r in (0..procs as Rank).filter(|&r| crash_time(&crashes, r).is_none()) {
        assert_eq!(
            report.completions.iter().filter(|c| c.0 == r).count(),
            1,
            "rank {r}"
        );
    }
    let first = &report.completions[0].2;
    assert!(
        report.completions.iter().any(|c| &c.2 != first),
        "if this now holds one value, update docs/reference/ftco.md, \"What does not hold\""
    );
}
