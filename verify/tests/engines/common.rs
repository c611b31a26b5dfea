//! Helpers shared by the tests that compare the timed model's search engines
//! (`layered.rs`, `depth.rs`).

use ftcoll_verify::CheckResult;

/// What must not depend on the engine: everything but the run time, and the traces only when
/// `traces` (models without choices minimize their counterexamples the same way).
pub fn assert_same(what: &str, a: &CheckResult, b: &CheckResult, traces: bool) {
    assert_eq!(a.states, b.states, "{what}: unique states");
    assert_eq!(a.verdict(), b.verdict(), "{what}: verdict");
    assert_eq!(a.reached, b.reached, "{what}: examples reached");
    assert_eq!(a.cut_by_horizon, b.cut_by_horizon, "{what}: horizon");
    assert_eq!(a.stopped, b.stopped, "{what}: budget");
    let names = |r: &CheckResult| r.violations.iter().map(|v| v.property).collect::<Vec<_>>();
    assert_eq!(names(a), names(b), "{what}: violated properties");
    if traces {
        assert_eq!(a.violations, b.violations, "{what}: traces");
    }
}
