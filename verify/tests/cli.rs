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
/// the JSON with the shortest counterexample (rank 1 crashed, rank 3 never delivers).
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
}
