//! The FTCO automaton: Alg. 1 (main loop), Alg. 2 (message handling), Alg. 3 (tree traversal)
//! and Alg. 4 (fault detection and recovery), for Bcast, Reduce and Allreduce.

use alloc::vec::Vec;
use core::marker::PhantomData;
use smallvec::SmallVec;

use super::msg::{FtcoMsg, Kind};
use super::{FtcoConfig, ServiceDistance};
use crate::automaton::{Automaton, Outbox, Reduction, TimerId};
use crate::topology::ftco::Collective;
use crate::{Rank, Time};

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

/// What a process waits for from one neighbour ([`FtcoNode::watches`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Watch {
    /// The neighbour.
    pub rank: Rank,
    /// When the last message that expects an ACK (DATA or KEEPALIVE) went to it, if no ACK or
    /// DATA answered it since: Alg. 4 suspects it at the first instant after that plus
    /// [`Watch::timeout`].
    pub unanswered_since: Option<Time>,
    /// `f_timeout` toward it (App. A; toward a replacement-group member, from the group's size).
    pub timeout: Time,
    /// If the process awaits its DATA and nothing to it is unanswered: the first instant a
    /// KEEPALIVE to it is due (Alg. 4 lines 20–23: after the side's ETA, and `f_timeout`
    /// after the last one).
    pub keepalive_due: Option<Time>,
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

    /// What this process is waiting for from each neighbour that Alg. 4 may time out, with
    /// the ETAs and `f_timeout`s of `config` (the rules of §4 and App. A, for an observer: a
    /// model checker's detection property, a transport's diagnostics). Empty once it
    /// completed or before its `StartTime`, when it only answers.
    pub fn watches<'a>(&'a self, config: &'a FtcoConfig<R>) -> impl Iterator<Item = Watch> + 'a {
        let active = self.entered && !self.done;
        let (gather_eta, result_eta) = if active {
            Self::etas(config, self.rank)
        } else {
            (0, 0)
        };
        self.sides()
            .into_iter()
            .filter(move |_| active)
            .flat_map(move |(side, list)| {
                let may_await = self.may_await(config, side);
                let side_eta = match side {
                    Side::Up => result_eta,
                    Side::Down => gather_eta,
                    Side::Group => 0,
                };
                list.iter()
                    .filter(move |p| !config.is_immune(p.rank))
                    .map(move |p| {
                        let timeout = match side {
                            Side::Group => self.peer_timeout(config, side, p),
                            _ => config.f_timeout(self.rank, p.rank),
                        };
                        let unanswered_since = p.unanswered();
                        let keepalive_due = (unanswered_since.is_none()
                            && may_await
                            && self.peer_awaited(config, side, p))
                        .then(|| {
                            let eta = side_eta + 1;
                            p.last_sent()
                                .map_or(eta, |sent| eta.max(sent.saturating_add(timeout) + 1))
                        });
                        Watch {
                            rank: p.rank,
                            unanswered_since,
                            timeout,
                            keepalive_due,
                        }
                    })
            })
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

    /// Whether the node may wait for DATA from some peer of `side` (the side's part of Alg. 4
    /// line 20; the peer's is [`peer_awaited`](Self::peer_awaited)).
    fn may_await(&self, config: &FtcoConfig<R>, side: Side) -> bool {
        match side {
            Side::Up => match config.collective {
                Collective::Reduce => self.reduce_holder(config) && self.result.is_none(),
                Collective::Allreduce if config.topology.is_root(self.rank) => true,
                _ => self.result.is_none(),
            },
            Side::Down => config.collective != Collective::Bcast && self.partial.is_none(),
            Side::Group => self.in_group && self.result.is_none(),
        }
    }

    /// Whether the node waits for DATA from this peer (Alg. 4 line 20: `x ∉ Arrived`), given
    /// that [`may_await`](Self::may_await) holds for its side: the two together are the rule,
    /// split so that the scans test the side's part once per side.
    fn peer_awaited(&self, config: &FtcoConfig<R>, side: Side, peer: &Peer<R::Value>) -> bool {
        match side {
            // A multi-root root waits for each other root's partial, others for the result.
            Side::Up => {
                config.collective != Collective::Allreduce
                    || !config.topology.is_root(self.rank)
                    || peer.value.is_none()
            }
            Side::Down => peer.needed && peer.value.is_none(),
            Side::Group => peer.value.is_none(),
        }
    }

    fn eta(&self, side: Side) -> Time {
        match side {
            Side::Up => self.result_eta,
            Side::Down => self.gather_eta,
            Side::Group => 0,
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

    fn should_handle(config: &FtcoConfig<R>, me: Rank, node: Rank, distance: u32) -> bool {
        distance == 0 || config.distance(me, node) == distance
    }

    /// Alg. 3: the next DATA to send, if any.
    fn tree_send(&self, config: &FtcoConfig<R>) -> Option<Send> {
        if !self.entered {
            return None; // App. B: no DATA before StartTime.
        }
        let up_partial = match config.collective {
            Collective::Bcast => false,
            Collective::Reduce => self.rank != 0,
            Collective::Allreduce => true,
        };
        // Once a non-root has the result nobody above needs its partial any more; the other
        // roots of an Allreduce always need a root's.
        let needed_above = self.result.is_none() || config.topology.is_root(self.rank);
        if up_partial && self.partial.is_some() && needed_above {
            if let Some(i) = self.up.iter().position(|p| !p.sent) {
                return Some(Send::Partial(Side::Up, i));
            }
        }
        // Root replacement (§4): a group member sends its partial to every other member, after
        // acknowledging its children's partials: the exchange costs `g` steps, which the
        // children's `f_timeout` (tree degrees) does not allow for.
        if self.in_group
            && self.partial.is_some()
            && self.result.is_none()
            && !self.down.iter().any(|p| p.ack_data)
        {
            if let Some(i) = self.group.iter().position(|p| !p.sent) {
                return Some(Send::Partial(Side::Group, i));
            }
        }
        // Reduce: a finished process outside the group that a member asks for (it replaces a
        // failed member in that member's view) answers with its partial, once, as it would to
        // an ancestor that adopted it (rule 5). Its parent, if alive, is in the group too and
        // its partial covers this one (covering rule across the group).
        if !self.in_group
            && self.done
            && self.result.is_none()
            && config.collective == Collective::Reduce
            && config.replaces_root()
            && self.partial.is_some()
        {
            if let Some(i) = self.group.iter().position(|p| p.needed && !p.sent) {
                return Some(Send::Partial(Side::Group, i));
            }
        }
        let sends_down =
            config.collective != Collective::Reduce || (self.rank == 0 && config.replaces_root());
        if sends_down && self.result.is_some() {
            if let Some(i) = self.down.iter().position(|p| !p.sent) {
                return Some(Send::Result(Side::Down, i));
            }
        }
        // A holder of the result answers every group member that asked with it.
        if self.result.is_some() {
            if let Some(i) = self.group.iter().position(|p| p.needed) {
                return Some(Send::Result(Side::Group, i));
            }
        }
        None
    }

    /// Alg. 4 lines 12–25 for one service distance: an ACK owed or a KEEPALIVE due.
    ///
    /// The paper serves every owed ACK before any KEEPALIVE. With the service distance `none`
    /// that order can starve this process's own fault detection: a late process with many
    /// askers (a root that adopted a failed child's subtree, asked by its adoptees and the other
    /// roots) owes an ACK at every idle step and never sends the KEEPALIVE that would time out
    /// an inactive child it waits for — a livelock (docs/protocols.md, "Fair fault service").
    /// So when both are pending the two kinds alternate: a due KEEPALIVE waits for at most one
    /// ACK, and an owed ACK for at most one KEEPALIVE. With only one kind pending the paper's
    /// order is unchanged.
    fn fault_send(&self, config: &FtcoConfig<R>, now: Time, distance: u32) -> Option<Send> {
        let me = self.rank;
        // Reduce (§3, "Message Flow"): a node passes its DATA up, then ACKs all its children,
        // who finish only once acknowledged; so a finished process still owes them the ACK.
        let reduce = config.collective == Collective::Reduce;
        let ack = self
            .find_peer(|_, p| {
                (p.ack_keepalive || (p.ack_data && (!self.done || reduce)))
                    && Self::should_handle(config, me, p.rank, distance)
            })
            .map(|(side, i)| Send::Ack(side, i));
        if ack.is_some() && !self.acked_last {
            return ack;
        }
        if self.done || !self.entered {
            // App. B: before StartTime a process only answers.
            return ack;
        }
        // A KEEPALIVE goes only to a peer the node awaits DATA from, once its side's ETA has
        // passed: most calls skip whole sides on those two tests.
        let due = |side: Side, list: &[Peer<R::Value>]| {
            if now <= self.eta(side) || !self.may_await(config, side) {
                return None;
            }
            list.iter().position(|p| {
                self.peer_awaited(config, side, p)
                    && p.last_sent()
                        .is_none_or(|s| now.saturating_sub(s) > self.peer_timeout(config, side, p))
                    && Self::should_handle(config, me, p.rank, distance)
            })
        };
        // Side by side, not a loop over `sides()` (see `arm`).
        if let Some(i) = due(Side::Up, &self.up) {
            return Some(Send::Keepalive(Side::Up, i));
        }
        if let Some(i) = due(Side::Down, &self.down) {
            return Some(Send::Keepalive(Side::Down, i));
        }
        if let Some(i) = due(Side::Group, &self.group) {
            return Some(Send::Keepalive(Side::Group, i));
        }
        ack
    }

    /// Alg. 4 lines 2–10: suspect every peer whose ACK is overdue and route around it.
    fn expire(&mut self, config: &FtcoConfig<R>, now: Time) {
        if self.done {
            return;
        }
        // Group peers' timeouts depend on the group's size, which shrinks: always scanned.
        if now < self.expiry_hint.0 && self.group.is_empty() {
            return;
        }
        loop {
            let overdue = self.find_peer(|side, p| {
                p.unanswered().is_some_and(|sent| {
                    !config.is_immune(p.rank)
                        && now.saturating_sub(sent) > self.peer_timeout(config, side, p)
                })
            });
            let Some((side, i)) = overdue else { break };
            self.suspect(config, side, i);
        }
        // Nothing is overdue at `now`: the next expiry is the earliest unanswered one.
        let mut first = Time::MAX;
        for (side, list) in self.sides() {
            for p in list {
                if let Some(sent) = p.unanswered() {
                    if !config.is_immune(p.rank) {
                        let at = sent.saturating_add(self.peer_timeout(config, side, p));
                        first = first.min(at.saturating_add(1));
                    }
                }
            }
        }
        self.expiry_hint = Cache(first);
    }

    /// A message expecting an ACK went to a peer at `now`: its expiry may be the first.
    fn note_sent(&mut self, config: &FtcoConfig<R>, side: Side, i: usize, now: Time) {
        let p = match side {
            Side::Up => &self.up[i],
            Side::Down => &self.down[i],
            Side::Group => &self.group[i],
        };
        let at = now
            .saturating_add(self.peer_timeout(config, side, p))
            .saturating_add(1);
        self.expiry_hint = Cache(self.expiry_hint.0.min(at));
    }

    fn suspect(&mut self, config: &FtcoConfig<R>, side: Side, i: usize) {
        let x = match side {
            Side::Up => self.up.remove(i).rank,
            Side::Down => {
                self.initial_down = Cache(false);
                self.down.remove(i).rank
            }
            Side::Group => self.group.remove(i).rank,
        };
        if let Err(at) = self.suspected.binary_search(&x) {
            self.suspected.insert(at, x);
        }
        let me = self.rank;
        let suspected = &self.suspected;
        match side {
            Side::Up => {
                // Line 8: Up ← f_tree(x).Up ∪ (Up − {x}), skipping every node suspected so far.
                let next = config
                    .topology
                    .first_live_ancestor(self.rank, |a| suspected.binary_search(&a).is_ok());
                if let Some(a) = next {
                    if self.find(a).is_none() {
                        self.up.push(Peer::new(a, true, config.f_timeout(me, a)));
                    }
                } else if config.replaces_root() && self.rank != 0 {
                    // §4 root replacement: every ancestor up to rank 0 failed; join the group
                    // of rank 0's topmost live descendants (its children), in rank 0's place.
                    self.in_group = true;
                    let members: Vec<Rank> = config
                        .topology
                        .live_frontier(0, |c| suspected.binary_search(&c).is_ok())
                        .filter(|&c| c != me)
                        .collect();
                    for c in members {
                        if self.find(c).is_none() {
                            self.group.push(Peer::new(c, false, 0));
                        }
                    }
                }
            }
            Side::Group => {
                // A failed member is replaced by its topmost live descendants, as in line 10.
                let frontier: Vec<Rank> = config
                    .topology
                    .live_frontier(x, |c| suspected.binary_search(&c).is_ok())
                    .collect();
                for c in frontier {
                    if c != self.rank && self.find(c).is_none() {
                        self.group.push(Peer::new(c, false, 0));
                    }
                }
            }
            Side::Down => {
                // Line 10: Down ← f_tree(x).Down ∪ (Down − {x}), in x's place, in send order.
                let frontier: Vec<Rank> = config
                    .topology
                    .live_frontier(x, |c| suspected.binary_search(&c).is_ok())
                    .collect();
                let mut at = i;
                for c in frontier {
                    if self.find(c).is_none() {
                        let needed = !self.covered(config, c);
                        self.down
                            .insert(at, Peer::new(c, needed, config.f_timeout(me, c)));
                        at += 1;
                    }
                }
            }
        }
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

    /// State changes without sends: close the gather, finish the root exchange, and complete
    /// (`may_complete`: not in a step that just sent, since Alg. 3 reports `is_done` only in
    /// the iteration after its last send, when that send's step has ended).
    fn progress(
        &mut self,
        config: &FtcoConfig<R>,
        may_complete: bool,
        out: &mut Outbox<FtcoMsg<R::Value>, R::Value>,
    ) {
        if !self.entered {
            // Alg. 5: before StartTime the operand is not there yet; nothing progresses.
            return;
        }
        if config.collective != Collective::Bcast
            && self.partial.is_none()
            && self.down.iter().all(|p| !p.needed || p.value.is_some())
        {
            // Each counted partial once, in Down order (FTCO §4: "each value is used only once").
            let mut value = self.mine.clone();
            for p in &self.down {
                if let (true, Some(v)) = (p.needed, &p.value) {
                    value = config.op.combine(&value, v);
                }
            }
            self.partial = Some(value);
        }
        if config.collective == Collective::Reduce
            && self.rank == 0
            && config.replaces_root()
            && self.result.is_none()
        {
            // Root replacement: rank 0 also tells its children the result (they replace it).
            self.result = self.partial.clone();
        }
        if self.in_group && self.result.is_none() && self.group.iter().all(|p| p.value.is_some()) {
            if let Some(own) = &self.partial {
                // The group's partials, each once, in rank order (like the roots of Alg. 2
                // line 13, rule 8), so every member computes the same value.
                let mut parts: Vec<(Rank, &R::Value)> = Vec::with_capacity(self.group.len() + 1);
                parts.push((self.rank, own));
                parts.extend(
                    self.group
                        .iter()
                        .filter_map(|p| p.value.as_ref().map(|v| (p.rank, v))),
                );
                parts.sort_unstable_by_key(|&(r, _)| r);
                // Covering rule (rule 7) across the group: a member whose ancestor is in the
                // group with a partial is counted inside that partial. Members are an
                // antichain unless someone suspected a live parent; then this keeps each
                // operand once, and every member drops the same ones.
                let ranks: Vec<Rank> = parts.iter().map(|&(r, _)| r).collect();
                let mut value: Option<R::Value> = None;
                for (r, v) in parts {
                    if ranks.iter().any(|&a| config.descends(a, r)) {
                        continue;
                    }
                    value = Some(match value {
                        None => v.clone(),
                        Some(acc) => config.op.combine(&acc, v),
                    });
                }
                self.result = value;
            }
        }
        if config.collective == Collective::Allreduce
            && config.topology.is_root(self.rank)
            && self.result.is_none()
            && self.up.iter().all(|p| p.value.is_some())
        {
            if let Some(own) = &self.partial {
                // Alg. 2 line 13 read for several roots: combine every root's partial once, in
                // root order, so every root computes the same value.
                let mut value: Option<R::Value> = None;
                for t in 0..config.topology.roots() {
                    let v = if t == self.rank {
                        own
                    } else {
                        match self
                            .up
                            .iter()
                            .find(|p| p.rank == t)
                            .and_then(|p| p.value.as_ref())
                        {
                            Some(v) => v,
                            None => continue,
                        }
                    };
                    value = Some(match value {
                        None => v.clone(),
                        Some(acc) => config.op.combine(&acc, v),
                    });
                }
                self.result = value;
            }
        }
        if self.done || !may_complete {
            return;
        }
        if self.completes(config) {
            self.done = true;
            match config.collective {
                Collective::Reduce if self.rank == 0 => {
                    if let Some(v) = &self.partial {
                        out.complete(v.clone());
                    }
                }
                Collective::Reduce if self.reduce_holder(config) => {
                    if let Some(v) = &self.result {
                        out.complete(v.clone());
                    }
                }
                Collective::Allreduce => {
                    if let Some(v) = &self.result {
                        out.complete(v.clone());
                    }
                }
                _ => {}
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

    /// Alg. 3's `is_done`, once partial and result are up to date.
    fn completes(&self, config: &FtcoConfig<R>) -> bool {
        let holder = self.reduce_holder(config);
        match config.collective {
            Collective::Reduce if self.rank == 0 && config.replaces_root() => {
                self.result.is_some() && self.down.iter().all(|p| p.sent)
            }
            Collective::Reduce if self.rank == 0 => self.partial.is_some(),
            Collective::Reduce if holder => self.result.is_some(),
            // §3, "Message Flow": a Reduce node passes DATA to its parent, ACKs its children
            // and waits for its parent's ACK; it finishes once acknowledged, so it still detects
            // a failed parent and re-sends to the next ancestor (Fig. 3). With root replacement
            // this also carries the operands below a failed child of a failed rank 0 to the
            // group.
            Collective::Reduce => {
                self.partial.is_some() && self.up.iter().all(|p| p.sent && p.unanswered().is_none())
            }
            _ => self.result.is_some() && self.down.iter().all(|p| p.sent),
        }
    }

    /// Sets [`WAKE`] to the next instant an ETA passes or a timeout expires.
    fn arm(
        &mut self,
        config: &FtcoConfig<R>,
        now: Time,
        out: &mut Outbox<FtcoMsg<R::Value>, R::Value>,
    ) {
        let mut next: Option<Time> = None;
        if self.started && !self.entered {
            // Alg. 5 line 2: wake at StartTime; nothing before it expects an ACK.
            let start = config.imbalance.start(self.rank);
            next = (start > now).then_some(start);
        } else if !self.done {
            // Side by side rather than a loop over `sides()`: the array iterator cost about a
            // sixth of this function, which runs after every input and send slot.
            self.next_wake(config, Side::Up, &self.up, now, &mut next);
            self.next_wake(config, Side::Down, &self.down, now, &mut next);
            if !self.group.is_empty() {
                self.next_wake(config, Side::Group, &self.group, now, &mut next);
            }
        }
        if next != self.armed {
            match next {
                Some(at) => out.set_timer(WAKE, at),
                None => out.cancel_timer(WAKE),
            }
            self.armed = next;
        }
    }

    /// Lowers `next` to the first instant after `now` at which a peer of `side` has an overdue
    /// ACK or may be sent a KEEPALIVE (for [`arm`](Self::arm)).
    #[inline(always)]
    fn next_wake(
        &self,
        config: &FtcoConfig<R>,
        side: Side,
        list: &[Peer<R::Value>],
        now: Time,
        next: &mut Option<Time>,
    ) {
        let may_await = self.may_await(config, side);
        for p in list {
            let timeout = self.peer_timeout(config, side, p);
            let mut consider = |t: Time| {
                if t > now {
                    *next = Some(next.map_or(t, |n: Time| n.min(t)));
                }
            };
            if let Some(sent) = p.unanswered() {
                if !config.is_immune(p.rank) {
                    consider(sent.saturating_add(timeout).saturating_add(1));
                }
            }
            if may_await && self.peer_awaited(config, side, p) {
                let eta = self.eta(side) + 1;
                consider(match p.last_sent() {
                    Some(sent) => eta.max(sent.saturating_add(timeout).saturating_add(1)),
                    None => eta,
                });
            }
        }
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

    fn pick(
        config: &FtcoConfig<R>,
        me: Rank,
        queue: &[(Rank, FtcoMsg<R::Value>)],
        distance: u32,
    ) -> Option<usize> {
        [Kind::Data, Kind::Keepalive, Kind::Ack]
            .into_iter()
            .find_map(|kind| {
                queue.iter().position(|(from, msg)| {
                    msg.kind() == kind && Self::should_handle(config, me, *from, distance)
                })
            })
    }

    fn on_partial(
        &mut self,
        config: &FtcoConfig<R>,
        from: Rank,
        v: R::Value,
        out: &mut Outbox<FtcoMsg<R::Value>, R::Value>,
    ) {
        if self.is_suspected(from) {
            // Never re-adopt: its children were adopted instead and report for it.
            out.ignore("partial from a suspected process");
            return;
        }
        match self.find(from) {
            Some((Side::Down, i)) => {
                if self.down[i].value.is_some() {
                    out.ignore("duplicate partial");
                    return;
                }
                self.down[i].ack_data = true;
                if self.partial.is_some() || self.covered(config, from) {
                    // Too late to count, or already counted inside another partial.
                    self.down[i].needed = false;
                    return;
                }
                self.down[i].value = Some(v);
                self.down[i].needed = true;
                self.absorb(config, from);
            }
            Some((Side::Up, i)) => {
                let exchange = config.collective == Collective::Allreduce
                    && config.topology.is_root(self.rank);
                if !exchange {
                    out.ignore("partial from up");
                } else if self.up[i].value.is_some() {
                    out.ignore("duplicate root partial");
                } else {
                    self.up[i].value = Some(v);
                    self.up[i].ack_data = true;
                }
            }
            Some((Side::Group, i)) => {
                // A member of the replacement group: keep its partial (for the group result)
                // and owe it the result.
                let p = &mut self.group[i];
                p.ack_data = true;
                p.needed = true;
                if p.value.is_none() {
                    p.value = Some(v);
                }
            }
            None if config.descends(self.rank, from) => {
                // It re-parented to this node after its parent failed (Alg. 4 line 8 on its
                // side): adopt it; count its partial unless a partial counted here covers it.
                let count = self.partial.is_none() && !self.covered(config, from);
                let mut peer = Peer::new(from, count, config.f_timeout(self.rank, from));
                peer.ack_data = true;
                if count {
                    peer.value = Some(v);
                }
                self.initial_down = Cache(false);
                self.down.push(peer);
                if count {
                    self.absorb(config, from);
                }
            }
            None if self.lateral(config, from) => {
                // A replacement-group member that this process does not know yet (§4).
                let mut peer = Peer::new(from, true, 0);
                peer.ack_data = true;
                peer.value = Some(v);
                self.group.push(peer);
            }
            None => out.ignore("partial from a process that is neither a neighbour nor below"),
        }
    }

    fn on_result(
        &mut self,
        config: &FtcoConfig<R>,
        from: Rank,
        v: R::Value,
        out: &mut Outbox<FtcoMsg<R::Value>, R::Value>,
    ) {
        if config.collective == Collective::Reduce && !self.reduce_holder(config) {
            out.ignore("result in a reduce");
            return;
        }
        if self.result.is_some() {
            out.ignore("duplicate result");
            return;
        }
        let found = self.find(from);
        let from_group = matches!(found, Some((Side::Group, _)));
        if self.in_group && !from_group {
            // It replaced rank 0: only the group's result counts (a late one from a
            // suspected rank 0 could differ from what the group computes).
            out.ignore("result from outside the replacement group");
            return;
        }
        let from_up = matches!(found, Some((Side::Up, _)));
        if !from_up && !from_group && !config.descends(from, self.rank) {
            out.ignore("result from a process that is not above");
            return;
        }
        if let Some((Side::Group, i)) = found {
            self.group[i].needed = false; // it holds the result
        }
        if config.collective == Collective::Bcast && self.entered {
            out.deliver(v.clone());
        }
        self.result = Some(v);
    }

    fn on_keepalive(
        &mut self,
        config: &FtcoConfig<R>,
        from: Rank,
        out: &mut Outbox<FtcoMsg<R::Value>, R::Value>,
    ) {
        if let Some((side, i)) = self.find(from) {
            let p = self.peer_mut(side, i);
            p.ack_keepalive = true;
            if side == Side::Group {
                p.needed = true; // a member asks: answer with the result once held
            }
            return;
        }
        if self.is_suspected(from) {
            out.ignore("keepalive from a suspected process");
            return;
        }
        if config.descends(from, self.rank) {
            // An ancestor adopted this node after suspecting its parent (Alg. 4 line 10 on its
            // side): move Up there, only upwards (never back below the current Up), and send
            // the partial again (Alg. 3 line 4: the new Up is not in UpSent).
            let upward = self.up.iter().all(|p| config.descends(from, p.rank));
            if upward && !config.topology.is_root(self.rank) {
                let mut peer = Peer::new(from, true, config.f_timeout(self.rank, from));
                peer.ack_keepalive = true;
                self.up.clear();
                self.up.push(peer);
            } else {
                out.ignore("keepalive from an ancestor below the current up");
            }
            return;
        }
        if config.descends(self.rank, from) {
            // It re-parented here (Alg. 4 line 8 on its side) and waits for the result. Its
            // partial will follow (the new Up is not in its UpSent, Alg. 3 line 4): wait for
            // it while the gather is open, unless a counted partial covers it. (Adopting it as
            // not needed lost a live operand when this KEEPALIVE came before this node
            // suspected the failed parent in between, e.g. with process imbalance.)
            let needed = config.collective != Collective::Bcast
                && self.partial.is_none()
                && !self.covered(config, from);
            let mut peer = Peer::new(from, needed, config.f_timeout(self.rank, from));
            peer.ack_keepalive = true;
            self.initial_down = Cache(false);
            self.down.push(peer);
            return;
        }
        if self.lateral(config, from) {
            let mut peer = Peer::new(from, true, 0);
            peer.ack_keepalive = true;
            self.group.push(peer);
            return;
        }
        out.ignore("keepalive from a process that is neither a neighbour nor above or below");
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
