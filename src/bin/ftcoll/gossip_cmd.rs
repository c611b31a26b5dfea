//! `ftcoll gossip-plan`: CG's model-driven gossip time `T` and correction time `C` (CG Lemma 1,
//! Eq. 2–5, Appendix B; `ftcoll::protocols::gossip::plan`).

use std::io::Write;

use clap::Args;
use ftcoll::protocols::gossip::plan::{Model, PlanError, PlanProtocol, MAX_MODEL_PROCS};
use ftcoll::topology::LogP;

use crate::args;
use crate::{CliError, UsageError};

/// `ftcoll gossip-plan`.
#[derive(Args, Debug)]
pub struct GossipPlanArgs {
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

fn probability(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v < 1.0 => Ok(v),
        _ => Err("expected a probability strictly between 0 and 1 (e.g. 6.9315e-7)".to_string()),
    }
}

fn flag_error(e: PlanError) -> UsageError {
    let PlanError::OutOfRange { field, allowed } = &e;
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
pub fn gossip_plan(a: GossipPlanArgs, out: &mut impl Write) -> Result<(), CliError> {
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
    for protocol in [PlanProtocol::Ocg, PlanProtocol::Ccg, PlanProtocol::Fcg] {
        plans.push(model.plan(protocol, a.delta).map_err(flag_error)?);
    }
    writeln!(
        out,
        "# CG model (Lemma 1, Eq. 2-5): N={} n={} L={} O={} delta={:e}",
        a.procs, active, a.latency, a.overhead, a.delta
    )?;
    writeln!(
        out,
        "# T: Eq. 3/4/5 minimizer (ties: smallest tail); T+O: the paper's margin; C: correction \
         time; K: K-bar (OCG, CCG) or G_5 (FCG, f = 1); latency: predicted at T"
    )?;
    writeln!(out, "protocol T T+O C K latency gnodes")?;
    for p in plans {
        writeln!(
            out,
            "{} {} {} {} {} {} {:.3}",
            p.protocol,
            p.t,
            p.recommended_t(),
            p.correction,
            p.chain.bound,
            p.latency,
            p.gnodes
        )?;
    }
    Ok(())
}
