//! Ring correction (CT §3.1, §3.3; CG §III.B–D, Alg. 1–3), shared by every dissemination.
//!
//! A *correcting* process (CG's g-node: one colored by dissemination) sends along the ring,
//! alternating sides, starting with the configured first side (CT: left, CG: right). When one
//! side is finished it sends to the other side at every slot (this is what makes CT Lemma 2 and
//! Corollary 1 exact). A process stops for good once its sends over both sides together reached
//! all `P - 1` other ranks. Processes colored by correction do not correct (CG's c-nodes).
//!
//! | variant | rule |
//! |---|---|
//! | opportunistic(d) | `d` messages on each side (CG Alg. 1, CT §3.1) |
//! | optimized(d) | opportunistic, but a message from a corrector `j` at distance `δ < d` on one side means `j` covers that whole side and the first `d − δ` ranks of the other (CT §3.3) |
//! | checked | stop a side once a message came from that side from a rank at distance `m` and this process already sent to distance `m` there (CG Alg. 2, CT §3.1) |
//! | delayed(δ) | one message to the first side, then wait `δ`; without a message from the other side by then, sweep it until one arrives; a corrector hearing from its first-side... see [`Delayed`] (CT §3.3) |
//! | failure-proof(f) | CG Alg. 3 with the SOS fallback, see [`FailProof`] |

use alloc::boxed::Box;
use thin_vec::ThinVec;

use super::message::{Body, CorrectionMsg, Msg};
use super::ring::{Ring, Side};
use crate::automaton::{Outbox, TimerId, Value};
use crate::{Rank, Time};

mod fail_proof;
mod spec;
#[cfg(test)]
mod tests;

pub use fail_proof::FailProof;
use fail_proof::RankList;
pub use spec::{CorrectionSpec, CORRECTION_SPELLINGS};

/// Timer of delayed correction: the end of the delay.
pub const DELAY_TIMER: TimerId = TimerId(10);
/// Timer of failure-proof correction: a c-node's SOS timeout.
pub const SOS_TIMER: TimerId = TimerId(11);

/// The failure-proof default SOS timeout `4·P·o + 2(2o + L)`: long enough for a corrector to
/// sweep the ring twice (CT's `failproof:F`, CG's FCG).
pub(crate) fn default_sos_timeout(procs: u32, logp: crate::topology::LogP) -> Time {
    4 * u64::from(procs) * logp.overhead() + 2 * logp.hop()
}

/// The resolved rule a corrector runs: the crate-internal form of a
/// [`CorrectionSpec`] (the one public spelling of a
/// correction variant), with the failure-proof timeout resolved and the acknowledged tree mapped
/// to no correction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Rule {
    /// No correction (plain tree or gossip).
    None,
    /// Opportunistic correction with distance `d` (CT §3.1, CG Alg. 1).
    Opportunistic {
        /// Messages per side.
        distance: u32,
    },
    /// Optimized opportunistic correction (CT §3.3).
    Optimized {
        /// Messages per side at most.
        distance: u32,
    },
    /// Checked correction (CT §3.1, CG Alg. 2).
    Checked,
    /// Delayed correction (CT §3.3).
    Delayed {
        /// Time from the first correction send until the other side is expected to have spoken.
        delay: Time,
    },
    /// Failure-proof correction tolerating `faults` crashes during correction (CG §III.D, Alg. 3).
    FailProof {
        /// `f`.
        faults: u32,
        /// How long a c-node waits for `f + 1` correctors before SOS.
        sos_timeout: Time,
        /// Line 28: SOS when a sweep comes back to its sender (see `CorrectionSpec::FailProof`).
        sos_on_full_loop: bool,
    },
}

/// Alternating sends along the ring.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Sweep {
    next: Side,
    /// Farthest distance sent to on each side.
    reached: [u32; 2],
}

impl Sweep {
    fn new(first: Side) -> Self {
        Self {
            next: first,
            reached: [0, 0],
        }
    }

    /// Picks the side to send on (see [`alternate`]).
    fn pick(
        &mut self,
        ring: &Ring,
        next_distance: impl FnMut(Side, u32) -> Option<u32>,
    ) -> Option<(Side, u32)> {
        let (side, distance) = alternate(
            [self.next, self.next.other()],
            Side::index,
            &mut self.reached,
            ring.others(),
            next_distance,
        )?;
        self.next = side.other();
        Some((side, distance))
    }
}

/// The choice every sweep makes at a free send slot: `sides[0]` (the alternating side) if
/// `next_distance(side, reached)` allows it, else `sides[1]`; a distance that would cover ranks
/// already covered from the other side (more than `others` over both sides) is refused.
/// `index` maps a side to its slot in `reached`. Public for the lab's exact fast path, which
/// must choose exactly as the automaton does.
pub fn alternate<S: Copy>(
    sides: [S; 2],
    index: impl Fn(S) -> usize,
    reached: &mut [u32; 2],
    others: u32,
    mut next_distance: impl FnMut(S, u32) -> Option<u32>,
) -> Option<(S, u32)> {
    for side in sides {
        let i = index(side);
        let Some(distance) = next_distance(side, reached[i]) else {
            continue;
        };
        if u64::from(distance) + u64::from(reached[i ^ 1]) > u64::from(others) {
            continue;
        }
        reached[i] = distance;
        return Some((side, distance));
    }
    None
}

/// Checked correction's next distance on a side (CT §3.1, CG Alg. 2): one past the farthest
/// reached, unless the nearest corrector heard from on that side is already reached.
pub fn checked_next(reached: u32, nearest: Option<u32>) -> Option<u32> {
    match nearest {
        Some(m) if reached >= m => None,
        _ => Some(reached + 1),
    }
}

/// [`Checked`]'s nearest distance on a side before any corrector was heard from there (distances
/// are below `P ≤ u32::MAX`).
const NOT_HEARD: u32 = u32::MAX;

/// Opportunistic(d) state: only the sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Opportunistic {
    sweep: Sweep,
}

/// Optimized opportunistic(d) state (CT §3.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Optimized {
    sweep: Sweep,
    /// Distances up to this value on a side are covered by a nearby corrector.
    covered: [u32; 2],
}

/// Checked correction state (CT §3.1, CG Alg. 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Checked {
    sweep: Sweep,
    /// Distance of the nearest corrector heard from on each side ([`NOT_HEARD`] before any: a
    /// sentinel instead of `Option`, 8 bytes less per process).
    nearest: [u32; 2],
}

/// Delayed correction state (CT §3.3).
///
/// A corrector sends one message to its first side (left in CT) and waits `delay` from the start
/// of that send. If by then no correction message came from the other side, it sweeps the other
/// side, one rank per slot, until a message from that side arrives (or it reached everyone). A
/// corrector that receives a message travelling toward the other side — i.e. from a sweeping
/// neighbour — replies `Stop` right away. Fault-free, every corrector sends exactly one message.
#[derive(Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Delayed {
    sweep: Sweep,
    first: Side,
    first_sent: bool,
    delay_over: bool,
    heard_from_other_side: bool,
    /// Sweepers waiting for a `Stop` reply, oldest first: one pointer, no allocation while
    /// empty (most correctors never reply), so the state fits inline in [`CorrectorState`].
    /// Equal, hashed and encoded as the inline list it replaces.
    replies: ThinVec<Rank>,
}

/// The per-process correction state.
#[derive(Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum CorrectorState {
    /// No correction. The tree with acknowledgments (CT §4.1), which corrects nothing, counts
    /// here the tree children that have not acknowledged yet (0 in every other use): in the
    /// Corrected Tree node's own fields it would cost every variant 8 bytes per process.
    None {
        /// Tree children that have not acknowledged yet.
        acks_missing: u32,
    },
    /// See [`Opportunistic`].
    Opportunistic(Opportunistic),
    /// See [`Optimized`].
    Optimized(Optimized),
    /// See [`Checked`].
    Checked(Checked),
    /// See [`Delayed`] (inline: with its list of replies as one pointer it fits the room the
    /// other variants take, where a box cost every process 48 B more).
    Delayed(Delayed),
    /// See [`FailProof`].
    FailProof(Box<FailProof>),
}

/// What a correction message means to a process that does not hold the payload yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Receipt {
    /// Deliver now (colored by correction).
    Deliver,
    /// Keep the payload but do not deliver yet (failure-proof c-node waiting for `f + 1`
    /// correctors).
    Hold,
}

/// The correction part of one process.
#[derive(Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Corrector {
    /// This process. (Not its whole [`Ring`]: `P` is the configuration's, passed in by the
    /// caller, which keeps the Corrected Tree node 8 B smaller.)
    me: Rank,
    /// Whether this process corrects (a g-node) and has begun.
    begun: bool,
    /// Failure-proof only: the process delivers when leaving SOS or the c-node wait.
    deliver_pending: bool,
    state: CorrectorState,
}

// Copies reuse the destination's allocations (`clone_from`, field by field): the model
// checker copies every successor into a state it has finished with, and a derived `clone_from`
// would allocate a new box and new lists for every failure-proof or delayed process of every
// successor (docs/performance.md, "The model checker"). The lists are taken out, copied into
// and put back; every other field is `Copy` (`..*source`), so a new list field that is not
// handled here does not compile.

impl Clone for Delayed {
    fn clone(&self) -> Self {
        Self {
            replies: self.replies.clone(),
            ..*self
        }
    }

    fn clone_from(&mut self, source: &Self) {
        let mut replies = core::mem::take(&mut self.replies);
        replies.clone_from(&source.replies);
        *self = Self { replies, ..*source };
    }
}

impl Clone for CorrectorState {
    fn clone(&self) -> Self {
        match self {
            Self::None { acks_missing } => Self::None {
                acks_missing: *acks_missing,
            },
            Self::Opportunistic(state) => Self::Opportunistic(*state),
            Self::Optimized(state) => Self::Optimized(*state),
            Self::Checked(state) => Self::Checked(*state),
            Self::Delayed(state) => Self::Delayed(state.clone()),
            Self::FailProof(state) => Self::FailProof(state.clone()),
        }
    }

    /// Into the same list-holding variant, reuses its box and lists (`Box::clone_from` copies
    /// into the box).
    fn clone_from(&mut self, source: &Self) {
        match (self, source) {
            (Self::Delayed(mine), Self::Delayed(theirs)) => mine.clone_from(theirs),
            (Self::FailProof(mine), Self::FailProof(theirs)) => mine.clone_from(theirs),
            (mine, theirs) => *mine = theirs.clone(),
        }
    }
}

impl Clone for Corrector {
    fn clone(&self) -> Self {
        Self {
            me: self.me,
            begun: self.begun,
            deliver_pending: self.deliver_pending,
            state: self.state.clone(),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        let Self {
            me,
            begun,
            deliver_pending,
            state,
        } = self;
        *me = source.me;
        *begun = source.begun;
        *deliver_pending = source.deliver_pending;
        state.clone_from(&source.state);
    }
}

impl Corrector {
    /// The correction state of `ring.me` for `kind`, with the first side `first`.
    pub(crate) fn new(kind: Rule, ring: Ring, first: Side) -> Self {
        let sweep = Sweep::new(first);
        let state = match kind {
            Rule::None => CorrectorState::None { acks_missing: 0 },
            Rule::Opportunistic { .. } => CorrectorState::Opportunistic(Opportunistic { sweep }),
            Rule::Optimized { .. } => CorrectorState::Optimized(Optimized {
                sweep,
                covered: [0, 0],
            }),
            Rule::Checked => CorrectorState::Checked(Checked {
                sweep,
                nearest: [NOT_HEARD, NOT_HEARD],
            }),
            Rule::Delayed { .. } => CorrectorState::Delayed(Delayed {
                sweep,
                first,
                first_sent: false,
                delay_over: false,
                heard_from_other_side: false,
                replies: ThinVec::new(),
            }),
            Rule::FailProof {
                faults,
                sos_timeout,
                sos_on_full_loop,
            } => CorrectorState::FailProof(Box::new(FailProof {
                faults,
                sos_timeout,
                sos_on_full_loop,
                known: [RankList::new(), RankList::new()],
                final_round: [false, false],
                sending: [true, true],
                offset: [0, 0],
                next: first,
                heard: RankList::new(),
                sos_next: None,
                #[cfg(feature = "mutation")]
                final_one_late: false,
            })),
        };
        Self {
            me: ring.me,
            begun: false,
            deliver_pending: false,
            state,
        }
    }

    /// The process this state belongs to.
    pub fn rank(&self) -> Rank {
        self.me
    }

    /// The correction ring of `procs` processes as seen from this one.
    fn ring(&self, procs: u32) -> Ring {
        Ring { me: self.me, procs }
    }

    /// Whether this process has begun correcting.
    pub fn has_begun(&self) -> bool {
        self.begun
    }

    /// The variant state.
    pub fn state(&self) -> &CorrectorState {
        &self.state
    }

    /// Tree children that have not acknowledged yet ([`CorrectorState::None`]'s count; 0 with any
    /// correction).
    pub(crate) fn acks_missing(&self) -> u32 {
        match self.state {
            CorrectorState::None { acks_missing } => acks_missing,
            _ => 0,
        }
    }

    /// Sets [`Corrector::acks_missing`]; a process that corrects has no such count, and keeps
    /// none.
    pub(crate) fn set_acks_missing(&mut self, count: u32) {
        if let CorrectorState::None { acks_missing } = &mut self.state {
            *acks_missing = count;
        }
    }

    /// A mutant's bug (feature `mutation`, for `ftcoll-verify`'s mutants only): failure-proof
    /// correction starts each final round (CG Alg. 3, line 24) once it knows `f + 1`
    /// correctors on the other side instead of `f`. No effect on the other variants.
    #[cfg(feature = "mutation")]
    #[doc(hidden)]
    pub fn mutate_final_round_one_late(&mut self) {
        if let CorrectorState::FailProof(fp) = &mut self.state {
            fp.final_one_late = true;
        }
    }

    /// This process (colored by dissemination) starts correcting.
    pub fn begin(&mut self) {
        if !matches!(self.state, CorrectorState::None { .. }) {
            self.begun = true;
        }
        if let CorrectorState::FailProof(fp) = &mut self.state {
            // Line 24 with f = 0: both final rounds start at once.
            for side in [Side::Left, Side::Right] {
                fp.maybe_start_final(side);
            }
        }
    }

    /// Whether this process's correction is over for good: it has begun and no message it can
    /// still receive makes it send again (opportunistic, optimized and checked: the sweep's next
    /// pick is empty, and receipts only shrink what is left; no correction at all: always).
    /// Delayed and failure-proof correction answer `false` (they react to later messages and
    /// timers: `Stop` replies, SOS), so `false` means "not known to be over".
    pub(crate) fn is_finished(&self, procs: u32, kind: Rule) -> bool {
        match &self.state {
            CorrectorState::None { .. } => true,
            // Their poll once begun is the sweep's pick, which the idle answer tries on a copy
            // (they owe no delivery and have no SOS: failure-proof correction's alone).
            CorrectorState::Opportunistic(_)
            | CorrectorState::Optimized(_)
            | CorrectorState::Checked(_) => {
                debug_assert!(
                    !self.deliver_pending,
                    "only failure-proof correction owes one"
                );
                self.begun && self.poll_is_idle(procs, kind)
            }
            CorrectorState::Delayed(_) | CorrectorState::FailProof(_) => false,
        }
    }

    /// Whether a failure-proof process owes its application a delivery (end of SOS or of the
    /// c-node wait); cleared by the call.
    pub fn take_delivery(&mut self) -> bool {
        core::mem::take(&mut self.deliver_pending)
    }

    /// Whether [`Corrector::receive`] of `msg` could change this corrector (`corrects` as
    /// there): `false` when it would only answer [`Receipt::Deliver`], as an opportunistic
    /// corrector always does.
    pub(crate) fn learns_from(&self, msg: &CorrectionMsg, corrects: bool) -> bool {
        match (&self.state, msg) {
            (CorrectorState::Optimized(_), CorrectionMsg::Ring { .. })
            | (CorrectorState::Checked(_), CorrectionMsg::Ring { .. })
            | (CorrectorState::Delayed(_), CorrectionMsg::Ring { .. }) => corrects,
            (CorrectorState::Delayed(_), CorrectionMsg::Stop)
            | (CorrectorState::FailProof(_), _) => true,
            _ => false,
        }
    }

    /// A correction message from `from` arrived. `corrects`: this process was colored by
    /// dissemination, so it corrects (now or later: what it learns before it begins counts too).
    /// Returns how a process without the payload treats the message.
    // `procs` is the one argument more than clippy's limit: the ring size, which the corrector
    // no longer keeps per process.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn receive(
        &mut self,
        procs: u32,
        kind: Rule,
        now: Time,
        from: Rank,
        msg: &CorrectionMsg,
        corrects: bool,
        out: &mut Outbox<Msg>,
    ) -> Receipt {
        let ring = self.ring(procs);
        let begun = corrects;
        match (&mut self.state, msg) {
            (CorrectorState::Optimized(o), CorrectionMsg::Ring { toward }) if begun => {
                let Rule::Optimized { distance: d } = kind else {
                    return Receipt::Deliver;
                };
                // The sender lies on the side the message comes from.
                let side = toward.other();
                let delta = ring.distance(side, from);
                if delta > 0 && delta < d {
                    o.covered[side.index()] = d;
                    let other = side.other().index();
                    o.covered[other] = o.covered[other].max(d - delta);
                }
                Receipt::Deliver
            }
            (CorrectorState::Checked(c), CorrectionMsg::Ring { toward }) if begun => {
                let side = toward.other();
                let m = ring.distance(side, from);
                let nearest = &mut c.nearest[side.index()];
                *nearest = (*nearest).min(m);
                Receipt::Deliver
            }
            (CorrectorState::Delayed(dl), CorrectionMsg::Ring { toward }) if begun => {
                if *toward == dl.first {
                    // Sent toward our first side: it comes from the other side.
                    dl.heard_from_other_side = true;
                } else if !dl.replies.contains(&from) {
                    // Room for one: most lists never hold more, and a first push would
                    // reserve four (a 48 B heap chunk instead of 32).
                    if dl.replies.capacity() == 0 {
                        dl.replies.reserve_exact(1);
                    }
                    dl.replies.push(from);
                }
                Receipt::Deliver
            }
            (CorrectorState::Delayed(dl), CorrectionMsg::Stop) => {
                dl.heard_from_other_side = true;
                Receipt::Deliver
            }
            (CorrectorState::FailProof(fp), _) => {
                fp.receive(ring, begun, now, from, msg, out, &mut self.deliver_pending)
            }
            _ => Receipt::Deliver,
        }
    }

    /// A correction timer fired.
    pub fn on_timer(&mut self, id: TimerId) {
        match &mut self.state {
            CorrectorState::Delayed(dl) if id == DELAY_TIMER => dl.delay_over = true,
            // Line 14: the c-node timeout (cancelled once f + 1 correctors are known).
            CorrectorState::FailProof(fp) if id == SOS_TIMER && fp.sos_next.is_none() => {
                fp.sos_next = Some(1);
            }
            _ => {}
        }
    }

    /// Whether this process is in failure-proof SOS mode.
    pub fn in_sos(&self) -> bool {
        matches!(&self.state, CorrectorState::FailProof(fp) if fp.in_sos())
    }

    /// The send port is free: the next correction message, if any.
    pub(crate) fn poll_send(
        &mut self,
        procs: u32,
        kind: Rule,
        now: Time,
        out: &mut Outbox<Msg>,
    ) -> Option<(Rank, CorrectionMsg)> {
        let ring = self.ring(procs);
        if let CorrectorState::FailProof(fp) = &self.state {
            if fp.sos_next.is_some() {
                // SOS ends the protocol for this process (CG Alg. 3, line 9: send to all, exit).
                return self.poll_sos(ring);
            }
        }
        if !self.begun {
            return None;
        }
        let send = self.poll_variant(ring, kind, now, out);
        // A failure-proof full loop switches to SOS within the same slot.
        send.or_else(|| self.poll_sos(ring))
    }

    /// SOS is sent by correctors and c-nodes alike: every other rank, then deliver.
    fn poll_sos(&mut self, ring: Ring) -> Option<(Rank, CorrectionMsg)> {
        let CorrectorState::FailProof(fp) = &mut self.state else {
            return None;
        };
        let next = fp.sos_next?;
        if next > ring.others() {
            return None;
        }
        fp.sos_next = Some(next + 1);
        if next == ring.others() {
            self.deliver_pending = true; // sent to everyone: deliver (CG Lemma 3)
        }
        Some((ring.neighbor(Side::Right, next), CorrectionMsg::Sos))
    }

    /// Poll body for every variant but SOS.
    fn poll_variant(
        &mut self,
        ring: Ring,
        kind: Rule,
        now: Time,
        out: &mut Outbox<Msg>,
    ) -> Option<(Rank, CorrectionMsg)> {
        let sent = match (&mut self.state, kind) {
            (CorrectorState::Opportunistic(o), Rule::Opportunistic { distance }) => {
                o.pick(&ring, distance)
            }
            (CorrectorState::Optimized(o), Rule::Optimized { distance }) => o.pick(&ring, distance),
            (CorrectorState::Checked(c), _) => c.pick(&ring),
            (CorrectorState::Delayed(dl), Rule::Delayed { delay }) => {
                if !dl.replies.is_empty() {
                    let to = dl.replies.remove(0);
                    if dl.replies.is_empty() {
                        // Replies are rare (a sweeper reached us): give the list's room back.
                        dl.replies = ThinVec::new();
                    }
                    return Some((to, CorrectionMsg::Stop));
                }
                if !dl.first_sent {
                    dl.first_sent = true;
                    out.set_timer(DELAY_TIMER, now + delay);
                    let first = dl.first;
                    dl.sweep.pick(&ring, |side, reached| {
                        (side == first && reached == 0).then_some(1)
                    })
                } else if dl.delay_over && !dl.heard_from_other_side {
                    dl.sweep.toward(&ring, dl.first.other())
                } else {
                    None
                }
            }
            (CorrectorState::FailProof(fp), _) => return fp.poll_send(ring),
            _ => None,
        };
        sent.map(|(side, dist)| {
            (
                ring.neighbor(side, dist),
                CorrectionMsg::Ring { toward: side },
            )
        })
    }

    /// Whether [`Corrector::poll_send`] now would send nothing, emit nothing and change
    /// nothing, and no delivery is owed ([`Corrector::take_delivery`]): what lets a driver skip
    /// the poll ([`Automaton::send_slot_is_idle`](crate::automaton::Automaton::send_slot_is_idle)).
    /// Exact: each arm is its variant's poll with every step that would act or
    /// change the state answered `false`, the sweeps' picks tried on copies.
    pub(crate) fn poll_is_idle(&self, procs: u32, kind: Rule) -> bool {
        if self.deliver_pending {
            return false;
        }
        let ring = self.ring(procs);
        if let CorrectorState::FailProof(fp) = &self.state {
            if let Some(next) = fp.sos_next {
                // `poll_sos` sends while ranks are left.
                return next > ring.others();
            }
        }
        if !self.begun {
            return true;
        }
        match (&self.state, kind) {
            (CorrectorState::Opportunistic(o), Rule::Opportunistic { distance }) => {
                { *o }.pick(&ring, distance).is_none()
            }
            (CorrectorState::Optimized(o), Rule::Optimized { distance }) => {
                { *o }.pick(&ring, distance).is_none()
            }
            (CorrectorState::Checked(c), _) => { *c }.pick(&ring).is_none(),
            (CorrectorState::Delayed(dl), Rule::Delayed { .. }) => {
                dl.replies.is_empty()
                    && dl.first_sent
                    && !(dl.delay_over && !dl.heard_from_other_side && { dl.sweep }
                        .toward(&ring, dl.first.other())
                        .is_some())
            }
            // `poll_send`: no final round to start and no side sending; then `poll_sos` has
            // nothing either (`sos_next` is `None`).
            (CorrectorState::FailProof(fp), _) => [Side::Left, Side::Right]
                .into_iter()
                .all(|side| !fp.would_start_final(side) && !fp.sending[side.index()]),
            _ => true,
        }
    }
}

impl Opportunistic {
    /// The next send: `distance` neighbors per side, alternating (CT §3.1).
    fn pick(&mut self, ring: &Ring, distance: u32) -> Option<(Side, u32)> {
        self.sweep.pick(ring, |_, reached| {
            (reached < distance).then_some(reached + 1)
        })
    }
}

impl Optimized {
    /// The next send: up to `distance` per side, skipping what others covered (CT §3.3).
    fn pick(&mut self, ring: &Ring, distance: u32) -> Option<(Side, u32)> {
        let covered = self.covered;
        self.sweep.pick(ring, |side, reached| {
            let next = reached.max(covered[side.index()]) + 1;
            (next <= distance).then_some(next)
        })
    }
}

impl Checked {
    /// The next send: one past the farthest reached, until a corrector is reached (CT §3.1).
    fn pick(&mut self, ring: &Ring) -> Option<(Side, u32)> {
        let nearest = self.nearest;
        self.sweep.pick(ring, |side, reached| {
            let n = nearest[side.index()];
            checked_next(reached, (n != NOT_HEARD).then_some(n))
        })
    }
}

impl Sweep {
    /// One more step toward `only`: delayed correction's sweep once the delay is over without
    /// word from that side (CT §3.3).
    fn toward(&mut self, ring: &Ring, only: Side) -> Option<(Side, u32)> {
        self.pick(ring, |side, reached| (side == only).then_some(reached + 1))
    }
}

/// Wraps a correction message with the payload.
pub fn wrap(value: Value, msg: CorrectionMsg) -> Msg {
    Msg {
        value,
        body: Body::Correction(msg),
    }
}
