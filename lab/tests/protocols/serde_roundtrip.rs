//! Feature `serde`: every public configuration, spec, topology parameter,
//! scenario, report, metric summary, trace event, protocol message and automaton state survives a
//! JSON round trip unchanged, and the types with invariants are read back through their
//! validating constructors (a file cannot build what the constructors refuse).

use ftcoll::automaton::Automaton;
use ftcoll::protocols::corrected_tree::{
    CorrectedTreeConfig, CorrectedTreeNode, CorrectionSpec, StartMode,
};
use ftcoll::protocols::message::{Body, CorrectionMsg, Msg};
use ftcoll::protocols::Side;
use ftcoll::topology::ftco::{FtcoKind, FtcoTopology};
use ftcoll::topology::{LogP, Order, Tree, TreeKind};
use ftcoll_lab::ct_metrics::CtMetrics;
use ftcoll_lab::experiment::{Faults, Point, PointStats};
use ftcoll_lab::fastpath::Workspace;
use ftcoll_sim::scenario::{ArrivalSpec, FaultSpec, ScenarioSpec};
use ftcoll_sim::{PortModel, Report, Sim};
use proptest::prelude::*;
use serde::de::DeserializeOwned;
use serde::Serialize;

fn round_trip<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(value: &T) -> String {
    let json = serde_json::to_string(value).expect("serializes");
    let back: T = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{json}: {e}"));
    assert_eq!(&back, value, "{json}");
    json
}

/// For types without `PartialEq` (configurations): equal `Debug` renderings.
fn round_trip_debug<T: Serialize + DeserializeOwned + std::fmt::Debug>(value: &T) -> String {
    let json = serde_json::to_string(value).expect("serializes");
    let back: T = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{json}: {e}"));
    assert_eq!(format!("{back:?}"), format!("{value:?}"), "{json}");
    json
}

fn tree_kind() -> impl Strategy<Value = TreeKind> {
    prop_oneof![
        (1u64..9).prop_map(TreeKind::KAry),
        Just(TreeKind::Binomial),
        (1u64..6).prop_map(TreeKind::Lame),
        Just(TreeKind::Optimal),
    ]
}

fn correction() -> impl Strategy<Value = CorrectionSpec> {
    prop_oneof![
        Just("none"),
        Just("opportunistic:2"),
        Just("optimized:4"),
        Just("checked"),
        Just("delayed:5"),
        Just("failproof:1"),
        Just("failproof:2:40"),
        Just("failproof-footnote:1:40"),
        Just("ack"),
    ]
    .prop_map(|s| s.parse::<CorrectionSpec>().unwrap())
}

fn config() -> impl Strategy<Value = CorrectedTreeConfig> {
    config_up_to(5000)
}

fn config_up_to(max_procs: u32) -> impl Strategy<Value = CorrectedTreeConfig> {
    (
        tree_kind(),
        any::<bool>(),
        1u32..max_procs,
        0u64..12,
        1u64..4,
        correction(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(kind, in_order, procs, l, o, spec, sync, left)| {
            let order = if in_order {
                Order::InOrder
            } else {
                Order::Interleaved
            };
            let tree = Tree::new(kind, order, procs, LogP::new(l, o).unwrap()).unwrap();
            let start = if sync {
                StartMode::Synchronized
            } else {
                StartMode::Overlapped
            };
            let mut c = CorrectedTreeConfig::new(tree, spec, start);
            c.first_side = if left { Side::Left } else { Side::Right };
            c
        })
}

fn message() -> impl Strategy<Value = Msg> {
    let side = prop_oneof![Just(Side::Left), Just(Side::Right)];
    let body = prop_oneof![
        Just(Body::Tree),
        any::<u64>().prop_map(|round| Body::Gossip { round }),
        Just(Body::Ack),
        side.clone()
            .prop_map(|toward| Body::Correction(CorrectionMsg::Ring { toward })),
        Just(Body::Correction(CorrectionMsg::Stop)),
        (side, proptest::collection::vec(any::<u32>(), 0..5)).prop_map(|(toward, known)| {
            Body::Correction(CorrectionMsg::FailProof {
                toward,
                known: known.into(),
            })
        }),
        Just(Body::Correction(CorrectionMsg::Sos)),
    ];
    (any::<u64>(), body).prop_map(|(value, body)| Msg { value, body })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn configurations_and_trees_round_trip(c in config()) {
        let json = round_trip_debug(&c);
        // Spellings, not enum internals: the same words as the command line.
        let kind = c.tree.kind().to_string();
        prop_assert!(json.contains(&format!("\"{kind}\"")), "{json}");
        round_trip(&c.tree);
        round_trip(&c.tree.logp());
    }

    #[test]
    fn protocol_messages_round_trip(m in message()) {
        round_trip(&m);
    }

    #[test]
    fn runs_round_trip_report_metrics_trace_and_automaton_states(
        c in config_up_to(300),
        faults in 0u32..4,
        seed in any::<u64>(),
    ) {
        let procs = c.tree.procs();
        let spec = ScenarioSpec {
            procs,
            logp: c.tree.logp(),
            model: PortModel::DualPort,
            immune: 1,
            faults: FaultSpec::Count(faults.min(procs - 1)),
            crash_at: vec![],
            arrivals: ArrivalSpec::Uniform(3),
            ignored: Default::default(),
        };
        round_trip(&spec);
        let (mut scenario, failed) = spec.build(seed, 0).unwrap();
        scenario.trace = true;
        round_trip(&scenario);
        // Part way through, every automaton's state round-trips too.
        let mut sim = Sim::<CorrectedTreeNode>::new(&c, procs, &scenario).unwrap();
        for _ in 0..5 {
            sim.step(&c).unwrap();
        }
        for r in 0..procs {
            round_trip(sim.automaton(r).unwrap());
        }
        let report: Report =
            ftcoll_sim::run::<CorrectedTreeNode>(&c, procs, &scenario, 1 << 24).unwrap();
        round_trip(&report);
        let metrics = CtMetrics::from_report(&report, c.tree.deadline(), failed.len() as u64);
        round_trip(&metrics);
    }
}

#[test]
fn sweep_points_and_their_statistics_round_trip() {
    let point = Point {
        procs: 256,
        tree: TreeKind::Lame(2),
        order: Order::Interleaved,
        correction: "checked".parse().unwrap(),
        start: StartMode::Synchronized,
        model: PortModel::DualPort,
        latency: 2,
        overhead: 1,
        first_side: Side::Left,
        faults: Faults::Count(5),
    };
    round_trip(&point);
    let prepared = point.prepare(true).unwrap();
    let mut stats = PointStats::default();
    let mut ws = Workspace::new();
    for run in 0..20 {
        stats.add(&prepared.run(7, run, &mut ws).unwrap());
    }
    round_trip(&stats);
}

#[test]
fn ftco_topologies_round_trip_through_their_constructor() {
    let t = FtcoTopology::new(FtcoKind::KNomial(9), 9, 65_536).unwrap();
    round_trip(&t);
    let bad = r#"{"kind":{"KNomial":1},"roots":1,"procs":10}"#;
    assert!(serde_json::from_str::<FtcoTopology>(bad).is_err());
    let wide = r#"{"kind":{"KNomial":2},"roots":1,"procs":4294967296}"#;
    let err = serde_json::from_str::<FtcoTopology>(wide)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("procs = 4294967296 is out of range: allowed 1..=4294967295"),
        "{err}"
    );
}

/// What the constructors refuse, a file cannot build: the error names the field.
#[test]
fn invalid_parameters_are_refused_when_read() {
    let tree = |kind: &str, procs: u64, l: u64, o: u64| {
        format!(
            r#"{{"kind":"{kind}","order":"interleaved","procs":{procs},"logp":{{"L":{l},"o":{o}}}}}"#
        )
    };
    assert!(serde_json::from_str::<Tree>(&tree("lame:2", 16, 2, 1)).is_ok());
    for (json, field) in [
        (tree("lame:2", 0, 2, 1), "procs"),
        // Beyond u32: refused as out of range, not truncated.
        (
            tree("lame:2", 1 << 32, 2, 1),
            "procs = 4294967296 is out of range: allowed 1..=4294967295",
        ),
        (tree("lame:2", 16, 70_000, 1), "L"),
        (tree("lame:2", 16, 2, 0), "o"),
        (tree("lame:0", 16, 2, 1), "k = 0"),
        (tree("heap:2", 16, 2, 1), "kary:K, binomial"),
    ] {
        let err = serde_json::from_str::<Tree>(&json).unwrap_err().to_string();
        assert!(err.contains(field), "{json}: {err}");
    }
    assert!(serde_json::from_str::<CorrectionSpec>("\"failproof:x\"").is_err());
    assert!(serde_json::from_str::<Order>("\"sideways\"").is_err());
    // A process's state needs its config to mean anything, but reading it never panics.
    let c = CorrectedTreeConfig::new(
        Tree::new(
            TreeKind::Binomial,
            Order::Interleaved,
            8,
            LogP::new(2, 1).unwrap(),
        )
        .unwrap(),
        CorrectionSpec::Ack,
        StartMode::Synchronized,
    );
    let node = CorrectedTreeNode::new(&c, 3);
    round_trip(&node);
}

/// FTCO messages and automaton states mid-run (a Contributions Allreduce with a crash) round-trip.
#[test]
fn ftco_messages_and_states_round_trip() {
    use ftcoll::automaton::Contributions;
    use ftcoll::protocols::ftco::{FtcoConfig, FtcoMsg, FtcoNode};
    use ftcoll::topology::ftco::Collective;
    for m in [
        FtcoMsg::Partial(vec![(3u32, 1u32)]),
        FtcoMsg::Result(vec![(0, 1), (7, 2)]),
        FtcoMsg::Keepalive,
        FtcoMsg::Ack,
    ] {
        round_trip(&m);
    }
    let topology = FtcoTopology::new(FtcoKind::KNomial(3), 3, 20).unwrap();
    let config = FtcoConfig::new(
        topology,
        Collective::Allreduce,
        Contributions,
        |r| vec![(r, 1)],
        2,
    )
    .unwrap();
    let scenario = ftcoll_sim::Scenario {
        logp: LogP::new(2, 1).unwrap(),
        model: PortModel::SinglePort,
        crashes: vec![(7, 0), (11, 9)],
        ..Default::default()
    };
    let mut sim = Sim::<FtcoNode<Contributions>>::new(&config, 20, &scenario).unwrap();
    for _ in 0..12 {
        sim.step(&config).unwrap();
    }
    for r in 0..20 {
        round_trip(sim.automaton(r).unwrap());
    }
}
