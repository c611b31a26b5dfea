//! `ftcoll`: the command line of the ftcoll workspace, a thin shell over `ftcoll-lab`.
//!
//! Every subcommand validates all of its input before printing anything: bad input gives one
//! line on stderr naming the flag and what is allowed, exit code 2, and nothing on stdout.

mod admission;
mod args;
mod config_file;
mod flags;
mod ftco_cmd;
mod gossip_cmd;
mod output;
mod pap_cmd;
mod plot_cmd;
mod reproduce_cmd;
mod simulate_args;
mod simulate_cmd;
mod sweep_cmd;
mod tree_cmd;

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Fault-tolerant collective communication: trees, simulations and the papers' evaluations.
#[derive(Parser, Debug)]
#[command(name = "ftcoll", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Refuse requests estimated to need more memory than this (e.g. 512M, 8G; default: the
    /// memory available when the command starts).
    // The display order it had with six subcommands, so that every help keeps its layout.
    #[arg(
        long,
        global = true,
        value_parser = admission::size,
        allow_hyphen_values = true,
        display_order = 6
    )]
    memory_limit: Option<u64>,
}

// Parsed once per process: the size of the largest variant (sweep's axes) costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand, Debug)]
enum Command {
    /// Print every rank's parent, children in send order and fault-free receive time.
    Tree(tree_cmd::TreeArgs),
    /// Print the ranks a tree leaves uncolored under a failure set, and the ring gaps.
    Gaps(tree_cmd::GapsArgs),
    /// Simulate Corrected Tree broadcasts under LogP, FTCO collectives (--collective) or Corrected
    /// Gossip and its baselines (--gossip).
    Simulate(crate::simulate_args::SimulateArgs),
    /// `simulate` for FTCO only (--collective required): the same flags and code.
    FtcoSimulate(crate::simulate_args::SimulateArgs),
    /// Seeded Monte-Carlo over a grid of simulate's parameters, with per-point summaries.
    Sweep(sweep_cmd::SweepArgs),
    /// Combine the outputs of `sweep --shard` into the output of one unsharded sweep.
    Merge(sweep_cmd::MergeArgs),
    /// Corrected Gossip's model-driven gossip time T and correction time C (CG Eq. 2-5).
    GossipPlan(gossip_cmd::GossipPlanArgs),
    /// Simulate broadcasts of a PAP algorithm under process arrival patterns (PAP §3.1 model).
    PapSimulate(pap_cmd::PapArgs),
    /// Regenerate a paper's tables and figures (CSV, SVG) and a report beside the published numbers.
    Reproduce(reproduce_cmd::ReproduceArgs),
    /// Draw two numeric columns of a CSV file as a line chart (SVG), one line per series.
    Plot(plot_cmd::PlotArgs),
}

/// A user error: printed as one line on stderr, exit code 2.
#[derive(Debug)]
pub struct UsageError(pub String);

fn main() -> ExitCode {
    map_large_allocations_directly();
    let (args, from_file) = match config_file::expand(std::env::args_os().collect()) {
        Ok(expanded) => expanded,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    let parsed = negative_numbers_are_values(<Cli as clap::CommandFactory>::command())
        .try_get_matches_from(args)
        .and_then(|m| <Cli as clap::FromArgMatches>::from_arg_matches(&m));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                e.exit();
            }
            // clap renders usage and tips on further lines; keep the one naming the flag (for a
            // missing argument, the first line ends with ':' and the next names it).
            let text = e.to_string();
            let mut lines = text.lines();
            let line = lines.next().unwrap_or("error: invalid arguments");
            let line = match lines.next().map(str::trim) {
                Some(next) if line.ends_with(':') && !next.is_empty() => format!("{line} {next}"),
                _ => line.to_string(),
            };
            let flag = match e.get(clap::error::ContextKind::InvalidArg) {
                Some(clap::error::ContextValue::String(arg)) => arg.split(' ').next(),
                _ => None,
            };
            eprintln!("{line}{}", config_file::origin(from_file.as_ref(), flag));
            return ExitCode::from(2);
        }
    };
    admission::set_limit(cli.memory_limit);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let result = match cli.command {
        Command::Tree(a) => tree_cmd::tree(a, &mut out),
        Command::Gaps(a) => tree_cmd::gaps(a, &mut out),
        Command::Simulate(a) => simulate_cmd::simulate(a, &mut out),
        Command::FtcoSimulate(a) => match a.ftco.collective {
            Some(_) => simulate_cmd::simulate(a, &mut out),
            None => Err(UsageError(
                "--collective: ftco-simulate needs bcast, reduce or allreduce (it is simulate --collective …)".into(),
            )
            .into()),
        },
        Command::Sweep(a) => sweep_cmd::sweep(a, &mut out),
        Command::Merge(a) => sweep_cmd::merge(a, &mut out),
        Command::GossipPlan(a) => gossip_cmd::gossip_plan(a, &mut out),
        Command::PapSimulate(a) => pap_cmd::pap_simulate(a, &mut out),
        Command::Reproduce(a) => reproduce_cmd::reproduce(a, &mut out),
        Command::Plot(a) => plot_cmd::plot(a, &mut out),
    };
    match result.and_then(|()| out.flush().map_err(Into::into)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(CliError::Usage(UsageError(message))) => {
            let flag = message.split(':').next();
            let origin = config_file::origin(from_file.as_ref(), flag);
            eprintln!("error: {message}{origin}");
            ExitCode::from(2)
        }
        Err(CliError::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(CliError::Io(e)) => {
            eprintln!("error: writing output: {e}");
            ExitCode::from(1)
        }
    }
}

/// Lets every option that takes a value take a negative number (`--procs -5`, `--delta -0.5`),
/// so that it reaches the option's own check, whose message names the option and its range,
/// instead of being read as an unknown flag.
fn negative_numbers_are_values(command: clap::Command) -> clap::Command {
    command
        .mut_args(|arg| {
            if arg.get_action().takes_values() {
                arg.allow_negative_numbers(true)
            } else {
                arg
            }
        })
        .mut_subcommands(negative_numbers_are_values)
}

/// Anything a subcommand can fail with.
#[derive(Debug)]
pub enum CliError {
    /// Bad input (exit code 2).
    Usage(UsageError),
    /// Output failed (exit code 1; a closed pipe is not an error).
    Io(std::io::Error),
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        Self::Io(e)
    }
}

impl From<UsageError> for CliError {
    fn from(e: UsageError) -> Self {
        Self::Usage(e)
    }
}

/// Serves every allocation of 128 KiB or more with its own mapping (glibc's `M_MMAP_THRESHOLD`,
/// fixed at its initial value). glibc raises that threshold as large blocks are freed, up to
/// 32 MiB, after which the driver's growing event lists are reallocated inside the heap, by
/// copying, and leave freed copies resident; a mapping grows in place and is returned when
/// freed. On large runs this lowers the peak RSS at no measured cost in time (figures and
/// command in docs/performance.md). It changes no result, and other targets keep their
/// allocator's defaults.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn map_large_allocations_directly() {
    // SAFETY: `mallopt` only sets an allocator parameter; it is called before any other
    // thread exists, and a failure (return value 0) leaves the default, which is also correct.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
    }
}

/// Other targets keep their allocator's defaults.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn map_large_allocations_directly() {}
