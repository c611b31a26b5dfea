//! The LogP driver's semantics (DESIGN §3; CT §2.2, CG §II; FTCO §2, §5.2; PAP §2) on tiny
//! hand-checked examples, mostly with a scripted test automaton whose behaviour is fully defined
//! here, plus the determinism of seeded scenarios (DESIGN §1 "everything random is seeded").

use crate::sim_common;

use ftcoll::automaton::{Automaton, Message, Outbox, Phase, TimerId};
use ftcoll::protocols::corrected_tree::CorrectionSpec;
use ftcoll::protocols::corrected_tree::StartMode;
use ftcoll::topology::{Order, TreeKind};
use ftcoll::{Rank, Time};
use ftcoll_sim::scenario::{ArrivalSpec, FaultSpec, ScenarioError, ScenarioSpec};
use ftcoll_sim::{PortModel, Report, Scenario, TraceEvent};
use sim_common::*;

// ---------------------------------------------------------------------------------------------
// A scripted automaton
// ---------------------------------------------------------------------------------------------

/// A message: who sent it, its index in the sender's script, and how many messages the sender
/// had received when it decided to send it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Tag {
    index: u32,
    received_before: u32,
}

impl Message for Tag {
    fn phase(&self) -> Phase {
        Phase::Dissemination
    }
}

/// Per rank: the destinations it sends to, in order, back to back, and whether it starts at its
/// arrival (`true`) or only once it received a first message (`false`).
#[derive(Debug, Default)]
struct Script {
    sends: Vec<Vec<Rank>>,
    eager: Vec<bool>,
}

impl Script {
    fn new(p: usize) -> Self {
        Self {
            sends: vec![Vec::new(); p],
            eager: vec![false; p],
        }
    }

    /// `rank` sends to `to` in order from its arrival.
    fn eager(mut self, rank: Rank, to: &[Rank]) -> Self {
        self.sends[rank as usize] = to.to_vec();
        self.eager[rank as usize] = true;
        self
    }

    /// `rank` sends to `to` in order once it received a first message.
    fn forward(mut self, rank: Rank, to: &[Rank]) -> Self {
        self.sends[rank as usize] = to.to_vec();
        self
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Scripted {
    rank: Rank,
    armed: bool,
    next: usize,
    received: u32,
}

impl Automaton for Scripted {
    type Msg = Tag;
    type Value = u64;
    type Config = Script;

    fn new(_: &Script, rank: Rank) -> Self {
        Self {
            rank,
            armed: false,
            next: 0,
            received: 0,
        }
    }

    fn on_start(&mut self, config: &Script, _: Time, out: &mut Outbox<Tag>) {
        self.armed = config.eager[self.rank as usize];
        if self.rank == 0 {
            out.deliver(0);
        }
    }

    fn on_message(&mut self, _: &Script, _: Time, _: Rank, msg: Tag, out: &mut Outbox<Tag>) {
        self.received += 1;
        self.armed = true;
        out.deliver(u64::from(msg.index));
    }

    fn on_timer(&mut self, _: &Script, _: Time, _: TimerId, out: &mut Outbox<Tag>) {
        out.ignore("no timers");
    }

    fn on_send_slot(&mut self, config: &Script, _: Time, out: &mut Outbox<Tag>) {
        if let (true, Some(&to)) = (self.armed, config.sends[self.rank as usize].get(self.next)) {
            out.send(
                to,
                Tag {
                    index: self.next as u32,
                    received_before: self.received,
                },
            );
            self.next += 1;
        }
    }
}

fn run_script(script: &Script, scenario: &Scenario) -> Report {
    let mut scenario = scenario.clone();
    scenario.trace = true;
    ftcoll_sim::run::<Scripted>(script, script.sends.len() as u32, &scenario, 100_000)
        .expect("scripted run")
}

/// `(from, to, sent, received)` of every delivered message, in trace order.
fn messages(report: &Report) -> Vec<(Rank, Rank, Time, Time)> {
    report
        .trace
        .iter()
        .filter_map(|e| match *e {
            TraceEvent::Message {
                from,
                to,
                sent,
                received,
                ..
            } => Some((from, to, sent, received)),
            _ => None,
        })
        .collect()
}

/// `(from, to, sent, at)` of every lost message.
fn lost(report: &Report) -> Vec<(Rank, Rank, Time, Time)> {
    report
        .trace
        .iter()
        .filter_map(|e| match *e {
            TraceEvent::Lost {
                from, to, sent, at, ..
            } => Some((from, to, sent, at)),
            _ => None,
        })
        .collect()
}

fn dual(l: u64, o: u64) -> Scenario {
    Scenario {
        logp: logp(l, o),
        ..Default::default()
    }
}

fn single(l: u64, o: u64) -> Scenario {
    Scenario {
        logp: logp(l, o),
        model: PortModel::SinglePort,
        ..Default::default()
    }
}

// ---------------------------------------------------------------------------------------------
// Dual-port LogP
// ---------------------------------------------------------------------------------------------

/// DESIGN §3 / CT §2.2: a send started at `t` occupies the sender during `[t, t+o)` and is handed
/// to the receiver at `t + 2o + L`. With `L = 3, o = 2`, rank 0 sends to 1, 2, 3 back to back at
/// 0, 2, 4; they are handed over at 7, 9, 11, which is also the last activity.
#[test]
fn message_is_handed_over_2o_plus_l_after_its_send() {
    let script = Script::new(4).eager(0, &[1, 2, 3]);
    let report = run_script(&script, &dual(3, 2));
    assert_eq!(
        messages(&report),
        vec![(0, 1, 0, 7), (0, 2, 2, 9), (0, 3, 4, 11)]
    );
    assert_eq!(
        report.delivery_times().collect::<Vec<_>>(),
        vec![Some(0), Some(7), Some(9), Some(11)]
    );
    assert_eq!(report.quiescence_latency(), 11);
    assert_eq!(report.coloring_latency(), 11);
    assert_eq!(report.sent(0), [3, 0, 0, 0]);
    // The sender's last activity is the end of its last send overhead, 4 + 2.
    assert_eq!(report.finish(0), 6);
}

/// DESIGN §3: the receive port handles messages FIFO, `o` each. With `L = 3, o = 2`, ranks 1, 2
/// and 4 all send to 3 at time 0; the three messages reach 3 at `o + L = 5` together and are
/// handed over at 7, 9 and 11 (sends are polled by rank, so rank 1's is first). Meanwhile
/// rank 3's own sends are not delayed (send and receive overlap: it sends at 0 and 2).
#[test]
fn receive_port_is_fifo_with_o_per_message() {
    let script = Script::new(6)
        .eager(1, &[3])
        .eager(2, &[3])
        .eager(4, &[3])
        .eager(3, &[5, 0]);
    let report = run_script(&script, &dual(3, 2));
    let mut to3: Vec<(Rank, Time)> = messages(&report)
        .into_iter()
        .filter(|m| m.1 == 3)
        .map(|m| (m.0, m.3))
        .collect();
    to3.sort_by_key(|m| m.1);
    assert_eq!(to3, vec![(1, 7), (2, 9), (4, 11)]);
    let from3: Vec<(Rank, Time, Time)> = messages(&report)
        .into_iter()
        .filter(|m| m.0 == 3)
        .map(|m| (m.1, m.2, m.3))
        .collect();
    assert_eq!(from3, vec![(5, 0, 7), (0, 2, 9)]);
    assert_eq!(report.quiescence_latency(), 11);
}

/// DESIGN §3: a message that reaches the receive port while it is idle is not delayed by earlier
/// traffic. `L = 1, o = 1`: rank 1 sends to 0 at 0 (handed over at 3) and rank 2 sends to 0 at
/// 2 after two other sends (reaches 0 at 4, port idle since 3, handed over at 5).
#[test]
fn receive_port_idles_between_messages() {
    let script = Script::new(5).eager(1, &[0]).eager(2, &[3, 4, 0]);
    let report = run_script(&script, &dual(1, 1));
    let to0: Vec<(Rank, Time, Time)> = messages(&report)
        .into_iter()
        .filter(|m| m.1 == 0)
        .map(|m| (m.0, m.2, m.3))
        .collect();
    assert_eq!(to0, vec![(1, 0, 3), (2, 2, 5)]);
}

/// DESIGN §3 / §2: "receive completions at an instant are applied before the send port is
/// polled", so a send decided at `t` has seen every message handed over at `t`. `L = 2, o = 2`:
/// rank 1 sends at 0, 2, 4, 6, 8; rank 0's message (sent at 0) is handed to rank 1 at
/// `0 + 2·2 + 2 = 6`, so the sends at 0, 2, 4 carry 0 messages received and those at 6 and 8
/// carry 1.
#[test]
fn receive_completions_precede_the_send_poll_at_the_same_instant() {
    let script = Script::new(3).eager(0, &[1]).eager(1, &[2, 2, 2, 2, 2]);
    let scenario = dual(2, 2);
    let report = run_script(&script, &scenario);
    assert_eq!(messages(&report)[0], (0, 1, 0, 6));
    let sends: Vec<Time> = messages(&report)
        .into_iter()
        .filter(|m| m.0 == 1)
        .map(|m| m.2)
        .collect();
    assert_eq!(sends, vec![0, 2, 4, 6, 8]);
    // The same run with every receipt reported as a completion carrying `received_before`.
    let report = ftcoll_sim::run::<Recorder>(&script, 3, &scenario, 10_000).unwrap();
    let seen: Vec<(Time, u32)> = report
        .completions
        .iter()
        .filter(|c| c.0 == 2)
        .map(|c| (c.1, c.2 as u32))
        .collect();
    // Rank 2 receives them at send time + 6: 6, 8, 10, 12, 14.
    assert_eq!(seen, vec![(6, 0), (8, 0), (10, 0), (12, 1), (14, 1)]);
}

/// [`Scripted`], but every received message is also reported as a completion carrying the
/// sender's `received_before`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Recorder(Scripted);

impl Automaton for Recorder {
    type Msg = Tag;
    type Value = u64;
    type Config = Script;

    fn new(config: &Script, rank: Rank) -> Self {
        Self(Scripted::new(config, rank))
    }

    fn on_start(&mut self, config: &Script, now: Time, out: &mut Outbox<Tag>) {
        self.0.on_start(config, now, out);
    }

    fn on_message(
        &mut self,
        config: &Script,
        now: Time,
        from: Rank,
        msg: Tag,
        out: &mut Outbox<Tag>,
    ) {
        out.complete(u64::from(msg.received_before));
        self.0.on_message(config, now, from, msg, out);
    }

    fn on_timer(&mut self, config: &Script, now: Time, id: TimerId, out: &mut Outbox<Tag>) {
        self.0.on_timer(config, now, id, out);
    }

    fn on_send_slot(&mut self, config: &Script, now: Time, out: &mut Outbox<Tag>) {
        self.0.on_send_slot(config, now, out);
    }
}

/// CT §2.2 ("messages addressed to [failed processes] are simply dropped"; sending "always takes
/// time o … the message propagates via the network for L time steps") and DESIGN §3 ("a message
/// to a dead process costs the sender o and vanishes at t+o+L"): rank 1 fails before the
/// operation; rank 0's message to it (sent at 0, `L = 3, o = 2`) is lost at 5, counted in `lost`,
/// and the operation's last activity is 5. Rank 2's message (sent at 2) is handed over at 9.
#[test]
fn message_to_a_crashed_process_is_lost() {
    let script = Script::new(3).eager(0, &[1, 2]);
    let mut scenario = dual(3, 2);
    scenario.crashes = vec![(1, 0)];
    let report = run_script(&script, &scenario);
    assert_eq!(report.lost, 1);
    assert_eq!(lost(&report), vec![(0, 1, 0, 5)]);
    assert_eq!(messages(&report), vec![(0, 2, 2, 9)]);
    assert_eq!(report.delivered_at(1), None);
    assert_eq!(report.sent(0), [2, 0, 0, 0]);
    assert_eq!(report.undelivered(), 0, "a crashed process is not live");

    let script = Script::new(2).eager(0, &[1]);
    let report = run_script(&script, &scenario);
    assert_eq!(report.quiescence_latency(), 5);
}

/// DESIGN §3 / DESIGN §6 (fail-stop; "messages sent before a crash are delivered"): a process
/// crashing at `c` starts no send at `t >= c`. `L = 3, o = 2`: rank 1 sends to 2, 3, 4 at 0, 2, 4.
/// Crashing at 4 cuts the third send; crashing at 3 (during the second send's overhead) still
/// cuts only the third; crashing at 5 cuts none. Messages already sent are handed over (at 7 and
/// 9) although their sender is dead by then.
#[test]
fn crash_cuts_sends_starting_at_or_after_it() {
    let script = Script::new(5).eager(1, &[2, 3, 4]);
    for (crash, sent) in [(4u64, 2u32), (3, 2), (5, 3), (1, 1), (2, 1)] {
        let mut scenario = dual(3, 2);
        scenario.crashes = vec![(1, crash)];
        let report = run_script(&script, &scenario);
        assert_eq!(report.sent(1)[0], sent, "crash at {crash}");
        let expected: Vec<(Rank, Rank, Time, Time)> = [(1, 2, 0, 7), (1, 3, 2, 9), (1, 4, 4, 11)]
            .into_iter()
            .take(sent as usize)
            .collect();
        assert_eq!(messages(&report), expected, "crash at {crash}");
    }
}

/// DESIGN §3: a process crashing at `c` completes no receive at `t >= c`, and a message reaching
/// it at `t >= c` is lost. `L = 3, o = 2`: rank 0's message reaches rank 1 at 5 and would be
/// handed over at 7, after which rank 1 would forward it to 2 (handed over at 14).
/// - crash at 8: handed over at 7, forwarded;
/// - crash at 7 or 6: the receive would complete at 7 >= c: lost, nothing forwarded;
/// - crash at 5: lost on arrival at 5 (the operation's last activity).
#[test]
fn crash_cuts_receives_completing_at_or_after_it() {
    let script = Script::new(3).eager(0, &[1]).forward(1, &[2]);
    let base = dual(3, 2);
    let report = run_script(&script, &base);
    assert_eq!(messages(&report), vec![(0, 1, 0, 7), (1, 2, 7, 14)]);

    let mut scenario = base.clone();
    scenario.crashes = vec![(1, 8)];
    let report = run_script(&script, &scenario);
    assert_eq!(messages(&report), vec![(0, 1, 0, 7), (1, 2, 7, 14)]);
    assert_eq!(report.lost, 0);

    for crash in [7u64, 6] {
        let mut scenario = base.clone();
        scenario.crashes = vec![(1, crash)];
        let report = run_script(&script, &scenario);
        assert_eq!(messages(&report), vec![], "crash at {crash}");
        assert_eq!(report.delivered_at(1), None, "crash at {crash}");
        assert_eq!(report.lost, 1, "crash at {crash}");
        assert_eq!(report.sent(1)[0], 0, "crash at {crash}");
        assert_eq!(report.delivered_at(2), None, "crash at {crash}");
    }

    let mut scenario = base;
    scenario.crashes = vec![(1, 5)];
    let report = run_script(&script, &scenario);
    assert_eq!(lost(&report), vec![(0, 1, 0, 5)]);
    assert_eq!(report.quiescence_latency(), 5);
}

/// PAP §2 / DESIGN §3 (every process may arrive at its own time): a process that has not arrived
/// buffers messages and starts receiving them at its arrival. CT Fig. 5's plain Lamé(3) tree,
/// `P = 9, L = o = 1` (fault-free receive times 1:3, 2:4, 3:5, 4:6, 5:6, 6:7, 7:7, 8:7 — see
/// `sim_lemmas.rs`), with rank 1 arriving at 10: the root's message reaches it at 2, is received
/// during [10, 11) and handed over at 11; rank 1 then sends to 5 at 11 and to 7 at 12, handed
/// over at 14 and 15. Everybody else is unchanged; the coloring latency becomes 15.
#[test]
fn late_arrival_delays_receiving() {
    let t = tree(TreeKind::Lame(3), Order::Interleaved, 9, 1, 1);
    let cfg = config(t, CorrectionSpec::None, StartMode::Synchronized);
    let mut scenario = scenario(1, 1, &[]);
    scenario.arrivals = vec![0, 10, 0, 0, 0, 0, 0, 0, 0];
    let report = run(&cfg, &scenario);
    let got: Vec<Time> = report.delivery_times().map(|d| d.unwrap()).collect();
    assert_eq!(got, vec![0, 11, 4, 5, 6, 14, 7, 15, 7]);
    assert_eq!(report.coloring_latency(), 15);

    // A late root shifts everything: latencies are measured from the root's start.
    scenario.arrivals = vec![5, 0, 0, 0, 0, 0, 0, 0, 0];
    let report = run(&cfg, &scenario);
    assert_eq!(report.root_start, 5);
    let got: Vec<Time> = report.delivery_times().map(|d| d.unwrap()).collect();
    assert_eq!(got, vec![5, 8, 9, 10, 11, 11, 12, 12, 12]);
    assert_eq!(report.coloring_latency(), 7);
    assert_eq!(report.quiescence_latency(), 7);
}

/// PAP §2: buffered messages of a late process are received FIFO from its arrival. `L = 1,
/// o = 1`: ranks 1 and 2 send to rank 3 at 0, which arrives at 20: both messages reach it at 2
/// and are handed over at 21 and 22.
#[test]
fn late_arrival_receives_buffered_messages_fifo() {
    let script = Script::new(4).eager(1, &[3]).eager(2, &[3]);
    let mut scenario = dual(1, 1);
    scenario.arrivals = vec![0, 0, 0, 20];
    let report = run_script(&script, &scenario);
    assert_eq!(messages(&report), vec![(1, 3, 0, 21), (2, 3, 0, 22)]);
}

// ---------------------------------------------------------------------------------------------
// Single-port step model
// ---------------------------------------------------------------------------------------------

/// FTCO §2 / DESIGN §3 (single-port step model, `o = 1`): a message sent at step `t` is in the
/// receiver's queue at `t + L + o` and is handled in one step, handed over at its end. `L = 3`:
/// rank 0 sends to 1 at 0 (queued at 4, handed over at 5); rank 1 forwards to 2 at 5 (queued at
/// 9, handed over at 10).
#[test]
fn single_port_message_timing() {
    let script = Script::new(3).eager(0, &[1]).forward(1, &[2]);
    let report = run_script(&script, &single(3, 1));
    assert_eq!(messages(&report), vec![(0, 1, 0, 5), (1, 2, 5, 10)]);
    assert_eq!(report.quiescence_latency(), 10);
}

/// FTCO §2 (one port: in each step a node either sends or handles one queued message; the
/// default automaton handles the queue first): `L = 3, o = 1`. Rank 1 sends to 2..=7 from step
/// 0; rank 0's message to 1 (sent at 0) is queued at 4, so rank 1 sends at 0, 1, 2, 3, handles the
/// message during step 4 (handed over at 5) and resumes sending at 5 and 6. In dual-port the
/// same script sends at 0..=5 and receives at 5 concurrently.
#[test]
fn single_port_receiving_takes_the_port() {
    let script = Script::new(8).eager(0, &[1]).eager(1, &[2, 3, 4, 5, 6, 7]);
    let report = run_script(&script, &single(3, 1));
    let sends: Vec<Time> = messages(&report)
        .iter()
        .filter(|m| m.0 == 1)
        .map(|m| m.2)
        .collect();
    assert_eq!(sends, vec![0, 1, 2, 3, 5, 6]);
    assert_eq!(report.delivered_at(1), Some(5));

    let report = run_script(&script, &dual(3, 1));
    let sends: Vec<Time> = messages(&report)
        .iter()
        .filter(|m| m.0 == 1)
        .map(|m| m.2)
        .collect();
    assert_eq!(sends, vec![0, 1, 2, 3, 4, 5]);
    assert_eq!(report.delivered_at(1), Some(5));
}

/// FTCO §2: queued messages are handled one per step. `L = 2, o = 1`: ranks 1 and 2 send to 3 at
/// step 0; both are queued at 3 and handed over at 4 and 5.
#[test]
fn single_port_handles_one_message_per_step() {
    let script = Script::new(4).eager(1, &[3]).eager(2, &[3]);
    let report = run_script(&script, &single(2, 1));
    let mut to3: Vec<Time> = messages(&report).iter().map(|m| m.3).collect();
    to3.sort_unstable();
    assert_eq!(to3, vec![4, 5]);
}

/// FTCO §5.2.4 / DESIGN §3 ("the driver supports [arrival patterns] in both models"): in the
/// single-port model a late process also buffers: rank 1 arrives at 10, rank 0's message (sent
/// at 0, `L = 3`) is queued from 4 and handled in step 10, handed over at 11.
#[test]
fn single_port_late_arrival() {
    let script = Script::new(2).eager(0, &[1]);
    let mut scenario = single(3, 1);
    scenario.arrivals = vec![0, 10];
    let report = run_script(&script, &scenario);
    assert_eq!(messages(&report), vec![(0, 1, 0, 11)]);
}

// ---------------------------------------------------------------------------------------------
// Validation and seeded scenarios
// ---------------------------------------------------------------------------------------------

/// DESIGN §2 ("constructors validate parameters and return a typed error"): a crash rank outside
/// `0..P` and an arrivals vector of the wrong length are rejected.
#[test]
fn scenario_validation() {
    let script = Script::new(3).eager(0, &[1]);
    let mut scenario = dual(1, 1);
    scenario.crashes = vec![(3, 0)];
    assert!(ftcoll_sim::run::<Scripted>(&script, 3, &scenario, 1000).is_err());
    let mut scenario = dual(1, 1);
    scenario.arrivals = vec![0, 0];
    assert!(ftcoll_sim::run::<Scripted>(&script, 3, &scenario, 1000).is_err());
}

fn spec(faults: FaultSpec) -> ScenarioSpec {
    ScenarioSpec {
        procs: 1000,
        logp: logp(2, 1),
        model: PortModel::DualPort,
        immune: 1,
        faults,
        crash_at: vec![(7, 30)],
        arrivals: ArrivalSpec::Uniform(50),
        ignored: Default::default(),
    }
}

/// DESIGN §1 ("everything random is seeded; the same inputs and seed give byte-identical
/// outputs"): `ScenarioSpec::build(seed, run)` is a pure function of its inputs, and different
/// seeds or runs draw different faults and arrivals.
#[test]
fn scenario_spec_build_is_deterministic() {
    for faults in [FaultSpec::Rate(0.05), FaultSpec::Count(40)] {
        let s = spec(faults);
        for (seed, run) in [(1u64, 0u64), (1, 7), (42, 0), (u64::MAX, 3)] {
            assert_eq!(s.build(seed, run), s.build(seed, run));
        }
        assert_ne!(s.build(1, 0).unwrap().1, s.build(2, 0).unwrap().1);
        assert_ne!(s.build(1, 0).unwrap().1, s.build(1, 1).unwrap().1);
        assert_ne!(
            s.build(1, 0).unwrap().0.arrivals,
            s.build(2, 0).unwrap().0.arrivals
        );
    }
}

/// The fault specifications (DESIGN §6: non-root, before the operation): `Count(n)` gives `n`
/// distinct non-root ranks, ascending; `Rate(0)` none; `Rate(1)` every non-root rank; `List`
/// exactly the list (sorted); the scenario crashes them at 0 and appends `crash_at`; arrivals
/// `Uniform(s)` lie in `0..=s`. Invalid inputs are typed errors.
#[test]
fn scenario_spec_fault_kinds() {
    let (scenario, faults) = spec(FaultSpec::Count(40)).build(9, 0).unwrap();
    assert_eq!(faults.len(), 40);
    assert!(faults.windows(2).all(|w| w[0] < w[1]));
    assert!(faults.iter().all(|&r| (1..1000).contains(&r)));
    let mut expected: Vec<(Rank, Time)> = faults.iter().map(|&r| (r, 0)).collect();
    expected.push((7, 30));
    assert_eq!(scenario.crashes, expected);
    assert_eq!(scenario.arrivals.len(), 1000);
    assert!(scenario.arrivals.iter().all(|&a| a <= 50));

    assert_eq!(
        spec(FaultSpec::Rate(0.0)).build(3, 0).unwrap().1,
        Vec::<Rank>::new()
    );
    assert_eq!(
        spec(FaultSpec::Rate(1.0)).build(3, 0).unwrap().1,
        (1..1000).collect::<Vec<Rank>>()
    );
    assert_eq!(
        spec(FaultSpec::List(vec![9, 3])).build(3, 0).unwrap().1,
        vec![3, 9]
    );
    assert_eq!(
        spec(FaultSpec::Count(999)).build(3, 0).unwrap().1.len(),
        999
    );
    assert!(matches!(
        spec(FaultSpec::Count(1000)).build(3, 0),
        Err(ScenarioError::TooManyFaults {
            count: 1000,
            max: 999
        })
    ));
    assert!(matches!(
        spec(FaultSpec::Rate(1.5)).build(3, 0),
        Err(ScenarioError::BadRate)
    ));
    assert!(matches!(
        spec(FaultSpec::List(vec![0])).build(3, 0),
        Err(ScenarioError::BadRank { rank: 0, .. })
    ));
    assert!(matches!(
        spec(FaultSpec::List(vec![1000])).build(3, 0),
        Err(ScenarioError::BadRank { rank: 1000, .. })
    ));
    let mut bad = spec(FaultSpec::None);
    bad.crash_at = vec![(0, 3)];
    assert!(matches!(
        bad.build(3, 0),
        Err(ScenarioError::BadRank { rank: 0, .. })
    ));
}

/// The setters set what they name: the port model reaches the scenario, and the fault-immune
/// prefix moves where failures may be drawn and where crashes are refused.
#[test]
fn scenario_setters_set_the_model_and_the_immune_prefix() {
    let logp = ftcoll::topology::LogP::default();
    let spec = ScenarioSpec::new(8, logp)
        .with_model(PortModel::SinglePort)
        .with_immune(3)
        .with_faults(FaultSpec::Count(5));
    let (scenario, failed) = spec.build(1, 0).unwrap();
    assert_eq!(scenario.model, PortModel::SinglePort);
    assert_eq!(failed, [3, 4, 5, 6, 7], "every rank but the immune 0..3");
    let crash_in_prefix = ScenarioSpec::new(8, logp)
        .with_immune(3)
        .with_crash_at(vec![(2, 1)]);
    assert!(matches!(
        crash_in_prefix.build(1, 0),
        Err(ScenarioError::BadRank {
            rank: 2,
            immune: 3,
            ..
        })
    ));
    assert!(ScenarioSpec::new(8, logp)
        .with_immune(0)
        .with_crash_at(vec![(0, 1)])
        .build(1, 0)
        .is_ok());
}

/// DESIGN §1: the same scenario gives an identical report (the whole `Report`, trace included).
#[test]
fn runs_are_deterministic() {
    let t = tree(TreeKind::Lame(2), Order::Interleaved, 500, 2, 1);
    let cfg = config(t, CorrectionSpec::Checked, StartMode::Synchronized);
    let (mut scenario, _) = ScenarioSpec {
        procs: 500,
        ..spec(FaultSpec::Rate(0.05))
    }
    .build(5, 0)
    .unwrap();
    scenario.trace = true;
    assert_eq!(run(&cfg, &scenario), run(&cfg, &scenario));
}

/// DESIGN §3 crash-stop: a process crashing at `c` does nothing at or after `c`, so a crash at
/// `Time::MAX` (the end of time) is no crash: the process takes part, is not counted as
/// crashed, and `Sim::has_crashed` says so. (Kept through the move of crash times out of
/// the process record.)
#[test]
fn a_crash_at_the_end_of_time_is_no_crash() {
    let script = Script::new(4).eager(0, &[1, 2, 3]);
    let mut scenario = dual(3, 2);
    scenario.crashes = vec![(2, Time::MAX)];
    let report = run_script(&script, &scenario);
    assert_eq!(
        messages(&report),
        vec![(0, 1, 0, 7), (0, 2, 2, 9), (0, 3, 4, 11)]
    );
    assert!(!report.crashed(2));
    let sim = ftcoll_sim::Sim::<Scripted>::new(&script, 4, &scenario).expect("valid scenario");
    assert!(!sim.has_crashed(2));
    // A crash before it still counts, the earlier one winning.
    scenario.crashes = vec![(2, Time::MAX), (2, 5)];
    let report = run_script(&script, &scenario);
    assert!(report.crashed(2));
    // Sent at 2, it reaches rank 2 at 2 + o + L = 7, after the crash: lost there.
    assert_eq!(lost(&report), vec![(0, 2, 2, 7)]);
}

// ---------------------------------------------------------------------------------------------
// Single-port: a step whose send slot sends nothing still takes a waiting message
// ---------------------------------------------------------------------------------------------

/// Rank 0 sends rank 1 one message. Rank 1 declines to receive (`select_receive` returns
/// `None`, "I will send instead") unless its send slot has run in the same step, and that slot
/// sends nothing; after it, rank 1 takes the message. FTCO's process does this when its send slot
/// completes the operation: it deferred a receive for a KEEPALIVE that completion cancelled.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Deferring {
    rank: Rank,
    slot_ran_at: Option<Time>,
    sent: bool,
}

impl Automaton for Deferring {
    type Msg = Tag;
    type Value = u64;
    type Config = ();

    fn new(_: &(), rank: Rank) -> Self {
        Self {
            rank,
            slot_ran_at: None,
            sent: false,
        }
    }
    fn on_start(&mut self, _: &(), _: Time, _: &mut Outbox<Tag, u64>) {}
    fn on_message(&mut self, _: &(), _: Time, _: Rank, _: Tag, out: &mut Outbox<Tag, u64>) {
        out.deliver(1);
    }
    fn on_timer(&mut self, _: &(), _: Time, _: TimerId, _: &mut Outbox<Tag, u64>) {}
    fn on_send_slot(&mut self, _: &(), now: Time, out: &mut Outbox<Tag, u64>) {
        self.slot_ran_at = Some(now);
        if self.rank == 0 && !self.sent {
            self.sent = true;
            let tag = Tag {
                index: 0,
                received_before: 0,
            };
            out.send(1, tag);
        }
    }
    fn select_receive(&self, _: &(), now: Time, queue: &[(Rank, Tag)]) -> Option<usize> {
        (self.slot_ran_at == Some(now) && !queue.is_empty()).then_some(0)
    }
}

/// FTCO §2: in each step a process sends one message or handles one. The step at which the
/// message reaches rank 1 (`o + L = 3`) is offered to the send slot, which sends nothing, so
/// the same step takes the message: delivered at 4. Without the second ask the message would
/// wait for an input that never comes and never be delivered.
#[test]
fn single_port_a_step_whose_send_slot_sends_nothing_takes_a_waiting_message() {
    for every_slot in [false, true] {
        let scenario = single(2, 1);
        let mut sim = ftcoll_sim::Sim::<Deferring>::new(&(), 2, &scenario).unwrap();
        if every_slot {
            sim.offer_every_send_slot();
        }
        while sim.next_time().is_some() {
            sim.step(&()).unwrap();
        }
        assert_eq!(
            sim.report().delivered_at(1),
            Some(4),
            "every slot: {every_slot}"
        );
    }
    let report = ftcoll_sim::run::<Deferring>(&(), 2, &single(2, 1), 1 << 10).unwrap();
    assert_eq!(report.delivered_at(1), Some(4));
}
