//! `ftcoll ftco-simulate`: FTCO Table 2's fault-free row as the CLI prints it, determinism,
//! faults never on a root, and the bad-input contract (exit 2, one line naming the flag).

mod cli_common;

use cli_common::{assert_usage_error, stdout};
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
        "ftco-simulate",
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
    let ct = [
        "simulate",
        "--procs",
        "16",
        "--tree",
        "binomial",
        "--correction",
        "checked",
    ];
    for flag in ["--collective", "--topology", "--roots", "--service", "--op"] {
        assert_usage_error(&[&ct[..], &[flag, "x"]].concat(), flag);
    }
    // Memory admission before allocation.
    assert_usage_error(
        &[
            "--memory-limit",
            "1M",
            "ftco-simulate",
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

/// Adding `ftco-simulate` leaves `simulate`'s help as it was: the global `--memory-limit`
/// between `--first-side` and `--model`, and no FTCO flag shown.
#[test]
fn simulate_help_keeps_its_layout() {
    let help = stdout(&["simulate", "--help"]);
    let at = |s: &str| help.find(s).unwrap_or_else(|| panic!("{s} not in help"));
    assert!(at("--first-side") < at("--memory-limit"));
    assert!(at("--memory-limit") < at("--model"));
    for flag in ["--collective", "--topology", "--roots", "--service", "--op"] {
        assert!(!help.contains(flag), "{flag}");
    }
}
