//! `arrival_b`, PAP §4 Fig. 5: the arrival-pattern-aware broadcast for the blocking model,
//! competitive ratio at most 3 (Theorem 6).
//!
//! ```text
//! Receiving process:                      Root process:
//! (1) send ARRIVED to the root            (1) while some receivers have not been sent it
//! (2) take part in the root's sub-group   (2)   check for ARRIVED messages
//!     broadcast                           (3)   if a group of receivers arrived:
//!                                         (4)     initiate a sub-group broadcast
//! ```
//!
//! Between rounds the root waits (it sends nothing until an ARRIVED comes). A sub-group
//! broadcast is a chain in the order the ARRIVED messages came.

use super::subgroup::{Receiver, RootBook};
use super::{PapConfig, PapMsg, PAYLOAD};
use crate::automaton::{Automaton, Outbox, TimerId};
use crate::{Rank, Time};

/// One process of `arrival_b`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ArrivalBNode {
    rank: Rank,
    receiver: Receiver,
    /// The root's book (empty at receivers).
    book: RootBook,
}

impl Automaton for ArrivalBNode {
    type Msg = PapMsg;
    type Value = crate::automaton::Value;
    type Config = PapConfig;

    fn new(config: &PapConfig, rank: Rank) -> Self {
        Self {
            rank,
            receiver: Receiver::default(),
            book: if rank == 0 {
                RootBook::new(config.procs)
            } else {
                RootBook::default()
            },
        }
    }

    fn on_start(&mut self, _config: &PapConfig, _now: Time, out: &mut Outbox<PapMsg>) {
        if self.receiver.arrived {
            out.ignore("started twice");
            return;
        }
        self.receiver.arrived = true;
        if self.rank == 0 {
            self.receiver.has = true;
            out.deliver(PAYLOAD);
        }
    }

    fn on_message(
        &mut self,
        config: &PapConfig,
        _now: Time,
        from: Rank,
        msg: PapMsg,
        out: &mut Outbox<PapMsg>,
    ) {
        if from >= config.procs || from == self.rank {
            out.ignore("sender is not another rank of this operation");
            return;
        }
        match msg {
            PapMsg::Arrived if self.rank == 0 => self.book.arrived(from),
            PapMsg::Arrived => out.ignore("ARRIVED at a receiver"),
            PapMsg::Data { .. } if self.rank == 0 => out.ignore("data at the root"),
            PapMsg::Data { rest, .. } => self.receiver.on_data(config, self.rank, rest, out),
        }
    }

    fn on_timer(
        &mut self,
        _config: &PapConfig,
        _now: Time,
        _id: TimerId,
        out: &mut Outbox<PapMsg>,
    ) {
        out.ignore("arrival_b sets no timers");
    }

    fn on_send_slot(&mut self, config: &PapConfig, _now: Time, out: &mut Outbox<PapMsg>) {
        if self.rank != 0 {
            self.receiver.on_send_slot(config, true, out);
        } else if self.receiver.arrived && self.book.unsent > 0 {
            self.book.subgroup(config, out);
        }
    }
}
