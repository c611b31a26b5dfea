//! The verification matrix (placeholder, filled in below).

/// `matrix` arguments.
#[derive(clap::Args, Debug)]
pub struct MatrixArgs {
    /// Largest P.
    #[arg(long, default_value = "8")]
    pub max_procs: u32,
}

/// Regenerates the matrix.
pub fn run(_args: &MatrixArgs) -> Result<(), String> {
    Err("not yet".into())
}
