//! `--config FILE` of `simulate` and `sweep` (lab/src/cli/config_file.rs): a JSON or TOML
//! file holds the flags' parameters, the output equals the flags' byte for byte, command-line
//! flags override the file, and bad files are one-line errors naming the file and the field.

use crate::cli_common;

use cli_common::{assert_usage_error, stdout};
use std::path::PathBuf;

/// Writes `text` to a file named `name` in a fresh directory of this test binary.
fn file(name: &str, text: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("config_cli_{}_{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_owned()
}

/// The flags every simulate test here starts from.
const FLAGS: &str = "--procs 512 --tree lame:2 --correction checked --start sync --fault-rate 0.02 --seed 7 --runs 3 -L3";

/// `simulate` with [`FLAGS`] (the first `count` of them).
fn simulate_flags(count: usize) -> Vec<&'static str> {
    let mut args = vec!["simulate"];
    args.extend(FLAGS.split(' ').take(count));
    args
}

#[test]
fn a_file_gives_the_flags_output_in_json_and_toml() {
    let expected = stdout(&simulate_flags(15));
    let json = file(
        "sim.json",
        r#"{"procs": 512, "tree": "lame:2", "correction": "checked", "start": "sync",
            "fault-rate": 0.02, "seed": 7, "runs": 3, "L": 3}"#,
    );
    let toml = file(
        "sim.toml",
        "procs = 512\ntree = \"lame:2\"\ncorrection = \"checked\"\nstart = \"sync\"\n\
         fault-rate = 0.02\nseed = 7\nruns = 3\nL = 3\n",
    );
    assert_eq!(stdout(&["simulate", "--config", &json]), expected);
    assert_eq!(stdout(&["simulate", &format!("--config={toml}")]), expected);
    // The file is not the defaults: without -L 3 the output differs.
    assert_ne!(stdout(&simulate_flags(14)), expected);
}

#[test]
fn command_line_flags_override_the_file() {
    let json = file(
        "override.json",
        r#"{"procs": 512, "tree": "lame:2", "correction": "checked", "start": "sync",
            "fault-rate": 0.02, "seed": 99, "runs": 3, "L": 5, "format": "table"}"#,
    );
    let mut args = simulate_flags(15);
    args.extend(["--format", "json"]);
    let expected = stdout(&args);
    let got = stdout(&[
        "simulate", "--config", &json, "--seed", "7", "-L", "3", "--format", "json",
    ]);
    assert_eq!(got, expected);
}

#[test]
fn sweep_reads_lists_from_a_file() {
    let expected = stdout(&[
        "sweep",
        "--procs",
        "64,128",
        "--tree",
        "lame:2,binomial",
        "--correction",
        "checked",
        "--start",
        "sync",
        "--runs",
        "2",
    ]);
    let json = file(
        "sweep.json",
        r#"{"procs": [64, 128], "tree": ["lame:2", "binomial"], "correction": "checked",
            "start": "sync", "runs": 2}"#,
    );
    assert_eq!(stdout(&["sweep", "--config", &json]), expected);
}

#[test]
fn bad_files_are_one_line_errors_naming_the_field() {
    let unknown = file("unknown.json", r#"{"procs": 64, "tre": "lame:2"}"#);
    assert_usage_error(&["simulate", "--config", &unknown], "unknown field `tre`");
    let shape = file("shape.json", r#"{"procs": {"n": 64}}"#);
    assert_usage_error(&["simulate", "--config", &shape], "field `procs`");
    let range = file(
        "range.json",
        r#"{"procs": 0, "tree": "lame:2", "correction": "checked", "start": "sync"}"#,
    );
    assert_usage_error(&["simulate", "--config", &range], "--procs");
    // A value the flag's own check refuses names the file it came from, and only then.
    assert_usage_error(&["simulate", "--config", &range], "range.json");
    let checked_later = file(
        "later.json",
        r#"{"procs": 64, "tree": "lame:2", "correction": "checked", "start": "sync", "fault-rate": 2}"#,
    );
    assert_usage_error(&["simulate", "--config", &checked_later], "later.json");
    let fine = file(
        "fine.json",
        r#"{"tree": "lame:2", "correction": "checked", "start": "sync"}"#,
    );
    let out = cli_common::ftcoll(&["simulate", "--config", &fine, "--procs", "0"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--procs") && !err.contains("fine.json"),
        "{err}"
    );
    let syntax = file("syntax.json", r#"{"procs": 64,"#);
    assert_usage_error(&["simulate", "--config", &syntax], "syntax.json");
    let toml = file("syntax.toml", "procs = 64\ntree =\n");
    assert_usage_error(&["simulate", "--config", &toml], "line 2");
    let list = file("list.json", r#"{"procs": 64, "faults": [1, [2]]}"#);
    assert_usage_error(&["simulate", "--config", &list], "field `faults`");
    let top = file("top.json", "[1, 2]");
    assert_usage_error(&["sweep", "--config", &top], "expected an object");
    assert_usage_error(
        &["simulate", "--config", "/nonexistent/ftcoll.json"],
        "cannot read",
    );
    assert_usage_error(
        &["simulate", "--config", &unknown, "--config", &unknown],
        "--config",
    );
    assert_usage_error(&["simulate", "--config"], "--config");
    // Other commands do not take it.
    assert_usage_error(&["tree", "--config", &unknown], "--config");
}
