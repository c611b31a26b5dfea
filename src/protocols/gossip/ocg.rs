//! OCG: Opportunistic Corrected Gossip (CG §III.B, Alg. 1).
//!
//! ```text
//! gossip phase until T, wait until T + L + O                       (lines 1–6, see super)
//! g-nodes, correction for a fixed time C:                          (lines 7–10)
//!   off = 1
//!   loop: send to (i + off) % N; send to (i − off) % N; off += 1   (forward first)
//! c-nodes never send; already colored processes ignore further messages
//! ```
//!
//! The correction is the shared opportunistic sweep ([`CorrectionSpec::Opportunistic`], first
//! side [`Side::Right`](crate::protocols::Side::Right), no distance limit: a corrector stops once
//! its two sides together covered the ring). What OCG adds is the fixed time `C`, measured from
//! the correction start `T + L + O` (virtual time): a correction send starting at `t` is made
//! only if it is received, unqueued, within `C`, i.e. `t + 2O + L <= T + L + O + C`. So a g-node
//! makes `⌊(C − 2O − L)/O⌋ + 1` correction sends, and with Claim 2's `C = K̄O + L + O` exactly
//! `K̄`: enough to close every gap of at most `K̄` ranks between two g-nodes by
//! `T + L + O + C`. (The listing's `while time < C` compares `C` with the absolute virtual time;
//! the text calls `C` the duration of the phase, and Claim 2 sets it to `K̄O + L + O`, which
//! only reads as a duration. ftcoll follows the text.)

use super::{GossipConfig, GossipNode, GossipProtocol};
use crate::protocols::corrected_tree::CorrectionSpec;
use crate::Time;

/// OCG's configuration: the gossip phase and the correction time `C`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct OcgConfig {
    /// The gossip phase.
    pub gossip: GossipConfig,
    /// `C`, from the correction start `T + L + O` to the end of the last correction receive.
    pub correction_time: Time,
}

/// The OCG protocol marker ([`GossipProtocol`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct OcgProtocol;

impl GossipProtocol for OcgProtocol {
    type Config = OcgConfig;
    fn gossip(config: &OcgConfig) -> &GossipConfig {
        &config.gossip
    }
    fn correction(config: &OcgConfig) -> CorrectionSpec {
        CorrectionSpec::Opportunistic {
            distance: config.gossip.procs,
        }
    }
    fn correction_time(config: &OcgConfig) -> Option<Time> {
        Some(config.correction_time)
    }
}

/// One OCG process.
pub type Ocg = GossipNode<OcgProtocol>;
