//! Protocol automata, one per module, each citing the paper section it implements.
//!
//! - [`corrected_tree`]: Corrected Tree broadcast (CT §3) and its baselines: plain tree and tree
//!   with acknowledgments (CT §4.1).
//! - [`correction`]: the ring correction variants shared by every dissemination (CT §3.1, §3.3;
//!   CG §III).

pub mod corrected_tree;
pub mod correction;
pub mod message;
pub mod ring;

pub use message::{Body, CorrectionMsg, Msg};
pub use ring::{Ring, Side};
