//! The `ftcoll-verify` command line: the verdicts it prints (`check`), its budgets (`budgets`)
//! and the bad-input contract (`refusals`: one line on stderr naming the flag, exit code 2,
//! nothing on stdout).

use std::process::{Command, Output};

mod budgets;
mod check;
mod refusals;

pub(crate) fn verify(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ftcoll-verify"))
        .args(args)
        .output()
        .expect("ftcoll-verify runs")
}

pub(crate) fn assert_usage_error(args: &[&str], flag: &str) {
    let out = verify(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    assert!(out.stdout.is_empty(), "{args:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(flag), "'{err}' does not name {flag}");
}

/// The value of a top-level JSON field of `check`'s one-line output (a string, number, `null` or
/// an array, as written).
pub(crate) fn field<'a>(json: &'a str, name: &str) -> &'a str {
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

pub(crate) const LIVENESS: &str = "non-faulty liveness: at quiescence every live process delivered";

pub(crate) const OTHERS: [&str; 3] = [
    "integrity: every delivery is the root's payload",
    "no duplicates: no process delivers twice",
    "termination: quiescent by the horizon",
];

/// A pair of flags the command would accept and then ignore one of: refused with exit code 2,
/// nothing on stdout, one line on stderr naming every flag of `names` and what is allowed.
/// Every run is small, so without the refusal it finishes (or, for `explore`, its time budget
/// ends it) and the assertion fails instead of hanging.
pub(crate) fn assert_refused(args: &[&str], names: &[&str]) {
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

pub(crate) const CHECK: [&str; 9] = [
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
