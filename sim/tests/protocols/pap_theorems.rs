//! PAP's lemmas and theorems (Patarasuk & Yuan, §3.2–4) as tests on the driver's PAP model
//! (`sim::pap`, §3.1): `T(msize) = msize` time units, 1-port, forwarding from the first bit,
//! free control messages, blocking and non-blocking.
//!
//! Every theorem's bound here is the paper's formula, computed from the pattern in this file.
//! Lemma 2 and the PERF checks read `OPT`'s bounds and PERF from `arrival::metrics`, whose
//! formulas are unit-tested against hand-computed values there (`metrics.rs`); the
//! Lemma 1–2 mutants below show those checks can fail. Each theorem's check is also run on a
//! broken algorithm and shown to fail (the `mutant_*` tests; for Theorem 5, arrival_nb without
//! its sub-group broadcasts, which is the flat tree).

use ftcoll::automaton::{Action, Automaton, Outbox, TimerId, Value};
use ftcoll::protocols::arrival::arrival_b::ArrivalBNode;
use ftcoll::protocols::arrival::arrival_nb::ArrivalNbNode;
use ftcoll::protocols::arrival::binomial::{Binomial, BinomialNode};
use ftcoll::protocols::arrival::flat::{Flat, FlatNode};
use ftcoll::protocols::arrival::linear::{Linear, LinearNode};
use ftcoll::protocols::arrival::metrics::{PapMetrics, Ratio};
use ftcoll::protocols::arrival::nearopt::{Nearopt, NearoptNode};
use ftcoll::protocols::arrival::scatter_allgather::{ScatterAllgather, ScatterAllgatherNode};
use ftcoll::protocols::arrival::{PapConfig, PapMsg};
use ftcoll::{Rank, Time};
use ftcoll_sim::pap::{self, PapMode, PapScenario};
use ftcoll_sim::Report;
use proptest::prelude::*;

const MODES: [PapMode; 2] = [PapMode::Blocking, PapMode::NonBlocking];

/// Runs `A` on `arrivals` (rank 0 the root) and returns the report and PAP §2's measures.
fn run<A>(config: &A::Config, arrivals: &[Time], mode: PapMode) -> (Report, PapMetrics)
where
    A: Automaton<Msg = PapMsg, Value = Value>,
{
    let procs = arrivals.len() as u32;
    let scenario = PapScenario {
        mode,
        arrivals: arrivals.to_vec(),
        crashes: Vec::new(),
    };
    let report = pap::run::<A>(config, procs, &scenario, 1 << 26).expect("run");
    assert_eq!(report.undelivered(), 0, "every process gets the message");
    assert_eq!(report.duplicates(), 0);
    let metrics = PapMetrics::new(arrivals, &report.finish_times().collect::<Vec<_>>());
    (report, metrics)
}

fn base(n: usize, t: Time) -> PapConfig {
    PapConfig::new(u32::try_from(n).expect("n fits in u32"), t).unwrap()
}

/// Arrival patterns of PAP §3.1 (the root first): `n` in 2..40, `T` in 1..60, receivers
/// within `0..=spread·T` of the root.
fn patterns() -> impl Strategy<Value = (Vec<Time>, Time)> {
    (2usize..40, 1u64..60, 0u64..8).prop_flat_map(|(n, t, spread)| {
        let receivers = proptest::collection::vec(0..=spread * t, n - 1);
        (receivers, Just(t)).prop_map(|(mut r, t)| {
            r.insert(0, 0);
            (r, t)
        })
    })
}

/// Every algorithm in every model it runs in: `(name, mode, Σe)`.
fn every_run(arrivals: &[Time], t: Time) -> Vec<(&'static str, PapMode, PapMetrics)> {
    let n = arrivals.len();
    let b = base(n, t);
    let mut out = Vec::new();
    for mode in MODES {
        out.push(("flat", mode, run::<FlatNode>(&Flat(b), arrivals, mode).1));
        out.push((
            "binomial",
            mode,
            run::<BinomialNode>(&Binomial(b), arrivals, mode).1,
        ));
        let linear = Linear::new(b, t.min(4)).unwrap();
        out.push((
            "linear_p",
            mode,
            run::<LinearNode>(&linear, arrivals, mode).1,
        ));
        let near = Nearopt::new(b, arrivals).unwrap();
        out.push(("nearopt", mode, run::<NearoptNode>(&near, arrivals, mode).1));
        if let Ok(sca) = ScatterAllgather::new(b) {
            out.push((
                "sca-all",
                mode,
                run::<ScatterAllgatherNode>(&sca, arrivals, mode).1,
            ));
        }
    }
    out.push((
        "arrival_nb",
        PapMode::NonBlocking,
        run::<ArrivalNbNode>(&b, arrivals, PapMode::NonBlocking).1,
    ));
    out.push((
        "arrival_b",
        PapMode::Blocking,
        run::<ArrivalBNode>(&b, arrivals, PapMode::Blocking).1,
    ));
    out
}

/// Both proofs' step for receivers: a receiver waits at most one round, then takes part in
/// one sub-group broadcast: `f_i ≤ a_i + 2T` for `i ≥ 1`.
fn receivers_within_2t(report: &Report, arrivals: &[Time], t: Time) -> Result<(), String> {
    let late = (1..)
        .zip(report.finish_times().skip(1))
        .zip(&arrivals[1..])
        .find(|&((_, f), &a)| f > a + 2 * t);
    match late {
        Some(((i, f), a)) => Err(format!("f_{i} = {f} > a_{i} + 2T = {}", a + 2 * t)),
        None => Ok(()),
    }
}

/// Lemma 2's bound for one run.
fn lemma_2_holds(m: &PapMetrics, mode: PapMode, t: Time) -> bool {
    m.mean_elapsed() >= m.opt_lower(mode, t)
}

/// Feeds every rank of `A` the messages `(from, kind, index, rest)` after starting it, polling
/// its send slot after each, and checks what it emits.
fn fuzz<A>(
    config: &A::Config,
    n: u32,
    inputs: &[(u32, u32, u64, Vec<u32>)],
) -> Result<(), TestCaseError>
where
    A: Automaton<Msg = PapMsg, Value = Value>,
{
    for rank in 0..n {
        let mut a = A::new(config, rank);
        let mut out = Outbox::new();
        a.on_start(config, 0, &mut out);
        for (step, (from, kind, index, rest)) in inputs.iter().enumerate() {
            let msg = match kind {
                0 => PapMsg::Arrived,
                _ => PapMsg::Data {
                    size: 1 + index,
                    index: *index as u32,
                    rest: rest.clone(),
                },
            };
            a.on_message(config, step as Time, *from, msg, &mut out);
            for action in out.drain() {
                prop_assert!(
                    !matches!(action, Action::Send { .. }),
                    "a send outside the send slot"
                );
            }
            a.on_send_slot(config, step as Time, &mut out);
            let sends: Vec<Rank> = out
                .drain()
                .filter_map(|act| match act {
                    Action::Send { to, .. } => Some(to),
                    _ => None,
                })
                .collect();
            prop_assert!(sends.len() <= 1, "two sends in one slot");
            for to in sends {
                prop_assert!(to < n && to != rank, "rank {} sent to {}", rank, to);
            }
        }
    }
    Ok(())
}

/// Theorem 5's proof, step by step: `f_0 ≤ a_0 + (n−1)T`, `f_i ≤ a_i + 2T`, so
/// `Σe ≤ 3(n−1)T` and `PERF ≤ ē / OPT_lower ≤ 3`. `Err` names the first step that fails.
fn theorem_5_holds(report: &Report, arrivals: &[Time], t: Time) -> Result<(), String> {
    let n = arrivals.len() as u64;
    if report.finish(0) > arrivals[0] + (n - 1) * t {
        return Err(format!("f_0 = {} > a_0 + (n−1)T", report.finish(0)));
    }
    receivers_within_2t(report, arrivals, t)?;
    let m = PapMetrics::new(arrivals, &report.finish_times().collect::<Vec<_>>());
    let (_, perf_upper) = m.perf(PapMode::NonBlocking, t);
    if perf_upper.is_some_and(|p| p > Ratio::new(3, 1)) {
        return Err(format!(
            "PERF ≤ {:.3} > 3",
            perf_upper.map_or(f64::NAN, Ratio::to_f64)
        ));
    }
    Ok(())
}

/// Theorem 6's proof: `f_i ≤ a_i + 2T`, `f_0 ≤ a_0 + Δ + 2T`, `Σe ≤ Δ + 2nT`, `PERF ≤ 3`.
fn theorem_6_holds(report: &Report, arrivals: &[Time], t: Time) -> Result<(), String> {
    let m = PapMetrics::new(arrivals, &report.finish_times().collect::<Vec<_>>());
    if report.finish(0) > arrivals[0] + m.delta + 2 * t {
        return Err(format!("f_0 = {} > a_0 + Δ + 2T", report.finish(0)));
    }
    receivers_within_2t(report, arrivals, t)?;
    let n = arrivals.len() as u128;
    if m.total_elapsed > u128::from(m.delta) + 2 * n * u128::from(t) {
        return Err(format!("Σe = {} > Δ + 2nT", m.total_elapsed));
    }
    let (_, perf_upper) = m.perf(PapMode::Blocking, t);
    if perf_upper.is_some_and(|p| p > Ratio::new(3, 1)) {
        return Err(format!(
            "PERF ≤ {:.3} > 3",
            perf_upper.map_or(f64::NAN, Ratio::to_f64)
        ));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Lemma 1's proof: `nearopt` gives `Σe ≤ nT` non-blocking (`= nT` when every process
    /// arrives with the root) and `Σe = Δ + nT` exactly blocking.
    #[test]
    fn pap_lemma_1_nearopt_is_within_t_non_blocking_and_delta_over_n_plus_t_blocking(
        (arrivals, t) in patterns()
    ) {
        let n = arrivals.len() as u128;
        let near = Nearopt::new(base(arrivals.len(), t), &arrivals).unwrap();
        let (_, nb) = run::<NearoptNode>(&near, &arrivals, PapMode::NonBlocking);
        prop_assert!(nb.total_elapsed <= n * u128::from(t));
        if arrivals.iter().all(|&a| a == 0) {
            prop_assert_eq!(nb.total_elapsed, n * u128::from(t));
        }
        prop_assert!(nb.mean_elapsed() <= nb.opt_upper(PapMode::NonBlocking, t));
        let (_, b) = run::<NearoptNode>(&near, &arrivals, PapMode::Blocking);
        prop_assert_eq!(b.total_elapsed, u128::from(b.delta) + n * u128::from(t));
        prop_assert_eq!(b.mean_elapsed(), b.opt_upper(PapMode::Blocking, t));
    }

    /// Lemma 2: no algorithm beats `OPT(PAP)`'s lower bound; every run of every algorithm has
    /// `ē ≥ (n−1)/n · T` (non-blocking) or `ē ≥ (Δ + (n−1)T)/n` (blocking).
    #[test]
    fn pap_lemma_2_every_run_is_at_least_the_lower_bound((arrivals, t) in patterns()) {
        for (name, mode, m) in every_run(&arrivals, t) {
            prop_assert!(lemma_2_holds(&m, mode, t), "{} {:?}: ē below Lemma 2", name, mode);
        }
    }

    /// The arrival automata never panic and never emit an invalid send (to themselves, to a rank
    /// that does not exist, or outside the send slot) on arbitrary messages from arbitrary
    /// ranks, including chains naming anything.
    #[test]
    fn arrival_automata_survive_arbitrary_peer_input(
        n in 2u32..12,
        inputs in proptest::collection::vec((0u32..16, 0u32..4, 0u64..5, proptest::collection::vec(0u32..16, 0..5)), 0..40)
    ) {
        let b = base(n as usize, 16);
        fuzz::<ArrivalNbNode>(&b, n, &inputs)?;
        fuzz::<ArrivalBNode>(&b, n, &inputs)?;
        fuzz::<FlatNode>(&Flat(b), n, &inputs)?;
        fuzz::<BinomialNode>(&Binomial(b), n, &inputs)?;
        fuzz::<LinearNode>(&Linear::new(b, 4).unwrap(), n, &inputs)?;
        fuzz::<ScatterAllgatherNode>(&ScatterAllgather::new(b).unwrap(), n, &inputs)?;
    }

    /// Theorem 5: `PERF(arrival_nb) ≤ 3` in the non-blocking model, on every pattern, with
    /// each step of the proof (`f_0 ≤ a_0 + (n−1)T`, `f_i ≤ a_i + 2T`).
    #[test]
    fn pap_theorem_5_arrival_nb_is_3_competitive((arrivals, t) in patterns()) {
        let (report, _) = run::<ArrivalNbNode>(&base(arrivals.len(), t), &arrivals, PapMode::NonBlocking);
        prop_assert_eq!(theorem_5_holds(&report, &arrivals, t), Ok(()));
    }

    /// A tie with the root resolves as if the root had come just after: on a balanced pattern
    /// (everyone at 0), every algorithm's run is, time doubled, the run in which the root
    /// arrives one unit after the receivers (half a unit of the original scale), each receiver
    /// waiting that one unit more: `Σe(2P, root at 1) = 2·Σe(P) + (n − 1)`. Acting first, the
    /// root committed its port before the receivers arriving with it had said so (`arrival_nb`,
    /// four processes at 0, `T = 10`: 70, against 43 with the root one unit late).
    #[test]
    fn a_tie_with_the_root_is_the_root_arriving_just_after((n, k) in (2usize..40, 1u64..4)) {
        // T a multiple of n, so that scatter-allgather's chunks double exactly with T.
        let t = k * n as u64;
        let together = vec![0; n];
        let mut root_after = vec![0; n];
        root_after[0] = 1;
        let tied = every_run(&together, t);
        let split = every_run(&root_after, 2 * t);
        for ((name, mode, m), (_, _, m2)) in tied.iter().zip(&split) {
            prop_assert_eq!(
                m2.total_elapsed,
                2 * m.total_elapsed + (n as u128 - 1),
                "{} {:?}", name, mode
            );
        }
    }

    /// Theorem 6: `PERF(arrival_b) ≤ 3` in the blocking model, with each step of the proof.
    #[test]
    fn pap_theorem_6_arrival_b_is_3_competitive((arrivals, t) in patterns()) {
        let (report, _) = run::<ArrivalBNode>(&base(arrivals.len(), t), &arrivals, PapMode::Blocking);
        prop_assert_eq!(theorem_6_holds(&report, &arrivals, t), Ok(()));
    }
}

/// `PERF`'s lower end, `ē / OPT_upper` (Lemma 1): what the proofs of Theorems 1–4 bound.
fn perf_at_least<A>(config: &A::Config, arrivals: &[Time], mode: PapMode, t: Time) -> f64
where
    A: Automaton<Msg = PapMsg, Value = Value>,
{
    let (_, m) = run::<A>(config, arrivals, mode);
    m.perf(mode, t).0.map_or(f64::NAN, Ratio::to_f64)
}

/// An algorithm as the theorems' proofs see it: its `PERF` lower end on a pattern and model.
type Perf<'a> = &'a dyn Fn(&[Time], PapMode) -> f64;

/// Theorem 1's claim: on the balanced pattern, `PERF ≥ (n−1)/2` in both models.
fn theorem_1_claim(n: usize, perf: Perf) -> Result<(), String> {
    for mode in MODES {
        let p = perf(&vec![0; n], mode);
        if p < (n as f64 - 1.0) / 2.0 {
            return Err(format!("{mode:?}, n = {n}: PERF ≥ {p:.3} only"));
        }
    }
    Ok(())
}

/// The claim of Theorems 2–4: non-blocking, with `p1` late by `Λ = 100·n·T`, `PERF ≥
/// Λ/(d·T)` (`d = n` for Lemma 3's forwarding argument, `d = 2` for Theorem 4's implicit
/// synchronization); blocking, with the ranks `late` late by `nT`, `PERF ≥ n/4`.
fn late_claim(n: usize, t: Time, d: f64, late: &[usize], perf: Perf) -> Result<(), String> {
    let lambda = 100 * n as u64 * t;
    let mut arrivals = vec![0; n];
    arrivals[1] = lambda;
    let nb = perf(&arrivals, PapMode::NonBlocking);
    if nb < lambda as f64 / (d * t as f64) {
        return Err(format!("non-blocking, n = {n}: PERF ≥ {nb:.3} only"));
    }
    let mut arrivals = vec![0; n];
    for &r in late {
        arrivals[r] = n as u64 * t;
    }
    let b = perf(&arrivals, PapMode::Blocking);
    if b < n as f64 / 4.0 {
        return Err(format!("blocking, n = {n}: PERF ≥ {b:.3} only"));
    }
    Ok(())
}

/// The root's children in the binomial tree: `1, 2, 4, …` (Theorem 2's late processes).
fn binomial_children(n: usize) -> Vec<usize> {
    core::iter::successors(Some(1usize), |c| Some(c * 2))
        .take_while(|&c| c < n)
        .collect()
}

/// The mutant every `Ω(n)` claim must reject: an algorithm that adapts to the pattern
/// (`arrival_nb` non-blocking, `arrival_b` blocking) passed off as the common algorithm.
fn adaptive(n: usize, t: Time) -> impl Fn(&[Time], PapMode) -> f64 {
    move |arrivals, mode| match mode {
        PapMode::NonBlocking => perf_at_least::<ArrivalNbNode>(&base(n, t), arrivals, mode, t),
        PapMode::Blocking => perf_at_least::<ArrivalBNode>(&base(n, t), arrivals, mode, t),
    }
}

/// Theorem 1: with every process arriving at once, flat's `Σe = (n−1)T + Σ_{i<n} iT`, so
/// `PERF(flat) ≥ (n−1)/2` in both models: the ratio grows linearly with `n`.
#[test]
fn pap_theorem_1_flat_is_omega_n_on_a_balanced_pattern() {
    let t = 10;
    for n in [4usize, 16, 64, 256] {
        for mode in MODES {
            let (_, m) = run::<FlatNode>(&Flat(base(n, t)), &vec![0; n], mode);
            let n = n as u128;
            let expected = (n - 1) * 10 + (n - 1) * n / 2 * 10;
            assert_eq!(m.total_elapsed, expected, "Σe of flat, n = {n}");
        }
        let flat = |a: &[Time], mode| perf_at_least::<FlatNode>(&Flat(base(n, t)), a, mode, t);
        assert_eq!(theorem_1_claim(n, &flat), Ok(()));
    }
}

/// Theorem 2: binomial. Non-blocking, a forwarder (rank 1) late by `Λ`: `PERF ≥ Λ/(nT)`,
/// growing with `Λ` (Lemma 3: unbounded). Blocking, the root's `lg n` children late by
/// `Λ = nT`: `PERF ≥ n/4`.
#[test]
fn pap_theorem_2_binomial_is_unbounded_non_blocking_and_omega_n_blocking() {
    let t = 10;
    for n in [8usize, 32, 128] {
        let b = Binomial(base(n, t));
        let binomial = |a: &[Time], mode| perf_at_least::<BinomialNode>(&b, a, mode, t);
        assert_eq!(
            late_claim(n, t, n as f64, &binomial_children(n), &binomial),
            Ok(())
        );
        let mut previous = 0.0;
        for lambda in [100 * n as u64 * t, 1000 * n as u64 * t] {
            let mut arrivals = vec![0; n];
            arrivals[1] = lambda;
            let perf = binomial(&arrivals, PapMode::NonBlocking);
            assert!(perf > previous, "n = {n}: PERF does not grow with Λ");
            previous = perf;
        }
    }
}

/// Theorem 3: linear pipelined, `p1` late by `Λ`: unbounded non-blocking, `PERF ≥ n/4`
/// blocking (with `Λ = nT`).
#[test]
fn pap_theorem_3_linear_pipelined_is_unbounded_non_blocking_and_omega_n_blocking() {
    let t = 16;
    for n in [8usize, 32, 128] {
        let linear = Linear::new(base(n, t), 4).unwrap();
        let perf = |a: &[Time], mode| perf_at_least::<LinearNode>(&linear, a, mode, t);
        assert_eq!(late_claim(n, t, n as f64, &[1], &perf), Ok(()));
    }
}

/// Theorem 4: scatter-allgather with `p1` late by `Λ`. Nobody finishes the allgather before
/// `p1` arrives (the implicit synchronization), so `ē ≥ Λ/2`: `PERF ≥ Λ/(2T)` non-blocking,
/// unbounded, and `PERF ≥ n/4` blocking when `Λ = nT`.
#[test]
fn pap_theorem_4_scatter_allgather_is_unbounded_non_blocking_and_omega_n_blocking() {
    for n in [8usize, 32, 128] {
        let t = 2 * n as u64;
        let sca = ScatterAllgather::new(base(n, t)).unwrap();
        let perf = |a: &[Time], mode| perf_at_least::<ScatterAllgatherNode>(&sca, a, mode, t);
        assert_eq!(late_claim(n, t, 2.0, &[1], &perf), Ok(()));
    }
}

/// One mutant per theorem of §3.3: each claim, applied to an algorithm that adapts to the
/// pattern instead of the one the theorem is about, fails. So none of the four claims holds
/// for every algorithm, and each test above can fail.
#[test]
fn mutant_each_omega_n_claim_fails_for_an_algorithm_that_adapts() {
    let n = 64;
    let err = theorem_1_claim(n, &adaptive(n, 10)).unwrap_err();
    assert!(err.contains("n = 64"), "Theorem 1: {err}");
    let err = late_claim(n, 10, n as f64, &binomial_children(n), &adaptive(n, 10)).unwrap_err();
    assert!(err.starts_with("non-blocking"), "Theorem 2: {err}");
    let err = late_claim(n, 16, n as f64, &[1], &adaptive(n, 16)).unwrap_err();
    assert!(err.starts_with("non-blocking"), "Theorem 3: {err}");
    let err = late_claim(n, 128, 2.0, &[1], &adaptive(n, 128)).unwrap_err();
    assert!(err.starts_with("non-blocking"), "Theorem 4: {err}");
    // And the blocking halves on their own.
    let blocking_only = |a: &[Time], mode| match mode {
        PapMode::NonBlocking => f64::INFINITY,
        PapMode::Blocking => adaptive(n, 10)(a, mode),
    };
    let err = late_claim(n, 10, n as f64, &binomial_children(n), &blocking_only).unwrap_err();
    assert!(err.starts_with("blocking"), "Theorem 2, blocking: {err}");
}

/// Scatter-allgather without faults or imbalance: the scatter's chunks add up to `msize` and
/// every process gets all `n` chunks (`run` checks every process delivered once).
#[test]
fn scatter_allgather_delivers_everything_on_balanced_patterns() {
    for n in [1usize, 2, 3, 5, 8, 13, 64] {
        for msize in [n as u64, 7 * n as u64 + 3] {
            let sca = ScatterAllgather::new(base(n, msize)).unwrap();
            for mode in MODES {
                let (report, _) = run::<ScatterAllgatherNode>(&sca, &vec![0; n], mode);
                assert_eq!(report.ignored, 0, "n = {n}, msize = {msize}");
            }
        }
    }
    assert!(ScatterAllgather::new(base(8, 7)).is_err());
}

/// Theorems 5–6 on the adversarial patterns of Theorems 1–3: the aware algorithms stay
/// within 3 where the common ones grow with `n`.
#[test]
fn pap_theorems_5_6_hold_on_the_adversarial_patterns_of_theorems_1_to_3() {
    let t = 10;
    for n in [8usize, 32, 128] {
        let lambda = 100 * n as u64 * t;
        let mut late_forwarder = vec![0; n];
        late_forwarder[1] = lambda;
        let mut late_children = vec![0; n];
        let mut c = 1;
        while c < n {
            late_children[c] = lambda;
            c *= 2;
        }
        for arrivals in [vec![0; n], late_forwarder, late_children] {
            let b = base(n, t);
            let (nb, _) = run::<ArrivalNbNode>(&b, &arrivals, PapMode::NonBlocking);
            assert_eq!(theorem_5_holds(&nb, &arrivals, t), Ok(()));
            let (bl, _) = run::<ArrivalBNode>(&b, &arrivals, PapMode::Blocking);
            assert_eq!(theorem_6_holds(&bl, &arrivals, t), Ok(()));
        }
    }
}

/// A mutant of Theorem 5: `arrival_nb` without its sub-group broadcasts (Fig. 4 lines 4–5
/// removed) is the flat tree, and Theorem 5's check catches it on the balanced pattern.
#[test]
fn mutant_arrival_nb_without_subgroup_broadcasts_breaks_theorem_5() {
    let (n, t) = (16, 10);
    let arrivals = vec![0; n];
    let (report, _) = run::<FlatNode>(&Flat(base(n, t)), &arrivals, PapMode::NonBlocking);
    let err = theorem_5_holds(&report, &arrivals, t).unwrap_err();
    assert!(err.starts_with("f_"), "{err}");
}

/// A mutant of Theorem 6: a root that waits for every receiver's ARRIVED before one
/// sub-group broadcast (the implicit synchronization of Theorem 4's proof).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum WaitForAll {
    Root { arrived: Vec<Rank>, done: bool },
    Receiver(ArrivalBNode),
}

impl Automaton for WaitForAll {
    type Msg = PapMsg;
    type Value = Value;
    type Config = PapConfig;

    fn new(config: &PapConfig, rank: Rank) -> Self {
        if rank == 0 {
            Self::Root {
                arrived: Vec::new(),
                done: false,
            }
        } else {
            Self::Receiver(ArrivalBNode::new(config, rank))
        }
    }
    fn on_start(&mut self, c: &PapConfig, now: Time, out: &mut Outbox<PapMsg>) {
        match self {
            Self::Root { .. } => out.deliver(1),
            Self::Receiver(r) => r.on_start(c, now, out),
        }
    }
    fn on_message(
        &mut self,
        c: &PapConfig,
        now: Time,
        from: Rank,
        msg: PapMsg,
        out: &mut Outbox<PapMsg>,
    ) {
        match self {
            Self::Root { arrived, .. } => arrived.push(from),
            Self::Receiver(r) => r.on_message(c, now, from, msg, out),
        }
    }
    fn on_timer(&mut self, _: &PapConfig, _: Time, _: TimerId, _: &mut Outbox<PapMsg>) {}
    fn on_send_slot(&mut self, c: &PapConfig, now: Time, out: &mut Outbox<PapMsg>) {
        match self {
            Self::Root { arrived, done } => {
                if !*done && arrived.len() + 1 == c.procs() as usize {
                    *done = true;
                    // The chain travels last first (`PapMsg::Data::rest`).
                    let mut rest = core::mem::take(arrived);
                    rest.reverse();
                    let first = rest.pop().expect("n ≥ 2");
                    out.send(
                        first,
                        PapMsg::Data {
                            size: c.msize(),
                            index: 0,
                            rest,
                        },
                    );
                }
            }
            Self::Receiver(r) => r.on_send_slot(c, now, out),
        }
    }
}

#[test]
fn mutant_arrival_b_that_waits_for_everyone_breaks_theorem_6() {
    let (n, t) = (16, 10);
    let mut arrivals = vec![0; n];
    arrivals[1] = 1000;
    let (report, _) = run::<WaitForAll>(&base(n, t), &arrivals, PapMode::Blocking);
    let err = theorem_6_holds(&report, &arrivals, t).unwrap_err();
    assert!(err.starts_with("f_2"), "{err}");
    // The same pattern passes with the real arrival_b.
    let (good, _) = run::<ArrivalBNode>(&base(n, t), &arrivals, PapMode::Blocking);
    assert_eq!(theorem_6_holds(&good, &arrivals, t), Ok(()));
}

/// A mutant of Lemma 1: `nearopt` with its chain in rank order instead of arrival order.
/// Blocking, Lemma 1's `Σe = Δ + nT` fails on a pattern where the two orders differ.
#[test]
fn mutant_a_chain_in_rank_order_breaks_lemma_1() {
    let (n, t) = (4, 10);
    let arrivals = [0, 50, 20, 0];
    let rank_order = Nearopt::new(base(n, t), &[0; 4]).unwrap();
    let (_, m) = run::<NearoptNode>(&rank_order, &arrivals, PapMode::Blocking);
    assert_ne!(m.total_elapsed, u128::from(m.delta) + 4 * 10);
    let near = Nearopt::new(base(n, t), &arrivals).unwrap();
    let (_, m) = run::<NearoptNode>(&near, &arrivals, PapMode::Blocking);
    assert_eq!(m.total_elapsed, u128::from(m.delta) + 4 * 10);
}

/// A mutant of Lemma 2: receivers that "deliver" on arrival without any message. Lemma 2's
/// check rejects it (nothing beats the lower bound honestly).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Cheat;

impl Automaton for Cheat {
    type Msg = PapMsg;
    type Value = Value;
    type Config = PapConfig;
    fn new(_: &PapConfig, _: Rank) -> Self {
        Cheat
    }
    fn on_start(&mut self, _: &PapConfig, _: Time, out: &mut Outbox<PapMsg>) {
        out.deliver(1);
    }
    fn on_message(&mut self, _: &PapConfig, _: Time, _: Rank, _: PapMsg, _: &mut Outbox<PapMsg>) {}
    fn on_timer(&mut self, _: &PapConfig, _: Time, _: TimerId, _: &mut Outbox<PapMsg>) {}
    fn on_send_slot(&mut self, _: &PapConfig, _: Time, _: &mut Outbox<PapMsg>) {}
}

#[test]
fn mutant_delivering_without_the_message_breaks_lemma_2() {
    let arrivals = [0, 3, 7, 7];
    for mode in MODES {
        let (_, m) = run::<Cheat>(&base(4, 10), &arrivals, mode);
        assert!(!lemma_2_holds(&m, mode, 10), "{mode:?}");
    }
}

/// The case that showed the tie: four processes arriving at 0 with `T = 10` take `nT = 40` in
/// all under `arrival_nb` (one sub-group broadcast of the three receivers), not 70.
#[test]
fn arrival_nb_on_a_balanced_pattern_takes_one_transfer() {
    let (_, m) = run::<ArrivalNbNode>(&base(4, 10), &[0, 0, 0, 0], PapMode::NonBlocking);
    assert_eq!(m.total_elapsed, 40);
}

/// No ordering of simultaneous events makes `arrival_nb` monotone in the arrivals: the
/// algorithm itself is not. With distinct arrivals `[0, 2, 23, 12, 1]`, `T = 11`, rank 4
/// arriving 19 units later (at 20) lowers `Σe` from 116 to 76: the root's online choices (serve
/// the group that has arrived, else send to one that has not, PAP Fig. 4) commit its port
/// differently. A later arrival can make the broadcast faster; what PAP proves is the
/// competitive ratio (Theorem 5), which both runs keep. By hand (e_i = f_i − a_i): early, the
/// root sends to 1 (0..11), then serves the ARRIVED of 4 (11..22), 3 (22..33), 2 (33..44):
/// 44 + 9 + 21 + 21 + 21 = 116; late, it sends to 1 (0..11) and, nobody having arrived, to 2
/// (11..22, buffered until 23), then chains 3 and 4 (22..33): 33 + 9 + 0 + 21 + 13 = 76.
#[test]
fn arrival_nb_is_not_monotone_in_the_arrivals() {
    let b = base(5, 11);
    let (_, early) = run::<ArrivalNbNode>(&b, &[0, 2, 23, 12, 1], PapMode::NonBlocking);
    let (_, late) = run::<ArrivalNbNode>(&b, &[0, 2, 23, 12, 20], PapMode::NonBlocking);
    assert_eq!((early.total_elapsed, late.total_elapsed), (116, 76));
}

#[test]
fn bad_parameters_are_refused_with_the_field_and_range() {
    assert_eq!(
        PapConfig::new(0, 5).unwrap_err().to_string(),
        "procs: 0 is out of range: allowed 1..=4294967295"
    );
    assert!(PapConfig::new(4, 0)
        .unwrap_err()
        .to_string()
        .starts_with("msize: 0"));
    let b = base(4, 8);
    assert_eq!(
        Linear::new(b, 9).unwrap_err().to_string(),
        "segments: 9 is out of range: allowed 1..=msize"
    );
    assert!(Nearopt::new(b, &[0, 1]).is_err());
}
