//! Interleaved k-ary trees (CT §3.2.1).
//!
//! Level `l` holds the ranks `first(l) .. first(l) + k^l` with `first(l) = Σ_{j<l} k^j`. Rank `r`
//! on level `l` has the children `r + i·k^l`, `i = 1..=k` (the paper prints `0 < i < k`, which
//! gives `k - 1` children and no k-ary tree; `1..=k` reproduces its Figure 3). Writing
//! `r = first(l) + m`, the base-`k` digits of `m` are the child indices `i - 1` along the path
//! from the root, least significant first.

use crate::{Rank, Time};

use super::LogP;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct KAry {
    procs: u64,
    arity: u64,
    deadline: Time,
}

impl KAry {
    pub(crate) fn new(arity: u64, procs: u32, logp: LogP) -> Self {
        let mut tree = Self {
            procs: u64::from(procs),
            arity,
            deadline: 0,
        };
        tree.deadline = tree.compute_deadline(logp);
        tree
    }

    /// `k^l`, saturated beyond `2^32` (no rank is that far).
    fn width(&self, level: u32) -> u64 {
        self.arity
            .checked_pow(level)
            .unwrap_or(u64::MAX)
            .min(1 << 33)
    }

    /// First rank of level `l`, saturated beyond `2^33`.
    fn first(&self, level: u32) -> u64 {
        if self.arity == 1 {
            return u64::from(level);
        }
        let mut first = 0u64;
        for l in 0..level {
            first = (first + self.width(l)).min(1 << 34);
        }
        first
    }

    /// Level of `rank` and its offset within the level.
    fn locate(&self, rank: u64) -> (u32, u64) {
        if self.arity == 1 {
            return (rank as u32, 0);
        }
        let (mut level, mut first) = (0u32, 0u64);
        loop {
            let width = self.width(level);
            if rank < first + width {
                return (level, rank - first);
            }
            first += width;
            level += 1;
        }
    }

    pub(crate) fn depth(&self, rank: u64) -> u32 {
        self.locate(rank).0
    }

    pub(crate) fn parent(&self, rank: u64) -> Option<u64> {
        if rank == 0 || rank >= self.procs {
            return None;
        }
        let (level, offset) = self.locate(rank);
        let above = self.width(level - 1);
        Some(self.first(level - 1) + offset % above)
    }

    pub(crate) fn children(&self, rank: u64) -> KAryChildren {
        let (level, _) = if rank < self.procs {
            self.locate(rank)
        } else {
            (0, 0)
        };
        KAryChildren {
            next: rank,
            stride: self.width(level),
            remaining: if rank < self.procs { self.arity } else { 0 },
            procs: self.procs,
        }
    }

    /// Base-`k` digit sum of the offset: the number of earlier siblings summed along the path.
    fn digit_sum(&self, mut offset: u64) -> u64 {
        let mut sum = 0;
        while offset > 0 && self.arity > 1 {
            sum += offset % self.arity;
            offset /= self.arity;
        }
        sum
    }

    pub(crate) fn receive_time(&self, logp: LogP, rank: u64) -> Time {
        let (level, offset) = self.locate(rank);
        u64::from(level) * logp.hop() + logp.overhead() * self.digit_sum(offset)
    }

    /// Largest base-`k` digit sum among the offsets `0..=max`.
    fn max_digit_sum(&self, max: u64) -> u64 {
        if self.arity == 1 {
            return 0;
        }
        let k = self.arity;
        let mut best = self.digit_sum(max);
        // Lower digit `j` of `max` by one and fill every lower digit with `k - 1`.
        let (mut prefix_sum, mut digits) = (self.digit_sum(max), 0u64);
        let mut rest = max;
        while rest > 0 {
            let digit = rest % k;
            prefix_sum -= digit;
            if digit > 0 {
                best = best.max(prefix_sum + digit - 1 + digits * (k - 1));
            }
            rest /= k;
            digits += 1;
        }
        best
    }

    fn compute_deadline(&self, logp: LogP) -> Time {
        let (level, offset) = self.locate(self.procs - 1);
        let last = u64::from(level) * logp.hop() + logp.overhead() * self.max_digit_sum(offset);
        if level == 0 {
            return last;
        }
        let full = u64::from(level - 1) * (logp.hop() + logp.overhead() * (self.arity - 1));
        last.max(full)
    }

    pub(crate) fn deadline(&self) -> Time {
        self.deadline
    }

    /// Ranks `< procs` below `rank`: on each deeper level `level + j` its descendants are the
    /// offsets `≡ offset (mod k^level)`.
    pub(crate) fn subtree_size(&self, rank: u64) -> u64 {
        if self.arity == 1 {
            return self.procs - rank;
        }
        let (level, offset) = self.locate(rank);
        let stride = self.width(level);
        let (last_level, last_offset) = self.locate(self.procs - 1);
        let mut size = 0u64;
        for l in level..=last_level {
            let level_width = if l == last_level {
                last_offset + 1
            } else {
                self.width(l)
            };
            if level_width > offset {
                size += (level_width - offset).div_ceil(stride);
            }
        }
        size
    }

    /// The construction round in which `rank` sends first: its level.
    pub(crate) fn first_send_iteration(&self, rank: u64) -> u64 {
        u64::from(self.depth(rank))
    }
}

/// Children of one rank of a [`KAry`] tree, in send order.
#[derive(Clone, Debug)]
pub(crate) struct KAryChildren {
    next: u64,
    stride: u64,
    remaining: u64,
    procs: u64,
}

impl Iterator for KAryChildren {
    type Item = Rank;

    fn next(&mut self) -> Option<Rank> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        self.next = self.next.saturating_add(self.stride);
        if self.next >= self.procs {
            self.remaining = 0;
            return None;
        }
        Some(self.next as Rank)
    }
}
