//! `ftcoll simulate`: one or more seeded runs of a Corrected Tree broadcast under LogP (FTCO with
//! `--collective`, Corrected Gossip with `--gossip`).

use std::io::Write;

use crate::ct_metrics::CtMetrics;
use crate::experiment::fast_path_applies_to;
use crate::fastpath::{SyncChecked, Workspace};
use ftcoll::protocols::corrected_tree::{CorrectedTreeConfig, CorrectedTreeNode, StartMode};
use ftcoll::protocols::Side;
use ftcoll::topology::{LogP, Order, Tree};
use ftcoll::{Rank, Time};
use ftcoll_sim::scenario::{self, ArrivalSpec, FaultSpec};
use ftcoll_sim::{self as driver, IgnoredMessages, PortModel, Report};

use crate::cli::admission;
use crate::cli::flags::{ArrivalArg, Engine, ModelArg, SideArg, StartArg};
use crate::cli::simulate_args::{scenario_error, Printer, SimulateArgs};
use crate::cli::{CliError, UsageError};

/// The run's parameters; the metric columns follow, [`CtMetrics::NAMES`] after `faults`.
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

/// Runs the simulations; validates everything before printing, then prints each run as it
/// completes (memory stays that of one run, whatever `--runs`).
pub(super) fn simulate(a: SimulateArgs, out: &mut impl Write) -> Result<(), CliError> {
    if a.gossip.gossip.is_some() {
        return crate::cli::gossip_cmd::simulate(&a, out);
    }
    if let Some(flag) = a.gossip.first_given() {
        return Err(UsageError(format!(
            "{flag}: a Corrected Gossip flag, accepted only with --gossip gos|ocg|ccg|fcg:F"
        ))
        .into());
    }
    if a.ftco.collective.is_some() {
        return crate::cli::ftco_cmd::simulate(&a, &a.ftco, out);
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
        .chain(&CtMetrics::NAMES[1..])
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
            let json = crate::chrome_trace::chrome_trace_json(
                &std::mem::take(&mut report.trace),
                a.overhead,
            );
            if let Some(path) = &a.trace {
                std::fs::write(path, json).map_err(|e| {
                    UsageError(format!("--trace: cannot write {}: {e}", path.display()))
                })?;
            }
        }
        let metrics = CtMetrics::from_report(&report, deadline, faults.len() as u64);
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
    metrics: &CtMetrics,
) -> Vec<String> {
    let faults: Vec<String> = faults.iter().map(u32::to_string).collect();
    let mut row = fixed.to_vec();
    row.extend([run.to_string(), deadline.to_string(), faults.join(" ")]);
    row.extend(metrics.values()[1..].iter().map(u64::to_string));
    row
}
