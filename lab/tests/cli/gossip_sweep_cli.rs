//! `ftcoll sweep --gossip …`: Corrected Gossip grids. A point's statistics are those of
//! `simulate --gossip`'s runs with the same parameters and seed, `T` from the model as
//! `gossip-plan` prints it, BIG's fault-free numbers by formula, determinism (any thread
//! count), shards merged into the unsharded bytes, resuming, and the bad-input contract.

use crate::cli_common;

use cli_common::{assert_usage_error, stdout};
use serde_json::Value;

const GRID: [&str; 13] = [
    "sweep",
    "--procs",
    "64,200",
    "--gossip",
    "gos,ocg,ccg,fcg:1,big,bfb",
    "--fault-count",
    "0,3",
    "--runs",
    "6",
    "--seed=5",
    "--gossip-time",
    "auto,14",
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

#[test]
fn gossip_sweep_is_deterministic_and_has_one_row_per_point() {
    let a = run(&grid(&[]));
    let mut one = grid(&[]);
    one[12] = "--threads=1".into();
    assert_eq!(a, run(&one), "threads change nothing");
    let mut lines = a.lines();
    let identity = lines.next().unwrap();
    assert!(identity.starts_with(
        "# ftcoll-sweep {\"version\":2,\"grid\":{\"procs\":[64,200],\"gossip\":[\"gos\",\"ocg\",\"ccg\",\"fcg:1\",\"big\",\"bfb\"],"
    ), "{identity}");
    let header = lines.next().unwrap();
    assert!(
        header.starts_with(
            "point,procs,gossip,L,o,gossip_time,correction_time,delta,faults,runs,seed,T,C,failed_mean,"
        ),
        "{header}"
    );
    for column in [
        "latency_p99",
        "messages_correction_mean",
        "messages_acknowledgment_max",
        "inconsistent_mean",
        "incomplete_max",
        "gnodes_p50",
    ] {
        assert!(header.split(',').any(|c| c == column), "{column}");
    }
    let body: Vec<&str> = lines.collect();
    assert_eq!(body.len(), 2 * 6 * 2 * 2);
    for (i, l) in body.iter().enumerate() {
        assert!(l.starts_with(&format!("{i},")), "{l}");
        assert_eq!(l.split(',').count(), header.split(',').count());
    }
    let mut other = grid(&[]);
    other[9] = "--seed=6".into();
    assert_ne!(a, run(&other));
}

/// Run `i` of a sweep point is run `i` of `simulate --gossip` with the same parameters and
/// seed, `auto` resolving `T` and `C` the same way: the sweep's statistics are those of
/// simulate's rows, for a protocol of every kind (OCG's fixed `C`, FCG, BFB's completion).
#[test]
fn gossip_sweep_summarizes_simulate_runs() {
    for protocol in ["ocg", "fcg:1", "bfb"] {
        let common = [
            "--procs",
            "300",
            "--gossip",
            protocol,
            "--fault-count",
            "4",
            "--seed",
            "9",
            "--runs",
            "7",
            "--format",
            "json",
        ];
        let sim: Vec<Value> = stdout(&[&["simulate"], &common[..]].concat())
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(sim.len(), 7);
        let row = &rows(&[&["sweep"], &common[..]].concat())[0];
        let as_u64 = |v: &Value| v.as_u64().unwrap_or(0);
        if protocol != "bfb" {
            assert_eq!(row["T"], sim[0]["T"], "{protocol}");
        }
        let m = &row["metrics"];
        for (key, column) in [
            ("coloring_latency", "coloring_latency"),
            ("quiescence_latency", "quiescence_latency"),
            ("messages", "messages"),
            ("messages_dissemination", "messages_dissemination"),
            ("messages_correction", "messages_correction"),
            ("messages_acknowledgment", "messages_acknowledgment"),
            ("undelivered", "undelivered"),
            ("gnodes", "gnodes"),
        ] {
            let values: Vec<u64> = sim.iter().map(|r| as_u64(&r[column])).collect();
            let max = *values.iter().max().unwrap();
            assert_eq!(m[key]["max"], max, "{protocol} {key}");
            let mean = values.iter().sum::<u64>() as f64 / 7.0;
            let got = m[key]["mean"].as_f64().unwrap();
            assert!(
                (got - mean).abs() < 1e-4,
                "{protocol} {key}: {got} vs {mean}"
            );
        }
        // Table 7's latency: BFB's completion, the others' quiescence.
        let latency = if protocol == "bfb" {
            "completion_latency"
        } else {
            "quiescence_latency"
        };
        let max = sim.iter().map(|r| as_u64(&r[latency])).max().unwrap();
        assert_eq!(m["latency"]["max"], max, "{protocol}");
        assert_eq!(m["failed"]["max"], 4);
    }
}

/// `T` and `C` from CG's model, as CG Table 7 prints them for N = 4096, L = 2, O = 1 (the
/// model's `n` is N minus the failures before the operation): OCG T = 32, C = K̄O + L + O = 8
/// fault-free; CCG T = 34 with f̂ = 3; FCG T = 37 fault-free and 35 with f̂ = 3 (cg.md). BIG fault-free at N = 1024 by
/// formula (CG §IV.B.3): P·log₂ P = 10,240 messages, every process colored by the binomial
/// tree's (2O + L)·log₂ P = 40.
#[test]
fn gossip_sweep_takes_t_from_the_model_and_big_matches_its_formula() {
    let table7 = |protocol: &str, faults: &str| {
        rows(&[
            "sweep",
            "--procs",
            "4096",
            "--gossip",
            protocol,
            "--fault-count",
            faults,
            "--runs",
            "1",
            "--format",
            "json",
        ])
        .remove(0)
    };
    let ocg = table7("ocg", "0");
    assert_eq!((ocg["T"].as_u64(), ocg["C"].as_u64()), (Some(32), Some(7)));
    let ccg = table7("ccg", "3");
    assert_eq!((ccg["T"].as_u64(), ccg["C"].as_u64()), (Some(34), Some(0)));
    // CG Claim 3: checked correction reaches every live process.
    assert_eq!(ccg["metrics"]["inconsistent"]["max"], 0);
    // FCG: 37 fault-free; with f̂ = 3 the model's n = 4093 gives 35 (the paper kept 37).
    assert_eq!(table7("fcg:1", "0")["T"].as_u64(), Some(37));
    assert_eq!(table7("fcg:1", "3")["T"].as_u64(), Some(35));
    let big = &rows(&[
        "sweep", "--procs", "1024", "--gossip", "big", "--runs", "3", "--format", "json",
    ])[0];
    assert_eq!(big["T"], 0);
    let m = &big["metrics"];
    assert_eq!(m["messages"]["p5"], 10 * 1024);
    assert_eq!(m["messages"]["max"], 10 * 1024);
    assert_eq!(m["coloring_latency"]["max"], 4 * 10);
}

#[test]
fn gossip_shards_merge_into_the_unsharded_bytes_and_resume() {
    cli_common::assert_shards_merge_and_resume("gossip-sweep", &grid);
}

#[test]
fn gossip_sweep_refuses_bad_input_with_one_line_naming_the_flag() {
    let base = ["sweep", "--procs", "64", "--gossip", "ocg"];
    let check = |extra: &[&str], flag: &str| {
        assert_usage_error(&[&base[..], extra].concat(), flag);
    };
    // The protocol list itself (without the base's --gossip, which clap would refuse as given
    // twice whatever the value).
    for (list, message) in [
        ("ocg,ocg", "listed twice"),
        ("fcg:0", "1..=255"),
        ("tree", "gos, ocg, ccg"),
    ] {
        let out = cli_common::ftcoll(&["sweep", "--procs", "64", "--gossip", list]);
        let err = String::from_utf8(out.stderr).unwrap();
        assert_usage_error(&["sweep", "--procs", "64", "--gossip", list], "--gossip");
        assert!(err.contains(message), "{list}: {err}");
    }
    check(&["--gossip-time", "-1"], "--gossip-time");
    check(&["--gossip-time", "auto,auto"], "--gossip-time");
    check(&["--gossip-time", "x"], "--gossip-time");
    check(&["--correction-time", "2000000"], "--correction-time");
    check(&["--delta", "0"], "--delta");
    check(&["--delta", "1"], "--delta");
    check(&["--fault-count", "64"], "--fault-count");
    check(&["--fault-rate", "1.5"], "--fault-rate");
    // CG's model assumes o divides L; auto says so (simulate --gossip does the same).
    check(&["-L", "3", "-o", "2"], "L: expected a multiple of o");
    check(&["-L", "x"], "-L");
    // Other families' axes.
    check(&["--tree", "binomial"], "--tree");
    check(&["--correction", "checked"], "--correction");
    check(&["--start", "overlap"], "--start");
    check(&["--topology", "kary:2"], "--topology");
    check(&["--collective", "bcast"], "--collective");
    check(&["--engine", "full"], "--engine");
    // Timing axes only where a listed protocol uses them.
    assert_usage_error(
        &[
            "sweep",
            "--procs",
            "64",
            "--gossip",
            "big,bfb",
            "--gossip-time",
            "10",
        ],
        "--gossip-time",
    );
    assert_usage_error(
        &[
            "sweep",
            "--procs",
            "64",
            "--gossip",
            "ccg",
            "--correction-time",
            "10",
        ],
        "--correction-time",
    );
    // Gossip axes need --gossip.
    for (flag, value) in [
        ("--gossip-time", "10"),
        ("--correction-time", "5"),
        ("--delta", "1e-6"),
    ] {
        assert_usage_error(
            &[&cli_common::small_ct("sweep")[..], &[flag, value]].concat(),
            flag,
        );
    }
    // Memory admission before any run.
    assert_usage_error(
        &[
            "--memory-limit",
            "100M",
            "sweep",
            "--procs",
            "1000000",
            "--gossip",
            "ccg",
        ],
        "--procs",
    );
}
