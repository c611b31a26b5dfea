//! FTCO Alg. 3 (tree traversal): the collective's data flow. The next DATA to send (a partial
//! up, the result down, a replacement-group member's partial to the other members, §4), and the
//! state changes without sends: the gather closes into the subtree's partial, the roots' or
//! the group's partials combine into the result (each operand once, in rank order), and the
//! node completes (`is_done`).

use alloc::vec::Vec;

use super::{FtcoNode, Send, Side};
use crate::automaton::{Outbox, Reduction};
use crate::protocols::ftco::{FtcoConfig, FtcoMsg};
use crate::topology::ftco::Collective;
use crate::Rank;

impl<R: Reduction> FtcoNode<R> {
    /// Alg. 3: the next DATA to send, if any.
    pub(super) fn tree_send(&self, config: &FtcoConfig<R>) -> Option<Send> {
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

    /// State changes without sends: close the gather, finish the root exchange, and complete
    /// (`may_complete`: not in a step that just sent, since Alg. 3 reports `is_done` only in
    /// the iteration after its last send, when that send's step has ended).
    pub(super) fn progress(
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

    /// Alg. 3's `is_done`, once partial and result are up to date.
    pub(super) fn completes(&self, config: &FtcoConfig<R>) -> bool {
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
}
