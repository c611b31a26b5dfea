//! Why a run could not be carried out ([`SimError`]): a scenario that does not fit the
//! configuration, an automaton that broke the contract, or a budget or capacity exceeded.

use core::fmt;

use ftcoll::{Rank, Time};

/// A run that could not be carried out.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SimError {
    /// The `procs` given to the driver is not the `P` the configuration was built for
    /// ([`Automaton::procs`](ftcoll::automaton::Automaton::procs)).
    ProcsMismatch {
        /// The `procs` argument.
        given: u32,
        /// The configuration's `P`.
        config: u32,
    },
    /// A rank in the scenario is not below `P`.
    RankOutOfRange {
        /// The scenario field.
        field: &'static str,
        /// The rank.
        rank: Rank,
        /// `P`.
        procs: u32,
    },
    /// `arrivals` has the wrong length.
    ArrivalsLength {
        /// Its length.
        len: usize,
        /// `P`.
        procs: u32,
    },
    /// An automaton broke the contract (e.g. sent outside its send slot).
    Contract {
        /// The process.
        rank: Rank,
        /// When.
        time: Time,
        /// What it did.
        what: &'static str,
    },
    /// The run exceeded its event budget (a protocol that never quiesces).
    EventBudget {
        /// Events processed.
        events: u64,
    },
    /// More than the driver numbers with 32 bits: 2^32 messages in flight at once, or 2^31
    /// timer events of generations 2^31 or later scheduled for one instant, stale ones included
    /// (far beyond the memory of any machine this runs on).
    Capacity {
        /// What overflowed.
        what: &'static str,
    },
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::RankOutOfRange { field, rank, procs } => {
                write!(
                    f,
                    "{field}: rank {rank} does not exist: allowed 0..={}",
                    procs.saturating_sub(1)
                )
            }
            Self::ProcsMismatch { given, config } => write!(
                f,
                "procs: {given} given, but the configuration is for P = {config} (allowed: {config})"
            ),
            Self::ArrivalsLength { len, procs } => {
                write!(f, "arrivals: {len} times given, expected P = {procs}")
            }
            Self::Contract { rank, time, what } => write!(f, "rank {rank} at t={time}: {what}"),
            Self::EventBudget { events } => {
                write!(f, "the run did not quiesce within {events} events")
            }
            Self::Capacity { what } => write!(f, "more than 2^32 {what} (at most 2^32 allowed)"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for SimError {}
