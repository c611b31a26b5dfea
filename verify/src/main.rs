//! `ftcoll-verify`: model-check a protocol variant, explore it in a browser, or regenerate the
//! verification matrix.
//!
//! ```text
//! cargo run -p ftcoll-verify --release -- check --tree lame:2 --correction checked --start sync \
//!     --procs 6 --crashes 1 --timing any
//! cargo run -p ftcoll-verify --release -- explore --tree kary:2 --correction none --procs 4 --crashes 1
//! cargo run -p ftcoll-verify --release -- matrix --max-procs 8 --out docs/verification.md
//! ```

use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};
use ftcoll::protocols::corrected_tree::{CorrectionSpec, StartMode};
use ftcoll::topology::{LogP, Order, TreeKind};
use ftcoll_verify::{check, matrix, CrashTiming, ModelKind, ProtocolSpec, TimedModel};
use stateright::Model;

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
    /// Regenerate docs/verification.md and docs/traces/.
    Matrix(matrix::MatrixArgs),
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

#[derive(Args, Debug)]
struct SpecArgs {
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
    /// Number of processes (2..=16; state spaces grow fast).
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..=16))]
    procs: u32,
    /// At most this many crashes (0..P-1).
    #[arg(long, default_value = "1", value_parser = clap::value_parser!(u32).range(0..=15))]
    crashes: u32,
    /// LogP latency L.
    #[arg(short = 'L', default_value = "2", value_parser = clap::value_parser!(u64).range(0..=64))]
    latency: u64,
    /// LogP overhead o.
    #[arg(short = 'o', default_value = "1", value_parser = clap::value_parser!(u64).range(1..=64))]
    overhead: u64,
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
        Ok(ProtocolSpec {
            tree: self.tree,
            order: self.order,
            correction: self.correction,
            start: match self.start {
                StartArg::Sync => StartMode::Synchronized,
                StartArg::Overlap => StartMode::Overlapped,
            },
            procs: self.procs,
            logp: LogP::new(self.latency, self.overhead).map_err(|e| format!("-L/-o: {e}"))?,
        })
    }
}

#[derive(Args, Debug)]
struct CheckArgs {
    #[command(flatten)]
    spec: SpecArgs,
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

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                e.exit();
            }
            let text = e.to_string();
            eprintln!(
                "{}",
                text.lines().next().unwrap_or("error: invalid arguments")
            );
            return ExitCode::from(2);
        }
    };
    let usage = |message: String| {
        eprintln!("error: {message}");
        ExitCode::from(2)
    };
    match cli.command {
        Command::Check(a) => {
            let spec = match a.spec.spec() {
                Ok(s) => s,
                Err(m) => return usage(m),
            };
            let model = match a.model {
                ModelArg::Timed => ModelKind::Timed,
                ModelArg::Async => ModelKind::Async,
            };
            let result = match check(&spec, a.spec.crashes, timing(a.timing), model) {
                Ok(r) => r,
                Err(e) => return usage(format!("--tree/--procs: {e}")),
            };
            let first = result.violations.first();
            if a.format == Format::Json {
                let trace: Vec<String> = first
                    .map(|v| v.trace.iter().map(|l| json_string(l)).collect())
                    .unwrap_or_default();
                let violated: Vec<String> = result
                    .violations
                    .iter()
                    .map(|v| json_string(v.property))
                    .collect();
                println!(
                    "{{\"protocol\":{},\"crashes\":{},\"timing\":\"{}\",\"verdict\":\"{}\",\"property\":{},\"violated\":[{}],\"states\":{},\"seconds\":{:.3},\"trace\":[{}]}}",
                    json_string(&spec.name()),
                    a.spec.crashes,
                    timing(a.timing),
                    if first.is_some() { "violated" } else { "holds" },
                    first.map_or("null".to_string(), |v| json_string(v.property)),
                    violated.join(","),
                    result.states,
                    result.seconds,
                    trace.join(",")
                );
            } else {
                println!(
                    "{}, f = {}, crashes {}:",
                    spec.name(),
                    a.spec.crashes,
                    timing(a.timing)
                );
                for name in ftcoll_verify::property::ALL {
                    println!(
                        "  {:<9} {name}",
                        if result.holds(name) {
                            "holds"
                        } else {
                            "VIOLATED"
                        }
                    );
                }
                println!(
                    "  {} unique states in {:.3} s",
                    result.states, result.seconds
                );
                if let Some(v) = first {
                    println!("shortest counterexample for \"{}\":", v.property);
                    for line in &v.trace {
                        println!("  {line}");
                    }
                }
            }
            ExitCode::SUCCESS
        }
        Command::Explore(a) => {
            let spec = match a.spec.spec() {
                Ok(s) => s,
                Err(m) => return usage(m),
            };
            let model = match TimedModel::corrected_tree(&spec, a.spec.crashes, timing(a.timing)) {
                Ok(m) => m,
                Err(e) => return usage(format!("--tree/--procs: {e}")),
            };
            println!("Exploring {} on http://{}", spec.name(), a.address);
            model.checker().serve(a.address.as_str());
            ExitCode::SUCCESS
        }
        Command::Matrix(a) => match matrix::run(&a) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => usage(e),
        },
    }
}
