//! Unit tests of the correction states that no run through an automaton reaches (a delivery
//! owed, a final round to start) and of failure-proof correction's lists (CG Alg. 3).

use super::*;
use crate::rng::SplitMix64;
use alloc::vec::Vec;

/// A delivery owed ([`Corrector::take_delivery`]: the end of SOS or of the c-node wait,
/// CG Alg. 3) is something the next poll does, so a corrector that owes one is not idle: a
/// driver that skipped the poll would never hand it over. Through the Corrected Tree node
/// the flag never outlives the input that set it, so no run shows this state; the idle
/// promise is about any state, for every variant.
#[test]
fn a_delivery_owed_is_not_idle() {
    let ring = Ring { me: 3, procs: 8 };
    let kinds = [
        Rule::None,
        Rule::Opportunistic { distance: 1 },
        Rule::Optimized { distance: 2 },
        Rule::Checked,
        Rule::Delayed { delay: 5 },
        Rule::FailProof {
            faults: 1,
            sos_timeout: 40,
            sos_on_full_loop: true,
        },
    ];
    for kind in kinds {
        let mut corrector = Corrector::new(kind, ring, Side::Left);
        assert!(
            corrector.poll_is_idle(ring.procs, kind),
            "{kind:?} before it begins"
        );
        corrector.deliver_pending = true;
        assert!(
            !corrector.poll_is_idle(ring.procs, kind),
            "{kind:?} owing a delivery"
        );
        assert!(corrector.take_delivery(), "{kind:?}");
        assert!(
            corrector.poll_is_idle(ring.procs, kind),
            "{kind:?} once delivered"
        );
    }
}

/// CG Alg. 3, line 24: a failure-proof corrector starts the final round toward a side at
/// its next poll once it knows `f` correctors on the other side (`receive` only learns
/// them). So one that knows them, has not begun that round and sends on neither side is
/// not idle: a driver that skipped the poll would never start the round. No run reaches
/// this state (a side stops sending once it knows `f + 1` correctors, and every poll first
/// starts the final round toward the other side, so both sides stopped means both rounds
/// begun); the idle promise is about any state, and without its `would_start_final` term
/// the answer is `true` here.
#[test]
fn a_final_round_to_start_is_not_idle() {
    let ring = Ring { me: 5, procs: 16 };
    let kind = Rule::FailProof {
        faults: 1,
        sos_timeout: 40,
        sos_on_full_loop: true,
    };
    // A corrector known on `known_on`'s side starts the round toward the other side.
    for (known_on, corrector_rank) in [(Side::Right, 7), (Side::Left, 2)] {
        let mut corrector = Corrector::new(kind, ring, Side::Left);
        corrector.begin();
        let CorrectorState::FailProof(fp) = &mut corrector.state else {
            unreachable!("a failure-proof corrector")
        };
        // Both sides stopped, no final round begun, no corrector known: nothing to do.
        fp.sending = [false; 2];
        fp.final_round = [false; 2];
        fp.known = Default::default();
        assert!(
            corrector.poll_is_idle(ring.procs, kind),
            "stopped and knowing no one"
        );
        let before = corrector.clone();
        let sent = corrector.poll_send(ring.procs, kind, 0, &mut Outbox::new());
        assert!(
            sent.is_none() && corrector == before,
            "an idle poll changed something"
        );
        // A message made a corrector known (`receive` learns; the round waits for the
        // poll): the poll starts the final round toward the other side, and sends there.
        let CorrectorState::FailProof(fp) = &mut corrector.state else {
            unreachable!("a failure-proof corrector")
        };
        fp.known[known_on.index()].push(corrector_rank);
        assert!(
            !corrector.poll_is_idle(ring.procs, kind),
            "a final round to start toward {:?}",
            known_on.other()
        );
        let sent = corrector.poll_send(ring.procs, kind, 0, &mut Outbox::new());
        let toward = match sent {
            Some((_, CorrectionMsg::FailProof { toward, .. })) => Some(toward),
            _ => None,
        };
        assert_eq!(
            toward,
            Some(known_on.other()),
            "the final round's first send"
        );
    }
}

/// CG Alg. 3 line 28 and the footnote to Claim 5: a corrector that never hears of another
/// sweeps each side once around the ring (`P − 1` sends a side); then the listing enters
/// SOS (`Sos` to every other rank), the footnote's variant ends the side and falls idle.
#[test]
fn a_full_loop_enters_sos_as_listed_and_ends_the_side_in_the_footnotes_variant() {
    let ring = Ring { me: 2, procs: 6 };
    for sos_on_full_loop in [true, false] {
        let kind = Rule::FailProof {
            faults: 1,
            sos_timeout: 40,
            sos_on_full_loop,
        };
        let mut corrector = Corrector::new(kind, ring, Side::Left);
        corrector.begin();
        let mut sweeps = 0;
        let mut sos = 0;
        for _ in 0..40 {
            match corrector.poll_send(ring.procs, kind, 0, &mut Outbox::new()) {
                Some((_, CorrectionMsg::FailProof { .. })) => sweeps += 1,
                Some((_, CorrectionMsg::Sos)) => sos += 1,
                Some(other) => panic!("unexpected {other:?}"),
                None => break,
            }
        }
        if sos_on_full_loop {
            // One side's loop ends in SOS, which then reaches every other rank.
            assert!(corrector.in_sos(), "the listing enters SOS");
            assert_eq!((sweeps, sos), (2 * 5, 5));
        } else {
            assert!(!corrector.in_sos(), "the footnote's variant never does");
            assert_eq!((sweeps, sos), (2 * 5, 0));
            assert!(corrector.poll_is_idle(ring.procs, kind), "both sides ended");
        }
    }
}

/// `learn` (CG Alg. 3, lines 21–22: keep the `f + 1` nearest correctors known on a side)
/// merges into a list kept short; it must give the list that appending every candidate,
/// sorting by distance and truncating gives, for any peer list, duplicates, this process's
/// own rank and ranks outside the ring included.
#[test]
fn learning_keeps_the_f_plus_1_nearest_correctors() {
    let mut rng = SplitMix64::new(11);
    for _ in 0..2_000 {
        let procs = 2 + (rng.next_u64() % 30) as u32;
        let ring = Ring {
            me: (rng.next_u64() % u64::from(procs)) as u32,
            procs,
        };
        let faults = (rng.next_u64() % 6) as u32;
        let side = if rng.next_u64() % 2 == 0 {
            Side::Left
        } else {
            Side::Right
        };
        let mut fp = FailProof {
            faults,
            sos_timeout: 0,
            sos_on_full_loop: true,
            known: Default::default(),
            final_round: [false; 2],
            sending: [true; 2],
            offset: [0; 2],
            next: Side::Left,
            heard: RankList::new(),
            sos_next: None,
            #[cfg(feature = "mutation")]
            final_one_late: false,
        };
        let mut reference: Vec<Rank> = Vec::new();
        for _ in 0..6 {
            let from = (rng.next_u64() % u64::from(procs + 2)) as Rank;
            let list: Vec<Rank> = (0..rng.next_u64() % 8)
                .map(|_| (rng.next_u64() % u64::from(procs + 2)) as Rank)
                .collect();
            fp.learn(ring, side, from, &list);
            for &rank in core::iter::once(&from).chain(&list) {
                if rank != ring.me && rank < ring.procs && !reference.contains(&rank) {
                    reference.push(rank);
                }
            }
            reference.sort_by_key(|&r| ring.distance(side, r));
            reference.truncate(faults as usize + 1);
            assert_eq!(&fp.known[side.index()][..], &reference[..]);
            assert!(fp.known[side.other().index()].is_empty());
        }
    }
}
