//! `ftcoll merge` and resuming `ftcoll sweep --output` refuse every file their sweep would not
//! have written: real shard outputs of a small grid are corrupted in each way (cut, garbage
//! cell, changed number, missing/repeated/foreign/incomplete shard, empty, binary) and each is
//! refused with exit 2 and one line naming the file and line.

use crate::cli_common;
use std::path::{Path, PathBuf};

use cli_common::{assert_usage_error, stdout};

/// A fresh directory for one test (tests run in parallel in one process).
fn dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir()
        .join(format!("ftcoll-merge-{}", std::process::id()))
        .join(test);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// 2 × 2 × 2 = 8 points of 3 runs: shards 0/3, 1/3, 2/3 own 3, 3 and 2 points.
const GRID: [&str; 10] = [
    "sweep",
    "--procs",
    "16,40",
    "--tree",
    "lame:2,binomial",
    "--correction",
    "checked",
    "--fault-count",
    "0,2",
    "--runs=3",
];

fn sweep(extra: &[&str]) -> Vec<String> {
    GRID.iter().chain(extra).map(|s| s.to_string()).collect()
}

fn run(args: &[String]) -> String {
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    stdout(&refs)
}

fn path_str(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

/// Writes shards `0/3`, `1/3`, `2/3` of the grid (plus `extra`) into `dir` and returns them.
fn shards(dir: &Path, format: &str, extra: &[&str]) -> Vec<PathBuf> {
    (0..3)
        .map(|i| {
            let path = dir.join(format!("shard{i}.{format}"));
            let p = path_str(&path);
            let shard = format!("{i}/3");
            let mut args: Vec<&str> = vec!["--format", format, "--shard", &shard, "--output", &p];
            args.extend(extra);
            assert_eq!(run(&sweep(&args)), "");
            path
        })
        .collect()
}

fn merge_args(format: &str, files: &[&Path]) -> Vec<String> {
    let mut a = vec!["merge".to_string(), "--format".into(), format.into()];
    a.extend(files.iter().map(|f| path_str(f)));
    a
}

/// `merge` of `files` is refused, naming each of `needles`.
fn refused(format: &str, files: &[&Path], needles: &[&str]) {
    let args = merge_args(format, files);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    for n in needles {
        assert_usage_error(&refs, n);
    }
}

/// A copy of `from` named `name` in the same directory, with `edit` applied to its text.
fn edited(from: &Path, name: &str, edit: impl FnOnce(String) -> String) -> PathBuf {
    let to = from.with_file_name(name);
    std::fs::write(&to, edit(std::fs::read_to_string(from).unwrap())).unwrap();
    to
}

/// A corrupted copy: its file name, the edit of the text, and what the refusal must name.
type Case = (
    &'static str,
    Box<dyn FnOnce(String) -> String>,
    &'static [&'static str],
);

/// `text` with line `n` (1-based) replaced by `f(line)`.
fn on_line(text: String, n: usize, f: impl FnOnce(&str) -> String) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines[n - 1] = f(&lines[n - 1]);
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn complete_shards_merge_into_the_unsharded_bytes() {
    let d = dir("happy");
    for format in ["csv", "json"] {
        let whole = run(&sweep(&["--format", format]));
        let first = whole.lines().next().unwrap();
        assert!(first.contains("\"shard\":null"), "{first}");
        assert!(first.contains("\"grid\":{\"procs\":[16,40],\"tree\":[\"lame:2\",\"binomial\"]"));
        let s = shards(&d, format, &[]);
        let shard_identity = std::fs::read_to_string(&s[1]).unwrap();
        assert!(shard_identity
            .lines()
            .next()
            .unwrap()
            .contains("\"shard\":\"1/3\""));
        // Any order of the inputs.
        assert_eq!(run(&merge_args(format, &[&s[2], &s[0], &s[1]])), whole);
        let out = d.join(format!("merged.{format}"));
        let mut args = merge_args(format, &[&s[0], &s[1], &s[2]]);
        args.extend(["--output".to_string(), path_str(&out)]);
        assert_eq!(run(&args), "");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), whole);
        // An unsharded output is the merge of itself.
        let unsharded = d.join(format!("whole.{format}"));
        std::fs::write(&unsharded, &whole).unwrap();
        assert_eq!(run(&merge_args(format, &[&unsharded])), whole);
    }
}

#[test]
fn cut_and_corrupted_rows_are_refused_naming_file_and_line() {
    let d = dir("rows");
    let s = shards(&d, "csv", &[]);
    let s0 = &s[0];
    // Shard 0/3: identity (line 1), header (line 2), points 0, 3, 6 (lines 3, 4, 5).
    let cases: Vec<Case> = vec![
        (
            "cut-mid-line.csv",
            Box::new(|t: String| t[..t.len() - 40].to_string()),
            &["cut-mid-line.csv line 5", "newline"],
        ),
        (
            "cut-middle-row.csv",
            Box::new(|t| on_line(t, 4, |l| l[..l.len() / 2].to_string())),
            &["cut-middle-row.csv line 4", "cells"],
        ),
        (
            "garbage-cell.csv",
            Box::new(|t| on_line(t, 4, |l| l.replacen(",0.0000,", ",zz,", 1))),
            &["garbage-cell.csv line 4", "'zz'"],
        ),
        (
            "changed-procs.csv",
            Box::new(|t| on_line(t, 3, |l| l.replacen(",16,", ",17,", 1))),
            &["changed-procs.csv line 3", "procs"],
        ),
        (
            "changed-fault-count.csv",
            Box::new(|t| on_line(t, 4, |l| l.replacen(",count:2,", ",count:0,", 1))),
            &["changed-fault-count.csv line 4", "faults"],
        ),
        (
            "point-out-of-range.csv",
            Box::new(|t| on_line(t, 5, |l| l.replacen("6,", "9,", 1))),
            &["point-out-of-range.csv line 5", "outside the grid"],
        ),
        (
            "point-of-another-shard.csv",
            Box::new(|t| on_line(t, 5, |l| l.replacen("6,", "7,", 1))),
            &["point-of-another-shard.csv line 5", "shard 0/3"],
        ),
        (
            "repeated-point.csv",
            Box::new(|t| {
                let point0 = t.lines().nth(2).unwrap().to_string();
                on_line(t, 4, |_| point0)
            }),
            &["repeated-point.csv line 4", "repeated"],
        ),
        (
            "changed-seed-cell.csv",
            Box::new(|t| on_line(t, 3, |l| l.replacen(",3,1,", ",3,2,", 1))),
            &["changed-seed-cell.csv line 3", "seed"],
        ),
        (
            "non-canonical-number.csv",
            Box::new(|t| on_line(t, 3, |l| l.replacen("0,16,", "00,16,", 1))),
            &["non-canonical-number.csv line 3", "point"],
        ),
        (
            "quoted-cell.csv",
            Box::new(|t| on_line(t, 3, |l| l.replacen(",lame:2,", ",\"lame:2\",", 1))),
            &["quoted-cell.csv line 3"],
        ),
        (
            "bad-header.csv",
            Box::new(|t| on_line(t, 2, |l| l.replacen("procs", "P", 1))),
            &["bad-header.csv line 2"],
        ),
        (
            "bad-identity.csv",
            Box::new(|t| {
                on_line(t, 1, |l| {
                    l.replacen("\"procs\":[16,40]", "\"procs\":[16,0]", 1)
                })
            }),
            &["bad-identity.csv line 1", "procs"],
        ),
        (
            "old-format.csv",
            Box::new(|t| t.lines().skip(1).map(|l| format!("{l}\n")).collect()),
            &["old-format.csv line 1", "identity"],
        ),
        (
            "incomplete.csv",
            Box::new(|t| on_line(t, 4, |_| String::new()).replace("\n\n", "\n")),
            &["incomplete.csv", "incomplete shard 0/3", "points 3"],
        ),
        (
            "empty-line.csv",
            Box::new(|t| on_line(t, 4, |_| String::new())),
            &["empty-line.csv line 4", "empty line"],
        ),
    ];
    for (name, edit, needles) in cases {
        let bad = edited(s0, name, edit);
        refused("csv", &[&bad, &s[1], &s[2]], needles);
    }
    // Percentiles out of order: a percentile above the maximum of its metric.
    let text = std::fs::read_to_string(s0).unwrap();
    let header: Vec<String> = text
        .lines()
        .nth(1)
        .unwrap()
        .split(',')
        .map(String::from)
        .collect();
    let column = header
        .iter()
        .position(|h| h == "quiescence_latency_max")
        .unwrap();
    let bad = edited(s0, "max-below-p99.csv", |t| {
        on_line(t, 3, |l| {
            let mut cells: Vec<&str> = l.split(',').collect();
            cells[column] = "1";
            cells.join(",")
        })
    });
    refused(
        "csv",
        &[&bad, &s[1], &s[2]],
        &["max-below-p99.csv line 3", "quiescence_latency_max"],
    );
    // A mean above the maximum.
    let column = header.iter().position(|h| h == "messages_mean").unwrap();
    let bad = edited(s0, "mean-above-max.csv", |t| {
        on_line(t, 4, |l| {
            let mut cells: Vec<&str> = l.split(',').collect();
            cells[column] = "99999.0000";
            cells.join(",")
        })
    });
    refused(
        "csv",
        &[&bad, &s[1], &s[2]],
        &[
            "mean-above-max.csv line 4",
            "messages_mean 99999.0000 is above messages_max",
        ],
    );
}

#[test]
fn corrupted_json_rows_are_refused() {
    let d = dir("json");
    let s = shards(&d, "json", &[]);
    // Shard 1/3: identity (line 1), points 1, 4, 7 (lines 2, 3, 4).
    let cases: Vec<Case> = vec![
        (
            "cut.json",
            Box::new(|t: String| t[..t.len() - 10].to_string()),
            &["cut.json line 4", "newline"],
        ),
        (
            "invalid.json",
            Box::new(|t| on_line(t, 3, |l| l[..l.len() - 1].to_string())),
            &["invalid.json line 3", "invalid row"],
        ),
        (
            "string-number.json",
            Box::new(|t| on_line(t, 2, |l| l.replacen("\"procs\":16", "\"procs\":\"16\"", 1))),
            &["string-number.json line 2", "invalid row"],
        ),
        (
            "float-percentile.json",
            Box::new(|t| on_line(t, 2, |l| l.replacen("\"p50\":", "\"p50\":0.5,\"x\":", 1))),
            &["float-percentile.json line 2"],
        ),
        (
            "reformatted.json",
            Box::new(|t| on_line(t, 2, |l| l.replacen(",", ", ", 1))),
            &["reformatted.json line 2", "as sweep writes it"],
        ),
        (
            "changed-tree.json",
            Box::new(|t| on_line(t, 4, |l| l.replacen("binomial", "lame:2", 1))),
            &["changed-tree.json line 4", "tree"],
        ),
        (
            "missing-metric.json",
            Box::new(|t| on_line(t, 2, |l| l.replacen("\"gmax\":", "\"gmaxx\":", 1))),
            &["missing-metric.json line 2", "gmax"],
        ),
    ];
    for (name, edit, needles) in cases {
        let bad = edited(&s[1], name, edit);
        refused("json", &[&s[0], &bad, &s[2]], needles);
    }
    // The other format's files name --format.
    let csv = dir("json-csv");
    let c = shards(&csv, "csv", &[]);
    refused(
        "json",
        &[&c[0], &c[1], &c[2]],
        &["shard0.csv line 1", "--format csv"],
    );
    refused(
        "csv",
        &[&s[0], &s[1], &s[2]],
        &["shard0.json line 1", "--format json"],
    );
}

#[test]
fn missing_repeated_and_foreign_shards_are_refused() {
    let d = dir("sets");
    let s = shards(&d, "csv", &[]);
    refused("csv", &[&s[0], &s[2]], &["shard 1/3 missing"]);
    refused(
        "csv",
        &[&s[0], &s[1], &s[1], &s[2]],
        &["shard1.csv", "repeats shard 1/3"],
    );
    let copy = edited(&s[2], "copy-of-2.csv", |t| t);
    refused(
        "csv",
        &[&s[0], &s[1], &s[2], &copy],
        &["copy-of-2.csv", "repeats shard 2/3"],
    );
    // Shards of another sweep: another seed, another grid, another shard count.
    let seed = dir("sets-seed");
    let other = shards(&seed, "csv", &["--seed", "9"]);
    refused(
        "csv",
        &[&s[0], &other[1], &s[2]],
        &["different sweeps", "seed 9 vs 1"],
    );
    let grid = dir("sets-grid");
    let wider: Vec<PathBuf> = {
        let mut a = sweep(&[]);
        a[2] = "16,48".into();
        (0..3)
            .map(|i| {
                let p = grid.join(format!("shard{i}.csv"));
                let mut args = a.clone();
                args.extend([
                    "--shard".into(),
                    format!("{i}/3"),
                    "--output".into(),
                    path_str(&p),
                ]);
                run(&args);
                p
            })
            .collect()
    };
    refused(
        "csv",
        &[&s[0], &s[1], &wider[2]],
        &["different sweeps", "procs [16,48] vs [16,40]"],
    );
    let halves = d.join("half0.csv");
    run(&sweep(&["--shard", "0/2", "--output", &path_str(&halves)]));
    refused("csv", &[&s[0], &s[1], &halves], &["half0.csv", "shard 0/2"]);
    let whole = d.join("whole.csv");
    std::fs::write(&whole, run(&sweep(&[]))).unwrap();
    refused("csv", &[&whole, &s[1]], &["unsharded"]);
}

#[test]
fn empty_and_binary_files_are_refused() {
    let d = dir("files");
    let s = shards(&d, "csv", &[]);
    let empty = d.join("empty.csv");
    std::fs::write(&empty, "").unwrap();
    refused("csv", &[&s[0], &empty, &s[2]], &["empty.csv", "empty file"]);
    let binary = d.join("binary.csv");
    std::fs::write(&binary, [0x1f, 0x8b, 0x08, 0xff, 0xfe, b'\n', 0x80]).unwrap();
    refused("csv", &[&binary], &["binary.csv line 1", "UTF-8"]);
    let nul = d.join("nul.csv");
    let mut bytes = std::fs::read(&s[1]).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] = 0;
    std::fs::write(&nul, &bytes).unwrap();
    refused(
        "csv",
        &[&s[0], &nul, &s[2]],
        &["nul.csv line", "not a text file"],
    );
    // UTF-8 that is not a sweep.
    let text = d.join("notes.csv");
    std::fs::write(&text, "hello\n").unwrap();
    refused("csv", &[&text], &["notes.csv line 1", "not a sweep output"]);
    let missing = d.join("missing.csv");
    refused("csv", &[&missing], &["missing.csv"]);
}

#[test]
fn resume_refuses_another_sweeps_file_and_corrupted_lines() {
    let d = dir("resume");
    let whole = run(&sweep(&[]));
    let path = d.join("out.csv");
    let p = path_str(&path);
    // Another identity: another seed, another shard, the unsharded sweep into a shard's file.
    std::fs::write(&path, &whole).unwrap();
    for (extra, needle) in [
        (&["--seed", "2"][..], "seed 2 vs 1"),
        (&["-L", "3"][..], "L [3] vs [2]"),
        (&["--shard", "1/2"][..], "shard 1/2"),
    ] {
        let mut args = sweep(extra);
        args.extend(["--output".into(), p.clone()]);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_usage_error(&refs, "--output");
        assert_usage_error(&refs, needle);
    }
    // Refused, even with a partial last line, the file is left as it was.
    let partial = format!("{whole}1,16,lame");
    std::fs::write(&path, &partial).unwrap();
    let mut args = sweep(&["--seed", "2", "--output", &p]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_usage_error(&refs, "different sweep");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), partial);
    // A corrupted complete line.
    let corrupted = on_line(whole.clone(), 4, |l| l.replacen(",0.0000,", ",0.0001x,", 1));
    std::fs::write(&path, &corrupted).unwrap();
    args = sweep(&["--output", &p]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_usage_error(&refs, "line 4");
    // A file of an older format, and a binary one.
    std::fs::write(
        &path,
        whole
            .lines()
            .skip(1)
            .map(|l| format!("{l}\n"))
            .collect::<String>(),
    )
    .unwrap();
    assert_usage_error(&refs, "line 1");
    std::fs::write(&path, [0xff, 0xfe, 0, 1, b'\n']).unwrap();
    assert_usage_error(&refs, "--output");
    // The first lines alone, or a cut identity line: the sweep completes to the same bytes.
    for keep in [1, 2] {
        let head: String = whole.lines().take(keep).map(|l| format!("{l}\n")).collect();
        std::fs::write(&path, head).unwrap();
        assert_eq!(run(&args), "");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), whole);
    }
    std::fs::write(&path, &whole[..20]).unwrap();
    assert_eq!(run(&args), "");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), whole);
    // A complete file: nothing to do.
    assert_eq!(run(&args), "");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), whole);
    // A shard's file cut mid-row resumes to the bytes of an uninterrupted shard run.
    let s = shards(&d, "json", &[]);
    let full = std::fs::read_to_string(&s[1]).unwrap();
    std::fs::write(&s[1], &full[..full.len() - 30]).unwrap();
    run(&sweep(&[
        "--format",
        "json",
        "--shard",
        "1/3",
        "--output",
        &path_str(&s[1]),
    ]));
    assert_eq!(std::fs::read_to_string(&s[1]).unwrap(), full);
}
