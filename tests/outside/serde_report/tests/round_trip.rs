use ftcoll_sim::RunMetrics;
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
    // So does the per-run metrics summary the sweeps aggregate.
    let metrics = RunMetrics::from_report(&report, 0, 2);
    let text = serde_json::to_string(&metrics).expect("serializable");
    assert_eq!(serde_json::from_str::<RunMetrics>(&text).unwrap(), metrics);
    assert_eq!(RunMetrics::from_report(&back, 0, 2), metrics);
    // A corrupted file is an error, not a panic.
    assert!(from_json(&json[..json.len() / 2]).is_err());
}
