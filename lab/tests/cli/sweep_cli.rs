//! `ftcoll sweep` and `ftcoll merge`: determinism, shards merged into the unsharded bytes,
//! resuming after an interruption, the full and fast engines agreeing byte for byte, summaries
//! matching `simulate`, and the bad-input contract (grid lists with empty or repeated items
//! included). Corrupted outputs given to `merge` and resuming: `merge_cli.rs`.

use crate::cli_common;
use std::path::PathBuf;

use cli_common::{assert_usage_error, ftcoll, stdout};

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ftcoll-sweep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

const GRID: [&str; 12] = [
    "sweep",
    "--procs",
    "64,300",
    "--tree",
    "lame:2,binomial",
    "--correction",
    "checked,opportunistic:2",
    "--fault-count",
    "0,3,12",
    "--runs",
    "12",
    "--seed=7",
];

fn grid(extra: &[&str]) -> Vec<String> {
    GRID.iter().chain(extra).map(|s| s.to_string()).collect()
}

fn run(args: &[String]) -> String {
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    stdout(&refs)
}

#[test]
fn sweep_is_deterministic_and_has_one_row_per_point() {
    let a = run(&grid(&[]));
    let b = run(&grid(&["--threads", "1"]));
    assert_eq!(a, b, "thread count must not change the bytes");
    let lines: Vec<&str> = a.lines().skip(1).collect();
    assert!(a.starts_with("# ftcoll-sweep {\"version\":2,\"grid\":{\"procs\":[64,300],"));
    assert_eq!(lines.len(), 1 + 2 * 2 * 2 * 3);
    assert!(lines[0].starts_with("point,procs,tree,order,correction,start,model,L,o,first_side,faults,runs,seed,deadline,faults_mean,"));
    assert!(lines[0].contains("quiescence_latency_p99.9"));
    let columns = lines[0].split(',').count();
    for (i, l) in lines[1..].iter().enumerate() {
        assert!(l.starts_with(&format!("{i},")), "{l}");
        assert_eq!(l.split(',').count(), columns);
    }
}

#[test]
fn fast_and_full_engines_write_the_same_bytes() {
    let args = |engine: &str| {
        let mut a = grid(&["--engine", engine]);
        a[6] = "checked".into();
        a
    };
    assert_eq!(run(&args("auto")), run(&args("full")));
    // The comparison means something only if `auto` took the fast path for these points.
    let point = ftcoll_lab::experiment::Point {
        procs: 300,
        tree: ftcoll::topology::TreeKind::Lame(2),
        order: ftcoll::topology::Order::Interleaved,
        correction: "checked".parse().unwrap(),
        start: ftcoll::protocols::corrected_tree::StartMode::Synchronized,
        model: ftcoll_sim::PortModel::DualPort,
        latency: 2,
        overhead: 1,
        first_side: ftcoll::protocols::Side::Left,
        faults: ftcoll_lab::experiment::Faults::Count(12),
    };
    assert!(point.prepare(true).unwrap().is_fast());
    assert!(!point.prepare(false).unwrap().is_fast());
}

#[test]
fn shards_merge_into_the_unsharded_bytes() {
    for format in ["csv", "json"] {
        let whole = run(&grid(&["--format", format]));
        let mut shards = Vec::new();
        for i in 0..3 {
            let path = temp(&format!("shard{i}.{format}"));
            let p = path.to_str().unwrap().to_string();
            run(&grid(&[
                "--format",
                format,
                "--shard",
                &format!("{i}/3"),
                "--output",
                &p,
            ]));
            shards.push(p);
        }
        let mut merge = vec!["merge".to_string(), "--format".into(), format.into()];
        merge.extend(shards.iter().rev().cloned());
        assert_eq!(run(&merge), whole, "{format}");
    }
}

#[test]
fn an_interrupted_sweep_resumes_to_the_same_bytes() {
    let whole = run(&grid(&[]));
    let path = temp("resume.csv");
    // The identity, the header, two complete points and half a line, as after a kill during a
    // write.
    let mut cut: String = whole.lines().take(4).map(|l| format!("{l}\n")).collect();
    cut.push_str("2,64,lame:2,inter");
    std::fs::write(&path, cut).unwrap();
    let p = path.to_str().unwrap().to_string();
    assert_eq!(run(&grid(&["--output", &p])), "");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), whole);
    // A different sweep into the same file is refused.
    let other = ftcoll(&[
        "sweep",
        "--procs",
        "65",
        "--tree",
        "lame:2",
        "--correction",
        "checked",
        "--output",
        &p,
    ]);
    assert_eq!(other.status.code(), Some(2));
    assert!(other.stdout.is_empty());
}

#[test]
fn summaries_agree_with_simulate() {
    let common = [
        "--procs",
        "300",
        "--tree",
        "lame:2",
        "--correction",
        "checked",
        "--fault-count",
        "12",
        "--runs",
        "12",
        "--seed",
        "7",
    ];
    let with = |first: &str, last: &[&'static str]| -> Vec<String> {
        std::iter::once(first)
            .chain(common)
            .chain(last.iter().copied())
            .map(String::from)
            .collect()
    };
    let rows = run(&with("simulate", &["--format", "csv"]));
    let mut quiescence: Vec<u64> = rows
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(13).unwrap().parse().unwrap())
        .collect();
    quiescence.sort_unstable();
    let sweep = run(&with("sweep", &[]));
    let header: Vec<&str> = sweep.lines().nth(1).unwrap().split(',').collect();
    let row: Vec<&str> = sweep.lines().nth(2).unwrap().split(',').collect();
    let cell = |name: &str| row[header.iter().position(|h| *h == name).unwrap()];
    let mean = quiescence.iter().sum::<u64>() as f64 / 12.0;
    assert_eq!(cell("quiescence_latency_mean"), format!("{mean:.4}"));
    assert_eq!(cell("quiescence_latency_max"), quiescence[11].to_string());
    assert_eq!(cell("quiescence_latency_p50"), quiescence[5].to_string());
    assert_eq!(cell("quiescence_latency_p5"), quiescence[0].to_string());
}

#[test]
fn bad_input_names_the_flag() {
    for (procs, extra, flag) in [
        ("0", &[][..], "--procs"),
        ("16,x", &[], "--procs"),
        ("16", &["--fault-count", "16"], "--fault-count"),
        ("16", &["--shard", "3/3"], "--shard"),
        ("16", &["--fault-rate", "1.5"], "--fault-rate"),
        ("16", &["--fault-fraction", "2"], "--fault-fraction"),
    ] {
        let mut all = vec![
            "sweep",
            "--tree",
            "lame:2",
            "--correction",
            "checked",
            "--procs",
            procs,
        ];
        all.extend(extra);
        assert_usage_error(&all, flag);
    }
}

#[test]
fn grid_lists_refuse_empty_and_repeated_items() {
    let base = ["sweep", "--tree", "lame:2", "--correction", "checked"];
    for (extra, needles) in [
        (&["--procs", "16,,32"][..], &["--procs", "empty item"][..]),
        (&["--procs", ","], &["--procs", "empty item"]),
        (&["--procs", "16,"], &["--procs", "empty item"]),
        (&["--procs", ""], &["--procs"]),
        (&["--procs", "16,16"], &["--procs", "'16' is listed twice"]),
        (
            &["--procs", "16,32,016"],
            &["--procs", "'016' is listed twice"],
        ),
        (
            &["--procs", "16", "--fault-count", "1,1"],
            &["--fault-count", "'1' is listed twice"],
        ),
        (
            &["--procs", "16", "--fault-rate", "0.1,0.10"],
            &["--fault-rate", "'0.10' is listed twice"],
        ),
        (
            &["--procs", "16", "-L", "2,3,2"],
            &["-L", "'2' is listed twice"],
        ),
        (
            &["--procs", "16", "--start", "sync,sync"],
            &["--start", "'sync' is listed twice"],
        ),
        (
            &["--procs", "16", "--first-side", "left,right,"],
            &["--first-side", "empty item"],
        ),
    ] {
        let mut args = base.to_vec();
        args.extend(extra);
        for n in needles {
            assert_usage_error(&args, n);
        }
    }
    for (flag, value, other) in [
        ("--tree", "lame:2,lame:2", "--correction"),
        ("--correction", "checked,ack,checked", "--tree"),
    ] {
        let fixed = if other == "--tree" {
            "lame:2"
        } else {
            "checked"
        };
        let args = ["sweep", "--procs", "16", other, fixed, flag, value];
        assert_usage_error(&args, flag);
        assert_usage_error(&args, "listed twice");
    }
    // Distinct values still run, in the order given.
    let text = stdout(&[
        "sweep",
        "--procs",
        "32,16",
        "--tree",
        "lame:2",
        "--correction",
        "checked",
    ]);
    let rows: Vec<&str> = text.lines().filter(|l| l.contains(",lame:2,")).collect();
    assert_eq!(rows.len(), 2);
    assert!(rows[0].starts_with("0,32,") && rows[1].starts_with("1,16,"));
}
