//! The `ftcoll` command line as library code: [`run`] parses and runs one command line, and the
//! `ftcoll` binary is a shell that calls it. Front ends that run the same commands elsewhere
//! (the MPI crate's distributed sweep) reuse its parsing and output through [`sweep`].
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
pub mod sweep;

pub use reproduce_cmd::ReproducePlan;
mod tree_cmd;

use std::ffi::OsString;
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
    Simulate(crate::cli::simulate_args::SimulateArgs),
    /// `simulate` for FTCO only (--collective required): the same flags and code.
    FtcoSimulate(crate::cli::simulate_args::SimulateArgs),
    /// Seeded Monte-Carlo over a grid of simulate's parameters, with per-point summaries.
    Sweep(sweep::SweepArgs),
    /// Combine the outputs of `sweep --shard` into the output of one unsharded sweep.
    Merge(sweep::MergeArgs),
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

/// Runs one `ftcoll` command line (`args[0]` is the program name): prints the command's output
/// on stdout, or one line on stderr for bad input (exit code 2) or failed output (exit code 1).
pub fn run(args: Vec<OsString>) -> ExitCode {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    run_to(args, &mut out)
}

/// [`run`] with the command's output written to `out` instead of stdout (errors still go to
/// stderr): the same code, for callers that keep the output (tests, other front ends).
pub fn run_to(args: Vec<OsString>, out: &mut impl Write) -> ExitCode {
    let (cli, from_file) = match parse(args, Help::Exit) {
        Ok(parsed) => parsed,
        Err(failure) => return failure.print(),
    };
    admission::set_limit(cli.memory_limit);
    let result = match cli.command {
        Command::Tree(a) => tree_cmd::tree(a, &mut *out),
        Command::Gaps(a) => tree_cmd::gaps(a, &mut *out),
        Command::Simulate(a) => simulate_cmd::simulate(a, &mut *out),
        Command::FtcoSimulate(a) => match a.ftco.collective {
            Some(_) => simulate_cmd::simulate(a, &mut *out),
            None => Err(UsageError(
                "--collective: ftco-simulate needs bcast, reduce or allreduce (it is simulate --collective …)".into(),
            )
            .into()),
        },
        Command::Sweep(a) => sweep::sweep(a, &mut *out),
        Command::Merge(a) => sweep::merge(a, &mut *out),
        Command::GossipPlan(a) => gossip_cmd::gossip_plan(a, &mut *out),
        Command::PapSimulate(a) => pap_cmd::pap_simulate(a, &mut *out),
        Command::Reproduce(a) => reproduce_cmd::reproduce(a, &mut *out),
        Command::Plot(a) => plot_cmd::plot(a, &mut *out),
    };
    match result.and_then(|()| out.flush().map_err(Into::into)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => Failure::of(e, from_file.as_ref()).map_or(ExitCode::SUCCESS, |f| f.print()),
    }
}

/// Parses the flags of `ftcoll sweep` (the command line after `ftcoll sweep`, `--config` and
/// `--memory-limit` included) into a sweep ready to run, refusing bad input with the line and
/// exit code `ftcoll sweep` gives (`--help`: a [`Failure`] of exit code 0 holding the help).
/// [`sweep::SweepPlan`] says how to run it elsewhere.
pub fn sweep_plan(flags: Vec<OsString>) -> Result<sweep::SweepPlan, Failure> {
    let mut args: Vec<OsString> = vec!["ftcoll".into(), "sweep".into()];
    args.extend(flags);
    let (cli, from_file) = parse(args, Help::Return)?;
    admission::set_limit(cli.memory_limit);
    let Command::Sweep(a) = cli.command else {
        return Err(Failure {
            line: "error: expected the flags of ftcoll sweep".into(),
            code: 2,
        });
    };
    sweep::SweepPlan::new(a, from_file)
}

/// Parses the flags of `ftcoll reproduce` (the command line after `ftcoll reproduce`) into a
/// plan, refusing bad input with the line and exit code `ftcoll reproduce` gives (`--help`: a
/// [`Failure`] of exit code 0 holding the help).
pub fn reproduce_plan(flags: Vec<OsString>) -> Result<ReproducePlan, Failure> {
    let mut args: Vec<OsString> = vec!["ftcoll".into(), "reproduce".into()];
    args.extend(flags);
    let (cli, from_file) = parse(args, Help::Return)?;
    admission::set_limit(cli.memory_limit);
    let Command::Reproduce(a) = cli.command else {
        return Err(Failure {
            line: "error: expected the arguments of ftcoll reproduce".into(),
            code: 2,
        });
    };
    ReproducePlan::new(&a, from_file)
}

/// What `--help` and `--version` do: print and exit the process (the command line), or come back
/// as a [`Failure`] of exit code 0 holding the text (library callers, which may have more to
/// do before they exit: an MPI rank must finalize).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Help {
    Exit,
    Return,
}

/// Expands `--config` and parses a command line, or the one line and exit code that refuse it
/// (`--help` and `--version` as `help` says).
fn parse(args: Vec<OsString>, help: Help) -> Result<(Cli, Option<config_file::FromFile>), Failure> {
    let (args, from_file) = config_file::expand(args).map_err(|message| Failure {
        line: format!("error: {message}"),
        code: 2,
    })?;
    let parsed = negative_numbers_are_values(<Cli as clap::CommandFactory>::command())
        .try_get_matches_from(args)
        .and_then(|m| <Cli as clap::FromArgMatches>::from_arg_matches(&m));
    match parsed {
        Ok(cli) => Ok((cli, from_file)),
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                if help == Help::Exit {
                    e.exit();
                }
                return Err(Failure {
                    line: e.render().to_string(),
                    code: 0,
                });
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
            Err(Failure {
                line: format!("{line}{}", config_file::origin(from_file.as_ref(), flag)),
                code: 2,
            })
        }
    }
}

/// Why a command did not finish: the one line it prints on stderr and its exit code (2 for bad
/// input, 1 for output that could not be written), or, with exit code 0, the text `--help` or
/// `--version` asked for (to print on stdout).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Failure {
    /// The line, `error: ` and the flag first.
    pub line: String,
    /// The process's exit code.
    pub code: u8,
}

impl Failure {
    /// The failure a command's error makes (`None` for a closed pipe, which is not one);
    /// `from_file` names the `--config` file a refused flag came from.
    fn of(e: CliError, from_file: Option<&config_file::FromFile>) -> Option<Self> {
        match e {
            CliError::Usage(UsageError(message)) => {
                let flag = message.split(':').next();
                let origin = config_file::origin(from_file, flag);
                Some(Self {
                    line: format!("error: {message}{origin}"),
                    code: 2,
                })
            }
            CliError::Io(e) if e.kind() == std::io::ErrorKind::BrokenPipe => None,
            CliError::Io(e) => Some(Self {
                line: format!("error: writing output: {e}"),
                code: 1,
            }),
        }
    }

    /// Prints the line (on stdout for the help's exit code 0, stderr otherwise) and gives the
    /// exit code.
    pub fn print(&self) -> ExitCode {
        if self.code == 0 {
            print!("{}", self.line);
        } else {
            eprintln!("{}", self.line);
        }
        ExitCode::from(self.code)
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.line)
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
