//! Every metric of every run of the general driver pinned, so that making the
//! driver faster or smaller cannot change a result unnoticed.
//!
//! 12,000 seeded random configurations of every automaton family the driver runs are run, each
//! both by [`sim::run`] and by a [`Sim::step`] loop (which differ in how they schedule
//! arrivals: `run` takes a message's receive-port turn when it is sent), and a digest of each
//! report is compared with `sim/tests/data/driver_pinned.txt`:
//!
//! - 7,000 Corrected Tree runs: every tree kind, both numberings, all seven corrections, both
//!   start modes, both port models, failures before and crashes during the operation, arrival
//!   patterns, traces;
//! - 1,800 Corrected Gossip runs (GOS, OCG, CCG, FCG) and 1,200 FTCO runs (Bcast, Reduce,
//!   Allreduce) with crashes;
//! - 1,000 traced Corrected Tree runs with one crash one step before, at or after the instant a
//!   message reaches that process (taken from a crash-free run's trace), where a message is
//!   lost or not;
//! - 1,000 runs of a test automaton that juggles timers: several pending at once, cancelled,
//!   set again for the same instant, set for the current instant.
//!
//! That file is a regression pin, not an oracle: it was written by the driver of commit
//! `b74f2b0` (the driver changes before it were checked byte for byte against their
//! predecessors), and the protocols' correctness is checked by the lemma, fast-path and model
//! tests. The digest covers every field of [`Report`] but `events`, which counts the driver's
//! own work (idle send slots already change it, see [`Sim::offer_every_send_slot`]).
//!
//! Mutants this test was run against, each a one-line change of `sim/src/lib.rs` (reverted),
//! with the number of the 12,000 runs that changed: the receive port's start without the
//! receiver's arrival time in `on_arrive` (602) or in the arrival folded into `send` (602);
//! folding a message to a receiver that crashes by its arrival, `alive(to, now)` (831) or
//! `alive(to, arrive - 1)` (481) for `alive(to, arrive)`; `on_timer` matching a timer by its
//! instant alone, without the generation (117); `put_timers` dropping the timers after the first
//! (974). On the first 10,000 runs alone, before the last two families were added: folding
//! without the liveness check changed 373 and `longest_queue` capped at 3 changed 72.
//!
//! To rewrite the file after a change that is meant to change results (say why in the commit):
//! `FTCOLL_WRITE_PINNED=1 cargo test --test driver_pinned`.
//!
//! [`Sim::offer_every_send_slot`]: ftcoll_sim::Sim::offer_every_send_slot

use core::fmt::Debug;
use std::fmt::Write as _;

use ftcoll::automaton::{Automaton, Message, Outbox, Phase, Sum, TimerId};
use ftcoll::protocols::corrected_tree::{
    CorrectedTreeConfig, CorrectedTreeNode, CorrectionSpec, StartMode,
};
use ftcoll::protocols::ftco::{FtcoConfig, FtcoNode};
use ftcoll::protocols::gossip::{Ccg, Fcg, FcgConfig, Gos, GossipConfig, Ocg, OcgConfig};
use ftcoll::protocols::Side;
use ftcoll::rng::SplitMix64;
use ftcoll::topology::ftco::{Collective, FtcoKind, FtcoTopology};
use ftcoll::topology::{LogP, Order, Tree, TreeKind};
use ftcoll::{Rank, Time};
use ftcoll_sim::scenario::{ArrivalSpec, FaultSpec, ScenarioSpec};
use ftcoll_sim::{self as sim, PortModel, Report, Scenario, Sim, SimError, TraceEvent};

const PINNED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/driver_pinned.txt");
const CORRECTED_TREE_RUNS: u64 = 7_000;
const GOSSIP_RUNS: u64 = 1_800;
const FTCO_RUNS: u64 = 1_200;
const CRASH_AT_ARRIVAL_RUNS: u64 = 1_000;
const TIMER_RUNS: u64 = 1_000;

/// FNV-1a, 64 bits: the same digest on every platform and build.
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }

    fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }

    fn option(&mut self, v: Option<u64>) {
        match v {
            Some(v) => {
                self.u64(1);
                self.u64(v);
            }
            None => self.u64(0),
        }
    }

    fn debug(&mut self, v: &impl Debug) {
        let text = format!("{v:?}");
        self.u64(text.len() as u64);
        self.bytes(text.as_bytes());
    }
}

/// A report's metrics as plain values: every per-process metric as one vector, read through
/// the report's methods, so that the digest does not depend on how the report stores them (and
/// the test below can change any one of them).
#[derive(Clone)]
struct Metrics<V> {
    procs: u32,
    root_start: Time,
    delivered_at: Vec<Option<Time>>,
    delivered_value: Vec<Option<V>>,
    deliveries: Vec<u32>,
    by_dissemination: Vec<bool>,
    crashed: Vec<bool>,
    sent: Vec<[u32; 3]>,
    finish: Vec<Time>,
    messages: [u64; 3],
    completions: Vec<(Rank, Time, V)>,
    last_activity: Time,
    lost: u64,
    ignored: u64,
    longest_queue: u64,
    trace: Vec<TraceEvent>,
}

impl<V: Clone> Metrics<V> {
    /// Every metric of `r` but `events`.
    fn of(r: &Report<V>) -> Self {
        let ranks = 0..r.procs;
        Self {
            procs: r.procs,
            root_start: r.root_start,
            delivered_at: ranks.clone().map(|k| r.delivered_at(k)).collect(),
            delivered_value: ranks
                .clone()
                .map(|k| r.delivered_value(k).cloned())
                .collect(),
            deliveries: ranks.clone().map(|k| r.deliveries(k)).collect(),
            by_dissemination: ranks.clone().map(|k| r.by_dissemination(k)).collect(),
            crashed: ranks.clone().map(|k| r.crashed(k)).collect(),
            // Liveness probes folded into the correction phase, where they were counted when
            // the digests were pinned.
            sent: ranks
                .clone()
                .map(|k| {
                    let [d, c, a, l] = r.sent(k);
                    [d, c + l, a]
                })
                .collect(),
            finish: ranks.map(|k| r.finish(k)).collect(),
            messages: [r.messages[0], r.messages[1] + r.messages[3], r.messages[2]],
            completions: r.completions.clone(),
            last_activity: r.last_activity,
            lost: r.lost,
            ignored: r.ignored,
            longest_queue: r.longest_queue,
            trace: r.trace.clone(),
        }
    }
}

/// Every field of the report but `events`, written value by value (not through the report's
/// own `Hash` or `Debug`), so that a change of the report's representation keeps the digest.
fn digest<V: Clone + Debug>(r: &Report<V>) -> u64 {
    digest_metrics(&Metrics::of(r))
}

/// The digest of [`Metrics`]: the same bytes as when the report's fields were these vectors.
fn digest_metrics<V: Debug>(r: &Metrics<V>) -> u64 {
    let mut h = Fnv::new();
    h.u64(u64::from(r.procs));
    h.u64(r.root_start);
    for rank in 0..r.procs as usize {
        h.option(r.delivered_at[rank]);
        match &r.delivered_value[rank] {
            Some(v) => h.debug(v),
            None => h.u64(0),
        }
        h.u64(u64::from(r.deliveries[rank]));
        h.u64(u64::from(r.by_dissemination[rank]));
        h.u64(u64::from(r.crashed[rank]));
        for &s in &r.sent[rank] {
            h.u64(u64::from(s));
        }
        h.u64(r.finish[rank]);
    }
    for &m in &r.messages {
        h.u64(m);
    }
    h.u64(r.completions.len() as u64);
    for (rank, time, value) in &r.completions {
        h.u64(u64::from(*rank));
        h.u64(*time);
        h.debug(value);
    }
    h.u64(r.last_activity);
    h.u64(r.lost);
    h.u64(r.ignored);
    h.u64(r.longest_queue);
    h.u64(r.trace.len() as u64);
    for event in &r.trace {
        h.debug(event);
    }
    h.0
}

/// A run's outcome as pinned: the report's digest, or the error. (The event count in an
/// event-budget error depends on how the run was driven, so only its kind is kept.)
fn outcome<V: Clone + Debug>(result: Result<Report<V>, SimError>) -> String {
    match result {
        Ok(report) => format!("{:016x}", digest(&report)),
        Err(SimError::EventBudget { .. }) => "error: event budget".to_string(),
        Err(e) => format!("error: {e}"),
    }
}

/// The run as a [`Sim::step`] loop: what a model checker or an embedding drives.
fn stepped<A: Automaton>(
    config: &A::Config,
    procs: u32,
    scenario: &Scenario,
) -> Result<Report<A::Value>, SimError> {
    let budget = sim::default_budget(procs);
    let mut sim = Sim::<A>::new(config, procs, scenario)?;
    while sim.next_time().is_some() {
        sim.step(config)?;
        if sim.report().events > budget {
            return Err(SimError::EventBudget {
                events: sim.report().events,
            });
        }
    }
    Ok(sim.report().clone())
}

/// The pinned outcome of one run, by [`sim::run`] and by a [`Sim::step`] loop, which must agree.
fn run<A: Automaton>(config: &A::Config, procs: u32, scenario: &Scenario) -> String
where
    A::Value: Debug,
{
    let by_run = outcome(sim::run::<A>(
        config,
        procs,
        scenario,
        sim::default_budget(procs),
    ));
    let by_step = outcome(stepped::<A>(config, procs, scenario));
    if by_run == by_step {
        by_run
    } else {
        format!("run {by_run} but step {by_step}")
    }
}

fn pick<T: Clone>(rng: &mut SplitMix64, items: &[T]) -> T {
    items[rng.below(items.len() as u64) as usize].clone()
}

/// Crashes during the operation: `count` distinct ranks in `roots..procs` (the roots are
/// fault-immune in every protocol here) at times in `1..=horizon`.
fn crashes_during(
    rng: &mut SplitMix64,
    (roots, procs): (u32, u32),
    count: u64,
    horizon: Time,
) -> Vec<(Rank, Time)> {
    let mut out: Vec<(Rank, Time)> = Vec::new();
    if procs <= roots {
        return out;
    }
    for _ in 0..count {
        let rank = roots + rng.below(u64::from(procs - roots)) as Rank;
        if out.iter().all(|&(r, _)| r != rank) {
            out.push((rank, 1 + rng.below(horizon)));
        }
    }
    out
}

/// One random Corrected Tree run: its description and its digest.
fn corrected_tree(rng: &mut SplitMix64, seed: u64) -> (String, String) {
    let kinds = [
        TreeKind::KAry(2),
        TreeKind::KAry(3),
        TreeKind::Binomial,
        TreeKind::Lame(2),
        TreeKind::Lame(3),
        TreeKind::Optimal,
    ];
    let kind = pick(rng, &kinds);
    let order = pick(rng, &[Order::Interleaved, Order::InOrder]);
    let procs = if rng.chance(10) {
        200 + rng.below(800)
    } else {
        2 + rng.below(150)
    } as u32;
    let o = 1 + rng.below(3);
    let l = rng.below(5);
    let logp = LogP::new(l, o).expect("L and o in range");
    let correction = match rng.below(9) {
        0 => CorrectionSpec::None,
        1 => CorrectionSpec::Opportunistic {
            distance: 1 + rng.below(4) as u32,
        },
        2 => CorrectionSpec::Optimized {
            distance: 1 + rng.below(4) as u32,
        },
        3 | 4 => CorrectionSpec::Checked,
        5 => CorrectionSpec::Delayed {
            delay: rng.below(12),
        },
        6 => CorrectionSpec::FailProof {
            faults: rng.below(4) as u32,
            sos_timeout: None,
            sos_on_full_loop: true,
        },
        7 => CorrectionSpec::FailProof {
            faults: rng.below(3) as u32,
            sos_timeout: Some(rng.below(40)),
            sos_on_full_loop: true,
        },
        _ => CorrectionSpec::Ack,
    };
    let start = pick(rng, &[StartMode::Synchronized, StartMode::Overlapped]);
    let model = if rng.chance(6) {
        PortModel::SinglePort
    } else {
        PortModel::DualPort
    };
    let faults = match rng.below(4) {
        0 => FaultSpec::None,
        1 => FaultSpec::Rate(0.05),
        _ => FaultSpec::Count(rng.below(u64::from(procs / 4) + 2) as u32),
    };
    let crash_at = if rng.chance(3) {
        let count = 1 + rng.below(4);
        crashes_during(rng, (1, procs), count, 40)
    } else {
        Vec::new()
    };
    let arrivals = match rng.below(6) {
        0 => ArrivalSpec::Uniform(rng.below(20)),
        1 => ArrivalSpec::Random {
            max_if: 1 + rng.below(4),
            unit: l + 2 * o,
        },
        _ => ArrivalSpec::None,
    };
    let trace = rng.chance(8);
    let first_side = pick(rng, &[Side::Left, Side::Right]);
    let about = format!(
        "ct {kind} {order} P={procs} L={l} o={o} {correction} {start:?} {model:?} {faults:?} \
         crash_at={crash_at:?} {arrivals:?} {first_side:?} trace={trace}"
    );
    let tree = match Tree::new(kind, order, procs, logp) {
        Ok(tree) => tree,
        Err(e) => return (about, format!("error: {e}")),
    };
    let mut config = CorrectedTreeConfig::new(tree, correction, start);
    config.first_side = first_side;
    let spec = ScenarioSpec {
        procs,
        logp,
        model,
        immune: 1,
        faults,
        crash_at,
        arrivals,
        ignored: Default::default(),
    };
    let (mut scenario, _) = match spec.build(seed, 0) {
        Ok(built) => built,
        Err(e) => return (about, format!("error: {e}")),
    };
    scenario.trace = trace;
    (about, run::<CorrectedTreeNode>(&config, procs, &scenario))
}

/// One random Corrected Gossip run.
fn gossip(rng: &mut SplitMix64, seed: u64) -> (String, String) {
    let procs = 2 + rng.below(120) as u32;
    let (l, o) = (rng.below(4), 1 + rng.below(2));
    let logp = LogP::new(l, o).expect("L and o in range");
    let gossip_time = rng.below(30);
    let mut failed = Vec::new();
    for _ in 0..rng.below(u64::from(procs / 5) + 1) {
        failed.push((1 + rng.below(u64::from(procs - 1)) as Rank, 0));
    }
    let count = rng.below(3);
    failed.extend(crashes_during(rng, (1, procs), count, 40));
    let scenario = Scenario {
        logp,
        crashes: failed,
        ..Scenario::default()
    };
    let variant = rng.below(4);
    let about = format!(
        "cg variant={variant} P={procs} L={l} o={o} T={gossip_time} crashes={:?}",
        scenario.crashes
    );
    let g = match GossipConfig::new(procs, logp, gossip_time, seed) {
        Ok(g) => g,
        Err(e) => return (about, format!("error: {e}")),
    };
    let digest = match variant {
        0 => run::<Gos>(&g, procs, &scenario),
        1 => {
            let config = OcgConfig {
                gossip: g,
                correction_time: rng.below(20),
            };
            run::<Ocg>(&config, procs, &scenario)
        }
        2 => run::<Ccg>(&g, procs, &scenario),
        _ => {
            let config = FcgConfig::new(g, rng.below(3) as u32);
            run::<Fcg>(&config, procs, &scenario)
        }
    };
    (about, digest)
}

/// Rank `r`'s operand: `r + 1`.
fn operand(rank: Rank) -> u64 {
    u64::from(rank) + 1
}

/// One random FTCO run (single-port step model, FTCO §5.2).
fn ftco(rng: &mut SplitMix64) -> (String, String) {
    let kind = pick(
        rng,
        &[
            FtcoKind::KAry(2),
            FtcoKind::KAry(3),
            FtcoKind::KNomial(2),
            FtcoKind::KNomial(4),
        ],
    );
    let collective = pick(
        rng,
        &[Collective::Bcast, Collective::Reduce, Collective::Allreduce],
    );
    let procs = 2 + rng.below(100) as u32;
    let roots = 1 + rng.below(3);
    let latency = 1 + rng.below(3);
    let count = rng.below(4);
    let crashes = crashes_during(rng, (roots as u32, procs), count, 30);
    let about = format!(
        "ftco {kind:?} {collective:?} P={procs} roots={roots} L={latency} crashes={crashes:?}"
    );
    let topology = match FtcoTopology::new(kind, roots, procs) {
        Ok(t) => t,
        Err(e) => return (about, format!("error: {e}")),
    };
    let config = match FtcoConfig::new(topology, collective, Sum, operand, latency) {
        Ok(c) => c,
        Err(e) => return (about, format!("error: {e}")),
    };
    let scenario = Scenario {
        logp: LogP::new(latency, 1).expect("L in range"),
        model: PortModel::SinglePort,
        crashes,
        ..Scenario::default()
    };
    (about, run::<FtcoNode<Sum>>(&config, procs, &scenario))
}

/// One traced Corrected Tree run with a crash one step before, at or after the instant a message
/// reaches its receiver in the same run without that crash (CT §2.2: a message reaching a
/// crashed process is lost; one that arrives before the crash is received unless the receive
/// completes at or after it).
fn crash_at_arrival(rng: &mut SplitMix64) -> (String, String) {
    let kind = pick(
        rng,
        &[TreeKind::Binomial, TreeKind::Lame(2), TreeKind::KAry(2)],
    );
    let procs = 3 + rng.below(60) as u32;
    let (l, o) = (rng.below(4), 1 + rng.below(2));
    let logp = LogP::new(l, o).expect("L and o in range");
    let correction = pick(
        rng,
        &[
            CorrectionSpec::Checked,
            CorrectionSpec::Opportunistic { distance: 2 },
            CorrectionSpec::FailProof {
                faults: 1,
                sos_timeout: None,
                sos_on_full_loop: true,
            },
            CorrectionSpec::Delayed { delay: 3 },
        ],
    );
    let start = pick(rng, &[StartMode::Synchronized, StartMode::Overlapped]);
    let late = rng.chance(3);
    let arrivals: Vec<Time> = if late {
        (0..procs)
            .map(|r| if r == 0 { 0 } else { rng.below(6) })
            .collect()
    } else {
        Vec::new()
    };
    let tree = match Tree::new(kind, Order::Interleaved, procs, logp) {
        Ok(tree) => tree,
        Err(e) => {
            return (
                format!("crash-at-arrival {kind} P={procs}"),
                format!("error: {e}"),
            )
        }
    };
    let config = CorrectedTreeConfig::new(tree, correction, start);
    let clean = Scenario {
        logp,
        arrivals: arrivals.clone(),
        trace: true,
        ..Scenario::default()
    };
    let arrivals_at: Vec<(Rank, Time)> =
        match sim::run::<CorrectedTreeNode>(&config, procs, &clean, u64::MAX) {
            Ok(report) => report
                .trace
                .iter()
                .filter_map(|e| match *e {
                    TraceEvent::Message { to, sent, .. } if to != 0 => Some((to, sent + o + l)),
                    _ => None,
                })
                .collect(),
            Err(_) => Vec::new(),
        };
    let crashes = match arrivals_at.len() {
        0 => Vec::new(),
        n => {
            let (rank, at) = arrivals_at[rng.below(n as u64) as usize];
            let when = (at + rng.below(3)).saturating_sub(1).max(1);
            vec![(rank, when)]
        }
    };
    let about = format!(
        "crash-at-arrival {kind} P={procs} L={l} o={o} {correction} {start:?} late={late} \
         crashes={crashes:?}"
    );
    let scenario = Scenario { crashes, ..clean };
    (about, run::<CorrectedTreeNode>(&config, procs, &scenario))
}

/// A test automaton that juggles timers (the driver's timer rules, DESIGN §3): at its start and
/// at every timer it sets, cancels and re-sets timers of three ids at offsets 0 to 3 (0: the
/// current instant; the same id again: a replacement), and now and then sends a note to a
/// pseudo-random process, which answers with timer changes of its own. Each process stops after
/// a few steps, so every run quiesces.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Juggler {
    rank: Rank,
    mix: u64,
    steps: u32,
    to_send: u32,
}

/// The juggling test automaton's configuration: `P` and a seed.
#[derive(Clone, Debug)]
struct JugglerConfig {
    procs: u32,
    seed: u64,
}

/// A note between jugglers: the sender's mix.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Note(u64);

impl Message for Note {
    fn phase(&self) -> Phase {
        Phase::Dissemination
    }
}

impl Juggler {
    const STEPS: u32 = 6;

    /// The next pseudo-random number (SplitMix64's finalizer over the state and `salt`).
    fn next(&mut self, salt: u64) -> u64 {
        let mut z = self
            .mix
            .wrapping_add(salt)
            .wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        self.mix = z ^ (z >> 31);
        self.mix
    }

    /// Timer moves and perhaps a note to send: one step of the juggler.
    fn juggle(&mut self, now: Time, salt: u64, out: &mut Outbox<Note, u64>) {
        if self.steps >= Self::STEPS {
            return;
        }
        self.steps += 1;
        for _ in 0..1 + self.next(salt) % 3 {
            let r = self.next(now);
            let id = TimerId((r % 3) as u32);
            match (r >> 8) % 5 {
                0 => out.cancel_timer(id),
                _ => out.set_timer(id, now + (r >> 16) % 4),
            }
        }
        if self.next(7) % 2 == 0 {
            self.to_send += 1;
        }
        if self.steps == 2 {
            out.deliver(self.mix % 1000);
        }
    }
}

impl Automaton for Juggler {
    type Msg = Note;
    type Value = u64;
    type Config = JugglerConfig;

    fn new(config: &JugglerConfig, rank: Rank) -> Self {
        Self {
            rank,
            mix: config.seed ^ u64::from(rank).wrapping_mul(0x2545_f491_4f6c_dd1d),
            steps: 0,
            to_send: 0,
        }
    }

    fn procs(config: &JugglerConfig) -> Option<u32> {
        Some(config.procs)
    }

    fn on_start(&mut self, _: &JugglerConfig, now: Time, out: &mut Outbox<Note, u64>) {
        self.juggle(now, 1, out);
    }

    fn on_message(
        &mut self,
        _: &JugglerConfig,
        now: Time,
        from: Rank,
        msg: Note,
        out: &mut Outbox<Note, u64>,
    ) {
        self.juggle(now, msg.0 ^ u64::from(from), out);
    }

    fn on_timer(&mut self, _: &JugglerConfig, now: Time, id: TimerId, out: &mut Outbox<Note, u64>) {
        self.juggle(now, u64::from(id.0) + 11, out);
    }

    fn on_send_slot(&mut self, config: &JugglerConfig, now: Time, out: &mut Outbox<Note, u64>) {
        if self.to_send > 0 && config.procs > 1 {
            self.to_send -= 1;
            let hop = 1 + (self.next(now) % u64::from(config.procs - 1)) as Rank;
            out.send((self.rank + hop) % config.procs, Note(self.mix));
        }
    }
}

/// One random run of the juggling automaton.
fn timers(rng: &mut SplitMix64) -> (String, String) {
    let procs = 1 + rng.below(40) as u32;
    let (l, o) = (rng.below(3), 1 + rng.below(2));
    let model = if rng.chance(4) {
        PortModel::SinglePort
    } else {
        PortModel::DualPort
    };
    let count = rng.below(3);
    let crashes = crashes_during(rng, (1, procs), count, 12);
    let config = JugglerConfig {
        procs,
        seed: rng.next_u64(),
    };
    let about = format!("timers P={procs} L={l} o={o} {model:?} crashes={crashes:?} {config:?}");
    let scenario = Scenario {
        logp: LogP::new(l, o).expect("L and o in range"),
        model,
        crashes,
        trace: rng.chance(4),
        ..Scenario::default()
    };
    (about, run::<Juggler>(&config, procs, &scenario))
}

/// Every run: its pinned line `index digest`, and what the run was.
fn lines() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut push = |(about, digest): (String, String)| {
        let i = out.len();
        let mut line = String::new();
        write!(line, "{i} {digest}").expect("writing to a String");
        out.push((line, about));
    };
    let mut rng = SplitMix64::new(16);
    for seed in 0..CORRECTED_TREE_RUNS {
        push(corrected_tree(&mut rng, seed));
    }
    for seed in 0..GOSSIP_RUNS {
        push(gossip(&mut rng, seed));
    }
    for _ in 0..FTCO_RUNS {
        push(ftco(&mut rng));
    }
    for _ in 0..CRASH_AT_ARRIVAL_RUNS {
        push(crash_at_arrival(&mut rng));
    }
    for _ in 0..TIMER_RUNS {
        push(timers(&mut rng));
    }
    out
}

#[test]
fn every_metric_of_12_000_random_runs_is_as_pinned() {
    let lines = lines();
    if std::env::var_os("FTCOLL_WRITE_PINNED").is_some() {
        let text: String = lines.iter().map(|(line, _)| format!("{line}\n")).collect();
        std::fs::write(PINNED, text).expect("writing the pinned digests");
        return;
    }
    let pinned = std::fs::read_to_string(PINNED).expect("sim/tests/data/driver_pinned.txt exists");
    let pinned: Vec<&str> = pinned.lines().collect();
    assert_eq!(pinned.len(), lines.len(), "number of pinned runs");
    let changed: Vec<String> = pinned
        .iter()
        .zip(&lines)
        .filter(|(a, (b, _))| **a != b.as_str())
        .map(|(a, (b, about))| format!("  pinned {a}, now {b}: {about}"))
        .collect();
    assert!(
        changed.is_empty(),
        "{} of {} runs changed; the first ones:\n{}",
        changed.len(),
        lines.len(),
        changed[..changed.len().min(5)].join("\n")
    );
}

/// A change made to a report.
type Mutation = fn(&mut Metrics<u64>);

/// The pin can fail: one metric changed in one report changes its digest.
#[test]
fn the_digest_sees_every_field() {
    let logp = LogP::new(2, 1).expect("L and o in range");
    let tree = Tree::new(TreeKind::Binomial, Order::Interleaved, 16, logp).expect("valid tree");
    let config = CorrectedTreeConfig::new(tree, CorrectionSpec::Checked, StartMode::Synchronized);
    let scenario = Scenario {
        logp,
        crashes: vec![(3, 0), (7, 4)],
        trace: true,
        ..Scenario::default()
    };
    let report =
        sim::run::<CorrectedTreeNode>(&config, 16, &scenario, u64::MAX).expect("the run ends");
    let base = digest(&report);
    let metrics = Metrics::of(&report);
    let mutants: Vec<(&str, Mutation)> = vec![
        ("procs", |r| r.procs -= 1),
        ("root_start", |r| r.root_start += 1),
        ("delivered_at", |r| r.delivered_at[5] = None),
        ("delivered_value", |r| r.delivered_value[5] = Some(9)),
        ("deliveries", |r| r.deliveries[5] += 1),
        ("by_dissemination", |r| r.by_dissemination[5] ^= true),
        ("crashed", |r| r.crashed[5] ^= true),
        ("sent", |r| r.sent[5][1] += 1),
        ("finish", |r| r.finish[5] += 1),
        ("messages", |r| r.messages[2] += 1),
        ("completions", |r| r.completions.push((1, 2, 3))),
        ("last_activity", |r| r.last_activity += 1),
        ("lost", |r| r.lost += 1),
        ("ignored", |r| r.ignored += 1),
        ("longest_queue", |r| r.longest_queue += 1),
        ("trace", |r| {
            r.trace.pop();
        }),
    ];
    for (field, mutate) in mutants {
        let mut changed = metrics.clone();
        mutate(&mut changed);
        assert_ne!(digest_metrics(&changed), base, "a change of {field}");
    }
    let mut more_events = report.clone();
    more_events.events += 1;
    assert_eq!(digest(&more_events), base, "events are not pinned");
}
