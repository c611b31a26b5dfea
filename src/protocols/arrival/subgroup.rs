//! What a receiver of PAP §4 does: announce its arrival to the root unless the message is
//! already there, and forward a sub-group broadcast along its chain.

use alloc::vec::Vec;

use super::{PapConfig, PapMsg, PAYLOAD};
use crate::automaton::Outbox;
use crate::{Rank, Time};

/// A receiver of `arrival_nb` or `arrival_b`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(super) struct Receiver {
    pub arrived: bool,
    /// It holds the broadcast message.
    pub has: bool,
    /// ARRIVED was sent.
    pub announced: bool,
    /// The rest of the chain it must forward to, last first (the next rank is the last entry,
    /// so each hop pops it and passes the remainder on without copying).
    pub forward: Vec<Rank>,
}

impl Receiver {
    /// A DATA message from the root or a chain predecessor: deliver it and take the chain.
    /// The next hop must be a receiver other than `me` (a peer's list is checked where it is
    /// used: each hop checks its own next rank, which keeps a chain linear in its length).
    pub(super) fn on_data(
        &mut self,
        config: &PapConfig,
        me: Rank,
        rest: Vec<Rank>,
        out: &mut Outbox<PapMsg>,
    ) {
        if self.has {
            out.ignore("duplicate broadcast message");
            return;
        }
        if let Some(&next) = rest.last() {
            if next == 0 || next == me || next >= config.procs {
                out.ignore("sub-group chain names an invalid next rank");
                return;
            }
        }
        self.has = true;
        self.forward = rest;
        out.deliver(PAYLOAD);
    }

    /// The send slot: forward the chain (pipelined: at once), else announce the arrival once
    /// if the message is not there yet (Fig. 4 lines 1–2: a receiver holding it just copies).
    pub(super) fn on_send_slot(&mut self, config: &PapConfig, out: &mut Outbox<PapMsg>) {
        if !self.arrived {
            return;
        }
        if self.has {
            if !self.forward.is_empty() {
                let mut rest = core::mem::take(&mut self.forward);
                if let Some(next) = rest.pop() {
                    out.send(next, config.data(rest));
                }
            }
        } else if !self.announced {
            self.announced = true;
            out.send(0, PapMsg::Arrived);
        }
    }
}

/// The root's view of who was sent the message (PAP Figs. 4–5, "receivers that have not
/// been sent the message"): one bit per receiver and the ARRIVED ones waiting, in the order
/// they announced themselves.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(super) struct RootBook {
    sent: Vec<u64>,
    pub unsent: u32,
    pub waiting: Vec<Rank>,
}

impl RootBook {
    pub(super) fn new(procs: u32) -> Self {
        Self {
            sent: alloc::vec![0; (procs as usize).div_ceil(64)],
            unsent: procs.saturating_sub(1),
            waiting: Vec::new(),
        }
    }

    pub(super) fn was_sent(&self, r: Rank) -> bool {
        self.sent[r as usize / 64] >> (r % 64) & 1 == 1
    }

    pub(super) fn mark_sent(&mut self, r: Rank) {
        if !self.was_sent(r) {
            self.sent[r as usize / 64] |= 1 << (r % 64);
            self.unsent -= 1;
        }
    }

    /// Fig. 4 line 3 / Fig. 5 line 2: keep an ARRIVED unless its sender was sent the message.
    pub(super) fn arrived(&mut self, r: Rank) {
        if r != 0 && !self.was_sent(r) && !self.waiting.contains(&r) {
            self.waiting.push(r);
        }
    }

    /// Fig. 4 line 5 / Fig. 5 line 4: a sub-group broadcast to every receiver waiting, in the
    /// order they announced themselves: the message to the first, which forwards along the rest.
    pub(super) fn subgroup(&mut self, config: &PapConfig, out: &mut Outbox<PapMsg>) -> bool {
        if self.waiting.is_empty() {
            return false;
        }
        let mut group = core::mem::take(&mut self.waiting);
        for &r in &group {
            self.mark_sent(r);
        }
        // The chain travels last first: each hop pops its next rank.
        group.reverse();
        if let Some(first) = group.pop() {
            out.send(first, config.data(group));
        }
        true
    }
}

/// What `arrival_nb` and `arrival_b` share: a rank's receiver side and, at the root, its book.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(super) struct Aware {
    pub rank: Rank,
    pub receiver: Receiver,
    /// The root's book (empty at receivers).
    pub book: RootBook,
}

impl Aware {
    pub(super) fn new(config: &PapConfig, rank: Rank) -> Self {
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

    /// The process arrives; the root holds the message from the start.
    pub(super) fn on_start(&mut self, out: &mut Outbox<PapMsg>) {
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

    /// ARRIVED goes into the root's book; DATA to a receiver (Figs. 4–5).
    pub(super) fn on_message(
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fig. 4 line 3 / Fig. 5 line 2, defended against any peer: an ARRIVED from the root, from
    /// a receiver already sent the message, or a second one from a waiting receiver is dropped;
    /// the others wait in the order they came, and a sub-group send marks them sent.
    #[test]
    fn root_book_keeps_only_new_arrivals_of_receivers_not_yet_sent() {
        let mut book = RootBook::new(8);
        book.mark_sent(1);
        for r in [0, 1, 5, 3, 5] {
            book.arrived(r);
        }
        assert_eq!(book.waiting, [5, 3]);
        assert_eq!(book.unsent, 6);
        let config = PapConfig::new(8, 4).unwrap();
        let mut out = Outbox::new();
        assert!(book.subgroup(&config, &mut out));
        assert!(book.was_sent(5) && book.was_sent(3) && book.waiting.is_empty());
        assert_eq!(book.unsent, 4);
        book.arrived(3);
        assert!(book.waiting.is_empty());
        assert!(!book.subgroup(&config, &mut out));
    }

    /// Fig. 4 lines 1–2: a receiver that already holds the message copies it and sends no
    /// ARRIVED; one that does not announces itself exactly once.
    #[test]
    fn a_receiver_announces_once_and_only_without_the_message() {
        let config = PapConfig::new(4, 4).unwrap();
        let sends = |r: &mut Receiver| {
            let mut out = Outbox::new();
            r.on_send_slot(&config, &mut out);
            out.actions().len()
        };
        let mut holder = Receiver {
            arrived: true,
            has: true,
            ..Receiver::default()
        };
        assert_eq!(sends(&mut holder), 0);
        let mut waiting = Receiver {
            arrived: true,
            ..Receiver::default()
        };
        assert_eq!((sends(&mut waiting), sends(&mut waiting)), (1, 0));
    }
}
