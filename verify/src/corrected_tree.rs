//! The Corrected Tree family in the timed model (CT §2–4, CG §III): its model constructor
//! (the horizon from its own timers) and the protocol rules it declares beside the broadcast
//! properties. The timed model itself ([`crate::timed`]) knows no protocol.

use ftcoll::automaton::Automaton;
use ftcoll::protocols::corrected_tree::{CorrectedTreeNode, CorrectionSpec};
use ftcoll::protocols::correction::CorrectionKind;
use ftcoll::sim::PortModel;

use crate::budget::Halt;
use crate::timed::{
    broadcast_properties, CrashTiming, TimedModel, TimedProperty, TimedState, Vocabulary,
};
use crate::{property, ProtocolSpec};

/// What the Corrected Tree family's rule properties read from a configuration: the correction
/// variant. The real automaton implements it, and so does the mutant of [`crate::mutants`].
pub trait CorrectionView: Automaton {
    /// The correction variant of `config`.
    fn correction(config: &Self::Config) -> CorrectionKind;
}

impl CorrectionView for CorrectedTreeNode {
    fn correction(
        config: &ftcoll::protocols::corrected_tree::CorrectedTreeConfig,
    ) -> CorrectionKind {
        config.correction
    }
}

/// The Corrected Tree family's protocol rules ([`property::RULES`]), checked in every state.
pub fn correction_rule_properties<A: CorrectionView>() -> Vec<TimedProperty<A>> {
    vec![
        TimedProperty::always(property::SEND_BOUND, send_bound::<A>),
        TimedProperty::always(property::C_NODES_SILENT, c_nodes_silent::<A>),
    ]
}

/// Index of the correction phase in `Report::sent`.
const CORRECTION: usize = 1;

fn send_bound<A: CorrectionView>(m: &TimedModel<A>, s: &TimedState<A>) -> bool {
    let d = match A::correction(&m.config) {
        CorrectionKind::Opportunistic { distance } | CorrectionKind::Optimized { distance } => {
            distance
        }
        _ => return true,
    };
    let bound = d.saturating_mul(2);
    s.sim
        .report()
        .sent
        .iter()
        .all(|sent| sent[CORRECTION] <= bound)
}

fn c_nodes_silent<A: CorrectionView>(m: &TimedModel<A>, s: &TimedState<A>) -> bool {
    if matches!(A::correction(&m.config), CorrectionKind::FailProof { .. }) {
        return true;
    }
    let report = s.sim.report();
    (0..report.procs as usize).all(|r| {
        report.delivered_at[r].is_none()
            || report.by_dissemination[r]
            || report.sent[r][CORRECTION] == 0
    })
}

impl TimedModel<CorrectedTreeNode> {
    /// The model of a Corrected Tree broadcast with at most `max_crashes` crashes.
    pub fn corrected_tree(
        spec: &ProtocolSpec,
        max_crashes: u32,
        timing: CrashTiming,
    ) -> Result<Self, ftcoll::topology::TopologyError> {
        let config = spec.config()?;
        let hop = spec.logp.hop();
        let sos = match spec.correction {
            CorrectionSpec::Correction(CorrectionKind::FailProof { sos_timeout, .. }) => {
                sos_timeout
            }
            CorrectionSpec::FailProof(_) => {
                4 * u64::from(spec.procs) * spec.logp.overhead() + 2 * hop
            }
            _ => 0,
        };
        // Delayed correction waits `delay` once per corrector before it sweeps (CT §3.3); the
        // waits of different correctors overlap.
        let delay = match spec.correction {
            CorrectionSpec::Correction(CorrectionKind::Delayed { delay }) => delay,
            _ => 0,
        };
        // Generous: a corrector sweeps the ring twice per final round, plus SOS or the delay:
        // every timer the protocol sets is inside the horizon (issue 13: a horizon that ignores
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
        })
    }
}
