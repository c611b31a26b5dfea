//! The Corrected Tree family's per-run metrics (CT §4), read from a driver's report: what the
//! CT reproduction, `simulate` and `sweep` aggregate for a broadcast, `g_max` included.

use ftcoll::automaton::Phase;
use ftcoll::protocols::corrected_tree::gmax_after_dissemination;
use ftcoll::Time;
use ftcoll_sim::Report;

/// The per-run numbers that sweeps aggregate (one `simulate` row without the parameters). Every
/// field is an integer so that summaries are exact and independent of summation order.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct CtMetrics {
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
    /// `g_max` after dissemination, see [`gmax_after_dissemination`].
    pub gmax: u64,
    /// Live processes that never delivered.
    pub undelivered: u64,
    /// Processes that sent at least one correction message.
    pub participants: u64,
}

impl CtMetrics {
    /// Names of the fields, in [`CtMetrics::values`] order.
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

    /// The fields in [`CtMetrics::NAMES`] order.
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
            gmax: gmax_after_dissemination(report.procs, |r| report.by_dissemination(r)),
            undelivered: u64::from(report.undelivered()),
            participants: u64::from(report.correction_participants()),
        }
    }
}
