//! Mutants: deliberately broken wrappers around the real automata, one per property, proving
//! each property can fail (DESIGN §6). They live here, not in `ftcoll`, and change only what
//! their name says.

use ftcoll::automaton::{Action, Automaton, Contributions, Outbox, Reduction, TimerId};
use ftcoll::protocols::corrected_tree::{CorrectedTreeConfig, CorrectedTreeNode};
use ftcoll::protocols::ftco::{FtcoConfig, FtcoMsg, FtcoNode};
use ftcoll::protocols::{Body, CorrectionMsg, Msg, Ring, Side};
use ftcoll::{Rank, Time};

/// Which bug a [`Mutant`] has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Bug {
    /// Integrity: a relay flips a bit of the payload when it forwards a tree message.
    CorruptsRelayedPayload,
    /// No duplicates: a process delivers again on every message it receives after coloring.
    DeliversEveryCopy,
    /// Liveness: a corrector mistakes the side a correction message comes from (it records the
    /// message as coming from both sides), so checked correction stops a side it never covered.
    ConfusesDirections,
    /// Termination: a process answers every correction message with one back, forever.
    EchoesCorrection,
    /// Send bound (CG Alg. 1): the root sends one correction message more once its sweeps are
    /// done.
    SendsOneCorrectionTooMany,
    /// C-nodes stay silent (CG §III.B–C): a process colored by correction forwards it once to
    /// its right neighbour.
    CNodeForwards,
}

/// A Corrected Tree process with one [`Bug`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Mutant {
    inner: CorrectedTreeNode,
    rank: Rank,
    procs: u32,
    bug: Bug,
    /// Echo replies owed.
    echoes: Vec<Rank>,
    /// The extra correction message of [`Bug::SendsOneCorrectionTooMany`] or
    /// [`Bug::CNodeForwards`] is owed (`Some(false)`) or sent (`Some(true)`).
    extra: Option<bool>,
}

/// The configuration of a mutant run: the real configuration and the bug.
#[derive(Clone, Debug)]
pub struct MutantConfig {
    /// The real protocol configuration.
    pub inner: CorrectedTreeConfig,
    /// The injected bug.
    pub bug: Bug,
}

impl Automaton for Mutant {
    type Msg = Msg;
    type Value = u64;
    type Config = MutantConfig;

    fn new(config: &MutantConfig, rank: Rank) -> Self {
        Self {
            inner: CorrectedTreeNode::new(&config.inner, rank),
            rank,
            procs: config.inner.tree.procs(),
            bug: config.bug,
            echoes: Vec::new(),
            extra: None,
        }
    }

    fn on_start(&mut self, config: &MutantConfig, now: Time, out: &mut Outbox<Msg>) {
        self.inner.on_start(&config.inner, now, out);
    }

    fn on_message(
        &mut self,
        config: &MutantConfig,
        now: Time,
        from: Rank,
        msg: Msg,
        out: &mut Outbox<Msg>,
    ) {
        let colored = self.inner.delivered();
        if self.bug == Bug::ConfusesDirections {
            if let Body::Correction(CorrectionMsg::Ring { toward }) = msg.body {
                // Also believe a corrector at the same distance on the other side.
                let ring = Ring {
                    me: self.rank,
                    procs: self.procs,
                };
                let distance = ring.distance(toward.other(), from);
                let mirror = ring.neighbor(toward, distance);
                let fake = Msg {
                    value: msg.value,
                    body: Body::Correction(CorrectionMsg::Ring {
                        toward: toward.other(),
                    }),
                };
                self.inner
                    .on_message(&config.inner, now, mirror, fake, &mut Outbox::new());
            }
        }
        if self.bug == Bug::EchoesCorrection && matches!(msg.body, Body::Correction(_)) {
            self.echoes.push(from);
        }
        if self.bug == Bug::CNodeForwards
            && !colored
            && matches!(msg.body, Body::Correction(_))
            && self.extra.is_none()
        {
            self.extra = Some(false);
        }
        let value = msg.value;
        self.inner.on_message(&config.inner, now, from, msg, out);
        if self.bug == Bug::DeliversEveryCopy && colored {
            out.deliver(value);
        }
    }

    fn on_timer(&mut self, config: &MutantConfig, now: Time, id: TimerId, out: &mut Outbox<Msg>) {
        self.inner.on_timer(&config.inner, now, id, out);
    }

    fn on_send_slot(&mut self, config: &MutantConfig, now: Time, out: &mut Outbox<Msg>) {
        if !self.echoes.is_empty() {
            let to = self.echoes.remove(0);
            let msg = Msg {
                value: config.inner.payload,
                body: Body::Correction(CorrectionMsg::Ring { toward: Side::Left }),
            };
            out.send(to, msg);
            return;
        }
        let mut inner_out = Outbox::new();
        self.inner.on_send_slot(&config.inner, now, &mut inner_out);
        let mut sent = false;
        for action in inner_out.drain() {
            if matches!(action, Action::Send { .. }) {
                sent = true;
            }
            match action {
                Action::Send { to, mut msg }
                    if self.bug == Bug::CorruptsRelayedPayload
                        && self.rank != 0
                        && msg.body == Body::Tree =>
                {
                    msg.value ^= 1;
                    out.send(to, msg);
                }
                Action::Send { to, msg } => out.send(to, msg),
                Action::SetTimer { id, at } => out.set_timer(id, at),
                Action::CancelTimer { id } => out.cancel_timer(id),
                Action::Deliver(v) => out.deliver(v),
                Action::Complete(v) => out.complete(v),
                Action::Ignored(r) => out.ignore(r),
            }
        }
        if self.bug == Bug::SendsOneCorrectionTooMany
            && self.rank == 0
            && self.extra.is_none()
            && self.inner.delivered()
            && now >= config.inner.correction_start
        {
            self.extra = Some(false);
        }
        // An empty slot after the correction start: the root's sweeps are over (opportunistic
        // correction sends at every slot until it is done).
        if !sent && self.extra == Some(false) {
            self.extra = Some(true);
            let msg = Msg {
                value: config.inner.payload,
                body: Body::Correction(CorrectionMsg::Ring { toward: Side::Left }),
            };
            out.send((self.rank + 1) % self.procs, msg);
        }
    }
}

impl crate::corrected_tree::CorrectionView for Mutant {
    fn correction(config: &MutantConfig) -> ftcoll::protocols::correction::CorrectionKind {
        config.inner.correction
    }
}

/// Which bug an [`FtcoMutant`] has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FtcoBug {
    /// Consistency: a non-root process adds its own operand once more to every partial it
    /// sends up (a value added twice, FTCO §4).
    AddsItsOperandTwice,
    /// Termination: a process answers every ACK with a KEEPALIVE, so every ACK is answered by
    /// another ACK, forever.
    AnswersAcksWithKeepalives,
}

/// An FTCO process (with [`Contributions`] operands) with one [`FtcoBug`]. The third mutant of
/// the FTCO family needs no wrapper: a `TimeoutRule` one step too short is a configuration
/// (`verify/tests/ftco.rs`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FtcoMutant {
    inner: FtcoNode<Contributions>,
    rank: Rank,
    bug: FtcoBug,
    /// KEEPALIVEs owed to the senders of ACKs.
    owed: Vec<Rank>,
}

/// The configuration of an FTCO mutant run: the real configuration and the bug.
#[derive(Clone, Debug)]
pub struct FtcoMutantConfig {
    /// The real protocol configuration.
    pub inner: FtcoConfig<Contributions>,
    /// The injected bug.
    pub bug: FtcoBug,
}

type FtcoOut = Outbox<FtcoMsg<Vec<(Rank, u32)>>, Vec<(Rank, u32)>>;

impl Automaton for FtcoMutant {
    type Msg = FtcoMsg<Vec<(Rank, u32)>>;
    type Value = Vec<(Rank, u32)>;
    type Config = FtcoMutantConfig;

    fn new(config: &FtcoMutantConfig, rank: Rank) -> Self {
        Self {
            inner: FtcoNode::new(&config.inner, rank),
            rank,
            bug: config.bug,
            owed: Vec::new(),
        }
    }

    fn on_start(&mut self, config: &FtcoMutantConfig, now: Time, out: &mut FtcoOut) {
        self.inner.on_start(&config.inner, now, out);
    }

    fn on_message(
        &mut self,
        config: &FtcoMutantConfig,
        now: Time,
        from: Rank,
        msg: Self::Msg,
        out: &mut FtcoOut,
    ) {
        if self.bug == FtcoBug::AnswersAcksWithKeepalives && msg == FtcoMsg::Ack {
            self.owed.push(from);
        }
        self.inner.on_message(&config.inner, now, from, msg, out);
    }

    fn on_timer(&mut self, config: &FtcoMutantConfig, now: Time, id: TimerId, out: &mut FtcoOut) {
        self.inner.on_timer(&config.inner, now, id, out);
    }

    fn on_send_slot(&mut self, config: &FtcoMutantConfig, now: Time, out: &mut FtcoOut) {
        let mut inner_out = Outbox::new();
        self.inner.on_send_slot(&config.inner, now, &mut inner_out);
        let mut sent = false;
        for action in inner_out.drain() {
            match action {
                Action::Send {
                    to,
                    msg: FtcoMsg::Partial(v),
                } if self.bug == FtcoBug::AddsItsOperandTwice && self.rank != 0 => {
                    let twice = Contributions.combine(&v, &(config.inner.initial)(self.rank));
                    out.send(to, FtcoMsg::Partial(twice));
                    sent = true;
                }
                Action::Send { to, msg } => {
                    out.send(to, msg);
                    sent = true;
                }
                Action::SetTimer { id, at } => out.set_timer(id, at),
                Action::CancelTimer { id } => out.cancel_timer(id),
                Action::Deliver(v) => out.deliver(v),
                Action::Complete(v) => out.complete(v),
                Action::Ignored(r) => out.ignore(r),
            }
        }
        if !sent && !self.owed.is_empty() {
            let to = self.owed.remove(0);
            out.send(to, FtcoMsg::Keepalive);
        }
    }

    fn select_receive(
        &self,
        config: &FtcoMutantConfig,
        now: Time,
        queue: &[(Rank, Self::Msg)],
    ) -> Option<usize> {
        let chosen = self.inner.select_receive(&config.inner, now, queue);
        if chosen.is_none() && !self.owed.is_empty() {
            // The step goes to the send slot, where the owed KEEPALIVE is.
            return None;
        }
        chosen
    }
}

impl crate::ftco::FtcoProcess for FtcoMutant {
    fn collective(config: &FtcoMutantConfig) -> ftcoll::topology::ftco::Collective {
        config.inner.collective
    }

    fn suspected(&self) -> &[Rank] {
        self.inner.suspected()
    }
}
