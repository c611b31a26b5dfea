//! `ftcoll sweep` and `ftcoll merge`: seeded Monte-Carlo over a grid of simulate's parameters.
//!
//! Points are the Cartesian product of the listed values, in the order: procs, tree, order,
//! correction, start, model, L, o, first side, faults (Corrected Trees); with `--collective`,
//! procs, collective, topology, roots, service, L, faults, crashes, arrival, imbalance (FTCO,
//! [`ftco`]); with `--gossip`, procs, gossip, L, o, gossip time, correction time, δ, faults
//! (Corrected Gossip, [`gossip`]). They run one after the other (each
//! point's runs in parallel over the cores); a point's line is appended to the output as soon
//! as it is complete, so an interrupted sweep loses at most the point in progress, and running
//! the same command again resumes after the last complete line. `--shard i/n` keeps the points
//! whose index is `i` modulo `n`; `merge` puts shard outputs back into exactly the bytes one
//! unsharded run writes.
//!
//! Every output starts with the sweep's identity (the grid, runs, seed, shard); resuming and
//! `merge` parse what they read back and refuse anything that sweep would not have written
//! (see [`output`]).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use crate::flags::{ArrivalArg, Engine};
use clap::{Args, ValueEnum};
use ftcoll::protocols::corrected_tree::{CorrectionSpec, StartMode};
use ftcoll::protocols::Side;
use ftcoll::topology::ftco::Collective;
use ftcoll::topology::{Order, TreeKind};
use ftcoll_lab::experiment::{Faults, Point, PointStats, Prepared};
use ftcoll_lab::fastpath::Workspace;
use ftcoll_sim::PortModel;
use rayon::prelude::*;

use crate::admission;
use crate::args;
use crate::flags::ftco::{ImbalanceArg, RandomCrashes, RootsArg, ServiceArg, TopologyArg};
use crate::flags::gossip::TimeArg;
use crate::{CliError, UsageError};
use ftcoll_lab::experiment::cg::{CgProtocol, DELTA};

mod ftco;
mod gossip;
mod output;

use output::{
    csv_header, line, line_of, missing_points, parameters, parse_output, shard_name, text_of,
    Fault, Header, Identity, Row, Schema,
};

/// Output format of sweeps.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum SweepFormat {
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
pub struct List<T>(pub Vec<T>);

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
    correction_list: CorrectionSpec = crate::flags::correction;
    latency_list: u64 = args::latency;
    overhead_list: u64 = args::overhead;
    rate_list: f64 = crate::flags::rate;
    start_list: StartMode = start_item;
    model_list: PortModel = model_item;
    side_list: Side = side_item;
    count_list: u32 = count_item;
    collective_list: Collective = crate::flags::ftco::collective;
    topology_list: TopologyArg = crate::flags::ftco::topology;
    roots_list: RootsArg = crate::flags::ftco::roots;
    service_list: ServiceArg = crate::flags::ftco::service;
    crashes_list: RandomCrashes = crate::flags::ftco::random_crashes;
    arrival_list: ArrivalArg = crate::flags::arrival;
    imbalance_list: ImbalanceArg = crate::flags::ftco::imbalance;
    gossip_list: CgProtocol = crate::flags::gossip::protocol;
    time_list: TimeArg = crate::flags::gossip::time_arg;
    delta_list: f64 = crate::flags::gossip::probability;
}

// The most runs per point (`--runs`, and a resumed file's identity).
use crate::args::MAX_RUNS;

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

/// `ftcoll sweep`: the Corrected Tree axes, FTCO's (with `--collective`), Corrected Gossip's
/// (with `--gossip`), and what they share.
#[derive(Args, Debug)]
#[command(group = clap::ArgGroup::new("fault_spec").multiple(false).args(["fault_count", "fault_rate", "fault_fraction"]))]
pub struct SweepArgs {
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
        crate::flags::gossip::first_timing_flag(
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

/// What resuming an output file found: how many of this sweep's points it holds, and what of
/// the identity line and CSV header is still to be written.
struct Resume {
    done: usize,
    preamble: String,
}

/// Checks the complete lines of `path` against this sweep (identity, then its points in order)
/// and only then cuts a partial last line (an interrupted write).
fn resume(
    path: &Path,
    format: SweepFormat,
    identity: &Identity,
    schema: &Schema,
    derived: &[(usize, Vec<String>)],
) -> Result<Resume, CliError> {
    let csv_header_line = match format {
        SweepFormat::Csv => format!("{}\n", csv_header(schema)),
        SweepFormat::Json => String::new(),
    };
    let fresh = Resume {
        done: 0,
        preamble: format!("{}\n{csv_header_line}", identity.line(format)),
    };
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(fresh),
        Err(e) => {
            return Err(UsageError(format!("--output: cannot read {}: {e}", path.display())).into())
        }
    };
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |k| k + 1);
    let refuse = |f: Fault| -> CliError { f.in_file("--output", path).into() };
    let text = text_of(&bytes[..complete]).map_err(refuse)?;
    let contents = parse_output(format, text).map_err(refuse)?;
    let mut preamble = String::new();
    match &contents.header {
        None => preamble = fresh.preamble,
        Some(h) => {
            if let Some(d) = identity.difference(&h.identity) {
                return Err(refuse(Fault::whole(format!(
                    "holds a different sweep (this one vs the file's: {d}); choose another file"
                ))));
            }
            if h.identity.shard != identity.shard {
                return Err(refuse(Fault::whole(format!(
                    "holds {} and this is {}; choose another file",
                    shard_name(h.shard),
                    identity
                        .shard
                        .as_deref()
                        .map_or("the unsharded sweep".into(), |s| format!("shard {s}"))
                ))));
            }
            if format == SweepFormat::Csv && !contents.csv_header {
                preamble = csv_header_line;
            }
        }
    }
    // The shard's points in order: the file's rows must be the first of them.
    for (row, (i, want)) in contents.rows.iter().zip(derived) {
        if row.point != *i as u64 {
            return Err(refuse(Fault::at(
                row.number,
                format!("point {} where this sweep's next point is {i}", row.point),
            )));
        }
        // The cells a prepared point derives (CT: the deadline) must be this build's.
        for ((column, got), want) in schema.derived().iter().zip(&row.derived).zip(want) {
            if got != want {
                return Err(refuse(Fault::at(
                    row.number,
                    format!("{column} {got} but point {i} has {column} {want}"),
                )));
            }
        }
    }
    if contents.rows.len() > derived.len() {
        return Err(refuse(Fault::whole("holds more points than this sweep")));
    }
    if complete != bytes.len() {
        // An interrupted write: cut the partial line.
        let f = std::fs::OpenOptions::new().write(true).open(path)?;
        f.set_len(complete as u64)?;
    }
    Ok(Resume {
        done: contents.rows.len(),
        preamble,
    })
}

/// Bytes of bookkeeping per grid point (the point, its prepared configuration and tree).
const POINT_BYTES: u64 = 512;

/// The memory one point's runs need on `threads` threads: the fast path's shared tables and a
/// workspace per thread ([`admission::fastpath_need`]), or a full simulator per thread.
fn point_need(p: &Point, auto: bool, threads: u64) -> u64 {
    let procs = u64::from(p.procs);
    let per_proc = if auto && p.takes_fast_path() {
        admission::fastpath_bytes_per_proc(threads)
    } else {
        admission::DRIVER_BYTES_PER_PROC * threads
    };
    procs.saturating_mul(per_proc)
}

/// `ftcoll sweep`.
pub fn sweep(a: SweepArgs, out: &mut impl Write) -> Result<(), CliError> {
    if let Some(t) = a.threads {
        // Only the first call configures the global pool; later ones are harmless.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(t as usize)
            .build_global();
    }
    if let Some(gossip) = &a.gossip {
        check_gossip_flags(&a, &gossip.0)?;
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
    let grid = Grid::from_args(&a);
    let total = grid
        .len()
        .ok_or_else(|| UsageError("--procs: the grid has more than 2^64 - 1 points".into()))?;
    let identity = Identity::new(&grid, a.runs, a.seed, a.shard);
    // Admission: the grid's bookkeeping, then the largest point's runs (points run one after
    // the other, each point's tables or simulators built when it starts).
    let owned = match a.shard {
        Some((k, n)) => total / n + u64::from(total % n > k),
        None => total,
    };
    admission::admit(
        "--procs",
        &format!("a grid of {total} points"),
        admission::BASELINE_BYTES.saturating_add(owned.saturating_mul(POINT_BYTES)),
    )?;
    match &grid {
        Grid::Ct(g) => sweep_ct(&a, g, total, &identity, out),
        Grid::Ftco(g) => sweep_ftco(&a, g, total, &identity, out),
        Grid::Cg(g) => sweep_gossip(&a, g, total, &identity, out),
    }
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

/// Where a sweep's lines go: the `--output` file (resumed) or stdout.
struct Sink {
    file: Option<std::fs::File>,
}

impl Sink {
    /// Opens the output: resumes `--output` (checking what it holds against `derived`, the
    /// shard's points and their derived cells) or writes the preamble to stdout. Returns the
    /// number of points already done.
    fn open(
        a: &SweepArgs,
        identity: &Identity,
        schema: &Schema,
        derived: &[(usize, Vec<String>)],
        out: &mut impl Write,
    ) -> Result<(Self, usize), CliError> {
        let Some(path) = &a.output else {
            writeln!(out, "{}", identity.line(a.format))?;
            if a.format == SweepFormat::Csv {
                writeln!(out, "{}", csv_header(schema))?;
            }
            // Shown at once: a long first point must not look like a silent hang.
            out.flush()?;
            return Ok((Self { file: None }, 0));
        };
        let resumed = resume(path, a.format, identity, schema, derived)?;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| UsageError(format!("--output: cannot open {}: {e}", path.display())))?;
        f.write_all(resumed.preamble.as_bytes())?;
        Ok((Self { file: Some(f) }, resumed.done))
    }

    /// Appends a point's line and flushes it.
    fn line(&mut self, text: &str, out: &mut impl Write) -> std::io::Result<()> {
        match &mut self.file {
            Some(f) => {
                writeln!(f, "{text}")?;
                f.flush()
            }
            None => {
                writeln!(out, "{text}")?;
                out.flush()
            }
        }
    }
}

/// The points of the grid this sweep (or shard) runs.
fn owned_points(total: u64, shard: Option<(u64, u64)>) -> impl Iterator<Item = u64> {
    (0..total).filter(move |i| shard.is_none_or(|(k, n)| i % n == k))
}

/// A Corrected Tree sweep.
fn sweep_ct(
    a: &SweepArgs,
    grid: &CtGrid,
    total: u64,
    identity: &Identity,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let threads = rayon::current_num_threads() as u64;
    let largest = owned_points(total, a.shard)
        .map(|i| {
            let p = grid.point(i);
            point_need(&p, a.engine == Engine::Auto, threads)
        })
        .max()
        .unwrap_or(0);
    let need = admission::BASELINE_BYTES.saturating_add(largest);
    admission::admit(
        "--procs",
        &format!("running the largest point on {threads} threads"),
        need,
    )?;
    let points: Vec<Point> = (0..total).map(|i| grid.point(i)).collect();
    // Validate every point before running anything (without the fast path's tables, built
    // when the point runs).
    let mut prepared = Vec::new();
    for (i, p) in points.iter().enumerate() {
        if let Some((k, n)) = a.shard {
            if i as u64 % n != k {
                continue;
            }
        }
        let ready = p.prepare(false).map_err(|e| {
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
    let derived: Vec<(usize, Vec<String>)> = prepared
        .iter()
        .map(|(i, _, ready)| (*i, vec![ready.deadline().to_string()]))
        .collect();
    let schema = Schema::ct();
    let (mut sink, done) = Sink::open(a, identity, schema, &derived, out)?;
    let todo = &prepared[done..];
    // The progress display announces the estimate the sweep stays within.
    let bar = progress_bar(
        todo.len() as u64 * a.runs,
        &format!("sweep (≤ {})", admission::human(need)),
    );
    for (i, p, ready) in todo {
        let built;
        let ready = if a.engine == Engine::Auto && p.takes_fast_path() {
            built = p
                .prepare(true)
                .map_err(|e| UsageError(format!("point {i}: {}", e.0)))?;
            &built
        } else {
            ready
        };
        let stats = run_point(ready, a.seed, a.runs, &|n| bar.inc(n))
            .map_err(|e| UsageError(format!("point {i}: {e}")))?;
        let params = parameters(*i, p, a.runs, a.seed, ready);
        let text = line(a.format, schema, &params, &stats.summary())?;
        sink.line(&text, out)?;
    }
    bar.finish_and_clear();
    Ok(())
}

/// Admission of a family that runs one simulator of `bytes_per_proc` bytes per process on
/// every thread: the largest point this sweep (or shard) owns. Returns the need.
fn admit_largest(largest_procs: u32, bytes_per_proc: u64, what: &str) -> Result<u64, CliError> {
    let threads = rayon::current_num_threads() as u64;
    let need = admission::BASELINE_BYTES.saturating_add(
        u64::from(largest_procs).saturating_mul(bytes_per_proc.saturating_mul(threads)),
    );
    admission::admit(
        "--procs",
        &format!("running the largest {what} point on {threads} threads"),
        need,
    )?;
    Ok(need)
}

/// A prepared point of an FTCO or Corrected Gossip sweep: its index, the cells its grid
/// decides, what it derives, and the point ready to run.
struct Ready<R> {
    index: usize,
    cells: Vec<String>,
    derived: Vec<String>,
    ready: R,
}

/// Runs prepared points in grid order, resuming `--output`, and appends each point's line:
/// `run` gives a point's statistics, reporting finished runs to its progress callback.
fn run_ready<R>(
    a: &SweepArgs,
    identity: &Identity,
    schema: &'static Schema,
    points: &[Ready<R>],
    label: &str,
    run: impl Fn(&Ready<R>, &(dyn Fn(u64) + Sync)) -> Result<Vec<[String; 8]>, UsageError>,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let derived: Vec<(usize, Vec<String>)> = points
        .iter()
        .map(|p| (p.index, p.derived.clone()))
        .collect();
    let (mut sink, done) = Sink::open(a, identity, schema, &derived, out)?;
    let todo = &points[done..];
    let bar = progress_bar(todo.len() as u64 * a.runs, label);
    for p in todo {
        let summary = run(p, &|n| bar.inc(n))?;
        let mut params = vec![p.index.to_string()];
        params.extend(p.cells.iter().cloned());
        params.extend([a.runs.to_string(), a.seed.to_string()]);
        params.extend(p.derived.iter().cloned());
        let text = line(a.format, schema, &params, &summary)?;
        sink.line(&text, out)?;
    }
    bar.finish_and_clear();
    Ok(())
}

/// An FTCO sweep: every point validated (and its tree built) before any runs.
fn sweep_ftco(
    a: &SweepArgs,
    grid: &ftco::FtcoGrid,
    total: u64,
    identity: &Identity,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let largest = owned_points(total, a.shard)
        .map(|i| grid.point(i).procs)
        .max()
        .unwrap_or(0);
    let need = admit_largest(largest, admission::FTCO_BYTES_PER_PROC, "FTCO")?;
    let mut points = Vec::new();
    for i in owned_points(total, a.shard) {
        let p = grid.point(i);
        let ready = p.prepare(a.seed).map_err(|e| {
            UsageError(format!(
                "{} (point {i}: {} {} P={})",
                e.0,
                crate::flags::ftco::collective_name(p.collective),
                p.topology,
                p.procs
            ))
        })?;
        points.push(Ready {
            index: i as usize,
            cells: p.cells(),
            derived: ready.derived(),
            ready: (p, ready),
        });
    }
    let label = format!("sweep FTCO (≤ {})", admission::human(need));
    run_ready(
        a,
        identity,
        Schema::ftco(),
        &points,
        &label,
        |point, progress| {
            let (p, ready) = &point.ready;
            let stats = ftco::run_point(ready, a.seed, a.runs, progress).map_err(|e| {
                // Without Alg. 5 a late process can be suspected and ask forever for the result.
                let hint = if p.imbalance == ImbalanceArg::Off && p.arrival != ArrivalArg::NONE {
                    " (imbalance off with an arrival spread: a late process can be taken for failed and the run never end; --imbalance alg5 is FTCO's extension for it)"
                } else {
                    ""
                };
                UsageError(format!("point {}: {e}{hint}", point.index))
            })?;
            Ok(stats.summary(ready.procs()))
        },
        out,
    )
}

/// A Corrected Gossip sweep: every point validated (`T` and `C` resolved) before any runs.
fn sweep_gossip(
    a: &SweepArgs,
    grid: &gossip::CgGrid,
    total: u64,
    identity: &Identity,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let largest = owned_points(total, a.shard)
        .map(|i| grid.point(i).procs)
        .max()
        .unwrap_or(0);
    let need = admit_largest(largest, admission::DRIVER_BYTES_PER_PROC, "gossip")?;
    let mut points = Vec::new();
    for i in owned_points(total, a.shard) {
        let p = grid.point(i);
        let ready = p
            .prepare(a.seed)
            .map_err(|e| UsageError(format!("{} (point {i}: {} P={})", e.0, p.gossip, p.procs)))?;
        points.push(Ready {
            index: i as usize,
            cells: p.cells(),
            derived: ready.derived(),
            ready,
        });
    }
    let label = format!("sweep gossip (≤ {})", admission::human(need));
    run_ready(
        a,
        identity,
        Schema::cg(),
        &points,
        &label,
        |point, progress| {
            gossip::run_point(&point.ready, a.seed, a.runs, progress)
                .map(|stats| stats.summary())
                .map_err(|e| UsageError(format!("point {}: {e}", point.index)))
        },
        out,
    )
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
    /// Shard outputs of one sweep: every shard `0/N` to `N-1/N`, each complete, once.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
}

/// A shard output read back whole.
struct ShardFile<'a> {
    path: &'a Path,
    header: Header,
    rows: Vec<Row>,
}

/// Reads a complete shard output, refusing anything its sweep would not have written.
fn read_shard(path: &Path, format: SweepFormat) -> Result<ShardFile<'_>, UsageError> {
    let bytes = std::fs::read(path)
        .map_err(|e| UsageError(format!("inputs: cannot read {}: {e}", path.display())))?;
    let refuse = |f: Fault| f.in_file("inputs", path);
    if bytes.is_empty() {
        return Err(refuse(Fault::whole("empty file, not a sweep output")));
    }
    let text = text_of(&bytes).map_err(refuse)?;
    if !text.ends_with('\n') {
        return Err(refuse(Fault::at(
            line_of(&bytes, bytes.len()),
            "truncated: the last line has no newline \
             (an interrupted sweep: rerun it with --output on this file to finish it)",
        )));
    }
    let contents = parse_output(format, text).map_err(refuse)?;
    let Some(header) = contents.header else {
        return Err(refuse(Fault::whole("empty file, not a sweep output")));
    };
    if format == SweepFormat::Csv && !contents.csv_header {
        return Err(refuse(Fault::at(2, "the CSV header is missing")));
    }
    let (missing, first) = missing_points(&contents.rows, header.points, header.shard);
    if missing > 0 {
        let mut list: Vec<String> = first.iter().map(u64::to_string).collect();
        if missing > first.len() as u64 {
            list.push("…".into());
        }
        return Err(refuse(Fault::whole(format!(
            "incomplete {}: {missing} of its points missing (points {}); \
             rerun its sweep with --output on this file to finish it",
            shard_name(header.shard),
            list.join(", ")
        ))));
    }
    Ok(ShardFile {
        path,
        header,
        rows: contents.rows,
    })
}

/// `ftcoll merge`: checks that the inputs are every shard of one sweep, each complete and
/// intact, then writes the unsharded sweep's bytes: its identity, the header, the points in order.
pub fn merge(a: MergeArgs, out: &mut impl Write) -> Result<(), CliError> {
    // Writing over a shard would lose it: the output must be none of the inputs (compared as
    // files, so another spelling of the same path is caught too).
    if let Some(output) = &a.output {
        let same_file =
            |input: &PathBuf| match (std::fs::canonicalize(input), std::fs::canonicalize(output)) {
                (Ok(i), Ok(o)) => i == o,
                _ => input == output,
            };
        if let Some(input) = a.inputs.iter().find(|i| same_file(i)) {
            return Err(UsageError(format!(
                "--output: {} is one of the inputs; write the merged output to another file",
                input.display()
            ))
            .into());
        }
    }
    // Admission: every shard is held with its parsed rows and the merged output (about three
    // times the bytes of the inputs), so their sizes decide before anything is read.
    let bytes: u64 = a
        .inputs
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .fold(0, u64::saturating_add);
    admission::admit(
        "inputs",
        &format!("merging {} of shard outputs", admission::human(bytes)),
        admission::BASELINE_BYTES.saturating_add(bytes.saturating_mul(3)),
    )?;
    let shards = a
        .inputs
        .iter()
        .map(|p| read_shard(p, a.format))
        .collect::<Result<Vec<_>, _>>()?;
    let Some(first) = shards.first() else {
        return Err(UsageError("inputs: no shard outputs given".into()).into());
    };
    let count = first.header.shard.1;
    let mut given: BTreeMap<u64, &Path> = BTreeMap::new();
    for s in &shards {
        if let Some(d) = s.header.identity.difference(&first.header.identity) {
            return Err(UsageError(format!(
                "inputs: {} and {} are outputs of different sweeps ({d})",
                s.path.display(),
                first.path.display()
            ))
            .into());
        }
        if s.header.shard.1 != count {
            return Err(UsageError(format!(
                "inputs: {} holds {} but {} holds {} (shards of different sweeps)",
                s.path.display(),
                shard_name(s.header.shard),
                first.path.display(),
                shard_name(first.header.shard)
            ))
            .into());
        }
        if let Some(other) = given.insert(s.header.shard.0, s.path) {
            return Err(UsageError(format!(
                "inputs: {} repeats {} of {}",
                s.path.display(),
                shard_name(s.header.shard),
                other.display()
            ))
            .into());
        }
    }
    let missing: Vec<u64> = (0..count).filter(|k| !given.contains_key(k)).collect();
    if !missing.is_empty() {
        let mut names: Vec<String> = missing
            .iter()
            .take(5)
            .map(|k| format!("{k}/{count}"))
            .collect();
        if missing.len() > names.len() {
            names.push(format!("… ({} in all)", missing.len()));
        }
        return Err(UsageError(format!(
            "inputs: shard {} missing (given {} of {count} shards)",
            names.join(", "),
            given.len()
        ))
        .into());
    }
    let mut rows: Vec<&Row> = shards.iter().flat_map(|s| &s.rows).collect();
    // Shards own disjoint points, so the order is total.
    rows.sort_unstable_by_key(|r| r.point);
    let mut identity = first.header.identity.clone();
    identity.shard = None;
    let mut text = identity.line(a.format);
    text.push('\n');
    if a.format == SweepFormat::Csv {
        text.push_str(&csv_header(first.header.schema()));
        text.push('\n');
    }
    for r in rows {
        text.push_str(&r.line);
        text.push('\n');
    }
    match &a.output {
        Some(p) => std::fs::write(p, text)
            .map_err(|e| UsageError(format!("--output: cannot write {}: {e}", p.display())))?,
        None => out.write_all(text.as_bytes())?,
    }
    Ok(())
}
