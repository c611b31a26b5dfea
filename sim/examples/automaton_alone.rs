//! The automata of one `driver_run` run without the driver: every call the driver
//! made on them is recorded once, checked (`sim/benches/support/replay.rs`: the recorded run sends
//! the plain run's messages, a replay gives its actions and idle answers, process by process),
//! then replayed on fresh automata `REPEATS` times; the time is the replays' mean, `calls` their
//! length. `--by-rank` replays each instant's calls sorted by rank (each process's own calls
//! in their order: the same calls, in an order a driver could choose for locality).
//! `valgrind --tool=callgrind --toggle-collect='automaton_alone::replay::replay*'` counts the
//! replays' instructions alone: the check's replay and the timed ones (`REPEATS` 1: two). A binary of its own, so that its recorder does not change
//! how the compiler inlines `driver_run`'s driver (docs/performance.md, "The automata without the driver").
//!
//! ```sh
//! cargo run --release -p ftcoll-sim --example automaton_alone -- 65536 checked sync 0.01 20
//! # messages 382138 calls 1835757 <mean ms> <M msg/s>   (the mean of the replays)
//! ```
//!
//! Arguments: `[--by-rank] PROCS CORRECTION START FRACTION [REPEATS]`, as `driver_run`'s.

use std::process::ExitCode;
use std::time::Instant;

use ftcoll::protocols::corrected_tree::CorrectedTreeNode;

#[path = "../benches/support/driver_case.rs"]
mod driver_case;
#[path = "../benches/support/replay.rs"]
mod replay;

const USAGE: &str =
    "usage: automaton_alone [--by-rank] PROCS CORRECTION START(sync|overlap) FRACTION [REPEATS]";

fn main() -> ExitCode {
    match run() {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("automaton_alone: {message}\n{USAGE}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<String, String> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let by_rank = args.first().is_some_and(|a| a == "--by-rank");
    if by_rank {
        args.remove(0);
    }
    let driver_case::Args {
        procs,
        config,
        scenario,
        repeats,
    } = driver_case::parse_args(&args)?;
    let recording = replay::verified::<CorrectedTreeNode>(&config, procs, &scenario, by_rank)?;
    let mut elapsed = 0.0;
    for _ in 0..repeats {
        let log = recording.calls.clone();
        let began = Instant::now();
        std::hint::black_box(replay::replay::<CorrectedTreeNode>(&config, procs, log));
        elapsed += began.elapsed().as_secs_f64();
    }
    let seconds = elapsed / f64::from(repeats);
    Ok(format!(
        "messages {} calls {} {:.3} ms {:.2} M msg/s",
        recording.messages,
        recording.calls.len(),
        seconds * 1e3,
        recording.messages as f64 / seconds / 1e6
    ))
}
