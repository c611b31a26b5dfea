//! `ftcoll reproduce ftco` at the test scale (`--smoke`: the same code path and output layout as
//! `--quick`, smaller sizes): every file is written, Table 2's fault-free row is the paper's
//! exactly, the same seed gives the same bytes, a reproduction's point equals the `sweep` of the
//! same parameters, and without `--output` nothing goes to a committed results directory.

use crate::reproduce_common;

use std::path::Path;
use std::process::Command;

use reproduce_common::{cell, read, row, run, temp};

const CSV: [&str; 6] = [
    "table2",
    "fig7_fault_free",
    "fig8_fig9_inactive",
    "fig10_inactive_and_runtime",
    "table1_serial_parallel",
    "imbalance_off_baseline",
];

const SVG: [&str; 4] = [
    "fig7_fault_free_latency",
    "fig8_latency_penalty",
    "fig9_work_penalty",
    "fig10_inactive_and_runtime",
];

fn reproduce(cwd: &Path, extra: &[&str]) {
    let mut args = vec!["reproduce", "ftco", "--smoke"];
    args.extend_from_slice(extra);
    run(cwd, &args);
}

#[test]
fn reproduce_ftco_writes_every_file_and_table_2_fault_free_row_is_the_papers() {
    let dir = temp("reproduce-ftco");
    reproduce(&dir, &["--output", dir.to_str().unwrap()]);
    let md = read(&dir.join("ftco.md"));
    for needle in [
        "## Table 2",
        "| none | 0 | 0.0 | 1 | 171.0 / 171.0 | 3.0 / 3.0 | 43.0 / 43.0 | 9 / 9 |",
        "## Fig. 7",
        "## Fig. 8–9",
        "## Fig. 10",
        "## Table 1's shape",
        "## Without the imbalance extension",
        "## Differences from the paper, explained",
        "runs in",
    ] {
        assert!(md.contains(needle), "ftco.md lacks {needle:?}:\n{md}");
    }
    for file in CSV {
        let csv = read(&dir.join("ftco").join(format!("{file}.csv")));
        assert!(csv.lines().count() > 1, "{file}");
    }
    for file in SVG {
        let svg = read(&dir.join("ftco").join(format!("{file}.svg")));
        assert!(svg.starts_with("<svg") && svg.contains("</svg>"), "{file}");
    }
    // FTCO Table 2, fault-free row (P = 65,536, L = 10, o = 1, multi-root k-nomial, best k):
    // 171 steps, 3 messages per node, output spread 43, longest queue 9.
    let table2 = read(&dir.join("ftco/table2.csv"));
    let ff = row(&table2, "none,0,");
    assert_eq!(cell(&ff, "procs"), "65536");
    assert_eq!(cell(&ff, "latency_from_last_start_mean"), "171.0000");
    assert_eq!(cell(&ff, "latency_mean"), "171.0000");
    assert_eq!(cell(&ff, "work_mean"), "3.0000");
    assert_eq!(cell(&ff, "output_spread_mean"), "43.0000");
    assert_eq!(cell(&ff, "longest_queue_max"), "9");
    assert_eq!(cell(&ff, "budget_exhausted"), "0");
    assert_eq!(cell(&ff, "inconsistent"), "0");
    // The published numbers beside ours.
    assert_eq!(cell(&ff, "paper_latency"), "171");
    assert_eq!(cell(&ff, "paper_longest_queue"), "9");
    let uniform = row(&table2, "uniform,256,");
    assert_eq!(cell(&uniform, "paper_latency"), "151.8");
    assert_eq!(cell(&uniform, "paper_work"), "15.3");
    // With App. B's extension every operand of a live process is in, and every run quiesces.
    assert_eq!(cell(&uniform, "inconsistent"), "0");
    assert_eq!(cell(&uniform, "budget_exhausted"), "0");
    // Both readings of the paper's normal distribution, each beside the paper's normal column,
    // and the sentence that says which fits.
    let half = row(&table2, "normal,256,");
    let sym = row(&table2, "symnormal,256,");
    assert_eq!(cell(&half, "arrival"), "normal:64");
    assert_eq!(cell(&sym, "arrival"), "symnormal:32");
    for r in [&half, &sym] {
        assert_eq!(cell(r, "paper_latency"), "141.1");
        assert_eq!(cell(r, "inconsistent"), "0");
    }
    assert!(
        md.contains("Which normal fits the paper's normal column"),
        "{md}"
    );
    // Fig. 7: the simulated fault-free latency is the topology's schedule. By hand, the
    // single-root 10-nomial Bcast on 1024 ranks (a hop is L + 2 = 12 steps, one send per step):
    // 0 sends to 9 in step 8, 9 holds it at 20 and sends to 99 in step 28 (after 19..89), 99
    // holds it at 40 and sends to 999 in step 48 (after 199..899): 999 holds it at 60, the
    // last. A single-root Allreduce is a Reduce then a Bcast: 120.
    let fig7 = read(&dir.join("ftco/fig7_fault_free.csv"));
    for line in fig7.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells[5], cells[6], "model != simulated: {line}");
    }
    assert!(
        fig7.contains("1024,allreduce,single,10,1,120,120,"),
        "{fig7}"
    );
    assert!(fig7.contains("1024,bcast,single,10,1,60,60,"), "{fig7}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn reproduce_ftco_is_deterministic_for_a_seed_and_matches_sweep() {
    let (a, b, c) = (temp("ftco-a"), temp("ftco-b"), temp("ftco-c"));
    reproduce(&a, &["--output", a.to_str().unwrap(), "--seed", "7"]);
    reproduce(&b, &["--output", b.to_str().unwrap(), "--seed", "7"]);
    reproduce(&c, &["--output", c.to_str().unwrap(), "--seed", "8"]);
    let mut differs = false;
    for file in CSV {
        let name = format!("ftco/{file}.csv");
        assert_eq!(read(&a.join(&name)), read(&b.join(&name)), "{file}");
        differs |= read(&a.join(&name)) != read(&c.join(&name));
    }
    assert!(differs, "seeds 7 and 8 gave the same CSV files");
    // The report differs only in its last line (the run time).
    let strip = |s: String| {
        s.lines()
            .filter(|l| !l.contains(" runs in "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(
        strip(read(&a.join("ftco.md"))),
        strip(read(&b.join("ftco.md")))
    );

    // Run i of a reproduction point is run i of `simulate` with the same parameters: Fig. 8 at
    // P = 256 with 10 inactive nodes, under the fault experiments' ETA rule.
    let out = Command::new(env!("CARGO_BIN_EXE_ftcoll"))
        .args([
            "simulate",
            "--procs",
            "256",
            "--collective",
            "allreduce",
            "--topology",
            "knomial:best",
            "--roots",
            "k",
            "-L",
            "10",
            "--fault-count",
            "10",
            "--eta",
            "parent-recovery",
            "--runs",
            "2",
            "--seed",
            "7",
            "--format",
            "csv",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let simulated = String::from_utf8(out.stdout).unwrap();
    let runs: Vec<Vec<(String, String)>> = ["0,", "1,"]
        .iter()
        .map(|run| {
            let line = simulated
                .lines()
                .find(|l| l.split(',').nth(14) == Some(run.trim_end_matches(',')))
                .unwrap_or_else(|| panic!("run {run} in {simulated}"));
            let header = simulated.lines().next().unwrap();
            row(&format!("{header}\n{line}"), line)
        })
        .collect();
    let num = |r: &[(String, String)], name: &str| cell(r, name).parse::<f64>().unwrap();
    let mean = |name: &str| runs.iter().map(|r| num(r, name)).sum::<f64>() / 2.0;
    let fig8 = read(&a.join("ftco/fig8_fig9_inactive.csv"));
    let ours = row(&fig8, "256,14,14,10,");
    assert_eq!(cell(&ours, "eta"), "parent-recovery");
    assert_eq!(
        cell(&ours, "latency_mean"),
        format!("{:.4}", mean("latency"))
    );
    let max = runs.iter().map(|r| num(r, "latency")).fold(0.0, f64::max);
    assert_eq!(cell(&ours, "latency_max"), format!("{max}"));
    assert_eq!(
        cell(&ours, "work_mean"),
        format!("{:.4}", mean("messages") / 256.0)
    );
    for d in [a, b, c] {
        let _ = std::fs::remove_dir_all(d);
    }
}

#[test]
fn reproduce_ftco_without_output_writes_the_git_ignored_quick_directory() {
    // From a scratch working directory: the default of --quick (and --smoke) is results/quick,
    // never docs/results, where the committed full-scale results live.
    let cwd = temp("ftco-default");
    reproduce(&cwd, &[]);
    assert!(cwd.join("results/quick/ftco.md").is_file());
    assert!(cwd.join("results/quick/ftco/table2.csv").is_file());
    assert!(!cwd.join("docs").exists(), "a quick run wrote docs/");
    // And results/ is git-ignored in this repository.
    let ignore = read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../.gitignore"));
    assert!(ignore.lines().any(|l| l.trim() == "/results/"), "{ignore}");
    let _ = std::fs::remove_dir_all(&cwd);
}

#[test]
fn table_1_placements_are_serial_and_parallel() {
    use ftcoll::topology::ftco::{FtcoKind, FtcoTopology};
    use ftcoll_lab::experiment::ftco::table1_placement;
    // Binomial (2-nomial) on 64 ranks: rank 1 heads the odd ranks (32), its largest child is 3
    // (16 ranks: 3 mod 4), and 2 (the ranks 2 mod 4) is neither above nor below 1.
    let t = FtcoTopology::new(FtcoKind::KNomial(2), 1, 64).unwrap();
    let (a, b, c) = table1_placement(&t);
    assert_eq!((a, b, c), (1, Some(3), Some(2)));
    assert_eq!(t.parent(3), Some(1));
    assert!(!t.in_subtree(1, 2) && !t.in_subtree(2, 1));
}
