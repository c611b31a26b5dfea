//! FCG(f): Failure-proof Corrected Gossip (CG §III.D, Alg. 3).
//!
//! ```text
//! gossip phase until T, wait until T + L + O                        (lines 1–7, see super)
//! SOS (g- and c-nodes): send (★, data) to every other rank, deliver, exit   (lines 8–10)
//! c-nodes: hold the payload; deliver once f + 1 distinct g-nodes are known
//!          (senders and the lists they carry); after a timeout, SOS        (lines 11–14)
//! g-nodes: k▷, k◁: up to f + 1 nearest known g-nodes on each side          (line 2)
//!   on (dir, k, data) from src: k_opp(dir) = nearest f + 1 of src ∪ k ∪ k_opp(dir)  (21–22)
//!   on ★: SOS                                                             (line 23)
//!   knowing f g-nodes on one side: final round toward the other, off = 1  (line 24)
//!   stop a side once past its (f + 1)-th known g-node                     (line 25)
//!   send (dir, k_opp(dir), data) to (i + dir·off) % N, alternating, ▷ first (26–27)
//!   a full loop of one side without f + 1 g-nodes: SOS                    (line 28)
//! ```
//!
//! All of it is the shared failure-proof correction ([`CorrectionSpec::FailProof`], first side
//! [`Side::Right`](crate::protocols::Side::Right)), the same code the Corrected Tree family's
//! `failproof:F` runs; docs/reference/corrected-tree.md ("Failure-proof correction") says where it
//! departs from the OCR'd listing and why
//! (the listing never lets a node learn when `f = 0`). FCG(f) colors every live process if at
//! most `f` processes fail during the correction (Claim 4) and any number fail before it or
//! during the gossip phase (Corollary 3).

use super::{GossipConfig, GossipNode, GossipProtocol};
use crate::protocols::corrected_tree::CorrectionSpec;
use crate::protocols::correction::default_sos_timeout;
use crate::Time;

/// FCG's configuration: the gossip phase, `f` and the c-node timeout.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct FcgConfig {
    /// The gossip phase.
    pub gossip: GossipConfig,
    /// `f`: crashes during the correction it tolerates.
    pub faults: u32,
    /// How long a c-node waits, from its first correction message, for `f + 1` g-nodes before
    /// SOS (Alg. 3 line 14).
    pub sos_timeout: Time,
    /// Line 28: whether a g-node whose sweep comes back to itself enters SOS (`true`, the
    /// listing and the default) or only stops that side (`false`, the footnote to Claim 5).
    #[cfg_attr(feature = "serde", serde(default = "as_listed"))]
    pub sos_on_full_loop: bool,
}

/// Line 28 as the listing has it (serde's default for configurations written without it).
#[cfg(feature = "serde")]
fn as_listed() -> bool {
    true
}

impl FcgConfig {
    /// FCG(`faults`) with the CLI's failure-proof default timeout `4·N·O + 2(2O + L)`: the time
    /// for a g-node to sweep the whole ring twice (docs/reference/corrected-tree.md, "Failure-proof
    /// correction"; docs/reference/gossip.md, FCG's c-node timeout).
    pub fn new(gossip: GossipConfig, faults: u32) -> Self {
        let sos_timeout = default_sos_timeout(gossip.procs, gossip.logp);
        Self {
            gossip,
            faults,
            sos_timeout,
            sos_on_full_loop: true,
        }
    }
}

/// The FCG protocol marker ([`GossipProtocol`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FcgProtocol;

impl GossipProtocol for FcgProtocol {
    type Config = FcgConfig;
    fn gossip(config: &FcgConfig) -> &GossipConfig {
        &config.gossip
    }
    fn correction(config: &FcgConfig) -> CorrectionSpec {
        CorrectionSpec::FailProof {
            faults: config.faults,
            sos_timeout: Some(config.sos_timeout),
            sos_on_full_loop: config.sos_on_full_loop,
        }
    }
}

/// One FCG process.
pub type Fcg = GossipNode<FcgProtocol>;
