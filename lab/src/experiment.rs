//! Seeded Monte-Carlo experiments: one *point* (a full set of simulation parameters) run many
//! times, each run's [`CtMetrics`] folded into exact integer histograms so that summaries
//! (mean, standard deviation, percentiles, max) do not depend on the order runs finish in.
//!
//! Run `i` of a point with seed `s` draws its failures from `SplitMix64::stream(s, i)`, exactly
//! as `ftcoll simulate --seed s` does for its run `i`. Points with synchronized checked
//! correction under dual-port LogP use [`crate::fastpath`] (same metrics, much faster); every
//! other point runs the full simulator.

pub mod cg;
pub mod ct;
pub mod ftco;
pub mod pap;

/// Every paper's reproduction, in the order `ftcoll reproduce --help` lists them. A new paper is
/// a module here (`pub mod NAME;`) and one line in this list.
pub const REPRODUCTIONS: &[Reproduction] = &[
    ct::REPRODUCTION,
    ftco::REPRODUCTION,
    pap::REPRODUCTION,
    cg::REPRODUCTION,
];

/// The reproduction called `name` in [`REPRODUCTIONS`].
pub fn reproduction(name: &str) -> Option<&'static Reproduction> {
    REPRODUCTIONS.iter().find(|r| r.name == name)
}

/// One paper's reproduction, as `ftcoll reproduce NAME` finds it in [`REPRODUCTIONS`].
#[derive(Clone, Copy)]
pub struct Reproduction {
    /// The command's argument and the report's file stem (`NAME.md`, `NAME/`).
    pub name: &'static str,
    /// The paper and what is reproduced (the command's help).
    pub about: &'static str,
    /// Runs the reproduction at `mode`'s scale with `seed` on the executor; the last argument
    /// reads the seconds since the start, for reports that state their own run time.
    pub run: RunReproduction,
}

/// How a [`Reproduction`] runs: scale, seed, executor, and a clock reading the seconds since the
/// start.
pub type RunReproduction =
    fn(Mode, u64, &mut dyn Executors, &dyn Fn() -> f64) -> Result<Output, PointError>;

impl core::fmt::Debug for Reproduction {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Reproduction")
            .field("name", &self.name)
            .field("about", &self.about)
            .finish_non_exhaustive()
    }
}

/// How much of a paper a reproduction runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The paper's scale (each paper's module says how long that takes).
    Full,
    /// Fewer runs and smaller sizes: seconds to minutes.
    Quick,
    /// Tiny sizes for tests (numbers not comparable to the paper).
    Smoke,
    /// The published run counts where [`Mode::Full`] runs fewer to fit about 30 minutes on 2
    /// cores: CG Table 7's 10⁶ runs per row (about 12 hours on 2 cores) and FTCO Fig. 8–9's
    /// 10⁴ runs per point, jobs for a cluster (`ftcoll-mpi reproduce`). CT's and PAP's full
    /// scales are already the published ones, so they run [`Mode::Full`].
    Paper,
}

impl Mode {
    /// [`Mode::Full`] for [`Mode::Paper`]: for the papers whose full scale is the published one.
    pub fn full_for_paper(self) -> Self {
        match self {
            Self::Paper => Self::Full,
            other => other,
        }
    }
}

/// An executor of every kind of point the reproductions run (any [`Executor`] generic over
/// [`BatchPoint`] is one).
pub trait Executors:
    Executor<Prepared> + Executor<cg::CgPoint> + Executor<ftco::FtcoPrepared> + Executor<pap::PointJob>
{
}

impl<T> Executors for T where
    T: Executor<Prepared>
        + Executor<cg::CgPoint>
        + Executor<ftco::FtcoPrepared>
        + Executor<pap::PointJob>
        + ?Sized
{
}

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::ct_metrics::CtMetrics;
use crate::fastpath::{SyncChecked, Workspace};
use ftcoll::protocols::corrected_tree::{
    CorrectedTreeConfig, CorrectedTreeNode, CorrectionSpec, StartMode,
};
use ftcoll::protocols::Side;
use ftcoll::topology::{LogP, Order, Tree, TreeKind};
use ftcoll::Time;
use ftcoll_sim::scenario::{ArrivalSpec, FaultSpec, ScenarioSpec};
use ftcoll_sim::{self as sim, IgnoredMessages, PortModel};

/// Exact distribution of one integer metric: value → number of runs.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Histogram {
    counts: BTreeMap<u64, u64>,
}

impl Histogram {
    /// Records one value.
    pub fn add(&mut self, value: u64) {
        *self.counts.entry(value).or_insert(0) += 1;
    }

    /// Adds every value of `other`.
    pub fn merge(&mut self, other: &Self) {
        for (&v, &c) in &other.counts {
            *self.counts.entry(v).or_insert(0) += c;
        }
    }

    /// Number of values.
    pub fn count(&self) -> u64 {
        self.counts.values().sum()
    }

    /// `(value, count)` in increasing value order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.counts.iter().map(|(&v, &c)| (v, c))
    }

    /// Arithmetic mean (0 when empty).
    pub fn mean(&self) -> f64 {
        let n = self.count();
        if n == 0 {
            return 0.0;
        }
        let sum: u128 = self
            .iter()
            .map(|(v, c)| u128::from(v) * u128::from(c))
            .sum();
        sum as f64 / n as f64
    }

    /// Sample standard deviation (`n − 1` in the denominator; 0 for fewer than two values),
    /// computed from exact integer sums.
    pub fn std(&self) -> f64 {
        let n = u128::from(self.count());
        if n < 2 {
            return 0.0;
        }
        let (mut s1, mut s2) = (0u128, 0u128);
        for (v, c) in self.iter() {
            let (v, c) = (u128::from(v), u128::from(c));
            s1 += v * c;
            s2 += v * v * c;
        }
        let numerator = n * s2 - s1 * s1;
        libm_sqrt(numerator as f64 / (n * (n - 1)) as f64)
    }

    /// The nearest-rank percentile: the smallest value such that at least `q·n` values are
    /// `<=` it (`q` in `0..=1`; 0 when empty).
    pub fn percentile(&self, q: f64) -> u64 {
        let n = self.count();
        if n == 0 {
            return 0;
        }
        // ceil(q·n) without floating error for the q used here (multiples of 0.001).
        let permille = (q * 1000.0 + 0.5) as u128;
        let rank = ((permille * u128::from(n)).div_ceil(1000)).max(1) as u64;
        let mut seen = 0;
        for (v, c) in self.iter() {
            seen += c;
            if seen >= rank {
                return v;
            }
        }
        self.max()
    }

    /// Largest value (0 when empty).
    pub fn max(&self) -> u64 {
        self.counts.keys().next_back().copied().unwrap_or(0)
    }
}

/// Square root without `std` (Newton's method on `f64`; exact enough for reporting).
fn libm_sqrt(x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    let mut r = if x >= 1.0 { x / 2.0 } else { 1.0 };
    for _ in 0..200 {
        let next = 0.5 * (r + x / r);
        if next == r {
            break;
        }
        r = next;
    }
    r
}

/// The summary statistics reported for every metric, in output order.
pub const STATISTICS: [&str; 8] = ["mean", "std", "p5", "p50", "p95", "p99", "p99.9", "max"];

/// Everything measured at one point.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PointStats {
    /// One histogram per [`CtMetrics::NAMES`] entry.
    pub metrics: [Histogram; 11],
    /// Joint distribution of `(gmax, correction_latency)` (CT Fig. 10).
    #[serde(with = "ftcoll::serde_support::pairs")]
    pub gmax_vs_correction: BTreeMap<(u64, u64), u64>,
}

impl PointStats {
    /// Records one run.
    pub fn add(&mut self, m: &CtMetrics) {
        for (h, v) in self.metrics.iter_mut().zip(m.values()) {
            h.add(v);
        }
        *self
            .gmax_vs_correction
            .entry((m.gmax, m.correction_latency))
            .or_insert(0) += 1;
    }

    /// Adds every run of `other`.
    pub fn merge(&mut self, other: &Self) {
        for (h, o) in self.metrics.iter_mut().zip(&other.metrics) {
            h.merge(o);
        }
        for (&k, &c) in &other.gmax_vs_correction {
            *self.gmax_vs_correction.entry(k).or_insert(0) += c;
        }
    }

    /// Number of runs.
    pub fn runs(&self) -> u64 {
        self.metrics[0].count()
    }

    /// The histogram of the metric called `name` (see [`CtMetrics::NAMES`]).
    pub fn metric(&self, name: &str) -> Option<&Histogram> {
        CtMetrics::NAMES
            .iter()
            .position(|&n| n == name)
            .map(|i| &self.metrics[i])
    }

    /// The [`STATISTICS`] of every metric, formatted (means and deviations with 4 decimals).
    pub fn summary(&self) -> Vec<[String; 8]> {
        self.metrics
            .iter()
            .map(|h| {
                [
                    format!("{:.4}", h.mean()),
                    format!("{:.4}", h.std()),
                    format!("{}", h.percentile(0.05)),
                    format!("{}", h.percentile(0.5)),
                    format!("{}", h.percentile(0.95)),
                    format!("{}", h.percentile(0.99)),
                    format!("{}", h.percentile(0.999)),
                    format!("{}", h.max()),
                ]
            })
            .collect()
    }
}

/// Which processes fail before the operation, per point.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Faults {
    /// Nobody.
    None,
    /// Exactly this many random non-root ranks.
    Count(u32),
    /// Every non-root rank independently with this probability.
    Rate(f64),
    /// `round(fraction · P)` random non-root ranks (CT §4.3: "the fraction of failed processes").
    Fraction(f64),
}

impl Faults {
    /// The scenario's failure rule for `procs` processes (a fraction becomes `round(F·P)`
    /// ranks).
    pub fn spec(&self, procs: u32) -> FaultSpec {
        match *self {
            Self::None => FaultSpec::None,
            Self::Count(n) => FaultSpec::Count(n),
            Self::Rate(r) => FaultSpec::Rate(r),
            Self::Fraction(x) => FaultSpec::Count(((x * f64::from(procs)) + 0.5) as u32),
        }
    }
}

impl core::fmt::Display for Faults {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::None => write!(f, "none"),
            Self::Count(n) => write!(f, "count:{n}"),
            Self::Rate(r) => write!(f, "rate:{r}"),
            Self::Fraction(x) => write!(f, "fraction:{x}"),
        }
    }
}

/// One point of a sweep: every parameter of `ftcoll simulate` but the seed's runs.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Point {
    /// `P`.
    pub procs: u32,
    /// Tree shape.
    pub tree: TreeKind,
    /// Numbering.
    pub order: Order,
    /// Correction variant.
    pub correction: CorrectionSpec,
    /// Synchronized or overlapped.
    pub start: StartMode,
    /// Dual- or single-port.
    pub model: PortModel,
    /// `L`.
    pub latency: Time,
    /// `o`.
    pub overhead: Time,
    /// First correction side.
    pub first_side: Side,
    /// Failures before the operation.
    pub faults: Faults,
}

/// A point ready to run: its tree, configuration and (when it applies) the fast path.
#[derive(Debug)]
pub struct Prepared {
    config: CorrectedTreeConfig,
    spec: ScenarioSpec,
    fast: Option<SyncChecked>,
}

/// A point whose parameters do not describe a run.
#[derive(Clone, Debug, PartialEq)]
pub struct PointError(pub String);

/// A point of a reproduction whose runs can be cut into independent chunks (CT's [`Prepared`]
/// points, CG's and FTCO's points): what an [`Executor`] needs to run a batch in any order and
/// merge the results.
pub trait BatchPoint: Sync {
    /// The exact statistics of some runs; merging is order-independent. They serialize, so
    /// that an executor can run a batch's chunks in other processes (the MPI crate's does).
    type Stats: Clone + Default + Send + serde::Serialize + serde::de::DeserializeOwned;
    /// Relative cost of one run (executors start the costliest chunks first).
    fn cost(&self) -> u64;
    /// Runs `first..first + runs` with `seed`.
    fn run_many(&self, seed: u64, first: u64, runs: u64) -> Result<Self::Stats, PointError>;
    /// Adds `other` into `into`.
    fn merge(into: &mut Self::Stats, other: &Self::Stats);
    /// How many runs an executor puts in one chunk.
    fn chunk_runs(&self) -> u64 {
        16
    }
}

/// One point's share of a batch: runs `0..runs`.
#[derive(Clone, Copy, Debug)]
pub struct Job<'a, P> {
    /// Names the point (progress displays, errors).
    pub label: &'a str,
    /// The point.
    pub point: &'a P,
    /// How many runs.
    pub runs: u64,
}

/// Runs batches of independent points (the CLI: chunks of runs in parallel, the costliest
/// first, with progress).
pub trait Executor<P: BatchPoint> {
    /// Runs every job with `seed`; the statistics in job order.
    fn run(&mut self, seed: u64, jobs: &[Job<'_, P>]) -> Result<Vec<P::Stats>, PointError>;
}

/// An [`Executor`] that runs everything on the calling thread.
#[derive(Clone, Copy, Debug, Default)]
pub struct Serial;

impl<P: BatchPoint> Executor<P> for Serial {
    fn run(&mut self, seed: u64, jobs: &[Job<'_, P>]) -> Result<Vec<P::Stats>, PointError> {
        jobs.iter()
            .map(|j| j.point.run_many(seed, 0, j.runs))
            .collect()
    }
}

impl Point {
    /// A point of `procs` processes on `tree` with `correction`, the other parameters those of
    /// `ftcoll simulate` without their flags: interleaved numbering, synchronized start,
    /// dual-port LogP with `L = 2`, `o = 1` (the papers' default), left side first, no failures.
    /// Change them through the public fields; [`Point::prepare`] checks them.
    pub fn new(procs: u32, tree: TreeKind, correction: CorrectionSpec) -> Self {
        let logp = LogP::default();
        Self {
            procs,
            tree,
            order: Order::Interleaved,
            correction,
            start: StartMode::Synchronized,
            model: PortModel::DualPort,
            latency: logp.latency(),
            overhead: logp.overhead(),
            first_side: Side::Left,
            faults: Faults::None,
        }
    }

    /// Builds the tree, the protocol configuration and, when `fast` allows it and the point is
    /// synchronized checked correction under dual-port LogP, the fast path tables.
    pub fn prepare(&self, fast: bool) -> Result<Prepared, PointError> {
        let logp =
            LogP::new(self.latency, self.overhead).map_err(|e| PointError(format!("{e}")))?;
        let tree = Tree::new(self.tree, self.order, self.procs, logp)
            .map_err(|e| PointError(format!("{e}")))?;
        let mut config = CorrectedTreeConfig::new(tree, self.correction, self.start);
        config.first_side = self.first_side;
        let faults = self.faults.spec(self.procs);
        if let FaultSpec::Count(n) = faults {
            if n >= self.procs {
                return Err(PointError(format!(
                    "faults: {n} failed processes out of P = {}: allowed 0..={}",
                    self.procs,
                    self.procs - 1
                )));
            }
        }
        let spec = ScenarioSpec {
            procs: self.procs,
            logp,
            model: self.model,
            immune: 1,
            faults,
            crash_at: Vec::new(),
            arrivals: ArrivalSpec::None,
            ignored: IgnoredMessages::Charged,
        };
        let fast = (fast && self.takes_fast_path())
            .then(|| SyncChecked::new(&config.tree, self.first_side));
        Ok(Prepared { config, spec, fast })
    }
}

impl Point {
    /// Whether [`Point::prepare`]`(true)` takes the fast path (exact for synchronized checked
    /// correction without acknowledgments under dual-port LogP); its runs then need the fast
    /// path's `O(P)` tables, shared, instead of the full simulator per thread.
    pub fn takes_fast_path(&self) -> bool {
        fast_path_applies(self.correction, self.start, self.model)
    }
}

/// Whether the exact fast path ([`SyncChecked`]) gives the metrics of Corrected Tree runs with
/// `correction` started `start` under `model` whose only faults are failures before the
/// operation and whose processes all arrive at 0: synchronized checked correction without
/// acknowledgments under dual-port LogP (`lab/tests/protocols/fastpath.rs` compares it with the driver).
pub fn fast_path_applies(correction: CorrectionSpec, start: StartMode, model: PortModel) -> bool {
    correction == CorrectionSpec::Checked
        && start == StartMode::Synchronized
        && model == PortModel::DualPort
}

/// [`fast_path_applies`] for the runs of `spec`: also no crash during the operation and every
/// process arriving at 0 (the fast path's setting). `ftcoll sweep` and `ftcoll simulate` choose
/// their engine with it.
pub fn fast_path_applies_to(
    correction: CorrectionSpec,
    start: StartMode,
    spec: &ScenarioSpec,
) -> bool {
    fast_path_applies(correction, start, spec.model)
        && spec.crash_at.is_empty()
        && matches!(spec.arrivals, ArrivalSpec::None)
}

/// A prepared point runs its chunks with a fresh [`Workspace`] each (64 runs to a chunk), its
/// cost being `P` (CT's points, [`ct::reproduce`]).
impl BatchPoint for Prepared {
    type Stats = PointStats;

    fn cost(&self) -> u64 {
        u64::from(self.spec.procs)
    }

    fn run_many(&self, seed: u64, first: u64, runs: u64) -> Result<PointStats, PointError> {
        let mut ws = Workspace::new();
        let mut stats = PointStats::default();
        for run in first..first + runs {
            stats.add(&self.run(seed, run, &mut ws)?);
        }
        Ok(stats)
    }

    fn merge(into: &mut PointStats, other: &PointStats) {
        into.merge(other);
    }

    fn chunk_runs(&self) -> u64 {
        64
    }
}

impl Prepared {
    /// The tree's fault-free deadline.
    pub fn deadline(&self) -> Time {
        self.config.tree.deadline()
    }

    /// Whether runs take the fast path.
    pub fn is_fast(&self) -> bool {
        self.fast.is_some()
    }

    /// Run `run` of `seed`. `ws` is scratch space (keep one per thread).
    pub fn run(&self, seed: u64, run: u64, ws: &mut Workspace) -> Result<CtMetrics, PointError> {
        let procs = self.spec.procs;
        match &self.fast {
            Some(engine) => {
                let (failed, _) = self
                    .spec
                    .draw_failed(seed, run)
                    .map_err(|e| PointError(format!("{e}")))?;
                engine
                    .run(ws, &failed)
                    .map_err(|e| PointError(format!("{e}")))
            }
            None => {
                let (scenario, failed) = self
                    .spec
                    .build(seed, run)
                    .map_err(|e| PointError(format!("{e}")))?;
                let budget = sim::default_budget(procs);
                let report = sim::run::<CorrectedTreeNode>(&self.config, procs, &scenario, budget)
                    .map_err(|e| PointError(format!("simulation: {e}")))?;
                Ok(CtMetrics::from_report(
                    &report,
                    self.deadline(),
                    failed.len() as u64,
                ))
            }
        }
    }
}

/// One series of a chart: a line through its points (the default), or its points alone
/// ([`ChartSeries::scatter`]), optionally with whiskers (error bars).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChartSeries {
    /// Legend.
    pub name: String,
    /// `(x, y)` points.
    pub points: Vec<(f64, f64)>,
    /// Whiskers: `(low, high)` of each point, in the order of `points` (empty: none). They
    /// widen the y axis to fit.
    pub whiskers: Vec<(f64, f64)>,
    /// Points only, no line (e.g. every observed pair of two metrics).
    pub scatter: bool,
}

impl ChartSeries {
    /// A line through `points`, without whiskers.
    pub fn line(name: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Self {
            name: name.into(),
            points,
            ..Self::default()
        }
    }
}

/// A chart of lines (and scattered points) for the caller to draw (the CLI writes SVG).
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    /// File name without directory, e.g. `fig7_fault_free_latency.svg`.
    pub file: String,
    /// Title.
    pub title: String,
    /// X axis label.
    pub x_label: String,
    /// Y axis label.
    pub y_label: String,
    /// Lines and point sets, drawn in order (colors follow the order).
    pub series: Vec<ChartSeries>,
    /// Logarithmic x axis.
    pub log_x: bool,
    /// Logarithmic y axis.
    pub log_y: bool,
}

/// What a paper's `reproduce` gives ([`ct::reproduce`], [`ftco::reproduce`], [`cg::reproduce`],
/// [`pap::reproduce`]): the report and every data file, for the caller to write.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Output {
    /// The report (`ct.md`, `ftco.md`, `cg.md`, `pap.md`), without the closing line on run time
    /// (the caller measures it).
    pub markdown: String,
    /// `(file name, CSV text)`, written beside the charts.
    pub csv: Vec<(String, String)>,
    /// Charts.
    pub charts: Vec<Chart>,
    /// Runs made.
    pub runs: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CG §IV.D runs 10⁶ runs per Table 7 row and FTCO §5.2 10⁴ per Fig. 8–9 point; the paper
    /// scale changes those counts and nothing else of the full scale.
    #[test]
    fn the_paper_scale_is_the_full_one_but_for_the_published_run_counts() {
        let (paper, full) = (cg::Scale::of(Mode::Paper), cg::Scale::of(Mode::Full));
        assert_eq!(
            (paper.table7_runs, paper.table7_charged_runs),
            (1_000_000, 100_000)
        );
        let cg_rest = cg::Scale {
            table7_runs: full.table7_runs,
            table7_charged_runs: full.table7_charged_runs,
            ..paper
        };
        assert_eq!(cg_rest, full);
        let (paper, full) = (ftco::Scale::of(Mode::Paper), ftco::Scale::of(Mode::Full));
        assert_eq!(paper.fig8_runs, 10_000);
        assert_eq!(
            ftco::Scale {
                fig8_runs: full.fig8_runs,
                ..paper
            },
            full
        );
        assert_eq!(Mode::Paper.full_for_paper(), Mode::Full);
        assert_eq!(Mode::Quick.full_for_paper(), Mode::Quick);
    }

    #[test]
    fn every_reproduction_is_found_by_its_name_and_the_names_are_distinct() {
        let names: Vec<&str> = REPRODUCTIONS.iter().map(|r| r.name).collect();
        assert_eq!(names, ["ct", "ftco", "pap", "cg"]);
        for r in REPRODUCTIONS {
            assert_eq!(reproduction(r.name).map(|f| f.name), Some(r.name));
        }
        assert!(reproduction("CT").is_none());
    }

    #[test]
    fn the_registry_runs_the_papers_module() {
        let by_registry =
            (reproduction("ct").unwrap().run)(Mode::Smoke, 3, &mut Serial, &|| 0.0).unwrap();
        let direct = ct::reproduce(Mode::Smoke, 3, &mut Serial, &|| 0.0).unwrap();
        assert_eq!(by_registry, direct);
        // PAP has no smaller scale than its quick one.
        let smoke = (reproduction("pap").unwrap().run)(Mode::Smoke, 2, &mut Serial, &|| 0.0);
        assert_eq!(smoke, pap::reproduce(Mode::Quick, 2, &mut Serial));
    }
}
