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

/// The bad-input contract (lab/src/cli.rs): exit code 2, nothing on stdout, exactly one
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

/// A fresh path `name` in a directory of this test process's own under the system's temporary
/// directory (`tag` names the test file).
/// `command` on a small Corrected Tree (P = 16, binomial, checked): the family other families'
/// flags are refused in, and whose shards belong to a different sweep.
pub fn small_ct(command: &'static str) -> Vec<&'static str> {
    vec![
        command,
        "--procs",
        "16",
        "--tree",
        "binomial",
        "--correction",
        "checked",
    ]
}

pub fn temp_path(tag: &str, name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ftcoll-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

/// The sweep contract every family keeps, in both formats: three shards of the sweep
/// `grid(extra)` merge into exactly the unsharded output, an output cut inside its last line is
/// finished by the same command to the same bytes, a Corrected Tree shard does not merge with
/// the family's shards, and the unsharded sweep refuses to resume into a shard's file.
pub fn assert_shards_merge_and_resume(tag: &str, grid: &dyn Fn(&[&str]) -> Vec<String>) {
    let run = |args: Vec<String>| {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        stdout(&refs)
    };
    for format in ["csv", "json"] {
        let whole = run(grid(&["--format", format]));
        let mut files = Vec::new();
        for k in 0..3 {
            let out = temp_path(tag, &format!("shard-{k}.{format}"))
                .display()
                .to_string();
            let shard = format!("{k}/3");
            run(grid(&[
                "--format", format, "--shard", &shard, "--output", &out,
            ]));
            files.push(out);
        }
        let mut merge = vec!["merge", "--format", format];
        merge.extend(files.iter().map(String::as_str));
        assert_eq!(stdout(&merge), whole, "{format}");
        // An interrupted output (a partial last line) is finished by the same command.
        let path = temp_path(tag, &format!("resumed.{format}"));
        let cut = whole[..whole.len() - 1].rfind('\n').unwrap() + 1 + 7;
        std::fs::write(&path, &whole[..cut]).unwrap();
        let out = path.display().to_string();
        run(grid(&["--format", format, "--output", &out]));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), whole, "{format}");
        // A Corrected Tree shard belongs to a different sweep.
        let ct_out = temp_path(tag, &format!("ct.{format}"))
            .display()
            .to_string();
        stdout(
            &[
                &small_ct("sweep")[..],
                &["--format", format, "--shard", "1/3", "--output", &ct_out],
            ]
            .concat(),
        );
        assert_usage_error(
            &["merge", "--format", format, &files[0], &ct_out, &files[2]],
            "different sweeps",
        );
        // Resuming into the file of another sweep (here: a shard of it) is refused.
        let other = grid(&["--format", format, "--output", &files[1]]);
        let refs: Vec<&str> = other.iter().map(String::as_str).collect();
        assert_usage_error(&refs, "--output");
    }
}

/// The standard output of a run given as owned arguments.
pub fn stdout_of(args: &[String]) -> String {
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    stdout(&refs)
}

/// The JSON rows of a sweep's JSON-lines output (the identity line skipped).
pub fn json_rows(args: &[&str]) -> Vec<serde_json::Value> {
    stdout(args)
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).expect("a JSON object per line"))
        .collect()
}
