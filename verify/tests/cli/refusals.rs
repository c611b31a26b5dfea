//! Bad input and flags the command would ignore: one line naming the flag, exit code 2.

use crate::*;

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
        (vec!["--procs", "4", "--service", "rsd:1"], "--service"),
        (vec!["--procs", "4", "--service", "rsd:2@x"], "--service"),
        (vec!["--procs", "4", "--service", "sometimes"], "--service"),
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

/// Each model has its own engines: the asynchronous model takes auto, bfs, dpor,
/// fingerprints and transactions; the
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
                "allowed: auto, bfs, dpor, fingerprints or transactions",
            ],
        );
    }
}

/// `dpor`, `fingerprints` and `transactions` search the asynchronous model only: the timed models (`check`'s
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
        &[&CHECK[..], &["--search", "transactions"]].concat(),
        &["--search", "transactions", "--model timed", allowed],
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
