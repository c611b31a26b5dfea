//! The dynamic partial-order reduction of the asynchronous model (`ftcoll_verify::dpor`)
//! against stateright's breadth-first search of every interleaving (`--search bfs`): on every
//! correction variant with overlapped start, three trees, P = 2 … 4 and f = 0 … 2, both
//! engines violate the same properties and reach the same examples. A reduction that drops a
//! run it needs (e.g. one that never reverses a race) misses violations here.

use crate::common::{spec, violated};
use ftcoll::protocols::corrected_tree::{CorrectionSpec, StartMode};
use ftcoll::topology::TreeKind;
use ftcoll_verify::budget::{Budget, Search};
use ftcoll_verify::dpor::{crash_sets, explore};
use ftcoll_verify::mutants::{async_model, Bug, Mutant};
use ftcoll_verify::{
    check_within, property, AsyncModel, CheckResult, CorrectedTreeSpec, CrashTiming, Halt,
    ModelKind, Stop,
};

/// States (or events) after which a comparison is skipped: both engines must finish.
const CAP: u64 = 100_000;

fn run(spec: &CorrectedTreeSpec, f: u32, search: Search, threads: u32) -> CheckResult {
    let budget = Budget {
        max_states: Some(CAP),
        threads,
        search,
        ..Budget::UNLIMITED
    };
    check_within(spec, f, CrashTiming::Any, ModelKind::Async, &budget, None).unwrap()
}

/// Both engines decide the same verdicts wherever both finish within the budget.
#[test]
fn same_verdicts_as_every_interleaving() {
    let corrections = [
        CorrectionSpec::None,
        CorrectionSpec::Ack,
        CorrectionSpec::Opportunistic { distance: 1 },
        CorrectionSpec::Opportunistic { distance: 2 },
        CorrectionSpec::Optimized { distance: 1 },
        CorrectionSpec::Optimized { distance: 2 },
        CorrectionSpec::Checked,
    ];
    let trees = [TreeKind::Lame(2), TreeKind::KAry(2), TreeKind::Binomial];
    let (mut compared, mut with_violation, mut holding) = (0, 0, 0);
    for tree in trees {
        for correction in corrections {
            for procs in 2..=4 {
                for f in 0..=2 {
                    let s = spec(tree, correction, procs);
                    let what = format!("{} f={f}", s.name());
                    let bfs = run(&s, f, Search::Bfs, 1);
                    let dpor = run(&s, f, Search::Dpor, 2);
                    if bfs.stopped.is_some() || dpor.stopped.is_some() {
                        continue;
                    }
                    compared += 1;
                    assert_eq!(violated(&bfs), violated(&dpor), "{what}: violated");
                    assert_eq!(bfs.reached, dpor.reached, "{what}: reached");
                    if bfs.violations.is_empty() {
                        holding += 1;
                    } else {
                        with_violation += 1;
                    }
                }
            }
        }
    }
    // The grid must not shrink unnoticed: 3 trees × 7 variants × 3 sizes × 3 bounds = 189.
    assert!(compared >= 150, "compared only {compared}");
    assert!(with_violation >= 6, "only {with_violation} violating");
    assert!(holding >= 100, "only {holding} holding");
}

/// The asynchronous model of a mutant (`ftcoll_verify::mutants::async_model`) on a binary tree.
fn mutant_model(bug: Bug, correction: CorrectionSpec, procs: u32, f: u32) -> AsyncModel<Mutant> {
    async_model(&spec(TreeKind::KAry(2), correction, procs), bug, f).unwrap()
}

/// Every property can fail under both engines: the mutants that break integrity, no
/// duplicates, liveness and the send-slot contract are caught by the reduction as by the
/// search of every interleaving, and in the same configurations.
#[test]
fn mutants_caught_by_both() {
    use stateright::{Checker, Model};
    let cases = [
        (Bug::CorruptsRelayedPayload, CorrectionSpec::None),
        (
            Bug::DeliversEveryCopy,
            CorrectionSpec::Opportunistic { distance: 1 },
        ),
        (Bug::ConfusesDirections, CorrectionSpec::Checked),
        (
            Bug::EchoesCorrection,
            CorrectionSpec::Opportunistic { distance: 1 },
        ),
    ];
    let mut caught = 0;
    for (bug, correction) in cases {
        for procs in 2..=4 {
            for f in 0..=1 {
                let model = mutant_model(bug, correction, procs, f);
                let properties: Vec<&'static str> =
                    model.properties().iter().map(|p| p.name).collect();
                let always = |n: &&str| *n != property::SOMETIMES_QUIESCENT;
                model.halt.cap(CAP, Stop::States);
                let bfs = model.clone().checker().spawn_bfs().join();
                let bfs_stopped = model.halt.reason().is_some();
                model.halt.release();
                let bfs_violated: Vec<&str> = properties
                    .iter()
                    .copied()
                    .filter(|n| always(n) && bfs.discovery(n).is_some())
                    .collect();
                model.halt.cap(CAP, Stop::States);
                let budget = Budget {
                    threads: 2,
                    ..Budget::UNLIMITED
                };
                let explored =
                    explore(&model, &budget, std::time::Instant::now(), None).expect("clock-free");
                let dpor_stopped = model.halt.reason().is_some();
                model.halt.release();
                let dpor_violated: Vec<&str> = properties
                    .iter()
                    .copied()
                    .filter(|n| always(n) && explored.discoveries.contains_key(n))
                    .collect();
                let what = format!("{bug:?} P={procs} f={f}");
                match (bfs_stopped, dpor_stopped) {
                    (false, false) => assert_eq!(bfs_violated, dpor_violated, "{what}"),
                    // A violation is definite even when a budget stopped the search.
                    (false, true) => assert!(
                        dpor_violated.iter().all(|n| bfs_violated.contains(n)),
                        "{what}: {dpor_violated:?} not in {bfs_violated:?}"
                    ),
                    _ => continue,
                }
                caught += usize::from(!dpor_violated.is_empty());
            }
        }
    }
    assert!(caught >= 12, "only {caught} caught");
}

/// A violation's run replays in the model it claims: the trace names the actions in order,
/// and its crashes are a crash set the search explores.
#[test]
fn counterexamples_are_runs_with_their_crashes() {
    let s = spec(TreeKind::KAry(2), CorrectionSpec::None, 4);
    let dpor = run(&s, 1, Search::Dpor, 1);
    let liveness = &dpor.violations[0];
    assert!(
        liveness.property.contains("liveness"),
        "{:?}",
        dpor.violations
    );
    assert!(
        liveness.trace.iter().any(|a| a == "Crash(1)"),
        "{:?}",
        liveness.trace
    );
    // Fewest crashes first: with f = 2 the counterexample still crashes one process.
    let two = run(&s, 2, Search::Dpor, 2);
    let crashes = two.violations[0]
        .trace
        .iter()
        .filter(|a| a.starts_with("Crash"))
        .count();
    assert_eq!(crashes, 1, "{:?}", two.violations[0].trace);
}

/// Crash sets: every set of at most f non-root ranks, fewest first.
#[test]
fn crash_sets_fewest_first() {
    assert_eq!(
        crash_sets(4, 2),
        vec![
            vec![],
            vec![1],
            vec![2],
            vec![3],
            vec![1, 2],
            vec![1, 3],
            vec![2, 3]
        ]
    );
    assert_eq!(crash_sets(2, 3), vec![vec![], vec![1]]);
    assert_eq!(crash_sets(1, 1), vec![Vec::<u32>::new()]);
}

/// Random runs draw a crash set by its number instead of listing them all (a P = 65,536 run
/// with 4 crashes has 768,543,971,776,348,161 sets): every number names the set the list has
/// there, the count is the list's length, and beyond 64 bits the count says so.
#[test]
fn crash_sets_are_drawn_by_number() {
    use ftcoll_verify::timed::{crash_set_at, crash_set_count};
    for procs in 0..=9 {
        for max in 0..=4 {
            let sets = crash_sets(procs, max);
            assert_eq!(crash_set_count(procs, max), Some(sets.len() as u64));
            for (i, set) in sets.iter().enumerate() {
                assert_eq!(crash_set_at(procs, max, i as u64).as_ref(), Some(set));
            }
            assert_eq!(crash_set_at(procs, max, sets.len() as u64), None);
        }
    }
    // Σ_{k ≤ 4} C(65535, k), computed apart (Python's math.comb).
    assert_eq!(crash_set_count(65_536, 4), Some(768_543_971_776_348_161));
    assert_eq!(crash_set_count(65_536, 5), None);
    assert_eq!(crash_set_at(65_536, 4, 0), Some(vec![]));
    assert_eq!(crash_set_at(65_536, 4, 65_535), Some(vec![65_535]));
    assert_eq!(crash_set_at(65_536, 4, 65_536), Some(vec![1, 2]));
    assert_eq!(
        crash_set_at(65_536, 4, 768_543_971_776_348_160),
        Some(vec![65_532, 65_533, 65_534, 65_535])
    );
}

/// The same result on any number of threads.
#[test]
fn thread_independent() {
    let s = spec(TreeKind::Lame(2), CorrectionSpec::Ack, 4);
    let one = run(&s, 2, Search::Dpor, 1);
    let two = run(&s, 2, Search::Dpor, 2);
    // Both whole searches (two runs stopped by the budget could agree by accident).
    assert!(one.stopped.is_none() && two.stopped.is_none());
    assert_eq!(one.states, two.states);
    assert_eq!(one.violations, two.violations);
}

/// Random runs (`dpor::walks`) find what the exhaustive search finds, beyond its reach too, and
/// report the same on any number of threads.
#[test]
fn random_runs_find_violations() {
    use ftcoll_verify::dpor::walks;
    let liveness = property::ALL[2];
    // Exhaustively violated at P = 4 (the grid above): the runs find it too.
    let none =
        AsyncModel::corrected_tree(&spec(TreeKind::KAry(2), CorrectionSpec::None, 4), 1).unwrap();
    let found = walks(&none, 200, 1, 1).expect("few crash sets");
    assert!(
        found.found.contains_key(liveness),
        "{:?}",
        found.found.keys()
    );
    // Distance 1 does not cover two adjacent crashes: at P = 6, f = 2, beyond exhaustive reach.
    let short = AsyncModel::corrected_tree(
        &spec(
            TreeKind::Lame(2),
            CorrectionSpec::Opportunistic { distance: 1 },
            6,
        ),
        2,
    )
    .unwrap();
    let one = walks(&short, 2000, 1, 1).expect("few crash sets");
    let two = walks(&short, 2000, 1, 2).expect("few crash sets");
    assert!(one.found.contains_key(liveness), "{:?}", one.found.keys());
    assert_eq!(one, two, "walks depend on threads");
    // A walk's run is a run of the model that breaks the property, as the reduction's are (or,
    // for the `sometimes` property, reaches it: its condition holds in the last state).
    for (model, walked) in [(&none, &found), (&short, &one)] {
        for (property, (walk, trace)) in &walked.found {
            let broken = replay_violates(model, property, trace);
            let always = *property != property::SOMETIMES_QUIESCENT;
            assert_eq!(broken, Ok(always), "walk {walk} {property}: {trace:?}");
        }
    }
    // The real row holds in as many runs (the matrix draws 100,000).
    let real = AsyncModel::corrected_tree(
        &spec(
            TreeKind::Lame(2),
            CorrectionSpec::Opportunistic { distance: 2 },
            6,
        ),
        2,
    )
    .unwrap();
    let held = walks(&real, 2000, 1, 2).expect("few crash sets");
    let violated: Vec<_> = held
        .found
        .keys()
        .filter(|k| **k != property::SOMETIMES_QUIESCENT)
        .collect();
    assert!(violated.is_empty(), "{violated:?}");
    assert!(held.found.contains_key(property::SOMETIMES_QUIESCENT));
}

/// A protocol whose bug shows in one order only: rank 2 would send `Wrong` to rank 0 at its
/// send slot, unless rank 1's `Hush` reached it first (then it has nothing to send). The
/// delivery of `Hush` disables rank 2's send slot, so the run in which the slot comes first is
/// never revealed by a race: the reduction must schedule a disabled action of the same process
/// itself.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Hush {
    rank: u32,
    hushed: bool,
    sent: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum HushMsg {
    Hush,
    Wrong,
}

impl ftcoll::automaton::Message for HushMsg {
    fn phase(&self) -> ftcoll::automaton::Phase {
        ftcoll::automaton::Phase::Dissemination
    }
}

impl ftcoll::automaton::Automaton for Hush {
    type Msg = HushMsg;
    type Value = u64;
    type Config = ();

    fn new(_: &(), rank: u32) -> Self {
        Self {
            rank,
            hushed: false,
            sent: false,
        }
    }

    fn on_start(&mut self, _: &(), _: u64, out: &mut ftcoll::automaton::Outbox<HushMsg, u64>) {
        if self.rank != 0 {
            out.deliver(7);
        }
    }

    fn on_message(
        &mut self,
        _: &(),
        _: u64,
        _: u32,
        msg: HushMsg,
        out: &mut ftcoll::automaton::Outbox<HushMsg, u64>,
    ) {
        match msg {
            HushMsg::Hush => self.hushed = true,
            HushMsg::Wrong => out.deliver(8),
        }
    }

    fn on_timer(
        &mut self,
        _: &(),
        _: u64,
        _: ftcoll::automaton::TimerId,
        _: &mut ftcoll::automaton::Outbox<HushMsg, u64>,
    ) {
    }

    fn on_send_slot(&mut self, _: &(), _: u64, out: &mut ftcoll::automaton::Outbox<HushMsg, u64>) {
        match self.rank {
            1 if !self.sent => {
                self.sent = true;
                out.send(2, HushMsg::Hush);
            }
            2 if !self.sent && !self.hushed => {
                self.sent = true;
                out.send(0, HushMsg::Wrong);
            }
            _ => {}
        }
    }
}

#[test]
fn an_action_disabled_by_its_own_process_is_still_tried_first() {
    use stateright::{Checker, Model};
    let model = AsyncModel::<Hush> {
        config: (),
        procs: 3,
        payload: 7,
        max_crashes: 0,
        horizon: 100,
        halt: Halt::new(),
        reads_clock: false,
        crashes_at_events_only: false,
    };
    let integrity = property::ALL[0];
    let bfs = model.clone().checker().spawn_bfs().join();
    assert!(bfs.discovery(integrity).is_some(), "the BFS finds it");
    let explored =
        explore(&model, &Budget::UNLIMITED, std::time::Instant::now(), None).expect("clock-free");
    let trace = explored
        .discoveries
        .get(integrity)
        .expect("the reduction finds it");
    assert_eq!(
        trace.first().map(String::as_str),
        Some("Poll(1)"),
        "the first order explored is Hush first: {trace:?}"
    );
    let walked = ftcoll_verify::dpor::walks(&model, 100, 1, 1).expect("few crash sets");
    assert!(walked.found.contains_key(integrity));
}

/// Replays `trace` (one action per line, as the reduction writes it: `{:?}`) in the
/// asynchronous model from its initial state: every line must name an action the model
/// offers in the state reached so far. The last state, or the first line that names none.
fn replay<A>(
    model: &AsyncModel<A>,
    trace: &[String],
) -> Result<ftcoll_verify::asynchronous::AsyncState<A>, String>
where
    A: ftcoll::automaton::Automaton + Send + Sync + 'static,
    A::Msg: Ord + Send + Sync,
    A::Config: Send + Sync + 'static,
{
    use stateright::Model;
    let mut state = model
        .init_states()
        .into_iter()
        .next()
        .ok_or("no initial state")?;
    let mut actions = Vec::new();
    for (i, line) in trace.iter().enumerate() {
        actions.clear();
        model.actions(&state, &mut actions);
        let action = actions
            .iter()
            .find(|a| format!("{a:?}") == *line)
            .cloned()
            .ok_or_else(|| format!("step {i}: {line} is not enabled"))?;
        state = model
            .next_state(&state, action)
            .ok_or_else(|| format!("step {i}: {line} has no successor"))?;
    }
    Ok(state)
}

/// Whether `property` fails in the last state of `trace` replayed in `model` (`Err`: the trace
/// is not a run of the model).
fn replay_violates<A>(
    model: &AsyncModel<A>,
    property: &str,
    trace: &[String],
) -> Result<bool, String>
where
    A: ftcoll::automaton::Automaton + Send + Sync + 'static,
    A::Msg: Ord + Send + Sync,
    A::Config: Send + Sync + 'static,
{
    use stateright::Model;
    let last = replay(model, trace)?;
    let checked = model
        .properties()
        .into_iter()
        .find(|p| p.name == property)
        .ok_or_else(|| format!("no property {property}"))?;
    Ok(!(checked.condition)(model, &last))
}

/// Every counterexample the reduction reports is a run of the asynchronous model that breaks
/// its property: replayed action by action through `AsyncModel` (the model the breadth-first
/// search explores), each line is an action that model offers at that point, and the
/// property's condition is false in the last state. The reduction runs its own copy of the
/// model's steps (per-process clocks, vector clocks), so this checks the copy against the
/// model: for the real variants that violate something (none and ack; opportunistic and
/// optimized with distance 1 hold at these sizes), and for the mutants of `mutants_caught_by_both` (integrity, no
/// duplicates, termination). It can fail: the liveness runs with their crashes taken out are
/// not counterexamples (their last state is not quiescent, or a later line is not enabled), and
/// a run cut one action short of quiescence breaks nothing.
#[test]
fn counterexamples_replay_in_the_asynchronous_model() {
    let corrections = [
        CorrectionSpec::None,
        CorrectionSpec::Ack,
        CorrectionSpec::Opportunistic { distance: 1 },
        CorrectionSpec::Optimized { distance: 1 },
    ];
    let trees = [TreeKind::Lame(2), TreeKind::KAry(2), TreeKind::Binomial];
    let (mut replayed, mut liveness_with_crashes) = (0, 0);
    for tree in trees {
        for correction in corrections {
            for procs in 4..=5 {
                for f in 1..=2 {
                    let s = spec(tree, correction, procs);
                    let what = format!("{} f={f}", s.name());
                    let dpor = run(&s, f, Search::Dpor, 1);
                    let model = AsyncModel::corrected_tree(&s, f).unwrap();
                    for v in &dpor.violations {
                        let broken = replay_violates(&model, v.property, &v.trace);
                        assert_eq!(broken, Ok(true), "{what} {}: {:?}", v.property, v.trace);
                        replayed += 1;
                        if v.property != property::LIVENESS {
                            continue;
                        }
                        let without_crashes: Vec<String> = v
                            .trace
                            .iter()
                            .filter(|a| !a.starts_with("Crash"))
                            .cloned()
                            .collect();
                        if without_crashes.len() < v.trace.len() {
                            liveness_with_crashes += 1;
                            let without = replay_violates(&model, v.property, &without_crashes);
                            assert_ne!(without, Ok(true), "{what}: {without_crashes:?}");
                        }
                        assert!(!v.trace.is_empty(), "{what}: an empty liveness run");
                        let short = &v.trace[..v.trace.len() - 1];
                        assert_eq!(
                            replay_violates(&model, v.property, short),
                            Ok(false),
                            "{what}: {short:?}"
                        );
                    }
                }
            }
        }
    }
    // (20: none and ack at P = 4 and 5 on the three trees, f = 1 and 2, but for lame:2 at
    // P = 4.) These variants deliver to everyone without crashes, so each of their liveness
    // counterexamples crashes someone.
    assert_eq!(replayed, 20, "counterexamples replayed");
    assert_eq!(
        liveness_with_crashes, replayed,
        "liveness runs without a crash"
    );

    let bugs = [
        (Bug::CorruptsRelayedPayload, CorrectionSpec::None),
        (
            Bug::DeliversEveryCopy,
            CorrectionSpec::Opportunistic { distance: 1 },
        ),
        (
            Bug::EchoesCorrection,
            CorrectionSpec::Opportunistic { distance: 1 },
        ),
    ];
    let mut mutant_properties = std::collections::BTreeSet::new();
    for (bug, correction) in bugs {
        for procs in 3..=4 {
            let model = mutant_model(bug, correction, procs, 0);
            model.halt.cap(CAP, Stop::States);
            let budget = Budget {
                threads: 1,
                ..Budget::UNLIMITED
            };
            let explored =
                explore(&model, &budget, std::time::Instant::now(), None).expect("clock-free");
            model.halt.release();
            for (name, trace) in &explored.discoveries {
                if *name == property::SOMETIMES_QUIESCENT {
                    continue;
                }
                let broken = replay_violates(&model, name, trace);
                assert_eq!(broken, Ok(true), "{bug:?} P={procs} {name}: {trace:?}");
                mutant_properties.insert(*name);
            }
        }
    }
    assert_eq!(
        mutant_properties.into_iter().collect::<Vec<_>>(),
        [
            property::INTEGRITY,
            property::NO_DUPLICATES,
            property::TERMINATION
        ],
    );
}

/// Synchronized correction reads the clock, which per-process clocks would not agree on: the
/// library refuses it before any work (`explore`, `walks`, and `check_within` with
/// `--search dpor`), as the CLI does. A plain or acknowledged tree started "synchronized"
/// never reads it, so the reduction takes it, and decides what the breadth-first search does.
#[test]
fn synchronized_correction_is_refused_and_clock_free_trees_are_not() {
    use ftcoll_verify::dpor::{walks, Refusal};
    use ftcoll_verify::CheckError;
    let synchronized = |correction| CorrectedTreeSpec {
        start: StartMode::Synchronized,
        ..spec(TreeKind::Binomial, correction, 4)
    };
    let checked = synchronized(CorrectionSpec::Checked);
    assert!(checked.reads_clock());
    let model = AsyncModel::corrected_tree(&checked, 1).unwrap();
    assert!(model.reads_clock);
    // (A small budget, so that a search which fails to refuse ends soon, and fails here.)
    let budget = Budget {
        max_states: Some(CAP),
        search: Search::Dpor,
        ..Budget::UNLIMITED
    };
    model.halt.cap(CAP, Stop::States);
    let refused = explore(&model, &budget, std::time::Instant::now(), None);
    assert_eq!(refused.err(), Some(Refusal::ReadsClock));
    assert_eq!(walks(&model, 10, 1, 1).err(), Some(Refusal::ReadsClock));
    let checked_run = check_within(
        &checked,
        1,
        CrashTiming::Any,
        ModelKind::Async,
        &budget,
        None,
    );
    assert_eq!(
        checked_run.err(),
        Some(CheckError::Refused(Refusal::ReadsClock))
    );
    // Every correction reads it when synchronized; the overlapped start never does.
    let with_ack = ftcoll_verify::corrected_tree::EVERY_VARIANT
        .into_iter()
        .chain([CorrectionSpec::Ack]);
    for correction in with_ack {
        let clock_free = matches!(correction, CorrectionSpec::None | CorrectionSpec::Ack);
        assert_eq!(
            synchronized(correction).reads_clock(),
            !clock_free,
            "{correction}"
        );
        assert!(
            !spec(TreeKind::Binomial, correction, 4).reads_clock(),
            "{correction}"
        );
    }
    for correction in [CorrectionSpec::None, CorrectionSpec::Ack] {
        for procs in 2..=4 {
            for f in 0..=1 {
                let s = CorrectedTreeSpec {
                    procs,
                    ..synchronized(correction)
                };
                let what = format!("{} f={f}", s.name());
                let bfs = run(&s, f, Search::Bfs, 1);
                let dpor = run(&s, f, Search::Dpor, 1);
                assert!(bfs.stopped.is_none() && dpor.stopped.is_none(), "{what}");
                assert_eq!(violated(&bfs), violated(&dpor), "{what}: violated");
                assert_eq!(bfs.reached, dpor.reached, "{what}: reached");
            }
        }
    }
}
