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
    check_within, initial_states, matrix, CheckError, CrashTiming, ModelKind, ProtocolSpec,
    TimedModel, Verdict,
};
use stateright::Model;

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
    /// Check one FTCO collective: consistency, termination, no false suspicion, fault-free cost, type priority and detection.
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

#[derive(Args, Debug)]
struct SearchArgs {
    #[command(flatten)]
    protocol: ProtocolArgs,
    /// Number of processes (2..=65536).
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..=65536))]
    procs: u32,
    /// Crashes before the operation in every walk (0..P-1).
    #[arg(long, default_value = "5", value_parser = clap::value_parser!(u32).range(0..=65535))]
    pre: u32,
    /// Crashes during the operation in every walk (0..P-1 together with --pre).
    #[arg(long, default_value = "2", value_parser = clap::value_parser!(u32).range(0..=65535))]
    during: u32,
    /// Random walks (1..=10^9).
    #[arg(long, default_value = "3000", value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    walks: u64,
    /// Seed of the walks.
    #[arg(long, default_value = "1")]
    seed: u64,
    /// Uniform victims instead of the ends of gaps.
    #[arg(long)]
    unguided: bool,
    /// Worker threads (1..=256).
    #[arg(long, default_value = "2", value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: u32,
    /// `timed` (default): the guided search above. `async`: uniform random runs of the
    /// asynchronous model (any delivery order), each with a crash set drawn from those of at
    /// most --crashes ranks, crashes at any moment; --pre, --during and --unguided are refused.
    #[arg(long, value_enum, default_value = "timed")]
    model: ModelArg,
    /// Asynchronous model: at most this many crashes (0..P-1; refused with --model timed).
    #[arg(long, default_value = "2", value_parser = clap::value_parser!(u32).range(0..=65535))]
    crashes: u32,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    format: Format,
}

/// The asynchronous model's per-process clocks (`--search dpor`, `search --model async`)
/// agree with its breadth-first search only for automata that read `now` just to set timers
/// (`ftcoll_verify::dpor`, which refuses the others too): synchronized correction compares it
/// with its start instant (`ProtocolSpec::reads_clock`). Refused here first, to name the flag.
fn local_clocks_allowed(spec: &ProtocolSpec) -> Result<(), String> {
    if spec.reads_clock() {
        return Err(format!(
            "--start: sync (the default) is not allowed with --correction {} and per-process \
             clocks (check --model async --search dpor, search --model async): synchronized \
             correction reads the clock; allowed: overlap (pass --start overlap), or sync with \
             --correction none or ack",
            spec.correction
        ));
    }
    Ok(())
}

/// Runs `ftcoll-verify search --model async`: random runs of the asynchronous model.
fn run_async_walks(a: &SearchArgs, spec: &ProtocolSpec) -> ExitCode {
    if let Err(message) = local_clocks_allowed(spec) {
        eprintln!("error: {message}");
        return ExitCode::from(2);
    }
    if a.crashes >= a.procs {
        eprintln!(
            "error: --crashes: {} is out of range: allowed 0..={} (P - 1)",
            a.crashes,
            a.procs - 1
        );
        return ExitCode::from(2);
    }
    let too_many = |e: ftcoll_verify::dpor::TooManyCrashSets| {
        eprintln!(
            "error: --crashes: {e}; allowed 0..={} at P = {}",
            e.most_crashes_allowed(),
            a.procs
        );
        ExitCode::from(2)
    };
    let model = match ftcoll_verify::AsyncModel::corrected_tree(spec, a.crashes) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: --tree/--procs: {e}");
            return ExitCode::from(2);
        }
    };
    let start = std::time::Instant::now();
    // (`walks` refuses before any work: more crash sets than 64 bits number, a clock.)
    let result = match ftcoll_verify::dpor::walks(&model, a.walks, a.seed, a.threads) {
        Ok(result) => result,
        Err(ftcoll_verify::dpor::Refusal::TooManyCrashSets(e)) => return too_many(e),
        Err(e) => {
            // (A clock-reading protocol: `local_clocks_allowed` refused it already, with the
            // flag to change.)
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let seconds = start.elapsed().as_secs_f64();
    let violated: Vec<(&str, &(u64, Vec<String>))> = ftcoll_verify::property::ALL
        .iter()
        .filter_map(|&p| result.found.get(p).map(|f| (p, f)))
        .collect();
    let mut out = String::new();
    match a.format {
        Format::Text => {
            let _ = writeln!(
                out,
                "{}: {} random runs of the asynchronous model (at most {} crashes at any moment, seed {}), {} events, {:.2} s",
                spec.name(),
                result.walks,
                a.crashes,
                a.seed,
                result.events,
                seconds
            );
            for p in ftcoll_verify::property::ALL {
                match result.found.get(p) {
                    None => {
                        let _ = writeln!(out, "  not violated in {} walks  {p}", result.walks);
                    }
                    Some((walk, _)) => {
                        let _ = writeln!(out, "  violated (walk {walk})  {p}");
                    }
                }
            }
            for (p, (_, trace)) in &violated {
                let _ = writeln!(out, "counterexample for \"{p}\":");
                for line in trace {
                    let _ = writeln!(out, "  {line}");
                }
            }
        }
        Format::Json => {
            let found: Vec<String> = violated
                .iter()
                .map(|(p, (walk, trace))| {
                    let trace: Vec<String> = trace.iter().map(|l| json_string(l)).collect();
                    format!(
                        "{{\"property\":{},\"walk\":{walk},\"trace\":[{}]}}",
                        json_string(p),
                        trace.join(",")
                    )
                })
                .collect();
            let _ = writeln!(
                out,
                "{{\"protocol\":{},\"model\":\"async\",\"walks\":{},\"crashes\":{},\"seed\":{},\"events\":{},\"seconds\":{:.3},\"found\":[{}]}}",
                json_string(&spec.name()),
                result.walks,
                a.crashes,
                a.seed,
                result.events,
                seconds,
                found.join(",")
            );
        }
    }
    let _ = std::io::stdout().write_all(out.as_bytes());
    ExitCode::SUCCESS
}

/// Runs `ftcoll-verify search`; `flags`: its matches, which tell the flags given from their
/// defaults.
fn run_search(a: &SearchArgs, flags: &ArgMatches) -> ExitCode {
    let usage = |message: String| {
        eprintln!("error: {message}");
        ExitCode::from(2)
    };
    // Each model has its own crash flags: the other's would be ignored.
    let async_model = matches!(a.model, ModelArg::Async);
    let other = if async_model {
        [
            ("pre", "--pre"),
            ("during", "--during"),
            ("unguided", "--unguided"),
        ]
        .as_slice()
    } else {
        [("crashes", "--crashes")].as_slice()
    };
    if let Some((_, flag)) = other.iter().find(|(id, _)| given(flags, id)) {
        return usage(if async_model {
            format!(
                "{flag}: not allowed with --model async: its random runs crash at most \
                 --crashes ranks at any moment; allowed with --model timed (the default)"
            )
        } else {
            format!(
                "{flag}: not allowed with --model timed (the default): its walks crash --pre \
                 ranks before the operation and --during during it; allowed with --model async"
            )
        });
    }
    if async_model {
        return match a.protocol.spec(a.procs) {
            Ok(spec) => run_async_walks(a, &spec),
            Err(m) => usage(m),
        };
    }
    let total = u64::from(a.pre) + u64::from(a.during);
    if total >= u64::from(a.procs) {
        return usage(format!(
            "--pre/--during: {} crashes in all is out of range: allowed 0..={} (P - 1)",
            total,
            a.procs - 1
        ));
    }
    let spec = match a.protocol.spec(a.procs) {
        Ok(s) => s,
        Err(m) => return usage(m),
    };
    let model = match TimedModel::corrected_tree(&spec, total as u32, CrashTiming::Any) {
        Ok(m) => m,
        Err(e) => return usage(format!("--tree/--procs: {e}")),
    };
    let options = SearchOptions {
        walks: a.walks,
        seed: a.seed,
        pre: a.pre,
        during: a.during,
        guided: !a.unguided,
        threads: a.threads,
    };
    let result = model.search(&options);
    let mut out = String::new();
    match a.format {
        Format::Text => {
            let _ = writeln!(
                out,
                "{}: {} walks ({} crashes before, {} during, seed {}), {} violating, {:.2} s",
                spec.name(),
                result.walks,
                a.pre,
                a.during,
                a.seed,
                result.violating_walks,
                result.seconds
            );
            for p in model.always_properties() {
                match result.found.iter().find(|f| f.property == p) {
                    None => {
                        let _ = writeln!(out, "  not violated in {} walks  {p}", result.walks);
                    }
                    Some(f) => {
                        let _ = writeln!(
                            out,
                            "  violated (walk {}; minimized: before {:?}, during {:?})  {p}",
                            f.walk, f.pre, f.during
                        );
                    }
                }
            }
            for f in &result.found {
                let _ = writeln!(out, "counterexample for \"{}\":", f.property);
                for line in &f.trace {
                    let _ = writeln!(out, "  {line}");
                }
            }
        }
        Format::Json => {
            let found: Vec<String> = result
                .found
                .iter()
                .map(|f| {
                    let during: Vec<String> =
                        f.during.iter().map(|(r, t)| format!("[{r},{t}]")).collect();
                    let trace: Vec<String> = f.trace.iter().map(|l| json_string(l)).collect();
                    format!(
                        "{{\"property\":{},\"walk\":{},\"pre\":{:?},\"during\":[{}],\"trace\":[{}]}}",
                        json_string(f.property),
                        f.walk,
                        f.pre,
                        during.join(","),
                        trace.join(",")
                    )
                })
                .collect();
            let _ = writeln!(
                out,
                "{{\"protocol\":{},\"walks\":{},\"pre\":{},\"during\":{},\"seed\":{},\"guided\":{},\"violating_walks\":{},\"seconds\":{:.3},\"found\":[{}]}}",
                json_string(&spec.name()),
                result.walks,
                a.pre,
                a.during,
                a.seed,
                !a.unguided,
                result.violating_walks,
                result.seconds,
                found.join(",")
            );
        }
    }
    let _ = std::io::stdout().write_all(out.as_bytes());
    ExitCode::SUCCESS
}

fn collective(s: &str) -> Result<Collective, String> {
    match s {
        "bcast" => Ok(Collective::Bcast),
        "reduce" => Ok(Collective::Reduce),
        "allreduce" => Ok(Collective::Allreduce),
        _ => Err("expected bcast, reduce or allreduce".into()),
    }
}

fn ftco_topology(s: &str) -> Result<FtcoKind, String> {
    let allowed = "expected kary:K or knomial:K with K an integer in 2..=8";
    let (name, k) = s.split_once(':').ok_or(allowed)?;
    let k: u64 = k
        .parse()
        .ok()
        .filter(|k| (2..=8).contains(k))
        .ok_or(allowed)?;
    match name {
        "kary" => Ok(FtcoKind::KAry(k)),
        "knomial" => Ok(FtcoKind::KNomial(k)),
        _ => Err(allowed.into()),
    }
}

fn eta_rule(s: &str) -> Result<EtaRule, String> {
    s.parse()
}

fn timeout_rule(s: &str) -> Result<TimeoutRule, String> {
    let allowed = "expected ROUND_TRIP+PER_LOAD, two integers in 0..=1000 (default: 2L+4 and 2)";
    let (a, b) = s.split_once('+').ok_or(allowed)?;
    let parse = |x: &str| x.parse::<u64>().ok().filter(|v| *v <= 1000).ok_or(allowed);
    Ok(TimeoutRule {
        round_trip: parse(a)?,
        per_load: parse(b)?,
    })
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum EntryArg {
    /// Everyone enters at 0.
    Together,
    /// Odd ranks enter late, with the imbalance extension (App. B, Alg. 5).
    LateAlg5,
    /// Odd ranks arrive late at the driver, without the extension.
    LateDriver,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum RootArg {
    /// Fault-immune roots (FTCO §2).
    Immune,
    /// Rank 0 replaced by its children (end of §4; single-root Reduce and Allreduce).
    Replaced,
}

#[derive(Args, Debug)]
struct FtcoArgs {
    /// bcast, reduce or allreduce.
    #[arg(long, value_parser = collective)]
    collective: Collective,
    /// kary:K or knomial:K (K in 2..=8).
    #[arg(long, value_parser = ftco_topology)]
    topology: FtcoKind,
    /// Number of roots R (1..=P).
    #[arg(long, default_value = "1", value_parser = clap::value_parser!(u64).range(1..=9))]
    roots: u64,
    /// Number of processes (2..=9; state spaces grow fast).
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..=9))]
    procs: u32,
    /// At most this many crashes (of ranks that are not fault-immune).
    #[arg(long, default_value = "1", value_parser = clap::value_parser!(u32).range(0..=8))]
    crashes: u32,
    /// When crashes happen.
    #[arg(long, value_enum, default_value = "any")]
    timing: TimingArg,
    /// L in steps (o = 1).
    #[arg(short = 'L', default_value = "2", value_parser = clap::value_parser!(u64).range(0..=64))]
    latency: u64,
    /// When processes enter.
    #[arg(long, value_enum, default_value = "together")]
    entry: EntryArg,
    /// What a root's failure does.
    #[arg(long, value_enum, default_value = "immune")]
    root_failure: RootArg,
    /// f_timeout as ROUND_TRIP+PER_LOAD (default: 2L+4 and 2).
    #[arg(long = "timeout-rule", value_parser = timeout_rule)]
    timeout_rule: Option<TimeoutRule>,
    /// The result's ETA: exact (default), parent-recovery or ancestor-recovery.
    #[arg(long, default_value = "exact", value_parser = eta_rule)]
    eta: EtaRule,
    #[command(flatten)]
    budget: BudgetArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    format: Format,
}

impl FtcoArgs {
    fn spec(&self) -> Result<FtcoSpec, String> {
        if self.roots > u64::from(self.procs) {
            return Err(format!(
                "--roots: {} is out of range: allowed 1..={} (--procs)",
                self.roots, self.procs
            ));
        }
        let spec = FtcoSpec {
            collective: self.collective,
            kind: self.topology,
            roots: self.roots,
            procs: self.procs,
            latency: self.latency,
            entry: match self.entry {
                EntryArg::Together => Entry::Together,
                EntryArg::LateAlg5 => Entry::LateAlg5,
                EntryArg::LateDriver => Entry::LateDriver,
            },
            root_failure: match self.root_failure {
                RootArg::Immune => RootFailure::Immune,
                RootArg::Replaced => RootFailure::ReplacedByChildren,
            },
            timeout: self.timeout_rule,
            eta: self.eta,
        };
        // The rule is the library's, shared with `ftcoll simulate`: elsewhere the roots would
        // silently stay immune.
        if !spec
            .root_failure
            .applies_to(self.collective, self.roots as u32)
        {
            return Err(format!(
                "--root-failure: replaced applies to a single-root reduce or allreduce (this is \
                 --collective {} with --roots {}); allowed: immune, or replaced with \
                 --collective reduce or allreduce and --roots 1",
                ftco::collective_name(self.collective),
                self.roots
            ));
        }
        let crashable = spec
            .crashable()
            .map_err(|e| format!("--topology/--roots/--procs: {e}"))?
            .len() as u32;
        if self.crashes > crashable {
            return Err(format!(
                "--crashes: {} is out of range: allowed 0..={crashable} (the ranks that are not fault-immune)",
                self.crashes
            ));
        }
        Ok(spec)
    }
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
enum GossipProtocolArg {
    Gos,
    Ocg,
    Ccg,
    Fcg,
}

#[derive(Args, Debug)]
struct GossipArgs {
    /// One of the matrix's gossip cells by id (ccg-pre, ccg-any, fcg-any, ...): runs it and
    /// says whether the verdict agrees with CG; the protocol flags are then refused (the cell
    /// fixes them).
    #[arg(long)]
    cell: Option<String>,
    /// gos, ocg, ccg or fcg.
    #[arg(long, value_enum, default_value = "ccg")]
    protocol: GossipProtocolArg,
    /// Number of processes N (2..=16; every target draw has N − 1 outcomes).
    #[arg(long, default_value = "5", value_parser = clap::value_parser!(u32).range(2..=16))]
    procs: u32,
    /// L (0..=16).
    #[arg(short = 'L', default_value = "1", value_parser = clap::value_parser!(u64).range(0..=16))]
    latency: u64,
    /// O (1..=4).
    #[arg(short = 'O', default_value = "1", value_parser = clap::value_parser!(u64).range(1..=4))]
    overhead: u64,
    /// Gossip time T (0..=32).
    #[arg(long, default_value = "2", value_parser = clap::value_parser!(u64).range(0..=32))]
    gossip_time: u64,
    /// OCG's correction time C (0..=256; only with --protocol ocg, which needs it).
    #[arg(long, value_parser = clap::value_parser!(u64).range(0..=256))]
    correction_time: Option<u64>,
    /// FCG's f (0..N−1; only with --protocol fcg).
    #[arg(long, default_value = "1", value_parser = clap::value_parser!(u32).range(0..=15))]
    faults: u32,
    /// FCG with the variant of CG's footnote to Claim 5: a sweep that comes back to its sender
    /// ends that side instead of entering SOS at line 28 (only with --protocol fcg).
    #[arg(long)]
    footnote: bool,
    /// At most this many crashes (0..N−1).
    #[arg(long, default_value = "1", value_parser = clap::value_parser!(u32).range(0..=15))]
    crashes: u32,
    /// When crashes happen.
    #[arg(long, value_enum, default_value = "any")]
    timing: TimingArg,
    #[command(flatten)]
    budget: BudgetArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    format: Format,
}

impl GossipArgs {
    /// The spec, crashes and timing to check (a named cell's, or the flags'); `flags`: the
    /// command's matches, which tell the flags given from their defaults.
    fn target(&self, flags: &ArgMatches) -> Result<(GossipSpec, u32, CrashTiming), String> {
        if let Some(id) = &self.cell {
            // A cell fixes all of these: one given beside it would be ignored.
            let fixed = [
                ("protocol", "--protocol"),
                ("procs", "--procs"),
                ("latency", "-L"),
                ("overhead", "-O"),
                ("gossip_time", "--gossip-time"),
                ("correction_time", "--correction-time"),
                ("faults", "--faults"),
                ("footnote", "--footnote"),
                ("crashes", "--crashes"),
                ("timing", "--timing"),
            ];
            if let Some((_, flag)) = fixed.iter().find(|(id, _)| given(flags, id)) {
                return Err(format!(
                    "--cell: not allowed with {flag}: the cell fixes the protocol, its \
                     parameters, the crashes and their timing; allowed: --cell with budget \
                     flags and --format only, or the protocol flags without --cell"
                ));
            }
            let cells = gossip::cells();
            return cells
                .iter()
                .find(|c| c.id == id)
                .map(|c| (c.spec, c.crashes, c.timing))
                .ok_or_else(|| {
                    let ids: Vec<&str> = cells.iter().map(|c| c.id).collect();
                    format!(
                        "--cell: {id:?} is not a gossip cell: allowed {}",
                        ids.join(", ")
                    )
                });
        }
        let variant = match self.protocol {
            GossipProtocolArg::Gos => Variant::Gos,
            GossipProtocolArg::Ccg => Variant::Ccg,
            GossipProtocolArg::Ocg => Variant::Ocg {
                correction_time: self.correction_time.ok_or_else(|| {
                    "--correction-time: required with --protocol ocg (0..=256)".to_string()
                })?,
            },
            GossipProtocolArg::Fcg => {
                if self.faults >= self.procs {
                    return Err(format!(
                        "--faults: {} is out of range: allowed 0..={} (--procs − 1)",
                        self.faults,
                        self.procs - 1
                    ));
                }
                Variant::Fcg {
                    faults: self.faults,
                    sos_on_full_loop: !self.footnote,
                }
            }
        };
        if self.correction_time.is_some() && self.protocol != GossipProtocolArg::Ocg {
            return Err("--correction-time: only with --protocol ocg".to_string());
        }
        if self.footnote && self.protocol != GossipProtocolArg::Fcg {
            return Err(
                "--footnote: not allowed with this --protocol: it is a variant of FCG's line 28; allowed with --protocol fcg"
                    .to_string(),
            );
        }
        if given(flags, "faults") && self.protocol != GossipProtocolArg::Fcg {
            return Err(format!(
                "--faults: not allowed with --protocol {}: it is FCG's f; allowed with \
                 --protocol fcg",
                match self.protocol {
                    GossipProtocolArg::Gos => "gos",
                    GossipProtocolArg::Ocg => "ocg",
                    GossipProtocolArg::Ccg => "ccg (the default)",
                    GossipProtocolArg::Fcg => "fcg",
                }
            ));
        }
        if self.crashes >= self.procs {
            return Err(format!(
                "--crashes: {} is out of range: allowed 0..={} (--procs − 1)",
                self.crashes,
                self.procs - 1
            ));
        }
        let logp = LogP::new(self.latency, self.overhead).map_err(|e| format!("-L/-O: {e}"))?;
        Ok((
            GossipSpec {
                variant,
                procs: self.procs,
                logp,
                gossip_time: self.gossip_time,
            },
            self.crashes,
            timing(self.timing),
        ))
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum StartArg {
    Sync,
    Overlap,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum TimingArg {
    Pre,
    Any,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum ModelArg {
    Timed,
    Async,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
enum Format {
    Json,
    Text,
}

fn tree(s: &str) -> Result<TreeKind, String> {
    s.parse()
        .map_err(|e: ftcoll::topology::TopologyError| e.to_string())
}
fn order(s: &str) -> Result<Order, String> {
    s.parse()
        .map_err(|e: ftcoll::topology::TopologyError| e.to_string())
}
fn correction(s: &str) -> Result<CorrectionSpec, String> {
    s.parse()
        .map_err(|e: ftcoll::topology::TopologyError| e.to_string())
}

/// The protocol of a check or a search: everything but `P` and the faults.
#[derive(Args, Debug)]
struct ProtocolArgs {
    /// Tree kind: kary:K, binomial, lame:K or optimal.
    #[arg(long, value_parser = tree)]
    tree: TreeKind,
    /// Numbering.
    #[arg(long, default_value = "interleaved", value_parser = order)]
    order: Order,
    /// Correction variant.
    #[arg(long, value_parser = correction)]
    correction: CorrectionSpec,
    /// Correction start.
    #[arg(long, value_enum, default_value = "sync")]
    start: StartArg,
    /// LogP latency L.
    #[arg(short = 'L', default_value = "2", value_parser = clap::value_parser!(u64).range(0..=64))]
    latency: u64,
    /// LogP overhead o.
    #[arg(short = 'o', default_value = "1", value_parser = clap::value_parser!(u64).range(1..=64))]
    overhead: u64,
}

impl ProtocolArgs {
    fn spec(&self, procs: u32) -> Result<ProtocolSpec, String> {
        Ok(ProtocolSpec {
            tree: self.tree,
            order: self.order,
            correction: self.correction,
            start: match self.start {
                StartArg::Sync => StartMode::Synchronized,
                StartArg::Overlap => StartMode::Overlapped,
            },
            procs,
            logp: LogP::new(self.latency, self.overhead).map_err(|e| format!("-L/-o: {e}"))?,
        })
    }
}

#[derive(Args, Debug)]
struct SpecArgs {
    #[command(flatten)]
    protocol: ProtocolArgs,
    /// Number of processes (2..=16; state spaces grow fast).
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..=16))]
    procs: u32,
    /// At most this many crashes (0..P-1).
    #[arg(long, default_value = "1", value_parser = clap::value_parser!(u32).range(0..=15))]
    crashes: u32,
}

impl SpecArgs {
    fn spec(&self) -> Result<ProtocolSpec, String> {
        if self.crashes >= self.procs {
            return Err(format!(
                "--crashes: {} is out of range: allowed 0..={}",
                self.crashes,
                self.procs - 1
            ));
        }
        self.protocol.spec(self.procs)
    }
}

fn max_states(s: &str) -> Result<u64, String> {
    budget::parse_max_states(s)
}
fn timeout(s: &str) -> Result<Duration, String> {
    budget::parse_timeout(s)
}
fn memory_limit(s: &str) -> Result<u64, String> {
    budget::parse_memory_limit(s, budget::max_memory())
}
fn threads(s: &str) -> Result<u32, String> {
    budget::parse_threads(s)
}
fn search_engine(s: &str) -> Result<budget::Search, String> {
    budget::parse_search(s)
}
fn pack_from(s: &str) -> Result<usize, String> {
    budget::parse_pack_from(s)
}

/// Budgets of `check` and `explore`.
#[derive(Args, Debug)]
struct BudgetArgs {
    /// Stop once this many states were generated, counting states reached again (1 or more;
    /// at most this many unique states); the verdict is then partial.
    #[arg(long, value_name = "N", value_parser = max_states, allow_hyphen_values = true)]
    max_states: Option<u64>,
    /// Stop after this many seconds (0.001 to 31536000, decimals allowed).
    #[arg(long, value_name = "SECONDS", value_parser = timeout, allow_hyphen_values = true)]
    timeout: Option<Duration>,
    /// Memory budget, e.g. 512M or 8G (16M up to the machine's MemTotal): a cap of SIZE / 256
    /// generated states for the layered search (4096 with `--search bfs`, 1024 for the async
    /// model; none for the depth-first search, which holds no states), and the resident memory
    /// checked while running. Default: half of MemAvailable.
    #[arg(long, value_name = "SIZE", value_parser = memory_limit, allow_hyphen_values = true)]
    memory_limit: Option<u64>,
    /// Worker threads of the search (1 to 256; default 1). Verdicts and state counts do not
    /// depend on it, nor, with the depth-first or layered search, anything else (but the count
    /// of a depth-first search stopped because every property has a discovery); with `bfs` and
    /// more than one, a counterexample's trace may differ between runs (whichever thread
    /// reaches a violation first). `explore` refuses it.
    #[arg(long, value_name = "N", value_parser = threads, allow_hyphen_values = true)]
    threads: Option<u32>,
    /// Search engine of the timed model: `depth` (depth first over the crash schedules,
    /// holding only the current path: no fingerprints, no memory per state), `layered` (keeps
    /// only the layers of (instant, crashes) in progress), `bfs` (stateright's breadth-first
    /// search) or `auto` (default: `bfs` where the model chooses gossip targets, so
    /// counterexamples are the shortest, else `depth`); docs/design.md compares them. The
    /// async model takes `bfs` (auto), `fingerprints` (depth first, holding one 64-bit
    /// fingerprint per state seen: the same unique states, far less memory) or `dpor` (one run
    /// per way the processes can order what they see, holding only the current run; its count
    /// is events, not unique states); each model refuses the other's engines; `explore`
    /// refuses it.
    #[arg(long, value_name = "ENGINE", value_parser = search_engine)]
    search: Option<budget::Search>,
    /// Layered search (refused with any other engine): once N states wait in its layers, hold
    /// new ones as compressed bytes (0 to 2^48; default 0: every one). Results do not depend
    /// on it: less memory per held state, more time (docs/design.md, "The layered search").
    /// `explore` refuses it.
    #[arg(long, value_name = "N", value_parser = pack_from, allow_hyphen_values = true)]
    pack_from: Option<usize>,
    /// Offer a crash only where it can change a run (the same verdicts in fewer states; see
    /// docs/design.md, "Crashes where they matter"): timed model with crashes at any instant,
    /// only before an instant at which the process has an event, and before the first (the
    /// default there); asynchronous model (not with `--search dpor`), only to a process with
    /// something to do, and messages to crashed processes discarded. `explore` refuses it.
    #[arg(long)]
    crashes_at_events_only: bool,
    /// Timed model with crashes at any instant (refused otherwise): offer every live process a
    /// crash before every instant — the full model, instead of the default
    /// `--crashes-at-events-only`, which decides the same verdicts in fewer states.
    #[arg(long)]
    crashes_at_every_instant: bool,
    /// Timed model, crashes at any instant (refused otherwise): offer a crash only before an
    /// instant at which the process sends, and before the first (at most as many states as
    /// `--crashes-at-events-only`, the same verdicts; the next instant runs on a copy to find
    /// the senders, and the layered search keeps that copy as the step's successor; see
    /// docs/design.md, "Crashes before sends"). `explore` refuses it.
    #[arg(long)]
    crashes_before_sends_only: bool,
}

/// What a command's budget flags are for, to refuse those it would ignore.
enum Target<'a> {
    /// A timed model: `what` names it in messages ("the timed model (--model timed)", "ftco
    /// (a timed model)"); `pre`: the flag that makes its crashes happen before the operation
    /// only, if it does ("--timing pre (the default)").
    Timed { what: &'a str, pre: Option<String> },
    /// The asynchronous model (`check --model async`).
    Async,
    /// stateright's Explorer (`explore`).
    Explorer,
}

impl BudgetArgs {
    /// Refuses, before any work, each flag `target` would silently ignore: an engine of the
    /// other model, a reduction of crash instants where no crash happens during the
    /// operation, `--pack-from` without the one engine that packs states, and the search
    /// options of `explore`, whose Explorer runs a search of its own.
    fn refuse_ignored(&self, target: &Target<'_>) -> Result<(), String> {
        let reductions = [
            ("--crashes-at-events-only", self.crashes_at_events_only),
            (
                "--crashes-before-sends-only",
                self.crashes_before_sends_only,
            ),
            ("--crashes-at-every-instant", self.crashes_at_every_instant),
        ];
        let chosen: Vec<&str> = reductions
            .iter()
            .filter(|(_, on)| *on)
            .map(|(flag, _)| *flag)
            .collect();
        if chosen.len() > 1 {
            return Err(format!(
                "{}: not allowed together: each chooses where crashes are offered; allowed: \
                 one of --crashes-at-events-only (the default with --timing any), \
                 --crashes-before-sends-only, --crashes-at-every-instant",
                chosen.join(", ")
            ));
        }
        let reduction = chosen.first();
        match target {
            Target::Explorer => {
                let given = [
                    ("--threads", self.threads.is_some()),
                    ("--search", self.search.is_some()),
                    ("--pack-from", self.pack_from.is_some()),
                ];
                let flag = given
                    .iter()
                    .find(|(_, on)| *on)
                    .map(|(flag, _)| flag)
                    .or(reduction);
                if let Some(flag) = flag {
                    return Err(format!(
                        "{flag}: not allowed with explore: the Explorer runs a search of its own; \
                         allowed with check, ftco and gossip"
                    ));
                }
            }
            Target::Async => {
                if let Some(s @ (budget::Search::Layered | budget::Search::Depth)) = self.search {
                    return Err(format!(
                        "--search: {} is not allowed with --model async: it searches the timed \
                         model; allowed: auto, bfs, dpor or fingerprints",
                        s.as_str()
                    ));
                }
                if self.crashes_before_sends_only {
                    return Err(
                        "--crashes-before-sends-only: not allowed with --model async: \
                         it runs the timed model's next instant to find the senders; allowed \
                         with --model timed --timing any"
                            .to_string(),
                    );
                }
                if self.crashes_at_every_instant {
                    return Err(
                        "--crashes-at-every-instant: not allowed with --model async: \
                         it has no instants, and its crashes happen at any moment unless \
                         --crashes-at-events-only is given; allowed with --model timed \
                         --timing any"
                            .to_string(),
                    );
                }
                if self.crashes_at_events_only && self.search == Some(budget::Search::Dpor) {
                    return Err("--crashes-at-events-only: not allowed with --search dpor: \
                         the reduction runs every crash set on its own; allowed with the \
                         asynchronous model's bfs and fingerprints searches"
                        .to_string());
                }
            }
            Target::Timed { what, pre } => {
                if let Some(s @ (budget::Search::Dpor | budget::Search::Fingerprints)) = self.search
                {
                    return Err(format!(
                        "--search: {} is not allowed with {what}: it searches the \
                         asynchronous model (check --model async); allowed: auto, layered, bfs \
                         or depth",
                        s.as_str()
                    ));
                }
                if let (Some(flag), Some(pre)) = (reduction, pre) {
                    return Err(format!(
                        "{flag}: not allowed with {pre}: crashes happen before the operation \
                         only, no crash instant to reduce; allowed with --timing any"
                    ));
                }
            }
        }
        if self.pack_from.is_some() && self.search != Some(budget::Search::Layered) {
            let search = self.search.unwrap_or_default().as_str();
            return Err(format!(
                "--pack-from: not allowed with --search {search}{}: only the layered search \
                 packs the states it holds; allowed with --search layered on a timed model",
                if self.search.is_none() {
                    " (the default)"
                } else {
                    ""
                }
            ));
        }
        Ok(())
    }

    /// The budget of a check; `timed_any`: the check searches a timed model with crashes at
    /// any instant, where the events-only crash rule is the default.
    fn budget(&self, timed_any: bool) -> Budget {
        let default_rule =
            timed_any && !self.crashes_at_every_instant && !self.crashes_before_sends_only;
        Budget {
            max_states: self.max_states,
            timeout: self.timeout,
            memory: Some(self.memory_limit.unwrap_or_else(budget::default_memory)),
            threads: self.threads.unwrap_or(1),
            search: self.search.unwrap_or_default(),
            crashes_at_events_only: self.crashes_at_events_only || default_rule,
            crashes_before_sends_only: self.crashes_before_sends_only,
            pack_from: self.pack_from.unwrap_or(ftcoll_verify::layered::PACK_FROM),
        }
    }

    /// The one-line usage error when the initial states alone do not fit the budget `by`
    /// (`needed`: states or bytes).
    fn too_small(&self, initial: u64, needed: u64, by: Stop, what: &str) -> String {
        match by {
            Stop::Memory => {
                let limit = self.memory_limit.map_or_else(
                    || {
                        format!(
                            "the default (half of MemAvailable, {})",
                            budget::format_size(budget::default_memory())
                        )
                    },
                    budget::format_size,
                );
                format!(
                    "--memory-limit: {limit} cannot hold the {initial} initial states of {what} (about {}): allowed {}..={}",
                    budget::format_size(needed),
                    budget::format_size(
                        needed
                            .checked_next_multiple_of(1 << 20)
                            .unwrap_or(u64::MAX)
                            .max(budget::MIN_MEMORY)
                    ),
                    budget::format_size(budget::max_memory())
                )
            }
            _ => format!(
                "--max-states: {} is fewer than the {initial} initial states of {what}: allowed {needed}..={}",
                self.max_states.unwrap_or(0),
                u64::MAX
            ),
        }
    }
}

#[derive(Args, Debug)]
struct CheckArgs {
    #[command(flatten)]
    spec: SpecArgs,
    #[command(flatten)]
    budget: BudgetArgs,
    /// When crashes happen.
    #[arg(long, value_enum, default_value = "pre")]
    timing: TimingArg,
    /// Timed (LogP) or asynchronous model.
    #[arg(long, value_enum, default_value = "timed")]
    model: ModelArg,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    format: Format,
}

#[derive(Args, Debug)]
struct ExploreArgs {
    #[command(flatten)]
    spec: SpecArgs,
    /// Budgets of the background search (`--timeout` ends the session).
    #[command(flatten)]
    budget: BudgetArgs,
    /// When crashes happen.
    #[arg(long, value_enum, default_value = "pre")]
    timing: TimingArg,
    /// Address to serve on.
    #[arg(long, default_value = "localhost:3000")]
    address: String,
}

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
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

/// What a check's count counts and what its counterexample is: unique states and a shortest
/// (or minimized) counterexample, except for the asynchronous model's `dpor` engine (events,
/// and the first run found).
#[derive(Clone, Copy)]
struct Counted {
    unit: &'static str,
    /// The unit in "no violation found within N …".
    within: &'static str,
    counterexample: &'static str,
}

const UNIQUE: Counted = Counted {
    unit: "unique states",
    within: "states",
    counterexample: "shortest counterexample",
};

const EVENTS: Counted = Counted {
    unit: "events (states visited, repeated across runs)",
    within: "events",
    counterexample: "counterexample (the first run found)",
};

/// Prints a check's verdict (JSON or text) and returns the exit status: 0 decided, 3 partial.
fn print_result(
    result: &ftcoll_verify::CheckResult,
    name: &str,
    crashes: u32,
    timing: &str,
    format: Format,
    counted: Counted,
) -> ExitCode {
    // Written at once, ignoring a closed pipe (`| head`): output is not worth a panic.
    let mut out = String::new();
    let first = result.violations.first();
    let verdict = result.verdict();
    let unresolved = result.unresolved();
    let within = |stop: Stop| {
        format!(
            "no violation found within {} {} (budget: {stop})",
            result.states, counted.within
        )
    };
    if format == Format::Json {
        let trace: Vec<String> = first
            .map(|v| v.trace.iter().map(|l| json_string(l)).collect())
            .unwrap_or_default();
        let list = |names: Vec<&str>| {
            names
                .into_iter()
                .map(json_string)
                .collect::<Vec<_>>()
                .join(",")
        };
        let violated = list(result.violations.iter().map(|v| v.property).collect());
        let _ = writeln!(
                out,
            "{{\"protocol\":{},\"crashes\":{},\"timing\":\"{}\",\"verdict\":\"{}\",\"property\":{},\"violated\":[{}],\"unresolved\":[{}],\"budget\":{},\"states\":{},\"seconds\":{:.3},\"trace\":[{}]}}",
            json_string(name),
            crashes,
            timing,
            verdict.as_str(),
            first.map_or("null".to_string(), |v| json_string(v.property)),
            violated,
            list(unresolved),
            result.stopped.map_or("null".to_string(), |s| json_string(s.as_str())),
            result.states,
            result.seconds,
            trace.join(",")
        );
    } else {
        let _ = writeln!(out, "{}, f = {}, crashes {}:", name, crashes, timing);
        for &property in &result.properties {
            match result.stopped {
                _ if result.cut_by_horizon.contains(&property) => {
                    let _ = writeln!(
                        out,
                        "  partial   {property} — undecided: some run is still busy at the horizon"
                    );
                }
                _ if result.violated(property) => {
                    let _ = writeln!(out, "  VIOLATED  {property}");
                }
                None => {
                    let _ = writeln!(out, "  holds     {property}");
                }
                Some(stop) => {
                    let _ = writeln!(out, "  partial   {property} — {}", within(stop));
                }
            }
        }
        let _ = writeln!(
            out,
            "  {} {} in {:.3} s",
            result.states, counted.unit, result.seconds
        );
        if let Some(stop) = result.stopped {
            let _ = writeln!(
                out,
                "  verdict: {} (the {stop} budget stopped the search; a counterexample is a definite violation, anything else is unknown beyond these states)",
                verdict.as_str()
            );
        }
        if let Some(v) = first {
            let _ = writeln!(out, "{} for \"{}\":", counted.counterexample, v.property);
            for line in &v.trace {
                let _ = writeln!(out, "  {line}");
            }
        }
    }
    let _ = std::io::stdout().lock().write_all(out.as_bytes());
    if verdict == Verdict::Partial {
        ExitCode::from(EXIT_PARTIAL)
    } else {
        ExitCode::SUCCESS
    }
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
            if model == ModelKind::Async && a.budget.search == Some(budget::Search::Dpor) {
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
                    let counted = if dpor && model == ModelKind::Async {
                        EVENTS
                    } else {
                        UNIQUE
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
