//! Corrected Gossip's evaluation (Hoefler et al., CG §IV) as library code: Table 7 (`N = 4096`,
//! `L = 2`, `O = 1`, `f̂ = 0` and `f̂ = 3`) for GOS, OCG, CCG, FCG, BIG and BFB, all simulated,
//! with the published numbers beside ours; Fig. 3, Fig. 5 and Fig. 9 (the largest time over the
//! runs against `T` for OCG, CCG and FCG(1) at `N = 1024`, `L = O = 1`, each in the paper's
//! measure: Fig. 3 until every process is reached, Fig. 5 and 9 until the algorithm ended, with
//! Eq. 3, 4 and 5 beside it); Fig. 1 (Lemma 1's `c(t)` against the simulated number of g-nodes,
//! and the 99 % longest uncolored chain against Eq. 2's bound); Fig. 7a/b (median latency
//! against `N` up to 2^17, fault-free and with N/64 failures). Every run takes the paper's
//! receive model, in which a duplicate costs its receiver nothing
//! ([`CgPoint::paper_scenario`]); Table 7 also gives each row's latency with duplicates charged.
//!
//! Two layers, as in [`super::ftco`]:
//!
//! - [`CgPoint::run`]: one seeded run of one protocol on the dual-port LogP driver, drawn as
//!   `ftcoll simulate --gossip … --seed S` draws its run `i`: pre-operation failures from
//!   `SplitMix64::stream(S, i)` (as every `simulate`), then the automata's seed (the next number
//!   of that stream, so every run gossips differently), then any random crashes during the
//!   operation ([`OnlineCrashes`]). `simulate --gossip` prints exactly these numbers.
//! - [`reproduce`]: every table and figure, as CSV text, chart data and one markdown report
//!   (module `report`, with one module per table and figure below it); the caller supplies an
//!   [`Executor`] (the CLI runs in parallel) and writes the files. No I/O here.
//!
//! **`T` and `C`** come from the model ([`auto_timing`]): `Plan::recommended_t` (the model's
//! `T_opt` plus the paper's one `O`) for OCG, CCG and FCG, OCG's `C = K̄O + L + O` at that same
//! `T` (`Plan::run_correction`: `K̄` is the one of the `T` that runs), and [`Model::gos_time`] for GOS, at the paper's `δ = 6.9315·10⁻⁷` ([`DELTA`]: the
//! probability 1/2 that 10⁶ runs all succeed, `delta_for_runs(10⁶, 0.5)`), with `n = N − f̂`
//! active processes.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;
use core::str::FromStr;

use super::{Histogram, PointError};
use ftcoll::protocols::gossip::plan::{self, Model, PlanError, PlanProtocol};
use ftcoll::protocols::gossip::{
    BfbConfig, BfbNode, BigConfig, BigNode, Ccg, Fcg, FcgConfig, Gos, GossipConfig, Ocg, OcgConfig,
};
use ftcoll::topology::LogP;
use ftcoll::{Rank, Time};
use ftcoll_sim::scenario::{FaultSpec, ScenarioSpec};
use ftcoll_sim::{self as sim, IgnoredMessages, Report};

mod report;

pub use report::{binomial_tail, lemma1_gossip_messages, reproduce};

/// The paper's `δ` for GOS and OCG (CG §IV.A): `1 − (1 − 0.5)^(1/10⁶)`, the probability 1/2
/// that all 10⁶ runs of a Table 7 row succeed. `simulate --gossip` uses it by default too.
pub const DELTA: f64 = 6.9315e-7;

/// The largest gossip or correction time a point accepts (`2^20` steps): far beyond any useful
/// `T` (Table 7's largest is 50), small enough that a typo cannot start a run of years.
pub const MAX_TIME: Time = 1 << 20;

/// The largest `f` of `fcg:F`.
pub const MAX_FCG_F: u32 = 255;

/// One protocol of CG's comparison (CG §III, §IV.B).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum CgProtocol {
    /// Gossip until `T` (§IV.B.1).
    Gos,
    /// Opportunistic Corrected Gossip (§III.B).
    Ocg,
    /// Checked Corrected Gossip (§III.C).
    Ccg,
    /// Failure-proof Corrected Gossip with `f` (§III.D).
    Fcg(u32),
    /// Broadcast on the binomial graph (§IV.B.3).
    Big,
    /// Buntinas' restarting tree broadcast (§IV.B.2).
    Bfb,
}

impl CgProtocol {
    /// Whether it has a gossip phase (and so a gossip time `T`).
    pub fn gossips(&self) -> bool {
        matches!(self, Self::Gos | Self::Ocg | Self::Ccg | Self::Fcg(_))
    }

    /// The paper's name (`FCG` for every `f`).
    pub fn paper_name(&self) -> &'static str {
        match self {
            Self::Gos => "GOS",
            Self::Ocg => "OCG",
            Self::Ccg => "CCG",
            Self::Fcg(_) => "FCG",
            Self::Big => "BIG",
            Self::Bfb => "BFB",
        }
    }
}

impl fmt::Display for CgProtocol {
    /// As `--gossip` spells it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Gos => f.write_str("gos"),
            Self::Ocg => f.write_str("ocg"),
            Self::Ccg => f.write_str("ccg"),
            Self::Fcg(k) => write!(f, "fcg:{k}"),
            Self::Big => f.write_str("big"),
            Self::Bfb => f.write_str("bfb"),
        }
    }
}

impl FromStr for CgProtocol {
    type Err = String;

    /// `gos`, `ocg`, `ccg`, `fcg:F` (`F` in `1..=255`), `big` or `bfb`.
    fn from_str(s: &str) -> Result<Self, String> {
        let allowed = || {
            format!("expected gos, ocg, ccg, fcg:F (F an integer in 1..={MAX_FCG_F}), big or bfb")
        };
        match s.trim() {
            "gos" => Ok(Self::Gos),
            "ocg" => Ok(Self::Ocg),
            "ccg" => Ok(Self::Ccg),
            "big" => Ok(Self::Big),
            "bfb" => Ok(Self::Bfb),
            other => match other.strip_prefix("fcg:").map(|f| f.parse::<u32>()) {
                Some(Ok(f)) if (1..=MAX_FCG_F).contains(&f) => Ok(Self::Fcg(f)),
                _ => Err(allowed()),
            },
        }
    }
}

/// The model's `T` and `C` for `protocol` with `procs` processes, `active` of them alive, at
/// `delta` (see the module documentation): `(T, C)`, `C = 0` but for OCG; `(0, 0)` for BIG and
/// BFB, which have neither.
pub fn auto_timing(
    protocol: CgProtocol,
    procs: u32,
    active: u32,
    logp: LogP,
    delta: f64,
) -> Result<(Time, Time), PlanError> {
    let plan_of = |p: PlanProtocol| Model::new(procs, active, logp)?.plan(p, delta);
    Ok(match protocol {
        CgProtocol::Gos => (Model::new(procs, active, logp)?.gos_time(delta)?, 0),
        CgProtocol::Ocg => {
            let p = plan_of(PlanProtocol::Ocg)?;
            (p.recommended_t(), p.run_correction)
        }
        CgProtocol::Ccg => (plan_of(PlanProtocol::Ccg)?.recommended_t(), 0),
        CgProtocol::Fcg(_) => (plan_of(PlanProtocol::Fcg)?.recommended_t(), 0),
        CgProtocol::Big | CgProtocol::Bfb => (0, 0),
    })
}

/// Random crashes during the operation: `count` distinct ranks (never the root, never one that
/// already fails), each at a time drawn uniformly from `0..window`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct OnlineCrashes {
    /// How many.
    pub count: u32,
    /// The times are drawn from `0..window` (`0..1` when `window` is 0).
    pub window: Time,
}

/// Everything one run needs: the protocol, its `T` and `C`, and the scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct CgPoint {
    /// The protocol.
    pub protocol: CgProtocol,
    /// `P`, `L`, `O`, pre-operation failures, given crashes, arrivals (dual-port; the root is
    /// immune).
    pub spec: ScenarioSpec,
    /// `T` (ignored by BIG and BFB).
    pub gossip_time: Time,
    /// OCG's `C` (ignored by the others).
    pub correction_time: Time,
    /// Random crashes during the operation, besides `spec.crash_at`.
    pub online: OnlineCrashes,
    /// Fig. 1: record how many g-nodes are colored by `t = 0..curve` (0: not recorded).
    pub curve: usize,
}

/// One run's numbers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CgRun {
    /// Ranks failed before the operation (ascending).
    pub faults: Vec<Rank>,
    /// Crashes during the operation (given, then drawn).
    pub crashes: Vec<(Rank, Time)>,
    /// The last live process's delivery.
    pub coloring_latency: Time,
    /// The end of all activity (last message received, last timer).
    pub quiescence_latency: Time,
    /// BFB only: the root's completion (every ACK back), `None` if it never completed (and
    /// for every other protocol).
    pub completion_latency: Option<Time>,
    /// BFB only: the root never completed (`false` for the protocols without completion).
    pub incomplete: bool,
    /// Messages per phase: dissemination (gossip, BIG's sends, BFB's DATA), correction,
    /// acknowledgment (BFB's ACK and NACK).
    pub messages: [u64; 3],
    /// Live processes that never delivered (inconsistency).
    pub undelivered: u64,
    /// Live processes (never crashed).
    pub live: u64,
    /// Processes colored by a dissemination message, and the root: CG's g-nodes (for BIG and
    /// BFB every colored process).
    pub gnodes: u64,
    /// Fig. 1: g-nodes colored by `t` for `t = 0..curve`.
    pub curve: Vec<u64>,
    /// Fig. 1: for `t = 0..curve`, the longest run of consecutive ranks on the ring (wrapping
    /// around) that are not g-nodes colored by `t`: the longest uncolored chain correction
    /// would face if gossip stopped at `t`.
    pub chain_curve: Vec<u64>,
}

/// For each `t` in `0..horizon`, the longest circular run of ranks whose coloring time
/// (`None`: never) is after `t` (all of them: the ring's length).
pub fn longest_uncolored_chains(colored_at: &[Option<Time>], horizon: usize) -> Vec<u64> {
    let n = colored_at.len();
    (0..horizon)
        .map(|t| {
            ftcoll::topology::longest_circular_run(n, |r| {
                colored_at[r].is_none_or(|at| at > t as Time)
            })
        })
        .collect()
}

impl CgRun {
    /// The latency Table 7 reports: BFB's completion (when it completed, else quiescence), the
    /// others' quiescence ("until the last active node receives the broadcast and completes the
    /// algorithm", §IV.A).
    pub fn latency(&self) -> Time {
        self.completion_latency.unwrap_or(self.quiescence_latency)
    }

    /// All messages.
    pub fn work(&self) -> u64 {
        self.messages.iter().sum()
    }
}

impl CgPoint {
    /// A point without random online crashes or curve.
    pub fn new(
        protocol: CgProtocol,
        spec: ScenarioSpec,
        gossip_time: Time,
        correction_time: Time,
    ) -> Self {
        Self {
            protocol,
            spec,
            gossip_time,
            correction_time,
            online: OnlineCrashes::default(),
            curve: 0,
        }
    }

    /// A dual-port scenario of `procs` processes, the root immune.
    pub fn scenario(procs: u32, logp: LogP, faults: FaultSpec) -> ScenarioSpec {
        ScenarioSpec::new(procs, logp).with_faults(faults)
    }

    /// [`CgPoint::scenario`] on the paper's receive model: a message its receiver ignores is
    /// free ([`IgnoredMessages::Free`]; Table 7's GOS latency is `T + L + O` only so). Every
    /// table and figure of [`reproduce`] runs on it.
    pub fn paper_scenario(procs: u32, logp: LogP, faults: FaultSpec) -> ScenarioSpec {
        Self::scenario(procs, logp, faults).with_ignored(IgnoredMessages::Free)
    }

    /// A rough cost of one run (for scheduling the longest first): `P` times the expected
    /// messages per process.
    pub fn cost(&self) -> u64 {
        let p = u64::from(self.spec.procs);
        p * (4 + self.gossip_time / self.spec.logp.overhead().max(1) / 2)
    }

    /// Run `run` of `seed`.
    pub fn run(&self, seed: u64, run: u64) -> Result<CgRun, PointError> {
        let err = |e: &dyn fmt::Display| PointError(format!("{}: {e}", self.protocol));
        if self.gossip_time > MAX_TIME || self.correction_time > MAX_TIME {
            return Err(PointError(format!(
                "{}: T and C must be at most {MAX_TIME}",
                self.protocol
            )));
        }
        let (mut scenario, faults, mut rng) = self
            .spec
            .build_with_stream(seed, run)
            .map_err(|e| err(&e))?;
        let automaton_seed = rng.next_u64();
        let procs = self.spec.procs;
        let immune = self.spec.immune.min(procs);
        let mut crashes = self.spec.crash_at.clone();
        for _ in 0..self.online.count {
            let taken = |r: Rank| scenario.crashes.iter().any(|&(c, _)| c == r);
            let free = (immune..procs).filter(|&r| !taken(r)).count() as u64;
            if free == 0 {
                break;
            }
            let k = rng.below(free) as usize;
            let Some(rank) = (immune..procs).filter(|&r| !taken(r)).nth(k) else {
                break;
            };
            let at = rng.below(self.online.window.max(1));
            scenario.crashes.push((rank, at));
            crashes.push((rank, at));
        }
        let logp = self.spec.logp;
        let budget = sim::default_budget(procs);
        let gossip = || {
            GossipConfig::new(procs, logp, self.gossip_time, automaton_seed).map_err(|e| err(&e))
        };
        let report: Report = match self.protocol {
            CgProtocol::Gos => sim::run::<Gos>(&gossip()?, procs, &scenario, budget),
            CgProtocol::Ocg => {
                let config = OcgConfig {
                    gossip: gossip()?,
                    correction_time: self.correction_time,
                };
                sim::run::<Ocg>(&config, procs, &scenario, budget)
            }
            CgProtocol::Ccg => sim::run::<Ccg>(&gossip()?, procs, &scenario, budget),
            CgProtocol::Fcg(f) => {
                sim::run::<Fcg>(&FcgConfig::new(gossip()?, f), procs, &scenario, budget)
            }
            CgProtocol::Big => {
                let config = BigConfig::new(procs).map_err(|e| err(&e))?;
                sim::run::<BigNode>(&config, procs, &scenario, budget)
            }
            CgProtocol::Bfb => {
                let config = BfbConfig::new(procs, logp).map_err(|e| err(&e))?;
                sim::run::<BfbNode>(&config, procs, &scenario, budget)
            }
        }
        .map_err(|e| err(&e))?;
        let completion_latency = match self.protocol {
            CgProtocol::Bfb => report
                .completions
                .iter()
                .find(|c| c.0 == 0)
                .map(|c| c.1.saturating_sub(report.root_start)),
            _ => None,
        };
        let incomplete = self.protocol == CgProtocol::Bfb && completion_latency.is_none();
        let is_gnode = |r: usize| {
            report.delivered_at(r as Rank).is_some()
                && (report.by_dissemination(r as Rank) || r == 0)
        };
        let gnodes = (0..procs as usize).filter(|&r| is_gnode(r)).count() as u64;
        let mut curve = vec![0u64; self.curve];
        let mut chain_curve = Vec::new();
        if self.curve > 0 {
            let colored_at: Vec<Option<Time>> = (0..procs as usize)
                .map(|r| {
                    if is_gnode(r) {
                        report.delivered_at(r as Rank)
                    } else {
                        None
                    }
                })
                .collect();
            chain_curve = longest_uncolored_chains(&colored_at, self.curve);
            for r in (0..procs as usize).filter(|&r| is_gnode(r)) {
                let at = report.delivered_at(r as Rank).unwrap_or(0) as usize;
                if at < self.curve {
                    curve[at] += 1;
                }
            }
            for t in 1..self.curve {
                curve[t] += curve[t - 1];
            }
        }
        Ok(CgRun {
            faults,
            crashes,
            coloring_latency: report.coloring_latency(),
            quiescence_latency: report.quiescence_latency(),
            completion_latency,
            incomplete,
            messages: [report.messages[0], report.messages[1], report.messages[2]],
            undelivered: u64::from(report.undelivered()),
            live: (0..procs).filter(|&r| report.is_live(r)).count() as u64,
            gnodes,
            curve,
            chain_curve,
        })
    }

    /// Runs `first..first + runs` of `seed` and folds them.
    pub fn run_many(&self, seed: u64, first: u64, runs: u64) -> Result<CgStats, PointError> {
        let mut stats = CgStats::default();
        for run in first..first + runs {
            stats.add(&self.run(seed, run)?);
        }
        Ok(stats)
    }
}

/// The runs of one point, folded (exact: integer histograms and sums, independent of the order
/// runs are merged in).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CgStats {
    /// [`CgRun::latency`].
    pub latency: Histogram,
    /// Coloring latency.
    pub coloring: Histogram,
    /// Quiescence latency.
    pub quiescence: Histogram,
    /// Messages.
    pub work: Histogram,
    /// g-nodes.
    pub gnodes: Histogram,
    /// Live processes not reached, summed over runs.
    pub undelivered: u64,
    /// Live processes, summed over runs.
    pub live: u64,
    /// Runs that left a live process uncolored.
    pub inconsistent_runs: u64,
    /// Messages per phase (dissemination, correction, acknowledgment), summed over runs.
    pub phase_messages: [u64; 3],
    /// BFB: runs whose root never completed.
    pub incomplete_runs: u64,
    /// Fig. 1: g-nodes colored by `t`, summed over runs.
    pub curve: Vec<u64>,
    /// Fig. 1: for each `t`, the distribution over runs of the longest uncolored chain
    /// ([`CgRun::chain_curve`]).
    pub chains: Vec<Histogram>,
}

impl CgStats {
    /// Adds one run.
    pub fn add(&mut self, r: &CgRun) {
        self.latency.add(r.latency());
        self.coloring.add(r.coloring_latency);
        self.quiescence.add(r.quiescence_latency);
        self.work.add(r.work());
        self.gnodes.add(r.gnodes);
        self.undelivered += r.undelivered;
        self.live += r.live;
        self.inconsistent_runs += u64::from(r.undelivered > 0);
        for (s, m) in self.phase_messages.iter_mut().zip(r.messages) {
            *s += m;
        }
        self.incomplete_runs += u64::from(r.incomplete);
        if self.curve.len() < r.curve.len() {
            self.curve.resize(r.curve.len(), 0);
        }
        for (s, c) in self.curve.iter_mut().zip(&r.curve) {
            *s += c;
        }
        if self.chains.len() < r.chain_curve.len() {
            self.chains
                .resize(r.chain_curve.len(), Histogram::default());
        }
        for (h, &c) in self.chains.iter_mut().zip(&r.chain_curve) {
            h.add(c);
        }
    }

    /// Adds every run of `other`.
    pub fn merge(&mut self, other: &Self) {
        self.latency.merge(&other.latency);
        self.coloring.merge(&other.coloring);
        self.quiescence.merge(&other.quiescence);
        self.work.merge(&other.work);
        self.gnodes.merge(&other.gnodes);
        self.undelivered += other.undelivered;
        self.live += other.live;
        self.inconsistent_runs += other.inconsistent_runs;
        for (s, m) in self.phase_messages.iter_mut().zip(other.phase_messages) {
            *s += m;
        }
        self.incomplete_runs += other.incomplete_runs;
        if self.curve.len() < other.curve.len() {
            self.curve.resize(other.curve.len(), 0);
        }
        for (s, c) in self.curve.iter_mut().zip(&other.curve) {
            *s += c;
        }
        if self.chains.len() < other.chains.len() {
            self.chains.resize(other.chains.len(), Histogram::default());
        }
        for (h, o) in self.chains.iter_mut().zip(&other.chains) {
            h.merge(o);
        }
    }

    /// Runs folded.
    pub fn runs(&self) -> u64 {
        self.latency.count()
    }

    /// Mean messages of phase `i` (0 dissemination, 1 correction, 2 acknowledgment).
    pub fn phase_mean(&self, i: usize) -> f64 {
        self.phase_messages.get(i).copied().unwrap_or(0) as f64 / self.runs().max(1) as f64
    }

    /// The expected share of live processes not reached (Table 7's "incon."), in percent.
    pub fn inconsistency_percent(&self) -> f64 {
        if self.live == 0 {
            0.0
        } else {
            100.0 * self.undelivered as f64 / self.live as f64
        }
    }
}

/// One point's share of a batch.
pub type Job<'a> = super::Job<'a, CgPoint>;

pub use super::{Executor, Serial};

impl super::BatchPoint for CgPoint {
    type Stats = CgStats;

    fn cost(&self) -> u64 {
        CgPoint::cost(self)
    }

    fn run_many(&self, seed: u64, first: u64, runs: u64) -> Result<CgStats, PointError> {
        CgPoint::run_many(self, seed, first, runs)
    }

    fn merge(into: &mut CgStats, other: &CgStats) {
        into.merge(other);
    }

    fn chunk_runs(&self) -> u64 {
        8
    }
}

/// The published numbers (CG Table 7, Fig. 3, Fig. 5).
pub mod published {
    /// Table 7: `(protocol, f̂, T, latency, work, inconsistency in percent)`; `T` 0 for BIG and
    /// BFB (no gossip time).
    pub const TABLE7: [(&str, u32, u64, u64, u64, f64); 12] = [
        ("GOS", 0, 50, 53, 95_418, 2e-5),
        ("GOS", 3, 50, 53, 95_331, 8e-6),
        ("OCG", 0, 32, 42, 38_400, 1e-4),
        ("OCG", 3, 32, 42, 38_355, 3e-4),
        ("CCG", 0, 36, 44, 19_057, 0.0),
        ("CCG", 3, 34, 46, 16_952, 0.0),
        ("FCG", 0, 37, 48, 23_153, 0.0),
        ("FCG", 3, 37, 51, 23_101, 0.0),
        ("BIG", 0, 0, 60, 49_152, 0.0),
        ("BIG", 3, 0, 60, 49_152, 0.0),
        ("BFB", 0, 0, 96, 4_096, 0.0),
        ("BFB", 3, 0, 144, 8_192, 0.0),
    ];
    /// Fig. 3: OCG's optimal `T` at `N = 1024`, `L = O = 1`.
    pub const FIG3_T: u64 = 24;
    /// Fig. 5: CCG's optimal `T` there.
    pub const FIG5_T: u64 = 25;
}

pub use super::Mode;

/// `ftcoll reproduce cg`. [`Mode::Full`]: the paper's sizes, as many runs as fit in well under
/// 30 minutes on 2 cores; [`Mode::Quick`]: under 2 minutes; [`Mode::Smoke`]: seconds (Table 7
/// still at `N = 4096`, a few runs).
pub const REPRODUCTION: super::Reproduction = super::Reproduction {
    name: "cg",
    about: "Corrected Gossip (Hoefler et al.): Table 7, Fig. 1, 3, 5, 7a/b and 9",
    run: |mode, seed, exec, _| reproduce(mode, seed, exec),
};

/// Run counts and ranges of a [`Mode`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scale {
    /// Runs per Table 7 row.
    pub table7_runs: u64,
    /// Runs per Table 7 row of the second latency column, with duplicates charged
    /// ([`IgnoredMessages::Charged`]).
    pub table7_charged_runs: u64,
    /// Runs per `T` of Fig. 3, Fig. 5 and Fig. 9.
    pub fig35_runs: u64,
    /// The `T` values of Fig. 3, Fig. 5 and Fig. 9.
    pub fig35_t: (Time, Time),
    /// Runs of Fig. 1.
    pub fig1_runs: u64,
    /// Runs per point of Fig. 7.
    pub fig7_runs: u64,
    /// Fig. 7's largest `N` is `2^fig7_max_log` (from 16).
    pub fig7_max_log: u32,
    /// Runs per point of Fig. 7 above `N = 4096` (a run there costs up to 32 times more).
    pub fig7_large_runs: u64,
    /// Fig. 7b's BFB stops at `N = 2^fig7b_bfb_max_log`: with N/64 failures it detects and
    /// restarts N/64 times, so a run costs about N²/32 messages (one run at N = 16384 takes
    /// about 10 s, one at 2^17 would take minutes).
    pub fig7b_bfb_max_log: u32,
}

impl Scale {
    /// The scale of `mode`.
    pub fn of(mode: Mode) -> Self {
        match mode {
            // Table 7 at the paper's 10⁶ runs per row (CG §IV.D), its charged column at 10⁵.
            Mode::Paper => Self {
                table7_runs: 1_000_000,
                table7_charged_runs: 100_000,
                ..Self::of(Mode::Full)
            },
            Mode::Full => Self {
                table7_runs: 20_000,
                table7_charged_runs: 2_000,
                fig35_runs: 2_000,
                fig35_t: (14, 36),
                fig1_runs: 2_000,
                fig7_runs: 200,
                fig7_max_log: 17,
                fig7_large_runs: 20,
                fig7b_bfb_max_log: 13,
            },
            Mode::Quick => Self {
                table7_runs: 100,
                table7_charged_runs: 20,
                fig35_runs: 100,
                fig35_t: (16, 34),
                fig1_runs: 200,
                fig7_runs: 20,
                fig7_max_log: 14,
                fig7_large_runs: 5,
                fig7b_bfb_max_log: 13,
            },
            Mode::Smoke => Self {
                table7_runs: 2,
                table7_charged_runs: 1,
                fig35_runs: 3,
                fig35_t: (20, 26),
                fig1_runs: 3,
                fig7_runs: 2,
                fig7_max_log: 6,
                fig7_large_runs: 1,
                fig7b_bfb_max_log: 6,
            },
        }
    }
}

/// One Table 7 row as run.
#[derive(Clone, Debug, PartialEq)]
pub struct Table7Row {
    /// The protocol.
    pub protocol: CgProtocol,
    /// `f̂`.
    pub fhat: u32,
    /// Where `T` came from: `model` or `paper`.
    pub t_source: &'static str,
    /// The point run.
    pub point: CgPoint,
}

/// Table 7's `N`, `L`, `O`.
pub const TABLE7_PROCS: u32 = 4096;

/// CG Table 7's LogP: `L = 2`, `O = 1`.
pub fn table7_logp() -> LogP {
    LogP::new(2, 1).unwrap_or_default()
}

/// The rows of Table 7 as this reproduction runs them, on the paper's receive model
/// ([`CgPoint::paper_scenario`]): every protocol at `f̂ = 0` and `f̂ = 3` with `T` (and OCG's
/// `C`) from the model; where the paper's `T` differs, a second row at the
/// paper's `T`. Failures at `f̂ = 3`: the gossip protocols and BIG get 3 random non-root ranks
/// failed before the operation (the paper argues online failures during a 55 µs broadcast have
/// probability `3.4·10⁻⁹`, §IV.D); BFB gets `⌈20 %⌉` of them, 1, as a crash during the
/// operation (a random non-root rank at a time uniform in `0..T_BFB = 96`) and 2 before it.
pub fn table7_rows() -> Result<Vec<Table7Row>, PointError> {
    let logp = table7_logp();
    let protocols = [
        CgProtocol::Gos,
        CgProtocol::Ocg,
        CgProtocol::Ccg,
        CgProtocol::Fcg(1),
        CgProtocol::Big,
        CgProtocol::Bfb,
    ];
    let mut rows = Vec::new();
    for protocol in protocols {
        for fhat in [0u32, 3] {
            let online = if protocol == CgProtocol::Bfb {
                fhat.div_ceil(5)
            } else {
                0
            };
            let before = fhat - online;
            let faults = if before == 0 {
                FaultSpec::None
            } else {
                FaultSpec::Count(before)
            };
            let spec = CgPoint::paper_scenario(TABLE7_PROCS, logp, faults);
            let (t, c) = auto_timing(protocol, TABLE7_PROCS, TABLE7_PROCS - before, logp, DELTA)
                .map_err(|e| PointError(format!("{protocol}: {e}")))?;
            let mut point = CgPoint::new(protocol, spec, t, c);
            point.online = OnlineCrashes {
                count: online,
                window: plan::bfb_latency(TABLE7_PROCS, logp),
            };
            let paper_t = published::TABLE7
                .iter()
                .find(|r| r.0 == protocol.paper_name() && r.1 == fhat)
                .map_or(0, |r| r.2);
            rows.push(Table7Row {
                protocol,
                fhat,
                t_source: "model",
                point: point.clone(),
            });
            if protocol.gossips() && paper_t != t {
                point.gossip_time = paper_t;
                rows.push(Table7Row {
                    protocol,
                    fhat,
                    t_source: "paper",
                    point,
                });
            }
        }
    }
    Ok(rows)
}
