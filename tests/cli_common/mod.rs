//! Running the `ftcoll` binary from the CLI tests, and the bad-input contract they all check.
#![allow(dead_code)]

use std::process::{Command, Output};

/// Runs `ftcoll args…`.
pub fn ftcoll(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ftcoll"))
        .args(args)
        .output()
        .expect("the ftcoll binary runs")
}

/// The standard output of a run that must succeed.
pub fn stdout(args: &[&str]) -> String {
    let out = ftcoll(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The bad-input contract (src/bin/ftcoll/main.rs): exit code 2, nothing on stdout, exactly one
/// line on stderr, naming `flag`.
pub fn assert_usage_error(args: &[&str], flag: &str) {
    let out = ftcoll(args);
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?} printed on stdout");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(err.ends_with('\n'), "{args:?}: {err}");
    assert!(err.contains(flag), "{args:?}: '{err}' does not name {flag}");
}
