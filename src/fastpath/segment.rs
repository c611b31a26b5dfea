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

use crate::Time;

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
}

/// Per-position state of one simulation (32 bytes).
#[derive(Clone, Copy, Debug, Default)]
struct Proc {
    /// End of the last receive overhead.
    port: Time,
    /// Farthest distance sent to on each side (side index 0: the first side).
    reached: [u32; 2],
    /// Nearest corrector heard from on each side (`NONE`: nobody yet).
    nearest: [u32; 2],
    /// Side index of the next send.
    next: u8,
    /// Uncolored process reached by correction, or corrector that sent.
    touched: bool,
    /// Replays the calm pattern (a calm corrector or a phantom) instead of deciding.
    calm: bool,
}

/// Scratch buffers reused between segments.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scratch {
    procs: Vec<Proc>,
    active: Vec<u32>,
    buckets: Vec<Vec<u64>>,
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
    /// `o` and `L`.
    pub overhead: Time,
    /// `L`.
    pub latency: Time,
    /// Whether the first side is toward lower positions (CT: left).
    pub first_is_left: bool,
}

impl Segment<'_> {
    fn is_corrector(&self, i: usize) -> bool {
        matches!(self.kinds[i], CORRECTOR | PHANTOM)
    }

    /// A corrector whose two ring neighbours are correctors: it replays the calm pattern.
    fn is_calm(&self, i: usize) -> bool {
        let n = self.kinds.len();
        if self.circular {
            self.is_corrector((i + n - 1) % n) && self.is_corrector((i + 1) % n)
        } else {
            i > 0 && i + 1 < n && self.is_corrector(i - 1) && self.is_corrector(i + 1)
        }
    }

    /// Simulates the correction phase.
    pub(crate) fn simulate(&self, pattern: &Pattern, s: &mut Scratch) -> Outcome {
        let n = self.kinds.len();
        let o = self.overhead;
        let window = self.phantoms..n - self.phantoms;
        s.procs.clear();
        s.procs.resize(
            n,
            Proc {
                nearest: [NONE, NONE],
                ..Proc::default()
            },
        );
        s.active.clear();
        // The calm pattern is exact for calm correctors when its sweep fits in the ring.
        let fits = pattern.total <= u64::from(self.others);
        for j in 0..n {
            let i = (self.order_start + j) % n;
            if self.is_corrector(i) {
                s.active.push(i as u32);
                s.procs[i].calm = self.kinds[i] == PHANTOM || (fits && self.is_calm(i));
            }
        }
        for b in s.buckets.iter_mut() {
            b.clear();
        }
        let mut out = Outcome {
            contained: true,
            ..Outcome::default()
        };
        let mut tick: usize = 0;
        // Side index 0 is the first side; `toward_lower[side]` says which way it goes.
        let lower = [self.first_is_left, !self.first_is_left];
        loop {
            if s.active.is_empty() {
                break;
            }
            if tick >= s.buckets.len() {
                s.buckets.resize_with(tick + 1, Vec::new);
            }
            let now = tick as Time * o;
            // Deliveries that ended by now: the nearest corrector heard from on each side.
            for j in 0..s.buckets[tick].len() {
                let d = s.buckets[tick][j];
                let target = (d >> 32) as usize;
                let side = (d >> 31) as usize & 1;
                let dist = d as u32 & 0x7fff_ffff;
                let slot = &mut s.procs[target].nearest[side];
                *slot = (*slot).min(dist);
            }
            s.buckets[tick].clear();
            let mut keep = 0;
            for a in 0..s.active.len() {
                let i = s.active[a] as usize;
                let send = if s.procs[i].calm {
                    pattern.sends.get(tick).copied()
                } else {
                    let p = &mut s.procs[i];
                    pick(&mut p.next, &mut p.reached, p.nearest, self.others)
                };
                let Some((side, dist)) = send else {
                    continue; // stopped for good
                };
                s.active[keep] = i as u32;
                keep += 1;
                let phantom = self.kinds[i] == PHANTOM;
                if !phantom {
                    out.messages += 1;
                    if !s.procs[i].touched {
                        s.procs[i].touched = true;
                        out.participants += 1;
                    }
                    out.activity = out.activity.max(now + o);
                }
                let goes_lower = lower[side as usize];
                let target = if self.circular {
                    // dist < P = n: the checked sweep never covers more than P - 1 ranks.
                    let d = dist as usize;
                    Some(if goes_lower {
                        if d <= i {
                            i - d
                        } else {
                            i + n - d
                        }
                    } else if i + d < n {
                        i + d
                    } else {
                        i + d - n
                    })
                } else if goes_lower {
                    i.checked_sub(dist as usize)
                } else {
                    Some(i + dist as usize).filter(|&t| t < n)
                };
                let inside = target.filter(|t| window.contains(t));
                let Some(t) = inside else {
                    if !s.procs[i].calm {
                        out.contained = false;
                    }
                    continue;
                };
                let arrival = now + o + self.latency;
                match self.kinds[t] {
                    FAILED => out.activity = out.activity.max(arrival),
                    kind => {
                        let q = &mut s.procs[t];
                        let end = arrival.max(q.port) + o;
                        q.port = end;
                        out.activity = out.activity.max(end);
                        if kind == UNCOLORED {
                            if !q.touched {
                                q.touched = true;
                                out.colored = Some(out.colored.map_or(end, |c| c.max(end)));
                            }
                        } else {
                            // The receiver hears from the side opposite to the travel direction.
                            let heard = side as usize ^ 1;
                            // Only deciding correctors listen: calm ones replay the pattern.
                            if !q.calm && dist < q.nearest[heard] {
                                let at = if o == 1 { end } else { end.div_ceil(o) } as usize;
                                if at >= s.buckets.len() {
                                    s.buckets.resize_with(at + 1, Vec::new);
                                }
                                s.buckets[at].push(
                                    ((t as u64) << 32) | ((heard as u64) << 31) | u64::from(dist),
                                );
                            }
                        }
                    }
                }
            }
            s.active.truncate(keep);
            tick += 1;
        }
        out.undelivered = window
            .filter(|&i| self.kinds[i] == UNCOLORED && !s.procs[i].touched)
            .count() as u64;
        out
    }
}

/// Checked correction's choice at a free port (`Sweep::pick` with the checked rule): the
/// alternating side unless it is finished or would cover ranks the other side covered.
fn pick(
    next: &mut u8,
    reached: &mut [u32; 2],
    nearest: [u32; 2],
    others: u32,
) -> Option<(u8, u32)> {
    for side in [*next, *next ^ 1] {
        let s = side as usize;
        if nearest[s] != NONE && reached[s] >= nearest[s] {
            continue;
        }
        let distance = reached[s] + 1;
        if u64::from(distance) + u64::from(reached[s ^ 1]) > u64::from(others) {
            continue;
        }
        reached[s] = distance;
        *next = side ^ 1;
        return Some((side, distance));
    }
    None
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
    }
}
