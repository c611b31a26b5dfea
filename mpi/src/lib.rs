//! # ftcoll-mpi — the ftcoll automata on MPI ranks
//!
//! One MPI rank serves one process of any [`Automaton`] with the transport driver
//! [`ftcoll_sim::transport::serve`]; this crate supplies the transport ([`MpiTransport`]:
//! non-blocking sends, probes for receives, the wall clock as time) and the harness around an
//! operation ([`run_operation`]): which ranks take part, emulated crashes (CT §4.4: ranks listed
//! as failed never run the protocol; others may crash at an instant or after some actions),
//! and the gathering of what happened, on a communicator of the ranks that took part, so that
//! a failed rank never blocks the survivors. The protocol never learns who failed.
//!
//! Every message carries the operation's number (as its MPI tag and in its header), so
//! consecutive operations never mix, and a payload of a chosen size when it carries data.

#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![warn(unreachable_pub)]

mod deal;
pub mod executor;
pub mod sweep;

use std::time::{Duration, Instant};

use ftcoll::automaton::Automaton;
use ftcoll::{Rank, Time};
use ftcoll_sim::transport::{serve, Served, Serving, Transport};
use mpi::point_to_point::{Destination, MatchedReceiveVec, Source};
use mpi::request::{LocalScope, Request};
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::*;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use typed_arena::Arena;

/// The MPI tag of the messages that end a failed rank's draining (operations use tags from 1).
pub const STOP_TAG: i32 = 0;

/// Operations cycle through the MPI tags `1..=TAGS` (MPI guarantees tags up to 32,767); the
/// full operation number travels in each message's header, so a message left over from an
/// earlier operation with the same tag is dropped.
pub const TAGS: u32 = 32_766;

/// What precedes a message's bytes: the operation it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Header {
    operation: u32,
}

/// A message on the wire: its header, the protocol's message, and `padding` bytes standing for
/// the application data it carries.
#[derive(Serialize, Deserialize)]
struct Wire<M> {
    header: Header,
    msg: M,
    padding: Vec<u8>,
}

/// The transport of one rank for one operation: sends are non-blocking (`MPI_Isend` from a
/// buffer that lives until the operation ends), receives probe for a message of this
/// operation's tag, time is the wall clock since the operation's start in units of `step`.
pub struct MpiTransport<'a, 's, M> {
    comm: &'a SimpleCommunicator,
    scope: &'s LocalScope<'a>,
    arena: &'a Arena<Vec<u8>>,
    pending: Vec<Request<'a, [u8], &'s LocalScope<'a>>>,
    operation: u32,
    epoch: Instant,
    step: Duration,
    idle: Duration,
    payload: usize,
    carries_payload: fn(&M) -> bool,
    /// Messages of this operation that did not decode (counted, dropped).
    pub undecodable: u64,
}

impl<'a, 's, M> MpiTransport<'a, 's, M> {
    fn tag(&self) -> i32 {
        tag_of(self.operation)
    }

    /// Completes every send that has completed, keeping the others.
    fn progress(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        for request in pending {
            if let Err(request) = request.test() {
                self.pending.push(request);
            }
        }
    }
}

impl<'a, 's, M: Serialize + DeserializeOwned> Transport<M> for MpiTransport<'a, 's, M> {
    fn now(&mut self) -> Time {
        (self.epoch.elapsed().as_nanos() / self.step.as_nanos().max(1)) as Time
    }

    fn send(&mut self, to: Rank, msg: &M) {
        let padding = if (self.carries_payload)(msg) {
            vec![0u8; self.payload]
        } else {
            Vec::new()
        };
        let wire = Wire {
            header: Header {
                operation: self.operation,
            },
            msg,
            padding,
        };
        let bytes = postcard::to_allocvec(&wire).expect("messages of this crate serialize");
        let buffer: &'a Vec<u8> = self.arena.alloc(bytes);
        let tag = self.tag();
        let request = self
            .comm
            .process_at_rank(to as i32)
            .immediate_send_with_tag(self.scope, &buffer[..], tag);
        self.pending.push(request);
        self.progress();
    }

    fn try_receive(&mut self) -> Option<(Rank, M)> {
        loop {
            let matched = self
                .comm
                .any_process()
                .immediate_matched_probe_with_tag(self.tag())?;
            let (bytes, status) = matched.matched_receive_vec::<u8>();
            match postcard::from_bytes::<Wire<M>>(&bytes) {
                Ok(wire) if wire.header.operation == self.operation => {
                    return Some((status.source_rank() as Rank, wire.msg))
                }
                _ => self.undecodable += 1,
            }
        }
    }

    fn receive_until(&mut self, deadline: Time) -> Option<(Rank, M)> {
        loop {
            if let Some(m) = self.try_receive() {
                return Some(m);
            }
            self.progress();
            if self.now() >= deadline {
                return None;
            }
            // Oversubscribed ranks share cores: sleep or yield instead of spinning.
            pause(self.idle);
        }
    }
}

/// One rank's part in an operation, as the harness reports it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RankResult<V> {
    /// The rank (of the world communicator).
    pub rank: Rank,
    /// What happened there ([`ftcoll_sim::transport::Served`]); `None` for a rank listed as
    /// failed.
    pub served: Option<ServedSummary<V>>,
}

/// What a served rank reports: [`Served`] without its per-value instants' vectors' growth
/// concerns (the values are few: one delivery or completion per operation).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServedSummary<V> {
    /// Values delivered, with their instants.
    pub delivered: Vec<(Time, V)>,
    /// Values completed with, with their instants.
    pub completed: Vec<(Time, V)>,
    /// Messages sent per phase (dissemination, correction, acknowledgment, liveness).
    pub sent: [u64; 4],
    /// Messages handed to the automaton.
    pub received: u64,
    /// How serving ended: `done`, `quiet`, `gave-up` or `crashed`.
    pub ended: String,
    /// When it ended (time units).
    pub at: Time,
    /// Contract breaches the driver saw.
    pub violations: Vec<String>,
}

impl<V> From<Served<V>> for ServedSummary<V> {
    fn from(s: Served<V>) -> Self {
        use ftcoll_sim::transport::Ended;
        Self {
            delivered: s.delivered,
            completed: s.completed,
            sent: s.sent,
            received: s.received,
            ended: match s.ended {
                Ended::Done => "done",
                Ended::Quiet => "quiet",
                Ended::GaveUp => "gave-up",
                Ended::Crashed => "crashed",
            }
            .to_string(),
            at: s.at,
            violations: s.violations.iter().map(|v| v.to_string()).collect(),
        }
    }
}

/// The MPI tag of operation `number`'s messages.
fn tag_of(number: u32) -> i32 {
    (number % TAGS + 1) as i32
}

/// Waits `idle` between polls, or yields the core when it is zero.
fn pause(idle: Duration) {
    if idle.is_zero() {
        std::thread::yield_now();
    } else {
        std::thread::sleep(idle);
    }
}

/// How one operation runs on the ranks that take part.
#[derive(Clone, Copy, Debug)]
pub struct Operation<M> {
    /// Its number (its MPI tag is `number % TAGS + 1`, and the number is in every header).
    pub number: u32,
    /// Wall-clock length of one time unit of the automaton.
    pub step: Duration,
    /// How long a rank with nothing to do waits before polling again (zero: it yields the
    /// core and polls at once; a benchmark's choice, costly on an oversubscribed machine).
    pub idle: Duration,
    /// Bytes of application data a message that carries data carries.
    pub payload: usize,
    /// Which messages carry the data.
    pub carries_payload: fn(&M) -> bool,
}

/// Runs one operation of automaton `A` on `live` (the communicator of the ranks that take part,
/// in world-rank order; `world_rank` is this rank's number in the world): a barrier, then
/// [`serve`] over [`MpiTransport`], then — draining this operation's messages meanwhile, so
/// that no sender waits on a rank that stopped reading — until every rank of `live` has
/// finished and its sends have completed. Returns what happened here.
pub fn run_operation<A>(
    live: &SimpleCommunicator,
    world: &SimpleCommunicator,
    world_rank: Rank,
    config: &A::Config,
    operation: Operation<A::Msg>,
    serving: Serving,
) -> Served<A::Value>
where
    A: Automaton,
    A::Msg: Serialize + DeserializeOwned,
{
    let arena = Arena::new();
    live.barrier();
    let epoch = Instant::now();
    mpi::request::scope(|scope| {
        let mut transport = MpiTransport {
            comm: world,
            scope,
            arena: &arena,
            pending: Vec::new(),
            operation: operation.number,
            epoch,
            step: operation.step,
            idle: operation.idle,
            payload: operation.payload,
            carries_payload: operation.carries_payload,
            undecodable: 0,
        };
        let served = serve::<A, _>(config, world_rank, &mut transport, serving);
        // Drain this operation's messages until every rank here is past this point with its
        // own sends complete.
        let tag = transport.tag();
        let mut barrier: Option<Request<'static, ()>> = None;
        loop {
            while let Some(matched) = world.any_process().immediate_matched_probe_with_tag(tag) {
                let _ = matched.matched_receive_vec::<u8>();
            }
            transport.progress();
            match barrier.take() {
                None if transport.pending.is_empty() => barrier = Some(live.immediate_barrier()),
                None => {}
                Some(b) => match b.test() {
                    Ok(_) => break,
                    Err(b) => barrier = Some(b),
                },
            }
            pause(operation.idle);
        }
        served
    })
}

/// A rank listed as failed: it takes part in no operation, but receives and drops every
/// message sent to it (the sends to it complete, as they would to a dead node's NIC) until
/// world rank 0 sends it [`STOP_TAG`].
pub fn drain_until_stopped(world: &SimpleCommunicator) {
    loop {
        if let Some(matched) = world.any_process().immediate_matched_probe() {
            let (_, status) = matched.matched_receive_vec::<u8>();
            if status.tag() == STOP_TAG {
                return;
            }
        } else {
            std::thread::sleep(Duration::from_micros(50));
        }
    }
}

/// World rank 0, after the last operation: releases every failed rank.
pub fn stop_failed(world: &SimpleCommunicator, failed: &[Rank]) {
    for &rank in failed {
        world
            .process_at_rank(rank as i32)
            .send_with_tag(&[0u8][..], STOP_TAG);
    }
}

/// Gathers every live rank's result at live rank 0 (world rank 0): each other rank sends its
/// result, serialized, to it. Returns the list (in live-rank order) at live rank 0, nothing
/// elsewhere.
pub fn gather_results<V: Clone + Serialize + DeserializeOwned>(
    live: &SimpleCommunicator,
    mine: &RankResult<V>,
) -> Option<Vec<RankResult<V>>> {
    let bytes = postcard::to_allocvec(mine).expect("results serialize");
    if live.rank() != 0 {
        live.process_at_rank(0).send(&bytes[..]);
        return None;
    }
    let mut all = vec![mine.clone()];
    for r in 1..live.size() {
        let (bytes, _) = live.process_at_rank(r).receive_vec::<u8>();
        all.push(postcard::from_bytes(&bytes).expect("results deserialize"));
    }
    Some(all)
}
