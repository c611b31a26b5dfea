//! Interleaved binomial, Lamé and LogP-optimal trees: the ready-to-send construction of
//! CT §3.2.2–3.2.3, numbered in the order processes become ready.
//!
//! Time is divided by `g = gcd(a, b)` so that nothing happens between table entries. Ranks are
//! assigned in order of the time a process becomes ready; processes that become ready at the
//! same time are ordered by their parent's rank (CT §3.2.2: "the children of the processes with
//! lower ranks are considered to be created first"). A process sends at `u, u + a, …` where `u`
//! is its ready time, so the processes sending at `s` are exactly those with ready time
//! `u <= s`, `u ≡ s (mod a)`.
//!
//! With `a = 1` (binomial, Lamé) every ready process sends at every step and the children of `r`
//! reduce to CT Eq. 2: `r + R(i + k - 1)`, `i >= s'`, `R(s') > r`. With `a = o > 1` and `o ∤ L`
//! the paper's formula `r + R(i + o + L)` assigns the same rank twice (see
//! docs/reference/topology.md, "Where the CT paper is wrong or incomplete", item 2); this
//! module uses the construction above, which coincides with the formula whenever `o | L`.

use alloc::vec::Vec;

use super::{LogP, ReadySequence};
use crate::{Rank, Time};

/// The tables of one ready-to-send tree over `procs` ranks.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Schedule {
    procs: u64,
    /// `a / g`.
    step: u64,
    /// `b / g`.
    ready_after: u64,
    /// `g = gcd(a, b)`: one table step is `g` time units.
    scale: u64,
    /// `ready[t]`: processes ready at or before scaled time `t`; the last entry is `>= procs`.
    ready: Vec<u64>,
    /// `senders[t]`: processes whose ready time is `<= t` and `≡ t (mod step)`, i.e. those that
    /// send at `t`. Empty when `step == 1` (then it equals `ready`).
    senders: Vec<u64>,
    /// Ready time of the last rank `procs - 1`.
    last_ready: u64,
    /// Latest fault-free receive time of any rank under the tree's LogP parameters.
    deadline: Time,
}

impl Schedule {
    pub(crate) fn new(sequence: ReadySequence, procs: u32, logp: LogP) -> Self {
        let scale = num_integer::gcd(sequence.step(), sequence.ready_after());
        let step = sequence.step() / scale;
        let ready_after = sequence.ready_after() / scale;
        let procs = u64::from(procs);
        let mut ready: Vec<u64> = Vec::new();
        let at = |table: &Vec<u64>, t: i64| -> u64 {
            if t < 0 {
                0
            } else {
                table[t as usize]
            }
        };
        loop {
            let t = ready.len() as i64;
            let value = if (t as u64) < ready_after {
                1
            } else {
                at(&ready, t - step as i64) + at(&ready, t - ready_after as i64)
            };
            ready.push(value);
            if value >= procs {
                break;
            }
        }
        let mut senders = Vec::new();
        if step > 1 {
            for t in 0..ready.len() as i64 {
                let newly = at(&ready, t) - at(&ready, t - 1);
                senders.push(newly + at(&senders, t - step as i64));
            }
        }
        let mut schedule = Self {
            procs,
            step,
            ready_after,
            scale,
            last_ready: 0,
            ready,
            senders,
            deadline: 0,
        };
        schedule.last_ready = schedule.ready_time(procs - 1);
        schedule.deadline = schedule.compute_deadline(logp);
        schedule
    }

    /// `R` at scaled time `t`; past the table it returns a value `>= procs`.
    fn ready_at(&self, t: i64) -> u64 {
        if t < 0 {
            0
        } else {
            let last = self.ready.len() - 1;
            self.ready[(t as usize).min(last)]
        }
    }

    /// Number of processes sending at scaled time `t` (only called for `t` inside the table).
    fn senders_at(&self, t: i64) -> u64 {
        if t < 0 {
            0
        } else if self.step == 1 {
            self.ready_at(t)
        } else {
            let last = self.senders.len() - 1;
            self.senders[(t as usize).min(last)]
        }
    }

    /// Processes that become ready exactly at `t` in the infinite construction.
    fn newly_ready(&self, t: i64) -> u64 {
        self.ready_at(t) - self.ready_at(t - 1)
    }

    /// Scaled time at which rank `r` becomes ready: the smallest `t` with `R(t) > r`.
    pub(crate) fn ready_time(&self, rank: u64) -> u64 {
        self.ready.partition_point(|&v| v <= rank) as u64
    }

    /// Position of `r` among the processes that send together with it (all of them send at
    /// every one of `r`'s send times).
    fn sender_position(&self, rank: u64, ready: u64) -> u64 {
        self.senders_at(ready as i64 - self.step as i64) + (rank - self.ready_at(ready as i64 - 1))
    }

    /// The `position`-th process (0-based, rank order) among those sending at scaled time `send`:
    /// returns its ready time and rank.
    fn sender(&self, send: u64, position: u64) -> (u64, u64) {
        // Ready times congruent to `send` are `first, first + step, …, send`; `senders_at` is
        // non-decreasing along them, find the first one exceeding `position`.
        let first = send % self.step;
        let count = send / self.step + 1;
        let (mut lo, mut hi) = (0u64, count - 1);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.senders_at((first + mid * self.step) as i64) > position {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        let ready = first + lo * self.step;
        let before = self.senders_at(ready as i64 - self.step as i64);
        (ready, self.ready_at(ready as i64 - 1) + (position - before))
    }

    pub(crate) fn parent(&self, rank: u64) -> Option<u64> {
        if rank == 0 || rank >= self.procs {
            return None;
        }
        let ready = self.ready_time(rank);
        let position = rank - self.ready_at(ready as i64 - 1);
        Some(self.sender(ready - self.ready_after, position).1)
    }

    /// First scaled send time and the first child's position offset: the `j`-th child of `r` is
    /// `R(u + j·a + b - 1) + position`, `u` the ready time of `r`.
    pub(crate) fn children(&self, rank: u64) -> ScheduleChildren<'_> {
        let ready = self.ready_time(rank);
        ScheduleChildren {
            schedule: self,
            next_send: ready,
            position: if rank < self.procs {
                self.sender_position(rank, ready)
            } else {
                self.procs
            },
        }
    }

    pub(crate) fn depth(&self, rank: u64) -> u32 {
        let mut depth = 0;
        let mut at = rank;
        while let Some(parent) = self.parent(at) {
            depth += 1;
            at = parent;
        }
        depth
    }

    /// First send iteration in unscaled construction time (CT Eq. 2's `s'`; for the optimal tree
    /// it is the LogP time at which the process holds the message).
    pub(crate) fn first_send_iteration(&self, rank: u64) -> u64 {
        self.ready_time(rank) * self.scale
    }

    /// Fault-free receive time under `logp`: a child that is its parent's `j`-th (0-based) gets
    /// the message `j·o + 2o + L` after its parent, so summing along the path gives
    /// `depth·(2o + L) + o·(u - depth·b)/a` with `u` its ready time (all scaled).
    fn receive_time_at(&self, logp: LogP, depth: u64, ready: u64) -> Time {
        depth * logp.hop() + logp.overhead() * ((ready - depth * self.ready_after) / self.step)
    }

    pub(crate) fn receive_time(&self, logp: LogP, rank: u64) -> Time {
        let depth = u64::from(self.depth(rank));
        self.receive_time_at(logp, depth, self.ready_time(rank))
    }

    pub(crate) fn deadline(&self) -> Time {
        self.deadline
    }

    /// Depth range (min, max) of the first `count >= 1` processes sending at scaled time `send`.
    fn sender_depths(&self, send: u64, count: u64, full: &[(u32, u32)]) -> (u32, u32) {
        let (ready, _) = self.sender(send, count - 1);
        let before = self.senders_at(ready as i64 - self.step as i64);
        let mut range = if ready >= self.step {
            full[(ready - self.step) as usize]
        } else {
            (u32::MAX, 0)
        };
        let partial = self.block_depths(ready, count - before, full);
        range.0 = range.0.min(partial.0);
        range.1 = range.1.max(partial.1);
        range
    }

    /// Depth range of the first `count >= 1` processes that become ready at `ready`.
    fn block_depths(&self, ready: u64, count: u64, full: &[(u32, u32)]) -> (u32, u32) {
        if ready == 0 {
            return (0, 0);
        }
        let (lo, hi) = self.sender_depths(ready - self.ready_after, count, full);
        (lo + 1, hi + 1)
    }

    fn compute_deadline(&self, logp: LogP) -> Time {
        // prefix[t]: depth range over every process sending at t (ready time ≡ t, <= t).
        let mut prefix: Vec<(u32, u32)> = Vec::with_capacity(self.last_ready as usize + 1);
        let mut deadline = 0;
        for t in 0..=self.last_ready {
            let mut own = (u32::MAX, 0);
            let newly = self.newly_ready(t as i64);
            if newly > 0 {
                let count = if t == self.last_ready {
                    self.procs - self.ready_at(t as i64 - 1)
                } else {
                    newly
                };
                own = self.block_depths(t, count, &prefix);
                for depth in [own.0, own.1] {
                    let time = self.receive_time_at(logp, u64::from(depth), t);
                    deadline = deadline.max(time);
                }
            }
            if t >= self.step {
                let earlier = prefix[(t - self.step) as usize];
                own = (own.0.min(earlier.0), own.1.max(earlier.1));
            }
            prefix.push(own);
        }
        deadline
    }

    /// Number of ranks `< procs` in the subtree of `rank`.
    pub(crate) fn subtree_size(&self, rank: u64) -> u64 {
        let ready = self.ready_time(rank);
        let last = self.last_ready;
        // Everything ready strictly before the last ready time is a rank `< procs`; the
        // subtree of a process ready at `u` is the whole construction shifted by `u`.
        let complete = self.ready_at(last as i64 - 1 - ready as i64);
        let in_last = self.procs - self.ready_at(last as i64 - 1);
        complete + self.subtree_in_block(rank, ready, last, in_last)
    }

    /// Members of `rank`'s subtree among the first `count` processes ready at `block`.
    fn subtree_in_block(&self, rank: u64, rank_ready: u64, block: u64, count: u64) -> u64 {
        if count == 0 || block < rank_ready {
            0
        } else if block == rank_ready {
            u64::from(rank - self.ready_at(rank_ready as i64 - 1) < count)
        } else {
            self.subtree_in_senders(rank, rank_ready, block - self.ready_after, count)
        }
    }

    /// Members of `rank`'s subtree among the first `count` processes sending at `send`.
    fn subtree_in_senders(&self, rank: u64, rank_ready: u64, send: u64, count: u64) -> u64 {
        if count == 0 || send < rank_ready {
            return 0;
        }
        let (ready, _) = self.sender(send, count - 1);
        let before = self.senders_at(ready as i64 - self.step as i64);
        // Whole blocks before `ready`: the subtree's own sender counts, shifted by `rank_ready`.
        let whole = self.senders_at(ready as i64 - self.step as i64 - rank_ready as i64);
        whole + self.subtree_in_block(rank, rank_ready, ready, count - before)
    }
}

/// Children of one rank of a [`Schedule`] tree, in send order.
#[derive(Clone, Debug)]
pub(crate) struct ScheduleChildren<'a> {
    schedule: &'a Schedule,
    next_send: u64,
    position: u64,
}

impl Iterator for ScheduleChildren<'_> {
    type Item = Rank;

    fn next(&mut self) -> Option<Rank> {
        let s = self.schedule;
        let base = s.ready_at((self.next_send + s.ready_after) as i64 - 1);
        let child = base.checked_add(self.position)?;
        if child >= s.procs {
            self.position = s.procs; // stay exhausted
            return None;
        }
        self.next_send += s.step;
        Some(child as Rank)
    }

    /// One jump instead of `n` calls of `next` (a Corrected Tree process finds its next tree
    /// child as `children(rank).nth(i)`): children come one per `step` of send time.
    /// Beyond the table every send time reads as beyond `P`, so the jump stops there (and the
    /// send time never reaches the `i64` range's end).
    fn nth(&mut self, n: usize) -> Option<Rank> {
        let end = self.schedule.ready.len() as u64;
        let skip = (n as u64).saturating_mul(self.schedule.step);
        self.next_send = self
            .next_send
            .saturating_add(skip)
            .min(end.max(self.next_send));
        self.next()
    }
}
