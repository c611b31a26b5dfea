//! FTCO's Bcast, Reduce and Allreduce (Margolin & Barak) in the CLI, on the single-port step
//! model (`o = 1`): `ftcoll simulate --collective …` (and its alias `ftco-simulate`) prints
//! runs as it prints Corrected Tree runs; `ftcoll sweep --collective …` summarizes grids of them.
//! One plan ([`FtcoPlan`]) runs both.
//!
//! Every operand is `rank + 1` (so a `sum` tells how many ranks were counted; `min` and `max`
//! are selectable). Roots (ranks `< R`) are fault-immune: a fault or crash of one is refused and
//! random draws never pick one — unless `--root-failure replaced`, where every rank may fail.

use std::io::Write;

use crate::experiment::ftco::{self as experiment, RuntimeFaults};
use crate::ftco_metrics::FtcoMetrics;
use ftcoll::automaton::{Max, Min, Reduction, Sum};
use ftcoll::protocols::ftco::{
    EtaRule, FtcoConfig, FtcoNode, Imbalance, RootFailure, ServiceDistance, TimeoutRule,
};
use ftcoll::topology::ftco::{best_knomial, Collective, FtcoKind, FtcoTopology, Roots};
use ftcoll::topology::{LogP, TopologyError};
use ftcoll::{Rank, Time};
use ftcoll_sim::scenario::{ArrivalSpec, FaultSpec, ScenarioError, ScenarioSpec};
use ftcoll_sim::{self as driver, IgnoredMessages, PortModel, Report, Scenario};

use crate::cli::admission;
use crate::cli::flags::ftco::{
    collective_name, root_failure_name, FtcoFlags, ImbalanceArg, OpArg, RandomCrashes, RootsArg,
    ServiceArg, TopologyArg,
};
use crate::cli::simulate_args::{scenario_error, Printer, SimulateArgs};
use crate::cli::{CliError, UsageError};

/// The FTCO tree of `P` ranks a topology and roots argument describe (`knomial:best` resolved
/// with `best_knomial`), or the one-line error naming the flag.
pub(super) fn resolve_topology(
    procs: u32,
    collective: Collective,
    topology: TopologyArg,
    roots: RootsArg,
    latency: u64,
) -> Result<FtcoTopology, UsageError> {
    let topology_error = |e: TopologyError| {
        let flag = match &e {
            TopologyError::OutOfRange { field: "procs", .. } => "--procs",
            TopologyError::OutOfRange { field: "roots", .. } => "--roots",
            TopologyError::OutOfRange { field: "L", .. } => "-L",
            _ => "--topology",
        };
        UsageError(format!("{flag}: {e}"))
    };
    if let RootsArg::Count(r) = roots {
        if r > u64::from(procs) {
            return Err(UsageError(format!(
                "--roots: R = {r} is out of range: allowed 1..={procs} (P) or k"
            )));
        }
    }
    let roots_spec = match roots {
        RootsArg::PerK => Roots::PerK,
        RootsArg::Count(1) => Roots::Single,
        RootsArg::Count(r) => Roots::Fixed(r),
    };
    let kind = match topology {
        TopologyArg::Kind(kind) => kind,
        TopologyArg::BestKnomial => {
            let best =
                best_knomial(collective, procs, latency, roots_spec).map_err(topology_error)?;
            FtcoKind::KNomial(best.k)
        }
    };
    let r = match roots {
        RootsArg::PerK => kind.k().min(u64::from(procs)),
        RootsArg::Count(r) => r,
    };
    FtcoTopology::new(kind, r, procs).map_err(topology_error)
}

/// Everything validated: what every run of one FTCO configuration shares.
#[derive(Debug)]
pub(super) struct FtcoPlan {
    /// The tree.
    pub topology: FtcoTopology,
    /// The collective.
    pub collective: Collective,
    /// `L` in steps.
    pub latency: u64,
    /// `f_timeout`.
    pub timeout: TimeoutRule,
    /// The slack of the result's `f_ETA`.
    pub eta: EtaRule,
    /// The service-distance function (RSD seeded per run).
    pub service: ServiceArg,
    /// Arrivals as the driver's (off) or as Alg. 5's start times.
    pub imbalance: ImbalanceArg,
    /// Whether rank 0 may fail.
    pub root_failure: RootFailure,
    /// Faults before the operation, listed crashes and arrivals; `immune` is the fault-immune
    /// prefix (`R`, or 0 with root replacement).
    pub spec: ScenarioSpec,
    /// Random run-time faults (sweeps), drawn after everything else of the run.
    pub random_crashes: Option<RandomCrashes>,
}

/// What one run gives: the library's metrics, the failures before the operation, the ranks
/// crashing during it, and Table 2's latency.
#[derive(Debug)]
pub(super) struct Outcome {
    /// [`FtcoMetrics`] of the run.
    pub metrics: FtcoMetrics<u64>,
    /// Ranks failed before the operation, ascending.
    pub failed: Vec<Rank>,
    /// `FinishTime_last − StartTime_last` (FTCO §5.2.4, Table 2): the last completion (Bcast:
    /// delivery) after the last live process started (arrived); the latency without arrivals.
    pub latency_from_last_start: Time,
}

impl FtcoPlan {
    /// Checks that the plan describes runs (the draws of run 0 find every error that does not
    /// depend on the run) and that a configuration can be built.
    pub(super) fn check(&self, seed: u64) -> Result<(), UsageError> {
        if !self
            .root_failure
            .applies_to(self.collective, self.topology.roots())
        {
            return Err(UsageError(format!(
                "--root-failure: replaced applies to a single-root reduce or allreduce (this is a{} {} with R = {}); allowed: immune",
                if self.collective == Collective::Allreduce { "n" } else { "" },
                collective_name(self.collective),
                self.topology.roots()
            )));
        }
        if let Some(c) = self.random_crashes {
            let max = self.spec.procs.saturating_sub(self.spec.immune);
            let before = match self.spec.faults {
                FaultSpec::Count(n) => n,
                _ => 0,
            };
            if u64::from(c.count) + u64::from(before) > u64::from(max) {
                return Err(UsageError(format!(
                    "--crashes: {c} with {before} inactive ranks is out of range: at most {max} ranks may fail (P − {} fault-immune)",
                    self.spec.immune
                )));
            }
        }
        self.config(Sum)?;
        self.scenario(seed, 0).map_err(scenario_error)?;
        Ok(())
    }

    /// A configuration with operator `op` (the service is set per run).
    pub(super) fn config<R: Reduction<Value = u64>>(
        &self,
        op: R,
    ) -> Result<FtcoConfig<R>, UsageError> {
        let mut config = FtcoConfig::new(self.topology, self.collective, op, operand, self.latency)
            .map_err(|e| UsageError(format!("-L: {e}")))?;
        config.timeout = self.timeout;
        config.eta = self.eta;
        config.root_failure = self.root_failure;
        Ok(config)
    }

    /// The scenario of run `run`, its failures before the operation, the RSD seed and the
    /// start times (all drawn from `SplitMix64::stream(seed, run)` in this order: failures,
    /// arrivals, RSD seed, random crashes).
    pub(super) fn scenario(
        &self,
        seed: u64,
        run: u64,
    ) -> Result<(Scenario, Vec<Rank>, u64), ScenarioError> {
        let runtime = self
            .random_crashes
            .map_or(RuntimeFaults::default(), |c| RuntimeFaults {
                count: c.count,
                from: c.from,
                to: c.to,
            });
        experiment::draw_run(&self.spec, runtime, seed, run)
    }

    /// Runs run `run` with `config` (its service and imbalance set here); `trace` records the
    /// run's trace into the report; `observe` sees the report as the run goes.
    pub(super) fn run<R>(
        &self,
        config: &mut FtcoConfig<R>,
        seed: u64,
        run: u64,
        trace: bool,
        observe: impl FnMut(&Report<u64>),
    ) -> Result<(Outcome, Report<u64>), UsageError>
    where
        R: Reduction<Value = u64> + Clone + Eq + core::hash::Hash,
    {
        let (mut scenario, failed, rsd_seed) = self.scenario(seed, run).map_err(scenario_error)?;
        config.service = match self.service {
            ServiceArg::None => ServiceDistance::None,
            ServiceArg::Disd => ServiceDistance::Disd,
            ServiceArg::Rsd(inverse_r) => ServiceDistance::Rsd {
                inverse_r,
                seed: rsd_seed,
            },
        };
        // The start times: Alg. 5's, or the driver's arrivals (empty: everyone at 0).
        let start = experiment::enter(config, &mut scenario, self.imbalance == ImbalanceArg::Alg5);
        scenario.trace = trace;
        let procs = self.spec.procs;
        let report = driver::run_observed::<FtcoNode<R>>(
            config,
            procs,
            &scenario,
            driver::default_budget(procs),
            observe,
        )
        .map_err(|e| UsageError(format!("simulation: {e}")))?;
        config.imbalance = Imbalance::Off;
        let metrics = FtcoMetrics::from_report(&report, self.collective);
        let latency_from_last_start =
            experiment::latency_from_last_start(&report, &start, self.collective);
        Ok((
            Outcome {
                metrics,
                failed,
                latency_from_last_start,
            },
            report,
        ))
    }
}

/// Rank `r`'s operand: `r + 1`.
fn operand(rank: Rank) -> u64 {
    u64::from(rank) + 1
}

/// The run's parameters; the metrics follow.
const PARAMETERS: [&str; 16] = [
    "procs",
    "collective",
    "topology",
    "roots",
    "service",
    "op",
    "imbalance",
    "root_failure",
    "L",
    "o",
    "timeout_round_trip",
    "timeout_per_load",
    "eta",
    "seed",
    "run",
    "faults",
];

/// The metrics of one run, in [`metrics`] order.
const METRICS: [&str; 17] = [
    "latency",
    "latency_from_last_start",
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
const STRINGS: [&str; 7] = [
    "collective",
    "topology",
    "service",
    "op",
    "imbalance",
    "root_failure",
    "eta",
];

/// `simulate --collective …`: validates everything, then runs and prints each run as it
/// completes.
pub(super) fn simulate(
    a: &SimulateArgs,
    flags: &FtcoFlags,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let Some(collective) = flags.collective else {
        return Err(
            UsageError("--collective: FTCO needs bcast, reduce or allreduce".into()).into(),
        );
    };
    if let Some(flag) = a.ct_flag_given() {
        return Err(UsageError(format!(
            "{flag}: a Corrected Tree flag, not accepted with --collective (FTCO), which has {}",
            match flag {
                "--tree" => "--topology kary:K|knomial:K|knomial:best",
                "--order" => "the topology's own numbering",
                "--correction" =>
                    "FTCO's timeouts and KEEPALIVEs (--timeout-round-trip, --timeout-per-load)",
                "--start" => "FTCO's expected arrival times",
                "--first-side" => "no ring",
                "--engine" => "one engine, the driver",
                _ => "the single-port step model always",
            }
        ))
        .into());
    }
    if a.overhead != 1 {
        return Err(UsageError(format!(
            "-o: FTCO's step model has o = 1 (a step sends or handles one message); got {}: allowed 1..=1",
            a.overhead
        ))
        .into());
    }
    let Some(topology_arg) = flags.topology else {
        return Err(UsageError(
            "--topology: FTCO needs a tree: kary:K, knomial:K or knomial:best".into(),
        )
        .into());
    };
    let roots_arg = flags.roots.unwrap_or(RootsArg::Count(1));
    let topology = resolve_topology(a.procs, collective, topology_arg, roots_arg, a.latency)?;
    let (p, r) = (topology.procs(), topology.roots());
    let root_failure = flags.root_failure.unwrap_or_default();
    let service = flags.service.unwrap_or(ServiceArg::None);
    let imbalance = flags.imbalance.unwrap_or(ImbalanceArg::Off);
    let op = flags.op.unwrap_or(OpArg::Sum);
    a.check_faults_against_crashes()?;
    // The library's default rule, with what the flags override.
    let default = TimeoutRule::for_latency(a.latency);
    let timeout = TimeoutRule {
        round_trip: flags.timeout_round_trip.unwrap_or(default.round_trip),
        per_load: flags.timeout_per_load.unwrap_or(default.per_load),
    };
    let immune = if root_failure == RootFailure::ReplacedByChildren {
        0
    } else {
        r
    };
    let mut plan = FtcoPlan {
        topology,
        collective,
        latency: a.latency,
        timeout,
        eta: flags.eta.unwrap_or_default(),
        service,
        imbalance,
        root_failure,
        spec: ScenarioSpec {
            procs: p,
            logp: LogP::new(a.latency, 1).map_err(|e| UsageError(format!("-L: {e}")))?,
            model: PortModel::SinglePort,
            immune,
            faults: a.fault_spec(),
            crash_at: a.crash_at.0.clone(),
            arrivals: ArrivalSpec::None,
            ignored: IgnoredMessages::Charged,
        },
        random_crashes: None,
    };
    admission::admit(
        "--procs",
        &format!("an FTCO run of {p} processes"),
        admission::ftco_need(p, a.trace.is_some()),
    )?;
    // Every remaining parameter error is the same for every run: the first build finds it.
    // An arrival file is read once P is admitted (P times of 8 bytes).
    let arrival = a
        .arrival
        .resolve(p)
        .map_err(|e| UsageError(format!("--arrival: {e}")))?;
    plan.spec.arrivals = arrival;
    plan.check(a.seed)?;
    let fixed = [
        p.to_string(),
        collective_name(collective).to_string(),
        topology.kind().to_string(),
        r.to_string(),
        service.to_string(),
        match op {
            OpArg::Sum => "sum",
            OpArg::Min => "min",
            OpArg::Max => "max",
        }
        .to_string(),
        imbalance.to_string(),
        root_failure_name(root_failure).to_string(),
        a.latency.to_string(),
        "1".to_string(),
        timeout.round_trip.to_string(),
        timeout.per_load.to_string(),
        plan.eta.to_string(),
        a.seed.to_string(),
    ];
    let columns: Vec<&str> = PARAMETERS.iter().chain(&METRICS).copied().collect();
    let mut printer = Printer::new(a.format, &columns, &STRINGS);
    let runs = Runs {
        plan: &plan,
        fixed: &fixed,
        runs: a.runs,
        seed: a.seed,
        trace: a.trace.as_deref(),
    };
    match op {
        OpArg::Sum => runs.all(Sum, &mut printer, out),
        OpArg::Min => runs.all(Min, &mut printer, out),
        OpArg::Max => runs.all(Max, &mut printer, out),
    }
}

struct Runs<'a> {
    plan: &'a FtcoPlan,
    fixed: &'a [String],
    runs: u64,
    seed: u64,
    trace: Option<&'a std::path::Path>,
}

impl Runs<'_> {
    fn all<R>(&self, op: R, printer: &mut Printer<'_>, out: &mut impl Write) -> Result<(), CliError>
    where
        R: Reduction<Value = u64> + Clone + Eq + core::hash::Hash,
    {
        let plan = self.plan;
        let mut config = plan.config(op)?;
        let bar = admission::progress(
            Some(self.runs),
            "{msg} [{elapsed_precise}] {wide_bar} {pos}/{len} runs ({eta})",
            "simulate (FTCO)",
        );
        if !bar.is_hidden() && (self.runs == 1 || plan.spec.procs >= 1 << 20) {
            bar.enable_steady_tick(std::time::Duration::from_millis(250));
        }
        for run in 0..self.runs {
            let trace = run == 0 && self.trace.is_some();
            let (outcome, mut report) =
                plan.run(&mut config, self.seed, run, trace, |rep: &Report<u64>| {
                    if !bar.is_hidden() {
                        bar.set_message(format!(
                            "simulate (FTCO) run {run}: t = {}, {} events",
                            rep.last_activity, rep.events
                        ))
                    }
                })?;
            if let (true, Some(path)) = (trace, self.trace) {
                let json =
                    crate::chrome_trace::chrome_trace_json(&std::mem::take(&mut report.trace), 1);
                std::fs::write(path, json).map_err(|e| {
                    UsageError(format!("--trace: cannot write {}: {e}", path.display()))
                })?;
            }
            let procs = report.procs;
            drop(report);
            let faults: Vec<String> = outcome.failed.iter().map(u32::to_string).collect();
            let mut row = self.fixed.to_vec();
            row.extend([run.to_string(), faults.join(" ")]);
            row.extend(metrics(&outcome, procs));
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
fn metrics(outcome: &Outcome, procs: u32) -> Vec<String> {
    let m = &outcome.metrics;
    let per_node = |n: u64| (n as f64 / f64::from(procs.max(1))).to_string();
    vec![
        m.latency.to_string(),
        outcome.latency_from_last_start.to_string(),
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
