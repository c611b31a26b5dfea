//! `ftcoll sweep` and `ftcoll merge`: seeded Monte-Carlo over a grid of simulate's parameters.
//!
//! Points are the Cartesian product of the listed values, in the order: procs, tree, order,
//! correction, start, model, L, o, first side, faults. They run one after the other (each
//! point's runs in parallel over the cores); a point's line is appended to the output as soon
//! as it is complete, so an interrupted sweep loses at most the point in progress, and running
//! the same command again resumes after the last complete line. `--shard i/n` keeps the points
//! whose index is `i` modulo `n`; `merge` puts shard outputs back into exactly the bytes one
//! unsharded run writes.

use std::cell::RefCell;
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use ftcoll::experiment::{Faults, Point, PointStats, Prepared, STATISTICS};
use ftcoll::fastpath::Workspace;
use ftcoll::protocols::corrected_tree::{CorrectionSpec, StartMode};
use ftcoll::protocols::Side;
use ftcoll::sim::{PortModel, RunMetrics};
use ftcoll::topology::{Order, TreeKind};
use rayon::prelude::*;

use crate::args;
use crate::{CliError, UsageError};

/// Output format of sweeps.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum SweepFormat {
    /// A header, then one row per point.
    Csv,
    /// One JSON object per point, one per line.
    Json,
}

/// Which simulator runs the points.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum Engine {
    /// The fast path for synchronized checked correction under dual-port LogP, the full
    /// simulator otherwise (identical metrics).
    Auto,
    /// The full simulator for every point.
    Full,
}

/// Parses a comma-separated list in which every item means a distinct grid value: an empty
/// item or a value listed twice (also as different spellings of one value, `16,016`) would make
/// the grid differ from what was typed, or run a point twice.
fn list<T: PartialEq>(s: &str, item: impl Fn(&str) -> Result<T, String>) -> Result<Vec<T>, String> {
    let mut values: Vec<(T, &str)> = Vec::new();
    for raw in s.split(',') {
        let text = raw.trim();
        if text.is_empty() {
            return Err(
                "empty item in the list (two commas in a row, or a comma at an end)".into(),
            );
        }
        let value = item(text)?;
        if let Some((_, first)) = values.iter().find(|(v, _)| *v == value) {
            return Err(if *first == text {
                format!("'{text}' is listed twice")
            } else {
                format!("'{text}' is listed twice (as '{first}' and '{text}')")
            });
        }
        values.push((value, text));
    }
    Ok(values.into_iter().map(|(v, _)| v).collect())
}

/// A comma-separated list parsed by clap as one value.
#[derive(Clone, Debug)]
pub struct List<T>(pub Vec<T>);

/// `name(s)` parses a comma-separated list of what `item` parses.
macro_rules! list_parser {
    ($($name:ident: $t:ty = $item:expr;)*) => {
        $(fn $name(s: &str) -> Result<List<$t>, String> {
            list(s, $item).map(List)
        })*
    };
}

fn keyword<T: Copy>(
    allowed: &'static str,
    table: &'static [(&'static str, T)],
) -> impl Fn(&str) -> Result<T, String> {
    move |v| {
        table
            .iter()
            .find(|(k, _)| *k == v)
            .map(|&(_, t)| t)
            .ok_or_else(|| format!("expected {allowed}"))
    }
}

list_parser! {
    procs_list: u64 = args::procs;
    tree_list: TreeKind = args::tree;
    order_list: Order = args::order;
    correction_list: CorrectionSpec = crate::simulate_cmd::correction;
    latency_list: u64 = args::latency;
    overhead_list: u64 = args::overhead;
    rate_list: f64 = crate::simulate_cmd::rate;
    start_list: StartMode = keyword("sync or overlap", &[("sync", StartMode::Synchronized), ("overlap", StartMode::Overlapped)]);
    model_list: PortModel = keyword("dual or single", &[("dual", PortModel::DualPort), ("single", PortModel::SinglePort)]);
    side_list: Side = keyword("left or right", &[("left", Side::Left), ("right", Side::Right)]);
    count_list: u32 = |v: &str| v.parse::<u32>().map_err(|_| "expected integers in 0..=4294967294".to_string());
}

/// Parses `--shard i/n`.
pub fn shard(s: &str) -> Result<(u64, u64), String> {
    let allowed = "expected I/N with integers 0 <= I < N <= 1000000";
    let (i, n) = s.split_once('/').ok_or(allowed)?;
    let (i, n): (u64, u64) = (
        i.parse().map_err(|_| allowed)?,
        n.parse().map_err(|_| allowed)?,
    );
    if n == 0 || i >= n || n > 1_000_000 {
        return Err(allowed.into());
    }
    Ok((i, n))
}

/// `ftcoll sweep`.
#[derive(Args, Debug)]
#[command(group = clap::ArgGroup::new("fault_spec").multiple(false).args(["fault_count", "fault_rate", "fault_fraction"]))]
pub struct SweepArgs {
    /// Numbers of processes, comma-separated.
    #[arg(long, value_parser = procs_list)]
    procs: List<u64>,
    /// Trees: kary:K, binomial, lame:K, optimal (comma-separated).
    #[arg(long, value_parser = tree_list)]
    tree: List<TreeKind>,
    /// Numberings: interleaved, in-order.
    #[arg(long, default_value = "interleaved", value_parser = order_list)]
    order: List<Order>,
    /// Corrections: none, opportunistic:D, optimized:D, checked, delayed:DELAY, failproof:F[:TIMEOUT], ack.
    #[arg(long, value_parser = correction_list)]
    correction: List<CorrectionSpec>,
    /// Start modes: sync, overlap.
    #[arg(long, default_value = "sync", value_parser = start_list)]
    start: List<StartMode>,
    /// Timing models: dual, single.
    #[arg(long, default_value = "dual", value_parser = model_list)]
    model: List<PortModel>,
    /// LogP latencies L.
    #[arg(short = 'L', default_value = "2", value_parser = latency_list)]
    latency: List<u64>,
    /// LogP overheads o.
    #[arg(short = 'o', default_value = "1", value_parser = overhead_list)]
    overhead: List<u64>,
    /// First correction sides: left, right.
    #[arg(long, default_value = "left", value_parser = side_list)]
    first_side: List<Side>,
    /// Exact numbers of random non-root ranks failed before the operation.
    #[arg(long, value_parser = count_list)]
    fault_count: Option<List<u32>>,
    /// Per-rank failure probabilities (each non-root rank fails independently).
    #[arg(long, value_parser = rate_list, allow_negative_numbers = true)]
    fault_rate: Option<List<f64>>,
    /// Fractions of failed processes: round(F·P) random non-root ranks (CT §4.3).
    #[arg(long, value_parser = rate_list, allow_negative_numbers = true)]
    fault_fraction: Option<List<f64>>,
    /// Runs per point (run i uses stream i of the seed, as `simulate` does).
    #[arg(long, default_value = "1", value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    runs: u64,
    /// Seed of every random choice (the same for every point).
    #[arg(long, default_value = "1", value_parser = clap::value_parser!(u64))]
    seed: u64,
    /// Output format.
    #[arg(long, value_enum, default_value = "csv")]
    format: SweepFormat,
    /// Append results to this file, resuming after its last complete point (default: stdout).
    #[arg(long)]
    output: Option<PathBuf>,
    /// Run only the points whose index is I modulo N.
    #[arg(long, value_parser = shard)]
    shard: Option<(u64, u64)>,
    /// Simulator: auto (fast path where exact) or full.
    #[arg(long, value_enum, default_value = "auto")]
    engine: Engine,
    /// Worker threads (default: one per core).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1024))]
    threads: Option<u64>,
}

/// The grid described by the arguments, in output order.
fn grid(a: &SweepArgs) -> Vec<Point> {
    let faults: Vec<Faults> = if let Some(c) = &a.fault_count {
        c.0.iter().map(|&n| Faults::Count(n)).collect()
    } else if let Some(r) = &a.fault_rate {
        r.0.iter().map(|&r| Faults::Rate(r)).collect()
    } else if let Some(f) = &a.fault_fraction {
        f.0.iter().map(|&f| Faults::Fraction(f)).collect()
    } else {
        vec![Faults::None]
    };
    let mut points = Vec::new();
    for &procs in &a.procs.0 {
        for &tree in &a.tree.0 {
            for &order in &a.order.0 {
                for &correction in &a.correction.0 {
                    for &start in &a.start.0 {
                        for &model in &a.model.0 {
                            for &latency in &a.latency.0 {
                                for &overhead in &a.overhead.0 {
                                    for &first_side in &a.first_side.0 {
                                        for &f in &faults {
                                            points.push(Point {
                                                procs: procs as u32,
                                                tree,
                                                order,
                                                correction,
                                                start,
                                                model,
                                                latency,
                                                overhead,
                                                first_side,
                                                faults: f,
                                            });
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    points
}

const PARAMETERS: [&str; 14] = [
    "point",
    "procs",
    "tree",
    "order",
    "correction",
    "start",
    "model",
    "L",
    "o",
    "first_side",
    "faults",
    "runs",
    "seed",
    "deadline",
];

fn side_name(s: Side) -> &'static str {
    match s {
        Side::Left => "left",
        Side::Right => "right",
    }
}

fn model_name(m: PortModel) -> &'static str {
    match m {
        PortModel::DualPort => "dual",
        PortModel::SinglePort => "single",
    }
}

/// The parameter cells of a point (also the identity checked when resuming).
fn parameters(index: usize, p: &Point, runs: u64, seed: u64, prepared: &Prepared) -> Vec<String> {
    vec![
        index.to_string(),
        p.procs.to_string(),
        p.tree.to_string(),
        p.order.to_string(),
        p.correction.to_string(),
        p.start.to_string(),
        model_name(p.model).into(),
        p.latency.to_string(),
        p.overhead.to_string(),
        side_name(p.first_side).into(),
        p.faults.to_string(),
        runs.to_string(),
        seed.to_string(),
        prepared.deadline().to_string(),
    ]
}

/// The CSV header of sweeps.
pub fn csv_header() -> String {
    let mut cells: Vec<String> = PARAMETERS.iter().map(|s| s.to_string()).collect();
    for m in RunMetrics::NAMES {
        for s in STATISTICS {
            cells.push(format!("{m}_{s}"));
        }
    }
    cells.join(",")
}

/// One output line (without the newline).
fn line(format: SweepFormat, params: &[String], stats: &PointStats) -> String {
    let summary = stats.summary();
    match format {
        SweepFormat::Csv => {
            let mut cells = params.to_vec();
            for s in &summary {
                cells.extend(s.iter().cloned());
            }
            cells.join(",")
        }
        SweepFormat::Json => {
            let mut fields: Vec<String> = PARAMETERS
                .iter()
                .zip(params)
                .map(|(k, v)| match *k {
                    "point" | "procs" | "L" | "o" | "runs" | "seed" | "deadline" => {
                        format!("\"{k}\":{v}")
                    }
                    _ => format!("\"{k}\":\"{v}\""),
                })
                .collect();
            let metrics: Vec<String> = RunMetrics::NAMES
                .iter()
                .zip(&summary)
                .map(|(m, s)| {
                    let stats: Vec<String> = STATISTICS
                        .iter()
                        .zip(s)
                        .map(|(k, v)| format!("\"{k}\":{v}"))
                        .collect();
                    format!("\"{m}\":{{{}}}", stats.join(","))
                })
                .collect();
            fields.push(format!("\"metrics\":{{{}}}", metrics.join(",")));
            format!("{{{}}}", fields.join(","))
        }
    }
}

thread_local! {
    static WORKSPACE: RefCell<Workspace> = RefCell::new(Workspace::new());
}

/// Runs `runs` runs of a prepared point in parallel; `progress` is called with finished runs.
pub fn run_point(
    prepared: &Prepared,
    seed: u64,
    runs: u64,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<PointStats, String> {
    const CHUNK: u64 = 64;
    let chunks = runs.div_ceil(CHUNK);
    (0..chunks)
        .into_par_iter()
        .map(|c| {
            let mut stats = PointStats::default();
            let (a, b) = (c * CHUNK, ((c + 1) * CHUNK).min(runs));
            WORKSPACE.with(|ws| -> Result<(), String> {
                let mut ws = ws.borrow_mut();
                for run in a..b {
                    let m = prepared.run(seed, run, &mut ws).map_err(|e| e.0)?;
                    stats.add(&m);
                }
                Ok(())
            })?;
            progress(b - a);
            Ok(stats)
        })
        .try_reduce(PointStats::default, |mut x, y| {
            x.merge(&y);
            Ok(x)
        })
}

/// A progress bar on stderr, hidden when stderr is not a terminal.
pub fn progress_bar(total: u64, message: &str) -> indicatif::ProgressBar {
    let bar = if std::io::stderr().is_terminal() {
        indicatif::ProgressBar::with_draw_target(
            Some(total),
            indicatif::ProgressDrawTarget::stderr(),
        )
    } else {
        indicatif::ProgressBar::hidden()
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{msg} [{elapsed_precise}] {wide_bar} {pos}/{len} runs ({eta})",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.set_message(message.to_string());
    bar
}

/// Points already in `path`: their lines, after dropping an incomplete last line.
fn resume(path: &Path, format: SweepFormat) -> Result<Vec<String>, CliError> {
    let Ok(bytes) = std::fs::read(path) else {
        return Ok(Vec::new());
    };
    let text = String::from_utf8_lossy(&bytes);
    let complete = match text.rfind('\n') {
        Some(i) => &text[..=i],
        None => "",
    };
    if complete.len() != text.len() {
        // An interrupted write: cut the partial line.
        let f = std::fs::OpenOptions::new().write(true).open(path)?;
        f.set_len(complete.len() as u64)?;
    }
    let mut lines: Vec<String> = complete.lines().map(str::to_string).collect();
    if format == SweepFormat::Csv && !lines.is_empty() {
        if lines[0] != csv_header() {
            return Err(UsageError(format!(
                "--output: {} is not a CSV sweep of this version (header differs); choose another file",
                path.display()
            ))
            .into());
        }
        lines.remove(0);
    }
    Ok(lines)
}

/// The identity prefix of an output line: the parameter cells.
fn identity(format: SweepFormat, line: &str) -> String {
    match format {
        SweepFormat::Csv => line
            .split(',')
            .take(PARAMETERS.len())
            .collect::<Vec<_>>()
            .join(","),
        SweepFormat::Json => line
            .split_once(",\"metrics\"")
            .map_or(line, |(a, _)| a)
            .to_string(),
    }
}

/// The point index of an output line.
fn point_index(format: SweepFormat, line: &str) -> Option<u64> {
    let digits = match format {
        SweepFormat::Csv => line.split(',').next()?,
        SweepFormat::Json => line.strip_prefix("{\"point\":")?.split(',').next()?,
    };
    digits.parse().ok()
}

/// `ftcoll sweep`.
pub fn sweep(a: SweepArgs, out: &mut impl Write) -> Result<(), CliError> {
    if let Some(t) = a.threads {
        // Only the first call configures the global pool; later ones are harmless.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(t as usize)
            .build_global();
    }
    let points = grid(&a);
    // Validate every point before running anything.
    let mut prepared = Vec::new();
    for (i, p) in points.iter().enumerate() {
        if let Some((k, n)) = a.shard {
            if i as u64 % n != k {
                continue;
            }
        }
        let ready = p.prepare(a.engine == Engine::Auto).map_err(|e| {
            let flag = match p.faults {
                Faults::Count(_) => "--fault-count",
                Faults::Fraction(_) => "--fault-fraction",
                _ => "--procs",
            };
            let text = e.0.strip_prefix("faults: ").unwrap_or(&e.0);
            UsageError(format!(
                "{flag}: {text} (point {i}: {} P={})",
                p.tree, p.procs
            ))
        })?;
        prepared.push((i, p, ready));
    }
    let mut done: Vec<String> = Vec::new();
    let mut file = None;
    if let Some(path) = &a.output {
        done = resume(path, a.format)?;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| UsageError(format!("--output: cannot open {}: {e}", path.display())))?;
        if a.format == SweepFormat::Csv && std::fs::metadata(path)?.len() == 0 {
            writeln!(f, "{}", csv_header())?;
        }
        file = Some(f);
    } else if a.format == SweepFormat::Csv {
        writeln!(out, "{}", csv_header())?;
    }
    // Resume: the existing lines must be this sweep's first points.
    for (line, (i, p, ready)) in done.iter().zip(&prepared) {
        let expected = line_identity(a.format, *i, p, a.runs, a.seed, ready);
        if identity(a.format, line) != expected {
            return Err(UsageError(format!(
                "--output: {} holds a different sweep (point {i} differs); choose another file",
                a.output
                    .as_ref()
                    .map_or(String::new(), |p| p.display().to_string())
            ))
            .into());
        }
    }
    if done.len() > prepared.len() {
        return Err(
            UsageError("--output: the file holds more points than this sweep".into()).into(),
        );
    }
    let todo = &prepared[done.len()..];
    let bar = progress_bar(todo.len() as u64 * a.runs, "sweep");
    for (i, p, ready) in todo {
        let stats = run_point(ready, a.seed, a.runs, &|n| bar.inc(n))
            .map_err(|e| UsageError(format!("point {i}: {e}")))?;
        let params = parameters(*i, p, a.runs, a.seed, ready);
        let text = line(a.format, &params, &stats);
        match &mut file {
            Some(f) => {
                writeln!(f, "{text}")?;
                f.flush()?;
            }
            None => {
                writeln!(out, "{text}")?;
                out.flush()?;
            }
        }
    }
    bar.finish_and_clear();
    Ok(())
}

fn line_identity(
    format: SweepFormat,
    i: usize,
    p: &Point,
    runs: u64,
    seed: u64,
    ready: &Prepared,
) -> String {
    let params = parameters(i, p, runs, seed, ready);
    identity(format, &line(format, &params, &PointStats::default()))
}

/// `ftcoll merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// Format of the shard files.
    #[arg(long, value_enum, default_value = "csv")]
    format: SweepFormat,
    /// Write here instead of stdout.
    #[arg(long)]
    output: Option<PathBuf>,
    /// Shard outputs of one sweep.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
}

/// `ftcoll merge`: every point line of the inputs, by point index, under one header.
pub fn merge(a: MergeArgs, out: &mut impl Write) -> Result<(), CliError> {
    let mut lines: std::collections::BTreeMap<u64, String> = std::collections::BTreeMap::new();
    for path in &a.inputs {
        let f = std::fs::File::open(path)
            .map_err(|e| UsageError(format!("inputs: cannot read {}: {e}", path.display())))?;
        for (n, l) in std::io::BufReader::new(f).lines().enumerate() {
            let l = l?;
            if a.format == SweepFormat::Csv && n == 0 {
                if l != csv_header() {
                    return Err(UsageError(format!(
                        "inputs: {} is not a CSV sweep output",
                        path.display()
                    ))
                    .into());
                }
                continue;
            }
            let index = point_index(a.format, &l).ok_or_else(|| {
                UsageError(format!(
                    "inputs: {} line {}: not a sweep point",
                    path.display(),
                    n + 1
                ))
            })?;
            if let Some(previous) = lines.insert(index, l.clone()) {
                if previous != l {
                    return Err(UsageError(format!(
                        "inputs: point {index} appears twice with different results"
                    ))
                    .into());
                }
            }
        }
    }
    let mut text = String::new();
    if a.format == SweepFormat::Csv {
        text.push_str(&csv_header());
        text.push('\n');
    }
    for l in lines.values() {
        text.push_str(l);
        text.push('\n');
    }
    match &a.output {
        Some(p) => std::fs::write(p, text)
            .map_err(|e| UsageError(format!("--output: cannot write {}: {e}", p.display())))?,
        None => out.write_all(text.as_bytes())?,
    }
    Ok(())
}
