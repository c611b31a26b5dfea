//! CG's model (Lemma 1, Eq. 2–5, Appendix B; `ftcoll::protocols::gossip::plan`) against the
//! numbers the paper prints and against an independent implementation,
//! `lab/tests/data/cg_plan_reference.py` (mpmath, 50 digits, products term by term): every expected
//! value below is either printed in CG or printed by that script, never produced by the code
//! under test.

use ftcoll::protocols::gossip::plan::{
    bfb_latency, big_latency, big_work, delta_for_runs, Model, PlanError, PlanProtocol,
};
use ftcoll::topology::LogP;

fn logp(l: u64, o: u64) -> LogP {
    LogP::new(l, o).unwrap()
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs()
}

/// §III.B: "δ = 1 − (1 − 0.5)^(1/10⁶) = 6.93·10⁻⁷"; §IV.A: "δ = 6.9315·10⁻⁷".
#[test]
fn delta_for_a_million_runs_is_the_papers() {
    let d = delta_for_runs(1_000_000, 0.5);
    assert!(close(d, 6.931_469_403e-7, 1e-9), "{d}");
    assert_eq!(format!("{:.4e}", d), "6.9315e-7");
}

/// Lemma 1 by hand for N = n = 3, L = O = 1: c(0..=2) = 1, c(3) = 1 + 2·(1 − 1/2) = 2,
/// c(4) = 2 + 1·(1 − 1/2) = 2.5, c(5) = 2.5 + 0.5·(1/2) = 2.75, c(6) = 2.75 + 0.25·(3/4).
#[test]
fn lemma_1_by_hand() {
    let c = Model::new(3, 3, logp(1, 1)).unwrap().gnodes(6);
    let expected = [1.0, 1.0, 1.0, 2.0, 2.5, 2.75, 2.9375];
    for (k, (&got, &want)) in c.iter().zip(&expected).enumerate() {
        assert!(close(got, want, 1e-15), "c({k}) = {got}, expected {want}");
    }
}

/// Fig. 1 (L = O = 1, N = n = 1024): "the rate of coloring new nodes … increases up to around 512
/// nodes (t ≈ 18), then it decreases"; values from the reference script.
#[test]
fn figure_1_expected_gnodes() {
    let c = Model::new(1024, 1024, logp(1, 1)).unwrap().gnodes(30);
    for (t, want) in [
        (3, 2.0),
        (10, 27.618_781),
        (18, 431.500_5),
        (19, 554.171_49),
        (26, 1_018.985_2),
        (30, 1_023.904_1),
    ] {
        assert!(
            close(c[t], want, 1e-7),
            "c({t}) = {}, expected {want}",
            c[t]
        );
    }
    // 512 is crossed between t = 18 and 19, and the rate peaks there (the step 19 → 20).
    assert!(c[18] < 512.0 && c[19] > 512.0);
    let steepest = (0..30)
        .max_by(|&a, &b| (c[a + 1] - c[a]).total_cmp(&(c[b + 1] - c[b])))
        .unwrap();
    assert_eq!(steepest, 19);
}

/// Eq. 2 and Claim 2's K̄ (N = n = 1024, L = O = 1, δ = 6.93·10⁻⁷): reference script values.
#[test]
fn k_bar_matches_the_reference() {
    let m = Model::new(1024, 1024, logp(1, 1)).unwrap();
    let delta = delta_for_runs(1_000_000, 0.5);
    for (t, k, tail) in [
        (10, 312, 6.667_187_142_520_646e-7),
        (18, 18, 6.128_237_784_211_014e-7),
        (23, 4, 3.069_308_401_275_326e-7),
        (24, 3, 5.861_160_512_179_626e-7),
        (25, 3, 1.206_799_854_073_499_1e-8),
        (30, 1, 1.639_093_889_215_073_3e-7),
    ] {
        let b = m.k_bar(t, delta);
        assert_eq!(b.bound, k, "K̄ at T = {t}");
        assert!(
            close(b.tail, tail, 1e-6),
            "tail at T = {t}: {} vs {tail}",
            b.tail
        );
    }
    // p_K is a distribution (Σ p_K = 1 − Π(1 − α_K), α_0 = 1 − (1 − (c/N)²)^N ≈ 1).
    let p = m.longest_gap(m.gnodes_at_correction(24));
    let sum: f64 = p.iter().sum();
    assert!(close(sum, 1.0, 1e-9), "{sum}");
    let tail_3: f64 = p[4..].iter().sum();
    assert!(close(tail_3, 5.861_160_512_179_626e-7, 1e-6), "{tail_3}");
}

/// Appendix B's Ḡ_V, V = 5 (f = 1): reference script values.
#[test]
fn g_bar_matches_the_reference() {
    let m = Model::new(1024, 1024, logp(1, 1)).unwrap();
    let delta = delta_for_runs(1_000_000, 0.5);
    for (t, g, tail) in [
        (12, 221, 6.684_040_398_776_024e-7),
        (20, 18, 1.235_622_929_725_893e-7),
        (27, 7, 3.374_184_865_253_142e-7),
        (31, 6, 2.212_185_249_709_768_3e-7),
    ] {
        let b = m.g_bar(t, 5, delta);
        assert_eq!(b.bound, g, "Ḡ_5 at T = {t}");
        assert!(
            close(b.tail, tail, 1e-6),
            "tail at T = {t}: {} vs {tail}",
            b.tail
        );
    }
}

/// Fig. 3 (§III.B): "the approximation can predict the optimal gossip time, T = 24" for OCG,
/// N = n = 1024, L = O = 1, δ = 6.93·10⁻⁷: Eq. 3's minimizer 23 plus the one O the paper adds.
/// Fig. 5 (§III.C) prints T = 25 for CCG; Eq. 4's minimizers are 24 and 26 (latency 34; T = 25
/// gives 35), so the paper's 25 is the first minimizer plus O, and the tie rule (smaller tail)
/// picks 26 (docs/reference/gossip.md, "Ties decide Fig. 5 and Table 7 differently").
#[test]
fn figures_3_and_5_gossip_times() {
    let m = Model::new(1024, 1024, logp(1, 1)).unwrap();
    let delta = 6.93e-7;
    let ocg = m.plan(PlanProtocol::Ocg, delta).unwrap();
    assert_eq!((ocg.t, ocg.first_minimizer, ocg.latency), (23, 23, 31));
    assert_eq!(ocg.recommended_t(), 24, "Fig. 3");
    assert_eq!(ocg.chain.bound, 4);
    assert_eq!(ocg.correction, 4 + 1 + 1, "C = K̄O + L + O");
    let ccg = m.plan(PlanProtocol::Ccg, delta).unwrap();
    assert_eq!((ccg.t, ccg.first_minimizer, ccg.latency), (26, 24, 34));
    assert_eq!(ccg.first_minimizer + 1, 25, "Fig. 5");
    assert_eq!(m.plan_at(PlanProtocol::Ccg, 25, delta).latency, 35);
    let fcg = m.plan(PlanProtocol::Fcg, delta).unwrap();
    assert_eq!((fcg.t, fcg.first_minimizer, fcg.latency), (31, 27, 43));
    assert_eq!(fcg.chain.bound, 6);
}

/// Table 7 (N = 4096, L = 2, O = 1, δ = 6.9315·10⁻⁷): T = 32 for OCG with latency 42, T = 34 for
/// CCG (f̂ = 3), T = 37 for FCG; each the model's T_opt plus one O. FCG's Eq. 5 bound (53) is
/// above the measured latencies (48, 51), as an upper bound must be.
#[test]
fn table_7_gossip_times() {
    let m = Model::new(4096, 4096, logp(2, 1)).unwrap();
    let delta = 6.9315e-7;
    let ocg = m.plan(PlanProtocol::Ocg, delta).unwrap();
    assert_eq!((ocg.recommended_t(), ocg.latency), (32, 42));
    assert_eq!(ocg.first_minimizer, 29, "Eq. 3 is 42 for T = 29..=33");
    // OCG runs at T = 32, where the paper's latency 42 = T + 2L + (2 + K̄)O gives K̄ = 4 and
    // Claim 2's C = K̄O + L + O = 7 (at the minimizer T = 31, K̄ = 5 and C = 8).
    assert_eq!(m.plan_at(PlanProtocol::Ocg, 32, delta).chain.bound, 4);
    assert_eq!((ocg.correction, ocg.run_correction), (8, 7));
    let ccg = m.plan(PlanProtocol::Ccg, delta).unwrap();
    assert_eq!((ccg.recommended_t(), ccg.latency), (34, 45));
    let fcg = m.plan(PlanProtocol::Fcg, delta).unwrap();
    assert_eq!((fcg.recommended_t(), fcg.latency), (37, 53));
    assert!(fcg.latency >= 51);
}

/// §IV.B.2–3 and Table 7: BIG 60 steps and 49,152 messages, BFB 96 steps (N = 4096, L = 2, O = 1).
#[test]
fn table_7_baseline_formulas() {
    assert_eq!(big_latency(4096, logp(2, 1)), 60);
    assert_eq!(big_work(4096), 49_152);
    assert_eq!(bfb_latency(4096, logp(2, 1)), 96);
}

#[test]
fn bad_parameters_are_refused() {
    assert!(matches!(
        Model::new(1, 1, logp(1, 1)),
        Err(PlanError::OutOfRange { field: "procs", .. })
    ));
    assert!(matches!(
        Model::new(8, 9, logp(1, 1)),
        Err(PlanError::OutOfRange {
            field: "active",
            ..
        })
    ));
    assert!(matches!(
        Model::new(8, 8, logp(3, 2)),
        Err(PlanError::OutOfRange { field: "L", .. })
    ));
    let m = Model::new(8, 8, logp(1, 1)).unwrap();
    for delta in [0.0, 1.0, -1.0, f64::NAN] {
        assert!(matches!(
            m.plan(PlanProtocol::Ocg, delta),
            Err(PlanError::OutOfRange { field: "delta", .. })
        ));
    }
}

/// Inactive processes (n < N) count as uncolored in Eq. 2, so fewer active processes never make
/// the plan faster.
#[test]
fn fewer_active_processes_never_plan_faster() {
    let full = Model::new(1024, 1024, logp(1, 1)).unwrap();
    let part = Model::new(1024, 1008, logp(1, 1)).unwrap();
    for p in [PlanProtocol::Ocg, PlanProtocol::Ccg, PlanProtocol::Fcg] {
        let a = full.plan(p, 1e-6).unwrap();
        let b = part.plan(p, 1e-6).unwrap();
        assert!(b.latency >= a.latency, "{p}: {} < {}", b.latency, a.latency);
    }
}

/// The plain search, written from the definition: every `T` (a multiple of `O`) below the best
/// latency found, each by `plan_at`; a smaller latency wins, a tie goes to the smaller tail.
fn plain_search(m: &Model, p: PlanProtocol, delta: f64) -> (u64, u64, u64, u32, u64) {
    let o = m.logp().overhead();
    let mut best = m.plan_at(p, 0, delta);
    let mut first = 0;
    let mut t = o;
    while t < best.latency {
        let plan = m.plan_at(p, t, delta);
        if plan.latency < best.latency {
            best = plan;
            first = t;
        } else if plan.latency == best.latency && plan.chain.tail < best.chain.tail {
            best = plan;
        }
        t += o;
    }
    (
        best.t,
        first,
        best.latency,
        best.chain.bound,
        best.correction,
    )
}

/// `Model::plan` skips gossip times that provably cannot win and stops once Lemma 1 has
/// settled: its answer (the chosen `T`, the first minimizer, the latency, the bound, `C`) is
/// the plain search's on every size, activity, `L`/`O` and `δ` here.
#[test]
fn the_pruned_search_answers_as_the_plain_one() {
    for procs in [5, 6, 9, 16, 33, 64, 100, 256, 500, 1024] {
        for active in [procs, procs / 2, procs - procs / 64, 1, 2] {
            for (l, o) in [(1, 1), (2, 1), (4, 2), (10, 1)] {
                for delta in [6.9315e-7, 1e-3, 1e-9] {
                    let m = Model::new(procs, active.max(1), logp(l, o)).unwrap();
                    for p in [PlanProtocol::Ocg, PlanProtocol::Ccg, PlanProtocol::Fcg] {
                        let plan = m.plan(p, delta).unwrap();
                        assert_eq!(
                            plan.run_correction,
                            m.plan_at(p, plan.recommended_t(), delta).correction,
                            "the correction time belongs to the T that runs: {p} N={procs}"
                        );
                        assert_eq!(
                            (
                                plan.t,
                                plan.first_minimizer,
                                plan.latency,
                                plan.chain.bound,
                                plan.correction
                            ),
                            plain_search(&m, p, delta),
                            "{p} N={procs} n={active} L={l} O={o} delta={delta}"
                        );
                    }
                }
            }
        }
    }
}

/// The binomial tail `reproduce cg` tests the paper's inconsistency rates with, against sums
/// done by hand: Binomial(10, 1/2) gives P(X ≤ 0) = 1/1024, P(X ≤ 5) = 638/1024 and
/// P(X ≥ 8) = (45 + 10 + 1)/1024; at n = 8.192·10⁷, p = 2·10⁻⁷ (Table 7's GOS rate over 20,000
/// runs of 4,096 processes) P(X ≤ 0) = (1 − p)^n = e^(n·ln(1 − p)) ≈ e^(−16.384).
#[test]
fn binomial_tails_match_hand_sums() {
    use ftcoll_lab::experiment::cg::binomial_tail;
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12_f64.max(1e-9 * b);
    assert!(close(binomial_tail(10, 0.5, 0, true), 1.0 / 1024.0));
    assert!(close(binomial_tail(10, 0.5, 5, true), 638.0 / 1024.0));
    assert!(close(binomial_tail(10, 0.5, 8, false), 56.0 / 1024.0));
    assert!(close(binomial_tail(10, 0.5, 0, false), 1.0));
    let n = 81_920_000u64;
    let p: f64 = 2e-7;
    let expected = (n as f64 * (-p).ln_1p()).exp();
    assert!(close(binomial_tail(n, p, 0, true), expected));
    assert!((expected - (-16.384f64).exp()).abs() < 1e-3 * expected);
}
