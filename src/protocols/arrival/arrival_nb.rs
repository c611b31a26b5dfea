//! `arrival_nb`, PAP §4 Fig. 4: the arrival-pattern-aware broadcast for the non-blocking model,
//! competitive ratio at most 3 (Theorem 5).
//!
//! ```text
//! Receiving process:                            Root process:
//! (1) check if the message is buffered locally  (1) while some receivers have not been sent it
//! (2) if yes, copy it and exit                  (2)   check for ARRIVED messages
//! (3) else send ARRIVED to the root             (3)   discard those of receivers already sent it
//! (4) take part in the root's sub-group         (4)   if a group of receivers arrived:
//!     broadcast                                 (5)     initiate a sub-group broadcast
//!                                               (6)   else
//!                                               (7)     send it to one receiver not sent it yet
//! ```
//!
//! The receiver checks its buffer in its first send slot: the driver hands over the messages
//! buffered before the arrival at the arrival instant, before any send slot. The root picks
//! direct receivers in rank order. A sub-group broadcast is a chain in the order the ARRIVED
//! messages came (PAP: "e.g. using the nearopt algorithm").

use super::subgroup::Aware;
use super::{PapConfig, PapMsg};
use crate::automaton::{Automaton, Outbox, TimerId};
use crate::{Rank, Time};

/// One process of `arrival_nb`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ArrivalNbNode {
    aware: Aware,
    /// The root's next candidate for a direct send (line 7).
    cursor: Rank,
}

impl Automaton for ArrivalNbNode {
    type Msg = PapMsg;
    type Value = crate::automaton::Value;
    type Config = PapConfig;

    fn procs(config: &PapConfig) -> Option<u32> {
        Some(config.procs())
    }

    fn new(config: &PapConfig, rank: Rank) -> Self {
        Self {
            aware: Aware::new(config, rank),
            cursor: 1,
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
        out.ignore("arrival_nb sets no timers");
    }

    fn on_send_slot(&mut self, config: &PapConfig, _now: Time, out: &mut Outbox<PapMsg>) {
        if self.aware.rank != 0 {
            self.aware.receiver.on_send_slot(config, out);
            return;
        }
        if !self.aware.receiver.arrived || self.aware.book.unsent == 0 {
            return;
        }
        if self.aware.book.subgroup(config, out) {
            return;
        }
        while self.cursor < config.procs && self.aware.book.was_sent(self.cursor) {
            self.cursor += 1;
        }
        if self.cursor < config.procs {
            self.aware.book.mark_sent(self.cursor);
            out.send(self.cursor, config.data(alloc::vec::Vec::new()));
        }
    }
}
