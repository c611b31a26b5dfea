//! BIG: broadcast over the binomial graph (CG §IV.B.3; Angskun, Bosilca, Dongarra, CG ref. 2), a
//! baseline without correction, failure detector or randomness.
//!
//! ```text
//! neighbours(p) = { p + 2^x mod P | 0 <= x <= ⌊log₂ P⌋ } \ {p}
//! root: deliver; send to every neighbour, x ascending
//! on the first message: deliver; send to every neighbour, x ascending   ("as soon as it
//!                                                                          receives them")
//! later messages: ignored
//! ```
//!
//! Every process that gets the payload sends `|neighbours(p)|` messages (`⌊log₂ P⌋` when `P` is a
//! power of two, whose `2^⌊log₂ P⌋ ≡ 0` is the process itself), so a fault-free run sends
//! `P·⌊log₂ P⌋` messages: Table 7's 49,152 for `P = 4096`.
//!
//! **Send order.** The paper gives none; it models BIG's fault-free time as "a single binomial
//! tree where the last node receives `log₂ P` more messages". ftcoll sends to the binomial-tree
//! children first ([`BigConfig::exponent`]: `p + 2^x` for `x < tz(p)`, largest first), then to
//! the other neighbours, so fault-free first receipts follow that binomial tree. (A fixed order
//! such as nearest-first is much slower: the rank `P − 1` needs every power of two, each waiting
//! its turn, `(2O + L + O·x)` for `x = 0..log₂ P`: 114 steps at `P = 4096`, `L = 2`, `O = 1`.)
//! At `P = 4096`, `L = 2`, `O = 1` the last process is colored at 48, the binomial tree's time,
//! and the run ends at 63: the last-colored process still sends its 12 messages (the paper's 60
//! adds only the receives, `O·log₂ P`). Messages are `Body::Tree` (edges of a static overlay,
//! dissemination phase).

use super::super::message::{Body, Msg};
use crate::automaton::{Automaton, Outbox, TimerId, Value};
use crate::topology::{check_procs, TopologyError};
use crate::{Rank, Time};

/// BIG's configuration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct BigConfig {
    /// `P`.
    pub procs: u32,
    /// The root's payload.
    pub payload: Value,
}

impl BigConfig {
    /// `procs` in `1..=2^32 − 1`.
    pub fn new(procs: u32) -> Result<Self, TopologyError> {
        check_procs(procs)?;
        Ok(Self {
            procs,
            payload: 0x00f7_c011,
        })
    }

    /// `⌊log₂ P⌋`: the largest exponent `x` of a neighbour `p + 2^x`.
    pub fn max_exponent(&self) -> u32 {
        31 - self.procs.max(1).leading_zeros()
    }

    /// The exponent of `p`'s `i`-th send: first its binomial-tree children, `x = tz(p) − 1`
    /// down to 0 (`tz`: trailing zero bits; the root: every `x` from `⌊log₂ P⌋` down), then the
    /// other neighbours, `x = tz(p)` up to `⌊log₂ P⌋`.
    pub fn exponent(&self, p: Rank, i: u32) -> u32 {
        let tree = p.trailing_zeros().min(self.max_exponent() + 1);
        if i < tree {
            tree - 1 - i
        } else {
            i
        }
    }

    /// The neighbour `p + 2^x mod P`, or `None` if it is `p` itself or `x` is past
    /// `⌊log₂ P⌋`.
    pub fn neighbor(&self, p: Rank, x: u32) -> Option<Rank> {
        if x > self.max_exponent() {
            return None;
        }
        let n = ((u64::from(p) + (1u64 << x)) % u64::from(self.procs)) as Rank;
        (n != p).then_some(n)
    }
}

/// One BIG process.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BigNode {
    rank: Rank,
    arrived: bool,
    value: Option<Value>,
    /// The exponent of the next neighbour to send to (once colored).
    next: u32,
}

impl BigNode {
    /// Whether it has the payload.
    pub fn colored(&self) -> bool {
        self.value.is_some()
    }

    fn color(&mut self, value: Value, out: &mut Outbox<Msg>) {
        self.value = Some(value);
        out.deliver(value);
    }
}

impl Automaton for BigNode {
    type Msg = Msg;
    type Value = Value;
    type Config = BigConfig;

    fn procs(config: &BigConfig) -> Option<u32> {
        Some(config.procs)
    }

    fn new(_config: &BigConfig, rank: Rank) -> Self {
        Self {
            rank,
            arrived: false,
            value: None,
            next: 0,
        }
    }

    fn on_start(&mut self, config: &BigConfig, _now: Time, out: &mut Outbox<Msg>) {
        if self.arrived {
            out.ignore("started twice");
            return;
        }
        self.arrived = true;
        if self.rank == 0 {
            self.color(config.payload, out);
        }
    }

    fn on_message(
        &mut self,
        config: &BigConfig,
        _now: Time,
        from: Rank,
        msg: Msg,
        out: &mut Outbox<Msg>,
    ) {
        if from >= config.procs || from == self.rank {
            out.ignore("sender is not another rank of this operation");
        } else if self.rank == 0 && !self.arrived {
            out.ignore("message to the root before it started");
        } else if msg.body != Body::Tree {
            out.ignore("not a binomial-graph message");
        } else if self.value.is_some() {
            out.ignore("duplicate: already colored");
        } else {
            self.color(msg.value, out);
        }
    }

    /// Unread: everything `on_message` ignores (a colored process ignores every message).
    fn reads(&self, config: &BigConfig, from: Rank, msg: &Msg) -> bool {
        from < config.procs
            && from != self.rank
            && (self.rank != 0 || self.arrived)
            && msg.body == Body::Tree
            && self.value.is_none()
    }

    fn on_timer(&mut self, _config: &BigConfig, _now: Time, _id: TimerId, out: &mut Outbox<Msg>) {
        out.ignore("BIG sets no timers");
    }

    fn on_send_slot(&mut self, config: &BigConfig, _now: Time, out: &mut Outbox<Msg>) {
        let Some(value) = self.value else { return };
        while self.next <= config.max_exponent() {
            let x = config.exponent(self.rank, self.next);
            self.next += 1;
            if let Some(to) = config.neighbor(self.rank, x) {
                out.send(
                    to,
                    Msg {
                        value,
                        body: Body::Tree,
                    },
                );
                return;
            }
        }
    }
}
