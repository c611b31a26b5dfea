//! Issue 11: every input and every size gets a clear answer. Requests too large for the memory
//! limit are refused before any allocation (one line naming the flag, the need and the limit,
//! exit code 2); lists mean one thing (no empty items, no repeats, a rank fails once); `simulate`
//! streams its runs; `reproduce --quick` never writes over the committed results.
#![cfg(feature = "cli")]

mod cli_common;

use std::process::Command;

use cli_common::{assert_usage_error, ftcoll, stdout};

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ftcoll-robust-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const SIM: [&str; 7] = [
    "simulate",
    "--procs",
    "64",
    "--tree",
    "lame:2",
    "--correction",
    "checked",
];

fn sim(extra: &[&str]) -> Vec<&'static str> {
    let mut v = SIM.to_vec();
    for e in extra {
        v.push(Box::leak(e.to_string().into_boxed_str()));
    }
    v
}

#[test]
fn requests_beyond_the_memory_limit_are_refused_before_allocating() {
    // The largest accepted P would need terabytes: refused at once, whatever the machine.
    let huge = [
        "simulate",
        "--procs",
        "4294967295",
        "--tree",
        "binomial",
        "--correction",
        "checked",
    ];
    assert_usage_error(&huge, "--procs");
    let out = ftcoll(&huge);
    let err = String::from_utf8_lossy(&out.stderr);
    // (The fast path, which `simulate` takes here, estimates hundreds of GiB.)
    assert!(
        (err.contains("GiB") || err.contains("TiB")) && err.contains("above the limit"),
        "{err}"
    );
    // The driver's estimate is terabytes.
    let full = [&huge[..], &["--engine", "full"]].concat();
    assert_usage_error(&full, "--procs");
    let err = String::from_utf8_lossy(&ftcoll(&full).stderr).into_owned();
    assert!(
        err.contains("TiB") && err.contains("above the limit"),
        "{err}"
    );
    // --memory-limit lowers the limit and is named as its source.
    let small = [
        "--memory-limit",
        "100M",
        "simulate",
        "--procs",
        "1000000",
        "--tree",
        "lame:2",
        "--correction",
        "checked",
    ];
    assert_usage_error(&small, "--memory-limit");
    // gaps: the failed subtree holds half of 2^32 ranks.
    assert_usage_error(
        &[
            "gaps",
            "--tree",
            "kary:2",
            "--procs",
            "4294967295",
            "--faults",
            "1",
        ],
        "--faults",
    );
    // sweep: the largest point's simulators, and a grid too large to list.
    assert_usage_error(
        &[
            "sweep",
            "--procs",
            "4294967295",
            "--tree",
            "binomial",
            "--correction",
            "checked",
        ],
        "--procs",
    );
    let procs: Vec<String> = (2..=2001).map(|p| p.to_string()).collect();
    let latencies: Vec<String> = (0..=1000).map(|l| l.to_string()).collect();
    let overheads: Vec<String> = (1..=1000).map(|o| o.to_string()).collect();
    let (procs, latencies, overheads) = (procs.join(","), latencies.join(","), overheads.join(","));
    let grid = [
        "sweep",
        "--procs",
        &procs,
        "--tree",
        "binomial,lame:2",
        "--correction",
        "checked,ack",
        "-L",
        &latencies,
        "-o",
        &overheads,
    ];
    assert_usage_error(&grid, "--procs");
    let err = String::from_utf8_lossy(&ftcoll(&grid).stderr).into_owned();
    assert!(err.contains("8008000000 points"), "{err}");
    // merge: the inputs' sizes, before reading them.
    let dir = temp_dir("merge-limit");
    let shard = dir.join("s.csv");
    let shard = shard.to_str().unwrap();
    stdout(&[
        "sweep",
        "--procs",
        "16",
        "--tree",
        "lame:2",
        "--correction",
        "checked",
        "--output",
        shard,
    ]);
    assert_usage_error(&["--memory-limit", "64M", "merge", shard], "inputs");
    let _ = std::fs::remove_dir_all(&dir);
    // A bad size for the limit itself.
    for bad in ["0", "12Q", "-1G", "1K", "1M", "63M"] {
        assert_usage_error(
            &[
                "--memory-limit",
                bad,
                "tree",
                "--tree",
                "binomial",
                "--procs",
                "4",
            ],
            "--memory-limit",
        );
    }
    // Under the limit, the same command runs.
    let ok = stdout(&[
        "--memory-limit",
        "1G",
        "simulate",
        "--procs",
        "64",
        "--tree",
        "lame:2",
        "--correction",
        "checked",
    ]);
    assert_eq!(ok.lines().count(), 1);
}

#[test]
fn lists_mean_one_thing() {
    for (extra, flag, needle) in [
        (&["--faults", ",,,"][..], "--faults", "empty item"),
        (&["--faults", "3,,4"][..], "--faults", "empty item"),
        (&["--faults", "3,"][..], "--faults", "empty item"),
        (
            &["--faults", "3,3"][..],
            "--faults",
            "rank 3 is listed twice",
        ),
        (
            &["--crash-at", "3@5,3@7"][..],
            "--crash-at",
            "rank 3 crashes twice",
        ),
        (&["--crash-at", "3@5,"][..], "--crash-at", "empty item"),
        (
            &["--faults", "3", "--crash-at", "3@5"][..],
            "--crash-at",
            "also in --faults",
        ),
        (
            &["--arrival", "uniform:99999999999"][..],
            "--arrival",
            "99999999999",
        ),
        (
            &["--arrival", "normal:4294967296"][..],
            "--arrival",
            "4294967296",
        ),
    ] {
        let args = sim(extra);
        assert_usage_error(&args, flag);
        let err = String::from_utf8_lossy(&ftcoll(&args).stderr).into_owned();
        assert!(err.contains(needle), "{extra:?}: {err}");
    }
    // gaps takes the same lists.
    assert_usage_error(
        &[
            "gaps", "--tree", "binomial", "--procs", "8", "--faults", "2,2",
        ],
        "--faults",
    );
    // The empty string is the empty list (the default of gaps), and the largest spread runs.
    stdout(&sim(&["--faults", ""]));
    stdout(&sim(&["--arrival", "uniform:4294967295"]));
}

#[test]
fn fault_lists_are_read_from_a_file() {
    let dir = temp_dir("faults");
    let file = dir.join("faults.txt");
    // One per line, comma-separated, blank lines: the same set as the inline list.
    std::fs::write(&file, "3\n17,42\n\n5\n").unwrap();
    let arg = format!("@{}", file.display());
    let from_file = stdout(&sim(&["--faults", &arg]));
    let inline = stdout(&sim(&["--faults", "3,17,42,5"]));
    assert_eq!(from_file, inline);
    let gaps_file = stdout(&[
        "gaps", "--tree", "lame:2", "--procs", "64", "--faults", &arg,
    ]);
    let gaps_inline = stdout(&[
        "gaps",
        "--tree",
        "lame:2",
        "--procs",
        "64",
        "--faults",
        "3,17,42,5",
    ]);
    assert_eq!(gaps_file, gaps_inline);
    // Errors name the file and the line.
    std::fs::write(&file, "3\n17,x\n").unwrap();
    let out = ftcoll(&sim(&["--faults", &arg]));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("faults.txt") && err.contains("line 2"),
        "{err}"
    );
    assert_usage_error(&sim(&["--faults", &arg]), "--faults");
    std::fs::write(&file, [0xff, 0xfe, 0x00, 0x01]).unwrap();
    assert_usage_error(&sim(&["--faults", &arg]), "--faults");
    std::fs::write(&file, "3\n3\n").unwrap();
    assert_usage_error(&sim(&["--faults", &arg]), "--faults");
    let missing = format!("@{}", dir.join("absent.txt").display());
    assert_usage_error(&sim(&["--faults", &missing]), "--faults");
    // A 200 k-rank list, which no command line holds.
    let many: Vec<String> = (1..=200_000u32).map(|r| r.to_string()).collect();
    std::fs::write(&file, many.join("\n")).unwrap();
    let out = stdout(&[
        "simulate",
        "--procs",
        "400000",
        "--tree",
        "lame:2",
        "--correction",
        "checked",
        "--format",
        "csv",
        "--faults",
        &arg,
    ]);
    assert_eq!(out.lines().count(), 2);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn simulate_streams_runs_and_formats_them_as_before() {
    // Every format prints one row per run; the table's columns line up for small outputs.
    let json = stdout(&sim(&["--runs", "300", "--fault-count", "3"]));
    assert_eq!(json.lines().count(), 300);
    let csv = stdout(&sim(&[
        "--runs",
        "300",
        "--fault-count",
        "3",
        "--format",
        "csv",
    ]));
    assert_eq!(csv.lines().count(), 301);
    let table = stdout(&sim(&[
        "--runs",
        "5",
        "--fault-count",
        "3",
        "--format",
        "table",
    ]));
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 6);
    assert!(lines.iter().all(|l| l.len() == lines[0].len()), "{table}");
    // Beyond the sizing rows the table still has one line per run.
    let long = stdout(&sim(&[
        "--runs",
        "300",
        "--fault-count",
        "3",
        "--format",
        "table",
    ]));
    assert_eq!(long.lines().count(), 301);
    // The same runs whatever the format: CSV's run column counts 0..300.
    for (i, l) in csv.lines().skip(1).enumerate() {
        assert_eq!(l.split(',').nth(9), Some(i.to_string().as_str()), "{l}");
    }
}

#[test]
fn simulate_prints_the_first_runs_before_the_last_is_done() {
    // A run count too large to finish: the first rows arrive on stdout while it works.
    let mut child = Command::new(env!("CARGO_BIN_EXE_ftcoll"))
        .args(sim(&["--runs", "100000000", "--format", "csv"]))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut reader = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    for _ in 0..1000 {
        line.clear();
        std::io::BufRead::read_line(&mut reader, &mut line).unwrap();
        assert!(!line.is_empty(), "stdout ended early");
    }
    child.kill().unwrap();
    let _ = child.wait();
}

#[test]
fn reproduce_quick_leaves_the_committed_results_alone() {
    // Run where a checkout would be: the default output of a quick run is results/quick, not
    // docs/results.
    let dir = temp_dir("checkout");
    std::fs::create_dir_all(dir.join("docs/results")).unwrap();
    std::fs::write(dir.join("docs/results/ct.md"), "committed").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ftcoll"))
        .args(["reproduce", "ct", "--smoke"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("docs/results/ct.md")).unwrap(),
        "committed"
    );
    assert!(!dir.join("docs/results/ct").exists());
    assert!(dir.join("results/quick/ct.md").exists());
    assert!(dir.join("results/quick/ct/table1.csv").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A negative number reaches the flag's own check, which names the flag and its range (it was
/// read as an unknown option: "unexpected argument '-5'", "'-0' found").
#[test]
fn negative_numbers_are_refused_by_the_flag_they_were_given_to() {
    for (args, flag) in [
        (
            vec![
                "simulate",
                "--procs",
                "-5",
                "--tree",
                "lame:2",
                "--correction",
                "checked",
            ],
            "--procs",
        ),
        (vec!["gossip-plan", "--procs", "-5"], "--procs"),
        (
            vec!["gossip-plan", "--procs", "64", "--delta", "-0.5"],
            "--delta",
        ),
        (
            vec!["tree", "--tree", "binomial", "--procs", "8", "-L", "-1"],
            "-L",
        ),
        (sim(&["--runs", "-3"]), "--runs"),
        (sim(&["--seed", "-1"]), "--seed"),
        (
            vec![
                "pap-simulate",
                "--pap",
                "flat",
                "--procs",
                "4",
                "--msize",
                "-10",
            ],
            "--msize",
        ),
    ] {
        assert_usage_error(&args, flag);
        let err = String::from_utf8_lossy(&ftcoll(&args).stderr).to_string();
        assert!(!err.contains("unexpected argument"), "{args:?}: {err}");
    }
}

/// `gaps` lists every rank below a failed one: a failure set whose subtrees hold more than
/// 2^24 ranks is refused at once, naming `--faults` (it ran minutes and grew past 1.5 GB).
#[test]
fn gaps_refuses_failed_subtrees_too_large_to_list() {
    for procs in ["4294967295", "100000000"] {
        assert_usage_error(
            &[
                "gaps", "--tree", "binomial", "--procs", procs, "--faults", "5",
            ],
            "--faults",
        );
    }
    let text = stdout(&[
        "gaps", "--tree", "binomial", "--procs", "1024", "--faults", "5",
    ]);
    assert!(text.contains("\"gmax\""), "{text}");
}

/// `merge --output` naming one of its inputs would overwrite that shard: refused, and the shard
/// is left as it was.
#[test]
fn merge_refuses_to_write_over_an_input() {
    let dir = temp_dir("merge-over");
    let shard = dir.join("s0.csv");
    let shard_s = shard.to_str().unwrap();
    stdout(&[
        "sweep",
        "--procs",
        "16",
        "--tree",
        "binomial",
        "--correction",
        "checked",
        "--runs",
        "2",
        "--shard",
        "0/1",
        "--output",
        shard_s,
    ]);
    let before = std::fs::read(&shard).unwrap();
    assert_usage_error(&["merge", "--output", shard_s, shard_s], "--output");
    let other_spelling = format!("{}/./s0.csv", dir.display());
    assert_usage_error(&["merge", "--output", &other_spelling, shard_s], "--output");
    assert_eq!(std::fs::read(&shard).unwrap(), before);
    let merged = dir.join("merged.csv");
    stdout(&["merge", "--output", merged.to_str().unwrap(), shard_s]);
    let _ = std::fs::remove_dir_all(&dir);
}
