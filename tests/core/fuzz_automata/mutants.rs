//! Mutants: deliberately broken wrappers of the real automaton that the same checks must
//! reject, so the checks are not vacuous.

use std::sync::atomic::{AtomicU64, Ordering};

use ftcoll::automaton::{Action, Automaton, Outbox, TimerId};
use ftcoll::protocols::corrected_tree::{Coloring, CorrectedTreeConfig, CorrectedTreeNode};
use ftcoll::protocols::{Body, CorrectionMsg, Msg, Ring};
use ftcoll::{Rank, Time};

use super::cases::{Family, FAMILIES};
use super::observer::{Coverage, Inspect};
use super::{fuzz, DEFAULT_SEED};

const SENDS_TWICE: u8 = 0;
const DELIVERS_TWICE: u8 = 1;
const SENDS_FROM_A_MESSAGE: u8 = 2;
const REMEMBERS_EVERY_SENDER: u8 = 3;
const SKIPS_EVERY_OTHER_SLOT_GLOBALLY: u8 = 4;
const SENDS_TO_ITSELF: u8 = 5;
const SWEEPS_BACK: u8 = 6;
const C_NODE_DELIVERS_AT_ONCE: u8 = 7;

/// The real automaton with one bug; `log` is state only [`REMEMBERS_EVERY_SENDER`] uses.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Mutant<const BUG: u8> {
    inner: CorrectedTreeNode,
    rank: Rank,
    log: Vec<Rank>,
}

/// Shared by every instance, so a clone and its original disagree.
static SLOTS: AtomicU64 = AtomicU64::new(0);

impl<const BUG: u8> Automaton for Mutant<BUG> {
    type Msg = Msg;
    type Value = u64;
    type Config = CorrectedTreeConfig;

    fn new(config: &CorrectedTreeConfig, rank: Rank) -> Self {
        Self {
            inner: CorrectedTreeNode::new(config, rank),
            rank,
            log: Vec::new(),
        }
    }

    fn on_start(&mut self, config: &CorrectedTreeConfig, now: Time, out: &mut Outbox<Msg>) {
        self.inner.on_start(config, now, out);
    }

    fn on_message(
        &mut self,
        config: &CorrectedTreeConfig,
        now: Time,
        from: Rank,
        msg: Msg,
        out: &mut Outbox<Msg>,
    ) {
        let (delivered, value) = (self.inner.delivered(), msg.value);
        self.inner.on_message(config, now, from, msg, out);
        match BUG {
            DELIVERS_TWICE if delivered => out.deliver(value),
            SENDS_FROM_A_MESSAGE => self.inner.on_send_slot(config, now, out),
            REMEMBERS_EVERY_SENDER => self.log.push(from),
            C_NODE_DELIVERS_AT_ONCE
                if !delivered && self.inner.coloring() == Coloring::Correction =>
            {
                out.deliver(value)
            }
            _ => {}
        }
    }

    fn on_timer(
        &mut self,
        config: &CorrectedTreeConfig,
        now: Time,
        id: TimerId,
        out: &mut Outbox<Msg>,
    ) {
        self.inner.on_timer(config, now, id, out);
    }

    fn on_send_slot(&mut self, config: &CorrectedTreeConfig, now: Time, out: &mut Outbox<Msg>) {
        if BUG == SKIPS_EVERY_OTHER_SLOT_GLOBALLY && SLOTS.fetch_add(1, Ordering::Relaxed) % 2 == 1
        {
            return;
        }
        let mut inner = Outbox::new();
        self.inner.on_send_slot(config, now, &mut inner);
        let sent = inner
            .actions()
            .iter()
            .any(|a| matches!(a, Action::Send { .. }));
        for action in inner.drain() {
            match action {
                Action::Send { msg, .. } if BUG == SENDS_TO_ITSELF => out.send(self.rank, msg),
                other => out.requeue(other),
            }
        }
        if BUG == SENDS_TWICE && sent {
            self.inner.on_send_slot(config, now, out);
        }
        if BUG == SWEEPS_BACK && !sent && self.inner.corrector().has_begun() {
            let side = config.first_side;
            let ring = Ring {
                me: self.rank,
                procs: config.tree.procs(),
            };
            let to = ring.neighbor(side, 1);
            if to != self.rank {
                let msg = Msg {
                    value: config.payload,
                    body: Body::Correction(CorrectionMsg::Ring { toward: side }),
                };
                out.send(to, msg);
            }
        }
    }
}

impl<const BUG: u8> Inspect for Mutant<BUG> {
    fn coloring(&self) -> Coloring {
        self.inner.coloring()
    }
}

/// Re-queues an action drained from another outbox.
trait Requeue {
    fn requeue(&mut self, action: Action<Msg>);
}

impl Requeue for Outbox<Msg> {
    fn requeue(&mut self, action: Action<Msg>) {
        match action {
            Action::Send { to, msg } => self.send(to, msg),
            Action::SetTimer { id, at } => self.set_timer(id, at),
            Action::CancelTimer { id } => self.cancel_timer(id),
            Action::Deliver(v) => self.deliver(v),
            Action::Complete(v) => self.complete(v),
            Action::Ignored(r) => self.ignore(r),
        }
    }
}

/// The check `check` rejects the mutant in every family of `families` within a few thousand
/// cases (other checks may reject it too, on other cases).
fn rejects<const BUG: u8>(families: &[Family], check: &str) {
    for &family in families {
        let mut cov = Coverage::default();
        let found =
            fuzz::<Mutant<BUG>>(family, DEFAULT_SEED, 20_000, &mut cov, |v| v.check == check);
        assert!(
            found.is_some(),
            "`{check}` never rejected mutant {BUG} in {family:?}"
        );
    }
}

#[test]
fn a_mutant_that_sends_twice_per_slot_is_rejected() {
    rejects::<SENDS_TWICE>(&FAMILIES, "two sends in one send slot");
}

#[test]
fn a_mutant_that_delivers_twice_is_rejected() {
    rejects::<DELIVERS_TWICE>(&FAMILIES, "deliver at most once");
}

#[test]
fn a_mutant_that_sends_from_on_message_is_rejected() {
    rejects::<SENDS_FROM_A_MESSAGE>(&FAMILIES, "send outside on_send_slot");
}

#[test]
fn a_mutant_whose_state_grows_with_every_message_is_rejected() {
    rejects::<REMEMBERS_EVERY_SENDER>(&FAMILIES, "state stays bounded");
}

#[test]
fn a_mutant_that_depends_on_global_state_is_rejected() {
    rejects::<SKIPS_EVERY_OTHER_SLOT_GLOBALLY>(
        &FAMILIES,
        "a clone fed the same inputs behaves the same",
    );
}

#[test]
fn a_mutant_that_sends_to_itself_is_rejected() {
    rejects::<SENDS_TO_ITSELF>(&FAMILIES, "send to a rank outside 0..P or to itself");
}

#[test]
fn a_mutant_that_sweeps_a_distance_again_is_rejected() {
    rejects::<SWEEPS_BACK>(
        &[Family::Opportunistic, Family::Optimized, Family::Checked],
        "sweep: strictly farther on each side",
    );
}

#[test]
fn a_failure_proof_c_node_that_delivers_at_once_is_rejected() {
    rejects::<C_NODE_DELIVERS_AT_ONCE>(
        &[Family::FailProof],
        "failure-proof c-node delivers after f + 1 correctors or SOS",
    );
}
