//! `ftcoll gossip-plan` (CG Lemma 1, Eq. 2–5): its output for the paper's settings and the
//! bad-input contract (one line on stderr naming the flag and what is allowed, exit code 2).
#![cfg(feature = "cli")]

mod cli_common;

use cli_common::{assert_usage_error, stdout};

/// The rows for a protocol: `protocol T T+O C K latency gnodes`.
fn row(text: &str, protocol: &str) -> Vec<String> {
    text.lines()
        .find(|l| l.starts_with(&format!("{protocol} ")))
        .unwrap_or_else(|| panic!("no {protocol} row in {text}"))
        .split(' ')
        .map(str::to_string)
        .collect()
}

/// Table 7 (N = 4096, L = 2, O = 1, δ = 6.9315·10⁻⁷): T + O is the paper's T for OCG (32), CCG
/// with f̂ = 3 (34) and FCG (37); OCG's predicted latency is the table's 42.
#[test]
fn table_7_settings() {
    let text = stdout(&["gossip-plan", "--procs", "4096", "-L", "2", "-o", "1"]);
    assert!(text.contains("protocol T T+O C K latency gnodes"), "{text}");
    let ocg = row(&text, "ocg");
    assert_eq!((ocg[2].as_str(), ocg[5].as_str()), ("32", "42"));
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
