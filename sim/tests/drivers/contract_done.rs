//! `Automaton::is_done` (docs/guide.md, "Queries a driver may ask"): once a Corrected Tree process
//! says it is done, no later input makes it send, deliver, complete or set a timer, and it stays
//! done; at the end of a checked, opportunistic, optimized, plain-tree or acknowledged run every
//! live process that delivered says so (the query is useful, not just safe).
//!
//! The oracle is a wrapper automaton that asks `is_done` before every input and records any
//! action other than `Ignored` that follows a `true`.

use crate::sim_common;

use ftcoll::automaton::{Action, Automaton, Outbox, TimerId};
use ftcoll::protocols::corrected_tree::{
    CorrectedTreeConfig, CorrectedTreeNode, CorrectionSpec, StartMode,
};
use ftcoll::protocols::message::Msg;
use ftcoll::{Rank, Time};
use ftcoll_sim::{Scenario, Sim};
use sim_common::*;

/// A Corrected Tree process watched for broken `is_done` answers.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Watched {
    inner: CorrectedTreeNode,
    /// The first action (or "undone") seen after `is_done` said `true`.
    broke: Option<String>,
}

type Config = <CorrectedTreeNode as Automaton>::Config;

impl Watched {
    fn watch(
        &mut self,
        config: &Config,
        out: &mut Outbox<Msg>,
        step: impl FnOnce(&mut CorrectedTreeNode, &mut Outbox<Msg>),
    ) {
        let done = self.inner.is_done(config);
        let before = out.actions().len();
        step(&mut self.inner, out);
        if done && self.broke.is_none() {
            if let Some(a) = out.actions()[before..]
                .iter()
                .find(|a| !matches!(a, Action::Ignored(_)))
            {
                self.broke = Some(format!("{a:?} after is_done"));
            } else if !self.inner.is_done(config) {
                self.broke = Some("is_done went back to false".into());
            }
        }
    }
}

impl Automaton for Watched {
    type Msg = Msg;
    type Value = u64;
    type Config = Config;

    fn new(config: &Config, rank: Rank) -> Self {
        Self {
            inner: CorrectedTreeNode::new(config, rank),
            broke: None,
        }
    }
    fn on_start(&mut self, config: &Config, now: Time, out: &mut Outbox<Msg>) {
        self.watch(config, out, |a, out| a.on_start(config, now, out));
    }
    fn on_message(
        &mut self,
        config: &Config,
        now: Time,
        from: Rank,
        msg: Msg,
        out: &mut Outbox<Msg>,
    ) {
        self.watch(config, out, |a, out| {
            a.on_message(config, now, from, msg, out)
        });
    }
    fn on_timer(&mut self, config: &Config, now: Time, id: TimerId, out: &mut Outbox<Msg>) {
        self.watch(config, out, |a, out| a.on_timer(config, now, id, out));
    }
    fn on_send_slot(&mut self, config: &Config, now: Time, out: &mut Outbox<Msg>) {
        self.watch(config, out, |a, out| a.on_send_slot(config, now, out));
    }
    fn is_done(&self, config: &Config) -> bool {
        self.inner.is_done(config)
    }
}

/// Runs to quiescence; returns, per rank, whether it is done at the end, after checking that no
/// process broke its `is_done` answer and that nobody is done before the operation starts.
fn run_watched(config: &Config, scenario: &Scenario) -> Vec<bool> {
    let procs = config.tree.procs();
    let mut sim = Sim::<Watched>::new(config, procs, scenario).expect("valid scenario");
    for rank in 0..procs {
        let a = sim.automaton(rank).expect("rank");
        assert!(!a.is_done(config), "rank {rank} done before it started");
    }
    let mut steps = 0u64;
    while sim.next_time().is_some() {
        sim.step(config).expect("run within the contract");
        steps += 1;
        assert!(steps < 10_000_000, "no quiescence");
    }
    (0..procs)
        .map(|rank| {
            let a = sim.automaton(rank).expect("rank");
            if let Some(what) = &a.broke {
                panic!(
                    "rank {rank}: {what} ({} {} P={procs}, {:?} {:?}, {:?})",
                    config.tree.kind(),
                    config.tree.order(),
                    config.correction,
                    config.start,
                    scenario.crashes
                );
            }
            a.is_done(config)
        })
        .collect()
}

const SPECS: [&str; 8] = [
    "none",
    "opportunistic:2",
    "optimized:3",
    "checked",
    "delayed:4",
    "failproof:1",
    "failproof-footnote:1",
    "ack",
];

#[test]
fn done_processes_stay_silent_and_finished_runs_are_done() {
    let mut rng = SeededRng::new(18);
    let mut done_somewhere = [0u32; SPECS.len()];
    for (kind, order) in tree_zoo() {
        for procs in [1, 2, 7, 16, 33] {
            let t = tree(kind, order, procs, 2, 1);
            for (s, spelling) in SPECS.iter().enumerate() {
                let spec: CorrectionSpec = spelling.parse().expect("valid spelling");
                for start in [StartMode::Synchronized, StartMode::Overlapped] {
                    let config = CorrectedTreeConfig::new(t.clone(), spec, start);
                    for faults in 0..3 {
                        let failed = rng.failures(procs, faults);
                        let mut sc = scenario(2, 1, &failed);
                        if faults == 2 && procs > 4 {
                            // One crash during the operation too.
                            let r = 1 + rng.below(u64::from(procs - 1)) as Rank;
                            sc.crashes.push((r, 1 + rng.below(12)));
                        }
                        let done = run_watched(&config, &sc);
                        let report = run(&CorrectedTreeConfig::new(t.clone(), spec, start), &sc);
                        done_somewhere[s] += done.iter().filter(|&&d| d).count() as u32;
                        for rank in 0..procs {
                            let i = rank as usize;
                            if done[i] {
                                assert!(
                                    report.deliveries(rank) == 1,
                                    "rank {rank} done, undelivered"
                                );
                            }
                            let must = matches!(
                                *spelling,
                                "none" | "opportunistic:2" | "optimized:3" | "checked"
                            ) || (*spelling == "ack" && sc.crashes.is_empty());
                            if must && report.is_live(rank) && report.deliveries(rank) > 0 {
                                assert!(
                                    done[i],
                                    "rank {rank} delivered but not done at the end ({spelling} {kind} {order} P={procs} {start:?} {:?})",
                                    sc.crashes
                                );
                            }
                        }
                    }
                }
            }
        }
    }
    // Delayed correctors never claim to be done, their c-nodes may; failure-proof processes
    // never do (SOS may follow).
    for (s, spelling) in SPECS.iter().enumerate() {
        if spelling.starts_with("failproof") {
            assert_eq!(done_somewhere[s], 0, "{spelling}");
        } else {
            assert!(done_somewhere[s] > 0, "{spelling}: nobody ever done");
        }
    }
}
