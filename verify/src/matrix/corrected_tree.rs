//! The Corrected Tree family's part of the matrix: its grid rows (correction variant × tree ×
//! order × start mode), its asynchronous rows, the [`Family`] that checks them, and the grid's
//! search column and the asynchronous section's random runs.

use std::path::Path;

use ftcoll::protocols::corrected_tree::{CorrectionSpec, StartMode};
use ftcoll::topology::{LogP, Order, TreeKind};

use super::{write_trace, Family, ASYNC_MATRIX_BUDGET, MATRIX_BUDGET};
use crate::property::{self, Column};
use crate::search::SearchOptions;
use crate::{check_within, CheckResult, CorrectedTreeSpec, CrashTiming, ModelKind};

/// The short name of a broadcast property or a ring-correction rule (the statement itself for
/// any other).
pub(super) fn short(p: &'static str) -> &'static str {
    property::COLUMNS
        .iter()
        .chain(&property::RULE_COLUMNS)
        .find(|c| c.property == p)
        .map_or(p, |c| c.short)
}

/// The Corrected Tree family ([`crate::corrected_tree`]) in the matrix: the four broadcast
/// properties ([`property::COLUMNS`]) in every cell, rows of [`Row`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CorrectedTree;

impl Family for CorrectedTree {
    type Row = Row;
    const COLUMNS: &'static [Column] = &property::COLUMNS;

    fn label(row: &Row) -> String {
        row_label(row)
    }

    fn slug(row: &Row, timing: CrashTiming, crashes: u32) -> String {
        slug(row, timing, crashes)
    }

    fn title(row: &Row, timing: CrashTiming, crashes: u32) -> String {
        format!(
            "{} {} {} {} f={crashes} {timing}",
            row.correction, row.tree, row.order, row.start
        )
    }

    /// `f` is capped at `P − 1`.
    fn check(
        row: &Row,
        procs: u32,
        crashes: u32,
        timing: CrashTiming,
        model: ModelKind,
    ) -> CheckResult {
        let budget = match model {
            ModelKind::Timed => &MATRIX_BUDGET,
            ModelKind::Async => &ASYNC_MATRIX_BUDGET,
        };
        let f = crashes.min(procs - 1);
        check_within(&spec(row, procs), f, timing, model, budget, None).expect("valid spec")
    }
}

/// A matrix row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Row {
    /// Correction variant.
    pub correction: CorrectionSpec,
    /// Tree kind.
    pub tree: TreeKind,
    /// Order.
    pub order: Order,
    /// Start mode.
    pub start: StartMode,
}

/// The rows of the matrix.
pub fn rows() -> Vec<Row> {
    let corrections = [
        CorrectionSpec::None,
        CorrectionSpec::Ack,
        CorrectionSpec::Opportunistic { distance: 1 },
        CorrectionSpec::Opportunistic { distance: 2 },
        CorrectionSpec::Optimized { distance: 2 },
        CorrectionSpec::Checked,
        CorrectionSpec::Delayed { delay: 4 },
        CorrectionSpec::FailProof {
            faults: 1,
            sos_timeout: Option::None,
            sos_on_full_loop: true,
        },
    ];
    let trees = [
        TreeKind::KAry(2),
        TreeKind::Binomial,
        TreeKind::Lame(2),
        TreeKind::Optimal,
    ];
    let mut rows = Vec::new();
    for correction in corrections {
        for tree in trees {
            for order in [Order::Interleaved, Order::InOrder] {
                for start in [StartMode::Synchronized, StartMode::Overlapped] {
                    rows.push(Row {
                        correction,
                        tree,
                        order,
                        start,
                    });
                }
            }
        }
    }
    rows
}

fn spec(row: &Row, procs: u32) -> CorrectedTreeSpec {
    CorrectedTreeSpec {
        tree: row.tree,
        order: row.order,
        correction: row.correction,
        start: row.start,
        procs,
        logp: LogP::default(),
    }
}

/// The rows of the asynchronous-model section: the variants whose correctness arguments need no
/// timing (CT §4.2: optimized opportunistic "does not depend on precise timing"; CG Claim 3's
/// proof for checked correction uses no timing), with overlapped start, on the Lamé(2) tree.
/// Delayed correction (its delay must be "short enough", CT §3.3) and failure-proof correction
/// (its SOS timeout) depend on timing by design, and their asynchronous state spaces exceed
/// 5·10^6 states already at P = 4.
pub fn async_rows() -> Vec<Row> {
    [
        CorrectionSpec::Opportunistic { distance: 2 },
        CorrectionSpec::Optimized { distance: 2 },
        CorrectionSpec::Checked,
    ]
    .into_iter()
    .map(|correction| Row {
        correction,
        tree: TreeKind::Lame(2),
        order: Order::Interleaved,
        start: StartMode::Overlapped,
    })
    .collect()
}

fn slug(row: &Row, timing: CrashTiming, crashes: u32) -> String {
    format!(
        "{}-{}-{}-{}-{}-f{}",
        row.correction, row.tree, row.order, row.start, timing, crashes
    )
    .replace(':', "")
}

/// The first columns of a table row, which identify it: `| correction | tree | order | start |`.
pub fn row_label(row: &Row) -> String {
    format!(
        "| {} | {} | {} | {} |",
        row.correction, row.tree, row.order, row.start
    )
}

/// The grid's last column: a guided random search of each row beyond the
/// exhaustive bound — [`GRID_SEARCH_PROCS`] processes, the walks of [`GRID_SEARCH`] — over every
/// property the family declares (the four above and the rules), counterexamples minimized.
pub const GRID_SEARCH: SearchOptions = SearchOptions {
    walks: 1000,
    seed: 1,
    pre: 5,
    during: 2,
    guided: true,
    threads: 1,
};

/// `P` of the grid's search column: the smallest ring the known crash-during-correction failure
/// of checked correction fits in (CG §III.C; `sim/tests/drivers/sim_correction.rs`).
pub const GRID_SEARCH_PROCS: u32 = 34;

/// The grid's search of one row ([`GRID_SEARCH`]).
pub fn search_row(row: Row) -> crate::search::SearchResult {
    let options = GRID_SEARCH;
    crate::TimedModel::corrected_tree(
        &spec(&row, GRID_SEARCH_PROCS),
        options.pre + options.during,
        CrashTiming::Any,
    )
    .expect("valid spec")
    .search(&options)
}

/// The asynchronous section's last column: random runs at a size its exhaustive search cannot
/// reach (P = 6 and up to two crashes at any moment take more than 10^9 states;
/// docs/verification.md, "Asynchronous model"), drawn by [`crate::dpor::walks`].
pub const ASYNC_WALK_PROCS: u32 = 6;

/// Crashes of the asynchronous section's random runs (at any moment).
pub const ASYNC_WALK_CRASHES: u32 = 2;

/// Random runs per asynchronous row (seed 1).
pub const ASYNC_WALKS: u64 = 100_000;

/// The random runs of one asynchronous row.
pub fn async_walk_row(row: Row) -> crate::dpor::Walked {
    let model =
        crate::AsyncModel::corrected_tree(&spec(&row, ASYNC_WALK_PROCS), ASYNC_WALK_CRASHES)
            .expect("valid spec");
    crate::dpor::walks(&model, ASYNC_WALKS, 1, 1).expect("few crash sets at P = 6")
}

/// The text of an asynchronous row's random-run cell: "not violated in N walks", or each
/// violated property with the first walk that violated it and a link to its run.
pub(super) fn async_walk_text(
    row: &Row,
    result: &crate::dpor::Walked,
    traces_dir: &Path,
) -> Result<String, String> {
    let violated: Vec<(&Column, &(u64, Vec<String>))> = property::COLUMNS
        .iter()
        .filter_map(|c| result.found.get(c.property).map(|f| (c, f)))
        .collect();
    if violated.is_empty() {
        return Ok(format!("not violated in {} walks", result.walks));
    }
    let mut cell = Vec::new();
    let mut body = Vec::new();
    for (c, (walk, trace)) in violated {
        cell.push(format!("{} ✗ walk {walk}", c.short));
        body.push(format!(
            "== {} (short: {}), found in walk {walk} of {}",
            c.property, c.short, result.walks
        ));
        body.extend(trace.iter().cloned());
    }
    let name = format!(
        "async-walks-{}-{}-{}-{}.txt",
        row.correction, row.tree, row.order, row.start
    )
    .replace(':', "");
    let title = format!(
        "{} {} {} {} P={ASYNC_WALK_PROCS} asynchronous model, {} random runs (seed 1, at most {ASYNC_WALK_CRASHES} crashes at any moment)",
        row.correction, row.tree, row.order, row.start, result.walks
    );
    write_trace(&traces_dir.join(&name), &title, &body)?;
    Ok(format!("{} [trace](traces/{name})", cell.join(", ")))
}

/// The text of a row's search cell: "not violated in N walks", or each violated property with
/// the walk that first found it and a link to the minimized counterexamples (written here).
pub(super) fn search_text(
    row: &Row,
    result: &crate::search::SearchResult,
    traces_dir: &Path,
) -> Result<String, String> {
    if result.found.is_empty() {
        return Ok(format!("not violated in {} walks", result.walks));
    }
    let mut violated = Vec::new();
    let mut body = Vec::new();
    for found in &result.found {
        violated.push(format!("{} ✗ walk {}", short(found.property), found.walk));
        body.push(format!(
            "== {} (short: {}), found in walk {} of {}, minimized to crashes {:?} before and {:?} (rank, instant) during the operation",
            found.property,
            short(found.property),
            found.walk,
            result.walks,
            found.pre,
            found.during
        ));
        body.extend(found.trace.iter().cloned());
    }
    let name = format!(
        "search-{}-{}-{}-{}.txt",
        row.correction, row.tree, row.order, row.start
    )
    .replace(':', "");
    let o = GRID_SEARCH;
    let title = format!(
        "{} {} {} {} P={GRID_SEARCH_PROCS} search of {} walks (seed {}, {} crashes before and {} during the operation, guided to gap ends)",
        row.correction, row.tree, row.order, row.start, o.walks, o.seed, o.pre, o.during
    );
    write_trace(&traces_dir.join(&name), &title, &body)?;
    Ok(format!("{} [trace](traces/{name})", violated.join(", ")))
}
