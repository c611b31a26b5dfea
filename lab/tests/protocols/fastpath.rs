//! The fast path for synchronized checked correction (`ftcoll_lab::fastpath`) against the full LogP
//! simulation: equal metrics on more than 10^4 random failure sets, over every tree kind, both
//! numberings, several `L`, `o`, both first sides, and sizes that exercise both engines: the
//! two-phase engine, and the segment engine's windows, merged clusters, windows through rank 0
//! and whole-ring mode. At CT Table 1's scale, where the driver is too slow for many runs, the
//! two engines are compared with each other.

use ftcoll::protocols::corrected_tree::CorrectionSpec;
use ftcoll::protocols::corrected_tree::{CorrectedTreeConfig, CorrectedTreeNode, StartMode};
use ftcoll::protocols::Side;
use ftcoll::rng::SplitMix64;
use ftcoll::topology::{LogP, Order, Tree, TreeKind};
use ftcoll_lab::ct_metrics::CtMetrics;
use ftcoll_lab::fastpath::{SyncChecked, Workspace};
use ftcoll_sim::scenario::{draw_faults, ArrivalSpec, FaultSpec, ScenarioSpec};
use ftcoll_sim::{self as sim, PortModel};

fn full(
    config: &CorrectedTreeConfig,
    spec: &ScenarioSpec,
    seed: u64,
    run: u64,
) -> (CtMetrics, Vec<u32>) {
    let (scenario, failed) = spec.build(seed, run).unwrap();
    let report = sim::run::<CorrectedTreeNode>(config, spec.procs, &scenario, u64::MAX).unwrap();
    let metrics = CtMetrics::from_report(&report, config.tree.deadline(), failed.len() as u64);
    (metrics, failed)
}

/// One configuration, `runs` failure sets of `faults` ranks each; returns the fast path's
/// counts (`Workspace::stats`): windows simulated, windows from the memo, whole-ring
/// simulations, two-phase runs.
#[allow(clippy::too_many_arguments)]
fn compare(
    kind: TreeKind,
    order: Order,
    procs: u32,
    l: u64,
    o: u64,
    side: Side,
    faults: u32,
    runs: u64,
    seed: u64,
) -> [u64; 4] {
    let logp = LogP::new(l, o).unwrap();
    let tree = Tree::new(kind, order, procs, logp).unwrap();
    let engine = SyncChecked::new(&tree, side);
    let mut config =
        CorrectedTreeConfig::new(tree, CorrectionSpec::Checked, StartMode::Synchronized);
    config.first_side = side;
    let spec = ScenarioSpec {
        procs,
        logp,
        model: PortModel::DualPort,
        immune: 1,
        faults: FaultSpec::Count(faults),
        crash_at: Vec::new(),
        arrivals: ArrivalSpec::None,
        ignored: Default::default(),
    };
    let mut ws = Workspace::new();
    for run in 0..runs {
        let (expected, failed) = full(&config, &spec, seed, run);
        let fast = engine.run(&mut ws, &failed).unwrap();
        assert_eq!(
            fast, expected,
            "{kind} {order} P={procs} L={l} o={o} {side:?} faults={failed:?}"
        );
    }
    ws.stats
}

#[test]
fn fast_path_equals_full_simulation_on_random_failure_sets() {
    let kinds = [
        TreeKind::KAry(2),
        TreeKind::KAry(4),
        TreeKind::Binomial,
        TreeKind::Lame(2),
        TreeKind::Lame(3),
        TreeKind::Optimal,
    ];
    let mut rng = SplitMix64::new(0x5eed);
    let mut sets = 0;
    let mut case = 0u64;
    let mut stats = [0u64; 4];
    while sets < 10_400 {
        let kind = kinds[rng.below(kinds.len() as u64) as usize];
        let order = if rng.below(4) == 0 {
            Order::InOrder
        } else {
            Order::Interleaved
        };
        let procs = [1, 2, 3, 5, 17, 64, 150, 300, 600][rng.below(9) as usize] + rng.below(40);
        let l = rng.below(5);
        let o = 1 + rng.below(3);
        let side = if rng.below(3) == 0 {
            Side::Right
        } else {
            Side::Left
        };
        let max_faults = (procs - 1).min(1 + procs / 6);
        let faults = rng.below(max_faults + 1) as u32;
        let counts = compare(kind, order, procs as u32, l, o, side, faults, 40, case);
        for (total, count) in stats.iter_mut().zip(counts) {
            *total += count;
        }
        sets += 40;
        case += 1;
    }
    // Both engines take a good share: the draws include configurations the two-phase check
    // accepts and ones it refuses.
    let [_, _, whole_ring, two_phase] = stats;
    assert!(two_phase > 2_000 && whole_ring > 2_000, "{stats:?}");
}

/// Twelve larger rings, the four trees of CT Table 1 in turn, `runs` failure sets each;
/// `draw(rng, case)` gives `(P, failed ranks, L, o)`. Returns the summed engine counts.
fn compare_larger_rings(
    seed: u64,
    runs: u64,
    draw: impl Fn(&mut SplitMix64, u64) -> (u32, u32, u64, u64),
) -> [u64; 4] {
    let mut rng = SplitMix64::new(seed);
    let mut stats = [0; 4];
    for case in 0..12u64 {
        let kind = [
            TreeKind::Lame(2),
            TreeKind::Binomial,
            TreeKind::KAry(4),
            TreeKind::Optimal,
        ][case as usize % 4];
        let side = if case % 3 == 0 {
            Side::Right
        } else {
            Side::Left
        };
        let (procs, faults, l, o) = draw(&mut rng, case);
        let counts = compare(
            kind,
            Order::Interleaved,
            procs,
            l,
            o,
            side,
            faults,
            runs,
            seed ^ case,
        );
        for (total, count) in stats.iter_mut().zip(counts) {
            *total += count;
        }
    }
    stats
}

/// Larger rings with sparse failures: many separate windows, most of them from the memo
/// (`L = 1, o = 1` and `L = 2, o = 2` are configurations the two-phase engine refuses).
#[test]
fn fast_path_equals_full_simulation_with_many_windows() {
    let [simulated, memoized, _, phased] = compare_larger_rings(0xa11ce, 25, |rng, case| {
        let procs = 2000 + rng.below(3000);
        let (l, o) = [(1, 1), (2, 2)][case as usize % 2];
        (procs as u32, 1 + rng.below(procs / 40) as u32, l, o)
    });
    assert_eq!(phased, 0);
    assert!(
        simulated > 0 && memoized > simulated,
        "{simulated} {memoized}"
    );
}

#[test]
fn fast_path_fault_free_matches_lemma_2() {
    for (l, o) in [(2, 1), (1, 1), (4, 2), (3, 2), (0, 1)] {
        let logp = LogP::new(l, o).unwrap();
        let tree = Tree::new(TreeKind::Lame(2), Order::Interleaved, 4096, logp).unwrap();
        let engine = SyncChecked::new(&tree, Side::Left);
        let m = engine.run(&mut Workspace::new(), &[]).unwrap();
        let steps = l.div_ceil(o);
        assert_eq!(m.messages_correction, 4096 * (3 + steps), "L={l} o={o}");
        assert_eq!(
            m.correction_latency,
            (2 + steps) * o + 2 * o + l,
            "L={l} o={o}"
        );
    }
}

/// Dense failures (2–5 % of the ranks, CT Table 1's upper rows) on larger rings. Where the
/// two-phase split holds (`L = 2, o = 1` as in CT §4.2, and `L = 3, o = 2`) it takes every run;
/// elsewhere the gaps are too close for windows and the whole ring goes through the
/// bulk/decider engine.
#[test]
fn fast_path_equals_full_simulation_with_dense_failures() {
    let [_, _, whole_ring, phased] = compare_larger_rings(0xde05e, 8, |rng, case| {
        let procs = 3000 + rng.below(5000);
        let faults = (procs * (2 + rng.below(4)) / 100) as u32;
        let (l, o) = [(2, 1), (1, 1), (3, 2), (2, 2)][case as usize % 4];
        (procs as u32, faults, l, o)
    });
    assert_eq!(phased, 48, "two-phase runs of 96");
    // Most of the other 48 runs: windows would cover the ring.
    assert!(whole_ring > 24, "{whole_ring} whole-ring runs of 48");
}

/// The two-phase engine against the segment engine (itself checked against the driver above)
/// at CT Table 1's scale, where the driver is too slow for many runs: P = 65,536, the four
/// trees, 1 %, 2 % and 4 % failed, `L = 2, o = 1`.
#[test]
fn two_phase_engine_equals_segment_engine_at_table_1_scale() {
    let procs = 65_536u32;
    let logp = LogP::new(2, 1).unwrap();
    for kind in [
        TreeKind::Binomial,
        TreeKind::Lame(2),
        TreeKind::KAry(4),
        TreeKind::Optimal,
    ] {
        let tree = Tree::new(kind, Order::Interleaved, procs, logp).unwrap();
        let phased = SyncChecked::new(&tree, Side::Left);
        assert!(phased.is_two_phase(), "{kind}");
        let segment = phased.clone().segment_only();
        assert!(!segment.is_two_phase());
        let (mut ws_phased, mut ws_segment) = (Workspace::new(), Workspace::new());
        for fraction in [0.01, 0.02, 0.04] {
            let count = FaultSpec::Count((fraction * f64::from(procs)).round() as u32);
            for run in 0..3 {
                let failed = draw_faults(&count, procs, &mut SplitMix64::stream(7, run)).unwrap();
                let fast = phased.run(&mut ws_phased, &failed).unwrap();
                let reference = segment.run(&mut ws_segment, &failed).unwrap();
                assert_eq!(fast, reference, "{kind} F={fraction} run {run}");
            }
        }
        assert_eq!(ws_phased.stats[3], 9);
        assert_eq!(ws_segment.stats[3], 0);
    }
}
