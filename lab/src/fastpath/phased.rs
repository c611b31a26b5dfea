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
//!   what it hears follow from the kinds of its `R` neighbours on each side: a table of
//!   `2^(2R)` entries built once per configuration;
//! - its receives end by slot `K + lag`, before any later message arrives, so *phase 2* starts
//!   with free receive ports everywhere. Only correctors next to a gap (*deciders*) can still
//!   send (a calm corrector stops at `K` by definition of the pattern);
//! - *phase 2a* (ticks `K .. K + H`): phase-2 messages are heard at `K + H` at the earliest, so a
//!   decider's sends here also follow from its neighbours' kinds (the same table);
//! - *phase 2b* (from `K + H`): the deciders still sending are simulated tick by tick.
//!
//! Phase-2 messages are delivered tick by tick in sender rank order, as the driver delivers them
//! (FIFO receive ports, ties by sender rank). The cost is linear in the dark ranks, the deciders
//! and their phase-2 messages, not in `P · K`. `lab/tests/protocols/fastpath.rs` compares this engine with the
//! driver on small rings and with the segment engine at CT Table 1's scale.

use alloc::vec::Vec;

use super::segment::{
    pick, ring_shift, toward, CalmSend, Heard, Later, Outcome, Pattern, Ticks, CORRECTOR, FAILED,
    UNCOLORED,
};
use ftcoll::Time;

/// A corrector next to a gap (marked in the kinds buffer during a run).
const DECIDER: u8 = 4;
/// An uncolored process no phase-1 message reaches (marked during a run).
const UNREACHED: u8 = 5;
const NONE: u32 = u32::MAX;
/// Early messages a configuration may have before the subset check is refused (2^12 cases).
const MAX_EARLY: usize = 12;
/// Largest pattern reach with a neighbourhood table (`2^(2R)` entries).
const MAX_REACH: u32 = 7;

/// The configuration's constants, when the two-phase split is exact for it.
#[derive(Clone, Debug)]
pub(crate) struct Phases {
    calm: Vec<CalmSend>,
    ticks: Ticks,
    /// `H`: a message sent at tick `j` and not queued is heard at tick `j + H`.
    heard: u32,
    /// The sweep state after the pattern: farthest distances and the next side.
    reached: [u32; 2],
    next: u8,
    /// Whether side index `s` goes toward lower ranks.
    lower: [bool; 2],
    /// The pattern's reach `R`.
    reach: usize,
    /// Phase 1 seen from a position, by which of its `2R` nearest ranks correct (see `around`).
    table: Vec<Neighbourhood>,
    /// Phase-1 messages a decider hears from tick `K + H` on: `(tick, side, distance)`.
    events: Vec<(u32, u8, u32)>,
    /// Phase-2a sends of a decider: `(tick - K, side, distance)`.
    sends: Vec<(u8, u8, u32)>,
}

/// What phases 1 and 2a bring to a decider or a dark position, given which neighbours correct.
#[derive(Clone, Copy, Debug)]
struct Neighbourhood {
    /// A decider's sweep at tick `K + H` (phase 2b starts there).
    start: Sweep,
    /// Whether the decider stopped for good before tick `K + H`.
    stopped: bool,
    /// `[start, end)` in [`Phases::events`]: phase-1 messages heard at `K + H` or later.
    events: (u32, u32),
    /// `[start, end)` in [`Phases::sends`]: the decider's phase-2a sends.
    sends: (u32, u32),
    /// First and last pattern tick whose message reaches the position (`u8::MAX`: none).
    first: u8,
    last: u8,
}

/// A decider's checked sweep (side index 0: the first side).
#[derive(Clone, Copy, Debug)]
struct Sweep {
    reached: [u32; 2],
    next: u8,
    heard: Heard,
}

/// A decider in phase 2.
#[derive(Clone, Copy, Debug)]
struct Decider {
    pos: u32,
    sweep: Sweep,
}

/// Buffers of [`Phases::simulate`], reused between runs.
#[derive(Clone, Debug, Default)]
pub(crate) struct PhaseScratch {
    deciders: Vec<Decider>,
    /// Decider index of every position (read only where the kinds buffer says `DECIDER`).
    decider_of: Vec<u32>,
    /// Phase-2 receive port of every position: end slot of its last receive (0: none yet).
    port: Vec<u32>,
    /// Phase-2b messages, tick after tick ([`packed`]).
    late: Vec<u64>,
    /// One tick's messages to deciders: `(decider, side << 31 | distance, tick heard)`.
    staged: Vec<(u32, u32, u32)>,
    active: Vec<u32>,
    /// What deciders hear at later ticks.
    later: Later,
    /// Phase-2a messages by tick offset, in sender rank order ([`packed`]).
    early: Vec<Vec<u64>>,
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
        u32::try_from(latency / overhead).ok()?.checked_add(1)?;
        let ticks = Ticks::new(latency, overhead);
        let heard = ticks.heard_at(ticks.lag + 1);
        let k = pattern.sends.len();
        // The early messages: sent at j, heard at j + heard < k.
        let early: Vec<usize> = (0..k).filter(|&j| j + (heard as usize) < k).collect();
        if k == 0 || early.len() > MAX_EARLY || pattern.reach > MAX_REACH {
            return None;
        }
        for subset in 0u32..1 << early.len() {
            let (mut next, mut reached, mut heard_now) = (0u8, [0u32; 2], Heard::NOTHING);
            for (tick, &send) in pattern.sends.iter().enumerate() {
                for (bit, &j) in early.iter().enumerate() {
                    if subset >> bit & 1 == 1 && j + heard as usize == tick {
                        let (side, distance) = pattern.sends[j];
                        heard_now.hear(side ^ 1, distance);
                    }
                }
                if pick(&mut next, &mut reached, heard_now.nearest, u32::MAX) != Some(send) {
                    return None;
                }
            }
        }
        let mut phases = Self {
            calm: calm.to_vec(),
            ticks,
            heard,
            reached: pattern.reached,
            next: pattern.next,
            lower: [first_is_left, !first_is_left],
            reach: pattern.reach as usize,
            table: Vec::new(),
            events: Vec::new(),
            sends: Vec::new(),
        };
        for mask in 0..1u32 << (2 * phases.reach) {
            let entry = phases.neighbourhood(mask);
            phases.table.push(entry);
        }
        Some(phases)
    }

    /// Farthest distance a decider reaches on one side by the end of phase 2a: the ring must
    /// be larger than twice this for the table (made without the `P - 1` limit) to be exact.
    pub(crate) fn reach_2a(&self) -> u32 {
        self.reached[0].max(self.reached[1]) + self.heard
    }

    /// Phases 1 and 2a at a position whose correcting neighbours are `mask` (bit `R + δ` for
    /// the position at `δ < 0`, bit `R + δ - 1` for `δ > 0`). The pattern's message of tick
    /// `j` comes from `-shift_j` and, when heard by a decider, is heard at `j + H`; in phase
    /// 2a (ticks `K .. K + H`) a decider hears nothing else, since phase-2 messages are
    /// heard at `K + H` at the earliest.
    fn neighbourhood(&mut self, mask: u32) -> Neighbourhood {
        let k = self.calm.len() as u32;
        let r = self.reach as isize;
        let mut sweep = Sweep {
            reached: self.reached,
            next: self.next,
            heard: Heard::NOTHING,
        };
        let (mut first, mut last) = (u8::MAX, u8::MAX);
        let mut heard = Vec::new();
        for (j, c) in self.calm.iter().enumerate() {
            let from = -c.shift;
            let bit = if from < 0 { r + from } else { r + from - 1 };
            if mask >> bit & 1 == 0 {
                continue;
            }
            first = first.min(j as u8);
            last = j as u8;
            if sweep.heard.receive(c.side ^ 1, c.distance) {
                heard.push((j as u32 + self.heard, c.side ^ 1, c.distance));
            }
        }
        let sends_start = self.sends.len() as u32;
        let mut stopped = false;
        let mut next_heard = 0;
        for tick in k..k + self.heard {
            while next_heard < heard.len() && heard[next_heard].0 <= tick {
                let (_, side, distance) = heard[next_heard];
                sweep.heard.hear(side, distance);
                next_heard += 1;
            }
            match pick(
                &mut sweep.next,
                &mut sweep.reached,
                sweep.heard.nearest,
                u32::MAX,
            ) {
                Some((side, distance)) => self.sends.push(((tick - k) as u8, side, distance)),
                None => {
                    stopped = true; // for good
                    break;
                }
            }
        }
        let events_start = self.events.len() as u32;
        self.events.extend_from_slice(&heard[next_heard..]);
        Neighbourhood {
            start: sweep,
            stopped,
            events: (events_start, self.events.len() as u32),
            sends: (sends_start, self.sends.len() as u32),
            first,
            last,
        }
    }

    /// The table entry of position `p`, from the dark-rank bitset of a ring of `n`.
    fn around(&self, dark: &[u64], n: usize, p: usize) -> &Neighbourhood {
        let r = self.reach;
        let width = 2 * r + 1;
        let raw = if p >= r && p + r < n {
            let (w, b) = ((p - r) / 64, (p - r) % 64);
            let mut x = dark[w] >> b;
            if b + width > 64 {
                x |= dark[w + 1] << (64 - b);
            }
            x
        } else {
            (0..width).fold(0, |acc, i| {
                let q = (p + n - r + i) % n;
                acc | (dark[q / 64] >> (q % 64) & 1) << i
            })
        };
        let corrects = !raw as u32 & ((1 << width) - 1);
        let mask = (corrects & ((1 << r) - 1)) | ((corrects >> (r + 1)) << r);
        &self.table[mask as usize]
    }

    /// Correction on the whole ring of `kinds` (`CORRECTOR`, `UNCOLORED`, `FAILED`; deciders
    /// are marked in it), whose dark ranks are `dark_bits` and gaps `runs` (`(start, length)`,
    /// ascending, none through rank 0). The ring must exceed `4 (R + 1)`, `2 ·`
    /// [`Self::reach_2a`] and the pattern's total.
    pub(crate) fn simulate(
        &self,
        kinds: &mut [u8],
        dark_bits: &[u64],
        runs: &[(usize, usize)],
        others: u32,
        s: &mut PhaseScratch,
    ) -> Outcome {
        let n = kinds.len();
        let k = self.calm.len() as u32;
        let h = self.heard;

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
                        sweep: Sweep {
                            reached: self.reached,
                            next: self.next,
                            heard: Heard::NOTHING,
                        },
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
        s.late.clear();
        s.later.clear();
        s.early.resize_with(h as usize, Vec::new);
        for e in s.early.iter_mut() {
            e.clear();
        }
        // Phases 1 and 2a of every decider from the table: its state at K + H, what it still
        // hears of phase 1 after that, and its phase-2a messages.
        s.active.clear();
        let mut sent_2a = 0u64;
        let mut last_tick_2a = None;
        for id in 0..s.deciders.len() {
            let pos = s.deciders[id].pos as usize;
            let entry = self.around(dark_bits, n, pos);
            s.deciders[id].sweep = entry.start;
            s.decider_of[pos] = id as u32;
            if !entry.stopped {
                s.active.push(id as u32);
            }
            let (a, b) = entry.events;
            for &(when, side, distance) in &self.events[a as usize..b as usize] {
                s.later.push(when, id, side, distance);
            }
            let (a, b) = entry.sends;
            sent_2a += u64::from(b - a);
            for &(offset, side, distance) in &self.sends[a as usize..b as usize] {
                let t = self.target(n, pos, side, distance);
                s.early[usize::from(offset)].push(packed(t, side ^ 1, distance));
                last_tick_2a = last_tick_2a.max(Some(k + u32::from(offset)));
            }
        }

        let correctors = (n - dark) as u64;
        let mut rx = Receivers {
            kinds,
            port: &mut s.port,
            decider_of: &s.decider_of,
            staged: &mut s.staged,
            deciders: &mut s.deciders,
            later: &mut s.later,
            ticks: self.ticks,
            last_receive: 0,
            failed_arrival: 0,
            colored: 0,
            undelivered: 0,
        };

        // Phase 1 at the dark ranks: first receives of the uncolored, arrivals at the failed.
        for &(start, len) in runs {
            for p in start..start + len {
                let entry = self.around(dark_bits, n, p);
                if rx.kinds[p] == FAILED {
                    if entry.last != u8::MAX {
                        rx.failed_arrival = rx
                            .failed_arrival
                            .max(u32::from(entry.last) + self.ticks.lag);
                    }
                } else if entry.first == u8::MAX {
                    rx.kinds[p] = UNREACHED;
                    rx.undelivered += 1;
                } else {
                    rx.colored = rx.colored.max(u32::from(entry.first) + self.ticks.lag + 1);
                }
            }
        }
        // Phase 1 at live receivers: the latest tick whose message reaches one of them.
        let corrects = |kind: u8| kind == CORRECTOR || kind == DECIDER;
        rx.last_receive = (0..k as usize)
            .rev()
            .find(|&j| {
                let from = -self.calm[j].shift;
                (0..n).any(|p| rx.kinds[p] != FAILED && corrects(rx.kinds[ring_shift(n, p, from)]))
            })
            .map_or(0, |j| j as u32 + self.ticks.lag + 1);

        // Phase 2a: the table's messages, tick by tick, each tick in sender rank order.
        for (offset, messages) in s.early.iter().enumerate() {
            rx.deliver(messages, k + offset as u32);
        }

        // Phase 2b: the deciders still sending, from tick K + H on, in rank order.
        let mut active = core::mem::take(&mut s.active);
        let mut sent_2b = 0u64;
        let mut last_tick_2b = None;
        let mut tick = k + h;
        while !active.is_empty() {
            let deciders = &mut *rx.deciders;
            rx.later.take(tick, |id, side, distance| {
                deciders[id].sweep.heard.hear(side, distance)
            });
            let mut keep = 0;
            let first = s.late.len();
            for a in 0..active.len() {
                let id = active[a] as usize;
                let d = &mut rx.deciders[id];
                let sweep = &mut d.sweep;
                let Some((side, distance)) = pick(
                    &mut sweep.next,
                    &mut sweep.reached,
                    sweep.heard.nearest,
                    others,
                ) else {
                    continue; // stopped for good
                };
                active[keep] = id as u32;
                keep += 1;
                let t = self.target(n, d.pos as usize, side, distance);
                s.late.push(packed(t, side ^ 1, distance));
            }
            rx.deliver(&s.late[first..], tick);
            if keep > 0 {
                sent_2b += keep as u64;
                last_tick_2b = Some(tick);
            }
            active.truncate(keep);
            tick += 1;
        }
        s.active = active;

        let mut out = Outcome {
            contained: true,
            messages: correctors * u64::from(k) + sent_2a + sent_2b,
            participants: correctors,
            undelivered: rx.undelivered,
            ..Outcome::default()
        };
        let last_tick = last_tick_2b.or(last_tick_2a).unwrap_or(k - 1);
        out.activity = self.ticks.send_end(last_tick);
        if rx.last_receive > 0 {
            out.activity = out.activity.max(self.ticks.slot_time(rx.last_receive));
        }
        if rx.failed_arrival > 0 {
            out.activity = out.activity.max(self.ticks.slot_time(rx.failed_arrival));
        }
        if rx.colored > 0 {
            out.colored = Some(self.ticks.slot_time(rx.colored));
        }
        // Empty the ports that received.
        for &m in s.early.iter().flatten().chain(&s.late) {
            s.port[(m >> 32) as usize] = 0;
        }
        out
    }

    /// The receiver of a send of `distance` on `side` from `pos`.
    fn target(&self, n: usize, pos: usize, side: u8, distance: u32) -> usize {
        ring_shift(n, pos, toward(self.lower, side, distance))
    }
}

/// Phase-2 receivers: ports, what deciders hear, and the activity, coloring and failed
/// arrivals seen so far.
struct Receivers<'a> {
    kinds: &'a mut [u8],
    port: &'a mut [u32],
    decider_of: &'a [u32],
    staged: &'a mut Vec<(u32, u32, u32)>,
    deciders: &'a mut [Decider],
    later: &'a mut Later,
    ticks: Ticks,
    /// Latest end slot of a receive.
    last_receive: u32,
    /// Latest slot a message reached a failed process.
    failed_arrival: u32,
    /// Latest end slot of a first receive at an uncolored process.
    colored: u32,
    undelivered: u64,
}

impl Receivers<'_> {
    /// The `messages` ([`packed`]) sent at `tick`, in sender rank order. Ticks must come in
    /// order: ports are FIFO with ties by sender rank. What deciders receive is heard at
    /// `tick + H` at the earliest. Written without branches on the receiver's kind (which is
    /// unpredictable); deciders' hearing is staged and handled after.
    fn deliver(&mut self, messages: &[u64], tick: u32) {
        let arrival = tick + self.ticks.lag;
        self.staged.clear();
        self.staged.resize(messages.len(), (0, 0, 0));
        let mut staged = 0;
        for &m in messages {
            let t = (m >> 32) as usize;
            let kind = self.kinds[t];
            let failed = kind == FAILED;
            let port = self.port[t];
            let end = arrival.max(port) + 1;
            self.port[t] = if failed { port } else { end };
            self.last_receive = self.last_receive.max(if failed { 0 } else { end });
            self.failed_arrival = if failed { arrival } else { self.failed_arrival };
            let reached = kind == UNREACHED;
            self.kinds[t] = if reached { UNCOLORED } else { kind };
            self.undelivered -= u64::from(reached);
            self.colored = if reached {
                self.colored.max(end)
            } else {
                self.colored
            };
            self.staged[staged] = (self.decider_of[t], m as u32, self.ticks.heard_at(end));
            staged += usize::from(kind == DECIDER);
        }
        for &(id, side_distance, when) in &self.staged[..staged] {
            let (side, distance) = ((side_distance >> 31) as u8, side_distance & 0x7fff_ffff);
            if self.deciders[id as usize]
                .sweep
                .heard
                .receive(side, distance)
            {
                self.later.push(when, id as usize, side, distance);
            }
        }
    }
}

/// A message to position `t` heard from `side` at `distance`, in one word.
fn packed(t: usize, side: u8, distance: u32) -> u64 {
    (t as u64) << 32 | u64::from(side) << 31 | u64::from(distance)
}
