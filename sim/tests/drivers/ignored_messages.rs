//! The driver's two costs of an ignored message (`sim::IgnoredMessages`) and the promise behind
//! `Automaton::reads`: a message the receiver would not read changes nothing when it is read.
//! Oracles are CG Table 7's published latencies (GOS 53 = T + L + O, OCG 42) and hand-derived
//! LogP times.

use ftcoll::automaton::{Action, Automaton, Outbox, TimerId};
use ftcoll::protocols::gossip::{
    BigConfig, BigNode, Ccg, Fcg, FcgConfig, Gos, GossipConfig, Ocg, OcgConfig,
};
use ftcoll::rng::SplitMix64;
use ftcoll::topology::LogP;
use ftcoll::{Rank, Time};
use ftcoll_sim::{self as sim, IgnoredMessages, Report, Scenario};

/// `A`, checking on every message that a `reads` of `false` was a true promise: `on_message`
/// leaves the state equal and emits nothing but `Ignored`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Promised<A>(A);

impl<A: Automaton> Automaton for Promised<A> {
    type Msg = A::Msg;
    type Value = A::Value;
    type Config = A::Config;

    fn new(config: &A::Config, rank: Rank) -> Self {
        Self(A::new(config, rank))
    }

    fn procs(config: &A::Config) -> Option<u32> {
        A::procs(config)
    }

    fn on_start(&mut self, config: &A::Config, now: Time, out: &mut Outbox<A::Msg, A::Value>) {
        self.0.on_start(config, now, out);
    }

    fn on_message(
        &mut self,
        config: &A::Config,
        now: Time,
        from: Rank,
        msg: A::Msg,
        out: &mut Outbox<A::Msg, A::Value>,
    ) {
        let unread = !self.0.reads(config, from, &msg);
        let before = self.0.clone();
        let emitted = out.actions().len();
        self.0.on_message(config, now, from, msg.clone(), out);
        if unread {
            assert_eq!(
                self.0, before,
                "reads said false, yet {msg:?} changed the state"
            );
            assert!(
                out.actions()[emitted..]
                    .iter()
                    .all(|a| matches!(a, Action::Ignored(_))),
                "reads said false, yet {msg:?} made {:?}",
                &out.actions()[emitted..]
            );
        }
    }

    fn on_timer(
        &mut self,
        config: &A::Config,
        now: Time,
        id: TimerId,
        out: &mut Outbox<A::Msg, A::Value>,
    ) {
        self.0.on_timer(config, now, id, out);
    }

    fn on_send_slot(&mut self, config: &A::Config, now: Time, out: &mut Outbox<A::Msg, A::Value>) {
        self.0.on_send_slot(config, now, out);
    }

    fn reads(&self, config: &A::Config, from: Rank, msg: &A::Msg) -> bool {
        self.0.reads(config, from, msg)
    }
}

fn logp(l: u64, o: u64) -> LogP {
    LogP::new(l, o).unwrap()
}

/// Distinct non-root ranks failed before the operation.
fn failures(rng: &mut SplitMix64, p: u32, count: u32) -> Vec<(Rank, Time)> {
    let mut out: Vec<(Rank, Time)> = Vec::new();
    while (out.len() as u32) < count.min(p - 1) {
        let r = 1 + rng.below(u64::from(p - 1)) as Rank;
        if !out.iter().any(|&(x, _)| x == r) {
            out.push((r, 0));
        }
    }
    out
}

fn run<A: Automaton>(
    config: &A::Config,
    procs: u32,
    l: u64,
    crashes: Vec<(Rank, Time)>,
    ignored: IgnoredMessages,
) -> Report<A::Value> {
    let scenario = Scenario {
        logp: logp(l, 1),
        crashes,
        ignored,
        ..Scenario::default()
    };
    sim::run::<A>(config, procs, &scenario, sim::default_budget(procs)).expect("the run quiesces")
}

/// Every message each gossip automaton reads (the charged model hands all of them over) keeps
/// the promise of its `reads`: GOS, OCG, CCG, FCG with f = 1 and 2, and BIG, with and without
/// failures and crashes during the operation, on several sizes, `L` and seeds.
#[test]
fn a_message_declared_unread_changes_nothing() {
    let mut rng = SplitMix64::new(40);
    for procs in [2u32, 5, 17, 64, 200] {
        for l in [1u64, 2, 4] {
            for seed in 0..4u64 {
                let t = 6 + 2 * u64::from(procs.ilog2());
                let gossip = GossipConfig::new(procs, logp(l, 1), t, seed).unwrap();
                let mut crashes = failures(&mut rng, procs, (procs / 8).min(3));
                if procs > 4 && !crashes.iter().any(|&(r, _)| r == procs - 1) {
                    crashes.push((procs - 1, t / 2 + seed));
                }
                let c = IgnoredMessages::Charged;
                run::<Promised<Gos>>(&gossip, procs, l, crashes.clone(), c);
                let ocg = OcgConfig {
                    gossip: gossip.clone(),
                    correction_time: 2 * l + 4,
                };
                run::<Promised<Ocg>>(&ocg, procs, l, crashes.clone(), c);
                run::<Promised<Ccg>>(&gossip, procs, l, crashes.clone(), c);
                for f in [1, 2] {
                    let fcg = FcgConfig::new(gossip.clone(), f);
                    run::<Promised<Fcg>>(&fcg, procs, l, crashes.clone(), c);
                }
                let big = BigConfig::new(procs).unwrap();
                run::<Promised<BigNode>>(&big, procs, l, crashes, c);
            }
        }
    }
}

/// CG Table 7 (N = 4096, L = 2, O = 1): GOS's latency is `T + L + O` = 53 at T = 50 when
/// duplicates are free: the last gossip send starts at `T − O` = 49 and its receive overhead
/// ends at 49 + O + L + O = 53, and no duplicate queues ahead of anything. Charged, the receive
/// queues that duplicates build end every run later.
#[test]
fn free_duplicates_give_gos_the_papers_latency() {
    for seed in 0..3 {
        let gossip = GossipConfig::new(4096, logp(2, 1), 50, seed).unwrap();
        let free = run::<Gos>(&gossip, 4096, 2, Vec::new(), IgnoredMessages::Free);
        assert_eq!(free.last_activity, 53, "seed {seed}");
        assert!(free.unread > 0, "seed {seed}");
        let charged = run::<Gos>(&gossip, 4096, 2, Vec::new(), IgnoredMessages::Charged);
        assert!(
            charged.last_activity > 60,
            "seed {seed}: {}",
            charged.last_activity
        );
        assert_eq!(charged.unread, 0);
        // The model changes the timing only: every message is still sent.
        assert_eq!(free.messages, charged.messages, "seed {seed}");
    }
}

/// CG Table 7: OCG at T = 32 with C = K̄O + L + O = 7 (K̄ = 4) ends at Eq. 3's
/// T + 2L + (2 + K̄)O = 42, the paper's latency, when duplicates are free.
#[test]
fn free_duplicates_give_ocg_the_papers_latency() {
    let mut total = 0;
    let runs = 5;
    for seed in 0..runs {
        let config = OcgConfig {
            gossip: GossipConfig::new(4096, logp(2, 1), 32, seed).unwrap(),
            correction_time: 7,
        };
        let r = run::<Ocg>(&config, 4096, 2, Vec::new(), IgnoredMessages::Free);
        total += r.last_activity;
    }
    assert_eq!(total, 42 * runs, "every run ends at 42");
}

/// BIG (deterministic: every colored process sends to its binomial-graph neighbours) on the
/// free model takes the port time of duplicates away and nothing else, so no process is
/// colored later and the run ends no later; the same messages are sent.
#[test]
fn free_duplicates_never_end_a_run_later() {
    for procs in [3u32, 8, 33, 100] {
        let big = BigConfig::new(procs).unwrap();
        let free = run::<BigNode>(&big, procs, 2, Vec::new(), IgnoredMessages::Free);
        let charged = run::<BigNode>(&big, procs, 2, Vec::new(), IgnoredMessages::Charged);
        assert!(free.last_activity <= charged.last_activity, "P = {procs}");
        assert_eq!(free.messages, charged.messages, "P = {procs}");
        for r in 0..procs {
            let (f, c) = (free.delivered_at(r), charged.delivered_at(r));
            assert!(f.is_some() && f <= c, "P = {procs} rank {r}: {f:?} {c:?}");
        }
    }
}
