//! FTCO Alg. 4 (fault detection and recovery): KEEPALIVEs to the peers the node awaits DATA
//! from once their ETA passed (lines 12–25, alternating with owed ACKs), timeouts (`f_timeout`,
//! App. A; lines 2–10), re-parenting around a suspected node (line 8: the first live ancestor;
//! line 10: a failed child's topmost live descendants), root replacement (end of §4), and the
//! one timer that wakes the node when a timeout expires or an ETA passes. [`Watch`] shows an
//! observer what the node waits for.

use alloc::vec::Vec;

use super::{Cache, FtcoNode, Peer, Send, Side, WAKE};
use crate::automaton::{Outbox, Reduction};
use crate::protocols::ftco::{FtcoConfig, FtcoMsg};
use crate::topology::ftco::Collective;
use crate::{Rank, Time};

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

impl<R: Reduction> FtcoNode<R> {
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

    /// Alg. 4 lines 12–25 for one service distance: an ACK owed or a KEEPALIVE due.
    ///
    /// The paper serves every owed ACK before any KEEPALIVE. With the service distance `none`
    /// that order can starve this process's own fault detection: a late process with many
    /// askers (a root that adopted a failed child's subtree, asked by its adoptees and the other
    /// roots) owes an ACK at every idle step and never sends the KEEPALIVE that would time out
    /// an inactive child it waits for — a livelock (docs/reference/ftco.md, rule 11, "Fair fault
    /// service").
    /// So when both are pending the two kinds alternate: a due KEEPALIVE waits for at most one
    /// ACK, and an owed ACK for at most one KEEPALIVE. With only one kind pending the paper's
    /// order is unchanged.
    pub(super) fn fault_send(
        &self,
        config: &FtcoConfig<R>,
        now: Time,
        distance: u32,
    ) -> Option<Send> {
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
    pub(super) fn expire(&mut self, config: &FtcoConfig<R>, now: Time) {
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
    pub(super) fn note_sent(&mut self, config: &FtcoConfig<R>, side: Side, i: usize, now: Time) {
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

    /// Sets [`WAKE`] to the next instant an ETA passes or a timeout expires.
    pub(super) fn arm(
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
}
