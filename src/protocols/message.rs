//! Messages of the broadcast family (Corrected Trees, Corrected Gossip and their baselines).

use core::ops::Deref;

use alloc::vec::Vec;

use thin_vec::ThinVec;

use super::ring::Side;
use crate::automaton::{Message, Phase, Value};
use crate::{Rank, Time};

/// A broadcast message: the payload and what the message is.
#[derive(Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Msg {
    /// The broadcast payload (every message carries it, CT §2.1's integrity).
    pub value: Value,
    /// The role of the message.
    pub body: Body,
}

/// The role of a broadcast message.
#[derive(Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
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
#[derive(Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
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
        /// Up to `f + 1` correcting processes behind the sender (relative to `toward`).
        known: Correctors,
    },
    /// Failure-proof correction's SOS broadcast to everyone (CG Alg. 3, line 9).
    Sos,
}

/// The correcting processes a failure-proof message carries (CG Alg. 3): a list behind one
/// pointer, its length in the allocation, so that every message of the family is 24 B (a boxed
/// slice, a pointer and a length, made it 32 B, a `Vec` 40 B; the driver holds one message per
/// message in flight, about one per process at a Corrected Tree run's peak). It reads
/// as a slice of ranks.
#[derive(Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
pub struct Correctors(ThinVec<Rank>);

// Copies into an existing message reuse its list of correctors (`clone_from`): the model
// checker copies every successor, messages in flight included, into a state it has finished
// with, and a derived `clone_from` allocates a new list for every failure-proof message.

impl Clone for Msg {
    fn clone(&self) -> Self {
        Self {
            value: self.value,
            body: self.body.clone(),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.value = source.value;
        self.body.clone_from(&source.body);
    }
}

impl Clone for Body {
    fn clone(&self) -> Self {
        match self {
            Self::Tree => Self::Tree,
            Self::Gossip { round } => Self::Gossip { round: *round },
            Self::Ack => Self::Ack,
            Self::Correction(msg) => Self::Correction(msg.clone()),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        match (self, source) {
            (Self::Correction(mine), Self::Correction(theirs)) => mine.clone_from(theirs),
            (mine, theirs) => *mine = theirs.clone(),
        }
    }
}

impl Clone for CorrectionMsg {
    fn clone(&self) -> Self {
        match self {
            Self::Ring { toward } => Self::Ring { toward: *toward },
            Self::Stop => Self::Stop,
            Self::FailProof { toward, known } => Self::FailProof {
                toward: *toward,
                known: known.clone(),
            },
            Self::Sos => Self::Sos,
        }
    }

    fn clone_from(&mut self, source: &Self) {
        match (self, source) {
            (
                Self::FailProof { toward, known },
                Self::FailProof {
                    toward: their_toward,
                    known: their_known,
                },
            ) => {
                *toward = *their_toward;
                known.clone_from(their_known);
            }
            (mine, theirs) => *mine = theirs.clone(),
        }
    }
}

impl Clone for Correctors {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }

    /// Copies into this list's allocation when it is large enough.
    fn clone_from(&mut self, source: &Self) {
        self.0.clear();
        self.0.extend_from_slice(&source.0);
    }
}

impl Deref for Correctors {
    type Target = [Rank];

    fn deref(&self) -> &[Rank] {
        &self.0
    }
}

impl<'a> IntoIterator for &'a Correctors {
    type Item = &'a Rank;
    type IntoIter = core::slice::Iter<'a, Rank>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl From<&[Rank]> for Correctors {
    fn from(ranks: &[Rank]) -> Self {
        Self(ranks.iter().copied().collect())
    }
}

impl From<Vec<Rank>> for Correctors {
    fn from(ranks: Vec<Rank>) -> Self {
        Self(ranks.into_iter().collect())
    }
}

impl<const N: usize> From<[Rank; N]> for Correctors {
    fn from(ranks: [Rank; N]) -> Self {
        Self(ranks.into_iter().collect())
    }
}

impl FromIterator<Rank> for Correctors {
    fn from_iter<I: IntoIterator<Item = Rank>>(ranks: I) -> Self {
        Self(ranks.into_iter().collect())
    }
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

    /// The size the driver's message slots are planned for (docs/performance.md):
    /// every message of the family holds its list of correctors behind one thin pointer.
    #[test]
    fn a_message_is_24_bytes() {
        assert_eq!(core::mem::size_of::<Msg>(), 24);
    }

    #[test]
    fn correctors_read_back_as_the_ranks_they_were_made_of() {
        let ranks: [Rank; 3] = [7, 3, 9];
        assert_eq!(&*Correctors::from(&ranks[..]), &ranks[..]);
        assert_eq!(&*Correctors::from(ranks), &ranks[..]);
        assert_eq!(&*Correctors::from(ranks.to_vec()), &ranks[..]);
        assert_eq!(&*ranks.into_iter().collect::<Correctors>(), &ranks[..]);
        assert!(Correctors::default().is_empty());
        assert_ne!(Correctors::from([1, 2]), Correctors::from([2, 1]));
    }
}
