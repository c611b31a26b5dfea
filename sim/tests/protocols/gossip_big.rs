//! BIG, the binomial-graph baseline (CG §IV.B.3), on the LogP driver. Expected values are
//! derived by hand or printed in CG Table 7.

use ftcoll::protocols::gossip::{BigConfig, BigNode};
use ftcoll::rng::SplitMix64;
use ftcoll::topology::LogP;
use ftcoll::{Rank, Time};
use ftcoll_sim::{self as sim, Report, Scenario};

fn run(p: u32, l: u64, o: u64, crashes: &[(Rank, Time)]) -> Report {
    let scenario = Scenario {
        logp: LogP::new(l, o).unwrap(),
        crashes: crashes.to_vec(),
        ..Scenario::default()
    };
    sim::run::<BigNode>(&BigConfig::new(p).unwrap(), p, &scenario, u64::MAX).unwrap()
}

/// P = 4, L = O = 1 (hop 3), neighbours p + 1, p + 2 (p + 4 is p itself); binomial-tree
/// children first: 0 sends to 2 at 0, to 1 at 1; 2 (tz 1, child 3) is colored at 3 and sends to 3
/// at 3, to 0 at 4; 1 (no children) is colored at 4 and sends to 2 at 4, to 3 at 5; 3 is colored
/// at 6 and sends to 0 at 6, to 1 at 7, received at 10. Ports: 0 receives 2's (sent 4) at 7 and
/// 3's (sent 6) at 9; 2 receives 1's (sent 4) at 7; 3 receives 1's (sent 5) at 8.
#[test]
fn big_by_hand() {
    let r = run(4, 1, 1, &[]);
    assert_eq!(
        r.delivery_times().collect::<Vec<_>>(),
        [Some(0), Some(4), Some(3), Some(6)]
    );
    assert_eq!(r.sent_counts().collect::<Vec<_>>(), vec![[2, 0, 0, 0]; 4]);
    assert_eq!(r.coloring_latency(), 6);
    assert_eq!(r.quiescence_latency(), 10);
}

/// Table 7: BIG's work is 49,152 = 4096 · 12 messages. §IV.B.3's fault-free time: a binomial
/// tree, `(2O + L)·log₂ P` = 48 (a path of `h` hops through child indices `c_j` takes
/// `Σ (4 + c_j)` with `Σ (c_j + 1) <= 12`, at most 48), plus `O·log₂ P` for the last node's
/// other messages: 60. Under LogP the last-colored process (at 48) still sends its 12 messages,
/// the last at 48 + 11 and received 2O + L = 4 later: nothing can end before 63, and the run ends
/// then (the paper's 60 counts the last process's receives, not its sends).
#[test]
fn big_table_7() {
    let r = run(4096, 2, 1, &[]);
    assert_eq!(r.messages_total(), 49_152);
    assert_eq!(r.undelivered(), 0);
    assert_eq!(r.duplicates(), 0);
    assert_eq!(r.coloring_latency(), 48);
    assert_eq!(r.quiescence_latency(), 48 + 11 + 4);
}

/// §IV.B.3: BIG "can tolerate up to log₂ P − 1 failures": with P = 64, five failures before the
/// operation (random placements) never disconnect a live process.
#[test]
fn big_tolerates_log_p_minus_one_failures() {
    let mut rng = SplitMix64::new(0xb16);
    for _ in 0..300 {
        let mut failed: Vec<Rank> = Vec::new();
        while failed.len() < 5 {
            let r = 1 + rng.below(63) as Rank;
            if !failed.contains(&r) {
                failed.push(r);
            }
        }
        let crashes: Vec<(Rank, Time)> = failed.iter().map(|&r| (r, 0)).collect();
        let r = run(64, 2, 1, &crashes);
        assert_eq!(r.undelivered(), 0, "{failed:?}");
    }
    // The six in-neighbours p − 2^x of a process (x = 0..=5) failing isolate it: 63's are 62,
    // 61, 59, 55, 47, 31.
    let crashes: Vec<(Rank, Time)> = [62, 61, 59, 55, 47, 31].iter().map(|&r| (r, 0)).collect();
    let r = run(64, 2, 1, &crashes);
    assert_eq!(r.undelivered(), 1);
    assert_eq!(r.delivered_at(63), None);
}
