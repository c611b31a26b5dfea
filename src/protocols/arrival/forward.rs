//! The automaton behind the static algorithms of PAP §3 (flat, binomial, linear pipelined,
//! nearopt): each process forwards every segment it holds to a fixed list of destinations,
//! segment by segment, as soon as it holds it (with the first bit, PAP §3.1).

use alloc::vec::Vec;
use core::fmt::Debug;
use core::hash::Hash;

use super::{PapMsg, PAYLOAD};
use crate::automaton::{Automaton, Outbox, TimerId, Value};
use crate::{Rank, Time};

/// A static broadcast schedule: who sends what to whom, independent of the arrival pattern.
pub trait Forwarding: Debug {
    /// `n`.
    fn procs(&self) -> u32;
    /// How many segments the message is cut into (1 unless pipelined).
    fn segments(&self) -> u32 {
        1
    }
    /// `T` of segment `i`.
    fn segment_size(&self, i: u32) -> u64;
    /// The `k`-th destination of `rank` (`None`: no more), in send order.
    fn destination(&self, rank: Rank, k: u32) -> Option<Rank>;
}

/// One process of a static schedule `C` (see [`Forwarding`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ForwardNode<C> {
    rank: Rank,
    arrived: bool,
    /// Segments held (all of them at the root).
    held: u32,
    /// The next send: segment, then destination index.
    segment: u32,
    k: u32,
    #[cfg_attr(feature = "serde", serde(skip))]
    _schedule: core::marker::PhantomData<fn() -> C>,
}

impl<C> ForwardNode<C> {
    /// Whether the process holds the whole message.
    pub fn holds(&self, config: &C) -> bool
    where
        C: Forwarding,
    {
        self.held == config.segments()
    }
}

impl<C> Automaton for ForwardNode<C>
where
    C: Forwarding + Clone + Eq + Hash,
{
    type Msg = PapMsg;
    type Value = Value;
    type Config = C;

    fn procs(config: &C) -> Option<u32> {
        Some(config.procs())
    }

    fn new(config: &C, rank: Rank) -> Self {
        Self {
            rank,
            arrived: false,
            held: if rank == 0 { config.segments() } else { 0 },
            segment: 0,
            k: 0,
            _schedule: core::marker::PhantomData,
        }
    }

    fn on_start(&mut self, _config: &C, _now: Time, out: &mut Outbox<PapMsg>) {
        if self.arrived {
            out.ignore("started twice");
            return;
        }
        self.arrived = true;
        if self.rank == 0 {
            out.deliver(PAYLOAD);
        }
    }

    fn on_message(
        &mut self,
        config: &C,
        _now: Time,
        from: Rank,
        msg: PapMsg,
        out: &mut Outbox<PapMsg>,
    ) {
        if from >= config.procs() || from == self.rank {
            out.ignore("sender is not another rank of this operation");
            return;
        }
        match msg {
            PapMsg::Data { index, .. } if index == self.held && self.held < config.segments() => {
                self.held += 1;
                if self.held == config.segments() {
                    // Recorded by the driver when the last segment's transfer ends.
                    out.deliver(PAYLOAD);
                }
            }
            PapMsg::Data { .. } => out.ignore("segment out of order or duplicate"),
            PapMsg::Arrived => out.ignore("ARRIVED in a static schedule"),
        }
    }

    fn on_timer(&mut self, _config: &C, _now: Time, _id: TimerId, out: &mut Outbox<PapMsg>) {
        out.ignore("static schedules set no timers");
    }

    fn on_send_slot(&mut self, config: &C, _now: Time, out: &mut Outbox<PapMsg>) {
        while self.arrived && self.segment < self.held {
            match config.destination(self.rank, self.k) {
                Some(to) if to < config.procs() && to != self.rank => {
                    self.k += 1;
                    out.send(
                        to,
                        PapMsg::Data {
                            size: config.segment_size(self.segment),
                            index: self.segment,
                            rest: Vec::new(),
                        },
                    );
                    return;
                }
                Some(_) => self.k += 1,
                None => {
                    self.segment += 1;
                    self.k = 0;
                }
            }
        }
    }
}
