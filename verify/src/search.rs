//! Beyond exhaustive bounds: a guided random search of the timed model.
//!
//! Exhaustive BFS stops near P = 10. Failures that need more room — checked correction losing a
//! process when correctors crash *during* correction needs gaps on both sides of it, which the
//! smallest known case fits in P = 34 — are searched for by random walks through the same
//! [`TimedModel`]: the same initial states, the same `Step`/`Crash` actions, the same property
//! predicates checked in every state of the walk (stateright's simulation checker does the
//! same; this one draws its walks from a fixed seed, one stream per walk, so a verdict and its
//! trace are reproducible on any number of threads).
//!
//! A walk draws `pre` crashes before the operation (uniform over the crashable ranks) and
//! up to `during` crashes at instants of the operation. The instants are spread evenly over the
//! fault-free run's correction window (from full coloring to quiescence), and the victim is
//! *guided* by the family's [`TimedModel::guide`]: pairs of processes a still-uncovered part of
//! the operation depends on — for the ring corrections (`corrected_tree::ring_gaps`), the two
//! ends of each gap, a gap being a ring run of processes without the payload with a live one in
//! it. With probability 7/8 a crash takes the other end of the pair the previous crash hit,
//! else with probability 7/8 an end of a random pair, else any live crashable process; a family
//! without a guide gets uniform victims. This module knows no protocol.
//! The guide only biases which paths are tried; every violation found is a real path of the
//! model.
//!
//! A violation is then **minimized**: crashes are dropped while the same property still fails,
//! then each crash during the operation is moved as early as it still fails, then the crashes
//! before the operation are replaced by smaller ranks. The result is replayed with tracing on.
//! A search that finds nothing says "not violated in N walks": a bounded claim, never "holds".

use ftcoll::automaton::Automaton;
use ftcoll::rng::SplitMix64;
use ftcoll::{Rank, Time};

use crate::timed::{Expectation, TimedModel, TimedState};

/// How to search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SearchOptions {
    /// Random walks to try.
    pub walks: u64,
    /// Seed of the walks (walk `i` uses stream `i` of it).
    pub seed: u64,
    /// Crashes before the operation in every walk (at most the model's `f`).
    pub pre: u32,
    /// Most crashes during the operation in one walk (at most `f − pre`; the walk spreads them
    /// over the correction window, so a short run may end with fewer).
    pub during: u32,
    /// Whether victims are guided to the frontiers of holes (else uniform).
    pub guided: bool,
    /// Worker threads.
    pub threads: u32,
}

impl Default for SearchOptions {
    fn default() -> Self {
        Self {
            walks: 2000,
            seed: 1,
            pre: 3,
            during: 2,
            guided: true,
            threads: 1,
        }
    }
}

/// A violation found by the search, minimized.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The violated property.
    pub property: &'static str,
    /// Crashes before the operation.
    pub pre: Vec<Rank>,
    /// Crashes during the operation: `(rank, instant it is dead from)`.
    pub during: Vec<(Rank, Time)>,
    /// The first walk (by index) that violated the property.
    pub walk: u64,
    /// The minimized counterexample, replayed with tracing on.
    pub trace: Vec<String>,
}

/// What a search found.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// Walks tried.
    pub walks: u64,
    /// Walks that violated some property.
    pub violating_walks: u64,
    /// One minimized violation per violated property, in the family's property order.
    pub found: Vec<Found>,
    /// Wall time.
    pub seconds: f64,
}

/// A crash schedule: the ranks crashed before the operation, and `(rank, instant)` crashes
/// during it.
pub type Schedule = (Vec<Rank>, Vec<(Rank, Time)>);

impl<A> TimedModel<A>
where
    A: Automaton + Send + Sync + 'static,
    A::Msg: Send + Sync,
    A::Config: Send + Sync + 'static,
    A::Value: Send + Sync,
{
    /// Runs the guided random search (module documentation).
    pub fn search(&self, options: &SearchOptions) -> SearchResult {
        let started = std::time::Instant::now();
        let window = self.crash_window();
        let threads = options.threads.max(1) as u64;
        // Walk i goes to thread i mod threads; results are merged by walk index.
        let per_thread: Vec<Vec<(u64, &'static str, Schedule)>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    scope.spawn(move || {
                        let mut hits = Vec::new();
                        let mut i = t;
                        while i < options.walks {
                            let mut rng = SplitMix64::stream(options.seed, i);
                            if let Some((property, schedule)) = self.walk(&mut rng, options, window)
                            {
                                hits.push((i, property, schedule));
                            }
                            i += threads;
                        }
                        hits
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("search thread"))
                .collect()
        });
        let mut hits: Vec<(u64, &'static str, Schedule)> =
            per_thread.into_iter().flatten().collect();
        hits.sort_by_key(|(i, _, _)| *i);
        let violating_walks = hits.len() as u64;
        let mut found = Vec::new();
        for p in self
            .properties
            .iter()
            .filter(|p| p.expectation == Expectation::Always)
        {
            let Some((walk, _, (pre, during))) = hits.iter().find(|(_, q, _)| *q == p.name) else {
                continue;
            };
            let (pre, during) = self.minimize(p.condition, pre.clone(), during.clone());
            let (_, trace) = self.describe_run(
                &pre,
                &during,
                format!(
                    "before the operation: ranks {pre:?} crash; during it: {during:?} (rank, instant it is dead from)"
                ),
            );
            found.push(Found {
                property: p.name,
                pre,
                during,
                walk: *walk,
                trace,
            });
        }
        SearchResult {
            walks: options.walks,
            violating_walks,
            found,
            seconds: started.elapsed().as_secs_f64(),
        }
    }

    /// The crash window: the fault-free run's instants from the moment every process holds
    /// the payload (dissemination is over, correction is under way) to quiescence, as (first
    /// instant, instants in the window).
    fn crash_window(&self) -> (Time, u64) {
        let mut times = Vec::new();
        let end = self.run_crashes(&[], &[], |s| {
            times.extend(s.sim.next_time().filter(|&t| t <= self.horizon));
            true
        });
        let colored = end.sim.report().coloring_latency();
        let first = times
            .iter()
            .copied()
            .find(|&t| t >= colored)
            .unwrap_or(colored);
        let inside = times.iter().filter(|&&t| t >= first).count() as u64;
        (first, inside.max(1))
    }

    /// The state right before the first instant at or after `until`, with `pre` crashed
    /// before the operation.
    fn run_until(&self, pre: &[Rank], until: Time) -> TimedState<A> {
        self.run_crashes(pre, &[], |s| s.sim.next_time().is_some_and(|t| t < until))
    }

    /// The first `always` property `state` violates.
    fn violated(&self, state: &TimedState<A>) -> Option<&'static str> {
        // Claims about whole runs read the end state only; skip them until the run ends.
        let ended = state.sim.next_time().is_none() || state.error.is_some();
        self.properties
            .iter()
            .filter(|p| p.expectation == Expectation::Always && (ended || !p.at_quiescence))
            .find(|p| !(p.condition)(self, state))
            .map(|p| p.name)
    }

    fn walk(
        &self,
        rng: &mut SplitMix64,
        options: &SearchOptions,
        (first, window): (Time, u64),
    ) -> Option<(&'static str, Schedule)> {
        let budget = self.max_crashes;
        // Every walk uses the whole crash budget (the hardest case; the minimizer drops what a
        // violation does not need).
        let pre_count = options.pre.min(budget);
        let mut pre: Vec<Rank> = Vec::new();
        for _ in 0..pre_count.min(self.crashable.len() as u32) {
            // The first crash is uniform; each further one, if guided, widens a gap the
            // earlier ones left after dissemination: it takes a gap's end (7/8).
            let mut victim = None;
            if options.guided && !pre.is_empty() && rng.below(8) != 0 {
                let after = self.run_until(&pre, first);
                let ends: Vec<Rank> = self
                    .guide
                    .map_or_else(Vec::new, |guide| guide(self, &after))
                    .into_iter()
                    .flat_map(|(l, r)| [l, r])
                    .filter(|r| self.crashable.binary_search(r).is_ok() && !pre.contains(r))
                    .collect();
                if !ends.is_empty() {
                    victim = Some(ends[rng.below(ends.len() as u64) as usize]);
                }
            }
            let victim = victim.unwrap_or_else(|| loop {
                let r = self.crashable[rng.below(self.crashable.len() as u64) as usize];
                if !pre.contains(&r) {
                    break r;
                }
            });
            pre.push(victim);
        }
        pre.sort_unstable();
        let mut state = self.initial_state(&pre);
        let mut during = Vec::new();
        let during_max = options.during.min(budget - pre.len() as u32);
        // Each remaining crash falls at an instant of the window with probability
        // remaining / window instants left: an even spread over the correction.
        let mut instant = 0u64;
        let mut partner = None;
        loop {
            if let Some(property) = self.violated(&state) {
                return Some((property, (pre, during)));
            }
            let time = state.sim.next_time().filter(|&t| t <= self.horizon)?;
            if time >= first {
                let left = u64::from(during_max - during.len() as u32);
                let span = window.saturating_sub(instant).max(1);
                if left > 0 && rng.below(span) < left {
                    if let Some((victim, other)) =
                        self.guided_victim(&state, rng, options.guided, partner)
                    {
                        state.sim.crash(victim, time);
                        state.crashes += 1;
                        during.push((victim, time));
                        partner = other;
                    }
                }
                instant += 1;
            }
            self.step(&mut state);
        }
    }

    /// A live crashable process (module documentation): with probability 7/8 the other end of
    /// the gap the previous victim bounded, else with probability 7/8 an end of a random gap,
    /// else any. Returns the victim and the other end of its gap.
    fn guided_victim(
        &self,
        state: &TimedState<A>,
        rng: &mut SplitMix64,
        guided: bool,
        partner: Option<Rank>,
    ) -> Option<(Rank, Option<Rank>)> {
        let crashable_live =
            |r: Rank| !state.sim.has_crashed(r) && self.crashable.binary_search(&r).is_ok();
        if guided {
            if let Some(p) = partner.filter(|&p| crashable_live(p)) {
                if rng.below(8) != 0 {
                    return Some((p, None));
                }
            }
            let gaps = self.guide.map_or_else(Vec::new, |guide| guide(self, state));
            if !gaps.is_empty() && rng.below(8) != 0 {
                let (left, right) = gaps[rng.below(gaps.len() as u64) as usize];
                let ends: Vec<(Rank, Rank)> = [(left, right), (right, left)]
                    .into_iter()
                    .filter(|&(v, _)| crashable_live(v))
                    .collect();
                if !ends.is_empty() {
                    let (victim, other) = ends[rng.below(ends.len() as u64) as usize];
                    return Some((victim, Some(other)));
                }
            }
        }
        let live: Vec<Rank> = self
            .crashable
            .iter()
            .copied()
            .filter(|&r| !state.sim.has_crashed(r))
            .collect();
        if live.is_empty() {
            return None;
        }
        Some((live[rng.below(live.len() as u64) as usize], None))
    }

    /// Whether the schedule's run reaches a state violating `condition`.
    fn fails(
        &self,
        condition: fn(&Self, &TimedState<A>) -> bool,
        pre: &[Rank],
        during: &[(Rank, Time)],
    ) -> bool {
        let mut failed = false;
        self.run_crashes(pre, during, |s| {
            failed = !condition(self, s);
            !failed
        });
        failed
    }

    /// The schedule `pre`/`during` minimized for `condition` ([`Self::search`]'s rule: fewer
    /// crashes, then earlier instants, then smaller ranks), or `None` when its run does not
    /// violate `condition` (replayed as a schedule: crashes before the first instant at or
    /// after their time).
    pub fn minimized(
        &self,
        condition: fn(&Self, &TimedState<A>) -> bool,
        pre: &[Rank],
        during: &[(Rank, Time)],
    ) -> Option<Schedule> {
        self.fails(condition, pre, during)
            .then(|| self.minimize(condition, pre.to_vec(), during.to_vec()))
    }

    /// Fewer crashes, then earlier crash instants, then smaller ranks before the operation,
    /// each step kept only while `condition` still fails, repeated until nothing changes (a
    /// smaller rank can make another crash unnecessary).
    fn minimize(
        &self,
        condition: fn(&Self, &TimedState<A>) -> bool,
        mut pre: Vec<Rank>,
        mut during: Vec<(Rank, Time)>,
    ) -> Schedule {
        loop {
            let next = self.minimize_once(condition, pre.clone(), during.clone());
            if next == (pre.clone(), during.clone()) {
                return next;
            }
            (pre, during) = next;
        }
    }

    fn minimize_once(
        &self,
        condition: fn(&Self, &TimedState<A>) -> bool,
        mut pre: Vec<Rank>,
        mut during: Vec<(Rank, Time)>,
    ) -> Schedule {
        // Drop crashes, one at a time, until none can go.
        let mut changed = true;
        while changed {
            changed = false;
            for i in 0..during.len() {
                let mut d = during.clone();
                d.remove(i);
                if self.fails(condition, &pre, &d) {
                    during = d;
                    changed = true;
                    break;
                }
            }
            if changed {
                continue;
            }
            for i in 0..pre.len() {
                let mut p = pre.clone();
                p.remove(i);
                if self.fails(condition, &p, &during) {
                    pre = p;
                    changed = true;
                    break;
                }
            }
        }
        // Earliest instants: a crash moved before the operation counts as a pre crash.
        for i in 0..during.len() {
            while during[i].1 > 0 {
                let mut d = during.clone();
                d[i].1 -= 1;
                if !self.fails(condition, &pre, &d) {
                    break;
                }
                during = d;
            }
        }
        let (now_pre, rest): (Vec<_>, Vec<_>) = during.iter().partition(|&&(_, t)| t == 0);
        pre.extend(now_pre.iter().map(|&(r, _)| r));
        during = rest;
        pre.sort_unstable();
        // Smaller ranks before the operation.
        for i in 0..pre.len() {
            for candidate in self.crashable.iter().copied().filter(|&r| r < pre[i]) {
                if pre.contains(&candidate) || during.iter().any(|&(r, _)| r == candidate) {
                    continue;
                }
                let mut p = pre.clone();
                p[i] = candidate;
                p.sort_unstable();
                if self.fails(condition, &p, &during) {
                    pre = p;
                    break;
                }
            }
        }
        during.sort_by_key(|&(r, t)| (t, r));
        (pre, during)
    }
}
