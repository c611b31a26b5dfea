//! `ftcoll reproduce pap [--quick]`: a thin shell around the library's
//! [`ftcoll_lab::experiment::pap::reproduce`], which runs every figure and writes the report's text;
//! here the points run in parallel ([`super::Chunked`], one chunk per point) and the files are
//! written.

use std::io::Write;
use std::path::Path;

use ftcoll_lab::experiment::pap::{self, Mode};

use super::{reproduce_paper, Chunked};
use crate::CliError;

/// Runs the reproduction at `mode`'s scale and writes `pap.md` into `output` and the CSV and
/// SVG files into `output/pap/`.
pub fn reproduce(
    mode: Mode,
    seed: u64,
    output: &Path,
    out: &mut impl Write,
) -> Result<(), CliError> {
    reproduce_paper("pap", output, out, || {
        pap::reproduce(mode, seed, &mut Chunked)
    })
}
