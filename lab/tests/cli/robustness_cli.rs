//! Every input and every size gets a clear answer. Requests too large for the memory
//! limit are refused before any allocation (one line naming the flag, the need and the limit,
//! exit code 2); lists mean one thing (no empty items, no repeats, a rank fails once); `simulate`
//! streams its runs; `reproduce --quick` never writes over the committed results.

use crate::cli_common;

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
    // A number past an integer type's end gets the range, not "too large to fit".
    for (flag, range) in [
        ("--seed", "0..=18446744073709551615"),
        ("--runs", "1..=100000000"),
        ("--fault-count", "0..=4294967295"),
    ] {
        let args = sim(&[flag, "18446744073709551616"]);
        assert_usage_error(&args, flag);
        assert_usage_error(&args, range);
    }
}

/// `gaps` lists every rank below a failed one: a failure set whose subtrees hold more than
/// 2^24 ranks is refused at once, naming `--faults`.
#[test]
fn gaps_refuses_failed_subtrees_too_large_to_list() {
    for procs in ["4294967295", "1000000000"] {
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
    let mut sweep = cli_common::small_ct("sweep");
    sweep.extend(["--runs", "2", "--shard", "0/1", "--output"]);
    sweep.push(Box::leak(shard_s.to_string().into_boxed_str()));
    stdout(&sweep);
    let before = std::fs::read(&shard).unwrap();
    assert_usage_error(&["merge", "--output", shard_s, shard_s], "--output");
    let other_spelling = format!("{}/./s0.csv", dir.display());
    assert_usage_error(&["merge", "--output", &other_spelling, shard_s], "--output");
    assert_eq!(std::fs::read(&shard).unwrap(), before);
    let merged = dir.join("merged.csv");
    stdout(&["merge", "--output", merged.to_str().unwrap(), shard_s]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// How a run at a bound ended: its exit code (`None`: still running at the deadline, having
/// printed), stderr, whether stdout had output, and the child's peak resident memory in bytes.
struct Bounded {
    code: Option<i32>,
    stderr: String,
    printed: bool,
    peak_bytes: u64,
}

/// Runs `ftcoll --memory-limit 1G args…` (`args` alone when they set the limit) until it exits
/// or `secs` pass; a run still going at the deadline is killed. Its peak memory comes from
/// `wait4`, for this child alone.
// The child is reaped by `wait4`, which also reports its peak memory.
#[allow(clippy::zombie_processes)]
fn run_bounded(args: &[&str], secs: u64) -> Bounded {
    use std::io::Read;
    use std::process::Stdio;
    let limit: &[&str] = if args.contains(&"--memory-limit") {
        &[]
    } else {
        &["--memory-limit", "1G"]
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_ftcoll"))
        .args(limit)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    // Drain both pipes on threads, so a chatty child never blocks on a full pipe.
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let answering = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let seen = answering.clone();
    let out_reader = std::thread::spawn(move || {
        let mut first = [0u8; 1];
        let printed = out.read(&mut first).map(|n| n > 0).unwrap_or(false);
        seen.store(printed, std::sync::atomic::Ordering::SeqCst);
        let _ = std::io::copy(&mut out, &mut std::io::sink());
        printed
    });
    let err_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = err.read_to_string(&mut text);
        text
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to overwrite.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let code = loop {
        // SAFETY: `pid` is our own child, not yet reaped; both pointers are to live locals.
        let done = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if done == pid {
            break libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
        }
        // A command streaming its answer has answered; the rest of it is not this test's.
        let streaming = answering.load(std::sync::atomic::Ordering::SeqCst);
        if streaming || std::time::Instant::now() > deadline {
            let _ = child.kill();
            // SAFETY: as above; this reaps the killed child.
            unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    Bounded {
        code,
        stderr: err_reader.join().unwrap(),
        printed: out_reader.join().unwrap(),
        peak_bytes: usage.ru_maxrss as u64 * 1024,
    }
}

/// Every numeric argument of every command, at its documented bounds, just past them and at
/// the integers' own limits: the command answers (exits 0, or is streaming its answer, within
/// 20 s) or refuses (exit 2, one line), always within the 1 GiB `--memory-limit` it was given.
/// A value that is not a number in range is refused naming the flag. Flags taking a number
/// must all be listed here: the test reads each command's `--help` and fails on one it does
/// not cover.
#[test]
fn every_numeric_argument_at_its_bounds_answers_or_refuses_within_its_limits() {
    const U32_MAX: &str = "4294967295";
    const U32_OVER: &str = "4294967296";
    const U64_MAX: &str = "18446744073709551615";
    const U64_OVER: &str = "18446744073709551616";
    let ct = [
        "simulate",
        "--procs",
        "16",
        "--tree",
        "binomial",
        "--correction",
        "checked",
    ];
    let ftco = [
        "simulate",
        "--procs",
        "16",
        "--collective",
        "allreduce",
        "--topology",
        "kary:2",
    ];
    let gossip = ["simulate", "--procs", "64", "--gossip", "ocg"];
    let sweep = [
        "sweep",
        "--procs",
        "16",
        "--tree",
        "binomial",
        "--correction",
        "checked",
    ];
    let swept_gossip = ["sweep", "--procs", "64", "--gossip", "ocg"];
    let pap = ["pap-simulate", "--pap", "flat", "--procs", "4"];
    let plan = ["gossip-plan", "--procs", "64"];
    let tree = ["tree", "--tree", "binomial", "--format", "text"];
    let gaps = ["gaps", "--tree", "binomial", "--faults", "5"];
    let procs = ["0", "1", "2", U32_MAX, U32_OVER, U64_OVER, "-1", "1.5"];
    let logp = ["0", "1", "65535", "65536", U64_MAX, "-1"];
    let runs = ["0", "1", "100000000", "100000001", U64_MAX, U64_OVER, "-3"];
    let seed = ["0", U64_MAX, U64_OVER, "-1"];
    let count = ["0", "15", "16", U32_MAX, U64_OVER, "-1"];
    let rate = ["0", "1", "1.5", "-0.1", "nan", "inf"];
    let delta = ["0", "1e-300", "0.5", "1", "-0.5", "nan"];
    let steps = ["0", "1", "1048576", "1048577", U64_MAX, "-1"];
    let timeout = ["0", "1", U32_MAX, U32_OVER, "-1"];
    let memory = ["63M", "64M", "16E", "17E", "0", "-1G"];
    // A base command without its `--procs P` (items 1 and 2), for the `--procs` rows.
    let no_procs = |b: &[&'static str]| -> Vec<&'static str> { [&b[..1], &b[3..]].concat() };
    let cases: Vec<(&str, Vec<&str>, &str, &[&str])> = vec![
        ("tree", tree.to_vec(), "--procs", &procs),
        (
            "tree",
            [&tree[..], &["--procs", "16"]].concat(),
            "-L",
            &logp,
        ),
        (
            "tree",
            [&tree[..], &["--procs", "16"]].concat(),
            "-o",
            &logp,
        ),
        ("gaps", gaps.to_vec(), "--procs", &procs),
        (
            "gaps",
            [&gaps[..], &["--procs", "64"]].concat(),
            "-L",
            &logp,
        ),
        (
            "gaps",
            [&gaps[..], &["--procs", "64"]].concat(),
            "-o",
            &logp,
        ),
        ("simulate", no_procs(&ct), "--procs", &procs),
        ("simulate", ct.to_vec(), "-L", &logp),
        ("simulate", ct.to_vec(), "-o", &logp),
        ("simulate", ct.to_vec(), "--fault-count", &count),
        ("simulate", ct.to_vec(), "--fault-rate", &rate),
        ("simulate", ct.to_vec(), "--runs", &runs),
        ("simulate", ct.to_vec(), "--seed", &seed),
        ("simulate", no_procs(&ftco), "--procs", &procs),
        ("simulate", ftco.to_vec(), "-L", &logp),
        ("simulate", ftco.to_vec(), "--timeout-round-trip", &timeout),
        ("simulate", ftco.to_vec(), "--timeout-per-load", &timeout),
        ("simulate", no_procs(&gossip), "--procs", &procs),
        ("simulate", gossip.to_vec(), "--gossip-time", &steps),
        ("simulate", gossip.to_vec(), "--correction-time", &steps),
        ("simulate", gossip.to_vec(), "--delta", &delta),
        ("sweep", no_procs(&sweep), "--procs", &procs),
        ("sweep", sweep.to_vec(), "-L", &logp),
        ("sweep", sweep.to_vec(), "-o", &logp),
        ("sweep", sweep.to_vec(), "--fault-count", &count),
        ("sweep", sweep.to_vec(), "--fault-rate", &rate),
        ("sweep", sweep.to_vec(), "--fault-fraction", &rate),
        ("sweep", sweep.to_vec(), "--runs", &runs),
        ("sweep", sweep.to_vec(), "--seed", &seed),
        (
            "sweep",
            sweep.to_vec(),
            "--threads",
            &["0", "1", "1024", "1025", "-2"],
        ),
        ("sweep", swept_gossip.to_vec(), "--gossip-time", &steps),
        ("sweep", swept_gossip.to_vec(), "--correction-time", &steps),
        ("sweep", swept_gossip.to_vec(), "--delta", &delta),
        (
            "gossip-plan",
            vec!["gossip-plan"],
            "--procs",
            &["1", "2", "5", "16777216", "16777217", "-2"],
        ),
        (
            "gossip-plan",
            plan.to_vec(),
            "--active",
            &["0", "1", "64", "65", "-1"],
        ),
        ("gossip-plan", plan.to_vec(), "-L", &logp),
        ("gossip-plan", plan.to_vec(), "-o", &logp),
        ("gossip-plan", plan.to_vec(), "--delta", &delta),
        (
            "pap-simulate",
            [&pap[..1], &pap[3..], &["--msize", "16"]].concat(),
            "--procs",
            &procs,
        ),
        (
            "pap-simulate",
            pap.to_vec(),
            "--msize",
            &["0", "1", U32_MAX, U64_MAX, U64_OVER, "-10"],
        ),
        (
            "pap-simulate",
            [&pap[..], &["--msize", "10"]].concat(),
            "--runs",
            &runs,
        ),
        (
            "pap-simulate",
            [&pap[..], &["--msize", "10"]].concat(),
            "--seed",
            &seed,
        ),
        (
            "tree",
            [&tree[..], &["--procs", "16"]].concat(),
            "--memory-limit",
            &memory,
        ),
    ];
    // Every option `--help` lists with a value is either a number covered above or one of these.
    let not_numbers = [
        "TREE",
        "ORDER",
        "FORMAT",
        "CORRECTION",
        "START",
        "FIRST_SIDE",
        "MODEL",
        "IGNORED_MESSAGES",
        "ETA",
        "FAULTS",
        "CRASH_AT",
        "ARRIVAL",
        "TRACE",
        "ENGINE",
        "GOSSIP",
        "FILE",
        "COLLECTIVE",
        "TOPOLOGY",
        "ROOTS",
        "SERVICE",
        "OP",
        "IMBALANCE",
        "ROOT_FAILURE",
        "OUTPUT",
        "SHARD",
        "CRASHES",
        "PAP",
        "MODE",
    ];
    for command in [
        "tree",
        "gaps",
        "simulate",
        "sweep",
        "gossip-plan",
        "pap-simulate",
    ] {
        let help = stdout(&[command, "--help"]);
        for line in help.lines() {
            let Some(word) = line.split('<').nth(1).and_then(|w| w.split('>').next()) else {
                continue;
            };
            if not_numbers.contains(&word) || !line.trim_start().starts_with('-') {
                continue;
            }
            let long = line
                .split_whitespace()
                .find(|w| w.starts_with("--"))
                .or_else(|| line.split_whitespace().next())
                .unwrap_or("");
            // Short-only flags (-L, -o) are listed as `-L <LATENCY>`.
            let flag = if long.starts_with("--") {
                long
            } else {
                line.trim_start().split(' ').next().unwrap_or("")
            };
            let covered = cases
                .iter()
                .any(|c| (c.0 == command || c.2 == "--memory-limit") && c.2 == flag);
            assert!(
                covered,
                "`{command} {flag}` takes a number and is not covered here"
            );
        }
    }
    for (command, base, flag, values) in &cases {
        for value in values.iter() {
            let mut args: Vec<&str> = base.clone();
            if *flag == "--memory-limit" {
                args.splice(0..0, ["--memory-limit", *value]);
            } else {
                args.extend([*flag, *value]);
            }
            let run = run_bounded(&args, 20);
            let shown = format!("{command}: {args:?}");
            assert!(
                run.peak_bytes <= 1 << 30,
                "{shown}: peak {} bytes above the 1 GiB limit",
                run.peak_bytes
            );
            match run.code {
                Some(0) => {}
                None => assert!(run.printed, "{shown}: 20 s without an answer"),
                Some(2) => {
                    assert_eq!(run.stderr.lines().count(), 1, "{shown}: {}", run.stderr);
                    let number_in_range = value.parse::<f64>().is_ok_and(|v| v >= 0.0);
                    if !number_in_range {
                        assert!(run.stderr.contains(flag), "{shown}: {}", run.stderr);
                    }
                }
                other => panic!("{shown}: exit {other:?}: {}", run.stderr),
            }
        }
    }
}
