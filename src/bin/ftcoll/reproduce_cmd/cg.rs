//! `ftcoll reproduce cg [--quick]`: a thin shell around the library's
//! [`ftcoll::experiment::cg::reproduce`], which runs Table 7, Fig. 3, 5 and 1 and writes the
//! report's text; here the runs of each batch go in parallel (chunks of runs merged in any
//! order: the statistics are exact) with a progress bar, and the files are written.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use ftcoll::experiment::cg::{self, CgStats, Executor, Job, Mode};
use ftcoll::experiment::PointError;

use super::{chart, write_file, Series};
use crate::sweep_cmd::progress_bar;
use crate::{CliError, UsageError};

/// Runs a batch on every core (`RAYON_NUM_THREADS` threads if set): the runs are cut into
/// chunks of 8, the costliest points first, each thread taking the next chunk.
struct Parallel;

impl Executor for Parallel {
    fn run(&mut self, seed: u64, jobs: &[Job<'_>]) -> Result<Vec<CgStats>, PointError> {
        let mut chunks: Vec<(u64, usize, u64, u64)> = Vec::new();
        for (j, job) in jobs.iter().enumerate() {
            let mut first = 0;
            while first < job.runs {
                let n = 8.min(job.runs - first);
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
        let next = AtomicUsize::new(0);
        let threads = rayon::current_num_threads().max(1);
        let partials: Vec<Result<Vec<(usize, CgStats)>, PointError>> =
            std::thread::scope(|scope| {
                let workers: Vec<_> = (0..threads)
                    .map(|_| {
                        scope.spawn(|| {
                            let mut done = Vec::new();
                            loop {
                                let i = next.fetch_add(1, Ordering::Relaxed);
                                let Some(&(_, j, first, n)) = chunks.get(i) else {
                                    return Ok(done);
                                };
                                let stats =
                                    jobs[j].point.run_many(seed, first, n).map_err(|e| {
                                        next.store(chunks.len(), Ordering::Relaxed);
                                        PointError(format!("{}: {}", jobs[j].label, e.0))
                                    })?;
                                bar.inc(n);
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
        let mut stats = vec![CgStats::default(); jobs.len()];
        for part in partials {
            for (j, s) in part? {
                stats[j].merge(&s);
            }
        }
        Ok(stats)
    }
}

/// Runs the reproduction at `mode`'s scale and writes `cg.md` into `output` and the CSV and SVG
/// files into `output/cg/`.
pub fn reproduce(
    mode: Mode,
    seed: u64,
    output: &Path,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let dir = output.join("cg");
    std::fs::create_dir_all(&dir)
        .map_err(|e| UsageError(format!("--output: cannot create {}: {e}", dir.display())))?;
    let started = Instant::now();
    let result = cg::reproduce(mode, seed, &mut Parallel)
        .map_err(|e| UsageError(format!("reproduce cg: {}", e.0)))?;
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
        "---\n\n{} runs in {:.1} s on {} threads.\n",
        result.runs,
        started.elapsed().as_secs_f64(),
        rayon::current_num_threads()
    ));
    write_file(&output.join("cg.md"), &md)?;
    writeln!(
        out,
        "wrote {} and {}",
        output.join("cg.md").display(),
        dir.display()
    )?;
    Ok(())
}
