//! Shared helpers for the `sim_*` integration tests (LogP driver and Corrected Tree broadcast).
//!
//! The helpers only build inputs (trees, configurations, scenarios, random failure sets) and
//! independent oracles; no expected value is taken from the code under test. The one exception
//! is the shape of a tree (parent links), which is validated by the separate topology suites and
//! is an *input* to every protocol test here.
#![allow(dead_code)]

use ftcoll::automaton::Phase;
use ftcoll::protocols::corrected_tree::{
    CorrectedTreeConfig, CorrectedTreeNode, CorrectionSpec, StartMode,
};
use ftcoll::topology::{LogP, Order, Tree, TreeKind};
use ftcoll::{Rank, Time};
use ftcoll_sim::{Report, Scenario, SimError};

/// `LogP::new(l, o)`, panicking on invalid parameters (tests only pass valid ones).
pub fn logp(l: u64, o: u64) -> LogP {
    LogP::new(l, o).expect("valid LogP parameters")
}

/// A tree of `p` processes for `(L, o)`.
pub fn tree(kind: TreeKind, order: Order, p: u32, l: u64, o: u64) -> Tree {
    Tree::new(kind, order, p, logp(l, o)).expect("valid tree parameters")
}

/// A Corrected Tree configuration with CT's defaults (left first, no acks).
pub fn config(tree: Tree, correction: CorrectionSpec, start: StartMode) -> CorrectedTreeConfig {
    CorrectedTreeConfig::new(tree, correction, start)
}

/// A scenario where the ranks in `failed` crash before the operation (time 0).
pub fn scenario(l: u64, o: u64, failed: &[Rank]) -> Scenario {
    Scenario {
        logp: logp(l, o),
        crashes: failed.iter().map(|&r| (r, 0)).collect(),
        ..Default::default()
    }
}

/// Runs a Corrected Tree broadcast to quiescence with a generous event budget.
pub fn try_run(cfg: &CorrectedTreeConfig, scenario: &Scenario) -> Result<Report, SimError> {
    let p = cfg.tree.procs();
    let budget = 200 * u64::from(p) * u64::from(p).max(64) + 1_000_000;
    ftcoll_sim::run::<CorrectedTreeNode>(cfg, p, scenario, budget)
}

/// [`try_run`], panicking with the configuration and scenario if the run fails.
pub fn run(cfg: &CorrectedTreeConfig, scenario: &Scenario) -> Report {
    try_run(cfg, scenario).unwrap_or_else(|e| {
        panic!(
            "simulation failed: {e}\n tree {} {} P={} correction {:?} start {:?}\n scenario {:?}",
            cfg.tree.kind(),
            cfg.tree.order(),
            cfg.tree.procs(),
            cfg.correction,
            cfg.start,
            scenario
        )
    })
}

/// The tree kinds the protocol tests sweep over (interleaved unless stated).
pub fn tree_zoo() -> Vec<(TreeKind, Order)> {
    vec![
        (TreeKind::Lame(2), Order::Interleaved),
        (TreeKind::Binomial, Order::Interleaved),
        (TreeKind::KAry(2), Order::Interleaved),
        (TreeKind::KAry(4), Order::Interleaved),
        (TreeKind::Lame(3), Order::Interleaved),
        (TreeKind::Optimal, Order::Interleaved),
        (TreeKind::Lame(2), Order::InOrder),
        (TreeKind::KAry(3), Order::InOrder),
    ]
}

/// Oracle: which ranks the tree phase colors when `failed` crash before the operation — a live
/// rank none of whose ancestors failed (CT §3.2; failed processes "send no messages and leave
/// their child processes uncolored"). Computed by walking parent links.
pub fn tree_colored(tree: &Tree, failed: &[Rank]) -> Vec<bool> {
    let p = tree.procs() as usize;
    let mut dead = vec![false; p];
    for &f in failed {
        dead[f as usize] = true;
    }
    // Walk the whole parent chain of every rank (no assumption on how ranks are numbered).
    (0..p)
        .map(|r| {
            if dead[r] {
                return false;
            }
            let mut at = r as Rank;
            while let Some(parent) = tree.parent(at) {
                if dead[parent as usize] {
                    return false;
                }
                at = parent;
            }
            at == 0
        })
        .collect()
}

/// Ring distance between `a` and `b` on a ring of `p`, the shorter way round.
pub fn ring_distance(a: Rank, b: Rank, p: u32) -> u32 {
    let d = (a + p - b) % p;
    d.min(p - d)
}

/// Which ranks are live (not in `failed`).
pub fn live_mask(p: u32, failed: &[Rank]) -> Vec<bool> {
    let mut live = vec![true; p as usize];
    for &f in failed {
        live[f as usize] = false;
    }
    live
}

/// Live ranks that never delivered.
pub fn uncolored_live(report: &Report) -> Vec<Rank> {
    (0..report.procs)
        .filter(|&r| report.is_live(r) && report.delivered_at(r).is_none())
        .collect()
}

/// Correction messages of the whole run.
pub fn correction_messages(report: &Report) -> u64 {
    report.messages_in(Phase::Correction)
}

/// A test-local SplitMix64 (independent of `ftcoll::rng`).
#[derive(Clone, Debug)]
pub struct SeededRng(u64);

impl SeededRng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (slightly biased; fine for test inputs).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// Between `min` and `max` (inclusive) distinct non-root ranks of `0..p`, ascending.
    pub fn failures_between(&mut self, p: u32, min: u32, max: u32) -> Vec<Rank> {
        let count = min + self.below(u64::from(max.saturating_sub(min)) + 1) as u32;
        self.failures(p, count)
    }

    /// `count` distinct non-root ranks of `0..p`, ascending.
    pub fn failures(&mut self, p: u32, count: u32) -> Vec<Rank> {
        let count = count.min(p.saturating_sub(1));
        let mut chosen = Vec::with_capacity(count as usize);
        while chosen.len() < count as usize {
            let r = 1 + self.below(u64::from(p - 1)) as Rank;
            if !chosen.contains(&r) {
                chosen.push(r);
            }
        }
        chosen.sort_unstable();
        chosen
    }
}

/// Checked correction's fault-free duration and per-process message count under this driver's
/// timing (derivation in `sim_lemmas.rs`): `m = min(3 + ceil(L/o), P - 1)` messages, the last
/// one received `(m + 1)·o + L` after the synchronized start.
pub fn checked_fault_free(l: u64, o: u64, p: u32) -> (Time, u64) {
    let n = 3 + l.div_ceil(o);
    let m = n.min(u64::from(p) - 1);
    ((m + 1) * o + l, m)
}
