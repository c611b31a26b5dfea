//! GOS: plain gossip until a global time `T` (CG §IV.B.1, §III.A; Drezner and Barak, CG ref. 12).
//!
//! ```text
//! root: colored at time 0
//! on the first gossip message (time, data): colored; deliver; time += L + 2O
//! every O while time + O <= T: send (time, data) to rand({0..N−1} \ {i})
//! ```
//!
//! Nothing corrects: a process no gossip message reached stays uncolored (the protocol is only
//! weakly consistent, §II). The gossip phase is the one of [`super`].

use super::{GossipConfig, GossipNode, GossipProtocol};
use crate::protocols::corrected_tree::CorrectionSpec;

/// The GOS protocol marker ([`GossipProtocol`]): gossip only.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct GosProtocol;

impl GossipProtocol for GosProtocol {
    type Config = GossipConfig;
    fn gossip(config: &GossipConfig) -> &GossipConfig {
        config
    }
    fn correction(_config: &GossipConfig) -> CorrectionSpec {
        CorrectionSpec::None
    }
}

/// One GOS process (configured by a [`GossipConfig`]).
pub type Gos = GossipNode<GosProtocol>;
