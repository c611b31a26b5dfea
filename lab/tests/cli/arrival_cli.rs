//! `--arrival random:MAX_IF:UNIT | late:FRACTION:DELAY | @FILE` end to end, for both families
//! (Corrected Tree `simulate`, FTCO `simulate --collective` and `sweep --collective`): the
//! arrivals take effect, equal patterns give equal bytes, PAP §3.1's root rule, and the
//! bad-input contract (exit 2, one line naming `--arrival`).

use crate::cli_common;

use std::path::PathBuf;

use cli_common::{assert_usage_error, ftcoll, stdout};

/// A file under the target directory's temporary space, written with `text`.
fn file(name: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("arrival_cli");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn at(path: &std::path::Path) -> String {
    format!("@{}", path.display())
}

/// Corrected Tree: `simulate` of a binary tree, checked correction, L = 2, o = 1, CSV.
fn ct(procs: &str, arrival: &str, runs: &str) -> Vec<String> {
    [
        "simulate",
        "--procs",
        procs,
        "--tree",
        "kary:2",
        "--correction",
        "checked",
        "-L",
        "2",
        "-o",
        "1",
        "--runs",
        runs,
        "--seed",
        "3",
        "--format",
        "csv",
        "--arrival",
        arrival,
    ]
    .map(String::from)
    .to_vec()
}

/// FTCO: `simulate --collective allreduce` on a binary tree with App. B's entry, L = 10, CSV.
fn ftco(procs: &str, arrival: &str, runs: &str) -> Vec<String> {
    [
        "simulate",
        "--procs",
        procs,
        "--collective",
        "allreduce",
        "--topology",
        "kary:2",
        "-L",
        "10",
        "--imbalance",
        "alg5",
        "--runs",
        runs,
        "--seed",
        "3",
        "--format",
        "csv",
        "--arrival",
        arrival,
    ]
    .map(String::from)
    .to_vec()
}

/// Both families' commands.
type Command = fn(&str, &str, &str) -> Vec<String>;
const FAMILIES: [Command; 2] = [ct, ftco];

fn run(args: &[String]) -> String {
    stdout(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

/// The integer column `name` of every row of a CSV output.
fn column(csv: &str, name: &str) -> Vec<u64> {
    let mut lines = csv.lines().filter(|l| !l.starts_with('#'));
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let i = header
        .iter()
        .position(|&h| h == name)
        .unwrap_or_else(|| panic!("no column {name}"));
    lines
        .map(|l| l.split(',').nth(i).unwrap().parse().unwrap())
        .collect()
}

/// [`column`] of decimals.
fn decimals(csv: &str, name: &str) -> Vec<f64> {
    let mut lines = csv.lines().filter(|l| !l.starts_with('#'));
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let i = header.iter().position(|&h| h == name).unwrap();
    lines
        .map(|l| l.split(',').nth(i).unwrap().parse().unwrap())
        .collect()
}

#[test]
fn late_everyone_delays_the_latency_by_about_the_delay() {
    // Every non-root rank arrives at 1000: nobody but the root delivers before 1000, and once
    // everyone is there the rest is no longer than a broadcast from scratch.
    let base = column(&run(&ct("64", "none", "1")), "coloring_latency")[0];
    for lat in column(&run(&ct("64", "late:1:1000", "3")), "coloring_latency") {
        assert!((1001..=1000 + base).contains(&lat), "CT late latency {lat}");
    }
    let base = column(&run(&ftco("64", "none", "1")), "latency")[0];
    for lat in column(&run(&ftco("64", "late:1:1000", "3")), "latency") {
        assert!(
            (1000..=1000 + base).contains(&lat),
            "FTCO late latency {lat}"
        );
    }
    // A fraction of 0 is nobody late: the bytes of `none`.
    assert_eq!(
        run(&ct("64", "late:0:1000", "3")),
        run(&ct("64", "none", "3"))
    );
    assert_eq!(
        run(&ftco("64", "late:0:1000", "3")),
        run(&ftco("64", "none", "3"))
    );
}

#[test]
fn random_arrivals_take_effect_within_max_if_message_times() {
    // MAX_IF = 1 draws r = 0 for everyone: `none`.
    assert_eq!(
        run(&ct("64", "random:1:4", "2")),
        run(&ct("64", "none", "2"))
    );
    assert_eq!(
        run(&ftco("64", "random:1:12", "2")),
        run(&ftco("64", "none", "2"))
    );
    // One message time is L + 2o = 4 (CT, dual-port) and L + 2 = 12 (FTCO); the last arrival is
    // at most (MAX_IF − 1) message times late, and with 64 ranks some run is delayed.
    let base = column(&run(&ct("64", "none", "1")), "coloring_latency")[0];
    let lats = column(&run(&ct("64", "random:8:4", "6")), "coloring_latency");
    assert!(lats.iter().all(|&l| l <= base + 7 * 4 + base), "{lats:?}");
    assert!(lats.iter().any(|&l| l > base), "{lats:?}: no run delayed");
    let base = column(&run(&ftco("64", "none", "1")), "latency")[0];
    let lats = column(&run(&ftco("64", "random:8:12", "6")), "latency");
    assert!(lats.iter().all(|&l| l <= base + 7 * 12 + base), "{lats:?}");
    assert!(lats.iter().any(|&l| l > base), "{lats:?}: no run delayed");
    // Seeded: the same command gives the same bytes.
    assert_eq!(
        run(&ct("64", "random:8:4", "3")),
        run(&ct("64", "random:8:4", "3"))
    );
    assert_eq!(
        run(&ftco("64", "late:0.5:300", "3")),
        run(&ftco("64", "late:0.5:300", "3"))
    );
}

#[test]
fn a_file_gives_each_rank_its_time_after_the_root_rule() {
    // Everyone at 0 is `none`; the root at 0 and the others at 500 is `late:1:500`; the same
    // shifted by a root arriving at 100 too (PAP §3.1), in one line or comma-separated.
    let zeros = file("zeros.txt", &"0\n".repeat(16));
    let late = file("late.txt", &format!("0\n{}", "500\n".repeat(15)));
    let shifted = file(
        "shifted.txt",
        &format!("100,600,600\n\n{}600\n", "600,".repeat(12)),
    );
    for family in FAMILIES {
        let none = run(&family("16", "none", "2"));
        assert_eq!(run(&family("16", &at(&zeros), "2")), none);
        let want = run(&family("16", "late:1:500", "2"));
        assert_ne!(want, none);
        assert_eq!(run(&family("16", &at(&late), "2")), want);
        assert_eq!(run(&family("16", &at(&shifted), "2")), want);
    }
}

#[test]
fn bad_arrivals_are_refused_naming_the_flag() {
    let short = file("short.txt", "0\n1\n2\n");
    let long = file("long.txt", &"0\n".repeat(17));
    let word = file("word.txt", "0\n5\nsoon\n");
    let big = file("big.txt", "0,4294967296\n");
    let missing = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("arrival_cli/missing.txt");
    let mut cases: Vec<(String, Vec<&str>)> = [
        "random:0:5",
        "random:5:0",
        "random:3",
        "random:2:4294967296",
        "late:1.5:10",
        "late:-1:3",
        "late:0.5",
        "late:0.5:-2",
        "@",
    ]
    .map(|a| (a.to_string(), vec!["--arrival"]))
    .to_vec();
    cases.extend([
        (at(&short), vec!["short.txt", "holds 3 times", "P = 16"]),
        (at(&long), vec!["long.txt", "line 17", "P = 16"]),
        (
            at(&word),
            vec!["word.txt", "line 3", "'soon'", "0..=4294967295"],
        ),
        (at(&big), vec!["big.txt", "line 1", "0..=4294967295"]),
        (at(&missing), vec!["missing.txt", "cannot read"]),
    ]);
    for (arrival, words) in &cases {
        for family in FAMILIES {
            let args = family("16", arrival, "1");
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            assert_usage_error(&args, "--arrival");
            let err = String::from_utf8(ftcoll(&args).stderr).unwrap();
            for w in words {
                assert!(err.contains(w), "{arrival}: '{err}' lacks '{w}'");
            }
        }
        let args = [
            "sweep",
            "--collective",
            "allreduce",
            "--topology",
            "kary:2",
            "--procs",
            "16",
            "--runs",
            "1",
            "--arrival",
            arrival,
        ];
        assert_usage_error(&args, "--arrival");
    }
}

#[test]
fn a_huge_arrival_file_is_refused_without_reading_it() {
    // 40 MB on one line, and 4 M lines: refused at the P + 1st item (a bounded line for the
    // first), so quickly and without holding the file.
    let one_line = file("one_line.txt", &"1,".repeat(20 << 20));
    let many = file("many.txt", &"1\n".repeat(4 << 20));
    for (f, line) in [(&one_line, "line 1"), (&many, "line 5")] {
        let started = std::time::Instant::now();
        let args = ct("4", &at(f), "1");
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_usage_error(&args, "--arrival");
        let err = String::from_utf8(ftcoll(&args).stderr).unwrap();
        assert!(err.contains(line) && err.contains("more than 4"), "{err}");
        assert!(started.elapsed().as_secs() < 20);
    }
}

#[test]
fn sweeps_take_the_new_arrivals_and_merge_their_shards() {
    let times = file(
        "sweep64.txt",
        &(0..64).map(|t| format!("{t}\n")).collect::<String>(),
    );
    let arrivals = format!("none,late:1:1000,random:8:12,{}", at(&times));
    let sweep = |extra: &[&str]| {
        let mut args = vec![
            "sweep",
            "--collective",
            "allreduce",
            "--topology",
            "kary:2",
            "--procs",
            "64",
            "-L",
            "10",
            "--imbalance",
            "alg5",
            "--runs",
            "2",
            "--seed",
            "4",
            "--arrival",
            &arrivals,
        ];
        args.extend_from_slice(extra);
        stdout(&args)
    };
    let full = sweep(&[]);
    let identity = full.lines().next().unwrap();
    let spelled = format!(
        "\"arrival\":[\"none\",\"late:1:1000\",\"random:8:12\",\"{}\"]",
        at(&times)
    );
    assert!(identity.contains(&spelled), "{identity}");
    let means = decimals(&full, "latency_mean");
    assert_eq!(means.len(), 4);
    assert!(
        means[1] >= 1000.0 && means[1] <= 1000.0 + means[0],
        "{means:?}"
    );
    // The file puts rank 63 at 63 steps, the last arrival: no completion before.
    assert!(means[3] >= 63.0, "{means:?}");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("arrival_cli");
    let shards: Vec<PathBuf> = (0..2)
        .map(|i| {
            let p = dir.join(format!("shard{i}.csv"));
            std::fs::write(&p, sweep(&["--shard", &format!("{i}/2")])).unwrap();
            p
        })
        .collect();
    let merged = stdout(&[
        "merge",
        shards[0].to_str().unwrap(),
        shards[1].to_str().unwrap(),
    ]);
    assert_eq!(merged, full);
}
