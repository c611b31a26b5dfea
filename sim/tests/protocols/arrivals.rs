//! The arrival patterns of PAP (`ArrivalSpec::{Random, Late, Times}`, docs/reference/drivers.md
//! "Arrivals"): their bounds and distribution, PAP §3.1's root rule, the documented draw order
//! (re-derived here from `SplitMix64` directly) and determinism per seed.

use ftcoll::rng::SplitMix64;
use ftcoll::topology::LogP;
use ftcoll_sim::scenario::{draw_arrivals, ArrivalSpec, ScenarioSpec};

fn spec(procs: u32, arrivals: ArrivalSpec) -> ScenarioSpec {
    ScenarioSpec::new(procs, LogP::new(2, 1).unwrap()).with_arrivals(arrivals)
}

fn arrivals(procs: u32, a: ArrivalSpec, seed: u64, run: u64) -> Vec<u64> {
    spec(procs, a).build(seed, run).unwrap().0.arrivals
}

#[test]
fn random_is_pap_fig6_shifted_to_the_root() {
    let (max_if, unit) = (5u64, 7u64);
    for seed in 0..40 {
        let got = arrivals(300, ArrivalSpec::Random { max_if, unit }, seed, seed % 3);
        // Documented order: one below(MAX_IF) per rank 0..P, the root's first (no fault draws).
        let mut rng = SplitMix64::stream(seed, seed % 3);
        let r: Vec<u64> = (0..300).map(|_| rng.below(max_if)).collect();
        let want: Vec<u64> = r
            .iter()
            .map(|&x| x.max(r[0]) - r[0])
            .map(|x| x * unit)
            .collect();
        assert_eq!(got, want, "seed {seed}");
        assert_eq!(got[0], 0, "the root arrives at 0");
        assert!(got
            .iter()
            .all(|&t| t % unit == 0 && t <= (max_if - 1) * unit));
    }
}

#[test]
fn random_reaches_every_multiple_of_the_unit() {
    // Over many runs some root draws r = 0, so every r·UNIT for r in 0..MAX_IF occurs, and no
    // other value does.
    let mut seen = std::collections::BTreeSet::new();
    for run in 0..64 {
        seen.extend(arrivals(
            200,
            ArrivalSpec::Random {
                max_if: 4,
                unit: 10,
            },
            9,
            run,
        ));
    }
    assert_eq!(seen.into_iter().collect::<Vec<_>>(), vec![0, 10, 20, 30]);
}

#[test]
fn random_with_max_if_one_is_everyone_at_zero() {
    let got = arrivals(
        50,
        ArrivalSpec::Random {
            max_if: 1,
            unit: 99,
        },
        3,
        0,
    );
    assert_eq!(got, vec![0; 50]);
}

#[test]
fn late_never_delays_the_root_and_delays_about_the_fraction() {
    let procs = 10_000u32;
    for seed in 0..8 {
        let got = arrivals(
            procs,
            ArrivalSpec::Late {
                fraction: 0.3,
                delay: 500,
            },
            seed,
            0,
        );
        assert_eq!(got.len(), procs as usize);
        assert_eq!(got[0], 0, "the root is never late");
        assert!(got.iter().all(|&t| t == 0 || t == 500));
        let late = got.iter().filter(|&&t| t == 500).count() as f64;
        // Binomial(9999, 0.3): sd ≈ 46; ±250 is more than five sd.
        assert!(
            (late - 0.3 * 9999.0).abs() < 250.0,
            "seed {seed}: {late} late"
        );
    }
    for seed in 0..50 {
        let all = arrivals(
            20,
            ArrivalSpec::Late {
                fraction: 1.0,
                delay: 9,
            },
            seed,
            1,
        );
        let mut want = vec![9; 20];
        want[0] = 0;
        assert_eq!(all, want);
        let none = arrivals(
            20,
            ArrivalSpec::Late {
                fraction: 0.0,
                delay: 9,
            },
            seed,
            1,
        );
        assert_eq!(none, vec![0; 20]);
    }
}

#[test]
fn late_draws_one_chance_per_non_root_rank() {
    // Whatever the fraction, the stream after the arrivals is the run's stream advanced by
    // P − 1 draws (what FTCO draws next, its RSD seed, does not depend on the fraction).
    for fraction in [0.0, 0.25, 1.0] {
        let s = spec(33, ArrivalSpec::Late { fraction, delay: 4 });
        let (_, _, mut after) = s.build_with_stream(5, 2).unwrap();
        let mut want = SplitMix64::stream(5, 2);
        for _ in 0..32 {
            want.next_u64();
        }
        assert_eq!(after.next_u64(), want.next_u64(), "fraction {fraction}");
    }
    // And which ranks are late follows the documented threshold test, rank 1 first.
    let got = arrivals(
        40,
        ArrivalSpec::Late {
            fraction: 0.5,
            delay: 3,
        },
        11,
        4,
    );
    let mut rng = SplitMix64::stream(11, 4);
    let mut want = vec![0u64];
    want.extend((1..40).map(|_| if rng.next_u64() < 1u64 << 63 { 3 } else { 0 }));
    assert_eq!(got, want);
}

#[test]
fn times_follow_the_root_rule_and_draw_nothing() {
    let s = spec(5, ArrivalSpec::Times(vec![10, 3, 25, 10, 11]));
    let (scenario, _, mut after) = s.build_with_stream(1, 0).unwrap();
    // Shifted by the root's 10; 3 arrives before the root: treated as the root's (PAP §3.1).
    assert_eq!(scenario.arrivals, vec![0, 0, 15, 0, 1]);
    assert_eq!(after.next_u64(), SplitMix64::stream(1, 0).next_u64());
    let mut rng = SplitMix64::new(0);
    assert_eq!(
        draw_arrivals(ArrivalSpec::Times(vec![0, 7, 2]), 3, &mut rng),
        vec![0, 7, 2]
    );
}

#[test]
fn draws_are_deterministic_per_seed() {
    for a in [
        ArrivalSpec::Random {
            max_if: 100,
            unit: 3,
        },
        ArrivalSpec::Late {
            fraction: 0.5,
            delay: 1000,
        },
    ] {
        let x = arrivals(500, a.clone(), 42, 7);
        assert_eq!(x, arrivals(500, a.clone(), 42, 7));
        assert_ne!(x, arrivals(500, a.clone(), 43, 7), "{a:?}: another seed");
        assert_ne!(x, arrivals(500, a.clone(), 42, 8), "{a:?}: another run");
    }
}

#[test]
fn existing_patterns_keep_their_draws_and_the_root_as_drawn() {
    // uniform: one below(SPREAD + 1) per rank, used as drawn (no root shift).
    let got = arrivals(64, ArrivalSpec::Uniform(1000), 8, 1);
    let mut rng = SplitMix64::stream(8, 1);
    let want: Vec<u64> = (0..64).map(|_| rng.below(1001)).collect();
    assert_eq!(got, want);
    assert!(
        (0..32).any(|run| arrivals(16, ArrivalSpec::Uniform(1000), 8, run)[0] > 0),
        "a uniform root draws its own arrival"
    );
}

#[cfg(feature = "serde")]
#[test]
fn new_patterns_round_trip_through_serde() {
    for a in [
        ArrivalSpec::Random { max_if: 3, unit: 4 },
        ArrivalSpec::Late {
            fraction: 0.25,
            delay: 8,
        },
        ArrivalSpec::Times(vec![0, 5, 2]),
    ] {
        let json = serde_json::to_string(&a).unwrap();
        assert_eq!(
            serde_json::from_str::<ArrivalSpec>(&json).unwrap(),
            a,
            "{json}"
        );
    }
}

/// `SymmetricNormal(σ)`: the earliest rank at 0, half the draws below the mean (a half-normal
/// puts 57.5 % there), standard deviation σ, 64 K draws spanning about 8 σ; twelve draws per
/// rank, as `Normal`; σ = 0 puts everyone at 0.
#[test]
fn symmetric_normal_starts_at_0_and_is_centred() {
    let mut rng = SplitMix64::new(7);
    let t = draw_arrivals(ArrivalSpec::SymmetricNormal(1000), 65_536, &mut rng);
    assert_eq!(t.len(), 65_536);
    assert_eq!(t.iter().min(), Some(&0));
    let n = t.len() as f64;
    let mean = t.iter().sum::<u64>() as f64 / n;
    let var = t.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / n;
    let below = t.iter().filter(|&&x| (x as f64) < mean).count() as f64 / n;
    assert!((below - 0.5).abs() < 0.01, "{below}");
    assert!((var.sqrt() / 1000.0 - 1.0).abs() < 0.02, "σ {}", var.sqrt());
    let max = *t.iter().max().unwrap();
    assert!((7000..9500).contains(&max), "max {max}");
    let mut a = SplitMix64::new(3);
    let mut b = SplitMix64::new(3);
    draw_arrivals(ArrivalSpec::SymmetricNormal(5), 10, &mut a);
    for _ in 0..120 {
        b.next_u64();
    }
    assert_eq!(a.next_u64(), b.next_u64());
    assert_eq!(
        draw_arrivals(ArrivalSpec::SymmetricNormal(0), 4, &mut a),
        [0, 0, 0, 0]
    );
}

/// A `σ` beyond `ArrivalSpec::MAX_SYMMETRIC_SIGMA` is refused by the scenario itself, naming
/// the field and the range, before anything is drawn; the largest allowed one builds.
#[test]
fn symmetric_normal_sigma_beyond_its_range_is_refused_by_the_scenario() {
    use ftcoll_sim::scenario::ScenarioError;
    let logp = LogP::new(2, 1).unwrap();
    let max = ArrivalSpec::MAX_SYMMETRIC_SIGMA;
    let spec =
        |sigma| ScenarioSpec::new(8, logp).with_arrivals(ArrivalSpec::SymmetricNormal(sigma));
    let err = spec(max + 1).build(1, 0).unwrap_err();
    assert_eq!(err, ScenarioError::SigmaOutOfRange { sigma: max + 1 });
    assert_eq!(
        err.to_string(),
        format!(
            "arrival: symmetric normal σ {} is out of range 0..={max}",
            max + 1
        )
    );
    assert!(spec(max).build(1, 0).is_ok());
}
