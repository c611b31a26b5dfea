//! What FTCO §5.2 reports per run, from the driver's protocol-neutral [`Report`]: latency,
//! quiescence, completions, output spread, the longest queue and the work per message kind.
//! The definitions live here, in one place, so every experiment and front end reports the same
//! numbers.

use alloc::vec;

use ftcoll::automaton::Phase;
use ftcoll::topology::ftco::Collective;
use ftcoll::{Rank, Time};
use ftcoll_sim::Report;

/// The metrics of one FTCO run (FTCO §5.2, Table 2).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FtcoMetrics<V> {
    /// Until the collective is complete, from rank 0's start: the last delivery of a live
    /// process (Bcast), rank 0's completion (Reduce), the last completion (Allreduce).
    pub latency: Time,
    /// Until the last send, receive, delivery or completion, from rank 0's start (a completion
    /// a timer triggers may come after the last message).
    pub quiescence: Time,
    /// Deliveries (Bcast) or completions (Reduce, Allreduce).
    pub completions: u64,
    /// Live processes that never delivered (Bcast) or completed (Allreduce); for Reduce, 1 if
    /// rank 0 did not complete.
    pub incomplete: u64,
    /// Output spread (§5.2.4, Table 2): `FinishTime_last − FinishTime_first` over the processes
    /// other than rank 0, the root (see [`output_spread`]); 0 with fewer than two of them
    /// finished.
    pub spread: Time,
    /// The longest incoming queue of any process (single-port model).
    pub longest_queue: u64,
    /// Messages sent, all kinds.
    pub messages: u64,
    /// DATA messages.
    pub data: u64,
    /// KEEPALIVE messages.
    pub keepalive: u64,
    /// ACK messages.
    pub ack: u64,
    /// Messages that reached a crashed process.
    pub lost: u64,
    /// The value rank 0 delivered (Bcast) or completed with (Reduce, Allreduce).
    pub result: Option<V>,
}

impl<V: Clone> FtcoMetrics<V> {
    /// The metrics of a finished run of `collective`.
    pub fn from_report(report: &Report<V>, collective: Collective) -> Self {
        let start = report.root_start;
        let (latency, completions, incomplete, spread, result) = match collective {
            Collective::Bcast => (
                report.coloring_latency(),
                report.delivery_times().flatten().count() as u64,
                u64::from(report.undelivered()),
                output_spread(
                    report
                        .delivery_times()
                        .enumerate()
                        .filter_map(|(rank, t)| Some((rank as Rank, t?))),
                ),
                (report.procs > 0)
                    .then(|| report.delivered_value(0).cloned())
                    .flatten(),
            ),
            Collective::Reduce | Collective::Allreduce => {
                let mut done = vec![false; report.procs as usize];
                let mut last = start;
                for &(rank, t, _) in &report.completions {
                    done[rank as usize] = true;
                    last = last.max(t);
                }
                let rank0 = report.completions.iter().find(|c| c.0 == 0);
                let (latency, incomplete) = match collective {
                    Collective::Reduce => (
                        rank0.map_or(0, |c| c.1.saturating_sub(start)),
                        u64::from(rank0.is_none()),
                    ),
                    _ => (
                        last.saturating_sub(start),
                        (0..report.procs as Rank)
                            .filter(|&r| report.is_live(r) && !done[r as usize])
                            .count() as u64,
                    ),
                };
                (
                    latency,
                    report.completions.len() as u64,
                    incomplete,
                    output_spread(report.completions.iter().map(|c| (c.0, c.1))),
                    rank0.map(|c| c.2.clone()),
                )
            }
        };
        let last_output = report
            .completions
            .iter()
            .map(|c| c.1)
            .chain(report.delivery_times().flatten())
            .max()
            .unwrap_or(start);
        Self {
            latency,
            quiescence: report
                .quiescence_latency()
                .max(last_output.saturating_sub(start)),
            completions,
            incomplete,
            spread,
            longest_queue: report.longest_queue,
            messages: report.messages_total(),
            data: report.messages_in(Phase::Dissemination),
            keepalive: report.messages_in(Phase::Liveness),
            ack: report.messages_in(Phase::Acknowledgment),
            lost: report.lost,
            result,
        }
    }
}

/// Output spread (FTCO §5.2.4, Table 2): `FinishTime_last − FinishTime_first` of the `(rank,
/// finish time)` pairs, rank 0 left out; 0 with fewer than two other processes.
///
/// §5.2.4 defines `FinishTime_last` as the last *non-root* process to finish, and the root is
/// the one process that stays active throughout (§4, "Data Propagation Disruptions"), so it has
/// no finish of its own to count at either end. Counted, it would make a Bcast's spread its
/// latency (the root holds the value at its start) and a single-root Allreduce's one hop
/// larger (the root finishes before any child has the result). The other roots of a multi-root
/// tree do finish, and Table 2's fault-free 43 is measured from them. A Bcast's finish is its
/// delivery; a Reduce records no finish below rank 0 (except with root replacement).
pub fn output_spread(finishes: impl Iterator<Item = (Rank, Time)>) -> Time {
    let mut range: Option<(Time, Time)> = None;
    for (_, t) in finishes.filter(|&(rank, _)| rank != 0) {
        range = Some(range.map_or((t, t), |(a, b)| (a.min(t), b.max(t))));
    }
    range.map_or(0, |(first, last)| last - first)
}
