use ftcoll::protocols::corrected_tree::gmax_after_dissemination;
use ftcoll_outside_serde_report::{from_json, report, to_json};

#[test]
fn a_report_round_trips_through_json() {
    let report = report().expect("valid run");
    // The run is the one described: two failed ranks, the others all delivered.
    assert_eq!(report.procs, 16);
    assert_eq!(report.undelivered(), 0);
    let json = to_json(&report).expect("serializable");
    // The JSON names the report's fields (a stored file a user can read).
    assert!(json.contains("\"procs\":16"), "{json}");
    let back = from_json(&json).expect("readable");
    assert_eq!(back, report);
    // What a family computes from a report is the same on the copy (CT's g_max here).
    let gmax = |r: &ftcoll_sim::Report| gmax_after_dissemination(r.procs, |k| r.by_dissemination(k));
    assert_eq!(gmax(&back), gmax(&report));
    // A corrupted file is an error, not a panic.
    assert!(from_json(&json[..json.len() / 2]).is_err());
}
