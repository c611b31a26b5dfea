//! Beyond exhaustive bounds: the guided random search finds by itself that
//! checked correction can lose a live process to crashes *during* correction (CG §III.C), at
//! sizes exhaustive search does not reach, minimizes the counterexample, and failure-proof
//! correction survives every walk of the same search (CG Claim 4). The oracle is the plain
//! driver (`sim::run`), not the search.

use ftcoll::protocols::corrected_tree::{CorrectedTreeNode, CorrectionSpec, StartMode};
use ftcoll::topology::{LogP, Order, TreeKind};
use ftcoll::{Rank, Time};
use ftcoll_sim::{self as sim, PortModel, Scenario};
use ftcoll_verify::search::SearchOptions;
use ftcoll_verify::{property, CorrectedTreeSpec, CrashTiming, TimedModel};

fn spec(correction: CorrectionSpec, procs: u32) -> CorrectedTreeSpec {
    CorrectedTreeSpec {
        tree: TreeKind::Lame(2),
        order: Order::Interleaved,
        correction,
        start: StartMode::Synchronized,
        procs,
        logp: LogP::default(),
    }
}

fn checked(procs: u32) -> CorrectedTreeSpec {
    spec(CorrectionSpec::Checked, procs)
}

/// Live processes that never delivered, by the plain driver.
fn undelivered(s: &CorrectedTreeSpec, pre: &[Rank], during: &[(Rank, Time)]) -> u32 {
    let scenario = Scenario {
        logp: s.logp,
        model: PortModel::DualPort,
        arrivals: Vec::new(),
        crashes: pre
            .iter()
            .map(|&r| (r, 0))
            .chain(during.iter().copied())
            .collect(),
        trace: false,
        ignored: Default::default(),
    };
    let report =
        sim::run::<CorrectedTreeNode>(&s.config().unwrap(), s.procs, &scenario, 1 << 24).unwrap();
    report.undelivered()
}

const OPTIONS: SearchOptions = SearchOptions {
    walks: 3000,
    seed: 1,
    pre: 5,
    during: 2,
    guided: true,
    threads: 2,
};

#[test]
fn search_finds_checked_correction_losing_a_process_to_crashes_during_correction() {
    let s = checked(34);
    let model = TimedModel::corrected_tree(&s, 7, CrashTiming::Any).unwrap();
    let result = model.search(&OPTIONS);
    assert_eq!(result.walks, 3000);
    let found = result
        .found
        .iter()
        .find(|f| f.property == property::LIVENESS)
        .expect("the search finds the liveness violation");
    // A real failure of the driver, that needs crashes during the operation: without them
    // checked correction colors every live process (CT §4.2), and with each single crash
    // dropped the minimized schedule no longer fails.
    assert!(undelivered(&s, &found.pre, &found.during) > 0);
    assert!(!found.during.is_empty());
    let everyone: Vec<Rank> = found
        .pre
        .iter()
        .copied()
        .chain(found.during.iter().map(|&(r, _)| r))
        .collect();
    assert_eq!(undelivered(&s, &everyone, &[]), 0, "all before: colored");
    for i in 0..found.during.len() {
        let mut d = found.during.clone();
        d.remove(i);
        assert_eq!(undelivered(&s, &found.pre, &d), 0, "{d:?}");
    }
    for i in 0..found.pre.len() {
        let mut p = found.pre.clone();
        p.remove(i);
        assert_eq!(undelivered(&s, &p, &found.during), 0, "{p:?}");
    }
    // Earliest instants: one step earlier, each crash during the operation no longer strands
    // anyone (or is no longer during the operation).
    for i in 0..found.during.len() {
        let mut d = found.during.clone();
        d[i].1 -= 1;
        assert_eq!(undelivered(&s, &found.pre, &d), 0, "{d:?}");
    }
    assert!(found.trace[0].starts_with("before the operation: ranks"));
    assert!(found.trace.last().unwrap().contains("never delivered: ["));
}

#[test]
fn failure_proof_correction_survives_the_same_search() {
    let s = spec(
        CorrectionSpec::FailProof {
            faults: 2,
            sos_timeout: None,
            sos_on_full_loop: true,
        },
        34,
    );
    let model = TimedModel::corrected_tree(&s, 7, CrashTiming::Any).unwrap();
    let result = model.search(&OPTIONS);
    assert!(result.found.is_empty(), "{:?}", result.found);
    assert_eq!(result.violating_walks, 0);
}

#[test]
fn the_search_is_deterministic_on_any_number_of_threads() {
    let s = checked(34);
    let model = TimedModel::corrected_tree(&s, 7, CrashTiming::Any).unwrap();
    let options = SearchOptions {
        walks: 800,
        ..OPTIONS
    };
    let one = model.search(&SearchOptions {
        threads: 1,
        ..options
    });
    let two = model.search(&options);
    assert_eq!(one.found, two.found);
    assert_eq!(one.violating_walks, two.violating_walks);
}

/// The guide matters: the same number of uniform walks finds nothing here.
#[test]
fn unguided_walks_miss_what_guided_walks_find() {
    let s = checked(34);
    let model = TimedModel::corrected_tree(&s, 7, CrashTiming::Any).unwrap();
    let unguided = model.search(&SearchOptions {
        guided: false,
        ..OPTIONS
    });
    let guided = model.search(&OPTIONS);
    assert!(
        guided.violating_walks > 0 && unguided.violating_walks == 0,
        "{} vs {}",
        unguided.violating_walks,
        guided.violating_walks
    );
}
