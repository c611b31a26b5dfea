//! `ftcoll reproduce pap [--quick]`: a thin shell around the library's
//! [`ftcoll::experiment::pap::reproduce`], which runs every figure and writes the report's text;
//! here the points run in parallel (each point's result depends only on the seed and the point,
//! so the order they finish in changes nothing) with a progress bar, and the files are written.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use ftcoll::experiment::pap::{self, AlgStats, Executor, Mode, PointJob};
use ftcoll::experiment::PointError;

use super::{chart, write_file, Series};
use crate::sweep_cmd::progress_bar;
use crate::{CliError, UsageError};

/// The points one worker ran: `(job index, statistics)`.
type Done = Vec<(usize, Vec<AlgStats>)>;

/// Runs the points on every core (`RAYON_NUM_THREADS` threads if set), the costliest first.
struct Parallel;

impl Executor for Parallel {
    fn run(&mut self, seed: u64, jobs: &[PointJob]) -> Result<Vec<Vec<AlgStats>>, PointError> {
        let mut order: Vec<usize> = (0..jobs.len()).collect();
        order.sort_by_key(|&j| (std::cmp::Reverse(jobs[j].cost()), j));
        let bar = progress_bar(jobs.len() as u64, "reproduce pap: points");
        let next = AtomicUsize::new(0);
        let threads = rayon::current_num_threads().max(1);
        let partials: Vec<Result<Done, PointError>> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    scope.spawn(|| {
                        let mut done = Vec::new();
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some(&j) = order.get(i) else {
                                return Ok(done);
                            };
                            let stats = jobs[j].run(seed).inspect_err(|_| {
                                // Stop the other workers at their next point.
                                next.store(order.len(), Ordering::Relaxed);
                            })?;
                            bar.inc(1);
                            done.push((j, stats));
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
        bar.finish_and_clear();
        let mut stats = vec![Vec::new(); jobs.len()];
        for part in partials {
            for (j, s) in part? {
                stats[j] = s;
            }
        }
        Ok(stats)
    }
}

/// Runs the reproduction at `mode`'s scale and writes `pap.md` into `output` and the CSV and
/// SVG files into `output/pap/`.
pub fn reproduce(
    mode: Mode,
    seed: u64,
    output: &Path,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let dir = output.join("pap");
    std::fs::create_dir_all(&dir)
        .map_err(|e| UsageError(format!("--output: cannot create {}: {e}", dir.display())))?;
    let started = Instant::now();
    let result = pap::reproduce(mode, seed, &mut Parallel)
        .map_err(|e| UsageError(format!("reproduce pap: {}", e.0)))?;
    for (name, text) in &result.csv {
        write_file(&dir.join(name), text)?;
    }
    for c in &result.charts {
        let series: Vec<Series> = c
            .series
            .iter()
            .map(|s| Series::line(s.name.clone(), s.points.clone()))
            .collect();
        chart(
            &dir.join(&c.file),
            &c.title,
            &c.x_label,
            &c.y_label,
            &series,
            c.log_x,
            c.log_y,
        )?;
    }
    let mut md = result.markdown;
    md.push_str(&format!(
        "\n---\n\n{} runs in {:.1} s on {} threads.\n",
        result.runs,
        started.elapsed().as_secs_f64(),
        rayon::current_num_threads()
    ));
    write_file(&output.join("pap.md"), &md)?;
    writeln!(
        out,
        "wrote {} and {}",
        output.join("pap.md").display(),
        dir.display()
    )?;
    Ok(())
}
