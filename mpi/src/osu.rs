//! `ftcoll-mpi bench`: OSU-style latency of the MPI library's own `MPI_Bcast` and
//! `MPI_Allreduce` against ftcoll's Corrected Tree broadcasts and FTCO's Allreduce, per message
//! size, on the ranks of the world (those of `--faults` left out: the MPI collectives then run on
//! the survivors' communicator, as a runtime that shrank it would), each point beside the
//! simulator's LogP prediction.
//!
//! Method, per protocol and size: `--warmup` operations, then `--iterations` timed ones; an
//! operation starts at a barrier of the live ranks, and a rank's time is from its barrier exit
//! to its delivery or completion (MPI: to the collective's return). The reported latency is the
//! largest over the ranks of a rank's mean. The prediction: a ping-pong between ranks 0 and 1
//! gives the one-way time `t` of each size; with the papers' `L = 2o` that is `2o + L = 4o`, so
//! one LogP step is `t / 4` and the prediction is the simulator's fault-free latency in steps
//! (`L = 2, o = 1`) times `t / 4`.

use std::time::{Duration, Instant};

use ftcoll::automaton::{Automaton, Message, Phase, Sum};
use ftcoll::protocols::corrected_tree::{
    CorrectedTreeConfig, CorrectedTreeNode, CorrectionSpec, StartMode,
};
use ftcoll::protocols::ftco::{FtcoConfig, FtcoNode};
use ftcoll::topology::ftco::{Collective, FtcoKind, FtcoTopology};
use ftcoll::topology::{LogP, Order, Tree, TreeKind};
use ftcoll::{Rank, Time};
use ftcoll_mpi::{run_operation, Operation};
use ftcoll_sim::transport::{CrashPlan, Serving};
use ftcoll_sim::{run, PortModel, Scenario};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// The broadcasts compared with `MPI_Bcast`: CT §4.4's trees and corrections.
pub const BROADCASTS: [(&str, &str); 6] = [
    ("binomial", "opportunistic:1"),
    ("binomial", "opportunistic:2"),
    ("binomial", "checked"),
    ("lame:2", "opportunistic:1"),
    ("lame:2", "opportunistic:2"),
    ("lame:2", "checked"),
];

/// One measured point, printed by rank 0 as a JSON line.
#[derive(Serialize)]
pub struct Point {
    /// `MPI_Bcast`, `MPI_Allreduce`, or the ftcoll protocol.
    pub protocol: String,
    /// World size.
    pub procs: u32,
    /// Ranks left out.
    pub failed: Vec<Rank>,
    /// Bytes of data.
    pub size: usize,
    /// Timed operations.
    pub iterations: u32,
    /// Largest over the ranks of a rank's mean time to deliver or complete, in µs.
    pub latency_us: f64,
    /// The simulator's fault-free latency in LogP steps times the fitted step, in µs (`None`
    /// for the MPI library's collectives).
    pub predicted_us: Option<f64>,
    /// The fitted LogP step `o` for this size, in µs (a quarter of the ping-pong's one-way
    /// time).
    pub step_us: f64,
}

/// The one-way time of `size` bytes between ranks 0 and 1, in µs (half the mean round trip of
/// `iterations` ping-pongs); every rank calls it, ranks other than 0 and 1 only pass barriers.
pub fn ping_pong(world: &SimpleCommunicator, size: usize, iterations: u32) -> f64 {
    let mut buf = vec![0u8; size];
    world.barrier();
    let started = Instant::now();
    for _ in 0..iterations {
        match world.rank() {
            0 => {
                world.process_at_rank(1).send(&buf[..]);
                world.process_at_rank(1).receive_into(&mut buf[..]);
            }
            1 => {
                world.process_at_rank(0).receive_into(&mut buf[..]);
                world.process_at_rank(0).send(&buf[..]);
            }
            _ => {}
        }
    }
    let one_way = started.elapsed().as_secs_f64() * 1e6 / f64::from(iterations) / 2.0;
    // Rank 0's figure for everyone.
    let mut t = one_way;
    world.process_at_rank(0).broadcast_into(&mut t);
    t
}

/// The largest over `live`'s ranks of `mine`, at every rank.
fn max_over(live: &SimpleCommunicator, mine: f64) -> f64 {
    let mut max = 0.0f64;
    live.all_reduce_into(&mine, &mut max, SystemOperation::max());
    max
}

/// `MPI_Bcast` of `size` bytes from rank 0 on `live`.
pub fn mpi_bcast(live: &SimpleCommunicator, size: usize, warmup: u32, iterations: u32) -> f64 {
    let mut buf = vec![0u8; size];
    let mut total = 0.0;
    for i in 0..warmup + iterations {
        live.barrier();
        let t0 = Instant::now();
        live.process_at_rank(0).broadcast_into(&mut buf[..]);
        if i >= warmup {
            total += t0.elapsed().as_secs_f64() * 1e6;
        }
    }
    max_over(live, total / f64::from(iterations))
}

/// `MPI_Allreduce` (sum) of `size` bytes as 64-bit integers on `live`.
pub fn mpi_allreduce(live: &SimpleCommunicator, size: usize, warmup: u32, iterations: u32) -> f64 {
    let send = vec![1u64; size.div_ceil(8)];
    let mut recv = vec![0u64; send.len()];
    let mut total = 0.0;
    for i in 0..warmup + iterations {
        live.barrier();
        let t0 = Instant::now();
        live.all_reduce_into(&send[..], &mut recv[..], SystemOperation::sum());
        if i >= warmup {
            total += t0.elapsed().as_secs_f64() * 1e6;
        }
    }
    max_over(live, total / f64::from(iterations))
}

/// Times of `A` on the live ranks: every operation through [`run_operation`] with one time
/// unit per µs; the rank's time is its first delivery or completion.
#[allow(clippy::too_many_arguments)]
pub fn ftcoll_latency<A>(
    live: &SimpleCommunicator,
    world: &SimpleCommunicator,
    config: &A::Config,
    first_number: u32,
    size: usize,
    warmup: u32,
    iterations: u32,
    carries_payload: fn(&A::Msg) -> bool,
) -> f64
where
    A: Automaton,
    A::Msg: Serialize + DeserializeOwned,
{
    let rank = world.rank() as Rank;
    let mut total = 0.0;
    let mut counted = 0u32;
    for i in 0..warmup + iterations {
        let served = run_operation::<A>(
            live,
            world,
            rank,
            config,
            Operation {
                number: first_number.wrapping_add(i),
                step: Duration::from_micros(1),
                idle: Duration::ZERO,
                payload: size,
                carries_payload,
            },
            Serving {
                give_up: 2_000_000,
                quiet: Some(20_000),
                crash: CrashPlan::Never,
                send_gap: 1,
            },
        );
        let finished = served
            .delivered
            .first()
            .or(served.completed.first())
            .map(|&(t, _)| t as f64);
        if i >= warmup {
            if let Some(t) = finished {
                total += t;
                counted += 1;
            }
        }
    }
    max_over(live, total / f64::from(counted.max(1)))
}

/// A Corrected Tree broadcast configuration on `procs` ranks (overlapped start: the benchmark's
/// clock is too coarse for a synchronized one's deadline).
pub fn ct_config(tree: &str, correction: &str, procs: u32) -> CorrectedTreeConfig {
    let tree = Tree::new(
        tree.parse::<TreeKind>().expect("a benchmark tree"),
        Order::Interleaved,
        procs,
        LogP::default(),
    )
    .expect("a valid tree");
    let correction: CorrectionSpec = correction.parse().expect("a benchmark correction");
    CorrectedTreeConfig::new(tree, correction, StartMode::Overlapped)
}

/// FTCO's Allreduce on a binary heap of `procs` ranks.
pub fn ftco_config(procs: u32) -> FtcoConfig<Sum> {
    let topology = FtcoTopology::new(FtcoKind::KAry(2), 1, procs).expect("a valid topology");
    FtcoConfig::new(
        topology,
        Collective::Allreduce,
        Sum,
        |r| u64::from(r) + 1,
        2,
    )
    .expect("a valid configuration")
}

/// The simulator's fault-free (but for `failed`) latency of a broadcast, in LogP steps: the
/// last delivery.
pub fn predicted_ct(config: &CorrectedTreeConfig, procs: u32, failed: &[Rank]) -> Time {
    let scenario = Scenario {
        crashes: failed.iter().map(|&r| (r, 0)).collect(),
        ..Default::default()
    };
    let report = run::<CorrectedTreeNode>(config, procs, &scenario, 1 << 24).expect("a run");
    (0..procs)
        .filter_map(|r| report.delivered_at(r))
        .max()
        .unwrap_or(0)
}

/// The simulator's latency of FTCO's Allreduce in single-port steps: the last completion.
pub fn predicted_ftco(config: &FtcoConfig<Sum>, procs: u32, failed: &[Rank]) -> Time {
    let scenario = Scenario {
        model: PortModel::SinglePort,
        crashes: failed.iter().map(|&r| (r, 0)).collect(),
        ..Default::default()
    };
    let report = run::<FtcoNode<Sum>>(config, procs, &scenario, 1 << 24).expect("a run");
    report.completions.iter().map(|c| c.1).max().unwrap_or(0)
}

/// Data messages of a broadcast: tree and correction messages carry the payload.
pub fn ct_carries(m: &<CorrectedTreeNode as Automaton>::Msg) -> bool {
    m.phase() != Phase::Acknowledgment
}

/// FTCO's DATA messages carry the operand; KEEPALIVE and ACK do not.
pub fn ftco_carries(m: &<FtcoNode<Sum> as Automaton>::Msg) -> bool {
    m.phase() == Phase::Dissemination
}
