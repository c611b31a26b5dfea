//! `ftcoll-mpi`: run ftcoll's automata on MPI ranks, one process per rank.
//!
//! ```text
//! mpirun -n 8 --oversubscribe target/release/ftcoll-mpi bcast --tree lame:2 \
//!     --correction checked --faults 1,3 --operations 3
//! mpirun -n 8 --oversubscribe target/release/ftcoll-mpi allreduce --topology kary:2 --faults 3
//! ```
//!
//! The world's size is `P`; rank 0 is the root and prints one JSON line per operation (the
//! ranks that delivered or completed, what each did; mpi/README.md lists the fields). Ranks in
//! `--faults` never run the protocol (CT §4.4's emulated failures); `--crash-at RANK@TIME` and
//! `--crash-after RANK:ACTIONS` crash a rank during the operation. Bad input is one line on
//! stderr (from rank 0) and exit status 2 on every rank, before any operation.

mod osu;

use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Args, Parser, Subcommand};
use ftcoll::automaton::{Automaton, Message, Phase, Sum};
use ftcoll::protocols::corrected_tree::{
    CorrectedTreeConfig, CorrectedTreeNode, CorrectionSpec, StartMode,
};
use ftcoll::protocols::ftco::{FtcoConfig, FtcoNode};
use ftcoll::protocols::gossip::fcg::FcgConfig;
use ftcoll::protocols::gossip::ocg::OcgConfig;
use ftcoll::protocols::gossip::{
    BfbConfig, BfbNode, BigConfig, BigNode, Ccg, Fcg, Gos, GossipConfig, Ocg,
};
use ftcoll::topology::ftco::{Collective, FtcoKind, FtcoTopology};
use ftcoll::topology::{LogP, Order, Tree, TreeKind};
use ftcoll::{Rank, Time};
use ftcoll_lab::cli::Failure;
use ftcoll_mpi::executor::RankExecutor;
use ftcoll_mpi::{
    drain_until_stopped, gather_results, run_operation, stop_failed, Operation, RankResult,
    ServedSummary,
};
use ftcoll_sim::scenario::{FaultSpec, ScenarioSpec};
use ftcoll_sim::transport::{CrashPlan, Serving};
use mpi::topology::{Color, Communicator};
use serde::de::DeserializeOwned;
use serde::Serialize;

#[derive(Parser, Debug)]
#[command(name = "ftcoll-mpi", about = "ftcoll's automata on MPI ranks")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// A Corrected Tree broadcast from rank 0 (CT §3).
    Bcast(BcastArgs),
    /// An FTCO collective (`--collective`, default allreduce; operands `rank + 1` summed; FTCO
    /// §4). `allreduce` is the same command.
    #[command(alias = "allreduce")]
    Ftco(AllreduceArgs),
    /// Corrected Gossip from rank 0 (CG §III: random gossip until `T`, then the correction of
    /// `--protocol`: none, opportunistic, checked or failure-proof).
    Gossip(GossipArgs),
    /// A sweep of `ftcoll sweep` (the same flags, `--threads` per rank) spread over the ranks:
    /// rank 0 deals pieces of points to the ranks as they ask for work and writes exactly the
    /// output `ftcoll sweep` writes.
    #[command(disable_help_flag = true)]
    Sweep {
        /// The flags of `ftcoll sweep` (`ftcoll-mpi sweep --help` lists them).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        flags: Vec<std::ffi::OsString>,
    },
    /// A paper's reproduction (the arguments of `ftcoll reproduce`) with each batch of points
    /// spread over the ranks, one chunk of runs at a time per rank; rank 0 writes the files
    /// `ftcoll reproduce` writes (`--paper-scale`: CG Table 7 at 10^6 runs per row).
    #[command(disable_help_flag = true)]
    Reproduce {
        /// The arguments of `ftcoll reproduce` (`ftcoll-mpi reproduce --help` lists them).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        flags: Vec<std::ffi::OsString>,
    },
    /// OSU-style latency: MPI_Bcast against Corrected Trees, MPI_Allreduce against FTCO, each
    /// beside the simulator's prediction (one JSON line per protocol and size).
    Bench(BenchArgs),
}

#[derive(Args, Debug)]
struct BenchArgs {
    /// Message sizes in bytes, each in 1..=1048576.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "8,64,1024,16384,131072,1048576"
    )]
    sizes: Vec<usize>,
    /// Timed operations per protocol and size (1..=10^6).
    #[arg(long, default_value = "50")]
    iterations: u32,
    /// Untimed operations first (0..=10^6).
    #[arg(long, default_value = "5")]
    warmup: u32,
    /// Ping-pongs per size that fit the LogP step (1..=10^6).
    #[arg(long, default_value = "200")]
    ping_pongs: u32,
    /// Ranks left out, e.g. `3` (each in 2..P: ranks 0 and 1 run the ping-pong).
    #[arg(long, value_delimiter = ',')]
    faults: Vec<Rank>,
}

#[derive(Args, Debug)]
struct Common {
    /// Ranks that never run the protocol, e.g. `1,3` (each in 1..P; rank 0 is the root).
    #[arg(long, value_delimiter = ',')]
    faults: Vec<Rank>,
    /// Every rank but the root fails with this probability (0..=1), drawn from `--fault-seed`
    /// exactly as `ftcoll simulate --fault-rate R --seed S` draws its run 0; refused with
    /// `--faults`.
    #[arg(long)]
    fault_rate: Option<f64>,
    /// The seed of `--fault-rate`'s draw.
    #[arg(long, default_value = "1")]
    fault_seed: u64,
    /// `RANK@TIME`: the rank crashes at that instant (time units) of each operation.
    #[arg(long)]
    crash_at: Vec<String>,
    /// `RANK:ACTIONS`: the rank crashes right after that many actions (sends, deliveries,
    /// completions) of each operation.
    #[arg(long)]
    crash_after: Vec<String>,
    /// Bytes of data each data-carrying message carries (1..=1048576).
    #[arg(long, default_value = "8")]
    payload: usize,
    /// Consecutive operations (1..=10^6).
    #[arg(long, default_value = "1")]
    operations: u32,
    /// Microseconds of wall clock per time unit of the automaton (1..=10^6).
    #[arg(long, default_value = "1000")]
    step_us: u64,
    /// A rank stops serving an operation after this many time units.
    #[arg(long, default_value = "20000")]
    give_up: Time,
    /// A rank that delivered or completed stops after this many time units without input.
    #[arg(long, default_value = "300")]
    quiet: Time,
}

#[derive(Args, Debug)]
struct BcastArgs {
    /// Tree kind (as `ftcoll simulate --tree`).
    #[arg(long, default_value = "lame:2")]
    tree: String,
    /// Numbering: interleaved or in-order.
    #[arg(long, default_value = "interleaved")]
    order: String,
    /// Correction (as `ftcoll simulate --correction`).
    #[arg(long, default_value = "checked")]
    correction: String,
    /// Start mode: sync or overlap.
    #[arg(long, default_value = "overlap")]
    start: String,
    #[command(flatten)]
    common: Common,
}

#[derive(Args, Debug)]
struct GossipArgs {
    /// The protocol: gos (gossip alone), ocg (opportunistic correction until C), ccg (checked
    /// correction), fcg:F (failure-proof correction tolerating F crashes; CG §III), or the
    /// baselines big (binomial graph broadcast) and bfb (binomial tree with acknowledgments and
    /// a failure detector; CG §IV.B).
    #[arg(long, default_value = "ccg")]
    protocol: String,
    /// OCG's correction time `C`, in time units (1..=10^6; required with ocg).
    #[arg(long)]
    correction_time: Option<Time>,
    /// The gossip time `T`, in time units (1..=10^6; default 6; not for big and bfb).
    #[arg(long)]
    gossip_time: Option<Time>,
    /// Seed of the processes' gossip targets (default 1; not for big and bfb).
    #[arg(long)]
    seed: Option<u64>,
    #[command(flatten)]
    common: Common,
}

#[derive(Args, Debug)]
struct AllreduceArgs {
    /// The collective: bcast (from rank 0), reduce (to rank 0) or allreduce.
    #[arg(long, default_value = "allreduce")]
    collective: String,
    /// FTCO topology: kary:K or knomial:K.
    #[arg(long, default_value = "kary:2")]
    topology: String,
    #[command(flatten)]
    common: Common,
}

/// One operation's line at rank 0.
#[derive(Serialize)]
struct Line<V> {
    operation: u32,
    protocol: String,
    procs: u32,
    failed: Vec<Rank>,
    payload: usize,
    step_us: u64,
    /// Ranks that delivered (broadcast) or completed (Allreduce).
    finished: Vec<Rank>,
    /// The last delivery or completion, in time units from the operation's start.
    latency: Option<Time>,
    /// Wall seconds of the operation at rank 0, harness included.
    seconds: f64,
    ranks: Vec<RankResult<V>>,
}

/// The planned crashes: which rank, and when.
type Crashes = Vec<(Rank, CrashPlan)>;

/// A bad command line: the message rank 0 prints.
#[derive(Debug)]
struct Bad(String);

fn parse_crashes(c: &Common, procs: u32) -> Result<Crashes, Bad> {
    let mut plans = Vec::new();
    let rank = |s: &str, flag: &str| -> Result<Rank, Bad> {
        match s.parse::<Rank>() {
            Ok(r) if r >= 1 && r < procs => Ok(r),
            _ => Err(Bad(format!(
                "--{flag}: rank {s:?} is not in 1..{procs} (rank 0 is the root)"
            ))),
        }
    };
    for s in &c.crash_at {
        let (r, t) = s
            .split_once('@')
            .ok_or_else(|| Bad(format!("--crash-at: {s:?} is not RANK@TIME")))?;
        let t: Time = t.parse().map_err(|_| {
            Bad(format!(
                "--crash-at: time {t:?} is not a number of time units"
            ))
        })?;
        plans.push((rank(r, "crash-at")?, CrashPlan::At(t)));
    }
    for s in &c.crash_after {
        let (r, n) = s
            .split_once(':')
            .ok_or_else(|| Bad(format!("--crash-after: {s:?} is not RANK:ACTIONS")))?;
        let n: u64 = n
            .parse()
            .map_err(|_| Bad(format!("--crash-after: {n:?} is not a number of actions")))?;
        plans.push((rank(r, "crash-after")?, CrashPlan::AfterActions(n)));
    }
    Ok(plans)
}

fn check_common(c: &Common, procs: u32) -> Result<(), Bad> {
    if procs < 2 {
        return Err(Bad(format!(
            "the world has {procs} rank: allowed 2 or more (mpirun -n P)"
        )));
    }
    if c.payload == 0 || c.payload > 1 << 20 {
        return Err(Bad(format!(
            "--payload: {} bytes: allowed 1..=1048576",
            c.payload
        )));
    }
    if c.operations == 0 || c.operations > 1_000_000 {
        return Err(Bad(format!(
            "--operations: {}: allowed 1..=1000000",
            c.operations
        )));
    }
    if c.step_us == 0 || c.step_us > 1_000_000 {
        return Err(Bad(format!(
            "--step-us: {}: allowed 1..=1000000",
            c.step_us
        )));
    }
    for &f in &c.faults {
        if f == 0 || f >= procs {
            return Err(Bad(format!(
                "--faults: rank {f} is not in 1..{procs} (the world has {procs} ranks; rank 0 is the root)"
            )));
        }
    }
    failed_ranks(c, procs).map(|_| ())
}

/// The ranks that never run the protocol: `--faults`, or `--fault-rate`'s draw.
fn failed_ranks(c: &Common, procs: u32) -> Result<Vec<Rank>, Bad> {
    let Some(rate) = c.fault_rate else {
        let mut failed = c.faults.clone();
        failed.sort_unstable();
        failed.dedup();
        return Ok(failed);
    };
    if !c.faults.is_empty() {
        return Err(Bad(
            "--fault-rate and --faults both name the failed ranks: allowed one of them".into(),
        ));
    }
    if !(0.0..=1.0).contains(&rate) {
        return Err(Bad(format!("--fault-rate: {rate}: allowed 0..=1")));
    }
    ScenarioSpec::new(procs, LogP::default())
        .with_faults(FaultSpec::Rate(rate))
        .draw_failed(c.fault_seed, 0)
        .map(|(failed, _)| failed)
        .map_err(|e| Bad(format!("--fault-rate: {e}")))
}

/// Runs `c.operations` operations of `A` on the world, the ranks of `c.faults` left out.
fn run<A>(
    world: &mpi::topology::SimpleCommunicator,
    protocol: &str,
    config: &A::Config,
    c: &Common,
    crashes: &[(Rank, CrashPlan)],
    carries_payload: fn(&A::Msg) -> bool,
    finished: fn(&ServedSummary<A::Value>) -> Option<Time>,
) where
    A: Automaton,
    A::Msg: Serialize + DeserializeOwned,
    A::Value: Serialize + DeserializeOwned,
{
    let rank = world.rank() as Rank;
    let procs = world.size() as u32;
    let failed = failed_ranks(c, procs).expect("checked before the run");
    let live = !failed.contains(&rank);
    let color = Color::with_value(if live { 0 } else { 1 });
    let part = world.split_by_color(color).expect("every rank has a color");
    if !live {
        drain_until_stopped(world);
        return;
    }
    let crash = crashes
        .iter()
        .find(|(r, _)| *r == rank)
        .map_or(CrashPlan::Never, |&(_, p)| p);
    for number in 1..=c.operations {
        let started = Instant::now();
        let served = run_operation::<A>(
            &part,
            world,
            rank,
            config,
            Operation {
                number,
                step: Duration::from_micros(c.step_us),
                idle: Duration::from_micros(20),
                payload: c.payload,
                carries_payload,
            },
            Serving {
                give_up: c.give_up,
                quiet: Some(c.quiet),
                crash,
                // LogP's o of the configurations (L = 2, o = 1).
                send_gap: 1,
            },
        );
        let mine = RankResult {
            rank,
            served: Some(ServedSummary::from(served)),
        };
        if let Some(all) = gather_results(&part, &mine) {
            let finished_at: Vec<(Rank, Time)> = all
                .iter()
                .filter_map(|r| r.served.as_ref().and_then(finished).map(|t| (r.rank, t)))
                .collect();
            let line = Line {
                operation: number,
                protocol: protocol.to_string(),
                procs,
                failed: failed.clone(),
                payload: c.payload,
                step_us: c.step_us,
                finished: finished_at.iter().map(|&(r, _)| r).collect(),
                latency: finished_at.iter().map(|&(_, t)| t).max(),
                seconds: started.elapsed().as_secs_f64(),
                ranks: all,
            };
            println!("{}", serde_json::to_string(&line).expect("lines serialize"));
        }
    }
    if rank == 0 {
        stop_failed(world, &failed);
    }
}

/// `ftcoll-mpi bench` on every rank.
fn bench(world: &mpi::topology::SimpleCommunicator, a: &BenchArgs) {
    let rank = world.rank() as Rank;
    let procs = world.size() as u32;
    let mut failed = a.faults.clone();
    failed.sort_unstable();
    failed.dedup();
    let steps: Vec<f64> = a
        .sizes
        .iter()
        .map(|&size| osu::ping_pong(world, size, a.ping_pongs) / 4.0)
        .collect();
    let live = !failed.contains(&rank);
    let part = world
        .split_by_color(Color::with_value(if live { 0 } else { 1 }))
        .expect("every rank has a color");
    if !live {
        drain_until_stopped(world);
        return;
    }
    let print =
        |protocol: String, size: usize, latency_us: f64, predicted: Option<Time>, step: f64| {
            if rank == 0 {
                let point = osu::Point {
                    protocol,
                    procs,
                    failed: failed.clone(),
                    size,
                    iterations: a.iterations,
                    latency_us,
                    predicted_us: predicted.map(|t| t as f64 * step),
                    step_us: step,
                };
                println!(
                    "{}",
                    serde_json::to_string(&point).expect("points serialize")
                );
            }
        };
    let mut number = 1u32;
    for (&size, &step) in a.sizes.iter().zip(&steps) {
        let t = osu::mpi_bcast(&part, size, a.warmup, a.iterations);
        print("MPI_Bcast".into(), size, t, None, step);
        for (tree, correction) in osu::BROADCASTS {
            let config = osu::ct_config(tree, correction, procs);
            let t = osu::ftcoll_latency::<CorrectedTreeNode>(
                &part,
                world,
                &config,
                number,
                size,
                a.warmup,
                a.iterations,
                osu::ct_carries,
            );
            number = number.wrapping_add(a.warmup + a.iterations);
            let predicted = osu::predicted_ct(&config, procs, &failed);
            print(
                format!("{tree} {correction}"),
                size,
                t,
                Some(predicted),
                step,
            );
        }
        let t = osu::mpi_allreduce(&part, size, a.warmup, a.iterations);
        print("MPI_Allreduce".into(), size, t, None, step);
        let config = osu::ftco_config(procs);
        let t = osu::ftcoll_latency::<FtcoNode<Sum>>(
            &part,
            world,
            &config,
            number,
            size,
            a.warmup,
            a.iterations,
            osu::ftco_carries,
        );
        number = number.wrapping_add(a.warmup + a.iterations);
        let predicted = osu::predicted_ftco(&config, procs, &failed);
        print(
            "ftco allreduce kary:2".into(),
            size,
            t,
            Some(predicted),
            step,
        );
    }
    if rank == 0 {
        stop_failed(world, &failed);
    }
}

fn check_bench(a: &BenchArgs, procs: u32) -> Result<(), Bad> {
    if procs < 2 {
        return Err(Bad(format!(
            "the world has {procs} rank: allowed 2 or more (mpirun -n P)"
        )));
    }
    if let Some(&s) = a.sizes.iter().find(|&&s| s == 0 || s > 1 << 20) {
        return Err(Bad(format!("--sizes: {s} bytes: allowed 1..=1048576")));
    }
    for (name, v, min) in [
        ("iterations", a.iterations, 1),
        ("warmup", a.warmup, 0),
        ("ping-pongs", a.ping_pongs, 1),
    ] {
        if v < min || v > 1_000_000 {
            return Err(Bad(format!("--{name}: {v}: allowed {min}..=1000000")));
        }
    }
    if let Some(&f) = a.faults.iter().find(|&&f| f < 2 || f >= procs) {
        return Err(Bad(format!(
            "--faults: rank {f} is not in 2..{procs} (ranks 0 and 1 run the ping-pong)"
        )));
    }
    Ok(())
}

fn first_delivery<V>(s: &ServedSummary<V>) -> Option<Time> {
    s.delivered.first().map(|&(t, _)| t)
}

fn first_completion<V>(s: &ServedSummary<V>) -> Option<Time> {
    s.completed.first().map(|&(t, _)| t)
}

/// Every rank's verdict on input every rank checked: the plan if every rank accepted it, or the
/// exit code every rank leaves with (the highest), after rank 0 printed its line (or the help
/// `--help` asked for), or each refusing rank its own when rank 0 accepted (a rank may be
/// short of memory where rank 0 is not).
fn agree<T>(
    world: &mpi::topology::SimpleCommunicator,
    mine: Result<T, Failure>,
) -> Result<T, ExitCode> {
    use mpi::collective::{CommunicatorCollectives, Root, SystemOperation};
    let rank = world.rank();
    // A failure of exit code 0 is the help: it stops the command as a refusal does.
    let stop = u8::from(mine.is_err());
    let code = mine.as_ref().err().map_or(0u8, |f| f.code);
    let (mut stopped, mut worst) = (0u8, 0u8);
    world.all_reduce_into(&stop, &mut stopped, SystemOperation::max());
    world.all_reduce_into(&code, &mut worst, SystemOperation::max());
    let mut rank0_stopped = stop;
    world.process_at_rank(0).broadcast_into(&mut rank0_stopped);
    match mine {
        Ok(plan) if stopped == 0 => Ok(plan),
        Ok(_) => Err(ExitCode::from(worst)),
        Err(failure) => {
            if rank == 0 {
                failure.print();
            } else if rank0_stopped == 0 {
                eprintln!("{} (rank {rank})", failure.line);
            }
            Err(ExitCode::from(worst))
        }
    }
}

/// Whether a message carries the payload: everything but acknowledgments.
fn not_ack<M: Message>(m: &M) -> bool {
    m.phase() != Phase::Acknowledgment
}

/// `gossip --protocol`: one of the gossip protocols of CG §III or a baseline of §IV.B.
enum GossipProtocolArg {
    Gos,
    Ocg(Time),
    Ccg,
    Fcg(u32),
    Big,
    Bfb,
}

impl GossipProtocolArg {
    fn parse(text: &str, correction_time: Option<Time>) -> Result<Self, Bad> {
        let protocol = match text {
            "gos" => Self::Gos,
            "ccg" => Self::Ccg,
            "big" => Self::Big,
            "bfb" => Self::Bfb,
            "ocg" => {
                let c = correction_time.ok_or_else(|| {
                    Bad(
                        "--correction-time: OCG needs its correction time C: allowed 1..=1000000"
                            .into(),
                    )
                })?;
                if c == 0 || c > 1_000_000 {
                    return Err(Bad(format!("--correction-time: {c}: allowed 1..=1000000")));
                }
                Self::Ocg(c)
            }
            _ => match text.strip_prefix("fcg:").map(str::parse::<u32>) {
                Some(Ok(f)) if f <= 1_000 => Self::Fcg(f),
                _ => {
                    return Err(Bad(format!(
                        "--protocol: {text:?}: allowed gos, ocg, ccg, fcg:F with F in 0..=1000, big or bfb"
                    )))
                }
            },
        };
        if correction_time.is_some() && !matches!(protocol, Self::Ocg(_)) {
            return Err(Bad(
                "--correction-time: only OCG has a correction time (--protocol ocg)".into(),
            ));
        }
        Ok(protocol)
    }
}

/// `ftcoll-mpi sweep`: every rank prepares the plan and refuses bad input before any work.
fn sweep(world: &mpi::topology::SimpleCommunicator, flags: Vec<std::ffi::OsString>) -> ExitCode {
    let rank = world.rank();
    let plan = match agree(world, ftcoll_lab::cli::sweep_plan(flags)) {
        Ok(plan) => plan,
        Err(code) => return code,
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let result = ftcoll_mpi::sweep::distributed_sweep(world, &plan, &mut out);
    let flushed = std::io::Write::flush(&mut out);
    match (result, flushed) {
        (Ok(()), Ok(())) => ExitCode::SUCCESS,
        (Err(failure), _) => {
            if rank == 0 {
                eprintln!("{failure}");
            }
            ExitCode::from(failure.code)
        }
        (Ok(()), Err(e)) => {
            eprintln!("error: writing output: {e}");
            ExitCode::from(1)
        }
    }
}

/// `ftcoll-mpi reproduce`: every rank runs the paper's code on a [`RankExecutor`]; rank 0
/// creates the output directory first and writes the files at the end.
fn reproduce(
    world: &mpi::topology::SimpleCommunicator,
    flags: Vec<std::ffi::OsString>,
) -> ExitCode {
    let rank = world.rank();
    let plan = match agree(world, ftcoll_lab::cli::reproduce_plan(flags)) {
        Ok(plan) => plan,
        Err(code) => return code,
    };
    let created = if rank == 0 {
        plan.create_output()
    } else {
        Ok(())
    };
    if let Err(code) = agree(world, created) {
        return code;
    }
    let started = Instant::now();
    let mut exec = RankExecutor::new(world);
    let result = plan.run(&mut exec, &|| started.elapsed().as_secs_f64());
    if rank != 0 {
        // Every rank has rank 0's result: the batches' errors reach all of them.
        return result.map_or_else(|f| ExitCode::from(f.code), |_| ExitCode::SUCCESS);
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let workers = format!(
        "{} MPI ranks (one chunk of runs at a time each)",
        world.size()
    );
    let written = result.and_then(|output| plan.write(output, started, &workers, &mut out));
    let flushed = std::io::Write::flush(&mut out);
    match (written, flushed) {
        (Ok(()), Ok(())) => ExitCode::SUCCESS,
        (Err(failure), _) => failure.print(),
        (Ok(()), Err(e)) => {
            eprintln!("error: writing output: {e}");
            ExitCode::from(1)
        }
    }
}

fn main() -> ExitCode {
    // Only the main thread calls MPI (a sweep's rank 0 computes on a second thread).
    let Some((universe, _)) = mpi::initialize_with_threading(mpi::Threading::Funneled) else {
        eprintln!("error: MPI is already initialized");
        return ExitCode::from(2);
    };
    let world = universe.world();
    let (rank, procs) = (world.rank(), world.size() as u32);
    let refuse = |message: String| {
        if rank == 0 {
            eprintln!("error: {message}");
        }
        ExitCode::from(2)
    };
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            if rank == 0 {
                let _ = e.print();
            }
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let text = e.to_string();
            return refuse(
                text.lines()
                    .next()
                    .unwrap_or("bad arguments")
                    .trim_start_matches("error: ")
                    .to_string(),
            );
        }
    };
    match cli.command {
        Command::Sweep { flags } => return sweep(&world, flags),
        Command::Reproduce { flags } => return reproduce(&world, flags),
        Command::Bench(a) => {
            if let Err(Bad(m)) = check_bench(&a, procs) {
                return refuse(m);
            }
            bench(&world, &a);
        }
        Command::Bcast(a) => {
            let setup = || -> Result<(CorrectedTreeConfig, Crashes), Bad> {
                check_common(&a.common, procs)?;
                let kind: TreeKind = a.tree.parse().map_err(|e| Bad(format!("--tree: {e}")))?;
                let order: Order = a.order.parse().map_err(|e| Bad(format!("--order: {e}")))?;
                let correction: CorrectionSpec = a
                    .correction
                    .parse()
                    .map_err(|e| Bad(format!("--correction: {e}")))?;
                let start = match a.start.as_str() {
                    "sync" => StartMode::Synchronized,
                    "overlap" => StartMode::Overlapped,
                    s => return Err(Bad(format!("--start: {s:?}: allowed sync or overlap"))),
                };
                let tree = Tree::new(kind, order, procs, LogP::default())
                    .map_err(|e| Bad(format!("--tree: {e}")))?;
                let crashes = parse_crashes(&a.common, procs)?;
                Ok((CorrectedTreeConfig::new(tree, correction, start), crashes))
            };
            let (config, crashes) = match setup() {
                Ok(s) => s,
                Err(Bad(m)) => return refuse(m),
            };
            let protocol = format!("{} {} {} {}", a.tree, a.order, a.correction, a.start);
            run::<CorrectedTreeNode>(
                &world,
                &protocol,
                &config,
                &a.common,
                &crashes,
                |m| m.phase() != Phase::Acknowledgment,
                first_delivery,
            );
        }
        Command::Gossip(a) => {
            let setup = || -> Result<(GossipProtocolArg, GossipConfig, Crashes), Bad> {
                check_common(&a.common, procs)?;
                let protocol = GossipProtocolArg::parse(&a.protocol, a.correction_time)?;
                let baseline = matches!(protocol, GossipProtocolArg::Big | GossipProtocolArg::Bfb);
                if baseline && (a.gossip_time.is_some() || a.seed.is_some()) {
                    let flag = if a.gossip_time.is_some() {
                        "--gossip-time"
                    } else {
                        "--seed"
                    };
                    return Err(Bad(format!(
                        "{flag}: BIG and BFB have no gossip phase: allowed with gos, ocg, ccg and fcg:F"
                    )));
                }
                let t = a.gossip_time.unwrap_or(6);
                if t == 0 || t > 1_000_000 {
                    return Err(Bad(format!("--gossip-time: {t}: allowed 1..=1000000")));
                }
                let config = GossipConfig::new(procs, LogP::default(), t, a.seed.unwrap_or(1))
                    .map_err(|e| Bad(e.to_string()))?;
                Ok((protocol, config, parse_crashes(&a.common, procs)?))
            };
            let (protocol, config, crashes) = match setup() {
                Ok(s) => s,
                Err(Bad(m)) => return refuse(m),
            };
            let name = match protocol {
                GossipProtocolArg::Big | GossipProtocolArg::Bfb => a.protocol.clone(),
                _ => format!(
                    "{} T={} seed={}",
                    a.protocol, config.gossip_time, config.seed
                ),
            };
            match protocol {
                GossipProtocolArg::Gos => run::<Gos>(
                    &world,
                    &name,
                    &config,
                    &a.common,
                    &crashes,
                    not_ack,
                    first_delivery,
                ),
                GossipProtocolArg::Ocg(correction_time) => {
                    let config = OcgConfig {
                        gossip: config,
                        correction_time,
                    };
                    run::<Ocg>(
                        &world,
                        &name,
                        &config,
                        &a.common,
                        &crashes,
                        not_ack,
                        first_delivery,
                    )
                }
                GossipProtocolArg::Ccg => run::<Ccg>(
                    &world,
                    &name,
                    &config,
                    &a.common,
                    &crashes,
                    not_ack,
                    first_delivery,
                ),
                GossipProtocolArg::Fcg(f) => {
                    let config = FcgConfig::new(config, f);
                    run::<Fcg>(
                        &world,
                        &name,
                        &config,
                        &a.common,
                        &crashes,
                        not_ack,
                        first_delivery,
                    )
                }
                GossipProtocolArg::Big => {
                    let config = BigConfig::new(procs).map_err(|e| e.to_string());
                    match config {
                        Ok(c) => run::<BigNode>(
                            &world,
                            &name,
                            &c,
                            &a.common,
                            &crashes,
                            not_ack,
                            first_delivery,
                        ),
                        Err(m) => return refuse(m),
                    }
                }
                GossipProtocolArg::Bfb => {
                    let config = BfbConfig::new(procs, LogP::default()).map_err(|e| e.to_string());
                    match config {
                        Ok(c) => run::<BfbNode>(
                            &world,
                            &name,
                            &c,
                            &a.common,
                            &crashes,
                            not_ack,
                            first_delivery,
                        ),
                        Err(m) => return refuse(m),
                    }
                }
            }
        }
        Command::Ftco(a) => {
            let setup = || -> Result<(FtcoConfig<Sum>, Crashes), Bad> {
                check_common(&a.common, procs)?;
                let kind: FtcoKind = a
                    .topology
                    .parse()
                    .map_err(|e| Bad(format!("--topology: {e}")))?;
                let topology = FtcoTopology::new(kind, 1, procs)
                    .map_err(|e| Bad(format!("--topology: {e}")))?;
                let collective = match a.collective.as_str() {
                    "bcast" => Collective::Bcast,
                    "reduce" => Collective::Reduce,
                    "allreduce" => Collective::Allreduce,
                    other => {
                        return Err(Bad(format!(
                            "--collective: {other:?}: allowed bcast, reduce or allreduce"
                        )))
                    }
                };
                let config = FtcoConfig::new(topology, collective, Sum, |r| u64::from(r) + 1, 2)
                    .map_err(|e| Bad(format!("--topology: {e}")))?;
                Ok((config, parse_crashes(&a.common, procs)?))
            };
            let (config, crashes) = match setup() {
                Ok(s) => s,
                Err(Bad(m)) => return refuse(m),
            };
            let protocol = format!("ftco {} {}", a.collective, a.topology);
            // A Bcast delivers the root's value; Reduce and Allreduce complete with the result.
            let finished = if config.collective == Collective::Bcast {
                first_delivery
            } else {
                first_completion
            };
            run::<FtcoNode<Sum>>(
                &world,
                &protocol,
                &config,
                &a.common,
                &crashes,
                |m| m.phase() == Phase::Dissemination,
                finished,
            );
        }
    }
    ExitCode::SUCCESS
}
