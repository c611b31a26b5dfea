//! BFB: Buntinas' fault-tolerant broadcast (CG §IV.B.2; Buntinas, CG ref. 8), the restarting
//! baseline of Corrected Gossip: a dynamic binomial tree whose messages carry the receiver's
//! subtree, acknowledgments back to the root, a NACK to the root when a failure is detected, and
//! a restart of the whole operation on a tree without the failed ranks.
//!
//! ```text
//! members(a) = the ranks 0..N without failed(a), ascending (index 0 is the root)
//! tree over indices 0..m (m = |members(a)|): parent(i) = i − lowbit(i);
//!     subtree(i) = [i, min(i + lowbit(i), m)), subtree(0) = [0, m);
//!     children of i: i + 2^k for 2^k < |subtree(i)|, k descending (largest subtree first)
//! root: deliver; attempt a = 0, failed = {}; send DATA(a, failed, index) to each child
//! on DATA(a, failed, i) from its parent, a newer than mine: deliver (first time only);
//!        adopt (a, failed, i); send DATA to each child of i; a leaf sends ACK(a) at once
//! on each DATA sent to a child of subtree height h at t: timer at t + (h + 1)·D
//! on ACK(a) from every child: send ACK(a) to the parent (the root: complete)
//! on a child's timer before its ACK: suspect it; send NACK(a, child) to the parent
//!        (the root: restart)                                   ("immediately propagated")
//! on NACK(a, r) from a child: forward it to the parent (the root: restart)
//! root restart: failed += r; a += 1; start again over members(a)
//! messages of another attempt: ignored
//! ```
//!
//! **Tree.** A binomial tree over the live set as the root knows it (attempt 0: every rank):
//! index `i` of the member list is rank `members(a)[i]`. A DATA message carries the attempt, the
//! receiver's index and the root's failed set (`O(f)` ranks); the receiver derives its rank
//! (the `i`-th rank not failed), its parent, its subtree and its children from those alone, so a
//! restarted attempt skips the ranks known failed and nobody needs the whole member list. The
//! per-process state is `O(fan-out)` (a bit per child, at most 32 children) **plus the failed
//! set, `O(f)`**: the one part that cannot shrink, since a process must skip failed ranks when it
//! numbers its subtree. Largest subtree first gives the binomial tree's `(2O + L)·⌈log₂ m⌉`
//! dissemination.
//!
//! **Failure detector: a timeout the automaton sets itself** (no oracle). A parent that starts a
//! DATA send to a child of subtree height `h = ⌈log₂ |subtree|⌉` at `t` suspects the child if its
//! ACK (or a NACK from below) has not been handled by `t + (h + 1)·D` ([`BfbTimeout`]), with
//! `D = 2(2O + L + qO)`, `q = ⌈log₂ N⌉`. *Why it is enough fault-free:* let `T(h)` bound the time
//! from the start of the DATA send to the parent handling the ACK. A message waits at most `qO`
//! at a receive port, since a process handles at most `1 + ⌈log₂ N⌉` messages of one attempt
//! (its DATA and one reply per child, and the DATA comes before any reply), so the DATA is
//! handled by `t + 2O + L + qO`; the child starts its `j`-th send `jO` later, to a subtree of
//! height at most `h − 1 − j`; its last reply is handled by `max_j (jO + T(h − 1 − j))`; its ACK
//! takes another `2O + L + qO`. `T(h) = (h + 1)·D` satisfies this recurrence whenever
//! `D >= 2(2O + L + qO)` and `D >= O`. A NACK is no later than the ACK it replaces (the suspicion
//! happens by the child's own deadline for its child, bounded by the same recurrence), so a
//! parent never suspects a live child whose subtree's failures are reported from below. Without
//! queueing (`N` a power of two, fault-free: the replies reach a process at distinct times at
//! least `3O + 2L` apart) `D = 2(2O + L)` is already enough and the bound is tight:
//! `sim/tests/protocols/gossip_bfb.rs` checks both, and that `D = 2(2O + L) − 1` suspects a live process.
//! The margin is needed otherwise: when `N` is not a power of two the first subtree is shorter,
//! its replies can collide with a sibling's, and `D = 2(2O + L)` suspects a live process (first
//! at `N = 258` for `L = 2, O = 1`, tested).
//! Stale traffic of an aborted attempt can add queueing; the margin covers it in the tests, but
//! it is not proved. A process that has moved to a newer attempt no longer answers an older one,
//! so a process still in the older attempt may time out on it: that suspicion names an old
//! attempt and the root ignores it, so only current-attempt suspicions exclude ranks.
//!
//! **NACK.** One failure per attempt: the first suspicion (or NACK from below) aborts the
//! process's attempt (no more DATA, timers cancelled) and is forwarded at once; later ones of that
//! attempt are ignored. The root restarts on the first one, so BFB "restarts after each new node
//! failure" (§IV.B.2). The root itself is assumed not to fail (as in every ftcoll broadcast).
//!
//! **Delivery and latency.** A process delivers on its first DATA, of any attempt: every DATA
//! carries the root's one payload, so delivering early can never deliver a wrong value. (Inside
//! Buntinas' consensus a process would deliver only at commit; a plain broadcast does not need
//! it.) The root reports [`Action::Complete`](crate::automaton::Action::Complete) when every child
//! of the current attempt acknowledged: every member was reached. Two latencies follow: the
//! *coloring latency* (last live delivery, what CG measures for the gossip protocols) and the
//! *completion latency* (the root's completion, what `T_BFB = 2(2O + L)·log₂ N` models: down and
//! back up). Fault-free at `N = 4096, L = 2, O = 1`: 48 and 96 (Table 7: 96).
//!
//! **Messages.** BFB has its own [`BfbMsg`] (a DATA carries the failed set and an index, not
//! just the payload), so the broadcast family's shared `Msg`/`Body` stay unchanged. DATA is the
//! dissemination phase; ACK and NACK the acknowledgment phase.
//!
//! **Work.** Fault-free: one DATA per non-root and one ACK per non-root, `2(N − 1)` = 8190 at
//! `N = 4096`; Table 7's 4,096 ("least amount of messages") counts one message per process per
//! attempt, i.e. the DATA only (4095 here).

use alloc::vec::Vec;

use crate::automaton::{Automaton, Message, Outbox, Phase, TimerId, Value};
use crate::topology::{check_procs, LogP, TopologyError};
use crate::{Rank, Time};

/// The failure detector's timeout rule: a child of subtree height `h` must answer within
/// `(h + 1)·per_level` of the start of its DATA send.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BfbTimeout {
    /// `D`: steps allowed per tree level, down and back up.
    pub per_level: Time,
}

impl BfbTimeout {
    /// The default rule for `N = procs`: `D = 2(2O + L + qO)`, `q = ⌈log₂ N⌉` (module docs: no
    /// false suspicion fault-free, receive-port queueing included).
    pub fn for_procs(procs: u32, logp: LogP) -> Self {
        let q = Time::from(ceil_log2(procs));
        let o = logp.overhead();
        Self {
            per_level: 2u64.saturating_mul(logp.hop().saturating_add(q.saturating_mul(o))),
        }
    }

    /// The unqueued bound `D = 2(2O + L)`: enough fault-free when no reply ever queues (module
    /// docs), tight at `N` a power of two.
    pub fn unqueued(logp: LogP) -> Self {
        Self {
            per_level: 2 * logp.hop(),
        }
    }

    /// The timeout of a child of subtree height `height`.
    pub fn timeout(&self, height: u32) -> Time {
        self.per_level
            .saturating_mul(Time::from(height).saturating_add(1))
    }
}

/// BFB's configuration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct BfbConfig {
    /// `N`: the ranks `0..N` (rank 0 is the root).
    pub procs: u32,
    /// `L` and `O` (for the timeout).
    pub logp: LogP,
    /// The failure detector's timeout.
    pub timeout: BfbTimeout,
    /// The root's payload.
    pub payload: Value,
}

impl BfbConfig {
    /// `procs` in `1..=2^32 − 1`, with the default timeout [`BfbTimeout::for_procs`].
    pub fn new(procs: u32, logp: LogP) -> Result<Self, TopologyError> {
        check_procs(procs)?;
        Ok(Self {
            procs,
            logp,
            timeout: BfbTimeout::for_procs(procs, logp),
            payload: 0x00f7_c011,
        })
    }
}

/// A BFB message: the attempt it belongs to and what it is.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BfbMsg {
    /// The root's attempt (0, then one more per restart).
    pub attempt: u32,
    /// The role of the message.
    pub body: BfbBody,
}

/// The role of a BFB message.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum BfbBody {
    /// Down the tree: the payload and what the receiver needs to forward it.
    Data {
        /// The broadcast payload.
        value: Value,
        /// The ranks the root knows failed, ascending: the attempt's tree skips them.
        failed: Vec<Rank>,
        /// The receiver's index in the member list.
        index: u32,
    },
    /// Up the tree: the sender's whole subtree was reached.
    Ack,
    /// Up the tree: `failed` was suspected in the sender's subtree.
    Nack {
        /// The suspected rank.
        failed: Rank,
    },
}

impl Message for BfbMsg {
    fn phase(&self) -> Phase {
        match self.body {
            BfbBody::Data { .. } => Phase::Dissemination,
            BfbBody::Ack | BfbBody::Nack { .. } => Phase::Acknowledgment,
        }
    }
}

/// `⌈log₂ s⌉` (0 for `s <= 1`).
fn ceil_log2(s: u32) -> u32 {
    if s <= 1 {
        0
    } else {
        32 - (s - 1).leading_zeros()
    }
}

/// The `i`-th rank of `0..procs` not in `failed` (ascending), if any.
fn member(procs: u32, failed: &[Rank], i: u32) -> Option<Rank> {
    let mut r = u64::from(i);
    for &f in failed {
        if u64::from(f) <= r {
            r += 1;
        } else {
            break;
        }
    }
    (r < u64::from(procs)).then_some(r as Rank)
}

/// The index of `rank` in the member list, if it is a member.
fn index_of(procs: u32, failed: &[Rank], rank: Rank) -> Option<u32> {
    if rank >= procs || failed.binary_search(&rank).is_ok() {
        return None;
    }
    Some(rank - failed.iter().take_while(|&&f| f < rank).count() as u32)
}

/// Whether `failed` is a valid failed set: ascending, distinct, below `procs`, without the root.
fn valid_failed(procs: u32, failed: &[Rank]) -> bool {
    failed.first().is_none_or(|&f| f != 0)
        && failed.windows(2).all(|w| w[0] < w[1])
        && failed.last().is_none_or(|&f| f < procs)
}

/// The lowest set bit of `i > 0`.
fn lowbit(i: u32) -> u32 {
    i & i.wrapping_neg()
}

/// What a process still owes its parent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
enum Up {
    Ack,
    Nack(Rank),
}

/// One BFB process.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BfbNode {
    rank: Rank,
    arrived: bool,
    value: Option<Value>,
    /// Whether it holds a tree position in `attempt`.
    joined: bool,
    attempt: u32,
    /// Its index in the member list of `attempt`.
    index: u32,
    /// The failed set of `attempt` (`O(f)`).
    failed: Vec<Rank>,
    /// Children sent DATA so far (child `j` is `index + 2^(K − 1 − j)`).
    sent: u32,
    /// Bit `j`: child `j` answered.
    acked: u64,
    /// A reply owed to the parent.
    up: Option<Up>,
    /// The attempt was aborted here (a failure below was reported).
    aborted: bool,
    /// Root: completed; others: the ACK was queued.
    done: bool,
    /// Every rank this process timed out on (any attempt), for checkers (`O(f)`).
    suspected: Vec<Rank>,
}

impl BfbNode {
    /// Whether it has the payload.
    pub fn colored(&self) -> bool {
        self.value.is_some()
    }

    /// The attempt it is in (at the root: the number of restarts so far).
    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    /// The failed set of its current attempt (at the root: every rank it knows failed).
    pub fn failed(&self) -> &[Rank] {
        &self.failed
    }

    /// Every rank whose timer expired here, in order (stale attempts included).
    pub fn suspected(&self) -> &[Rank] {
        &self.suspected
    }

    /// Whether the root completed (every member of the current attempt acknowledged).
    pub fn completed(&self) -> bool {
        self.rank == 0 && self.done
    }

    fn members(&self, config: &BfbConfig) -> u32 {
        config.procs.saturating_sub(self.failed.len() as u32)
    }

    /// `|subtree(index)|`.
    fn subtree_size(&self, config: &BfbConfig) -> u32 {
        let m = self.members(config);
        if self.index == 0 {
            m
        } else {
            let end = u64::from(self.index) + u64::from(lowbit(self.index));
            (end.min(u64::from(m)) as u32).saturating_sub(self.index)
        }
    }

    /// Number of children `K = ⌈log₂ |subtree|⌉`.
    fn children(&self, config: &BfbConfig) -> u32 {
        ceil_log2(self.subtree_size(config))
    }

    /// Child `j`'s index and subtree size.
    fn child(&self, config: &BfbConfig, j: u32) -> Option<(u32, u32)> {
        let k = self.children(config).checked_sub(j.checked_add(1)?)?;
        let size = self.subtree_size(config);
        let offset = 1u32 << k;
        Some((self.index + offset, size.saturating_sub(offset).min(offset)))
    }

    fn child_rank(&self, config: &BfbConfig, j: u32) -> Option<Rank> {
        let (i, _) = self.child(config, j)?;
        member(config.procs, &self.failed, i)
    }

    fn parent(&self, config: &BfbConfig) -> Option<Rank> {
        if self.index == 0 {
            return None;
        }
        member(config.procs, &self.failed, self.index - lowbit(self.index))
    }

    fn cancel_timers(&self, out: &mut Outbox<BfbMsg>) {
        for j in 0..self.sent {
            out.cancel_timer(TimerId(j));
        }
    }

    /// Root: start attempt `self.attempt` over the members it knows.
    fn start_attempt(&mut self, config: &BfbConfig, out: &mut Outbox<BfbMsg>) {
        self.joined = true;
        self.index = 0;
        self.sent = 0;
        self.acked = 0;
        self.aborted = false;
        self.done = false;
        self.up = None;
        self.check_done(config, out);
    }

    /// Every child answered: the root completes, another process owes an ACK.
    fn check_done(&mut self, config: &BfbConfig, out: &mut Outbox<BfbMsg>) {
        let k = self.children(config);
        let all = if k >= 64 { u64::MAX } else { (1u64 << k) - 1 };
        if self.done || self.aborted || self.acked != all {
            return;
        }
        self.done = true;
        if self.rank == 0 {
            out.complete(config.payload);
        } else {
            self.up = Some(Up::Ack);
        }
    }

    /// A failure was suspected or reported below: the root restarts, another process aborts the
    /// attempt and reports it.
    fn failure(&mut self, config: &BfbConfig, failed: Rank, out: &mut Outbox<BfbMsg>) {
        self.cancel_timers(out);
        if self.rank == 0 {
            let Some(next) = self.attempt.checked_add(1) else {
                out.ignore("attempt counter exhausted");
                return;
            };
            if let Err(at) = self.failed.binary_search(&failed) {
                self.failed.insert(at, failed);
            }
            self.attempt = next;
            self.start_attempt(config, out);
        } else {
            self.aborted = true;
            self.up = Some(Up::Nack(failed));
        }
    }

    /// The child `j < sent` that `from` is, if it has not answered.
    fn waiting_child(&self, config: &BfbConfig, from: Rank) -> Option<u32> {
        (0..self.sent)
            .find(|&j| self.acked & (1 << j) == 0 && self.child_rank(config, j) == Some(from))
    }

    fn on_data(&mut self, config: &BfbConfig, from: Rank, msg: BfbMsg, out: &mut Outbox<BfbMsg>) {
        let BfbBody::Data {
            value,
            failed,
            index,
        } = msg.body
        else {
            return;
        };
        if self.rank == 0 {
            out.ignore("the root receives no DATA");
        } else if !valid_failed(config.procs, &failed) {
            out.ignore("DATA with an invalid failed set");
        } else if index == 0 || member(config.procs, &failed, index) != Some(self.rank) {
            out.ignore("DATA addressed to another index");
        } else if member(config.procs, &failed, index - lowbit(index)) != Some(from) {
            out.ignore("DATA not from the tree parent");
        } else if self.joined && msg.attempt < self.attempt {
            out.ignore("stale attempt");
        } else if self.joined && msg.attempt == self.attempt {
            out.ignore("duplicate DATA of this attempt");
        } else {
            self.cancel_timers(out);
            if self.value.is_none() {
                self.value = Some(value);
                out.deliver(value);
            }
            self.joined = true;
            self.attempt = msg.attempt;
            self.index = index;
            self.failed = failed;
            self.sent = 0;
            self.acked = 0;
            self.aborted = false;
            self.done = false;
            self.up = None;
            self.check_done(config, out);
        }
    }
}

impl Automaton for BfbNode {
    type Msg = BfbMsg;
    type Value = Value;
    type Config = BfbConfig;

    fn procs(config: &BfbConfig) -> Option<u32> {
        Some(config.procs)
    }

    fn new(_config: &BfbConfig, rank: Rank) -> Self {
        Self {
            rank,
            arrived: false,
            value: None,
            joined: false,
            attempt: 0,
            index: 0,
            failed: Vec::new(),
            sent: 0,
            acked: 0,
            up: None,
            aborted: false,
            done: false,
            suspected: Vec::new(),
        }
    }

    fn on_start(&mut self, config: &BfbConfig, _now: Time, out: &mut Outbox<BfbMsg>) {
        if self.arrived {
            out.ignore("started twice");
            return;
        }
        self.arrived = true;
        if self.rank == 0 {
            self.value = Some(config.payload);
            out.deliver(config.payload);
            self.start_attempt(config, out);
        }
    }

    fn on_message(
        &mut self,
        config: &BfbConfig,
        _now: Time,
        from: Rank,
        msg: BfbMsg,
        out: &mut Outbox<BfbMsg>,
    ) {
        if from >= config.procs || from == self.rank {
            out.ignore("sender is not another rank of this operation");
            return;
        }
        if !self.arrived {
            out.ignore("message before the process arrived");
            return;
        }
        match msg.body {
            BfbBody::Data { .. } => self.on_data(config, from, msg, out),
            _ if !self.joined || msg.attempt != self.attempt => {
                out.ignore("reply of another attempt")
            }
            _ if self.aborted || self.done => out.ignore("reply after the attempt ended here"),
            BfbBody::Ack => match self.waiting_child(config, from) {
                Some(j) => {
                    self.acked |= 1 << j;
                    out.cancel_timer(TimerId(j));
                    self.check_done(config, out);
                }
                None => out.ignore("ACK from no waiting child"),
            },
            BfbBody::Nack { failed } => {
                let Some(j) = self.waiting_child(config, from) else {
                    out.ignore("NACK from no waiting child");
                    return;
                };
                let (lo, size) = self.child(config, j).unwrap_or((0, 0));
                let hi = u64::from(lo) + u64::from(size);
                match index_of(config.procs, &self.failed, failed) {
                    Some(i) if i >= lo && u64::from(i) < hi => self.failure(config, failed, out),
                    _ => out.ignore("NACK naming a rank outside the child's subtree"),
                }
            }
        }
    }

    fn on_timer(&mut self, config: &BfbConfig, _now: Time, id: TimerId, out: &mut Outbox<BfbMsg>) {
        let j = id.0;
        if !self.joined || self.aborted || self.done || j >= self.sent || self.acked & (1 << j) != 0
        {
            out.ignore("timer of an answered child or an ended attempt");
            return;
        }
        let Some(child) = self.child_rank(config, j) else {
            out.ignore("timer of no child");
            return;
        };
        self.suspected.push(child);
        self.failure(config, child, out);
    }

    fn on_send_slot(&mut self, config: &BfbConfig, now: Time, out: &mut Outbox<BfbMsg>) {
        let Some(value) = self.value else { return };
        if !self.joined {
            return;
        }
        if let Some(up) = self.up {
            let Some(parent) = self.parent(config) else {
                self.up = None;
                return;
            };
            self.up = None;
            let body = match up {
                Up::Ack => BfbBody::Ack,
                Up::Nack(failed) => BfbBody::Nack { failed },
            };
            out.send(
                parent,
                BfbMsg {
                    attempt: self.attempt,
                    body,
                },
            );
            return;
        }
        if self.aborted || self.done {
            return;
        }
        let j = self.sent;
        let Some((index, size)) = self.child(config, j) else {
            return;
        };
        let Some(to) = member(config.procs, &self.failed, index) else {
            return;
        };
        self.sent += 1;
        out.send(
            to,
            BfbMsg {
                attempt: self.attempt,
                body: BfbBody::Data {
                    value,
                    failed: self.failed.clone(),
                    index,
                },
            },
        );
        out.set_timer(
            TimerId(j),
            now.saturating_add(config.timeout.timeout(ceil_log2(size))),
        );
    }
}
