//! The quantitative claims' side conditions, decided on the plain driver (the model checker's
//! properties use the same helpers): CT Lemma 3 needs its `P ≫ g_max`, and
//! [`ftcoll_verify::corrected_tree::lemma3_applies`] is where the matrix draws that line.

use ftcoll::protocols::corrected_tree::{CorrectedTreeNode, CorrectionSpec, StartMode};
use ftcoll::protocols::correction::CorrectionKind;
use ftcoll::sim::{self, PortModel, Scenario};
use ftcoll::topology::{LogP, Order, TreeKind};
use ftcoll_verify::corrected_tree::lemma3_applies;
use ftcoll_verify::ProtocolSpec;

/// CT Lemma 3 with its "P ≫ g_max" dropped fails: on kary:2 with P = 12 and crashes {1, 6, 8}
/// before the operation, the tree leaves a gap of 7 (more than half the ring), both ends sweep
/// it and the correction ends 14 steps after it starts, below the lower bound
/// `L_FF + g_max·o = 8 + 7`. The matrix's reading `P ≥ 2·g_max + 3 + ⌈L/o⌉` excludes this case
/// and admits the same crash set's neighbours with smaller gaps.
#[test]
fn lemma3_lower_bound_needs_p_much_larger_than_gmax() {
    let spec = ProtocolSpec {
        tree: TreeKind::KAry(2),
        order: Order::Interleaved,
        correction: CorrectionSpec::Correction(CorrectionKind::Checked),
        start: StartMode::Synchronized,
        procs: 12,
        logp: LogP::default(),
    };
    let config = spec.config().unwrap();
    let scenario = Scenario {
        logp: spec.logp,
        model: PortModel::DualPort,
        arrivals: Vec::new(),
        crashes: vec![(1, 0), (6, 0), (8, 0)],
        trace: false,
    };
    let report = sim::run::<CorrectedTreeNode>(&config, 12, &scenario, 1 << 20).unwrap();
    assert_eq!(report.undelivered(), 0);
    let g = report.gmax_after_dissemination();
    let lasted = report.quiescence_latency() - config.correction_start;
    let (l, o) = (2, 1);
    let lff = 4 * o + l + (l / o) * o;
    assert_eq!((g, lasted), (7, 14));
    assert!(lasted < lff + g * o, "the lower bound fails here");
    assert!(!lemma3_applies(12, g, l, o));
    assert!(lemma3_applies(12, 3, l, o) && !lemma3_applies(12, 4, l, o));
}
