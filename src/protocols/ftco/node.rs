//! The FTCO automaton for Bcast, Reduce and Allreduce: the node's state, what the algorithms
//! share (its peers, the covering rule), and Alg. 1 (main loop) as the [`Automaton`] handlers.
//! Each other algorithm of the paper is an `impl` block of [`FtcoNode`] in its own module:
//!
//! - `message_handling`: Alg. 2 (message handling);
//! - `tree_traversal`: Alg. 3 (tree traversal);
//! - `fault_recovery`: Alg. 4 (fault detection and recovery).

mod fault_recovery;
mod message_handling;
mod tree_traversal;

use alloc::vec::Vec;
use core::marker::PhantomData;
use smallvec::SmallVec;

use super::msg::{FtcoMsg, Kind};
use super::{FtcoConfig, ServiceDistance};
use crate::automaton::{Automaton, Outbox, Reduction, TimerId};
use crate::topology::ftco::Collective;
use crate::{Rank, Time};

pub use fault_recovery::Watch;

/// The one timer: the next instant a timeout expires or an ETA passes.
const WAKE: TimerId = TimerId(0);

/// What a node knows about one neighbour in `Up` or `Down` (Alg. 2–4's per-node arrays).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Peer<V> {
    rank: Rank,
    /// Down: its counted partial. Up: a multi-root root's partial (Allreduce exchange).
    value: Option<V>,
    /// Down: the gather waits for its partial (`false`: covered by another partial, or adopted
    /// only to receive the result).
    needed: bool,
    /// `UpSent` / `DownSent` (Alg. 3).
    sent: bool,
    /// `LastSent[x]` of a message that expects an ACK (a partial or a KEEPALIVE); [`NOT_YET`]
    /// before the first (read it through [`Peer::last_sent`]; the two sentinels instead of
    /// `Option`s make a peer 48 bytes instead of 64).
    last_sent: Time,
    /// `LastACK[x]`: its last ACK or DATA (DATA proves it alive too); [`NOT_YET`] before the
    /// first.
    last_ack: Time,
    /// `ToACK` for its partial (sent only while the node has not completed).
    ack_data: bool,
    /// `ToACK` for its KEEPALIVE (Alg. 2 line 18; answered even after completion).
    ack_keepalive: bool,
    /// `f_timeout(me, rank)` (Up and Down peers; a function of the two ranks, computed once
    /// because every event re-arms the timer over every peer). Group peers compute theirs
    /// from the group's size ([`FtcoNode::peer_timeout`]) and leave this 0.
    timeout: Time,
}

/// No such message yet (`Peer::last_sent`, `Peer::last_ack`): no run reaches this instant.
const NOT_YET: Time = Time::MAX;

impl<V> Peer<V> {
    fn new(rank: Rank, needed: bool, timeout: Time) -> Self {
        Self {
            rank,
            timeout,
            value: None,
            needed,
            sent: false,
            last_sent: NOT_YET,
            last_ack: NOT_YET,
            ack_data: false,
            ack_keepalive: false,
        }
    }

    /// `LastSent[x]`, if a message that expects an ACK went to it.
    fn last_sent(&self) -> Option<Time> {
        (self.last_sent != NOT_YET).then_some(self.last_sent)
    }

    /// Alg. 4 line 4: a message expecting an ACK is unanswered.
    fn unanswered(&self) -> Option<Time> {
        let sent = self.last_sent()?;
        if self.last_ack != NOT_YET && self.last_ack >= sent {
            None
        } else {
            Some(sent)
        }
    }
}

/// A value a node keeps to save work, not state: any value it may hold makes the node act the
/// same (each field says why), so equality and hashing ignore it and the model checker's states
/// and counts are those without it.
#[derive(Clone, Copy, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Cache<T>(T);

impl<T> PartialEq for Cache<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl<T> Eq for Cache<T> {}

impl<T> core::hash::Hash for Cache<T> {
    fn hash<H: core::hash::Hasher>(&self, _: &mut H) {}
}

/// Which list a peer is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
enum Side {
    Up,
    Down,
    /// A member of the replacement group of a failed rank 0 (§4, `RootFailure`).
    Group,
}

/// A send decided by Alg. 3 or Alg. 4.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
enum Send {
    Partial(Side, usize),
    Result(Side, usize),
    Ack(Side, usize),
    Keepalive(Side, usize),
}

/// One process of an FTCO Bcast, Reduce or Allreduce (see the module docs of
/// [`ftco`](super)). State: `O(|Up| + |Down|)` peers (the children, grown by adoptions after
/// faults) plus the ranks this process suspected, which it must remember so that a failed node
/// is never re-adopted (Alg. 4 line 8 would otherwise bring a failed grandparent back); that
/// list holds only nodes this process timed out on, `O(faults)` in practice, `O(P)` at worst.
/// With root replacement (§4) it also keeps its view of the replacement group: `O(deg(0))`,
/// plus the frontiers of failed members. Each handler is `O(|Up| + |Down| + |group|)`, except
/// the group's combine, `O(g²)`, and a timeout, which walks the failed node's frontier.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(bound(
        serialize = "R::Value: serde::Serialize",
        deserialize = "R::Value: serde::Deserialize<'de>"
    ))
)]
pub struct FtcoNode<R: Reduction> {
    rank: Rank,
    mine: R::Value,
    /// Inline for the one parent most processes have (every event reads it: a heap list cost a
    /// cache miss per event).
    up: SmallVec<[Peer<R::Value>; 1]>,
    down: Vec<Peer<R::Value>>,
    /// The replacement group of a failed rank 0 as this process knows it (§4): `value` is a
    /// member's partial, `sent` whether this process sent it its own, `needed` whether the
    /// member asked (partial or KEEPALIVE) and still needs the result. Empty unless
    /// `RootFailure::ReplacedByChildren`.
    group: Vec<Peer<R::Value>>,
    /// This process suspected every ancestor up to rank 0 and acts as a root of the group.
    in_group: bool,
    /// Ranks this process timed out on, ascending.
    suspected: Vec<Rank>,
    /// Its subtree's partial, once the gather closed (Alg. 3 line 2).
    partial: Option<R::Value>,
    /// The result (Bcast: the value).
    result: Option<R::Value>,
    /// Alg. 3 returned `is_done`: completed; from then on the process only answers.
    done: bool,
    /// The driver started the process (`on_start`): it is reachable and answers (Alg. 5).
    started: bool,
    /// It entered the collective (`now >= StartTime`, App. B): Alg. 1 runs.
    entered: bool,
    /// `f_ETA` of the subtree's data and of the result (§4, "Data Propagation Disruptions").
    gather_eta: Time,
    result_eta: Time,
    /// The pending [`WAKE`] timer.
    armed: Option<Time>,
    /// KEEPALIVEs sent (for tests: no false suspicion).
    keepalives: u32,
    /// The last fault-tolerance send was an ACK: when an ACK is owed and a KEEPALIVE is due
    /// at once, the KEEPALIVE goes first (see [`FtcoNode::fault_send`]).
    acked_last: bool,
    /// A lower bound on the first instant an `Up`/`Down` peer's ACK can be overdue (Alg. 4
    /// line 4), so that [`FtcoNode::expire`] scans the peers only when one may be; any value no
    /// later than the true first expiry is correct — 0 means "scan".
    #[cfg_attr(feature = "serde", serde(skip))]
    expiry_hint: Cache<Time>,
    /// Whether `Down` still holds only the node's initial neighbours (its children, and for
    /// rank 0 of a multi-root Bcast or Reduce the other roots): then no member lies below
    /// another, and a member's partial covers no other member's, so [`FtcoNode::covered`] and
    /// [`FtcoNode::absorb`] answer without walking the tree; `false` is always correct (the
    /// walk gives the same answer).
    #[cfg_attr(feature = "serde", serde(skip))]
    initial_down: Cache<bool>,
    _op: PhantomData<fn() -> R>,
}

impl<R: Reduction> FtcoNode<R> {
    /// The ranks this process suspected (timed out on), ascending.
    pub fn suspected(&self) -> &[Rank] {
        &self.suspected
    }

    /// The current `Up` (parent, or a multi-root root's other roots).
    pub fn up(&self) -> impl Iterator<Item = Rank> + '_ {
        self.up.iter().map(|p| p.rank)
    }

    /// The current `Down` (children, after replacements and adoptions).
    pub fn down(&self) -> impl Iterator<Item = Rank> + '_ {
        self.down.iter().map(|p| p.rank)
    }

    /// Whether the process completed (Alg. 3's `is_done`). Not [`Automaton::is_done`]: a
    /// completed process still answers KEEPALIVEs and owes ACKs, so a transport must keep
    /// serving it.
    pub fn completed(&self) -> bool {
        self.done
    }

    /// KEEPALIVEs this process sent.
    pub fn keepalives(&self) -> u32 {
        self.keepalives
    }

    /// `rank`'s gather and result ETAs (`f_ETA`, §4).
    fn etas(config: &FtcoConfig<R>, rank: Rank) -> (Time, Time) {
        let (gather_eta, mut result_eta) = config.etas(config.collective, rank);
        if config.collective == Collective::Reduce
            && config.replaces_root()
            && config.topology.parent(rank) == Some(0)
        {
            // Rank 0 sends the result to its children as in an Allreduce with one root.
            result_eta = config.etas(Collective::Allreduce, rank).1;
        }
        (gather_eta, result_eta)
    }

    fn is_suspected(&self, rank: Rank) -> bool {
        self.suspected.binary_search(&rank).is_ok()
    }

    /// Whether this process is in the replacement group (§4).
    pub fn in_replacement_group(&self) -> bool {
        self.in_group
    }

    /// The replacement group as this process knows it (empty unless rank 0 can fail).
    pub fn group(&self) -> impl Iterator<Item = Rank> + '_ {
        self.group.iter().map(|p| p.rank)
    }

    fn find(&self, rank: Rank) -> Option<(Side, usize)> {
        if let Some(i) = self.up.iter().position(|p| p.rank == rank) {
            return Some((Side::Up, i));
        }
        if let Some(i) = self.down.iter().position(|p| p.rank == rank) {
            return Some((Side::Down, i));
        }
        self.group
            .iter()
            .position(|p| p.rank == rank)
            .map(|i| (Side::Group, i))
    }

    fn peer_mut(&mut self, side: Side, i: usize) -> &mut Peer<R::Value> {
        match side {
            Side::Up => &mut self.up[i],
            Side::Down => &mut self.down[i],
            Side::Group => &mut self.group[i],
        }
    }

    /// The three peer lists with their sides, in the order every scan visits them (Up, Down,
    /// Group). The hot paths loop over these slices: a chain of three enumerated iterators
    /// was measurably slower (docs/performance.md, FTCO).
    fn sides(&self) -> [(Side, &[Peer<R::Value>]); 3] {
        [
            (Side::Up, &self.up),
            (Side::Down, &self.down),
            (Side::Group, &self.group),
        ]
    }

    /// The first peer, in [`sides`](Self::sides) order, that `pred` accepts.
    fn find_peer(
        &self,
        mut pred: impl FnMut(Side, &Peer<R::Value>) -> bool,
    ) -> Option<(Side, usize)> {
        // Side by side, not a loop over `sides()` (see `arm`).
        if let Some(i) = self.up.iter().position(|p| pred(Side::Up, p)) {
            return Some((Side::Up, i));
        }
        if let Some(i) = self.down.iter().position(|p| pred(Side::Down, p)) {
            return Some((Side::Down, i));
        }
        self.group
            .iter()
            .position(|p| pred(Side::Group, p))
            .map(|i| (Side::Group, i))
    }

    /// Reduce with root replacement: this process must hold the result too (a child of rank
    /// 0, or a member of the replacement group), not only send its partial.
    fn reduce_holder(&self, config: &FtcoConfig<R>) -> bool {
        config.replaces_root()
            && config.collective == Collective::Reduce
            && self.rank != 0
            && (self.in_group || self.up.iter().any(|p| p.rank == 0))
    }

    /// `f_timeout(me, x)`; toward a replacement-group member the load is the group's size,
    /// not the tree degree (every member exchanges with every other, §4), so the group size
    /// is added to both degrees.
    fn peer_timeout(&self, config: &FtcoConfig<R>, side: Side, peer: &Peer<R::Value>) -> Time {
        let x = peer.rank;
        match side {
            Side::Group => {
                let g = self.group.len() as u64 + 1;
                config.timeout.timeout(
                    config.degree(self.rank).saturating_add(g),
                    config.degree(x).saturating_add(g),
                    config.distance(self.rank, x),
                )
            }
            _ => peer.timeout,
        }
    }

    /// Root replacement: `x` may be a member of the replacement group (neither above nor
    /// below this process).
    fn lateral(&self, config: &FtcoConfig<R>, x: Rank) -> bool {
        config.replaces_root()
            && x != self.rank
            && config.topology.contains(x)
            && !config.descends(x, self.rank)
            && !config.descends(self.rank, x)
    }

    /// Whether a partial already counted here (a Down member's) contains `z`'s operand.
    fn covered(&self, config: &FtcoConfig<R>, z: Rank) -> bool {
        let walk = || {
            self.down
                .iter()
                .any(|p| p.value.is_some() && (p.rank == z || config.descends(p.rank, z)))
        };
        if self.initial_down.0 && self.down.iter().any(|p| p.rank == z) {
            // A member is below no other member: only its own counted partial covers it.
            let shortcut = self.down.iter().any(|p| p.rank == z && p.value.is_some());
            // Every test run checks the cache against the walk it saves.
            debug_assert_eq!(shortcut, walk(), "rank {}: stale initial_down", self.rank);
            return shortcut;
        }
        walk()
    }

    /// A partial from `m` supersedes the partials and the waits of the members below it.
    fn absorb(&mut self, config: &FtcoConfig<R>, m: Rank) {
        if self.initial_down.0 && self.down.iter().any(|p| p.rank == m) {
            // No member lies below another (every test run checks it).
            debug_assert!(
                !self.down.iter().any(|p| config.descends(m, p.rank)),
                "rank {}: stale initial_down",
                self.rank
            );
            return;
        }
        for p in &mut self.down {
            if config.descends(m, p.rank) {
                p.value = None;
                p.needed = false;
            }
        }
    }

    /// The service distance of step `now` (the degree is needed by DISD only, and costs
    /// `O(depth)`).
    fn served(config: &FtcoConfig<R>, me: Rank, now: Time) -> u32 {
        let degree = match config.service {
            ServiceDistance::Disd => config.degree(me),
            _ => 0,
        };
        config.service.at(me, degree, now)
    }

    /// App. B: the process enters the collective at `StartTime` (at once without imbalance).
    /// A Bcast root takes its value, and a Bcast process that kept the value before entering
    /// delivers it now (Alg. 5 keeps DATA but does nothing with it).
    fn enter(
        &mut self,
        config: &FtcoConfig<R>,
        now: Time,
        out: &mut Outbox<FtcoMsg<R::Value>, R::Value>,
    ) {
        if !self.started || self.entered || now < config.imbalance.start(self.rank) {
            return;
        }
        self.entered = true;
        if config.collective == Collective::Bcast {
            if self.rank == 0 && self.result.is_none() {
                self.result = Some(self.mine.clone());
            }
            if let Some(v) = &self.result {
                out.deliver(v.clone());
            }
        }
    }

    /// Alg. 1 lines 5–10: the send of step `now`, if any: tree progress (Alg. 3), else a
    /// fault-tolerance message (Alg. 4) of the served distance, else of any distance.
    fn next_send(&self, config: &FtcoConfig<R>, now: Time) -> Option<Send> {
        let distance = Self::served(config, self.rank, now);
        // With the service distance 0 (`none`) the second call would repeat the first.
        self.tree_send(config)
            .or_else(|| self.fault_send(config, now, distance))
            .or_else(|| {
                (distance != 0)
                    .then(|| self.fault_send(config, now, 0))
                    .flatten()
            })
    }

    fn after(
        &mut self,
        config: &FtcoConfig<R>,
        now: Time,
        may_complete: bool,
        out: &mut Outbox<FtcoMsg<R::Value>, R::Value>,
    ) {
        self.progress(config, may_complete, out);
        self.arm(config, now, out);
    }
}

impl<R> Automaton for FtcoNode<R>
where
    R: Reduction + Clone + Eq + core::hash::Hash,
{
    type Msg = FtcoMsg<R::Value>;
    type Value = R::Value;
    type Config = FtcoConfig<R>;

    fn procs(config: &FtcoConfig<R>) -> Option<u32> {
        Some(config.topology.procs())
    }

    fn new(config: &FtcoConfig<R>, rank: Rank) -> Self {
        let topology = &config.topology;
        let multi = topology.roots() > 1;
        // `f_timeout(rank, x)` for each neighbour, with this rank's degree computed once. Every
        // initial peer is adjacent (a parent, a child, or another root: the roots are pairwise
        // adjacent), so the distance is 1.
        let degree = config.degree(rank);
        let peer = |x: Rank| {
            debug_assert_eq!(config.distance(rank, x), 1, "initial peers are adjacent");
            let timeout = config.timeout.timeout(degree, config.degree(x), 1);
            Peer::new(x, true, timeout)
        };
        // Exact capacities: one allocation each, no spare room (`collect` on these iterators
        // would reserve 4 peers for 1; there are 64 K nodes per run).
        let mut up: SmallVec<[Peer<R::Value>; 1]> = SmallVec::new();
        match config.collective {
            Collective::Allreduce => {
                let ups = topology.up(rank);
                up.reserve_exact(ups.len());
                up.extend(ups.map(peer));
            }
            _ if rank == 0 => {}
            _ if multi && topology.is_root(rank) => up.push(peer(0)),
            _ => {
                if let Some(parent) = topology.parent(rank) {
                    up.push(peer(parent));
                }
            }
        }
        let other_roots = match config.collective {
            Collective::Allreduce => 0..0,
            _ if rank == 0 => 1..topology.roots(),
            _ => 0..0,
        };
        let mut down: Vec<Peer<R::Value>> =
            Vec::with_capacity(other_roots.len() + topology.child_count(rank) as usize);
        down.extend(other_roots.map(peer));
        down.extend(topology.children(rank).map(peer));
        let (gather_eta, result_eta) = Self::etas(config, rank);
        Self {
            rank,
            mine: (config.initial)(rank),
            up,
            down,
            group: Vec::new(),
            in_group: false,
            suspected: Vec::new(),
            partial: None,
            result: None,
            done: false,
            started: false,
            entered: false,
            gather_eta,
            result_eta,
            armed: None,
            keepalives: 0,
            acked_last: false,
            expiry_hint: Cache(0),
            initial_down: Cache(true),
            _op: PhantomData,
        }
    }

    fn on_start(
        &mut self,
        config: &FtcoConfig<R>,
        now: Time,
        out: &mut Outbox<Self::Msg, R::Value>,
    ) {
        self.started = true;
        self.enter(config, now, out);
        self.after(config, now, true, out);
    }

    fn on_message(
        &mut self,
        config: &FtcoConfig<R>,
        now: Time,
        from: Rank,
        msg: Self::Msg,
        out: &mut Outbox<Self::Msg, R::Value>,
    ) {
        self.enter(config, now, out);
        // DATA proves its sender alive: count it before timeouts are checked at this instant.
        if msg.kind() == Kind::Data {
            if let Some((side, i)) = self.find(from) {
                self.peer_mut(side, i).last_ack = now;
            }
        }
        self.expire(config, now);
        match msg {
            FtcoMsg::Partial(v) => self.on_partial(config, from, v, out),
            FtcoMsg::Result(v) => self.on_result(config, from, v, out),
            FtcoMsg::Keepalive => self.on_keepalive(config, from, out),
            FtcoMsg::Ack => match self.find(from) {
                Some((side, i)) => self.peer_mut(side, i).last_ack = now,
                None => out.ignore("ack from a process that is not a neighbour"),
            },
        }
        self.after(config, now, true, out);
    }

    fn on_timer(
        &mut self,
        config: &FtcoConfig<R>,
        now: Time,
        id: TimerId,
        out: &mut Outbox<Self::Msg, R::Value>,
    ) {
        if id != WAKE || self.armed != Some(now) {
            out.ignore("stale timer");
            return;
        }
        self.armed = None;
        self.enter(config, now, out);
        self.expire(config, now);
        self.after(config, now, true, out);
    }

    fn on_send_slot(
        &mut self,
        config: &FtcoConfig<R>,
        now: Time,
        out: &mut Outbox<Self::Msg, R::Value>,
    ) {
        if !self.started {
            return;
        }
        self.enter(config, now, out);
        self.expire(config, now);
        // Alg. 1 line 5: a new iteration first asks tree progress whether it is done.
        self.progress(config, true, out);
        let choice = self.next_send(config, now);
        match choice {
            Some(Send::Partial(side, i)) => {
                let Some(v) = self.partial.clone() else {
                    return;
                };
                let p = self.peer_mut(side, i);
                p.sent = true;
                p.last_sent = now;
                let to = p.rank;
                self.note_sent(config, side, i, now);
                out.send(to, FtcoMsg::Partial(v));
            }
            Some(Send::Result(side, i)) => {
                let Some(v) = self.result.clone() else { return };
                let p = self.peer_mut(side, i);
                match side {
                    Side::Group => p.needed = false,
                    _ => p.sent = true,
                }
                let to = p.rank;
                out.send(to, FtcoMsg::Result(v));
            }
            Some(Send::Ack(side, i)) => {
                self.acked_last = true;
                let p = self.peer_mut(side, i);
                p.ack_data = false;
                p.ack_keepalive = false;
                let to = p.rank;
                out.send(to, FtcoMsg::Ack);
            }
            Some(Send::Keepalive(side, i)) => {
                self.keepalives += 1;
                self.acked_last = false;
                let p = self.peer_mut(side, i);
                p.last_sent = now;
                let to = p.rank;
                self.note_sent(config, side, i, now);
                out.send(to, FtcoMsg::Keepalive);
            }
            None => {}
        }
        let sent = choice.is_some();
        self.after(config, now, !sent, out);
    }

    /// [`Self::on_send_slot`] at `at` is idle when, with no input before it, each of its steps
    /// would do nothing: the process has entered (or has not started); no wake-up falls due by
    /// `at` — `arm` set it to the first instant an ACK becomes overdue or a
    /// KEEPALIVE due, so before it `expire` suspects nothing and `arm` keeps it (a timer due by
    /// `at` is an input, but a driver may offer the slot first); the gather and result are up
    /// to date (`progress` ran after the last input or send) and would not complete; and
    /// Alg. 1 chooses no send. (`sim/tests/drivers/sim_idle_slots.rs` fails without the wake-up test.)
    fn send_slot_is_idle(&self, config: &FtcoConfig<R>, at: Time) -> bool {
        if !self.started {
            return true;
        }
        if !self.entered || self.armed.is_some_and(|t| t <= at) {
            return false;
        }
        if !self.done && self.completes(config) {
            return false;
        }
        self.next_send(config, at).is_none()
    }

    /// Alg. 1 lines 5–10 as a choice: `None` when tree progress will send, else a message of
    /// the served distance by type priority, else `None` when a fault-tolerance action of that
    /// distance is due, else any message by type priority.
    fn select_receive(
        &self,
        config: &FtcoConfig<R>,
        now: Time,
        queue: &[(Rank, Self::Msg)],
    ) -> Option<usize> {
        if self.tree_send(config).is_some() {
            return None;
        }
        let me = self.rank;
        let distance = Self::served(config, me, now);
        if distance != 0 {
            if let Some(i) = Self::pick(config, me, queue, distance) {
                return Some(i);
            }
            if self.fault_send(config, now, distance).is_some() {
                return None;
            }
        }
        Self::pick(config, me, queue, 0)
    }
}
