//! `ftcoll-verify search`: guided random walks of the timed model beyond exhaustive sizes, or
//! uniform random runs of the asynchronous model.

use super::*;

#[derive(Args, Debug)]
pub(crate) struct SearchArgs {
    #[command(flatten)]
    pub(crate) protocol: ProtocolArgs,
    /// Number of processes (2..=65536).
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..=65536))]
    pub(crate) procs: u32,
    /// Crashes before the operation in every walk (0..P-1).
    #[arg(long, default_value = "5", value_parser = clap::value_parser!(u32).range(0..=65535))]
    pub(crate) pre: u32,
    /// Crashes during the operation in every walk (0..P-1 together with --pre).
    #[arg(long, default_value = "2", value_parser = clap::value_parser!(u32).range(0..=65535))]
    pub(crate) during: u32,
    /// Random walks (1..=10^9).
    #[arg(long, default_value = "3000", value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    pub(crate) walks: u64,
    /// Seed of the walks.
    #[arg(long, default_value = "1")]
    pub(crate) seed: u64,
    /// Uniform victims instead of the ends of gaps.
    #[arg(long)]
    pub(crate) unguided: bool,
    /// Worker threads (1..=256).
    #[arg(long, default_value = "2", value_parser = clap::value_parser!(u32).range(1..=256))]
    pub(crate) threads: u32,
    /// `timed` (default): the guided search above. `async`: uniform random runs of the
    /// asynchronous model (any delivery order), each with a crash set drawn from those of at
    /// most --crashes ranks, crashes at any moment; --pre, --during and --unguided are refused.
    #[arg(long, value_enum, default_value = "timed")]
    pub(crate) model: ModelArg,
    /// Asynchronous model: at most this many crashes (0..P-1; refused with --model timed).
    #[arg(long, default_value = "2", value_parser = clap::value_parser!(u32).range(0..=65535))]
    pub(crate) crashes: u32,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    pub(crate) format: Format,
}

/// The asynchronous model's per-process clocks (`--search dpor`, `search --model async`)
/// agree with its breadth-first search only for automata that read `now` just to set timers
/// (`ftcoll_verify::dpor`, which refuses the others too): synchronized correction compares it
/// with its start instant (`CorrectedTreeSpec::reads_clock`). Refused here first, to name the flag.
pub(crate) fn local_clocks_allowed(spec: &CorrectedTreeSpec) -> Result<(), String> {
    if spec.reads_clock() {
        return Err(format!(
            "--start: sync (the default) is not allowed with --correction {} and check --model \
             async --search dpor or transactions, or search --model async: synchronized \
             correction reads the clock; allowed: overlap (pass --start overlap), or sync with \
             --correction none or ack",
            spec.correction
        ));
    }
    Ok(())
}

/// Runs `ftcoll-verify search --model async`: random runs of the asynchronous model.
pub(crate) fn run_async_walks(a: &SearchArgs, spec: &CorrectedTreeSpec) -> ExitCode {
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
            #[derive(serde::Serialize)]
            struct Found<'a> {
                property: &'a str,
                walk: u64,
                trace: &'a [String],
            }
            #[derive(serde::Serialize)]
            struct Walks<'a> {
                protocol: String,
                model: &'static str,
                walks: u64,
                crashes: u32,
                seed: u64,
                events: u64,
                seconds: f64,
                found: Vec<Found<'a>>,
            }
            let found = violated
                .iter()
                .map(|(p, (walk, trace))| Found {
                    property: p,
                    walk: *walk,
                    trace,
                })
                .collect();
            let walks = Walks {
                protocol: spec.name(),
                model: "async",
                walks: result.walks,
                crashes: a.crashes,
                seed: a.seed,
                events: result.events,
                seconds: milliseconds(seconds),
                found,
            };
            let _ = writeln!(out, "{}", json(&walks));
        }
    }
    let _ = std::io::stdout().write_all(out.as_bytes());
    ExitCode::SUCCESS
}

/// Runs `ftcoll-verify search`; `flags`: its matches, which tell the flags given from their
/// defaults.
pub(crate) fn run_search(a: &SearchArgs, flags: &ArgMatches) -> ExitCode {
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
            #[derive(serde::Serialize)]
            struct Found<'a> {
                property: &'a str,
                walk: u64,
                pre: &'a [ftcoll::Rank],
                during: &'a [(ftcoll::Rank, ftcoll::Time)],
                trace: &'a [String],
            }
            #[derive(serde::Serialize)]
            struct Searched<'a> {
                protocol: String,
                walks: u64,
                pre: u32,
                during: u32,
                seed: u64,
                guided: bool,
                violating_walks: u64,
                seconds: f64,
                found: Vec<Found<'a>>,
            }
            let found = result
                .found
                .iter()
                .map(|f| Found {
                    property: f.property,
                    walk: f.walk,
                    pre: &f.pre,
                    during: &f.during,
                    trace: &f.trace,
                })
                .collect();
            let searched = Searched {
                protocol: spec.name(),
                walks: result.walks,
                pre: a.pre,
                during: a.during,
                seed: a.seed,
                guided: !a.unguided,
                violating_walks: result.violating_walks,
                seconds: milliseconds(result.seconds),
                found,
            };
            let _ = writeln!(out, "{}", json(&searched));
        }
    }
    let _ = std::io::stdout().write_all(out.as_bytes());
    ExitCode::SUCCESS
}
