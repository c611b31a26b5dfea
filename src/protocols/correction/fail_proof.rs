//! Failure-proof correction (CG §III.D, Alg. 3, with the SOS fallback): a corrector keeps the
//! `f + 1` nearest correctors it knows on each side and sends until it passed them, then a final
//! round carrying them; a c-node delivers once it knows `f + 1` correctors, else enters SOS. The
//! [`Corrector`](super::Corrector) dispatches here; the fields are the parent's to build and poll.

use smallvec::SmallVec;

use super::{Receipt, SOS_TIMER};
use crate::automaton::Outbox;
use crate::protocols::message::{CorrectionMsg, Correctors, Msg};
use crate::protocols::ring::{Ring, Side};
use crate::{Rank, Time};

/// A short list of ranks held inline up to four: a failure-proof process's correctors (up to
/// `f + 1` per list). A heap list each
/// cost every such process up to three allocations, and the model checker as many per copy of
/// a state. Equal, hashed and encoded as a `Vec`.
pub(super) type RankList = SmallVec<[Rank; 4]>;

/// Failure-proof correction state (CG §III.D, Alg. 3).
///
/// `known[s]` holds up to `f + 1` correctors known on side `s`, nearest first. A message
/// travelling toward `s` carries the sender's `known[s.other()]`; its receiver merges the sender
/// and that list into its own `known[s.other()]` (lines 21–22). A corrector sends toward `s` until it passed the `(f + 1)`-th known corrector
/// on `s` (line 25). Once it knows `f` correctors on `s.other()` it starts the final round toward
/// `s` from distance 1 again (line 24), carrying them. It exits when neither side sends. A full
/// loop of one side without `f + 1` correctors triggers SOS (line 28). A c-node delivers once it
/// knows `f + 1` correctors and otherwise falls back to SOS after `sos_timeout` (lines 11–14). SOS
/// sends to every other rank, then delivers; receiving SOS enters SOS (line 23).
#[derive(Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FailProof {
    pub(super) faults: u32,
    pub(super) sos_timeout: Time,
    pub(super) sos_on_full_loop: bool,
    pub(super) known: [RankList; 2],
    pub(super) final_round: [bool; 2],
    pub(super) sending: [bool; 2],
    pub(super) offset: [u32; 2],
    pub(super) next: Side,
    /// c-node: correctors heard of (distinct, up to `f + 1`).
    pub(super) heard: RankList,
    /// SOS: next distance (to the right) to send to; `Some` once in SOS mode.
    pub(super) sos_next: Option<u32>,
    /// A mutant's bug (feature `mutation`): the final round starts one known corrector late.
    #[cfg(feature = "mutation")]
    pub(super) final_one_late: bool,
}

/// Copies reuse the destination's lists (see the note on copies in the parent module).
impl Clone for FailProof {
    fn clone(&self) -> Self {
        Self {
            known: self.known.clone(),
            heard: self.heard.clone(),
            ..*self
        }
    }

    fn clone_from(&mut self, source: &Self) {
        let mut known = core::mem::take(&mut self.known);
        let mut heard = core::mem::take(&mut self.heard);
        for (mine, theirs) in known.iter_mut().zip(&source.known) {
            mine.clone_from(theirs);
        }
        heard.clone_from(&source.heard);
        *self = Self {
            known,
            heard,
            ..*source
        };
    }
}

impl FailProof {
    /// `f`: the crashes during correction this process tolerates.
    pub fn faults(&self) -> u32 {
        self.faults
    }

    /// As a c-node: the distinct correctors it has heard of so far (senders and the lists
    /// their messages carried), at most `f + 1` (CG Alg. 3, lines 11–13).
    pub fn heard(&self) -> &[Rank] {
        &self.heard
    }

    /// Whether this process is in SOS mode (CG Alg. 3, line 23 or 28, or the c-node timeout).
    pub fn in_sos(&self) -> bool {
        self.sos_next.is_some()
    }
}

impl FailProof {
    /// Line 24: knowing `f` correctors on `side.other()` starts the final round toward `side`.
    pub(super) fn maybe_start_final(&mut self, side: Side) {
        let i = side.index();
        if self.would_start_final(side) {
            self.final_round[i] = true;
            self.offset[i] = 0;
            self.sending[i] = true;
        }
    }

    /// Whether [`FailProof::maybe_start_final`] would start the round toward `side` now.
    pub(super) fn would_start_final(&self, side: Side) -> bool {
        #[cfg(feature = "mutation")]
        let needed = self.faults as usize + usize::from(self.final_one_late);
        #[cfg(not(feature = "mutation"))]
        let needed = self.faults as usize;
        !self.final_round[side.index()] && self.known[side.other().index()].len() >= needed
    }

    /// Merges `from` and `list` into `known[side]`, keeping the `f + 1` nearest on that side.
    pub(super) fn learn(&mut self, ring: Ring, side: Side, from: Rank, list: &[Rank]) {
        let keep = self.faults as usize + 1;
        let known = &mut self.known[side.index()];
        // Kept sorted by distance and at most `keep` long while merging (distinct ranks are at
        // distinct distances), so that it never outgrows its inline room: the same list as
        // appending everything, sorting and truncating.
        for &rank in core::iter::once(&from).chain(list) {
            // A peer's list may hold anything; only other ranks of the operation are correctors.
            if rank == ring.me || rank >= ring.procs || known.contains(&rank) {
                continue;
            }
            let distance = ring.distance(side, rank);
            let at = known.partition_point(|&r| ring.distance(side, r) < distance);
            if at < keep {
                if known.len() == keep {
                    known.pop();
                }
                known.insert(at, rank);
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn receive(
        &mut self,
        ring: Ring,
        begun: bool,
        now: Time,
        from: Rank,
        msg: &CorrectionMsg,
        out: &mut Outbox<Msg>,
        deliver_pending: &mut bool,
    ) -> Receipt {
        match msg {
            CorrectionMsg::Sos => {
                if self.sos_next.is_none() {
                    self.sos_next = Some(1);
                }
                Receipt::Hold
            }
            CorrectionMsg::FailProof { toward, known } if begun => {
                // Lines 21–22: the sender is on the side the message comes from. (The listing
                // skips this once the final round toward `toward` began; with f = 0 that round
                // begins at once and nothing would ever be learned, so ftcoll always learns.)
                self.learn(ring, toward.other(), from, known);
                Receipt::Deliver
            }
            CorrectionMsg::FailProof { known, .. } => {
                // A c-node (lines 11–13): deliver once f + 1 correctors are known.
                if self.sos_next.is_some() {
                    return Receipt::Hold;
                }
                if self.heard.is_empty() {
                    out.set_timer(SOS_TIMER, now + self.sos_timeout);
                }
                let was_waiting = self.heard.len() <= self.faults as usize;
                for &rank in core::iter::once(&from).chain(known.iter()) {
                    if rank != ring.me
                        && rank < ring.procs
                        && !self.heard.contains(&rank)
                        && self.heard.len() <= self.faults as usize
                    {
                        self.heard.push(rank);
                    }
                }
                if was_waiting && self.heard.len() > self.faults as usize {
                    out.cancel_timer(SOS_TIMER);
                    *deliver_pending = true;
                }
                Receipt::Hold
            }
            _ => Receipt::Hold,
        }
    }

    pub(super) fn poll_send(&mut self, ring: Ring) -> Option<(Rank, CorrectionMsg)> {
        for side in [Side::Left, Side::Right] {
            self.maybe_start_final(side);
        }
        for side in [self.next, self.next.other()] {
            let i = side.index();
            if !self.sending[i] {
                continue;
            }
            // Line 25: stop once past the (f + 1)-th known corrector on this side.
            let known = &self.known[i];
            if known.len() > self.faults as usize {
                let limit = ring.distance(side, known[self.faults as usize]);
                if self.offset[i] >= limit {
                    self.sending[i] = false;
                    continue;
                }
            }
            if self.offset[i] >= ring.others() {
                // Line 28: a full loop without f + 1 correctors. The footnote to Claim 5 only
                // ends the side: the sweep reached everyone there.
                if !self.sos_on_full_loop {
                    self.sending[i] = false;
                    continue;
                }
                self.sos_next.get_or_insert(1);
                return None;
            }
            self.offset[i] += 1;
            self.next = side.other();
            let carried = Correctors::from(&self.known[side.other().index()][..]);
            return Some((
                ring.neighbor(side, self.offset[i]),
                CorrectionMsg::FailProof {
                    toward: side,
                    known: carried,
                },
            ));
        }
        None
    }
}
