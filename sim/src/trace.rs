//! What a driver records of a run when asked (`Scenario::trace`): every message, lost message and
//! ignored input, for a renderer (the lab's `chrome_trace` writes Chrome trace JSON).

use alloc::borrow::Cow;

use ftcoll::automaton::Phase;
use ftcoll::{Rank, Time};

/// One traced event.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum TraceEvent {
    /// A message sent at `sent` and handed to `to` at `received`.
    Message {
        /// Sender.
        from: Rank,
        /// Receiver.
        to: Rank,
        /// Send start.
        sent: Time,
        /// End of the receive overhead.
        received: Time,
        /// Its phase.
        phase: Phase,
    },
    /// A message that reached a crashed process at `at`.
    Lost {
        /// Sender.
        from: Rank,
        /// The crashed receiver.
        to: Rank,
        /// Send start.
        sent: Time,
        /// When it reached the receiver.
        at: Time,
        /// Its phase.
        phase: Phase,
    },
    /// An input an automaton ignored.
    Ignored {
        /// The process.
        rank: Rank,
        /// When.
        at: Time,
        /// Why (the automaton's static reason; owned only when read back from a file).
        reason: Cow<'static, str>,
    },
}
