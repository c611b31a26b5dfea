//! One Corrected Tree run on the general LogP driver (`ftcoll::sim::run`), timed, with the
//! driver's counts: what docs/performance.md quotes for events per message (issue 16) and what
//! a profiler is pointed at (`valgrind --tool=callgrind`, `perf record`). The configuration is
//! `benches/driver.rs`'s (`benches/support/driver_case.rs`, included by both): binomial tree,
//! `L = 2, o = 1`, dual-port LogP, `round(fraction·P)` non-root ranks failed before the
//! operation (seed 1, run 0).
//!
//! ```sh
//! cargo run --release --example driver_run -- 65536 checked sync 0.01 20
//! # printed here (2 cores, shared; the time varies from run to run, the counts do not):
//! # messages 382138 events 1014889 40.129 ms 9.52 M msg/s   (the mean of 20 runs)
//! ```
//!
//! Arguments: `[--alone | --alone-by-rank] PROCS CORRECTION START FRACTION [REPEATS]`, the
//! flag first if any — `PROCS` in `2..=2^24`, `CORRECTION` as `simulate --correction` spells
//! it, `START` `sync` or `overlap`, `FRACTION` in `0..=1`, `REPEATS` ≥ 1 (default 1). The time
//! is wall time over the repeats (setup of the tree and the fault draw excluded); benchmarks of
//! record are `cargo bench --bench driver`.
//!
//! With `--alone`, the run's automata without the driver: every call the driver made on them is
//! recorded once, then replayed on fresh automata `REPEATS` times (`benches/support/replay.rs`,
//! the bench's `automaton_alone_*` groups); the time is the replays' mean, `calls` their
//! length. A replay that emits other actions than the run (process by process) is an error.
//! `valgrind --tool=callgrind --toggle-collect='driver_run::replay::replay*'` counts the
//! replays' instructions alone. `--alone-by-rank` replays the calls of each instant sorted by
//! rank (each process's own calls in their order: the same calls, in an order a driver could
//! choose for locality).
//!
//! ```sh
//! cargo run --release --example driver_run -- --alone 65536 checked sync 0.01 20
//! # messages 382138 calls 1835757 25.615 ms 14.92 M msg/s   (the mean of 20 replays)
//! ```

use std::process::ExitCode;
use std::time::Instant;

use ftcoll::protocols::corrected_tree::{CorrectedTreeNode, CorrectionSpec, StartMode};
use ftcoll::sim;

// The bench's configuration itself (one definition for both).
#[path = "../benches/support/driver_case.rs"]
mod driver_case;
#[path = "../benches/support/replay.rs"]
mod replay;

/// The largest `P` this example runs (the issue's largest run; memory grows with `P`).
const MAX_PROCS: u32 = 1 << 24;

const USAGE: &str =
    "usage: driver_run [--alone | --alone-by-rank] PROCS CORRECTION START(sync|overlap) FRACTION \
     [REPEATS] (the flag first)";

fn main() -> ExitCode {
    match run() {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("driver_run: {message}\n{USAGE}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<String, String> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let (alone, by_rank) = match args.first().map(String::as_str) {
        Some("--alone") => (true, false),
        Some("--alone-by-rank") => (true, true),
        _ => (false, false),
    };
    if alone {
        args.remove(0);
    }
    if !(4..=5).contains(&args.len()) {
        return Err(format!("expected 4 or 5 arguments, got {}", args.len()));
    }
    let procs: u32 = args[0]
        .parse()
        .ok()
        .filter(|p| (2..=MAX_PROCS).contains(p))
        .ok_or("PROCS must be an integer in 2..=16777216")?;
    let spec: CorrectionSpec = args[1].parse().map_err(|e| format!("CORRECTION: {e}"))?;
    let start = match args[2].as_str() {
        "sync" => StartMode::Synchronized,
        "overlap" => StartMode::Overlapped,
        _ => return Err("START must be sync or overlap".into()),
    };
    let fraction: f64 = args[3]
        .parse()
        .ok()
        .filter(|f: &f64| (0.0..=1.0).contains(f))
        .ok_or("FRACTION must be a number in 0..=1")?;
    let repeats: u32 = match args.get(4) {
        None => 1,
        Some(r) => r
            .parse()
            .ok()
            .filter(|&r| r >= 1)
            .ok_or("REPEATS must be an integer in 1..=4294967295")?,
    };
    let config = driver_case::config(procs, spec, start).map_err(|e| format!("PROCS: {e}"))?;
    let scenario = driver_case::scenario(procs, fraction).map_err(|e| format!("scenario: {e}"))?;
    if alone {
        let mut recording = replay::record::<CorrectedTreeNode>(&config, procs, &scenario)
            .map_err(|e| format!("simulation: {e}"))?;
        if by_rank {
            replay::by_instant_and_rank(&mut recording.calls);
        }
        let digest =
            replay::replay_digest::<CorrectedTreeNode>(&config, procs, recording.calls.clone());
        if digest != recording.actions {
            return Err(format!(
                "the replay emitted other actions than the run ({} against {}, or the same \
                 number with a process's differing)",
                digest.actions(),
                recording.actions.actions()
            ));
        }
        let calls = recording.calls.len();
        let mut elapsed = 0.0;
        for _ in 0..repeats {
            let log = recording.calls.clone();
            let began = Instant::now();
            let sends = replay::replay::<CorrectedTreeNode>(&config, procs, log);
            elapsed += began.elapsed().as_secs_f64();
            if sends != recording.messages {
                return Err(format!(
                    "the replay sent {sends} messages, the run {}",
                    recording.messages
                ));
            }
        }
        let seconds = elapsed / f64::from(repeats);
        return Ok(format!(
            "messages {} calls {calls} {:.3} ms {:.2} M msg/s",
            recording.messages,
            seconds * 1e3,
            recording.messages as f64 / seconds / 1e6
        ));
    }
    let began = Instant::now();
    let mut last = None;
    for _ in 0..repeats {
        let report = sim::run::<CorrectedTreeNode>(&config, procs, &scenario, u64::MAX)
            .map_err(|e| format!("simulation: {e}"))?;
        last = Some((report.messages_total(), report.events));
    }
    let seconds = began.elapsed().as_secs_f64() / f64::from(repeats);
    let (messages, events) = last.ok_or("no run")?;
    Ok(format!(
        "messages {messages} events {events} {:.3} ms {:.2} M msg/s",
        seconds * 1e3,
        messages as f64 / seconds / 1e6
    ))
}
