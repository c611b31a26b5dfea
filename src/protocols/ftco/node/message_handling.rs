//! FTCO Alg. 2 (message handling): which queued message a step takes (type priority DATA >
//! KEEPALIVE > ACK among the messages of the served distance, App. A), and what a partial, a
//! result or a KEEPALIVE does to the node: a child's partial counted once (the covering rule),
//! a re-parented descendant adopted, `Up` moved to an ancestor that adopted this node, a
//! replacement-group member taken into the group (§4). An ACK only updates `LastACK`
//! (`on_message`).

use super::{Cache, FtcoNode, Peer, Side};
use crate::automaton::{Outbox, Reduction};
use crate::protocols::ftco::{FtcoConfig, FtcoMsg, Kind};
use crate::topology::ftco::Collective;
use crate::Rank;

impl<R: Reduction> FtcoNode<R> {
    pub(super) fn should_handle(
        config: &FtcoConfig<R>,
        me: Rank,
        node: Rank,
        distance: u32,
    ) -> bool {
        distance == 0 || config.distance(me, node) == distance
    }

    pub(super) fn pick(
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

    pub(super) fn on_partial(
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

    pub(super) fn on_result(
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

    pub(super) fn on_keepalive(
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
