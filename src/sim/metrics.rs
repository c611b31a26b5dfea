//! Metrics of one run (CT §4): coloring and quiescence latency, messages per phase and per
//! process, deliveries, `g_max` after dissemination, correction participants.

use alloc::vec;
use alloc::vec::Vec;

use super::TraceEvent;
use crate::automaton::{Phase, Value};
use crate::{Rank, Time};

/// Index of a phase in per-phase arrays.
pub(crate) fn phase_index(phase: Phase) -> usize {
    match phase {
        Phase::Dissemination => 0,
        Phase::Correction => 1,
        Phase::Acknowledgment => 2,
    }
}

/// Everything measured in one run. Times are absolute; latencies are relative to the root's
/// start. `V` is the automaton's value type.
#[derive(Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Report<V = Value> {
    /// `P`.
    pub procs: u32,
    /// When the root started (its arrival).
    pub root_start: Time,
    /// First delivery time of each process.
    pub delivered_at: Vec<Option<Time>>,
    /// The value each process delivered first.
    pub delivered_value: Vec<Option<V>>,
    /// Number of deliveries of each process (more than 1 is a duplicate).
    pub deliveries: Vec<u32>,
    /// Whether the first delivery was caused by a dissemination message (or is the root's).
    pub by_dissemination: Vec<bool>,
    /// Whether the process crashes at some point of the scenario.
    pub crashed: Vec<bool>,
    /// Messages sent by each process, per phase (dissemination, correction, acknowledgment).
    pub sent: Vec<[u32; 3]>,
    /// Messages per phase.
    pub messages: [u64; 3],
    /// `(rank, time, value)` of every completion event.
    pub completions: Vec<(Rank, Time, V)>,
    /// Last activity of each process (end of a send or of a receive).
    pub finish: Vec<Time>,
    /// Last activity of the whole operation (a receive ends, a send ends, or a message reaches
    /// a crashed process).
    pub last_activity: Time,
    /// Messages that reached a crashed process.
    pub lost: u64,
    /// Inputs an automaton ignored.
    pub ignored: u64,
    /// Events processed: the driver's work, not a result of the protocol. Idle send slots
    /// skipped by the driver are not events (see
    /// [`Sim::offer_every_send_slot`](crate::sim::Sim::offer_every_send_slot)), nor, in
    /// [`run`](crate::sim::run) under dual-port LogP, the arrival of a message at a receiver
    /// alive then (its receive-port turn is taken when it is sent; docs/design.md).
    pub events: u64,
    /// Single-port model (FTCO §5.2.3, Table 2 "Max. Len."): the most messages ever waiting in
    /// one process's incoming queue, counted when a message enters it (the one being handled is
    /// no longer waiting). Always 0 under dual-port LogP, whose receive port has no queue the
    /// automaton chooses from.
    pub longest_queue: u64,
    /// The trace, when requested.
    pub trace: Vec<TraceEvent>,
}

impl<V: Clone> Clone for Report<V> {
    fn clone(&self) -> Self {
        // An empty report (no vector allocated) filled field by field.
        let mut copy = Self::new(0);
        copy.clone_from(self);
        copy
    }

    /// Field by field, reusing this report's vectors (see `Sim`'s `clone_from`).
    fn clone_from(&mut self, source: &Self) {
        let Self {
            procs,
            root_start,
            delivered_at,
            delivered_value,
            deliveries,
            by_dissemination,
            crashed,
            sent,
            messages,
            completions,
            finish,
            last_activity,
            lost,
            ignored,
            events,
            longest_queue,
            trace,
        } = self;
        *procs = source.procs;
        *root_start = source.root_start;
        delivered_at.clone_from(&source.delivered_at);
        delivered_value.clone_from(&source.delivered_value);
        deliveries.clone_from(&source.deliveries);
        by_dissemination.clone_from(&source.by_dissemination);
        crashed.clone_from(&source.crashed);
        sent.clone_from(&source.sent);
        *messages = source.messages;
        completions.clone_from(&source.completions);
        finish.clone_from(&source.finish);
        *last_activity = source.last_activity;
        *lost = source.lost;
        *ignored = source.ignored;
        *events = source.events;
        *longest_queue = source.longest_queue;
        trace.clone_from(&source.trace);
    }
}

impl<V: Clone> Report<V> {
    pub(crate) fn new(procs: u32) -> Self {
        let n = procs as usize;
        Self {
            procs,
            root_start: 0,
            delivered_at: vec![None; n],
            delivered_value: vec![None; n],
            deliveries: vec![0; n],
            by_dissemination: vec![false; n],
            crashed: vec![false; n],
            sent: vec![[0; 3]; n],
            messages: [0; 3],
            completions: Vec::new(),
            finish: vec![0; n],
            last_activity: 0,
            lost: 0,
            ignored: 0,
            events: 0,
            longest_queue: 0,
            trace: Vec::new(),
        }
    }
}

impl<V> Report<V> {
    pub(crate) fn record_delivery(
        &mut self,
        rank: Rank,
        now: Time,
        value: V,
        cause: Option<Phase>,
    ) {
        let r = rank as usize;
        self.deliveries[r] += 1;
        if self.delivered_at[r].is_none() {
            self.delivered_at[r] = Some(now);
            self.delivered_value[r] = Some(value);
            self.by_dissemination[r] = cause == Some(Phase::Dissemination);
        }
    }

    pub(crate) fn record_completion(&mut self, rank: Rank, now: Time, value: V) {
        self.completions.push((rank, now, value));
    }

    pub(crate) fn record_send(&mut self, rank: Rank, _now: Time, phase: Phase) {
        let i = phase_index(phase);
        self.sent[rank as usize][i] += 1;
        self.messages[i] += 1;
    }

    /// Whether `rank` never crashes in this scenario.
    pub fn is_live(&self, rank: Rank) -> bool {
        !self.crashed[rank as usize]
    }

    /// Coloring latency (CT §4): from the root's start until the last live process delivered.
    pub fn coloring_latency(&self) -> Time {
        (0..self.procs)
            .filter(|&r| self.is_live(r))
            .filter_map(|r| self.delivered_at[r as usize])
            .max()
            .unwrap_or(self.root_start)
            .saturating_sub(self.root_start)
    }

    /// Quiescence latency (CT §4): from the root's start until all activity ended.
    pub fn quiescence_latency(&self) -> Time {
        self.last_activity.saturating_sub(self.root_start)
    }

    /// Live processes that never delivered.
    pub fn undelivered(&self) -> u32 {
        (0..self.procs)
            .filter(|&r| self.is_live(r) && self.delivered_at[r as usize].is_none())
            .count() as u32
    }

    /// Processes that delivered more than once.
    pub fn duplicates(&self) -> u32 {
        self.deliveries.iter().filter(|&&d| d > 1).count() as u32
    }

    /// Total messages.
    pub fn messages_total(&self) -> u64 {
        self.messages.iter().sum()
    }

    /// Messages of one phase.
    pub fn messages_in(&self, phase: Phase) -> u64 {
        self.messages[phase_index(phase)]
    }

    /// Output spread (FTCO §5.2.4, Table 2): the last completion time minus the first, 0 with
    /// fewer than two completions.
    pub fn completion_spread(&self) -> Time {
        let times = self.completions.iter().map(|&(_, t, _)| t);
        match (times.clone().min(), times.max()) {
            (Some(first), Some(last)) => last - first,
            _ => 0,
        }
    }

    /// Processes that sent at least one correction message.
    pub fn correction_participants(&self) -> u32 {
        self.sent.iter().filter(|s| s[1] > 0).count() as u32
    }

    /// `g_max` after dissemination: the longest ring run of processes not colored by a
    /// dissemination message, crashed ones included (DESIGN §3, CT Lemma 3; the same definition
    /// as `topology::Reach`, but measured: processes colored early by correction count as not
    /// colored by dissemination).
    pub fn gmax_after_dissemination(&self) -> u64 {
        longest_circular_run(self.procs as usize, |r| !self.by_dissemination[r])
    }
}

/// The longest run of consecutive ranks `r` of a ring of `n` (wrapping around) with `dark(r)`:
/// `n` when every rank is dark. CT's `g_max` and CG's uncolored chains (Fig. 1) are both this.
pub(crate) fn longest_circular_run(n: usize, dark: impl Fn(usize) -> bool) -> u64 {
    // Start right after a rank that is not dark, so that no run is split by the wrap-around.
    let Some(start) = (0..n).find(|&r| !dark(r)) else {
        return n as u64;
    };
    let (mut longest, mut run) = (0u64, 0u64);
    for k in 1..=n {
        if dark((start + k) % n) {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    longest
}

/// The per-run numbers that sweeps aggregate (one `simulate` row without the parameters). Every
/// field is an integer so that summaries are exact and independent of summation order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RunMetrics {
    /// Processes failed before the operation.
    pub faults: u64,
    /// Coloring latency (CT §4), see [`Report::coloring_latency`].
    pub coloring_latency: u64,
    /// Quiescence latency (CT §4), see [`Report::quiescence_latency`].
    pub quiescence_latency: u64,
    /// Quiescence latency minus the tree's fault-free deadline (saturating): CT's `L_SCC`,
    /// the length of the correction phase of synchronized correction.
    pub correction_latency: u64,
    /// Messages of every phase.
    pub messages: u64,
    /// Dissemination (tree) messages.
    pub messages_dissemination: u64,
    /// Correction messages.
    pub messages_correction: u64,
    /// Acknowledgments.
    pub messages_acknowledgment: u64,
    /// `g_max` after dissemination, see [`Report::gmax_after_dissemination`].
    pub gmax: u64,
    /// Live processes that never delivered.
    pub undelivered: u64,
    /// Processes that sent at least one correction message.
    pub participants: u64,
}

impl RunMetrics {
    /// Names of the fields, in [`RunMetrics::values`] order.
    pub const NAMES: [&'static str; 11] = [
        "faults",
        "coloring_latency",
        "quiescence_latency",
        "correction_latency",
        "messages",
        "messages_dissemination",
        "messages_correction",
        "messages_acknowledgment",
        "gmax",
        "undelivered",
        "participants",
    ];

    /// The fields in [`RunMetrics::NAMES`] order.
    pub fn values(&self) -> [u64; 11] {
        [
            self.faults,
            self.coloring_latency,
            self.quiescence_latency,
            self.correction_latency,
            self.messages,
            self.messages_dissemination,
            self.messages_correction,
            self.messages_acknowledgment,
            self.gmax,
            self.undelivered,
            self.participants,
        ]
    }

    /// The metrics of a finished run; `deadline` is the tree's fault-free deadline and
    /// `faults` the number of processes failed before the operation.
    pub fn from_report<V>(report: &Report<V>, deadline: Time, faults: u64) -> Self {
        let quiescence = report.quiescence_latency();
        Self {
            faults,
            coloring_latency: report.coloring_latency(),
            quiescence_latency: quiescence,
            correction_latency: quiescence.saturating_sub(deadline),
            messages: report.messages_total(),
            messages_dissemination: report.messages_in(Phase::Dissemination),
            messages_correction: report.messages_in(Phase::Correction),
            messages_acknowledgment: report.messages_in(Phase::Acknowledgment),
            gmax: report.gmax_after_dissemination(),
            undelivered: u64::from(report.undelivered()),
            participants: u64::from(report.correction_participants()),
        }
    }
}
