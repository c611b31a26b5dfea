//! `ftcoll pap-simulate`: seeded broadcasts of one PAP algorithm (Patarasuk & Yuan) on the
//! driver's PAP timing model, one line per run with PAP §2's measures, Lemma 1–2's bounds on
//! `OPT` and the `PERF` interval. The runs are the library's
//! ([`crate::experiment::pap::run_one`]); run `r` draws its pattern from
//! `SplitMix64::stream(seed, r)`, as `reproduce pap` does.

use std::io::Write;

use crate::experiment::pap::{self, Algorithm};
use clap::{Args, ValueEnum};
use ftcoll::protocols::arrival::metrics::Ratio;
use ftcoll::protocols::arrival::PapConfig;
use ftcoll_sim::pap::PapMode;
use serde::Serialize;

use crate::cli::admission;
use crate::cli::args;
use crate::cli::flags::{arrival, ArrivalArg, SimFormat, MAX_SPREAD};
use crate::cli::simulate_args::Printer;
use crate::cli::{CliError, UsageError};

/// `--mode`.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub(super) enum ModeArg {
    /// The transfer starts when both sides are ready (rendezvous).
    Blocking,
    /// The message is buffered at a receiver that has not arrived.
    NonBlocking,
}

/// Parses `--pap`.
fn algorithm(s: &str) -> Result<Algorithm, String> {
    s.parse()
}

/// Parses `--msize`: `1..=2^32 − 1` time units.
fn msize(s: &str) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(v) if (1..=MAX_SPREAD).contains(&v) => Ok(v),
        _ => Err(format!(
            "expected an integer in 1..={MAX_SPREAD} (T(msize) in time units, e.g. KB)"
        )),
    }
}

/// `ftcoll pap-simulate`.
#[derive(Args, Debug)]
pub(super) struct PapArgs {
    /// The algorithm: flat, binomial, linear:X (X segments), nearopt, sca-all (msize ≥ n),
    /// arrival-nb or arrival-b.
    #[arg(long, value_parser = algorithm)]
    pub pap: Algorithm,
    /// Number of processes n (rank 0 the root).
    #[arg(long, value_parser = args::procs)]
    pub procs: u32,
    /// The message's transfer time T(msize), in time units (reproduce pap: 1 unit = 1 KB).
    #[arg(long, value_parser = msize)]
    pub msize: u64,
    /// Blocking or non-blocking communication (PAP §3.1).
    #[arg(long, value_enum, default_value = "blocking")]
    pub mode: ModeArg,
    /// Process arrival pattern (time units): none, uniform:SPREAD, normal:SPREAD,
    /// random:MAX_IF:UNIT (PAP Fig. 6), late:FRACTION:DELAY (PAP Figs. 9–10) or @FILE (n times).
    /// Times are used as drawn: a receiver that arrives before the root waits for it, and that
    /// wait counts in its elapsed time and in the OPT bounds (PAP §3.1).
    #[arg(long, value_parser = arrival, default_value = "none")]
    pub arrival: ArrivalArg,
    /// Seed of every random choice.
    #[arg(long, default_value = "1", value_parser = args::seed)]
    pub seed: u64,
    /// Number of runs (run i draws its pattern from stream i of the seed).
    #[arg(long, default_value = "1", value_parser = args::runs)]
    pub runs: u64,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    pub format: SimFormat,
}

/// One run's line.
#[derive(Serialize)]
struct Row {
    algorithm: String,
    mode: &'static str,
    procs: u32,
    msize: u64,
    arrival: String,
    seed: u64,
    run: u64,
    /// `ē`, the average per node time.
    mean_elapsed: f64,
    /// `Σe` (so `ē = Σe / n` exactly).
    total_elapsed: u128,
    /// `g`, the worst case per node time.
    worst_elapsed: u64,
    /// `ā`.
    mean_arrival: f64,
    /// `δ̄`.
    average_imbalance: f64,
    /// `ω`.
    worst_imbalance: u64,
    /// `Δ`.
    delta: u64,
    /// `δ̄ / T`.
    average_imbalance_factor: f64,
    /// `ω / T`.
    worst_imbalance_factor: f64,
    /// Lemma 2: `OPT ≥`.
    opt_lower: f64,
    /// Lemma 1: `OPT ≤`.
    opt_upper: f64,
    /// `ē / OPT_upper`.
    perf_low: Option<f64>,
    /// `ē / OPT_lower`.
    perf_high: Option<f64>,
    data_messages: u64,
    control_messages: u64,
}

/// The columns, in the order of [`Row`] (the table's).
const COLUMNS: [&str; 22] = [
    "algorithm",
    "mode",
    "procs",
    "msize",
    "arrival",
    "seed",
    "run",
    "mean_elapsed",
    "total_elapsed",
    "worst_elapsed",
    "mean_arrival",
    "average_imbalance",
    "worst_imbalance",
    "delta",
    "average_imbalance_factor",
    "worst_imbalance_factor",
    "opt_lower",
    "opt_upper",
    "perf_low",
    "perf_high",
    "data_messages",
    "control_messages",
];

/// Bytes of driver and automaton state per process of a PAP run: measured at most 515 B
/// (`arrival-b` and `arrival-nb`, n = 2^20, `random:1000:1`, max RSS / n, one data and one
/// ARRIVED message per receiver included; flat 346 B), doubled for a margin.
pub(super) const PAP_BYTES_PER_PROC: u64 = 1_024;
/// Bytes per further data message: the driver keeps every transfer's record. Measured about
/// 72 B (`linear:8` at n = 2^20, `sca-all` at n = 2048, max RSS over the message count), with a
/// wide margin.
pub(super) const PAP_BYTES_PER_MESSAGE: u64 = 256;

/// The memory one run of `algorithm` on `procs` processes needs.
pub(super) fn pap_need(algorithm: Algorithm, procs: u32) -> u64 {
    admission::BASELINE_BYTES
        .saturating_add(u64::from(procs).saturating_mul(PAP_BYTES_PER_PROC))
        .saturating_add(
            algorithm
                .messages_bound(procs)
                .saturating_mul(PAP_BYTES_PER_MESSAGE),
        )
}

/// Runs the simulations; validates everything before printing, then prints each run as it
/// completes (memory stays that of one run, whatever `--runs`).
pub(super) fn pap_simulate(a: PapArgs, out: &mut impl Write) -> Result<(), CliError> {
    let base = PapConfig::new(a.procs, a.msize)
        .map_err(|e| UsageError(format!("--procs/--msize: {e}")))?;
    a.pap.check(base).map_err(|e| match a.pap {
        Algorithm::Linear(x) => UsageError(format!(
            "--pap: linear:{x} cuts the message into {x} segments: allowed X in 1..=msize = {} ({e})",
            a.msize
        )),
        _ => UsageError(format!(
            "--msize: {} needs msize ≥ procs = {} (one time unit per chunk at least), got {}",
            a.pap, a.procs, a.msize
        )),
    })?;
    let procs = base.procs();
    let need = pap_need(a.pap, a.procs);
    admission::admit("--procs", &format!("{} on {procs} processes", a.pap), need)?;
    let spec = a
        .arrival
        .resolve(procs)
        .map_err(|e| UsageError(format!("--arrival: {e}")))?;
    let mode = match a.mode {
        ModeArg::Blocking => PapMode::Blocking,
        ModeArg::NonBlocking => PapMode::NonBlocking,
    };
    let arrival_name = a.arrival.to_string();
    let mut table = Printer::new(SimFormat::Table, &COLUMNS, &[]);
    for run in 0..a.runs {
        let arrivals = pap::draw_pattern(&spec, procs, a.seed, run);
        let o = pap::run_one(a.pap, base, mode, &arrivals)
            .map_err(|e| UsageError(format!("simulation: {}", e.0)))?;
        drop(arrivals);
        let m = &o.metrics;
        let (lo, hi) = m.perf(mode, a.msize);
        let (avg_if, worst_if) = m.imbalance_factors(a.msize);
        let row = Row {
            algorithm: a.pap.to_string(),
            mode: pap::mode_name(mode),
            procs,
            msize: a.msize,
            arrival: arrival_name.clone(),
            seed: a.seed,
            run,
            mean_elapsed: m.mean_elapsed().to_f64(),
            total_elapsed: m.total_elapsed,
            worst_elapsed: m.worst_elapsed,
            mean_arrival: m.mean_arrival,
            average_imbalance: m.average_imbalance,
            worst_imbalance: m.worst_imbalance,
            delta: m.delta,
            average_imbalance_factor: avg_if,
            worst_imbalance_factor: worst_if,
            opt_lower: m.opt_lower(mode, a.msize).to_f64(),
            opt_upper: m.opt_upper(mode, a.msize).to_f64(),
            perf_low: lo.map(Ratio::to_f64),
            perf_high: hi.map(Ratio::to_f64),
            data_messages: o.data_messages,
            control_messages: o.control_messages,
        };
        match a.format {
            SimFormat::Json => {
                serde_json::to_writer(&mut *out, &row).map_err(std::io::Error::from)?;
                writeln!(out)?;
            }
            SimFormat::Csv => {
                // The header comes with the first row (serde names the columns).
                let mut w = csv::WriterBuilder::new()
                    .has_headers(run == 0)
                    .from_writer(&mut *out);
                w.serialize(&row).map_err(csv_error)?;
                w.flush()?;
            }
            SimFormat::Table => {
                // Through the CSV serializer, which writes u128 totals exactly (a JSON value
                // cannot hold one above u64::MAX).
                let mut w = csv::WriterBuilder::new().from_writer(Vec::new());
                w.serialize(&row).map_err(csv_error)?;
                let bytes = w
                    .into_inner()
                    .map_err(|e| csv_error(e.into_error().into()))?;
                let mut r = csv::Reader::from_reader(bytes.as_slice());
                let header = r.headers().map_err(csv_error)?.clone();
                let record = r.records().next().transpose().map_err(csv_error)?;
                let record = record.unwrap_or_default();
                let cells = COLUMNS
                    .iter()
                    .map(|c| {
                        let i = header.iter().position(|h| h == *c);
                        let cell = i.and_then(|i| record.get(i)).unwrap_or("");
                        if cell.is_empty() {
                            "null".to_string()
                        } else {
                            cell.to_string()
                        }
                    })
                    .collect();
                table.row(cells, out)?;
            }
        }
    }
    if a.format == SimFormat::Table {
        table.finish(out)?;
    }
    Ok(())
}

fn csv_error(e: csv::Error) -> CliError {
    CliError::Io(std::io::Error::other(e.to_string()))
}
