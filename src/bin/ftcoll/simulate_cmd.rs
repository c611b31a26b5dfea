//! `ftcoll simulate`: one or more seeded runs of a Corrected Tree broadcast under LogP.

use std::io::Write;

use clap::{Args, ValueEnum};
use ftcoll::protocols::corrected_tree::{CorrectedTreeNode, CorrectionSpec, StartMode};
use ftcoll::protocols::Side;
use ftcoll::sim::scenario::{self, ArrivalSpec, FaultSpec};
use ftcoll::sim::{self as driver, chrome_trace_json, PortModel, Report, RunMetrics};
use ftcoll::topology::{LogP, Order, Tree, TreeKind};
use ftcoll::{Rank, Time};

use crate::args;
use crate::{CliError, UsageError};

/// Parses `--correction`.
pub fn correction(s: &str) -> Result<CorrectionSpec, String> {
    s.parse::<CorrectionSpec>().map_err(|e| e.to_string())
}

/// `--start`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum StartArg {
    /// Synchronized at the tree's fault-free deadline.
    Sync,
    /// Overlapped: right after the process's tree sends.
    Overlap,
}

/// `--model`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ModelArg {
    /// Dual-port LogP (CT, CG).
    Dual,
    /// Single-port step model (FTCO).
    Single,
}

/// `--first-side`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum SideArg {
    /// Toward r − 1 first (CT).
    Left,
    /// Toward r + 1 first (CG).
    Right,
}

/// `--format`.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum SimFormat {
    /// One JSON object per run, one per line.
    Json,
    /// A header and one row per run.
    Csv,
    /// Aligned columns for reading.
    Table,
}

/// Parses `--arrival`.
pub fn arrival(s: &str) -> Result<ArrivalSpec, String> {
    let allowed = "expected none, uniform:SPREAD or normal:SPREAD (SPREAD an integer >= 0)";
    match s.split_once(':') {
        None if s == "none" => Ok(ArrivalSpec::None),
        Some((kind, spread)) => {
            let spread: Time = spread.parse().map_err(|_| allowed.to_string())?;
            match kind {
                "uniform" => Ok(ArrivalSpec::Uniform(spread)),
                "normal" => Ok(ArrivalSpec::Normal(spread)),
                _ => Err(allowed.into()),
            }
        }
        None => Err(allowed.into()),
    }
}

/// Parses `--crash-at RANK@TIME,...`.
pub fn crash_list(s: &str) -> Result<CrashList, String> {
    let mut crashes = Vec::new();
    for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let parsed = item
            .split_once('@')
            .and_then(|(r, t)| Some((r.parse::<Rank>().ok()?, t.parse::<Time>().ok()?)));
        crashes.push(parsed.ok_or_else(|| format!("'{item}' is not RANK@TIME with integers"))?);
    }
    Ok(CrashList(crashes))
}

/// Parsed `--crash-at`.
#[derive(Clone, Debug, Default)]
pub struct CrashList(pub Vec<(Rank, Time)>);

/// Parses `--fault-rate`.
pub fn rate(s: &str) -> Result<f64, String> {
    s.parse::<f64>()
        .ok()
        .filter(|r| (0.0..=1.0).contains(r))
        .ok_or_else(|| "expected a probability in 0.0..=1.0".to_string())
}

/// `ftcoll simulate`.
#[derive(Args, Debug)]
#[command(group = clap::ArgGroup::new("fault_spec").multiple(false).args(["faults", "fault_count", "fault_rate"]))]
pub struct SimulateArgs {
    /// Number of processes P.
    #[arg(long, value_parser = args::procs)]
    procs: u64,
    /// Tree kind: kary:K, binomial, lame:K or optimal.
    #[arg(long, value_parser = args::tree)]
    tree: TreeKind,
    /// Rank numbering.
    #[arg(long, default_value = "interleaved", value_parser = args::order)]
    order: Order,
    /// Correction: none, opportunistic:D, optimized:D, checked, delayed:DELAY, failproof:F[:TIMEOUT], ack.
    #[arg(long, value_parser = correction)]
    correction: CorrectionSpec,
    /// When correction starts.
    #[arg(long, value_enum, default_value = "sync")]
    start: StartArg,
    /// First correction direction.
    #[arg(long, value_enum, default_value = "left")]
    first_side: SideArg,
    /// Timing model.
    #[arg(long, value_enum, default_value = "dual")]
    model: ModelArg,
    /// LogP latency L.
    #[arg(short = 'L', default_value = "2", value_parser = args::latency)]
    latency: u64,
    /// LogP overhead o.
    #[arg(short = 'o', default_value = "1", value_parser = args::overhead)]
    overhead: u64,
    /// Ranks failed before the operation, comma-separated.
    #[arg(long, value_parser = args::rank_list)]
    faults: Option<args::RankList>,
    /// This many random non-root ranks fail before the operation.
    #[arg(long, value_parser = clap::value_parser!(u32))]
    fault_count: Option<u32>,
    /// Every non-root rank fails before the operation with this probability.
    #[arg(long, value_parser = rate, allow_negative_numbers = true)]
    fault_rate: Option<f64>,
    /// Crashes during the operation: RANK@TIME,...
    #[arg(long, value_parser = crash_list, default_value = "")]
    crash_at: CrashList,
    /// Process arrival pattern: none, uniform:SPREAD or normal:SPREAD.
    #[arg(long, value_parser = arrival, default_value = "none")]
    arrival: ArrivalSpec,
    /// Seed of every random choice.
    #[arg(long, default_value = "1", value_parser = clap::value_parser!(u64))]
    seed: u64,
    /// Number of runs (run i uses stream i of the seed).
    #[arg(long, default_value = "1", value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    runs: u64,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    format: SimFormat,
    /// Write a Chrome trace (Perfetto) of the first run to this file.
    #[arg(long)]
    trace: Option<std::path::PathBuf>,
}

/// One run's row.
struct Row {
    run: u64,
    faults: Vec<Rank>,
    report: Report,
}

/// The run's parameters; the metric columns follow, [`RunMetrics::NAMES`] after `faults`.
const PARAMETERS: [&str; 12] = [
    "procs",
    "tree",
    "order",
    "correction",
    "start",
    "model",
    "L",
    "o",
    "seed",
    "run",
    "deadline",
    "faults",
];

/// Runs the simulations; validates everything before printing.
pub fn simulate(a: SimulateArgs, out: &mut impl Write) -> Result<(), CliError> {
    let usage = |flag: &str, e: &dyn std::fmt::Display| UsageError(format!("{flag}: {e}"));
    let logp = LogP::new(a.latency, a.overhead).map_err(|e| usage("-L/-o", &e))?;
    let tree =
        Tree::new(a.tree, a.order, a.procs, logp).map_err(|e| usage("--tree/--procs", &e))?;
    let procs = tree.procs();
    let start = match a.start {
        StartArg::Sync => StartMode::Synchronized,
        StartArg::Overlap => StartMode::Overlapped,
    };
    let mut config = a.correction.config(tree, start);
    config.first_side = match a.first_side {
        SideArg::Left => Side::Left,
        SideArg::Right => Side::Right,
    };
    let fault_spec = if let Some(list) = &a.faults {
        FaultSpec::List(list.0.clone())
    } else if let Some(n) = a.fault_count {
        FaultSpec::Count(n)
    } else if let Some(r) = a.fault_rate {
        FaultSpec::Rate(r)
    } else {
        FaultSpec::None
    };
    let model = match a.model {
        ModelArg::Dual => PortModel::DualPort,
        ModelArg::Single => PortModel::SinglePort,
    };
    let flag_of = |e: &scenario::ScenarioError| match e {
        scenario::ScenarioError::BadRank {
            field: "crash-at", ..
        } => "--crash-at",
        scenario::ScenarioError::BadRank { .. } => "--faults",
        scenario::ScenarioError::TooManyFaults { .. } => "--fault-count",
        scenario::ScenarioError::BadRate => "--fault-rate",
    };
    let spec = scenario::ScenarioSpec {
        procs,
        logp,
        model,
        faults: fault_spec,
        crash_at: a.crash_at.0.clone(),
        arrivals: a.arrival,
    };
    let mut rows = Vec::new();
    let mut trace = None;
    for run in 0..a.runs {
        let (mut scenario, faults) = spec.build(a.seed, run).map_err(|e| {
            UsageError(format!(
                "{}: {}",
                flag_of(&e),
                e.to_string().split_once(": ").map_or("", |x| x.1)
            ))
        })?;
        scenario.trace = run == 0 && a.trace.is_some();
        let budget = driver::default_budget(procs);
        let mut report = driver::run::<CorrectedTreeNode>(&config, procs, &scenario, budget)
            .map_err(|e| UsageError(format!("simulation: {e}")))?;
        if scenario.trace {
            trace = Some(chrome_trace_json(
                &std::mem::take(&mut report.trace),
                a.overhead,
            ));
        }
        rows.push(Row {
            run,
            faults,
            report,
        });
    }
    if let (Some(path), Some(json)) = (&a.trace, trace) {
        std::fs::write(path, json)
            .map_err(|e| UsageError(format!("--trace: cannot write {}: {e}", path.display())))?;
    }
    let fixed = [
        a.procs.to_string(),
        a.tree.to_string(),
        a.order.to_string(),
        a.correction.to_string(),
        match a.start {
            StartArg::Sync => "sync".into(),
            StartArg::Overlap => "overlap".into(),
        },
        match a.model {
            ModelArg::Dual => "dual".into(),
            ModelArg::Single => "single".into(),
        },
        a.latency.to_string(),
        a.overhead.to_string(),
        a.seed.to_string(),
    ];
    let deadline = config.tree.deadline();
    let values = |row: &Row| -> Vec<String> {
        let faults: Vec<String> = row.faults.iter().map(u32::to_string).collect();
        let metrics = RunMetrics::from_report(&row.report, deadline, row.faults.len() as u64);
        let mut v = fixed.to_vec();
        v.extend([row.run.to_string(), deadline.to_string(), faults.join(" ")]);
        // `faults` is already the list above; the metrics start after their own count.
        v.extend(metrics.values()[1..].iter().map(u64::to_string));
        v
    };
    let columns: Vec<&str> = PARAMETERS
        .iter()
        .chain(&RunMetrics::NAMES[1..])
        .copied()
        .collect();
    match a.format {
        SimFormat::Json => {
            for row in &rows {
                let v = values(row);
                let fields: Vec<String> = columns
                    .iter()
                    .zip(&v)
                    .map(|(k, val)| {
                        let json = match *k {
                            "tree" | "order" | "correction" | "start" | "model" => {
                                format!("\"{val}\"")
                            }
                            "faults" => format!("[{}]", val.replace(' ', ",")),
                            _ => val.clone(),
                        };
                        format!("\"{k}\":{json}")
                    })
                    .collect();
                writeln!(out, "{{{}}}", fields.join(","))?;
            }
        }
        SimFormat::Csv => {
            writeln!(out, "{}", columns.join(","))?;
            for row in &rows {
                writeln!(out, "{}", values(row).join(","))?;
            }
        }
        SimFormat::Table => {
            let table: Vec<Vec<String>> = rows.iter().map(values).collect();
            let widths: Vec<usize> = (0..columns.len())
                .map(|i| {
                    table
                        .iter()
                        .map(|r| r[i].len())
                        .chain([columns[i].len()])
                        .max()
                        .unwrap_or(0)
                })
                .collect();
            let line = |cells: Vec<&str>| -> String {
                cells
                    .iter()
                    .zip(&widths)
                    .map(|(c, w)| format!("{c:>w$}"))
                    .collect::<Vec<_>>()
                    .join("  ")
            };
            writeln!(out, "{}", line(columns.to_vec()))?;
            for r in &table {
                writeln!(out, "{}", line(r.iter().map(String::as_str).collect()))?;
            }
        }
    }
    Ok(())
}
