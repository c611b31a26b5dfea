//! `ftcoll gossip-plan` (CG Lemma 1, Eq. 2–5): its output for the paper's settings and the
//! bad-input contract (one line on stderr naming the flag and what is allowed, exit code 2).

use crate::cli_common;

use cli_common::{assert_usage_error, stdout};

/// The rows for a protocol: `protocol T T+O C K latency gnodes run_C`.
fn row(text: &str, protocol: &str) -> Vec<String> {
    text.lines()
        .find(|l| l.starts_with(&format!("{protocol} ")))
        .unwrap_or_else(|| panic!("no {protocol} row in {text}"))
        .split(' ')
        .map(str::to_string)
        .collect()
}

/// Table 7 (N = 4096, L = 2, O = 1, δ = 6.9315·10⁻⁷): T + O is the paper's T for OCG (32), CCG
/// with f̂ = 3 (34) and FCG (37); OCG's predicted latency is the table's 42. OCG runs at T = 32,
/// where 42 = T + 2L + (2 + K̄)O gives K̄ = 4, so its `C = K̄O + L + O` is 7 (`run_C`; 8 at the
/// minimizer T = 31, where K̄ = 5).
#[test]
fn table_7_settings() {
    let text = stdout(&["gossip-plan", "--procs", "4096", "-L", "2", "-o", "1"]);
    assert!(
        text.contains("protocol T T+O C K latency gnodes run_C"),
        "{text}"
    );
    let ocg = row(&text, "ocg");
    assert_eq!((ocg[2].as_str(), ocg[5].as_str()), ("32", "42"));
    assert_eq!((ocg[3].as_str(), ocg[7].as_str()), ("8", "7"));
    assert_eq!(row(&text, "ccg")[2], "34");
    assert_eq!(row(&text, "fcg")[2], "37");
}

/// Fig. 3: OCG's T = 24 for N = n = 1024, L = O = 1, δ = 6.93·10⁻⁷; C = K̄O + L + O = 4 + 2.
#[test]
fn figure_3_settings() {
    let text = stdout(&[
        "gossip-plan",
        "--procs",
        "1024",
        "--active",
        "1024",
        "-L",
        "1",
        "-o",
        "1",
        "--delta",
        "6.93e-7",
    ]);
    let ocg = row(&text, "ocg");
    assert_eq!(&ocg[1..6], ["23", "24", "6", "4", "31"]);
}

#[test]
fn bad_input_names_the_flag() {
    for (args, flag) in [
        (vec!["gossip-plan", "--procs", "1"], "--procs"),
        (vec!["gossip-plan", "--procs", "16777217"], "--procs"),
        (vec!["gossip-plan", "--procs", "x"], "--procs"),
        (
            vec!["gossip-plan", "--procs", "8", "--active", "9"],
            "--active",
        ),
        (
            vec!["gossip-plan", "--procs", "8", "--active", "0"],
            "--active",
        ),
        (
            vec!["gossip-plan", "--procs", "8", "-L", "3", "-o", "2"],
            "-L",
        ),
        (vec!["gossip-plan", "--procs", "8", "-o", "0"], "-o"),
        (
            vec!["gossip-plan", "--procs", "8", "--delta", "0"],
            "--delta",
        ),
        (
            vec!["gossip-plan", "--procs", "8", "--delta", "1.5"],
            "--delta",
        ),
        (
            vec!["gossip-plan", "--procs", "8", "--delta", "nan"],
            "--delta",
        ),
    ] {
        assert_usage_error(&args, flag);
    }
}

/// Below N = 5 FCG's model (chains of V = 5 g-nodes) has no plan: its row says so instead of a
/// correction time wrapped to 2^64 − 3 and a latency of 0; OCG's and CCG's rows stay.
#[test]
fn fcg_has_no_plan_below_five_processes() {
    for extra in [
        &["--procs", "2"][..],
        &["--procs", "2", "--active", "1"],
        &["--procs", "4"],
    ] {
        let mut args = vec!["gossip-plan"];
        args.extend_from_slice(extra);
        let text = stdout(&args);
        assert_eq!(row(&text, "fcg")[1..], ["-"; 7], "{text}");
        assert!(text.contains("5..=16777216"), "{text}");
        assert_eq!(row(&text, "ocg").len(), 8, "{text}");
        for number in text
            .split([' ', '\n'])
            .filter_map(|w| w.parse::<u64>().ok())
        {
            assert!(number < 1 << 32, "{number} in {text}");
        }
    }
    // N = 5: Ḡ_5 can only be 5, so C = 4·5·O + L − 13·O = 9.
    assert_eq!(
        row(&stdout(&["gossip-plan", "--procs", "5"]), "fcg")[3],
        "9"
    );
    // `auto` (the default) needs the model, so the run refuses, naming the range.
    let too_few = [
        "simulate", "--gossip", "fcg:1", "--procs", "4", "--runs", "1",
    ];
    assert_usage_error(&too_few, "--gossip-time");
    assert_usage_error(&too_few, "5..=16777216");
}

/// Plans at the largest N and the fewest active processes (their time is in
/// docs/performance.md, not here). The N = 2^20 rows are those the exhaustive search before the
/// pruning printed (`gossip-plan --procs 1048576` at ef5d69a): a regression oracle, not an
/// independent one; `lab/tests/protocols/gossip_plan.rs` compares the pruned search with a plain one.
#[test]
fn plans_at_the_largest_sizes_and_fewest_active_processes() {
    let text = stdout(&["gossip-plan", "--procs", "1048576"]);
    assert_eq!(
        row(&text, "ocg")[1..6],
        ["49", "50", "8", "5", "60"],
        "{text}"
    );
    assert_eq!(
        row(&text, "ccg")[1..6],
        ["51", "52", "9", "3", "63"],
        "{text}"
    );
    assert_eq!(
        row(&text, "fcg")[1..6],
        ["55", "56", "17", "7", "72"],
        "{text}"
    );
    for active in ["16777216", "262144"] {
        let text = stdout(&["gossip-plan", "--procs", "16777216", "--active", active]);
        assert_eq!(text.lines().count(), 6, "{text}");
    }
    // Fewer than N/64 active processes above N = 4096: the optimum is O(N/n) steps out.
    assert_usage_error(
        &["gossip-plan", "--procs", "16777216", "--active", "100"],
        "--active",
    );
    for active in ["1", "2", "63"] {
        let text = stdout(&["gossip-plan", "--procs", "4096", "--active", active]);
        assert_eq!(text.lines().count(), 6, "{text}");
    }
    // One active process: Lemma 1's count stays 1, every other rank is in the one gap, so
    // K̄ = N − 1 = 1023 and Ḡ_5 = N at T = 0: C = K̄ + L + O = 1026, latency T + 2L + 2 + K̄ =
    // 1029; FCG's C = latency = 4·1024 + 2 − 13 = 4085.
    let one = stdout(&["gossip-plan", "--procs", "1024", "--active", "1"]);
    assert_eq!(
        row(&one, "ocg")[1..6],
        ["0", "1", "1026", "1023", "1029"],
        "{one}"
    );
    assert_eq!(
        row(&one, "fcg")[1..6],
        ["0", "1", "4085", "1024", "4085"],
        "{one}"
    );
}

/// `simulate --gossip` output as `(header, rows)` from `--format csv`.
fn gossip_csv(extra: &[&str]) -> Vec<Vec<(String, String)>> {
    let mut args = vec!["simulate", "--format", "csv"];
    args.extend_from_slice(extra);
    let text = stdout(&args);
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect();
    lines
        .map(|l| {
            header
                .iter()
                .cloned()
                .zip(l.split(',').map(str::to_string))
                .collect()
        })
        .collect()
}

fn get<'a>(row: &'a [(String, String)], name: &str) -> &'a str {
    &row.iter()
        .find(|c| c.0 == name)
        .unwrap_or_else(|| panic!("no column {name}"))
        .1
}

/// One run of each protocol works and reaches every live process (N = 256, faults before the
/// operation: CCG and FCG reach all live processes, Claims 3–4; BIG tolerates them, BFB
/// restarts around them).
#[test]
fn simulate_gossip_runs_each_protocol() {
    for p in ["gos", "ocg", "ccg", "fcg:1", "big", "bfb"] {
        let rows = gossip_csv(&[
            "--gossip", p, "--procs", "256", "--faults", "5,77", "--runs", "2",
        ]);
        assert_eq!(rows.len(), 2, "{p}");
        for r in &rows {
            assert_eq!(get(r, "protocol"), p);
            assert_eq!(get(r, "faults"), "5 77");
            if p != "gos" && p != "ocg" {
                assert_eq!(get(r, "undelivered"), "0", "{p}");
            }
            let total: u64 = get(r, "messages").parse().unwrap();
            let phases: u64 = [
                "messages_dissemination",
                "messages_correction",
                "messages_acknowledgment",
            ]
            .iter()
            .map(|c| get(r, c).parse::<u64>().unwrap())
            .sum();
            assert_eq!(total, phases, "{p}");
        }
        // BFB: the root's completion; the others have none.
        assert_eq!(get(&rows[0], "completion_latency").is_empty(), p != "bfb");
    }
}

/// `auto` takes T (and OCG's C) from the model at δ = 6.9315·10⁻⁷: Table 7's T at N = 4096,
/// L = 2, O = 1 (GOS 50, OCG 32 with C = 7 (K̄ = 4 at T = 32), CCG at f̂ = 3 34, FCG 37); an explicit T is used
/// as given.
#[test]
fn simulate_gossip_auto_takes_table_7_t() {
    for (args, t, c) in [
        (vec!["--gossip", "gos"], "50", ""),
        (vec!["--gossip", "ocg"], "32", "7"),
        (vec!["--gossip", "ccg", "--fault-count", "3"], "34", ""),
        (vec!["--gossip", "fcg:1", "--gossip-time", "auto"], "37", ""),
        (
            vec![
                "--gossip",
                "ocg",
                "--gossip-time",
                "20",
                "--correction-time",
                "5",
            ],
            "20",
            "5",
        ),
        (vec!["--gossip", "big"], "", ""),
    ] {
        let mut all = vec!["--procs", "4096", "-L", "2", "-o", "1"];
        all.extend(args.iter().copied());
        let rows = gossip_csv(&all);
        assert_eq!(get(&rows[0], "T"), t, "{args:?}");
        assert_eq!(get(&rows[0], "C"), c, "{args:?}");
    }
    // A larger δ gives a smaller T for GOS.
    let loose = gossip_csv(&["--gossip", "gos", "--procs", "4096", "--delta", "0.01"]);
    assert!(get(&loose[0], "T").parse::<u64>().unwrap() < 50);
}

/// BIG and BFB fault-free at N = 4096, L = 2, O = 1 (CG §IV.B.2–3; by hand in
/// sim/tests/protocols/gossip_big.rs and sim/tests/protocols/gossip_bfb.rs): BIG colors everyone by 48 and ends at 63 with
/// 49,152 messages; BFB's root completes at 96 = 2(2O + L)·log₂ N.
#[test]
fn simulate_gossip_baselines_fault_free() {
    let big = gossip_csv(&["--gossip", "big", "--procs", "4096"]);
    assert_eq!(get(&big[0], "coloring_latency"), "48");
    assert_eq!(get(&big[0], "quiescence_latency"), "63");
    assert_eq!(get(&big[0], "messages"), "49152");
    let bfb = gossip_csv(&["--gossip", "bfb", "--procs", "4096"]);
    assert_eq!(get(&bfb[0], "completion_latency"), "96");
    assert_eq!(get(&bfb[0], "messages"), "8190");
}

/// `--ignored-messages free` (CG Table 7's model): GOS at N = 4096, L = 2, O = 1 ends at the
/// paper's `T + L + O` = 53 (the last gossip send starts at `T − O` = 49; 49 + O + L + O = 53),
/// with the same messages as the default, charged model, which ends later; the row says which
/// model ran, and a misspelled model is refused naming the flag.
#[test]
fn simulate_gossip_with_free_duplicates() {
    let base = ["--gossip", "gos", "--procs", "4096", "--runs", "2"];
    let free = gossip_csv(&[&base[..], &["--ignored-messages", "free"]].concat());
    let charged = gossip_csv(&base);
    for (f, c) in free.iter().zip(&charged) {
        assert_eq!(get(f, "quiescence_latency"), "53");
        assert!(get(c, "quiescence_latency").parse::<u64>().unwrap() > 53);
        assert_eq!(get(f, "messages"), get(c, "messages"));
        assert_eq!(get(f, "ignored_messages"), "free");
        assert_eq!(get(c, "ignored_messages"), "charged");
    }
    assert_usage_error(
        &[
            "simulate",
            "--gossip",
            "gos",
            "--procs",
            "8",
            "--ignored-messages",
            "none",
        ],
        "--ignored-messages",
    );
}

/// The same seed gives the same rows; another seed other gossip.
#[test]
fn simulate_gossip_is_deterministic() {
    let a = stdout(&[
        "simulate", "--gossip", "ccg", "--procs", "512", "--runs", "3", "--seed", "4",
    ]);
    let b = stdout(&[
        "simulate", "--gossip", "ccg", "--procs", "512", "--runs", "3", "--seed", "4",
    ]);
    let c = stdout(&[
        "simulate", "--gossip", "ccg", "--procs", "512", "--runs", "3", "--seed", "5",
    ]);
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn simulate_gossip_bad_input_names_the_flag() {
    let base = ["simulate", "--procs", "64"];
    for (extra, flag) in [
        (vec!["--gossip", "xyz"], "--gossip"),
        (vec!["--gossip", "fcg:0"], "--gossip"),
        (vec!["--gossip", "fcg:256"], "--gossip"),
        (vec!["--gossip", "fcg:x"], "--gossip"),
        (
            vec!["--gossip", "gos", "--gossip-time", "-1"],
            "--gossip-time",
        ),
        (
            vec!["--gossip", "gos", "--gossip-time", "1048577"],
            "--gossip-time",
        ),
        (
            vec!["--gossip", "gos", "--gossip-time", "soon"],
            "--gossip-time",
        ),
        (
            vec!["--gossip", "ocg", "--correction-time", "-3"],
            "--correction-time",
        ),
        (
            vec!["--gossip", "ocg", "--correction-time", "x"],
            "--correction-time",
        ),
        (
            vec!["--gossip", "ccg", "--correction-time", "5"],
            "--correction-time",
        ),
        (
            vec!["--gossip", "big", "--gossip-time", "5"],
            "--gossip-time",
        ),
        (vec!["--gossip", "bfb", "--delta", "0.1"], "--delta"),
        (vec!["--gossip", "gos", "--delta", "0"], "--delta"),
        (vec!["--gossip", "gos", "--delta", "1"], "--delta"),
        (vec!["--gossip", "gos", "--delta", "-0.5"], "--delta"),
        (vec!["--gossip", "gos", "--delta", "nan"], "--delta"),
        (
            vec!["--gossip", "ocg", "-L", "3", "-o", "2"],
            "--gossip-time",
        ),
        (vec!["--gossip", "gos", "--tree", "binomial"], "--tree"),
        (
            vec!["--gossip", "gos", "--collective", "bcast"],
            "--collective",
        ),
        (
            vec!["--gossip", "gos", "--trace", "/nonexistent/x.json"],
            "--trace",
        ),
        (
            vec!["--gossip", "gos", "--fault-count", "64"],
            "--fault-count",
        ),
        (vec!["--gossip", "gos", "--crash-at", "0@3"], "--crash-at"),
        (
            vec![
                "--gossip-time",
                "5",
                "--tree",
                "binomial",
                "--correction",
                "checked",
            ],
            "--gossip-time",
        ),
        (
            vec![
                "--delta",
                "0.1",
                "--collective",
                "bcast",
                "--topology",
                "kary:2",
            ],
            "--delta",
        ),
    ] {
        let mut args: Vec<&str> = base.to_vec();
        args.extend(extra.iter().copied());
        assert_usage_error(&args, flag);
    }
    // --procs 1: auto has no model (N >= 2), an explicit T runs.
    assert_usage_error(
        &["simulate", "--gossip", "gos", "--procs", "1"],
        "--gossip-time",
    );
    let one = stdout(&[
        "simulate",
        "--gossip",
        "gos",
        "--procs",
        "1",
        "--gossip-time",
        "3",
    ]);
    assert!(one.contains("\"undelivered\":0"), "{one}");
}
