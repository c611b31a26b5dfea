//! The whole ring in two phases: the calm pattern everyone sends, then the deciders alone.
//!
//! Until the `K`-th tick (`K` = the calm pattern's length) a corrector can only have heard
//! messages sent at the first few ticks (a message sent at tick `j` is heard at `j + H` at the
//! earliest). When, for every subset of those early messages, the checked sweep still picks
//! the calm pattern's sends (checked once per configuration by [`Phases::new`]), **every**
//! corrector sends exactly the pattern in ticks `0..K`, whatever the failures. Then:
//!
//! - *phase 1* (ticks `< K`) needs no simulation: a process at `p` receives the tick-`j` message
//!   iff `p - shift_j` corrects, alone in its slot (one shift per tick), so its arrivals and
//!   what it hears follow from the kinds of its `R` neighbours on each side;
//! - its receives end by slot `K + lag`, before any later message arrives, so *phase 2* starts
//!   with free receive ports everywhere. Only correctors next to a gap (*deciders*) can still
//!   send (a calm corrector stops at `K` by definition of the pattern); they are simulated
//!   message by message from the state the pattern left them in.
//!
//! The cost is linear in the dark ranks and the deciders' extra messages, not in `P · K`.

use alloc::vec::Vec;

use super::segment::{pick, CalmSend, Outcome, Pattern, CORRECTOR, FAILED, UNCOLORED};
use crate::Time;

/// A corrector next to a gap (marked in the kinds buffer during a run).
const DECIDER: u8 = 4;
/// An uncolored process no phase-1 message reaches (marked during a run).
const UNREACHED: u8 = 5;
const NONE: u32 = u32::MAX;
/// Early messages a configuration may have before the subset check is refused (2^12 cases).
const MAX_EARLY: usize = 12;

/// The configuration's constants, when the two-phase split is exact for it.
#[derive(Clone, Debug)]
pub(crate) struct Phases {
    calm: Vec<CalmSend>,
    /// Arrival slot of a tick-0 send: `1 + ⌊L/o⌋`.
    lag: u32,
    /// A message sent at tick `j` and not queued is heard at tick `j + heard`.
    heard: u32,
    overhead: Time,
    /// `L mod o`: slot `s` is the instant `s·o + L mod o`.
    phase: Time,
    /// The sweep state after the pattern: farthest distances and the next side.
    reached: [u32; 2],
    next: u8,
    /// Whether side index `s` goes toward lower ranks.
    lower: [bool; 2],
}

/// A decider's sweep (side index 0: the first side).
#[derive(Clone, Copy, Debug)]
struct Decider {
    pos: u32,
    reached: [u32; 2],
    next: u8,
    /// Nearest corrector heard from on each side (`NONE`: nobody yet).
    nearest: [u32; 2],
    /// Nearest corrector received from on each side, heard or not yet: a later receive ends
    /// later (FIFO port), so only a nearer one can change what is heard.
    pending: [u32; 2],
}

/// Buffers of [`Phases::simulate`], reused between runs.
#[derive(Clone, Debug, Default)]
pub(crate) struct PhaseScratch {
    deciders: Vec<Decider>,
    /// Decider index of every position (read only where the kinds buffer says `DECIDER`).
    decider_of: Vec<u32>,
    /// Phase-2 receive port of every position: end slot of its last receive (0: none yet).
    port: Vec<u32>,
    /// Positions whose port was written (reset after the run).
    touched: Vec<u32>,
    active: Vec<u32>,
    /// Per tick: `(decider << 32) | (side << 31) | distance` heard at that tick.
    buckets: Vec<Vec<u64>>,
}

impl Phases {
    /// The split for this pattern, or `None` when some corrector could leave the pattern before
    /// its end (then the segment engine is used).
    pub(crate) fn new(
        pattern: &Pattern,
        calm: &[CalmSend],
        latency: Time,
        overhead: Time,
        first_is_left: bool,
    ) -> Option<Self> {
        let lag = 1 + u32::try_from(latency / overhead).ok()?;
        let heard = lag + 1 + u32::from(latency % overhead != 0);
        let k = pattern.sends.len();
        // The early messages: sent at j, heard at j + heard < k.
        let early: Vec<usize> = (0..k).filter(|&j| j + (heard as usize) < k).collect();
        if k == 0 || early.len() > MAX_EARLY {
            return None;
        }
        for subset in 0u32..1 << early.len() {
            let (mut next, mut reached, mut nearest) = (0u8, [0u32; 2], [NONE; 2]);
            for (tick, &send) in pattern.sends.iter().enumerate() {
                for (bit, &j) in early.iter().enumerate() {
                    if subset >> bit & 1 == 1 && j + heard as usize == tick {
                        let (side, distance) = pattern.sends[j];
                        let slot = &mut nearest[usize::from(side ^ 1)];
                        *slot = (*slot).min(distance);
                    }
                }
                if pick(&mut next, &mut reached, nearest, u32::MAX) != Some(send) {
                    return None;
                }
            }
        }
        let (mut next, mut reached) = (0u8, [0u32; 2]);
        for &(side, distance) in &pattern.sends {
            reached[usize::from(side)] = distance;
            next = side ^ 1;
        }
        Some(Self {
            calm: calm.to_vec(),
            lag,
            heard,
            overhead,
            phase: latency % overhead,
            reached,
            next,
            lower: [first_is_left, !first_is_left],
        })
    }

    fn slot_time(&self, slot: u32) -> Time {
        Time::from(slot) * self.overhead + self.phase
    }

    /// Correction on the whole ring of `kinds` (`CORRECTOR`, `UNCOLORED`, `FAILED`; deciders
    /// are marked in it), whose gaps are `runs` (`(start, length)`, ascending, none through
    /// rank 0). The ring must be larger than twice the pattern's reach and at least its total.
    pub(crate) fn simulate(
        &self,
        kinds: &mut [u8],
        runs: &[(usize, usize)],
        others: u32,
        s: &mut PhaseScratch,
    ) -> Outcome {
        let n = kinds.len();
        let k = self.calm.len() as u32;
        let at = |pos: usize, delta: isize| -> usize {
            let t = pos as isize + delta;
            if t < 0 {
                (t + n as isize) as usize
            } else if t >= n as isize {
                (t - n as isize) as usize
            } else {
                t as usize
            }
        };
        let corrects = |kind: u8| kind == CORRECTOR || kind == DECIDER;

        // Deciders in rank order: the correctors on both ends of every gap.
        s.deciders.clear();
        let mut dark = 0usize;
        for &(start, len) in runs {
            dark += len;
            for pos in [start - 1, (start + len) % n] {
                if kinds[pos] != DECIDER {
                    kinds[pos] = DECIDER;
                    s.deciders.push(Decider {
                        pos: pos as u32,
                        reached: self.reached,
                        next: self.next,
                        nearest: [NONE; 2],
                        pending: [NONE; 2],
                    });
                }
            }
        }
        // A gap ending at the last rank has rank 0 as its right decider: it sends first.
        if s.deciders.last().is_some_and(|d| d.pos == 0) {
            s.deciders.rotate_right(1);
        }
        s.decider_of.resize(n, NONE);
        s.port.resize(n, 0);
        for (id, d) in s.deciders.iter().enumerate() {
            s.decider_of[d.pos as usize] = id as u32;
        }
        for b in s.buckets.iter_mut() {
            b.clear();
        }

        let mut out = Outcome {
            contained: true,
            ..Outcome::default()
        };
        let correctors = (n - dark) as u64;
        out.messages = correctors * u64::from(k);
        out.participants = correctors;
        let mut last_send_end = Time::from(k) * self.overhead;

        // Phase 1 at the dark ranks: first receives of the uncolored, arrivals at the failed.
        let (mut colored, mut failed_arrival) = (0u32, 0u32);
        for &(start, len) in runs {
            for p in start..start + len {
                let sends = |c: &CalmSend| corrects(kinds[at(p, -c.shift)]);
                match kinds[p] {
                    UNCOLORED => match self.calm.iter().position(sends) {
                        Some(j) => colored = colored.max(j as u32 + self.lag + 1),
                        None => {
                            kinds[p] = UNREACHED;
                            out.undelivered += 1;
                        }
                    },
                    FAILED => {
                        if let Some(j) = self.calm.iter().rposition(sends) {
                            failed_arrival = failed_arrival.max(j as u32 + self.lag);
                        }
                    }
                    _ => {}
                }
            }
        }
        // Phase 1 at live receivers: the latest tick whose message reaches one of them.
        let mut last_receive = (0..k as usize)
            .rev()
            .find(|&j| {
                let shift = self.calm[j].shift;
                (0..n).any(|p| kinds[p] != FAILED && corrects(kinds[at(p, -shift)]))
            })
            .map_or(0, |j| j as u32 + self.lag + 1);
        // What each decider hears in phase 1 (the pattern's sends from its correcting
        // neighbours), now or later.
        for id in 0..s.deciders.len() {
            let pos = s.deciders[id].pos as usize;
            for (j, c) in self.calm.iter().enumerate() {
                if corrects(kinds[at(pos, -c.shift)]) {
                    let when = j as u32 + self.heard;
                    hear(s, id, c.side ^ 1, c.distance, when, k);
                }
            }
        }

        // Phase 2: the deciders from tick K on, in rank order; ports are free.
        s.active.clear();
        s.active.extend(0..s.deciders.len() as u32);
        let mut active = core::mem::take(&mut s.active);
        let mut tick = k;
        while !active.is_empty() {
            if let Some(bucket) = s.buckets.get_mut(tick as usize) {
                for &d in bucket.iter() {
                    let slot = &mut s.deciders[(d >> 32) as usize].nearest[(d >> 31) as usize & 1];
                    *slot = (*slot).min(d as u32 & 0x7fff_ffff);
                }
                bucket.clear();
            }
            let arrival = tick + self.lag;
            let mut keep = 0;
            for a in 0..active.len() {
                let id = active[a] as usize;
                let d = &mut s.deciders[id];
                let Some((side, distance)) = pick(&mut d.next, &mut d.reached, d.nearest, others)
                else {
                    continue; // stopped for good
                };
                active[keep] = id as u32;
                keep += 1;
                let delta = if self.lower[usize::from(side)] {
                    -(distance as isize)
                } else {
                    distance as isize
                };
                let t = at(d.pos as usize, delta);
                let kind = kinds[t];
                if kind == FAILED {
                    failed_arrival = arrival;
                    continue;
                }
                let port = s.port[t];
                if port == 0 {
                    s.touched.push(t as u32);
                }
                let end = arrival.max(port) + 1;
                s.port[t] = end;
                last_receive = last_receive.max(end);
                if kind == UNREACHED {
                    kinds[t] = UNCOLORED;
                    out.undelivered -= 1;
                    colored = colored.max(end);
                } else if kind == DECIDER {
                    // The receiver hears from the side opposite to the travel direction; this
                    // tick's messages are heard at tick + lag + 1 at the earliest.
                    let at = end + self.heard - self.lag - 1;
                    hear(s, s.decider_of[t] as usize, side ^ 1, distance, at, tick);
                }
            }
            if keep > 0 {
                out.messages += keep as u64;
                last_send_end = Time::from(tick + 1) * self.overhead;
            }
            active.truncate(keep);
            tick += 1;
        }
        s.active = active;
        for &t in &s.touched {
            s.port[t as usize] = 0;
        }
        s.touched.clear();

        out.activity = last_send_end;
        if last_receive > 0 {
            out.activity = out.activity.max(self.slot_time(last_receive));
        }
        if failed_arrival > 0 {
            out.activity = out.activity.max(self.slot_time(failed_arrival));
        }
        if colored > 0 {
            out.colored = Some(self.slot_time(colored));
        }
        out
    }
}

/// Decider `id` receives a message of `distance` from `side`, heard at tick `at`.
fn hear(s: &mut PhaseScratch, id: usize, side: u8, distance: u32, at: u32, now: u32) {
    let d = &mut s.deciders[id];
    let sx = usize::from(side);
    if distance >= d.pending[sx] {
        return; // a nearer one is heard earlier
    }
    d.pending[sx] = distance;
    if at <= now {
        d.nearest[sx] = d.nearest[sx].min(distance);
        return;
    }
    if at as usize >= s.buckets.len() {
        s.buckets.resize_with(at as usize + 1, Vec::new);
    }
    s.buckets[at as usize]
        .push(((id as u64) << 32) | (u64::from(side) << 31) | u64::from(distance));
}
