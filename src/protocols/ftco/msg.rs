//! FTCO's three message types (FTCO §3, "Message Flow").

use crate::automaton::{Message, Payload, Phase};

/// A message of FTCO. The paper's DATA is split by direction, so a receiver never has to guess
/// whether a value is a partial reduction or the result (Alg. 2 lines 13–16 decide it from
/// whether the source is in `Up`, which stops working once `Up` changes by re-parenting).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum FtcoMsg<V> {
    /// DATA going up the tree (Reduce, Allreduce) or between the roots of a multi-root
    /// Allreduce: the sender's partial reduction.
    Partial(V),
    /// DATA going down the tree: the result (Bcast: the root's value). Never acknowledged: its
    /// receiver completes once it has forwarded it (FTCO §5.2.2, "3 messages" per node).
    Result(V),
    /// Explicit fault detection, no data (Alg. 4 lines 18–25).
    Keepalive,
    /// Acknowledgment of a partial or a KEEPALIVE (Alg. 2 line 20, Alg. 4 lines 12–17).
    Ack,
}

/// The priority class of a message (Alg. 2 line 7: DATA, then KEEPALIVE, then ACK).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Kind {
    /// [`FtcoMsg::Partial`] and [`FtcoMsg::Result`].
    Data,
    /// [`FtcoMsg::Keepalive`].
    Keepalive,
    /// [`FtcoMsg::Ack`].
    Ack,
}

impl<V> FtcoMsg<V> {
    /// The message's priority class.
    pub fn kind(&self) -> Kind {
        match self {
            Self::Partial(_) | Self::Result(_) => Kind::Data,
            Self::Keepalive => Kind::Keepalive,
            Self::Ack => Kind::Ack,
        }
    }
}

impl<V: Payload> Message for FtcoMsg<V> {
    /// DATA is dissemination, KEEPALIVE a liveness probe (fault detection, FTCO §4), ACK an
    /// acknowledgment.
    fn phase(&self) -> Phase {
        match self.kind() {
            Kind::Data => Phase::Dissemination,
            Kind::Keepalive => Phase::Liveness,
            Kind::Ack => Phase::Acknowledgment,
        }
    }

    fn size(&self) -> u64 {
        match self.kind() {
            Kind::Data => core::mem::size_of::<V>() as u64,
            _ => 0,
        }
    }
}
