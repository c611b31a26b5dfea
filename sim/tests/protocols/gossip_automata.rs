//! The Corrected Gossip automata (`ftcoll::protocols::gossip`) on the generic LogP driver and
//! driven by hand: CG §III.A (gossip phase, virtual time), §IV.B.1 (GOS), §III.B (OCG,
//! Alg. 1), §III.C (CCG, Alg. 2, Claim 3), §III.D (FCG, Alg. 3, Claim 4, Corollary 3). Expected
//! values are derived by hand in the comments, never produced by the code under test.

use ftcoll::automaton::{Action, Automaton, Outbox, Phase};
use ftcoll::protocols::correction::SOS_TIMER;
use ftcoll::protocols::gossip::{
    Ccg, Fcg, FcgConfig, Gos, GossipColoring, GossipConfig, GossipNode, GossipProtocol, Ocg,
    OcgConfig,
};
use ftcoll::protocols::{Body, CorrectionMsg, Msg, Side};
use ftcoll::rng::SplitMix64;
use ftcoll::topology::LogP;
use ftcoll::{Rank, Time};
use ftcoll_sim::{self as sim, Report, Scenario};

fn logp(l: u64, o: u64) -> LogP {
    LogP::new(l, o).unwrap()
}

fn gossip(p: u32, l: u64, o: u64, t: Time, seed: u64) -> GossipConfig {
    GossipConfig::new(p, logp(l, o), t, seed).unwrap()
}

fn scenario(l: u64, o: u64, crashes: &[(Rank, Time)]) -> Scenario {
    Scenario {
        logp: logp(l, o),
        crashes: crashes.to_vec(),
        ..Scenario::default()
    }
}

fn run<A: Automaton<Msg = Msg, Value = u64>>(
    config: &A::Config,
    procs: u32,
    scenario: &Scenario,
) -> Report {
    sim::run::<A>(config, procs, scenario, sim::default_budget(procs)).expect("the run quiesces")
}

/// Distinct failed ranks (never the root) drawn from a test-local generator.
fn failures(rng: &mut SplitMix64, p: u32, count: u32) -> Vec<Rank> {
    let mut out = Vec::new();
    while (out.len() as u32) < count.min(p - 1) {
        let r = 1 + rng.below(u64::from(p - 1)) as Rank;
        if !out.contains(&r) {
            out.push(r);
        }
    }
    out
}

fn live_uncolored(report: &Report) -> Vec<Rank> {
    (0..report.procs)
        .filter(|&r| report.is_live(r) && report.delivered_at(r).is_none())
        .collect()
}

/// Every process not colored by dissemination sent nothing (c-nodes never send: §III.B, §III.C).
fn c_nodes_silent(report: &Report) -> bool {
    (0..report.procs)
        .filter(|&r| !report.by_dissemination(r))
        .all(|r| report.sent(r) == [0, 0, 0, 0])
}

/// DESIGN §1, §2: the same seed gives the same report, for every protocol.
#[test]
fn same_seed_same_report() {
    let s = scenario(2, 1, &[(5, 0), (17, 0), (40, 9)]);
    let g = gossip(64, 2, 1, 14, 7);
    assert_eq!(run::<Gos>(&g, 64, &s), run::<Gos>(&g, 64, &s));
    let o = OcgConfig {
        gossip: g.clone(),
        correction_time: 8,
    };
    assert_eq!(run::<Ocg>(&o, 64, &s), run::<Ocg>(&o, 64, &s));
    assert_eq!(run::<Ccg>(&g, 64, &s), run::<Ccg>(&g, 64, &s));
    let f = FcgConfig::new(g.clone(), 1);
    assert_eq!(run::<Fcg>(&f, 64, &s), run::<Fcg>(&f, 64, &s));
}

/// Different seeds give different gossip (§III.A: targets are random).
#[test]
fn different_seeds_differ() {
    let s = scenario(2, 1, &[]);
    let a = run::<Gos>(&gossip(256, 2, 1, 20, 1), 256, &s);
    let b = run::<Gos>(&gossip(256, 2, 1, 20, 2), 256, &s);
    assert_ne!(
        a.delivery_times().collect::<Vec<_>>(),
        b.delivery_times().collect::<Vec<_>>()
    );
    assert_ne!(
        a.sent_counts().collect::<Vec<_>>(),
        b.sent_counts().collect::<Vec<_>>()
    );
}

/// Polls `node` every `O` from `from` and returns the gossip targets and virtual times it sends.
fn gossip_sends<P: GossipProtocol>(
    node: &mut GossipNode<P>,
    config: &P::Config,
    from: Time,
    polls: u64,
) -> Vec<(Rank, Time)> {
    let mut sends = Vec::new();
    for now in from..from + polls {
        let mut out = Outbox::new();
        node.on_send_slot(config, now, &mut out);
        for a in out.drain() {
            if let Action::Send { to, msg } = a {
                if let Body::Gossip { round } = msg.body {
                    sends.push((to, round));
                }
            }
        }
    }
    sends
}

/// §III.A, Alg. 1 line 6: `rand({0..N−1} \ i)`, a uniformly random *other* process. For P = 8
/// and 70,000 draws each of the 7 others is expected 10,000 times; the chi-square statistic with
/// 6 degrees of freedom exceeds 27.9 with probability 10⁻⁴ (table value), and the seed is fixed.
#[test]
fn gossip_targets_are_uniform_and_never_self() {
    let config = gossip(8, 1, 1, 1 << 40, 99);
    for rank in [0u32, 3, 7] {
        let mut node = Gos::new(&config, rank);
        let mut out = Outbox::new();
        node.on_start(&config, 0, &mut out);
        if rank != 0 {
            let msg = Msg {
                value: 1,
                body: Body::Gossip { round: 0 },
            };
            node.on_message(&config, 3, (rank + 1) % 8, msg, &mut out);
        }
        let sends = gossip_sends(&mut node, &config, 3, 70_000);
        assert_eq!(sends.len(), 70_000);
        let mut counts = [0u64; 8];
        for &(to, _) in &sends {
            counts[to as usize] += 1;
        }
        assert_eq!(counts[rank as usize], 0, "rank {rank} sent to itself");
        let chi2: f64 = (0..8)
            .filter(|&r| r != rank as usize)
            .map(|r| {
                let d = counts[r] as f64 - 10_000.0;
                d * d / 10_000.0
            })
            .sum();
        assert!(chi2 < 27.9, "rank {rank}: chi2 = {chi2}, counts {counts:?}");
    }
    // P = 2: the only other rank, always.
    let two = gossip(2, 1, 1, 100, 5);
    let mut root = Gos::new(&two, 0);
    root.on_start(&two, 0, &mut Outbox::new());
    assert!(gossip_sends(&mut root, &two, 0, 99)
        .iter()
        .all(|&(to, _)| to == 1));
}

/// §III.A: messages carry the virtual time; the receiver's is the stamp plus `L/O + 1` steps of
/// `O` (`2O + L`), and it sends while `time + O <= T`. With `T = 20, L = 2, O = 1`, a process
/// colored (late) at global time 50 by a message stamped 10 has virtual time 14 and sends at
/// virtual times 14..=19: six messages, at global times 50..=55, stamped 14..=19.
#[test]
fn gossip_carries_and_follows_the_virtual_time() {
    let config = gossip(16, 2, 1, 20, 3);
    let mut node = Gos::new(&config, 4);
    let mut out = Outbox::new();
    node.on_start(&config, 0, &mut out);
    let msg = Msg {
        value: 9,
        body: Body::Gossip { round: 10 },
    };
    node.on_message(&config, 50, 2, msg, &mut out);
    assert_eq!(node.coloring(), GossipColoring::Gossip);
    assert_eq!(node.virtual_time(50), 14);
    let sends = gossip_sends(&mut node, &config, 50, 20);
    let rounds: Vec<Time> = sends.iter().map(|&(_, r)| r).collect();
    assert_eq!(rounds, [14, 15, 16, 17, 18, 19]);
}

/// GOS by hand: P = 2, T = 3, L = 2, O = 1. The root sends at 0, 1, 2 (t + O <= T), all to rank
/// 1, which is colored at 0 + O + L + O = 4, when its virtual time 4 is past T: it never sends.
/// The last message is received at 2 + 4 = 6.
#[test]
fn gos_by_hand() {
    let r = run::<Gos>(&gossip(2, 2, 1, 3, 11), 2, &scenario(2, 1, &[]));
    assert_eq!(
        r.sent_counts().collect::<Vec<_>>(),
        vec![[3, 0, 0, 0], [0, 0, 0, 0]]
    );
    assert_eq!(
        r.delivery_times().collect::<Vec<_>>(),
        vec![Some(0), Some(4)]
    );
    assert_eq!(
        (0..r.procs).map(|k| r.deliveries(k)).collect::<Vec<_>>(),
        vec![1, 1]
    );
    assert_eq!(r.quiescence_latency(), 6);
}

/// §III.B, Alg. 1: a g-node makes `⌊(C − 2O − L)/O⌋ + 1` correction sends, alternating right
/// (forward) then left, distance 1, 2, …: with L = 1, O = 1, C = 6 that is 4 sends, to
/// `i+1, i−1, i+2, i−2`. c-nodes never send.
#[test]
fn ocg_sends_for_the_fixed_time_c() {
    for seed in 0..20 {
        let g = gossip(64, 1, 1, 9, seed);
        let config = OcgConfig {
            gossip: g,
            correction_time: 6,
        };
        let r = run::<Ocg>(&config, 64, &scenario(1, 1, &[]));
        let g_nodes = (0..64).filter(|&i| r.by_dissemination(i)).count() as u64;
        assert!(g_nodes > 4, "seed {seed}: the gossip reached few nodes");
        assert_eq!(r.messages_in(Phase::Correction), 4 * g_nodes, "seed {seed}");
        for i in 0..64 {
            let expected = if r.by_dissemination(i) { 4 } else { 0 };
            assert_eq!(r.sent(i)[1], expected, "seed {seed} rank {i}");
        }
        assert!(c_nodes_silent(&r));
        assert_eq!(r.duplicates(), 0);
    }
    // The targets by hand: a lone root (P = 9, T = 0: no gossip) with C = 6, L = O = 1.
    let config = OcgConfig {
        gossip: gossip(9, 1, 1, 0, 1),
        correction_time: 6,
    };
    let r = run::<Ocg>(&config, 9, &scenario(1, 1, &[]));
    // Correction starts at T + L + O = 2: sends to 1 at 2, 8 at 3, 2 at 4, 7 at 5, each received
    // 3 later; ranks 3..=6 stay uncolored.
    let at: Vec<Option<Time>> = r.delivery_times().collect::<Vec<_>>();
    assert_eq!(
        at,
        [
            Some(0),
            Some(5),
            Some(7),
            None,
            None,
            None,
            None,
            Some(8),
            Some(6)
        ]
    );
}

/// OCG with `C` large enough for any gap (`C >= (N − 1)O + L + O`, Claim 2 with K = N − 1)
/// colors every live process; with `C = 0` it is GOS.
#[test]
fn ocg_with_large_c_colors_everyone() {
    let mut rng = SplitMix64::new(0x0c6);
    for seed in 0..30 {
        let failed = failures(&mut rng, 48, 6);
        let crashes: Vec<(Rank, Time)> = failed.iter().map(|&r| (r, 0)).collect();
        let s = scenario(2, 1, &crashes);
        let g = gossip(48, 2, 1, 6, seed);
        let big = OcgConfig {
            gossip: g.clone(),
            correction_time: 47 + 3,
        };
        let r = run::<Ocg>(&big, 48, &s);
        assert!(live_uncolored(&r).is_empty(), "seed {seed}");
        assert!(c_nodes_silent(&r));
        assert_eq!(r.duplicates(), 0);
        let none = OcgConfig {
            gossip: g.clone(),
            correction_time: 0,
        };
        let a = run::<Ocg>(&none, 48, &s);
        let b = run::<Gos>(&g, 48, &s);
        assert_eq!(
            a.delivery_times().collect::<Vec<_>>(),
            b.delivery_times().collect::<Vec<_>>()
        );
        assert_eq!(a.messages, b.messages);
    }
}

/// Claim 3: CCG colors every live process when nobody fails during the correction; Corollary 3:
/// FCG(f) too, for any failures before the operation or during the gossip phase. c-nodes stay
/// silent (CCG; FCG without SOS). No process delivers twice (§II (II)).
#[test]
fn ccg_and_fcg_color_every_live_process() {
    let mut rng = SplitMix64::new(0xcc6);
    for case in 0..60u64 {
        let p = 16 + (case % 5) as u32 * 13;
        let l = case % 3;
        let t = 2 + case % 9;
        let failed = failures(&mut rng, p, (case % 7) as u32 * p / 16);
        // Half the failures before the operation, half during the gossip phase (before T).
        let crashes: Vec<(Rank, Time)> = failed
            .iter()
            .enumerate()
            .map(|(i, &r)| (r, if i % 2 == 0 { 0 } else { 1 + rng.below(t) }))
            .collect();
        let s = scenario(l, 1, &crashes);
        let g = gossip(p, l, 1, t, case);
        let r = run::<Ccg>(&g, p, &s);
        assert!(
            live_uncolored(&r).is_empty(),
            "CCG case {case}: {:?}",
            live_uncolored(&r)
        );
        assert!(c_nodes_silent(&r), "CCG case {case}");
        assert_eq!(r.duplicates(), 0);
        for f in [0, 1, 2] {
            let r = run::<Fcg>(&FcgConfig::new(g.clone(), f), p, &s);
            assert!(live_uncolored(&r).is_empty(), "FCG({f}) case {case}");
            assert_eq!(r.duplicates(), 0);
        }
    }
}

/// Claim 4: FCG(1) colors every live process when one process crashes at any instant of the
/// correction (here: a g-node, at a random instant between the correction start and the
/// fault-free quiescence).
#[test]
fn fcg_survives_a_crash_during_correction() {
    let mut rng = SplitMix64::new(0xfc6);
    for case in 0..60u64 {
        let p = 24 + (case % 4) as u32 * 10;
        let g = gossip(p, 2, 1, 8, case);
        let config = FcgConfig::new(g.clone(), 1);
        let base = run::<Fcg>(&config, p, &scenario(2, 1, &[]));
        let g_nodes: Vec<Rank> = (1..p).filter(|&r| base.by_dissemination(r)).collect();
        let victim = g_nodes[rng.below(g_nodes.len() as u64) as usize];
        let start = g.correction_start();
        let end = base.last_activity.max(start + 1);
        let at = start + rng.below(end - start);
        let r = run::<Fcg>(&config, p, &scenario(2, 1, &[(victim, at)]));
        assert!(
            live_uncolored(&r).is_empty(),
            "case {case}: {victim} crashing at {at} left {:?}",
            live_uncolored(&r)
        );
        assert_eq!(r.duplicates(), 0);
    }
}

/// Alg. 3 lines 11–13: a c-node holds the payload and delivers only once it knows `f + 1`
/// distinct g-nodes (the senders and the lists their messages carry); its first correction
/// message arms the SOS timer (line 14).
#[test]
fn fcg_c_node_delivers_after_f_plus_one_g_nodes() {
    let g = gossip(16, 1, 1, 4, 1);
    let config = FcgConfig::new(g, 1);
    let ring = |toward, known: Vec<Rank>| Msg {
        value: 77,
        body: Body::Correction(CorrectionMsg::FailProof {
            toward,
            known: known.into(),
        }),
    };
    let delivered = |out: &Outbox<Msg>| {
        out.actions()
            .iter()
            .any(|a| matches!(a, Action::Deliver(77)))
    };

    // Two senders, no lists: the second one makes f + 1 = 2.
    let mut node = Fcg::new(&config, 5);
    let mut out = Outbox::new();
    node.on_start(&config, 0, &mut out);
    node.on_message(&config, 10, 4, ring(Side::Right, vec![]), &mut out);
    assert!(!delivered(&out));
    assert!(out.actions().contains(&Action::SetTimer {
        id: SOS_TIMER,
        at: 10 + config.sos_timeout
    }));
    assert_eq!(node.coloring(), GossipColoring::Correction);
    let mut out = Outbox::new();
    node.on_message(&config, 11, 4, ring(Side::Right, vec![]), &mut out);
    assert!(!delivered(&out), "the same g-node twice is one g-node");
    let mut out = Outbox::new();
    node.on_message(&config, 12, 6, ring(Side::Left, vec![]), &mut out);
    assert!(delivered(&out));

    // One sender carrying another g-node: 2 distinct at once.
    let mut node = Fcg::new(&config, 5);
    let mut out = Outbox::new();
    node.on_start(&config, 0, &mut out);
    node.on_message(&config, 10, 4, ring(Side::Right, vec![3]), &mut out);
    assert!(delivered(&out));

    // With f = 2 the same two are not enough.
    let config2 = FcgConfig::new(gossip(16, 1, 1, 4, 1), 2);
    let mut node = Fcg::new(&config2, 5);
    let mut out = Outbox::new();
    node.on_start(&config2, 0, &mut out);
    node.on_message(&config2, 10, 4, ring(Side::Right, vec![3]), &mut out);
    assert!(!delivered(&out));
}

/// OCG and CCG c-nodes, colored by a correction message, ignore gossip afterwards and never
/// send (Alg. 2 line 4: "if time = ▷ ∨ time = ◁ then exit").
#[test]
fn c_nodes_ignore_later_gossip() {
    let g = gossip(16, 1, 1, 40, 1);
    let mut node = Ccg::new(&g, 5);
    let mut out = Outbox::new();
    node.on_start(&g, 0, &mut out);
    let corr = Msg {
        value: 3,
        body: Body::Correction(CorrectionMsg::Ring {
            toward: Side::Right,
        }),
    };
    node.on_message(&g, 10, 4, corr, &mut out);
    let gossip_msg = Msg {
        value: 3,
        body: Body::Gossip { round: 1 },
    };
    let mut out = Outbox::new();
    node.on_message(&g, 11, 9, gossip_msg, &mut out);
    assert!(matches!(out.actions(), [Action::Ignored(_)]));
    assert!(gossip_sends(&mut node, &g, 12, 50).is_empty());
    assert_eq!(node.coloring(), GossipColoring::Correction);
}

/// The contract (docs/guide.md) on arbitrary inputs: no panic on peer input, sends only from
/// the send slot and at most one there, never to itself or outside `0..P`, at most one delivery.
fn fuzz<P: GossipProtocol>(config: &P::Config, procs: u32, seed: u64) {
    let mut rng = SplitMix64::new(seed);
    for rank in 0..procs.min(6) {
        let mut node = GossipNode::<P>::new(config, rank);
        let mut out = Outbox::new();
        node.on_start(config, 0, &mut out);
        let mut delivered = out
            .actions()
            .iter()
            .filter(|a| matches!(a, Action::Deliver(_)))
            .count();
        let mut now = 0;
        for _ in 0..400 {
            now += rng.below(3);
            let mut out = Outbox::new();
            let choice = rng.below(4);
            match choice {
                0 | 1 => {
                    let from = rng.below(u64::from(procs) + 2) as Rank;
                    let side = if rng.below(2) == 0 {
                        Side::Left
                    } else {
                        Side::Right
                    };
                    let body = match rng.below(6) {
                        0 => Body::Gossip {
                            round: rng.below(64),
                        },
                        1 => Body::Correction(CorrectionMsg::Ring { toward: side }),
                        2 => Body::Correction(CorrectionMsg::FailProof {
                            toward: side,
                            known: (0..rng.below(4))
                                .map(|_| rng.below(u64::from(procs) + 3) as Rank)
                                .collect(),
                        }),
                        3 => Body::Correction(CorrectionMsg::Sos),
                        4 => Body::Correction(CorrectionMsg::Stop),
                        _ => Body::Tree,
                    };
                    node.on_message(config, now, from, Msg { value: 5, body }, &mut out);
                }
                2 => node.on_timer(
                    config,
                    now,
                    ftcoll::automaton::TimerId(rng.below(14) as u32),
                    &mut out,
                ),
                _ => node.on_send_slot(config, now, &mut out),
            }
            let sends: Vec<Rank> = out
                .actions()
                .iter()
                .filter_map(|a| match a {
                    Action::Send { to, .. } => Some(*to),
                    _ => None,
                })
                .collect();
            if choice == 3 {
                assert!(sends.len() <= 1, "two sends in one slot");
            } else {
                assert!(sends.is_empty(), "a send outside the send slot");
            }
            assert!(
                sends.iter().all(|&to| to != rank && to < procs),
                "{sends:?}"
            );
            delivered += out
                .actions()
                .iter()
                .filter(|a| matches!(a, Action::Deliver(_)))
                .count();
            assert!(delivered <= 1, "rank {rank} delivered twice");
        }
    }
}

#[test]
fn contract_on_arbitrary_inputs() {
    for seed in 0..40 {
        let p = 2 + (seed % 9) as u32;
        let g = gossip(p, seed % 3, 1, seed % 12, seed);
        fuzz::<ftcoll::protocols::gossip::gos::GosProtocol>(&g, p, seed);
        fuzz::<ftcoll::protocols::gossip::ccg::CcgProtocol>(&g, p, seed);
        let o = OcgConfig {
            gossip: g.clone(),
            correction_time: seed % 10,
        };
        fuzz::<ftcoll::protocols::gossip::ocg::OcgProtocol>(&o, p, seed);
        fuzz::<ftcoll::protocols::gossip::fcg::FcgProtocol>(
            &FcgConfig::new(g, (seed % 3) as u32),
            p,
            seed,
        );
    }
}

/// Feature `serde`: configurations and automaton states round-trip.
#[cfg(feature = "serde")]
#[test]
fn serde_round_trip() {
    let g = gossip(12, 2, 1, 7, 42);
    let f = FcgConfig::new(g.clone(), 1);
    let json = serde_json::to_string(&f).unwrap();
    assert_eq!(serde_json::from_str::<FcgConfig>(&json).unwrap(), f);
    let mut node = Fcg::new(&f, 0);
    node.on_start(&f, 0, &mut Outbox::new());
    node.on_send_slot(&f, 0, &mut Outbox::new());
    let json = serde_json::to_string(&node).unwrap();
    assert_eq!(serde_json::from_str::<Fcg>(&json).unwrap(), node);
    let plan = ftcoll::protocols::gossip::plan::Model::new(64, 64, logp(1, 1))
        .unwrap()
        .plan(ftcoll::protocols::gossip::plan::PlanProtocol::Ccg, 1e-6)
        .unwrap();
    let json = serde_json::to_string(&plan).unwrap();
    let back: ftcoll::protocols::gossip::plan::Plan = serde_json::from_str(&json).unwrap();
    assert_eq!(back.t, plan.t);
    assert_eq!(back.chain.bound, plan.chain.bound);
}

/// The text after Claim 3: under crashes *during* the correction, CCG may leave live processes
/// uncolored, and FCG(f) (Claim 4) colors them. A witness found by a seeded random search (a
/// regression pin for a "may" property, not a derived value): P = 8, L = 2, O = 1, T = 4, seed
/// 402, ranks 7 and 2 crash at 8 and 9, after the correction start T + L + O = 7. In the same
/// search (200,000 random small cases) no single crash ever left CCG inconsistent.
#[test]
fn ccg_may_fail_under_crashes_during_correction() {
    let g = gossip(8, 2, 1, 4, 402);
    assert_eq!(g.correction_start(), 7);
    let s = scenario(2, 1, &[(7, 8), (2, 9)]);
    let ccg = run::<Ccg>(&g, 8, &s);
    assert!(!live_uncolored(&ccg).is_empty());
    let fcg = run::<Fcg>(&FcgConfig::new(g, 2), 8, &s);
    assert!(live_uncolored(&fcg).is_empty());
}
