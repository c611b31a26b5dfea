//! `ftcoll reproduce ct [--quick]`: a thin shell around the library's
//! [`ftcoll_lab::experiment::ct::reproduce`], which runs CT's Fig. 1b, 6–10, Lemma 2 and Table 1 and
//! writes the report's text; here each point's runs go in parallel ([`super::Chunked`], one
//! progress bar per point), the clock is read and the files are written.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use ftcoll_lab::experiment::ct::{self, Mode};

use super::{reproduce_paper, Chunked};
use crate::CliError;

/// Runs the reproduction at `mode`'s scale and writes `ct.md` into `output` and the CSV and
/// SVG files into `output/ct/`.
pub fn reproduce(
    mode: Mode,
    seed: u64,
    output: &Path,
    out: &mut impl Write,
) -> Result<(), CliError> {
    reproduce_paper("ct", output, out, || {
        let started = Instant::now();
        ct::reproduce(mode, seed, &mut Chunked, &|| {
            started.elapsed().as_secs_f64()
        })
    })
}
