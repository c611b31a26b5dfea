//! `ftcoll simulate` end to end: determinism of seeded runs (DESIGN §1), the bad-input contract
//! (one line on stderr naming the flag, exit code 2, nothing on stdout), and CT Lemma 2 /
//! Corollary 1 and §4.1 at P = 65536.

use crate::cli_common;

use cli_common::{assert_usage_error, ftcoll};

fn stdout_ok(args: &[&str]) -> String {
    let out = ftcoll(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stderr.is_empty(), "{args:?}: unexpected stderr");
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// The raw JSON value of `key` in a one-line JSON object of scalars and one array (`faults`).
fn field<'a>(line: &'a str, key: &str) -> &'a str {
    let pat = format!("\"{key}\":");
    let start = line
        .find(&pat)
        .unwrap_or_else(|| panic!("no {key} in {line}"))
        + pat.len();
    let rest = &line[start..];
    let end = if rest.starts_with('[') {
        rest.find(']').expect("closing bracket") + 1
    } else {
        rest.find([',', '}']).expect("end of value")
    };
    &rest[..end]
}

fn number(line: &str, key: &str) -> u64 {
    field(line, key)
        .parse()
        .unwrap_or_else(|_| panic!("{key} is not a number in {line}"))
}

/// `simulate` of a Lamé(2) tree with checked correction on `procs` processes, then `extra`.
fn simulate(procs: &str, extra: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = [
        "simulate",
        "--procs",
        procs,
        "--tree",
        "lame:2",
        "--correction",
        "checked",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

fn stdout_of(args: &[String]) -> String {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    stdout_ok(&args)
}

/// DESIGN §1 ("everything random is seeded; the same inputs and seed give byte-identical
/// outputs"): the same `simulate` invocation with random faults and arrivals prints
/// byte-identical JSON, CSV and table output, and writes an identical trace.
#[test]
fn same_seed_gives_byte_identical_output() {
    for format in ["json", "csv", "table"] {
        let args = simulate(
            "3000",
            &[
                "--fault-rate",
                "0.03",
                "--arrival",
                "uniform:5",
                "--seed",
                "77",
                "--runs",
                "4",
                "--format",
                format,
            ],
        );
        let first = stdout_of(&args);
        assert!(!first.is_empty());
        assert_eq!(first, stdout_of(&args), "format {format}");
    }
    let dir = std::env::temp_dir();
    let paths: Vec<_> = (0..2)
        .map(|i| {
            dir.join(format!(
                "ftcoll-sim-cli-trace-{}-{i}.json",
                std::process::id()
            ))
        })
        .collect();
    for path in &paths {
        let p = path.to_str().unwrap();
        stdout_of(&simulate(
            "300",
            &["--fault-rate", "0.03", "--seed", "5", "--trace", p],
        ));
    }
    let a = std::fs::read(&paths[0]).unwrap();
    let b = std::fs::read(&paths[1]).unwrap();
    for path in &paths {
        let _ = std::fs::remove_file(path);
    }
    assert!(!a.is_empty());
    assert_eq!(a, b);
}

/// DESIGN §1 and `ScenarioSpec` (run i uses stream i of the seed): different seeds with
/// `--fault-rate` draw different faults, and so do different runs of one seed; with 3000
/// processes and rate 0.03 (≈ 90 faults) equal draws would be a broken generator. Every rank
/// listed is a non-root rank (DESIGN §6).
#[test]
fn different_seeds_give_different_faults() {
    let faults = |seed: &str, runs: &str| -> Vec<String> {
        stdout_of(&simulate(
            "3000",
            &["--fault-rate", "0.03", "--seed", seed, "--runs", runs],
        ))
        .lines()
        .map(|l| field(l, "faults").to_string())
        .collect()
    };
    let a = faults("1", "2");
    let b = faults("2", "1");
    assert_eq!(a.len(), 2);
    assert_ne!(a[0], b[0]);
    assert_ne!(a[0], a[1]);
    for list in a.iter().chain(&b) {
        let ranks: Vec<u32> = list
            .trim_matches(['[', ']'])
            .split(',')
            .map(|r| r.parse().unwrap())
            .collect();
        assert!(ranks.len() > 30, "{list}");
        assert!(ranks.iter().all(|&r| (1..3000).contains(&r)), "{list}");
        assert!(ranks.windows(2).all(|w| w[0] < w[1]), "{list}");
    }
}

/// DESIGN §7 (the CLI) and the `ftcoll` bad-input contract (lab/src/cli.rs): for each
/// bad `simulate` input, exit code 2, nothing on stdout, exactly one line on stderr, naming the
/// flag.
#[test]
fn bad_input_is_one_line_naming_the_flag() {
    let common = ["simulate", "--procs", "20", "--tree", "lame:2"];
    let cases: &[(&[&str], &str)] = &[
        (&["--correction", "bogus"], "--correction"),
        (&["--correction", "opportunistic:0"], "--correction"),
        (
            &["--correction", "checked", "--fault-count", "20"],
            "--fault-count",
        ),
        (&["--correction", "checked", "--faults", "0"], "--faults"),
        (&["--correction", "checked", "--faults", "20"], "--faults"),
        (&["--correction", "checked", "--faults", "3,x"], "--faults"),
        (
            &["--correction", "checked", "--fault-rate", "1.5"],
            "--fault-rate",
        ),
        (
            &["--correction", "checked", "--fault-rate=-0.1"],
            "--fault-rate",
        ),
        (
            &["--correction", "checked", "--crash-at", "0@3"],
            "--crash-at",
        ),
        (
            &["--correction", "checked", "--crash-at", "20@3"],
            "--crash-at",
        ),
        (
            &["--correction", "checked", "--crash-at", "3"],
            "--crash-at",
        ),
        (
            &["--correction", "checked", "--arrival", "foo"],
            "--arrival",
        ),
        (&["--correction", "checked", "--engine", "fast"], "--engine"),
        (&["--correction", "checked", "--engine", ""], "--engine"),
        (
            &["--correction", "checked", "--arrival", "uniform:-1"],
            "--arrival",
        ),
        (
            &[
                "--correction",
                "checked",
                "--faults",
                "3",
                "--fault-count",
                "2",
            ],
            "--fault-count",
        ),
        (
            &[
                "--correction",
                "checked",
                "--fault-rate",
                "0.1",
                "--fault-count",
                "2",
            ],
            "--fault-count",
        ),
    ];
    for (extra, flag) in cases {
        let mut args: Vec<&str> = common.to_vec();
        args.extend_from_slice(extra);
        assert_usage_error(&args, flag);
    }
    // --fault-count 2 with --faults names both flags.
    let out = ftcoll(&[
        "simulate",
        "--procs",
        "20",
        "--tree",
        "lame:2",
        "--correction",
        "checked",
        "--faults",
        "3",
        "--fault-count",
        "2",
    ]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--faults"));
}

/// The bad-input contract for a negative value written as a separate argument: `--fault-rate
/// -0.1` gets clap's "unexpected argument '-0' found", which does not name `--fault-rate`
/// (exit code 2 and one line hold). `--fault-rate=-0.1` is reported correctly (tested above).
#[test]
fn bug_negative_fault_rate_names_the_flag() {
    let out = ftcoll(&[
        "simulate",
        "--procs",
        "20",
        "--tree",
        "lame:2",
        "--correction",
        "checked",
        "--fault-rate",
        "-0.1",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("--fault-rate"), "{stderr}");
}

/// CT Lemma 2 and Corollary 1 at `L = 2, o = 1` (`4·1 + 2 + 2·1 = 8`
/// steps, `3 + 2 = 5` messages) and CT §4.1 ("each of them sends 5 correction messages",
/// "checked correction lasts 8 time steps"): `simulate --procs 65536 --tree lame:2 --correction
/// checked --start sync -L 2 -o 1 --format json` prints a quiescence latency 8 steps after the
/// deadline and `5 · 65536 = 327680` correction messages; the tree sends `P − 1 = 65535`; nobody
/// is left uncolored and all 65536 processes correct.
#[test]
fn done_when_65536_processes() {
    // `--engine full`: the driver itself at this size (`auto` would take the fast path, which
    // `lab/tests/protocols/fastpath.rs` compares with the driver at smaller P).
    let out = stdout_ok(&[
        "simulate",
        "--engine",
        "full",
        "--procs",
        "65536",
        "--tree",
        "lame:2",
        "--correction",
        "checked",
        "--start",
        "sync",
        "-L",
        "2",
        "-o",
        "1",
        "--format",
        "json",
    ]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1, "{out}");
    let line = lines[0];
    assert_eq!(
        number(line, "quiescence_latency"),
        number(line, "deadline") + 8
    );
    assert_eq!(number(line, "coloring_latency"), number(line, "deadline"));
    assert_eq!(number(line, "messages_correction"), 5 * 65536);
    assert_eq!(number(line, "messages_dissemination"), 65535);
    assert_eq!(number(line, "messages"), 5 * 65536 + 65535);
    assert_eq!(number(line, "undelivered"), 0);
    assert_eq!(number(line, "participants"), 65536);
    assert_eq!(number(line, "gmax"), 0);
    assert_eq!(field(line, "faults"), "[]");
}

/// `--engine auto` (the default) takes the exact fast path for synchronized
/// checked correction under dual-port LogP and prints exactly what `--engine full` (the driver)
/// prints, whole stdout, in every format; configurations outside the fast path run the driver
/// either way (the same bytes too).
#[test]
fn auto_and_full_engines_print_the_same_bytes() {
    let fast: &[&[&str]] = &[
        &[
            "--procs",
            "300",
            "--tree",
            "binomial",
            "--correction",
            "checked",
            "--fault-rate",
            "0.05",
            "--runs",
            "6",
        ],
        &[
            "--procs",
            "257",
            "--tree",
            "lame:2",
            "--correction",
            "checked",
            "--fault-count",
            "9",
            "--runs",
            "4",
            "--first-side",
            "right",
        ],
        &[
            "--procs",
            "1000",
            "--tree",
            "kary:4",
            "--correction",
            "checked",
            "--fault-rate",
            "0.02",
            "--order",
            "in-order",
            "-L",
            "3",
            "-o",
            "2",
            "--runs",
            "3",
        ],
        &[
            "--procs",
            "4096",
            "--tree",
            "optimal",
            "--correction",
            "checked",
            "--faults",
            "5,17,400,4000",
        ],
        &[
            "--procs",
            "100",
            "--tree",
            "binomial",
            "--correction",
            "checked",
            "--start",
            "sync",
            "-L",
            "1",
            "--seed",
            "9",
            "--runs",
            "5",
            "--fault-rate",
            "0.1",
        ],
        &[
            "--procs",
            "2000",
            "--tree",
            "lame:3",
            "--correction",
            "checked",
        ],
    ];
    let driver_only: &[&[&str]] = &[
        &[
            "--procs",
            "300",
            "--tree",
            "binomial",
            "--correction",
            "opportunistic:2",
            "--start",
            "overlap",
            "--fault-rate",
            "0.05",
            "--runs",
            "3",
        ],
        &[
            "--procs",
            "300",
            "--tree",
            "binomial",
            "--correction",
            "checked",
            "--start",
            "overlap",
            "--fault-rate",
            "0.05",
        ],
        &[
            "--procs",
            "300",
            "--tree",
            "lame:2",
            "--correction",
            "checked",
            "--crash-at",
            "5@3,40@9",
        ],
        &[
            "--procs",
            "300",
            "--tree",
            "lame:2",
            "--correction",
            "checked",
            "--arrival",
            "uniform:5",
            "--runs",
            "2",
        ],
        &[
            "--procs",
            "300",
            "--tree",
            "lame:2",
            "--correction",
            "checked",
            "--model",
            "single",
            "--fault-count",
            "4",
        ],
        &[
            "--procs",
            "300",
            "--tree",
            "lame:2",
            "--correction",
            "ack",
            "--fault-count",
            "4",
        ],
        &[
            "--procs",
            "300",
            "--tree",
            "binomial",
            "--correction",
            "failproof:1",
            "--fault-count",
            "4",
        ],
    ];
    for args in fast.iter().chain(driver_only) {
        for format in ["json", "csv", "table"] {
            let run = |engine: &str| {
                let mut v = vec!["simulate"];
                v.extend_from_slice(args);
                v.extend(["--format", format, "--engine", engine]);
                stdout_ok(&v)
            };
            let auto = run("auto");
            assert!(!auto.is_empty());
            assert_eq!(auto, run("full"), "{args:?} --format {format}");
        }
    }
}

/// The engines' choice, with an oracle outside both engines: the memory admission estimates the
/// fast path at 64 MiB + 112 B per process and the driver at 64 MiB + 1,280 B per process
/// (`lab/src/cli/admission.rs`), so under `--memory-limit 512M` a run of 10^6 processes is
/// admitted exactly when the fast path runs it: `auto` does for synchronized checked correction,
/// `full` is refused naming `--procs`, and so is `auto` for a configuration only the driver runs.
#[test]
fn auto_takes_the_fast_path_and_full_the_driver() {
    let run = |correction: &str, engine: &str| {
        ftcoll(&[
            "--memory-limit",
            "512M",
            "simulate",
            "--procs",
            "1000000",
            "--tree",
            "lame:2",
            "--correction",
            correction,
            "--format",
            "csv",
            "--engine",
            engine,
        ])
    };
    let fast = run("checked", "auto");
    assert!(
        fast.status.success(),
        "{}",
        String::from_utf8_lossy(&fast.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&fast.stdout).lines().count(), 2);
    for (correction, engine) in [("checked", "full"), ("opportunistic:2", "auto")] {
        let out = run(correction, engine);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{correction} {engine}: {err}");
        assert!(
            err.contains("--procs") && err.contains("above the limit"),
            "{correction} {engine}: {err}"
        );
        assert!(out.stdout.is_empty());
    }
}
