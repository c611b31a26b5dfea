//! FTCO's evaluation (Margolin & Barak, §5.2) as library code: Table 2 (process imbalance at
//! 64 K nodes), Fig. 7 (fault-free latency), Fig. 8–9 (latency and work penalty per inactive
//! node), Fig. 10 (inactive nodes and run-time faults) and the shape of Table 1 (serial and
//! parallel faults) in steps, with the published numbers beside ours.
//!
//! Two layers:
//!
//! - [`FtcoPoint`] → [`FtcoPrepared`] → [`FtcoPrepared::run`]: one seeded FTCO run on the LogP
//!   driver, drawn exactly as `ftcoll sweep --collective … --seed S` draws its run `i` (inactive
//!   ranks, then arrivals, then the RSD seed, then random run-time crashes, all from
//!   `SplitMix64::stream(S, i)`), so every number here can be re-derived with a `sweep` command.
//!   A run that exceeds its event budget is an outcome ([`FtcoOutcome::budget_exhausted`]), not
//!   an error: a reproduction counts it instead of stopping.
//! - [`reproduce`]: every table and figure, as CSV text, chart data and one markdown report
//!   (module `report`, with one module per table and figure below it). The caller supplies an
//!   [`Executor`] that runs the runs of a point (the CLI runs them in parallel and shows
//!   progress; [`Serial`] runs them one after the other) and writes the files; nothing here
//!   does I/O.
//!
//! The rules the paper leaves open are in `docs/reference/ftco.md`; the choices this
//! reproduction makes on top of them (how the normal arrival spread is scaled, where the faults
//! of Table 1 sit, when run-time faults happen) are written into the report itself.

use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

use super::{Histogram, PointError};
use crate::ftco_metrics::FtcoMetrics;
use ftcoll::automaton::Sum;
use ftcoll::protocols::ftco::{EtaRule, FtcoConfig, FtcoNode, Imbalance, ServiceDistance};
use ftcoll::rng::SplitMix64;
use ftcoll::topology::ftco::{Collective, FtcoTopology};
use ftcoll::topology::LogP;
use ftcoll::{Rank, Time};
use ftcoll_sim::scenario::{ArrivalSpec, FaultSpec, ScenarioError, ScenarioSpec};
use ftcoll_sim::{self as sim, IgnoredMessages, PortModel, Sim};

mod report;

pub use report::{normal_arrival, reproduce, symmetric_normal_arrival, table1_placement};

/// FTCO §5.2.1: `L = 10` steps, `o = 1`.
pub const L: u64 = 10;

/// The published numbers (FTCO §5, Tables 1 and 2).
pub mod published {
    /// Table 2's input spreads (steps).
    pub const TABLE2_SPREADS: [u64; 8] = [0, 256, 512, 1024, 2048, 4096, 8192, 16384];
    /// Table 2, uniform arrivals: `(latency, work, output spread, longest queue)` per spread.
    pub const TABLE2_UNIFORM: [(f64, f64, f64, u64); 8] = [
        (171.0, 3.0, 43.0, 9),
        (151.8, 15.3, 43.4, 70),
        (150.0, 23.0, 43.2, 71),
        (148.8, 35.9, 43.7, 74),
        (147.0, 62.0, 44.0, 71),
        (145.3, 114.4, 44.0, 74),
        (144.0, 219.2, 44.2, 76),
        (143.3, 428.8, 44.8, 74),
    ];
    /// Table 2, normal arrivals, same columns.
    pub const TABLE2_NORMAL: [(f64, f64, f64, u64); 8] = [
        (171.0, 3.0, 43.0, 9),
        (141.1, 14.8, 49.5, 93),
        (140.4, 21.5, 51.6, 83),
        (139.8, 33.7, 52.5, 80),
        (139.0, 58.9, 52.9, 78),
        (137.4, 108.1, 53.5, 75),
        (139.9, 208.8, 53.5, 81),
        (138.1, 408.0, 53.6, 76),
    ];
    /// Table 1's process counts.
    pub const TABLE1_PROCS: [u32; 5] = [64, 128, 256, 384, 512];
    /// Table 1 (seconds, a real cluster with ULFM's 2 s timeout): no faults, 1 fault, 2
    /// parallel, 2 serial, 3 mixed.
    pub const TABLE1: [[f64; 5]; 5] = [
        [0.0005, 2.0095, 2.0094, 4.0194, 4.0194],
        [0.0006, 2.0123, 2.0123, 4.0221, 4.0222],
        [0.0007, 2.0121, 2.0123, 4.0220, 4.0219],
        [0.0017, 2.0114, 2.0323, 4.0404, 4.0217],
        [0.0024, 2.0343, 2.0110, 4.0421, 4.0422],
    ];
}

/// Random run-time faults: `count` ranks (never a root, never one inactive already), each
/// crashing at a step uniform in `from..=to` (`sweep --crashes N@A..B`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RuntimeFaults {
    /// How many ranks crash (0: none).
    pub count: u32,
    /// Earliest crash step.
    pub from: Time,
    /// Latest crash step.
    pub to: Time,
}

/// The result-ETA rule of the fault experiments (Fig. 8–10): a live parent that is still
/// recovering is given one recovery before its children ask, which brings one inactive node's
/// work penalty near the paper's Fig. 9 at the same latency (`docs/results/ftco.md` compares
/// both rules). Fault-free runs send no KEEPALIVE under either rule.
pub const FAULT_ETA: EtaRule = EtaRule::ParentRecovery;

/// One FTCO configuration to run many times (service distance none, operator `Sum` over the
/// operands `rank + 1`, the library's default timeout rule, fault-immune roots).
#[derive(Clone, Debug, PartialEq)]
pub struct FtcoPoint {
    /// The tree.
    pub topology: FtcoTopology,
    /// Bcast, Reduce or Allreduce.
    pub collective: Collective,
    /// `L` in steps.
    pub latency: u64,
    /// Processes failed before the operation (drawn among the non-roots).
    pub inactive: FaultSpec,
    /// Random run-time faults.
    pub runtime: RuntimeFaults,
    /// Arrival times.
    pub arrival: ArrivalSpec,
    /// `true`: the arrivals are App. B's start times (`--imbalance alg5`); `false`: they are the
    /// driver's (`--imbalance off`, a process is unreachable before it arrives).
    pub alg5: bool,
    /// The result's ETA ([`EtaRule::Exact`] unless set).
    pub eta: EtaRule,
    /// Event budget of one run; `None`: [`sim::default_budget`].
    pub max_events: Option<u64>,
}

impl FtcoPoint {
    /// A fault-free Allreduce-style point with nothing random.
    pub fn new(topology: FtcoTopology, collective: Collective) -> Self {
        Self {
            topology,
            collective,
            latency: L,
            inactive: FaultSpec::None,
            runtime: RuntimeFaults::default(),
            arrival: ArrivalSpec::None,
            alg5: true,
            eta: EtaRule::Exact,
            max_events: None,
        }
    }

    /// Checks the point and builds what every run shares.
    pub fn prepare(&self) -> Result<FtcoPrepared, PointError> {
        let err = |e: &dyn core::fmt::Display| PointError(format!("{e}"));
        let mut config =
            FtcoConfig::new(self.topology, self.collective, Sum, operand, self.latency)
                .map_err(|e| err(&e))?;
        config.eta = self.eta;
        let procs = self.topology.procs();
        let spec = ScenarioSpec {
            procs,
            logp: LogP::new(self.latency, 1).map_err(|e| err(&e))?,
            model: PortModel::SinglePort,
            immune: self.topology.roots(),
            faults: self.inactive.clone(),
            crash_at: Vec::new(),
            arrivals: self.arrival.clone(),
            ignored: IgnoredMessages::Charged,
        };
        let (_, failed) = spec.build(0, 0).map_err(|e| err(&e))?;
        let candidates = u64::from(procs - spec.immune.min(procs));
        if failed.len() as u64 + u64::from(self.runtime.count) > candidates
            || self.runtime.from > self.runtime.to
        {
            return Err(PointError(format!(
                "{} inactive and {} run-time faults: at most {candidates} ranks may fail",
                failed.len(),
                self.runtime.count
            )));
        }
        let fault_free = self
            .topology
            .fault_free_latency(self.collective, self.latency)
            .map_err(|e| err(&e))?;
        Ok(FtcoPrepared {
            config,
            spec,
            runtime: self.runtime,
            alg5: self.alg5,
            max_events: self
                .max_events
                .unwrap_or_else(|| sim::default_budget(procs)),
            fault_free,
        })
    }
}

/// Rank `r`'s operand: `r + 1` (as `ftcoll simulate --collective`).
fn operand(rank: Rank) -> u64 {
    u64::from(rank) + 1
}

/// A point ready to run.
#[derive(Debug)]
pub struct FtcoPrepared {
    config: FtcoConfig<Sum>,
    spec: ScenarioSpec,
    runtime: RuntimeFaults,
    alg5: bool,
    max_events: u64,
    fault_free: Time,
}

/// What one run gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FtcoOutcome {
    /// The metrics (of the run so far when the budget was exhausted).
    pub metrics: FtcoMetrics<u64>,
    /// `FinishTime_last − StartTime_last` (FTCO §5.2.4, Table 2's latency).
    pub latency_from_last_start: Time,
    /// The drawn input spread: the last start (arrival) minus the first, over every rank.
    pub input_spread: Time,
    /// Ranks failed before the operation.
    pub inactive: u64,
    /// The run exceeded its event budget (it did not quiesce in time).
    pub budget_exhausted: bool,
    /// Events the driver processed.
    pub events: u64,
    /// Without run-time faults: whether every completion holds exactly the sum of the operands
    /// of the ranks that did not fail (no operand lost, none counted twice, one value), and
    /// every live process completed (Bcast: delivered; Reduce: rank 0 completed).
    pub consistent: bool,
}

impl FtcoPrepared {
    /// `P`.
    pub fn procs(&self) -> u32 {
        self.spec.procs
    }

    /// The topology's fault-free latency (`FtcoTopology::fault_free_latency`).
    pub fn fault_free_latency(&self) -> Time {
        self.fault_free
    }

    /// A rough relative cost of one run, for scheduling the longest runs first: `P` times the
    /// arrival spread plus a constant, more with faults.
    pub fn cost(&self) -> u64 {
        let spread = match self.spec.arrivals {
            ArrivalSpec::None => 0,
            ArrivalSpec::SymmetricNormal(sigma) => sigma.saturating_mul(8),
            ArrivalSpec::Uniform(s) => s,
            ArrivalSpec::Normal(sigma) => sigma.saturating_mul(4),
            ArrivalSpec::Random { max_if, unit } => max_if.saturating_sub(1).saturating_mul(unit),
            ArrivalSpec::Late { delay, .. } => delay,
            ArrivalSpec::Times(ref t) => t.iter().copied().max().unwrap_or(0),
        };
        let faults = match &self.spec.faults {
            FaultSpec::Count(n) => u64::from(*n),
            FaultSpec::List(l) => l.len() as u64,
            _ => 0,
        } + u64::from(self.runtime.count);
        u64::from(self.spec.procs)
            .saturating_mul(64 + spread)
            .saturating_mul(4 + faults.min(100))
    }

    /// The topology.
    pub fn topology(&self) -> FtcoTopology {
        self.config.topology
    }

    /// Run `run` of `seed`.
    pub fn run(&self, seed: u64, run: u64) -> Result<FtcoOutcome, PointError> {
        let (mut scenario, failed, _rsd_seed) = draw_run(&self.spec, self.runtime, seed, run)
            .map_err(|e| PointError(format!("{e}")))?;
        let mut config = self.config.clone();
        config.service = ServiceDistance::None;
        let start = enter(&mut config, &mut scenario, self.alg5);
        let procs = self.spec.procs;
        let mut driver = Sim::<FtcoNode<Sum>>::new(&config, procs, &scenario)
            .map_err(|e| PointError(format!("simulation: {e}")))?;
        let mut budget_exhausted = false;
        while driver.next_time().is_some() {
            driver
                .step(&config)
                .map_err(|e| PointError(format!("simulation: {e}")))?;
            if driver.report().events > self.max_events {
                budget_exhausted = true;
                break;
            }
        }
        let report = driver.report();
        let collective = self.config.collective;
        let metrics = FtcoMetrics::from_report(report, collective);
        let input_spread = match (start.iter().min(), start.iter().max()) {
            (Some(a), Some(b)) => b - a,
            _ => 0,
        };
        let consistent = self.runtime.count == 0 && !budget_exhausted && {
            let expected: u64 = (0..procs).filter(|&r| report.is_live(r)).map(operand).sum();
            match collective {
                Collective::Bcast => metrics.incomplete == 0 && metrics.result == Some(1),
                Collective::Reduce => metrics.result == Some(expected),
                Collective::Allreduce => {
                    metrics.incomplete == 0
                        && report.completions.iter().all(|c| c.2 == expected)
                        && report.completions.len() as u64 == metrics.completions
                        && metrics.completions
                            == (0..procs).filter(|&r| report.is_live(r)).count() as u64
                }
            }
        };
        Ok(FtcoOutcome {
            latency_from_last_start: latency_from_last_start(report, &start, collective),
            metrics,
            input_spread,
            inactive: failed.len() as u64,
            budget_exhausted,
            events: report.events,
            consistent,
        })
    }
}

/// The draws of run `run` of `seed` for an FTCO run, from `SplitMix64::stream(seed, run)` in
/// this order: the failures and arrivals of `spec`, the RSD seed, then `runtime`'s crashes.
/// (The arrivals' own draws, per pattern, are listed at [`ftcoll_sim::scenario::draw_arrivals`].)
/// `sweep`, `simulate --collective` and `reproduce ftco` all draw through here, so run `i` is
/// the same run in each. Returns the scenario, the ranks failed before the operation and the
/// RSD seed.
pub fn draw_run(
    spec: &ScenarioSpec,
    runtime: RuntimeFaults,
    seed: u64,
    run: u64,
) -> Result<(sim::Scenario, Vec<Rank>, u64), ScenarioError> {
    let (mut scenario, failed, mut rng) = spec.build_with_stream(seed, run)?;
    let rsd_seed = rng.next_u64();
    if runtime.count > 0 {
        draw_crashes(
            runtime,
            spec.immune,
            spec.procs,
            failed.len() as u32,
            &mut scenario.crashes,
            &mut rng,
        )?;
    }
    Ok((scenario, failed, rsd_seed))
}

/// `c.count` distinct ranks of `immune..procs` that are not crashing already, each crashing at a
/// step uniform in `c.from..=c.to`: the draws of `sweep --crashes N@A..B`. `failed` only names
/// the error when too few ranks are left.
fn draw_crashes(
    c: RuntimeFaults,
    immune: u32,
    procs: u32,
    failed: u32,
    crashes: &mut Vec<(Rank, Time)>,
    rng: &mut SplitMix64,
) -> Result<(), ScenarioError> {
    let candidates = u64::from(procs - immune.min(procs));
    let mut taken: Vec<Rank> = crashes.iter().map(|c| c.0).collect();
    taken.sort_unstable();
    taken.dedup();
    if u64::from(c.count) > candidates.saturating_sub(taken.len() as u64) {
        return Err(ScenarioError::TooManyFaults {
            count: c.count + failed,
            max: candidates as u32,
        });
    }
    for _ in 0..c.count {
        let rank = loop {
            let r = immune + rng.below(candidates) as Rank;
            if let Err(at) = taken.binary_search(&r) {
                taken.insert(at, r);
                break r;
            }
        };
        let time = c.from + rng.below(c.to - c.from + 1);
        crashes.push((rank, time));
    }
    Ok(())
}

/// How processes enter an FTCO run: with `alg5`, the scenario's arrivals become Alg. 5's start
/// times (App. B; the driver then gets none, so everyone is reachable from 0); otherwise they
/// stay the driver's arrivals (the "off" baseline). Sets `config.imbalance` and returns the
/// start times (empty: everyone at 0).
pub fn enter<R: ftcoll::automaton::Reduction>(
    config: &mut FtcoConfig<R>,
    scenario: &mut sim::Scenario,
    alg5: bool,
) -> Vec<Time> {
    if alg5 {
        let start = core::mem::take(&mut scenario.arrivals);
        config.imbalance = Imbalance::Alg5 {
            start: start.clone(),
        };
        start
    } else {
        config.imbalance = Imbalance::Off;
        scenario.arrivals.clone()
    }
}

/// Table 2's `FinishTime_last − StartTime_last`: the last completion (Bcast: delivery) minus the
/// latest start of a process live at the end (`start` empty: everyone at 0).
pub fn latency_from_last_start<V>(
    report: &sim::Report<V>,
    start: &[Time],
    collective: Collective,
) -> Time {
    let last_start = (0..report.procs)
        .filter(|&r| report.is_live(r))
        .filter_map(|r| start.get(r as usize).copied())
        .max()
        .unwrap_or(0);
    let finish = match collective {
        Collective::Bcast => report.delivery_times().flatten().max(),
        _ => report.completions.iter().map(|c| c.1).max(),
    };
    finish.map_or(0, |f| f.saturating_sub(last_start))
}

/// The metrics kept per point, in [`FtcoStats::metric`] order.
pub const METRICS: [&str; 15] = [
    "inactive",
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
    "input_spread",
    "events",
];

/// Exact distributions of one point's runs, and the runs that exhausted their event budget or
/// came out inconsistent. Independent of the order runs are added in.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FtcoStats {
    metrics: [Histogram; 15],
    /// Runs that exceeded the event budget (their metrics are those at the budget).
    pub budget_exhausted: u64,
    /// Runs without run-time faults whose result missed an operand of a live process, counted
    /// one twice, or left a live process without completion.
    pub inconsistent: u64,
}

impl FtcoStats {
    /// Records one run.
    pub fn add(&mut self, o: &FtcoOutcome) {
        let m = &o.metrics;
        let values = [
            o.inactive,
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
            o.input_spread,
            o.events,
        ];
        for (h, v) in self.metrics.iter_mut().zip(values) {
            h.add(v);
        }
        self.budget_exhausted += u64::from(o.budget_exhausted);
        self.inconsistent += u64::from(!o.consistent && !o.budget_exhausted);
    }

    /// Adds every run of `other`.
    pub fn merge(&mut self, other: &Self) {
        for (h, o) in self.metrics.iter_mut().zip(&other.metrics) {
            h.merge(o);
        }
        self.budget_exhausted += other.budget_exhausted;
        self.inconsistent += other.inconsistent;
    }

    /// Number of runs.
    pub fn runs(&self) -> u64 {
        self.metrics[0].count()
    }

    /// The histogram of a [`METRICS`] entry.
    pub fn metric(&self, name: &str) -> &Histogram {
        let i = METRICS
            .iter()
            .position(|&n| n == name)
            .expect("a metric of METRICS");
        &self.metrics[i]
    }

    fn mean(&self, name: &str) -> f64 {
        self.metric(name).mean()
    }
}

impl FtcoPrepared {
    /// Runs `runs` of `seed`, from run `first` on, one after the other.
    pub fn run_many(&self, seed: u64, first: u64, runs: u64) -> Result<FtcoStats, PointError> {
        let mut stats = FtcoStats::default();
        for run in first..first + runs {
            let outcome = self.run(seed, run)?;
            stats.add(&outcome);
        }
        Ok(stats)
    }
}

/// One point's share of a batch.
pub type Job<'a> = super::Job<'a, FtcoPrepared>;

pub use super::{Executor, Serial};

impl super::BatchPoint for FtcoPrepared {
    type Stats = FtcoStats;

    fn cost(&self) -> u64 {
        FtcoPrepared::cost(self)
    }

    fn run_many(&self, seed: u64, first: u64, runs: u64) -> Result<FtcoStats, PointError> {
        FtcoPrepared::run_many(self, seed, first, runs)
    }

    fn merge(into: &mut FtcoStats, other: &FtcoStats) {
        into.merge(other);
    }

    /// One run per chunk for the points of 16 K nodes or more (a Table 2 run takes a second).
    fn chunk_runs(&self) -> u64 {
        if self.procs() >= 16_384 {
            1
        } else {
            16
        }
    }
}

pub use super::Mode;

/// `ftcoll reproduce ftco`. [`Mode::Full`]: the paper's sizes, as many runs as fit in about 30
/// minutes on 2 cores; [`Mode::Quick`]: minutes, fewer runs and smaller sizes (but Table 2 at
/// 64 K nodes); [`Mode::Smoke`]: seconds (Table 2's fault-free row still at 64 K nodes).
pub const REPRODUCTION: super::Reproduction = super::Reproduction {
    name: "ftco",
    about: "FTCO (Margolin & Barak): Table 2, Fig. 7–10, Table 1's shape",
    run: |mode, seed, exec, _| reproduce(mode, seed, exec),
};

/// The sizes and run counts of a [`Mode`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scale {
    /// Table 2's `P` (the fault-free row always runs at 65,536).
    pub table2_procs: u32,
    /// Table 2's spreads (besides 0).
    pub table2_spreads: Vec<u64>,
    /// Runs per Table 2 row.
    pub table2_runs: u64,
    /// Fig. 7's sizes.
    pub fig7_procs: Vec<u32>,
    /// Fig. 8–9's sizes.
    pub fig8_procs: Vec<u32>,
    /// Fig. 8–9's inactive counts.
    pub fig8_inactive: Vec<u32>,
    /// Runs per Fig. 8–9 point.
    pub fig8_runs: u64,
    /// Fig. 10's `P`.
    pub fig10_procs: u32,
    /// Fig. 10's inactive and run-time fault counts.
    pub fig10_counts: Vec<u32>,
    /// Runs per Fig. 10 point.
    pub fig10_runs: u64,
    /// The `--imbalance off` baseline's `P`, spreads and runs.
    pub off_procs: u32,
    /// Spreads of the baseline.
    pub off_spreads: Vec<u64>,
    /// Runs per baseline point.
    pub off_runs: u64,
}

fn powers(from: u32, to: u32) -> Vec<u32> {
    (from..=to).map(|e| 1u32 << e).collect()
}

impl Scale {
    /// The scale of `mode`.
    pub fn of(mode: Mode) -> Self {
        let spreads = || published::TABLE2_SPREADS[1..].to_vec();
        match mode {
            // Fig. 8–9 at the paper's 10⁴ runs per point.
            Mode::Paper => Self {
                fig8_runs: 10_000,
                ..Self::of(Mode::Full)
            },
            Mode::Full => Self {
                table2_procs: 65_536,
                table2_spreads: spreads(),
                table2_runs: 2,
                fig7_procs: powers(10, 16),
                fig8_procs: powers(10, 16),
                fig8_inactive: vec![1, 10, 100],
                fig8_runs: 1000,
                fig10_procs: 65_536,
                fig10_counts: vec![0, 1, 10, 100],
                fig10_runs: 10,
                off_procs: 4_096,
                off_spreads: vec![64, 256, 1024],
                off_runs: 10,
            },
            Mode::Quick => Self {
                table2_procs: 65_536,
                table2_spreads: vec![256, 1024, 2048],
                table2_runs: 1,
                fig7_procs: powers(10, 16),
                fig8_procs: vec![1_024, 4_096, 16_384],
                fig8_inactive: vec![1, 10, 100],
                fig8_runs: 20,
                fig10_procs: 4_096,
                fig10_counts: vec![0, 1, 10, 100],
                fig10_runs: 5,
                off_procs: 1_024,
                off_spreads: vec![64, 256, 1024],
                off_runs: 5,
            },
            Mode::Smoke => Self {
                table2_procs: 1_024,
                table2_spreads: vec![256],
                table2_runs: 1,
                fig7_procs: vec![256, 1_024],
                fig8_procs: vec![256],
                fig8_inactive: vec![1, 10],
                fig8_runs: 2,
                fig10_procs: 256,
                fig10_counts: vec![0, 1, 10],
                fig10_runs: 1,
                off_procs: 256,
                off_spreads: vec![256],
                off_runs: 2,
            },
        }
    }
}

pub use super::{Chart, ChartSeries, Output};
