//! Mutants: deliberately broken wrappers around the real automata, one per property, proving
//! each property can fail (DESIGN §6). They live here, not in `ftcoll`, and change only what
//! their name says.

use ftcoll::automaton::{Action, Automaton, Outbox, TimerId};
use ftcoll::protocols::corrected_tree::{CorrectedTreeConfig, CorrectedTreeNode};
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
        for action in inner_out.drain() {
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
    }
}
