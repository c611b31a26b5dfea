//! `ftcoll simulate`: one or more seeded runs of a Corrected Tree broadcast under LogP (FTCO with
//! `--collective`, Corrected Gossip with `--gossip`).

use std::io::Write;

use clap::{Args, ValueEnum};
use ftcoll::protocols::corrected_tree::{
    CorrectedTreeConfig, CorrectedTreeNode, CorrectionSpec, StartMode,
};
use ftcoll::protocols::Side;
use ftcoll::topology::{LogP, Order, Tree, TreeKind};
use ftcoll::{Rank, Time};
use ftcoll_lab::experiment::fast_path_applies_to;
use ftcoll_lab::fastpath::{SyncChecked, Workspace};
use ftcoll_sim::scenario::{self, ArrivalSpec, FaultSpec};
use ftcoll_sim::{
    self as driver, chrome_trace_json, IgnoredMessages, PortModel, Report, RunMetrics,
};

use crate::admission;
use crate::args;
use crate::output::{csv_line, json_line, JsonCell, JsonObject};
use crate::sweep_cmd::Engine;
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

/// The largest arrival spread (`2^32 − 1` steps): beyond it arrival times dwarf every
/// protocol's latency and a run measures only the spread (latencies of 10^10 for a typo).
pub const MAX_SPREAD: Time = u32::MAX as Time;

/// `--arrival`: a pattern, or `@FILE` (read once `P` is known, see [`ArrivalArg::resolve`]).
#[derive(Clone, Debug, PartialEq)]
pub enum ArrivalArg {
    /// A drawn pattern.
    Spec(ArrivalSpec),
    /// `@FILE`: the path of a file of `P` arrival times.
    File(String),
}

impl ArrivalArg {
    /// No arrival pattern.
    pub const NONE: Self = Self::Spec(ArrivalSpec::None);

    /// The pattern for `P = procs`: a file is read here (streamed, at most `P + 1` values kept)
    /// and must hold exactly `P` times, each in `0..=MAX_SPREAD`.
    pub fn resolve(&self, procs: u32) -> Result<ArrivalSpec, String> {
        match self {
            Self::Spec(spec) => Ok(spec.clone()),
            Self::File(path) => {
                let times = crate::args::read_list_file(path, "arrival", procs as usize, times)
                    .map_err(|e| format!("{e} ({})", file_allowed(procs)))?;
                if times.len() != procs as usize {
                    return Err(format!(
                        "arrival file '{path}' holds {} times: {}",
                        times.len(),
                        file_allowed(procs)
                    ));
                }
                Ok(ArrivalSpec::Times(times))
            }
        }
    }
}

/// What an arrival file must hold.
fn file_allowed(procs: u32) -> String {
    format!(
        "expected exactly P = {procs} times, one per line or comma-separated, each an integer in 0..={MAX_SPREAD}"
    )
}

/// The arrival times of one line of an arrival file.
fn times(line: &str) -> Result<Vec<Time>, String> {
    line.split(',')
        .map(str::trim)
        .map(|item| {
            item.parse::<Time>()
                .ok()
                .filter(|&t| t <= MAX_SPREAD)
                .ok_or_else(|| format!("'{item}' is not a time"))
        })
        .collect()
}

impl std::fmt::Display for ArrivalArg {
    /// As `--arrival` spells it (a file: `@PATH`, as given).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::File(path) => write!(f, "@{path}"),
            Self::Spec(ArrivalSpec::SymmetricNormal(s)) => write!(f, "symnormal:{s}"),
            Self::Spec(ArrivalSpec::None) => write!(f, "none"),
            Self::Spec(ArrivalSpec::Uniform(s)) => write!(f, "uniform:{s}"),
            Self::Spec(ArrivalSpec::Normal(s)) => write!(f, "normal:{s}"),
            Self::Spec(ArrivalSpec::Random { max_if, unit }) => write!(f, "random:{max_if}:{unit}"),
            Self::Spec(ArrivalSpec::Late { fraction, delay }) => {
                write!(f, "late:{fraction}:{delay}")
            }
            Self::Spec(ArrivalSpec::Times(t)) => write!(f, "times:{}", t.len()),
        }
    }
}

/// Parses `--arrival`: `none`, `uniform:SPREAD`, `normal:SPREAD`, `symnormal:SIGMA`,
/// `random:MAX_IF:UNIT`, `late:FRACTION:DELAY` or `@FILE`.
pub fn arrival(s: &str) -> Result<ArrivalArg, String> {
    let allowed = format!(
        "expected none, uniform:SPREAD, normal:SPREAD, symnormal:SIGMA, random:MAX_IF:UNIT, late:FRACTION:DELAY or @FILE (SPREAD, DELAY integers in 0..={MAX_SPREAD}; SIGMA an integer in 0..={}; MAX_IF ≥ 1 and UNIT ≥ 1 integers with (MAX_IF − 1)·UNIT ≤ {MAX_SPREAD}; FRACTION in 0.0..=1.0)",
        ArrivalSpec::MAX_SYMMETRIC_SIGMA
    );
    let spread = |spread: &str, what: &str| -> Result<Time, String> {
        spread
            .parse()
            .ok()
            .filter(|&v| v <= MAX_SPREAD)
            .ok_or_else(|| format!("{what} '{spread}' is out of range: {allowed}"))
    };
    if let Some(path) = s.strip_prefix('@') {
        if path.is_empty() {
            return Err(format!("'@' without a file name: {allowed}"));
        }
        return Ok(ArrivalArg::File(path.into()));
    }
    match s.split_once(':') {
        None if s == "none" => Ok(ArrivalArg::NONE),
        Some(("random", rest)) => {
            let (max_if, unit) = rest.split_once(':').ok_or_else(|| allowed.clone())?;
            let max_if: u64 = max_if
                .parse()
                .ok()
                .filter(|&m| m >= 1)
                .ok_or_else(|| format!("MAX_IF '{max_if}' is out of range: {allowed}"))?;
            let unit: Time = unit
                .parse()
                .ok()
                .filter(|&u| u >= 1)
                .ok_or_else(|| format!("UNIT '{unit}' is out of range: {allowed}"))?;
            if (max_if - 1)
                .checked_mul(unit)
                .is_none_or(|t| t > MAX_SPREAD)
            {
                return Err(format!(
                    "random:{max_if}:{unit} arrives as late as (MAX_IF − 1)·UNIT, above {MAX_SPREAD}: {allowed}"
                ));
            }
            Ok(ArrivalArg::Spec(ArrivalSpec::Random { max_if, unit }))
        }
        Some(("late", rest)) => {
            let (fraction, delay) = rest.split_once(':').ok_or_else(|| allowed.clone())?;
            let fraction: f64 = fraction
                .parse()
                .ok()
                .filter(|f| (0.0..=1.0).contains(f))
                .ok_or_else(|| format!("FRACTION '{fraction}' is out of range: {allowed}"))?;
            let delay = spread(delay, "DELAY")?;
            Ok(ArrivalArg::Spec(ArrivalSpec::Late { fraction, delay }))
        }
        Some(("symnormal", sigma)) => sigma
            .parse()
            .ok()
            .filter(|&v| v <= ArrivalSpec::MAX_SYMMETRIC_SIGMA)
            .map(|sigma| ArrivalArg::Spec(ArrivalSpec::SymmetricNormal(sigma)))
            .ok_or_else(|| format!("SIGMA '{sigma}' is out of range: {allowed}")),
        Some((kind, value)) => {
            let spread = spread(value, "spread")?;
            match kind {
                "uniform" => Ok(ArrivalArg::Spec(ArrivalSpec::Uniform(spread))),
                "normal" => Ok(ArrivalArg::Spec(ArrivalSpec::Normal(spread))),
                _ => Err(allowed),
            }
        }
        None => Err(allowed),
    }
}

/// Parses `--crash-at RANK@TIME,...`: each rank crashes once; an empty item is an error.
pub fn crash_list(s: &str) -> Result<CrashList, String> {
    let mut crashes: Vec<(Rank, Time)> = Vec::new();
    if s.trim().is_empty() {
        return Ok(CrashList(crashes));
    }
    for item in s.split(',').map(str::trim) {
        if item.is_empty() {
            return Err("empty item in the list (two commas, or one at an end)".into());
        }
        let parsed = item
            .split_once('@')
            .and_then(|(r, t)| Some((r.parse::<Rank>().ok()?, t.parse::<Time>().ok()?)));
        crashes.push(parsed.ok_or_else(|| format!("'{item}' is not RANK@TIME with integers"))?);
    }
    let mut sorted = crashes.clone();
    sorted.sort_unstable();
    if let Some(w) = sorted.windows(2).find(|w| w[0].0 == w[1].0) {
        let rank = w[0].0;
        return Err(format!(
            "rank {rank} crashes twice ({rank}@{} and {rank}@{}): a rank crashes once",
            w[0].1, w[1].1
        ));
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

/// `ftcoll simulate` (and its alias `ftco-simulate`): the Corrected Tree flags, FTCO's (with
/// `--collective`), Corrected Gossip's (with `--gossip`), and what they share (processes, L, faults, arrivals, seed, runs, output).
#[derive(Args, Debug)]
#[command(group = clap::ArgGroup::new("fault_spec").multiple(false).args(["faults", "fault_count", "fault_rate"]))]
pub struct SimulateArgs {
    /// Number of processes P.
    #[arg(long, value_parser = args::procs)]
    pub procs: u32,
    /// Tree kind: kary:K, binomial, lame:K or optimal (required without --collective).
    #[arg(long, value_parser = args::tree)]
    pub tree: Option<TreeKind>,
    /// Rank numbering: interleaved (default) or in-order.
    #[arg(long, value_parser = args::order)]
    pub order: Option<Order>,
    /// Correction: none, opportunistic:D, optimized:D, checked, delayed:DELAY, failproof:F[:TIMEOUT], ack (required without --collective).
    #[arg(long, value_parser = correction)]
    pub correction: Option<CorrectionSpec>,
    /// When correction starts (default sync).
    #[arg(long, value_enum)]
    pub start: Option<StartArg>,
    /// First correction direction (default left).
    #[arg(long, value_enum)]
    pub first_side: Option<SideArg>,
    /// Timing model (default dual).
    #[arg(long, value_enum)]
    pub model: Option<ModelArg>,
    /// LogP latency L (FTCO: steps).
    #[arg(short = 'L', default_value = "2", value_parser = args::latency)]
    pub latency: u64,
    /// LogP overhead o (FTCO: 1, the only value its step model has).
    #[arg(short = 'o', default_value = "1", value_parser = args::overhead)]
    pub overhead: u64,
    /// Ranks failed before the operation, comma-separated or @FILE (never a root).
    #[arg(long, value_parser = args::rank_list)]
    pub faults: Option<args::RankList>,
    /// This many random non-root ranks fail before the operation.
    #[arg(long, value_parser = args::fault_count)]
    pub fault_count: Option<u32>,
    /// Every non-root rank fails before the operation with this probability.
    #[arg(long, value_parser = rate, allow_negative_numbers = true)]
    pub fault_rate: Option<f64>,
    /// Crashes during the operation (never a root): RANK@TIME,...
    #[arg(long, value_parser = crash_list, default_value = "")]
    pub crash_at: CrashList,
    /// Process arrival pattern (time steps): none, uniform:SPREAD, normal:SPREAD (half-normal),
    /// symnormal:SIGMA (symmetric normal shifted to start at 0), random:MAX_IF:UNIT
    /// (PAP Fig. 6), late:FRACTION:DELAY (PAP Figs. 9–10) or @FILE (P times).
    #[arg(long, value_parser = arrival, default_value = "none")]
    pub arrival: ArrivalArg,
    /// Seed of every random choice.
    #[arg(long, default_value = "1", value_parser = args::seed)]
    pub seed: u64,
    /// Number of runs (run i uses stream i of the seed).
    #[arg(long, default_value = "1", value_parser = args::runs)]
    pub runs: u64,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    pub format: SimFormat,
    /// Write a Chrome trace (Perfetto) of the first run to this file.
    #[arg(long)]
    pub trace: Option<std::path::PathBuf>,
    /// Simulator: auto (the exact fast path for synchronized checked correction under dual-port
    /// LogP without crashes during the operation, arrivals or trace; the full driver otherwise)
    /// or full (the driver for every run). Both print the same bytes.
    #[arg(long, value_enum, default_value = "auto")]
    pub engine: Engine,
    /// FTCO's flags.
    #[command(flatten)]
    pub ftco: crate::ftco_cmd::FtcoFlags,
    /// Corrected Gossip's flags.
    #[command(flatten)]
    pub gossip: crate::gossip_cmd::GossipFlags,
    /// Read parameters from a JSON file (TOML if its name ends in .toml), keyed by the flags'
    /// long names ("procs", "fault-rate") or short letters ("L", "o"); flags given on the command
    /// line override the file.
    #[arg(long, value_name = "FILE")]
    #[allow(dead_code)] // replaced by the file's flags before parsing (config_file::expand)
    pub config: Option<std::path::PathBuf>,
}

impl SimulateArgs {
    /// The first Corrected Tree flag given (FTCO runs refuse them).
    pub fn ct_flag_given(&self) -> Option<&'static str> {
        [
            ("--tree", self.tree.is_some()),
            ("--order", self.order.is_some()),
            ("--correction", self.correction.is_some()),
            ("--start", self.start.is_some()),
            ("--first-side", self.first_side.is_some()),
            ("--model", self.model.is_some()),
            ("--engine", self.engine != Engine::Auto),
        ]
        .into_iter()
        .find(|g| g.1)
        .map(|g| g.0)
    }

    /// The failures before the operation the flags ask for.
    pub fn fault_spec(&self) -> FaultSpec {
        if let Some(list) = &self.faults {
            let mut sorted = list.0.clone();
            sorted.sort_unstable();
            FaultSpec::List(sorted)
        } else if let Some(n) = self.fault_count {
            FaultSpec::Count(n)
        } else if let Some(r) = self.fault_rate {
            FaultSpec::Rate(r)
        } else {
            FaultSpec::None
        }
    }

    /// Refuses a rank both in `--faults` and `--crash-at`: a rank is failed from the start or
    /// crashes later, not both.
    pub fn check_faults_against_crashes(&self) -> Result<(), UsageError> {
        if let Some(list) = &self.faults {
            let mut failed = list.0.clone();
            failed.sort_unstable();
            if let Some(&(rank, time)) = self
                .crash_at
                .0
                .iter()
                .find(|(r, _)| failed.binary_search(r).is_ok())
            {
                return Err(UsageError(format!(
                    "--crash-at: rank {rank} (at {time}) is also in --faults: a rank fails before the operation or crashes during it, not both"
                )));
            }
        }
        Ok(())
    }
}

/// A scenario error as the one-line usage error naming its flag.
pub fn scenario_error(e: scenario::ScenarioError) -> UsageError {
    let flag = match &e {
        scenario::ScenarioError::BadRank {
            field: "crash-at", ..
        } => "--crash-at",
        scenario::ScenarioError::BadRank { .. } => "--faults",
        scenario::ScenarioError::TooManyFaults { .. } => "--fault-count",
        scenario::ScenarioError::BadRate => "--fault-rate",
        _ => return UsageError(e.to_string()),
    };
    UsageError(format!(
        "{flag}: {}",
        e.to_string().split_once(": ").map_or("", |x| x.1)
    ))
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

/// `--format table` sizes its columns from this many first rows, then streams the rest with
/// the same widths (a wider cell pushes its row out of line; memory stays constant).
const TABLE_SIZING_ROWS: usize = 256;

/// Runs the simulations; validates everything before printing, then prints each run as it
/// completes (memory stays that of one run, whatever `--runs`).
pub fn simulate(a: SimulateArgs, out: &mut impl Write) -> Result<(), CliError> {
    if a.gossip.gossip.is_some() {
        return crate::gossip_cmd::simulate(&a, out);
    }
    if let Some(flag) = a.gossip.first_given() {
        return Err(UsageError(format!(
            "{flag}: a Corrected Gossip flag, accepted only with --gossip gos|ocg|ccg|fcg:F"
        ))
        .into());
    }
    if a.ftco.collective.is_some() {
        return crate::ftco_cmd::simulate(&a, &a.ftco, out);
    }
    if let Some(flag) = a.ftco.first_given() {
        return Err(UsageError(format!(
            "{flag}: an FTCO flag, not accepted by a Corrected Tree simulation: FTCO runs with --collective bcast|reduce|allreduce"
        ))
        .into());
    }
    let Some(tree_kind) = a.tree else {
        return Err(UsageError(
            "--tree: required for a Corrected Tree (kary:K, binomial, lame:K or optimal), or --collective for FTCO".into(),
        )
        .into());
    };
    let Some(correction) = a.correction else {
        return Err(UsageError(
            "--correction: required for a Corrected Tree (none, opportunistic:D, optimized:D, checked, delayed:DELAY, failproof:F[:TIMEOUT], ack)".into(),
        )
        .into());
    };
    let order = a.order.unwrap_or(Order::Interleaved);
    let start_arg = a.start.unwrap_or(StartArg::Sync);
    let model_arg = a.model.unwrap_or(ModelArg::Dual);
    let usage = |flag: &str, e: &dyn std::fmt::Display| UsageError(format!("{flag}: {e}"));
    let logp = LogP::new(a.latency, a.overhead).map_err(|e| usage("-L/-o", &e))?;
    let tree =
        Tree::new(tree_kind, order, a.procs, logp).map_err(|e| usage("--tree/--procs", &e))?;
    let procs = tree.procs();
    let start = match start_arg {
        StartArg::Sync => StartMode::Synchronized,
        StartArg::Overlap => StartMode::Overlapped,
    };
    let mut config = CorrectedTreeConfig::new(tree, correction, start);
    config.first_side = match a.first_side.unwrap_or(SideArg::Left) {
        SideArg::Left => Side::Left,
        SideArg::Right => Side::Right,
    };
    a.check_faults_against_crashes()?;
    let fault_spec = match &a.faults {
        // As given (draw_faults sorts).
        Some(list) => FaultSpec::List(list.0.clone()),
        None => a.fault_spec(),
    };
    let model = match model_arg {
        ModelArg::Dual => PortModel::DualPort,
        ModelArg::Single => PortModel::SinglePort,
    };
    let spec = scenario::ScenarioSpec {
        procs,
        logp,
        model,
        immune: 1,
        faults: fault_spec,
        crash_at: a.crash_at.0.clone(),
        arrivals: ArrivalSpec::None,
        ignored: IgnoredMessages::Charged,
    };
    // The fast path where it is exact (the same decision as `sweep --engine auto`).
    let fast = a.engine == Engine::Auto
        && a.trace.is_none()
        && matches!(a.arrival, ArrivalArg::Spec(ArrivalSpec::None))
        && fast_path_applies_to(correction, start, &spec);
    // Admission: one run at a time, so the need is one run's (and the trace's, if asked for).
    let need = if fast {
        admission::fastpath_need(procs, 1)
    } else {
        admission::driver_need(procs, a.trace.is_some())
    };
    admission::admit("--procs", &format!("a run of {procs} processes"), need)?;
    // An arrival file is read once P is admitted (P times of 8 bytes).
    let spec = scenario::ScenarioSpec {
        arrivals: a
            .arrival
            .resolve(procs)
            .map_err(|e| UsageError(format!("--arrival: {e}")))?,
        ..spec
    };
    // The progress display announces the estimate the run stays within.
    let announced = format!("simulate (≤ {})", admission::human(need));
    // Every parameter error is the same for every run: the first run's build finds it.
    spec.build(a.seed, 0).map_err(scenario_error)?;

    let fixed = [
        a.procs.to_string(),
        tree_kind.to_string(),
        order.to_string(),
        correction.to_string(),
        match start_arg {
            StartArg::Sync => "sync".into(),
            StartArg::Overlap => "overlap".into(),
        },
        match model_arg {
            ModelArg::Dual => "dual".into(),
            ModelArg::Single => "single".into(),
        },
        a.latency.to_string(),
        a.overhead.to_string(),
        a.seed.to_string(),
    ];
    let deadline = config.tree.deadline();
    let columns: Vec<&str> = PARAMETERS
        .iter()
        .chain(&RunMetrics::NAMES[1..])
        .copied()
        .collect();
    let mut printer = Printer::new(
        a.format,
        &columns,
        &["tree", "order", "correction", "start", "model"],
    );
    let bar = admission::progress(
        Some(a.runs),
        "{msg} [{elapsed_precise}] {wide_bar} {pos}/{len} runs ({eta})",
        &announced,
    );
    if !bar.is_hidden() && (a.runs == 1 || procs >= 1 << 20) {
        // Long single runs: tick so the display shows life between run completions.
        bar.enable_steady_tick(std::time::Duration::from_millis(250));
    }
    let mut fast = fast.then(|| {
        (
            SyncChecked::new(&config.tree, config.first_side),
            Workspace::new(),
        )
    });
    for run in 0..a.runs {
        if let Some((engine, ws)) = &mut fast {
            let (faults, _) = spec.draw_failed(a.seed, run).map_err(scenario_error)?;
            let metrics = engine
                .run(ws, &faults)
                .map_err(|e| UsageError(format!("simulation: {e}")))?;
            printer.row(row_of(&fixed, run, deadline, &faults, &metrics), out)?;
            bar.inc(1);
            continue;
        }
        let (mut scenario, faults) = spec.build(a.seed, run).map_err(scenario_error)?;
        scenario.trace = run == 0 && a.trace.is_some();
        let budget = driver::default_budget(procs);
        let mut report = driver::run_observed::<CorrectedTreeNode>(
            &config,
            procs,
            &scenario,
            budget,
            |r: &Report| {
                if !bar.is_hidden() {
                    bar.set_message(format!(
                        "{announced} run {run}: t = {}, {} events",
                        r.last_activity, r.events
                    ));
                }
            },
        )
        .map_err(|e| UsageError(format!("simulation: {e}")))?;
        if scenario.trace {
            let json = chrome_trace_json(&std::mem::take(&mut report.trace), a.overhead);
            if let Some(path) = &a.trace {
                std::fs::write(path, json).map_err(|e| {
                    UsageError(format!("--trace: cannot write {}: {e}", path.display()))
                })?;
            }
        }
        let metrics = RunMetrics::from_report(&report, deadline, faults.len() as u64);
        drop(report);
        printer.row(row_of(&fixed, run, deadline, &faults, &metrics), out)?;
        bar.inc(1);
    }
    printer.finish(out)?;
    bar.finish_and_clear();
    Ok(())
}

/// One output row: the fixed parameters, the run, the deadline, the failed ranks and the
/// metrics after their count (`faults` is already the list).
fn row_of(
    fixed: &[String],
    run: u64,
    deadline: Time,
    faults: &[Rank],
    metrics: &RunMetrics,
) -> Vec<String> {
    let faults: Vec<String> = faults.iter().map(u32::to_string).collect();
    let mut row = fixed.to_vec();
    row.extend([run.to_string(), deadline.to_string(), faults.join(" ")]);
    row.extend(metrics.values()[1..].iter().map(u64::to_string));
    row
}

/// Writes rows as they come: JSON lines (`serde_json`), CSV (`csv`), or a table whose widths come from the first
/// [`TABLE_SIZING_ROWS`] rows.
pub struct Printer<'a> {
    format: SimFormat,
    columns: &'a [&'a str],
    /// The columns JSON quotes as strings (`faults` is a list; an empty cell elsewhere is `null`).
    strings: &'a [&'a str],
    /// Table rows waiting for the widths to be known.
    pending: Vec<Vec<String>>,
    widths: Option<Vec<usize>>,
}

impl<'a> Printer<'a> {
    /// A printer of these columns, quoting `strings` in JSON.
    pub fn new(format: SimFormat, columns: &'a [&'a str], strings: &'a [&'a str]) -> Self {
        Self {
            format,
            columns,
            strings,
            pending: Vec::new(),
            widths: None,
        }
    }

    /// Prints one row (buffered while a table's widths are not known).
    pub fn row(&mut self, row: Vec<String>, out: &mut impl Write) -> std::io::Result<()> {
        match self.format {
            SimFormat::Json => {
                let fields = self
                    .columns
                    .iter()
                    .zip(&row)
                    .map(|(&k, val)| {
                        let cell = match k {
                            "faults" => JsonCell::Nums(val.split_whitespace().collect()),
                            k if self.strings.contains(&k) => JsonCell::Str(val),
                            _ if val.is_empty() => JsonCell::Null,
                            _ => JsonCell::Num(val),
                        };
                        (k, cell)
                    })
                    .collect();
                writeln!(out, "{}", json_line(&JsonObject(fields))?)
            }
            SimFormat::Csv => {
                if self.widths.is_none() {
                    writeln!(out, "{}", csv_line(self.columns)?)?;
                    self.widths = Some(Vec::new());
                }
                writeln!(out, "{}", csv_line(&row)?)
            }
            SimFormat::Table => {
                if self.widths.is_some() {
                    return self.table_line(&row, out);
                }
                self.pending.push(row);
                if self.pending.len() == TABLE_SIZING_ROWS {
                    self.flush_table(out)?;
                }
                Ok(())
            }
        }
    }

    /// Prints what is still buffered (a table of fewer than [`TABLE_SIZING_ROWS`] rows).
    pub fn finish(&mut self, out: &mut impl Write) -> std::io::Result<()> {
        if self.format == SimFormat::Table && self.widths.is_none() {
            self.flush_table(out)?;
        }
        Ok(())
    }

    fn flush_table(&mut self, out: &mut impl Write) -> std::io::Result<()> {
        let widths: Vec<usize> = (0..self.columns.len())
            .map(|i| {
                self.pending
                    .iter()
                    .map(|r| r[i].len())
                    .chain([self.columns[i].len()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        self.widths = Some(widths);
        let header: Vec<String> = self.columns.iter().map(|c| c.to_string()).collect();
        self.table_line(&header, out)?;
        for row in std::mem::take(&mut self.pending) {
            self.table_line(&row, out)?;
        }
        Ok(())
    }

    fn table_line(&self, cells: &[String], out: &mut impl Write) -> std::io::Result<()> {
        let widths = self.widths.as_deref().unwrap_or_default();
        let line: Vec<String> = cells
            .iter()
            .zip(widths)
            .map(|(c, w)| format!("{c:>w$}"))
            .collect();
        writeln!(out, "{}", line.join("  "))
    }
}
