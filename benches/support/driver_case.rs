//! The driver benchmark's case (issue 16), included by `benches/driver.rs` and by
//! `examples/driver_run.rs`, so that the example runs exactly what the bench times: a Corrected
//! Tree broadcast on a binomial tree (interleaved numbering), `L = 2, o = 1`, dual-port LogP,
//! the root immune, and `round(fraction·P)` ranks failed before the operation, drawn as
//! `simulate --fault-count` draws them (seed 1, run 0).

use ftcoll::protocols::corrected_tree::{CorrectedTreeConfig, CorrectionSpec, StartMode};
use ftcoll::sim::scenario::{ArrivalSpec, FaultSpec, ScenarioError, ScenarioSpec};
use ftcoll::sim::{PortModel, Scenario};
use ftcoll::topology::{LogP, Order, TopologyError, Tree, TreeKind};

fn logp() -> LogP {
    LogP::new(2, 1).expect("L = 2, o = 1 is a valid LogP")
}

/// The protocol configuration at `P = procs`.
pub fn config(
    procs: u32,
    correction: CorrectionSpec,
    start: StartMode,
) -> Result<CorrectedTreeConfig, TopologyError> {
    let tree = Tree::new(
        TreeKind::Binomial,
        Order::Interleaved,
        u64::from(procs),
        logp(),
    )?;
    Ok(CorrectedTreeConfig::new(tree, correction, start))
}

/// The scenario at `P = procs` with `round(fraction·P)` ranks failed.
pub fn scenario(procs: u32, fraction: f64) -> Result<Scenario, ScenarioError> {
    let spec = ScenarioSpec {
        procs,
        logp: logp(),
        model: PortModel::DualPort,
        immune: 1,
        faults: FaultSpec::Count((fraction * f64::from(procs)).round() as u32),
        crash_at: Vec::new(),
        arrivals: ArrivalSpec::None,
    };
    Ok(spec.build(1, 0)?.0)
}
