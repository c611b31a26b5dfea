//! Protocol automata, one per module, each citing the paper section it implements.
//!
//! - [`corrected_tree`]: Corrected Tree broadcast (CT §3) and its baselines: plain tree and tree
//!   with acknowledgments (CT §4.1).
//! - [`correction`]: the ring correction variants shared by every dissemination (CT §3.1, §3.3;
//!   CG §III).
//! - [`gossip`]: Corrected Gossip (CG §III: OCG, CCG, FCG) and plain gossip (GOS, CG §IV.B.1),
//!   with the model-driven gossip and correction times (`gossip::plan`, CG Lemma 1, Eq. 2–5).
//! - [`ftco`]: FTCO's fault-tolerant Bcast, Reduce and Allreduce over k-ary and k-nomial trees
//!   (FTCO §2–4, App. A) on the single-port step model.

pub mod arrival;
pub mod corrected_tree;
pub mod correction;
pub mod ftco;
pub mod gossip;
pub mod message;
pub mod ring;

pub use message::{Body, CorrectionMsg, Correctors, Msg};
pub use ring::{Ring, Side};
