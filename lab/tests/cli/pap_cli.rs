//! `ftcoll pap-simulate` end to end: exact numbers derived by hand (flat on a balanced pattern,
//! PAP Theorem 1's `Σe`; nearopt blocking, Lemma 1's `Σe = Δ + nT` with `Δ` from a pattern drawn
//! here independently of the CLI), the JSON and CSV shapes, determinism, and the bad-input
//! contract (exit 2, one line naming the flag).

use crate::cli_common;

use cli_common::{assert_usage_error, stdout};
use ftcoll::rng::SplitMix64;

/// The CSV output as `(header, rows)`.
fn csv(args: &[&str]) -> (Vec<String>, Vec<Vec<String>>) {
    let mut args = args.to_vec();
    args.extend(["--format", "csv"]);
    let text = stdout(&args);
    let mut lines = text.lines();
    let header = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines
        .map(|l| l.split(',').map(String::from).collect())
        .collect();
    (header, rows)
}

fn cell<'a>(header: &[String], row: &'a [String], name: &str) -> &'a str {
    let i = header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"));
    &row[i]
}

#[test]
fn flat_on_a_balanced_pattern_is_theorem_1s_sum() {
    // PAP Theorem 1's proof: the root sends to 1, 2, …, n−1 in turn; receiver i leaves at
    // i·T, the root at (n−1)T: Σe = (n−1)T + T·n(n−1)/2. n = 16, T = 7: 105 + 840 = 945.
    for mode in ["blocking", "non-blocking"] {
        let (h, rows) = csv(&[
            "pap-simulate",
            "--pap",
            "flat",
            "--procs",
            "16",
            "--msize",
            "7",
            "--mode",
            mode,
        ]);
        assert_eq!(rows.len(), 1);
        let r = &rows[0];
        assert_eq!(cell(&h, r, "total_elapsed"), "945");
        assert_eq!(cell(&h, r, "mean_elapsed"), "59.0625");
        assert_eq!(cell(&h, r, "worst_elapsed"), "105");
        assert_eq!(cell(&h, r, "data_messages"), "15");
        assert_eq!(cell(&h, r, "control_messages"), "0");
        // Balanced: Lemma 1 gives OPT ≤ T (Δ = 0), Lemma 2 OPT ≥ (n−1)T/n; PERF in
        // [945/16/7, 945/15/7] = [8.4375, 9].
        assert_eq!(cell(&h, r, "perf_low"), "8.4375");
        assert_eq!(cell(&h, r, "perf_high"), "9.0");
    }
}

/// `random:MAX_IF:UNIT` as docs/reference/drivers.md ("Arrivals") specifies the draw, reimplemented
/// here: run `r` uses
/// `SplitMix64::stream(seed, r)`, one `below(MAX_IF)` per rank from 0 up, times UNIT, used as
/// drawn (PAP runs keep the root's time; receivers before it wait for it).
fn random_pattern(procs: usize, max_if: u64, unit: u64, seed: u64, run: u64) -> Vec<u64> {
    let mut rng = SplitMix64::stream(seed, run);
    (0..procs).map(|_| rng.below(max_if) * unit).collect()
}

#[test]
fn nearopt_blocking_is_lemma_1_on_independently_drawn_patterns() {
    let (n, t, max_if, seed) = (24usize, 13u64, 9u64, 5u64);
    let (h, rows) = csv(&[
        "pap-simulate",
        "--pap",
        "nearopt",
        "--procs",
        "24",
        "--msize",
        "13",
        "--arrival",
        "random:9:13",
        "--seed",
        "5",
        "--runs",
        "4",
    ]);
    assert_eq!(rows.len(), 4);
    let mut spreads = Vec::new();
    for (run, r) in rows.iter().enumerate() {
        let a = random_pattern(n, max_if, t, seed, run as u64);
        let delta = a.iter().max().unwrap() - a[0];
        // PAP §3.1: a receiver before the root counts as arriving with it, plus its wait.
        let early: u64 = a.iter().map(|&x| a[0].saturating_sub(x)).sum();
        spreads.push((delta, early));
        assert_eq!(cell(&h, r, "run"), run.to_string());
        assert_eq!(cell(&h, r, "delta"), delta.to_string(), "run {run}");
        // Lemma 1 on the clamped pattern, plus the waits: Σe = Δ + nT + Σ(a_0 − a_i)⁺ exactly.
        assert_eq!(
            cell(&h, r, "total_elapsed"),
            (delta + n as u64 * t + early).to_string(),
            "run {run}"
        );
        assert_eq!(cell(&h, r, "perf_low"), "1.0");
    }
    // The runs draw different patterns (else the check above proves little).
    spreads.sort_unstable();
    spreads.dedup();
    assert!(spreads.len() > 1, "{spreads:?}");
    assert!(
        spreads.iter().any(|&(_, early)| early > 0),
        "no receiver before the root: {spreads:?}"
    );
}

#[test]
fn json_lines_carry_every_measure_and_seeds_are_deterministic() {
    let args = [
        "pap-simulate",
        "--pap",
        "arrival-b",
        "--procs",
        "32",
        "--msize",
        "64",
        "--arrival",
        "late:0.2:640",
        "--runs",
        "3",
        "--seed",
        "9",
    ];
    let a = stdout(&args);
    assert_eq!(a, stdout(&args), "same seed, different bytes");
    let mut other = args.to_vec();
    let last = other.len() - 1;
    other[last] = "10";
    assert_ne!(a, stdout(&other), "seeds 9 and 10 gave the same runs");
    for line in a.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        for key in [
            "mean_elapsed",
            "total_elapsed",
            "worst_elapsed",
            "average_imbalance",
            "worst_imbalance",
            "delta",
            "average_imbalance_factor",
            "worst_imbalance_factor",
            "opt_lower",
            "opt_upper",
            "perf_low",
            "perf_high",
            "data_messages",
            "control_messages",
        ] {
            assert!(v[key].is_number(), "{key} in {line}");
        }
        assert_eq!(v["algorithm"], "arrival-b");
        assert_eq!(v["arrival"], "late:0.2:640");
        // Theorem 6.
        assert!(v["perf_high"].as_f64().unwrap() <= 3.0, "{line}");
    }
    // The table has a header and one line per run.
    let mut table = args.to_vec();
    table.extend(["--format", "table"]);
    let t = stdout(&table);
    assert_eq!(t.lines().count(), 4, "{t}");
    assert!(t.lines().next().unwrap().contains("perf_high"));
}

#[test]
fn bad_input_exits_2_naming_the_flag() {
    let base = ["pap-simulate", "--procs", "16", "--msize", "64"];
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        let mut v = base.to_vec();
        v.extend_from_slice(extra);
        v
    };
    assert_usage_error(&with(&["--pap", "bogus"]), "--pap");
    assert_usage_error(&with(&["--pap", "linear:0"]), "--pap");
    assert_usage_error(&with(&["--pap", "linear:65"]), "--pap");
    assert_usage_error(&with(&["--pap", "flat", "--mode", "sometimes"]), "--mode");
    assert_usage_error(
        &with(&["--pap", "flat", "--arrival", "random:0:5"]),
        "--arrival",
    );
    assert_usage_error(&with(&["--pap", "flat", "--runs", "0"]), "--runs");
    assert_usage_error(&with(&["--pap", "flat", "--format", "xml"]), "--format");
    assert_usage_error(
        &[
            "pap-simulate",
            "--pap",
            "sca-all",
            "--procs",
            "16",
            "--msize",
            "15",
        ],
        "--msize",
    );
    assert_usage_error(
        &[
            "pap-simulate",
            "--pap",
            "flat",
            "--procs",
            "0",
            "--msize",
            "4",
        ],
        "--procs",
    );
    assert_usage_error(
        &[
            "pap-simulate",
            "--pap",
            "flat",
            "--procs",
            "4",
            "--msize",
            "0",
        ],
        "--msize",
    );
    assert_usage_error(&["pap-simulate", "--procs", "4", "--msize", "4"], "--pap");
    // Admission: a run that would not fit is refused before anything is allocated.
    assert_usage_error(
        &[
            "pap-simulate",
            "--pap",
            "sca-all",
            "--procs",
            "100000",
            "--msize",
            "100000",
            "--memory-limit",
            "1G",
        ],
        "--procs",
    );
}
