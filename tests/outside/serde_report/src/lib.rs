//! Stores a simulated broadcast's report as JSON and reads it back, using only ftcoll's public
//! API and its `serde` feature.

use ftcoll::protocols::corrected_tree::{
    CorrectedTreeConfig, CorrectedTreeNode, CorrectionSpec, StartMode,
};
use ftcoll_sim::{self as sim, Report, Scenario};
use ftcoll::topology::{LogP, Order, Tree, TreeKind};

/// A checked-correction broadcast over 16 processes with ranks 3 and 5 failed.
pub fn report() -> Result<Report, Box<dyn std::error::Error>> {
    let logp = LogP::new(2, 1)?;
    // One process count for the tree and the driver.
    let procs: u32 = 16;
    let tree = Tree::new(TreeKind::Binomial, Order::Interleaved, procs, logp)?;
    let config = CorrectedTreeConfig::new(tree, CorrectionSpec::Checked, StartMode::Synchronized);
    let scenario = Scenario {
        logp,
        crashes: vec![(3, 0), (5, 0)],
        ..Default::default()
    };
    Ok(sim::run::<CorrectedTreeNode>(
        &config,
        procs,
        &scenario,
        sim::default_budget(procs),
    )?)
}

/// The report as JSON.
pub fn to_json(report: &Report) -> serde_json::Result<String> {
    serde_json::to_string(report)
}

/// A report read back from JSON.
pub fn from_json(json: &str) -> serde_json::Result<Report> {
    serde_json::from_str(json)
}
