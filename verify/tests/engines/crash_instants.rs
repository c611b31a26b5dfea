//! `TimedModel::crashes_at_events_only` (docs/reference/checker.md, "Crashes where they matter"):
//! offering a
//! crash only before an instant at which the process has an event (and before the first instant)
//! — and `TimedModel::crashes_before_sends_only`, only before an instant at which it sends
//! (compared on the Corrected Tree and FTCO models; gossip falls back to events only) —
//! keeps every verdict — the same properties violated, the same examples reached, the same
//! horizon cuts — on every correction variant in both start modes, on FTCO's three collectives
//! and on the Corrected Gossip cells with crashes at any instant, while exploring fewer states.

use ftcoll::protocols::corrected_tree::StartMode;
use ftcoll::topology::ftco::{Collective, FtcoKind};
use ftcoll::topology::TreeKind;
use ftcoll_verify::corrected_tree::EVERY_VARIANT;
use ftcoll_verify::ftco::{self, FtcoSpec};
use ftcoll_verify::gossip;
use ftcoll_verify::timed::TimedModel;
use ftcoll_verify::{check_model, Budget, CheckResult, CorrectedTreeSpec, CrashTiming};

fn verdicts(r: &CheckResult) -> (Vec<&'static str>, Vec<&'static str>, Vec<&'static str>) {
    let violated = r.violations.iter().map(|v| v.property).collect();
    (violated, r.reached.clone(), r.cut_by_horizon.clone())
}

/// Checks `model` three ways: every crash instant, events only, sends only
/// (`TimedModel::crashes_before_sends_only`, docs/reference/checker.md "Crashes before sends");
/// asserts
/// equal verdicts and returns the states of each.
fn compare3<A>(what: &str, model: TimedModel<A>) -> (usize, usize, usize)
where
    A: ftcoll_verify::timed::Checkable,
    A::Config: Clone,
{
    let mut pruned = model.clone();
    pruned.crashes_at_events_only = true;
    let mut before_sends = model.clone();
    before_sends.crashes_before_sends_only = true;
    let every = check_model(model, &Budget::UNLIMITED).unwrap();
    let some = check_model(pruned, &Budget::UNLIMITED).unwrap();
    let fewest = check_model(before_sends, &Budget::UNLIMITED).unwrap();
    assert_eq!(verdicts(&some), verdicts(&every), "{what}");
    assert_eq!(verdicts(&fewest), verdicts(&every), "{what}, sends only");
    assert!(some.states <= every.states, "{what}");
    assert!(fewest.states <= some.states, "{what}, sends only");
    (fewest.states, some.states, every.states)
}

#[test]
fn every_correction_variant_keeps_its_verdicts() {
    let (mut fewer, mut fewest, mut violated, mut during) = (0, 0, 0, 0);
    for correction in EVERY_VARIANT {
        for start in [StartMode::Synchronized, StartMode::Overlapped] {
            for (tree, procs, f) in [
                (TreeKind::Binomial, 6, 2),
                (TreeKind::Lame(2), 7, 1),
                (TreeKind::KAry(2), 5, 2),
            ] {
                let spec = CorrectedTreeSpec::interleaved(tree, correction, start, procs);
                let model = TimedModel::corrected_tree(&spec, f, CrashTiming::Any).unwrap();
                let what = format!("{} f={f}", spec.name());
                let (sends, some, every) = compare3(&what, model.clone());
                fewer += usize::from(some < every);
                fewest += usize::from(sends < some);
                let full = check_model(model, &Budget::UNLIMITED).unwrap();
                violated += usize::from(!full.violations.is_empty());
                // Whether crashes during the operation decide something here: then a reduction
                // that dropped them would change a verdict the comparison sees.
                let pre = TimedModel::corrected_tree(&spec, f, CrashTiming::Pre).unwrap();
                let pre = check_model(pre, &Budget::UNLIMITED).unwrap();
                during += usize::from(verdicts(&pre).0 != verdicts(&full).0);
            }
        }
    }
    // The reduction is not vacuous, and the comparison covers violated cells too.
    assert!(
        fewer >= 30,
        "fewer states in only {fewer} of 36 configurations"
    );
    assert!(
        fewest >= 30,
        "sends only: fewer states than events only in only {fewest} of 36 configurations"
    );
    assert!(
        violated >= 6,
        "only {violated} configurations with a violation"
    );
    assert!(
        during >= 1,
        "no configuration where crashes during the operation matter"
    );
    eprintln!(
        "{fewer} with fewer states, {fewest} fewer still before sends, {violated} violated, \
         {during} decided by late crashes"
    );
}

#[test]
fn ftco_keeps_its_verdicts() {
    let mut fewer_before_sends = 0;
    for collective in [Collective::Bcast, Collective::Reduce, Collective::Allreduce] {
        for (kind, procs, f) in [(FtcoKind::KAry(2), 5, 1), (FtcoKind::KNomial(2), 4, 2)] {
            let spec = FtcoSpec::new(collective, kind, procs);
            let model = ftco::model(&spec, f, CrashTiming::Any).unwrap();
            let (sends, some, _) = compare3(&format!("{} f={f}", spec.name()), model);
            fewer_before_sends += usize::from(sends < some);
        }
    }
    assert!(
        fewer_before_sends >= 1,
        "sends only never pruned more than events only on FTCO"
    );
}

#[test]
fn gossip_cells_keep_their_verdicts() {
    // Every cell with crashes at any instant (CCG's, whose violation needs crashes during the
    // correction, among them); the model chooses every gossip target, so this covers choices
    // made between crashes too.
    let reduced = Budget {
        crashes_at_events_only: true,
        ..Budget::UNLIMITED
    };
    let mut compared = 0;
    for cell in gossip::cells()
        .into_iter()
        .filter(|c| c.timing == CrashTiming::Any)
    {
        let every = gossip::run_cell(&cell, &Budget::UNLIMITED).unwrap().result;
        let some = gossip::run_cell(&cell, &reduced).unwrap().result;
        assert_eq!(verdicts(&some), verdicts(&every), "{}", cell.id);
        assert!(some.states <= every.states, "{}", cell.id);
        compared += 1;
    }
    assert!(compared >= 4, "only {compared} gossip cells compared");
}
