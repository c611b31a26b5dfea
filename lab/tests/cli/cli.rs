//! The `ftcoll` command line: output formats and the bad-input contract (one line on stderr
//! naming the flag, exit code 2, nothing on stdout).

use crate::cli_common;

use cli_common::{assert_usage_error, stdout};
use std::process::Command;

/// CT Fig. 5 (Lamé k = 3, P = 9, L = o = 1) as JSON, byte for byte; the receive
/// times are hand-derived from the figure's timeline.
#[test]
fn tree_json_prints_figure_5() {
    let expected = concat!(
        r#"{"procs":9,"tree":"lame:3","order":"interleaved","L":1,"o":1,"deadline":7,"nodes":["#,
        r#"{"rank":0,"parent":null,"children":[1,2,3,4,6],"recv_time":0},"#,
        r#"{"rank":1,"parent":0,"children":[5,7],"recv_time":3},"#,
        r#"{"rank":2,"parent":0,"children":[8],"recv_time":4},"#,
        r#"{"rank":3,"parent":0,"children":[],"recv_time":5},"#,
        r#"{"rank":4,"parent":0,"children":[],"recv_time":6},"#,
        r#"{"rank":5,"parent":1,"children":[],"recv_time":6},"#,
        r#"{"rank":6,"parent":0,"children":[],"recv_time":7},"#,
        r#"{"rank":7,"parent":1,"children":[],"recv_time":7},"#,
        r#"{"rank":8,"parent":2,"children":[],"recv_time":7}]}"#,
        "\n"
    );
    let args = [
        "tree", "--tree", "lame:3", "--procs", "9", "-L", "1", "-o", "1", "--format", "json",
    ];
    assert_eq!(stdout(&args), expected);
}

/// CT Fig. 3 left: the in-order binary tree, as text and dot.
#[test]
fn tree_text_and_dot_print_the_in_order_binary_tree() {
    let args = [
        "tree", "--tree", "kary:2", "--order", "in-order", "--procs", "7", "-L", "1", "-o", "1",
    ];
    let text = stdout(&[&args[..], &["--format", "text"]].concat());
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    // Receive times: 1 at 3, 4 at 4 (second send of the root), 2 at 6, 3 at 7, 5 at 7, 6 at 8.
    assert_eq!(
        lines,
        [
            "0 - 1,4 0",
            "1 0 2,3 3",
            "2 1 - 6",
            "3 1 - 7",
            "4 0 5,6 4",
            "5 4 - 7",
            "6 4 - 8"
        ]
    );
    assert!(text.starts_with("# tree=kary:2 order=in-order procs=7 L=1 o=1 deadline=8\n"));
    let dot = stdout(&[&args[..], &["--format", "dot"]].concat());
    for edge in [
        "0 -> 1;", "0 -> 4;", "1 -> 2;", "1 -> 3;", "4 -> 5;", "4 -> 6;",
    ] {
        assert!(dot.contains(edge), "{edge} missing from {dot}");
    }
    assert_eq!(dot.matches("->").count(), 6);
}

/// CT §3.2 / Fig. 3: failing rank 2 of the interleaved binary tree leaves 4 and 6 uncolored:
/// three gaps of size 1 ({2} failed, {4}, {6}); failing 4 of the in-order tree leaves 5 and 6,
/// one run of 3 ranks.
#[test]
fn gaps_prints_uncolored_gmax_and_histogram() {
    let out = stdout(&["gaps", "--tree", "kary:2", "--procs", "7", "--faults", "2"]);
    assert_eq!(
        out,
        "{\"procs\":7,\"tree\":\"kary:2\",\"order\":\"interleaved\",\"L\":2,\"o\":1,\"faults\":[2],\"uncolored\":[4,6],\"gmax\":1,\"gaps\":{\"1\":3}}\n"
    );
    let out = stdout(&[
        "gaps", "--tree", "kary:2", "--order", "in-order", "--procs", "7", "--faults", "4",
    ]);
    assert!(
        out.contains("\"uncolored\":[5,6],\"gmax\":3,\"gaps\":{\"3\":1}"),
        "{out}"
    );
}

/// Large P streams: the first lines of a 2^32 − 1 rank tree come out without building it.
#[test]
fn text_format_streams_for_the_largest_p() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    for order in ["interleaved", "in-order"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ftcoll"))
            .args([
                "tree",
                "--tree",
                "binomial",
                "--order",
                order,
                "--procs",
                "4294967295",
                "--format",
                "text",
            ])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let header = lines.next().unwrap().unwrap();
        assert!(header.contains("procs=4294967295"), "{header}");
        let _columns = lines.next();
        let root = lines.next().unwrap().unwrap();
        assert!(root.starts_with("0 - 1,"), "{root}");
        assert_eq!(lines.next().unwrap().unwrap().split(' ').nth(1), Some("0"));
        drop(lines);
        child.kill().ok();
        child.wait().ok();
    }
}

/// Bad input: P = 0, k = 0, a fault rank >= P, the root in the fault list, an unknown tree, a
/// malformed number.
#[test]
fn bad_input_is_one_line_naming_the_flag_with_exit_code_2() {
    let tree = ["tree", "--tree", "binomial"];
    assert_usage_error(&[&tree[..], &["--procs", "0"]].concat(), "--procs");
    assert_usage_error(&[&tree[..], &["--procs", "4294967296"]].concat(), "--procs");
    assert_usage_error(&[&tree[..], &["--procs", "12x"]].concat(), "--procs");
    assert_usage_error(&["tree", "--tree", "kary:0", "--procs", "9"], "--tree");
    assert_usage_error(&["tree", "--tree", "lame:65537", "--procs", "9"], "--tree");
    assert_usage_error(&["tree", "--tree", "fibonacci", "--procs", "9"], "--tree");
    assert_usage_error(
        &[&tree[..], &["--procs", "9", "--order", "sideways"]].concat(),
        "--order",
    );
    assert_usage_error(&[&tree[..], &["--procs", "9", "-o", "0"]].concat(), "-o");
    assert_usage_error(
        &[&tree[..], &["--procs", "9", "-L", "70000"]].concat(),
        "-L",
    );
    assert_usage_error(
        &[&tree[..], &["--procs", "9", "--format", "xml"]].concat(),
        "--format",
    );
    assert_usage_error(&[&tree[..], &["--procs"]].concat(), "--procs");
    let gaps = ["gaps", "--tree", "binomial", "--procs", "9"];
    assert_usage_error(&[&gaps[..], &["--faults", "9"]].concat(), "--faults");
    assert_usage_error(&[&gaps[..], &["--faults", "0,3"]].concat(), "--faults");
    assert_usage_error(&[&gaps[..], &["--faults", "3,x"]].concat(), "--faults");
    assert_usage_error(&["frobnicate"], "frobnicate");
}
