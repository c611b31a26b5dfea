//! The Corrected Tree family in the timed model (CT §2–4, CG §III): its model constructor
//! (the horizon from its own timers) and the protocol rules it declares beside the broadcast
//! properties. The timed model itself ([`crate::timed`]) knows no protocol.

use ftcoll::automaton::Automaton;
use ftcoll::protocols::corrected_tree::{
    CorrectedTreeConfig, CorrectedTreeNode, CorrectionSpec, StartMode,
};
use ftcoll::protocols::correction::{Corrector, CorrectorState};
use ftcoll::topology::{LogP, Order, Tree, TreeKind};
use ftcoll::{Rank, Time};
use ftcoll_sim::PortModel;

use crate::budget::Halt;
use crate::property::{self, Column};
use crate::timed::{
    broadcast_properties, CrashTiming, TimedModel, TimedProperty, TimedState, Vocabulary,
};

// The ring corrections' rules and the papers' quantitative claims about them, as statements
// with their sources; the gossip family checks the ones about c-nodes and failure-proof
// correction too.

/// Protocol rule (CG Alg. 1, CT §3.1, §3.3): opportunistic and optimized correction of
/// distance `d` send at most `d` messages to each side, so at most `2d` per process.
pub const SEND_BOUND: &str =
    "send bound: with opportunistic or optimized correction of distance d, no process sends more than 2d correction messages (CG Alg. 1; CT §3.1, §3.3)";
/// Protocol rule (CG §III.B–C; module docs of `correction`): c-nodes never correct.
pub const C_NODES_SILENT: &str =
    "c-nodes stay silent: a process colored by correction sends no correction message (CG §III.B–C; failure-proof correction's SOS excepted)";
/// Message complexity (CT Corollary 1): fault-free synchronized checked correction.
pub const CHECKED_MESSAGES: &str =
    "message complexity: fault-free, synchronized checked correction sends exactly 3 + ⌊L/o⌋ correction messages per process (CT Corollary 1; rings of more than 3 + ⌈L/o⌉ other processes)";
/// Latency (CT Lemma 2): fault-free synchronized checked correction.
pub const CHECKED_LATENCY: &str =
    "latency: fault-free, synchronized checked correction is quiescent exactly 4o + L + ⌊L/o⌋·o after it starts (CT Lemma 2; rings of more than 3 + ⌈L/o⌉ other processes)";
/// Latency (CT Lemma 3): synchronized checked correction after pre-operation crashes.
pub const CHECKED_GAP_LATENCY: &str =
    "latency with gaps: after pre-operation crashes, synchronized checked correction is quiescent between L_FF + g_max·o and L_FF + (2·g_max + 1)·o after it starts (CT Lemma 3; P ≫ g_max read as P ≥ 2·g_max + 3 + ⌈L/o⌉ and P > 4 + ⌈L/o⌉)";
/// Message complexity (CT §4.1): optimized opportunistic correction, fault-free.
pub const OPTIMIZED_MESSAGES: &str =
    "message complexity: fault-free, optimized opportunistic correction sends at most as many correction messages as synchronized checked correction, min(3 + ⌊L/o⌋, P − 1) per process on average (CT §4.1)";
/// Message complexity (CT §3.3): delayed correction, fault-free.
pub const DELAYED_MESSAGES: &str =
    "message complexity: fault-free, synchronized delayed correction with a delay longer than 2o + L sends exactly one correction message per process (CT §3.3)";
/// Protocol rule (CG Alg. 3, lines 11–14): a failure-proof c-node waits for `f + 1`.
pub const FAILPROOF_WAITS: &str =
    "f + 1 rule: a failure-proof c-node delivers only once it knows f + 1 correctors, or after SOS (CG Alg. 3, lines 11–14)";
/// CG Claim 5: enough g-nodes make SOS unnecessary.
pub const FAILPROOF_NO_SOS: &str =
    "no SOS: with at most f crashes and at least f² + f + 1 g-nodes, synchronized failure-proof(f) correction completes without SOS (CG Claim 5)";
/// SOS is CG's pathological case: never without a crash, in either start mode.
pub const FAILPROOF_FAULT_FREE_NO_SOS: &str =
    "no SOS fault-free: failure-proof(f) correction enters SOS only after a crash, in either start mode, on rings of at least f + 2 processes (CG §III.D: SOS is the pathological case)";
/// The stop rule (`Automaton::is_done`'s promise; CT §3.1, CG Alg. 1–3): a stopped process
/// stays silent.
pub const STOPPED_SILENT: &str =
    "stop rule: a process that has stopped (is_done) never sends, delivers or completes again (CT §3.1; CG Alg. 1–3; the Automaton contract)";
/// The protocol rules and quantitative claims of the Corrected Tree family, checked in every
/// cell, with their short names; each applies only to the variant (and the conditions) its
/// text names.
pub const RULE_COLUMNS: [Column; 11] = [
    Column::new(SEND_BOUND, "send bound"),
    Column::new(C_NODES_SILENT, "c-nodes silent"),
    Column::new(CHECKED_MESSAGES, "Corollary 1 messages"),
    Column::new(CHECKED_LATENCY, "Lemma 2 latency"),
    Column::new(CHECKED_GAP_LATENCY, "Lemma 3 latency"),
    Column::new(OPTIMIZED_MESSAGES, "optimized messages"),
    Column::new(DELAYED_MESSAGES, "delayed messages"),
    Column::new(FAILPROOF_WAITS, "f + 1 rule"),
    Column::new(FAILPROOF_NO_SOS, "Claim 5 no SOS"),
    Column::new(FAILPROOF_FAULT_FREE_NO_SOS, "no SOS fault-free"),
    Column::new(STOPPED_SILENT, "stop rule"),
];
/// The statements of [`RULE_COLUMNS`].
pub const RULES: [&str; 11] = property::statements(RULE_COLUMNS);

/// A Corrected Tree broadcast to check: everything but the fault pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CorrectedTreeSpec {
    /// Tree kind.
    pub tree: TreeKind,
    /// Numbering.
    pub order: Order,
    /// Correction variant.
    pub correction: CorrectionSpec,
    /// Synchronized or overlapped correction.
    pub start: StartMode,
    /// `P`.
    pub procs: u32,
    /// `L`, `o`.
    pub logp: LogP,
}

/// One configuration of every correction variant (the engine and reduction comparisons use it).
pub const EVERY_VARIANT: [CorrectionSpec; 6] = [
    CorrectionSpec::Checked,
    CorrectionSpec::Opportunistic { distance: 1 },
    CorrectionSpec::Optimized { distance: 2 },
    CorrectionSpec::FailProof {
        faults: 1,
        sos_timeout: None,
        sos_on_full_loop: true,
    },
    CorrectionSpec::Delayed { delay: 3 },
    CorrectionSpec::None,
];

impl CorrectedTreeSpec {
    /// A broadcast on an interleaved tree with CT's `L = 2, o = 1`.
    pub fn interleaved(
        tree: TreeKind,
        correction: CorrectionSpec,
        start: StartMode,
        procs: u32,
    ) -> Self {
        Self {
            tree,
            order: Order::Interleaved,
            correction,
            start,
            procs,
            logp: LogP::default(),
        }
    }

    /// The protocol configuration.
    pub fn config(&self) -> Result<CorrectedTreeConfig, ftcoll::topology::TopologyError> {
        let tree = Tree::new(self.tree, self.order, self.procs, self.logp)?;
        Ok(CorrectedTreeConfig::new(tree, self.correction, self.start))
    }

    /// Whether its processes read the clock beyond setting timers
    /// ([`CorrectedTreeConfig::reads_clock`], the protocol's own answer; `false` when the
    /// configuration cannot be built, which [`CorrectedTreeSpec::config`] reports). The
    /// asynchronous model's per-process clocks ([`crate::dpor`]) do not agree with its one
    /// clock for such a protocol ([`crate::AsyncModel::reads_clock`]).
    pub fn reads_clock(&self) -> bool {
        self.config().is_ok_and(|config| config.reads_clock())
    }

    /// A one-line name: `lame:2 interleaved checked sync P=8 L=2 o=1`.
    pub fn name(&self) -> String {
        format!(
            "{} {} {} {} P={} L={} o={}",
            self.tree,
            self.order,
            self.correction,
            self.start,
            self.procs,
            self.logp.latency(),
            self.logp.overhead()
        )
    }
}

/// What the Corrected Tree family's rule properties read from a configuration and a process.
/// The real automaton implements it, and so does the mutant of [`crate::mutants`].
pub trait CorrectionView: Automaton {
    /// The correction variant of `config`.
    fn correction(config: &Self::Config) -> CorrectionSpec;
    /// Synchronized or overlapped correction.
    fn start(config: &Self::Config) -> StartMode;
    /// The synchronized correction start (the tree's fault-free deadline).
    fn correction_start(config: &Self::Config) -> Time;
    /// The process's correction state.
    fn corrector(&self) -> &Corrector;
}

impl CorrectionView for CorrectedTreeNode {
    fn correction(config: &CorrectedTreeConfig) -> CorrectionSpec {
        config.correction
    }

    fn start(config: &CorrectedTreeConfig) -> StartMode {
        config.start
    }

    fn correction_start(config: &CorrectedTreeConfig) -> Time {
        config.correction_start
    }

    fn corrector(&self) -> &Corrector {
        CorrectedTreeNode::corrector(self)
    }
}

/// The Corrected Tree family's protocol rules and quantitative claims ([`property::RULES`]).
/// The per-state rules are checked in every state; the claims about a whole run at its end
/// (quiescence), so a run cut at the horizon leaves them undecided.
pub fn correction_rule_properties<A: CorrectionView>() -> Vec<TimedProperty<A>> {
    vec![
        TimedProperty::always(property::SEND_BOUND, send_bound::<A>),
        TimedProperty::always(property::C_NODES_SILENT, c_nodes_silent::<A>),
        TimedProperty::always_at_quiescence(property::CHECKED_MESSAGES, checked_messages::<A>),
        TimedProperty::always_at_quiescence(property::CHECKED_LATENCY, checked_latency::<A>),
        TimedProperty::always_at_quiescence(
            property::CHECKED_GAP_LATENCY,
            checked_gap_latency::<A>,
        ),
        TimedProperty::always_at_quiescence(property::OPTIMIZED_MESSAGES, optimized_messages::<A>),
        TimedProperty::always_at_quiescence(property::DELAYED_MESSAGES, delayed_messages::<A>),
        TimedProperty::always(property::FAILPROOF_WAITS, failproof_waits::<A>),
        TimedProperty::always_at_quiescence(property::FAILPROOF_NO_SOS, failproof_no_sos::<A>),
        TimedProperty::always(
            property::FAILPROOF_FAULT_FREE_NO_SOS,
            failproof_fault_free_no_sos::<A>,
        ),
        TimedProperty::always(
            property::STOPPED_SILENT,
            crate::timed::stopped_stays_silent::<A>,
        ),
    ]
}

/// Index of the correction phase in `Report::sent`.
const CORRECTION: usize = 1;

fn send_bound<A: CorrectionView>(m: &TimedModel<A>, s: &TimedState<A>) -> bool {
    let d = match A::correction(&m.config) {
        CorrectionSpec::Opportunistic { distance } | CorrectionSpec::Optimized { distance } => {
            distance
        }
        _ => return true,
    };
    let bound = d.saturating_mul(2);
    s.sim
        .report()
        .sent_counts()
        .all(|sent| sent[CORRECTION] <= bound)
}

fn c_nodes_silent<A: CorrectionView>(m: &TimedModel<A>, s: &TimedState<A>) -> bool {
    if matches!(A::correction(&m.config), CorrectionSpec::FailProof { .. }) {
        return true;
    }
    let report = s.sim.report();
    (0..report.procs).all(|r| {
        report.delivered_at(r).is_none()
            || report.by_dissemination(r)
            || report.sent(r)[CORRECTION] == 0
    })
}

/// `(L, o)` of the model.
fn lo<A: Automaton>(m: &TimedModel<A>) -> (u64, u64) {
    (m.logp.latency(), m.logp.overhead().max(1))
}

/// CT Lemma 2's `L_FF = 4o + L + ⌊L/o⌋·o`, as printed.
fn lemma2_latency<A: Automaton>(m: &TimedModel<A>) -> u64 {
    ftcoll::protocols::corrected_tree::lemma2_latency(m.logp)
}

/// CT Corollary 1's `3 + ⌊L/o⌋`, as printed.
fn corollary1_messages<A: Automaton>(m: &TimedModel<A>) -> u64 {
    ftcoll::protocols::corrected_tree::corollary1_messages(m.logp)
}

/// A fault-free corrector sends at every slot until both neighbours' first messages arrived:
/// `3 + ⌈L/o⌉` slots (sim/tests/drivers/sim_lemmas.rs). The ring must hold more processes than that for
/// the sweep not to wrap (the papers' `P ≫` assumption).
fn ring_exceeds_sweep<A: Automaton>(m: &TimedModel<A>) -> bool {
    let (l, o) = lo(m);
    u64::from(m.procs) > 4 + l.div_ceil(o)
}

/// The run ended (quiescent, no driver error) with synchronized checked correction.
fn ended_checked_sync<A: CorrectionView>(m: &TimedModel<A>, s: &TimedState<A>) -> bool {
    A::correction(&m.config) == CorrectionSpec::Checked
        && A::start(&m.config) == StartMode::Synchronized
        && s.error.is_none()
        && s.sim.next_time().is_none()
}

fn checked_messages<A: CorrectionView>(m: &TimedModel<A>, s: &TimedState<A>) -> bool {
    if !(ended_checked_sync(m, s) && s.crashes == 0 && ring_exceeds_sweep(m)) {
        return true;
    }
    let n = corollary1_messages(m);
    s.sim
        .report()
        .sent_counts()
        .all(|sent| u64::from(sent[CORRECTION]) == n)
}

/// How long the correction lasted: from the synchronized start to the last activity.
fn correction_duration<A: CorrectionView>(m: &TimedModel<A>, s: &TimedState<A>) -> u64 {
    s.sim
        .report()
        .quiescence_latency()
        .saturating_sub(A::correction_start(&m.config))
}

fn checked_latency<A: CorrectionView>(m: &TimedModel<A>, s: &TimedState<A>) -> bool {
    if !(ended_checked_sync(m, s) && s.crashes == 0 && ring_exceeds_sweep(m)) {
        return true;
    }
    correction_duration(m, s) == lemma2_latency(m)
}

fn checked_gap_latency<A: CorrectionView>(m: &TimedModel<A>, s: &TimedState<A>) -> bool {
    // Only crashes before the operation (CT Lemma 3's setting).
    let pre_only = m.timing == CrashTiming::Pre || s.crashes == 0;
    if !(ended_checked_sync(m, s) && pre_only) {
        return true;
    }
    let report = s.sim.report();
    let g = ftcoll::protocols::corrected_tree::gmax_after_dissemination(report.procs, |r| {
        report.by_dissemination(r)
    });
    let (l, o) = lo(m);
    // P ≫ g_max, read as: two gaps of g_max and a fault-free sweep fit in the ring (the
    // proof's picture, CT App. A, Fig. 13). With less room the bound fails: P = 12, g_max = 7
    // ends at L_FF + 6 (docs/verification.md).
    if !lemma3_applies(m.procs, g, l, o) {
        return true;
    }
    let lff = lemma2_latency(m);
    let d = correction_duration(m, s);
    lff + g * o <= d && d <= lff + (2 * g + 1) * o
}

/// CT Lemma 3's `P ≫ g_max`, made exact: `P ≥ 2·g_max + 3 + ⌈L/o⌉` on a ring larger than a
/// fault-free sweep. The property holds under it exhaustively at P = 9 and 12 with 3 crashes
/// before the operation, on five trees, both numberings and three `(L, o)`
/// (`verify/tests/families/quantitative.rs`); `P ≥ g_max + 3 + ⌈L/o⌉` is not enough (same file).
pub fn lemma3_applies(procs: u32, gmax: u64, l: u64, o: u64) -> bool {
    let sweep = 3 + l.div_ceil(o.max(1));
    // The ring also exceeds a fault-free sweep, as for Lemma 2 (L_FF is its duration).
    u64::from(procs) >= 2 * gmax + sweep && u64::from(procs) > sweep + 1
}

fn optimized_messages<A: CorrectionView>(m: &TimedModel<A>, s: &TimedState<A>) -> bool {
    if !(matches!(A::correction(&m.config), CorrectionSpec::Optimized { .. })
        && s.crashes == 0
        && s.error.is_none()
        && s.sim.next_time().is_none())
    {
        return true;
    }
    let report = s.sim.report();
    let per_process = corollary1_messages(m).min(u64::from(m.procs) - 1);
    let total: u64 = report.sent_counts().map(|x| u64::from(x[CORRECTION])).sum();
    total <= per_process * u64::from(m.procs)
}

fn delayed_messages<A: CorrectionView>(m: &TimedModel<A>, s: &TimedState<A>) -> bool {
    let CorrectionSpec::Delayed { delay } = A::correction(&m.config) else {
        return true;
    };
    if !(A::start(&m.config) == StartMode::Synchronized
        && delay > m.logp.hop()
        && s.crashes == 0
        && s.error.is_none()
        && s.sim.next_time().is_none()
        && m.procs > 1)
    {
        return true;
    }
    s.sim.report().sent_counts().all(|x| x[CORRECTION] == 1)
}

fn failproof_waits<A: CorrectionView>(m: &TimedModel<A>, s: &TimedState<A>) -> bool {
    if !matches!(A::correction(&m.config), CorrectionSpec::FailProof { .. }) {
        return true;
    }
    let report = s.sim.report();
    (0..m.procs).all(|r| {
        if report.delivered_at(r).is_none() || report.by_dissemination(r) {
            return true;
        }
        let Some(node) = s.sim.automaton(r) else {
            return true;
        };
        match node.corrector().state() {
            CorrectorState::FailProof(fp) => fp.in_sos() || fp.heard().len() > fp.faults() as usize,
            _ => true,
        }
    })
}

fn failproof_fault_free_no_sos<A: CorrectionView>(m: &TimedModel<A>, s: &TimedState<A>) -> bool {
    let CorrectionSpec::FailProof { faults, .. } = A::correction(&m.config) else {
        return true;
    };
    // A ring of fewer than f + 1 other processes cannot show anyone f + 1 correctors.
    if s.crashes > 0 || m.procs < faults + 2 {
        return true;
    }
    (0..m.procs).all(|r| {
        s.sim
            .automaton(r)
            .is_none_or(|node| !node.corrector().in_sos())
    })
}

fn failproof_no_sos<A: CorrectionView>(m: &TimedModel<A>, s: &TimedState<A>) -> bool {
    let CorrectionSpec::FailProof { faults, .. } = A::correction(&m.config) else {
        return true;
    };
    // CG starts correction at T, after dissemination; an overlapped corrector can loop the
    // ring before the others are colored (the claims section's counterexample).
    if A::start(&m.config) != StartMode::Synchronized
        || s.crashes > faults
        || s.error.is_some()
        || s.sim.next_time().is_some()
    {
        return true;
    }
    let report = s.sim.report();
    let gnodes = (0..report.procs)
        .filter(|&r| report.by_dissemination(r))
        .count() as u64;
    let f = u64::from(faults);
    if gnodes < f * f + f + 1 {
        return true;
    }
    (0..m.procs).all(|r| {
        s.sim
            .automaton(r)
            .is_none_or(|node| !node.corrector().in_sos())
    })
}

impl TimedModel<CorrectedTreeNode> {
    /// The model of a Corrected Tree broadcast with at most `max_crashes` crashes.
    pub fn corrected_tree(
        spec: &CorrectedTreeSpec,
        max_crashes: u32,
        timing: CrashTiming,
    ) -> Result<Self, ftcoll::topology::TopologyError> {
        let config = spec.config()?;
        let hop = spec.logp.hop();
        let sos = config.sos_timeout().unwrap_or(0);
        // Delayed correction waits `delay` once per corrector before it sweeps (CT §3.3); the
        // waits of different correctors overlap.
        let delay = match spec.correction {
            CorrectionSpec::Delayed { delay } => delay,
            _ => 0,
        };
        // Generous: a corrector sweeps the ring twice per final round, plus SOS or the delay:
        // every timer the protocol sets is inside the horizon (a horizon that ignores
        // a timer reports a correct run as non-terminating).
        let horizon = config.correction_start
            + sos
            + delay
            + (8 * u64::from(spec.procs) + 8) * hop * (u64::from(max_crashes) + 2);
        Ok(Self {
            payload: config.payload,
            config,
            procs: spec.procs,
            logp: spec.logp,
            port_model: PortModel::DualPort,
            max_crashes,
            timing,
            horizon,
            halt: Halt::new(),
            crashable: (1..spec.procs).collect(),
            properties: broadcast_properties()
                .into_iter()
                .chain(correction_rule_properties())
                .collect(),
            arrivals: Vec::new(),
            vocabulary: Vocabulary::BROADCAST,
            guide: Some(ring_gaps::<CorrectedTreeNode>),
            choices: None,
            crashes_at_events_only: false,
            crashes_before_sends_only: false,
        })
    }
}

/// The ring corrections' guide for [`crate::search`] ([`TimedModel::guide`]): every maximal ring
/// run of processes that do not hold the payload (live or crashed) with a live one in it, as
/// the nearest live holders bounding it on the left and on the right — the correctors a gap
/// depends on (CT §3.2, CG Claims 1–4).
pub fn ring_gaps<A: Automaton>(m: &TimedModel<A>, state: &TimedState<A>) -> Vec<(Rank, Rank)> {
    let report = state.sim.report();
    let n = m.procs;
    let holder = |r: Rank| !state.sim.has_crashed(r) && report.delivered_at(r).is_some();
    let Some(start) = (0..n).find(|&r| holder(r)) else {
        return Vec::new();
    };
    let mut gaps = Vec::new();
    let mut left = start;
    let mut stranded = false;
    for i in 1..=n {
        let r = (start + i) % n;
        if holder(r) {
            if stranded {
                gaps.push((left, r));
            }
            left = r;
            stranded = false;
        } else if !state.sim.has_crashed(r) {
            stranded = true;
        }
    }
    gaps
}
