//! Shared helpers for the `ftco_*` integration tests: configurations, scenarios and runs of the
//! FTCO automaton on the single-port step model. Expected values come from the topology module
//! (validated by `tests/ftco_topology.rs`) or from the paper, never from the automaton.
#![allow(dead_code)]

use ftcoll::automaton::{Reduction, Sum};
use ftcoll::protocols::ftco::{FtcoConfig, FtcoNode};
use ftcoll::sim::{run, PortModel, Report, Scenario};
use ftcoll::topology::ftco::{Collective, FtcoKind, FtcoTopology};
use ftcoll::topology::LogP;
use ftcoll::{Rank, Time};

/// Every kind the fault-free tests sweep.
pub const KINDS: [FtcoKind; 7] = [
    FtcoKind::KAry(2),
    FtcoKind::KAry(3),
    FtcoKind::KAry(5),
    FtcoKind::KNomial(2),
    FtcoKind::KNomial(3),
    FtcoKind::KNomial(4),
    FtcoKind::KNomial(9),
];

/// Every collective.
pub const COLLECTIVES: [Collective; 3] =
    [Collective::Bcast, Collective::Reduce, Collective::Allreduce];

/// A topology, panicking on invalid parameters (tests pass valid ones).
pub fn topology(kind: FtcoKind, roots: u64, procs: u64) -> FtcoTopology {
    FtcoTopology::new(kind, roots, procs).expect("valid topology")
}

/// Rank `r`'s operand for `Sum`: `r + 1`, so the sum tells how many were counted.
pub fn sum_operand(rank: Rank) -> u64 {
    u64::from(rank) + 1
}

/// A configuration with the default rules.
pub fn config<R: Reduction>(
    topology: FtcoTopology,
    collective: Collective,
    op: R,
    initial: fn(Rank) -> R::Value,
    latency: u64,
) -> FtcoConfig<R> {
    FtcoConfig::new(topology, collective, op, initial, latency).expect("valid configuration")
}

/// A single-port scenario with `o = 1` and these crashes.
pub fn scenario(latency: u64, crashes: &[(Rank, Time)]) -> Scenario {
    Scenario {
        logp: LogP::new(latency, 1).expect("valid LogP"),
        model: PortModel::SinglePort,
        crashes: crashes.to_vec(),
        ..Default::default()
    }
}

/// Runs to quiescence.
pub fn run_ftco<R>(config: &FtcoConfig<R>, scenario: &Scenario) -> Report<R::Value>
where
    R: Reduction + Clone + Eq + core::hash::Hash,
{
    let procs = config.topology.procs();
    run::<FtcoNode<R>>(config, procs, scenario, 200_000_000).expect("the run quiesces")
}

/// `Sum` over ranks `0..P` of `r + 1`.
pub fn full_sum(procs: u32) -> u64 {
    let p = u64::from(procs);
    p * (p + 1) / 2
}

/// The latency the topology module predicts.
pub fn predicted(topology: &FtcoTopology, collective: Collective, latency: u64) -> u64 {
    topology
        .fault_free_latency(collective, latency)
        .expect("valid latency")
}

/// The latency measured: Bcast, the last delivery; Reduce, rank 0's completion; Allreduce, the
/// last completion (a leaf completes when it holds the result; an inner node completes after
/// its last send, before its last child holds the result).
pub fn measured<V>(report: &Report<V>, collective: Collective) -> u64 {
    match collective {
        Collective::Bcast => report.coloring_latency(),
        _ => report
            .completions
            .iter()
            .map(|&(_, t, _)| t)
            .max()
            .expect("a completion"),
    }
}

/// A default `Sum` run of one collective, fault-free.
pub fn sum_run(
    kind: FtcoKind,
    roots: u64,
    procs: u64,
    collective: Collective,
    latency: u64,
) -> (FtcoConfig<Sum>, Report<u64>) {
    let cfg = config(
        topology(kind, roots, procs),
        collective,
        Sum,
        sum_operand,
        latency,
    );
    let report = run_ftco(&cfg, &scenario(latency, &[]));
    (cfg, report)
}
