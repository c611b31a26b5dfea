//! Scatter followed by allgather (PAP §3.3; MPICH's broadcast for large messages): the message
//! is cut into `n` chunks, chunk `i` for rank `i`; a binomial scatter gives each process its
//! chunk, then a ring allgather passes every chunk around the ring. Theorem 4:
//! `PERF(sca-all) = ∞` non-blocking and `Ω(n)` blocking, because no process can finish the
//! allgather before every process arrived (the implicit synchronization).
//!
//! - **Scatter** (MPICH's binomial): the children of `r` are `r + 2^k` for every `2^k` below
//!   `r`'s lowest set bit (every `2^k < n` at the root), largest first; child `c = r + 2^k`
//!   gets the chunks of its subtree `c .. min(c + 2^k, n)` in one message.
//! - **Ring allgather**: `n − 1` steps; process `i` sends its own chunk to `i + 1`, then
//!   forwards every chunk it receives from `i − 1` except the one `i + 1` owns. Each chunk
//!   travels `n − 1` hops, forwarded with its first bit (PAP §3.1).
//!
//! The PAP model forwards a message from its first bit. A scatter message is taken to lay out
//! its range in the order the receiver forwards it: its children's ranges, largest subtree
//! first, then its own chunk. So a process can forward a child's range while the rest of its
//! own range is still arriving, and no forward ends before the bits it carries arrived.
//!
//! Chunk `j` is `⌊msize/n⌋` units, one more for `j < msize mod n`, so `msize ≥ n` is required
//! (every chunk at least one unit; a 0-unit message would be a free control message).

use alloc::collections::VecDeque;

use super::{PapConfig, PapError, PapMsg, PAYLOAD};
use crate::automaton::{Automaton, Outbox, TimerId, Value};
use crate::{Rank, Time};

/// Scatter-allgather's parameters: `n` and `msize ≥ n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ScatterAllgather(PapConfig);

impl ScatterAllgather {
    /// Checks `msize ≥ procs`.
    pub fn new(base: PapConfig) -> Result<Self, PapError> {
        if base.msize() < u64::from(base.procs()) {
            return Err(PapError {
                field: "msize",
                value: base.msize(),
                allowed: "procs..=18446744073709551615 (one unit per chunk at least)",
            });
        }
        Ok(Self(base))
    }

    fn procs(&self) -> u32 {
        self.0.procs()
    }

    /// `T` of the chunks `from..to`.
    fn chunks(&self, from: u32, to: u32) -> u64 {
        let n = u64::from(self.procs());
        let (q, r) = (self.0.msize() / n, self.0.msize() % n);
        let count = u64::from(to - from);
        let longer = u64::from(to).min(r).saturating_sub(u64::from(from).min(r));
        count * q + longer
    }

    /// The `k`-th child of `rank` in the scatter (largest subtree first) and its subtree's end.
    fn child(&self, rank: Rank, k: u32) -> Option<(Rank, Rank)> {
        let n = self.procs();
        let low = if rank == 0 {
            n.next_power_of_two()
        } else {
            1 << rank.trailing_zeros()
        };
        let mut mask = low >> 1;
        let mut seen = 0;
        while mask > 0 {
            let c = rank + mask;
            if c < n {
                if seen == k {
                    return Some((c, (c + mask).min(n)));
                }
                seen += 1;
            }
            mask >>= 1;
        }
        None
    }
}

/// One process of scatter-allgather.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ScatterAllgatherNode {
    rank: Rank,
    arrived: bool,
    /// It holds its scatter range (the root from the start).
    scattered: bool,
    /// The next scatter child to send to.
    child: u32,
    /// Its own chunk went to `rank + 1`.
    own_sent: bool,
    /// Chunks received on the ring, and those still to forward, in order.
    ring_received: u32,
    forward: VecDeque<u32>,
    delivered: bool,
}

impl ScatterAllgatherNode {
    fn chunk_msg(config: &ScatterAllgather, j: u32) -> PapMsg {
        PapMsg::Data {
            size: config.chunks(j, j + 1),
            index: j,
            rest: alloc::vec::Vec::new(),
        }
    }

    fn maybe_deliver(&mut self, config: &ScatterAllgather, out: &mut Outbox<PapMsg>) {
        if !self.delivered && self.scattered && self.ring_received + 1 == config.procs() {
            self.delivered = true;
            if self.rank != 0 {
                out.deliver(PAYLOAD);
            }
        }
    }
}

impl Automaton for ScatterAllgatherNode {
    type Msg = PapMsg;
    type Value = Value;
    type Config = ScatterAllgather;

    fn procs(config: &ScatterAllgather) -> Option<u32> {
        Some(config.0.procs())
    }

    fn new(_config: &ScatterAllgather, rank: Rank) -> Self {
        Self {
            rank,
            arrived: false,
            scattered: rank == 0,
            child: 0,
            own_sent: false,
            ring_received: 0,
            forward: VecDeque::new(),
            delivered: false,
        }
    }

    fn on_start(&mut self, config: &ScatterAllgather, _now: Time, out: &mut Outbox<PapMsg>) {
        if self.arrived {
            out.ignore("started twice");
            return;
        }
        self.arrived = true;
        if self.rank == 0 {
            out.deliver(PAYLOAD);
        }
        self.maybe_deliver(config, out);
    }

    fn on_message(
        &mut self,
        config: &ScatterAllgather,
        _now: Time,
        from: Rank,
        msg: PapMsg,
        out: &mut Outbox<PapMsg>,
    ) {
        let n = config.procs();
        if from >= n || from == self.rank {
            out.ignore("sender is not another rank of this operation");
            return;
        }
        let PapMsg::Data { index, .. } = msg else {
            out.ignore("ARRIVED in scatter-allgather");
            return;
        };
        let left = (self.rank + n - 1) % n;
        if index == self.rank && self.rank != 0 && !self.scattered {
            // The scatter: this process's range, from its parent.
            self.scattered = true;
        } else if from == left && index != self.rank {
            // The ring: chunks come from the left in the order left, left − 1, …
            let expected = (left + n - self.ring_received % n) % n;
            if index != expected || self.ring_received + 1 >= n {
                out.ignore("ring chunk out of order or duplicate");
                return;
            }
            self.ring_received += 1;
            if (self.rank + 1) % n != index {
                self.forward.push_back(index);
            }
        } else {
            out.ignore("neither this process's scatter range nor a ring chunk");
            return;
        }
        self.maybe_deliver(config, out);
    }

    fn on_timer(
        &mut self,
        _c: &ScatterAllgather,
        _now: Time,
        _id: TimerId,
        out: &mut Outbox<PapMsg>,
    ) {
        out.ignore("scatter-allgather sets no timers");
    }

    fn on_send_slot(&mut self, config: &ScatterAllgather, _now: Time, out: &mut Outbox<PapMsg>) {
        let n = config.procs();
        if !self.arrived || !self.scattered || n == 1 {
            return;
        }
        if let Some((c, end)) = config.child(self.rank, self.child) {
            self.child += 1;
            out.send(
                c,
                PapMsg::Data {
                    size: config.chunks(c, end),
                    index: c,
                    rest: alloc::vec::Vec::new(),
                },
            );
            return;
        }
        let right = (self.rank + 1) % n;
        if !self.own_sent {
            self.own_sent = true;
            out.send(right, Self::chunk_msg(config, self.rank));
        } else if let Some(j) = self.forward.pop_front() {
            out.send(right, Self::chunk_msg(config, j));
        }
    }
}
