//! `docs/verification.md` is generated, never typed: these tests regenerate the whole
//! matrix (every cell, every P from 2 to 8, f <= 2, the claims and the asynchronous section) and
//! its traces, and compare them with the committed files, ignoring only run times — one part
//! per test, so the parts run in parallel and none takes long.
//!
//! Together they check what regenerating the whole file checks:
//! - `layout_footer_and_trace_links` checks that the committed file is exactly the fixed text of
//!   [`matrix::head`], [`matrix::grid_head`], [`matrix::async_head`] and [`matrix::footer`] with
//!   the claims, one grid line per row of [`matrix::rows`] and one asynchronous line per row of
//!   [`matrix::async_rows`] between them, in order; that [`parts`] covers each of those exactly
//!   once; that the footer's totals are the cells and the pinned states of the parts; and that
//!   `docs/traces/` holds exactly the files the committed file links to.
//! - every other test regenerates one part and checks that its lines are the committed ones,
//!   that the states it adds to the footer are the pinned ones, and that the traces it writes
//!   are exactly the ones its lines link to, byte for byte the committed files.
//!
//! The footer's total counts the states of violated cells, which the file does not show, so the
//! parts' states are pinned here; after regenerating the matrix, a changed part's test prints
//! its new number.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use ftcoll_verify::matrix::{self, normalize, FtcoRow, MatrixArgs, Part, Row};

/// The committed matrix's arguments (see its preamble); one thread per test, the tests run in
/// parallel.
fn args(out: PathBuf) -> MatrixArgs {
    MatrixArgs {
        max_procs: 8,
        max_crashes: 2,
        out,
        max_async_procs: 4,
        max_ftco_procs: 7,
        threads: 1,
    }
}

fn docs() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs")
}

fn committed() -> String {
    let path = docs().join("verification.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Grid rows whose correction is one of `corrections` and whose tree and order match (`None`:
/// any), as written in the table.
fn grid(corrections: &[&str], tree: Option<&str>, order: Option<&str>) -> Part {
    Part::Grid(
        matrix::rows()
            .into_iter()
            .filter(|r| {
                corrections.contains(&r.correction.to_string().as_str())
                    && tree.is_none_or(|t| r.tree.to_string() == t)
                    && order.is_none_or(|o| r.order.to_string() == o)
            })
            .collect(),
    )
}

/// Asynchronous rows whose correction is one of `corrections`.
fn asynchronous(corrections: &[&str]) -> Part {
    Part::Async(
        matrix::async_rows()
            .into_iter()
            .filter(|r| corrections.contains(&r.correction.to_string().as_str()))
            .collect(),
    )
}

/// FTCO rows whose collective is one of `collectives` (as written in the table) and whose
/// label matches `filter`.
fn ftco(collectives: &[&str], filter: impl Fn(&FtcoRow) -> bool) -> Part {
    Part::Ftco(
        matrix::ftco_rows()
            .into_iter()
            .filter(|r| {
                collectives.contains(&ftcoll_verify::ftco::collective_name(r.collective))
                    && filter(r)
            })
            .collect(),
    )
}

fn late(r: &FtcoRow) -> bool {
    r.entry == ftcoll_verify::ftco::Entry::LateAlg5
}

/// Declares the parts — each a test, with the unique states at the largest P its cells add to
/// the footer's total — and `parts()` listing them.
macro_rules! parts {
    ($($(#[$meta:meta])* $name:ident: $states:expr => $part:expr;)*) => {
        /// Every part: its test's name, its pinned states, the part.
        fn parts() -> Vec<(&'static str, usize, Part)> {
            vec![$((stringify!($name), $states, $part)),*]
        }
        $(
            #[test]
            $(#[$meta])*
            fn $name() {
                check_part(stringify!($name));
            }
        )*
    };
}

// Sized from single-thread times: failproof:1 is split by tree and order, the
// asynchronous optimized:2 cells (2.4 M states, the slowest part) stand alone. Since the timed
// cells offer crashes only at event instants (`matrix::MATRIX_BUDGET`), every part runs in the
// README's test command: the whole matrix took 47 s of it on 2 cores.
parts! {
    claims: 0 => Part::Claims;
    grid_none_ack: 122_112 => grid(&["none", "ack"], None, None);
    grid_opportunistic: 398_620 => grid(&["opportunistic:1", "opportunistic:2"], None, None);
    grid_optimized_checked: 579_609 => grid(&["optimized:2", "checked"], None, None);
    grid_delayed_kary_binomial: 256_004 => grid(&["delayed:4"], Some("kary:2"), None)
        .join(grid(&["delayed:4"], Some("binomial"), None));
    grid_delayed_lame_optimal: 205_382 => grid(&["delayed:4"], Some("lame:2"), None)
        .join(grid(&["delayed:4"], Some("optimal"), None));
    grid_failproof_kary_interleaved: 323_546
        => grid(&["failproof:1"], Some("kary:2"), Some("interleaved"));
    grid_failproof_kary_in_order: 203_794 => grid(&["failproof:1"], Some("kary:2"), Some("in-order"));
    grid_failproof_binomial_interleaved: 316_938
        => grid(&["failproof:1"], Some("binomial"), Some("interleaved"));
    grid_failproof_binomial_in_order: 297_945
        => grid(&["failproof:1"], Some("binomial"), Some("in-order"));
    grid_failproof_lame_interleaved: 290_022
        => grid(&["failproof:1"], Some("lame:2"), Some("interleaved"));
    grid_failproof_lame_in_order: 134_485 => grid(&["failproof:1"], Some("lame:2"), Some("in-order"));
    grid_failproof_optimal: 210_919 => grid(&["failproof:1"], Some("optimal"), None);
    async_opportunistic_checked: 1_928_764 => asynchronous(&["opportunistic:2", "checked"]);
    async_optimized: 2_419_582 => asynchronous(&["optimized:2"]);
    ftco_claims: 0 => Part::FtcoClaims;
    ftco_together: 276_534 => ftco(&["bcast", "reduce", "allreduce"], |r| !late(r));
    ftco_late_bcast_reduce: 91_501 => ftco(&["bcast", "reduce"], late);
    ftco_late_allreduce: 347_435 => ftco(&["allreduce"], late);
}

/// Concatenation of grid parts.
trait Join {
    fn join(self, other: Part) -> Part;
}

impl Join for Part {
    fn join(self, other: Part) -> Part {
        match (self, other) {
            (Part::Grid(mut a), Part::Grid(b)) => {
                a.extend(b);
                Part::Grid(a)
            }
            (a, b) => panic!("cannot join {a:?} and {b:?}"),
        }
    }
}

/// The committed file cut along its fixed text (which holds no run times, so it is compared
/// byte for byte): the claims, the grid lines, the asynchronous lines, the footer line.
struct Regions {
    claims: String,
    grid: Vec<String>,
    asynchronous: Vec<String>,
    ftco_claims: String,
    ftco: Vec<String>,
    gossip: String,
    footer: String,
}

fn regions(doc: &str, args: &MatrixArgs) -> Regions {
    let rest = doc
        .strip_prefix(&matrix::head(args))
        .expect("docs/verification.md does not start with the generated title and preamble");
    let split = |text: &str, at: &str, what: &str| -> (String, String) {
        assert_eq!(text.matches(at).count(), 1, "{what} not found exactly once");
        let (a, b) = text.split_once(at).expect("found");
        (a.to_string(), b.to_string())
    };
    let (claims, rest) = split(rest, &matrix::grid_head(args), "the grid heading");
    let (grid, rest) = split(&rest, &matrix::async_head(args), "the asynchronous heading");
    let (asynchronous, rest) = split(&rest, &matrix::ftco_head(args), "the FTCO heading");
    let (ftco_claims, rest) = split(&rest, &matrix::ftco_table_head(args), "the FTCO table");
    let (ftco_and_gossip, footer) = rest
        .rsplit_once("\n\n")
        .expect("a blank line before the footer");
    let (ftco, gossip) = split(
        ftco_and_gossip,
        GOSSIP_HEADING,
        "the Corrected Gossip heading",
    );
    assert!(
        footer.ends_with('\n') && footer.matches('\n').count() == 1,
        "the footer is one line at the end: {footer:?}"
    );
    Regions {
        claims,
        grid: grid.lines().map(String::from).collect(),
        asynchronous: asynchronous.lines().map(String::from).collect(),
        ftco_claims,
        ftco: ftco.lines().map(String::from).collect(),
        gossip: format!("{GOSSIP_HEADING}{gossip}"),
        footer: format!("\n{footer}"),
    }
}

/// Where the Corrected Gossip section (`ftcoll_verify::gossip::section`) begins.
const GOSSIP_HEADING: &str = "\n## Corrected Gossip\n";

/// The Corrected Gossip section regenerated (its cells are exhaustive and small: seconds) is
/// the committed one, with the same traces.
#[test]
fn gossip_section() {
    let dir = std::env::temp_dir().join(format!("ftcoll-matrix-{}-gossip", std::process::id()));
    let traces = dir.join("traces");
    std::fs::create_dir_all(&traces).unwrap();
    let (text, _) = ftcoll_verify::gossip::section(&traces).expect("section renders");
    let regions = regions(&committed(), &args(dir.join("verification.md")));
    assert_eq!(
        normalize(text.trim_end()),
        normalize(regions.gossip.trim_end()),
        "{STALE} (Corrected Gossip)"
    );
    assert_traces_committed(&traces, &text);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The trace files a regeneration wrote into `traces` are exactly the ones `text` links to,
/// each byte for byte the committed `docs/traces/` file.
fn assert_traces_committed(traces: &Path, text: &str) {
    let written = files(traces);
    assert_eq!(written, links(text), "traces written vs linked");
    for file in &written {
        let fresh = std::fs::read(traces.join(file)).unwrap();
        let old = std::fs::read(docs().join("traces").join(file))
            .unwrap_or_else(|e| panic!("docs/traces/{file}: {e}; {STALE}"));
        assert!(fresh == old, "docs/traces/{file} is stale; {STALE}");
    }
}

/// `traces/NAME` links in `text`.
fn links(text: &str) -> BTreeSet<String> {
    text.split("](traces/")
        .skip(1)
        .map(|s| s.split(')').next().unwrap_or_default().to_string())
        .collect()
}

fn files(dir: &Path) -> BTreeSet<String> {
    match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeSet::new(),
        Err(e) => panic!("{}: {e}", dir.display()),
    }
}

/// The line of `lines` labelled by `row`; exactly one.
fn line_of<'a>(lines: &'a [String], row: &Row) -> &'a str {
    let label = format!("{} ", matrix::row_label(row));
    let found: Vec<&String> = lines.iter().filter(|l| l.starts_with(&label)).collect();
    assert_eq!(found.len(), 1, "{label}: {} committed lines", found.len());
    found[0]
}

const STALE: &str =
    "docs/verification.md is stale; regenerate with `cargo run -p ftcoll-verify --release -- matrix`";

fn check_part(name: &str) {
    let (_, pinned, part) = parts()
        .into_iter()
        .find(|(n, _, _)| *n == name)
        .expect("declared part");
    let dir = std::env::temp_dir().join(format!("ftcoll-matrix-{}-{name}", std::process::id()));
    let traces = dir.join("traces");
    std::fs::create_dir_all(&traces).unwrap();
    let args = args(dir.join("verification.md"));
    let rendered = matrix::render(&args, &part, &traces).expect("part renders");
    let doc = committed();
    let regions = regions(&doc, &args);
    match &part {
        Part::Claims => {
            let (fresh, old) = (normalize(&rendered.text), normalize(&regions.claims));
            if fresh != old {
                let diff: Vec<String> = fresh
                    .lines()
                    .zip(old.lines())
                    .filter(|(a, b)| a != b)
                    .take(5)
                    .map(|(a, b)| format!("generated: {a}\ncommitted: {b}"))
                    .collect();
                panic!(
                    "{STALE} (claims, {} lines generated, {} committed):\n{}",
                    fresh.lines().count(),
                    old.lines().count(),
                    diff.join("\n")
                );
            }
        }
        Part::FtcoClaims => {
            let (fresh, old) = (normalize(&rendered.text), normalize(&regions.ftco_claims));
            assert_eq!(fresh, old, "{STALE} (FTCO claims)");
        }
        Part::Ftco(rows) => {
            let fresh: Vec<&str> = rendered.text.lines().collect();
            assert_eq!(fresh.len(), rows.len(), "one line per row");
            for (row, line) in rows.iter().zip(fresh) {
                let label = format!("{} ", matrix::ftco_row_label(row));
                let old: Vec<&String> = regions
                    .ftco
                    .iter()
                    .filter(|l| l.starts_with(&label))
                    .collect();
                assert_eq!(old.len(), 1, "{label}: {} committed lines", old.len());
                assert_eq!(
                    normalize(line),
                    normalize(old[0]),
                    "{STALE}:\ngenerated: {line}\ncommitted: {}",
                    old[0]
                );
            }
        }
        Part::Grid(rows) | Part::Async(rows) => {
            let committed_lines = match part {
                Part::Grid(_) => &regions.grid,
                _ => &regions.asynchronous,
            };
            let fresh: Vec<&str> = rendered.text.lines().collect();
            assert_eq!(fresh.len(), rows.len(), "one line per row");
            for (row, line) in rows.iter().zip(fresh) {
                let old = line_of(committed_lines, row);
                assert_eq!(
                    normalize(line),
                    normalize(old),
                    "{STALE}:\ngenerated: {line}\ncommitted: {old}"
                );
            }
        }
    }
    assert_eq!(
        rendered.states, pinned,
        "{name}: the cells of this part now explore {} states at the largest P (pinned: {pinned}); \
         if the matrix was regenerated on purpose, update the pin in verify/tests/families/matrix.rs",
        rendered.states
    );
    // The traces this part writes: exactly the ones its lines link to, as committed.
    assert_traces_committed(&traces, &rendered.text);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The committed file's fixed text, row order and footer, the parts' coverage, and the
/// committed traces against the links (no checker run: the parts' tests do that).
#[test]
fn layout_footer_and_trace_links() {
    let args = args(PathBuf::from("unused"));
    let doc = committed();
    let regions = regions(&doc, &args);
    let labels = |lines: &[String]| -> Vec<String> {
        lines
            .iter()
            .map(|l| l.splitn(6, " |").take(4).collect::<Vec<_>>().join(" |") + " |")
            .collect()
    };
    let expected = |rows: Vec<Row>| -> Vec<String> { rows.iter().map(matrix::row_label).collect() };
    assert_eq!(labels(&regions.grid), expected(matrix::rows()), "grid rows");
    assert_eq!(
        labels(&regions.asynchronous),
        expected(matrix::async_rows()),
        "asynchronous rows"
    );
    let ftco_labels: Vec<String> = regions
        .ftco
        .iter()
        .map(|l| l.splitn(8, " |").take(6).collect::<Vec<_>>().join(" |") + " |")
        .collect();
    let ftco_expected: Vec<String> = matrix::ftco_rows()
        .iter()
        .map(matrix::ftco_row_label)
        .collect();
    assert_eq!(ftco_labels, ftco_expected, "FTCO rows");

    // The parts cover the claims once and every row once.
    let parts = parts();
    let claims = parts.iter().filter(|p| p.2 == Part::Claims).count();
    assert_eq!(claims, 1, "the claims are one part");
    assert_eq!(
        parts.iter().filter(|p| p.2 == Part::FtcoClaims).count(),
        1,
        "the FTCO claims are one part"
    );
    let mut grid_rows = Vec::new();
    let mut async_rows = Vec::new();
    let mut ftco_rows = Vec::new();
    for (_, _, part) in &parts {
        match part {
            Part::Grid(rows) => grid_rows.extend(rows.iter().map(matrix::row_label)),
            Part::Async(rows) => async_rows.extend(rows.iter().map(matrix::row_label)),
            Part::Ftco(rows) => ftco_rows.extend(rows.iter().map(matrix::ftco_row_label)),
            Part::Claims | Part::FtcoClaims => {}
        }
    }
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v
    };
    assert_eq!(sorted(grid_rows), sorted(expected(matrix::rows())));
    assert_eq!(sorted(async_rows), sorted(expected(matrix::async_rows())));
    assert_eq!(sorted(ftco_rows), sorted(ftco_expected));

    // The footer: cells from the layout, states from the parts' pins.
    let cells = (matrix::rows().len() + matrix::ftco_rows().len()) * 2 * args.max_crashes as usize
        + matrix::async_rows().len() * 2;
    let states: usize = parts.iter().map(|p| p.1).sum();
    assert_eq!(
        normalize(&regions.footer),
        normalize(&matrix::footer(cells, states, 0.0, 2)),
        "footer (the pins of verify/tests/families/matrix.rs add up to {states})"
    );

    // Claims whose verdicts the README and docs quote, as decided in the committed file.
    for needle in [
        "`kary:2 interleaved none sync P=4 L=2 o=1`, f = 1, pre: *liveness* — violated",
        "`kary:2 interleaved opportunistic:2 sync P=8 L=2 o=1`, f = 1, pre: *liveness* — holds",
        "`kary:2 interleaved opportunistic:2 sync P=8 L=2 o=1`, f = 2, pre: *liveness* — violated",
        "`lame:2 interleaved checked sync P=8 L=2 o=1`, f = 7, pre: *liveness* — holds",
        "`lame:2 interleaved failproof:1 sync P=8 L=2 o=1`, f = 1, any: *liveness* — holds",
        "`kary:2 in-order opportunistic:1 sync P=8 L=2 o=1`, f = 1, pre: *liveness* — violated",
    ] {
        assert!(regions.claims.contains(needle), "missing verdict: {needle}");
    }

    // docs/traces holds exactly the linked files.
    let committed_traces = files(&docs().join("traces"));
    assert!(!committed_traces.is_empty());
    assert_eq!(
        committed_traces,
        links(&doc),
        "docs/traces vs the links of docs/verification.md"
    );
}
