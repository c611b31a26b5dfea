//! What a run did, for any automaton: each process's deliveries (and whether a dissemination
//! message caused the first), completions and messages per phase, and the latencies CT §4
//! defines over them (coloring, quiescence). A family's own metrics read them
//! (`ftcoll::protocols::corrected_tree::gmax_after_dissemination`, `ftcoll-lab`'s `CtMetrics`
//! and `FtcoMetrics`).

use alloc::collections::BTreeMap;
use alloc::vec;
use alloc::vec::Vec;

use super::time_code::{FarTimes, FAR_CODE};
use super::TraceEvent;
use ftcoll::automaton::{Phase, Value};
use ftcoll::{Rank, Time};

/// Index of a phase in per-phase arrays.
pub(crate) fn phase_index(phase: Phase) -> usize {
    match phase {
        Phase::Dissemination => 0,
        Phase::Correction => 1,
        Phase::Acknowledgment => 2,
        Phase::Liveness => 3,
    }
}

/// Everything measured in one run. Times are absolute; latencies are relative to the root's
/// start. `V` is the automaton's value type.
///
/// The per-process metrics are read through methods ([`Report::delivered_at`],
/// [`Report::sent`], …) because they are stored compactly: 13 bytes per process (a row of two
/// 32-bit times and two 16-bit send counters, and a byte of flags; a time of 2^32 − 2 or later
/// and a count of 2^16 − 1 or more are kept aside, `sim`'s time codes), where a vector per
/// metric took 58. Runs
/// of millions of processes keep this report in memory next to the driver, and a
/// model checker hashes it with every state. What most runs do not need costs nothing: the
/// delivered values are one value while every process delivered the same one, acknowledgment
/// counters exist once a process sent one, and deliveries beyond the first sit in a map.
#[derive(Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Report<V = Value> {
    /// `P`.
    pub procs: u32,
    /// When the root started (its arrival).
    pub root_start: Time,
    /// Each process's first delivery time, last activity and dissemination and correction
    /// sends.
    rows: Vec<Row>,
    /// The row times ([`DELIVERED_AT`], [`FINISH`]) too large for their 32-bit codes.
    far_times: FarTimes,
    /// The send counts of the rows that mark them [`FAR_SENT`], by rank and phase index
    /// (exactly those, so equal reports are equal values).
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_map::rank_field_map"))]
    far_sent: BTreeMap<(Rank, u8), u32>,
    /// Each process's [`DELIVERED`], [`BY_DISSEMINATION`] and [`CRASHED`] flags.
    flags: Vec<u8>,
    /// The value each process delivered first.
    values: Values<V>,
    /// Deliveries after the first, of each process that had any (a duplicate).
    extra_deliveries: BTreeMap<Rank, u32>,
    /// Acknowledgments sent by each process; empty until one is sent.
    acknowledgments: Vec<u32>,
    /// Liveness probes sent by each process; empty until one is sent.
    probes: Vec<u32>,
    /// Messages per phase (dissemination, correction, acknowledgment, liveness).
    pub messages: [u64; 4],
    /// `(rank, time, value)` of every completion event.
    pub completions: Vec<(Rank, Time, V)>,
    /// Last activity of the whole operation (a receive ends, a send ends, or a message reaches
    /// a crashed process).
    pub last_activity: Time,
    /// Messages that reached a crashed process.
    pub lost: u64,
    /// Inputs an automaton ignored.
    pub ignored: u64,
    /// Messages dropped unread, at no cost, under
    /// [`IgnoredMessages::Free`](crate::IgnoredMessages::Free) (not in `ignored`).
    pub unread: u64,
    /// Events processed: the driver's work, not a result of the protocol. Idle send slots
    /// skipped by the driver are not events (see
    /// [`Sim::offer_every_send_slot`](crate::Sim::offer_every_send_slot)), nor, in
    /// [`run`](crate::run) under dual-port LogP, the arrival of a message at a receiver
    /// alive then (its receive-port turn is taken when it is sent; docs/reference/drivers.md,
    /// "Arrivals folded into sends").
    pub events: u64,
    /// Single-port model (FTCO §5.2.3, Table 2 "Max. Len."): the most messages ever waiting in
    /// one process's incoming queue, counted when a message enters it (the one being handled is
    /// no longer waiting). Always 0 under dual-port LogP, whose receive port has no queue the
    /// automaton chooses from.
    pub longest_queue: u64,
    /// The trace, when requested.
    pub trace: Vec<TraceEvent>,
}

/// One process's row of a [`Report`]: what a delivery, a send or any activity of the process
/// writes, in one place so that it costs one cache line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Row {
    /// The first delivery time (meaningful with [`DELIVERED`]), a 32-bit time code.
    delivered_at: u32,
    /// The end of the process's last send or receive, a 32-bit time code.
    finish: u32,
    /// Dissemination and correction messages sent, each a 16-bit count code: the count, or
    /// [`FAR_SENT`] for a count of 2^16 − 1 or more, kept in `Report::far_sent` (a process
    /// sends that many only with that many peers: SOS, a k-ary root with k ≥ 2^16 − 1, or
    /// FTCO's keep-alives in a very long run).
    sent: [u16; 2],
}

/// The send count code of a count kept aside.
const FAR_SENT: u16 = u16::MAX;

/// `far_times` field: the first delivery time.
const DELIVERED_AT: u8 = 0;
/// `far_times` field: the last activity.
const FINISH: u8 = 1;

/// A flag: the process delivered.
const DELIVERED: u8 = 1;
/// A flag: its first delivery was caused by a dissemination message (or is the root's).
const BY_DISSEMINATION: u8 = 2;
/// A flag: the process crashes at some point of the scenario.
const CRASHED: u8 = 4;

/// The values delivered first, one per process that delivered.
///
/// One representation per set of values, so that equal reports are equal here: `Same` exactly
/// while every process that delivered delivered the same value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
enum Values<V> {
    /// Every process that delivered delivered this value (`None`: nobody delivered yet).
    Same(Option<V>),
    /// Each process's value, `None` where it did not deliver.
    PerProcess(Vec<Option<V>>),
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
            rows,
            far_times,
            far_sent,
            flags,
            values,
            extra_deliveries,
            acknowledgments,
            probes,
            messages,
            completions,
            last_activity,
            lost,
            ignored,
            unread,
            events,
            longest_queue,
            trace,
        } = self;
        *procs = source.procs;
        *root_start = source.root_start;
        rows.clone_from(&source.rows);
        far_times.clone_from(&source.far_times);
        far_sent.clone_from(&source.far_sent);
        flags.clone_from(&source.flags);
        values.clone_from(&source.values);
        extra_deliveries.clone_from(&source.extra_deliveries);
        acknowledgments.clone_from(&source.acknowledgments);
        probes.clone_from(&source.probes);
        *messages = source.messages;
        completions.clone_from(&source.completions);
        *last_activity = source.last_activity;
        *lost = source.lost;
        *ignored = source.ignored;
        *unread = source.unread;
        *events = source.events;
        *longest_queue = source.longest_queue;
        trace.clone_from(&source.trace);
    }
}

impl<V> Report<V> {
    pub(crate) fn new(procs: u32) -> Self {
        let n = procs as usize;
        Self {
            procs,
            root_start: 0,
            rows: vec![Row::default(); n],
            far_times: FarTimes::new(),
            far_sent: BTreeMap::new(),
            flags: vec![0; n],
            values: Values::Same(None),
            extra_deliveries: BTreeMap::new(),
            acknowledgments: Vec::new(),
            probes: Vec::new(),
            messages: [0; 4],
            completions: Vec::new(),
            last_activity: 0,
            lost: 0,
            ignored: 0,
            unread: 0,
            events: 0,
            longest_queue: 0,
            trace: Vec::new(),
        }
    }

    pub(crate) fn record_delivery(&mut self, rank: Rank, now: Time, value: V, cause: Option<Phase>)
    where
        V: Clone + PartialEq,
    {
        let r = rank as usize;
        if self.flags[r] & DELIVERED != 0 {
            let extra = self.extra_deliveries.entry(rank).or_insert(0);
            *extra = extra.saturating_add(1);
            return;
        }
        self.set_time(r, DELIVERED_AT, now);
        match &mut self.values {
            Values::Same(same @ None) => *same = Some(value),
            Values::Same(Some(same)) if *same == value => {}
            Values::Same(Some(same)) => {
                // A second value: from now on one per process.
                let mut each = vec![None; self.flags.len()];
                for (v, &f) in each.iter_mut().zip(&self.flags) {
                    if f & DELIVERED != 0 {
                        *v = Some(same.clone());
                    }
                }
                each[r] = Some(value);
                self.values = Values::PerProcess(each);
            }
            Values::PerProcess(each) => each[r] = Some(value),
        }
        self.flags[r] |= if cause == Some(Phase::Dissemination) {
            DELIVERED | BY_DISSEMINATION
        } else {
            DELIVERED
        };
    }

    pub(crate) fn record_completion(&mut self, rank: Rank, now: Time, value: V) {
        self.completions.push((rank, now, value));
    }

    pub(crate) fn record_send(&mut self, rank: Rank, _now: Time, phase: Phase) {
        let i = phase_index(phase);
        match phase {
            Phase::Dissemination | Phase::Correction => {
                let code = &mut self.rows[rank as usize].sent[i];
                if *code < FAR_SENT - 1 {
                    *code += 1;
                } else {
                    *code = FAR_SENT;
                    let count = self
                        .far_sent
                        .entry((rank, i as u8))
                        .or_insert(u32::from(FAR_SENT) - 1);
                    // Saturating: 2^32 sends by one process count as u32::MAX, not as a panic.
                    *count = count.saturating_add(1);
                }
            }
            Phase::Acknowledgment => {
                if self.acknowledgments.is_empty() {
                    self.acknowledgments = vec![0; self.rows.len()];
                }
                self.acknowledgments[rank as usize] += 1;
            }
            Phase::Liveness => {
                if self.probes.is_empty() {
                    self.probes = vec![0; self.rows.len()];
                }
                self.probes[rank as usize] += 1;
            }
        }
        self.messages[i] += 1;
    }

    /// Notes that `rank` was active until `time` (the end of a send or a receive).
    pub(crate) fn record_finish(&mut self, rank: Rank, time: Time) {
        let r = rank as usize;
        let code = self.rows[r].finish;
        if code < FAR_CODE && time < Time::from(FAR_CODE) {
            // Both are their own codes (the cast is exact).
            self.rows[r].finish = code.max(time as u32);
        } else if time > self.time(r, FINISH, code) {
            self.set_time(r, FINISH, time);
        }
    }

    /// The time a row's code `code` of `field` stands for.
    #[inline]
    fn time(&self, r: usize, field: u8, code: u32) -> Time {
        // `r` indexes the rows, so it is a rank.
        self.far_times.decode(r as Rank, field, code)
    }

    /// Writes time `field` of row `r`.
    fn set_time(&mut self, r: usize, field: u8, time: Time) {
        let row = &self.rows[r];
        let old = if field == DELIVERED_AT {
            row.delivered_at
        } else {
            row.finish
        };
        let code = self.far_times.encode(r as Rank, field, old, time);
        let row = &mut self.rows[r];
        if field == DELIVERED_AT {
            row.delivered_at = code;
        } else {
            row.finish = code;
        }
    }

    /// Whether the far-time map holds exactly the times the rows mark far, and the far-count
    /// map exactly the counts they mark far (tests).
    #[cfg(test)]
    pub(crate) fn far_times_are_canonical(&self) -> bool {
        let codes = self.rows.iter().enumerate().flat_map(|(r, row)| {
            [
                (r as Rank, DELIVERED_AT, row.delivered_at),
                (r as Rank, FINISH, row.finish),
            ]
        });
        let marked = self
            .rows
            .iter()
            .enumerate()
            .flat_map(|(r, row)| (0..2u8).map(move |i| (r as Rank, i, row.sent[usize::from(i)])))
            .filter(|&(_, _, code)| code == FAR_SENT)
            .count();
        self.far_times.matches(codes)
            && marked == self.far_sent.len()
            && self.far_sent.keys().all(|&(r, i)| {
                let row = self.rows.get(r as usize);
                row.and_then(|row| row.sent.get(usize::from(i))) == Some(&FAR_SENT)
            })
    }

    /// A process's first delivery time.
    fn first_delivery(&self, r: usize) -> Option<Time> {
        (self.flags[r] & DELIVERED != 0)
            .then(|| self.time(r, DELIVERED_AT, self.rows[r].delivered_at))
    }

    /// Marks whether `rank` crashes at some point of the scenario.
    pub(crate) fn set_crashed(&mut self, rank: Rank, crashed: bool) {
        let flags = &mut self.flags[rank as usize];
        if crashed {
            *flags |= CRASHED;
        } else {
            *flags &= !CRASHED;
        }
    }

    /// Reads what a delivery or a send to `rank` writes, without changing anything (the
    /// driver's read-ahead: `Sim::warm`); 0 for a rank out of range.
    pub(crate) fn touch(&self, rank: Rank) -> Time {
        let r = rank as usize;
        self.rows
            .get(r)
            .map_or(0, |row| Time::from(row.finish ^ row.delivered_at))
            ^ Time::from(self.flags.get(r).copied().unwrap_or(0))
    }

    /// The first delivery time of `rank`, `None` if it never delivered.
    ///
    /// # Panics
    ///
    /// If `rank` is not below [`Report::procs`] (as every per-process method here).
    pub fn delivered_at(&self, rank: Rank) -> Option<Time> {
        let r = rank as usize;
        self.first_delivery(r)
    }

    /// The first delivery times of every process, in rank order.
    pub fn delivery_times(&self) -> impl ExactSizeIterator<Item = Option<Time>> + Clone + '_ {
        (0..self.rows.len()).map(|r| self.first_delivery(r))
    }

    /// The value `rank` delivered first, `None` if it never delivered.
    pub fn delivered_value(&self, rank: Rank) -> Option<&V> {
        match &self.values {
            Values::Same(value) => self.delivered_at(rank).and(value.as_ref()),
            Values::PerProcess(each) => each[rank as usize].as_ref(),
        }
    }

    /// Number of deliveries of `rank` (more than 1 is a duplicate).
    pub fn deliveries(&self, rank: Rank) -> u32 {
        if self.flags[rank as usize] & DELIVERED == 0 {
            return 0;
        }
        // Saturating: 2^32 deliveries to one process count as u32::MAX, not as a panic.
        1u32.saturating_add(self.extra_deliveries.get(&rank).copied().unwrap_or(0))
    }

    /// Whether the first delivery of `rank` was caused by a dissemination message (or is the
    /// root's); `false` if it never delivered.
    pub fn by_dissemination(&self, rank: Rank) -> bool {
        self.flags[rank as usize] & BY_DISSEMINATION != 0
    }

    /// Whether `rank` crashes at some point of the scenario.
    pub fn crashed(&self, rank: Rank) -> bool {
        self.flags[rank as usize] & CRASHED != 0
    }

    /// Messages sent by `rank`, per phase (dissemination, correction, acknowledgment,
    /// liveness).
    pub fn sent(&self, rank: Rank) -> [u32; 4] {
        self.sent_at(rank as usize)
    }

    /// [`Report::sent`] by index: the row's two counters, the acknowledgments and the probes,
    /// if any.
    fn sent_at(&self, r: usize) -> [u32; 4] {
        let count = |i: usize| match self.rows[r].sent[i] {
            FAR_SENT => self
                .far_sent
                .get(&(r as Rank, i as u8))
                .copied()
                // (Only a corrupted deserialized report marks a count it does not keep: it
                // reads as the least marked count.)
                .unwrap_or(u32::from(FAR_SENT)),
            code => u32::from(code),
        };
        let (dissemination, correction) = (count(0), count(1));
        let acknowledgment = self.acknowledgments.get(r).copied().unwrap_or(0);
        let probes = self.probes.get(r).copied().unwrap_or(0);
        [dissemination, correction, acknowledgment, probes]
    }

    /// The messages every process sent, per phase as [`Report::sent`], in rank order.
    pub fn sent_counts(&self) -> impl ExactSizeIterator<Item = [u32; 4]> + Clone + '_ {
        (0..self.rows.len()).map(|r| self.sent_at(r))
    }

    /// Last activity of `rank` (end of a send or of a receive; 0 if none).
    pub fn finish(&self, rank: Rank) -> Time {
        let r = rank as usize;
        self.time(r, FINISH, self.rows[r].finish)
    }

    /// The last activity of every process, in rank order.
    pub fn finish_times(&self) -> impl ExactSizeIterator<Item = Time> + Clone + '_ {
        (0..self.rows.len()).map(|r| self.time(r, FINISH, self.rows[r].finish))
    }

    /// Whether `rank` never crashes in this scenario.
    pub fn is_live(&self, rank: Rank) -> bool {
        !self.crashed(rank)
    }

    /// Coloring latency (CT §4): from the root's start until the last live process delivered.
    pub fn coloring_latency(&self) -> Time {
        (0..self.procs)
            .filter(|&r| self.is_live(r))
            .filter_map(|r| self.delivered_at(r))
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
            .filter(|&r| self.is_live(r) && self.delivered_at(r).is_none())
            .count() as u32
    }

    /// Processes that delivered more than once.
    pub fn duplicates(&self) -> u32 {
        // Every process in the map delivered twice or more.
        self.extra_deliveries.len() as u32
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
        self.rows.iter().filter(|row| row.sent[1] > 0).count() as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hash of a report, to check that equal reports hash equally.
    fn hash_of(report: &Report<u64>) -> u64 {
        use core::hash::{Hash, Hasher};
        // FNV-1a: deterministic, no clock or seed.
        struct Fnv(u64);
        impl Hasher for Fnv {
            fn finish(&self) -> u64 {
                self.0
            }
            fn write(&mut self, bytes: &[u8]) {
                for &b in bytes {
                    self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
                }
            }
        }
        let mut h = Fnv(0xcbf2_9ce4_8422_2325);
        report.hash(&mut h);
        h.finish()
    }

    #[test]
    fn a_row_is_12_bytes_and_a_process_costs_13() {
        assert_eq!(core::mem::size_of::<Row>(), 12);
        // The flags byte is the 13th; values, extra deliveries and acknowledgments cost
        // nothing per process while every process delivers the same value once and nobody
        // acknowledges.
        let report = Report::<u64>::new(1000);
        assert_eq!(report.rows.len() + report.flags.len(), 2000);
        assert!(report.acknowledgments.is_empty() && report.extra_deliveries.is_empty());
    }

    /// A send count past the 16-bit code reads back exactly, through the boundary, and only
    /// counts that need it are kept aside; equal counts are equal reports however they were
    /// reached.
    #[test]
    fn send_counts_beyond_16_bits_read_back_exactly() {
        let mut r = Report::<u64>::new(3);
        for n in 1..=70_000u32 {
            r.record_send(1, 0, Phase::Correction);
            if n % 9_973 == 0 || (65_530..65_540).contains(&n) {
                assert_eq!(r.sent(1), [0, n, 0, 0], "after {n} sends");
                assert_eq!(r.far_sent.len(), usize::from(n >= 65_535));
            }
        }
        r.record_send(2, 0, Phase::Dissemination);
        assert_eq!(r.sent(2), [1, 0, 0, 0]);
        assert_eq!(r.sent_counts().map(|c| c[1]).sum::<u32>(), 70_000);
        assert_eq!(r.correction_participants(), 1);
        let mut other = Report::<u64>::new(3);
        other.record_send(2, 0, Phase::Dissemination);
        for _ in 0..70_000 {
            other.record_send(1, 0, Phase::Correction);
        }
        assert_eq!(other, r);
        assert_eq!(hash_of(&other), hash_of(&r));
        assert!(r.far_times_are_canonical());
    }

    /// A report with counts and times kept aside survives JSON, whose map keys can only be
    /// strings or integers (the maps are written as lists).
    #[cfg(feature = "serde")]
    #[test]
    fn a_report_with_far_counts_and_times_round_trips_through_json() {
        let mut r = Report::<u64>::new(3);
        for _ in 0..70_000 {
            r.record_send(1, 0, Phase::Dissemination);
        }
        r.record_finish(2, 1 << 40);
        assert_eq!((r.far_sent.len(), r.finish(2)), (1, 1 << 40));
        let json = serde_json::to_string(&r).expect("a report serializes");
        let back: Report<u64> = serde_json::from_str(&json).expect("and reads back");
        assert_eq!(back, r);
        assert_eq!(back.sent(1), [70_000, 0, 0, 0]);
    }

    #[test]
    fn per_process_metrics_read_back_as_recorded() {
        let mut r = Report::<u64>::new(4);
        r.record_delivery(0, 0, 7, None);
        r.record_delivery(2, 5, 7, Some(Phase::Correction));
        r.record_delivery(1, 3, 7, Some(Phase::Dissemination));
        r.record_delivery(1, 9, 8, Some(Phase::Correction));
        r.record_delivery(1, 11, 9, Some(Phase::Correction));
        r.record_send(0, 0, Phase::Dissemination);
        r.record_send(0, 1, Phase::Dissemination);
        r.record_send(2, 6, Phase::Correction);
        r.record_send(3, 6, Phase::Acknowledgment);
        r.record_send(2, 7, Phase::Liveness);
        r.record_finish(2, 8);
        r.record_finish(2, 6);
        r.set_crashed(3, true);
        let times: Vec<_> = r.delivery_times().collect();
        assert_eq!(times, [Some(0), Some(3), Some(5), None]);
        assert_eq!(
            (0..4).map(|k| r.delivered_value(k)).collect::<Vec<_>>(),
            [Some(&7), Some(&7), Some(&7), None]
        );
        assert_eq!(
            (0..4).map(|k| r.deliveries(k)).collect::<Vec<_>>(),
            [1, 3, 1, 0]
        );
        assert_eq!(r.duplicates(), 1);
        assert_eq!(
            (0..4).map(|k| r.by_dissemination(k)).collect::<Vec<_>>(),
            [false, true, false, false]
        );
        assert_eq!(
            r.sent_counts().collect::<Vec<_>>(),
            [[2, 0, 0, 0], [0, 0, 0, 0], [0, 1, 0, 1], [0, 0, 1, 0]]
        );
        assert_eq!(r.sent(3), [0, 0, 1, 0]);
        assert_eq!(r.sent(2), [0, 1, 0, 1], "a KEEPALIVE is a liveness probe");
        assert_eq!(r.messages_in(Phase::Liveness), 1);
        assert_eq!(r.finish_times().collect::<Vec<_>>(), [0, 0, 8, 0]);
        assert_eq!(
            (r.crashed(3), r.is_live(3), r.is_live(2)),
            (true, false, true)
        );
        assert_eq!(r.messages, [2, 1, 1, 1]);
        assert_eq!((r.undelivered(), r.correction_participants()), (0, 1));
    }

    #[test]
    fn a_second_value_keeps_every_first_value() {
        let mut r = Report::<u64>::new(3);
        r.record_delivery(2, 1, 7, None);
        r.record_delivery(0, 2, 7, None);
        assert!(matches!(r.values, Values::Same(Some(7))));
        r.record_delivery(1, 3, 8, None);
        assert_eq!(
            (0..3).map(|k| r.delivered_value(k)).collect::<Vec<_>>(),
            [Some(&7), Some(&8), Some(&7)]
        );
    }

    #[test]
    fn equal_metrics_are_equal_reports_whatever_the_order() {
        // The model checker compares and hashes reports: the same deliveries recorded in another
        // order must give the same report.
        let mut a = Report::<u64>::new(3);
        let mut b = Report::<u64>::new(3);
        a.record_delivery(0, 1, 7, None);
        a.record_delivery(1, 1, 8, None);
        b.record_delivery(1, 1, 8, None);
        b.record_delivery(0, 1, 7, None);
        assert_eq!(a, b);
        assert_eq!(hash_of(&a), hash_of(&b));
        let mut c = Report::<u64>::new(3);
        c.record_delivery(0, 1, 7, None);
        c.record_delivery(1, 1, 7, None);
        assert_ne!(a, c);
        c.set_crashed(2, true);
        c.set_crashed(2, false);
        let mut d = Report::<u64>::new(3);
        d.record_delivery(1, 1, 7, None);
        d.record_delivery(0, 1, 7, None);
        assert_eq!((c == d, hash_of(&c) == hash_of(&d)), (true, true));
    }

    #[test]
    fn a_clone_equals_its_source() {
        let mut r = Report::<u64>::new(3);
        r.record_delivery(0, 1, 7, None);
        r.record_delivery(1, 1, 8, None);
        r.record_send(2, 1, Phase::Acknowledgment);
        let mut copy = Report::new(5);
        copy.clone_from(&r);
        assert_eq!(copy, r);
        assert_eq!(r.clone(), r);
    }
}
