//! Messages of the broadcast family (Corrected Trees, Corrected Gossip and their baselines).

use alloc::boxed::Box;

use super::ring::Side;
use crate::automaton::{Message, Phase, Value};
use crate::{Rank, Time};

/// A broadcast message: the payload and what the message is.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Msg {
    /// The broadcast payload (every message carries it, CT §2.1's integrity).
    pub value: Value,
    /// The role of the message.
    pub body: Body,
}

/// The role of a broadcast message.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Body {
    /// A tree edge (CT §3.2).
    Tree,
    /// A gossip message carrying the sender's virtual time (CG §III.A).
    Gossip {
        /// The sender's gossip clock when it sent.
        round: Time,
    },
    /// An acknowledgment to the tree parent (CT §4.1 baseline).
    Ack,
    /// A correction-phase message.
    Correction(CorrectionMsg),
}

/// Correction-phase messages (CT §3.1, §3.3; CG §III.B–D).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum CorrectionMsg {
    /// A ring message sent toward `toward` (CG's ▷ / ◁ marks): the receiver learns that a
    /// correcting process lies on the opposite side.
    Ring {
        /// The direction the message travels.
        toward: Side,
    },
    /// Delayed correction's reply: "stop sending toward me" (CT §3.3).
    Stop,
    /// Failure-proof correction (CG Alg. 3): a ring message carrying the closest correcting
    /// processes the sender knows on the side the message comes from.
    FailProof {
        /// The direction the message travels.
        toward: Side,
        /// Up to `f + 1` correcting processes behind the sender (relative to `toward`). A
        /// boxed slice, not a `Vec`, so that every message of the family is 8 bytes smaller
        /// (32 B instead of 40 B; the driver holds one per message in flight).
        known: Box<[Rank]>,
    },
    /// Failure-proof correction's SOS broadcast to everyone (CG Alg. 3, line 9).
    Sos,
}

impl Message for Msg {
    fn phase(&self) -> Phase {
        match self.body {
            Body::Tree | Body::Gossip { .. } => Phase::Dissemination,
            Body::Ack => Phase::Acknowledgment,
            Body::Correction(_) => Phase::Correction,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The size the driver's message slots are planned for (docs/performance.md, issue 16):
    /// every message of the family holds its list of correctors behind one pointer.
    #[test]
    fn a_message_is_32_bytes() {
        assert_eq!(core::mem::size_of::<Msg>(), 32);
    }
}
