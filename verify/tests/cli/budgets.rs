//! Budgets: a search stopped by one gives a partial verdict; bad budgets are refused.

use crate::*;

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
        let protocol = ftcoll_verify::CorrectedTreeSpec {
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
