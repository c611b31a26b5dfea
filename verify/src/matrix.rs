//! The verification matrix (DESIGN §6), generated into `docs/verification.md` with every
//! counterexample under `docs/traces/` — never typed by hand:
//!
//! ```text
//! cargo run -p ftcoll-verify --release -- matrix --max-procs 8 --max-crashes 2
//! ```
//!
//! Rows: correction variant × tree kind × order × start mode. Columns: crash timing {before the
//! operation, any instant} × `f`. A cell is checked for every `P` from 2 to `--max-procs`
//! (smallest first); it reads "holds ≤ P" with the states explored at the largest `P` and the
//! total time, or names each violated property with the smallest `P` violating it and links its
//! shortest (BFS) counterexample. A "claims" section decides the papers' claims one by one.
//!
//! The document is fixed text ([`head`], [`grid_head`], [`async_head`], [`footer`]) around three
//! [`Part`]s — the claims, the grid rows, the asynchronous rows — and [`render`] regenerates any
//! part, or any subset of its rows, alone: `verify/tests/families/matrix.rs` compares the committed file
//! part by part, in parallel.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::property::Column;
use crate::{property, Budget, CheckResult, CrashTiming, ModelKind};

mod claims;
mod corrected_tree;
mod ftco;

pub use claims::{claims, decide, decide_scenario, decide_search, Claim, ClaimCheck};
pub use corrected_tree::{
    async_rows, async_walk_row, row_label, rows, search_row, CorrectedTree, Row, ASYNC_WALKS,
    ASYNC_WALK_CRASHES, ASYNC_WALK_PROCS, GRID_SEARCH, GRID_SEARCH_PROCS,
};
use corrected_tree::{async_walk_text, search_text};
pub use ftco::{
    decide_ftco, ftco_claims, ftco_head, ftco_row_label, ftco_rows, ftco_table_head, Ftco,
    FtcoClaim, FtcoRow,
};

/// `matrix` arguments.
#[derive(clap::Args, Debug, Clone)]
pub struct MatrixArgs {
    /// Largest P checked in the grid (every P from 2 up is checked).
    #[arg(long, default_value = "8", value_parser = clap::value_parser!(u32).range(2..=12))]
    pub max_procs: u32,
    /// Largest f in the grid.
    #[arg(long, default_value = "2", value_parser = clap::value_parser!(u32).range(0..=4))]
    pub max_crashes: u32,
    /// Output file (traces go to a `traces/` directory beside it).
    #[arg(long, default_value = "docs/verification.md")]
    pub out: PathBuf,
    /// Largest P of the asynchronous-model section.
    #[arg(long, default_value = "4", value_parser = clap::value_parser!(u32).range(2..=6))]
    pub max_async_procs: u32,
    /// Largest P of the FTCO section (every P from 2 up is checked).
    #[arg(long, default_value = "7", value_parser = clap::value_parser!(u32).range(2..=9))]
    pub max_ftco_procs: u32,
    /// Worker threads.
    #[arg(long, default_value = "2", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub threads: u32,
}

/// A protocol family as the matrix's grid drives it: the properties every cell decides, as
/// data ([`Column`]s: statement and short name, in column order), how a row is named, and how
/// one size of a row is checked. The grid's cells, their text and their trace files are the
/// same code for every family ([`check_cell`], [`render`]).
pub trait Family {
    /// A row of the family's grid: one protocol configuration, everything but `P` and the
    /// faults.
    type Row: Copy + Send + Sync + core::fmt::Debug + PartialEq;
    /// The properties every cell decides, in column order.
    const COLUMNS: &'static [Column];
    /// The first columns of a table row, which identify it, e.g. `| none | kary:2 | … |`.
    fn label(row: &Self::Row) -> String;
    /// The file name (without `.txt`) of the trace of a cell of `row`.
    fn slug(row: &Self::Row, timing: CrashTiming, crashes: u32) -> String;
    /// The title of that trace.
    fn title(row: &Self::Row, timing: CrashTiming, crashes: u32) -> String;
    /// The smallest `P` a cell of `row` checks (2 unless the row needs more processes).
    fn min_procs(_row: &Self::Row) -> u32 {
        2
    }
    /// Checks `row` at `P = procs` with at most `crashes` crashes (capped at what the row
    /// allows) under `timing`, in `model`, within [`MATRIX_BUDGET`] (the timed model) or
    /// [`ASYNC_MATRIX_BUDGET`].
    fn check(
        row: &Self::Row,
        procs: u32,
        crashes: u32,
        timing: CrashTiming,
        model: ModelKind,
    ) -> CheckResult;
}

/// One verdict of one cell of family `F`.
pub struct Cell<F: Family> {
    /// The protocol (at P = 2; the grid varies P).
    pub row: F::Row,
    /// Crash timing.
    pub timing: CrashTiming,
    /// `f`.
    pub crashes: u32,
    /// For each property of [`Family::COLUMNS`]: `None` if it held for every P checked, else
    /// the smallest violating P and its trace.
    pub verdicts: Vec<Option<(u32, Vec<String>)>>,
    /// Largest P checked.
    pub max_procs: u32,
    /// States explored at the largest P checked.
    pub states: usize,
    /// Total seconds.
    pub seconds: f64,
    /// Short names of the liveness properties that runs cut at the horizon left undecided,
    /// with the smallest P where that happened (never expected: the horizons derive from the
    /// protocols' timers).
    pub undecided: Vec<(&'static str, u32)>,
}

impl<F: Family> Clone for Cell<F> {
    fn clone(&self) -> Self {
        Self {
            row: self.row,
            timing: self.timing,
            crashes: self.crashes,
            verdicts: self.verdicts.clone(),
            max_procs: self.max_procs,
            states: self.states,
            seconds: self.seconds,
            undecided: self.undecided.clone(),
        }
    }
}

impl<F: Family> core::fmt::Debug for Cell<F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Cell")
            .field("row", &self.row)
            .field("timing", &self.timing)
            .field("crashes", &self.crashes)
            .field("verdicts", &self.verdicts)
            .field("max_procs", &self.max_procs)
            .field("states", &self.states)
            .field("seconds", &self.seconds)
            .field("undecided", &self.undecided)
            .finish()
    }
}

/// The matrix's budget: no limit, and crashes offered only where they can change a run
/// ([`Budget::crashes_at_events_only`]: before an instant at which the process has an event,
/// and before the first; docs/reference/checker.md, "Crashes where they matter", argues that no
/// verdict changes and `verify/tests/engines/crash_instants.rs` compares the verdicts). The
/// timed cells take the default engine, the depth-first search, which holds no states;
/// `pack_from` matters only to the layered search, whose cells this small run faster on whole
/// states.
pub const MATRIX_BUDGET: Budget = Budget {
    crashes_at_events_only: true,
    pack_from: usize::MAX,
    ..Budget::UNLIMITED
};

/// The budget of the asynchronous cells: every crash at any moment, searched by fingerprints
/// (the breadth-first search's unique states and verdicts, in less time; their cells all hold,
/// so no counterexample's path depends on the engine).
pub const ASYNC_MATRIX_BUDGET: Budget = Budget {
    search: crate::budget::Search::Fingerprints,
    ..Budget::UNLIMITED
};

/// Checks one cell of family `F` in `model` for every `P` from the row's smallest to
/// `max_procs`, smallest first.
pub fn check_cell<F: Family>(
    row: F::Row,
    timing: CrashTiming,
    crashes: u32,
    max_procs: u32,
    model: ModelKind,
) -> Cell<F> {
    let Scan {
        verdicts,
        states,
        seconds,
        undecided,
    } = scan(F::min_procs(&row)..=max_procs, F::COLUMNS, |procs| {
        F::check(&row, procs, crashes, timing, model)
    });
    Cell {
        row,
        timing,
        crashes,
        verdicts,
        max_procs,
        states,
        seconds,
        undecided,
    }
}

/// The cells of `rows` for every crash timing and `f` in `crashes` (row by row), checked on
/// `threads` threads.
fn cells<F: Family>(
    rows: &[F::Row],
    timings: &[CrashTiming],
    crashes: core::ops::RangeInclusive<u32>,
    max_procs: u32,
    model: ModelKind,
    threads: u32,
) -> Vec<Cell<F>> {
    let mut jobs = Vec::new();
    for &row in rows {
        for &timing in timings {
            for f in crashes.clone() {
                jobs.push((row, timing, f));
            }
        }
    }
    parallel(jobs, threads, |(row, timing, f)| {
        check_cell::<F>(row, timing, f, max_procs, model)
    })
}

/// What a cell's checks over a range of `P` found.
struct Scan {
    verdicts: Vec<Option<(u32, Vec<String>)>>,
    states: usize,
    seconds: f64,
    undecided: Vec<(&'static str, u32)>,
}

/// Checks every `P` of `procs` (smallest first) with `check`; for each property of `columns`,
/// the smallest violating `P` and its trace; the states at the largest `P`; the total time.
fn scan(
    procs: core::ops::RangeInclusive<u32>,
    columns: &[Column],
    mut check: impl FnMut(u32) -> CheckResult,
) -> Scan {
    let mut verdicts: Vec<Option<(u32, Vec<String>)>> = vec![None; columns.len()];
    let (mut states, mut seconds) = (0, 0.0);
    let mut undecided: Vec<(&'static str, u32)> = Vec::new();
    for procs in procs {
        let result = check(procs);
        states = result.states;
        seconds += result.seconds;
        note_undecided(&mut undecided, &result, procs, columns);
        for (i, column) in columns.iter().enumerate() {
            if verdicts[i].is_none() {
                if let Some(v) = result
                    .violations
                    .iter()
                    .find(|v| v.property == column.property)
                {
                    verdicts[i] = Some((procs, v.trace.clone()));
                }
            }
        }
    }
    Scan {
        verdicts,
        states,
        seconds,
        undecided,
    }
}

/// Records the liveness properties `result` left undecided at the horizon (first P only).
fn note_undecided(
    undecided: &mut Vec<(&'static str, u32)>,
    result: &CheckResult,
    procs: u32,
    columns: &[Column],
) {
    for name in &result.cut_by_horizon {
        if let Some(c) = columns.iter().find(|c| c.property == *name) {
            if !undecided.iter().any(|(s, _)| *s == c.short) {
                undecided.push((c.short, procs));
            }
        }
    }
}

/// "liveness undecided (horizon) P=p" for each entry.
fn undecided_text(undecided: &[(&'static str, u32)]) -> Vec<String> {
    undecided
        .iter()
        .map(|(name, p)| format!("{name} undecided (runs cut at the horizon) P={p}"))
        .collect()
}

/// Runs `jobs` on `threads` threads, keeping the input order.
fn parallel<T: Send, R: Send>(jobs: Vec<T>, threads: u32, work: impl Fn(T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let jobs: Vec<Mutex<Option<T>>> = jobs.into_iter().map(|j| Mutex::new(Some(j))).collect();
    let results: Vec<Mutex<Option<R>>> = (0..jobs.len()).map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(slot) = jobs.get(i) else { break };
                let job = slot
                    .lock()
                    .expect("job lock")
                    .take()
                    .expect("each job once");
                let result = work(job);
                *results[i].lock().expect("result lock") = Some(result);
            });
        }
    });
    results
        .into_iter()
        .map(|r| r.into_inner().expect("lock").expect("every job ran"))
        .collect()
}

/// A part of the matrix document that can be regenerated alone: `run` regenerates every part
/// and puts them between the fixed text of [`head`], [`grid_head`], [`async_head`] and
/// [`footer`]; `verify/tests/families/matrix.rs` regenerates one part per test.
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    /// The claims section (after [`head`]): every check of [`claims`], in order.
    Claims,
    /// Grid table rows, one line per row, in the order given (the document has [`rows`]).
    Grid(Vec<Row>),
    /// Asynchronous-model table rows (the document has [`async_rows`]).
    Async(Vec<Row>),
    /// The FTCO section's claims (after [`ftco_head`]): every check of [`ftco_claims`].
    FtcoClaims,
    /// FTCO table rows (the document has [`ftco_rows`], after [`ftco_table_head`]).
    Ftco(Vec<FtcoRow>),
}

/// The text of one regenerated [`Part`] and what it adds to the [`footer`].
#[derive(Clone, Debug, PartialEq)]
pub struct Rendered {
    /// The part's lines, each ending with a newline.
    pub text: String,
    /// Grid or asynchronous cells (0 for the claims).
    pub cells: usize,
    /// Unique states at the largest P, summed over the cells (0 for the claims).
    pub states: usize,
}

/// The document up to the claims: title, preamble, the claims heading.
pub fn head(args: &MatrixArgs) -> String {
    let mut doc = String::new();
    let _ = writeln!(doc, "# Verification matrix\n");
    let _ = writeln!(
        doc,
        "Generated by `cargo run -p ftcoll-verify --release -- matrix --max-procs {} --max-crashes {}` \
         (do not edit: `verify/tests/families/matrix.rs` regenerates this file and its traces and compares them). Timed model \
         (the LogP driver's exact semantics, `L = 2, o = 1`), exhaustive search (`verify/src/depth.rs`: depth first over the crash schedules, each state once) \
         for every `P` from 2 to \
         {}; `f` crash-stop crashes of non-root processes (capped at `P − 1`), either *pre* (before \
         the operation) or *any* (before any instant of it; the search offers a process's crash \
         only before the first instant and before the instants at which it has an event, which \
         changes no verdict: docs/reference/checker.md, \"Crashes where they matter\", and \
         `verify/tests/engines/crash_instants.rs`; the FTCO cells and claims likewise). Properties: {}. \
         A cell lists the violated properties with the smallest violating `P` and a link to a \
         minimized counterexample (fewest crashes, then earliest instants), or says that all hold, with the unique states at the largest `P` and \
         the total time. The horizon of a run contains every timer the protocol sets (delays, SOS, \
         timeouts); a run still busy there violates termination and leaves liveness *undecided* (the cell \
         says so), never holding. A pre-operation counterexample names the smallest crash set (fewest \
         ranks, then the lexicographically first).\n",
        args.max_procs,
        args.max_crashes,
        args.max_procs,
        property::ALL.iter().map(|p| format!("*{p}*")).collect::<Vec<_>>().join("; ")
    );
    let _ = writeln!(
        doc,
        "The Corrected Tree family's protocol rules and quantitative claims, each citing its source \
         and each shown able to fail by a mutant (`verify/tests/families/mutants.rs`), are decided in the claims \
         section on the configurations they are about (including where a claim does not hold as \
         printed), by `check` and `search`, and by the fast suite's pinned cells \
         (`verify/tests/engines/pinned_cells.rs`); the grid's exhaustive columns show the four properties above, \
         and its last column searches each row at P = {GRID_SEARCH_PROCS} ({} guided walks, {} crashes before and {} during \
         the operation, seed {}) for a violation of any of them or of a rule. A rule \
         applies only to the variant and conditions its text names: {}. Checks marked *search* are guided \
         random walks of the same timed model at sizes exhaustive search cannot reach \
         (`ftcoll-verify search`, `verify/src/search.rs`): crashes go to the ends of gaps, a \
         violation found is minimized (fewest crashes, then earliest instants, then smallest ranks) \
         and replayed, and finding none is only \"not violated in N walks\".\n",
        GRID_SEARCH.walks,
        GRID_SEARCH.pre,
        GRID_SEARCH.during,
        GRID_SEARCH.seed,
        property::RULES.iter().map(|p| format!("*{p}*")).collect::<Vec<_>>().join("; ")
    );
    let _ = writeln!(doc, "## Claims\n");
    doc
}

/// Between the claims and the grid rows: the grid heading and the table header.
pub fn grid_head(args: &MatrixArgs) -> String {
    let mut doc = String::new();
    let _ = writeln!(doc, "\n## Grid\n");
    let mut header = String::from("| correction | tree | order | start |");
    let mut rule = String::from("|---|---|---|---|");
    for timing in [CrashTiming::Pre, CrashTiming::Any] {
        for f in 1..=args.max_crashes {
            let _ = write!(header, " {timing}, f = {f} |");
            rule.push_str("---|");
        }
    }
    let _ = write!(header, " search, P = {GRID_SEARCH_PROCS} |");
    rule.push_str("---|");
    let _ = writeln!(doc, "{header}\n{rule}");
    doc
}

/// Between the grid rows and the asynchronous rows: that section's heading, text and header.
pub fn async_head(args: &MatrixArgs) -> String {
    let mut doc = String::new();
    let _ = writeln!(
        doc,
        "\n## Asynchronous model\n\nAny delivery order, timers firing at any moment, crashes at any moment \
         (`AsyncModel`), every P from 2 to {}, for the variants whose correctness arguments need no \
         timing (overlapped start). Delayed and failure-proof correction depend on timing by design \
         (their delay and SOS timeout); their asynchronous state spaces exceed 5·10^6 states at P = 4.\n",
        args.max_async_procs
    );
    let _ = writeln!(
        doc,
        "The last column draws {ASYNC_WALKS} random runs of each row at P = {ASYNC_WALK_PROCS} with up to \
         {ASYNC_WALK_CRASHES} crashes at any moment (`ftcoll-verify search --model async`): every run \
         picks a crash set, then one enabled action after another uniformly, and is checked like an \
         exhaustive one. Finding nothing is only \"not violated in N walks\".\n"
    );
    let _ = writeln!(
        doc,
        "Why these cells stop at P = 4 (the target is P = 6 with two crashes). Any delivery \
         order makes the search of every state grow by more than an order of magnitude per \
         process: the search by fingerprints (`--search fingerprints`, this section's engine: \
         the breadth-first search's unique states, one 64-bit fingerprint held per state) \
         decides opportunistic:2 at P = 5 without crashes in minutes, not with one crash. The \
         reduction to transactions (`--search transactions`: each process's receptions moved \
         to its next send slot or crash, crashes only where the process would send; the same \
         verdicts, docs/reference/checker.md has the argument) decides every row at P = 5 \
         with one crash, all holding, but in minutes each: too long for this matrix, which the \
         test suite regenerates. The dynamic partial-order reduction (`--search dpor`) \
         explores one run per ordering of what each process sees, and those outnumber the \
         states already at P = 4. docs/performance.md has the measurements and commands.\n"
    );
    let _ = writeln!(
        doc,
        "| correction | tree | order | start | f = 0 | f = 1 | runs, P = {ASYNC_WALK_PROCS}, f = {ASYNC_WALK_CRASHES} |\n|---|---|---|---|---|---|---|"
    );
    doc
}

/// The end of the document: cells, their states at the largest P, the run time.
pub fn footer(cells: usize, states: usize, seconds: f64, threads: u32) -> String {
    format!(
        "\n{cells} cells, {states} unique states at the largest P in total, {seconds:.1} s on {threads} threads.\n"
    )
}

/// Regenerates one part on `args.threads` threads, writing its counterexample traces into
/// `traces_dir`.
pub fn render(args: &MatrixArgs, part: &Part, traces_dir: &Path) -> Result<Rendered, String> {
    match part {
        Part::Claims => claims::render_claims(args, traces_dir),
        Part::FtcoClaims => ftco::render_ftco_claims(args, traces_dir),
        Part::Ftco(rows) => {
            let cells = cells::<Ftco>(
                rows,
                &[CrashTiming::Pre, CrashTiming::Any],
                1..=args.max_crashes,
                args.max_ftco_procs,
                ModelKind::Timed,
                args.threads,
            );
            table(&cells, 2 * args.max_crashes.max(1) as usize, "", traces_dir)
        }
        Part::Grid(rows) => {
            let cells = cells::<CorrectedTree>(
                rows,
                &[CrashTiming::Pre, CrashTiming::Any],
                1..=args.max_crashes,
                args.max_procs,
                ModelKind::Timed,
                args.threads,
            );
            let searches = parallel(rows.clone(), args.threads, search_row);
            let mut rendered = table(&cells, 2 * args.max_crashes as usize, "", traces_dir)?;
            let mut text = String::new();
            for (line, (row, result)) in rendered.text.lines().zip(rows.iter().zip(&searches)) {
                let cell = search_text(row, result, traces_dir)?;
                let _ = writeln!(text, "{line} {cell} |");
            }
            rendered.text = text;
            Ok(rendered)
        }
        Part::Async(rows) => {
            let cells = cells::<CorrectedTree>(
                rows,
                &[CrashTiming::Any],
                0..=1,
                args.max_async_procs,
                ModelKind::Async,
                args.threads,
            );
            let walks = parallel(rows.clone(), args.threads, async_walk_row);
            let mut rendered = table(&cells, 2, "async-", traces_dir)?;
            let mut text = String::new();
            for (line, (row, result)) in rendered.text.lines().zip(rows.iter().zip(&walks)) {
                let cell = async_walk_text(row, result, traces_dir)?;
                let _ = writeln!(text, "{line} {cell} |");
            }
            rendered.text = text;
            Ok(rendered)
        }
    }
}

/// The table rows of `cells`, `per_row` cells a row.
fn table<F: Family>(
    cells: &[Cell<F>],
    per_row: usize,
    prefix: &str,
    traces_dir: &Path,
) -> Result<Rendered, String> {
    let mut text = String::new();
    let mut states = 0;
    for chunk in cells.chunks(per_row.max(1)) {
        states += table_row(&mut text, chunk, prefix, traces_dir)?;
    }
    Ok(Rendered {
        text,
        cells: cells.len(),
        states,
    })
}

/// Regenerates the matrix file and its traces: every part, between the fixed text.
pub fn run(args: &MatrixArgs) -> Result<(), String> {
    let started = std::time::Instant::now();
    let traces_dir = args
        .out
        .parent()
        .unwrap_or_else(|| Path::new("."))
        .join("traces");
    std::fs::create_dir_all(&traces_dir)
        .map_err(|e| format!("--out: cannot create {}: {e}", traces_dir.display()))?;
    let grid = render(args, &Part::Grid(rows()), &traces_dir)?;
    let asynchronous = render(args, &Part::Async(async_rows()), &traces_dir)?;
    let claims = render(args, &Part::Claims, &traces_dir)?;
    let ftco = render(args, &Part::Ftco(ftco_rows()), &traces_dir)?;
    let ftco_claims = render(args, &Part::FtcoClaims, &traces_dir)?;
    // The Corrected Gossip section (`crate::gossip::section`): its cells are not in the footer's
    // totals, which count the grid, asynchronous and FTCO tables.
    let (gossip, _) = crate::gossip::section(&traces_dir)?;
    let doc = [
        head(args),
        claims.text,
        grid_head(args),
        grid.text,
        async_head(args),
        asynchronous.text,
        ftco_head(args),
        ftco_claims.text,
        ftco_table_head(args),
        ftco.text,
        gossip,
        footer(
            grid.cells + asynchronous.cells + ftco.cells,
            grid.states + asynchronous.states + ftco.states,
            started.elapsed().as_secs_f64(),
            args.threads,
        ),
    ]
    .concat();
    std::fs::write(&args.out, doc)
        .map_err(|e| format!("--out: cannot write {}: {e}", args.out.display()))?;
    println!(
        "wrote {} ({} cells) in {:.1} s",
        args.out.display(),
        grid.cells,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Appends one table row (the cells of one protocol row); returns the states it explored.
fn table_row<F: Family>(
    doc: &mut String,
    cells: &[Cell<F>],
    prefix: &str,
    traces_dir: &Path,
) -> Result<usize, String> {
    let Some(first) = cells.first() else {
        return Ok(0);
    };
    let mut line = F::label(&first.row);
    let mut states = 0;
    for cell in cells {
        states += cell.states;
        let text = cell_text(cell, prefix, traces_dir)?;
        let _ = write!(line, " {text} |");
    }
    let _ = writeln!(doc, "{line}");
    Ok(states)
}

/// The text of one grid cell, writing its trace file when something is violated.
fn cell_text<F: Family>(cell: &Cell<F>, prefix: &str, traces_dir: &Path) -> Result<String, String> {
    verdict_text(
        &Scan {
            verdicts: cell.verdicts.clone(),
            states: cell.states,
            seconds: cell.seconds,
            undecided: cell.undecided.clone(),
        },
        cell.max_procs,
        F::COLUMNS,
        &format!(
            "{prefix}{}.txt",
            F::slug(&cell.row, cell.timing, cell.crashes)
        ),
        &format!("{prefix}{}", F::title(&cell.row, cell.timing, cell.crashes)),
        traces_dir,
    )
}

/// The text of a cell of any family: "all hold ≤ P (N st, T s)", or the violated and undecided
/// properties with a link to the trace file `name` (written here, titled `title`).
fn verdict_text(
    scan: &Scan,
    max_procs: u32,
    columns: &[Column],
    name: &str,
    title: &str,
    traces_dir: &Path,
) -> Result<String, String> {
    let violated: Vec<String> = scan
        .verdicts
        .iter()
        .zip(columns)
        .filter_map(|(v, c)| v.as_ref().map(|(p, _)| format!("{} ✗ P={p}", c.short)))
        .collect();
    let undecided = undecided_text(&scan.undecided);
    if violated.is_empty() && !undecided.is_empty() {
        return Ok(format!("{} ({} st)", undecided.join(", "), scan.states));
    }
    let violated: Vec<String> = violated.into_iter().chain(undecided).collect();
    if violated.is_empty() {
        return Ok(format!(
            "all hold ≤ {max_procs} ({} st, {:.2} s)",
            scan.states, scan.seconds
        ));
    }
    let mut body = Vec::new();
    for (v, c) in scan.verdicts.iter().zip(columns) {
        if let Some((p, trace)) = v {
            body.push(format!(
                "== {} (short: {}), smallest P = {p}",
                c.property, c.short
            ));
            body.extend(trace.iter().cloned());
        }
    }
    write_trace(&traces_dir.join(name), title, &body)?;
    Ok(format!("{} [trace](traces/{name})", violated.join(", ")))
}

/// The matrix text without anything that varies between runs (times), for comparing a
/// regenerated matrix with the committed one.
pub fn normalize(doc: &str) -> String {
    doc.lines()
        .map(|l| {
            // "…, 221.9 s on 2 threads." → "…": only the run time goes.
            let l = match l.find(" s on ") {
                Some(i) => l[..i].rfind(", ").map_or(l, |j| &l[..j]),
                None => l,
            };
            let mut out = String::new();
            let mut rest = l;
            // "(N st, T s)" → "(N st)"
            while let Some(i) = rest.find(" st, ") {
                out.push_str(&rest[..i + 3]);
                let after = &rest[i + 5..];
                let end = after.find(" s)").map_or(0, |j| j + 2);
                rest = &after[end..];
            }
            out.push_str(rest);
            out
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn write_trace(path: &std::path::Path, title: &str, lines: &[String]) -> Result<(), String> {
    let mut text = format!("# {title}\n");
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}
