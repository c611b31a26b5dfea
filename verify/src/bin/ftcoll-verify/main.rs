//! `ftcoll-verify`: model-check a protocol variant, explore it in a browser, or regenerate the
//! verification matrix.
//!
//! ```text
//! cargo run -p ftcoll-verify --release -- check --tree lame:2 --correction checked --start sync \
//!     --procs 6 --crashes 1 --timing any
//! cargo run -p ftcoll-verify --release -- explore --tree kary:2 --correction none --procs 4 --crashes 1
//! cargo run -p ftcoll-verify --release -- ftco --collective allreduce --topology knomial:2 \
//!     --procs 7 --crashes 2 --timing any --entry late-alg5
//! cargo run -p ftcoll-verify --release -- search --tree lame:2 --correction checked --procs 34 \
//!     --pre 5 --during 2 --walks 3000 --format text
//! cargo run -p ftcoll-verify --release -- matrix --max-procs 8 --out docs/verification.md
//! cargo run -p ftcoll-verify --release -- check --tree lame:2 --correction checked --procs 16 \
//!     --crashes 15 --timing any --timeout 60 --memory-limit 4G --format text
//! cargo run -p ftcoll-verify --release -- check --tree lame:2 --correction checked --procs 11 \
//!     --crashes 2 --timing any --threads 2
//! ```
//!
//! `check` and `explore` take budgets (`--max-states N`, `--timeout SECONDS`,
//! `--memory-limit SIZE`, default half of `MemAvailable`; see [`ftcoll_verify::budget`]). A check
//! a budget stopped reports the verdict `partial`: the properties with a counterexample are
//! violated, the others only "not violated within N states" — never "holds".
//!
//! Exit status: 0 for a decided verdict, `holds` or `violated`, which is in the output (a budget
//! may have stopped the search if every property has a counterexample anyway); 3 for the
//! verdict `partial` (for `explore`: the session ended by `--timeout` or by the resident memory
//! passing `--memory-limit`); 2 for bad input (one line on stderr naming the flag, nothing on
//! stdout), including two flags one of which the other would make ignored (`--search layered`
//! with `--model async`, `--crashes-at-events-only` with `--timing pre`, ...: both named, with
//! what is allowed); 1 if a checker thread panicked.

use std::fmt::Write as _;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::Duration;

use clap::parser::ValueSource;
use clap::{ArgMatches, Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use ftcoll::protocols::corrected_tree::{CorrectionSpec, StartMode};
use ftcoll::protocols::ftco::{EtaRule, RootFailure, TimeoutRule};
use ftcoll::topology::ftco::{Collective, FtcoKind};
use ftcoll::topology::{LogP, Order, TreeKind};
use ftcoll_verify::budget::{self, Budget, Stop};
use ftcoll_verify::ftco::{self, Entry, FtcoSpec};
use ftcoll_verify::gossip::{self, GossipSpec, Variant};
use ftcoll_verify::search::SearchOptions;
use ftcoll_verify::{
    check_within, initial_states, matrix, CheckError, CorrectedTreeSpec, CrashTiming, ModelKind,
    TimedModel, Verdict,
};
use stateright::Model;

mod args;
mod family_args;
mod output;
mod search_cmd;

use args::*;
use family_args::*;
use output::*;
use search_cmd::*;

/// Exit status of a run a budget stopped (verdict `partial`).
const EXIT_PARTIAL: u8 = 3;

#[derive(Parser, Debug)]
#[command(
    name = "ftcoll-verify",
    about = "Exhaustive model checking of ftcoll protocols"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Check every property of one variant; prints the verdict and the shortest counterexample.
    Check(CheckArgs),
    /// Serve stateright's Explorer for one variant (timed model) to step through it in a browser.
    Explore(ExploreArgs),
    /// Check one FTCO collective: consistency, termination, no false suspicion, fault-free cost, type priority, detection and recovery time.
    Ftco(FtcoArgs),
    /// Check one Corrected Gossip protocol (GOS, OCG, CCG, FCG) with every gossip target
    /// explored, or one of the gossip cells of the matrix (--cell).
    Gossip(GossipArgs),
    /// Random search beyond exhaustive sizes: guided walks of the timed model (a violation
    /// found is minimized and printed with its trace), or with --model async uniform random
    /// runs of the asynchronous model; none found is "not violated in N walks".
    Search(SearchArgs),
    /// Regenerate docs/verification.md and docs/traces/.
    Matrix(matrix::MatrixArgs),
}

fn timing(t: TimingArg) -> CrashTiming {
    match t {
        TimingArg::Pre => CrashTiming::Pre,
        TimingArg::Any => CrashTiming::Any,
    }
}

/// `--procs P --crashes F --timing T`, for messages.
fn what(spec: &SpecArgs, t: TimingArg) -> String {
    format!(
        "--procs {} --crashes {} --timing {}",
        spec.procs,
        spec.crashes,
        timing(t)
    )
}

/// Runs one budgeted check (`check` gets the budget and the progress callback) with the
/// progress line on stderr, and turns its errors into the exits of the CLI: a budget the initial
/// states cannot fit (`what`: the flags that chose the state space) or a topology error (about
/// the flags `topology`) is bad input, exit 2; a checker panic exits 1.
fn run_check(
    args: &BudgetArgs,
    timed_any: bool,
    what: &str,
    topology: &str,
    check: impl FnOnce(
        &Budget,
        Option<ftcoll_verify::Progress<'_>>,
    ) -> Result<ftcoll_verify::CheckResult, CheckError>,
) -> Result<ftcoll_verify::CheckResult, ExitCode> {
    let budget = args.budget(timed_any);
    let mut shown = false;
    let mut report = progress_reporter(&mut shown);
    let progress = report
        .as_mut()
        .map(|r| r as &mut dyn FnMut(usize, Duration));
    let checked = check(&budget, progress);
    drop(report);
    if shown {
        eprint!("\r\x1b[K");
    }
    let usage = |message: String| {
        eprintln!("error: {message}");
        ExitCode::from(2)
    };
    checked.map_err(|e| match e {
        CheckError::TooManyInitialStates {
            initial,
            needed,
            by,
        } => usage(args.too_small(initial, needed, by, what)),
        CheckError::Topology(e) => usage(format!("{topology}: {e}")),
        CheckError::Refused(e) => usage(e.to_string()),
        // A checker thread panicked, or an error this binary does not know yet: not the user's.
        e => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    })
}

/// A progress reporter for stderr if it is a terminal: unique states, states/s and seconds,
/// rewritten in place at most once a second. Sets `shown` once it printed.
fn progress_reporter(shown: &mut bool) -> Option<impl FnMut(usize, Duration) + '_> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let mut last = (0usize, Duration::ZERO);
    Some(move |states: usize, elapsed: Duration| {
        let dt = elapsed.saturating_sub(last.1).as_secs_f64();
        let rate = if dt > 0.0 {
            states.saturating_sub(last.0) as f64 / dt
        } else {
            0.0
        };
        last = (states, elapsed);
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "\r\x1b[K{states} states, {rate:.0} states/s, {:.0} s",
            elapsed.as_secs_f64()
        );
        let _ = err.flush();
        *shown = true;
    })
}

/// Ends an `explore` session (exit status 3) when its time budget runs out or its resident
/// memory passes the memory budget; the state cap is stateright's own `target_state_count`.
fn watch_explorer(budget: Budget) {
    if budget.timeout.is_none() && budget.memory.is_none() {
        return;
    }
    let start = std::time::Instant::now();
    std::thread::spawn(move || loop {
        std::thread::sleep(Duration::from_millis(100));
        if budget.timeout.is_some_and(|t| start.elapsed() >= t) {
            eprintln!("explore: the time budget (--timeout) ran out; stopping");
            std::process::exit(i32::from(EXIT_PARTIAL));
        }
        if let Some(limit) = budget.memory {
            if budget::resident_bytes().is_some_and(|rss| rss > limit) {
                eprintln!(
                    "explore: the resident memory passed the memory budget ({}); stopping",
                    budget::format_size(limit)
                );
                std::process::exit(i32::from(EXIT_PARTIAL));
            }
        }
    });
}

/// Whether the flag with clap id `id` was given on the command line, not left at its default:
/// a default cannot conflict with anything, a flag given can.
fn given(matches: &ArgMatches, id: &str) -> bool {
    // (`value_source` panics in debug builds on an id the command does not have.)
    matches.ids().any(|i| i.as_str() == id)
        && matches.value_source(id) == Some(ValueSource::CommandLine)
}

/// Prints clap's error as one line (help and version as clap prints them) and exits with 2.
fn clap_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        e.exit();
    }
    let text = e.to_string();
    eprintln!(
        "{}",
        text.lines().next().unwrap_or("error: invalid arguments")
    );
    ExitCode::from(2)
}

fn main() -> ExitCode {
    // Parsed in two steps to keep the matches: they tell a flag given from its default.
    let matches = match Cli::command().try_get_matches() {
        Ok(m) => m,
        Err(e) => return clap_error(e),
    };
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => return clap_error(e),
    };
    let no_flags = ArgMatches::default();
    let flags = matches.subcommand().map_or(&no_flags, |(_, m)| m);
    let usage = |message: String| {
        eprintln!("error: {message}");
        ExitCode::from(2)
    };
    match cli.command {
        Command::Search(a) => run_search(&a, flags),
        Command::Check(a) => {
            let spec = match a.spec.spec() {
                Ok(s) => s,
                Err(m) => return usage(m),
            };
            let model = match a.model {
                ModelArg::Timed => ModelKind::Timed,
                ModelArg::Async => ModelKind::Async,
            };
            let pre = matches!(a.timing, TimingArg::Pre);
            let target = match model {
                // The asynchronous model crashes at any moment: only the default may say pre.
                ModelKind::Async if pre && given(flags, "timing") => {
                    return usage(
                        "--timing: pre is not allowed with --model async: the asynchronous \
                         model crashes at any moment; allowed: any, or no --timing"
                            .to_string(),
                    )
                }
                ModelKind::Async => Target::Async,
                ModelKind::Timed => Target::Timed {
                    what: "the timed model (--model timed, the default)",
                    pre: pre.then(|| {
                        if given(flags, "timing") {
                            "--timing pre".to_string()
                        } else {
                            "--timing pre (the default)".to_string()
                        }
                    }),
                },
            };
            if let Err(m) = a.budget.refuse_ignored(&target) {
                return usage(m);
            }
            if model == ModelKind::Async
                && matches!(
                    a.budget.search,
                    Some(budget::Search::Dpor | budget::Search::Transactions)
                )
            {
                if let Err(m) = local_clocks_allowed(&spec) {
                    return usage(m);
                }
            }
            let timed_any = model == ModelKind::Timed && !pre;
            let checked = run_check(
                &a.budget,
                timed_any,
                &what(&a.spec, a.timing),
                "--tree/--procs",
                |budget, progress| {
                    check_within(
                        &spec,
                        a.spec.crashes,
                        timing(a.timing),
                        model,
                        budget,
                        progress,
                    )
                },
            );
            match checked {
                Ok(result) => {
                    let dpor = a.budget.search == Some(budget::Search::Dpor);
                    // The asynchronous model crashes at any moment whatever --timing says.
                    let when = match model {
                        ModelKind::Async => "any".to_string(),
                        ModelKind::Timed => timing(a.timing).to_string(),
                    };
                    let transactions = a.budget.search == Some(budget::Search::Transactions);
                    let counted = match model {
                        ModelKind::Async if dpor => EVENTS,
                        ModelKind::Async if transactions => REDUCED,
                        _ => UNIQUE,
                    };
                    print_result(
                        &result,
                        &spec.name(),
                        a.spec.crashes,
                        &when,
                        a.format,
                        counted,
                    )
                }
                Err(exit) => exit,
            }
        }
        Command::Explore(a) => {
            let spec = match a.spec.spec() {
                Ok(s) => s,
                Err(m) => return usage(m),
            };
            if let Err(m) = a.budget.refuse_ignored(&Target::Explorer) {
                return usage(m);
            }
            let budget = a.budget.budget(false);
            let initial = initial_states(
                spec.procs,
                a.spec.crashes,
                timing(a.timing),
                ModelKind::Timed,
            );
            let needed = budget::initial_bytes(ModelKind::Timed, spec.procs, initial);
            let what = what(&a.spec, a.timing);
            if budget.max_states.is_some_and(|n| initial > n) {
                return usage(a.budget.too_small(initial, initial, Stop::States, &what));
            }
            if budget.memory.is_some_and(|m| needed > m) {
                return usage(a.budget.too_small(initial, needed, Stop::Memory, &what));
            }
            let cap = budget.state_cap(budget::bytes_per_state(ModelKind::Timed));
            let model = match TimedModel::corrected_tree(&spec, a.spec.crashes, timing(a.timing)) {
                Ok(m) => m,
                Err(e) => return usage(format!("--tree/--procs: {e}")),
            };
            // tiny_http panics on an address it cannot listen on: try it first.
            if let Err(e) = std::net::TcpListener::bind(a.address.as_str()) {
                return usage(format!("--address: cannot listen on {}: {e}", a.address));
            }
            println!("Exploring {} on http://{}", spec.name(), a.address);
            if let Some((cap, by)) = cap {
                println!(
                    "The background search stops after about {cap} states (the {by} budget): a property without a discovery then is unknown beyond them, not proven."
                );
            }
            watch_explorer(budget);
            let mut builder = model.checker();
            if let Some((cap, _)) = cap {
                builder = builder.target_state_count(usize::try_from(cap).unwrap_or(usize::MAX));
            }
            builder.serve(a.address.as_str());
            ExitCode::SUCCESS
        }
        Command::Ftco(a) => {
            let spec = match a.spec() {
                Ok(s) => s,
                Err(m) => return usage(m),
            };
            let target = Target::Timed {
                what: "ftco (a timed model)",
                pre: matches!(a.timing, TimingArg::Pre).then(|| "--timing pre".to_string()),
            };
            if let Err(m) = a.budget.refuse_ignored(&target) {
                return usage(m);
            }
            let what = format!(
                "--procs {} --crashes {} --timing {}",
                a.procs,
                a.crashes,
                timing(a.timing)
            );
            let checked = run_check(
                &a.budget,
                matches!(a.timing, TimingArg::Any),
                &what,
                "--topology/--procs/-L",
                |budget, progress| {
                    ftco::check(&spec, a.crashes, timing(a.timing), budget, progress)
                },
            );
            match checked {
                Ok(result) => print_result(
                    &result,
                    &spec.name(),
                    a.crashes,
                    &timing(a.timing).to_string(),
                    a.format,
                    UNIQUE,
                ),
                Err(exit) => exit,
            }
        }
        Command::Gossip(a) => {
            let (spec, crashes, timing) = match a.target(flags) {
                Ok(t) => t,
                Err(m) => return usage(m),
            };
            let pre = (timing == CrashTiming::Pre).then(|| match &a.cell {
                Some(id) => format!("--cell {id}"),
                None => "--timing pre".to_string(),
            });
            let target = Target::Timed {
                what: "gossip (a timed model)",
                pre,
            };
            if let Err(m) = a.budget.refuse_ignored(&target) {
                return usage(m);
            }
            let what = format!(
                "--procs {} --crashes {crashes} --timing {timing}",
                spec.procs
            );
            let timed_any = timing == CrashTiming::Any;
            let checked = run_check(
                &a.budget,
                timed_any,
                &what,
                "--procs",
                |budget, progress| gossip::check(&spec, crashes, timing, budget, progress),
            );
            match checked {
                Ok(result) => print_result(
                    &result,
                    &spec.name(),
                    crashes,
                    &timing.to_string(),
                    a.format,
                    UNIQUE,
                ),
                Err(exit) => exit,
            }
        }
        Command::Matrix(a) => match matrix::run(&a) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => usage(e),
        },
    }
}
