//! The driver's third timing model: PAP §3.1 (Patarasuk & Yuan), for broadcasts of large
//! messages under process arrival patterns. It runs any [`Automaton`] and fills the same
//! [`Report`] as the LogP models; it knows no protocol, only each message's
//! [`Message::size`].
//!
//! # Timing (PAP §3.1)
//!
//! - **Transfer time.** A message of size `s > 0` takes `T(s) = s` time units once it starts
//!   (sizes are given in time units: `T(a·msize) = a·T(msize)`, no start-up cost). Transfers
//!   between different pairs do not interfere.
//! - **1-port.** A process sends one message and receives one message at a time, and may do
//!   both at once. A second message to a busy receiver waits, FIFO.
//! - **Pipelining.** A message is handed to its receiver when its *first bit* arrives, at the
//!   start of the transfer, so the receiver may forward it at once; a forward that starts at
//!   `S' ≥ S` ends at `S' + s ≥ S + s`, never before the bits it forwards arrived. A linear
//!   chain of ready processes therefore costs `T(s)` in all. Deliveries an automaton reports
//!   while handling a message are recorded at the end of that message's transfer (when the
//!   whole message is there), or at the handover if that is later.
//! - **Control messages** (size 0) cost nothing: no port time, handed over at the instant they
//!   are sent (or at the receiver's arrival).
//! - **Blocking** ([`PapMode::Blocking`]): a transfer starts when the sender is ready (arrived,
//!   send port free), the receiver has arrived and its receive port is free; the sender is
//!   blocked until the transfer ends. **Non-blocking** ([`PapMode::NonBlocking`]): the transfer
//!   starts when the sender is ready and the receive port is free, whether or not the receiver
//!   has arrived; the message is buffered there and handed over at the receiver's arrival, at
//!   no cost. In both models a process must arrive before it sends or forwards anything.
//! - **Exit times.** `Report::finish[i]` is `f_i` of PAP §2: the later of `i`'s arrival and the
//!   end of its last send or receive after its arrival. A message buffered before `i` arrived
//!   costs `i` nothing.
//!
//! # Simultaneous events
//!
//! At one instant: transfer ends (ports freed), then handovers, then timers, then arrivals
//! (`on_start`, then the messages buffered for the process, in arrival order), then crashes,
//! then send-port polls, rank 0's last; within a class in creation order. Rank 0, the source,
//! polls last so that it decides on every control message of the instant: processes that
//! arrive together with it are then treated as if they had arrived just before it, and no
//! arrival made later can make a broadcast faster by more than the delay itself
//! (`sim/tests/protocols/pap_theorems.rs`). Events created at an instant for that instant run in
//! the same instant (a chain of forwards completes its handovers at one instant).
//!
//! # Crash-stop
//!
//! A process crashing at `c` does nothing at or after `c`. A transfer it started earlier is
//! delivered; one it had asked for that had not started yet (a blocked or queued send) never
//! happens. A transfer to it that would start at `t ≥ c` is lost: its sender is busy `T(s)`
//! and the message vanishes (counted in `Report::lost`). Blocked senders waiting for a process
//! that crashes are released as lost at the crash. A process that crashes while a message is
//! still arriving does not deliver it (a delivery is recorded when the whole message is
//! there). Arrival and crash times must be below `Time::MAX`, which means "never".

use alloc::collections::{BTreeMap, BinaryHeap, VecDeque};
use alloc::vec::Vec;
use core::cmp::Reverse;

use crate::error::SimError;
use crate::metrics::Report;
use crate::timing::{check_faults, check_send, TimingModel};
use ftcoll::automaton::{Action, Automaton, Message, Outbox, TimerId};
use ftcoll::{Rank, Time};

pub use ftcoll::topology::PapMode;

/// One run under PAP's model: the mode, the arrival pattern and crashes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PapScenario {
    /// Blocking or non-blocking.
    pub mode: PapMode,
    /// `a_i`, the arrival time of each process (empty: everyone at 0). PAP §3.1 assumes the
    /// root arrives first; an earlier receiver simply waits for the root's messages.
    pub arrivals: Vec<Time>,
    /// `(rank, time)`: the rank crashes at `time` (PAP assumes none).
    pub crashes: Vec<(Rank, Time)>,
}

impl TimingModel for PapScenario {
    fn arrivals(&self) -> &[Time] {
        &self.arrivals
    }

    fn crashes(&self) -> &[(Rank, Time)] {
        &self.crashes
    }

    fn run<A: Automaton>(
        &self,
        config: &A::Config,
        procs: u32,
        max_events: u64,
    ) -> Result<Report<A::Value>, SimError> {
        run::<A>(config, procs, self, max_events)
    }
}

const NEVER: Time = Time::MAX;

/// Event classes in the order they apply at one instant.
const END: u8 = 0;
const HAND: u8 = 1;
const TIMER: u8 = 2;
const START: u8 = 3;
const CRASH: u8 = 4;
const POLL: u8 = 5;
/// Rank 0's send-port poll: after every other process's at the instant, so the source of the
/// collective acts on every control message sent at that instant (they are free and handed
/// over at once), as if the processes arriving with it had come just before.
const ROOT_POLL: u8 = 6;

/// `(time, class, creation order, rank, data)`.
type Event = (Time, u8, u64, Rank, u64);

struct Transfer<M> {
    from: Rank,
    to: Rank,
    msg: Option<M>,
    start: Time,
    end: Time,
    lost: bool,
}

struct Proc<A> {
    automaton: A,
    arrival: Time,
    crash: Time,
    arrived: bool,
    /// A data send is in progress or blocked: the send port is taken.
    sending: bool,
    /// A data message is being received.
    receiving: bool,
    /// Data transfers waiting for the receive port (and, blocking, for the arrival).
    waiting: VecDeque<usize>,
    /// Messages that reached the process before it arrived, handed over at its arrival.
    buffered: Vec<usize>,
    /// A poll is scheduled at this instant.
    poll_at: Time,
    timers: Vec<(TimerId, Time, u64)>,
}

/// Runs one operation of `P = procs` processes of automaton `A` under PAP's model to
/// quiescence. `max_events` bounds the work ([`SimError::EventBudget`]).
pub fn run<A: Automaton>(
    config: &A::Config,
    procs: u32,
    scenario: &PapScenario,
    max_events: u64,
) -> Result<Report<A::Value>, SimError> {
    check_faults::<A>(config, procs, &scenario.arrivals, &scenario.crashes)?;
    let mut run = Run::<A> {
        mode: scenario.mode,
        procs: (0..procs)
            .map(|rank| Proc {
                automaton: A::new(config, rank),
                arrival: scenario.arrivals.get(rank as usize).copied().unwrap_or(0),
                crash: NEVER,
                arrived: false,
                sending: false,
                receiving: false,
                waiting: VecDeque::new(),
                buffered: Vec::new(),
                poll_at: NEVER,
                timers: Vec::new(),
            })
            .collect(),
        transfers: Vec::new(),
        events: BinaryHeap::new(),
        seq: 0,
        outbox: Outbox::new(),
        report: Report::new(procs),
        timer_generation: 0,
        delivering: None,
    };
    for &(rank, time) in &scenario.crashes {
        // Every rank is below `P`: `check_faults` above.
        let p = &mut run.procs[rank as usize];
        p.crash = p.crash.min(time);
    }
    let mut crashes = BTreeMap::new();
    for (rank, p) in run.procs.iter().enumerate() {
        run.report.set_crashed(rank as Rank, p.crash != NEVER);
        if p.crash != NEVER {
            crashes.insert(rank as Rank, p.crash);
        }
    }
    run.report.root_start = run.procs.first().map_or(0, |p| p.arrival);
    for rank in 0..procs {
        let arrival = run.procs[rank as usize].arrival;
        run.push(arrival, START, rank, 0);
    }
    for (rank, at) in crashes {
        run.push(at, CRASH, rank, 0);
    }
    while let Some(Reverse((now, class, _, rank, data))) = run.events.pop() {
        run.report.events += 1;
        if run.report.events > max_events {
            return Err(SimError::EventBudget {
                events: run.report.events,
            });
        }
        run.apply(config, now, class, rank, data)?;
    }
    Ok(run.report)
}

struct Run<A: Automaton> {
    mode: PapMode,
    procs: Vec<Proc<A>>,
    transfers: Vec<Transfer<A::Msg>>,
    /// `(time, class, creation order, rank, data)`, earliest first.
    events: BinaryHeap<Reverse<Event>>,
    seq: u64,
    outbox: Outbox<A::Msg, A::Value>,
    report: Report<A::Value>,
    timer_generation: u64,
    /// The transfer being handed over: deliveries are recorded at its end.
    delivering: Option<Time>,
}

impl<A: Automaton> Run<A> {
    fn push(&mut self, time: Time, class: u8, rank: Rank, data: u64) {
        self.seq += 1;
        self.events
            .push(Reverse((time, class, self.seq, rank, data)));
    }

    fn alive(&self, rank: Rank, time: Time) -> bool {
        time < self.procs[rank as usize].crash
    }

    /// Activity of an arrived process (its exit time `f_i` grows).
    fn activity(&mut self, rank: Rank, time: Time) {
        self.report.last_activity = self.report.last_activity.max(time);
        if self.procs[rank as usize].arrived {
            self.report.record_finish(rank, time);
        }
    }

    fn schedule_poll(&mut self, rank: Rank, at: Time) {
        if self.procs[rank as usize].poll_at != at {
            self.procs[rank as usize].poll_at = at;
            self.push(at, if rank == 0 { ROOT_POLL } else { POLL }, rank, 0);
        }
    }

    fn apply(
        &mut self,
        config: &A::Config,
        now: Time,
        class: u8,
        rank: Rank,
        data: u64,
    ) -> Result<(), SimError> {
        match class {
            END => self.end(now, data as usize),
            CRASH => self.crash(now, rank),
            _ if !self.alive(rank, now) => {}
            START => {
                self.procs[rank as usize].arrived = true;
                self.activity(rank, now);
                self.procs[rank as usize]
                    .automaton
                    .on_start(config, now, &mut self.outbox);
                self.flush(rank, now)?;
                for id in core::mem::take(&mut self.procs[rank as usize].buffered) {
                    self.push(now, HAND, rank, id as u64);
                }
                // Blocking: transfers waiting for this arrival may start now.
                self.try_receive(rank, now);
                self.schedule_poll(rank, now);
            }
            HAND => {
                let id = data as usize;
                let Some(msg) = self.transfers[id].msg.take() else {
                    return Ok(());
                };
                let from = self.transfers[id].from;
                self.delivering = Some(self.transfers[id].end.max(now));
                self.procs[rank as usize].automaton.on_message(
                    config,
                    now,
                    from,
                    msg,
                    &mut self.outbox,
                );
                let result = self.flush(rank, now);
                self.delivering = None;
                result?;
                self.schedule_poll(rank, now);
            }
            TIMER => {
                let p = &mut self.procs[rank as usize];
                let Some(i) = p.timers.iter().position(|t| t.2 == data) else {
                    return Ok(());
                };
                let (id, _, _) = p.timers.swap_remove(i);
                p.automaton.on_timer(config, now, id, &mut self.outbox);
                self.flush(rank, now)?;
                self.schedule_poll(rank, now);
            }
            _ => {
                // POLL
                let p = &mut self.procs[rank as usize];
                if p.poll_at == now {
                    p.poll_at = NEVER;
                }
                if !p.arrived || p.sending {
                    return Ok(());
                }
                p.automaton.on_send_slot(config, now, &mut self.outbox);
                self.flush_slot(rank, now)?;
            }
        }
        Ok(())
    }

    /// Applies a handler's actions; a send outside the send slot breaks the contract.
    fn flush(&mut self, rank: Rank, now: Time) -> Result<(), SimError> {
        self.flush_inner(rank, now, false)
    }

    fn flush_slot(&mut self, rank: Rank, now: Time) -> Result<(), SimError> {
        self.flush_inner(rank, now, true)
    }

    fn flush_inner(&mut self, rank: Rank, now: Time, slot: bool) -> Result<(), SimError> {
        // The actions are taken one at a time, as the LogP driver takes them (`Sim::apply`):
        // the outbox keeps its allocation, so no handler call allocates.
        self.outbox.start_taking();
        let result = self.apply_actions(rank, now, slot);
        if result.is_err() {
            self.outbox.clear();
        }
        result
    }

    fn apply_actions(&mut self, rank: Rank, now: Time, slot: bool) -> Result<(), SimError> {
        let mut sent = false;
        while let Some(action) = self.outbox.pop_next() {
            match action {
                Action::Send { to, msg } => {
                    check_send(rank, to, self.procs.len(), slot, sent, now)?;
                    sent = true;
                    self.send(rank, to, msg, now);
                }
                Action::SetTimer { id, at } => {
                    self.timer_generation += 1;
                    let generation = self.timer_generation;
                    let p = &mut self.procs[rank as usize];
                    p.timers.retain(|t| t.0 != id);
                    p.timers.push((id, at.max(now), generation));
                    self.push(at.max(now), TIMER, rank, generation);
                }
                Action::CancelTimer { id } => {
                    self.procs[rank as usize].timers.retain(|t| t.0 != id);
                }
                Action::Deliver(value) => {
                    let at = self.delivering.unwrap_or(now).max(now);
                    // A process that crashes before the whole message is there never has it.
                    if self.alive(rank, at) {
                        self.report.record_delivery(rank, at, value, None);
                        self.activity(rank, at);
                    }
                }
                Action::Complete(value) => self.report.record_completion(rank, now, value),
                Action::Ignored(_) => self.report.ignored += 1,
            }
        }
        Ok(())
    }

    fn send(&mut self, from: Rank, to: Rank, msg: A::Msg, now: Time) {
        self.report.record_send(from, now, msg.phase());
        let size = msg.size();
        let id = self.transfers.len();
        self.transfers.push(Transfer {
            from,
            to,
            msg: Some(msg),
            start: NEVER,
            end: NEVER,
            lost: false,
        });
        if size == 0 {
            // A control message: free, at once (or at the receiver's arrival).
            self.transfers[id].start = now;
            self.transfers[id].end = now;
            self.arrive(id, now);
            self.schedule_poll(from, now);
            return;
        }
        self.procs[from as usize].sending = true;
        self.procs[to as usize].waiting.push_back(id);
        self.try_receive(to, now);
    }

    /// A message's first bit reached `to` (or it was lost there).
    fn arrive(&mut self, id: usize, now: Time) {
        let to = self.transfers[id].to;
        if !self.alive(to, now) {
            self.transfers[id].lost = true;
            self.transfers[id].msg = None;
            self.report.lost += 1;
            return;
        }
        if self.procs[to as usize].arrived {
            self.push(now, HAND, to, id as u64);
        } else {
            self.procs[to as usize].buffered.push(id);
        }
    }

    /// Starts the next waiting transfer to `to` if its receive port is free.
    fn try_receive(&mut self, to: Rank, now: Time) {
        loop {
            let p = &self.procs[to as usize];
            if p.receiving {
                return;
            }
            let dead = !self.alive(to, now);
            let ready = dead || p.arrived || self.mode == PapMode::NonBlocking;
            if !ready {
                return;
            }
            let Some(id) = self.procs[to as usize].waiting.pop_front() else {
                return;
            };
            let from = self.transfers[id].from;
            if !self.alive(from, now) {
                // The sender crashed before the transfer could start: it never happens.
                self.transfers[id].msg = None;
                self.transfers[id].lost = true;
                self.procs[from as usize].sending = false;
                continue;
            }
            let size = self.transfers[id].msg.as_ref().map_or(0, Message::size);
            let t = &mut self.transfers[id];
            t.start = now;
            t.end = now.saturating_add(size);
            let end = t.end;
            self.push(end, END, to, id as u64);
            self.arrive(id, now);
            if !dead {
                self.procs[to as usize].receiving = true;
            }
        }
    }

    fn end(&mut self, now: Time, id: usize) {
        let (from, to, lost) = {
            let t = &self.transfers[id];
            (t.from, t.to, t.lost)
        };
        self.procs[from as usize].sending = false;
        if self.alive(from, now) {
            self.activity(from, now);
            self.schedule_poll(from, now);
        } else {
            self.report.last_activity = self.report.last_activity.max(now);
        }
        if !lost {
            self.procs[to as usize].receiving = false;
            if self.alive(to, now) {
                self.activity(to, now);
            }
        }
        self.try_receive(to, now);
    }

    /// A crash: every transfer still waiting for this process is lost now.
    fn crash(&mut self, now: Time, rank: Rank) {
        self.procs[rank as usize].receiving = false;
        self.try_receive(rank, now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;
    use ftcoll::automaton::Phase;

    /// A linear chain `0 → 1 → … → P−1` of one message of size 10 (PAP §3.1: forwarding
    /// starts with the first bit).
    #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    struct Chain {
        rank: Rank,
        has: bool,
        sent: bool,
    }

    #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    struct Data;

    impl Message for Data {
        fn phase(&self) -> Phase {
            Phase::Dissemination
        }
        fn size(&self) -> u64 {
            10
        }
    }

    impl Automaton for Chain {
        type Msg = Data;
        type Value = u64;
        type Config = u32;
        fn new(_: &u32, rank: Rank) -> Self {
            Self {
                rank,
                has: rank == 0,
                sent: false,
            }
        }
        fn on_start(&mut self, _: &u32, _: Time, out: &mut Outbox<Data, u64>) {
            if self.rank == 0 {
                out.deliver(1);
            }
        }
        fn on_message(&mut self, _: &u32, _: Time, _: Rank, _: Data, out: &mut Outbox<Data, u64>) {
            self.has = true;
            out.deliver(1);
        }
        fn on_timer(&mut self, _: &u32, _: Time, _: TimerId, _: &mut Outbox<Data, u64>) {}
        fn on_send_slot(&mut self, procs: &u32, _: Time, out: &mut Outbox<Data, u64>) {
            if self.has && !self.sent && self.rank + 1 < *procs {
                self.sent = true;
                out.send(self.rank + 1, Data);
            }
        }
    }

    fn chain(mode: PapMode, arrivals: Vec<Time>) -> Report<u64> {
        let procs = if arrivals.is_empty() {
            5
        } else {
            arrivals.len() as u32
        };
        let scenario = PapScenario {
            mode,
            arrivals,
            crashes: Vec::new(),
        };
        run::<Chain>(&procs, procs, &scenario, 1 << 20).expect("run")
    }

    #[test]
    fn a_pipelined_chain_of_ready_processes_costs_one_message_time() {
        for mode in [PapMode::Blocking, PapMode::NonBlocking] {
            let r = chain(mode, Vec::new());
            // Every transfer starts at 0 and ends at T = 10.
            assert_eq!(
                r.delivery_times().skip(1).collect::<Vec<_>>(),
                [Some(10); 4]
            );
            assert_eq!(r.finish_times().collect::<Vec<_>>(), [10; 5]);
        }
    }

    #[test]
    fn blocking_waits_for_the_receiver_non_blocking_buffers() {
        // Rank 2 arrives at 100.
        let arrivals = vec![0, 0, 100, 0, 0];
        let b = chain(PapMode::Blocking, arrivals.clone());
        // 0→1 at [0, 10); 1→2 waits for 2's arrival: [100, 110); 2→3 and 3→4 pipelined.
        assert_eq!(b.delivered_at(1), Some(10));
        assert_eq!(
            b.delivery_times().skip(2).collect::<Vec<_>>(),
            [Some(110); 3]
        );
        assert_eq!(
            b.finish_times().collect::<Vec<_>>(),
            [10, 110, 110, 110, 110]
        );
        let nb = chain(PapMode::NonBlocking, arrivals);
        // 1→2 is buffered during [0, 10); 2 reads it at 100 and forwards [100, 110).
        assert_eq!(nb.delivered_at(2), Some(100));
        assert_eq!(
            nb.delivery_times().skip(3).collect::<Vec<_>>(),
            [Some(110); 2]
        );
        assert_eq!(
            nb.finish_times().collect::<Vec<_>>(),
            [10, 10, 110, 110, 110]
        );
    }

    #[test]
    fn a_send_queued_by_a_process_that_then_crashes_never_happens() {
        // Blocking: 0 waits for 1, which arrives at 100; 0 crashes at 50.
        let scenario = PapScenario {
            mode: PapMode::Blocking,
            arrivals: vec![0, 100],
            crashes: vec![(0, 50)],
        };
        let r = run::<Chain>(&2, 2, &scenario, 1 << 20).expect("run");
        assert_eq!(r.delivery_times().collect::<Vec<_>>(), [Some(0), None]);
        assert_eq!(r.finish(1), 100);
    }

    #[test]
    fn a_receiver_crashing_mid_transfer_does_not_deliver_but_its_pipelined_forward_does() {
        // 0→1 over [0, 10); 1 forwards to 2 from 0 (first bit) and crashes at 5.
        let scenario = PapScenario {
            mode: PapMode::Blocking,
            arrivals: Vec::new(),
            crashes: vec![(1, 5)],
        };
        let r = run::<Chain>(&3, 3, &scenario, 1 << 20).expect("run");
        assert_eq!(
            r.delivery_times().collect::<Vec<_>>(),
            [Some(0), None, Some(10)]
        );
    }

    #[test]
    fn a_message_to_a_crashed_process_is_lost_and_costs_the_sender() {
        let scenario = PapScenario {
            mode: PapMode::Blocking,
            arrivals: Vec::new(),
            crashes: vec![(2, 0)],
        };
        let r = run::<Chain>(&5, 5, &scenario, 1 << 20).expect("run");
        assert_eq!(r.lost, 1);
        assert_eq!(r.delivery_times().skip(2).collect::<Vec<_>>(), [None; 3]);
        assert_eq!(r.finish(1), 10);
        assert_eq!(r.last_activity, 10);
    }
}
