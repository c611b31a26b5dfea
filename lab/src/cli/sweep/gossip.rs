//! `ftcoll sweep --gossip …`: grids of Corrected Gossip runs (GOS, OCG, CCG, FCG(f) and the BIG
//! and BFB baselines, CG §III–IV), summarized per point like the other families (same
//! statistics, identity line, shards, `merge` and resuming; see [`super::output`]).
//!
//! Axes, outermost first: procs, gossip (the protocol), L, o, gossip time (`auto` or steps),
//! correction time (`auto` or steps; OCG only), δ, faults (count, rate or fraction, before the
//! operation). Run `i` of a point is run `i` of `simulate --gossip … --seed S` with the same
//! parameters: `T` and `C` are resolved once per point as `simulate` resolves them
//! ([`crate::cli::gossip_cmd::timing`]) and shown in the row's `T` and `C` cells (0 where the
//! protocol has none).

use crate::experiment::cg::{CgPoint, CgProtocol, CgRun};
use crate::experiment::Histogram;
use ftcoll::topology::LogP;
use rayon::prelude::*;

use super::Faults;
use crate::cli::flags::gossip::TimeArg;
use crate::cli::gossip_cmd::{timing, Timing};
use crate::cli::UsageError;

/// The values of every Corrected Gossip axis, in output order (the outermost first); none is
/// empty.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct CgGrid {
    /// `--procs`.
    pub procs: Vec<u32>,
    /// `--gossip`: the protocols.
    pub gossip: Vec<CgProtocol>,
    /// `-L`.
    pub latency: Vec<u64>,
    /// `-o`.
    pub overhead: Vec<u64>,
    /// `--gossip-time` (BIG and BFB ignore it).
    pub gossip_time: Vec<TimeArg>,
    /// `--correction-time` (OCG's only).
    pub correction_time: Vec<TimeArg>,
    /// `--delta`.
    pub delta: Vec<f64>,
    /// `--fault-count`, `--fault-rate` or `--fault-fraction`.
    pub faults: Vec<Faults>,
}

/// One point of a Corrected Gossip grid.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct CgGridPoint {
    /// `P`.
    pub procs: u32,
    /// The protocol.
    pub gossip: CgProtocol,
    /// `L`.
    pub latency: u64,
    /// `o`.
    pub overhead: u64,
    /// `T`: `auto` or steps.
    pub gossip_time: TimeArg,
    /// OCG's `C`: `auto` or steps.
    pub correction_time: TimeArg,
    /// δ for `auto`.
    pub delta: f64,
    /// Failures before the operation.
    pub faults: Faults,
}

/// δ as the identity and the rows spell it (`6.9315e-7`: Rust's `{:e}`, which reads back as
/// the same number).
pub(super) fn delta_name(d: f64) -> String {
    format!("{d:e}")
}

impl CgGrid {
    /// The axes' lengths, outermost first.
    fn lens(&self) -> [usize; 8] {
        [
            self.procs.len(),
            self.gossip.len(),
            self.latency.len(),
            self.overhead.len(),
            self.gossip_time.len(),
            self.correction_time.len(),
            self.delta.len(),
            self.faults.len(),
        ]
    }

    /// The number of points (`None` past `u64`).
    pub(super) fn len(&self) -> Option<u64> {
        super::axes_len(&self.lens())
    }

    /// Point `index` (below [`CgGrid::len`]): a mixed-radix number whose last digit is the
    /// faults.
    pub(super) fn point(&self, index: u64) -> CgGridPoint {
        let [procs, gossip, latency, overhead, gossip_time, correction_time, delta, faults] =
            super::axes_digits(index, self.lens());
        CgGridPoint {
            procs: self.procs[procs],
            gossip: self.gossip[gossip],
            latency: self.latency[latency],
            overhead: self.overhead[overhead],
            gossip_time: self.gossip_time[gossip_time],
            correction_time: self.correction_time[correction_time],
            delta: self.delta[delta],
            faults: self.faults[faults],
        }
    }
}

impl CgGridPoint {
    /// The cells `procs` to `faults` of a point's row (what the grid decides).
    pub(super) fn cells(&self) -> Vec<String> {
        vec![
            self.procs.to_string(),
            self.gossip.to_string(),
            self.latency.to_string(),
            self.overhead.to_string(),
            self.gossip_time.to_string(),
            self.correction_time.to_string(),
            delta_name(self.delta),
            self.faults.to_string(),
        ]
    }

    /// The point's scenario and its `T` and `C`, checked as `simulate --gossip` checks them.
    pub(super) fn prepare(&self, seed: u64) -> Result<CgPrepared, UsageError> {
        let procs = self.procs;
        let logp = LogP::new(self.latency, self.overhead)
            .map_err(|e| UsageError(format!("-L/-o: {e}")))?;
        let spec = CgPoint::scenario(procs, logp, self.faults.spec(procs));
        let timing = timing(
            self.gossip,
            &spec,
            seed,
            self.gossip_time,
            self.correction_time,
            self.delta,
        )?;
        Ok(CgPrepared {
            point: CgPoint::new(self.gossip, spec, timing.t, timing.c),
            timing,
        })
    }
}

/// A point ready to run.
#[derive(Debug)]
pub(super) struct CgPrepared {
    point: CgPoint,
    timing: Timing,
}

impl CgPrepared {
    /// The cells the point derives: `T` and `C` as run.
    pub(super) fn derived(&self) -> Vec<String> {
        vec![self.timing.t.to_string(), self.timing.c.to_string()]
    }
}

/// Every metric column group of a Corrected Gossip row, in order: failures drawn before the
/// operation (the sweep has no axis of crashes during it), the coloring and quiescence latencies, Table 7's latency (BFB:
/// the root's completion, else quiescence), messages in all and per phase (dissemination,
/// correction, acknowledgment), live processes not reached, g-nodes, and two indicators per run:
/// `inconsistent` (1 if a live process was not reached: its mean is the share of such runs)
/// and `incomplete` (BFB: 1 if the root never completed).
pub(super) const ALL_METRICS: [&str; 12] = [
    "failed",
    "coloring_latency",
    "quiescence_latency",
    "latency",
    "messages",
    "messages_dissemination",
    "messages_correction",
    "messages_acknowledgment",
    "undelivered",
    "gnodes",
    "inconsistent",
    "incomplete",
];

/// Exact distributions of one Corrected Gossip point's runs.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct CgSweepStats {
    metrics: [Histogram; 12],
}

impl CgSweepStats {
    fn add(&mut self, r: &CgRun) {
        let values = [
            r.faults.len() as u64,
            r.coloring_latency,
            r.quiescence_latency,
            r.latency(),
            r.work(),
            r.messages[0],
            r.messages[1],
            r.messages[2],
            r.undelivered,
            r.gnodes,
            u64::from(r.undelivered > 0),
            u64::from(r.incomplete),
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

    /// The statistics of every metric of [`ALL_METRICS`], formatted: means and deviations with
    /// 4 decimals, percentiles and maxima as integers.
    pub(super) fn summary(&self) -> Vec<[String; 8]> {
        self.metrics
            .iter()
            .map(|h| {
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
            })
            .collect()
    }
}

/// Runs `runs` (run numbers of the seed's streams) of a prepared point in parallel (chunks of 16 runs, merged in any order:
/// the histograms make the summary independent of it); `progress` is called with finished runs.
pub(super) fn run_point(
    prepared: &CgPrepared,
    seed: u64,
    runs: std::ops::Range<u64>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<CgSweepStats, String> {
    const CHUNK: u64 = 16;
    let chunks = (runs.end.saturating_sub(runs.start)).div_ceil(CHUNK);
    (0..chunks)
        .into_par_iter()
        .map(|c| {
            let mut stats = CgSweepStats::default();
            let a = runs.start + c * CHUNK;
            let b = (a + CHUNK).min(runs.end);
            for run in a..b {
                let r = prepared.point.run(seed, run).map_err(|e| e.0)?;
                stats.add(&r);
            }
            progress(b - a);
            Ok(stats)
        })
        .try_reduce(CgSweepStats::default, |mut x, y| {
            x.merge(&y);
            Ok(x)
        })
}
