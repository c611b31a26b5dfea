//! One process's record (its automaton; its port, poll and crash times and its arrival in
//! 32-bit codes) and its pending timers, the first kept in a table of 8 B per process.

use alloc::vec::Vec;

use ftcoll::automaton::{Automaton, TimerId};
use ftcoll::Rank;

use crate::Sim;

/// One process: its automaton and the driver's few words about it, kept together so an event
/// touches one record. What only some runs use lives in [`Sim`]'s side tables: arrival times,
/// timers, and the single-port queues. (With the Corrected Tree node the record is 64 B: 48 B
/// node, 16 B driver.)
#[derive(Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct Process<A> {
    pub(crate) automaton: A,
    /// When its send port frees, when its receive port frees and when its pending send-port
    /// poll is ([`PORT_FREE`], [`RECEIVE_FREE`], [`POLL_AT`]), each a 32-bit [`Sim::time`]
    /// code ([`time_code`]: the time, [`NEVER`], or far: in `Sim::far_times`).
    pub(crate) times: [u32; 3],
    /// Bit 31: the process arrived (`on_start` ran). Bits 0–30: its crash code
    /// ([`Process::crash_code`]): [`NO_CRASH`], [`FAR_CRASH`] (the time is in
    /// `Sim::far_crashes`) or the time itself.
    pub(crate) crash_arrived: u32,
}

/// A copy into an existing record copies the automaton with its `clone_from`, which may reuse
/// its allocations (the model checker's recycled states).
impl<A: Clone> Clone for Process<A> {
    fn clone(&self) -> Self {
        Self {
            automaton: self.automaton.clone(),
            times: self.times,
            crash_arrived: self.crash_arrived,
        }
    }

    fn clone_from(&mut self, source: &Self) {
        let Self {
            automaton,
            times,
            crash_arrived,
        } = self;
        automaton.clone_from(&source.automaton);
        *times = source.times;
        *crash_arrived = source.crash_arrived;
    }
}

/// [`Process::times`] index: when the send port frees.
pub(crate) const PORT_FREE: usize = 0;
/// [`Process::times`] index: when the receive port frees (dual-port LogP).
pub(crate) const RECEIVE_FREE: usize = 1;
/// [`Process::times`] index: the pending send-port poll ([`NEVER`]: none).
pub(crate) const POLL_AT: usize = 2;

/// A 31-bit crash code: the process does not crash.
pub(crate) const NO_CRASH: u32 = (1 << 31) - 1;
/// A 31-bit crash code: the process crashes at a time of 2^31 − 2 or later, kept aside.
pub(crate) const FAR_CRASH: u32 = (1 << 31) - 2;
/// [`Process::crash_arrived`]'s arrived bit.
pub(crate) const ARRIVED_BIT: u32 = 1 << 31;

impl<A> Process<A> {
    pub(crate) fn crash_code(&self) -> u32 {
        self.crash_arrived & !ARRIVED_BIT
    }

    pub(crate) fn set_crash_code(&mut self, code: u32) {
        self.crash_arrived = (self.crash_arrived & ARRIVED_BIT) | code;
    }

    pub(crate) fn arrived(&self) -> bool {
        self.crash_arrived & ARRIVED_BIT != 0
    }
}

/// A pending timer: id and generation. Its firing time is not kept: generations are unique
/// (one per [`Action::SetTimer`] of the run), so the generation alone names the timer, and the
/// timer's event in the queue, which carries the generation, is at that time.
pub(crate) type Timer = (TimerId, u64);

/// A process's first pending timer in 8 B instead of a [`Timer`]'s 16: its id and its
/// generation as a 32-bit code (0: no timer, generations start at 1; kept as a time is,
/// [`time_code`]: a generation of 2^32 − 2 or more is `Sim::far_times`' [`FIRST_TIMER_GENERATION`]
/// entry). (16 B with its time in it; at P = 2^24 the table is 128 MiB.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct FirstTimer {
    id: TimerId,
    pub(crate) generation: u32,
}

/// No timer.
const NO_TIMER: FirstTimer = FirstTimer {
    id: TimerId(0),
    generation: 0,
};

/// `Sim::far_times` field of a far first-timer generation (after the record's three times).
pub(crate) const FIRST_TIMER_GENERATION: usize = 3;

/// A process's pending timers as one list, the first kept inline: most processes have at most
/// one, and a heap list per process would cost an allocation each.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct Timers {
    /// The list's first entry (`None` only when the list is empty).
    first: Option<Timer>,
    /// The rest, in order.
    rest: Vec<Timer>,
}

impl Timers {
    fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.rest.len()
    }

    fn get(&self, i: usize) -> Option<&Timer> {
        if i == 0 {
            self.first.as_ref()
        } else {
            self.rest.get(i - 1)
        }
    }

    pub(crate) fn push(&mut self, t: Timer) {
        if self.first.is_none() {
            self.first = Some(t);
        } else {
            self.rest.push(t);
        }
    }

    pub(crate) fn position(&self, pred: impl Fn(&Timer) -> bool) -> Option<usize> {
        (0..self.len()).find(|&i| self.get(i).is_some_and(&pred))
    }

    /// `Vec::retain` on the list.
    pub(crate) fn retain(&mut self, keep: impl Fn(&Timer) -> bool) {
        self.rest.retain(&keep);
        while let Some(t) = self.first {
            if keep(&t) {
                break;
            }
            self.first = if self.rest.is_empty() {
                None
            } else {
                Some(self.rest.remove(0))
            };
        }
    }

    /// `Vec::swap_remove` on the list.
    pub(crate) fn swap_remove(&mut self, i: usize) -> Timer {
        let last = match self.rest.pop() {
            Some(t) => t,
            None => return self.first.take().expect("timer index in range"),
        };
        if i == 0 {
            self.first.replace(last).expect("timer index in range")
        } else if i - 1 == self.rest.len() {
            last
        } else {
            core::mem::replace(&mut self.rest[i - 1], last)
        }
    }
}

impl<A: Automaton> Sim<A> {
    /// The pending timers of `rank` as one list, taken out of the two side tables (give them
    /// back with [`Sim::put_timers`]).
    pub(crate) fn take_timers(&mut self, rank: Rank) -> Timers {
        let first = self
            .first_timers
            .get_mut(rank as usize)
            .map_or(NO_TIMER, |t| core::mem::replace(t, NO_TIMER));
        if first.generation == 0 {
            return Timers::default();
        }
        // (`put_timers` frees the table if no timer is left pending. Saturating: a deserialized
        // state may hold any count.)
        self.first_timers_pending = self.first_timers_pending.saturating_sub(1);
        let generation = self.decode(rank, FIRST_TIMER_GENERATION, first.generation);
        // The table now says "no timer", whose code holds no far generation.
        self.far_times
            .encode(rank, FIRST_TIMER_GENERATION as u8, first.generation, 0);
        Timers {
            first: Some((first.id, generation)),
            rest: self.more_timers.remove(&rank).unwrap_or_default(),
        }
    }

    pub(crate) fn put_timers(&mut self, rank: Rank, timers: Timers) {
        let Some(first) = timers.first else {
            // Nothing pending: the first timer was taken out already, if the table exists.
            if self.first_timers_pending == 0 {
                self.first_timers = Vec::new();
            }
            return;
        };
        if self.first_timers.is_empty() {
            self.first_timers = alloc::vec![NO_TIMER; self.procs.len()];
        }
        self.first_timers_pending += 1;
        let (id, generation) = first;
        // The slot is empty (`take_timers` emptied it): its code holds no far generation.
        let generation = self
            .far_times
            .encode(rank, FIRST_TIMER_GENERATION as u8, 0, generation);
        self.first_timers[rank as usize] = FirstTimer { id, generation };
        debug_assert!(self.timer_generation > 0, "a timer that was never set");
        if !timers.rest.is_empty() {
            self.more_timers.insert(rank, timers.rest);
        }
    }
}
