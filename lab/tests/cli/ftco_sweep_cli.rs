//! `ftcoll sweep --collective …`: FTCO grids. Table 2's fault-free row from a sweep point,
//! determinism (same seed, any thread count: the same bytes), shards merged into the unsharded
//! bytes, resuming, fault draws that never hit a root, and the bad-input contract.

use crate::cli_common;

use cli_common::{assert_usage_error, ftcoll, stdout};
use serde_json::Value;

const GRID: [&str; 21] = [
    "sweep",
    "--procs",
    "60,200",
    "--collective",
    "allreduce,reduce",
    "--topology",
    "kary:3,knomial:best",
    "--roots",
    "1,k",
    "--service",
    "none,rsd",
    "--fault-count",
    "0,4",
    "--crashes",
    "none,2@1..40",
    "--runs",
    "9",
    "--seed=11",
    "-L",
    "4",
    "--threads=2",
];

fn grid(extra: &[&str]) -> Vec<String> {
    GRID.iter().chain(extra).map(|s| s.to_string()).collect()
}

fn run(args: &[String]) -> String {
    cli_common::stdout_of(args)
}

fn rows(args: &[&str]) -> Vec<Value> {
    cli_common::json_rows(args)
}

/// FTCO Table 2, fault-free row (§5.2.4): P = 65,536, multi-root k-nomial with the best k,
/// L = 10, Allreduce: latency 171, 3 messages per node, output spread 43, longest queue 9.
#[test]
fn ftco_sweep_point_gives_table_2_fault_free_row() {
    let rows = rows(&[
        "sweep",
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
        "--format",
        "json",
    ]);
    assert_eq!(rows.len(), 1);
    let r = &rows[0];
    let m = &r["metrics"];
    assert_eq!(m["latency"]["max"], 171);
    assert_eq!(m["latency_from_last_start"]["max"], 171);
    assert_eq!(m["spread"]["max"], 43);
    assert_eq!(m["longest_queue"]["max"], 9);
    assert_eq!(m["messages"]["max"], 3 * 65_536);
    assert_eq!(m["work"]["max"].as_f64(), Some(3.0));
    assert_eq!(m["work_keepalive"]["max"].as_f64(), Some(0.0));
    assert_eq!(m["incomplete"]["max"], 0);
    assert_eq!(m["completions"]["max"], 65_536);
    // Table 2's topology: multi-root k-nomial, k = R = 9.
    assert_eq!(r["tree"], "knomial:9");
    assert_eq!(r["root_count"], 9);
}

#[test]
fn ftco_sweep_is_deterministic_and_has_one_row_per_point() {
    let a = run(&grid(&[]));
    let mut one = grid(&[]);
    one[20] = "--threads=1".into();
    assert_eq!(a, run(&one), "threads change nothing");
    let mut lines = a.lines();
    let identity = lines.next().unwrap();
    assert!(identity.starts_with(
        "# ftcoll-sweep {\"version\":2,\"grid\":{\"procs\":[60,200],\"collective\":[\"allreduce\",\"reduce\"],"
    ));
    let header = lines.next().unwrap();
    assert!(header.starts_with(
        "point,procs,collective,topology,roots,service,L,faults,crashes,arrival,imbalance,runs,seed,tree,root_count,fault_free_latency,faults_mean,"
    ));
    for column in [
        "latency_p99",
        "work_mean",
        "work_data_max",
        "work_keepalive_p50",
        "work_ack_mean",
        "spread_mean",
        "longest_queue_max",
        "incomplete_mean",
    ] {
        assert!(header.split(',').any(|c| c == column), "{column}");
    }
    let body: Vec<&str> = lines.collect();
    assert_eq!(body.len(), 2 * 2 * 2 * 2 * 2 * 2 * 2);
    for (i, l) in body.iter().enumerate() {
        assert!(l.starts_with(&format!("{i},")), "{l}");
        assert_eq!(l.split(',').count(), header.split(',').count());
    }
    // Another seed draws other faults.
    let mut other = grid(&[]);
    other[17] = "--seed=12".into();
    assert_ne!(a, run(&other));
}

/// Runs `i` of a sweep point are runs `i` of `simulate` with the same parameters and seed:
/// the sweep's statistics are those of simulate's rows.
#[test]
fn ftco_sweep_summarizes_simulate_runs() {
    let common = [
        "--procs",
        "120",
        "--collective",
        "allreduce",
        "--topology",
        "knomial:3",
        "--roots",
        "k",
        "--fault-count",
        "6",
        "--arrival",
        "uniform:30",
        "--imbalance",
        "alg5",
        "--seed",
        "4",
        "--runs",
        "5",
        "--format",
        "json",
    ];
    let sim: Vec<Value> = stdout(&[&["simulate"], &common[..]].concat())
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let sweep = rows(&[&["sweep"], &common[..]].concat());
    let m = &sweep[0]["metrics"];
    for key in [
        "latency",
        "latency_from_last_start",
        "spread",
        "longest_queue",
        "messages",
        "keepalive",
    ] {
        let max = sim.iter().map(|r| r[key].as_u64().unwrap()).max().unwrap();
        assert_eq!(m[key]["max"], max, "{key}");
        let sum: u64 = sim.iter().map(|r| r[key].as_u64().unwrap()).sum();
        let mean = m[key]["mean"].as_f64().unwrap();
        assert!((mean - sum as f64 / 5.0).abs() < 1e-4, "{key}");
    }
}

#[test]
fn ftco_shards_merge_into_the_unsharded_bytes_and_resume() {
    cli_common::assert_shards_merge_and_resume("ftco-sweep", &grid);
}

/// Roots (ranks < R) are fault-immune: with every non-root inactive or crashing, exactly the R
/// roots complete an Allreduce, in every run; one more fault is refused.
#[test]
fn ftco_sweep_fault_draws_never_hit_a_root() {
    let procs = 50u64;
    for (roots, r) in [("1", 1u64), ("4", 4), ("k", 3)] {
        let non_roots = procs - r;
        let base = [
            "sweep",
            "--procs",
            "50",
            "--collective",
            "allreduce",
            "--topology",
            "knomial:3",
            "--roots",
            roots,
            "--runs",
            "40",
            "--format",
            "json",
        ];
        let all = non_roots.to_string();
        let most = (non_roots - 3).to_string();
        for extra in [
            vec!["--fault-count".to_string(), all.clone()],
            vec!["--fault-rate".to_string(), "1".to_string()],
            vec![
                "--fault-count".to_string(),
                most,
                "--crashes".to_string(),
                "3@1..3".to_string(),
            ],
        ] {
            let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
            let row = &rows(&[&base[..], &extra[..]].concat())[0];
            let m = &row["metrics"];
            assert_eq!(row["root_count"], r);
            assert_eq!(m["completions"]["p5"], r, "{roots} {extra:?}");
            assert_eq!(m["completions"]["max"], r, "{roots} {extra:?}");
            assert_eq!(m["incomplete"]["max"], 0, "{roots} {extra:?}");
        }
        // One more failure than non-roots is refused before any work.
        let too_many = (non_roots + 1).to_string();
        assert_usage_error(
            &[&base[..], &["--fault-count", &too_many]].concat(),
            "--fault-count",
        );
        let crash = format!("2@{}", 5);
        let nearly = (non_roots - 1).to_string();
        assert_usage_error(
            &[&base[..], &["--fault-count", &nearly, "--crashes", &crash]].concat(),
            "--crashes",
        );
    }
}

#[test]
fn ftco_sweep_refuses_bad_input_with_one_line_naming_the_flag() {
    let base = [
        "sweep",
        "--procs",
        "40",
        "--collective",
        "allreduce",
        "--topology",
        "kary:2",
    ];
    let check = |extra: &[&str], flag: &str| {
        assert_usage_error(&[&base[..], extra].concat(), flag);
    };
    check(&["--collective", "allreduce,allreduce"], "--collective");
    check(&["--topology", "kary:1"], "--topology");
    check(&["--topology", "kary:2,"], "--topology");
    check(&["--topology", "binomial"], "--topology");
    check(&["--roots", "41"], "--roots");
    check(&["--roots", "0"], "--roots");
    check(&["--service", "rsd:1"], "--service");
    check(&["--crashes", "0@5"], "--crashes");
    check(&["--crashes", "2@9..3"], "--crashes");
    check(&["--crashes", "2@x"], "--crashes");
    check(&["--arrival", "uniform:-1"], "--arrival");
    check(&["--imbalance", "on"], "--imbalance");
    check(&["--fault-count", "40"], "--fault-count");
    check(&["--fault-rate", "1.5"], "--fault-rate");
    check(&["-L", "65536"], "-L");
    check(&["-o", "2"], "-o");
    // Corrected Tree axes are not FTCO's.
    check(&["--tree", "binomial"], "--tree");
    check(&["--correction", "checked"], "--correction");
    check(&["--start", "overlap"], "--start");
    check(&["--model", "dual"], "--model");
    check(&["--order", "in-order"], "--order");
    check(&["--first-side", "right"], "--first-side");
    check(&["--engine", "full"], "--engine");
    // FTCO needs trees; FTCO axes need --collective.
    assert_usage_error(
        &["sweep", "--procs", "40", "--collective", "bcast"],
        "--topology",
    );
    let ct = cli_common::small_ct("sweep");
    for (flag, value) in [
        ("--topology", "kary:2"),
        ("--roots", "2"),
        ("--service", "disd"),
        ("--crashes", "1@5"),
        ("--arrival", "uniform:4"),
        ("--imbalance", "alg5"),
    ] {
        assert_usage_error(&[&ct[..], &[flag, value]].concat(), flag);
    }
    // A CT sweep still needs its tree and correction.
    assert_usage_error(
        &["sweep", "--procs", "16", "--tree", "binomial"],
        "--correction",
    );
    assert_usage_error(
        &["sweep", "--procs", "16", "--correction", "checked"],
        "--tree",
    );
    // Memory admission before any run.
    assert_usage_error(
        &[
            "--memory-limit",
            "100M",
            "sweep",
            "--procs",
            "1000000",
            "--collective",
            "bcast",
            "--topology",
            "kary:2",
        ],
        "--procs",
    );
    // Nothing was printed for a point validated late in the grid either.
    let out = ftcoll(&[
        "sweep",
        "--procs",
        "40,10",
        "--collective",
        "allreduce",
        "--topology",
        "kary:2",
        "--fault-count",
        "12",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}
