//! `ftcoll sweep --gossip …`: Corrected Gossip grids. A point's statistics are those of
//! `simulate --gossip`'s runs with the same parameters and seed, `T` from the model as
//! `gossip-plan` prints it, BIG's fault-free numbers by formula, determinism (any thread
//! count), shards merged into the unsharded bytes, resuming, and the bad-input contract.
#![cfg(feature = "cli")]

mod cli_common;

use cli_common::{assert_usage_error, stdout};
use ftcoll::protocols::gossip::plan;
use ftcoll::topology::LogP;
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

/// `T` from CG's model (Eq. 4 minimized plus the paper's one `O`, δ the paper's) with n = P
/// minus the failures; OCG's `C = K̄O + L + O`; BIG fault-free by formula: P·log₂ P messages,
/// every process colored by the binomial tree's (2O + L)·log₂ P (CG §IV.B.3).
#[test]
fn gossip_sweep_takes_t_from_the_model_and_big_matches_its_formula() {
    let logp = LogP::new(2, 1).unwrap();
    let rows = rows(&[
        "sweep",
        "--procs",
        "1024",
        "--gossip",
        "ocg,ccg,big",
        "--fault-count",
        "0,10",
        "--runs",
        "3",
        "--format",
        "json",
    ]);
    assert_eq!(rows.len(), 6);
    for r in &rows {
        let failed = if r["faults"] == "count:10" { 10 } else { 0 };
        let model = plan::Model::new(1024, 1024 - failed, logp).unwrap();
        match r["gossip"].as_str().unwrap() {
            "ocg" => {
                let p = model.plan(plan::PlanProtocol::Ocg, 6.9315e-7).unwrap();
                assert_eq!(r["T"], p.recommended_t());
                assert_eq!(r["C"], p.correction);
            }
            "ccg" => {
                let p = model.plan(plan::PlanProtocol::Ccg, 6.9315e-7).unwrap();
                assert_eq!(r["T"], p.recommended_t());
                assert_eq!(r["C"], 0);
                // CG Claim 3: checked correction reaches every live process.
                assert_eq!(r["metrics"]["inconsistent"]["max"], 0);
            }
            "big" => {
                assert_eq!(r["T"], 0);
                if failed == 0 {
                    let m = &r["metrics"];
                    assert_eq!(m["messages"]["max"], plan::big_work(1024));
                    assert_eq!(m["messages"]["p5"], plan::big_work(1024));
                    assert_eq!(m["coloring_latency"]["max"], 4 * 10);
                }
            }
            other => panic!("{other}"),
        }
    }
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
            &[
                "sweep",
                "--procs",
                "16",
                "--tree",
                "binomial",
                "--correction",
                "checked",
                flag,
                value,
            ],
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
