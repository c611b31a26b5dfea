//! `ftcoll reproduce ftco [--quick]`: a thin shell around the library's
//! [`ftcoll_lab::experiment::ftco::reproduce`], which runs every table and figure and writes the
//! report's text; here the runs go in parallel ([`super::Chunked`]) and the files are written.

use std::io::Write;
use std::path::Path;

use ftcoll_lab::experiment::ftco::{self, Mode};

use super::{reproduce_paper, Chunked};
use crate::CliError;

/// Runs the reproduction at `mode`'s scale and writes `ftco.md` into `output` and the CSV and
/// SVG files into `output/ftco/`.
pub fn reproduce(
    mode: Mode,
    seed: u64,
    output: &Path,
    out: &mut impl Write,
) -> Result<(), CliError> {
    reproduce_paper("ftco", output, out, || {
        ftco::reproduce(mode, seed, &mut Chunked)
    })
}
