//! `ftcoll ftco-simulate`: seeded runs of FTCO's Bcast, Reduce and Allreduce (Margolin & Barak)
//! on the single-port step model (`o = 1`), printed as `simulate` prints Corrected Tree runs.
//!
//! Every operand is `rank + 1` (so a `sum` tells how many ranks were counted; `min` and `max`
//! are selectable). Roots (ranks `< R`) are fault-immune: a fault or crash of one is refused.

use std::io::Write;

use clap::Args;
use ftcoll::automaton::{Max, Min, Reduction, Sum};
use ftcoll::protocols::ftco::{FtcoConfig, FtcoMetrics, FtcoNode, ServiceDistance, TimeoutRule};
use ftcoll::rng::SplitMix64;
use ftcoll::sim::scenario::{draw_arrivals, draw_faults, ArrivalSpec, FaultSpec, ScenarioError};
use ftcoll::sim::{self as driver, chrome_trace_json, PortModel, Report, Scenario};
use ftcoll::topology::ftco::{best_knomial, Collective, FtcoKind, FtcoTopology, Roots};
use ftcoll::topology::{LogP, TopologyError, MAX_ORDER};
use ftcoll::{Rank, Time};

use crate::admission;
use crate::args;
use crate::simulate_cmd::{self, CrashList, Printer, SimFormat};
use crate::{CliError, UsageError};

/// `--topology`: a k-ary or k-nomial tree, or the k-nomial of least fault-free latency.
#[derive(Clone, Copy, Debug)]
pub enum TopologyArg {
    /// `kary:K` or `knomial:K`.
    Kind(FtcoKind),
    /// `knomial:best`: `k` (and, with `--roots k`, `R`) from `best_knomial`.
    BestKnomial,
}

/// Parses `--topology`.
pub fn topology(s: &str) -> Result<TopologyArg, String> {
    let allowed = format!(
        "expected kary:K or knomial:K with K an integer in 2..={MAX_ORDER}, or knomial:best"
    );
    let k = |k: &str| {
        k.parse::<u64>()
            .ok()
            .filter(|k| (2..=MAX_ORDER).contains(k))
            .ok_or_else(|| format!("k = '{k}' is out of range: {allowed}"))
    };
    match s.split_once(':') {
        Some(("knomial", "best")) => Ok(TopologyArg::BestKnomial),
        Some(("kary", v)) => Ok(TopologyArg::Kind(FtcoKind::KAry(k(v)?))),
        Some(("knomial", v)) => Ok(TopologyArg::Kind(FtcoKind::KNomial(k(v)?))),
        _ => Err(allowed),
    }
}

/// Parses `--collective`.
pub fn collective(s: &str) -> Result<Collective, String> {
    match s {
        "bcast" => Ok(Collective::Bcast),
        "reduce" => Ok(Collective::Reduce),
        "allreduce" => Ok(Collective::Allreduce),
        _ => Err("expected bcast, reduce or allreduce".into()),
    }
}

/// `--roots`.
#[derive(Clone, Copy, Debug)]
pub enum RootsArg {
    /// `R` roots (1: single-root).
    Count(u64),
    /// `k`: `R = min(k, P)`, FTCO's multi-root k-nomial (Table 2).
    PerK,
}

/// Parses `--roots`.
pub fn roots(s: &str) -> Result<RootsArg, String> {
    if s == "k" {
        return Ok(RootsArg::PerK);
    }
    match s.parse::<u64>() {
        Ok(r) if (1..=ftcoll::topology::MAX_PROCS).contains(&r) => Ok(RootsArg::Count(r)),
        _ => Err("expected an integer in 1..=P (1: single-root) or k (R = k)".into()),
    }
}

/// `--service`.
#[derive(Clone, Copy, Debug)]
pub enum ServiceArg {
    /// Every step serves any distance.
    None,
    /// Randomized Service-Distance with `r = 1 / INV_R`, seeded per run.
    Rsd(u32),
    /// Deterministic Intervals Service-Distance.
    Disd,
}

/// Parses `--service`: `none`, `rsd` (`r = 1/2`), `rsd:INV_R` or `disd`.
pub fn service(s: &str) -> Result<ServiceArg, String> {
    let allowed =
        "expected none, rsd, rsd:INV_R (r = 1/INV_R, INV_R an integer in 2..=4294967295) or disd";
    match s {
        "none" => Ok(ServiceArg::None),
        "rsd" => Ok(ServiceArg::Rsd(2)),
        "disd" => Ok(ServiceArg::Disd),
        _ => match s.strip_prefix("rsd:").map(str::parse::<u32>) {
            Some(Ok(inv)) if inv >= 2 => Ok(ServiceArg::Rsd(inv)),
            _ => Err(allowed.into()),
        },
    }
}

impl std::fmt::Display for ServiceArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::None => write!(f, "none"),
            Self::Rsd(inv) => write!(f, "rsd:{inv}"),
            Self::Disd => write!(f, "disd"),
        }
    }
}

/// `--op`.
#[derive(Clone, Copy, Debug)]
pub enum OpArg {
    /// Wrapping sum.
    Sum,
    /// Minimum.
    Min,
    /// Maximum.
    Max,
}

/// Parses `--op`.
pub fn op(s: &str) -> Result<OpArg, String> {
    match s {
        "sum" => Ok(OpArg::Sum),
        "min" => Ok(OpArg::Min),
        "max" => Ok(OpArg::Max),
        _ => Err("expected sum, min or max".into()),
    }
}

fn steps(s: &str, min: u64) -> Result<u64, String> {
    let max = u64::from(u32::MAX);
    s.trim()
        .parse::<u64>()
        .ok()
        .filter(|v| (min..=max).contains(v))
        .ok_or_else(|| format!("expected an integer in {min}..={max}"))
}

/// Parses `--timeout-round-trip` (at least one step, or KEEPALIVEs would never let time pass).
pub fn round_trip(s: &str) -> Result<u64, String> {
    steps(s, 1)
}

/// Parses `--timeout-per-load`.
pub fn per_load(s: &str) -> Result<u64, String> {
    steps(s, 0)
}

/// Parses `-o` for FTCO: any integer, refused later unless 1 (so the error explains why).
pub fn any_overhead(s: &str) -> Result<u64, String> {
    s.trim()
        .parse::<u64>()
        .map_err(|_| "expected 1 (FTCO's step model has o = 1)".to_string())
}

/// `ftcoll ftco-simulate`.
#[derive(Args, Debug)]
#[command(group = clap::ArgGroup::new("fault_spec").multiple(false).args(["faults", "fault_count", "fault_rate"]))]
pub struct FtcoSimulateArgs {
    /// Number of processes P.
    #[arg(long, value_parser = args::procs)]
    procs: u64,
    /// Collective: bcast, reduce or allreduce.
    #[arg(long, value_parser = collective)]
    collective: Collective,
    /// Tree: kary:K, knomial:K (K in 2..=65536) or knomial:best (least fault-free latency).
    #[arg(long, value_parser = topology)]
    topology: TopologyArg,
    /// Roots R: 1 (single-root), an integer up to P, or k (R = k, FTCO's multi-root k-nomial).
    #[arg(long, default_value = "1", value_parser = roots)]
    roots: RootsArg,
    /// Service distance: none, rsd, rsd:INV_R (r = 1/INV_R; default 2) or disd.
    #[arg(long, default_value = "none", value_parser = service)]
    service: ServiceArg,
    /// Reduction operator over the operands rank + 1: sum, min or max.
    #[arg(long, default_value = "sum", value_parser = op)]
    op: OpArg,
    /// Timeout: steps of an unloaded round trip (default 2L + 4).
    #[arg(long, value_parser = round_trip)]
    timeout_round_trip: Option<u64>,
    /// Timeout: steps per neighbour of either end, per unit of tree distance (default 2, the
    /// library's `TimeoutRule::for_latency`).
    #[arg(long, value_parser = per_load)]
    timeout_per_load: Option<u64>,
    /// Latency L in steps.
    #[arg(short = 'L', default_value = "2", value_parser = args::latency)]
    latency: u64,
    /// Overhead o: FTCO's step model has o = 1, the only value accepted.
    #[arg(short = 'o', default_value = "1", value_parser = any_overhead)]
    overhead: u64,
    /// Ranks failed before the operation (never a root), comma-separated or @FILE.
    #[arg(long, value_parser = args::rank_list)]
    faults: Option<args::RankList>,
    /// This many random non-root ranks fail before the operation.
    #[arg(long, value_parser = clap::value_parser!(u32))]
    fault_count: Option<u32>,
    /// Every non-root rank fails before the operation with this probability.
    #[arg(long, value_parser = simulate_cmd::rate, allow_negative_numbers = true)]
    fault_rate: Option<f64>,
    /// Crashes during the operation (never a root): RANK@TIME,...
    #[arg(long, value_parser = simulate_cmd::crash_list, default_value = "")]
    crash_at: CrashList,
    /// Process arrival pattern: none, uniform:SPREAD or normal:SPREAD.
    #[arg(long, value_parser = simulate_cmd::arrival, default_value = "none")]
    arrival: ArrivalSpec,
    /// Seed of every random choice (faults, arrivals, RSD).
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
    /// Corrected Tree flags, hidden: refused with a pointer to `simulate`.
    #[command(flatten)]
    ct_only: CtOnlyFlags,
}

/// `simulate`'s Corrected Tree flags, accepted by `ftco-simulate`'s parser only to refuse them
/// with an error that says why.
#[derive(Args, Debug)]
pub struct CtOnlyFlags {
    #[arg(long, hide = true, allow_hyphen_values = true)]
    tree: Option<String>,
    #[arg(long, hide = true, allow_hyphen_values = true)]
    order: Option<String>,
    #[arg(long, hide = true, allow_hyphen_values = true)]
    correction: Option<String>,
    #[arg(long, hide = true, allow_hyphen_values = true)]
    start: Option<String>,
    #[arg(long, hide = true, allow_hyphen_values = true)]
    first_side: Option<String>,
    #[arg(long, hide = true, allow_hyphen_values = true)]
    model: Option<String>,
}

impl CtOnlyFlags {
    fn refuse(&self) -> Result<(), UsageError> {
        let given = [
            (
                "--tree",
                &self.tree,
                "--topology kary:K|knomial:K|knomial:best",
            ),
            ("--order", &self.order, "the topology's own numbering"),
            (
                "--correction",
                &self.correction,
                "FTCO's timeouts and KEEPALIVEs (--timeout-round-trip, --timeout-per-load)",
            ),
            ("--start", &self.start, "FTCO's expected arrival times"),
            ("--first-side", &self.first_side, "no ring"),
            ("--model", &self.model, "the single-port step model always"),
        ];
        match given.iter().find(|g| g.1.is_some()) {
            Some((flag, _, instead)) => Err(UsageError(format!(
                "{flag}: a Corrected Tree flag (ftcoll simulate), not accepted by ftco-simulate, which has {instead}"
            ))),
            None => Ok(()),
        }
    }
}

/// Refuses the first of `ftco-simulate`'s flags given to `simulate` (which accepts them, hidden,
/// only to say why).
pub fn refuse_ftco_flags(given: &[(&str, &Option<String>)]) -> Result<(), UsageError> {
    match given.iter().find(|g| g.1.is_some()) {
        Some((flag, _)) => Err(UsageError(format!(
            "{flag}: an FTCO flag, not accepted by simulate (Corrected Tree): use ftcoll ftco-simulate"
        ))),
        None => Ok(()),
    }
}

/// The run's parameters; the metrics follow.
const PARAMETERS: [&str; 13] = [
    "procs",
    "collective",
    "topology",
    "roots",
    "service",
    "op",
    "L",
    "o",
    "timeout_round_trip",
    "timeout_per_load",
    "seed",
    "run",
    "faults",
];

/// The metrics of one run, in [`Metrics::values`] order.
const METRICS: [&str; 16] = [
    "latency",
    "quiescence",
    "completions",
    "incomplete",
    "spread",
    "longest_queue",
    "messages",
    "data",
    "keepalive",
    "ack",
    "work",
    "work_data",
    "work_keepalive",
    "work_ack",
    "lost",
    "result",
];

/// The columns JSON quotes.
const STRINGS: [&str; 4] = ["collective", "topology", "service", "op"];

fn collective_name(c: Collective) -> &'static str {
    match c {
        Collective::Bcast => "bcast",
        Collective::Reduce => "reduce",
        Collective::Allreduce => "allreduce",
    }
}

/// Everything validated: what every run shares.
struct Plan {
    procs: u32,
    roots: u32,
    topology: FtcoTopology,
    collective: Collective,
    latency: u64,
    logp: LogP,
    timeout: TimeoutRule,
    service: ServiceArg,
    faults: FaultSpec,
    crash_at: Vec<(Rank, Time)>,
    arrivals: ArrivalSpec,
    seed: u64,
}

impl Plan {
    /// The scenario of run `run` and its pre-operation failures (ascending), and the RSD seed.
    /// Random failures are drawn among the non-roots `R..P`, as `simulate` draws them among
    /// `1..P` (the same draws when `R = 1`).
    fn build(&self, run: u64) -> Result<(Scenario, Vec<Rank>, u64), ScenarioError> {
        let mut rng = SplitMix64::stream(self.seed, run);
        let shift = self.roots - 1;
        let failed: Vec<Rank> = match &self.faults {
            FaultSpec::List(sorted) => sorted.clone(),
            spec => draw_faults(spec, self.procs - shift, &mut rng)?
                .into_iter()
                .map(|r| r + shift)
                .collect(),
        };
        let arrivals = draw_arrivals(self.arrivals, self.procs, &mut rng);
        let rsd_seed = rng.next_u64();
        let mut crashes: Vec<(Rank, Time)> = failed.iter().map(|&r| (r, 0)).collect();
        crashes.extend_from_slice(&self.crash_at);
        Ok((
            Scenario {
                logp: self.logp,
                model: PortModel::SinglePort,
                arrivals,
                crashes,
                trace: false,
            },
            failed,
            rsd_seed,
        ))
    }
}

/// Validates everything, then runs and prints each run as it completes.
pub fn ftco_simulate(a: FtcoSimulateArgs, out: &mut impl Write) -> Result<(), CliError> {
    a.ct_only.refuse()?;
    if a.overhead != 1 {
        return Err(UsageError(format!(
            "-o: FTCO's step model has o = 1 (a step sends or handles one message); got {}: allowed 1..=1",
            a.overhead
        ))
        .into());
    }
    let topology_error = |e: TopologyError| {
        let flag = match &e {
            TopologyError::OutOfRange { field: "procs", .. } => "--procs",
            TopologyError::OutOfRange { field: "k", .. } => "--topology",
            TopologyError::OutOfRange { field: "roots", .. } => "--roots",
            TopologyError::OutOfRange { field: "L", .. } => "-L",
            _ => "--topology",
        };
        UsageError(format!("{flag}: {e}"))
    };
    let procs = a.procs;
    let roots_spec = match a.roots {
        RootsArg::PerK => Roots::PerK,
        RootsArg::Count(1) => Roots::Single,
        RootsArg::Count(r) => Roots::Fixed(r),
    };
    if let RootsArg::Count(r) = a.roots {
        if r > procs {
            return Err(UsageError(format!(
                "--roots: R = {r} is out of range: allowed 1..={procs} (P) or k"
            ))
            .into());
        }
    }
    let kind = match a.topology {
        TopologyArg::Kind(kind) => kind,
        TopologyArg::BestKnomial => {
            let best =
                best_knomial(a.collective, procs, a.latency, roots_spec).map_err(topology_error)?;
            FtcoKind::KNomial(best.k)
        }
    };
    let roots = match a.roots {
        RootsArg::PerK => kind.k().min(procs),
        RootsArg::Count(r) => r,
    };
    let topology = FtcoTopology::new(kind, roots, procs).map_err(topology_error)?;
    let (p, r) = (topology.procs(), topology.roots());
    let non_roots = || {
        if r == p {
            format!(
                "every rank is a root (R = P = {p}) and roots are fault-immune: no rank may fail"
            )
        } else if r == 1 {
            format!("allowed ranks are 1..={} (the root 0 never fails)", p - 1)
        } else {
            format!(
                "allowed ranks are {r}..={} (the roots 0..={} are fault-immune)",
                p - 1,
                r - 1
            )
        }
    };
    if let Some(list) = &a.faults {
        if let Some(&rank) = list.0.iter().find(|&&x| x < r || x >= p) {
            return Err(UsageError(format!(
                "--faults: rank {rank} is not allowed: {}",
                non_roots()
            ))
            .into());
        }
        let mut sorted = list.0.clone();
        sorted.sort_unstable();
        if let Some(&(rank, time)) = a
            .crash_at
            .0
            .iter()
            .find(|(x, _)| sorted.binary_search(x).is_ok())
        {
            return Err(UsageError(format!(
                "--crash-at: rank {rank} (at {time}) is also in --faults: a rank fails before the operation or crashes during it, not both"
            ))
            .into());
        }
    }
    if let Some(&(rank, _)) = a.crash_at.0.iter().find(|&&(x, _)| x < r || x >= p) {
        return Err(UsageError(format!(
            "--crash-at: rank {rank} is not allowed: {}",
            non_roots()
        ))
        .into());
    }
    if let Some(n) = a.fault_count {
        if n > p - r {
            return Err(UsageError(format!(
                "--fault-count: {n} is out of range: allowed 0..={} (the non-roots)",
                p - r
            ))
            .into());
        }
    }
    let faults = if let Some(list) = &a.faults {
        // Sorted once here, not per run: `Plan::build` hands it out as the run's failures.
        let mut sorted = list.0.clone();
        sorted.sort_unstable();
        FaultSpec::List(sorted)
    } else if let Some(n) = a.fault_count {
        FaultSpec::Count(n)
    } else if let Some(rate) = a.fault_rate {
        FaultSpec::Rate(rate)
    } else {
        FaultSpec::None
    };
    // The library's default rule, with what the flags override.
    let default = TimeoutRule::for_latency(a.latency);
    let timeout = TimeoutRule {
        round_trip: a.timeout_round_trip.unwrap_or(default.round_trip),
        per_load: a.timeout_per_load.unwrap_or(default.per_load),
    };
    let plan = Plan {
        procs: p,
        roots: r,
        topology,
        collective: a.collective,
        latency: a.latency,
        logp: LogP::new(a.latency, 1).map_err(|e| UsageError(format!("-L: {e}")))?,
        timeout,
        service: a.service,
        faults,
        crash_at: a.crash_at.0.clone(),
        arrivals: a.arrival,
        seed: a.seed,
    };
    admission::admit(
        "--procs",
        &format!("an FTCO run of {p} processes"),
        admission::ftco_need(u64::from(p), a.trace.is_some()),
    )?;
    // Every remaining parameter error is the same for every run: the first build finds it.
    plan.build(0).map_err(scenario_error)?;
    let fixed = [
        p.to_string(),
        collective_name(a.collective).to_string(),
        kind.to_string(),
        r.to_string(),
        a.service.to_string(),
        match a.op {
            OpArg::Sum => "sum",
            OpArg::Min => "min",
            OpArg::Max => "max",
        }
        .to_string(),
        a.latency.to_string(),
        "1".to_string(),
        timeout.round_trip.to_string(),
        timeout.per_load.to_string(),
        a.seed.to_string(),
    ];
    let columns: Vec<&str> = PARAMETERS.iter().chain(&METRICS).copied().collect();
    let mut printer = Printer::new(a.format, &columns, &STRINGS);
    let runs = Runs {
        plan: &plan,
        fixed: &fixed,
        runs: a.runs,
        trace: a.trace.as_deref(),
    };
    match a.op {
        OpArg::Sum => runs.all(Sum, &mut printer, out),
        OpArg::Min => runs.all(Min, &mut printer, out),
        OpArg::Max => runs.all(Max, &mut printer, out),
    }
}

/// A fault-drawing error, naming its flag (the checks before drawing leave none in practice).
fn scenario_error(e: ScenarioError) -> UsageError {
    let flag = match e {
        ScenarioError::BadRank {
            field: "crash-at", ..
        } => "--crash-at",
        ScenarioError::BadRank { .. } => "--faults",
        ScenarioError::TooManyFaults { .. } => "--fault-count",
        ScenarioError::BadRate => "--fault-rate",
    };
    UsageError(format!(
        "{flag}: {}",
        e.to_string().split_once(": ").map_or("", |x| x.1)
    ))
}

/// Rank `r`'s operand: `r + 1`.
fn operand(rank: Rank) -> u64 {
    u64::from(rank) + 1
}

struct Runs<'a> {
    plan: &'a Plan,
    fixed: &'a [String],
    runs: u64,
    trace: Option<&'a std::path::Path>,
}

impl Runs<'_> {
    fn all<R>(&self, op: R, printer: &mut Printer<'_>, out: &mut impl Write) -> Result<(), CliError>
    where
        R: Reduction<Value = u64> + Clone + Eq + core::hash::Hash,
    {
        let plan = self.plan;
        let mut config = FtcoConfig::new(plan.topology, plan.collective, op, operand, plan.latency)
            .map_err(|e| UsageError(format!("-L: {e}")))?;
        config.timeout = plan.timeout;
        let bar = admission::progress(
            Some(self.runs),
            "{msg} [{elapsed_precise}] {wide_bar} {pos}/{len} runs ({eta})",
            "ftco-simulate",
        );
        if !bar.is_hidden() && (self.runs == 1 || plan.procs >= 1 << 20) {
            bar.enable_steady_tick(std::time::Duration::from_millis(250));
        }
        for run in 0..self.runs {
            let (mut scenario, faults, rsd_seed) = plan.build(run).map_err(scenario_error)?;
            config.service = match plan.service {
                ServiceArg::None => ServiceDistance::None,
                ServiceArg::Disd => ServiceDistance::Disd,
                ServiceArg::Rsd(inverse_r) => ServiceDistance::Rsd {
                    inverse_r,
                    seed: rsd_seed,
                },
            };
            scenario.trace = run == 0 && self.trace.is_some();
            let mut report = driver::run_observed::<FtcoNode<R>>(
                &config,
                plan.procs,
                &scenario,
                driver::default_budget(plan.procs),
                |rep: &Report<u64>| {
                    if !bar.is_hidden() {
                        bar.set_message(format!(
                            "ftco-simulate run {run}: t = {}, {} events",
                            rep.last_activity, rep.events
                        ))
                    }
                },
            )
            .map_err(|e| UsageError(format!("simulation: {e}")))?;
            if let (true, Some(path)) = (scenario.trace, self.trace) {
                let json = chrome_trace_json(&std::mem::take(&mut report.trace), 1);
                std::fs::write(path, json).map_err(|e| {
                    UsageError(format!("--trace: cannot write {}: {e}", path.display()))
                })?;
            }
            let metrics = metrics(&report, plan.collective);
            drop(report);
            let faults: Vec<String> = faults.iter().map(u32::to_string).collect();
            let mut row = self.fixed.to_vec();
            row.extend([run.to_string(), faults.join(" ")]);
            row.extend(metrics);
            printer.row(row, out)?;
            bar.inc(1);
        }
        printer.finish(out)?;
        bar.finish_and_clear();
        Ok(())
    }
}

/// The [`METRICS`] columns of one run: the library's [`FtcoMetrics`] (their definitions), and
/// work as messages per process.
fn metrics(report: &Report<u64>, collective: Collective) -> Vec<String> {
    let m = FtcoMetrics::from_report(report, collective);
    let per_node = |n: u64| (n as f64 / f64::from(report.procs.max(1))).to_string();
    vec![
        m.latency.to_string(),
        m.quiescence.to_string(),
        m.completions.to_string(),
        m.incomplete.to_string(),
        m.spread.to_string(),
        m.longest_queue.to_string(),
        m.messages.to_string(),
        m.data.to_string(),
        m.keepalive.to_string(),
        m.ack.to_string(),
        per_node(m.messages),
        per_node(m.data),
        per_node(m.keepalive),
        per_node(m.ack),
        m.lost.to_string(),
        m.result.map_or_else(String::new, |v| v.to_string()),
    ]
}
