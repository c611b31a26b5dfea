//! The linear tree, pipelined (PAP §3.3, Fig. 3c; SCI-MPICH): process `i` sends to `i + 1`,
//! and the message is cut into `X` segments of `msize / X` sent one after another, each
//! forwarded as soon as it arrives. Theorem 3: `PERF(linear_p) = ∞` non-blocking, `Ω(n)`
//! blocking.
//!
//! When `X` does not divide `msize`, the first `msize mod X` segments are one unit longer,
//! so the segments add up to `msize` exactly.

use super::forward::{ForwardNode, Forwarding};
use super::{PapConfig, PapError};
use crate::Rank;

/// The linear pipelined schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Linear {
    base: PapConfig,
    segments: u32,
}

impl Linear {
    /// `X = segments`, from 1 to `msize` (a segment is at least one time unit).
    pub fn new(base: PapConfig, segments: u64) -> Result<Self, PapError> {
        if segments == 0 || segments > base.msize().min(u64::from(u32::MAX)) {
            return Err(PapError {
                field: "segments",
                value: segments,
                allowed: "1..=msize",
            });
        }
        Ok(Self {
            base,
            segments: segments as u32,
        })
    }
}

/// One process of the linear pipelined tree.
pub type LinearNode = ForwardNode<Linear>;

impl Forwarding for Linear {
    fn procs(&self) -> u32 {
        self.base.procs()
    }

    fn segments(&self) -> u32 {
        self.segments
    }

    fn segment_size(&self, i: u32) -> u64 {
        let x = u64::from(self.segments);
        let m = self.base.msize();
        m / x + u64::from(u64::from(i) < m % x)
    }

    fn destination(&self, rank: Rank, k: u32) -> Option<Rank> {
        (k == 0 && rank + 1 < self.base.procs()).then_some(rank + 1)
    }
}
