//! What `check`, `ftco`, `search` and `gossip` print: verdicts, traces, JSON.

use crate::*;

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

/// Every JSON line the commands print is one JSON document whose strings read back exactly:
/// the counterexample's lines (brackets, commas, quotes of the property names) survive.
/// The asynchronous model reduced to transactions says what it counts, and finds the tree
/// without correction's liveness failure with one crash as a run of the asynchronous model.
#[test]
fn check_by_transactions_names_its_count_and_finds_the_failure() {
    let args = [
        "check",
        "--model",
        "async",
        "--search",
        "transactions",
        "--tree",
        "kary:2",
        "--correction",
        "none",
        "--start",
        "overlap",
        "--procs",
        "4",
        "--crashes",
        "1",
        "--format",
        "text",
    ];
    let out = verify(&args);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    for needle in [
        "VIOLATED  non-faulty liveness",
        "states of the model reduced to transactions",
        "Crash(",
    ] {
        assert!(text.contains(needle), "{needle} not in {text}");
    }
}

#[test]
fn json_outputs_parse_and_keep_their_strings() {
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
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    let v: serde_json::Value = serde_json::from_str(&text).expect("one JSON document");
    assert_eq!(v["verdict"], "violated");
    assert_eq!(v["property"], LIVENESS);
    assert_eq!(v["violated"], serde_json::json!([LIVENESS]));
    assert_eq!(v["trace"][0], "before the operation: ranks [1] crash");
    assert!(v["seconds"].as_f64().is_some_and(|s| s >= 0.0), "{text}");
    assert_eq!(v["budget"], serde_json::Value::Null);
    let out = verify(&[
        "search",
        "--tree",
        "kary:2",
        "--correction",
        "none",
        "--procs",
        "6",
        "--walks",
        "20",
        "--pre",
        "1",
        "--during",
        "0",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).expect("one JSON document");
    assert_eq!(v["walks"], 20);
    let found = v["found"].as_array().expect("a list");
    assert!(!found.is_empty(), "{text}");
    assert_eq!(found[0]["property"], LIVENESS);
    assert!(
        found[0]["pre"].as_array().is_some_and(|p| p.len() == 1),
        "{text}"
    );
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
    // A service distance (App. A) is part of the configuration checked, and of its name.
    for service in ["disd", "rsd:2", "rsd:3@7"] {
        let mut with_service = args("together").to_vec();
        with_service.extend(["--service", service]);
        let out = verify(&with_service);
        assert!(out.status.success(), "{service}");
        let json = String::from_utf8(out.stdout).unwrap();
        assert!(json.contains("\"verdict\":\"holds\""), "{service}: {json}");
        assert!(
            json.contains(&format!("service={service}")),
            "{service}: {json}"
        );
    }
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
