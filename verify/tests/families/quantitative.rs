//! The quantitative claims' side conditions, decided on the plain driver (the model checker's
//! properties use the same helpers): CT Lemma 3 needs its `P ≫ g_max`, and
//! [`ftcoll_verify::corrected_tree::lemma3_applies`] is where the matrix draws that line.

use ftcoll::protocols::corrected_tree::{CorrectedTreeNode, CorrectionSpec, StartMode};
use ftcoll::topology::{LogP, Order, TreeKind};
use ftcoll_sim::{self as sim, PortModel, Scenario};
use ftcoll_verify::corrected_tree::lemma3_applies;
use ftcoll_verify::CorrectedTreeSpec;

/// CT Lemma 3 with its "P ≫ g_max" dropped fails: on kary:2 with P = 12 and crashes {1, 6, 8}
/// before the operation, the tree leaves a gap of 7 (more than half the ring), both ends sweep
/// it and the correction ends 14 steps after it starts, below the lower bound
/// `L_FF + g_max·o = 8 + 7`. The matrix's reading `P ≥ 2·g_max + 3 + ⌈L/o⌉` excludes this case
/// and admits the same crash set's neighbours with smaller gaps.
#[test]
fn lemma3_lower_bound_needs_p_much_larger_than_gmax() {
    let spec = CorrectedTreeSpec {
        tree: TreeKind::KAry(2),
        order: Order::Interleaved,
        correction: CorrectionSpec::Checked,
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
        ignored: Default::default(),
    };
    let report = sim::run::<CorrectedTreeNode>(&config, 12, &scenario, 1 << 20).unwrap();
    assert_eq!(report.undelivered(), 0);
    let g = ftcoll::protocols::corrected_tree::gmax_after_dissemination(report.procs, |r| {
        report.by_dissemination(r)
    });
    let lasted = report.quiescence_latency() - config.correction_start;
    let (l, o) = (spec.logp.latency(), spec.logp.overhead());
    let lff = 4 * o + l + (l / o) * o;
    assert_eq!((g, lasted), (7, 14));
    assert!(lasted < lff + g * o, "the lower bound fails here");
    assert!(!lemma3_applies(12, g, l, o));
    assert!(lemma3_applies(12, 3, l, o) && !lemma3_applies(12, 4, l, o));
}

/// The reading of "P ≫ g_max" in [`lemma3_applies`] is enough: the Lemma 3 property holds
/// exhaustively (every crash set of at most 3 ranks before the operation) on five trees, both
/// numberings and three `(L, o)`, at P = 9 and 12 — while the reading without the factor 2 fails
/// (the test above).
#[test]
fn lemma3_holds_wherever_the_matrix_applies_it() {
    use ftcoll_verify::{check, property, CrashTiming, ModelKind};
    let trees = [
        TreeKind::Lame(2),
        TreeKind::KAry(2),
        TreeKind::KAry(3),
        TreeKind::Binomial,
        TreeKind::Optimal,
    ];
    for tree in trees {
        for order in [Order::Interleaved, Order::InOrder] {
            for (l, o) in [(2, 1), (1, 1), (4, 2)] {
                for procs in [9, 12] {
                    let spec = CorrectedTreeSpec {
                        tree,
                        order,
                        correction: CorrectionSpec::Checked,
                        start: StartMode::Synchronized,
                        procs,
                        logp: LogP::new(l, o).unwrap(),
                    };
                    let result = check(&spec, 3, CrashTiming::Pre, ModelKind::Timed).unwrap();
                    assert!(
                        result.holds(property::CHECKED_GAP_LATENCY),
                        "{}: {:?}",
                        spec.name(),
                        result.violations
                    );
                }
            }
        }
    }
}

/// CG Claim 5 as the claims section states it: with one crash at any instant, failure-proof(1)
/// enters SOS on rings of 3 to 5 processes (Alg. 3's line 28) and not from 6 to 10.
#[test]
fn claim5_fails_on_small_rings_and_holds_from_six_processes() {
    use ftcoll_verify::{check, property, CrashTiming, ModelKind};
    for procs in 3..=10 {
        let spec = CorrectedTreeSpec {
            tree: TreeKind::Lame(2),
            order: Order::Interleaved,
            correction: CorrectionSpec::FailProof {
                faults: 1,
                sos_timeout: None,
                sos_on_full_loop: true,
            },
            start: StartMode::Synchronized,
            procs,
            logp: LogP::default(),
        };
        let result = check(&spec, 1, CrashTiming::Any, ModelKind::Timed).unwrap();
        assert_eq!(
            result.holds(property::FAILPROOF_NO_SOS),
            procs >= 6,
            "P = {procs}"
        );
    }
}
