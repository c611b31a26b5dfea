//! Skipping idle send slots changes no run (the contract's `Automaton::send_slot_is_idle`,
//! docs/guide.md, "Polling the send port" (the driver side: docs/reference/drivers.md, "Idle send
//! slots")).
//!
//! The LogP driver skips a send slot that the automaton declares idle; `Sim::offer_every_send_slot`
//! turns that off, and is what the model checker runs. Over 10^4 random runs (FTCO Bcast, Reduce
//! and Allreduce with faults before and during the operation, root replacement, process
//! imbalance, service distances, timeouts short enough to suspect live nodes, both port models;
//! Corrected Trees of every correction variant and start mode) the two give the same report
//! (every metric but the count of applied events, which is what skipping saves) and leave every
//! process in the same state.

use ftcoll::automaton::{Automaton, Outbox, Sum};
use ftcoll::protocols::corrected_tree::{
    CorrectedTreeConfig, CorrectedTreeNode, CorrectionSpec, StartMode,
};
use ftcoll::protocols::ftco::{
    FtcoConfig, FtcoNode, Imbalance, RootFailure, ServiceDistance, TimeoutRule,
};
use ftcoll::rng::SplitMix64;
use ftcoll::topology::ftco::{Collective, FtcoKind, FtcoTopology};
use ftcoll::topology::{LogP, Order, Tree, TreeKind};
use ftcoll::{Rank, Time};
use ftcoll_sim::{PortModel, Report, Scenario, Sim};

/// Where a run that has not quiesced is cut off.
const HORIZON: Time = 3_000;

/// Runs to quiescence (or to [`HORIZON`]), skipping idle slots or offering every one; the report and every
/// process's final state.
fn run<A: Automaton>(
    config: &A::Config,
    procs: u32,
    scenario: &Scenario,
    every_slot: bool,
) -> (Report<A::Value>, Vec<A>) {
    let mut sim = Sim::<A>::new(config, procs, scenario).expect("valid run");
    if every_slot {
        sim.offer_every_send_slot();
    }
    // A few configurations never quiesce (timeouts too short for the load keep suspecting and
    // asking): both runs are compared at the same instant then.
    while sim.next_time().is_some_and(|t| t <= HORIZON) {
        sim.step(config).expect("the run follows the contract");
    }
    let states = (0..procs)
        .map(|r| sim.automaton(r).expect("rank in range").clone())
        .collect();
    (sim.report().clone(), states)
}

/// Both runs agree on everything but the number of events applied; returns how many events
/// skipping saved.
fn same_run<A: Automaton>(config: &A::Config, procs: u32, scenario: &Scenario, what: &str) -> u64 {
    let (mut skipping, skipping_states) = run::<A>(config, procs, scenario, false);
    let (every, every_states) = run::<A>(config, procs, scenario, true);
    assert!(
        skipping.events <= every.events,
        "{what}: skipping applied more events"
    );
    let saved = every.events - skipping.events;
    skipping.events = every.events;
    assert!(skipping == every, "{what}: reports differ\n{scenario:?}");
    for (rank, (a, b)) in skipping_states.iter().zip(&every_states).enumerate() {
        assert!(
            a == b,
            "{what}: rank {rank} ends in another state\n{scenario:?}"
        );
    }
    saved
}

/// A few crashes among `immune..procs`, before the operation (time 0) or during it.
fn crashes(rng: &mut SplitMix64, procs: u32, immune: u32, horizon: Time) -> Vec<(Rank, Time)> {
    let mut out = Vec::new();
    if procs <= immune {
        return out;
    }
    for _ in 0..rng.below(4) {
        let rank = immune + rng.below(u64::from(procs - immune)) as Rank;
        let at = if rng.below(2) == 0 {
            0
        } else {
            rng.below(horizon)
        };
        out.push((rank, at));
    }
    out
}

/// A random FTCO configuration, its `P` and a scenario (`None`: invalid parameters drawn).
fn ftco_setup(rng: &mut SplitMix64, case: u64) -> Option<(FtcoConfig<Sum>, u32, Scenario)> {
    let kind = match rng.below(4) {
        0 => FtcoKind::KAry(2 + rng.below(3)),
        _ => FtcoKind::KNomial(2 + rng.below(8)),
    };
    let roots = 1 + rng.below(3);
    // Below 93: fits in u32.
    let procs = (roots + rng.below(90)) as u32;
    let Ok(topology) = FtcoTopology::new(kind, roots, procs) else {
        return None;
    };
    let collective =
        [Collective::Bcast, Collective::Reduce, Collective::Allreduce][rng.below(3) as usize];
    let latency = rng.below(12);
    let mut config = FtcoConfig::new(topology, collective, Sum, |r| u64::from(r) + 1, latency)
        .expect("valid configuration");
    config.service = match rng.below(4) {
        0 => ServiceDistance::Rsd {
            inverse_r: 2,
            seed: case,
        },
        1 => ServiceDistance::Disd,
        _ => ServiceDistance::None,
    };
    if rng.below(5) == 0 {
        // Too short: live nodes get suspected.
        config.timeout = TimeoutRule {
            round_trip: rng.below(2 * latency + 4),
            per_load: rng.below(2),
        };
    }
    if rng.below(4) == 0 {
        config.root_failure = RootFailure::ReplacedByChildren;
    }
    if rng.below(5) == 0 {
        let start = (0..procs).map(|_| rng.below(3 * latency + 8)).collect();
        config.imbalance = Imbalance::Alg5 { start };
    }
    let procs = topology.procs();
    let immune = if config.replaces_root() {
        0
    } else {
        topology.roots()
    };
    let scenario = Scenario {
        // FTCO's step model has o = 1; a larger o keeps the port busy across instants, where
        // an input may come while a skipped slot would have been pending.
        logp: LogP::new(
            latency,
            if rng.below(4) == 0 {
                2 + rng.below(2)
            } else {
                1
            },
        )
        .expect("valid LogP"),
        model: if rng.below(4) == 0 {
            PortModel::DualPort
        } else {
            PortModel::SinglePort
        },
        crashes: crashes(rng, procs, immune, 8 * latency + 40),
        ..Default::default()
    };
    Some((config, procs, scenario))
}

fn ftco_case(rng: &mut SplitMix64, case: u64) -> u64 {
    let Some((config, procs, scenario)) = ftco_setup(rng, case) else {
        return 0;
    };
    same_run::<FtcoNode<Sum>>(&config, procs, &scenario, &format!("FTCO case {case}"))
}

fn ct_setup(rng: &mut SplitMix64) -> Option<(CorrectedTreeConfig, u32, Scenario)> {
    let (latency, o) = (rng.below(6), 1 + rng.below(3));
    let logp = LogP::new(latency, o).ok()?;
    let kind = [
        TreeKind::Binomial,
        TreeKind::KAry(2),
        TreeKind::Lame(2),
        TreeKind::Optimal,
    ][rng.below(4) as usize];
    let procs = 2 + rng.below(60) as u32;
    let tree = Tree::new(kind, Order::Interleaved, procs, logp).ok()?;
    let spec = [
        "checked",
        "opportunistic:2",
        "optimized:2",
        "failproof:1",
        "failproof:2:40",
        "ack",
        "delayed:3",
    ][rng.below(7) as usize];
    let Ok(correction) = spec.parse::<CorrectionSpec>() else {
        panic!("{spec} parses");
    };
    let start = if rng.below(2) == 0 {
        StartMode::Synchronized
    } else {
        StartMode::Overlapped
    };
    let config = CorrectedTreeConfig::new(tree, correction, start);
    let scenario = Scenario {
        logp,
        model: if rng.below(2) == 0 {
            PortModel::DualPort
        } else {
            PortModel::SinglePort
        },
        crashes: crashes(rng, procs, 1, 6 * (latency + o) + 10),
        ..Default::default()
    };
    Some((config, procs, scenario))
}

fn ct_case(rng: &mut SplitMix64, case: u64) -> u64 {
    let Some((config, procs, scenario)) = ct_setup(rng) else {
        return 0;
    };
    same_run::<CorrectedTreeNode>(&config, procs, &scenario, &format!("CT case {case}"))
}

#[test]
fn skipping_idle_send_slots_changes_no_run() {
    let mut rng = SplitMix64::new(2026);
    let (mut ftco_saved, mut ftco_runs) = (0, 0);
    for case in 0..8_000 {
        ftco_saved += ftco_case(&mut rng, case);
        ftco_runs += 1;
    }
    let (mut ct_saved, mut ct_runs) = (0, 0);
    for case in 0..2_000 {
        ct_saved += ct_case(&mut rng, case);
        ct_runs += 1;
    }
    // The comparison means something only if the runs do skip slots.
    assert!(
        ftco_saved > 10 * ftco_runs,
        "FTCO skipped only {ftco_saved} slots in {ftco_runs} runs"
    );
    // (191,096 skipped here; 59,611 when only the processes the tree has not reached yet answer
    // idle: more than 60 a run means colored processes' answers are skipped too.)
    assert!(
        ct_saved > 60 * ct_runs,
        "Corrected Trees skipped only {ct_saved} slots in {ct_runs} runs"
    );
}

/// Steps a run and, after every instant, asks four random processes whether a slot at `at`
/// (now or later) would be idle; each `true` is checked on a copy: `on_send_slot` at `at` emits
/// nothing and leaves the copy equal to the process. Returns how many answers were checked.
fn check_idle_answers<A: Automaton>(
    config: &A::Config,
    procs: u32,
    scenario: &Scenario,
    rng: &mut SplitMix64,
    what: &str,
) -> u64 {
    let mut idle_answers = 0;
    let mut sim = Sim::<A>::new(config, procs, scenario).expect("valid run");
    while let Some(now) = sim.next_time().filter(|&t| t <= HORIZON) {
        sim.step(config).expect("the run follows the contract");
        for _ in 0..4 {
            let rank = rng.below(u64::from(procs)) as Rank;
            let node = sim.automaton(rank).expect("rank in range");
            for at in [now, now + 1, now + 2, now + 7] {
                if !node.send_slot_is_idle(config, at) {
                    continue;
                }
                idle_answers += 1;
                let mut copy = node.clone();
                let mut out = Outbox::new();
                copy.on_send_slot(config, at, &mut out);
                assert!(
                    out.is_empty() && copy == *node,
                    "{what}: rank {rank} declared a slot at {at} idle (state of t = {now}), \
                     but it acts: {:?}",
                    out.actions()
                );
            }
        }
    }
    idle_answers
}

/// The promise itself, independent of the order in which a driver applies simultaneous events:
/// in every state a run passes through, whenever a process (FTCO, or Corrected Trees of every
/// variant) answers that a slot at `at` (now or later) would be idle, `on_send_slot` at `at` on
/// a copy emits nothing and leaves the copy equal to the process. (The LogP driver applies a
/// timer due at `at` before the slot, so the run comparison above cannot see a hint that
/// forgets such a timer; this test does.)
#[test]
fn an_idle_answer_keeps_its_promise() {
    let mut rng = SplitMix64::new(17);
    let mut idle_answers = 0u64;
    for case in 0..1_500 {
        let Some((config, procs, scenario)) = ftco_setup(&mut rng, case) else {
            continue;
        };
        let what = format!("FTCO case {case}");
        idle_answers +=
            check_idle_answers::<FtcoNode<Sum>>(&config, procs, &scenario, &mut rng, &what);
    }
    assert!(
        idle_answers > 10_000,
        "only {idle_answers} FTCO idle answers checked"
    );
    let mut ct_answers = 0u64;
    for case in 0..1_500 {
        let Some((config, procs, scenario)) = ct_setup(&mut rng) else {
            continue;
        };
        let what = format!("CT case {case}");
        ct_answers +=
            check_idle_answers::<CorrectedTreeNode>(&config, procs, &scenario, &mut rng, &what);
    }
    assert!(
        ct_answers > 10_000,
        "only {ct_answers} Corrected Tree idle answers checked"
    );
}

/// A state no run shows between two instants: a synchronized corrector whose start timer has
/// just fired, its tree sends over, its correction not begun (the driver polls it at the same
/// instant, and that poll begins it). The idle question must say what the poll does there too:
/// every correcting variant sends (or at least begins), the plain tree and the tree with
/// acknowledgments do nothing; checked for every non-root rank of a 16-process binomial tree.
#[test]
fn a_corrector_about_to_begin_is_not_idle() {
    use ftcoll::protocols::corrected_tree::CORRECTION_START;
    use ftcoll::protocols::{Body, Msg};
    let logp = LogP::new(2, 1).expect("valid LogP");
    let tree = Tree::new(TreeKind::Binomial, Order::Interleaved, 16, logp).expect("tree");
    for (spec, corrects) in [
        ("checked", true),
        ("opportunistic:2", true),
        ("optimized:2", true),
        ("delayed:3", true),
        ("failproof:1", true),
        ("failproof:0", true),
        ("none", false),
        ("ack", false),
    ] {
        let correction: CorrectionSpec = spec.parse().expect("parses");
        let config = CorrectedTreeConfig::new(tree.clone(), correction, StartMode::Synchronized);
        for rank in 1..16 {
            let parent = config
                .tree
                .parent(rank)
                .expect("a non-root rank has a parent");
            let mut node = CorrectedTreeNode::new(&config, rank);
            let mut out = Outbox::new();
            node.on_start(&config, 0, &mut out);
            let tree_msg = Msg {
                value: config.payload,
                body: Body::Tree,
            };
            node.on_message(&config, 1, parent, tree_msg, &mut out);
            // Poll until a poll changes nothing: the tree sends (and acknowledgment) are over.
            let mut settled = false;
            for t in 2..100 {
                let before = node.clone();
                let mut polled = Outbox::new();
                node.on_send_slot(&config, t, &mut polled);
                if polled.is_empty() && node == before {
                    settled = true;
                    break;
                }
            }
            assert!(settled, "{spec}: rank {rank} keeps acting before the start");
            let at = config.correction_start;
            node.on_timer(&config, at, CORRECTION_START, &mut out);
            let mut copy = node.clone();
            let mut polled = Outbox::new();
            copy.on_send_slot(&config, at, &mut polled);
            let acts = !polled.is_empty() || copy != node;
            assert_eq!(acts, corrects, "{spec}: rank {rank} at the start instant");
            assert_eq!(
                node.send_slot_is_idle(&config, at),
                !acts,
                "{spec}: rank {rank}'s idle answer at the start instant"
            );
        }
    }
}
