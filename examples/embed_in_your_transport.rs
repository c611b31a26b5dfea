//! Embedding a Corrected Tree broadcast in your own transport.
//!
//! One OS thread per rank, `std::sync::mpsc` channels as the network, the wall clock as time:
//! the loop a runtime engineer writes around an [`Automaton`], using only its contract
//! (`ftcoll::automaton`):
//!
//! 1. `on_start` first; messages that arrive earlier simply wait in the channel (the
//!    early-message rule);
//! 2. after every input, apply the outbox: timers, deliveries;
//! 3. hand over every message already received, then poll `on_send_slot` while it sends (the
//!    channel's send port is free again at once); a poll that sends nothing means "not until my
//!    next input";
//! 4. stop serving the rank once `is_done`; otherwise wait for a message or the next timer.
//!
//! The broadcast: Lamé(2) interleaved tree, checked correction with a synchronized start,
//! `P = 16`, `L = 2`, `o = 1` (one LogP step is 2 ms of wall clock). Ranks 1 and 3 fail before
//! the operation (they never run) and rank 2 crashes during it, right after its first tree send
//! (to 7 of its children 7, 10, 15).
//! Thread scheduling changes who is colored by the tree and who by correction, but checked
//! correction colors every live rank whatever the order of messages when no corrector crashes
//! while correcting (CT §3.1; rank 2 crashes before it corrects). The example exits with status
//! 1 unless every live rank delivered the root's payload exactly once and finished.
//!
//! ```text
//! cargo run --example embed_in_your_transport
//! ```

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use ftcoll::automaton::{Action, Automaton, Outbox, TimerId};
use ftcoll::protocols::corrected_tree::{
    CorrectedTreeConfig, CorrectedTreeNode, CorrectionSpec, StartMode,
};
use ftcoll::topology::{LogP, Order, Tree, TreeKind};
use ftcoll::{Rank, Time};

/// Wall-clock length of one LogP time step.
const STEP: Duration = Duration::from_millis(2);
/// A rank that is not done by then gives up (the operation failed for it).
const GIVE_UP: Duration = Duration::from_secs(10);

const PROCS: Rank = 16;
/// Ranks failed before the operation.
const FAILED: [Rank; 2] = [1, 3];
/// The rank that crashes after its first send.
const CRASHES: Rank = 2;

/// What happened at one rank.
#[derive(Debug, Default)]
struct Outcome<V> {
    /// Every value the rank delivered, in order.
    delivered: Vec<V>,
    /// Sends that reached a live channel, and sends lost (the peer is gone).
    sent: u32,
    lost: u32,
    /// It stopped because `is_done` said so.
    done: bool,
    /// It crashed on purpose.
    crashed: bool,
    /// Contract violations seen by the transport.
    violations: Vec<String>,
}

/// Serves rank `rank` of automaton `A` until it is done, crashes (after `crash_after` sends) or
/// gives up (`give_up` after `epoch`). Knows nothing about the protocol.
fn serve<A>(
    config: &A::Config,
    rank: Rank,
    inbox: Receiver<(Rank, A::Msg)>,
    peers: Vec<Sender<(Rank, A::Msg)>>,
    epoch: Instant,
    crash_after: Option<u32>,
    give_up: Duration,
) -> Outcome<A::Value>
where
    A: Automaton,
{
    let now = || (epoch.elapsed().as_nanos() / STEP.as_nanos()) as Time;
    let mut node = A::new(config, rank);
    let mut timers: BTreeMap<TimerId, Time> = BTreeMap::new();
    let mut outcome = Outcome {
        delivered: Vec::new(),
        sent: 0,
        lost: 0,
        done: false,
        crashed: false,
        violations: Vec::new(),
    };
    let mut out = Outbox::new();
    node.on_start(config, now(), &mut out);
    loop {
        // The last input's reactions (no sends: those belong to a send slot).
        absorb(&mut out, &mut timers, &mut outcome);
        // Every message already received is handed over before the port is offered.
        while let Ok((from, msg)) = inbox.try_recv() {
            node.on_message(config, now(), from, msg, &mut out);
            absorb(&mut out, &mut timers, &mut outcome);
        }
        // The port is free: poll until a poll sends nothing.
        loop {
            node.on_send_slot(config, now(), &mut out);
            let mut send = None;
            for action in out.drain() {
                match action {
                    Action::Send { to, msg } if send.is_none() => send = Some((to, msg)),
                    Action::Send { .. } => outcome.violations.push("two sends in one slot".into()),
                    other => apply(other, &mut timers, &mut outcome),
                }
            }
            let Some((to, msg)) = send else { break };
            match peers.get(to as usize) {
                Some(peer) if to != rank => match peer.send((rank, msg)) {
                    Ok(()) => outcome.sent += 1,
                    Err(_) => outcome.lost += 1, // failed, crashed or done: the message is lost
                },
                _ => outcome.violations.push(format!("send to rank {to}")),
            }
            if crash_after == Some(outcome.sent + outcome.lost) {
                outcome.crashed = true;
                return outcome; // dropping `inbox`: later messages to this rank are lost
            }
        }
        if node.is_done(config) {
            outcome.done = true;
            return outcome;
        }
        // Wait for a message or the earliest timer.
        let next_timer = timers
            .iter()
            .min_by_key(|&(_, &at)| at)
            .map(|(&id, &at)| (id, at));
        let left = give_up.saturating_sub(epoch.elapsed());
        if left.is_zero() {
            return outcome;
        }
        let wait = match next_timer {
            Some((_, at)) => (STEP * at as u32).saturating_sub(epoch.elapsed()).min(left),
            None => left,
        };
        match inbox.recv_timeout(wait) {
            Ok((from, msg)) => node.on_message(config, now(), from, msg, &mut out),
            Err(RecvTimeoutError::Timeout) => {
                if let Some((id, at)) = next_timer.filter(|&(_, at)| now() >= at) {
                    timers.remove(&id);
                    node.on_timer(config, now().max(at), id, &mut out);
                }
            }
            Err(RecvTimeoutError::Disconnected) => unreachable!("every rank holds every sender"),
        }
    }
}

/// Applies the actions of a handler other than `on_send_slot`.
fn absorb<M, V>(
    out: &mut Outbox<M, V>,
    timers: &mut BTreeMap<TimerId, Time>,
    outcome: &mut Outcome<V>,
) {
    for action in out.drain() {
        match action {
            Action::Send { .. } => outcome.violations.push("sent outside a send slot".into()),
            other => apply(other, timers, outcome),
        }
    }
}

/// Applies one non-send action.
fn apply<M, V>(
    action: Action<M, V>,
    timers: &mut BTreeMap<TimerId, Time>,
    outcome: &mut Outcome<V>,
) {
    match action {
        Action::SetTimer { id, at } => {
            timers.insert(id, at);
        }
        Action::CancelTimer { id } => {
            timers.remove(&id);
        }
        Action::Deliver(value) | Action::Complete(value) => outcome.delivered.push(value),
        Action::Send { .. } | Action::Ignored(_) => {}
    }
}

/// Runs the broadcast with correction `correction` (a `CorrectionSpec` spelling); returns the
/// configuration and what happened at each rank that ran.
fn broadcast(
    correction: &str,
    give_up: Duration,
) -> (CorrectedTreeConfig, BTreeMap<Rank, Outcome<u64>>) {
    let logp = LogP::new(2, 1).expect("valid LogP parameters");
    let tree = Tree::new(TreeKind::Lame(2), Order::Interleaved, PROCS, logp).expect("valid tree");
    let spec: CorrectionSpec = correction.parse().expect("valid correction");
    let mut config = CorrectedTreeConfig::new(tree, spec, StartMode::Synchronized);
    config.payload = 0xC0FFEE;
    let config = Arc::new(config);

    let (senders, receivers): (Vec<_>, Vec<_>) = (0..PROCS).map(|_| channel()).unzip();
    let epoch = Instant::now();
    let mut handles = Vec::new();
    for (rank, inbox) in (0..PROCS).zip(receivers) {
        if FAILED.contains(&rank) {
            continue; // never runs; its channel is dropped, so sends to it are lost
        }
        let (config, peers) = (Arc::clone(&config), senders.clone());
        let crash_after = (rank == CRASHES).then_some(1);
        let serve_rank = move || {
            serve::<CorrectedTreeNode>(&config, rank, inbox, peers, epoch, crash_after, give_up)
        };
        handles.push((rank, thread::spawn(serve_rank)));
    }
    drop(senders);
    let outcomes = handles
        .into_iter()
        .map(|(rank, h)| (rank, h.join().expect("rank threads do not panic")))
        .collect();
    let config = Arc::try_unwrap(config).expect("every rank thread ended");
    (config, outcomes)
}

/// What went wrong: contract violations, a planned crash that did not happen, and live ranks
/// that did not deliver the root's payload exactly once or did not finish.
fn failures(config: &CorrectedTreeConfig, outcomes: &BTreeMap<Rank, Outcome<u64>>) -> Vec<String> {
    let mut failures = Vec::new();
    for (&rank, o) in outcomes {
        failures.extend(o.violations.iter().map(|v| format!("rank {rank}: {v}")));
        if (rank == CRASHES) != o.crashed {
            failures.push(format!(
                "rank {rank}: crashed {}, planned {}",
                o.crashed,
                rank == CRASHES
            ));
        }
        if !o.crashed {
            if o.delivered != [config.payload] {
                failures.push(format!(
                    "rank {rank} delivered {:x?}, expected the root's payload once",
                    o.delivered
                ));
            }
            if !o.done {
                failures.push(format!("rank {rank} did not finish"));
            }
        }
    }
    failures
}

fn main() -> ExitCode {
    let (config, outcomes) = broadcast("checked", GIVE_UP);
    println!(
        "Lamé(2) interleaved, P = {PROCS}, checked correction from step {}; ranks {FAILED:?} failed, rank {CRASHES} (children {:?}) crashes after its first send",
        config.correction_start,
        config.tree.children(CRASHES).collect::<Vec<_>>()
    );
    for (rank, o) in &outcomes {
        let fate = if o.crashed {
            "crashed"
        } else if o.done {
            "done"
        } else {
            "NOT DONE"
        };
        println!(
            "rank {rank:2}: delivered {:<10} {fate:<8} sent {:2}, {} to ranks gone",
            format!("{:x?}", o.delivered),
            o.sent,
            o.lost
        );
    }
    let failures = failures(&config, &outcomes);
    if failures.is_empty() {
        println!(
            "every live rank delivered {:#x} exactly once",
            config.payload
        );
        ExitCode::SUCCESS
    } else {
        for f in &failures {
            eprintln!("{f}");
        }
        ExitCode::FAILURE
    }
}

#[test]
fn every_live_rank_delivers_the_payload_once() {
    let (config, outcomes) = broadcast("checked", GIVE_UP);
    assert_eq!(failures(&config, &outcomes), Vec::<String>::new());
    assert_eq!(outcomes.len(), (PROCS as usize) - FAILED.len());
}

/// Without correction the check above fails exactly at the live ranks the tree cannot reach:
/// those below a failed rank or below one of the crashing rank's unserved children.
#[test]
fn without_correction_the_unreached_ranks_are_reported() {
    let (config, outcomes) = broadcast("none", Duration::from_secs(1));
    let tree = &config.tree;
    let first_child = tree.children(CRASHES).next();
    let reached = |mut r: Rank| loop {
        match tree.parent(r) {
            None => return true,
            Some(p) if FAILED.contains(&p) || (p == CRASHES && Some(r) != first_child) => {
                return false
            }
            Some(p) => r = p,
        }
    };
    let expected: Vec<String> = (0..PROCS)
        .filter(|r| !FAILED.contains(r) && *r != CRASHES && !reached(*r))
        .flat_map(|r| {
            [
                format!("rank {r} delivered [], expected the root's payload once"),
                format!("rank {r} did not finish"),
            ]
        })
        .collect();
    assert!(expected.len() >= 8, "the scenario leaves ranks unreached");
    assert_eq!(failures(&config, &outcomes), expected);
}
