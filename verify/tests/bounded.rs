//! Sound bounded verdicts (issue 13, item 2): the timed model's horizon contains every timer a
//! protocol sets, and a run the horizon cuts leaves liveness undecided instead of letting it
//! hold vacuously.

use ftcoll::protocols::corrected_tree::{CorrectionSpec, StartMode};
use ftcoll::protocols::correction::CorrectionKind;
use ftcoll::topology::{LogP, Order, TreeKind};
use ftcoll_verify::{
    check, check_timed, property, Budget, CrashTiming, ModelKind, ProtocolSpec, TimedModel, Verdict,
};

fn delayed(delay: u64, procs: u32) -> ProtocolSpec {
    ProtocolSpec {
        tree: TreeKind::Lame(2),
        order: Order::Interleaved,
        correction: CorrectionSpec::Correction(CorrectionKind::Delayed { delay }),
        start: StartMode::Synchronized,
        procs,
        logp: LogP::default(),
    }
}

/// CT §3.3: delayed correction with a long delay is slow but correct — it must hold, not be
/// reported as non-terminating because the horizon ignored the delay (it used to).
#[test]
fn delayed_1000_holds_fault_free_and_with_a_crash_at_any_instant() {
    for procs in 2..=6 {
        for crashes in 0..=1 {
            let result = check(
                &delayed(1000, procs),
                crashes,
                CrashTiming::Any,
                ModelKind::Timed,
            )
            .expect("valid spec");
            assert_eq!(
                result.verdict(),
                Verdict::Holds,
                "P={procs} f={crashes}: {result:?}"
            );
            assert!(result.cut_by_horizon.is_empty());
        }
    }
}

/// A horizon shorter than the protocol's own delay cuts every run: termination is violated,
/// and liveness — true of no quiescent state, since none is reached — is undecided, never
/// "holds"; the verdict is partial.
#[test]
fn a_run_cut_at_the_horizon_leaves_liveness_undecided() {
    let spec = delayed(1000, 4);
    let mut model = TimedModel::corrected_tree(&spec, 0, CrashTiming::Pre).expect("valid spec");
    model.horizon = 50;
    let result = check_timed(
        model,
        1,
        &Budget::UNLIMITED,
        std::time::Instant::now(),
        None,
    )
    .expect("checks");
    assert!(result.violated(property::TERMINATION));
    assert_eq!(result.cut_by_horizon, [property::LIVENESS]);
    assert!(!result.holds(property::LIVENESS));
    assert!(result.holds(property::INTEGRITY));
    assert_eq!(result.verdict(), Verdict::Partial);
    assert_eq!(result.unresolved(), [property::LIVENESS]);
}
