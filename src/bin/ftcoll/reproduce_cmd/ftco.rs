//! `ftcoll reproduce ftco [--quick]`: a thin shell around the library's
//! [`ftcoll::experiment::ftco::reproduce`], which runs every table and figure and writes the
//! report's text; here the runs of each batch of points go in parallel (chunks of runs merged in
//! any order: the statistics are exact histograms) with a progress bar, and the files are
//! written.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use ftcoll::experiment::ftco::{self, Executor, FtcoStats, Job, Mode};
use ftcoll::experiment::PointError;

use super::{output_dir, parallel, write_outputs};
use crate::sweep_cmd::progress_bar;
use crate::{CliError, UsageError};

/// Runs a batch on every core: the runs are cut into chunks, the chunks of the costliest points
/// first (greedy longest-first, so that a minute-long Table 2 run does not start last).
struct Parallel;

impl Executor for Parallel {
    fn run(&mut self, seed: u64, jobs: &[Job<'_>]) -> Result<Vec<FtcoStats>, PointError> {
        // (cost, job, first run, runs): one run per chunk for the points of 16 K nodes or more.
        let mut chunks: Vec<(u64, usize, u64, u64)> = Vec::new();
        for (j, job) in jobs.iter().enumerate() {
            let size = if job.point.procs() >= 16_384 { 1 } else { 16 };
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
        let mut stats = vec![FtcoStats::default(); jobs.len()];
        for (i, s) in done? {
            stats[chunks[i].1].merge(&s);
        }
        Ok(stats)
    }
}

/// Runs the reproduction at `mode`'s scale and writes `ftco.md` into `output` and the CSV and
/// SVG files into `output/ftco/`.
pub fn reproduce(
    mode: Mode,
    seed: u64,
    output: &Path,
    out: &mut impl Write,
) -> Result<(), CliError> {
    output_dir(output, "ftco")?;
    let started = Instant::now();
    let result = ftco::reproduce(mode, seed, &mut Parallel)
        .map_err(|e| UsageError(format!("reproduce ftco: {}", e.0)))?;
    write_outputs(output, "ftco", result, started, out)
}
