//! One Corrected Tree run on the general LogP driver (`ftcoll_sim::run`), timed, with the
//! driver's counts: what docs/performance.md quotes for events per message and what
//! a profiler is pointed at (`valgrind --tool=callgrind`, `perf record`). The configuration is
//! `sim/benches/driver.rs`'s (`sim/benches/support/driver_case.rs`, included by both): binomial tree,
//! `L = 2, o = 1`, dual-port LogP, `round(fraction·P)` non-root ranks failed before the
//! operation (seed 1, run 0). `sim/examples/automaton_alone.rs` replays the same run's automata
//! without the driver.
//!
//! ```sh
//! cargo run --release -p ftcoll-sim --example driver_run -- 65536 checked sync 0.01 20
//! # prints the counts (the same on every machine) and the mean time and rate of the runs:
//! # messages 382138 events 1014889 <mean ms> <M msg/s>
//! ```
//!
//! Arguments: `PROCS CORRECTION START FRACTION [REPEATS]` — `PROCS` in `2..=2^24`,
//! `CORRECTION` as `simulate --correction` spells it, `START` `sync` or `overlap`, `FRACTION`
//! in `0..=1`, `REPEATS` ≥ 1 (default 1). The time is wall time over the repeats (setup of the
//! tree and the fault draw excluded); benchmarks of record are `cargo bench -p ftcoll-sim --bench driver`.

use std::process::ExitCode;
use std::time::Instant;

use ftcoll::protocols::corrected_tree::CorrectedTreeNode;
use ftcoll_sim as sim;

// The bench's configuration itself (one definition for both).
#[path = "../benches/support/driver_case.rs"]
mod driver_case;

const USAGE: &str = "usage: driver_run PROCS CORRECTION START(sync|overlap) FRACTION [REPEATS]";

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
    let args: Vec<String> = std::env::args().skip(1).collect();
    let driver_case::Args {
        procs,
        config,
        scenario,
        repeats,
    } = driver_case::parse_args(&args)?;
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
