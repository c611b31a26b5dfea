//! Corrected Tree timing claims reproduced on the LogP driver: CT Lemma 2 and Corollary 1
//! (fault-free synchronized checked correction), CT §4.1/Fig. 6–7 (5 messages and 8 steps at
//! `L = 2, o = 1` for every tree), CT Fig. 5 (the Lamé k = 3, P = 9 timeline).
//!
//! # Derivation used by every checked-correction test (DESIGN §3 timing)
//!
//! Fault-free, every process is colored by the tree and (synchronized) starts correcting at the
//! same instant `S = tree.deadline()`. (A process's last tree send starts at least `2o + L`
//! before its last child's receive time `<= S`, so every send port is free at `S`.) Each process
//! `r` polls its send port at `S + k·o`, `k = 0, 1, …`, and sends left to `r-1` (k = 0), right to
//! `r+1` (k = 1), left to `r-2`, right to `r+2`, … By rotation symmetry every process receives
//! exactly one correction message per slot, so the receive port never queues: a message sent at
//! `S + k·o` is handed over at `S + k·o + 2o + L`.
//!
//! - The first message from the right (r+1's left send at `S`) is handed over at `S + 2o + L`:
//!   from then on the right side is stopped (r already sent to distance 1 there at `S + o`).
//! - The first message from the left (r-1's right send at `S + o`) is handed over at
//!   `S + 3o + L`: from then on the left side is stopped too, and r is done.
//! - Receive completions at an instant are applied before the send port is polled, so r sends at
//!   every slot `S + k·o < S + 3o + L`, i.e. `k < 3 + L/o`: `n = 3 + ceil(L/o)` messages.
//! - The last one (k = n-1) is handed over at `S + (n-1)·o + 2o + L`, so the correction lasts
//!   `(n+1)·o + L = 4o + L + ceil(L/o)·o`.
//!
//! When `o | L` this is exactly CT Lemma 2 (`4o + L + floor(L/o)·o`) and Corollary 1
//! (`3 + floor(L/o)`). When `o ∤ L` the driver gives the `ceil` forms (one message and `o`
//! steps more than the paper's `floor` formulas; the paper's proof bounds the last send by
//! `n·o <= 3o + L`, while in the driver a send at `3o + floor(L/o)·o < 3o + L` still happens).
//! On a ring of `P - 1 < n` other processes a corrector stops once it reached all `P - 1`
//! (DESIGN §3), so it sends `m = min(n, P - 1)` messages and the correction lasts
//! `(m + 1)·o + L`.

use crate::sim_common;

use ftcoll::automaton::Phase;
use ftcoll::protocols::corrected_tree::CorrectionSpec;
use ftcoll::protocols::corrected_tree::StartMode;
use ftcoll::topology::{Order, TreeKind};
use sim_common::*;

/// Runs fault-free synchronized checked correction and returns (duration after the deadline,
/// per-process correction counts, undelivered).
fn checked_fault_free_run(
    kind: TreeKind,
    order: Order,
    p: u32,
    l: u64,
    o: u64,
) -> (u64, Vec<u32>, u32) {
    let t = tree(kind, order, p, l, o);
    let deadline = t.deadline();
    let cfg = config(t, CorrectionSpec::Checked, StartMode::Synchronized);
    let report = run(&cfg, &scenario(l, o, &[]));
    assert!(
        report.quiescence_latency() >= deadline,
        "quiescence before the deadline"
    );
    (
        report.quiescence_latency() - deadline,
        report.sent_counts().map(|s| s[1]).collect(),
        report.undelivered(),
    )
}

/// CT Lemma 2 and Corollary 1 (§4.2), DESIGN §3 "Check": for every fault-free `(L, o)` with
/// `o | L`, `L <= 20`, `o <= 4`, synchronized checked correction ends exactly
/// `4o + L + floor(L/o)·o` after the tree's deadline and every process sends exactly
/// `3 + floor(L/o)` correction messages — for every tree kind and both numberings.
#[test]
fn lemma2_corollary1_when_o_divides_l() {
    for o in 1..=4u64 {
        for l in (0..=20u64).filter(|l| l % o == 0) {
            // Paper formulas, as printed.
            let duration = 4 * o + l + (l / o) * o;
            let messages = 3 + (l / o) as u32;
            for (kind, order) in tree_zoo() {
                for p in [37u32, 100] {
                    let (d, sent, undelivered) = checked_fault_free_run(kind, order, p, l, o);
                    let ctx = format!("{kind} {order} P={p} L={l} o={o}");
                    assert_eq!(undelivered, 0, "{ctx}");
                    assert_eq!(d, duration, "Lemma 2 duration, {ctx}");
                    for (r, &s) in sent.iter().enumerate() {
                        assert_eq!(s, messages, "Corollary 1 messages of rank {r}, {ctx}");
                    }
                }
            }
        }
    }
}

/// CT Lemma 2 / Corollary 1 when `o ∤ L` (derivation in the module documentation): the driver
/// gives `3 + ceil(L/o)` messages per process and a duration of `4o + L + ceil(L/o)·o`.
/// Example by hand, `L = 3, o = 2`: sends at 0, 2, 4, 6, 8 (the right side stops at 7, the left
/// at 9), 5 messages; the last is handed over at 8 + 7 = 15 = 4·2 + 3 + 2·2. The paper's floor
/// formulas would give 4 messages and 13 steps.
#[test]
fn lemma2_corollary1_when_o_does_not_divide_l() {
    let (d, sent, _) = checked_fault_free_run(TreeKind::Lame(2), Order::Interleaved, 50, 3, 2);
    assert_eq!(d, 15);
    assert!(sent.iter().all(|&s| s == 5), "{sent:?}");
    for o in 2..=4u64 {
        for l in (1..=20u64).filter(|l| l % o != 0) {
            let duration = 4 * o + l + l.div_ceil(o) * o;
            let messages = 3 + l.div_ceil(o) as u32;
            for (kind, order) in [
                (TreeKind::Lame(2), Order::Interleaved),
                (TreeKind::Optimal, Order::Interleaved),
                (TreeKind::KAry(3), Order::InOrder),
            ] {
                let (d, sent, undelivered) = checked_fault_free_run(kind, order, 64, l, o);
                let ctx = format!("{kind} {order} L={l} o={o}");
                assert_eq!(undelivered, 0, "{ctx}");
                assert_eq!(d, duration, "duration, {ctx}");
                assert!(
                    sent.iter().all(|&s| s == messages),
                    "messages, {ctx}: {sent:?}"
                );
            }
        }
    }
}

/// DESIGN §3 "The ring" (a corrector stops once it reached all `P - 1` others) with CT Lemma 2's
/// timing on tiny rings: `m = min(3 + ceil(L/o), P - 1)` messages per process and a duration of
/// `(m + 1)·o + L` (module documentation). By hand, `P = 2, L = 2, o = 1`: each process sends
/// once to the other at `S` and it is handed over at `S + 4`.
#[test]
fn checked_correction_on_tiny_rings_covers_the_ring_once() {
    let (d, sent, _) = checked_fault_free_run(TreeKind::Binomial, Order::Interleaved, 2, 2, 1);
    assert_eq!((d, sent), (4, vec![1, 1]));
    for p in 2..=30u32 {
        for (l, o) in [(2u64, 1u64), (0, 1), (5, 2), (6, 3), (20, 1)] {
            let (duration, m) = checked_fault_free(l, o, p);
            for (kind, order) in [
                (TreeKind::Lame(2), Order::Interleaved),
                (TreeKind::KAry(2), Order::InOrder),
            ] {
                let (d, sent, undelivered) = checked_fault_free_run(kind, order, p, l, o);
                let ctx = format!("{kind} {order} P={p} L={l} o={o}");
                assert_eq!(undelivered, 0, "{ctx}");
                assert_eq!(d, duration, "duration, {ctx}");
                assert!(
                    sent.iter().all(|&s| u64::from(s) == m),
                    "messages, {ctx}: {sent:?}"
                );
            }
        }
    }
}

/// CT §4.1 (Fig. 6 and the text under Fig. 7): at `L = 2, o = 1`, "with synchronized checked
/// correction, all trees exhibit the same behavior and since there are no faulty processes, each
/// of them sends 5 correction messages", and "independent of tree type, checked correction lasts
/// 8 time steps" (= 4·1 + 2 + 2·1). Both start modes are tried for the message count: overlapped
/// correction is not covered by the claim, so only the synchronized mode is asserted.
#[test]
fn fig6_five_correction_messages_per_process_for_every_tree() {
    for (kind, order) in tree_zoo() {
        for p in [2048u32, 1000] {
            let t = tree(kind, order, p, 2, 1);
            let deadline = t.deadline();
            let cfg = config(t, CorrectionSpec::Checked, StartMode::Synchronized);
            let report = run(&cfg, &scenario(2, 1, &[]));
            let ctx = format!("{kind} {order} P={p}");
            assert_eq!(report.undelivered(), 0, "{ctx}");
            assert_eq!(
                report.messages_in(Phase::Correction),
                5 * u64::from(p),
                "{ctx}"
            );
            assert!(report.sent_counts().all(|s| s[1] == 5), "{ctx}");
            assert_eq!(report.quiescence_latency(), deadline + 8, "{ctx}");
            assert_eq!(report.correction_participants(), p, "{ctx}");
            // The tree sends exactly P - 1 messages (one per non-root rank).
            assert_eq!(
                report.messages_in(Phase::Dissemination),
                u64::from(p) - 1,
                "{ctx}"
            );
            assert_eq!(report.duplicates(), 0, "{ctx}");
        }
    }
}

/// CT Fig. 5: the Lamé tree of order 3 with `P = 9` and `L = o = 1` as a plain tree
/// (no correction). From the figure (and CT Eq. 1–2: `R = 1,1,1,2,3,4,6,9`, children of 0 are
/// `1,2,3,4,6`, of 1 are `5,7`, of 2 is `8`), with a hop of `2o + L = 3`: the root sends at
/// 0,1,2,3,4 to 1,2,3,4,6 (received at 3,4,5,6,7); rank 1 sends at 3,4 to 5,7 (received 6,7);
/// rank 2 sends at 4 to 8 (received 7). Everyone is colored at `t = 7`, which is also the last
/// activity.
#[test]
fn fig5_lame3_plain_tree_timeline() {
    let t = tree(TreeKind::Lame(3), Order::Interleaved, 9, 1, 1);
    let cfg = config(t, CorrectionSpec::None, StartMode::Synchronized);
    let report = run(&cfg, &scenario(1, 1, &[]));
    let expected = [0u64, 3, 4, 5, 6, 6, 7, 7, 7];
    let got: Vec<u64> = report
        .delivery_times()
        .map(|d| d.expect("delivered"))
        .collect();
    assert_eq!(got, expected);
    assert_eq!(report.coloring_latency(), 7);
    assert_eq!(report.quiescence_latency(), 7);
    assert_eq!(report.messages_total(), 8);
    assert_eq!(report.messages_in(Phase::Correction), 0);
    let senders: Vec<u32> = report.sent_counts().map(|s| s[0]).collect();
    assert_eq!(senders, vec![5, 2, 1, 0, 0, 0, 0, 0, 0]);
    assert!((0..report.procs).all(|k| report.by_dissemination(k)));
}

/// CT Fig. 5 with correction: the synchronized start is the figure's deadline 7, and checked
/// correction on 9 processes at `L = o = 1` sends `min(3 + 1, 8) = 4` messages per process and
/// ends `(4 + 1)·1 + 1 = 6` steps later (CT Lemma 2: `4 + 1 + 1 = 6`), at 13.
#[test]
fn fig5_with_checked_correction() {
    let t = tree(TreeKind::Lame(3), Order::Interleaved, 9, 1, 1);
    assert_eq!(t.deadline(), 7);
    let cfg = config(t, CorrectionSpec::Checked, StartMode::Synchronized);
    assert_eq!(cfg.correction_start, 7);
    let report = run(&cfg, &scenario(1, 1, &[]));
    assert_eq!(report.quiescence_latency(), 13);
    assert!(report.sent_counts().all(|s| s[1] == 4));
}

/// The longest ring run of ranks the tree does not color — failed ranks included, and runs made
/// only of failed ranks included (they still separate correctors), computed from the oracle
/// [`tree_colored`]. Rank 0 is always colored, so runs do not wrap.
fn dark_run_gmax(colored: &[bool]) -> u64 {
    let (mut best, mut run) = (0u64, 0u64);
    for &c in colored {
        run = if c { 0 } else { run + 1 };
        best = best.max(run);
    }
    best
}

/// CT Lemma 3: with failures before the operation, synchronized checked correction lasts between
/// `L_FF + g_max·o` and `L_FF + (2·g_max + 1)·o` (`L_FF` from Lemma 2, `P >> g_max`), where
/// `g_max` is the longest run of consecutive processes not colored by the tree, counting runs of
/// failed processes too ([`dark_run_gmax`]). Random failure sets (1..=40 of P = 1000) on every
/// tree, `(L, o)` in {(2, 1), (1, 1), (4, 2)}; the duration is measured from the tree's deadline.
#[test]
fn lemma3_bounds_with_pre_operation_failures() {
    let mut rng = SeededRng::new(0x1E3);
    let p = 1000u32;
    for (kind, order) in tree_zoo() {
        for (l, o) in [(2u64, 1u64), (1, 1), (4, 2)] {
            let t = tree(kind, order, p, l, o);
            let lff = 4 * o + l + (l / o) * o;
            for _ in 0..20 {
                let failed = rng.failures_between(p, 1, 40);
                let g = dark_run_gmax(&tree_colored(&t, &failed));
                let cfg = config(t.clone(), CorrectionSpec::Checked, StartMode::Synchronized);
                let report = run(&cfg, &scenario(l, o, &failed));
                let d = report.quiescence_latency() - t.deadline();
                let ctx = format!("{kind} {order} L={l} o={o} g_max={g} failed={failed:?}");
                assert_eq!(report.undelivered(), 0, "{ctx}");
                assert!(d >= lff + g * o, "lower bound: {d}, {ctx}");
                assert!(d <= lff + (2 * g + 1) * o, "upper bound: {d}, {ctx}");
            }
        }
    }
}

/// CT Lemma 3's `g_max` must count runs made only of failed ranks (DESIGN §3's "largest run of
/// consecutive non-colored processes"): a lone failed leaf makes the correction last longer than
/// `L_FF + o`. By hand, Lamé(2), P = 64, leaf 30 failed, S = deadline: its neighbours 29 and 31 are
/// correctors 2 apart. 29 sends right to distance 2 (reaching 31) at slot 3, i.e. at S + 3, handed
/// over at S + 7; until then 31 has heard nobody on its left, so it sends at every slot up to
/// S + 6, and that message is handed over at S + 10 at the earliest: the correction lasts at
/// least 10 > 9 = L_FF + (2·0 + 1)·o. With g_max = 1 the bound is 8 + 3 = 11.
#[test]
fn lemma3_gmax_counts_runs_of_failed_processes() {
    let (l, o, p) = (2, 1, 64);
    let t = tree(TreeKind::Lame(2), Order::Interleaved, p, l, o);
    assert_eq!(t.children(30).count(), 0, "30 is a leaf");
    let failed = [30];
    assert_eq!(
        ftcoll::topology::Reach::compute(&t, &failed)
            .unwrap()
            .gmax(),
        1
    );
    let cfg = config(t.clone(), CorrectionSpec::Checked, StartMode::Synchronized);
    let report = run(&cfg, &scenario(l, o, &failed));
    assert_eq!(
        ftcoll::protocols::corrected_tree::gmax_after_dissemination(report.procs, |r| report
            .by_dissemination(r)),
        1
    );
    let d = report.quiescence_latency() - t.deadline();
    assert!(d >= 10, "{d}");
    assert!(d <= 11, "{d}");
}
