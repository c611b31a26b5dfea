//! An exact fast path for Corrected Tree broadcast with **synchronized checked correction**
//! under dual-port LogP, every process arriving at 0 and failures before the operation: the
//! setting of CT §4.2–4.3 (Table 1, Fig. 1b, 8, 9, 10). It gives the same [`CtMetrics`] as
//! [`ftcoll_sim::run`] (`lab/tests/protocols/fastpath.rs` compares both on random failure sets) at a small
//! fraction of the cost.
//!
//! # Why it is exact
//!
//! - *Tree phase.* With failures before the operation, every live process whose ancestors are
//!   live receives its tree message at its fault-free time, all of them by the deadline `D`, and
//!   every tree send ends before `D`. The uncolored set is the union of the failed subtrees; the
//!   tree messages are the edges whose parent is colored.
//! - *Correction phase.* Every tree-colored process (a *corrector*) starts at `D` and sends at
//!   `D, D + o, …` until its checked stop rule ends it for good. A corrector whose two ring
//!   neighbours are correctors (*calm*) first hears from them at fixed instants (`2o + L` and
//!   `3o + L` after `D`, before any other message can reach it, with a free receive port), and
//!   checked correction only keeps the nearest distance heard per side, so it sends exactly the
//!   fault-free pattern whatever else it receives.
//! - *Simulation.* Calm correctors' messages are applied in bulk, one pass over the ranks per
//!   tick of the pattern; the other correctors (*deciders*, next to a gap) are simulated message
//!   by message. Receive ports are FIFO with ties broken by sender rank, as in the driver; only
//!   at deciders does the order within an instant matter (which distance is heard first), so a
//!   calm arrival at a decider is merged in rank order with the deciders' messages of its tick.
//! - *Windows.* Each cluster of gaps (runs of failed or uncolored ranks) is simulated in a
//!   window reaching `M` ranks beyond it (`M = R + 1` at first; clusters closer than `2M`
//!   merge), with `R` phantom correctors on each side replaying the
//!   calm pattern (`R` its reach). The window is valid when every message of a non-calm
//!   corrector stays inside it (checked; otherwise the run is redone with a doubled margin):
//!   then every process outside all windows is calm and receives only calm messages, so it
//!   behaves exactly as in the fault-free run. Windows of identical shape give identical
//!   results and are memoized by their pattern.
//! - When windows would cover most of the ring, the whole ring is simulated instead (the same
//!   engine).
//! - *Two phases* (`phased.rs`), taken instead of all the above whenever the configuration
//!   allows it (CT's `L = 2, o = 1` does; [`SyncChecked::is_two_phase`]): when no corrector can
//!   leave the calm pattern before its end, whatever it hears by then, every corrector sends
//!   exactly the pattern first, and what each process receives from it follows from which of
//!   its `R` neighbours on each side correct (a table). Only the deciders' later messages are
//!   simulated, so a run costs time in proportion to the gaps, not to the ring.

mod phased;
mod segment;

use alloc::vec;
use alloc::vec::Vec;

use crate::ct_metrics::CtMetrics;
use ftcoll::protocols::Side;
use ftcoll::topology::{LogP, Tree};
use ftcoll::{Rank, Time};

use phased::{PhaseScratch, Phases};
use segment::{
    calm_pattern, calm_sends, CalmSend, Outcome, Pattern, Scratch, Segment, CORRECTOR, FAILED,
    PHANTOM, UNCOLORED,
};

/// Largest window core (ranks from the first to the last failed or uncolored rank) whose result
/// is memoized: 2 bits per rank, the length and the margin fit a `u128` key.
const MEMO_CORE: usize = 56;
/// Slots of the memo table (a power of two); it is cleared when half full.
const MEMO_SLOTS: usize = 1 << 20;

/// An open-addressing table from window shapes to outcomes (deterministic, no `std`).
#[derive(Clone, Debug, Default)]
struct Memo {
    slots: Vec<(u128, Outcome)>,
    len: usize,
}

impl Memo {
    fn slot(&self, key: u128) -> usize {
        let x = (key as u64) ^ ((key >> 64) as u64).rotate_left(29);
        let h = x.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (h >> 44) as usize & (MEMO_SLOTS - 1)
    }

    fn get(&self, key: u128) -> Option<Outcome> {
        if self.slots.is_empty() {
            return None;
        }
        let mut i = self.slot(key);
        loop {
            let (k, v) = self.slots[i];
            if k == key {
                return Some(v);
            }
            if k == 0 {
                return None;
            }
            i = (i + 1) & (MEMO_SLOTS - 1);
        }
    }

    fn insert(&mut self, key: u128, value: Outcome) {
        if self.slots.is_empty() || self.len >= MEMO_SLOTS / 2 {
            self.clear();
            self.slots.resize(MEMO_SLOTS, (0, Outcome::default()));
        }
        let mut i = self.slot(key);
        while self.slots[i].0 != 0 && self.slots[i].0 != key {
            i = (i + 1) & (MEMO_SLOTS - 1);
        }
        if self.slots[i].0 == 0 {
            self.len += 1;
        }
        self.slots[i] = (key, value);
    }

    fn clear(&mut self) {
        for s in self.slots.iter_mut() {
            s.0 = 0;
        }
        self.len = 0;
    }
}

/// A failure set the fast path cannot take.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FastPathError {
    /// A rank `>= P` or the root.
    BadRank(Rank),
}

impl core::fmt::Display for FastPathError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::BadRank(r) => write!(f, "faults: rank {r} is the root or not below P"),
        }
    }
}

impl std::error::Error for FastPathError {}

/// The precomputed tables of one configuration (tree, `L`, `o`, first side).
#[derive(Clone, Debug)]
pub struct SyncChecked {
    procs: u32,
    logp: LogP,
    first_is_left: bool,
    deadline: Time,
    /// Ranks in depth-first preorder: every subtree is a contiguous run of it.
    preorder: Vec<Rank>,
    /// `[start, end)` of every rank's subtree in `preorder`.
    subtree: Vec<(u32, u32)>,
    /// Ranks by decreasing fault-free receive time.
    by_receive: Vec<Rank>,
    /// `(time, first index in by_receive)` for each distinct receive time, decreasing.
    receive_steps: Vec<(Time, usize)>,
    pattern: Pattern,
    /// The pattern's sends seen from their receivers.
    calm: Vec<CalmSend>,
    /// Fault-free activity of a calm corrector after `D`.
    calm_quiet: Time,
    margin: usize,
    /// The two-phase engine, when it is exact for this configuration and ring.
    phases: Option<Phases>,
}

/// Per-thread buffers and the window memo of a [`SyncChecked`] engine.
#[derive(Clone, Debug, Default)]
pub struct Workspace {
    kinds: Vec<u8>,
    /// One bit per rank: failed or uncolored.
    dark: Vec<u64>,
    runs: Vec<(usize, usize)>,
    clusters: Vec<(usize, usize, usize, Outcome)>,
    window: Vec<u8>,
    scratch: Scratch,
    phased: PhaseScratch,
    memo: Memo,
    /// `(P, L, o, first side)` the memo belongs to: window results depend on nothing else.
    owner: Option<(u32, Time, Time, bool)>,
    /// Windows simulated, windows taken from the memo, whole-ring simulations, two-phase runs.
    pub stats: [u64; 4],
}

impl Workspace {
    /// Empty buffers.
    pub fn new() -> Self {
        Self::default()
    }
}

impl SyncChecked {
    /// Tables for `tree` with synchronized checked correction starting on `first_side`.
    pub fn new(tree: &Tree, first_side: Side) -> Self {
        let procs = tree.procs();
        let logp = tree.logp();
        let n = procs as usize;
        let mut child_start = Vec::with_capacity(n + 1);
        let mut child_list = Vec::with_capacity(n.saturating_sub(1));
        let mut time = vec![0 as Time; n];
        child_start.push(0u32);
        for rank in 0..procs {
            for (i, child) in tree.children(rank).enumerate() {
                child_list.push(child);
                time[child as usize] =
                    time[rank as usize] + i as Time * logp.overhead() + logp.hop();
            }
            child_start.push(child_list.len() as u32);
        }
        // Counting sort by receive time (times are at most the deadline).
        let deadline = tree.deadline();
        let mut count = vec![0usize; deadline as usize + 2];
        for &t in &time {
            count[(deadline - t) as usize + 1] += 1;
        }
        let mut receive_steps = Vec::new();
        for d in 0..=deadline as usize {
            if count[d + 1] > 0 {
                receive_steps.push((deadline - d as Time, count[d]));
            }
            count[d + 1] += count[d];
        }
        let mut by_receive = vec![0 as Rank; n];
        for (r, &t) in time.iter().enumerate() {
            let slot = &mut count[(deadline - t) as usize];
            by_receive[*slot] = r as Rank;
            *slot += 1;
        }
        drop(time);
        // Preorder from the children lists (iterative: trees may be deep).
        let mut preorder = Vec::with_capacity(n);
        let mut subtree = vec![(0u32, 0u32); n];
        let mut stack: Vec<(Rank, bool)> = vec![(0, false)];
        while let Some((rank, done)) = stack.pop() {
            if done {
                subtree[rank as usize].1 = preorder.len() as u32;
                continue;
            }
            subtree[rank as usize].0 = preorder.len() as u32;
            preorder.push(rank);
            stack.push((rank, true));
            let (a, b) = (
                child_start[rank as usize] as usize,
                child_start[rank as usize + 1] as usize,
            );
            stack.extend(child_list[a..b].iter().rev().map(|&c| (c, false)));
        }
        drop((child_start, child_list));
        let pattern = calm_pattern(logp.latency(), logp.overhead());
        let calm_quiet = if pattern.sends.is_empty() {
            0
        } else {
            (pattern.sends.len() as Time + 1) * logp.overhead() + logp.latency()
        };
        let margin = pattern.reach as usize + 1;
        let calm = calm_sends(&pattern, first_side == Side::Left);
        // The two-phase engine needs the calm pattern exact (its sweep fits in the ring) and
        // the ring well beyond what a decider reaches by the end of its table (phase 2a).
        let phases = (pattern.total < u64::from(procs) && n > 4 * (pattern.reach as usize + 1))
            .then(|| {
                Phases::new(
                    &pattern,
                    &calm,
                    logp.latency(),
                    logp.overhead(),
                    first_side == Side::Left,
                )
            })
            .flatten()
            .filter(|phases| n > 2 * phases.reach_2a() as usize + 1);
        Self {
            procs,
            logp,
            first_is_left: first_side == Side::Left,
            deadline: tree.deadline(),
            preorder,
            subtree,
            by_receive,
            receive_steps,
            calm,
            pattern,
            calm_quiet,
            margin,
            phases,
        }
    }

    /// The synchronized start `D` (the tree's fault-free deadline).
    pub fn deadline(&self) -> Time {
        self.deadline
    }

    /// The same engine without the two-phase shortcut: every run goes through windows or the
    /// whole-ring segment simulation. Same metrics, slower; for comparisons and benchmarks.
    pub fn segment_only(mut self) -> Self {
        self.phases = None;
        self
    }

    /// Whether runs take the two-phase engine (see the module documentation).
    pub fn is_two_phase(&self) -> bool {
        self.phases.is_some()
    }

    /// The metrics of the run where the ranks in `failed` fail before the operation.
    pub fn run(&self, ws: &mut Workspace, failed: &[Rank]) -> Result<CtMetrics, FastPathError> {
        let n = self.procs as usize;
        let owner = Some((
            self.procs,
            self.logp.latency(),
            self.logp.overhead(),
            self.first_is_left,
        ));
        if ws.owner != owner {
            ws.memo.clear();
            ws.owner = owner;
        }
        ws.kinds.clear();
        ws.kinds.resize(n, CORRECTOR);
        ws.dark.clear();
        ws.dark.resize(n.div_ceil(64), 0);
        let mut sorted_ok = true;
        for w in failed.windows(2) {
            sorted_ok &= w[0] < w[1];
        }
        let mut owned;
        let failed = if sorted_ok {
            failed
        } else {
            owned = failed.to_vec();
            owned.sort_unstable();
            owned.dedup();
            &owned[..]
        };
        // Uncolored: the union of the failed subtrees (parents have lower ranks, so ascending
        // order meets every top failed rank before its descendants).
        let (mut dark, mut tops) = (0u64, 0u64);
        for &f in failed {
            if f == 0 || f >= self.procs {
                return Err(FastPathError::BadRank(f));
            }
            if ws.kinds[f as usize] != CORRECTOR {
                continue;
            }
            tops += 1;
            let (a, b) = self.subtree[f as usize];
            for &x in &self.preorder[a as usize..b as usize] {
                ws.kinds[x as usize] = UNCOLORED;
                ws.dark[x as usize / 64] |= 1 << (x % 64);
            }
            dark += u64::from(b - a);
        }
        for &f in failed {
            ws.kinds[f as usize] = FAILED;
        }
        // Gaps: maximal runs of non-correctors (rank 0 corrects, so none wraps), from the
        // edges of the dark bitset: a set bit where the kind changes from the rank before.
        ws.runs.clear();
        let (mut carry, mut open) = (0u64, 0usize);
        for (w, &d) in ws.dark.iter().enumerate() {
            let mut edges = d ^ ((d << 1) | carry);
            carry = d >> 63;
            while edges != 0 {
                let i = w * 64 + edges.trailing_zeros() as usize;
                edges &= edges - 1;
                if d >> (i % 64) & 1 == 1 {
                    open = i;
                } else {
                    ws.runs.push((open, i - open));
                }
            }
        }
        if carry == 1 {
            ws.runs.push((open, n - open));
        }
        let gmax = ws.runs.iter().map(|r| r.1).max().unwrap_or(0) as u64;
        let messages_dissemination = u64::from(self.procs) - 1 - (dark - tops);
        let tree_coloring = self
            .by_receive
            .iter()
            .position(|&r| ws.kinds[r as usize] == CORRECTOR)
            .map_or(0, |i| {
                let step = self.receive_steps.partition_point(|&(_, start)| start <= i);
                self.receive_steps[step - 1].0
            });

        let total = self.correction(ws);
        let coloring_latency = match total.colored {
            Some(t) => self.deadline + t,
            None => tree_coloring,
        };
        let quiescence_latency = if total.messages == 0 {
            0 // only P = 1: nothing is ever sent
        } else {
            self.deadline + total.activity
        };
        Ok(CtMetrics {
            faults: failed.len() as u64,
            coloring_latency,
            quiescence_latency,
            correction_latency: quiescence_latency.saturating_sub(self.deadline),
            messages: messages_dissemination + total.messages,
            messages_dissemination,
            messages_correction: total.messages,
            messages_acknowledgment: 0,
            gmax,
            undelivered: total.undelivered,
            participants: total.participants,
        })
    }

    fn segment<'a>(
        &'a self,
        kinds: &'a [u8],
        phantoms: usize,
        circular: bool,
        order_start: usize,
    ) -> Segment<'a> {
        Segment {
            kinds,
            phantoms,
            circular,
            order_start,
            others: self.procs - 1,
            overhead: self.logp.overhead(),
            latency: self.logp.latency(),
            first_is_left: self.first_is_left,
            calm: &self.calm,
        }
    }

    fn whole_ring(&self, ws: &mut Workspace) -> Outcome {
        ws.stats[2] += 1;
        let seg = self.segment(&ws.kinds, 0, true, 0);
        seg.simulate(&self.pattern, &mut ws.scratch)
    }

    /// The correction phase of the whole ring, by windows when they are small enough.
    fn correction(&self, ws: &mut Workspace) -> Outcome {
        let n = self.procs as usize;
        let r = self.pattern.reach as usize;
        let base = self.margin;
        if let Some(phases) = &self.phases {
            ws.stats[3] += 1;
            return phases.simulate(
                &mut ws.kinds,
                &ws.dark,
                &ws.runs,
                self.procs - 1,
                &mut ws.phased,
            );
        }
        if ws.runs.is_empty() || 2 * base + 2 * r + 2 >= n / 4 {
            return self.whole_ring(ws);
        }
        // Dense gaps: windows would cover most of the ring; simulating it whole is cheaper.
        let estimate: usize = ws.runs.iter().map(|&(_, l)| l + 2 * base).sum();
        if estimate >= n {
            return self.whole_ring(ws);
        }
        // One pass over the runs, left to right. A cluster absorbs the next run while their
        // margins (`M = R + 1` ranks at first) would overlap, so windows [first - M, last + M)
        // are disjoint and the R ranks beyond each window are calm correctors. A window whose non-calm sweepers leave it
        // doubles its margin, merging back with finished clusters it now reaches.
        ws.clusters.clear(); // finished: (dark start, dark end, margin, outcome)
        let runs = ws.runs.len();
        let mut next = 0;
        while next < runs {
            let (s0, l0) = ws.runs[next];
            next += 1;
            let mut cluster = (s0, s0 + l0, base);
            loop {
                while next < runs {
                    let (s, l) = ws.runs[next];
                    if s - cluster.1 < cluster.2 + base {
                        cluster = (cluster.0, s + l, cluster.2);
                        next += 1;
                    } else {
                        break;
                    }
                }
                while let Some(&(ps, pe, pm, _)) = ws.clusters.last() {
                    if cluster.0 - pe < pm + cluster.2 {
                        ws.clusters.pop();
                        cluster = (ps, cluster.1, pm.max(cluster.2));
                    } else {
                        break;
                    }
                }
                if cluster.1 - cluster.0 + 2 * cluster.2 + 2 * r + 2 >= n || cluster.2 + r >= n / 4
                {
                    return self.whole_ring(ws);
                }
                let outcome = self.window(ws, cluster.0, cluster.1, cluster.2);
                if outcome.contained {
                    ws.clusters.push((cluster.0, cluster.1, cluster.2, outcome));
                    break;
                }
                cluster.2 *= 2;
            }
        }
        // Across the wrap: merge the last and first windows into one through rank 0.
        while ws.clusters.len() > 1 {
            let (fs, fe, fm, _) = ws.clusters[0];
            let (ls, le, lm, _) = ws.clusters[ws.clusters.len() - 1];
            let between = if fs > le { fs - le } else { n - le + fs };
            if between >= fm + lm {
                break;
            }
            let mut margin = fm.max(lm);
            let (start, end) = (ls, if fs > le { fe } else { fe + n });
            loop {
                if end - start + 2 * margin + 2 * r + 2 >= n || margin + r >= n / 4 {
                    return self.whole_ring(ws);
                }
                let outcome = self.window(ws, start, end, margin);
                if outcome.contained {
                    ws.clusters.pop();
                    ws.clusters[0] = (start, end, margin, outcome);
                    break;
                }
                margin *= 2;
            }
            // The merged window may now reach its neighbours: take the whole ring then.
            let (s, e, m, _) = ws.clusters[0];
            let k = ws.clusters.len();
            if k > 1 {
                let (ns, _, nm, _) = ws.clusters[1];
                let (_, pe, pm, _) = ws.clusters[k - 1];
                if ns + n - e < m + nm || s - pe < m + pm {
                    return self.whole_ring(ws);
                }
            }
        }
        let mut total = Outcome {
            contained: true,
            ..Outcome::default()
        };
        let mut covered = 0;
        for &(start, end, margin, outcome) in &ws.clusters {
            covered += end - start + 2 * margin;
            total.messages += outcome.messages;
            total.participants += outcome.participants;
            total.activity = total.activity.max(outcome.activity);
            total.colored = match (total.colored, outcome.colored) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            };
            total.undelivered += outcome.undelivered;
        }
        // Everyone outside the windows is calm and sees only calm messages.
        let outside = (n - covered) as u64;
        if outside > 0 {
            total.messages += outside * self.pattern.sends.len() as u64;
            if !self.pattern.sends.is_empty() {
                total.participants += outside;
            }
            total.activity = total.activity.max(self.calm_quiet);
        }
        total
    }

    /// Simulates the window around the dark ranks `start..end` (`end` may exceed `P`: wrap).
    fn window(&self, ws: &mut Workspace, start: usize, end: usize, margin: usize) -> Outcome {
        let n = self.procs as usize;
        let r = self.pattern.reach as usize;
        let core = end - start;
        let wraps = end > n || start < margin + r || end + margin + r > n;
        let memo = !wraps && core <= MEMO_CORE && margin < 256;
        // Key: a leading 1 bit, the core's kinds (2 bits each), its length, the margin.
        let mut key = 1u128;
        if memo {
            for &k in &ws.kinds[start..end] {
                key = (key << 2) | u128::from(k);
            }
            key = (key << 14) | ((core as u128) << 8) | margin as u128;
            if let Some(hit) = ws.memo.get(key) {
                ws.stats[1] += 1;
                return hit;
            }
        }
        ws.stats[0] += 1;
        // Positions: R phantoms, M margin, the core, M margin, R phantoms.
        let first = (start + n - margin - r) % n; // rank of position 0
        let len = core + 2 * margin + 2 * r;
        ws.window.clear();
        for j in 0..len {
            let kind = if j < r || j >= len - r {
                PHANTOM
            } else {
                ws.kinds[(first + j) % n]
            };
            ws.window.push(kind);
        }
        // Sends of one tick are made in rank order: from rank 0's position if the window wraps.
        let order_start = if first + len > n { n - first } else { 0 };
        let outcome = {
            let seg = self.segment(&ws.window, r, false, order_start);
            seg.simulate(&self.pattern, &mut ws.scratch)
        };
        if memo {
            ws.memo.insert(key, outcome);
        }
        outcome
    }
}
