//! `ftcoll-mpi` under `mpirun --oversubscribe` against the simulator on the same configuration
//! and failures: the ranks that deliver (each the root's payload, once) for every Corrected Tree
//! variant whose coverage does not depend on timing, and the value every live rank completes an
//! FTCO Allreduce with; failed ranks never block the survivors; bad input is one line and a
//! non-zero exit on every rank, never a hang.
//!
//! Needs `mpirun` (Open MPI) on the `PATH`; as root, set `OMPI_ALLOW_RUN_AS_ROOT=1` and
//! `OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1` (CI does).

use std::collections::{BTreeMap, BTreeSet};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use ftcoll::automaton::Sum;
use ftcoll::protocols::corrected_tree::{
    CorrectedTreeConfig, CorrectedTreeNode, CorrectionSpec, StartMode,
};
use ftcoll::protocols::ftco::{FtcoConfig, FtcoNode};
use ftcoll::topology::ftco::{Collective, FtcoKind, FtcoTopology};
use ftcoll::topology::{LogP, Order, Tree, TreeKind};
use ftcoll::Rank;
use ftcoll_sim::{run, PortModel, Scenario};
use serde_json::Value;

/// Runs `ftcoll-mpi ARGS` on `ranks` ranks; kills it after a minute (a hang fails the test).
fn mpirun(ranks: u32, args: &[&str]) -> Output {
    let mut child = Command::new("mpirun")
        .args(["-n", &ranks.to_string(), "--oversubscribe"])
        .arg(env!("CARGO_BIN_EXE_ftcoll-mpi"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mpirun runs (Open MPI installed?)");
    let started = Instant::now();
    while child.try_wait().expect("waits").is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("mpirun -n {ranks} ftcoll-mpi {args:?} hung");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

/// The JSON lines rank 0 printed.
fn lines(out: &Output, what: &str) -> Vec<Value> {
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{what}: {e}: {l}")))
        .collect()
}

fn ranks_of(v: &Value) -> BTreeSet<Rank> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_u64().unwrap() as Rank)
        .collect()
}

/// CT §3.1 and CG Claims 3–4: with failures before the operation, checked and failure-proof
/// correction color every live rank whatever the order of messages, and opportunistic
/// correction of distance d every rank of a gap shorter than d; on MPI ranks the same ranks
/// deliver as in the simulator, each the root's payload once, over consecutive operations.
#[test]
fn corrected_trees_deliver_on_the_simulators_ranks() {
    for (procs, correction, tree, faults) in [
        (6, "checked", "lame:2", vec![2]),
        (8, "checked", "binomial", vec![1, 3]),
        (8, "opportunistic:2", "kary:2", vec![4]),
        (7, "failproof:1", "lame:2", vec![5]),
        (5, "none", "kary:2", vec![1]),
    ] {
        let list: Vec<String> = faults.iter().map(|f| f.to_string()).collect();
        let list = list.join(",");
        let mut args = vec![
            "bcast",
            "--tree",
            tree,
            "--correction",
            correction,
            "--operations",
            "2",
            // A rank the plain tree never reaches serves until it gives up: 2 s, not 20.
            "--give-up",
            "2000",
        ];
        if !faults.is_empty() {
            args.extend(["--faults", &list]);
        }
        let what = format!("{correction} on {tree}, P = {procs}, failed {faults:?}");
        let out = mpirun(procs, &args);
        let got = lines(&out, &what);
        assert_eq!(got.len(), 2, "{what}: one line per operation");

        let tree = Tree::new(
            tree.parse::<TreeKind>().unwrap(),
            Order::Interleaved,
            procs,
            LogP::default(),
        )
        .unwrap();
        let spec: CorrectionSpec = correction.parse().unwrap();
        let config = CorrectedTreeConfig::new(tree, spec, StartMode::Overlapped);
        let scenario = Scenario {
            crashes: faults.iter().map(|&r| (r, 0)).collect(),
            ..Default::default()
        };
        let report = run::<CorrectedTreeNode>(&config, procs, &scenario, 1 << 20).unwrap();
        let expected: BTreeSet<Rank> = (0..procs)
            .filter(|&r| report.delivered_at(r).is_some())
            .collect();
        for line in &got {
            assert_eq!(
                ranks_of(&line["finished"]),
                expected,
                "{what}: who delivers"
            );
            assert_eq!(ranks_of(&line["failed"]), faults.iter().copied().collect());
            for r in line["ranks"].as_array().unwrap() {
                let s = &r["served"];
                if correction == "none" {
                    // The plain tree's messages do not depend on timing: each live rank sends
                    // to each of its children once, as in the simulator.
                    let rank = r["rank"].as_u64().unwrap() as Rank;
                    let sent: Vec<u64> = s["sent"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|n| n.as_u64().unwrap())
                        .collect();
                    let simulated = report.sent(rank).map(u64::from);
                    assert_eq!(sent, simulated, "{what}: rank {rank}'s messages");
                }
                let delivered = s["delivered"].as_array().unwrap();
                assert!(delivered.len() <= 1, "{what}: {r}");
                for d in delivered {
                    assert_eq!(d[1].as_u64(), Some(config.payload), "{what}: {r}");
                }
                assert_eq!(s["violations"], serde_json::json!([]), "{what}: {r}");
            }
        }
    }
}

/// FTCO Def. 3.1–3.2 on MPI ranks, for its three collectives: with a rank failed before the
/// operation every live rank completes the Allreduce with the simulator's value (the sum over
/// the live ranks' operands), the root completes the Reduce with it, and every live rank
/// delivers the Bcast root's value where the simulator delivers it.
#[test]
fn ftco_collectives_agree_with_the_simulator() {
    for (collective, name, procs, faults) in [
        (Collective::Allreduce, "allreduce", 6u32, vec![]),
        (Collective::Allreduce, "allreduce", 7, vec![3]),
        (Collective::Reduce, "reduce", 7, vec![3]),
        (Collective::Bcast, "bcast", 7, vec![2]),
    ] {
        let list: Vec<String> = faults.iter().map(|f: &Rank| f.to_string()).collect();
        let list = list.join(",");
        // 5 ms a step: FTCO's timeouts (a few dozen steps) outlast an oversubscribed rank's
        // wait for a core.
        let mut args = vec![
            "ftco",
            "--collective",
            name,
            "--topology",
            "kary:2",
            "--step-us",
            "5000",
            "--quiet",
            "100",
        ];
        if !faults.is_empty() {
            args.extend(["--faults", &list]);
        }
        if collective == Collective::Reduce {
            // A Reduce's non-root ranks complete nothing, so they serve until they give up:
            // 3 s (600 steps of 5 ms), not 100.
            args.extend(["--give-up", "600"]);
        }
        let what = format!("{name}, P = {procs}, failed {faults:?}");
        let got = lines(&mpirun(procs, &args), &what);
        let topology = FtcoTopology::new(FtcoKind::KAry(2), 1, procs).unwrap();
        let config = FtcoConfig::new(topology, collective, Sum, |r| u64::from(r) + 1, 2).unwrap();
        let scenario = Scenario {
            model: PortModel::SinglePort,
            crashes: faults.iter().map(|&r| (r, 0)).collect(),
            ..Default::default()
        };
        let report = run::<FtcoNode<Sum>>(&config, procs, &scenario, 1 << 22).unwrap();
        // What each rank ended with: its completion, or for a Bcast its delivery.
        let field = if collective == Collective::Bcast {
            "delivered"
        } else {
            "completed"
        };
        let expected: BTreeMap<Rank, u64> = if collective == Collective::Bcast {
            let root_value = 1;
            (0..procs)
                .filter(|&r| report.delivered_at(r).is_some())
                .map(|r| (r, root_value))
                .collect()
        } else {
            report.completions.iter().map(|&(r, _, v)| (r, v)).collect()
        };
        let live = procs as usize - faults.len();
        let expected_count = if collective == Collective::Reduce {
            1
        } else {
            live
        };
        assert_eq!(
            expected.len(),
            expected_count,
            "{what}: the simulator's finishers"
        );
        let line = &got[0];
        let ended: BTreeMap<Rank, u64> = line["ranks"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|r| {
                let c = r["served"][field].as_array().unwrap();
                assert!(c.len() <= 1, "{what}: {r}");
                c.first()
                    .map(|c| (r["rank"].as_u64().unwrap() as Rank, c[1].as_u64().unwrap()))
            })
            .collect();
        assert_eq!(ended, expected, "{what}");
    }
}

/// A rank that crashes during the operation (after its first action) does not block the
/// others: every other live rank of checked correction still delivers and the run ends.
#[test]
fn a_crash_during_the_operation_blocks_nobody() {
    let got = lines(
        &mpirun(
            8,
            &[
                "bcast",
                "--correction",
                "checked",
                "--crash-after",
                "3:1",
                "--faults",
                "5",
            ],
        ),
        "crash after one action",
    );
    let line = &got[0];
    let crashed: Vec<&Value> = line["ranks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["served"]["ended"] == "crashed")
        .collect();
    assert_eq!(crashed.len(), 1);
    assert_eq!(crashed[0]["rank"], 3);
    let finished = ranks_of(&line["finished"]);
    for r in [0, 1, 2, 4, 6, 7] {
        assert!(finished.contains(&r), "rank {r} delivers: {line}");
    }
}

/// Bad input: one line on stderr naming the flag and what is allowed, a non-zero exit, no
/// operation, and no hang (`mpirun` returns).
#[test]
fn bad_input_is_one_line_and_a_non_zero_exit() {
    for (ranks, args, needle) in [
        (
            4,
            vec!["bcast", "--faults", "4"],
            "--faults: rank 4 is not in 1..4",
        ),
        (
            4,
            vec!["bcast", "--payload", "0"],
            "--payload: 0 bytes: allowed 1..=1048576",
        ),
        (1, vec!["bcast"], "the world has 1 rank: allowed 2 or more"),
        (3, vec!["allreduce", "--topology", "ring:2"], "--topology"),
        (
            3,
            vec!["ftco", "--collective", "gather"],
            "--collective: \"gather\": allowed bcast, reduce or allreduce",
        ),
        (
            3,
            vec!["bcast", "--crash-after", "7:1"],
            "--crash-after: rank \"7\" is not in 1..3",
        ),
    ] {
        let out = mpirun(ranks, &args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let ours: Vec<&str> = err.lines().filter(|l| l.starts_with("error: ")).collect();
        assert_eq!(ours.len(), 1, "{args:?}: {err}");
        assert!(ours[0].contains(needle), "{args:?}: {err}");
    }
}

/// `bench` prints one point per protocol and size: the MPI library's two collectives without a
/// prediction, the six broadcasts and FTCO's Allreduce with one; every latency is positive.
/// Bad sizes are refused like any bad input.
#[test]
fn bench_prints_every_protocol_beside_its_prediction() {
    let out = mpirun(
        3,
        &[
            "bench",
            "--sizes",
            "8,4096",
            "--iterations",
            "2",
            "--warmup",
            "0",
            "--ping-pongs",
            "2",
        ],
    );
    let points = lines(&out, "bench");
    assert_eq!(points.len(), 2 * 9, "9 protocols × 2 sizes");
    for p in &points {
        assert!(p["latency_us"].as_f64().unwrap() > 0.0, "{p}");
        let mpi = p["protocol"].as_str().unwrap().starts_with("MPI_");
        assert_eq!(p["predicted_us"].is_null(), mpi, "{p}");
    }
    let bad = mpirun(3, &["bench", "--sizes", "8,0"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--sizes: 0 bytes: allowed 1..=1048576"));
}

/// CG Claim 3 on MPI ranks: checked Corrected Gossip colors every live rank whatever the gossip
/// reached, when no process crashes during the correction; the ranks that deliver are the
/// simulator's (all live ones), each the root's payload once.
#[test]
fn checked_corrected_gossip_delivers_on_the_simulators_ranks() {
    use ftcoll::protocols::gossip::{Ccg, GossipConfig};
    for (procs, faults, seed) in [(8u32, vec![2u32], 1u64), (6, vec![1, 4], 7)] {
        let list: Vec<String> = faults.iter().map(|f| f.to_string()).collect();
        let (list, seed_text) = (list.join(","), seed.to_string());
        let args = [
            "gossip",
            "--faults",
            &list,
            "--seed",
            &seed_text,
            "--operations",
            "2",
        ];
        let what = format!("ccg P = {procs}, failed {faults:?}, seed {seed}");
        let got = lines(&mpirun(procs, &args), &what);
        let config = GossipConfig::new(procs, LogP::default(), 6, seed).unwrap();
        let scenario = Scenario {
            crashes: faults.iter().map(|&r| (r, 0)).collect(),
            ..Default::default()
        };
        let report = run::<Ccg>(&config, procs, &scenario, 1 << 20).unwrap();
        let expected: BTreeSet<Rank> = (0..procs)
            .filter(|&r| report.delivered_at(r).is_some())
            .collect();
        assert_eq!(
            expected.len(),
            (procs as usize) - faults.len(),
            "{what}: Claim 3"
        );
        for line in &got {
            assert_eq!(ranks_of(&line["finished"]), expected, "{what}");
            for r in line["ranks"].as_array().unwrap() {
                let delivered = r["served"]["delivered"].as_array().unwrap();
                assert_eq!(delivered.len(), 1, "{what}: {r}");
                assert_eq!(
                    delivered[0][1].as_u64(),
                    Some(config.payload),
                    "{what}: {r}"
                );
            }
        }
    }
}

/// CG §III's other protocols and §IV.B's baselines on MPI ranks, with ranks failed before the
/// operation: OCG with a correction time long enough for its sweeps to pass every gap (Claim 2)
/// and FCG(1) (Claim 4) color every live rank, as in the simulator, and so do BIG (its binomial
/// graph routes around two failures; each rank sends the simulator's messages, which no timing
/// changes) and BFB (its failure detector restarts the broadcast); GOS (gossip alone, no
/// guarantee) delivers the root's payload at most once per rank and never at a failed rank.
#[test]
fn every_gossip_protocol_keeps_its_claims_on_ranks() {
    use ftcoll::protocols::gossip::fcg::FcgConfig;
    use ftcoll::protocols::gossip::ocg::OcgConfig;
    use ftcoll::protocols::gossip::{
        BfbConfig, BfbNode, BigConfig, BigNode, Fcg, GossipConfig, Ocg,
    };
    let (procs, faults, seed) = (8u32, vec![2u32, 5], 3u64);
    let gossip = GossipConfig::new(procs, LogP::default(), 6, seed).unwrap();
    let scenario = Scenario {
        crashes: faults.iter().map(|&r| (r, 0)).collect(),
        ..Default::default()
    };
    let live: BTreeSet<Rank> = (0..procs).filter(|r| !faults.contains(r)).collect();
    let ocg = OcgConfig {
        gossip: gossip.clone(),
        correction_time: 40,
    };
    let ocg_sim = run::<Ocg>(&ocg, procs, &scenario, 1 << 20).unwrap();
    let fcg_sim = run::<Fcg>(
        &FcgConfig::new(gossip.clone(), 1),
        procs,
        &scenario,
        1 << 20,
    )
    .unwrap();
    let big_sim =
        run::<BigNode>(&BigConfig::new(procs).unwrap(), procs, &scenario, 1 << 20).unwrap();
    let bfb = BfbConfig::new(procs, LogP::default()).unwrap();
    let bfb_sim = run::<BfbNode>(&bfb, procs, &scenario, 1 << 20).unwrap();
    for (protocol, simulated) in [
        ("ocg", Some(&ocg_sim)),
        ("fcg:1", Some(&fcg_sim)),
        ("gos", None),
        ("big", Some(&big_sim)),
        ("bfb", Some(&bfb_sim)),
    ] {
        let mut args = vec!["gossip", "--protocol", protocol, "--faults", "2,5"];
        match protocol {
            "ocg" => args.extend(["--seed", "3", "--correction-time", "40"]),
            // A rank gossip did not reach waits until it gives up: 2 s, not the default 20.
            "gos" => args.extend(["--seed", "3", "--give-up", "2000"]),
            "fcg:1" => args.extend(["--seed", "3"]),
            // BFB's failure detector times out in a few dozen steps: 2 ms each, so that an
            // oversubscribed rank waiting for a core is not taken for failed.
            "bfb" => args.extend(["--step-us", "2000"]),
            _ => {}
        }
        args.extend(["--operations", "2"]);
        let got = lines(&mpirun(procs, &args), protocol);
        assert_eq!(got.len(), 2, "{protocol}");
        for line in &got {
            let finished = ranks_of(&line["finished"]);
            if let Some(report) = simulated {
                let expected: BTreeSet<Rank> = (0..procs)
                    .filter(|&r| report.delivered_at(r).is_some())
                    .collect();
                assert_eq!(
                    expected, live,
                    "{protocol}: the simulator colors every live rank"
                );
                assert_eq!(finished, expected, "{protocol}");
            } else {
                assert!(
                    finished.contains(&0) && finished.is_subset(&live),
                    "{protocol}: {finished:?}"
                );
            }
            let payload = match protocol {
                "big" => BigConfig::new(procs).unwrap().payload,
                "bfb" => bfb.payload,
                _ => gossip.payload,
            };
            for r in line["ranks"].as_array().unwrap() {
                if protocol == "big" {
                    let rank = r["rank"].as_u64().unwrap() as Rank;
                    let sent: Vec<u64> = (0..4)
                        .map(|k| r["served"]["sent"][k].as_u64().unwrap())
                        .collect();
                    let simulated = big_sim.sent(rank).map(u64::from);
                    assert_eq!(sent, simulated, "big: rank {rank}'s messages");
                }
                let delivered = r["served"]["delivered"].as_array().unwrap();
                assert!(delivered.len() <= 1, "{protocol}: {r}");
                for d in delivered {
                    assert_eq!(d[1].as_u64(), Some(payload), "{protocol}: {r}");
                }
            }
        }
    }
    // Bad protocol arguments are refused on every rank.
    for (args, text) in [
        (
            vec!["gossip", "--protocol", "ocg"],
            "--correction-time: OCG needs",
        ),
        (
            vec!["gossip", "--protocol", "fcg:x"],
            "--protocol: \"fcg:x\"",
        ),
        (
            vec!["gossip", "--correction-time", "5"],
            "--correction-time: only OCG",
        ),
        (
            vec!["gossip", "--protocol", "big", "--seed", "2"],
            "--seed: BIG and BFB have no gossip phase",
        ),
    ] {
        let out = mpirun(3, &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(text),
            "{args:?}"
        );
    }
}

/// `--fault-rate R --fault-seed S` fails exactly the ranks `ftcoll simulate --fault-rate R
/// --seed S` fails in its run 0 (the same draw), and is refused together with `--faults`.
#[test]
fn a_fault_rate_fails_the_simulators_ranks() {
    use ftcoll_sim::scenario::{FaultSpec, ScenarioSpec};
    let procs = 12;
    let (expected, _) = ScenarioSpec::new(procs, LogP::default())
        .with_faults(FaultSpec::Rate(0.25))
        .draw_failed(5, 0)
        .unwrap();
    assert!(!expected.is_empty(), "the seed fails someone");
    let got = lines(
        &mpirun(
            procs,
            &["bcast", "--fault-rate", "0.25", "--fault-seed", "5"],
        ),
        "--fault-rate",
    );
    assert_eq!(
        ranks_of(&got[0]["failed"]),
        expected.iter().copied().collect()
    );
    let both = mpirun(3, &["bcast", "--fault-rate", "0.5", "--faults", "1"]);
    assert!(!both.status.success());
    assert!(String::from_utf8_lossy(&both.stderr).contains("both name the failed ranks"));
}
