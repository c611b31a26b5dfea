//! One cell per correction variant and start mode, pinned: every P from 2 to
//! 6, one crash at any instant, on the interleaved Lamé(2) tree. A broken rule in any variant
//! changes what the checker explores — its state count — even when every property still
//! holds (the ring or SOS covering for it), so this fast test fails for it, not only the slow
//! matrix regeneration. The pins are regression values in stateright's paxos style: the
//! verdicts are the matrix's, the state counts the checker's at P = 6 with the matrix's budget
//! (crashes offered at event instants, `matrix::MATRIX_BUDGET`).

use ftcoll::protocols::corrected_tree::StartMode;
use ftcoll::topology::{Order, TreeKind};
use ftcoll_verify::matrix::{self, CorrectedTree, Row};
use ftcoll_verify::{CrashTiming, ModelKind};

/// `(correction, start, states at P = 6, violated properties)`.
const PINS: [(&str, &str, usize, &[&str]); 16] = [
    ("none", "sync", 105, &["liveness"]),
    ("none", "overlap", 105, &["liveness"]),
    ("ack", "sync", 247, &["liveness"]),
    ("ack", "overlap", 247, &["liveness"]),
    ("opportunistic:1", "sync", 323, &[]),
    ("opportunistic:1", "overlap", 318, &[]),
    ("opportunistic:2", "sync", 440, &[]),
    ("opportunistic:2", "overlap", 467, &[]),
    ("optimized:2", "sync", 440, &[]),
    ("optimized:2", "overlap", 453, &[]),
    ("checked", "sync", 506, &[]),
    ("checked", "overlap", 487, &[]),
    ("delayed:4", "sync", 443, &[]),
    ("delayed:4", "overlap", 603, &[]),
    ("failproof:1", "sync", 861, &[]),
    ("failproof:1", "overlap", 2140, &[]),
];

#[test]
fn one_cell_per_variant_and_start_mode_is_pinned() {
    let mut found = Vec::new();
    for (correction, start, _, _) in PINS {
        let row = Row {
            correction: correction.parse().expect("a correction"),
            tree: TreeKind::Lame(2),
            order: Order::Interleaved,
            start: match start {
                "sync" => StartMode::Synchronized,
                _ => StartMode::Overlapped,
            },
        };
        let cell =
            matrix::check_cell::<CorrectedTree>(row, CrashTiming::Any, 1, 6, ModelKind::Timed);
        let violated: Vec<&str> = cell
            .verdicts
            .iter()
            .zip(ftcoll_verify::property::COLUMNS)
            .filter(|(v, _)| v.is_some())
            .map(|(_, c)| c.short)
            .collect();
        found.push((correction, start, cell.states, violated));
    }
    let expected: Vec<(&str, &str, usize, Vec<&str>)> = PINS
        .iter()
        .map(|&(c, s, n, v)| (c, s, n, v.to_vec()))
        .collect();
    assert_eq!(found, expected, "a variant's exploration changed");
}

/// The stop rule (`Automaton::is_done`'s promise) holds for every correction variant and start
/// mode with one crash at any instant, at P = 6 — where `ClaimsDoneWhenColored` breaks it
/// (`verify/tests/families/mutants.rs`).
#[test]
fn every_variant_keeps_the_stop_rule() {
    use ftcoll_verify::{check, property, CorrectedTreeSpec, ModelKind};
    for (correction, start, _, _) in PINS {
        let spec = CorrectedTreeSpec {
            tree: TreeKind::Lame(2),
            order: Order::Interleaved,
            correction: correction.parse().expect("a correction"),
            start: match start {
                "sync" => StartMode::Synchronized,
                _ => StartMode::Overlapped,
            },
            procs: 6,
            logp: ftcoll::topology::LogP::default(),
        };
        let result = check(&spec, 1, CrashTiming::Any, ModelKind::Timed).unwrap();
        // Decided, not merely absent: the property is one of the model's columns.
        assert!(result.properties.contains(&property::STOPPED_SILENT));
        assert!(
            result.holds(property::STOPPED_SILENT),
            "{correction} {start}: {:?}",
            result.violations
        );
    }
}
