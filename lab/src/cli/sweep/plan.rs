//! A sweep as a plan: the points a sweep (or shard) runs, validated and prepared, which any
//! front end can run in pieces — a range of one point's runs at a time, anywhere — and put back
//! together into the rows `ftcoll sweep` writes. `ftcoll sweep` runs each point whole, one
//! after the other; the MPI crate deals pieces out to ranks.
//!
//! A point's statistics are exact histograms ([`Tally`]), so merging pieces in any order gives
//! the statistics of the whole point, and its row is the same bytes however the runs were cut.

use std::io::Write;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use crate::experiment::{Faults, Point, PointStats, Prepared};

use super::output::{line, parameters, Identity, Schema};
use super::run::{admit_largest, owned_points, point_need, Sink};
use super::{ftco, gossip, CtGrid, Grid, SweepArgs};
use crate::cli::config_file::FromFile;
use crate::cli::flags::ftco::ImbalanceArg;
use crate::cli::flags::{ArrivalArg, Engine};
use crate::cli::{admission, CliError, Failure, UsageError};

/// A prepared point: its index in the grid, the cells its grid decides, what it derives, and
/// the point ready to run.
struct Ready<R> {
    index: usize,
    cells: Vec<String>,
    derived: Vec<String>,
    ready: R,
}

/// One family's prepared points, in grid order.
enum Points {
    /// Corrected Tree points (without the fast path's tables, built when a point runs).
    Ct(Vec<Ready<(Point, Prepared)>>),
    /// FTCO points.
    Ftco(Vec<Ready<(ftco::FtcoPoint, ftco::FtcoPrepared)>>),
    /// Corrected Gossip points (`T` and `C` resolved).
    Cg(Vec<Ready<gossip::CgPrepared>>),
}

/// A sweep validated, admitted and prepared: what one `ftcoll sweep` command line runs.
///
/// [`SweepPlan::points`] points, numbered in the order of the output's rows; each has
/// [`SweepPlan::runs`] runs. [`SweepPlan::run`] runs any range of one point's runs (on this
/// process's threads) into a [`Tally`]; tallies of one point merge in any order, and
/// [`SweepPlan::row`] renders the whole point's row. [`SweepPlan::open`] writes the preamble
/// (or resumes `--output`) and [`SweepOutput::write_row`] appends rows, in point order.
pub struct SweepPlan {
    args: SweepArgs,
    identity: Identity,
    schema: &'static Schema,
    points: Points,
    /// The progress bar's label (with the memory estimate the sweep stays within).
    label: String,
    /// The `--config` file the flags came from, named in errors about them.
    from_file: Option<FromFile>,
    /// The fast path's tables of the last Corrected Tree point run (point number, tables).
    fast: Mutex<Option<(usize, Arc<Prepared>)>>,
}

/// The exact statistics of some of one point's runs. Merging the tallies of disjoint ranges of
/// runs gives the tally of their union, whatever the order; it serializes (serde) to travel
/// between processes.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Tally(TallyOf);

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
enum TallyOf {
    Ct(PointStats),
    Ftco(ftco::FtcoStats),
    Cg(gossip::CgSweepStats),
}

impl Tally {
    /// The number of runs it holds.
    pub fn runs(&self) -> u64 {
        match &self.0 {
            TallyOf::Ct(s) => s.runs(),
            TallyOf::Ftco(s) => s.runs(),
            TallyOf::Cg(s) => s.runs(),
        }
    }

    /// Adds the runs of `other`, a tally of the same sweep family (an error otherwise).
    pub fn merge(&mut self, other: &Self) -> Result<(), Failure> {
        match (&mut self.0, &other.0) {
            (TallyOf::Ct(a), TallyOf::Ct(b)) => a.merge(b),
            (TallyOf::Ftco(a), TallyOf::Ftco(b)) => a.merge(b),
            (TallyOf::Cg(a), TallyOf::Cg(b)) => a.merge(b),
            _ => {
                return Err(Failure {
                    line: "error: tallies of different sweep families cannot merge".into(),
                    code: 1,
                })
            }
        }
        Ok(())
    }
}

/// Where a plan's rows go (stdout or the resumed `--output` file), and how many of its points
/// that file already holds.
pub struct SweepOutput {
    sink: Sink,
    done: usize,
}

impl SweepOutput {
    /// The number of points already written (a resumed `--output`); the next row to write is
    /// point `done()`.
    pub fn done(&self) -> usize {
        self.done
    }

    /// Appends the next point's row and flushes it, with the error of the command line.
    pub(super) fn write_row_io(&mut self, row: &str, out: &mut impl Write) -> std::io::Result<()> {
        self.sink.line(row, out)?;
        self.done += 1;
        Ok(())
    }

    /// Appends the next point's row and flushes it.
    pub fn write_row(&mut self, row: &str, out: &mut impl Write) -> Result<(), Failure> {
        self.sink.line(row, out).map_err(|e| io_failure(&e))?;
        self.done += 1;
        Ok(())
    }
}

/// The line and exit code of an output error (a closed pipe included: a caller that writes
/// rows wants to know its reader went away).
fn io_failure(e: &std::io::Error) -> Failure {
    Failure {
        line: format!("error: writing output: {e}"),
        code: 1,
    }
}

impl SweepPlan {
    /// Validates a parsed sweep (every point prepared, memory admitted) in the order
    /// `ftcoll sweep` always has, so that the same bad input gives the same line.
    pub(in crate::cli) fn new(a: SweepArgs, from_file: Option<FromFile>) -> Result<Self, Failure> {
        match Self::checked(a) {
            Ok(plan) => Ok(Self { from_file, ..plan }),
            Err(e) => Err(Failure::of(e, from_file.as_ref())
                .unwrap_or_else(|| io_failure(&std::io::ErrorKind::BrokenPipe.into()))),
        }
    }

    /// [`SweepPlan::new`] with the errors of the command line.
    pub(super) fn checked(a: SweepArgs) -> Result<Self, CliError> {
        super::check_flags(&a)?;
        let grid = Grid::from_args(&a);
        let total = grid
            .len()
            .ok_or_else(|| UsageError("--procs: the grid has more than 2^64 - 1 points".into()))?;
        let identity = Identity::new(&grid, a.runs, a.seed, a.shard);
        // Admission: the grid's bookkeeping, then the largest point's runs (points run one
        // after the other, each point's tables or simulators built when it starts).
        let owned = match a.shard {
            Some((k, n)) => total / n + u64::from(total % n > k),
            None => total,
        };
        admission::admit(
            "--procs",
            &format!("a grid of {total} points"),
            admission::BASELINE_BYTES.saturating_add(owned.saturating_mul(super::run::POINT_BYTES)),
        )?;
        let (points, schema, label) = match &grid {
            Grid::Ct(g) => {
                let (points, need) = prepare_ct(&a, g, total)?;
                let label = format!("sweep (≤ {})", admission::human(need));
                (points, Schema::ct(), label)
            }
            Grid::Ftco(g) => {
                let (points, need) = prepare_ftco(&a, g, total)?;
                let label = format!("sweep FTCO (≤ {})", admission::human(need));
                (points, Schema::ftco(), label)
            }
            Grid::Cg(g) => {
                let (points, need) = prepare_gossip(&a, g, total)?;
                let label = format!("sweep gossip (≤ {})", admission::human(need));
                (points, Schema::cg(), label)
            }
        };
        Ok(Self {
            args: a,
            identity,
            schema,
            points,
            label,
            from_file: None,
            fast: Mutex::new(None),
        })
    }

    /// The number of points this sweep (or `--shard`) runs.
    pub fn points(&self) -> usize {
        match &self.points {
            Points::Ct(p) => p.len(),
            Points::Ftco(p) => p.len(),
            Points::Cg(p) => p.len(),
        }
    }

    /// The runs of every point (`--runs`).
    pub fn runs(&self) -> u64 {
        self.args.runs
    }

    /// The threads [`SweepPlan::run`] spreads a range of runs over in this process (`--threads`,
    /// or one per core), in chunks of 64 runs.
    pub fn threads(&self) -> usize {
        rayon::current_num_threads()
    }

    /// The progress display's label.
    pub(super) fn label(&self) -> &str {
        &self.label
    }

    /// Writes the identity line (and CSV header) to `out`, or resumes `--output` after checking
    /// that it holds this sweep.
    pub fn open(&self, out: &mut impl Write) -> Result<SweepOutput, Failure> {
        self.open_output(out).map_err(|e| self.failure(e))
    }

    /// [`SweepPlan::open`] with the errors of the command line.
    pub(super) fn open_output(&self, out: &mut impl Write) -> Result<SweepOutput, CliError> {
        let derived: Vec<(usize, Vec<String>)> = match &self.points {
            Points::Ct(p) => derived(p),
            Points::Ftco(p) => derived(p),
            Points::Cg(p) => derived(p),
        };
        let (sink, done) = Sink::open(&self.args, &self.identity, self.schema, &derived, out)?;
        Ok(SweepOutput { sink, done })
    }

    /// Runs `runs` of point `point` (below [`SweepPlan::points`]; runs below
    /// [`SweepPlan::runs`]) in parallel on this process's threads.
    pub fn run(&self, point: usize, runs: Range<u64>) -> Result<Tally, Failure> {
        self.check_piece(point, &runs)?;
        self.run_runs(point, runs, &|_| {})
            .map_err(|e| self.failure(e))
    }

    /// The row of point `point` from the tally of all its runs.
    pub fn row(&self, point: usize, tally: &Tally) -> Result<String, Failure> {
        self.check_piece(point, &(0..self.runs()))?;
        if tally.runs() != self.runs() {
            return Err(Failure {
                line: format!(
                    "error: point {point}'s tally holds {} runs of {}",
                    tally.runs(),
                    self.runs()
                ),
                code: 1,
            });
        }
        self.point_row(point, tally).map_err(|e| self.failure(e))
    }

    /// Refuses a point or range of runs the plan does not have.
    fn check_piece(&self, point: usize, runs: &Range<u64>) -> Result<(), Failure> {
        if point >= self.points() || runs.start > runs.end || runs.end > self.runs() {
            return Err(Failure {
                line: format!(
                    "error: point {point}, runs {}..{}: the sweep has points 0..{} and runs 0..{}",
                    runs.start,
                    runs.end,
                    self.points(),
                    self.runs()
                ),
                code: 2,
            });
        }
        Ok(())
    }

    /// The failure a command-line error makes here.
    fn failure(&self, e: CliError) -> Failure {
        Failure::of(e, self.from_file.as_ref())
            .unwrap_or_else(|| io_failure(&std::io::ErrorKind::BrokenPipe.into()))
    }

    /// Runs `runs` of point `k`, reporting finished runs to `progress`.
    pub(super) fn run_runs(
        &self,
        k: usize,
        runs: Range<u64>,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<Tally, CliError> {
        let seed = self.args.seed;
        let tally = match &self.points {
            Points::Ct(points) => {
                let point = &points[k];
                let (p, ready) = &point.ready;
                let fast = if self.args.engine == Engine::Auto && p.takes_fast_path() {
                    Some(self.fast_tables(k, p)?)
                } else {
                    None
                };
                let ready = fast.as_deref().unwrap_or(ready);
                let stats = super::run::run_point(ready, seed, runs, progress)
                    .map_err(|e| UsageError(format!("point {}: {e}", point.index)))?;
                TallyOf::Ct(stats)
            }
            Points::Ftco(points) => {
                let point = &points[k];
                let (p, ready) = &point.ready;
                let stats = ftco::run_point(ready, seed, runs, progress).map_err(|e| {
                    // Without Alg. 5 a late process can be suspected and ask forever for the
                    // result.
                    let hint = if p.imbalance == ImbalanceArg::Off && p.arrival != ArrivalArg::NONE
                    {
                        " (imbalance off with an arrival spread: a late process can be taken for failed and the run never end; --imbalance alg5 is FTCO's extension for it)"
                    } else {
                        ""
                    };
                    UsageError(format!("point {}: {e}{hint}", point.index))
                })?;
                TallyOf::Ftco(stats)
            }
            Points::Cg(points) => {
                let point = &points[k];
                let stats = gossip::run_point(&point.ready, seed, runs, progress)
                    .map_err(|e| UsageError(format!("point {}: {e}", point.index)))?;
                TallyOf::Cg(stats)
            }
        };
        Ok(Tally(tally))
    }

    /// The fast path's tables of Corrected Tree point `k`, built once for consecutive pieces of
    /// the same point.
    fn fast_tables(&self, k: usize, p: &Point) -> Result<Arc<Prepared>, CliError> {
        let mut cache = self.fast.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((cached, tables)) = cache.as_ref() {
            if *cached == k {
                return Ok(Arc::clone(tables));
            }
        }
        // The previous point's tables go first: two large points' tables never coexist.
        *cache = None;
        let built = p.prepare(true).map_err(|e| {
            let index = match &self.points {
                Points::Ct(points) => points[k].index,
                _ => k,
            };
            UsageError(format!("point {index}: {}", e.0))
        })?;
        let built = Arc::new(built);
        *cache = Some((k, Arc::clone(&built)));
        Ok(built)
    }

    /// The row of point `k` from the tally of all its runs.
    pub(super) fn point_row(&self, k: usize, tally: &Tally) -> Result<String, CliError> {
        let (a, schema) = (&self.args, self.schema);
        let text = match (&self.points, &tally.0) {
            (Points::Ct(points), TallyOf::Ct(stats)) => {
                let point = &points[k];
                let (p, ready) = &point.ready;
                let params = parameters(point.index, p, a.runs, a.seed, ready);
                line(a.format, schema, &params, &stats.summary())?
            }
            (Points::Ftco(points), TallyOf::Ftco(stats)) => {
                let point = &points[k];
                let summary = stats.summary(point.ready.1.procs());
                line(
                    a.format,
                    schema,
                    &ready_params(point, a.runs, a.seed),
                    &summary,
                )?
            }
            (Points::Cg(points), TallyOf::Cg(stats)) => {
                let point = &points[k];
                line(
                    a.format,
                    schema,
                    &ready_params(point, a.runs, a.seed),
                    &stats.summary(),
                )?
            }
            _ => {
                return Err(UsageError("a tally of another sweep family".into()).into());
            }
        };
        Ok(text)
    }
}

/// The parameter cells of an FTCO or Corrected Gossip point's row.
fn ready_params<R>(p: &Ready<R>, runs: u64, seed: u64) -> Vec<String> {
    let mut params = vec![p.index.to_string()];
    params.extend(p.cells.iter().cloned());
    params.extend([runs.to_string(), seed.to_string()]);
    params.extend(p.derived.iter().cloned());
    params
}

/// Every point's index and derived cells (what resuming checks a file's rows against).
fn derived<R>(points: &[Ready<R>]) -> Vec<(usize, Vec<String>)> {
    points
        .iter()
        .map(|p| (p.index, p.derived.clone()))
        .collect()
}

/// The Corrected Tree points a sweep (or shard) owns, validated; and the memory the largest
/// one's runs need, admitted.
fn prepare_ct(a: &SweepArgs, grid: &CtGrid, total: u64) -> Result<(Points, u64), CliError> {
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
    let mut points = Vec::new();
    for i in owned_points(total, a.shard) {
        let p = grid.point(i);
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
        points.push(Ready {
            index: i as usize,
            cells: Vec::new(),
            derived: vec![ready.deadline().to_string()],
            ready: (p, ready),
        });
    }
    Ok((Points::Ct(points), need))
}

/// The FTCO points a sweep (or shard) owns, validated (trees built); and the memory admitted.
fn prepare_ftco(
    a: &SweepArgs,
    grid: &ftco::FtcoGrid,
    total: u64,
) -> Result<(Points, u64), CliError> {
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
                crate::cli::flags::ftco::collective_name(p.collective),
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
    Ok((Points::Ftco(points), need))
}

/// The Corrected Gossip points a sweep (or shard) owns, validated (`T` and `C` resolved); and
/// the memory admitted.
fn prepare_gossip(
    a: &SweepArgs,
    grid: &gossip::CgGrid,
    total: u64,
) -> Result<(Points, u64), CliError> {
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
    Ok((Points::Cg(points), need))
}
