//! Shared helpers for the `ftco_*` integration tests: configurations, scenarios and runs of the
//! FTCO automaton on the single-port step model. Expected values come from the topology module
//! (validated by `tests/core/ftco_topology.rs`) or from the paper, never from the automaton.
#![allow(dead_code)]

use ftcoll::automaton::{Reduction, Sum};
use ftcoll::protocols::ftco::{FtcoConfig, FtcoNode};
use ftcoll::topology::ftco::{Collective, FtcoKind, FtcoTopology};
use ftcoll::topology::LogP;
use ftcoll::{Rank, Time};
use ftcoll_sim::{run, PortModel, Report, Scenario};

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
pub fn topology(kind: FtcoKind, roots: u64, procs: u32) -> FtcoTopology {
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

/// A `Sum` configuration (operands `r + 1`) with the default rules on a fresh topology.
pub fn sum_config(
    kind: FtcoKind,
    roots: u64,
    procs: u32,
    collective: Collective,
    latency: u64,
) -> FtcoConfig<Sum> {
    config(
        topology(kind, roots, procs),
        collective,
        Sum,
        sum_operand,
        latency,
    )
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

/// The latency measured: Bcast, the last delivery; Reduce and Allreduce, the last completion
/// (a Reduce without root replacement completes at rank 0 only) (a leaf completes when it holds the result; an inner node completes after
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
    procs: u32,
    collective: Collective,
    latency: u64,
) -> (FtcoConfig<Sum>, Report<u64>) {
    let cfg = sum_config(kind, roots, procs, collective, latency);
    let report = run_ftco(&cfg, &scenario(latency, &[]));
    (cfg, report)
}

pub fn contribution(rank: Rank) -> Vec<(Rank, u32)> {
    vec![(rank, 1)]
}

pub fn min_operand(rank: Rank) -> u64 {
    u64::from(rank.wrapping_mul(2_654_435_761) % 1000)
}

pub fn crash_time(crashes: &[(Rank, Time)], rank: Rank) -> Option<Time> {
    crashes.iter().filter(|c| c.0 == rank).map(|c| c.1).min()
}

/// A generous termination bound: the fault-free latency plus, per fault and per level, one
/// ETA and a few timeouts (a disruption climbs at most the tree height).
pub fn bound<R: Reduction>(cfg: &FtcoConfig<R>, faults: usize) -> Time {
    let t = &cfg.topology;
    let ff = predicted(t, cfg.collective, cfg.latency);
    let depth = u64::from(t.depth()) + 2;
    let max_degree = (0..t.procs()).map(|r| t.degree(r)).max().unwrap_or(0);
    let timeout = cfg
        .timeout
        .timeout(max_degree, max_degree, (depth * 2) as u32);
    ff + (faults as u64 + 1) * depth * (4 * timeout + ff)
}

/// Common checks: termination, and every never-crashing process completed (or delivered) once.
pub fn check_live<V: Clone + std::fmt::Debug + PartialEq>(
    report: &Report<V>,
    collective: Collective,
    crashes: &[(Rank, Time)],
    bound: Time,
    what: &str,
) {
    let procs = report.procs;
    match collective {
        Collective::Bcast => {
            for r in 0..procs {
                if crash_time(crashes, r).is_none() {
                    assert_eq!(report.deliveries(r), 1, "rank {r} delivers once: {what}");
                }
            }
            assert!(report.coloring_latency() <= bound, "termination: {what}");
        }
        Collective::Reduce => {
            assert_eq!(report.completions.len(), 1, "{what}");
            assert_eq!(report.completions[0].0, 0, "{what}");
        }
        Collective::Allreduce => {
            for r in 0..procs {
                let n = report.completions.iter().filter(|c| c.0 == r).count();
                if crash_time(crashes, r).is_none() {
                    assert_eq!(n, 1, "rank {r} completes once: {what}");
                } else {
                    assert!(n <= 1, "{what}");
                }
            }
            let first = &report.completions[0].2;
            assert!(
                report.completions.iter().all(|c| &c.2 == first),
                "consistency: {what}"
            );
        }
    }
    let last = report.completions.iter().map(|c| c.1).max().unwrap_or(0);
    assert!(
        last <= bound,
        "termination by {bound}, last completion {last}: {what}"
    );
}

/// Def. 3.1–3.2 with `Contributions`.
pub fn check_contributions(
    report: &Report<Vec<(Rank, u32)>>,
    collective: Collective,
    crashes: &[(Rank, Time)],
    what: &str,
) {
    if collective == Collective::Bcast {
        return;
    }
    let (_, end, value) = report.completions[0].clone();
    assert!(
        value.iter().all(|&(_, c)| c == 1),
        "no operand twice: {value:?}: {what}"
    );
    for r in 0..report.procs {
        let included = value.iter().any(|&(x, _)| x == r);
        let finish = match collective {
            // Def. 3.1: T is the root's completion.
            Collective::Reduce => Some(end),
            _ => report.completions.iter().find(|c| c.0 == r).map(|c| c.1),
        };
        let must = match crash_time(crashes, r) {
            None => true,
            Some(fail) => finish.is_some_and(|f| f < fail),
        };
        if must {
            assert!(
                included,
                "rank {r} (crash {:?}) missing from {value:?}: {what}",
                crash_time(crashes, r)
            );
        }
    }
}

/// Feeds arbitrary peer input to `P` nodes of `cfg` (unknown senders, ranks `>= P`,
/// duplicates, out of order), calling every handler; the contract says none panics.
pub fn fuzz_handlers<R>(
    cfg: &FtcoConfig<R>,
    inputs: &[(u32, u8, u64, u64)],
    value: fn(u64) -> R::Value,
) where
    R: Reduction + Clone + Eq + core::hash::Hash,
{
    use ftcoll::automaton::{Automaton, Outbox, TimerId};
    use ftcoll::protocols::ftco::FtcoMsg;
    let procs = cfg.topology.procs();
    let mut nodes: Vec<FtcoNode<R>> = (0..procs).map(|r| FtcoNode::new(cfg, r)).collect();
    let mut out = Outbox::new();
    for node in &mut nodes {
        node.on_start(cfg, 0, &mut out);
    }
    let mut now = 0;
    for (i, &(from, kind, v, dt)) in inputs.iter().enumerate() {
        now += dt;
        let msg = match kind {
            0 => FtcoMsg::Partial(value(v)),
            1 => FtcoMsg::Result(value(v)),
            2 => FtcoMsg::Keepalive,
            _ => FtcoMsg::Ack,
        };
        let node = &mut nodes[i % procs as usize];
        let _ = node.select_receive(cfg, now, &[(from, msg.clone())]);
        node.on_message(cfg, now, from, msg, &mut out);
        node.on_timer(cfg, now, TimerId(0), &mut out);
        node.on_send_slot(cfg, now, &mut out);
        out.drain();
    }
}
