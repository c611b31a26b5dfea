//! The `ftcoll-verify` command line: the JSON verdict of `check` and the bad-input contract
//! (one line on stderr naming the flag, exit code 2, nothing on stdout).

use std::process::{Command, Output};

fn verify(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ftcoll-verify"))
        .args(args)
        .output()
        .expect("ftcoll-verify runs")
}

/// CT §2.1: the plain binary tree with one pre-operation crash violates liveness; `check` prints
/// its JSON with the shortest counterexample (rank 1 crashed, rank 3 never delivers).
#[test]
fn check_prints_the_verdict_and_the_shortest_trace() {
    let out = verify(&[
        "check",
        "--tree",
        "kary:2",
        "--correction",
        "none",
        "--procs",
        "4",
        "--crashes",
        "1",
        "--timing",
        "pre",
    ]);
    assert!(out.status.success());
    let json = String::from_utf8(out.stdout).unwrap();
    for needle in [
        "\"verdict\":\"violated\"",
        "\"property\":\"non-faulty liveness: at quiescence every live process delivered\"",
        "\"states\":",
        "\"seconds\":",
        "\"trace\":[\"before the operation: ranks [1] crash\"",
        "never delivered: [3]",
    ] {
        assert!(json.contains(needle), "{needle} not in {json}");
    }
    let out = verify(&[
        "check",
        "--tree",
        "lame:2",
        "--correction",
        "checked",
        "--procs",
        "6",
        "--crashes",
        "2",
        "--timing",
        "pre",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json = String::from_utf8(out.stdout).unwrap();
    assert!(
        json.contains("\"verdict\":\"holds\",\"property\":null"),
        "{json}"
    );
}

fn assert_usage_error(args: &[&str], flag: &str) {
    let out = verify(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    assert!(out.stdout.is_empty(), "{args:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(flag), "'{err}' does not name {flag}");
}

/// Bad input names the flag and exits with 2.
#[test]
fn bad_input_is_one_line_naming_the_flag() {
    let base = ["check", "--tree", "lame:2", "--correction", "checked"];
    assert_usage_error(&[&base[..], &["--procs", "1"]].concat(), "--procs");
    assert_usage_error(&[&base[..], &["--procs", "40"]].concat(), "--procs");
    assert_usage_error(
        &[&base[..], &["--procs", "4", "--crashes", "4"]].concat(),
        "--crashes",
    );
    assert_usage_error(
        &[
            "check",
            "--tree",
            "lame:0",
            "--correction",
            "checked",
            "--procs",
            "4",
        ],
        "--tree",
    );
    assert_usage_error(
        &[
            "check",
            "--tree",
            "lame:2",
            "--correction",
            "sometimes",
            "--procs",
            "4",
        ],
        "--correction",
    );
    assert_usage_error(
        &[&base[..], &["--procs", "4", "--timing", "later"]].concat(),
        "--timing",
    );
    assert_usage_error(
        &[&base[..], &["--procs", "4", "--model", "quantum"]].concat(),
        "--model",
    );
    // Per-process clocks would check synchronized correction against another model.
    let sync_async = ["--procs", "3", "--model", "async", "--start", "sync"];
    assert_usage_error(
        &[&base[..], &sync_async, &["--search", "dpor"]].concat(),
        "--start",
    );
    assert_usage_error(
        &[
            &["search", "--tree", "lame:2", "--correction", "checked"][..],
            &sync_async,
            &["--walks", "10"],
        ]
        .concat(),
        "--start",
    );
    // A plain or acknowledged tree never reads the clock: started "synchronized" it is checked
    // all the same, exhaustively and by random runs.
    let runs = |args: &[&str]| {
        let out = verify(args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let clock_free = ["--tree", "lame:2", "--model", "async", "--start", "sync"];
    runs(
        &[
            &[
                "check",
                "--correction",
                "none",
                "--procs",
                "3",
                "--search",
                "dpor",
            ][..],
            &clock_free,
        ]
        .concat(),
    );
    runs(
        &[
            &[
                "search",
                "--correction",
                "ack",
                "--procs",
                "5",
                "--walks",
                "10",
            ][..],
            &clock_free,
        ]
        .concat(),
    );
    // `--start` defaults to sync: the refusal says so.
    let search_async = [
        "search",
        "--model",
        "async",
        "--tree",
        "lame:2",
        "--correction",
        "checked",
    ];
    let default_start = [&search_async[..], &["--procs", "3", "--walks", "10"]].concat();
    assert_usage_error(&default_start, "--start: sync (the default)");
    // More crash sets than a random run can draw from uniformly: the error gives the range.
    // (Σ_{k ≤ 4} C(65535, k) = 768,543,971,776,348,161 < 2^64 < C(65535, 5), Python's math.comb;
    // 7 crashes asked, so the answer is not simply one less.)
    let overlap = ["--start", "overlap", "--procs", "65536"];
    let too_many = [
        &search_async[..],
        &overlap,
        &["--crashes", "7", "--walks", "1"],
    ]
    .concat();
    assert_usage_error(
        &too_many,
        "--crashes: 7 crashes among the 65535 non-root ranks",
    );
    assert_usage_error(&too_many, "allowed 0..=4 at P = 65536");
}

/// The value of a top-level JSON field of `check`'s one-line output (a string, number, `null` or
/// an array, as written).
fn field<'a>(json: &'a str, name: &str) -> &'a str {
    let key = format!("\"{name}\":");
    let start = json
        .find(&key)
        .unwrap_or_else(|| panic!("no {name} in {json}"))
        + key.len();
    let rest = &json[start..];
    let end = if rest.starts_with('[') {
        rest.find(']').map_or(rest.len(), |i| i + 1)
    } else if let Some(string) = rest.strip_prefix('"') {
        string.find('"').map_or(rest.len(), |i| i + 2)
    } else {
        rest.find([',', '}']).unwrap_or(rest.len())
    };
    &rest[..end]
}

const LIVENESS: &str = "non-faulty liveness: at quiescence every live process delivered";
const OTHERS: [&str; 3] = [
    "integrity: every delivery is the root's payload",
    "no duplicates: no process delivers twice",
    "termination: quiescent by the horizon",
];

/// A state budget too small for the state graph (thousands of states complete) stops the search: the
/// verdict is partial, nothing is said to hold, the exit status is 3, and at most the budgeted
/// states were explored — in JSON and in text.
#[test]
fn a_tiny_budget_gives_a_partial_verdict() {
    let base = [
        "check",
        "--tree",
        "lame:2",
        "--correction",
        "checked",
        "--procs",
        "8",
        "--crashes",
        "2",
        "--timing",
        "any",
        "--max-states",
        "1000",
    ];
    let out = verify(&base);
    assert_eq!(out.status.code(), Some(3));
    let json = String::from_utf8(out.stdout).unwrap();
    assert_eq!(field(&json, "verdict"), "\"partial\"", "{json}");
    assert_eq!(field(&json, "budget"), "\"states\"", "{json}");
    assert_eq!(field(&json, "violated"), "[]", "{json}");
    assert_eq!(field(&json, "property"), "null", "{json}");
    for p in OTHERS.iter().chain([&LIVENESS]) {
        assert!(field(&json, "unresolved").contains(p), "{p} not in {json}");
    }
    let states: u64 = field(&json, "states").parse().unwrap();
    assert!((1..=1000).contains(&states), "{json}");
    assert!(!json.contains("holds"), "{json}");

    let out = verify(&[&base[..], &["--format", "text"]].concat());
    assert_eq!(out.status.code(), Some(3));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text.matches(&format!(
            "no violation found within {states} states (budget: states)"
        ))
        .count(),
        // The four broadcast properties and the family's protocol rules and quantitative claims.
        4 + ftcoll_verify::property::RULES.len(),
        "{text}"
    );
    assert!(text.contains("verdict: partial"), "{text}");
    assert!(!text.contains("holds"), "{text}");

    // A time budget too: the complete check of the full model at P = 14 takes ten times the
    // budget or more.
    let mut timed = base.to_vec();
    timed.truncate(base.len() - 2);
    timed[6] = "14";
    timed.extend([
        "--crashes-at-every-instant",
        "--timeout",
        "0.05",
        "--format",
        "text",
    ]);
    let out = verify(&timed);
    assert_eq!(out.status.code(), Some(3));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("(budget: time)"), "{text}");
    assert!(!text.contains("holds"), "{text}");
}

/// A budget that stops the search after a counterexample was found reports it as a definite
/// violation (with its trace), and only the other properties as unresolved.
#[test]
fn a_partial_verdict_keeps_the_violations_it_found() {
    // Complete: 24 276 states, liveness violated.
    let out = verify(&[
        "check",
        "--tree",
        "kary:2",
        "--correction",
        "none",
        "--procs",
        "12",
        "--crashes",
        "11",
        "--max-states",
        "20000",
    ]);
    assert_eq!(out.status.code(), Some(3));
    let json = String::from_utf8(out.stdout).unwrap();
    assert_eq!(field(&json, "verdict"), "\"partial\"", "{json}");
    assert_eq!(
        field(&json, "property"),
        format!("\"{LIVENESS}\""),
        "{json}"
    );
    assert_eq!(
        field(&json, "violated"),
        format!("[\"{LIVENESS}\"]"),
        "{json}"
    );
    let unresolved = field(&json, "unresolved");
    assert!(!unresolved.contains(LIVENESS), "{json}");
    for p in OTHERS {
        assert!(unresolved.contains(p), "{p} not in {json}");
    }
    assert!(json.contains("never delivered"), "{json}");
}

/// With budgets large enough, `check` gives exactly the verdict, states and trace it gives with
/// none: for a protocol that holds and one that is violated.
#[test]
fn a_large_enough_budget_gives_the_same_verdict() {
    let without_time = |json: &str| {
        let seconds = field(json, "seconds");
        json.replacen(&format!("\"seconds\":{seconds}"), "", 1)
    };
    for (spec, verdict) in [
        (
            [
                "--tree",
                "lame:2",
                "--correction",
                "checked",
                "--procs",
                "6",
                "--crashes",
                "2",
                "--timing",
                "any",
            ],
            "\"holds\"",
        ),
        (
            [
                "--tree",
                "kary:2",
                "--correction",
                "none",
                "--procs",
                "7",
                "--crashes",
                "2",
                "--timing",
                "any",
            ],
            "\"violated\"",
        ),
    ] {
        let plain = verify(&[&["check"][..], &spec].concat());
        let budgeted = verify(
            &[
                &["check"][..],
                &spec,
                &[
                    "--max-states",
                    "100000000",
                    "--timeout",
                    "3600",
                    "--memory-limit",
                    "1G",
                ],
            ]
            .concat(),
        );
        assert_eq!(plain.status.code(), Some(0));
        assert_eq!(budgeted.status.code(), Some(0));
        let (plain, budgeted) = (
            String::from_utf8(plain.stdout).unwrap(),
            String::from_utf8(budgeted.stdout).unwrap(),
        );
        assert_eq!(field(&plain, "verdict"), verdict, "{plain}");
        assert_eq!(field(&plain, "budget"), "null", "{plain}");
        assert_eq!(field(&plain, "unresolved"), "[]", "{plain}");
        assert_eq!(without_time(&plain), without_time(&budgeted));
        // Both CLI runs carry the default memory budget; the library's unbudgeted check is the
        // oracle that the budget cut nothing: the same number of states.
        let arg = |name: &str| spec[spec.iter().position(|a| *a == name).unwrap() + 1];
        let protocol = ftcoll_verify::ProtocolSpec {
            tree: arg("--tree").parse().unwrap(),
            order: ftcoll::topology::Order::Interleaved,
            correction: arg("--correction").parse().unwrap(),
            start: ftcoll::protocols::corrected_tree::StartMode::Synchronized,
            procs: arg("--procs").parse().unwrap(),
            logp: ftcoll::topology::LogP::new(2, 1).unwrap(),
        };
        // With crashes at any instant the command's default is the events-only crash rule.
        let events_only = ftcoll_verify::Budget {
            crashes_at_events_only: true,
            ..ftcoll_verify::Budget::UNLIMITED
        };
        let unlimited = ftcoll_verify::check_within(
            &protocol,
            arg("--crashes").parse().unwrap(),
            ftcoll_verify::CrashTiming::Any,
            ftcoll_verify::ModelKind::Timed,
            &events_only,
            None,
        )
        .unwrap();
        assert_eq!(
            field(&plain, "states"),
            unlimited.states.to_string(),
            "{plain}"
        );
        // The full model, on request: the library's default, the same verdict in more states.
        let every = verify(&[&["check"][..], &spec, &["--crashes-at-every-instant"]].concat());
        let every = String::from_utf8(every.stdout).unwrap();
        let full = ftcoll_verify::check(
            &protocol,
            arg("--crashes").parse().unwrap(),
            ftcoll_verify::CrashTiming::Any,
            ftcoll_verify::ModelKind::Timed,
        )
        .unwrap();
        assert_eq!(field(&every, "verdict"), verdict, "{every}");
        assert_eq!(field(&every, "states"), full.states.to_string(), "{every}");
        assert!(full.states > unlimited.states, "{every}");
        let given = verify(&[&["check"][..], &spec, &["--crashes-at-events-only"]].concat());
        assert_eq!(
            without_time(&plain),
            without_time(&String::from_utf8(given.stdout).unwrap())
        );
    }
}

/// Bad budgets name the flag and the allowed range, exit with 2 and print nothing on stdout —
/// including a budget the initial states alone cannot fit (checked before they are built).
#[test]
fn bad_budgets_are_one_line_naming_the_flag() {
    let base = [
        "check",
        "--tree",
        "lame:2",
        "--correction",
        "checked",
        "--procs",
        "4",
    ];
    for (flag, value) in [
        ("--max-states", "0"),
        ("--max-states", "-3"),
        ("--max-states", "many"),
        ("--max-states", "99999999999999999999999"),
        ("--timeout", "0"),
        ("--timeout", "-1"),
        ("--timeout", "nan"),
        ("--timeout", "soon"),
        ("--timeout", "1e12"),
        ("--memory-limit", "0"),
        ("--memory-limit", "1M"),
        ("--memory-limit", "12Q"),
        ("--memory-limit", "1.5G"),
        ("--memory-limit", "-5M"),
        ("--memory-limit", "20000000T"),
        ("--threads", "0"),
        ("--threads", "257"),
        ("--threads", "-2"),
        ("--threads", "both"),
        ("--search", "dfs"),
        ("--search", ""),
        ("--pack-from", "-1"),
        ("--pack-from", "some"),
        ("--pack-from", "281474976710657"),
    ] {
        for command in ["check", "explore"] {
            let mut args = base.to_vec();
            args[0] = command;
            args.extend([flag, value]);
            assert_usage_error(&args, flag);
            let err = String::from_utf8(verify(&args).stderr).unwrap();
            assert!(err.contains("allowed"), "no range in '{err}'");
        }
    }
    // 32 768 initial states (every crash set of 15 ranks out of 15).
    let big = [
        "check",
        "--tree",
        "lame:2",
        "--correction",
        "checked",
        "--procs",
        "16",
        "--crashes",
        "15",
    ];
    assert_usage_error(
        &[&big[..], &["--max-states", "100"]].concat(),
        "--max-states",
    );
    assert_usage_error(
        &[&big[..], &["--memory-limit", "64M"]].concat(),
        "--memory-limit",
    );
    let mut explore = big.to_vec();
    explore[0] = "explore";
    assert_usage_error(
        &[&explore[..], &["--memory-limit", "64M"]].concat(),
        "--memory-limit",
    );
    assert_usage_error(
        &[
            "explore",
            "--tree",
            "kary:2",
            "--correction",
            "none",
            "--procs",
            "4",
            "--address",
            "localhost:99999",
        ],
        "--address",
    );
}

/// `explore` ends its session when the time budget runs out (exit status 3).
#[test]
fn explore_stops_at_its_time_budget() {
    let start = std::time::Instant::now();
    let out = verify(&[
        "explore",
        "--tree",
        "kary:2",
        "--correction",
        "none",
        "--procs",
        "4",
        "--address",
        "127.0.0.1:0",
        "--timeout",
        "0.3",
    ]);
    assert_eq!(out.status.code(), Some(3));
    assert!(start.elapsed() < std::time::Duration::from_secs(30));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("time budget"), "{err}");
}

/// `ftco`: FTCO App. B's baseline (odd ranks arrive late, no Alg. 5) makes a Reduce suspect a
/// live process and drop its operand; the JSON names both violations and the trace ends with
/// rank 0's completion without rank 1. With Alg. 5 everything holds.
#[test]
fn ftco_prints_the_verdict_of_the_family_properties() {
    let args = |entry: &'static str| {
        [
            "ftco",
            "--collective",
            "reduce",
            "--topology",
            "kary:2",
            "--procs",
            "5",
            "--crashes",
            "0",
            "--timing",
            "pre",
            "--entry",
            entry,
        ]
    };
    let out = verify(&args("late-driver"));
    assert!(out.status.success());
    let json = String::from_utf8(out.stdout).unwrap();
    for needle in [
        "\"verdict\":\"violated\"",
        "\"property\":\"consistency: every live process completes once",
        "\"no false suspicion: no process times out on a process that has not crashed\"]",
        "completions: [rank 0 at t=",
        "DATA 4 -> 1",
    ] {
        assert!(json.contains(needle), "{needle} not in {json}");
    }
    assert!(
        !json.contains("(1, 1)"),
        "rank 1's operand is dropped: {json}"
    );
    let out = verify(&args("late-alg5"));
    assert!(out.status.success());
    let json = String::from_utf8(out.stdout).unwrap();
    assert!(json.contains("\"verdict\":\"holds\""), "{json}");
}

/// `ftco`'s bad input: one line naming the flag, exit 2, nothing on stdout.
#[test]
fn ftco_refuses_bad_input_naming_the_flag() {
    let base = ["ftco", "--collective", "allreduce", "--topology", "kary:2"];
    for (extra, flag) in [
        (vec!["--procs", "5", "--crashes", "5"], "--crashes"),
        (vec!["--procs", "4", "--roots", "5"], "--roots"),
        (vec!["--procs", "10"], "--procs"),
        (
            vec!["--procs", "4", "--timeout-rule", "8"],
            "--timeout-rule",
        ),
        (vec!["--procs", "4", "--entry", "soon"], "--entry"),
    ] {
        let mut args: Vec<&str> = base.to_vec();
        args.extend(extra);
        let out = verify(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(flag), "{args:?}: {err}");
    }
    let out = verify(&[
        "ftco",
        "--collective",
        "gather",
        "--topology",
        "kary:2",
        "--procs",
        "4",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

/// `search`: the guided walks find checked correction's crash-during-
/// correction failure at P = 34 and print the minimized schedule; failure-proof(2) gets "not
/// violated"; bad budgets are one-line errors with exit code 2.
#[test]
fn search_finds_the_failure_and_refuses_bad_input() {
    let base = [
        "search",
        "--tree",
        "lame:2",
        "--procs",
        "34",
        "--walks",
        "1500",
        "--correction",
    ];
    let run = |correction: &str| {
        let mut args = base.to_vec();
        args.push(correction);
        verify(&args)
    };
    let out = run("checked");
    assert!(out.status.success());
    let json = String::from_utf8(out.stdout).unwrap();
    assert!(
        json.contains("\"property\":\"non-faulty liveness: at quiescence every live process delivered\",\"walk\":"),
        "{json}"
    );
    assert!(
        json.contains("live processes that never delivered: [29, 30]"),
        "{json}"
    );
    let out = run("failproof:2");
    assert!(out.status.success());
    let json = String::from_utf8(out.stdout).unwrap();
    assert!(json.contains("\"violating_walks\":0,"), "{json}");
    assert!(json.contains("\"found\":[]"), "{json}");
    for (args, flag) in [
        (vec!["--pre", "30", "--during", "4"], "--pre/--during"),
        (vec!["--walks", "0"], "--walks"),
    ] {
        let mut all = base.to_vec();
        all.push("checked");
        all.extend(args);
        let out = verify(&all);
        assert_eq!(out.status.code(), Some(2));
        assert!(out.stdout.is_empty());
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(flag), "{err}");
    }
}

/// `ftcoll-verify gossip`: every flag's bad value is one line naming it, exit code 2; a named
/// cell runs and prints its verdict.
#[test]
fn gossip_bad_input_is_one_line_naming_the_flag() {
    for (args, flag) in [
        (&["gossip", "--procs", "1"][..], "--procs"),
        (&["gossip", "--procs", "17"][..], "--procs"),
        (&["gossip", "--protocol", "big"][..], "--protocol"),
        (&["gossip", "-O", "0"][..], "-O"),
        (&["gossip", "-L", "17"][..], "-L"),
        (&["gossip", "--gossip-time", "33"][..], "--gossip-time"),
        (
            &["gossip", "--protocol", "ocg", "--correction-time", "257"][..],
            "--correction-time",
        ),
        (&["gossip", "--crashes", "16"][..], "--crashes"),
        (
            &["gossip", "--procs", "4", "--crashes", "4"][..],
            "--crashes",
        ),
        (&["gossip", "--timing", "later"][..], "--timing"),
        (&["gossip", "--cell", "no-such-cell"][..], "--cell"),
    ] {
        assert_usage_error(args, flag);
    }
    let out = verify(&["gossip", "--cell", "gos-t3", "--format", "text"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("VIOLATED") || text.contains("violated"),
        "{text}"
    );
}

/// A pair of flags the command would accept and then ignore one of: refused with exit code 2,
/// nothing on stdout, one line on stderr naming every flag of `names` and what is allowed.
/// Every run is small, so without the refusal it finishes (or, for `explore`, its time budget
/// ends it) and the assertion fails instead of hanging.
fn assert_refused(args: &[&str], names: &[&str]) {
    let out = verify(args);
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    for name in names {
        assert!(err.contains(name), "{args:?}: '{err}' does not name {name}");
    }
    assert!(
        err.contains("allowed"),
        "{args:?}: no allowed values in '{err}'"
    );
}

const CHECK: [&str; 9] = [
    "check",
    "--tree",
    "lame:2",
    "--correction",
    "checked",
    "--start",
    "overlap",
    "--procs",
    "3",
];

/// Each model has its own engines: the asynchronous model takes auto, bfs, dpor and
/// fingerprints; the
/// timed-only ones are refused with it rather than run against the wrong model.
#[test]
fn a_timed_search_engine_is_refused_with_the_async_model() {
    for engine in ["layered", "depth"] {
        assert_refused(
            &[&CHECK[..], &["--model", "async", "--search", engine]].concat(),
            &[
                "--search",
                engine,
                "--model async",
                "allowed: auto, bfs, dpor or fingerprints",
            ],
        );
    }
}

/// `dpor` and `fingerprints` search the asynchronous model only: the timed models (`check`'s
/// default, `ftco`, `gossip`) refuse them instead of searching with their own default engine.
#[test]
fn the_async_engines_are_refused_with_a_timed_model() {
    let allowed = "allowed: auto, layered, bfs or depth";
    assert_refused(
        &[&CHECK[..], &["--search", "fingerprints"]].concat(),
        &["--search", "fingerprints", "--model timed", allowed],
    );
    assert_refused(
        &[&CHECK[..], &["--search", "dpor"]].concat(),
        &["--search", "dpor", "--model timed", allowed],
    );
    assert_refused(
        &[
            "ftco",
            "--collective",
            "reduce",
            "--topology",
            "kary:2",
            "--procs",
            "3",
            "--search",
            "dpor",
        ],
        &["--search", "dpor", "ftco", allowed],
    );
    assert_refused(
        &["gossip", "--procs", "3", "--search", "dpor"],
        &["--search", "dpor", "gossip", allowed],
    );
}

/// The crash-instant reductions reduce crashes during the operation: with crashes before it
/// only (`check`'s default `--timing pre`, or given) they are refused, as with the
/// asynchronous model, which has no crash instants.
#[test]
fn crash_instant_reductions_need_crashes_at_any_instant() {
    for reduction in [
        "--crashes-at-events-only",
        "--crashes-before-sends-only",
        "--crashes-at-every-instant",
    ] {
        assert_refused(
            &[&CHECK[..], &[reduction]].concat(),
            &[
                reduction,
                "--timing pre (the default)",
                "allowed with --timing any",
            ],
        );
        assert_refused(
            &[&CHECK[..], &["--timing", "pre", reduction]].concat(),
            &[reduction, "--timing pre", "allowed with --timing any"],
        );
        // The asynchronous model takes the events-only rule (not with dpor, which runs each
        // crash set on its own); the sends-only rule needs the timed model's next instant.
        let refused = if reduction != "--crashes-at-events-only" {
            vec!["--model", "async"]
        } else {
            vec!["--model", "async", "--search", "dpor"]
        };
        assert_refused(
            &[&CHECK[..], &refused, &[reduction]].concat(),
            &[reduction, refused.last().expect("a flag")],
        );
        assert_refused(
            &[
                "ftco",
                "--collective",
                "reduce",
                "--topology",
                "kary:2",
                "--procs",
                "3",
                "--timing",
                "pre",
                reduction,
            ],
            &[reduction, "--timing pre", "allowed with --timing any"],
        );
        assert_refused(
            &["gossip", "--procs", "3", "--timing", "pre", reduction],
            &[reduction, "--timing pre"],
        );
        assert_refused(
            &["gossip", "--cell", "ccg-pre", reduction],
            &[reduction, "--cell ccg-pre"],
        );
    }
    // With crashes at any instant they run, one at a time.
    for reduction in [
        "--crashes-at-events-only",
        "--crashes-before-sends-only",
        "--crashes-at-every-instant",
    ] {
        let out = verify(&[&CHECK[..], &["--timing", "any", reduction]].concat());
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_refused(
        &[
            &CHECK[..],
            &[
                "--timing",
                "any",
                "--crashes-at-every-instant",
                "--crashes-before-sends-only",
            ],
        ]
        .concat(),
        &[
            "--crashes-before-sends-only, --crashes-at-every-instant",
            "not allowed together",
        ],
    );
}

/// Root replacement applies to a single-root reduce or allreduce (the library's rule, which
/// `ftcoll simulate` refuses by too): a bcast or a multi-root tree is refused, not checked
/// with immune roots under the name "root-replaced".
#[test]
fn root_replacement_is_refused_where_it_does_not_apply() {
    let ftco = |collective: &'static str, roots: &'static str| {
        [
            "ftco",
            "--collective",
            collective,
            "--topology",
            "kary:2",
            "--procs",
            "3",
            "--roots",
            roots,
            "--root-failure",
            "replaced",
        ]
    };
    assert_refused(
        &ftco("bcast", "1"),
        &[
            "--root-failure",
            "replaced",
            "--collective bcast",
            "allowed: immune",
        ],
    );
    assert_refused(
        &ftco("allreduce", "2"),
        &["--root-failure", "replaced", "--roots 2", "allowed: immune"],
    );
    let out = verify(&ftco("reduce", "1"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The other flags a command would ignore beside another: the asynchronous model's `--timing
/// pre`, `--pack-from` without the layered search, `explore`'s search options, a gossip cell
/// with protocol flags, FCG's `--faults` with another protocol, and `search`'s crash flags of
/// the other model.
#[test]
fn other_ignored_flags_are_refused_naming_both() {
    assert_refused(
        &[&CHECK[..], &["--model", "async", "--timing", "pre"]].concat(),
        &["--timing", "pre", "--model async", "allowed: any"],
    );
    assert_refused(
        &[&CHECK[..], &["--pack-from", "10"]].concat(),
        &[
            "--pack-from",
            "--search auto",
            "allowed with --search layered",
        ],
    );
    assert_refused(
        &[&CHECK[..], &["--search", "bfs", "--pack-from", "10"]].concat(),
        &["--pack-from", "--search bfs"],
    );
    let explore = [
        "explore",
        "--tree",
        "kary:2",
        "--correction",
        "none",
        "--procs",
        "3",
        "--address",
        "127.0.0.1:0",
        "--timeout",
        "0.3",
    ];
    for extra in [
        &["--threads", "2"][..],
        &["--search", "bfs"],
        &["--search", "layered", "--pack-from", "10"],
        &["--crashes-at-events-only", "--timing", "any"],
        &["--crashes-before-sends-only", "--timing", "any"],
        &["--crashes-at-every-instant", "--timing", "any"],
    ] {
        assert_refused(&[&explore[..], extra].concat(), &[extra[0], "explore"]);
    }
    for (extra, flag) in [
        (&["--protocol", "fcg"][..], "--protocol"),
        (&["--procs", "4"], "--procs"),
        (&["-L", "2"], "-L"),
        (&["-O", "2"], "-O"),
        (&["--gossip-time", "3"], "--gossip-time"),
        (&["--faults", "1"], "--faults"),
        (&["--footnote"], "--footnote"),
        (&["--crashes", "1"], "--crashes"),
        (&["--timing", "any"], "--timing"),
    ] {
        assert_refused(
            &[&["gossip", "--cell", "gos-t3"][..], extra].concat(),
            &["--cell", flag],
        );
    }
    assert_refused(
        &["gossip", "--procs", "3", "--faults", "1"],
        &["--faults", "--protocol ccg", "allowed with --protocol fcg"],
    );
    assert_refused(
        &["gossip", "--procs", "3", "--footnote"],
        &["--footnote", "--protocol fcg"],
    );
    let search = [
        "search",
        "--tree",
        "lame:2",
        "--correction",
        "checked",
        "--start",
        "overlap",
        "--procs",
        "10",
        "--walks",
        "5",
    ];
    for extra in [&["--pre", "1"][..], &["--during", "1"], &["--unguided"]] {
        assert_refused(
            &[&search[..], &["--model", "async"], extra].concat(),
            &[extra[0], "--model async", "--crashes"],
        );
    }
    assert_refused(
        &[&search[..], &["--crashes", "1"]].concat(),
        &["--crashes", "--model timed"],
    );
}

/// CG Claim 5 from the flags, as listed and with its footnote's variant (`--footnote`): FCG(1),
/// N = 5, one crash at any instant — the matrix's `fcg-claim5` and `fcg-footnote-claim5` cells.
#[test]
fn gossip_footnote_flag_runs_claim_5_on_the_footnotes_variant() {
    let fcg = [
        "gossip",
        "--protocol",
        "fcg",
        "--faults",
        "1",
        "--procs",
        "5",
    ];
    let run = |args: &[&str]| -> String {
        let out = verify(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let listed = run(&fcg);
    assert_eq!(field(&listed, "protocol"), "\"fcg f=1 N=5 L=1 O=1 T=2\"");
    assert_eq!(field(&listed, "verdict"), "\"violated\"");
    assert!(
        field(&listed, "property").contains("(CG Claim 5)"),
        "{listed}"
    );
    let footnote = run(&[&fcg[..], &["--footnote"]].concat());
    assert_eq!(
        field(&footnote, "protocol"),
        "\"fcg-footnote f=1 N=5 L=1 O=1 T=2\""
    );
    assert_eq!(field(&footnote, "verdict"), "\"holds\"");
    assert_eq!(field(&footnote, "violated"), "[]");
}
