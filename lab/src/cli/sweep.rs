//! `ftcoll sweep` and `ftcoll merge`: seeded Monte-Carlo over a grid of simulate's parameters.
//!
//! Points are the Cartesian product of the listed values, in the order: procs, tree, order,
//! correction, start, model, L, o, first side, faults (Corrected Trees); with `--collective`,
//! procs, collective, topology, roots, service, L, faults, crashes, arrival, imbalance (FTCO,
//! `sweep/ftco.rs`); with `--gossip`, procs, gossip, L, o, gossip time, correction time, δ, faults
//! (Corrected Gossip, `sweep/gossip.rs`). They run one after the other (each
//! point's runs in parallel over the cores; [`SweepPlan`] runs them in pieces anywhere); a point's line is appended to the output as soon
//! as it is complete, so an interrupted sweep loses at most the point in progress, and running
//! the same command again resumes after the last complete line. `--shard i/n` keeps the points
//! whose index is `i` modulo `n`; `merge` puts shard outputs back into exactly the bytes one
//! unsharded run writes.
//!
//! Every output starts with the sweep's identity (the grid, runs, seed, shard); resuming and
//! `merge` parse what they read back and refuse anything that sweep would not have written
//! (see `sweep/output.rs`).

use std::io::Write;
use std::path::PathBuf;

use crate::cli::flags::{ArrivalArg, Engine};
use crate::experiment::{Faults, Point};
use clap::{Args, ValueEnum};
use ftcoll::protocols::corrected_tree::{CorrectionSpec, StartMode};
use ftcoll::protocols::Side;
use ftcoll::topology::ftco::Collective;
use ftcoll::topology::{Order, TreeKind};
use ftcoll_sim::PortModel;

use crate::cli::args;
use crate::cli::flags::ftco::{ImbalanceArg, RandomCrashes, RootsArg, ServiceArg, TopologyArg};
use crate::cli::flags::gossip::TimeArg;
use crate::cli::{CliError, UsageError};
use crate::experiment::cg::{CgProtocol, DELTA};

mod ftco;
mod gossip;
mod merge;
mod output;
mod plan;
mod run;

pub(super) use merge::{merge, MergeArgs};
pub use plan::{SweepOutput, SweepPlan, Tally};
pub(super) use run::progress_bar;

/// Output format of sweeps.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub(super) enum SweepFormat {
    /// A header, then one row per point.
    Csv,
    /// One JSON object per point, one per line.
    Json,
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
pub(super) struct List<T>(pub Vec<T>);

/// The number of points of a grid whose axes hold `lens` values (`None` past `u64`).
fn axes_len(lens: &[usize]) -> Option<u64> {
    lens.iter().try_fold(1u64, |n, &k| n.checked_mul(k as u64))
}

/// The value index on every axis of point `index` of a grid whose axes hold `lens` values,
/// outermost axis first: a mixed-radix number whose last (innermost) axis is the lowest digit.
fn axes_digits<const N: usize>(index: u64, lens: [usize; N]) -> [usize; N] {
    let mut rest = index;
    let mut digits = [0; N];
    for (d, len) in digits.iter_mut().zip(lens).rev() {
        let len = len.max(1) as u64;
        *d = (rest % len) as usize;
        rest /= len;
    }
    digits
}

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
    v: &str,
) -> Result<T, String> {
    table
        .iter()
        .find(|(k, _)| *k == v)
        .map(|&(_, t)| t)
        .ok_or_else(|| format!("expected {allowed}"))
}

fn start_item(v: &str) -> Result<StartMode, String> {
    keyword(
        "sync or overlap",
        &[
            ("sync", StartMode::Synchronized),
            ("overlap", StartMode::Overlapped),
        ],
        v,
    )
}

fn model_item(v: &str) -> Result<PortModel, String> {
    keyword(
        "dual or single",
        &[
            ("dual", PortModel::DualPort),
            ("single", PortModel::SinglePort),
        ],
        v,
    )
}

fn side_item(v: &str) -> Result<Side, String> {
    keyword(
        "left or right",
        &[("left", Side::Left), ("right", Side::Right)],
        v,
    )
}

fn count_item(v: &str) -> Result<u32, String> {
    v.parse::<u32>()
        .map_err(|_| "expected integers in 0..=4294967294".to_string())
}

list_parser! {
    procs_list: u32 = args::procs;
    tree_list: TreeKind = args::tree;
    order_list: Order = args::order;
    correction_list: CorrectionSpec = crate::cli::flags::correction;
    latency_list: u64 = args::latency;
    overhead_list: u64 = args::overhead;
    rate_list: f64 = crate::cli::flags::rate;
    start_list: StartMode = start_item;
    model_list: PortModel = model_item;
    side_list: Side = side_item;
    count_list: u32 = count_item;
    collective_list: Collective = crate::cli::flags::ftco::collective;
    topology_list: TopologyArg = crate::cli::flags::ftco::topology;
    roots_list: RootsArg = crate::cli::flags::ftco::roots;
    service_list: ServiceArg = crate::cli::flags::ftco::service;
    crashes_list: RandomCrashes = crate::cli::flags::ftco::random_crashes;
    arrival_list: ArrivalArg = crate::cli::flags::arrival;
    imbalance_list: ImbalanceArg = crate::cli::flags::ftco::imbalance;
    gossip_list: CgProtocol = crate::cli::flags::gossip::protocol;
    time_list: TimeArg = crate::cli::flags::gossip::time_arg;
    delta_list: f64 = crate::cli::flags::gossip::probability;
}

// The most runs per point (`--runs`, and a resumed file's identity).
use crate::cli::args::MAX_RUNS;

/// Parses `--shard i/n`.
pub(super) fn shard(s: &str) -> Result<(u64, u64), String> {
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

/// `ftcoll sweep`: the Corrected Tree axes, FTCO's (with `--collective`), Corrected Gossip's
/// (with `--gossip`), and what they share.
#[derive(Args, Debug)]
#[command(group = clap::ArgGroup::new("fault_spec").multiple(false).args(["fault_count", "fault_rate", "fault_fraction"]))]
pub(super) struct SweepArgs {
    /// Numbers of processes, comma-separated.
    #[arg(long, value_parser = procs_list)]
    procs: List<u32>,
    /// Trees: kary:K, binomial, lame:K, optimal (comma-separated; required for Corrected Trees).
    #[arg(long, value_parser = tree_list)]
    tree: Option<List<TreeKind>>,
    /// Numberings: interleaved (default), in-order.
    #[arg(long, value_parser = order_list)]
    order: Option<List<Order>>,
    /// Corrections: none, opportunistic:D, optimized:D, checked, delayed:DELAY, failproof:F[:TIMEOUT], ack (required for Corrected Trees).
    #[arg(long, value_parser = correction_list)]
    correction: Option<List<CorrectionSpec>>,
    /// Start modes: sync (default), overlap.
    #[arg(long, value_parser = start_list)]
    start: Option<List<StartMode>>,
    /// Timing models: dual (default), single.
    #[arg(long, value_parser = model_list)]
    model: Option<List<PortModel>>,
    /// LogP latencies L (FTCO: steps).
    #[arg(short = 'L', default_value = "2", value_parser = latency_list)]
    latency: List<u64>,
    /// LogP overheads o (FTCO: 1 only).
    #[arg(short = 'o', default_value = "1", value_parser = overhead_list)]
    overhead: List<u64>,
    /// First correction sides: left (default), right.
    #[arg(long, value_parser = side_list)]
    first_side: Option<List<Side>>,
    /// Exact numbers of random non-root ranks failed before the operation (FTCO: inactive).
    #[arg(long, value_parser = count_list)]
    fault_count: Option<List<u32>>,
    /// Per-rank failure probabilities (each non-root rank fails independently).
    #[arg(long, value_parser = rate_list, allow_negative_numbers = true)]
    fault_rate: Option<List<f64>>,
    /// Fractions of failed processes: round(F·P) random non-root ranks (CT §4.3).
    #[arg(long, value_parser = rate_list, allow_negative_numbers = true)]
    fault_fraction: Option<List<f64>>,
    /// Runs per point (run i uses stream i of the seed, as `simulate` does).
    #[arg(long, default_value = "1", value_parser = args::runs)]
    runs: u64,
    /// Seed of every random choice (the same for every point).
    #[arg(long, default_value = "1", value_parser = args::seed)]
    seed: u64,
    /// Output format.
    #[arg(long, value_enum, default_value = "csv")]
    format: SweepFormat,
    /// Append results to this file, resuming after its last complete point (default: stdout).
    #[arg(long)]
    output: Option<PathBuf>,
    /// Run only the points whose index is I modulo N: shard I/N, I counted from 0 (0/N to N-1/N).
    #[arg(long, value_parser = shard)]
    shard: Option<(u64, u64)>,
    /// Simulator: auto (fast path where exact) or full (Corrected Trees; FTCO has one).
    #[arg(long, value_enum, default_value = "auto")]
    engine: Engine,
    /// Worker threads (default: one per core).
    #[arg(long, value_parser = args::threads)]
    threads: Option<u64>,
    /// FTCO: sweep these collectives (bcast, reduce, allreduce) instead of Corrected Trees.
    #[arg(long, value_parser = collective_list, help_heading = "FTCO (with --collective)")]
    collective: Option<List<Collective>>,
    /// FTCO trees: kary:K, knomial:K, knomial:best (required with --collective).
    #[arg(long, value_parser = topology_list, help_heading = "FTCO (with --collective)")]
    topology: Option<List<TopologyArg>>,
    /// FTCO roots: 1 (default), R, k (R = k).
    #[arg(long, value_parser = roots_list, help_heading = "FTCO (with --collective)")]
    roots: Option<List<RootsArg>>,
    /// FTCO service distances: none (default), rsd, rsd:INV_R, disd.
    #[arg(long, value_parser = service_list, help_heading = "FTCO (with --collective)")]
    service: Option<List<ServiceArg>>,
    /// FTCO run-time faults: none (default), N@T (N random ranks that did not fail before the
    /// operation crash at step T) or N@A..B (each at a step uniform in A..=B); never a root.
    #[arg(long, value_parser = crashes_list, help_heading = "FTCO (with --collective)")]
    crashes: Option<List<RandomCrashes>>,
    /// FTCO arrival patterns: none (default), uniform:SPREAD, normal:SPREAD (half-normal),
    /// symnormal:SIGMA (symmetric normal shifted to start at 0), random:MAX_IF:UNIT,
    /// late:FRACTION:DELAY, @FILE (P times; a point whose P differs from the file's count fails).
    #[arg(long, value_parser = arrival_list, help_heading = "FTCO (with --collective)")]
    arrival: Option<List<ArrivalArg>>,
    /// FTCO imbalance: off (default; the driver's arrivals), alg5 (App. B).
    #[arg(long, value_parser = imbalance_list, help_heading = "FTCO (with --collective)")]
    imbalance: Option<List<ImbalanceArg>>,
    /// Corrected Gossip: sweep these protocols (gos, ocg, ccg, fcg:F, big, bfb; CG §III, §IV.B)
    /// instead of Corrected Trees.
    #[arg(long, value_parser = gossip_list, help_heading = "Corrected Gossip (with --gossip)")]
    gossip: Option<List<CgProtocol>>,
    /// Gossip times T (steps), or auto: CG's model (default auto; BIG and BFB ignore it).
    #[arg(long, value_parser = time_list, allow_negative_numbers = true, help_heading = "Corrected Gossip (with --gossip)")]
    gossip_time: Option<List<TimeArg>>,
    /// OCG's correction times C (steps), or auto: K̄O + L + O from the model (default auto;
    /// the other protocols ignore it).
    #[arg(long, value_parser = time_list, allow_negative_numbers = true, help_heading = "Corrected Gossip (with --gossip)")]
    correction_time: Option<List<TimeArg>>,
    /// δ for auto T and C (default: the paper's 6.9315e-7, 50 % that 10^6 runs all succeed).
    #[arg(long, value_parser = delta_list, allow_negative_numbers = true, help_heading = "Corrected Gossip (with --gossip)")]
    delta: Option<List<f64>>,
    /// Read parameters from a JSON file (TOML if its name ends in .toml), keyed by the flags'
    /// long names ("procs", "fault-rate") or short letters ("L", "o"); flags given on the command
    /// line override the file.
    #[arg(long, value_name = "FILE")]
    #[allow(dead_code)] // replaced by the file's flags before parsing (config_file::expand)
    config: Option<std::path::PathBuf>,
}

impl SweepArgs {
    /// The first Corrected Tree flag given (FTCO sweeps refuse them).
    fn ct_flag_given(&self) -> Option<&'static str> {
        [
            ("--tree", self.tree.is_some()),
            ("--order", self.order.is_some()),
            ("--correction", self.correction.is_some()),
            ("--start", self.start.is_some()),
            ("--model", self.model.is_some()),
            ("--first-side", self.first_side.is_some()),
            ("--engine", self.engine != Engine::Auto),
        ]
        .into_iter()
        .find(|g| g.1)
        .map(|g| g.0)
    }

    /// The first Corrected Gossip flag given other than `--gossip` (the other families refuse
    /// them).
    fn gossip_flag_given(&self) -> Option<&'static str> {
        crate::cli::flags::gossip::first_timing_flag(
            self.gossip_time.is_some(),
            self.correction_time.is_some(),
            self.delta.is_some(),
        )
    }

    /// The first FTCO flag given (Corrected Tree sweeps refuse them).
    fn ftco_flag_given(&self) -> Option<&'static str> {
        [
            ("--topology", self.topology.is_some()),
            ("--roots", self.roots.is_some()),
            ("--service", self.service.is_some()),
            ("--crashes", self.crashes.is_some()),
            ("--arrival", self.arrival.is_some()),
            ("--imbalance", self.imbalance.is_some()),
        ]
        .into_iter()
        .find(|g| g.1)
        .map(|g| g.0)
    }

    /// The fault axis the arguments describe.
    fn faults(&self) -> Vec<Faults> {
        if let Some(c) = &self.fault_count {
            c.0.iter().map(|&n| Faults::Count(n)).collect()
        } else if let Some(r) = &self.fault_rate {
            r.0.iter().map(|&r| Faults::Rate(r)).collect()
        } else if let Some(f) = &self.fault_fraction {
            f.0.iter().map(|&f| Faults::Fraction(f)).collect()
        } else {
            vec![Faults::None]
        }
    }
}

/// A sweep's grid: Corrected Tree, FTCO or Corrected Gossip points.
#[derive(Clone, Debug, PartialEq)]
enum Grid {
    /// Corrected Tree points.
    Ct(CtGrid),
    /// FTCO points.
    Ftco(ftco::FtcoGrid),
    /// Corrected Gossip points.
    Cg(gossip::CgGrid),
}

impl Grid {
    /// The grid the arguments describe (after [`SweepArgs`]' family checks).
    fn from_args(a: &SweepArgs) -> Self {
        let faults = a.faults();
        if let Some(gossip) = &a.gossip {
            let auto = || vec![TimeArg::Auto];
            return Self::Cg(gossip::CgGrid {
                procs: a.procs.0.clone(),
                gossip: gossip.0.clone(),
                latency: a.latency.0.clone(),
                overhead: a.overhead.0.clone(),
                gossip_time: a.gossip_time.as_ref().map_or_else(auto, |l| l.0.clone()),
                correction_time: a
                    .correction_time
                    .as_ref()
                    .map_or_else(auto, |l| l.0.clone()),
                delta: a
                    .delta
                    .as_ref()
                    .map_or_else(|| vec![DELTA], |l| l.0.clone()),
                faults,
            });
        }
        match &a.collective {
            None => Self::Ct(CtGrid {
                procs: a.procs.0.clone(),
                tree: a.tree.as_ref().map_or_else(Vec::new, |l| l.0.clone()),
                order: a
                    .order
                    .as_ref()
                    .map_or_else(|| vec![Order::Interleaved], |l| l.0.clone()),
                correction: a.correction.as_ref().map_or_else(Vec::new, |l| l.0.clone()),
                start: a
                    .start
                    .as_ref()
                    .map_or_else(|| vec![StartMode::Synchronized], |l| l.0.clone()),
                model: a
                    .model
                    .as_ref()
                    .map_or_else(|| vec![PortModel::DualPort], |l| l.0.clone()),
                latency: a.latency.0.clone(),
                overhead: a.overhead.0.clone(),
                first_side: a
                    .first_side
                    .as_ref()
                    .map_or_else(|| vec![Side::Left], |l| l.0.clone()),
                faults,
            }),
            Some(collective) => Self::Ftco(ftco::FtcoGrid {
                procs: a.procs.0.clone(),
                collective: collective.0.clone(),
                topology: a.topology.as_ref().map_or_else(Vec::new, |l| l.0.clone()),
                roots: a
                    .roots
                    .as_ref()
                    .map_or_else(|| vec![RootsArg::Count(1)], |l| l.0.clone()),
                service: a
                    .service
                    .as_ref()
                    .map_or_else(|| vec![ServiceArg::None], |l| l.0.clone()),
                latency: a.latency.0.clone(),
                faults,
                crashes: a.crashes.as_ref().map_or_else(
                    || {
                        vec![RandomCrashes {
                            count: 0,
                            from: 0,
                            to: 0,
                        }]
                    },
                    |l| l.0.clone(),
                ),
                arrival: a
                    .arrival
                    .as_ref()
                    .map_or_else(|| vec![ArrivalArg::NONE], |l| l.0.clone()),
                imbalance: a
                    .imbalance
                    .as_ref()
                    .map_or_else(|| vec![ImbalanceArg::Off], |l| l.0.clone()),
            }),
        }
    }

    /// The number of points (`None` past `u64`).
    fn len(&self) -> Option<u64> {
        match self {
            Self::Ct(g) => g.len(),
            Self::Ftco(g) => g.len(),
            Self::Cg(g) => g.len(),
        }
    }

    /// The cells a point's row shows for the grid's parameters (`procs` to the last axis).
    fn point_cells(&self, index: u64) -> Vec<String> {
        match self {
            Self::Ct(g) => output::point_cells(&g.point(index)).to_vec(),
            Self::Ftco(g) => g.point(index).cells(),
            Self::Cg(g) => g.point(index).cells(),
        }
    }
}

/// The values of every Corrected Tree axis, typed, in output order (the outermost axis first).
/// No axis is empty (clap's lists and the identity check refuse empty ones), so
/// [`CtGrid::point`] indexes safely.
#[derive(Clone, Debug, PartialEq)]
struct CtGrid {
    procs: Vec<u32>,
    tree: Vec<TreeKind>,
    order: Vec<Order>,
    correction: Vec<CorrectionSpec>,
    start: Vec<StartMode>,
    model: Vec<PortModel>,
    latency: Vec<u64>,
    overhead: Vec<u64>,
    first_side: Vec<Side>,
    faults: Vec<Faults>,
}

impl CtGrid {
    /// The axes' lengths, outermost first.
    fn lens(&self) -> [usize; 10] {
        [
            self.procs.len(),
            self.tree.len(),
            self.order.len(),
            self.correction.len(),
            self.start.len(),
            self.model.len(),
            self.latency.len(),
            self.overhead.len(),
            self.first_side.len(),
            self.faults.len(),
        ]
    }

    /// The number of points (`None` past `u64`).
    fn len(&self) -> Option<u64> {
        axes_len(&self.lens())
    }

    /// Point `index` (below [`Grid::len`]): a mixed-radix number whose last digit is faults.
    fn point(&self, index: u64) -> Point {
        let [procs, tree, order, correction, start, model, latency, overhead, first_side, faults] =
            axes_digits(index, self.lens());
        Point {
            procs: self.procs[procs],
            tree: self.tree[tree],
            order: self.order[order],
            correction: self.correction[correction],
            start: self.start[start],
            model: self.model[model],
            latency: self.latency[latency],
            overhead: self.overhead[overhead],
            first_side: self.first_side[first_side],
            faults: self.faults[faults],
        }
    }
}

/// `ftcoll sweep`: the plan's points one after the other, each point's runs in parallel.
pub(super) fn sweep(a: SweepArgs, out: &mut impl Write) -> Result<(), CliError> {
    let plan = SweepPlan::checked(a)?;
    let mut output = plan.open_output(out)?;
    let todo = output.done()..plan.points();
    let bar = progress_bar(todo.len() as u64 * plan.runs(), plan.label());
    for k in todo {
        let tally = plan.run_runs(k, 0..plan.runs(), &|n| bar.inc(n))?;
        let row = plan.point_row(k, &tally)?;
        output.write_row_io(&row, out)?;
    }
    bar.finish_and_clear();
    Ok(())
}

/// Sets `--threads` and refuses the flags the sweep's family does not take.
fn check_flags(a: &SweepArgs) -> Result<(), CliError> {
    if let Some(t) = a.threads {
        // Only the first call configures the global pool; later ones are harmless.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(t as usize)
            .build_global();
    }
    if let Some(gossip) = &a.gossip {
        check_gossip_flags(a, &gossip.0)?;
    } else if let Some(flag) = a.gossip_flag_given() {
        return Err(UsageError(format!(
            "{flag}: a Corrected Gossip axis, not accepted without --gossip (gos, ocg, ccg, fcg:F, big, bfb)"
        ))
        .into());
    } else if a.collective.is_some() {
        if let Some(flag) = a.ct_flag_given() {
            return Err(UsageError(format!(
                "{flag}: a Corrected Tree axis, not accepted with --collective (FTCO sweeps have --topology, --roots, --service, --crashes, --arrival, --imbalance)"
            ))
            .into());
        }
        if a.overhead.0 != [1] {
            return Err(UsageError(
                "-o: FTCO's step model has o = 1 (a step sends or handles one message): allowed 1..=1".into(),
            )
            .into());
        }
        if a.topology.is_none() {
            return Err(UsageError(
                "--topology: FTCO sweeps need trees: kary:K, knomial:K or knomial:best".into(),
            )
            .into());
        }
    } else {
        if let Some(flag) = a.ftco_flag_given() {
            return Err(UsageError(format!(
                "{flag}: an FTCO axis, not accepted by a Corrected Tree sweep: FTCO sweeps run with --collective bcast,reduce,allreduce"
            ))
            .into());
        }
        if a.tree.is_none() {
            return Err(UsageError(
                "--tree: required for a Corrected Tree sweep (kary:K, binomial, lame:K, optimal), or --collective for FTCO".into(),
            )
            .into());
        }
        if a.correction.is_none() {
            return Err(UsageError(
                "--correction: required for a Corrected Tree sweep (none, opportunistic:D, optimized:D, checked, delayed:DELAY, failproof:F[:TIMEOUT], ack)".into(),
            )
            .into());
        }
    }
    Ok(())
}

/// A Corrected Gossip sweep takes neither family's axes, and its timing axes only where a
/// listed protocol uses them (as `simulate --gossip` refuses them for a protocol without).
fn check_gossip_flags(a: &SweepArgs, protocols: &[CgProtocol]) -> Result<(), UsageError> {
    if let Some(flag) = a.ct_flag_given().or(a.ftco_flag_given()) {
        return Err(UsageError(format!(
            "{flag}: not accepted with --gossip (Corrected Gossip sweeps have --gossip-time, --correction-time, --delta)"
        )));
    }
    if a.collective.is_some() {
        return Err(UsageError(
            "--collective: not accepted with --gossip (one protocol family per sweep)".into(),
        ));
    }
    if !protocols.iter().any(CgProtocol::gossips) {
        if let Some(flag) = a.gossip_flag_given() {
            return Err(UsageError(format!(
                "{flag}: none of the listed protocols has a gossip phase: --gossip-time, --correction-time and --delta apply to gos, ocg, ccg and fcg:F"
            )));
        }
    }
    if a.correction_time.is_some() && !protocols.contains(&CgProtocol::Ocg) {
        return Err(UsageError(
            "--correction-time: only OCG has a fixed correction time; list ocg in --gossip".into(),
        ));
    }
    Ok(())
}
