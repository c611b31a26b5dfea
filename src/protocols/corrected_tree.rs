//! Corrected Tree broadcast (CT §3) and its tree baselines (CT §4.1).
//!
//! ```text
//! root: deliver; send to children in send order                      (CT §3.2)
//! on tree message: deliver; send to children in send order
//! correction (CT §3.3):
//!   synchronized — every process colored by the tree starts correcting at the tree's
//!                  fault-free deadline (or when its tree sends end, if later);
//!   overlapped   — it starts right after its own tree sends.
//! on correction message while uncolored: deliver (colored by correction); never correct;
//!   overlapped only: still send to the tree children (an "early" correction, CT §3.3).
//! acknowledgments (baseline): after its tree sends and an ack from every child, ack the parent;
//!   the root completes when every child acked (CT §4.1).
//! ```
//!
//! Who corrects: exactly the processes whose first message was a tree message (plus the root).

use crate::automaton::{Automaton, Outbox, TimerId, Value};
use crate::topology::{longest_circular_run, LogP, Tree};
use crate::{Rank, Time};

use super::correction::{wrap, Corrector, Receipt, Rule};
pub use super::correction::{CorrectionSpec, CORRECTION_SPELLINGS};
use super::message::{Body, Msg};
use super::ring::{Ring, Side};

/// `g_max` after dissemination as a run measured it (CT Lemma 3): the longest ring run of
/// processes whose first delivery was not caused by a dissemination message, crashed ones
/// included. It is [`crate::topology::Reach::gmax`]'s definition, but measured: a process that
/// correction colored before the tree's message arrived counts as not colored by dissemination.
/// `by_dissemination(r)` says whether process `r`'s first delivery came from a dissemination
/// message (the root's counts); a driver's report says it (`ftcoll_sim::Report::by_dissemination`).
pub fn gmax_after_dissemination(procs: u32, by_dissemination: impl Fn(Rank) -> bool) -> u64 {
    longest_circular_run(procs as usize, |r| !by_dissemination(r as Rank))
}

/// Timer: the synchronized correction start.
pub const CORRECTION_START: TimerId = TimerId(1);

/// When correcting processes start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum StartMode {
    /// At the tree's fault-free deadline, all together (CT §3.3, CG's fixed instant).
    Synchronized,
    /// Right after the process's own tree sends (CT §3.3).
    Overlapped,
}

/// Parameters shared by every process of one Corrected Tree broadcast.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct CorrectedTreeConfig {
    /// The dissemination tree.
    pub tree: Tree,
    /// The variant: the correction ([`CorrectionSpec::None`] for the plain tree) or the tree
    /// with acknowledgments ([`CorrectionSpec::Ack`]).
    pub correction: CorrectionSpec,
    /// Synchronized or overlapped correction.
    pub start: StartMode,
    /// The first side of every correction sweep (CT: left).
    pub first_side: Side,
    /// The root's payload.
    pub payload: Value,
    /// Synchronized start time: the tree's fault-free deadline.
    pub correction_start: Time,
}

/// CT Lemma 2's fault-free duration of synchronized checked correction, as printed:
/// `L_FF = 4o + L + ⌊L/o⌋·o` (the paper's claim, which `ftcoll-verify` and `reproduce ct`
/// compare simulated runs with).
pub fn lemma2_latency(logp: LogP) -> Time {
    let (l, o) = (logp.latency(), logp.overhead().max(1));
    4 * o + l + (l / o) * o
}

/// CT Corollary 1's fault-free correction messages per process of synchronized checked
/// correction, as printed: `3 + ⌊L/o⌋`.
pub fn corollary1_messages(logp: LogP) -> u64 {
    let (l, o) = (logp.latency(), logp.overhead().max(1));
    3 + l / o
}

impl CorrectedTreeConfig {
    /// Whether this is the tree with acknowledgments ([`CorrectionSpec::Ack`], CT §4.1).
    pub fn acknowledgments(&self) -> bool {
        self.correction == CorrectionSpec::Ack
    }

    /// The SOS timeout a failure-proof c-node waits for `f + 1` correctors: the explicit one,
    /// else `4·P·o + 2(2o + L)` of this tree; `None` for every other variant.
    pub fn sos_timeout(&self) -> Option<Time> {
        match self.rule() {
            Rule::FailProof { sos_timeout, .. } => Some(sos_timeout),
            _ => None,
        }
    }

    /// Whether a process reads the clock beyond setting timers: under synchronized correction
    /// a process the tree colors compares `now` with the correction's start instant (the plain
    /// and acknowledged trees correct nothing and never look). A checker that gives each
    /// process a clock of its own cannot check such a protocol against one clock
    /// (`ftcoll-verify`'s `dpor`).
    pub fn reads_clock(&self) -> bool {
        self.start == StartMode::Synchronized && self.rule() != Rule::None
    }

    /// The rule the correctors run.
    pub(crate) fn rule(&self) -> Rule {
        self.correction.rule(self.tree.procs(), self.tree.logp())
    }

    /// A configuration whose synchronized correction starts at `tree.deadline()`.
    pub fn new(tree: Tree, correction: CorrectionSpec, start: StartMode) -> Self {
        let correction_start = tree.deadline();
        Self {
            tree,
            correction,
            start,
            first_side: Side::Left,
            payload: 0x00f7_c011,
            correction_start,
        }
    }
}

/// How a process got the payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Coloring {
    /// Not yet.
    Uncolored,
    /// By the tree (or it is the root): it corrects.
    Tree,
    /// By a correction message first: it does not correct.
    Correction,
}

/// One process of a Corrected Tree broadcast.
///
/// Kept small (48 B) because the driver holds one per process: the rank is the
/// corrector's (`P` is the configuration's, not repeated per process), the payload is held
/// exactly when the process is colored, "not forwarding" is a sentinel child index, the
/// yes/no state is one byte of flags, and the tree with acknowledgments counts missing
/// acknowledgments in its corrector, which has nothing else to hold
/// ([`Correction::None`](super::correction::CorrectorState::None)).
#[derive(Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CorrectedTreeNode {
    /// The payload, once colored (0 and meaningless while [`Coloring::Uncolored`]).
    value: Value,
    /// Index of the next tree child to send to; [`NOT_FORWARDING`] when not forwarding (yet or
    /// any more).
    next_child: u32,
    coloring: Coloring,
    /// [`ARRIVED`], [`DELIVERED`], [`START_REACHED`], [`ACK_SENT`].
    flags: u8,
    corrector: Corrector,
}

/// A copy into an existing node reuses its corrector's allocations (the failure-proof and
/// delayed states' boxes and lists; [`Corrector`]'s `clone_from`).
impl Clone for CorrectedTreeNode {
    fn clone(&self) -> Self {
        Self {
            value: self.value,
            next_child: self.next_child,
            coloring: self.coloring,
            flags: self.flags,
            corrector: self.corrector.clone(),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        let Self {
            value,
            next_child,
            coloring,
            flags,
            corrector,
        } = self;
        *value = source.value;
        *next_child = source.next_child;
        *coloring = source.coloring;
        *flags = source.flags;
        corrector.clone_from(&source.corrector);
    }
}

/// [`CorrectedTreeNode::next_child`] when not forwarding (a child index is below `P`).
const NOT_FORWARDING: u32 = u32::MAX;
/// Flag: `on_start` ran.
const ARRIVED: u8 = 1;
/// Flag: delivered.
const DELIVERED: u8 = 2;
/// Flag: the synchronized start instant has passed.
const START_REACHED: u8 = 4;
/// Flag: acknowledgments: our own ack is sent (or, at the root, the completion).
const ACK_SENT: u8 = 8;

impl CorrectedTreeNode {
    /// How this process got the payload.
    pub fn coloring(&self) -> Coloring {
        self.coloring
    }

    /// Whether it delivered.
    pub fn delivered(&self) -> bool {
        self.flag(DELIVERED)
    }

    fn flag(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }

    fn set(&mut self, flag: u8) {
        self.flags |= flag;
    }

    fn rank(&self) -> Rank {
        self.corrector.rank()
    }

    /// The payload, once colored.
    fn payload(&self) -> Option<Value> {
        (self.coloring != Coloring::Uncolored).then_some(self.value)
    }

    /// The correction state.
    pub fn corrector(&self) -> &Corrector {
        &self.corrector
    }

    /// Its correction state, mutably: for `ftcoll-verify`'s mutants only (feature `mutation`).
    #[cfg(feature = "mutation")]
    #[doc(hidden)]
    pub fn corrector_mut(&mut self) -> &mut Corrector {
        &mut self.corrector
    }

    fn deliver(&mut self, value: Value, out: &mut Outbox<Msg>) {
        if !self.flag(DELIVERED) {
            self.set(DELIVERED);
            out.deliver(value);
        }
    }

    /// Colored by the tree (or the root): forward, then correct.
    fn color_by_tree(
        &mut self,
        config: &CorrectedTreeConfig,
        now: Time,
        value: Value,
        out: &mut Outbox<Msg>,
    ) {
        self.coloring = Coloring::Tree;
        self.value = value;
        self.deliver(value, out);
        self.next_child = 0;
        if config.acknowledgments() {
            let children = config.tree.children(self.rank()).count() as u32;
            self.corrector.set_acks_missing(children);
        }
        if config.reads_clock() {
            if now >= config.correction_start {
                self.set(START_REACHED);
            } else {
                out.set_timer(CORRECTION_START, config.correction_start);
            }
        }
    }

    fn tree_sends_done(&self) -> bool {
        self.next_child == NOT_FORWARDING
    }

    /// With acknowledgments: every child acknowledged and ours is not sent (the root completes
    /// instead). Read by the poll and by the idle question alike.
    fn ack_due(&self, config: &CorrectedTreeConfig) -> bool {
        config.acknowledgments()
            && self.coloring == Coloring::Tree
            && !self.flag(ACK_SENT)
            && self.corrector.acks_missing() == 0
    }

    /// A corrector whose tree sends are over begins correcting at this poll: overlapped at
    /// once, synchronized once its start timer fired (the start instant is reached). (Without a correction `begin` changes
    /// nothing, so it is not counted as beginning: the idle question relies on it.)
    fn correction_begins(&self, config: &CorrectedTreeConfig) -> bool {
        self.coloring == Coloring::Tree
            && self.tree_sends_done()
            && !self.corrector.has_begun()
            && !matches!(
                self.corrector.state(),
                super::correction::CorrectorState::None { .. }
            )
            && match config.start {
                StartMode::Synchronized => self.flag(START_REACHED),
                StartMode::Overlapped => true,
            }
    }
}

impl Automaton for CorrectedTreeNode {
    type Msg = Msg;
    type Value = Value;
    type Config = CorrectedTreeConfig;

    fn procs(config: &CorrectedTreeConfig) -> Option<u32> {
        Some(config.tree.procs())
    }

    fn new(config: &Self::Config, rank: Rank) -> Self {
        let ring = Ring {
            me: rank,
            procs: config.tree.procs(),
        };
        Self {
            value: 0,
            next_child: NOT_FORWARDING,
            coloring: Coloring::Uncolored,
            flags: 0,
            corrector: Corrector::new(config.rule(), ring, config.first_side),
        }
    }

    fn on_start(&mut self, config: &Self::Config, now: Time, out: &mut Outbox<Msg>) {
        if self.flag(ARRIVED) {
            out.ignore("started twice");
            return;
        }
        self.set(ARRIVED);
        if self.rank() == 0 {
            self.color_by_tree(config, now, config.payload, out);
        }
    }

    fn on_message(
        &mut self,
        config: &Self::Config,
        now: Time,
        from: Rank,
        msg: Msg,
        out: &mut Outbox<Msg>,
    ) {
        if from >= config.tree.procs() {
            out.ignore("sender is not a rank of this operation");
            return;
        }
        let rank = self.rank();
        if from == rank {
            // No process sends to itself (DESIGN §2), so this is no peer's message.
            out.ignore("message from the process itself");
            return;
        }
        if rank == 0 && !self.flag(ARRIVED) {
            // Nobody holds the payload before the root starts the operation.
            out.ignore("message to the root before it started");
            return;
        }
        match msg.body {
            Body::Tree => {
                if config.tree.parent(rank) != Some(from) {
                    out.ignore("tree message from a rank that is not the parent");
                } else if self.coloring != Coloring::Uncolored {
                    out.ignore("duplicate: already colored");
                } else {
                    self.color_by_tree(config, now, msg.value, out);
                }
            }
            Body::Ack => {
                let is_child = config.tree.parent(from) == Some(rank);
                let missing = self.corrector.acks_missing();
                if !config.acknowledgments() || !is_child || missing == 0 {
                    out.ignore("unexpected acknowledgment");
                } else {
                    self.corrector.set_acks_missing(missing - 1);
                }
            }
            Body::Correction(c) => {
                let corrects = self.coloring == Coloring::Tree;
                let receipt = self.corrector.receive(
                    config.tree.procs(),
                    config.rule(),
                    now,
                    from,
                    &c,
                    corrects,
                    out,
                );
                if self.coloring == Coloring::Uncolored {
                    self.coloring = Coloring::Correction;
                    self.value = msg.value;
                    if receipt == Receipt::Deliver {
                        self.deliver(msg.value, out);
                    }
                    if config.start == StartMode::Overlapped {
                        self.next_child = 0;
                    }
                } else {
                    out.ignore("correction message: already colored");
                }
                if self.corrector.take_delivery() {
                    // The payload it holds (and forwards in SOS), not this message's.
                    self.deliver(self.payload().unwrap_or(msg.value), out);
                }
            }
            Body::Gossip { .. } => out.ignore("gossip message in a tree broadcast"),
        }
    }

    fn on_timer(
        &mut self,
        _config: &Self::Config,
        _now: Time,
        id: TimerId,
        _out: &mut Outbox<Msg>,
    ) {
        if id == CORRECTION_START {
            self.set(START_REACHED);
        } else {
            self.corrector.on_timer(id);
        }
    }

    /// Done once it delivered, sent to every tree child, acknowledged (with acknowledgments),
    /// and — as a corrector — finished correcting (its sweep has nothing left to send, whatever it still receives; never for delayed
    /// and failure-proof correction, whose correctors answer later messages). A process colored by
    /// correction is done after its deliveries and, overlapped, its tree sends, except under
    /// failure-proof correction (SOS may still follow).
    fn is_done(&self, config: &Self::Config) -> bool {
        if !self.flag(DELIVERED) {
            return false;
        }
        let tree_pending = self.next_child != NOT_FORWARDING
            && config
                .tree
                .children(self.rank())
                .nth(self.next_child as usize)
                .is_some();
        let ack_pending =
            config.acknowledgments() && self.coloring == Coloring::Tree && !self.flag(ACK_SENT);
        if tree_pending || ack_pending {
            return false;
        }
        match self.coloring {
            Coloring::Uncolored => false,
            Coloring::Tree => {
                config.rule() == Rule::None
                    || self
                        .corrector
                        .is_finished(config.tree.procs(), config.rule())
            }
            Coloring::Correction => !matches!(config.rule(), Rule::FailProof { .. }),
        }
    }

    /// [`Self::on_send_slot`] step by step, each step that would send, emit or change the state
    /// answering `false` (half the polls of a Corrected Tree run were such idle ones,
    /// each an event of the driver). `at` is not read: only delayed correction's first send reads
    /// the time, and that poll is not idle.
    fn send_slot_is_idle(&self, config: &Self::Config, _at: Time) -> bool {
        if self.coloring == Coloring::Uncolored {
            return true;
        }
        // 1. A tree send, or noting that they are over.
        if self.next_child != NOT_FORWARDING {
            return false;
        }
        // 2. The acknowledgment (or the root's completion); 3. beginning the correction.
        !self.ack_due(config)
            && !self.correction_begins(config)
            && self
                .corrector
                .poll_is_idle(config.tree.procs(), config.rule())
    }

    fn on_send_slot(&mut self, config: &Self::Config, now: Time, out: &mut Outbox<Msg>) {
        let Some(value) = self.payload() else { return };
        let rank = self.rank();
        // 1. Tree sends, in send order.
        if self.next_child != NOT_FORWARDING {
            let index = self.next_child;
            match config.tree.children(rank).nth(index as usize) {
                Some(child) => {
                    self.next_child = index + 1;
                    out.send(
                        child,
                        Msg {
                            value,
                            body: Body::Tree,
                        },
                    );
                    return;
                }
                None => self.next_child = NOT_FORWARDING,
            }
        }
        // 2. The acknowledgment to the parent (root: completion).
        if self.ack_due(config) {
            self.set(ACK_SENT);
            match config.tree.parent(rank) {
                Some(parent) => {
                    out.send(
                        parent,
                        Msg {
                            value,
                            body: Body::Ack,
                        },
                    );
                    return;
                }
                None => out.complete(value),
            }
        }
        // 3. Correction.
        if self.correction_begins(config) {
            self.corrector.begin();
        }
        if let Some((to, msg)) =
            self.corrector
                .poll_send(config.tree.procs(), config.rule(), now, out)
        {
            out.send(to, wrap(value, msg));
        }
        if self.corrector.take_delivery() {
            self.deliver(value, out);
        }
    }
}

impl core::fmt::Display for StartMode {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::Synchronized => "sync",
            Self::Overlapped => "overlap",
        })
    }
}
