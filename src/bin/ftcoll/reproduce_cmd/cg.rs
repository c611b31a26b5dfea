//! `ftcoll reproduce cg [--quick]`: a thin shell around the library's
//! [`ftcoll::experiment::cg::reproduce`], which runs Table 7 and Figs. 1, 3, 5 and 7 and writes the
//! report's text; here the runs of each batch of points go in parallel (chunks of runs merged in
//! any order: the statistics are exact histograms) with a progress bar, and the files are
//! written.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use ftcoll::experiment::cg::{self, CgStats, Executor, Job, Mode};
use ftcoll::experiment::PointError;

use super::{output_dir, parallel, write_outputs};
use crate::sweep_cmd::progress_bar;
use crate::{CliError, UsageError};

/// Runs a batch on every core: the runs are cut into chunks of 8, the costliest points first.
struct Parallel;

impl Executor for Parallel {
    fn run(&mut self, seed: u64, jobs: &[Job<'_>]) -> Result<Vec<CgStats>, PointError> {
        // (cost, job, first run, runs).
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
        let mut stats = vec![CgStats::default(); jobs.len()];
        for (i, s) in done? {
            stats[chunks[i].1].merge(&s);
        }
        Ok(stats)
    }
}

/// Runs the reproduction at `mode`'s scale and writes `cg.md` into `output` and the CSV and
/// SVG files into `output/cg/`.
pub fn reproduce(
    mode: Mode,
    seed: u64,
    output: &Path,
    out: &mut impl Write,
) -> Result<(), CliError> {
    output_dir(output, "cg")?;
    let started = Instant::now();
    let result = cg::reproduce(mode, seed, &mut Parallel)
        .map_err(|e| UsageError(format!("reproduce cg: {}", e.0)))?;
    write_outputs(output, "cg", result, started, out)
}
