//! The checks: an [`Observer`] follows one process from its inputs and outputs only and checks
//! every call against the contract (`docs/guide.md`, "The automaton contract"); [`Coverage`] counts the deep states a
//! family reached.

mod correction;

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};

use ftcoll::automaton::{Action, Automaton, TimerId, Value};
use ftcoll::protocols::corrected_tree::{
    Coloring, CorrectedTreeConfig, CorrectedTreeNode, CorrectionSpec, StartMode,
};
use ftcoll::protocols::{Body, CorrectionMsg, Msg, Ring, Side};
use ftcoll::topology::Order;
use ftcoll::{Rank, Time};

use super::cases::{Input, Neighbourhood};

/// What the checks need to read from an automaton beyond the contract.
pub(super) trait Inspect:
    Automaton<Msg = Msg, Value = u64, Config = CorrectedTreeConfig>
{
    fn coloring(&self) -> Coloring;
}

impl Inspect for CorrectedTreeNode {
    fn coloring(&self) -> Coloring {
        CorrectedTreeNode::coloring(self)
    }
}

#[derive(Debug)]
pub(super) struct Violation {
    pub(super) check: &'static str,
    pub(super) step: usize,
    pub(super) detail: String,
}

pub(super) type Checked = Result<(), Violation>;

/// Counts of what the fuzzer reached, so a family test can insist that it reached its variant's
/// deep states (not only shallow inputs).
#[derive(Debug, Default)]
pub(super) struct Coverage {
    pub(super) cases: u64,
    pub(super) steps: u64,
    pub(super) ignored: u64,
    pub(super) deliveries: u64,
    pub(super) tree_sends: u64,
    pub(super) ack_sends: u64,
    pub(super) completions: u64,
    pub(super) ring_sends: u64,
    /// Checked sends that reach the nearest corrector heard of (its side must stop then).
    pub(super) checked_reached_nearest: u64,
    pub(super) delayed_sweeps: u64,
    pub(super) stop_sends: u64,
    pub(super) failproof_sends: u64,
    pub(super) final_rounds: u64,
    pub(super) sos_rounds_done: u64,
    pub(super) c_node_deliveries: u64,
    pub(super) clones_compared: u64,
    /// (tree kind, numbering, start, first side) seen.
    pub(super) shapes: BTreeSet<(String, Order, StartMode, Side)>,
    pub(super) edge_procs: BTreeSet<u32>,
}

impl Coverage {
    pub(super) fn summary(&self) -> String {
        format!(
            "ignored {}, deliveries {}, tree {}, acks {}, completions {}, ring {}, checked stops {}, \
             delayed sweeps {}, stops {}, failproof {}, final rounds {}, SOS rounds {}, c-node \
             deliveries {}",
            self.ignored,
            self.deliveries,
            self.tree_sends,
            self.ack_sends,
            self.completions,
            self.ring_sends,
            self.checked_reached_nearest,
            self.delayed_sweeps,
            self.stop_sends,
            self.failproof_sends,
            self.final_rounds,
            self.sos_rounds_done,
            self.c_node_deliveries
        )
    }
}

/// What has happened to the process so far, from its inputs and outputs only.
pub(super) struct Observer<'a> {
    config: &'a CorrectedTreeConfig,
    near: &'a Neighbourhood,
    rank: Rank,
    procs: u32,
    ring: Ring,
    parent: Option<Rank>,
    started: bool,
    coloring: Coloring,
    /// Tree-colored by a call at `now >= correction_start`, or timer 1 fired: synchronized
    /// correction may start.
    start_allowed: bool,
    /// Distinct payloads received.
    values: Vec<Value>,
    deliveries: u32,
    /// The one payload this process sends, delivers and completes with.
    held: Option<Value>,
    completions: u32,
    tree_sends: u32,
    /// An acknowledgment or correction message was sent (tree sends come first).
    later_sends: bool,
    /// Acks that arrived from children since the process was tree-colored, duplicates included:
    /// the automaton counts them (see `a_duplicate_acknowledgment_is_ignored`).
    acked: u32,
    ack_sent: bool,
    /// Sweeps: last and farthest distance sent on each side.
    last: [u32; 2],
    /// Checked: nearest corrector heard of on each side.
    nearest: [Option<u32>; 2],
    delayed_first_sent: bool,
    delay_timer_fired: bool,
    heard_other_side: bool,
    /// Delayed: sweep messages received from each rank, and `Stop` replies sent to it.
    sweeps_from: BTreeMap<Rank, u32>,
    stops_to: BTreeMap<Rank, u32>,
    /// Failure-proof: restarts of each side (the final round), SOS messages sent.
    restarts: [u32; 2],
    sos_sent: u32,
    /// Failure-proof c-node: valid correctors it heard of.
    c_node_heard: BTreeSet<Rank>,
    /// The timer set last, for [`Input::PendingTimer`].
    pending: Option<(TimerId, Time)>,
    base_commas: usize,
    scratch: String,
}

/// Index of a side in per-side arrays.
fn idx(side: Side) -> usize {
    match side {
        Side::Left => 0,
        Side::Right => 1,
    }
}

fn commas<A: std::fmt::Debug>(a: &A, scratch: &mut String) -> usize {
    scratch.clear();
    write!(scratch, "{a:?}").expect("Debug never fails");
    scratch.bytes().filter(|&b| b == b',').count()
}

pub(super) fn hash_of<A: Hash>(a: &A) -> u64 {
    let mut h = DefaultHasher::new();
    a.hash(&mut h);
    h.finish()
}

/// Which handler produced a batch of actions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Handler {
    Start,
    Message,
    Timer,
    Slot,
}

impl<'a> Observer<'a> {
    pub(super) fn new<A: Inspect>(
        config: &'a CorrectedTreeConfig,
        near: &'a Neighbourhood,
        rank: Rank,
        fresh: &A,
    ) -> Self {
        let procs = config.tree.procs();
        let mut scratch = String::new();
        let base_commas = commas(fresh, &mut scratch);
        Self {
            config,
            near,
            rank,
            procs,
            ring: Ring { me: rank, procs },
            parent: near.parent,
            started: false,
            coloring: Coloring::Uncolored,
            start_allowed: false,
            values: Vec::new(),
            deliveries: 0,
            held: None,
            completions: 0,
            tree_sends: 0,
            later_sends: false,
            acked: 0,
            ack_sent: false,
            last: [0, 0],
            nearest: [None, None],
            delayed_first_sent: false,
            delay_timer_fired: false,
            heard_other_side: false,
            sweeps_from: BTreeMap::new(),
            stops_to: BTreeMap::new(),
            restarts: [0, 0],
            sos_sent: 0,
            c_node_heard: BTreeSet::new(),
            pending: None,
            base_commas,
            scratch,
        }
    }

    fn faults(&self) -> Option<u32> {
        match self.config.correction {
            CorrectionSpec::FailProof { faults, .. } => Some(faults),
            _ => None,
        }
    }

    /// [`Input::PendingTimer`] as the timer it fires.
    pub(super) fn resolve(&self, input: &Input) -> Input {
        match input {
            Input::PendingTimer => match self.pending {
                Some((id, at)) => Input::Timer(at, id),
                None => Input::Timer(0, TimerId(0)),
            },
            other => other.clone(),
        }
    }

    /// Inputs the contract says must be ignored without any other effect: a second arrival,
    /// a sender outside `0..P` or the process itself (no process sends to itself), any message to
    /// the root before it started (nobody holds the payload yet), gossip, a tree message from a
    /// non-parent or to a colored process, an acknowledgment that is not one.
    pub(super) fn must_ignore(&self, input: &Input) -> bool {
        match input {
            Input::Start(_) => self.started,
            Input::Message(_, from, msg) => {
                *from >= self.procs
                    || *from == self.rank
                    || self.rank == 0 && !self.started
                    || match msg.body {
                        Body::Gossip { .. } => true,
                        Body::Tree => {
                            self.parent != Some(*from) || self.coloring != Coloring::Uncolored
                        }
                        Body::Ack => {
                            !self.config.acknowledgments()
                                || !self.near.is_child(&self.config.tree, self.rank, *from)
                                || self.coloring != Coloring::Tree
                        }
                        Body::Correction(_) => false,
                    }
            }
            _ => false,
        }
    }

    /// Learns from an input that was not to be ignored (before its outputs are checked).
    pub(super) fn learn(&mut self, input: &Input) {
        let (from, msg) = match input {
            Input::Message(_, from, msg) => (*from, msg),
            Input::Start(_) => {
                self.started = true;
                return;
            }
            // Timer 1 is the synchronized start, 10 the end of delayed correction's delay,
            // whoever set them (the automaton trusts its timers).
            Input::Timer(_, TimerId(1)) => {
                self.start_allowed = true;
                return;
            }
            Input::Timer(_, TimerId(10)) => {
                self.delay_timer_fired = true;
                return;
            }
            _ => return,
        };
        if !self.values.contains(&msg.value) {
            self.values.push(msg.value);
        }
        let corrects = self.coloring == Coloring::Tree;
        match &msg.body {
            Body::Ack => self.acked += 1,
            Body::Correction(CorrectionMsg::Ring { toward }) if corrects => {
                let side = toward.other();
                let m = self.ring.distance(side, from);
                let nearest = &mut self.nearest[idx(side)];
                *nearest = Some(nearest.map_or(m, |n| n.min(m)));
                if *toward == self.config.first_side {
                    self.heard_other_side = true;
                } else {
                    *self.sweeps_from.entry(from).or_default() += 1;
                }
            }
            Body::Correction(CorrectionMsg::Stop) => self.heard_other_side = true,
            Body::Correction(CorrectionMsg::FailProof { known, .. }) if !corrects => {
                let (me, procs) = (self.rank, self.procs);
                self.c_node_heard.extend(
                    std::iter::once(&from)
                        .chain(known)
                        .filter(|&&r| r < procs && r != me),
                );
            }
            _ => {}
        }
    }

    /// Checks one call's outputs and the state after it.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn check<A: Inspect>(
        &mut self,
        step: usize,
        input: &Input,
        handler: Handler,
        before: Option<&A>,
        after: &A,
        actions: &[Action<Msg>],
        cov: &mut Coverage,
    ) -> Checked {
        let fail = |check: &'static str, detail: String| {
            Err(Violation {
                check,
                step,
                detail,
            })
        };
        if let Some(before) = before {
            if !matches!(actions, [Action::Ignored(_)]) || before != after {
                return fail(
                    "unexpected input not ignored",
                    format!("actions {actions:?}; state changed: {}", before != after),
                );
            }
            cov.ignored += 1;
            return Ok(());
        }
        let now = match input {
            Input::Start(t) | Input::Message(t, ..) | Input::Timer(t, _) | Input::Slot(t) => *t,
            Input::PendingTimer => unreachable!("resolved before the call"),
        };
        // Coloring: once, from uncolored, by the input that may color; the root's start and the
        // parent's tree message do color an uncolored process.
        let coloring = after.coloring();
        let colors = self.coloring == Coloring::Uncolored
            && match input {
                Input::Start(_) => self.rank == 0,
                Input::Message(_, _, m) => m.body == Body::Tree,
                _ => false,
            };
        if colors && coloring != Coloring::Tree {
            return fail(
                "the root's start and the parent's tree message color",
                format!("{coloring:?}"),
            );
        }
        if coloring != self.coloring {
            let legal = self.coloring == Coloring::Uncolored
                && match (coloring, input) {
                    (Coloring::Tree, Input::Start(_)) => self.rank == 0,
                    (Coloring::Tree, Input::Message(_, _, m)) => m.body == Body::Tree,
                    (Coloring::Correction, Input::Message(_, _, m)) => {
                        matches!(m.body, Body::Correction(_))
                    }
                    _ => false,
                };
            if !legal {
                return fail(
                    "coloring",
                    format!("{:?} -> {coloring:?} on {input:?}", self.coloring),
                );
            }
            if coloring == Coloring::Tree {
                self.acked = 0;
                if now >= self.config.correction_start {
                    self.start_allowed = true;
                }
            }
            self.coloring = coloring;
        }
        let mut sent = 0;
        for action in actions {
            match action {
                Action::Send { to, msg } => {
                    if handler != Handler::Slot {
                        return fail("send outside on_send_slot", format!("{action:?}"));
                    }
                    sent += 1;
                    if sent > 1 {
                        return fail("two sends in one send slot", format!("{actions:?}"));
                    }
                    if *to >= self.procs || *to == self.rank {
                        return fail("send to a rank outside 0..P or to itself", format!("{to}"));
                    }
                    self.check_payload(msg.value)
                        .or_else(|d| fail("one payload", d))?;
                    self.check_send(*to, msg, cov)
                        .or_else(|(check, d)| fail(check, d))?;
                }
                Action::Deliver(value) => {
                    self.deliveries += 1;
                    cov.deliveries += 1;
                    if self.deliveries > 1 {
                        return fail("deliver at most once", format!("{actions:?}"));
                    }
                    let root_start =
                        self.rank == 0 && self.started && *value == self.config.payload;
                    let received = self.values.contains(value);
                    let ok = match handler {
                        Handler::Start => root_start,
                        Handler::Message | Handler::Slot => received || root_start,
                        Handler::Timer => false,
                    };
                    if !ok {
                        return fail(
                            "deliver only a payload received (or the root's)",
                            format!("{value:#x} from {handler:?}"),
                        );
                    }
                    self.check_payload(*value)
                        .or_else(|d| fail("one payload", d))?;
                    if let Some(f) = self.faults() {
                        if coloring != Coloring::Tree {
                            let sos_done = self.procs > 1 && self.sos_sent == self.procs - 1;
                            if !sos_done && (self.c_node_heard.len() as u64) <= u64::from(f) {
                                return fail(
                                    "failure-proof c-node delivers after f + 1 correctors or SOS",
                                    format!("heard {:?}", self.c_node_heard),
                                );
                            }
                            if !sos_done {
                                cov.c_node_deliveries += 1;
                            }
                        }
                    }
                }
                Action::Complete(value) => {
                    self.completions += 1;
                    cov.completions += 1;
                    let done = self.acks_done();
                    if !self.config.acknowledgments()
                        || self.rank != 0
                        || self.completions > 1
                        || !done
                    {
                        return fail(
                            "complete once, at the root, after an ack per child",
                            format!("{} acks", self.acked),
                        );
                    }
                    self.check_payload(*value)
                        .or_else(|d| fail("one payload", d))?;
                }
                Action::SetTimer { id, at } => {
                    if *at < now {
                        return fail("timer set in the past", format!("{action:?} at {now}"));
                    }
                    self.pending = Some((*id, *at));
                }
                Action::CancelTimer { id } => {
                    if self.pending.is_some_and(|(p, _)| p == *id) {
                        self.pending = None;
                    }
                }
                Action::Ignored(reason) => {
                    cov.ignored += 1;
                    if reason.is_empty() {
                        return fail("ignored with a reason", String::new());
                    }
                }
            }
        }
        // Delivered iff colored, except a failure-proof c-node, which holds the payload first.
        let delivered = self.deliveries > 0;
        let colored = coloring != Coloring::Uncolored;
        let holds = self.faults().is_some() && coloring == Coloring::Correction;
        if delivered && !colored || colored && !delivered && !holds {
            return fail(
                "delivered iff colored",
                format!("delivered {delivered}, {coloring:?}"),
            );
        }
        if self.procs > 1 && self.sos_sent == self.procs - 1 && !delivered {
            return fail("SOS to everyone, then deliver", String::new());
        }
        self.check_size(after)
            .or_else(|d| fail("state stays bounded", d))
    }

    fn check_payload(&mut self, value: Value) -> Result<(), String> {
        match self.held {
            None => {
                self.held = Some(value);
                Ok(())
            }
            Some(held) if held == value => Ok(()),
            Some(held) => Err(format!("{value:#x} after {held:#x}")),
        }
    }

    /// The `k`-th child in send order.
    pub(super) fn child(&self, k: u32) -> Option<Rank> {
        self.near.child(&self.config.tree, self.rank, k as usize)
    }

    fn tree_done(&self) -> bool {
        self.child(self.tree_sends).is_none()
    }

    fn acks_done(&self) -> bool {
        self.tree_done()
            && self
                .near
                .fan_out()
                .is_some_and(|n| self.acked as usize >= n)
    }

    /// The rules of one send (docs/reference/corrected-tree.md, "Send order at a free port").
    fn check_send(
        &mut self,
        to: Rank,
        msg: &Msg,
        cov: &mut Coverage,
    ) -> Result<(), (&'static str, String)> {
        let kind = self.config.correction;
        let sync = self.config.start == StartMode::Synchronized;
        let corrector = self.coloring == Coloring::Tree;
        let tree_done = self.tree_done();
        match &msg.body {
            Body::Tree => {
                cov.tree_sends += 1;
                let child = self.child(self.tree_sends);
                self.tree_sends += 1;
                let may = corrector || self.coloring == Coloring::Correction && !sync;
                if !may || self.later_sends || child != Some(to) {
                    return Err((
                        "tree sends: the children in send order, first, once",
                        format!("to {to}, expected {child:?}, {:?}", self.coloring),
                    ));
                }
            }
            Body::Ack => {
                cov.ack_sends += 1;
                let ok = self.config.acknowledgments()
                    && corrector
                    && !self.ack_sent
                    && self.parent == Some(to)
                    && self.acks_done();
                self.ack_sent = true;
                self.later_sends = true;
                if !ok {
                    return Err((
                        "ack the parent once, after the tree sends and an ack per child",
                        format!("{} acks", self.acked),
                    ));
                }
            }
            Body::Gossip { .. } => return Err(("no gossip in a tree broadcast", String::new())),
            Body::Correction(c) => {
                self.later_sends = true;
                return self.check_correction(to, c, corrector, tree_done, sync, kind, cov);
            }
        }
        Ok(())
    }

    /// State size: only failure-proof's lists (at most `f + 1` each) and delayed's pending
    /// replies (one per distinct sweeping peer) may grow; everything else is fixed-size.
    /// Collections are measured by the commas of the state's `Debug`, which only they change.
    fn check_size<A: Inspect>(&mut self, after: &A) -> Result<(), String> {
        let allowed = match self.config.correction {
            CorrectionSpec::FailProof { faults, .. } => {
                3 * (u64::from(faults) + 1).min(u64::from(self.procs))
            }
            CorrectionSpec::Delayed { .. } => self.sweeps_from.len() as u64,
            _ => 0,
        };
        let grown = commas(after, &mut self.scratch).saturating_sub(self.base_commas);
        if grown as u64 > allowed {
            return Err(format!(
                "{grown} more list entries than fresh, {allowed} allowed"
            ));
        }
        Ok(())
    }
}
