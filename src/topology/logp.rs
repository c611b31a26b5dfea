//! LogP parameters (CT §2.2): integer latency `L` and overhead `o`; `g <= o` is ignored.

use super::TopologyError;
use crate::Time;

/// Largest accepted `L` and `o`: keeps the per-tree time tables small (they grow with `2o + L`).
pub const MAX_LOGP_PARAMETER: u64 = 65_535;

/// Dual-port LogP parameters: a send occupies the sender for `o`, travels `L`, and occupies the
/// receiver for `o`; the receiver can forward at `t + 2o + L` when the send started at `t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(
        try_from = "crate::serde_support::LogPParams",
        into = "crate::serde_support::LogPParams"
    )
)]
pub struct LogP {
    latency: Time,
    overhead: Time,
}

impl LogP {
    /// `L` in `0..=65535` and `o` in `1..=65535`.
    pub fn new(latency: Time, overhead: Time) -> Result<Self, TopologyError> {
        if latency > MAX_LOGP_PARAMETER {
            return Err(TopologyError::OutOfRange {
                field: "L",
                value: latency,
                min: 0,
                max: MAX_LOGP_PARAMETER,
            });
        }
        if overhead == 0 || overhead > MAX_LOGP_PARAMETER {
            return Err(TopologyError::OutOfRange {
                field: "o",
                value: overhead,
                min: 1,
                max: MAX_LOGP_PARAMETER,
            });
        }
        Ok(Self { latency, overhead })
    }

    /// The network latency `L`.
    pub fn latency(&self) -> Time {
        self.latency
    }

    /// The per-message overhead `o` on each side.
    pub fn overhead(&self) -> Time {
        self.overhead
    }

    /// `2o + L`: from the start of a send to the moment the receiver holds the message.
    pub fn hop(&self) -> Time {
        2 * self.overhead + self.latency
    }
}

impl Default for LogP {
    /// The papers' default evaluation parameters, `L = 2, o = 1` (CT §4).
    fn default() -> Self {
        Self {
            latency: 2,
            overhead: 1,
        }
    }
}

/// Blocking or non-blocking communication (PAP §3.1): the communication model of PAP's timing
/// model, which the arrival-pattern broadcasts' bounds depend on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum PapMode {
    /// The transfer starts when both sides are ready (MPI's rendezvous for large messages).
    #[default]
    Blocking,
    /// The sender never waits for the receiver's arrival; the message is buffered there.
    NonBlocking,
}
