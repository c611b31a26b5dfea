//! CCG: Checked Corrected Gossip (CG §III.C, Alg. 2).
//!
//! ```text
//! gossip phase until T, wait until T + L + O                        (lines 1–7, see super)
//! c-nodes (first message a correction message) exit: they never send     (line 4)
//! g-nodes: m▷ = m◁ = ∞; s▷ = s◁ = true; off = 1                       (lines 8–9)
//!   while s▷ ∨ s◁: for dir in ▷, ◁:                                  (lines 10–11)
//!     on a correction message from distance m travelling dir: m_dir' = min(m_dir', m)
//!     if off > m_dir then s_dir = false                               (line 14)
//!     if s_dir then send (dir, data) to (i + dir·off) % N             (line 15)
//!   stop once the two sides together reached all N − 1 others         (line 16)
//! ```
//!
//! The correction is the shared checked rule ([`CorrectionSpec::Checked`], first side
//! [`Side::Right`](crate::protocols::Side::Right)): a side stops once this process sent to the
//! distance of the nearest g-node heard from on that side. As for the Corrected Tree family, a
//! process whose one side is done sends to the other side at every slot (the listing's comment
//! "analysis assumes we wait O in else" would waste the slot; docs/reference/corrected-tree.md,
//! "Ring correction").
//!
//! CCG colors every live process if no process fails during the correction (Claim 3); crashes
//! during correction can leave processes uncolored (the text after Claim 3).

use super::{GossipConfig, GossipNode, GossipProtocol};
use crate::protocols::corrected_tree::CorrectionSpec;

/// The CCG protocol marker ([`GossipProtocol`]); its configuration is a [`GossipConfig`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CcgProtocol;

impl GossipProtocol for CcgProtocol {
    type Config = GossipConfig;
    fn gossip(config: &GossipConfig) -> &GossipConfig {
        config
    }
    fn correction(_config: &GossipConfig) -> CorrectionSpec {
        CorrectionSpec::Checked
    }
}

/// One CCG process.
pub type Ccg = GossipNode<CcgProtocol>;
