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

use super::subgroup::Aware;
use super::{PapConfig, PapMsg};
use crate::automaton::{Automaton, Outbox, TimerId};
use crate::{Rank, Time};

/// One process of `arrival_b`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ArrivalBNode {
    aware: Aware,
}

impl Automaton for ArrivalBNode {
    type Msg = PapMsg;
    type Value = crate::automaton::Value;
    type Config = PapConfig;

    fn procs(config: &PapConfig) -> Option<u32> {
        Some(config.procs())
    }

    fn new(config: &PapConfig, rank: Rank) -> Self {
        Self {
            aware: Aware::new(config, rank),
        }
    }

    fn on_start(&mut self, _config: &PapConfig, _now: Time, out: &mut Outbox<PapMsg>) {
        self.aware.on_start(out);
    }

    fn on_message(
        &mut self,
        config: &PapConfig,
        now: Time,
        from: Rank,
        msg: PapMsg,
        out: &mut Outbox<PapMsg>,
    ) {
        self.aware.on_message(config, now, from, msg, out);
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
        if self.aware.rank != 0 {
            self.aware.receiver.on_send_slot(config, out);
        } else if self.aware.receiver.arrived && self.aware.book.unsent > 0 {
            self.aware.book.subgroup(config, out);
        }
    }
}
