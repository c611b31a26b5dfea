//! The event loop ([`Sim::step`]) and what each event does: arrivals at a receive port,
//! receive completions, timers, process starts and send-port polls, in that order at one
//! instant (the module documentation of the crate), under dual-port LogP (CT §2.2) or FTCO's
//! single-port step model (FTCO §2, §5.2), and the actions an automaton emits in reply.

use ftcoll::automaton::{Action, Automaton, Message, Phase, TimerId};
use ftcoll::{Rank, Time};

use crate::error::SimError;
use crate::metrics::Report;
use crate::process::{Process, ARRIVED_BIT, POLL_AT, PORT_FREE, RECEIVE_FREE};
use crate::timing::check_send;
use crate::trace::TraceEvent;
use crate::{queue, IgnoredMessages, InFlight, PortModel, Sim, NEVER};

/// Where a message sent travels: in a message slot, or carried by its delivery event.
enum Carried<M> {
    Slot(u32),
    Message(M),
}

/// The input an automaton just reacted to ([`Sim::apply`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Input {
    Start,
    Message,
    Timer,
    SendSlot,
}

/// Events whose records [`Sim::warm`] reads ahead.
const WARM: usize = 16;

/// Event classes in the order they apply at one instant.
const ARRIVE: usize = 0;
const DELIVER: usize = 1;
const TIMER: usize = queue::TIMER_CLASS;
pub(crate) const START: usize = 3;
const POLL: usize = queue::POLL_CLASS;

#[derive(Clone, Copy, Debug)]
struct Event {
    time: Time,
    rank: Rank,
    /// Message slot (ARRIVE, DELIVER), timer generation (TIMER), unused otherwise.
    data: u64,
}

impl Event {
    /// The message slot of an ARRIVE or DELIVER event: the queue holds those as 32 bits
    /// (`Queue::push` takes a `u32`), so the conversion is exact.
    fn slot(&self) -> u32 {
        self.data as u32
    }
}

impl<A: Automaton> Sim<A> {
    /// Applies every event of the next instant (including those it creates at that instant).
    pub fn step(&mut self, config: &A::Config) -> Result<(), SimError> {
        let Some(now) = self.next_time() else {
            return Ok(());
        };
        let mut warm = 0;
        loop {
            if warm == 0 {
                warm = self.warm(now);
            }
            warm -= 1;
            let popped = match self.events.pop(now) {
                None => break,
                Some(popped) => popped,
            };
            self.report.events += 1;
            let result = match popped {
                queue::Popped::Delivery(queue::Delivery { to, from, msg }) => {
                    self.deliver(config, now, to, from, msg, 0)
                }
                queue::Popped::Event(class, rank, data) => {
                    let event = Event {
                        time: now,
                        rank,
                        data,
                    };
                    match class {
                        ARRIVE => {
                            self.on_arrive(config, event);
                            Ok(())
                        }
                        DELIVER => self.on_deliver(config, event),
                        TIMER => self.on_timer(config, event),
                        START => self.on_start(config, event),
                        _ => self.on_poll(config, event),
                    }
                }
            };
            if result.is_err() {
                self.events.finish(now);
                return result;
            }
        }
        self.events.finish(now);
        // What equality relies on (`first_timers`' documentation).
        debug_assert_eq!(self.first_timers.is_empty(), self.first_timers_pending == 0);
        Ok(())
    }

    /// Reads the driver's records of the next [`WARM`] events of instant `now` (process, report
    /// row, message slot) before any of them is applied, so that their cache misses overlap
    /// instead of stalling one event each; returns how many events that covers (at least 1). It
    /// changes nothing.
    fn warm(&mut self, now: Time) -> usize {
        let (class, list) = match self.events.ahead(now) {
            None => return 1,
            Some(queue::Ahead::Entries(class, list)) => (class, list),
            Some(queue::Ahead::Deliveries(deliveries)) => {
                let mut acc: Time = 0;
                let mut n = 0;
                for to in deliveries.first_receivers().take(WARM) {
                    acc ^= Self::touch(&self.procs, &self.report, to);
                    n += 1;
                }
                core::hint::black_box(acc);
                return n.max(1);
            }
        };
        let list = list.take(WARM);
        let mut acc: Time = 0;
        for (rank, data) in list.iter() {
            acc ^= Self::touch(&self.procs, &self.report, rank);
            if class <= DELIVER {
                if let Some(m) = self.slots.get(data as usize) {
                    acc ^= Time::from(m.from);
                }
            }
        }
        core::hint::black_box(acc);
        list.len().max(1)
    }

    /// Reads what an event of `rank` reads and writes first (its record, and its report row:
    /// `Report::record_finish`, `record_delivery`, `record_send`), without changing anything.
    fn touch(procs: &[Process<A>], report: &Report<A::Value>, rank: Rank) -> Time {
        let record = procs
            .get(rank as usize)
            .map_or(0, |p| p.times[PORT_FREE] ^ p.crash_arrived);
        Time::from(record) ^ report.touch(rank)
    }

    /// Takes the message out of `slot`: sender, message and (tracing only, 0 otherwise) send
    /// time. The send time's entry is reset, so that a free slot's entry is 0 whatever it held
    /// before, as a free slot is whatever message it held.
    fn take_slot(&mut self, slot: u32) -> (Rank, A::Msg, Time) {
        let InFlight { from, msg } = self.slots.take(slot as usize).expect("live message slot");
        let sent = self
            .sent_times
            .get_mut(slot as usize)
            .map_or(0, core::mem::take);
        (from, msg, sent)
    }

    /// Whether `to` would read the message in `slot` now ([`Automaton::reads`]).
    fn reads(&self, config: &A::Config, to: Rank, slot: u32) -> bool {
        let InFlight { from, msg } = self.slots.get(slot as usize).expect("live message slot");
        self.procs[to as usize].automaton.reads(config, *from, msg)
    }

    fn on_arrive(&mut self, config: &A::Config, event: Event) {
        let slot = event.slot();
        let to = event.rank;
        let now = event.time;
        if !self.alive(to, now) {
            self.activity(now);
            let (from, msg, sent) = self.take_slot(slot);
            self.report.lost += 1;
            if self.trace {
                self.report.trace.push(TraceEvent::Lost {
                    from,
                    to,
                    sent,
                    at: now,
                    phase: msg.phase(),
                });
            }
            return;
        }
        if self.ignored == IgnoredMessages::Free && !self.reads(config, to, slot) {
            let _ = self.take_slot(slot);
            // On the wire until its receive overhead would have ended, as every message is.
            self.activity(now + self.logp.overhead());
            self.report.unread += 1;
            if self.trace {
                self.trace_ignored(to, now, "dropped unread");
            }
            return;
        }
        self.activity(now);
        let o = self.logp.overhead();
        let arrival = self.arrival(to);
        match self.model {
            PortModel::DualPort => {
                let start = now.max(self.time(to, RECEIVE_FREE)).max(arrival);
                self.set_time(to, RECEIVE_FREE, start + o);
                self.push(start + o, DELIVER, to, slot);
            }
            PortModel::SinglePort => {
                let at = now.max(self.time(to, PORT_FREE)).max(arrival);
                let queue = &mut self.queues[to as usize];
                queue.push_back(slot);
                let waiting = queue.len() as u64;
                self.report.longest_queue = self.report.longest_queue.max(waiting);
                self.schedule_poll(to, at);
            }
        }
    }

    fn on_deliver(&mut self, config: &A::Config, event: Event) -> Result<(), SimError> {
        let (from, msg, sent) = self.take_slot(event.slot());
        self.deliver(config, event.time, event.rank, from, msg, sent)
    }

    /// Hands `msg`, sent by `from` at `sent` (0 unless tracing), to `to` at `now`: the end of
    /// its receive overhead.
    fn deliver(
        &mut self,
        config: &A::Config,
        now: Time,
        to: Rank,
        from: Rank,
        msg: A::Msg,
        sent: Time,
    ) -> Result<(), SimError> {
        self.activity(now);
        if !self.alive(to, now) {
            self.report.lost += 1;
            return Ok(());
        }
        self.process_activity(to, now);
        if self.trace {
            self.report.trace.push(TraceEvent::Message {
                from,
                to,
                sent,
                received: now,
                phase: msg.phase(),
            });
        }
        let phase = msg.phase();
        let p = &mut self.procs[to as usize];
        p.automaton
            .on_message(config, now, from, msg, &mut self.outbox);
        self.apply(config, to, now, Some(phase), Input::Message)
    }

    fn on_timer(&mut self, config: &A::Config, event: Event) -> Result<(), SimError> {
        let (rank, now) = (event.rank, event.time);
        if !self.alive(rank, now) {
            return Ok(());
        }
        let mut timers = self.take_timers(rank);
        // (The generation names the timer; its event is at its time: `Timer`.)
        let found = timers.position(|&(_, generation)| generation == event.data);
        let id = found.map(|index| timers.swap_remove(index).0);
        self.put_timers(rank, timers);
        let Some(id) = id else {
            return Ok(()); // replaced or cancelled
        };
        let p = &mut self.procs[rank as usize];
        p.automaton.on_timer(config, now, id, &mut self.outbox);
        self.apply(config, rank, now, None, Input::Timer)
    }

    fn on_start(&mut self, config: &A::Config, event: Event) -> Result<(), SimError> {
        let (rank, now) = (event.rank, event.time);
        if !self.alive(rank, now) {
            return Ok(());
        }
        let p = &mut self.procs[rank as usize];
        p.crash_arrived |= ARRIVED_BIT;
        if rank == 0 {
            self.report.root_start = now;
        }
        p.automaton.on_start(config, now, &mut self.outbox);
        let result = self.apply(
            config,
            rank,
            now,
            if rank == 0 {
                Some(Phase::Dissemination)
            } else {
                None
            },
            Input::Start,
        );
        if self.model == PortModel::SinglePort && !self.queues[rank as usize].is_empty() {
            self.schedule_poll(rank, now);
        }
        result
    }

    pub(crate) fn schedule_poll(&mut self, rank: Rank, at: Time) {
        let at = at.max(self.time(rank, PORT_FREE));
        let poll_at = self.time(rank, POLL_AT);
        if poll_at <= at && poll_at != NEVER {
            return; // an earlier or equal poll is pending
        }
        self.set_time(rank, POLL_AT, at);
        self.push(at, POLL, rank, 0);
    }

    fn on_poll(&mut self, config: &A::Config, event: Event) -> Result<(), SimError> {
        let (rank, now) = (event.rank, event.time);
        if self.time(rank, POLL_AT) != now {
            return Ok(()); // superseded
        }
        self.set_time(rank, POLL_AT, NEVER);
        if !self.procs[rank as usize].arrived() || self.time(rank, PORT_FREE) > now {
            return Ok(());
        }
        if !self.alive(rank, now) {
            return Ok(());
        }
        if self.model == PortModel::SinglePort && self.receive_in_step(config, rank, now)? {
            return Ok(());
        }
        let p = &mut self.procs[rank as usize];
        p.automaton.on_send_slot(config, now, &mut self.outbox);
        self.apply(config, rank, now, None, Input::SendSlot)?;
        // Single-port: a step whose send slot sent nothing is still free (FTCO §2: a step
        // sends one message or handles one), so a message waiting is offered again; otherwise
        // it would wait for the process's next input, which may never come.
        if self.model == PortModel::SinglePort && self.time(rank, PORT_FREE) <= now {
            self.receive_in_step(config, rank, now)?;
        }
        Ok(())
    }

    /// Single-port: asks `rank`'s automaton which waiting message, if any, it handles in the
    /// step at `now`, and starts that receive; whether it did.
    fn receive_in_step(
        &mut self,
        config: &A::Config,
        rank: Rank,
        now: Time,
    ) -> Result<bool, SimError> {
        let o = self.logp.overhead();
        let queue = &mut self.queues[rank as usize];
        if queue.is_empty() {
            return Ok(false);
        }
        let mut view = core::mem::take(&mut self.queue_view);
        view.extend(queue.iter().map(|&s| {
            let InFlight { from, msg } = self.slots.get(s as usize).expect("queued message");
            (*from, msg.clone())
        }));
        let p = &mut self.procs[rank as usize];
        let chosen = p.automaton.select_receive(config, now, &view);
        view.clear();
        self.queue_view = view;
        let Some(i) = chosen else {
            return Ok(false);
        };
        let Some(slot) = self.queues[rank as usize].remove(i) else {
            return Err(SimError::Contract {
                rank,
                time: now,
                what: "select_receive returned an index outside the queue",
            });
        };
        self.set_time(rank, PORT_FREE, now + o);
        self.push(now + o, DELIVER, rank, slot);
        if self.every_slot {
            self.schedule_poll(rank, now + o);
        }
        // Otherwise the delivery offers the slot (`apply`), knowing the message.
        Ok(true)
    }

    /// Applies the actions an automaton just emitted.
    fn apply(
        &mut self,
        config: &A::Config,
        rank: Rank,
        now: Time,
        cause: Option<Phase>,
        input: Input,
    ) -> Result<(), SimError> {
        let send_slot = input == Input::SendSlot;
        let mut sent = false;
        if !self.outbox.is_empty() {
            self.outbox.start_taking();
            let result = self.apply_actions(rank, now, cause, send_slot, &mut sent);
            if result.is_err() {
                self.outbox.clear();
                return result;
            }
        }
        if sent {
            // The port is busy until `now + o`: offer it again then.
            let at = now + self.logp.overhead();
            self.offer_slot(config, rank, at);
        } else if !send_slot {
            // Something changed: offer a send slot once every input at this instant has been
            // applied (POLL is the last class), or when the port frees.
            let free = self.time(rank, PORT_FREE);
            if free <= now || !self.every_slot {
                // (While the port is busy a slot at `free` is pending, unless it was skipped
                // as idle: then this input may have changed that.) Only after a message or a
                // start is the automaton asked whether the slot is idle: after a timer the
                // slot is rarely idle, and asking costs the automaton a scan
                // (docs/performance.md, FTCO); a start often leaves a process waiting
                // for its first message.
                if input != Input::Timer {
                    self.offer_slot(config, rank, now);
                } else {
                    self.schedule_poll(rank, now);
                }
            }
        }
        Ok(())
    }

    fn apply_actions(
        &mut self,
        rank: Rank,
        now: Time,
        cause: Option<Phase>,
        send_slot: bool,
        sent: &mut bool,
    ) -> Result<(), SimError> {
        // One action at a time out of the outbox, which `send` and the rest leave alone.
        while let Some(action) = self.outbox.pop_next() {
            match action {
                Action::Send { to, msg } => {
                    check_send(rank, to, self.procs.len(), send_slot, *sent, now)?;
                    *sent = true;
                    self.send(rank, to, msg, now)?;
                }
                Action::SetTimer { id, at } => self.set_timer(rank, now, id, at)?,
                Action::CancelTimer { id } => self.cancel_timer(rank, id),
                Action::Deliver(value) => self.report.record_delivery(rank, now, value, cause),
                Action::Complete(value) => self.report.record_completion(rank, now, value),
                Action::Ignored(reason) => {
                    self.report.ignored += 1;
                    if self.trace {
                        self.trace_ignored(rank, now, reason);
                    }
                }
            }
        }
        Ok(())
    }

    // What only some runs do is out of line, so the common actions' path stays short.

    #[inline(never)]
    fn set_timer(&mut self, rank: Rank, now: Time, id: TimerId, at: Time) -> Result<(), SimError> {
        self.timer_generation += 1;
        let generation = self.timer_generation;
        let at = at.max(now);
        let mut timers = self.take_timers(rank);
        timers.retain(|&(t, _)| t != id);
        timers.push((id, generation));
        self.put_timers(rank, timers);
        self.events
            .push_timer(at, rank, generation)
            .map_err(|queue::Full| SimError::Capacity {
                what: "timer events scheduled for one instant",
            })
    }

    #[inline(never)]
    fn cancel_timer(&mut self, rank: Rank, id: TimerId) {
        let mut timers = self.take_timers(rank);
        timers.retain(|&(t, _)| t != id);
        self.put_timers(rank, timers);
    }

    #[cold]
    fn trace_ignored(&mut self, rank: Rank, at: Time, reason: &'static str) {
        self.report.trace.push(TraceEvent::Ignored {
            rank,
            at,
            reason: reason.into(),
        });
    }

    fn send(&mut self, from: Rank, to: Rank, msg: A::Msg, now: Time) -> Result<(), SimError> {
        let logp = self.logp;
        let o = logp.overhead();
        let phase = msg.phase();
        let arrive = now + o + logp.latency();
        // What `on_arrive` would do at `arrive` can be done now when no crash can come between
        // (`run`): the receive port serves messages in arrival order, which is the order they
        // are sent in (every message takes `o + L`), and only `on_arrive` reads
        // `receive_free`. Its `activity(arrive)` is left out: the delivery's own, later,
        // covers it. One event less per message; and without a trace the delivery carries the
        // message itself, so it needs no message slot (32 B instead of a 32 B slot and an 8 B
        // entry with a Corrected Tree message).
        // (Not when an ignored message is free: whether it is read is asked when it arrives.)
        let fold = self.crashes_fixed
            && self.model == PortModel::DualPort
            && self.ignored == IgnoredMessages::Charged
            && self.alive(to, arrive);
        let carried = if fold && !self.trace {
            Carried::Message(msg)
        } else {
            let slot = self.slots.insert(InFlight { from, msg });
            let Ok(slot) = u32::try_from(slot) else {
                self.slots.take(slot);
                return Err(SimError::Capacity {
                    what: "messages in flight",
                });
            };
            if self.trace {
                let index = slot as usize;
                if self.sent_times.len() <= index {
                    self.sent_times.resize(index + 1, 0);
                }
                self.sent_times[index] = now;
            }
            Carried::Slot(slot)
        };
        self.report.record_send(from, now, phase);
        self.set_time(from, PORT_FREE, now + o);
        self.process_activity(from, now + o);
        if fold {
            let arrival = self.arrival(to);
            let start = arrive.max(self.time(to, RECEIVE_FREE)).max(arrival);
            self.set_time(to, RECEIVE_FREE, start + o);
            match carried {
                Carried::Slot(slot) => self.push(start + o, DELIVER, to, slot),
                Carried::Message(msg) => {
                    let delivery = queue::Delivery { to, from, msg };
                    self.events.push_delivery(start + o, delivery);
                }
            }
        } else if let Carried::Slot(slot) = carried {
            // (Not folded: always in a slot.)
            self.push(arrive, ARRIVE, to, slot);
        }
        Ok(())
    }
}
