//! `ftcoll_sim::transport::serve` on a real transport — one thread per rank, channels as the
//! network, the wall clock as time — against the simulator on the same configurations and
//! failures. Real timing changes who is colored by what, so what must agree is what the
//! protocols promise whatever the order: the set of ranks that deliver (and each delivers the
//! root's payload once), FTCO's value at every live rank, and the tree phase's messages.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use ftcoll::automaton::{Automaton, Sum};
use ftcoll::protocols::corrected_tree::{
    CorrectedTreeConfig, CorrectedTreeNode, CorrectionSpec, StartMode,
};
use ftcoll::protocols::ftco::{FtcoConfig, FtcoNode};
use ftcoll::topology::ftco::{Collective, FtcoKind, FtcoTopology};
use ftcoll::topology::{LogP, Order, Tree, TreeKind};
use ftcoll::{Rank, Time};
use ftcoll_sim::transport::{serve, CrashPlan, Ended, Served, Serving, Transport};
use ftcoll_sim::{run, PortModel, Scenario};

/// Threads and channels: a message to a rank whose thread ended (failed, crashed, done) is lost.
struct Channels<M> {
    rank: Rank,
    epoch: Instant,
    step: Duration,
    inbox: Receiver<(Rank, M)>,
    peers: Vec<Sender<(Rank, M)>>,
}

impl<M: Clone> Transport<M> for Channels<M> {
    fn now(&mut self) -> Time {
        (self.epoch.elapsed().as_nanos() / self.step.as_nanos()) as Time
    }

    fn send(&mut self, to: Rank, msg: &M) {
        let _ = self.peers[to as usize].send((self.rank, msg.clone()));
    }

    fn try_receive(&mut self) -> Option<(Rank, M)> {
        self.inbox.try_recv().ok()
    }

    fn receive_until(&mut self, deadline: Time) -> Option<(Rank, M)> {
        let at = self.step * u32::try_from(deadline).unwrap_or(u32::MAX);
        let wait = at.saturating_sub(self.epoch.elapsed());
        self.inbox.recv_timeout(wait).ok()
    }
}

/// Serves every rank but `failed` on its own thread; returns what happened at each.
fn on_threads<A>(
    config: A::Config,
    procs: Rank,
    failed: &[Rank],
    serving: impl Fn(Rank) -> Serving,
    step: Duration,
) -> BTreeMap<Rank, Served<A::Value>>
where
    A: Automaton + 'static,
    A::Config: Send + Sync + 'static,
    A::Msg: Send + 'static,
    A::Value: Send + 'static,
{
    let config = Arc::new(config);
    let (senders, receivers): (Vec<_>, Vec<_>) = (0..procs).map(|_| channel()).unzip();
    let epoch = Instant::now();
    let mut handles = Vec::new();
    for (rank, inbox) in (0..procs).zip(receivers) {
        if failed.contains(&rank) {
            continue;
        }
        let config = Arc::clone(&config);
        let mut transport = Channels {
            rank,
            epoch,
            step,
            inbox,
            peers: senders.clone(),
        };
        let serving = serving(rank);
        handles.push((
            rank,
            thread::spawn(move || serve::<A, _>(&config, rank, &mut transport, serving)),
        ));
    }
    drop(senders);
    handles
        .into_iter()
        .map(|(rank, h)| (rank, h.join().expect("rank threads do not panic")))
        .collect()
}

fn ct_config(correction: CorrectionSpec, start: StartMode, procs: u32) -> CorrectedTreeConfig {
    let tree = Tree::new(
        TreeKind::Lame(2),
        Order::Interleaved,
        procs,
        LogP::default(),
    )
    .expect("valid tree");
    CorrectedTreeConfig::new(tree, correction, start)
}

/// CT §3.1: with failures before the operation, checked correction colors every live rank
/// whatever the order of its messages; the transport's ranks deliver exactly where the
/// simulator's do, the root's payload once each, every rank ends (done, or quiet), and the tree
/// phase sends no more than the simulator's (a rank colored early by correction sends fewer).
#[test]
fn corrected_trees_deliver_where_the_simulator_does() {
    let procs = 16;
    for (correction, failed) in [
        (CorrectionSpec::Checked, vec![1, 3]),
        (CorrectionSpec::Checked, vec![]),
        (CorrectionSpec::Opportunistic { distance: 2 }, vec![2]),
        (
            CorrectionSpec::FailProof {
                faults: 1,
                sos_timeout: None,
                sos_on_full_loop: true,
            },
            vec![5],
        ),
    ] {
        let config = ct_config(correction, StartMode::Overlapped, procs);
        let scenario = Scenario {
            crashes: failed.iter().map(|&r| (r, 0)).collect(),
            ..Default::default()
        };
        let simulated = run::<CorrectedTreeNode>(&config, procs, &scenario, 1 << 20).unwrap();
        let expected: BTreeSet<Rank> = (0..procs)
            .filter(|&r| simulated.delivered_at(r).is_some())
            .collect();
        let payload = config.payload;
        let served = on_threads::<CorrectedTreeNode>(
            config,
            procs,
            &failed,
            |_| Serving {
                give_up: 5_000,
                quiet: Some(300),
                crash: CrashPlan::Never,
                send_gap: 1,
            },
            Duration::from_millis(2),
        );
        let what = format!("{correction} with {failed:?} failed");
        let delivered: BTreeSet<Rank> = served
            .iter()
            .filter(|(_, s)| !s.delivered.is_empty())
            .map(|(&r, _)| r)
            .collect();
        assert_eq!(delivered, expected, "{what}: who delivers");
        for (rank, s) in &served {
            assert!(
                s.violations.is_empty(),
                "{what}: rank {rank}: {:?}",
                s.violations
            );
            // Failure-proof correction cannot always tell it is done (a c-node may still hear
            // of correctors); it ends quiet.
            assert!(
                matches!(s.ended, Ended::Done | Ended::Quiet),
                "{what}: rank {rank} ended {:?}",
                s.ended
            );
            let values: Vec<u64> = s.delivered.iter().map(|&(_, v)| v).collect();
            assert_eq!(values, [payload], "{what}: rank {rank} delivers once");
        }
        let tree_sent: u64 = served.values().map(|s| s.sent[0]).sum();
        let simulated_tree: u64 = (0..procs).map(|r| u64::from(simulated.sent(r)[0])).sum();
        assert!(tree_sent > 0, "{what}");
        assert!(
            tree_sent <= simulated_tree,
            "{what}: tree messages {tree_sent} against the simulator's {simulated_tree}"
        );
    }
}

/// FTCO Def. 3.1–3.2 on a real transport: with one process failed before the operation, every
/// live process completes an Allreduce with the simulator's value, once.
#[test]
fn ftco_allreduce_completes_with_the_simulators_value() {
    let procs = 8;
    let topology = FtcoTopology::new(FtcoKind::KAry(2), 1, procs).unwrap();
    let config = FtcoConfig::new(
        topology,
        Collective::Allreduce,
        Sum,
        |r| u64::from(r) + 1,
        2,
    )
    .unwrap();
    for failed in [vec![], vec![3]] {
        let scenario = Scenario {
            model: PortModel::SinglePort,
            crashes: failed.iter().map(|&r| (r, 0)).collect(),
            ..Default::default()
        };
        let simulated = run::<FtcoNode<Sum>>(&config, procs, &scenario, 1 << 22).unwrap();
        let expected: BTreeMap<Rank, u64> = simulated
            .completions
            .iter()
            .map(|&(r, _, v)| (r, v))
            .collect();
        assert_eq!(expected.len(), (procs as usize) - failed.len());
        let served = on_threads::<FtcoNode<Sum>>(
            config.clone(),
            procs,
            &failed,
            |_| Serving {
                give_up: 4_000,
                quiet: Some(100),
                crash: CrashPlan::Never,
                send_gap: 1,
            },
            // FTCO's timeouts are a few dozen steps: at 10 ms a step, a loaded machine would
            // have to stall a thread for a few hundred ms to make one fire on a live process.
            Duration::from_millis(10),
        );
        for (rank, s) in &served {
            assert!(s.violations.is_empty(), "rank {rank}: {:?}", s.violations);
            let values: Vec<u64> = s.completed.iter().map(|&(_, v)| v).collect();
            assert_eq!(
                values,
                [expected[rank]],
                "{failed:?} failed: rank {rank} completes once with the simulator's value"
            );
            assert_eq!(s.ended, Ended::Quiet, "rank {rank}");
        }
    }
}

/// A planned crash stops the process right after its `n`-th action, silently: it sends no more,
/// and the others are not told (checked correction still colors every other live rank when
/// the crashed rank is a leaf of the tree).
#[test]
fn a_planned_crash_stops_after_its_actions() {
    let procs = 16;
    let config = ct_config(CorrectionSpec::Checked, StartMode::Synchronized, procs);
    let leaf = (0..procs)
        .find(|&r| r != 0 && config.tree.children(r).next().is_none())
        .expect("a leaf");
    let served = on_threads::<CorrectedTreeNode>(
        config,
        procs,
        &[],
        |r| Serving {
            give_up: 5_000,
            quiet: None,
            crash: if r == leaf {
                CrashPlan::AfterActions(1)
            } else {
                CrashPlan::Never
            },
            send_gap: 1,
        },
        Duration::from_millis(2),
    );
    let crashed = &served[&leaf];
    assert_eq!(crashed.ended, Ended::Crashed);
    assert_eq!(crashed.delivered.len(), 1, "its one action: the delivery");
    assert_eq!(crashed.sent, [0, 0, 0, 0], "nothing after it");
    for (rank, s) in served.iter().filter(|(&r, _)| r != leaf) {
        assert_eq!(s.delivered.len(), 1, "rank {rank}");
        assert_eq!(s.ended, Ended::Done, "rank {rank}");
    }
    let before_start = on_threads::<CorrectedTreeNode>(
        ct_config(CorrectionSpec::Checked, StartMode::Synchronized, 4),
        4,
        &[],
        |r| Serving {
            give_up: 2_000,
            quiet: None,
            crash: if r == 2 {
                CrashPlan::AfterActions(0)
            } else {
                CrashPlan::Never
            },
            send_gap: 1,
        },
        Duration::from_millis(2),
    );
    assert_eq!(before_start[&2].ended, Ended::Crashed);
    assert!(before_start[&2].delivered.is_empty());
}

/// LogP's `o` on a real transport: gossip sends at every free slot until `T` (CG §III.A), so
/// with the port busy `send_gap` units after each send a rank makes at most `T / gap + 1`
/// gossip sends, as in the model; a transport that offered the port again at once would let it
/// send thousands. Checked Corrected Gossip still colors every rank.
#[test]
fn the_send_gap_paces_a_protocol_that_sends_until_a_deadline() {
    use ftcoll::protocols::gossip::{Ccg, GossipConfig};
    let (procs, gossip_time, gap) = (8, 40, 2);
    let config = GossipConfig::new(procs, LogP::default(), gossip_time, 3).unwrap();
    let served = on_threads::<Ccg>(
        config,
        procs,
        &[],
        |_| Serving {
            give_up: 3_000,
            quiet: Some(100),
            crash: CrashPlan::Never,
            send_gap: gap,
        },
        Duration::from_millis(2),
    );
    for (rank, s) in &served {
        assert_eq!(s.delivered.len(), 1, "rank {rank}");
        assert!(
            s.sent[0] <= gossip_time / gap + 1,
            "rank {rank} made {} gossip sends in T = {gossip_time} with o = {gap}",
            s.sent[0]
        );
    }
    assert!(
        served.values().any(|s| s.sent[0] >= 2),
        "someone gossips more than once"
    );
}
