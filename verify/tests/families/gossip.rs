//! Corrected Gossip in the timed model: every gossip target draw is explored
//! by the model (`TimedModel::choices`), each cell of `ftcoll_verify::gossip::cells` gets the
//! verdict CG predicts (or the documented disagreement), with pinned state counts; every
//! property the cells decide is broken by a mutant; CG Claim 5 is a property test over random
//! ring placements of g-nodes. Expected verdicts come from the paper (cited per cell), and the
//! state counts were pinned from the first run: a change of the model's or the automata's
//! semantics shows up here.

use ftcoll::protocols::gossip::ccg::CcgProtocol;
use ftcoll::protocols::gossip::fcg::FcgProtocol;
use ftcoll::protocols::gossip::ocg::{OcgConfig, OcgProtocol};
use ftcoll::protocols::gossip::{Ccg, FcgConfig, GossipColoring, GossipConfig, Targets};
use ftcoll::topology::LogP;
use ftcoll_verify::gossip::{self, GossipSpec, Variant};
use ftcoll_verify::mutants::{GossipBug, GossipMutant, GossipMutantConfig};
use ftcoll_verify::timed::TimedModel;
use ftcoll_verify::{property, Budget, CrashTiming};
use proptest::prelude::*;
use stateright::{Checker, Model};

fn cell(id: &str) -> gossip::Cell {
    gossip::cells()
        .into_iter()
        .find(|c| c.id == id)
        .unwrap_or_else(|| panic!("no cell {id}"))
}

/// The cell's verdict, its violated properties and its unique states.
fn decide(id: &str) -> (Option<bool>, Vec<&'static str>, usize) {
    let c = cell(id);
    let outcome = gossip::run_cell(&c, &Budget::UNLIMITED).expect("valid cell");
    let violated = outcome
        .result
        .violations
        .iter()
        .map(|v| v.property)
        .collect();
    (outcome.holds(), violated, outcome.result.states)
}

/// Pinned verdicts and state counts of every cell, with CG's expectations: `(id, holds,
/// states)`. Claim 3: CCG holds under pre-operation crashes and fails with two crashes during
/// correction; Claim 4 and Corollary 3: FCG(1) holds; Fig. 2: OCG with C = 6 fails, and the
/// smallest C with every gap of N − 2 closed (C = 8·O + L + O = 10) holds; GOS fails; Claim 5
/// fails as the listing is written (see `claim5_fails_with_f_plus_one_live_gnodes`) and holds
/// for its footnote's variant.
const PINS: [(&str, bool, usize); 17] = [
    ("ccg-pre", true, 6242),
    ("ccg-any-f1", true, 11495),
    ("ccg-any", false, 196353),
    ("fcg-any", true, 23951),
    ("fcg-pre", true, 4247),
    ("fcg-waits", true, 23951),
    ("fcg-claim5", false, 23951),
    ("fcg-footnote-claim5", true, 17904),
    ("ccg-silent", true, 6242),
    ("ocg-fig2", false, 910),
    ("ocg-c9", false, 1153),
    ("ocg-c10", true, 1234),
    ("ocg-work", true, 87416),
    ("ccg-reach", true, 145284),
    ("ocg-reach", true, 87416),
    ("gos-t3", false, 160),
    ("gos-t5", false, 26656),
];

#[test]
fn every_cell_has_its_pinned_verdict_and_state_count() {
    let ids: Vec<&str> = gossip::cells().iter().map(|c| c.id).collect();
    let pinned: Vec<&str> = PINS.iter().map(|p| p.0).collect();
    assert_eq!(ids, pinned, "every cell is pinned, in order");
    for (id, holds, states) in PINS {
        let (verdict, violated, count) = decide(id);
        assert_eq!(
            verdict,
            Some(holds),
            "{id}: verdict (violated: {violated:?})"
        );
        assert_eq!(count, states, "{id}: pinned state count");
    }
}

/// Where the verdict disagrees with CG, it is the documented Claim 5 finding and nothing else.
#[test]
fn only_claim5_disagrees_with_the_paper() {
    for c in gossip::cells() {
        let outcome = gossip::run_cell(&c, &Budget::UNLIMITED).expect("valid cell");
        let agrees = outcome.agrees();
        if c.id == "fcg-claim5" {
            assert_eq!(agrees, Some(false), "{}", c.id);
        } else {
            assert_ne!(agrees, Some(false), "{}: disagrees with CG", c.id);
        }
    }
}

/// The shortest counterexamples name what the paper says: OCG at Fig. 2's size loses processes
/// with no crash when both of the root's sends hit one process; CCG's needs two crashes during
/// the correction, after the correction start `T + L + O = 4`.
#[test]
fn counterexamples_show_the_papers_mechanisms() {
    let fig2 = gossip::run_cell(&cell("ocg-fig2"), &Budget::UNLIMITED).unwrap();
    let trace = fig2.counterexample().expect("violated");
    assert!(trace.iter().all(|l| !l.contains("crashes")), "{trace:#?}");
    assert!(
        trace
            .last()
            .unwrap()
            .contains("never delivered: [3, 4, 5, 6]"),
        "{trace:#?}"
    );
    let ccg = gossip::run_cell(&cell("ccg-any"), &Budget::UNLIMITED).unwrap();
    let trace = ccg.counterexample().expect("violated");
    let crashes: Vec<u64> = trace
        .iter()
        .filter(|l| l.ends_with(" crashes"))
        .filter_map(|l| l.strip_prefix("t=")?.split(':').next())
        .map(|t| t.parse().unwrap())
        .collect();
    assert_eq!(crashes.len(), 2, "{trace:#?}");
    assert!(crashes.iter().all(|&t| t >= 4), "{trace:#?}");
}

/// Soundness of the choice (docs/verification-gossip.md): for 20 seeds, the run of the seeded
/// protocol (the plain LogP driver, `Targets::Seeded`) is a path of the model — at every state
/// the seeded generator's next draw is one of the model's `Choose` actions (or no draw is due
/// and `Step` is) — and following it ends with the seeded run's deliveries and messages.
#[test]
fn every_seeded_run_is_a_path_of_the_model() {
    let spec = GossipSpec {
        variant: Variant::Ccg,
        procs: 5,
        logp: LogP::new(1, 1).unwrap(),
        gossip_time: 4,
    };
    for seed in 0..20u64 {
        let mut seeded = GossipConfig::new(5, spec.logp, 4, seed).unwrap();
        seeded.targets = Targets::Seeded;
        let scenario = ftcoll_sim::Scenario {
            logp: spec.logp,
            ..Default::default()
        };
        let expected = ftcoll_sim::run::<Ccg>(&seeded, 5, &scenario, 1 << 20).unwrap();
        // Replay: supply each draw the outcome the seeded generator of that rank gives.
        let chosen = spec.gossip().unwrap();
        let model = gossip::model_of::<Ccg>(&spec, chosen, 0, CrashTiming::Pre).unwrap();
        let mut rngs: Vec<ftcoll::rng::SplitMix64> = (0..5)
            .map(|r| ftcoll::rng::SplitMix64::stream(seed, r))
            .collect();
        let mut state = model.init_states().remove(0);
        let mut actions = Vec::new();
        while let Some(time) = state.sim.next_time() {
            let action = match model.pending_choice(&state) {
                Some((rank, bound)) => ftcoll_verify::timed::TimedAction::Choose {
                    rank,
                    outcome: rngs[rank as usize].below(bound),
                    time,
                },
                None => ftcoll_verify::timed::TimedAction::Step { time },
            };
            let mut next = Vec::new();
            model.actions(&state, &mut next);
            assert!(
                next.contains(&action),
                "seed {seed}: {action:?} is a model action"
            );
            actions.push(action);
            state = model.next_state(&state, action).unwrap();
        }
        let report = state.sim.report();
        assert_eq!(
            report.delivery_times().collect::<Vec<_>>(),
            expected.delivery_times().collect::<Vec<_>>(),
            "seed {seed}"
        );
        assert_eq!(
            report.sent_counts().collect::<Vec<_>>(),
            expected.sent_counts().collect::<Vec<_>>(),
            "seed {seed}"
        );
    }
}

/// The property the mutant breaks, in the cell it should break.
fn mutant_violates<P>(id: &str, inner: P::Config, bug: GossipBug) -> Vec<&'static str>
where
    P: ftcoll::protocols::gossip::GossipProtocol + Send + Sync + 'static,
    P::Config: Clone + Send + Sync + 'static,
{
    let c = cell(id);
    let config = GossipMutantConfig { inner, bug };
    let model: TimedModel<GossipMutant<P>> =
        gossip::model_of(&c.spec, config, c.crashes, c.timing).unwrap();
    let checker = model.checker().spawn_bfs().join();
    gossip::ALL
        .into_iter()
        .filter(|p| checker.discovery(p).is_some())
        .collect()
}

/// CG Claim 3's mutant: CCG's stop rule fed wrong (a corrector also believes a corrector at the
/// same distance on its other side) leaves a live process uncolored under pre-operation
/// crashes, where the real CCG holds (`ccg-pre`).
#[test]
fn claim3_catches_a_broken_stop_rule() {
    let c = cell("ccg-pre");
    let violated = mutant_violates::<CcgProtocol>(
        "ccg-pre",
        c.spec.gossip().unwrap(),
        GossipBug::ConfusesDirections,
    );
    assert!(violated.contains(&property::LIVENESS), "{violated:?}");
}

/// CG §III.C's mutant: a c-node that forwards a correction message breaks *c-nodes silent*.
#[test]
fn c_nodes_silent_catches_a_forwarding_c_node() {
    let c = cell("ccg-silent");
    let violated = mutant_violates::<CcgProtocol>(
        "ccg-silent",
        c.spec.gossip().unwrap(),
        GossipBug::CNodeForwards,
    );
    assert_eq!(violated, [property::C_NODES_SILENT]);
}

fn fcg_config(c: &gossip::Cell) -> FcgConfig {
    let gossip::Config::Fcg(config) = c.spec.config().unwrap() else {
        panic!("{} is an FCG cell", c.id)
    };
    config
}

/// CG Alg. 3 lines 11–13's mutant: a c-node delivering on its first correction message breaks
/// the f + 1 rule, which the real FCG(1) keeps (`fcg-waits`).
#[test]
fn f_plus_one_rule_catches_an_early_c_node() {
    let c = cell("fcg-waits");
    let violated = mutant_violates::<FcgProtocol>(
        "fcg-waits",
        fcg_config(&c),
        GossipBug::DeliversOnFirstCorrector,
    );
    assert!(
        violated.contains(&property::FAILPROOF_WAITS),
        "{violated:?}"
    );
}

/// CG §III.B's mutant: a g-node that sends one correction message past its fixed time `C`
/// breaks *OCG work*, which the real OCG keeps (`ocg-work`). Both break liveness at this size,
/// C = 9 being one step short of the gap two adjacent g-nodes leave (`ocg-c9`).
#[test]
fn ocg_work_catches_a_g_node_sending_past_c() {
    let c = cell("ocg-work");
    let Variant::Ocg { correction_time } = c.spec.variant else {
        panic!("ocg-work is an OCG cell")
    };
    let config = OcgConfig {
        gossip: c.spec.gossip().unwrap(),
        correction_time,
    };
    let violated = mutant_violates::<OcgProtocol>("ocg-work", config, GossipBug::GNodeOverSends);
    let (_, real, _) = decide("ocg-work");
    assert!(!real.contains(&property::OCG_WORK), "{real:?}");
    assert_eq!(violated, [property::LIVENESS, property::OCG_WORK]);
    assert_eq!(real, [property::LIVENESS]);
}

/// CG Claim 2's proof's mutant: g-nodes that begin their correction one step late still color
/// everyone, so only *correction reach* tells, where the real CCG keeps every rule
/// (`ccg-reach`).
#[test]
fn correction_reach_catches_a_correction_begun_one_step_late() {
    let c = cell("ccg-reach");
    let violated = mutant_violates::<CcgProtocol>(
        "ccg-reach",
        c.spec.gossip().unwrap(),
        GossipBug::CorrectsOneStepLate,
    );
    assert_eq!(violated, [property::CORRECTION_REACH]);
    let (_, real, _) = decide("ccg-reach");
    assert!(real.is_empty(), "{real:?}");
}

/// The longest run between two g-nodes, by hand: cyclic, `N − 1` around a lone g-node.
#[test]
fn longest_gap_by_hand() {
    assert_eq!(
        gossip::longest_gap(&[true, false, false, true, false]),
        Some(2)
    );
    assert_eq!(
        gossip::longest_gap(&[false, true, false, false, false]),
        Some(4)
    );
    assert_eq!(
        gossip::longest_gap(&[false, false, true, false, true]),
        Some(2)
    );
    assert_eq!(gossip::longest_gap(&[true, true]), Some(0));
    assert_eq!(gossip::longest_gap(&[false, false]), None);
}

/// The count the OCG work property expects, by hand: with L = O = 1 a send is received 3 after
/// it starts, so C = 9 leaves the sends at 0, 1, …, 6 from the correction start: 7 (= K̄ of
/// `C = K̄O + L + O`); C = 2 leaves none; a ring of 5 caps it at 4.
#[test]
fn ocg_sends_per_gnode_by_hand() {
    assert_eq!(gossip::ocg_sends_per_gnode(9, 1, 1, 10), 7);
    assert_eq!(gossip::ocg_sends_per_gnode(3, 1, 1, 10), 1);
    assert_eq!(gossip::ocg_sends_per_gnode(2, 1, 1, 10), 0);
    assert_eq!(gossip::ocg_sends_per_gnode(9, 1, 1, 5), 4);
    // L = 2, O = 1 (Table 7): Claim 2's C = K̄O + L + O = 8 for K̄ = 5.
    assert_eq!(gossip::ocg_sends_per_gnode(8, 2, 1, 4096), 5);
}

/// CG Corollary 3's mutant: with SOS disabled (Alg. 3 lines 8–10, 14, 28) a c-node that never
/// learns of f + 1 = 2 g-nodes never delivers, where the real FCG(1) holds (`fcg-pre`). FCG's
/// liveness rests on SOS: the other broken rules tried (confused directions, SOS messages
/// ignored, no c-node timeout) only make it enter SOS sooner.
#[test]
fn corollary3_catches_a_disabled_sos() {
    let c = cell("fcg-pre");
    let violated =
        mutant_violates::<FcgProtocol>("fcg-pre", fcg_config(&c), GossipBug::SosDisabled);
    assert!(violated.contains(&property::LIVENESS), "{violated:?}");
}

/// The cells' liveness is not vacuous: gossip alone colors everyone in some run, correction
/// colors a process in some run, and FCG's SOS is reachable.
#[test]
fn sometimes_properties_are_reached() {
    let ccg = gossip::run_cell(&cell("ccg-pre"), &Budget::UNLIMITED).unwrap();
    for p in [
        gossip::SOMETIMES_GOSSIP_COLORS_ALL,
        property::SOMETIMES_CORRECTED,
        property::SOMETIMES_QUIESCENT,
    ] {
        assert!(ccg.result.reached.contains(&p), "{p}");
    }
    let fcg = gossip::run_cell(&cell("fcg-any"), &Budget::UNLIMITED).unwrap();
    assert!(fcg.result.reached.contains(&gossip::SOMETIMES_SOS));
}

/// A cut-off run is never "holds": with a state budget the cell's verdict is undecided.
#[test]
fn a_budget_leaves_a_cell_undecided() {
    let budget = Budget {
        max_states: Some(1000),
        ..Budget::UNLIMITED
    };
    let outcome = gossip::run_cell(&cell("ccg-pre"), &budget).unwrap();
    assert_eq!(outcome.holds(), None);
    assert!(outcome.result.stopped.is_some());
}

/// CG Claim 5's counting argument, exactly as printed: every placement of f failed g-nodes on a
/// ring of at least f² + f + 1 g-nodes leaves f + 1 consecutive live ones, and f² + f g-nodes
/// do not suffice (the placement failing every (f + 1)-th g-node).
#[test]
fn claim5_counting_is_tight() {
    for f in 1..=4usize {
        let n = f * f + f;
        let failed: Vec<usize> = (0..f).map(|i| i * (f + 1)).collect();
        assert_eq!(gossip::longest_live_run(n, &failed), f, "f = {f}");
    }
}

proptest! {
    #[test]
    fn claim5_counting_holds(f in 1usize..=5, extra in 0usize..8, seed in any::<u64>()) {
        let n = f * f + f + 1 + extra;
        let mut rng = ftcoll::rng::SplitMix64::new(seed);
        let mut failed = Vec::new();
        while failed.len() < f {
            let i = rng.below(n as u64) as usize;
            if !failed.contains(&i) {
                failed.push(i);
            }
        }
        prop_assert!(gossip::longest_live_run(n, &failed) > f, "f + 1 consecutive survivors");
    }

    /// The placements of CG Claim 5 on the protocol, for f = 2: random rings of 8 to 16
    /// processes, random placements of at least f² + f + 1 = 7 g-nodes, f = 2 of them (not the
    /// root) crashing at random instants from the correction start on. Every live process
    /// delivers (Claim 4); *no SOS* (Claim 5 itself) does not hold as the listing is written —
    /// `claim5_fails_fault_free_on_some_placements` pins counterexamples.
    #[test]
    fn claim5_placements_deliver_for_f2(procs in 8u32..=16, extra in 0usize..6, seed in any::<u64>()) {
        let f = 2u32;
        let mut rng = ftcoll::rng::SplitMix64::new(seed);
        let mut gnodes = vec![0u32];
        let want = (7 + extra).min(procs as usize);
        while gnodes.len() < want {
            let r = 1 + rng.below(u64::from(procs - 1)) as u32;
            if !gnodes.contains(&r) {
                gnodes.push(r);
            }
        }
        let logp = LogP::new(1, 1).unwrap();
        // The last g-node is colored at T + L + O (its gossip message was sent at T − 1).
        let start = (gnodes.len() as u64 - 1) + 3;
        let mut crash_at = Vec::new();
        while crash_at.len() < f as usize {
            let r = gnodes[1 + rng.below(gnodes.len() as u64 - 1) as usize];
            if !crash_at.iter().any(|&(x, _)| x == r) {
                crash_at.push((r, start + rng.below(4 * u64::from(procs))));
            }
        }
        let state = gossip::run_placed(procs, logp, f, &gnodes, &crash_at).unwrap();
        prop_assert!(state.sim.next_time().is_none(), "quiescent");
        let g = (0..procs)
            .filter(|&r| state.sim.automaton(r).unwrap().coloring() == GossipColoring::Gossip)
            .count();
        prop_assert_eq!(g, gnodes.len());
        prop_assert!(ftcoll_verify::predicates::all_live_delivered(state.sim.report()));
    }

    /// The same for f = 1 with at least 4 g-nodes (one more than f² + f + 1): every live
    /// process delivers (Claim 4).
    #[test]
    fn claim5_placements_deliver_for_f1(procs in 5u32..=16, extra in 0usize..4, seed in any::<u64>()) {
        let mut rng = ftcoll::rng::SplitMix64::new(seed);
        let mut gnodes = vec![0u32];
        let want = (4 + extra).min(procs as usize);
        while gnodes.len() < want {
            let r = 1 + rng.below(u64::from(procs - 1)) as u32;
            if !gnodes.contains(&r) {
                gnodes.push(r);
            }
        }
        let start = (gnodes.len() as u64 - 1) + 3;
        let victim = gnodes[1 + rng.below(gnodes.len() as u64 - 1) as usize];
        let crash_at = [(victim, start + rng.below(4 * u64::from(procs)))];
        let state = gossip::run_placed(procs, LogP::new(1, 1).unwrap(), 1, &gnodes, &crash_at).unwrap();
        prop_assert!(ftcoll_verify::predicates::all_live_delivered(state.sim.report()));
    }
}

/// CG Claim 5 as printed fails for f = 1 at every ring size tried: with exactly f² + f + 1 = 3
/// g-nodes and one of them crashing when the correction starts (`T + L + O`), the two left
/// alive can never learn of f + 1 = 2 others, so their sweeps return to themselves and the
/// listing's line 28 enters SOS. CG's footnote ("a node may not trigger the SOS mode in line 28
/// when sending to itself") is the variant the claim is about; ftcoll runs the listing. Every
/// live process still delivers (Claim 4).
#[test]
fn claim5_fails_with_f_plus_one_live_gnodes() {
    for procs in 4u32..=16 {
        let gnodes = [0, 1, procs / 2];
        let start = 2 + 2; // T = 2 non-root g-nodes, L + O = 2
        let state =
            gossip::run_placed(procs, LogP::new(1, 1).unwrap(), 1, &gnodes, &[(1, start)]).unwrap();
        assert!(gossip::entered_sos(procs, &state), "P = {procs}");
        assert!(
            ftcoll_verify::predicates::all_live_delivered(state.sim.report()),
            "P = {procs}"
        );
    }
    // Also reached by the exhaustive check of `fcg-claim5`.
    let outcome = gossip::run_cell(&cell("fcg-claim5"), &Budget::UNLIMITED).unwrap();
    assert!(outcome.result.violated(property::FAILPROOF_NO_SOS));
}

/// CG Claim 5 as printed also fails without any crash, on placements the proptests above draw
/// (their first runs shrank to these): FCG(1) on N = 6 with g-nodes {0, 1, 4, 5} (four ≥
/// f² + f + 1 = 3), and FCG(2) on N = 11 with every process a g-node (the others' gossip all
/// went to the root, whose receive port then queues the correction messages behind about 70
/// gossip duplicates). In both, a g-node's sweep comes back to itself before it knows f + 1
/// g-nodes on that side, and line 28 enters SOS; every process still delivers. By hand, for
/// FCG(1) (L = O = 1): rank 1 knows its left g-nodes 0 and 5 by t = 8, so line 24 starts its
/// final round toward the right and line 25 has nothing to stop it at; it sends to 2, 3, 4, 5, 0
/// at t = 9–13, and at t = 14 the next send would be to itself (line 28); its right g-nodes 4
/// and 5 come only with rank 4's final round toward the left, which restarted at distance 1 and
/// reaches rank 1 at t = 15, one step late (docs/verification-gossip.md).
#[test]
fn claim5_fails_fault_free_on_some_placements() {
    let logp = LogP::new(1, 1).unwrap();
    let all: Vec<u32> = (0..11).collect();
    for (procs, f, gnodes) in [(6u32, 1u32, vec![0u32, 1, 4, 5]), (11, 2, all)] {
        let state = gossip::run_placed(procs, logp, f, &gnodes, &[]).unwrap();
        assert!(gossip::entered_sos(procs, &state), "N = {procs}, f = {f}");
        assert!(ftcoll_verify::predicates::all_live_delivered(
            state.sim.report()
        ));
    }
    // Not every placement: every process a g-node on N = 6, f = 1, and {0, 2, 4}, complete
    // without SOS.
    for gnodes in [vec![0u32, 1, 2, 3, 4, 5], vec![0, 2, 4]] {
        let state = gossip::run_placed(6, logp, 1, &gnodes, &[]).unwrap();
        assert!(!gossip::entered_sos(6, &state), "{gnodes:?}");
    }
}

/// The matrix's gossip section (`gossip::section`, called by `matrix::run`): one line per cell
/// with its claim and verdict, and exactly one trace per violated cell, each linked. With
/// `GOSSIP_SECTION_OUT` set, the text is also written there (to compare with the regenerated
/// docs/verification.md).
#[test]
fn matrix_section_lists_every_cell_and_its_traces() {
    let dir = std::env::temp_dir().join(format!("ftcoll-gossip-section-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (text, states) = gossip::section(&dir).unwrap();
    assert!(text.starts_with("\n## Corrected Gossip\n"));
    let pinned: usize = PINS.iter().map(|p| p.2).sum();
    assert_eq!(states, pinned, "the section's states are the pinned ones");
    let mut traces: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    traces.sort();
    let mut expected: Vec<String> = PINS
        .iter()
        .filter(|p| !p.1)
        .map(|p| format!("gossip-{}.txt", p.0))
        .collect();
    expected.sort();
    assert_eq!(traces, expected);
    for c in gossip::cells() {
        let line = text
            .lines()
            .find(|l| l.contains(c.claim))
            .unwrap_or_else(|| panic!("{}: no line", c.id));
        assert!(line.contains(&format!("`{}`", c.spec.name())), "{line}");
    }
    for name in &traces {
        assert!(
            text.contains(&format!("(traces/{name})")),
            "{name} is linked"
        );
    }
    if let Ok(out) = std::env::var("GOSSIP_SECTION_OUT") {
        std::fs::write(out, &text).unwrap();
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
