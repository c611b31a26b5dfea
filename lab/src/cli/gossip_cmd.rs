//! `ftcoll gossip-plan`: CG's model-driven gossip time `T` and correction time `C` (CG Lemma 1,
//! Eq. 2–5, Appendix B; `ftcoll::protocols::gossip::plan`), and `ftcoll simulate --gossip`: runs
//! of GOS, OCG, CCG, FCG(f), BIG and BFB (`crate::experiment::cg::CgPoint`).

use std::io::Write;

use crate::experiment::cg::{auto_timing, CgPoint, CgProtocol, DELTA};
use clap::Args;
use ftcoll::protocols::gossip::plan::{Model, PlanError, PlanProtocol, MAX_MODEL_PROCS};
use ftcoll::topology::LogP;
use ftcoll_sim::scenario::{ArrivalSpec, FaultSpec, ScenarioSpec};
use ftcoll_sim::PortModel;

use crate::cli::admission;
use crate::cli::args;
use crate::cli::flags::gossip::{ignored_name, probability, TimeArg};
use crate::cli::simulate_args::{scenario_error, Printer, SimulateArgs};
use crate::cli::{CliError, UsageError};

/// `ftcoll gossip-plan`.
#[derive(Args, Debug)]
pub(super) struct GossipPlanArgs {
    /// Number of processes N (2..=16777216).
    #[arg(long, value_parser = model_procs)]
    procs: u32,
    /// Active processes n (1..=N; default N).
    #[arg(long, value_parser = model_procs_or_one)]
    active: Option<u32>,
    /// LogP latency L (steps; a multiple of -o).
    #[arg(short = 'L', default_value = "2", value_parser = args::latency)]
    latency: u64,
    /// LogP overhead o (steps).
    #[arg(short = 'o', default_value = "1", value_parser = args::overhead)]
    overhead: u64,
    /// δ: the accepted probability that the longest gap exceeds the bound (default: the
    /// paper's 6.9315e-7, 50 % that 10^6 runs all succeed).
    #[arg(long, default_value = "6.9315e-7", value_parser = probability)]
    delta: f64,
}

fn model_procs(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(v) if (2..=MAX_MODEL_PROCS).contains(&v) => Ok(v),
        _ => Err(format!("expected an integer in 2..={MAX_MODEL_PROCS}")),
    }
}

fn model_procs_or_one(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(v) if (1..=MAX_MODEL_PROCS).contains(&v) => Ok(v),
        _ => Err(format!(
            "expected an integer in 1..={MAX_MODEL_PROCS} (and at most --procs)"
        )),
    }
}

fn flag_error(e: PlanError) -> UsageError {
    let PlanError::OutOfRange { field, allowed } = &e else {
        return UsageError(e.to_string());
    };
    let flag = match *field {
        "procs" => "--procs",
        "active" => "--active",
        "L" => "-L",
        "delta" => "--delta",
        _ => "input",
    };
    UsageError(format!("{flag}: expected {allowed}"))
}

/// Prints, for OCG, CCG and FCG (f = 1): the model's `T`, `T + O` (the paper's margin), the
/// correction time `C`, the chain bound (`K̄`, or `Ḡ_5` for FCG), the predicted latency at `T`
/// and the expected g-nodes `c(T + L + O)`.
pub(super) fn gossip_plan(a: GossipPlanArgs, out: &mut impl Write) -> Result<(), CliError> {
    let active = a.active.unwrap_or(a.procs);
    if active > a.procs {
        return Err(UsageError(format!(
            "--active: expected an integer in 1..={} (at most --procs)",
            a.procs
        ))
        .into());
    }
    let logp = LogP::new(a.latency, a.overhead).map_err(|e| UsageError(format!("-L/-o: {e}")))?;
    let model = Model::new(a.procs, active, logp).map_err(flag_error)?;
    let mut plans = Vec::new();
    let mut unplanned = Vec::new();
    for protocol in [PlanProtocol::Ocg, PlanProtocol::Ccg, PlanProtocol::Fcg] {
        match model.plan(protocol, a.delta) {
            Ok(plan) => plans.push(plan),
            // FCG's model needs N >= 5: its row says so instead of hiding OCG's and CCG's.
            Err(PlanError::OutOfRange {
                field: "procs",
                allowed,
            }) => unplanned.push((protocol, allowed)),
            Err(e) => return Err(flag_error(e).into()),
        }
    }
    writeln!(
        out,
        "# CG model (Lemma 1, Eq. 2-5): N={} n={} L={} O={} delta={:e}",
        a.procs, active, a.latency, a.overhead, a.delta
    )?;
    writeln!(
        out,
        "# T: Eq. 3/4/5 minimizer (ties: smallest tail); T+O: the paper's margin, the T a run uses; \
         C: correction time at T; K: K-bar (OCG, CCG) or G_5 (FCG, f = 1); latency: predicted \
         at T; run_C: the correction time at T+O, the C a run uses"
    )?;
    writeln!(out, "protocol T T+O C K latency gnodes run_C")?;
    for p in plans {
        writeln!(
            out,
            "{} {} {} {} {} {} {:.3} {}",
            p.protocol,
            p.t,
            p.recommended_t(),
            p.correction,
            p.chain.bound,
            p.latency,
            p.gnodes,
            p.run_correction
        )?;
    }
    for (protocol, allowed) in unplanned {
        writeln!(out, "{protocol} - - - - - - -")?;
        writeln!(
            out,
            "# {protocol}: no plan at N={}: --procs {allowed}",
            a.procs
        )?;
    }
    Ok(())
}

/// The columns of a gossip run.
const COLUMNS: [&str; 21] = [
    "procs",
    "protocol",
    "L",
    "o",
    "T",
    "C",
    "delta",
    "seed",
    "run",
    "faults",
    "crashes",
    "coloring_latency",
    "quiescence_latency",
    "completion_latency",
    "messages",
    "messages_dissemination",
    "messages_correction",
    "messages_acknowledgment",
    "undelivered",
    "gnodes",
    "ignored_messages",
];

/// The `T` and `C` a gossip point runs with, as [`timing`] resolves them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Timing {
    /// `T` (0 for BIG and BFB, which have no gossip phase).
    pub t: u64,
    /// OCG's `C` (0 for the others).
    pub c: u64,
    /// Whether CG's model chose `T` or `C` (then `delta` matters).
    pub needs_model: bool,
}

/// Resolves `--gossip-time` and `--correction-time` for `protocol` on `spec` (checked by
/// building run 0's failures): `auto` asks CG's model at `delta` with `n` = the processes not
/// failed before the operation in run 0 (a rate: its expectation), steps are taken as given;
/// `simulate --gossip` and `sweep --gossip` resolve every point this way.
pub(super) fn timing(
    protocol: CgProtocol,
    spec: &ScenarioSpec,
    seed: u64,
    t_arg: TimeArg,
    c_arg: TimeArg,
    delta: f64,
) -> Result<Timing, UsageError> {
    let procs = spec.procs;
    let (_, faults) = spec.build(seed, 0).map_err(scenario_error)?;
    // The model's n: the processes not failed before the operation (a rate: its expectation).
    let failed_before = match &spec.faults {
        FaultSpec::Rate(r) => (f64::from(procs - 1) * r).round() as u32,
        _ => faults.len() as u32,
    };
    let active = procs.saturating_sub(failed_before).max(1);
    let needs_model = protocol.gossips()
        && (t_arg == TimeArg::Auto || (protocol == CgProtocol::Ocg && c_arg == TimeArg::Auto));
    let (auto_t, auto_c) = if needs_model {
        auto_timing(protocol, procs, active, spec.logp, delta).map_err(|e| {
            let flag = if t_arg == TimeArg::Auto {
                "--gossip-time"
            } else {
                "--correction-time"
            };
            UsageError(format!(
                "{flag}: auto needs CG's model, which refuses these parameters ({e}); give the time in steps"
            ))
        })?
    } else {
        (0, 0)
    };
    let t = match t_arg {
        TimeArg::Steps(t) if protocol.gossips() => t,
        _ => auto_t,
    };
    let c = match c_arg {
        TimeArg::Steps(c) if protocol == CgProtocol::Ocg => c,
        _ => auto_c,
    };
    Ok(Timing { t, c, needs_model })
}

/// `simulate --gossip P …`: validates every flag, then prints one row per run as it completes
/// (the numbers of `crate::experiment::cg::CgPoint::run`, which `reproduce cg` uses too).
pub(super) fn simulate(a: &SimulateArgs, out: &mut impl Write) -> Result<(), CliError> {
    let flags = &a.gossip;
    let Some(protocol) = flags.gossip else {
        return Err(
            UsageError("--gossip: expected gos, ocg, ccg, fcg:F, big or bfb".into()).into(),
        );
    };
    if let Some(flag) = a.ct_flag_given().or(a.ftco.first_given()) {
        return Err(UsageError(format!(
            "{flag}: not accepted with --gossip (a gossip run takes --gossip-time, --correction-time, --delta)"
        ))
        .into());
    }
    if a.trace.is_some() {
        return Err(UsageError("--trace: not available with --gossip yet".into()).into());
    }
    if !protocol.gossips() {
        if let Some(flag) = flags.first_given() {
            return Err(UsageError(format!(
                "{flag}: {protocol} has no gossip phase: --gossip-time, --correction-time and --delta apply to gos, ocg, ccg and fcg:F"
            ))
            .into());
        }
    }
    if protocol != CgProtocol::Ocg && flags.correction_time.is_some() {
        return Err(UsageError(format!(
            "--correction-time: only OCG has a fixed correction time (got --gossip {protocol}); allowed with --gossip ocg"
        ))
        .into());
    }
    let logp = LogP::new(a.latency, a.overhead).map_err(|e| UsageError(format!("-L/-o: {e}")))?;
    let procs = a.procs;
    a.check_faults_against_crashes()?;
    let spec = ScenarioSpec {
        procs,
        logp,
        model: PortModel::DualPort,
        immune: 1,
        faults: a.fault_spec(),
        crash_at: a.crash_at.0.clone(),
        arrivals: ArrivalSpec::None,
        ignored: flags.ignored_messages.unwrap_or_default(),
    };
    let need = admission::driver_need(procs, false);
    admission::admit("--procs", &format!("a run of {procs} processes"), need)?;
    let spec = ScenarioSpec {
        arrivals: a
            .arrival
            .resolve(procs)
            .map_err(|e| UsageError(format!("--arrival: {e}")))?,
        ..spec
    };
    let delta = flags.delta.unwrap_or(DELTA);
    let t_arg = flags.gossip_time.unwrap_or(TimeArg::Auto);
    let c_arg = flags.correction_time.unwrap_or(TimeArg::Auto);
    let Timing { t, c, needs_model } = timing(protocol, &spec, a.seed, t_arg, c_arg, delta)?;
    let point = CgPoint::new(protocol, spec, t, c);
    let fixed = [
        procs.to_string(),
        protocol.to_string(),
        a.latency.to_string(),
        a.overhead.to_string(),
        if protocol.gossips() {
            t.to_string()
        } else {
            String::new()
        },
        if protocol == CgProtocol::Ocg {
            c.to_string()
        } else {
            String::new()
        },
        if needs_model {
            format!("{delta:e}")
        } else {
            String::new()
        },
        a.seed.to_string(),
    ];
    let mut printer = Printer::new(
        a.format,
        &COLUMNS,
        &["protocol", "crashes", "ignored_messages"],
    );
    for run in 0..a.runs {
        let r = point
            .run(a.seed, run)
            .map_err(|e| UsageError(format!("simulation: {}", e.0)))?;
        let mut row = fixed.to_vec();
        let faults: Vec<String> = r.faults.iter().map(u32::to_string).collect();
        let crashes: Vec<String> = r.crashes.iter().map(|(k, t)| format!("{k}@{t}")).collect();
        row.extend([
            run.to_string(),
            faults.join(" "),
            crashes.join(" "),
            r.coloring_latency.to_string(),
            r.quiescence_latency.to_string(),
            r.completion_latency
                .map_or(String::new(), |t| t.to_string()),
            r.work().to_string(),
            r.messages[0].to_string(),
            r.messages[1].to_string(),
            r.messages[2].to_string(),
            r.undelivered.to_string(),
            r.gnodes.to_string(),
            ignored_name(point.spec.ignored).to_string(),
        ]);
        printer.row(row, out)?;
    }
    printer.finish(out)?;
    Ok(())
}
