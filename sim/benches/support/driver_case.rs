//! The driver benchmark's case, included by `sim/benches/driver.rs`,
//! `sim/benches/automaton_alone.rs` and the examples `driver_run` and `automaton_alone`, so that
//! they run exactly what the bench times: a Corrected
//! Tree broadcast on a binomial tree (interleaved numbering), `L = 2, o = 1`, dual-port LogP,
//! the root immune, and `round(fraction·P)` ranks failed before the operation, drawn as
//! `simulate --fault-count` draws them (seed 1, run 0).

use ftcoll::protocols::corrected_tree::{CorrectedTreeConfig, CorrectionSpec, StartMode};
use ftcoll::topology::{LogP, Order, TopologyError, Tree, TreeKind};
use ftcoll_sim::scenario::{FaultSpec, ScenarioError, ScenarioSpec};
use ftcoll_sim::Scenario;

fn logp() -> LogP {
    LogP::new(2, 1).expect("L = 2, o = 1 is a valid LogP")
}

/// The protocol configuration at `P = procs`.
pub fn config(
    procs: u32,
    correction: CorrectionSpec,
    start: StartMode,
) -> Result<CorrectedTreeConfig, TopologyError> {
    let tree = Tree::new(TreeKind::Binomial, Order::Interleaved, procs, logp())?;
    Ok(CorrectedTreeConfig::new(tree, correction, start))
}

/// The scenario at `P = procs` with `round(fraction·P)` ranks failed.
pub fn scenario(procs: u32, fraction: f64) -> Result<Scenario, ScenarioError> {
    let spec = ScenarioSpec::new(procs, logp()).with_faults(FaultSpec::Count(
        (fraction * f64::from(procs)).round() as u32,
    ));
    Ok(spec.build(1, 0)?.0)
}

/// The three correction variants the driver is measured on: a label, the correction as `simulate --correction`
/// spells it (`failproof:1` gets the CLI's SOS timeout), and the start.
#[allow(dead_code)] // (the benches read it, the examples do not)
pub const VARIANTS: [(&str, &str, StartMode); 3] = [
    (
        "opportunistic2-overlap",
        "opportunistic:2",
        StartMode::Overlapped,
    ),
    ("checked-sync", "checked", StartMode::Synchronized),
    ("failproof1-sync", "failproof:1", StartMode::Synchronized),
];

/// Calls `case` with the label, configuration and scenario of each of the six measured runs at
/// `P = procs` (each variant fault-free and with 1 % failed).
#[allow(dead_code)] // (the benches read it, the examples do not)
pub fn for_each_case(procs: u32, mut case: impl FnMut(String, &CorrectedTreeConfig, &Scenario)) {
    for (label, correction, start) in VARIANTS {
        let spec: CorrectionSpec = correction.parse().expect("a correction spelling");
        let config = config(procs, spec, start).expect("a valid tree");
        for (faults, fraction) in [("fault-free", 0.0), ("1%", 0.01)] {
            let scenario = scenario(procs, fraction).expect("a valid scenario");
            case(format!("{label}/{faults}"), &config, &scenario);
        }
    }
}

/// The examples' arguments after any flag: `PROCS CORRECTION START FRACTION [REPEATS]`.
#[allow(dead_code)] // (the examples read it, the benches do not)
pub struct Args {
    /// `P`, in `2..=2^24`.
    pub procs: u32,
    /// The configuration.
    pub config: CorrectedTreeConfig,
    /// The scenario.
    pub scenario: Scenario,
    /// Runs to average over, at least 1.
    pub repeats: u32,
}

/// The largest `P` the examples run (the largest measured run; memory grows with `P`).
const MAX_PROCS: u32 = 1 << 24;

/// Parses the examples' arguments, naming the argument and its range on error.
#[allow(dead_code)] // (the examples read it, the benches do not)
pub fn parse_args(args: &[String]) -> Result<Args, String> {
    if !(4..=5).contains(&args.len()) {
        return Err(format!("expected 4 or 5 arguments, got {}", args.len()));
    }
    let procs: u32 = args[0]
        .parse()
        .ok()
        .filter(|p| (2..=MAX_PROCS).contains(p))
        .ok_or("PROCS must be an integer in 2..=16777216")?;
    let spec: CorrectionSpec = args[1].parse().map_err(|e| format!("CORRECTION: {e}"))?;
    let start = match args[2].as_str() {
        "sync" => StartMode::Synchronized,
        "overlap" => StartMode::Overlapped,
        _ => return Err("START must be sync or overlap".into()),
    };
    let fraction: f64 = args[3]
        .parse()
        .ok()
        .filter(|f: &f64| (0.0..=1.0).contains(f))
        .ok_or("FRACTION must be a number in 0..=1")?;
    let repeats: u32 = match args.get(4) {
        None => 1,
        Some(r) => r
            .parse()
            .ok()
            .filter(|&r| r >= 1)
            .ok_or("REPEATS must be an integer in 1..=4294967295")?,
    };
    Ok(Args {
        procs,
        config: config(procs, spec, start).map_err(|e| format!("PROCS: {e}"))?,
        scenario: scenario(procs, fraction).map_err(|e| format!("scenario: {e}"))?,
        repeats,
    })
}
