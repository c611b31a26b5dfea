//! `ftcoll reproduce NAME [--quick]`: runs a paper's reproduction from the library's registry
//! ([`crate::experiment::REPRODUCTIONS`]: CT, FTCO, PAP, CG), each library code returning an
//! [`crate::experiment::Output`]; here its points run in parallel ([`Chunked`], with progress
//! bars) and the files are written ([`write_outputs`], every chart drawn by [`chart`]).
//!
//! Every run is seeded (`--seed`, default 1) and uses the same machinery as `ftcoll sweep`, so any
//! number here can be re-derived with a `sweep` or `simulate` command.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::experiment::{
    BatchPoint, ChartSeries, Executor, Executors, Job, Mode, PointError, Reproduction,
    REPRODUCTIONS,
};
use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::Args;
use plotters::prelude::*;

use crate::cli::args;
use crate::cli::config_file::FromFile;
use crate::cli::sweep::progress_bar;
use crate::cli::{CliError, Failure, UsageError};

/// The registry's names, each with its paper as help.
fn papers() -> PossibleValuesParser {
    PossibleValuesParser::new(
        REPRODUCTIONS
            .iter()
            .map(|r| PossibleValue::new(r.name).help(r.about)),
    )
}

/// `ftcoll reproduce`.
#[derive(Args, Debug)]
pub(super) struct ReproduceArgs {
    /// The paper to reproduce.
    #[arg(value_parser = papers())]
    paper: String,
    /// Fewer runs and smaller sizes: minutes instead of the paper's scale.
    #[arg(long)]
    quick: bool,
    /// Tiny sizes for tests (seconds; numbers are not comparable to the paper).
    #[arg(long, hide = true)]
    smoke: bool,
    /// The published run counts where the full run has fewer (CG Table 7: 10^6 runs per row;
    /// FTCO Fig. 8-9: 10^4 per point): hours on 2 cores, a job for `ftcoll-mpi reproduce` on a
    /// cluster. Writes results/paper unless --output says otherwise.
    #[arg(long, conflicts_with_all = ["quick", "smoke"])]
    paper_scale: bool,
    /// Directory for `ct.md` (`ftco.md`, `pap.md`, `cg.md`); CSV and SVG files go to its `ct/` (`ftco/`, `pap/`, `cg/`) subdirectory. Default: the
    /// committed `docs/results` for a full run, the git-ignored `results/quick` with `--quick`
    /// (a quick run never replaces the committed full-scale results unless asked to).
    #[arg(long)]
    output: Option<PathBuf>,
    /// Seed of every random choice.
    #[arg(long, default_value = "1", value_parser = args::seed)]
    seed: u64,
}

/// Where a full run writes: the committed results.
const FULL_OUTPUT: &str = "docs/results";
/// Where `--quick` writes by default: git-ignored, beside the committed results.
const QUICK_OUTPUT: &str = "results/quick";
/// Where `--paper-scale` writes by default: git-ignored too (the committed results are the
/// full scale's).
const PAPER_OUTPUT: &str = "results/paper";

/// Runs `work(0)`, …, `work(tasks − 1)` on every core (`RAYON_NUM_THREADS` threads if set), each
/// thread taking the next index, so the caller orders the tasks (costliest first). The first
/// error stops the other workers at their next task. Returns `(index, result)` in completion
/// order; every paper's statistics merge in any order.
pub(crate) fn parallel<S: Send>(
    tasks: usize,
    work: impl Fn(usize) -> Result<S, crate::experiment::PointError> + Sync,
) -> Result<Vec<(usize, S)>, crate::experiment::PointError> {
    use crate::experiment::PointError;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let threads = rayon::current_num_threads().max(1);
    type Done<S> = Result<Vec<(usize, S)>, PointError>;
    let partials: Vec<Done<S>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= tasks {
                            return Ok(done);
                        }
                        let s = work(i).inspect_err(|_| next.store(tasks, Ordering::Relaxed))?;
                        done.push((i, s));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| {
                w.join()
                    .unwrap_or_else(|_| Err(PointError("a worker panicked".into())))
            })
            .collect()
    });
    let mut all = Vec::new();
    for part in partials {
        all.extend(part?);
    }
    Ok(all)
}

/// Runs a batch of [`BatchPoint`]s on every core: each job's runs are cut into chunks of
/// `chunk_runs()`, the chunks of the costliest points first (greedy longest-first, so that a
/// minute-long FTCO Table 2 run does not start last), merged in any order (the statistics are
/// exact histograms), with a progress bar. The executor of every `reproduce`.
pub(crate) struct Chunked;

impl<P: BatchPoint> Executor<P> for Chunked {
    fn run(&mut self, seed: u64, jobs: &[Job<'_, P>]) -> Result<Vec<P::Stats>, PointError> {
        // (cost, job, first run, runs).
        let mut chunks: Vec<(u64, usize, u64, u64)> = Vec::new();
        for (j, job) in jobs.iter().enumerate() {
            let size = job.point.chunk_runs().max(1);
            let mut first = 0;
            while first < job.runs {
                let n = size.min(job.runs - first);
                chunks.push((job.point.cost(), j, first, n));
                first += n;
            }
        }
        chunks.sort_by_key(|c| std::cmp::Reverse(c.0));
        let total: u64 = jobs.iter().map(|j| j.runs).sum();
        let label = match jobs {
            [one] => one.label.to_string(),
            [first, ..] => format!("{} (+{} points)", first.label, jobs.len() - 1),
            [] => String::new(),
        };
        let bar = progress_bar(total, &label);
        let done = parallel(chunks.len(), |i| {
            let (_, j, first, n) = chunks[i];
            let stats = jobs[j]
                .point
                .run_many(seed, first, n)
                .map_err(|e| PointError(format!("{}: {}", jobs[j].label, e.0)))?;
            bar.inc(n);
            Ok(stats)
        });
        bar.finish_and_clear();
        let mut stats = vec![P::Stats::default(); jobs.len()];
        for (i, s) in done? {
            P::merge(&mut stats[chunks[i].1], &s);
        }
        Ok(stats)
    }
}

/// Writes a paper's [`crate::experiment::Output`]: `NAME.md` into `output` (with the run
/// count and wall time since `started` as its last line) and the CSV and SVG files into
/// `output/NAME/`.
pub(crate) fn write_outputs(
    output: &Path,
    name: &str,
    result: crate::experiment::Output,
    started: Instant,
    workers: &str,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let dir = output.join(name);
    for (file, text) in &result.csv {
        write_file(&dir.join(file), text)?;
    }
    for c in &result.charts {
        chart(
            &dir.join(&c.file),
            &c.title,
            &c.x_label,
            &c.y_label,
            &c.series,
            c.log_x,
            c.log_y,
        )?;
    }
    let md = format!(
        "{}\n\n---\n\n{} runs in {:.1} s on {workers}.\n",
        result.markdown.trim_end_matches('\n'),
        result.runs,
        started.elapsed().as_secs_f64(),
    );
    let report = output.join(format!("{name}.md"));
    write_file(&report, &md)?;
    writeln!(out, "wrote {} and {}", report.display(), dir.display())?;
    Ok(())
}

/// Creates `output/NAME/` for [`write_outputs`] before any work.
pub(crate) fn output_dir(output: &Path, name: &str) -> Result<(), CliError> {
    let dir = output.join(name);
    std::fs::create_dir_all(&dir)
        .map_err(|e| UsageError(format!("--output: cannot create {}: {e}", dir.display())).into())
}

fn write_file(path: &Path, text: &str) -> Result<(), CliError> {
    std::fs::write(path, text)
        .map_err(|e| UsageError(format!("--output: cannot write {}: {e}", path.display())).into())
}

/// The points of `s` as `(x, y, low, high)`: its whiskers, or `low = high = y` without.
fn with_whiskers(s: &ChartSeries) -> Vec<(f64, f64, f64, f64)> {
    s.points
        .iter()
        .enumerate()
        .map(|(i, &(x, y))| {
            let (low, high) = s.whiskers.get(i).copied().unwrap_or((y, y));
            (x, y, low, high)
        })
        .collect()
}

/// Draws `series` (lines, or points alone for a scatter series, each with its whiskers if it
/// has any) into the SVG file `path`: the one renderer of every chart the CLI writes.
#[allow(clippy::too_many_arguments)]
pub(crate) fn chart(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[ChartSeries],
    log_x: bool,
    log_y: bool,
) -> Result<(), CliError> {
    let err = |e: &dyn std::fmt::Display| -> CliError {
        UsageError(format!("--output: plotting {}: {e}", path.display())).into()
    };
    let points: Vec<Vec<(f64, f64, f64, f64)>> = series.iter().map(with_whiskers).collect();
    let all: Vec<&(f64, f64, f64, f64)> = points.iter().flatten().collect();
    let min = |f: fn(&(f64, f64, f64, f64)) -> f64| {
        all.iter().map(|p| f(p)).fold(f64::INFINITY, f64::min)
    };
    let max = |f: fn(&(f64, f64, f64, f64)) -> f64| {
        all.iter().map(|p| f(p)).fold(f64::NEG_INFINITY, f64::max)
    };
    let (mut x0, mut x1) = (min(|p| p.0), max(|p| p.0));
    let (mut y0, mut y1) = (min(|p| p.2.min(p.1)), max(|p| p.3.max(p.1)));
    if !x0.is_finite() {
        (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
    }
    if log_x {
        (x0, x1) = (x0 / 1.3, x1 * 1.3);
    } else {
        let pad = (x1 - x0).max(1.0) * 0.05;
        (x0, x1) = (x0 - pad, x1 + pad);
    }
    if log_y {
        // A logarithmic axis holds only positive values (`plot` leaves the others out); the
        // floor only stands in when there is none.
        let low = y0 / 1.3;
        (y0, y1) = (if low > 0.0 { low } else { 1e-3 }, y1 * 1.3);
    } else {
        let pad = (y1 - y0).max(1.0) * 0.08;
        // Down to 0 for non-negative data; below it only when some value is negative.
        let low = y0 - pad;
        (y0, y1) = (if y0 >= 0.0 { low.max(0.0) } else { low }, y1 + pad);
    }
    // Values near f64::MAX overflow the padding; plotters would loop on an infinite axis.
    if ![x0, x1, y0, y1].iter().all(|v| v.is_finite()) {
        return Err(UsageError(format!(
            "--output: plotting {}: a value is too large for the axis: allowed magnitudes up to 1e307",
            path.display()
        ))
        .into());
    }
    let root = SVGBackend::new(path, (800, 520)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut builder = ChartBuilder::on(&root);
    builder
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(60);
    let palette = [
        RED,
        BLUE,
        GREEN,
        MAGENTA,
        CYAN,
        BLACK,
        RGBColor(230, 140, 0),
        RGBColor(120, 60, 160),
    ];
    macro_rules! draw {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .x_desc(x_label)
                .y_desc(y_label)
                .draw()
                .map_err(|e| err(&e))?;
            for (k, (s, points)) in series.iter().zip(&points).enumerate() {
                let color = palette[k % palette.len()];
                if s.scatter {
                    chart
                        .draw_series(
                            s.points
                                .iter()
                                .map(|p| Circle::new((p.0, p.1), 3, color.filled())),
                        )
                        .map_err(|e| err(&e))?
                        .label(s.name.clone())
                        .legend(move |(x, y)| Circle::new((x + 10, y), 3, color.filled()));
                } else {
                    chart
                        .draw_series(LineSeries::new(
                            s.points.iter().map(|p| (p.0, p.1)),
                            color.stroke_width(2),
                        ))
                        .map_err(|e| err(&e))?
                        .label(s.name.clone())
                        .legend(move |(x, y)| {
                            PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                        });
                    chart
                        .draw_series(
                            s.points
                                .iter()
                                .map(|p| Circle::new((p.0, p.1), 3, color.filled())),
                        )
                        .map_err(|e| err(&e))?;
                }
                if !s.whiskers.is_empty() {
                    chart
                        .draw_series(points.iter().map(|p| {
                            ErrorBar::new_vertical(p.0, p.2, p.1, p.3, color.stroke_width(1), 6)
                        }))
                        .map_err(|e| err(&e))?;
                }
            }
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .position(SeriesLabelPosition::UpperLeft)
                .draw()
                .map_err(|e| err(&e))?;
        }};
    }
    match (log_x, log_y) {
        (true, true) => draw!(builder
            .build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())
            .map_err(|e| err(&e))?),
        (true, false) => draw!(builder
            .build_cartesian_2d((x0..x1).log_scale(), y0..y1)
            .map_err(|e| err(&e))?),
        (false, true) => draw!(builder
            .build_cartesian_2d(x0..x1, (y0..y1).log_scale())
            .map_err(|e| err(&e))?),
        (false, false) => draw!(builder
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(|e| err(&e))?),
    }
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

/// `--output`, or the committed results for a full run and the git-ignored `results/quick` for
/// `--quick` (and `--smoke`).
fn default_output(a: &ReproduceArgs) -> PathBuf {
    a.output.clone().unwrap_or_else(|| {
        PathBuf::from(if a.quick || a.smoke {
            QUICK_OUTPUT
        } else if a.paper_scale {
            PAPER_OUTPUT
        } else {
            FULL_OUTPUT
        })
    })
}

/// A parsed `ftcoll reproduce` command line: the paper, its scale and seed, and where its
/// files go. `ftcoll reproduce` creates the directory, runs the paper on every core and writes
/// the files; other front ends run it on their own [`Executors`] (the MPI crate's spreads each
/// batch of points over ranks) and write the same files.
pub struct ReproducePlan {
    paper: Reproduction,
    mode: Mode,
    seed: u64,
    output: PathBuf,
    from_file: Option<FromFile>,
}

impl ReproducePlan {
    /// The plan of parsed arguments.
    pub(in crate::cli) fn new(
        a: &ReproduceArgs,
        from_file: Option<FromFile>,
    ) -> Result<Self, Failure> {
        match Self::of(a) {
            Ok(plan) => Ok(Self { from_file, ..plan }),
            Err(e) => Err(Failure::of(e.into(), from_file.as_ref()).unwrap_or_else(broken_pipe)),
        }
    }

    fn of(a: &ReproduceArgs) -> Result<Self, UsageError> {
        let mode = if a.smoke {
            Mode::Smoke
        } else if a.quick {
            Mode::Quick
        } else if a.paper_scale {
            Mode::Paper
        } else {
            Mode::Full
        };
        let paper = crate::experiment::reproduction(&a.paper)
            .ok_or_else(|| UsageError(format!("reproduce: no paper called {}", a.paper)))?;
        Ok(Self {
            paper: *paper,
            mode,
            seed: a.seed,
            output: default_output(a),
            from_file: None,
        })
    }

    /// The paper's name (`ct`, `cg`, `ftco`, `pap`).
    pub fn name(&self) -> &'static str {
        self.paper.name
    }

    /// Creates the output directory (`--output`/NAME/), before any work.
    pub fn create_output(&self) -> Result<(), Failure> {
        output_dir(&self.output, self.paper.name).map_err(|e| self.failure(e))
    }

    /// Runs the paper on `exec`; `elapsed` reads the seconds since the start (for reports that
    /// state their own run time).
    pub fn run(
        &self,
        exec: &mut dyn Executors,
        elapsed: &dyn Fn() -> f64,
    ) -> Result<crate::experiment::Output, Failure> {
        (self.paper.run)(self.mode, self.seed, exec, elapsed).map_err(|e| {
            self.failure(UsageError(format!("reproduce {}: {}", self.paper.name, e.0)).into())
        })
    }

    /// Writes the paper's files as `ftcoll reproduce` does; the report's last line gives the
    /// runs, the seconds since `started` and `workers` (what ran them: `2 threads`).
    pub fn write(
        &self,
        result: crate::experiment::Output,
        started: Instant,
        workers: &str,
        out: &mut impl Write,
    ) -> Result<(), Failure> {
        write_outputs(&self.output, self.paper.name, result, started, workers, out)
            .map_err(|e| self.failure(e))
    }

    fn failure(&self, e: CliError) -> Failure {
        Failure::of(e, self.from_file.as_ref()).unwrap_or_else(broken_pipe)
    }
}

/// The failure of a closed pipe, for callers that want every write error.
fn broken_pipe() -> Failure {
    Failure {
        line: "error: writing output: broken pipe".into(),
        code: 1,
    }
}

/// `ftcoll reproduce`.
pub(super) fn reproduce(a: ReproduceArgs, out: &mut impl Write) -> Result<(), CliError> {
    let plan = ReproducePlan::of(&a)?;
    output_dir(&plan.output, plan.paper.name)?;
    let started = Instant::now();
    let result = (plan.paper.run)(plan.mode, plan.seed, &mut Chunked, &|| {
        started.elapsed().as_secs_f64()
    })
    .map_err(|e| UsageError(format!("reproduce {}: {}", plan.paper.name, e.0)))?;
    let workers = format!("{} threads", rayon::current_num_threads());
    write_outputs(
        &plan.output,
        plan.paper.name,
        result,
        started,
        &workers,
        out,
    )
}
