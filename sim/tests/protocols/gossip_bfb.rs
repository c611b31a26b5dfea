//! BFB, Buntinas' restarting tree broadcast (CG §IV.B.2), on the dual-port LogP driver, as
//! `sim/tests/protocols/gossip_big.rs` runs BIG. Expected values are derived by hand in each test's comment or
//! printed in CG Table 7 (`N = 4096, L = 2, O = 1`).

use ftcoll::automaton::{Action, Automaton, Outbox, Phase, TimerId};
use ftcoll::protocols::gossip::{BfbBody, BfbConfig, BfbMsg, BfbNode, BfbTimeout};
use ftcoll::rng::SplitMix64;
use ftcoll::topology::LogP;
use ftcoll::{Rank, Time};
use ftcoll_sim::{self as sim, Report, Scenario, Sim};

struct Run {
    report: Report,
    nodes: Vec<BfbNode>,
}

impl Run {
    /// The root's completion time (all ACKs back), if it completed.
    fn completion(&self) -> Option<Time> {
        let mut c = self.report.completions.iter().filter(|c| c.0 == 0);
        let first = c.next().map(|c| c.1);
        assert!(c.next().is_none(), "the root completed twice");
        first
    }

    fn root(&self) -> &BfbNode {
        &self.nodes[0]
    }

    /// Live ranks the root excluded (reported failed in a current attempt).
    fn falsely_excluded(&self) -> Vec<Rank> {
        let r = &self.report;
        self.root()
            .failed()
            .iter()
            .copied()
            .filter(|&x| r.is_live(x))
            .collect()
    }

    /// Live ranks any process timed out on (stale attempts included).
    fn live_suspicions(&self) -> usize {
        self.nodes
            .iter()
            .flat_map(|n| n.suspected())
            .filter(|&&x| self.report.is_live(x))
            .count()
    }
}

fn config(n: u32, l: Time, o: Time) -> BfbConfig {
    BfbConfig::new(n, LogP::new(l, o).unwrap()).unwrap()
}

fn run_with(config: &BfbConfig, crashes: &[(Rank, Time)]) -> Run {
    let scenario = Scenario {
        logp: config.logp,
        crashes: crashes.to_vec(),
        ..Scenario::default()
    };
    let mut sim = Sim::<BfbNode>::new(config, config.procs, &scenario).unwrap();
    let budget = sim::default_budget(config.procs);
    while sim.next_time().is_some() {
        sim.step(config).unwrap();
        assert!(sim.report().events <= budget, "BFB did not quiesce");
    }
    let nodes = (0..config.procs)
        .map(|r| sim.automaton(r).unwrap().clone())
        .collect();
    Run {
        report: sim.report().clone(),
        nodes,
    }
}

fn run(n: u32, crashes: &[(Rank, Time)]) -> Run {
    run_with(&config(n, 2, 1), crashes)
}

/// §IV.B.2 by hand, N = 4, L = O = 1 (hop 3). Members 0..4; root 0 sends to index 2 (subtree
/// {2, 3}) at 0 and to 1 at 1; 2 holds it at 3 and sends to 3 at 3, held at 6; 1 (leaf) holds it
/// at 4 and ACKs at once, at the root at 7; 3 ACKs at 6, at 2 at 9; 2 ACKs at 9, at the root at
/// 12 = 2(2O + L)·log₂ 4. Four DATA... three DATA and three ACKs.
#[test]
fn bfb_by_hand() {
    let r = run_with(&config(4, 1, 1), &[]);
    assert_eq!(
        r.report.delivery_times().collect::<Vec<_>>(),
        [Some(0), Some(4), Some(3), Some(6)]
    );
    assert_eq!(r.completion(), Some(12));
    assert_eq!(r.report.messages, [3, 0, 3, 0]);
    assert_eq!(r.report.quiescence_latency(), 12);
}

/// §IV.B.2, Table 7 (f̂ = 0): `T_BFB = 2(2O + L)·log₂ N` = 2·4·12 = 96. Derivation independent of
/// the code: with largest subtree first, a child of subtree height `h` sent at `t` holds the DATA
/// at `t + 4`, sends to its `j`-th child (height `h − 1 − j`) at `+ j`; an ACK from height `h`
/// is back at `t + A(h)`, `A(0) = 8` (down and up one hop) and `A(h) = 8 + max_j (j + A(h − 1 −
/// j)) = 8 + A(h − 1)` (j = 0 dominates since each level costs 8 > 1), so `A(h) = 8(h + 1)`; the
/// root's last ACK is its child 0's, height 11: `A(11) = 96`. Every process is colored by 48 =
/// `(2O + L)·log₂ N` (a path with child positions `c_j` costs `Σ (4 + c_j)` with `Σ (c_j + 1) <=
/// 12`), rank 4095 exactly at 48. No timer fires: nobody is suspected.
#[test]
fn bfb_table_7_fault_free_latency() {
    let r = run(4096, &[]);
    assert_eq!(r.report.undelivered(), 0);
    assert_eq!(r.report.duplicates(), 0);
    assert_eq!(r.report.coloring_latency(), 48);
    assert_eq!(r.report.delivered_at(4095), Some(48));
    assert_eq!(r.completion(), Some(2 * (2 + 2) * 12));
    assert_eq!(r.report.quiescence_latency(), 96);
    assert_eq!(r.root().attempt(), 0);
    assert!(r.nodes.iter().all(|n| n.suspected().is_empty()));
}

/// §IV.B.2 and Table 7's work: one DATA to each non-root (4095 = N − 1) and one ACK from each
/// (4095): 8190 = 2(N − 1). Table 7's 4,096 counts one message per process and attempt (the
/// DATA; N − 1 + the root's own start), not the ACKs (docs/reference/gossip.md, "BFB").
#[test]
fn bfb_table_7_fault_free_work() {
    let r = run(4096, &[]);
    assert_eq!(r.report.messages_in(Phase::Dissemination), 4095);
    assert_eq!(r.report.messages_in(Phase::Acknowledgment), 4095);
    assert_eq!(r.report.messages_total(), 8190);
    assert!(r
        .report
        .sent_counts()
        .skip(1)
        .all(|s| s[0] as u64 + s[2] as u64 >= 1));
}

/// The module docs' timeout claim, §IV.B.2's failure detector: at N = 4096 (a power of two, no
/// reply ever queues) the unqueued `D = 2(2O + L)` = 8 already suspects nobody — the bound is
/// tight since `A(h) = 8(h + 1)` exactly — and the default `D` suspects nobody either, at every
/// N from 1 to 600 and four (L, O) (queueing included).
#[test]
fn bfb_no_false_suspicion_fault_free() {
    let mut c = config(4096, 2, 1);
    c.timeout = BfbTimeout::unqueued(c.logp);
    assert_eq!(c.timeout.per_level, 8);
    let r = run_with(&c, &[]);
    assert_eq!(r.live_suspicions(), 0);
    assert_eq!(r.completion(), Some(96));
    for n in 1..=600 {
        for (l, o) in [(2, 1), (0, 1), (5, 3), (1, 4)] {
            let r = run_with(&config(n, l, o), &[]);
            assert_eq!(r.live_suspicions(), 0, "N = {n}, L = {l}, O = {o}");
            assert_eq!(r.report.undelivered(), 0);
            assert_eq!(r.root().attempt(), 0);
            // The root's child j has height at most K − 1 − j (K = ⌈log₂ N⌉), exactly that
            // except the first when N is not a power of two, so completion is at most
            // max_j (jO + A(K − 1 − j)) = A(K − 1) = 2(2O + L)·K, with equality at N = 2^K.
            let k = 32 - n.saturating_sub(1).leading_zeros() as u64;
            let bound = 2 * (2 * o + l) * k;
            let done = r.completion().unwrap();
            assert!(done <= bound, "N = {n}: {done} > 2(2O + L)·⌈log₂ N⌉");
            if n.is_power_of_two() {
                assert_eq!(done, bound, "N = {n}");
            }
        }
    }
}

/// Why the default timeout has the `qO` queueing margin (module docs): when N is not a power of
/// two the first child's subtree is shorter and its replies can reach a process at the same
/// time as a sibling's, one waiting `O` at the receive port. A search over N = 1..600 found the
/// unqueued `D = 2(2O + L)` suspecting a live process at N = 258 and 516 (L = 2, O = 1), and at
/// 39 sizes from N = 18 on with L = 0, O = 1; the default `D` at none (test above).
#[test]
fn bfb_unqueued_timeout_is_not_enough_without_power_of_two() {
    let mut c = config(258, 2, 1);
    c.timeout = BfbTimeout::unqueued(c.logp);
    assert!(run_with(&c, &[]).live_suspicions() > 0);
    let r = run(258, &[]);
    assert_eq!(r.live_suspicions(), 0);
    assert_eq!(r.root().attempt(), 0);
}

/// Mutant (§IV.B.2's failure detector must not suspect live processes): one step too short,
/// `D = 2(2O + L) − 1` = 7, times out on a live leaf (its ACK is back 8 after the send), so the
/// check used by the fault tests (`falsely_excluded`) catches it. (N = 64: at 4096 the mutant
/// restarts thousands of times.)
#[test]
fn bfb_mutant_short_timeout_is_detected() {
    let mut c = config(64, 2, 1);
    c.timeout = BfbTimeout { per_level: 7 };
    let r = run_with(&c, &[]);
    assert!(r.live_suspicions() > 0);
    assert!(
        !r.falsely_excluded().is_empty(),
        "the mutant went unnoticed"
    );
    assert!(r.root().attempt() > 0);
}

/// §IV.B.2, failures before the operation: the root does not know them, attempt 0 runs over all
/// ranks, each crashed rank that holds a tree position is timed out by its parent, the NACK goes
/// up, the root restarts without it. Every live process delivers, the root completes, at least
/// one restart, and the root never excludes a live rank.
#[test]
fn bfb_failures_before_the_operation() {
    // Table 7's f̂ = 3 placements, all before the operation: a root child (2048, height 11),
    // an inner process (1024 + 512 = 1536) and a leaf (4095).
    let crashed = [(2048, 0), (1536, 0), (4095, 0)];
    let r = run(4096, &crashed);
    assert_eq!(r.report.undelivered(), 0);
    assert!(r.completion().is_some());
    assert!(r.root().attempt() >= 1);
    assert_eq!(r.falsely_excluded(), Vec::<Rank>::new());
    assert_eq!(r.root().attempt() as usize, r.root().failed().len());
    println!(
        "N = 4096, 3 crashed at 0: attempts {}, coloring {}, completion {:?}, messages {} \
         (DATA {}, ACK/NACK {}), live suspicions in stale attempts {}",
        r.root().attempt() + 1,
        r.report.coloring_latency(),
        r.completion(),
        r.report.messages_total(),
        r.report.messages_in(Phase::Dissemination),
        r.report.messages_in(Phase::Acknowledgment),
        r.live_suspicions()
    );
    // Random placements: 1–8 of 256 crashed at 0.
    let mut rng = SplitMix64::new(0xbfb);
    for case in 0..200 {
        let f = 1 + rng.below(8) as usize;
        let mut crashes: Vec<(Rank, Time)> = Vec::new();
        while crashes.len() < f {
            let x = 1 + rng.below(255) as Rank;
            if !crashes.iter().any(|c| c.0 == x) {
                crashes.push((x, 0));
            }
        }
        let r = run(256, &crashes);
        assert_eq!(r.report.undelivered(), 0, "case {case}: {crashes:?}");
        assert!(r.completion().is_some(), "case {case}: {crashes:?}");
        assert!(r.root().attempt() >= 1, "case {case}");
        assert_eq!(r.falsely_excluded(), Vec::<Rank>::new(), "case {case}");
    }
}

/// §IV.B.2, a failure during the operation ("restarts after each new node failure"): rank 2048
/// (the root's first child, subtree height 11) holds the DATA at 4 and crashes at 6, after two of
/// its eleven sends; its subtree's ACK never comes, the root times out on it and restarts; and a
/// leaf (4095, colored at 48) crashing at 48 before its ACK starts. Every live process delivers
/// (most in attempt 0), the root restarts once per failure and excludes exactly the failed
/// ranks.
#[test]
fn bfb_failure_during_the_operation() {
    for crashes in [
        vec![(2048, 6)],
        vec![(4095, 48)],
        vec![(100, 0), (2048, 6), (7, 0)],
    ] {
        let r = run(4096, &crashes);
        assert_eq!(r.report.undelivered(), 0, "{crashes:?}");
        assert!(r.completion().is_some(), "{crashes:?}");
        assert_eq!(r.falsely_excluded(), Vec::<Rank>::new(), "{crashes:?}");
        let mut failed: Vec<Rank> = crashes.iter().map(|c| c.0).collect();
        failed.sort_unstable();
        // One restart per failure, and the root excludes exactly the failed ranks.
        assert_eq!(r.root().attempt() as usize, crashes.len(), "{crashes:?}");
        assert_eq!(r.root().failed(), &failed[..], "{crashes:?}");
        println!(
            "N = 4096, crashes {crashes:?}: attempts {}, root excluded {:?}, coloring {}, \
             completion {:?}, messages {}",
            r.root().attempt() + 1,
            r.root().failed(),
            r.report.coloring_latency(),
            r.completion(),
            r.report.messages_total()
        );
    }
    // Random crash times among 64 ranks.
    let mut rng = SplitMix64::new(0xbfb2);
    for case in 0..300 {
        let f = 1 + rng.below(4) as usize;
        let mut crashes: Vec<(Rank, Time)> = Vec::new();
        while crashes.len() < f {
            let x = 1 + rng.below(63) as Rank;
            if !crashes.iter().any(|c| c.0 == x) {
                crashes.push((x, rng.below(120)));
            }
        }
        let r = run(64, &crashes);
        assert_eq!(r.report.undelivered(), 0, "case {case}: {crashes:?}");
        assert!(r.completion().is_some(), "case {case}: {crashes:?}");
        assert_eq!(r.falsely_excluded(), Vec::<Rank>::new(), "case {case}");
    }
}

// ---------------------------------------------------------------------------------------------
// Robustness (docs/guide.md, "The automaton contract": handlers never panic on peer input)

fn ignored(out: &Outbox<BfbMsg>) -> bool {
    matches!(out.actions(), [Action::Ignored(_)])
}

fn data(attempt: u32, failed: Vec<Rank>, index: u32) -> BfbMsg {
    BfbMsg {
        attempt,
        body: BfbBody::Data {
            value: 7,
            failed,
            index,
        },
    }
}

/// Stale, duplicate, misaddressed and unknown-sender messages are `Ignored`, not panics.
#[test]
fn bfb_ignores_stale_and_unknown_messages() {
    let c = config(8, 2, 1);
    let mut out = Outbox::new();
    let mut p = BfbNode::new(&c, 4);
    p.on_start(&c, 0, &mut out);
    out.drain();
    // Index 4's parent is index 0 (the root).
    p.on_message(&c, 1, 0, data(2, vec![], 4), &mut out);
    assert!(matches!(out.actions()[0], Action::Deliver(7)));
    out.drain();
    for (from, msg) in [
        (0, data(2, vec![], 4)),                // duplicate of this attempt
        (0, data(1, vec![], 4)),                // stale attempt
        (9, data(3, vec![], 4)),                // unknown rank
        (4, data(3, vec![], 4)),                // itself
        (2, data(3, vec![], 4)),                // not the tree parent
        (0, data(3, vec![], 5)),                // another index
        (0, data(3, vec![0], 4)),               // the root in the failed set
        (0, data(3, vec![3, 2], 4)),            // unsorted failed set
        (0, data(3, vec![u32::MAX], u32::MAX)), // out of range
        (
            5,
            BfbMsg {
                attempt: 1,
                body: BfbBody::Ack,
            },
        ), // ACK of another attempt
        (
            1,
            BfbMsg {
                attempt: 2,
                body: BfbBody::Ack,
            },
        ), // ACK from no child
        (
            5,
            BfbMsg {
                attempt: 2,
                body: BfbBody::Nack { failed: 5 },
            },
        ), // NACK before any DATA was sent
    ] {
        p.on_message(&c, 2, from, msg.clone(), &mut out);
        assert!(ignored(&out), "{from} {msg:?}: {:?}", out.actions());
        out.drain();
    }
    p.on_timer(&c, 3, TimerId(7), &mut out);
    assert!(ignored(&out));
    out.drain();
    // The root ignores DATA and replies before it starts.
    let mut root = BfbNode::new(&c, 0);
    root.on_message(
        &c,
        0,
        1,
        BfbMsg {
            attempt: 0,
            body: BfbBody::Ack,
        },
        &mut out,
    );
    assert!(ignored(&out));
}

/// Feeds `p` (rank `rank` of `c`) `inputs` random inputs from `now` on and checks the contract
/// after each: no panic, at most one send per send slot and none elsewhere, at most one delivery
/// in all (`delivered` counts the earlier ones), no send to itself or outside `0..N`.
fn feed_random(
    c: &BfbConfig,
    p: &mut BfbNode,
    rank: Rank,
    rng: &mut SplitMix64,
    mut now: Time,
    mut delivered: u32,
    case: u64,
) {
    let n = c.procs;
    let mut out = Outbox::new();
    for _ in 0..40 {
        now += rng.below(50);
        let pick = |rng: &mut SplitMix64| -> Rank {
            match rng.below(4) {
                0 => rng.below(u64::from(n).saturating_add(2)) as Rank,
                1 => 0,
                2 => rank.wrapping_add(1 << rng.below(6)),
                _ => rank.wrapping_sub(1 << rng.below(6)),
            }
        };
        let kind = rng.below(5);
        match kind {
            0 => p.on_start(c, now, &mut out),
            1 | 2 => {
                let from = pick(rng);
                let attempt = p
                    .attempt()
                    .wrapping_add(rng.below(3) as u32)
                    .wrapping_sub(1);
                let body = match rng.below(3) {
                    0 => {
                        let mut failed: Vec<Rank> = match rng.below(3) {
                            0 => p.failed().to_vec(),
                            _ => (0..rng.below(3)).map(|_| pick(rng)).collect(),
                        };
                        if rng.below(2) == 0 {
                            failed.sort_unstable();
                            failed.dedup();
                        }
                        let index = match rng.below(3) {
                            0 => rank,
                            1 => rng.below(u64::from(n)) as u32,
                            _ => rank.wrapping_sub(failed.len() as u32),
                        };
                        BfbBody::Data {
                            value: 7,
                            failed,
                            index,
                        }
                    }
                    1 => BfbBody::Ack,
                    _ => BfbBody::Nack { failed: pick(rng) },
                };
                p.on_message(c, now, from, BfbMsg { attempt, body }, &mut out);
            }
            3 => p.on_timer(c, now, TimerId(rng.below(40) as u32), &mut out),
            _ => p.on_send_slot(c, now, &mut out),
        }
        let mut sends = 0;
        for a in out.drain() {
            match a {
                Action::Send { to, .. } => {
                    sends += 1;
                    assert!(to != rank && to < n, "case {case}: send to {to}");
                }
                Action::Deliver(_) => delivered += 1,
                _ => {}
            }
        }
        assert!(
            sends <= usize::from(kind == 4),
            "case {case}: {sends} sends"
        );
        assert!(delivered <= 1, "case {case}: delivered twice");
    }
}

/// Arbitrary input sequences from a fresh process (as `tests/core/fuzz_automata.rs` does for the
/// Corrected Tree family, whose harness is specific to `CorrectedTreeConfig`): see
/// [`feed_random`].
#[test]
fn bfb_survives_arbitrary_inputs() {
    let mut rng = SplitMix64::new(0x0f02_2bfb);
    for case in 0..20_000u64 {
        let n = [1u32, 2, 3, 8, 13, 64, 1000, u32::MAX][rng.below(8) as usize];
        let c = BfbConfig::new(n, LogP::new(rng.below(4), 1 + rng.below(3)).unwrap()).unwrap();
        let rank = if rng.below(3) == 0 {
            0
        } else {
            rng.below(u64::from(n)) as Rank
        };
        let mut p = BfbNode::new(&c, rank);
        feed_random(&c, &mut p, rank, &mut rng, 0, 0, case);
    }
}

/// The same from states reached in real runs (N = 64, up to four crashes, stopped at a random
/// instant): processes holding tree positions, waiting children, aborted attempts, restarts.
#[test]
fn bfb_survives_arbitrary_inputs_mid_run() {
    let mut rng = SplitMix64::new(0x0bfb_0002);
    let c = config(64, 2, 1);
    for case in 0..300u64 {
        let crashes: Vec<(Rank, Time)> = (0..rng.below(5))
            .map(|_| (1 + rng.below(63) as Rank, rng.below(100)))
            .collect();
        let scenario = Scenario {
            logp: c.logp,
            crashes,
            ..Scenario::default()
        };
        let mut sim = Sim::<BfbNode>::new(&c, c.procs, &scenario).unwrap();
        let stop = rng.below(400);
        while sim.next_time().is_some_and(|t| t <= stop) {
            sim.step(&c).unwrap();
        }
        for _ in 0..8 {
            let rank = rng.below(64) as Rank;
            let mut p = sim.automaton(rank).unwrap().clone();
            let delivered = sim.report().deliveries(rank);
            feed_random(&c, &mut p, rank, &mut rng, stop, delivered, case);
        }
    }
}

/// Feature `serde`: configuration, messages and states of a run survive a JSON round trip.
#[cfg(feature = "serde")]
#[test]
fn bfb_serde_round_trip() {
    let c = config(64, 2, 1);
    let json = serde_json::to_string(&c).unwrap();
    assert_eq!(serde_json::from_str::<BfbConfig>(&json).unwrap(), c);
    for m in [
        data(3, vec![2, 9], 17),
        BfbMsg {
            attempt: 1,
            body: BfbBody::Nack { failed: 5 },
        },
    ] {
        let json = serde_json::to_string(&m).unwrap();
        assert_eq!(serde_json::from_str::<BfbMsg>(&json).unwrap(), m);
    }
    let r = run(64, &[(5, 0), (40, 20)]);
    for n in &r.nodes {
        let json = serde_json::to_string(n).unwrap();
        assert_eq!(&serde_json::from_str::<BfbNode>(&json).unwrap(), n);
    }
}

/// BFB's NACK rule: a child may only report a failure inside its own subtree. The root sends
/// DATA to its first two children; a NACK from the first naming the second (outside the first's
/// subtree) is ignored and restarts nothing, while a NACK from the first naming itself is a
/// failure report the root acts on (not ignored).
#[test]
fn bfb_ignores_a_nack_naming_a_rank_outside_the_childs_subtree() {
    let c = config(8, 2, 1);
    let mut out = Outbox::new();
    let mut root = BfbNode::new(&c, 0);
    root.on_start(&c, 0, &mut out);
    out.drain();
    let mut children = Vec::new();
    for now in 0..4 {
        root.on_send_slot(&c, now, &mut out);
        for a in out.drain() {
            if let Action::Send { to, .. } = a {
                children.push(to);
            }
        }
    }
    assert!(children.len() >= 2, "{children:?}");
    let (first, second) = (children[0], children[1]);
    let attempt = root.attempt();
    let nack = |failed| BfbMsg {
        attempt,
        body: BfbBody::Nack { failed },
    };
    root.on_message(&c, 5, first, nack(second), &mut out);
    assert!(ignored(&out), "{:?}", out.actions());
    assert_eq!(root.attempt(), attempt);
    out.drain();
    let mut fresh = root.clone();
    fresh.on_message(&c, 5, first, nack(first), &mut out);
    assert!(!ignored(&out), "{:?}", out.actions());
}
