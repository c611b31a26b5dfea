//! `ftcoll plot`: a CSV's columns drawn as an SVG line chart (docs/performance.md's scaling
//! figure), and the bad-input contract (one line naming the flag, exit code 2).

use crate::cli_common;

use cli_common::{assert_usage_error, stdout};

#[test]
fn draws_one_line_per_series_and_refuses_bad_columns() {
    let dir = std::env::temp_dir().join(format!("ftcoll-plot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("scaling.csv");
    std::fs::write(
        &csv,
        "series,procs,wall_s\ndriver,1024,0.00\nfast,1024,0.01\ndriver,2048,0.03\nfast,2048,0.02\n",
    )
    .unwrap();
    let svg = dir.join("scaling.svg");
    let (csv_s, svg_s) = (csv.to_str().unwrap(), svg.to_str().unwrap());
    let out = cli_common::ftcoll(&[
        "plot", csv_s, "--x", "procs", "--y", "wall_s", "--series", "series", "--log-x", "--log-y",
        "--output", svg_s,
    ]);
    assert!(out.status.success());
    // The warning goes to stderr: stdout only says what was written.
    let (printed, warned) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(warned.contains("left out 1 points"), "{warned}");
    assert!(!printed.contains("left out"), "{printed}");
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"), "not an SVG");
    assert!(text.contains("driver") && text.contains("fast"), "legend");
    let base = ["plot", csv_s, "--output", svg_s];
    let with = |extra: &[&'static str]| -> Vec<&str> {
        base.iter().copied().chain(extra.iter().copied()).collect()
    };
    assert_usage_error(&with(&["--x", "nope", "--y", "wall_s"]), "--x");
    assert_usage_error(&with(&["--x", "procs", "--y", "series"]), "--y");
    assert_usage_error(
        &with(&["--x", "procs", "--y", "wall_s", "--series", "x"]),
        "--series",
    );
    assert_usage_error(
        &[
            "plot",
            "/nonexistent/f.csv",
            "--x",
            "a",
            "--y",
            "b",
            "--output",
            svg_s,
        ],
        "input",
    );
    // A value near f64::MAX is refused by name (padding the axis would overflow; plotters
    // would not return on an infinite axis).
    let huge = dir.join("huge.csv");
    std::fs::write(&huge, "procs,wall_s\n1024,1.5e308\n2048,1\n").unwrap();
    let huge_s = huge.to_str().unwrap();
    for log in [&[][..], &["--log-y"][..]] {
        let mut args = vec![
            "plot", huge_s, "--x", "procs", "--y", "wall_s", "--output", svg_s,
        ];
        args.extend_from_slice(log);
        assert_usage_error(&args, "--y");
    }
    // Negative values get room below 0 on a linear axis.
    std::fs::write(&huge, "procs,delta\n1,-5\n2,3\n").unwrap();
    stdout(&[
        "plot", huge_s, "--x", "procs", "--y", "delta", "--output", svg_s,
    ]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `plot` reads what `sweep` writes: the `# ftcoll-sweep` identity line is a comment, not the
/// header. A file with a header and no rows, or whose every point is left out, is refused.
#[test]
fn plots_a_sweep_output_and_refuses_a_file_with_nothing_to_draw() {
    let dir = std::env::temp_dir().join(format!("ftcoll-plot-sweep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let swept = dir.join("sweep.csv");
    let svg = dir.join("sweep.svg");
    let (swept_s, svg_s) = (swept.to_str().unwrap(), svg.to_str().unwrap());
    stdout(&[
        "sweep",
        "--procs",
        "16,32",
        "--tree",
        "binomial",
        "--correction",
        "checked",
        "--runs",
        "3",
        "--format",
        "csv",
        "--output",
        swept_s,
    ]);
    assert!(std::fs::read_to_string(&swept)
        .unwrap()
        .starts_with("# ftcoll-sweep"));
    let printed = stdout(&[
        "plot",
        swept_s,
        "--x",
        "procs",
        "--y",
        "messages_mean",
        "--output",
        svg_s,
    ]);
    assert!(printed.contains("wrote"), "{printed}");
    assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<svg"));
    let empty = dir.join("empty.csv");
    std::fs::write(&empty, "procs,wall_s\n").unwrap();
    let empty_s = empty.to_str().unwrap();
    assert_usage_error(
        &[
            "plot", empty_s, "--x", "procs", "--y", "wall_s", "--output", svg_s,
        ],
        "no rows",
    );
    let nonpositive = dir.join("zero.csv");
    std::fs::write(&nonpositive, "procs,wall_s\n1,0\n2,0\n").unwrap();
    assert_usage_error(
        &[
            "plot",
            nonpositive.to_str().unwrap(),
            "--x",
            "procs",
            "--y",
            "wall_s",
            "--log-y",
            "--output",
            svg_s,
        ],
        "--log-y",
    );
    let _ = std::fs::remove_dir_all(&dir);
}
