//! `ftcoll reproduce cg [--quick]`: a thin shell around the library's
//! [`ftcoll_lab::experiment::cg::reproduce`], which runs Table 7 and Figs. 1, 3, 5 and 7 and writes the
//! report's text; here the runs go in parallel ([`super::Chunked`]) and the files are written.

use std::io::Write;
use std::path::Path;

use ftcoll_lab::experiment::cg::{self, Mode};

use super::{reproduce_paper, Chunked};
use crate::CliError;

/// Runs the reproduction at `mode`'s scale and writes `cg.md` into `output` and the CSV and
/// SVG files into `output/cg/`.
pub fn reproduce(
    mode: Mode,
    seed: u64,
    output: &Path,
    out: &mut impl Write,
) -> Result<(), CliError> {
    reproduce_paper("cg", output, out, || {
        cg::reproduce(mode, seed, &mut Chunked)
    })
}
