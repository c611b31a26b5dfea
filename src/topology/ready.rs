//! Ready-to-send sequences `R(t)` (CT Eq. 1 and §3.2.3).
//!
//! Binomial, Lamé and LogP-optimal trees are one construction: a process that becomes ready at
//! time `u` sends at `u, u + a, u + 2a, …`, and a message sent at `s` makes its receiver ready at
//! `s + b`. The number of processes ready by time `t` is then
//! `R(t) = 0` for `t < 0`, `1` for `0 <= t < b`, and `R(t - a) + R(t - b)` otherwise:
//! - Lamé of order `k` (CT Eq. 1): `a = 1, b = k` (binomial is `k = 1`);
//! - LogP-optimal for `(L, o)` (CT §3.2.3): `a = o, b = 2o + L`, time in LogP steps.

use alloc::collections::VecDeque;

use super::{LogP, TopologyError};

/// Largest accepted Lamé order `k` (and k-ary arity): the time tables grow linearly with `k`.
pub const MAX_ORDER: u64 = 65_536;

/// The parameters `(a, b)` of a ready-to-send recurrence `R(t) = R(t - a) + R(t - b)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ReadySequence {
    step: u64,
    ready_after: u64,
}

impl ReadySequence {
    /// The binomial sequence `R(t) = 2^t` (Lamé of order 1).
    pub fn binomial() -> Self {
        Self {
            step: 1,
            ready_after: 1,
        }
    }

    /// Lamé of order `k` (CT Eq. 1), `k` in `1..=65536`.
    pub fn lame(order: u64) -> Result<Self, TopologyError> {
        if order == 0 || order > MAX_ORDER {
            return Err(TopologyError::OutOfRange {
                field: "k",
                value: order,
                min: 1,
                max: MAX_ORDER,
            });
        }
        Ok(Self {
            step: 1,
            ready_after: order,
        })
    }

    /// LogP-optimal for `(L, o)` (CT §3.2.3): `R(t) = R(t - o) + R(t - 2o - L)`, `t` in LogP steps.
    pub fn optimal(logp: LogP) -> Self {
        Self {
            step: logp.overhead(),
            ready_after: logp.hop(),
        }
    }

    /// `a`: time between two sends of one process.
    pub fn step(&self) -> u64 {
        self.step
    }

    /// `b`: time from a send to its receiver being ready to send.
    pub fn ready_after(&self) -> u64 {
        self.ready_after
    }

    /// `R(t)`, or [`TopologyError::Overflow`] when it does not fit in a `u64`.
    /// Takes `O(t)` time and `O(b)` memory.
    pub fn value(&self, t: i64) -> Result<u64, TopologyError> {
        if t < 0 {
            return Ok(0);
        }
        let mut last = Err(TopologyError::Overflow { what: "R(t)" });
        for (i, v) in self.iter().enumerate() {
            last = v;
            if i as u64 == t as u64 || last.is_err() {
                break;
            }
        }
        last
    }

    /// `R(0), R(1), …`; yields one `Err(Overflow)` and stops once a value exceeds `u64::MAX`.
    pub fn iter(&self) -> ReadyValues {
        ReadyValues {
            step: self.step,
            ready_after: self.ready_after,
            history: VecDeque::new(),
            done: false,
        }
    }
}

/// Iterator over a [`ReadySequence`], keeping only the last `b` values.
#[derive(Clone, Debug)]
pub struct ReadyValues {
    step: u64,
    ready_after: u64,
    /// `R(t - b) ..= R(t - 1)`, oldest first (shorter at the start: missing values are 0).
    history: VecDeque<u64>,
    done: bool,
}

impl ReadyValues {
    fn back(&self, distance: u64) -> u64 {
        let len = self.history.len() as u64;
        if distance > len {
            0
        } else {
            self.history[(len - distance) as usize]
        }
    }
}

impl Iterator for ReadyValues {
    type Item = Result<u64, TopologyError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        // The history holds fewer than `b` values exactly while `t < b`, where `R(t) = 1`.
        let value = if (self.history.len() as u64) < self.ready_after {
            Some(1)
        } else {
            self.back(self.step)
                .checked_add(self.back(self.ready_after))
        };
        match value {
            Some(v) => {
                if self.history.len() as u64 == self.ready_after {
                    self.history.pop_front();
                }
                self.history.push_back(v);
                Some(Ok(v))
            }
            None => {
                self.done = true;
                Some(Err(TopologyError::Overflow { what: "R(t)" }))
            }
        }
    }
}
