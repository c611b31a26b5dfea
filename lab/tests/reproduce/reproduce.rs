//! `ftcoll reproduce ct` at a tiny scale: every CSV and SVG is written, and `ct.md` puts the
//! published numbers beside ours.

use std::process::Command;

use ftcoll::protocols::gossip::plan;

#[test]
fn reproduce_ct_writes_the_report_and_every_figure() {
    let dir = std::env::temp_dir().join(format!("ftcoll-reproduce-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = Command::new(env!("CARGO_BIN_EXE_ftcoll"))
        .args([
            "reproduce",
            "ct",
            "--smoke",
            "--output",
            dir.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let md = std::fs::read_to_string(dir.join("ct.md")).unwrap();
    for needle in [
        "## Table 1",
        "| 0.01 | 1 / ",
        "| 4 | 13 / ",
        "Lemma 2",
        "| 2 | 1 | 8 | 8 | 0 | 5 | 5 | 0 |",
        "| 3 | 2 | 13 | 15 | +2 | 4 | 5 | +1 |",
        "≤ 10.5",
        "Fig. 6: correction messages per process",
    ] {
        assert!(md.contains(needle), "ct.md lacks {needle:?}:\n{md}");
    }
    for file in [
        "fig1b_inorder_vs_interleaved",
        "fig6_messages_per_process",
        "fig7_quiescence_fault_free",
        "fig8_quiescence_vs_faults",
        "fig9_messages_vs_faults",
        "fig10_gmax_vs_correction",
    ] {
        let svg = std::fs::read_to_string(dir.join("ct").join(format!("{file}.svg"))).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("</svg>"), "{file}");
    }
    for file in [
        "table1",
        "table1_fig8_fig9",
        "fig10_gmax_vs_correction",
        "fig1b_inorder_vs_interleaved",
        "fig6_fig7_fault_free",
        "fig6_fig7_gossip",
        "fig8_fig9_gossip",
        "lemma2",
    ] {
        let csv = std::fs::read_to_string(dir.join("ct").join(format!("{file}.csv"))).unwrap();
        assert!(csv.lines().count() > 1, "{file}");
    }
    // Fault-free synchronized checked correction: 5 correction messages per process (Fig. 6).
    let ff = std::fs::read_to_string(dir.join("ct/fig6_fig7_fault_free.csv")).unwrap();
    let checked: Vec<&str> = ff
        .lines()
        .filter(|l| l.contains("synchronized checked"))
        .collect();
    assert!(!checked.is_empty(), "no synchronized checked rows in\n{ff}");
    for line in checked {
        assert_eq!(line.split(',').nth(4), Some("5.0000"), "{line}");
    }
    // The Corrected Gossip lines: T from CG's model for the fault-free size (Eq. 4 minimized,
    // plus the paper's one O), and checked Corrected Gossip reaches every live process of every
    // run, fault-free and with failures before the operation (CG Claim 3).
    let logp = ftcoll::topology::LogP::new(2, 1).unwrap();
    let gossip = std::fs::read_to_string(dir.join("ct/fig6_fig7_gossip.csv")).unwrap();
    let mut ccg_rows = 0;
    for line in gossip.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        if cells[1] != "ccg" {
            continue;
        }
        let procs: u32 = cells[0].parse().unwrap();
        let model = plan::Model::new(procs, procs, logp).unwrap();
        let t = model
            .plan(plan::PlanProtocol::Ccg, 6.9315e-7)
            .unwrap()
            .recommended_t();
        assert_eq!(cells[2], t.to_string(), "{line}");
        assert_eq!(cells[11], "0", "{line}");
        ccg_rows += 1;
    }
    assert!(ccg_rows >= 3, "{gossip}");
    let faults = std::fs::read_to_string(dir.join("ct/fig8_fig9_gossip.csv")).unwrap();
    assert_eq!(faults.lines().count(), 6, "{faults}");
    for line in faults.lines().skip(1) {
        assert_eq!(line.split(',').nth(11), Some("0"), "{line}");
    }
}
