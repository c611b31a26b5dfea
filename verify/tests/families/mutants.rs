//! Every property can fail (DESIGN §6): each mutant of `ftcoll_verify::mutants` breaks exactly
//! the property its name says, the checker finds a counterexample, and the unmutated protocol
//! passes the same check. State counts are pinned (stateright's paxos example style) so a
//! change of the model's semantics shows up.

use ftcoll::protocols::corrected_tree::{CorrectionSpec, StartMode};
use ftcoll::topology::{LogP, Order, TreeKind};
use ftcoll_verify::mutants::{Bug, Mutant, MutantConfig};
use ftcoll_verify::timed::TimedModel;
use ftcoll_verify::{check, property, CorrectedTreeSpec, CrashTiming, ModelKind};
use stateright::{Checker, Model};

fn spec(tree: TreeKind, correction: CorrectionSpec, procs: u32) -> CorrectedTreeSpec {
    CorrectedTreeSpec {
        tree,
        order: Order::Interleaved,
        correction,
        start: StartMode::Synchronized,
        procs,
        logp: LogP::default(),
    }
}

fn holds_everything(spec: &CorrectedTreeSpec, crashes: u32, timing: CrashTiming) -> usize {
    let result = check(spec, crashes, timing, ModelKind::Timed).unwrap();
    assert!(
        result.violations.is_empty(),
        "{}: {:?}",
        spec.name(),
        result.violations
    );
    result.states
}

/// `bug` injected into checked correction on `tree` with `procs` processes and `crashes`
/// pre-operation crashes breaks exactly `property`; the real protocol holds everything.
fn breaks_exactly(bug: Bug, tree: TreeKind, procs: u32, crashes: u32, properties: &[&str]) {
    let s = spec(tree, CorrectionSpec::Checked, procs);
    assert_eq!(
        rules_violated_by(bug, &s, crashes, CrashTiming::Pre),
        properties
    );
    holds_everything(&s, crashes, CrashTiming::Pre);
}

/// CT §2.1 integrity: a relay that flips a payload bit is caught; the real broadcast is not.
#[test]
fn integrity_catches_a_relay_that_corrupts_the_payload() {
    breaks_exactly(
        Bug::CorruptsRelayedPayload,
        TreeKind::Binomial,
        4,
        0,
        &[property::INTEGRITY],
    );
}

/// CT §2.1 no duplicates: delivering on every copy is caught (checked correction sends colored
/// processes extra copies even without failures).
#[test]
fn no_duplicates_catches_a_process_that_delivers_every_copy() {
    breaks_exactly(
        Bug::DeliversEveryCopy,
        TreeKind::Lame(2),
        4,
        0,
        // The extra deliveries come after the process has stopped.
        &[property::NO_DUPLICATES, property::STOPPED_SILENT],
    );
}

/// CG Claim 3 / CT §3.1 liveness: a checked corrector that believes a message came from both
/// sides stops a side it never covered; with one crash before the operation a live process is
/// left uncolored. The real checked correction colors everyone under the same crashes.
#[test]
fn liveness_catches_checked_correction_that_confuses_directions() {
    breaks_exactly(
        Bug::ConfusesDirections,
        TreeKind::KAry(2),
        8,
        1,
        // Stopping a side too early also saves messages and time: CT Corollary 1 and Lemmas
        // 2–3 see it as well.
        &[
            property::LIVENESS,
            property::CHECKED_MESSAGES,
            property::CHECKED_LATENCY,
            property::CHECKED_GAP_LATENCY,
        ],
    );
}

/// DESIGN §6 termination: a process that answers every correction message with another one
/// never quiesces; the real protocol does.
#[test]
fn termination_catches_a_process_that_echoes_forever() {
    breaks_exactly(
        Bug::EchoesCorrection,
        TreeKind::Lame(2),
        3,
        0,
        // The echoes answer messages that reach a process after it has stopped.
        &[property::TERMINATION, property::STOPPED_SILENT],
    );
}

/// CT §2.1: the plain tree loses liveness with one pre-operation crash, with a trace naming the
/// uncolored rank; `sometimes` properties show the checker reaches correction and quiescence.
#[test]
fn plain_tree_fails_liveness_with_one_crash_and_sometimes_properties_are_reached() {
    let s = spec(TreeKind::KAry(2), CorrectionSpec::None, 4);
    let result = check(&s, 1, CrashTiming::Pre, ModelKind::Timed).unwrap();
    assert!(!result.holds(property::LIVENESS));
    let trace = &result.violations[0].trace;
    assert_eq!(
        trace.first().map(String::as_str),
        Some("before the operation: ranks [1] crash")
    );
    assert!(
        trace.last().unwrap().contains("never delivered: [3]"),
        "{trace:?}"
    );
    let checked = spec(TreeKind::KAry(2), CorrectionSpec::Checked, 4);
    let result = check(&checked, 1, CrashTiming::Pre, ModelKind::Timed).unwrap();
    assert!(result.reached.contains(&property::SOMETIMES_CORRECTED));
    assert!(result.reached.contains(&property::SOMETIMES_QUIESCENT));
}

/// Pinned state counts of the timed model (any change to the driver's semantics moves them).
#[test]
fn pinned_state_counts() {
    let checked = |p| spec(TreeKind::Lame(2), CorrectionSpec::Checked, p);
    assert_eq!(holds_everything(&checked(8), 2, CrashTiming::Pre), 604);
    assert_eq!(holds_everything(&checked(6), 1, CrashTiming::Any), 868);
}

/// The asynchronous model explores reorderings: opportunistic(2) with overlapped start holds on
/// three processes with one crash, and its state space is larger than the timed one's.
#[test]
fn asynchronous_model_checks_reorderings() {
    let mut s = spec(
        TreeKind::Lame(2),
        CorrectionSpec::Opportunistic { distance: 2 },
        3,
    );
    s.start = StartMode::Overlapped;
    let asynchronous = check(&s, 1, CrashTiming::Any, ModelKind::Async).unwrap();
    assert!(
        asynchronous.violations.is_empty(),
        "{:?}",
        asynchronous.violations
    );
    let timed = check(&s, 1, CrashTiming::Any, ModelKind::Timed).unwrap();
    assert!(
        asynchronous.states > timed.states,
        "{} vs {}",
        asynchronous.states,
        timed.states
    );
}

/// The properties of ALL and RULES that `bug` breaks on `spec` (the mutant model checks the
/// family's rule properties too).
fn rules_violated_by(
    bug: Bug,
    spec: &CorrectedTreeSpec,
    crashes: u32,
    timing: CrashTiming,
) -> Vec<&'static str> {
    let real = TimedModel::corrected_tree(spec, crashes, timing).unwrap();
    let config = MutantConfig {
        inner: spec.config().unwrap(),
        bug,
    };
    let mut mutant = TimedModel::<Mutant>::builder(config, spec.procs, real.payload, real.horizon)
        .logp(spec.logp)
        .max_crashes(crashes)
        .timing(timing)
        .build();
    mutant.properties = ftcoll_verify::timed::broadcast_properties()
        .into_iter()
        .chain(ftcoll_verify::corrected_tree::correction_rule_properties())
        .collect();
    let checker = mutant.checker().spawn_bfs().join();
    property::ALL
        .into_iter()
        .chain(property::RULES)
        .filter(|p| checker.discovery(p).is_some())
        .collect()
}

/// CG Alg. 1: opportunistic correction of distance d sends d messages to each side. A root
/// that sends one more is caught by the send bound, and only by it; the real protocol keeps
/// the bound under two crashes at any instant.
#[test]
fn send_bound_catches_one_correction_message_too_many() {
    for distance in [1, 2] {
        let s = spec(
            TreeKind::KAry(2),
            CorrectionSpec::Opportunistic { distance },
            6,
        );
        assert_eq!(
            rules_violated_by(Bug::SendsOneCorrectionTooMany, &s, 0, CrashTiming::Pre),
            // The extra message comes after the root has stopped: the stop rule sees it too.
            [property::SEND_BOUND, property::STOPPED_SILENT],
            "{}",
            s.name()
        );
        let real = check(&s, 2, CrashTiming::Any, ModelKind::Timed).unwrap();
        assert!(real.holds(property::SEND_BOUND), "{}", s.name());
    }
}

/// CG §III.B–C: processes colored by correction (c-nodes) never correct. One that forwards the
/// correction once is caught (a crash before the operation makes c-nodes), and only by this
/// rule; the real checked correction keeps c-nodes silent under two crashes at any instant.
#[test]
fn c_nodes_silent_catches_a_c_node_that_forwards() {
    let s = spec(TreeKind::KAry(2), CorrectionSpec::Checked, 6);
    assert_eq!(
        rules_violated_by(Bug::CNodeForwards, &s, 1, CrashTiming::Pre),
        [property::C_NODES_SILENT]
    );
    let real = check(&s, 2, CrashTiming::Any, ModelKind::Timed).unwrap();
    assert!(real.holds(property::C_NODES_SILENT));
}

/// `bug` on `spec` (synchronized start unless `start` says otherwise) with `crashes`
/// pre-operation crashes violates exactly `expected` among ALL and RULES, and the real
/// protocol holds every one of them under the same crashes.
fn rule_mutant(
    bug: Bug,
    mut s: CorrectedTreeSpec,
    start: StartMode,
    crashes: u32,
    expected: &[&str],
) {
    s.start = start;
    assert_eq!(
        rules_violated_by(bug, &s, crashes, CrashTiming::Pre),
        expected,
        "{bug:?} on {}",
        s.name()
    );
    let real = check(&s, crashes, CrashTiming::Pre, ModelKind::Timed).unwrap();
    assert!(
        real.violations.is_empty(),
        "{}: {:?}",
        s.name(),
        real.violations
    );
}

/// CT Corollary 1 and Lemma 2 (§4.2): a stop rule one message late costs every process one
/// message and the operation `o` steps; both quantitative properties catch it fault-free (and
/// no other property does: every process is still colored once).
#[test]
fn corollary1_and_lemma2_catch_a_stop_rule_one_message_late() {
    let s = spec(TreeKind::Lame(2), CorrectionSpec::Checked, 8);
    rule_mutant(
        Bug::StopsOneLate,
        s,
        StartMode::Synchronized,
        0,
        &[property::CHECKED_MESSAGES, property::CHECKED_LATENCY],
    );
}

/// CT Lemma 3: a stop rule that only trusts neighbours is the real protocol fault-free (Lemma 2
/// and Corollary 1 hold), but next to a gap its corrector sweeps on past `L_FF + (2·g_max + 1)·o`.
#[test]
fn lemma3_catches_a_stop_rule_that_only_trusts_neighbours() {
    let s = spec(TreeKind::KAry(2), CorrectionSpec::Checked, 10);
    rule_mutant(
        Bug::StopsOnlyAtNeighbours,
        s,
        StartMode::Synchronized,
        2,
        &[property::CHECKED_GAP_LATENCY],
    );
}

/// CT §3.3/§4.1: without the skip rule, optimized(4) sends as much as opportunistic(4), 8 per
/// process, more than checked correction's 5: caught fault-free.
#[test]
fn optimized_message_bound_catches_an_ignored_skip_rule() {
    let s = spec(
        TreeKind::KAry(2),
        CorrectionSpec::Optimized { distance: 4 },
        12,
    );
    rule_mutant(
        Bug::IgnoresCoverage,
        s,
        StartMode::Synchronized,
        0,
        &[property::OPTIMIZED_MESSAGES],
    );
}

/// CT §3.3: a delay shorter than a hop makes fault-free delayed correctors sweep.
#[test]
fn delayed_message_count_catches_a_short_delay() {
    let s = spec(TreeKind::Binomial, CorrectionSpec::Delayed { delay: 5 }, 8);
    rule_mutant(
        Bug::ShortDelay,
        s,
        StartMode::Synchronized,
        0,
        &[property::DELAYED_MESSAGES],
    );
}

/// Failure-proof correction of one fault, as listed (CG Alg. 3), on a Lamé(2) tree of `procs`.
fn failproof1(procs: u32) -> CorrectedTreeSpec {
    spec(
        TreeKind::Lame(2),
        CorrectionSpec::FailProof {
            faults: 1,
            sos_timeout: None,
            sos_on_full_loop: true,
        },
        procs,
    )
}

/// CG Alg. 3 lines 11–13: a c-node that delivers on its first corrector is caught (a crash
/// before the operation makes c-nodes).
#[test]
fn f_plus_one_rule_catches_a_c_node_that_delivers_early() {
    let s = failproof1(8);
    rule_mutant(
        Bug::DeliversOnFirstCorrector,
        s,
        StartMode::Synchronized,
        1,
        &[property::FAILPROOF_WAITS],
    );
}

/// CG Claim 5: with every process a g-node, SOS is never needed; a root that enters it anyway
/// is caught fault-free.
#[test]
fn claim5_catches_an_unneeded_sos() {
    let s = failproof1(8);
    rule_mutant(
        Bug::PanicsIntoSos,
        s,
        StartMode::Synchronized,
        0,
        &[
            property::FAILPROOF_NO_SOS,
            property::FAILPROOF_FAULT_FREE_NO_SOS,
        ],
    );
}

/// CG Alg. 3, line 24: a final round started one known corrector late (once `f + 1`
/// correctors are known on the other side instead of `f`) changes no delivery, only when the
/// final messages go; fault-free on the smallest ring the claim covers (P = f + 2 = 3), a
/// sweep then comes back to its sender without `f + 1` correctors and enters SOS (line 28),
/// which only "no SOS fault-free" and Claim 5 see — the matrix's claim `failproof:1 … sync,
/// f = 0, pre` up to P = 10 turns violated at P = 3, where the real protocol keeps it. (With
/// one crash at any instant the mutant also breaks Claim 5 at P = 7, where the listing holds.)
#[test]
fn no_sos_fault_free_catches_a_final_round_started_one_late() {
    let s = failproof1(3);
    rule_mutant(
        Bug::StartsFinalRoundOneLate,
        s,
        StartMode::Synchronized,
        0,
        &[
            property::FAILPROOF_NO_SOS,
            property::FAILPROOF_FAULT_FREE_NO_SOS,
        ],
    );
}

/// The stop rule (the `Automaton::is_done` contract; CT §3.1): a process that says it has
/// stopped as soon as it is colored, while its correction sweeps are still to come, is caught
/// — and only by the stop rule, since its runs are the real protocol's. The real checked and
/// opportunistic correction keep the promise under two crashes at any instant.
#[test]
fn stop_rule_catches_a_process_that_claims_done_too_early() {
    let s = spec(TreeKind::Lame(2), CorrectionSpec::Checked, 6);
    rule_mutant(
        Bug::ClaimsDoneWhenColored,
        s,
        StartMode::Synchronized,
        0,
        &[property::STOPPED_SILENT],
    );
    for correction in [
        CorrectionSpec::Checked,
        CorrectionSpec::Opportunistic { distance: 2 },
    ] {
        let real = check(
            &spec(TreeKind::Lame(2), correction, 6),
            2,
            CrashTiming::Any,
            ModelKind::Timed,
        )
        .unwrap();
        assert!(real.holds(property::STOPPED_SILENT), "{correction:?}");
    }
}

/// CT §3.3's `Stop` reply, caught by a message count derived by hand. P = 16, binomial,
/// `L = o = 1` (a hop, `2o + L`, is 3 steps), synchronized delayed correction with delay 5, rank
/// 15 (a leaf) crashed before the operation; correction starts at the tree's deadline `T = 12`.
///
/// At `T` every live rank sends one message to its left neighbour (rank 0's to 15 is lost), and
/// every rank but 14 hears its right neighbour at `T + 3`, before its delay ends at `T + 5`.
/// Rank 14's right neighbour is 15, so it sweeps right from `T + 5`, one rank per step: 15
/// (lost), 0 at `T + 6`, 1 at `T + 7`, … Rank 0 handles that message at `T + 6 + o + L + o =
/// T + 9` and replies `Stop` at once; the reply reaches 14 at `T + 11` and is handled at
/// `T + 12`, before 14's send slot of that step. So 14's sweep is 15, 0, 1, …, 5 (`T + 5` …
/// `T + 11`: 7 messages), each of 0 … 5 replies once, and the run sends 15 + 7 + 6 = 28
/// correction messages, 8 of them from rank 14. Without the reply, rank 14 hears nothing and
/// sweeps until it has reached everyone: distances 1 … 14 (rank 12; rank 13 had its first
/// message), 15 + 14 = 29 messages, 15 from rank 14.
#[test]
fn delayed_stop_reply_ends_a_sweep_at_the_first_live_corrector() {
    use ftcoll_sim::{self as sim, PortModel, Scenario};
    let s = CorrectedTreeSpec {
        tree: TreeKind::Binomial,
        order: Order::Interleaved,
        correction: CorrectionSpec::Delayed { delay: 5 },
        start: StartMode::Synchronized,
        procs: 16,
        logp: LogP::new(1, 1).unwrap(),
    };
    let inner = s.config().unwrap();
    assert_eq!(inner.correction_start, 12, "T: the tree's deadline");
    let scenario = Scenario {
        logp: s.logp,
        model: PortModel::DualPort,
        arrivals: Vec::new(),
        crashes: vec![(15, 0)],
        trace: false,
        ignored: Default::default(),
    };
    // (correction messages in all, from rank 14) for the protocol and for the mutant.
    let count = |bug: Option<Bug>| {
        let report = match bug {
            None => sim::run::<ftcoll::protocols::corrected_tree::CorrectedTreeNode>(
                &inner,
                16,
                &scenario,
                1 << 20,
            )
            .unwrap(),
            Some(bug) => {
                let config = MutantConfig {
                    inner: inner.clone(),
                    bug,
                };
                let r = sim::run::<Mutant>(&config, 16, &scenario, 1 << 20).unwrap();
                assert_eq!(r.undelivered(), 0, "every live rank is colored either way");
                r
            }
        };
        let correction = |r: u32| u64::from(report.sent(r)[1]);
        ((0..16).map(correction).sum::<u64>(), correction(14))
    };
    assert_eq!(count(None), (28, 8));
    assert_eq!(count(Some(Bug::NeverRepliesStop)), (29, 15));
}
