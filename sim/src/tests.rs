//! Unit tests of the driver's compact records: their sizes, and times, crash times and timer
//! generations beyond their 32-bit codes read back exactly.

use super::*;
use crate::process::FIRST_TIMER_GENERATION;
use ftcoll::protocols::corrected_tree::CorrectedTreeNode;

/// The record sizes docs/performance.md states: the driver's part of a process
/// record is 16 B, its three port and poll times and its crash time in 32 bits each (times
/// too large for them aside) and the arrived flag in the crash word's spare bit; timers are
/// in side tables (8 B per process once any timer is set).
#[test]
fn a_corrected_tree_process_record_is_64_bytes() {
    assert_eq!(core::mem::size_of::<CorrectedTreeNode>(), 48);
    assert_eq!(core::mem::size_of::<Process<CorrectedTreeNode>>(), 64);
    // A process's first pending timer, in a table allocated at the first timer.
    assert_eq!(core::mem::size_of::<FirstTimer>(), 8);
}

/// Whether every far-time map holds exactly the times its records mark far: what makes
/// equal states equal values.
fn far_maps_are_canonical<A: Automaton>(sim: &Sim<A>) -> bool {
    let records = sim
        .procs
        .iter()
        .enumerate()
        .flat_map(|(r, p)| (0..3).map(move |field| (r as Rank, field as u8, p.times[field])));
    let timers = (sim.first_timers.iter().enumerate())
        .map(|(r, t)| (r as Rank, FIRST_TIMER_GENERATION as u8, t.generation));
    sim.far_times.matches(records.chain(timers)) && sim.report.far_times_are_canonical()
}

/// A run started 2^40 later is the same run, 2^40 later: every time the record and the
/// report keep in 32 bits is then kept aside (`far_times`, `far_crashes`),
/// and every metric must come out shifted by exactly 2^40, for both port models, the
/// variants with timers, traced (message slots) and not (deliveries carrying their
/// messages). Stepped (as a model checker does), the far-time maps stay canonical after
/// every instant.
#[test]
fn a_run_shifted_beyond_32_bit_times_is_the_same_run_shifted() {
    use ftcoll::protocols::corrected_tree::{CorrectedTreeConfig, CorrectionSpec, StartMode};
    use ftcoll::topology::{Order, Tree, TreeKind};
    const SHIFT: Time = 1 << 40;
    let logp = LogP::new(2, 1).expect("valid LogP");
    let tree = Tree::new(TreeKind::Binomial, Order::Interleaved, 16, logp).expect("tree");
    let specs = [
        CorrectionSpec::Checked,
        CorrectionSpec::Opportunistic { distance: 2 },
        CorrectionSpec::Delayed { delay: 5 },
        CorrectionSpec::FailProof {
            faults: 1,
            sos_timeout: Some(40),
            sos_on_full_loop: true,
        },
    ];
    let shift = |t: Time| if t == 0 { 0 } else { t + SHIFT };
    let mut shifted_runs = 0;
    for (model, trace) in [
        (PortModel::DualPort, true),
        (PortModel::DualPort, false),
        (PortModel::SinglePort, true),
    ] {
        for spec in specs {
            let config = CorrectedTreeConfig::new(tree.clone(), spec, StartMode::Overlapped);
            let base = Scenario {
                logp,
                model,
                arrivals: (0..16).map(|r| (r * 7) % 5).collect(),
                crashes: alloc::vec![(3, 0), (5, 4), (9, 7), (12, 30)],
                trace,
                ..Scenario::default()
            };
            let later = Scenario {
                arrivals: base.arrivals.iter().map(|&t| t + SHIFT).collect(),
                crashes: base.crashes.iter().map(|&(r, t)| (r, t + SHIFT)).collect(),
                ..base.clone()
            };
            let a = run::<CorrectedTreeNode>(&config, 16, &base, 1 << 20).expect("runs");
            let b = run::<CorrectedTreeNode>(&config, 16, &later, 1 << 20).expect("runs");
            let what = (model, trace, &spec);
            assert_eq!(b.last_activity, a.last_activity + SHIFT, "{what:?}");
            assert_eq!(b.messages, a.messages, "{what:?}");
            assert_eq!(b.lost, a.lost, "{what:?}");
            let delivered = |r: &Report<_>| -> Vec<Option<Time>> { r.delivery_times().collect() };
            let expected: Vec<_> = delivered(&a).iter().map(|t| t.map(|t| t + SHIFT)).collect();
            assert_eq!(delivered(&b), expected, "{what:?}");
            assert!(expected.iter().flatten().count() >= 12, "{what:?}");
            let sent: Vec<_> = a.sent_counts().collect();
            assert_eq!(b.sent_counts().collect::<Vec<_>>(), sent, "{what:?}");
            let finish: Vec<_> = a.finish_times().map(shift).collect();
            assert_eq!(b.finish_times().collect::<Vec<_>>(), finish, "{what:?}");
            let times = |e: &TraceEvent| match *e {
                TraceEvent::Message { sent, received, .. } => (sent, received),
                TraceEvent::Lost { sent, at, .. } => (sent, at),
                TraceEvent::Ignored { at, .. } => (at, at),
            };
            assert_eq!(a.trace.len(), b.trace.len(), "{what:?}");
            assert_eq!(a.trace.is_empty(), !trace, "{what:?}");
            for (x, y) in a.trace.iter().zip(&b.trace) {
                let (s, r) = times(x);
                assert_eq!(times(y), (s + SHIFT, r + SHIFT), "{what:?}");
            }
            let mut sim = Sim::<CorrectedTreeNode>::new(&config, 16, &later).expect("valid");
            let mut kept_aside = 0;
            while sim.next_time().is_some() {
                sim.step(&config).expect("steps");
                assert!(far_maps_are_canonical(&sim), "{what:?}");
                kept_aside = kept_aside.max(sim.far_times.len());
            }
            assert!(kept_aside > 0, "{what:?}");
            assert_eq!(delivered(sim.report()), expected, "{what:?}");
            shifted_runs += 1;
        }
    }
    assert_eq!(shifted_runs, 12);
}

/// Timer generations past 32 bits (a first timer keeps its generation in a 32-bit code,
/// the larger ones aside): a run whose generations start just below 2^32 − 2 is the same
/// run, for checked, delayed and failure-proof synchronized correction (start timers, the
/// delay timer, the SOS timer), and the far-time map stays canonical after every instant
/// and holds some generation on the way.
#[test]
fn timer_generations_beyond_32_bits_read_back() {
    use ftcoll::protocols::corrected_tree::{CorrectedTreeConfig, CorrectionSpec, StartMode};
    use ftcoll::topology::{Order, Tree, TreeKind};
    let logp = LogP::new(2, 1).expect("valid LogP");
    let tree = Tree::new(TreeKind::Binomial, Order::Interleaved, 16, logp).expect("tree");
    let specs = [
        CorrectionSpec::Checked,
        CorrectionSpec::Delayed { delay: 5 },
        CorrectionSpec::FailProof {
            faults: 1,
            sos_timeout: Some(40),
            sos_on_full_loop: true,
        },
    ];
    let scenario = Scenario {
        logp,
        model: PortModel::DualPort,
        arrivals: Vec::new(),
        crashes: alloc::vec![(3, 0), (5, 4), (9, 7), (12, 30)],
        trace: true,
        ..Scenario::default()
    };
    for spec in specs {
        // Synchronized: every process sets a start timer, and some set more.
        let config = CorrectedTreeConfig::new(tree.clone(), spec, StartMode::Synchronized);
        let stepped = |first_generation: u64| {
            let mut sim = Sim::<CorrectedTreeNode>::new(&config, 16, &scenario).expect("valid");
            sim.timer_generation = first_generation;
            let mut kept_aside = 0;
            while sim.next_time().is_some() {
                sim.step(&config).expect("steps");
                assert!(far_maps_are_canonical(&sim), "{spec:?}");
                kept_aside = kept_aside.max(sim.far_times.len());
            }
            (
                sim.report,
                kept_aside,
                sim.timer_generation - first_generation,
            )
        };
        let (near, near_aside, set) = stepped(0);
        let (far, far_aside, far_set) = stepped(u64::from(time_code::FAR_CODE) - 6);
        assert_eq!(far, near, "{spec:?}");
        assert_eq!((near_aside, far_set), (0, set), "{spec:?}");
        assert!(
            set > 6 && far_aside > 0,
            "{spec:?}: {set} timers, {far_aside} aside"
        );
    }
}

/// A message slot holds the sender and the message only: 32 B with a Corrected
/// Tree message of 24 B, 48 B when it held the receiver and the send time and the message
/// was 32 B.
#[test]
fn a_corrected_tree_message_slot_is_32_bytes() {
    use ftcoll::protocols::message::Msg;
    assert_eq!(core::mem::size_of::<slots::Slot<InFlight<Msg>>>(), 32);
    // A carried delivery's message, one per run (`queue::Carried`): as large as the
    // message itself, so distinct messages in flight cost 8 B, the message and a bit.
    assert_eq!(core::mem::size_of::<Option<Msg>>(), 24);
}

/// Crash times kept in 31 bits of the record, or aside from 2^31 − 2 on, read back exactly,
/// the earliest of several winning, and `NEVER` is no crash.
#[test]
fn crash_times_read_back_exactly() {
    use ftcoll::protocols::corrected_tree::{CorrectedTreeConfig, CorrectionSpec, StartMode};
    use ftcoll::topology::{Order, Tree, TreeKind};
    let logp = LogP::new(2, 1).expect("valid LogP");
    let tree = Tree::new(TreeKind::Binomial, Order::Interleaved, 8, logp).expect("tree");
    let config = CorrectedTreeConfig::new(tree, CorrectionSpec::Checked, StartMode::Overlapped);
    let scenario = Scenario {
        logp,
        ..Scenario::default()
    };
    let far = Time::from(FAR_CRASH);
    let cases: [&[Time]; 8] = [
        &[0],
        &[5, 9],
        &[9, 5],
        &[far - 1],
        &[far],
        &[u64::MAX - 1, 1 << 60],
        &[1 << 60, 7],
        &[NEVER],
    ];
    for times in cases {
        let mut sim = Sim::<CorrectedTreeNode>::new(&config, 8, &scenario).expect("valid");
        for &t in times {
            sim.crash(3, t);
        }
        let expected = times.iter().copied().min().unwrap_or(NEVER);
        assert_eq!(sim.crash_time(3), expected, "{times:?}");
        assert_eq!(
            sim.crash_instant(3),
            (expected != NEVER).then_some(expected),
            "{times:?}"
        );
        assert_eq!(sim.has_crashed(3), expected != NEVER, "{times:?}");
        assert_eq!(sim.report().crashed(3), expected != NEVER, "{times:?}");
        assert_eq!(
            sim.far_crashes.len(),
            usize::from(expected >= far && expected != NEVER)
        );
        assert_eq!(sim.crash_time(2), NEVER);
        assert_eq!(sim.crash_instant(2), None);
        assert_eq!(sim.crash_instant(8), None, "no such rank");
    }
}

/// `port_free_at` reads a send's overhead: free at 0 before anything, `o` after the
/// root's first send at 0, and `None` past the last rank.
#[test]
fn the_port_is_free_after_the_send_overhead() {
    use ftcoll::protocols::corrected_tree::{CorrectedTreeConfig, CorrectionSpec, StartMode};
    use ftcoll::topology::{Order, Tree, TreeKind};
    let logp = LogP::new(2, 3).expect("valid LogP");
    let tree = Tree::new(TreeKind::Binomial, Order::Interleaved, 4, logp).expect("tree");
    let config = CorrectedTreeConfig::new(tree, CorrectionSpec::Checked, StartMode::Overlapped);
    let scenario = Scenario {
        logp,
        ..Scenario::default()
    };
    let mut sim = Sim::<CorrectedTreeNode>::new(&config, 4, &scenario).expect("valid");
    assert_eq!(sim.port_free_at(0), Some(0));
    assert_eq!(sim.port_free_at(4), None);
    while sim.next_time() == Some(0) {
        sim.step(&config).expect("step");
    }
    assert_eq!(
        sim.port_free_at(0),
        Some(3),
        "the root sent at 0 with o = 3"
    );
    assert_eq!(sim.port_free_at(1), Some(0), "rank 1 has sent nothing");
}
