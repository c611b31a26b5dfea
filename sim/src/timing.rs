//! The timing-model seam: one interface through which any [`Automaton`] runs under any of the
//! driver's timing models, and the rules every model applies the same way.
//!
//! A timing model decides *when* things happen: how long a send occupies a port, when a
//! message reaches its receiver, when a process may send again. What happens is the same in
//! every model, and lives here:
//!
//! - **the scenario's faults**: `P` must be the configuration's, the arrival times one per
//!   process (or none), every crashing rank below `P` ([`SimError`] names the field);
//! - **the contract of a send**: only from [`Automaton::on_send_slot`], at most one per slot,
//!   never to the sender itself or outside `0..P` ([`SimError::Contract`]);
//! - **the metrics**: every model fills the same protocol-neutral [`Report`].
//!
//! The models: [`Scenario`](crate::Scenario) (dual-port LogP, CT §2.2, or FTCO's single-port
//! steps, §2, §5.2, by its [`model`](crate::Scenario::model)) and
//! [`PapScenario`](crate::pap::PapScenario) (PAP §3.1). A caller generic over [`TimingModel`]
//! runs one automaton under each:
//!
//! ```
//! use ftcoll::protocols::corrected_tree::{
//!     CorrectedTreeConfig, CorrectedTreeNode, CorrectionSpec, StartMode,
//! };
//! use ftcoll::topology::{LogP, Order, Tree, TreeKind};
//! use ftcoll_sim::pap::PapScenario;
//! use ftcoll_sim::{Scenario, TimingModel};
//!
//! fn undelivered<T: TimingModel>(timing: &T) -> u32 {
//!     let logp = LogP::new(2, 1).unwrap();
//!     let tree = Tree::new(TreeKind::Lame(2), Order::Interleaved, 16, logp).unwrap();
//!     let config =
//!         CorrectedTreeConfig::new(tree, CorrectionSpec::Checked, StartMode::Overlapped);
//!     let report = timing.run::<CorrectedTreeNode>(&config, 16, 1 << 20).unwrap();
//!     report.undelivered()
//! }
//!
//! let crashes = vec![(3, 0), (9, 0)];
//! let logp = Scenario { crashes: crashes.clone(), ..Default::default() };
//! let pap = PapScenario { crashes, ..Default::default() };
//! assert_eq!(undelivered(&logp), 0);
//! assert_eq!(undelivered(&pap), 0);
//! ```

use crate::error::SimError;
use crate::metrics::Report;
use ftcoll::automaton::Automaton;
use ftcoll::{Rank, Time};

/// A timing model: runs one operation of `P` processes of any automaton to quiescence, with
/// the model's own arrivals and crashes, and reports it.
///
/// Implemented by [`Scenario`](crate::Scenario) (LogP, dual- or single-port) and
/// [`PapScenario`](crate::pap::PapScenario); each model's module documentation states its
/// timing exactly. Every implementation refuses a bad scenario before it allocates a process,
/// with the error [`TimingModel::check`] gives (a model written outside this crate calls it
/// first in its `run`), and holds automata to the same contract.
pub trait TimingModel {
    /// Arrival time of each process (empty: everyone at 0).
    fn arrivals(&self) -> &[Time];

    /// `(rank, time)`: the rank crashes at `time` (0: before the operation).
    fn crashes(&self) -> &[(Rank, Time)];

    /// Runs one operation of `P = procs` processes of automaton `A` to quiescence;
    /// `max_events` bounds the work ([`SimError::EventBudget`]).
    fn run<A: Automaton>(
        &self,
        config: &A::Config,
        procs: u32,
        max_events: u64,
    ) -> Result<Report<A::Value>, SimError>;

    /// Whether this model can run `P = procs` processes of `A` with `config`: the error a
    /// [`TimingModel::run`] would return before doing any work, if any.
    fn check<A: Automaton>(&self, config: &A::Config, procs: u32) -> Result<(), SimError> {
        check_faults::<A>(config, procs, self.arrivals(), self.crashes())
    }
}

/// The scenario's faults fit `P = procs` processes of `A` with `config`: `procs` is the
/// configuration's `P` (when it names one), `arrivals` is empty or has one time per process,
/// every crashing rank is below `P`. Checked in this order, so every model names the same
/// first fault.
pub(crate) fn check_faults<A: Automaton>(
    config: &A::Config,
    procs: u32,
    arrivals: &[Time],
    crashes: &[(Rank, Time)],
) -> Result<(), SimError> {
    if let Some(p) = A::procs(config).filter(|&p| p != procs) {
        return Err(SimError::ProcsMismatch {
            given: procs,
            config: p,
        });
    }
    if !arrivals.is_empty() && arrivals.len() != procs as usize {
        return Err(SimError::ArrivalsLength {
            len: arrivals.len(),
            procs,
        });
    }
    if let Some(&(rank, _)) = crashes.iter().find(|&&(r, _)| r >= procs) {
        return Err(SimError::RankOutOfRange {
            field: "crashes",
            rank,
            procs,
        });
    }
    Ok(())
}

/// The contract of a send by `rank` to `to` at `now` (DESIGN §2): only in a send slot
/// (`in_slot`), at most one per slot (`sent_before`: this slot already sent), to another rank
/// below `procs`.
#[inline]
pub(crate) fn check_send(
    rank: Rank,
    to: Rank,
    procs: usize,
    in_slot: bool,
    sent_before: bool,
    now: Time,
) -> Result<(), SimError> {
    if in_slot && !sent_before && (to as usize) < procs && to != rank {
        Ok(())
    } else {
        Err(broken_send(rank, in_slot, sent_before, now))
    }
}

/// Which rule a send broke (out of line: no run of this crate's automata takes it).
#[cold]
fn broken_send(rank: Rank, in_slot: bool, sent_before: bool, now: Time) -> SimError {
    let what = if !in_slot {
        "sent outside on_send_slot"
    } else if sent_before {
        "sent twice in one send slot"
    } else {
        "sent to a rank outside 0..P or to itself"
    };
    SimError::Contract {
        rank,
        time: now,
        what,
    }
}
