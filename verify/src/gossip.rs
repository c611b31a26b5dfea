//! Corrected Gossip in the timed model (CG §III, §IV.B.1): GOS, OCG, CCG and FCG(f), the
//! unchanged [`GossipNode`] automata, with the gossip **target choice as nondeterminism**.
//!
//! Every gossip process runs with [`Targets::Chosen`]: its target draws are left to the model,
//! which explores every outcome of every draw ([`TimedModel::choices`], the
//! [`ChoiceHook`] of [`hook`]). So a verdict covers every target sequence of the protocol,
//! not the runs of one seed; docs/verification-gossip.md gives the soundness argument. Crashes
//! are the timed model's usual nondeterminism (non-root, before the operation or before any
//! instant of it, at most `f`).
//!
//! Properties (the broadcast columns of [`crate::timed::broadcast_properties`] and the rules
//! below), each an English phrase citing its source:
//! - integrity, no duplicates, non-faulty liveness (CG §II (I)–(III)), termination;
//! - [`property::C_NODES_SILENT`] (CG §III.B–C: c-nodes never send a correction message; FCG's
//!   SOS excepted) and [`property::FAILPROOF_WAITS`] (CG Alg. 3 lines 11–14: an FCG c-node
//!   delivers only once it knows f + 1 g-nodes, or after SOS);
//! - reachability: a process is colored by correction, gossip alone colors every process, a
//!   process enters SOS, a run becomes quiescent.
//!
//! The [`cells`] are the paper's claims at small sizes, each with the verdict CG predicts; a
//! check stopped by a budget is reported partial, never "holds". [`run_cell`] decides one.

use ftcoll::automaton::{Automaton, Value};
use ftcoll::protocols::corrected_tree::CorrectionSpec;
use ftcoll::protocols::correction::{Corrector, CorrectorState};
use ftcoll::protocols::gossip::{
    Ccg, Fcg, FcgConfig, Gos, GossipColoring, GossipConfig, GossipNode, GossipProtocol, Ocg,
    OcgConfig, Targets,
};
use ftcoll::protocols::Msg;
use ftcoll::rng::Chooser;
use ftcoll::topology::{LogP, TopologyError};
use ftcoll::Time;
use ftcoll_sim::PortModel;

use crate::budget::Halt;
use crate::property::Column;
use crate::timed::{
    broadcast_properties, ChoiceHook, CrashTiming, TimedModel, TimedProperty, TimedState,
    Vocabulary,
};
use crate::{property, Budget, CheckError, CheckResult, ModelKind, Progress};

/// Reachability: gossip alone colors every live process (some target sequence is lucky).
pub const SOMETIMES_GOSSIP_COLORS_ALL: &str = "sometimes: gossip alone colors every live process";
/// Reachability: some process enters SOS (CG Alg. 3, lines 8–10).
pub const SOMETIMES_SOS: &str = "sometimes: a process enters SOS";

/// What the gossip properties read from an automaton: its gossip configuration, its
/// correction and its state. The real [`GossipNode`]s implement it, and so do the mutants of
/// [`crate::mutants`].
pub trait GossipProcess: Automaton<Msg = Msg, Value = Value> {
    /// The gossip phase of `config`.
    fn gossip(config: &Self::Config) -> &GossipConfig;
    /// The correction the g-nodes run.
    fn correction(config: &Self::Config) -> CorrectionSpec;
    /// OCG's fixed correction time `C` (`None` for the other protocols).
    fn correction_time(config: &Self::Config) -> Option<Time>;
    /// How the process got the payload.
    fn coloring(&self) -> GossipColoring;
    /// Its correction state.
    fn corrector(&self) -> &Corrector;
    /// Where its targets come from.
    fn chooser(&self) -> &Chooser;
    /// The same, mutably (the model supplies outcomes through it).
    fn chooser_mut(&mut self) -> &mut Chooser;
}

impl<P: GossipProtocol> GossipProcess for GossipNode<P> {
    fn gossip(config: &P::Config) -> &GossipConfig {
        P::gossip(config)
    }

    fn correction(config: &P::Config) -> CorrectionSpec {
        P::correction(config)
    }

    fn correction_time(config: &P::Config) -> Option<Time> {
        P::correction_time(config)
    }

    fn coloring(&self) -> GossipColoring {
        GossipNode::coloring(self)
    }

    fn corrector(&self) -> &Corrector {
        GossipNode::corrector(self)
    }

    fn chooser(&self) -> &Chooser {
        GossipNode::chooser(self)
    }

    fn chooser_mut(&mut self) -> &mut Chooser {
        GossipNode::chooser_mut(self)
    }
}

/// The model's hook into a gossip process's target draws.
pub fn hook<A: GossipProcess>() -> ChoiceHook<A> {
    ChoiceHook {
        wanted: |a| a.chooser().wanted(),
        supply: |a, outcome| a.chooser_mut().supply(outcome),
    }
}

/// Which corrected-gossip protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// GOS: gossip until `T`, no correction (CG §IV.B.1).
    Gos,
    /// OCG with correction time `C` (CG §III.B, Alg. 1).
    Ocg {
        /// `C`.
        correction_time: Time,
    },
    /// CCG (CG §III.C, Alg. 2).
    Ccg,
    /// FCG(f) (CG §III.D, Alg. 3), with the default SOS timeout ([`FcgConfig::new`]).
    Fcg {
        /// `f`.
        faults: u32,
        /// Line 28 as listed (`true`) or as the footnote to Claim 5 has it (`false`:
        /// [`FcgConfig::sos_on_full_loop`]).
        sos_on_full_loop: bool,
    },
}

impl core::fmt::Display for Variant {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Gos => f.write_str("gos"),
            Self::Ocg { correction_time } => write!(f, "ocg C={correction_time}"),
            Self::Ccg => f.write_str("ccg"),
            Self::Fcg {
                faults,
                sos_on_full_loop: true,
            } => write!(f, "fcg f={faults}"),
            Self::Fcg { faults, .. } => write!(f, "fcg-footnote f={faults}"),
        }
    }
}

/// One corrected-gossip broadcast to check: everything but the faults.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GossipSpec {
    /// The protocol.
    pub variant: Variant,
    /// `N`.
    pub procs: u32,
    /// `L` and `O`.
    pub logp: LogP,
    /// `T`.
    pub gossip_time: Time,
}

impl GossipSpec {
    /// The gossip phase, targets chosen by the model.
    pub fn gossip(&self) -> Result<GossipConfig, TopologyError> {
        let mut config = GossipConfig::new(self.procs, self.logp, self.gossip_time, 0)?;
        config.targets = Targets::Chosen;
        Ok(config)
    }

    /// A one-line name: `ccg N=5 L=1 O=1 T=2`.
    pub fn name(&self) -> String {
        format!(
            "{} N={} L={} O={} T={}",
            self.variant,
            self.procs,
            self.logp.latency(),
            self.logp.overhead(),
            self.gossip_time
        )
    }

    /// The latest instant by which a run must be quiescent: the correction start, the SOS
    /// timeout, and (as for the Corrected Tree family) eight sweeps of the ring per crash and
    /// twice more — every timer the protocols set is inside it.
    pub fn horizon(&self, crashes: u32) -> Result<Time, TopologyError> {
        let gossip = self.gossip()?;
        let hop = self.logp.hop();
        let sos = match self.variant {
            Variant::Fcg { faults, .. } => FcgConfig::new(gossip.clone(), faults).sos_timeout,
            _ => 0,
        };
        Ok(gossip.correction_start()
            + sos
            + (8 * u64::from(self.procs) + 8) * hop * (u64::from(crashes) + 2))
    }

    /// Initial states of a check: every crash set for [`CrashTiming::Pre`], else one.
    pub fn initial_states(&self, crashes: u32, timing: CrashTiming) -> u64 {
        crate::initial_states(self.procs, crashes, timing, ModelKind::Timed)
    }
}

/// The gossip family's properties for automaton `A`.
pub fn properties<A: GossipProcess>() -> Vec<TimedProperty<A>> {
    let mut list = broadcast_properties();
    let sometimes = list.split_off(4);
    list.push(TimedProperty::always(
        property::C_NODES_SILENT,
        c_nodes_silent::<A>,
    ));
    list.push(TimedProperty::always(
        property::FAILPROOF_WAITS,
        failproof_waits::<A>,
    ));
    list.push(TimedProperty::always_at_quiescence(
        property::FAILPROOF_NO_SOS,
        no_sos::<A>,
    ));
    list.push(TimedProperty::always_at_quiescence(
        property::OCG_WORK,
        ocg_work::<A>,
    ));
    list.push(TimedProperty::always_at_quiescence(
        property::CORRECTION_REACH,
        correction_reach::<A>,
    ));
    list.extend(sometimes);
    list.push(TimedProperty::sometimes(
        SOMETIMES_GOSSIP_COLORS_ALL,
        gossip_colors_all::<A>,
    ));
    list.push(TimedProperty::sometimes(SOMETIMES_SOS, some_sos::<A>));
    list
}

/// CG §III.B and Claim 2: OCG's correction work, exact.
pub const OCG_WORK: &str =
    "OCG work: at quiescence every live g-node sent exactly min(⌊(C − 2O − L)/O⌋ + 1, N − 1) correction messages — K̄ when C = K̄O + L + O — and no other process any (CG §III.B: g-nodes correct for a fixed time C, c-nodes never send; Claim 2)";
/// CG Claim 2's proof: the correction's reach in time.
pub const CORRECTION_REACH: &str =
    "correction reach: with K the longest run of processes between two consecutive g-nodes that never crash, every live process is colored by T + L + O + K·O + L + O — OCG when C ≥ K·O + L + O, CCG when no process crashes after T + L + O (CG Claim 2's proof; CCG sends in OCG's order, §III.C)";

/// The gossip family's `always` properties, in column order, with their short names.
pub const COLUMNS: [Column; 9] = [
    Column::new(property::INTEGRITY, "integrity"),
    Column::new(property::NO_DUPLICATES, "no duplicates"),
    Column::new(property::LIVENESS, "liveness"),
    Column::new(property::TERMINATION, "termination"),
    Column::new(property::C_NODES_SILENT, "c-nodes silent"),
    Column::new(property::FAILPROOF_WAITS, "f + 1 rule"),
    Column::new(property::FAILPROOF_NO_SOS, "Claim 5 no SOS"),
    Column::new(property::OCG_WORK, "OCG work"),
    Column::new(property::CORRECTION_REACH, "Claim 2 reach"),
];
/// The statements of [`COLUMNS`].
pub const ALL: [&str; 9] = property::statements(COLUMNS);

/// OCG's correction sends per g-node (CG §III.B with the fixed time `C` measured from the
/// correction start `T + L + O`, as `ftcoll::protocols::gossip::ocg` reads it): one every `O`
/// while it would still be received, unqueued, within `C` — `⌊(C − 2O − L)/O⌋ + 1` if
/// `C ≥ 2O + L`, else none — and never more than the `N − 1` other ranks of the ring.
pub fn ocg_sends_per_gnode(
    correction_time: Time,
    latency: Time,
    overhead: Time,
    procs: u32,
) -> u64 {
    let hop = 2 * overhead + latency;
    if correction_time < hop {
        return 0;
    }
    ((correction_time - hop) / overhead + 1).min(u64::from(procs.saturating_sub(1)))
}

/// CG Claim 5 read on a finished run: FCG(f), at most `f` crashes, at least `f² + f + 1`
/// g-nodes (processes colored by gossip, crashed ones included, as in the claim's proof) ⇒ no
/// process entered SOS. (The claim says FCG "will complete even if the SOS protocol is
/// disabled"; a run without SOS is one that SOS being disabled cannot change.)
pub fn claim5_applies(faults: u32, crashes: u32, gnodes: u64) -> bool {
    let f = u64::from(faults);
    crashes <= faults && gnodes > f * f + f
}

fn no_sos<A: GossipProcess>(m: &TimedModel<A>, s: &TimedState<A>) -> bool {
    let CorrectionSpec::FailProof { faults, .. } = A::correction(&m.config) else {
        return true;
    };
    if s.error.is_some() || s.sim.next_time().is_some() {
        return true;
    }
    let gnodes = (0..m.procs)
        .filter(|&r| {
            s.sim
                .automaton(r)
                .is_some_and(|a| a.coloring() == GossipColoring::Gossip)
        })
        .count() as u64;
    !claim5_applies(faults, s.crashes, gnodes) || !some_sos(m, s)
}

/// [`property::OCG_WORK`], read at quiescence: a crashed g-node may have sent fewer.
fn ocg_work<A: GossipProcess>(m: &TimedModel<A>, s: &TimedState<A>) -> bool {
    let Some(c) = A::correction_time(&m.config) else {
        return true;
    };
    if s.error.is_some() || s.sim.next_time().is_some() {
        return true;
    }
    let logp = A::gossip(&m.config).logp;
    let per_gnode = ocg_sends_per_gnode(c, logp.latency(), logp.overhead(), m.procs);
    let report = s.sim.report();
    (0..m.procs).all(|r| {
        let sent = u64::from(report.sent(r)[1]);
        match s.sim.automaton(r) {
            Some(a) if a.coloring() == GossipColoring::Gossip => {
                sent == per_gnode || (s.sim.has_crashed(r) && sent < per_gnode)
            }
            _ => sent == 0,
        }
    })
}

/// The longest run of ring positions between two consecutive `true`s of `gnodes` (cyclic;
/// `N − 1` with a single one), or `None` with none: the driver's circular run of non-g-nodes.
pub fn longest_gap(gnodes: &[bool]) -> Option<u64> {
    gnodes
        .contains(&true)
        .then(|| ftcoll::topology::longest_circular_run(gnodes.len(), |r| !gnodes[r]))
}

/// [`property::CORRECTION_REACH`], read at quiescence. Every g-node that never crashes begins
/// its correction at `S = T + L + O` and sends one message every `O`, alternating sides, so
/// after `K` sends the two g-nodes around a run of `K` processes have reached all of it: the
/// `K`-th send starts at `S + (K − 1)·O` and is received `2O + L` later. OCG stops at `C`;
/// CCG stops a side only once it has reached the next g-node there, which a crash during the
/// correction can fake. FCG's c-nodes deliver only on `f + 1` correctors (Alg. 3 lines
/// 11–13), later than the first message: the bound is not theirs.
fn correction_reach<A: GossipProcess>(m: &TimedModel<A>, s: &TimedState<A>) -> bool {
    let correction = A::correction(&m.config);
    let applies_to = matches!(
        correction,
        CorrectionSpec::Opportunistic { .. } | CorrectionSpec::Checked
    );
    if !applies_to || s.error.is_some() || s.sim.next_time().is_some() {
        return true;
    }
    let gossip = A::gossip(&m.config);
    let (start, o, l) = (
        gossip.correction_start(),
        gossip.logp.overhead(),
        gossip.logp.latency(),
    );
    let gnodes: Vec<bool> = (0..m.procs)
        .map(|r| {
            !s.sim.has_crashed(r)
                && s.sim
                    .automaton(r)
                    .is_some_and(|a| a.coloring() == GossipColoring::Gossip)
        })
        .collect();
    let Some(gap) = longest_gap(&gnodes) else {
        return true;
    };
    let reach = gap * o + l + o;
    let applies = match A::correction_time(&m.config) {
        Some(c) => reach <= c,
        None => (0..m.procs).all(|r| s.sim.crash_instant(r).is_none_or(|at| at <= start)),
    };
    let report = s.sim.report();
    !applies
        || (0..m.procs).all(|r| {
            s.sim.has_crashed(r) || report.delivered_at(r).is_some_and(|t| t <= start + reach)
        })
}

fn c_nodes_silent<A: GossipProcess>(m: &TimedModel<A>, s: &TimedState<A>) -> bool {
    if matches!(A::correction(&m.config), CorrectionSpec::FailProof { .. }) {
        return true;
    }
    let report = s.sim.report();
    (0..m.procs).all(|r| {
        s.sim
            .automaton(r)
            .is_none_or(|a| a.coloring() != GossipColoring::Correction)
            || report.sent(r)[1] == 0
    })
}

fn failproof_waits<A: GossipProcess>(m: &TimedModel<A>, s: &TimedState<A>) -> bool {
    if !matches!(A::correction(&m.config), CorrectionSpec::FailProof { .. }) {
        return true;
    }
    let report = s.sim.report();
    (0..m.procs).all(|r| {
        let Some(node) = s.sim.automaton(r) else {
            return true;
        };
        if report.delivered_at(r).is_none() || node.coloring() != GossipColoring::Correction {
            return true;
        }
        match node.corrector().state() {
            CorrectorState::FailProof(fp) => fp.in_sos() || fp.heard().len() > fp.faults() as usize,
            _ => true,
        }
    })
}

fn gossip_colors_all<A: GossipProcess>(m: &TimedModel<A>, s: &TimedState<A>) -> bool {
    (0..m.procs).all(|r| {
        s.sim.has_crashed(r)
            || s.sim
                .automaton(r)
                .is_some_and(|a| a.coloring() == GossipColoring::Gossip)
    })
}

fn some_sos<A: GossipProcess>(m: &TimedModel<A>, s: &TimedState<A>) -> bool {
    entered_sos(m.procs, s)
}

/// The timed model of `spec` for automaton `A` (the real one, or a mutant wrapping it) with
/// configuration `config`, at most `max_crashes` crashes, every target draw chosen by the
/// model.
pub fn model_of<A: GossipProcess>(
    spec: &GossipSpec,
    config: A::Config,
    max_crashes: u32,
    timing: CrashTiming,
) -> Result<TimedModel<A>, TopologyError> {
    let payload = A::gossip(&config).payload;
    Ok(TimedModel {
        config,
        procs: spec.procs,
        logp: spec.logp,
        port_model: PortModel::DualPort,
        payload,
        max_crashes,
        timing,
        horizon: spec.horizon(max_crashes)?,
        halt: Halt::new(),
        crashable: (1..spec.procs).collect(),
        properties: properties(),
        arrivals: Vec::new(),
        vocabulary: Vocabulary {
            messages: [
                "Gossip message",
                "Correction message",
                "Acknowledgment message",
                "Liveness probe",
            ],
            completes: false,
        },
        guide: None,
        choices: Some(hook()),
        crashes_at_events_only: false,
        crashes_before_sends_only: false,
    })
}

/// The configuration of `spec`'s protocol, for the automaton of that protocol.
pub enum Config {
    /// GOS and CCG.
    Gossip(GossipConfig),
    /// OCG.
    Ocg(OcgConfig),
    /// FCG.
    Fcg(FcgConfig),
}

impl GossipSpec {
    /// The protocol's configuration.
    pub fn config(&self) -> Result<Config, TopologyError> {
        let gossip = self.gossip()?;
        Ok(match self.variant {
            Variant::Gos | Variant::Ccg => Config::Gossip(gossip),
            Variant::Ocg { correction_time } => Config::Ocg(OcgConfig {
                gossip,
                correction_time,
            }),
            Variant::Fcg {
                faults,
                sos_on_full_loop,
            } => {
                let mut config = FcgConfig::new(gossip, faults);
                config.sos_on_full_loop = sos_on_full_loop;
                Config::Fcg(config)
            }
        })
    }
}

/// Checks a model of any gossip automaton within `budget` (BFS: every counterexample is a
/// shortest one).
pub fn check_model<A>(
    model: TimedModel<A>,
    budget: &Budget,
    progress: Option<Progress<'_>>,
) -> Result<CheckResult, CheckError>
where
    A: GossipProcess + crate::timed::Checkable,
    A::Config: Clone,
{
    let start = std::time::Instant::now();
    let initial = crate::initial_states(
        model.procs,
        model.max_crashes,
        model.timing,
        ModelKind::Timed,
    );
    crate::admit_initial(initial, model.procs, ModelKind::Timed, budget)?;
    crate::check_timed(model, initial, budget, start, progress)
}

/// Checks `spec` with at most `crashes` crashes within `budget`: the real automaton of its
/// protocol, every target sequence.
pub fn check(
    spec: &GossipSpec,
    crashes: u32,
    timing: CrashTiming,
    budget: &Budget,
    progress: Option<Progress<'_>>,
) -> Result<CheckResult, CheckError> {
    let initial = spec.initial_states(crashes, timing);
    crate::admit_initial(initial, spec.procs, ModelKind::Timed, budget)?;
    match (spec.variant, spec.config()?) {
        (Variant::Gos, Config::Gossip(c)) => {
            check_model(model_of::<Gos>(spec, c, crashes, timing)?, budget, progress)
        }
        (Variant::Ccg, Config::Gossip(c)) => {
            check_model(model_of::<Ccg>(spec, c, crashes, timing)?, budget, progress)
        }
        (_, Config::Ocg(c)) => {
            check_model(model_of::<Ocg>(spec, c, crashes, timing)?, budget, progress)
        }
        (_, Config::Fcg(c)) => {
            check_model(model_of::<Fcg>(spec, c, crashes, timing)?, budget, progress)
        }
        (_, Config::Gossip(_)) => unreachable!("GOS and CCG take a GossipConfig"),
    }
}

/// One claim of CG at a small size: the protocol, the faults, the property the claim is about
/// and the verdict CG predicts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell {
    /// Short identifier (`ftcoll-verify gossip --cell ID`).
    pub id: &'static str,
    /// The claim, citing CG.
    pub claim: &'static str,
    /// The protocol and its size.
    pub spec: GossipSpec,
    /// At most this many crashes.
    pub crashes: u32,
    /// When.
    pub timing: CrashTiming,
    /// The property the claim is about.
    pub property: &'static str,
    /// Whether CG predicts that it holds (`None`: CG predicts nothing at this size).
    pub expected: Option<bool>,
}

/// FCG(1) as listed.
const FCG1: Variant = Variant::Fcg {
    faults: 1,
    sos_on_full_loop: true,
};

fn spec(variant: Variant, procs: u32, latency: u64, gossip_time: Time) -> GossipSpec {
    GossipSpec {
        variant,
        procs,
        logp: LogP::new(latency, 1).expect("O = 1 is valid"),
        gossip_time,
    }
}

/// The cells of the gossip section: CG's claims at sizes whose exhaustive checks take seconds.
/// `L = O = 1` as in CG's Figures 2 and 4 unless a cell says otherwise.
pub fn cells() -> Vec<Cell> {
    use CrashTiming::{Any, Pre};
    let liveness = property::LIVENESS;
    vec![
        Cell {
            id: "ccg-pre",
            claim: "CCG colors every live process under any number of crashes before the operation (CG Claim 3)",
            spec: spec(Variant::Ccg, 6, 1, 2),
            crashes: 5,
            timing: Pre,
            property: liveness,
            expected: Some(true),
        },
        Cell {
            id: "ccg-any-f1",
            claim: "CCG with one crash at any instant: no counterexample at this size (CG predicts nothing; the counterexample of ccg-any needs two)",
            spec: spec(Variant::Ccg, 6, 1, 2),
            crashes: 1,
            timing: Any,
            property: liveness,
            expected: None,
        },
        Cell {
            id: "ccg-any",
            claim: "CCG may leave a live process uncolored when processes crash during the correction (CG §III.C, the text after Claim 3)",
            spec: spec(Variant::Ccg, 6, 1, 2),
            crashes: 2,
            timing: Any,
            property: liveness,
            expected: Some(false),
        },
        Cell {
            id: "fcg-any",
            claim: "FCG(1) colors every live process with one crash at any instant (CG Claim 4)",
            spec: spec(FCG1, 5, 1, 2),
            crashes: 1,
            timing: Any,
            property: liveness,
            expected: Some(true),
        },
        Cell {
            id: "fcg-pre",
            claim: "FCG(1) colors every live process under any number of crashes before the operation (CG Corollary 3)",
            spec: spec(FCG1, 5, 1, 2),
            crashes: 4,
            timing: Pre,
            property: liveness,
            expected: Some(true),
        },
        Cell {
            id: "fcg-waits",
            claim: "an FCG(1) c-node delivers only once it knows f + 1 = 2 g-nodes, or after SOS (CG Alg. 3, lines 11–14)",
            spec: spec(FCG1, 5, 1, 2),
            crashes: 1,
            timing: Any,
            property: property::FAILPROOF_WAITS,
            expected: Some(true),
        },
        Cell {
            id: "fcg-claim5",
            claim: "FCG(1) with at least f² + f + 1 = 3 g-nodes and one crash completes without SOS (CG Claim 5); the listing's line 28 enters SOS when only f + 1 = 2 g-nodes are left alive, so the claim needs its footnote's variant (docs/verification-gossip.md)",
            spec: spec(FCG1, 5, 1, 2),
            crashes: 1,
            timing: Any,
            property: property::FAILPROOF_NO_SOS,
            expected: Some(true),
        },
        Cell {
            id: "fcg-footnote-claim5",
            claim: "… and with the footnote's variant (a sweep that comes back to its sender ends that side instead of entering SOS at line 28) it does (CG Claim 5 and its footnote)",
            spec: spec(
                Variant::Fcg {
                    faults: 1,
                    sos_on_full_loop: false,
                },
                5,
                1,
                2,
            ),
            crashes: 1,
            timing: Any,
            property: property::FAILPROOF_NO_SOS,
            expected: Some(true),
        },
        Cell {
            id: "ccg-silent",
            claim: "CCG's c-nodes never send (CG §III.C)",
            spec: spec(Variant::Ccg, 6, 1, 2),
            crashes: 5,
            timing: Pre,
            property: property::C_NODES_SILENT,
            expected: Some(true),
        },
        Cell {
            id: "ocg-fig2",
            claim: "OCG with too small a C leaves a process uncolored without any crash: Fig. 2's N = 10, L = O = 1, T = 2, C = 6 (CG §III.B)",
            spec: spec(Variant::Ocg { correction_time: 6 }, 10, 1, 2),
            crashes: 0,
            timing: Pre,
            property: liveness,
            expected: Some(false),
        },
        Cell {
            id: "ocg-c9",
            claim: "OCG at Fig. 2's size with C = K̄·O + L + O for K̄ = 7 still fails: two g-nodes side by side leave a gap of N − 2 = 8 (CG Claim 2)",
            spec: spec(Variant::Ocg { correction_time: 9 }, 10, 1, 2),
            crashes: 0,
            timing: Pre,
            property: liveness,
            expected: Some(false),
        },
        Cell {
            id: "ocg-c10",
            claim: "OCG at Fig. 2's size with C = K̄·O + L + O for K̄ = N − 2 = 8, the largest gap T = 2 allows, colors every process (CG Claim 2 with δ = 0)",
            spec: spec(Variant::Ocg { correction_time: 10 }, 10, 1, 2),
            crashes: 0,
            timing: Pre,
            property: liveness,
            expected: Some(true),
        },
        Cell {
            id: "ocg-work",
            claim: "OCG's correction work: every live g-node sends exactly K̄ = 7 correction messages with C = K̄·O + L + O = 9 and c-nodes none, whatever crashes at any instant (CG §III.B, Claim 2)",
            spec: spec(Variant::Ocg { correction_time: 9 }, 10, 1, 2),
            crashes: 1,
            timing: Any,
            property: property::OCG_WORK,
            expected: Some(true),
        },
        Cell {
            id: "ccg-reach",
            claim: "CCG colors every live process within K·O + L + O of the correction start, K the longest run between two g-nodes, with one crash at any instant (CG Claim 2's proof; CCG sends in OCG's order, §III.C)",
            spec: spec(Variant::Ccg, 7, 1, 3),
            crashes: 1,
            timing: Any,
            property: property::CORRECTION_REACH,
            expected: Some(true),
        },
        Cell {
            id: "ocg-reach",
            claim: "OCG with C = 9 colors every live process within K·O + L + O of the correction start whenever that fits in C, with one crash at any instant (CG Claim 2's proof)",
            spec: spec(Variant::Ocg { correction_time: 9 }, 10, 1, 2),
            crashes: 1,
            timing: Any,
            property: property::CORRECTION_REACH,
            expected: Some(true),
        },
        Cell {
            id: "gos-t3",
            claim: "GOS is inconsistent for small T: with N = 4, L = O = 1, T = 3 the root's three sends can miss a process (CG §II, §IV.B.1)",
            spec: spec(Variant::Gos, 4, 1, 3),
            crashes: 0,
            timing: Pre,
            property: liveness,
            expected: Some(false),
        },
        Cell {
            id: "gos-t5",
            claim: "GOS stays inconsistent for a larger T (N = 4, T = 5: some target sequence still misses a process)",
            spec: spec(Variant::Gos, 4, 1, 5),
            crashes: 0,
            timing: Pre,
            property: liveness,
            expected: Some(false),
        },
    ]
}

/// The outcome of one cell.
#[derive(Clone, Debug, PartialEq)]
pub struct CellResult {
    /// The cell.
    pub cell: Cell,
    /// The check.
    pub result: CheckResult,
}

impl CellResult {
    /// `Some(true)` if the cell's property holds (complete search, no counterexample, no run
    /// cut at the horizon), `Some(false)` if violated, `None` if a budget left it undecided.
    pub fn holds(&self) -> Option<bool> {
        if self.result.violated(self.cell.property) {
            Some(false)
        } else if self.result.holds(self.cell.property) {
            Some(true)
        } else {
            None
        }
    }

    /// Whether the verdict is the one CG predicts (`None`: CG predicts nothing).
    pub fn agrees(&self) -> Option<bool> {
        self.cell.expected.map(|e| self.holds() == Some(e))
    }

    /// The shortest counterexample of the cell's property, if violated.
    pub fn counterexample(&self) -> Option<&[String]> {
        self.result
            .violations
            .iter()
            .find(|v| v.property == self.cell.property)
            .map(|v| v.trace.as_slice())
    }
}

/// Decides one cell within `budget`.
pub fn run_cell(cell: &Cell, budget: &Budget) -> Result<CellResult, CheckError> {
    let result = check(&cell.spec, cell.crashes, cell.timing, budget, None)?;
    Ok(CellResult {
        cell: *cell,
        result,
    })
}

/// The gossip section of docs/verification.md: a heading, a paragraph, and one line per cell
/// with its verdict, unique states and whether it agrees with CG; counterexample traces go to
/// `traces_dir` as `gossip-ID.txt`. Returns the text and the cells' unique states in total.
/// Run times are left out so the text is deterministic.
pub fn section(traces_dir: &std::path::Path) -> Result<(String, usize), String> {
    use core::fmt::Write as _;
    let mut doc = String::new();
    let _ = writeln!(
        doc,
        "\n## Corrected Gossip\n\nGOS, OCG, CCG and FCG(f) (`GossipNode`, `ftcoll_verify::gossip`, \
         `ftcoll-verify gossip`) in the timed model with every gossip target chosen by the model: \
         each draw of a target is explored with all N − 1 outcomes, so a verdict covers every target \
         sequence, not one seed (the soundness argument is in [verification-gossip.md](verification-gossip.md)). \
         Each cell decides one claim of CG exhaustively at the size it names and says whether CG's \
         prediction agrees; a counterexample is the shortest one (BFS).\n"
    );
    let mut states = 0;
    for cell in cells() {
        let outcome = run_cell(&cell, &Budget::UNLIMITED).map_err(|e| e.to_string())?;
        states += outcome.result.states;
        let verdict = match outcome.holds() {
            Some(true) => format!("holds, exhaustive ({} states)", outcome.result.states),
            Some(false) => {
                let name = format!("gossip-{}.txt", cell.id);
                let trace = outcome.counterexample().unwrap_or_default();
                let mut text = format!(
                    "{} f={} {}: {}\n",
                    cell.spec.name(),
                    cell.crashes,
                    cell.timing,
                    cell.property
                );
                for line in trace {
                    text.push_str(line);
                    text.push('\n');
                }
                std::fs::write(traces_dir.join(&name), text)
                    .map_err(|e| format!("cannot write {name}: {e}"))?;
                format!(
                    "violated: shortest counterexample, [trace](traces/{name}) ({} states)",
                    outcome.result.states
                )
            }
            None => format!(
                "undecided within {} states (a bounded result)",
                outcome.result.states
            ),
        };
        let agrees = match outcome.agrees() {
            Some(true) => "agrees with CG",
            Some(false) => "**disagrees with CG**",
            None => "CG predicts no outcome at this size",
        };
        let _ = writeln!(
            doc,
            "- **{}** — `{}`, f = {}, {}: *{}* — {verdict} ({agrees})",
            cell.claim,
            cell.spec.name(),
            cell.crashes,
            cell.timing,
            property::short(&COLUMNS, cell.property)
        );
    }
    Ok((doc, states))
}

/// A run of FCG(`faults`) on `procs` processes whose g-nodes are exactly `gnodes` (the root,
/// rank 0, is always one; the others in any order): gossip time `T = |gnodes \ {0}|`, the
/// root's draws go to those ranks in turn, every other process's draws to the root, and
/// `crash_at` crashes `(rank, time)` happen right before the first instant at or after their
/// time. What CG Claim 5 is about: a placement of g-nodes on the ring and crashes among them.
/// Returns the final state (quiescent, or at the horizon).
pub fn run_placed(
    procs: u32,
    logp: LogP,
    faults: u32,
    gnodes: &[ftcoll::Rank],
    crash_at: &[(ftcoll::Rank, Time)],
) -> Result<TimedState<Fcg>, TopologyError> {
    let targets: Vec<ftcoll::Rank> = gnodes.iter().copied().filter(|&r| r != 0).collect();
    let spec = GossipSpec {
        variant: Variant::Fcg {
            faults,
            sos_on_full_loop: true,
        },
        procs,
        logp,
        gossip_time: targets.len() as Time * logp.overhead(),
    };
    let Config::Fcg(config) = spec.config()? else {
        unreachable!("an FCG spec has an FCG configuration")
    };
    let model = model_of::<Fcg>(&spec, config, crash_at.len() as u32, CrashTiming::Any)?;
    let mut state = model.initial_state(&[]);
    let mut pending = crash_at.to_vec();
    pending.sort_by_key(|&(r, t)| (t, r));
    let mut root_draws = 0;
    while let Some(time) = state.sim.next_time().filter(|&t| t <= model.horizon) {
        while let Some(&(rank, _)) = pending.first().filter(|&&(_, at)| at <= time) {
            pending.remove(0);
            if !state.sim.has_crashed(rank) {
                state.sim.crash(rank, time);
                state.crashes += 1;
            }
        }
        if let Some((rank, _)) = model.pending_choice(&state) {
            let target = if rank == 0 {
                root_draws += 1;
                targets[(root_draws - 1) % targets.len().max(1)]
            } else {
                0
            };
            // Chooser outcome x names rank x, or x + 1 from the drawing rank on.
            let outcome = if target > rank { target - 1 } else { target };
            if let Some(node) = state.sim.automaton_mut(rank) {
                node.chooser_mut().supply(u64::from(outcome));
            }
            continue;
        }
        // The model's one stepping function (driver errors, the stop rule's bookkeeping).
        model.step(&mut state);
        if state.error.is_some() {
            break;
        }
    }
    Ok(state)
}

/// Whether some process of `state` entered SOS.
pub fn entered_sos<A: GossipProcess>(procs: u32, state: &TimedState<A>) -> bool {
    (0..procs).any(|r| {
        state
            .sim
            .automaton(r)
            .is_some_and(|a| a.corrector().in_sos())
    })
}

/// CG Claim 5's counting argument: on a ring of `gnodes` g-nodes of which those at the
/// positions `failed` (indices into the ring of g-nodes) fail, the longest run of consecutive
/// g-nodes that do not fail (wrapping around).
pub fn longest_live_run(gnodes: usize, failed: &[usize]) -> usize {
    if failed.is_empty() {
        return gnodes;
    }
    let mut dead = vec![false; gnodes];
    for &i in failed {
        dead[i % gnodes] = true;
    }
    let (mut best, mut run) = (0, 0);
    for i in 0..2 * gnodes {
        if dead[i % gnodes] {
            run = 0;
        } else {
            run += 1;
            best = best.max(run.min(gnodes));
        }
    }
    best
}
