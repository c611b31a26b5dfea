//! `ftcoll reproduce pap [--quick]`: a thin shell around the library's
//! [`ftcoll::experiment::pap::reproduce`], which runs every figure and writes the report's text;
//! here the points run in parallel (each point's result depends only on the seed and the point,
//! so the order they finish in changes nothing) with a progress bar, and the files are written.

use std::io::Write;
use std::path::Path;

use ftcoll::experiment::pap::{self, AlgStats, Executor, Mode, PointJob};
use ftcoll::experiment::PointError;

use super::{parallel, reproduce_paper};
use crate::sweep_cmd::progress_bar;
use crate::CliError;

/// Runs the points on every core, the costliest first.
struct Parallel;

impl Executor for Parallel {
    fn run(&mut self, seed: u64, jobs: &[PointJob]) -> Result<Vec<Vec<AlgStats>>, PointError> {
        let mut order: Vec<usize> = (0..jobs.len()).collect();
        order.sort_by_key(|&j| (std::cmp::Reverse(jobs[j].cost()), j));
        let bar = progress_bar(jobs.len() as u64, "reproduce pap: points");
        let done = parallel(order.len(), |i| {
            let stats = jobs[order[i]].run(seed)?;
            bar.inc(1);
            Ok(stats)
        });
        bar.finish_and_clear();
        let mut stats = vec![Vec::new(); jobs.len()];
        for (i, s) in done? {
            stats[order[i]] = s;
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
    reproduce_paper("pap", output, out, || {
        pap::reproduce(mode, seed, &mut Parallel)
    })
}
