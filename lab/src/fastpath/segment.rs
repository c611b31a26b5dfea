//! The correction phase of synchronized checked correction on a run of ring positions.
//!
//! Every corrector starts at the synchronized instant `D` (relative time `τ = 0`) and sends at
//! `τ = 0, o, 2o, …` until its checked stop rule ends it for good, so the phase is simulated in
//! ticks of `o`. A message sent at tick `k` reaches its receiver at `k·o + o + L`; the receive
//! port is FIFO (`o` per message) and messages reaching one port at one instant are taken in
//! sender rank order, exactly as the generic driver does (sends of one instant are made in rank
//! order). A corrector's poll at tick `k` sees every delivery that ended at or before `k·o`.
//!
//! A *segment* is either the whole ring or a window of it with `R` phantom correctors on each
//! side that replay the fault-free pattern (see the module documentation of `fastpath`).

use alloc::vec;
use alloc::vec::Vec;
use core::ops::Range;

use ftcoll::protocols::correction::{alternate, checked_next};
use ftcoll::Time;

/// A live process colored by the tree: it corrects.
pub(crate) const CORRECTOR: u8 = 0;
/// A live process the tree did not reach.
pub(crate) const UNCOLORED: u8 = 1;
/// A process failed before the operation.
pub(crate) const FAILED: u8 = 2;
/// A corrector outside the window that replays the fault-free pattern.
pub(crate) const PHANTOM: u8 = 3;

const NONE: u32 = u32::MAX;

/// What a segment's processes did (times relative to `D`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct Outcome {
    /// Correction messages sent by the segment's correctors (phantoms excluded).
    pub messages: u64,
    /// Segment correctors that sent at least one correction message.
    pub participants: u64,
    /// Latest activity: end of a send or of a receive, or a message reaching a failed process.
    pub activity: Time,
    /// Latest first delivery of an uncolored process, if any was colored.
    pub colored: Option<Time>,
    /// Uncolored processes never reached.
    pub undelivered: u64,
    /// Whether every message of a non-calm corrector stayed inside the window.
    pub contained: bool,
}

/// The fault-free (calm) pattern of one corrector: `(side index, distance)` of its `k`-th
/// send, made at tick `k`. Side index 0 is the first side.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Pattern {
    pub sends: Vec<(u8, u32)>,
    /// Largest distance on either side.
    pub reach: u32,
    /// Distances covered on both sides together.
    pub total: u64,
    /// The sweep after the pattern: farthest distance on each side, and the side it would try
    /// next.
    pub reached: [u32; 2],
    pub next: u8,
}

/// A corrector that decides (it has a non-corrector neighbour): its checked sweep is simulated.
#[derive(Clone, Copy, Debug)]
struct Decider {
    /// Its position.
    pos: u32,
    /// Farthest distance sent to on each side (side index 0: the first side).
    reached: [u32; 2],
    /// What it heard, and received but not heard yet.
    heard: Heard,
    /// First tick whose calm arrival at this decider is not applied yet.
    cursor: u32,
    /// Side index of the next send.
    next: u8,
}

/// How a position receives.
const NOT_BULK: u8 = 0;
/// A calm corrector or an uncolored process: its receive port is updated in bulk.
const BULK_LIVE: u8 = 1;
/// A failed process: only the arrival instants count.
const BULK_FAILED: u8 = 2;

/// Scratch buffers reused between segments.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scratch {
    /// 1 where the position replays the calm pattern (calm corrector or phantom).
    sender: Vec<u8>,
    /// `NOT_BULK`, `BULK_LIVE` or `BULK_FAILED`.
    recv: Vec<u8>,
    /// Receive port of every position: end slot of its last receive (0: none yet).
    port: Vec<u32>,
    /// End slot of the first receive (read for uncolored processes only).
    first: Vec<u32>,
    /// Decider index of every position (`NONE`: not a decider).
    decider_of: Vec<u32>,
    deciders: Vec<Decider>,
    /// Deciders still sending, in rank order.
    active: Vec<u32>,
    /// This tick's messages to deciders: `(decider, sender position, side heard, distance)`.
    to_deciders: Vec<(u32, u32, u8, u32)>,
    /// What deciders hear at later ticks.
    later: Later,
}

/// One segment to simulate.
pub(crate) struct Segment<'a> {
    /// Kinds of the positions, phantoms included.
    pub kinds: &'a [u8],
    /// Phantom positions on each side (0 for the whole ring).
    pub phantoms: usize,
    /// The whole ring: positions wrap around.
    pub circular: bool,
    /// Position of the lowest rank: sends of one tick are made from here on, wrapping.
    pub order_start: usize,
    /// `P - 1`: a corrector never covers more ranks than that over both sides.
    pub others: u32,
    /// `o`.
    pub overhead: Time,
    /// `L`.
    pub latency: Time,
    /// Whether the first side is toward lower positions (CT: left).
    pub first_is_left: bool,
    /// The calm pattern seen from the receiver ([`calm_sends`]).
    pub calm: &'a [CalmSend],
}

/// One tick of the calm pattern seen from the receiver: the sender sits at `receiver - shift`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CalmSend {
    pub shift: isize,
    pub side: u8,
    pub distance: u32,
}

/// The read-only context of one simulation.
struct Run<'p> {
    n: usize,
    circular: bool,
    order_start: usize,
    ticks: Ticks,
    calm: &'p [CalmSend],
}

impl Run<'_> {
    /// Position `pos + delta` in the segment, if any.
    fn shifted(&self, pos: usize, delta: isize) -> Option<usize> {
        if self.circular {
            Some(ring_shift(self.n, pos, delta))
        } else {
            let t = pos as isize + delta;
            (0..self.n as isize).contains(&t).then_some(t as usize)
        }
    }

    /// Rank order of a position: sends of one tick are made in this order.
    fn rank(&self, pos: usize) -> usize {
        if pos >= self.order_start {
            pos - self.order_start
        } else {
            pos + self.n - self.order_start
        }
    }
}

impl Segment<'_> {
    /// Simulates the correction phase.
    ///
    /// Calm correctors send the fixed calm pattern, so their messages are applied in bulk, one
    /// pass over the positions per tick of the pattern; only deciders are simulated message by
    /// message. Within a tick the order of receives matters only at deciders (which distance is
    /// heard first), so a calm arrival at a decider is applied in rank order with the deciders'
    /// messages of its tick (`calm_arrival`).
    pub(crate) fn simulate(&self, pattern: &Pattern, s: &mut Scratch) -> Outcome {
        let n = self.kinds.len();
        let o = self.overhead;
        let window = self.phantoms..n - self.phantoms;
        let lower = [self.first_is_left, !self.first_is_left];
        let calm = self.calm;
        let run = Run {
            n,
            circular: self.circular,
            order_start: self.order_start,
            ticks: Ticks::new(self.latency, o),
            calm,
        };

        // Who replays the pattern, who decides, who receives in bulk (branch-free passes).
        // The calm pattern is exact for calm correctors when its sweep fits in the ring.
        let fits = pattern.total <= u64::from(self.others);
        s.sender.clear();
        s.sender.resize(n, 0);
        s.recv.clear();
        s.recv.resize(n, NOT_BULK);
        s.port.clear();
        s.port.resize(n, 0);
        s.first.clear();
        s.first.resize(n, 0);
        // Read only at deciders, where it is set below: no need to clear it.
        s.decider_of.resize(n, NONE);
        let corrects = |k: u8| k == CORRECTOR || k == PHANTOM;
        let classify = |left: u8, me: u8, right: u8, neighbours: bool| -> (u8, u8) {
            let calm = fits & (me == CORRECTOR) & neighbours & corrects(left) & corrects(right);
            let sender = u8::from(calm | (me == PHANTOM));
            let recv = if calm | (me == UNCOLORED) {
                BULK_LIVE
            } else if me == FAILED {
                BULK_FAILED
            } else {
                NOT_BULK
            };
            (sender, recv)
        };
        if n >= 3 {
            for (i, w) in self.kinds.windows(3).enumerate() {
                let (c, r) = classify(w[0], w[1], w[2], true);
                s.sender[i + 1] = c;
                s.recv[i + 1] = r;
            }
        }
        for i in [0, n - 1] {
            let (left, right) = if self.circular {
                (self.kinds[(i + n - 1) % n], self.kinds[(i + 1) % n])
            } else {
                (PHANTOM, PHANTOM)
            };
            let (c, r) = classify(left, self.kinds[i], right, self.circular);
            s.sender[i] = c;
            s.recv[i] = r;
        }
        let mut calm_correctors = 0u64;
        for (&k, &c) in self.kinds.iter().zip(&s.sender) {
            calm_correctors += u64::from((k == CORRECTOR) & (c != 0));
        }
        // Deciders in rank order: correctors that do not replay the pattern.
        s.active.clear();
        s.active.resize(n + 1, 0);
        let mut count = 0;
        for i in (self.order_start..n).chain(0..self.order_start) {
            s.active[count] = i as u32;
            count += usize::from((self.kinds[i] == CORRECTOR) & (s.sender[i] == 0));
        }
        s.deciders.clear();
        for id in 0..count {
            let pos = s.active[id];
            s.decider_of[pos as usize] = id as u32;
            s.deciders.push(Decider {
                pos,
                reached: [0, 0],
                heard: Heard::NOTHING,
                cursor: 0,
                next: 0,
            });
        }
        s.active.clear();
        s.active.extend(0..s.deciders.len() as u32);
        s.later.clear();

        let mut out = Outcome {
            contained: true,
            ..Outcome::default()
        };
        let mut failed_arrival: Option<u32> = None;
        let mut last_send_end: Time = 0;
        if calm_correctors > 0 && !calm.is_empty() {
            out.messages = calm_correctors * calm.len() as u64;
            out.participants = calm_correctors;
            last_send_end = run.ticks.send_end(calm.len() as u32 - 1);
        }
        let has_senders = calm_correctors > 0 || self.phantoms > 0;
        let mut active = core::mem::take(&mut s.active);
        let mut to_deciders = core::mem::take(&mut s.to_deciders);
        let mut tick: u32 = 0;
        loop {
            // Without calm senders (tiny rings) the pattern may not even fit in the segment.
            let in_pattern = (tick as usize) < calm.len() && has_senders;
            if !in_pattern && active.is_empty() {
                break;
            }
            let arrival = tick + run.ticks.lag;
            if in_pattern {
                let hit = self.bulk(s, calm[tick as usize].shift, arrival, &window);
                if hit {
                    failed_arrival = Some(arrival);
                }
            }
            // Local slices: the optimizer then knows the buffers do not alias.
            let mut hot = Hot {
                sender: &s.sender,
                recv: &s.recv,
                port: &mut s.port,
                first: &mut s.first,
                decider_of: &s.decider_of,
                deciders: &mut s.deciders,
                later: &mut s.later,
            };
            // Deliveries that ended by now: the nearest corrector heard from on each side.
            let deciders = &mut *hot.deciders;
            hot.later.take(tick, |id, side, distance| {
                deciders[id].heard.hear(side, distance)
            });
            // Sends of this tick, in rank order. Picks at tick k depend only on deliveries
            // seen by k, and a message sent now is seen at k + 2 at the earliest, so every
            // active decider picks first; bulk receivers take them in any order (only the
            // count per instant matters there), deciders in rank order below.
            let mut keep = 0;
            // Written unconditionally, kept when the target decides (branch-free).
            to_deciders.clear();
            to_deciders.resize(active.len() + 1, (0, 0, 0, 0));
            let mut to_count = 0;
            let mut hit_failed = false;
            for a in 0..active.len() {
                let id = active[a] as usize;
                let d = &mut hot.deciders[id];
                let Some((side, dist)) =
                    pick(&mut d.next, &mut d.reached, d.heard.nearest, self.others)
                else {
                    continue; // stopped for good
                };
                let pos = d.pos as usize;
                active[keep] = id as u32;
                keep += 1;
                let delta = toward(lower, side, dist);
                // dist < P: the checked sweep never covers more than P - 1 ranks.
                let Some(t) = run.shifted(pos, delta).filter(|t| window.contains(t)) else {
                    out.contained = false;
                    continue;
                };
                let r = hot.recv[t];
                let live = r == BULK_LIVE;
                hit_failed |= r == BULK_FAILED;
                let port = hot.port[t];
                let end = arrival.max(port) + 1;
                let first = hot.first[t];
                hot.port[t] = if live { end } else { port };
                hot.first[t] = if live & (first == 0) { end } else { first };
                // The receiver hears from the side opposite to the travel direction.
                to_deciders[to_count] = (hot.decider_of[t], pos as u32, side ^ 1, dist);
                to_count += usize::from(r == NOT_BULK);
            }
            if keep > 0 {
                out.messages += keep as u64;
                last_send_end = last_send_end.max(run.ticks.send_end(tick));
            }
            active.truncate(keep);
            to_deciders.truncate(to_count);
            if hit_failed {
                failed_arrival = Some(arrival);
            }
            for &(target, from, side, dist) in &to_deciders {
                let target = target as usize;
                if in_pattern && hot.deciders[target].cursor == tick {
                    hot.calm_arrival(&run, target, tick, run.rank(from as usize));
                }
                hot.receive(&run, target, arrival, side, dist, tick);
            }
            if in_pattern {
                for id in 0..hot.deciders.len() {
                    if hot.deciders[id].cursor == tick {
                        hot.calm_arrival(&run, id, tick, usize::MAX);
                    }
                }
            }
            tick += 1;
        }
        s.active = active;
        s.to_deciders = to_deciders;
        out.participants += s.deciders.iter().filter(|d| d.reached != [0, 0]).count() as u64;

        let mut last_receive = 0u32;
        let mut colored = 0u32;
        for i in window {
            match self.kinds[i] {
                FAILED => {}
                UNCOLORED => {
                    if s.first[i] == 0 {
                        out.undelivered += 1;
                    } else {
                        colored = colored.max(s.first[i]);
                    }
                    last_receive = last_receive.max(s.port[i]);
                }
                _ => last_receive = last_receive.max(s.port[i]),
            }
        }
        out.activity = last_send_end;
        if last_receive > 0 {
            out.activity = out.activity.max(run.ticks.slot_time(last_receive));
        }
        if let Some(a) = failed_arrival {
            out.activity = out.activity.max(run.ticks.slot_time(a));
        }
        if colored > 0 {
            out.colored = Some(run.ticks.slot_time(colored));
        }
        out
    }

    /// The calm arrivals of one tick (sender at `receiver - shift`, arriving in slot `arrival`)
    /// at every bulk receiver; returns whether one of them reached a failed process.
    fn bulk(&self, s: &mut Scratch, shift: isize, arrival: u32, window: &Range<usize>) -> bool {
        let n = self.kinds.len();
        let mut hit = false;
        let mut apply = |lo: usize, hi: usize, from: usize| {
            hit |= bulk_range(
                &mut s.port[lo..hi],
                &mut s.first[lo..hi],
                &s.recv[lo..hi],
                &s.sender[from..from + (hi - lo)],
                arrival,
            );
        };
        if self.circular {
            let d = shift.unsigned_abs();
            if shift >= 0 {
                apply(d, n, 0);
                apply(0, d, n - d);
            } else {
                apply(0, n - d, d);
                apply(n - d, n, 0);
            }
        } else {
            // Phantoms pad the window by the pattern's reach: senders stay in the segment.
            let from = (window.start as isize - shift) as usize;
            apply(window.start, window.end, from);
        }
        hit
    }
}

/// The calm arrivals of one tick on aligned slices (written to vectorize).
fn bulk_range(
    port: &mut [u32],
    first: &mut [u32],
    recv: &[u8],
    sender: &[u8],
    arrival: u32,
) -> bool {
    let mut hit = 0u8;
    for (((p, f), &r), &c) in port.iter_mut().zip(first.iter_mut()).zip(recv).zip(sender) {
        let live = (r == BULK_LIVE) & (c != 0);
        let end = arrival.max(*p) + 1;
        *p = if live { end } else { *p };
        *f = if live & (*f == 0) { end } else { *f };
        hit |= u8::from(r == BULK_FAILED) & c;
    }
    hit != 0
}

/// The buffers of the tick loop, as slices.
struct Hot<'a> {
    sender: &'a [u8],
    recv: &'a [u8],
    port: &'a mut [u32],
    first: &'a mut [u32],
    decider_of: &'a [u32],
    deciders: &'a mut [Decider],
    later: &'a mut Later,
}

impl Hot<'_> {
    /// A message of `distance` heard from `side` reaching decider `id` in slot `arrival`.
    fn receive(&mut self, run: &Run, id: usize, arrival: u32, side: u8, distance: u32, now: u32) {
        let d = &mut self.deciders[id];
        let pos = d.pos as usize;
        let end = arrival.max(self.port[pos]) + 1;
        self.port[pos] = end;
        if d.heard.receive(side, distance) {
            let at = run.ticks.heard_at(end);
            if at <= now {
                d.heard.hear(side, distance);
            } else {
                self.later.push(at, id, side, distance);
            }
        }
    }

    /// The calm arrival at decider `id` sent at `tick` (if a calm corrector sends to it then),
    /// when its sender ranks below `below`: the driver's receive order is by instant, then
    /// sender rank.
    fn calm_arrival(&mut self, run: &Run, id: usize, tick: u32, below: usize) {
        let send = run.calm[tick as usize];
        let pos = self.deciders[id].pos as usize;
        match run
            .shifted(pos, -send.shift)
            .filter(|&from| self.sender[from] != 0)
        {
            Some(from) if run.rank(from) >= below => return,
            Some(_) => self.receive(
                run,
                id,
                tick + run.ticks.lag,
                send.side ^ 1,
                send.distance,
                tick,
            ),
            None => {}
        }
        self.deciders[id].cursor = tick + 1;
    }
}

/// Checked correction's choice at a free port: the sweep's [`alternate`] with the checked rule
/// ([`checked_next`]), on side indices (0: the first side) with `NONE` for "nobody heard".
pub(crate) fn pick(
    next: &mut u8,
    reached: &mut [u32; 2],
    nearest: [u32; 2],
    others: u32,
) -> Option<(u8, u32)> {
    let (side, distance) = alternate([*next, *next ^ 1], usize::from, reached, others, |s, r| {
        checked_next(r, Some(nearest[s as usize]).filter(|&n| n != NONE))
    })?;
    *next = side ^ 1;
    Some((side, distance))
}

/// The calm pattern's sends as seen by their receivers, once per configuration.
pub(crate) fn calm_sends(pattern: &Pattern, first_is_left: bool) -> Vec<CalmSend> {
    let lower = [first_is_left, !first_is_left];
    pattern
        .sends
        .iter()
        .map(|&(side, distance)| CalmSend {
            // A send toward lower positions comes from the receiver's higher side.
            shift: toward(lower, side, distance),
            side,
            distance,
        })
        .collect()
}

/// The calm pattern for `(L, o)`: a corrector whose two neighbours correct hears from its
/// second-side neighbour at `2o + L` (that neighbour's first send) and from its first-side
/// neighbour at `3o + L`, and from nobody earlier.
pub(crate) fn calm_pattern(latency: Time, overhead: Time) -> Pattern {
    let mut next = 0u8;
    let mut reached = [0u32, 0];
    let mut nearest = [NONE, NONE];
    let mut sends = vec![];
    for tick in 0u64.. {
        let now = tick * overhead;
        if now >= 2 * overhead + latency {
            nearest[1] = 1;
        }
        if now >= 3 * overhead + latency {
            nearest[0] = 1;
        }
        match pick(&mut next, &mut reached, nearest, u32::MAX) {
            Some(send) => sends.push(send),
            None => break,
        }
    }
    let reach = reached[0].max(reached[1]);
    let total = u64::from(reached[0]) + u64::from(reached[1]);
    Pattern {
        sends,
        reach,
        total,
        reached,
        next,
    }
}

/// Tick arithmetic of synchronized correction: a send at tick `k` arrives in slot `k + lag`;
/// slot `s` is the instant `s·o + L mod o`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ticks {
    /// Arrival slot of a tick-0 send: `1 + ⌊L/o⌋`.
    pub lag: u32,
    /// Whether `o ∤ L`: a delivery ending in slot `e` is heard at tick `e + 1`, else at `e`.
    offset: bool,
    overhead: Time,
    phase: Time,
}

impl Ticks {
    pub(crate) fn new(latency: Time, overhead: Time) -> Self {
        Self {
            lag: 1 + (latency / overhead) as u32,
            offset: latency % overhead != 0,
            overhead,
            phase: latency % overhead,
        }
    }

    /// The first tick whose poll sees a delivery ending in slot `end`.
    pub(crate) fn heard_at(&self, end: u32) -> u32 {
        end + u32::from(self.offset)
    }

    /// The end of a send made at tick `tick`, relative to `D`.
    pub(crate) fn send_end(&self, tick: u32) -> Time {
        Time::from(tick + 1) * self.overhead
    }

    /// The instant of slot `slot`, relative to `D`.
    pub(crate) fn slot_time(&self, slot: u32) -> Time {
        Time::from(slot) * self.overhead + self.phase
    }
}

/// What a decider heard from each side (side index 0: the first side).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Heard {
    /// Nearest corrector heard from (`NONE`: nobody yet).
    pub nearest: [u32; 2],
    /// Nearest corrector received from, heard or not yet.
    pending: [u32; 2],
}

impl Heard {
    /// Nothing heard or received.
    pub(crate) const NOTHING: Self = Self {
        nearest: [NONE; 2],
        pending: [NONE; 2],
    };

    /// A message from a corrector at `distance` on `side` is received; whether hearing it can
    /// change anything. A later receive ends later (FIFO port), so only a corrector nearer than
    /// every one received before can.
    pub(crate) fn receive(&mut self, side: u8, distance: u32) -> bool {
        let pending = &mut self.pending[usize::from(side)];
        let nearer = distance < *pending;
        if nearer {
            *pending = distance;
        }
        nearer
    }

    /// The message is heard now.
    pub(crate) fn hear(&mut self, side: u8, distance: u32) {
        let nearest = &mut self.nearest[usize::from(side)];
        *nearest = (*nearest).min(distance);
    }
}

/// Messages deciders will hear at later ticks, by tick.
#[derive(Clone, Debug, Default)]
pub(crate) struct Later(Vec<Vec<u64>>);

impl Later {
    pub(crate) fn clear(&mut self) {
        for tick in self.0.iter_mut() {
            tick.clear();
        }
    }

    /// Decider `id` hears `distance` from `side` at tick `at`.
    pub(crate) fn push(&mut self, at: u32, id: usize, side: u8, distance: u32) {
        if at as usize >= self.0.len() {
            self.0.resize_with(at as usize + 1, Vec::new);
        }
        self.0[at as usize].push((id as u64) << 32 | u64::from(side) << 31 | u64::from(distance));
    }

    /// Hands what is heard at `tick` to `hear(decider, side, distance)`, and forgets it.
    pub(crate) fn take(&mut self, tick: u32, mut hear: impl FnMut(usize, u8, u32)) {
        if let Some(due) = self.0.get_mut(tick as usize) {
            for &d in due.iter() {
                hear(
                    (d >> 32) as usize,
                    (d >> 31) as u8 & 1,
                    d as u32 & 0x7fff_ffff,
                );
            }
            due.clear();
        }
    }
}

/// Position `pos + delta` on a ring of `n` (`|delta| < n`).
pub(crate) fn ring_shift(n: usize, pos: usize, delta: isize) -> usize {
    let t = pos as isize + delta;
    if t < 0 {
        (t + n as isize) as usize
    } else if t >= n as isize {
        (t - n as isize) as usize
    } else {
        t as usize
    }
}

/// The signed offset of a send of `distance` on `side` (`lower[side]`: toward lower positions).
pub(crate) fn toward(lower: [bool; 2], side: u8, distance: u32) -> isize {
    if lower[usize::from(side)] {
        -(distance as isize)
    } else {
        distance as isize
    }
}
