//! `ftcoll sweep --collective …`: grids of FTCO runs, summarized per point like Corrected Tree
//! points (same statistics, identity line, shards, `merge` and resuming; see [`super::output`]).
//!
//! Axes, outermost first: procs, collective, topology, roots, service, L, faults (inactive:
//! count, rate or fraction), crashes (random run-time faults), arrival, imbalance. Run `i` of a
//! point is run `i` of `simulate --collective … --seed S` with the same parameters (the random
//! crashes, which `simulate` does not draw, come last from the run's stream).

use crate::experiment::Histogram;
use ftcoll::automaton::Sum;
use ftcoll::protocols::ftco::{EtaRule, RootFailure, TimeoutRule};
use ftcoll_sim::scenario::ScenarioSpec;

use crate::cli::flags::ArrivalArg;
use ftcoll::topology::ftco::{Collective, FtcoTopology};
use ftcoll::topology::LogP;
use ftcoll::Time;
use ftcoll_sim::{IgnoredMessages, PortModel};
use rayon::prelude::*;

use super::Faults;
use crate::cli::flags::ftco::{
    collective_name, ImbalanceArg, RandomCrashes, RootsArg, ServiceArg, TopologyArg,
};
use crate::cli::ftco_cmd::{resolve_topology, FtcoPlan, Outcome};
use crate::cli::UsageError;

/// The values of every FTCO axis, in output order (the outermost first); none is empty.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct FtcoGrid {
    pub procs: Vec<u32>,
    pub collective: Vec<Collective>,
    pub topology: Vec<TopologyArg>,
    pub roots: Vec<RootsArg>,
    pub service: Vec<ServiceArg>,
    pub latency: Vec<u64>,
    pub faults: Vec<Faults>,
    pub crashes: Vec<RandomCrashes>,
    pub arrival: Vec<ArrivalArg>,
    pub imbalance: Vec<ImbalanceArg>,
}

/// One point of an FTCO grid.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct FtcoPoint {
    pub procs: u32,
    pub collective: Collective,
    pub topology: TopologyArg,
    pub roots: RootsArg,
    pub service: ServiceArg,
    pub latency: u64,
    pub faults: Faults,
    pub crashes: RandomCrashes,
    pub arrival: ArrivalArg,
    pub imbalance: ImbalanceArg,
}

/// The arrival as `--arrival` spells it (`none`, `uniform:S`, …; a file as `@PATH`, the path as
/// given: a sweep identifies a file arrival by its path, not its content).
pub(super) fn arrival_name(a: &ArrivalArg) -> String {
    a.to_string()
}

impl FtcoGrid {
    /// The axes' lengths, outermost first.
    fn lens(&self) -> [usize; 10] {
        [
            self.procs.len(),
            self.collective.len(),
            self.topology.len(),
            self.roots.len(),
            self.service.len(),
            self.latency.len(),
            self.faults.len(),
            self.crashes.len(),
            self.arrival.len(),
            self.imbalance.len(),
        ]
    }

    /// The number of points (`None` past `u64`).
    pub(super) fn len(&self) -> Option<u64> {
        super::axes_len(&self.lens())
    }

    /// Point `index` (below [`FtcoGrid::len`]): a mixed-radix number whose last digit is the
    /// imbalance.
    pub(super) fn point(&self, index: u64) -> FtcoPoint {
        let [procs, collective, topology, roots, service, latency, faults, crashes, arrival, imbalance] =
            super::axes_digits(index, self.lens());
        FtcoPoint {
            procs: self.procs[procs],
            collective: self.collective[collective],
            topology: self.topology[topology],
            roots: self.roots[roots],
            service: self.service[service],
            latency: self.latency[latency],
            faults: self.faults[faults],
            crashes: self.crashes[crashes],
            arrival: self.arrival[arrival].clone(),
            imbalance: self.imbalance[imbalance],
        }
    }
}

impl FtcoPoint {
    /// The cells `procs` to `imbalance` of a point's row (what the grid decides).
    pub(super) fn cells(&self) -> Vec<String> {
        vec![
            self.procs.to_string(),
            collective_name(self.collective).into(),
            self.topology.to_string(),
            self.roots.to_string(),
            self.service.to_string(),
            self.latency.to_string(),
            self.faults.to_string(),
            self.crashes.to_string(),
            arrival_name(&self.arrival),
            self.imbalance.to_string(),
        ]
    }

    /// The point's tree, the validated plan of its runs, and what the flags name in errors.
    pub(super) fn prepare(&self, seed: u64) -> Result<FtcoPrepared, UsageError> {
        let topology = resolve_topology(
            self.procs,
            self.collective,
            self.topology,
            self.roots,
            self.latency,
        )?;
        let (p, r) = (topology.procs(), topology.roots());
        let faults = self.faults.spec(p);
        let arrival = self
            .arrival
            .resolve(p)
            .map_err(|e| UsageError(format!("--arrival: {e}")))?;
        let plan = FtcoPlan {
            topology,
            collective: self.collective,
            latency: self.latency,
            timeout: TimeoutRule::for_latency(self.latency),
            eta: EtaRule::Exact,
            service: self.service,
            imbalance: self.imbalance,
            root_failure: RootFailure::Immune,
            spec: ScenarioSpec {
                procs: p,
                logp: LogP::new(self.latency, 1).map_err(|e| UsageError(format!("-L: {e}")))?,
                model: PortModel::SinglePort,
                immune: r,
                faults,
                crash_at: Vec::new(),
                arrivals: arrival,
                ignored: IgnoredMessages::Charged,
            },
            random_crashes: (self.crashes.count > 0).then_some(self.crashes),
        };
        plan.check(seed)?;
        let fault_free = topology
            .fault_free_latency(self.collective, self.latency)
            .map_err(|e| UsageError(format!("-L: {e}")))?;
        Ok(FtcoPrepared {
            topology,
            plan,
            fault_free,
        })
    }
}

/// A point ready to run.
#[derive(Debug)]
pub(super) struct FtcoPrepared {
    topology: FtcoTopology,
    plan: FtcoPlan,
    fault_free: Time,
}

impl FtcoPrepared {
    /// The cells the point's parameters determine but do not spell: `tree` (the topology with
    /// `knomial:best` resolved), `root_count` (`R`) and `fault_free_latency` (steps).
    pub(super) fn derived(&self) -> Vec<String> {
        vec![
            self.topology.kind().to_string(),
            self.topology.roots().to_string(),
            self.fault_free.to_string(),
        ]
    }

    /// `P`.
    pub(super) fn procs(&self) -> u32 {
        self.topology.procs()
    }
}

/// Work: messages sent per process, all kinds and by kind (the statistics of `messages`,
/// `data`, `keepalive` and `ack` divided by `P`, with 4 decimals).
pub(super) const PER_NODE: [(&str, usize); 4] = [
    ("work", 8),
    ("work_data", 9),
    ("work_keepalive", 10),
    ("work_ack", 11),
];

/// Every metric column group of an FTCO row, in order: the integer metrics of [`FtcoStats`]
/// (`faults`: inactive ranks drawn; the rest [`crate::ftco_metrics::FtcoMetrics`] and
/// Table 2's `latency_from_last_start`), then the per-node work ([`PER_NODE`]).
pub(super) const ALL_METRICS: [&str; 17] = [
    "faults",
    "latency",
    "latency_from_last_start",
    "quiescence",
    "completions",
    "incomplete",
    "spread",
    "longest_queue",
    "messages",
    "data",
    "keepalive",
    "ack",
    "lost",
    "work",
    "work_data",
    "work_keepalive",
    "work_ack",
];

/// Exact distributions of one FTCO point's runs.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct FtcoStats {
    metrics: [Histogram; 13],
}

impl FtcoStats {
    fn add(&mut self, o: &Outcome) {
        let m = &o.metrics;
        let values = [
            o.failed.len() as u64,
            m.latency,
            o.latency_from_last_start,
            m.quiescence,
            m.completions,
            m.incomplete,
            m.spread,
            m.longest_queue,
            m.messages,
            m.data,
            m.keepalive,
            m.ack,
            m.lost,
        ];
        for (h, v) in self.metrics.iter_mut().zip(values) {
            h.add(v);
        }
    }

    /// The number of runs added.
    pub(super) fn runs(&self) -> u64 {
        self.metrics[0].count()
    }

    pub(super) fn merge(&mut self, other: &Self) {
        for (h, o) in self.metrics.iter_mut().zip(&other.metrics) {
            h.merge(o);
        }
    }

    /// The statistics of every column group of [`ALL_METRICS`], formatted: means and
    /// deviations with 4 decimals, percentiles and maxima as integers; the per-node work
    /// columns all with 4 decimals.
    pub(super) fn summary(&self, procs: u32) -> Vec<[String; 8]> {
        let integer = |h: &Histogram| {
            [
                format!("{:.4}", h.mean()),
                format!("{:.4}", h.std()),
                h.percentile(0.05).to_string(),
                h.percentile(0.5).to_string(),
                h.percentile(0.95).to_string(),
                h.percentile(0.99).to_string(),
                h.percentile(0.999).to_string(),
                h.max().to_string(),
            ]
        };
        let p = f64::from(procs.max(1));
        let per_node = |h: &Histogram| {
            let d = |v: u64| format!("{:.4}", v as f64 / p);
            [
                format!("{:.4}", h.mean() / p),
                format!("{:.4}", h.std() / p),
                d(h.percentile(0.05)),
                d(h.percentile(0.5)),
                d(h.percentile(0.95)),
                d(h.percentile(0.99)),
                d(h.percentile(0.999)),
                d(h.max()),
            ]
        };
        let mut out: Vec<[String; 8]> = self.metrics.iter().map(integer).collect();
        out.extend(PER_NODE.iter().map(|&(_, i)| per_node(&self.metrics[i])));
        out
    }
}

/// Runs `runs` (run numbers of the seed's streams) of a prepared point in parallel (chunks of 64 runs, merged in any order:
/// the histograms make the summary independent of it); `progress` is called with finished runs.
pub(super) fn run_point(
    prepared: &FtcoPrepared,
    seed: u64,
    runs: std::ops::Range<u64>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<FtcoStats, String> {
    const CHUNK: u64 = 64;
    let chunks = (runs.end.saturating_sub(runs.start)).div_ceil(CHUNK);
    let plan = &prepared.plan;
    (0..chunks)
        .into_par_iter()
        .map(|c| {
            let mut stats = FtcoStats::default();
            let a = runs.start + c * CHUNK;
            let b = (a + CHUNK).min(runs.end);
            let mut config = plan.config(Sum).map_err(|e| e.0)?;
            for run in a..b {
                let (outcome, report) = plan
                    .run(&mut config, seed, run, false, |_| {})
                    .map_err(|e| e.0)?;
                drop(report);
                stats.add(&outcome);
            }
            progress(b - a);
            Ok(stats)
        })
        .try_reduce(FtcoStats::default, |mut x, y| {
            x.merge(&y);
            Ok(x)
        })
}
