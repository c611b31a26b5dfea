//! `ftcoll plot`: a CSV's columns drawn as an SVG line chart (docs/performance.md's scaling
//! figure), and the bad-input contract (one line naming the flag, exit code 2).
#![cfg(feature = "cli")]

mod cli_common;

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
    let printed = stdout(&[
        "plot", csv_s, "--x", "procs", "--y", "wall_s", "--series", "series", "--log-x", "--log-y",
        "--output", svg_s,
    ]);
    assert!(printed.contains("left out 1 points"), "{printed}");
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
