//! `ftcoll reproduce`.
use std::io::Write;

use clap::Args;

use crate::CliError;

/// `ftcoll reproduce`.
#[derive(Args, Debug)]
pub struct ReproduceArgs {}

/// `ftcoll reproduce`.
pub fn reproduce(_a: ReproduceArgs, _out: &mut impl Write) -> Result<(), CliError> {
    Ok(())
}
