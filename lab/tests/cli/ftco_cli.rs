//! `ftcoll simulate --collective …` (and its alias `ftco-simulate`): FTCO Table 2's fault-free
//! row as the CLI prints it, determinism, faults never on a root, the imbalance extension and
//! root replacement, and the bad-input contract (exit 2, one line naming the flag).

use crate::cli_common;

use cli_common::{assert_usage_error, small_ct, stdout};
use serde_json::Value;

/// The JSON rows of a run that must succeed.
fn rows(args: &[&str]) -> Vec<Value> {
    stdout(args)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON object per line"))
        .collect()
}

/// FTCO Table 2, fault-free row (§5.2.4): P = 65,536, multi-root k-nomial with the best k
/// (9, R = 9), L = 10, Allreduce: latency 171, 3 messages per node, output spread 43, longest
/// queue 9.
#[test]
fn ftco_simulate_prints_table_2_fault_free_row() {
    let args = [
        "simulate",
        "--procs",
        "65536",
        "--collective",
        "allreduce",
        "--topology",
        "knomial:best",
        "--roots",
        "k",
        "-L",
        "10",
    ];
    let rows = rows(&args);
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert_eq!(row["topology"], "knomial:9");
    assert_eq!(row["roots"], 9);
    assert_eq!(row["o"], 1);
    assert_eq!(row["latency"], 171);
    assert_eq!(row["work"], 3);
    assert_eq!(row["messages"], 3 * 65_536);
    assert_eq!(row["keepalive"], 0);
    assert_eq!(row["spread"], 43);
    assert_eq!(row["longest_queue"], 9);
    assert_eq!(row["completions"], 65_536);
    assert_eq!(row["incomplete"], 0);
    assert_eq!(row["faults"], serde_json::json!([]));
    // Sum of rank + 1 over every rank.
    assert_eq!(row["result"], 65_536u64 * 65_537 / 2);
    // The same row in CSV and as a table.
    let csv = stdout(&[&args[..], &["--format", "csv"]].concat());
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let values: Vec<&str> = lines.next().unwrap().split(',').collect();
    let get = |k: &str| values[header.iter().position(|h| *h == k).unwrap()];
    assert_eq!(
        [
            get("latency"),
            get("work"),
            get("spread"),
            get("longest_queue")
        ],
        ["171", "3", "43", "9"]
    );
    // Without arrivals FinishTime_last − StartTime_last is the latency.
    assert_eq!(row["latency_from_last_start"], 171);
    // `ftco-simulate` is the same code path: the same bytes.
    let alias = [&["ftco-simulate"], &args[1..]].concat();
    assert_eq!(stdout(&alias), stdout(&args));
}

fn small(extra: &[&str]) -> Vec<String> {
    let base = [
        "ftco-simulate",
        "--procs",
        "300",
        "--collective",
        "allreduce",
        "--topology",
        "kary:3",
        "--roots",
        "3",
        "-L",
        "4",
    ];
    base.iter().chain(extra).map(|s| s.to_string()).collect()
}

fn run_small(extra: &[&str]) -> String {
    let args = small(extra);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    stdout(&refs)
}

#[test]
fn ftco_simulate_is_deterministic_and_keeps_faults_off_the_roots() {
    for service in ["none", "rsd", "disd"] {
        let extra = [
            "--fault-rate",
            "0.05",
            "--crash-at",
            "40@20,41@60",
            "--arrival",
            "uniform:5",
            "--service",
            service,
            "--runs",
            "4",
            "--seed",
            "7",
        ];
        let a = run_small(&extra);
        assert_eq!(a, run_small(&extra), "--service {service}");
        let rows: Vec<Value> = a
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(rows.len(), 4);
        for row in &rows {
            let faults = row["faults"].as_array().unwrap();
            assert!(faults.iter().all(|f| f.as_u64().unwrap() >= 3), "{row}");
            // Every live process completes, and the result counts the roots.
            assert_eq!(row["incomplete"], 0, "{row}");
            assert!(row["result"].as_u64().unwrap() >= 6, "{row}");
        }
        // Another seed draws other faults.
        let other = run_small(&[&extra[..10], &["--seed", "8"]].concat());
        assert_ne!(a, other);
    }
    // --fault-count draws among the non-roots only: all of them.
    let rows: Vec<Value> = run_small(&["--fault-count", "297"])
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let faults = rows[0]["faults"].as_array().unwrap();
    assert_eq!(faults.len(), 297);
    assert_eq!(faults[0], 3);
    assert_eq!(rows[0]["completions"], 3);
    assert_eq!(rows[0]["result"], 6);
}

#[test]
fn ftco_simulate_every_collective_and_operator_fault_free() {
    for (collective, completions) in [("bcast", 10), ("reduce", 1), ("allreduce", 10)] {
        for (op, result) in [("sum", 55), ("min", 1), ("max", 10)] {
            let out = stdout(&[
                "ftco-simulate",
                "--procs",
                "10",
                "--collective",
                collective,
                "--topology",
                "knomial:2",
                "--op",
                op,
            ]);
            let row: Value = serde_json::from_str(out.trim()).unwrap();
            assert_eq!(row["completions"], completions, "{collective} {op}");
            assert_eq!(row["incomplete"], 0, "{collective} {op}");
            // Bcast sends rank 0's operand, 1.
            let expected = if collective == "bcast" { 1 } else { result };
            assert_eq!(row["result"], expected, "{collective} {op}");
        }
    }
}

#[test]
fn ftco_simulate_refuses_bad_input_with_one_line_naming_the_flag() {
    let with = |extra: &[&str]| small(extra);
    let check = |extra: &[&str], flag: &str| {
        let args = with(extra);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_usage_error(&refs, flag);
    };
    check(&["-o", "2"], "-o");
    check(&["-o", "x"], "-o");
    check(&["--faults", "5,2"], "--faults");
    check(&["--faults", "0"], "--faults");
    check(&["--faults", "300"], "--faults");
    check(&["--crash-at", "1@10"], "--crash-at");
    check(&["--crash-at", "400@10"], "--crash-at");
    check(&["--faults", "9", "--crash-at", "9@10"], "--crash-at");
    check(&["--fault-count", "298"], "--fault-count");
    check(&["--fault-rate", "1.5"], "--fault-rate");
    check(&["--roots", "301"], "--roots");
    check(&["--roots", "0"], "--roots");
    check(&["--roots", "many"], "--roots");
    check(&["--topology", "kary:1"], "--topology");
    check(&["--topology", "knomial:65537"], "--topology");
    check(&["--topology", "binomial"], "--topology");
    check(&["--collective", "gather"], "--collective");
    check(&["--service", "rsd:1"], "--service");
    check(&["--op", "prod"], "--op");
    check(&["--imbalance", "on"], "--imbalance");
    check(&["--root-failure", "never"], "--root-failure");
    // Root replacement is a single-root reduce or allreduce option.
    check(&["--root-failure", "replaced"], "--root-failure");
    // Without replacement rank 0 is immune, with it rank 0 may fail.
    let single = |extra: &[&str]| {
        let mut a = vec![
            "simulate",
            "--procs",
            "40",
            "--collective",
            "reduce",
            "--topology",
            "kary:2",
        ];
        a.extend_from_slice(extra);
        a.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let refs = |v: &[String]| {
        v.iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join("\u{1}")
    };
    for (extra, flag) in [
        (&["--faults", "0"][..], "--faults"),
        (&["--crash-at", "0@5"][..], "--crash-at"),
        (&["--fault-count", "40"][..], "--fault-count"),
        (
            &["--root-failure", "replaced", "--fault-count", "41"][..],
            "--fault-count",
        ),
        (
            &["--root-failure", "replaced", "--collective", "bcast"][..],
            "--collective",
        ),
    ] {
        let args = refs(&single(extra));
        assert_usage_error(&args.split('\u{1}').collect::<Vec<_>>(), flag);
    }
    stdout(&[
        "simulate",
        "--procs",
        "40",
        "--collective",
        "reduce",
        "--topology",
        "kary:2",
        "--root-failure",
        "replaced",
        "--faults",
        "0",
    ]);
    // FTCO needs its tree, and ftco-simulate needs --collective.
    assert_usage_error(
        &["simulate", "--procs", "40", "--collective", "bcast"],
        "--topology",
    );
    assert_usage_error(
        &["ftco-simulate", "--procs", "40", "--topology", "kary:2"],
        "--collective",
    );
    assert_usage_error(
        &[
            "ftco-simulate",
            "--procs",
            "40",
            "--tree",
            "binomial",
            "--correction",
            "checked",
        ],
        "--collective",
    );
    check(&["--timeout-round-trip", "0"], "--timeout-round-trip");
    check(&["-L", "65536"], "-L");
    // Corrected Tree flags are not FTCO's.
    check(&["--correction", "checked"], "--correction");
    check(&["--tree", "binomial"], "--tree");
    check(&["--start", "sync"], "--start");
    check(&["--model", "dual"], "--model");
    check(&["--first-side", "left"], "--first-side");
    check(&["--order", "in-order"], "--order");
    // And FTCO's flags are not Corrected Tree's.
    let ct = cli_common::small_ct("simulate");
    for flag in ["--collective", "--topology", "--roots", "--service", "--op"] {
        assert_usage_error(&[&ct[..], &[flag, "x"]].concat(), flag);
    }
    // Valid FTCO values without --collective are refused by name, too.
    for (flag, value) in [
        ("--topology", "kary:2"),
        ("--roots", "2"),
        ("--service", "disd"),
        ("--op", "min"),
        ("--imbalance", "alg5"),
        ("--root-failure", "replaced"),
        ("--timeout-round-trip", "9"),
    ] {
        assert_usage_error(&[&ct[..], &[flag, value]].concat(), flag);
    }
    // Memory admission before allocation.
    assert_usage_error(
        &[
            "--memory-limit",
            "64M",
            "simulate",
            "--procs",
            "4294967295",
            "--collective",
            "bcast",
            "--topology",
            "kary:2",
        ],
        "--procs",
    );
}

#[test]
fn ftco_simulate_streams_tables_and_writes_a_trace() {
    let table = run_small(&["--format", "table", "--runs", "3"]);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 4);
    assert!(lines[0].trim_start().starts_with("procs"));
    assert!(lines.iter().all(|l| l.len() == lines[0].len()), "{table}");
    let path = std::env::temp_dir().join(format!("ftcoll-ftco-trace-{}.json", std::process::id()));
    let arg = path.display().to_string();
    run_small(&["--trace", &arg, "--faults", "9"]);
    let trace = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    let json: Value = serde_json::from_str(&trace).unwrap();
    assert!(!json["traceEvents"].as_array().unwrap().is_empty());
}

/// `simulate --help` shows FTCO's flags under their own heading after the Corrected Tree's,
/// and `ftco-simulate` has the same flags (one declaration).
#[test]
fn simulate_help_shows_both_families_and_the_alias_shares_its_flags() {
    let full = stdout(&["simulate", "--help"]);
    let help = &full[full.find("Options:").unwrap()..];
    let at = |s: &str| help.find(s).unwrap_or_else(|| panic!("{s} not in help"));
    let (ct, ftco) = help.split_at(at("FTCO (with --collective):"));
    for flag in ["--tree", "--correction", "--start", "--model"] {
        assert!(ct.contains(&format!("{flag} <")), "{flag}");
    }
    for flag in [
        "--collective",
        "--topology",
        "--roots",
        "--service",
        "--op",
        "--imbalance",
        "--root-failure",
        "--timeout-round-trip",
    ] {
        assert!(ftco.contains(&format!("{flag} <")), "{flag}");
        assert!(!ct.contains(&format!("{flag} <")), "{flag}");
    }
    let alias = stdout(&["ftco-simulate", "--help"]);
    let options = |h: &str| h[h.find("Options:").unwrap()..].to_string();
    assert_eq!(options(&alias), options(&full));
}

/// FTCO App. B, Alg. 5 (`--imbalance alg5`): processes arriving over a spread are reachable
/// before they enter, so every operand is in the result (the sum of `rank + 1` over all ranks,
/// P(P + 1)/2) and every process completes; no arrivals make Alg. 5 the plain algorithm.
#[test]
fn imbalance_alg5_keeps_every_operand_and_is_plain_without_arrivals() {
    let procs = 256u64;
    let full = procs * (procs + 1) / 2;
    let base = |extra: &[&str]| {
        let mut a: Vec<String> = [
            "simulate",
            "--procs",
            "256",
            "--collective",
            "allreduce",
            "--topology",
            "knomial:4",
            "--roots",
            "k",
            "-L",
            "10",
            "--runs",
            "3",
            "--format",
            "csv",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        a.extend(extra.iter().map(|s| s.to_string()));
        let refs: Vec<&str> = a.iter().map(String::as_str).collect();
        stdout(&refs)
    };
    for arrival in ["uniform:1024", "normal:512"] {
        let out = base(&["--imbalance", "alg5", "--arrival", arrival, "--seed", "5"]);
        let mut lines = out.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let col = |k: &str| header.iter().position(|h| *h == k).unwrap();
        for l in lines {
            let v: Vec<&str> = l.split(',').collect();
            assert_eq!(v[col("imbalance")], "alg5");
            assert_eq!(v[col("result")], full.to_string(), "{arrival}: {l}");
            assert_eq!(v[col("incomplete")], "0", "{arrival}: {l}");
            assert_eq!(v[col("completions")], procs.to_string(), "{arrival}: {l}");
        }
    }
    let plain = base(&[]);
    let alg5 = base(&["--imbalance", "alg5"]);
    assert_eq!(plain.replace(",off,", ",alg5,"), alg5);
}

/// End of FTCO §4 (`--root-failure replaced`): rank 0 of a single-root Allreduce fails before
/// the operation; its children replace it and every other process completes (P − 1 of them).
#[test]
fn root_replacement_completes_without_rank_0() {
    let out = stdout(&[
        "simulate",
        "--procs",
        "40",
        "--collective",
        "allreduce",
        "--topology",
        "kary:2",
        "--root-failure",
        "replaced",
        "--faults",
        "0",
    ]);
    let row: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(row["root_failure"], "replaced");
    assert_eq!(row["faults"], serde_json::json!([0]));
    assert_eq!(row["completions"], 39);
    assert_eq!(row["incomplete"], 0);
    // Random draws include rank 0 only with replacement: all 40 ranks fail with rate 1.
    let all = stdout(&[
        "simulate",
        "--procs",
        "40",
        "--collective",
        "allreduce",
        "--topology",
        "kary:2",
        "--root-failure",
        "replaced",
        "--fault-rate",
        "1",
    ]);
    let row: Value = serde_json::from_str(all.trim()).unwrap();
    assert_eq!(row["faults"].as_array().unwrap().len(), 40);
}

/// FTCO §5.2.4's output spread leaves rank 0 out: a Bcast's is no longer its latency.
#[test]
fn ftco_simulate_output_spread_leaves_out_the_root() {
    let rows = rows(&[
        "simulate",
        "--procs",
        "4096",
        "--collective",
        "bcast",
        "--topology",
        "knomial:4",
        "-L",
        "10",
    ]);
    // The first non-root delivery is rank 0's first child's, one hop (L + 2) after 0.
    assert_eq!(
        (&rows[0]["latency"], &rows[0]["spread"]),
        (&84.into(), &72.into())
    );
}

/// `--arrival symnormal:SIGMA`: a symmetric normal, the earliest rank at 0; run `i` of a sweep
/// is run `i` of `simulate`; a Corrected Tree run takes it too; out-of-range values are refused.
#[test]
fn ftco_simulate_symmetric_normal_arrivals() {
    // One point, run by `simulate` and by `sweep`.
    let point_args = [
        "--procs",
        "300",
        "--collective",
        "allreduce",
        "--topology",
        "knomial:3",
        "-L",
        "10",
        "--imbalance",
        "alg5",
        "--runs",
        "2",
    ];
    let base = [&["simulate"][..], &point_args, &["--format", "csv"]].concat();
    let sym = stdout(&[&base[..], &["--arrival", "symnormal:30"]].concat());
    let half = stdout(&[&base[..], &["--arrival", "normal:30"]].concat());
    assert_ne!(sym, half);
    assert_eq!(
        sym,
        stdout(&[&base[..], &["--arrival", "symnormal:30"]].concat())
    );
    // Every operand of a live process is in (Sum of rank + 1 over 300 ranks).
    assert!(sym.lines().skip(1).all(|l| l.ends_with(",45150")), "{sym}");
    let sweep = stdout(
        &[
            &["sweep"][..],
            &point_args,
            &["--arrival", "symnormal:30", "--format", "json"],
        ]
        .concat(),
    );
    let point: Value =
        serde_json::from_str(sweep.lines().find(|l| l.starts_with("{\"point\"")).unwrap())
            .expect("a JSON point");
    let header: Vec<&str> = sym.lines().next().unwrap().split(',').collect();
    let col = header.iter().position(|h| *h == "latency").unwrap();
    let latencies: Vec<f64> = sym
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(col).unwrap().parse().unwrap())
        .collect();
    let mean = latencies.iter().sum::<f64>() / 2.0;
    assert_eq!(point["arrival"], "symnormal:30");
    assert_eq!(
        point["metrics"]["latency"]["mean"].as_f64(),
        Some(mean),
        "{point}"
    );
    // A pattern of the scenario like any other: a Corrected Tree run takes it too.
    let ct = stdout(
        &[
            &small_ct("simulate")[..],
            &[
                "--start",
                "sync",
                "--arrival",
                "symnormal:3",
                "--format",
                "csv",
            ],
        ]
        .concat(),
    );
    assert_eq!(ct.lines().count(), 2, "{ct}");
    // Beyond its range: refused, naming the flag.
    assert_usage_error(
        &[
            &base[..5],
            &[
                "--topology",
                "knomial:3",
                "--arrival",
                "symnormal:357913942",
            ],
        ]
        .concat(),
        "--arrival",
    );
}
