//! The timing-model seam ([`TimingModel`]): every model refuses the same bad scenario with the
//! same error before any work, holds automata to the same send contract, and runs any
//! automaton, whatever family it was written for.

use crate::sim_common::{config, tree};

use ftcoll::automaton::{Automaton, Message, Outbox, Phase, TimerId};
use ftcoll::protocols::arrival::arrival_b::ArrivalBNode;
use ftcoll::protocols::arrival::PapConfig;
use ftcoll::protocols::corrected_tree::{CorrectedTreeNode, CorrectionSpec, StartMode};
use ftcoll::topology::{Order, TreeKind};
use ftcoll::{Rank, Time};
use ftcoll_sim::pap::{PapMode, PapScenario};
use ftcoll_sim::{PortModel, Scenario, SimError, TimingModel};

/// The four models, each with `arrivals` and `crashes`.
fn each_model(arrivals: &[Time], crashes: &[(Rank, Time)]) -> Vec<(&'static str, Model)> {
    let logp = |model| Scenario {
        model,
        arrivals: arrivals.to_vec(),
        crashes: crashes.to_vec(),
        ..Default::default()
    };
    let pap = |mode| PapScenario {
        mode,
        arrivals: arrivals.to_vec(),
        crashes: crashes.to_vec(),
    };
    vec![
        ("dual-port LogP", Model::LogP(logp(PortModel::DualPort))),
        (
            "single-port steps",
            Model::LogP(logp(PortModel::SinglePort)),
        ),
        ("PAP blocking", Model::Pap(pap(PapMode::Blocking))),
        ("PAP non-blocking", Model::Pap(pap(PapMode::NonBlocking))),
    ]
}

enum Model {
    LogP(Scenario),
    Pap(PapScenario),
}

impl Model {
    /// Runs through the seam alone: a caller generic over [`TimingModel`].
    fn run<A: Automaton>(
        &self,
        config: &A::Config,
        procs: u32,
    ) -> Result<ftcoll_sim::Report<A::Value>, SimError> {
        fn generic<T: TimingModel, A: Automaton>(
            t: &T,
            config: &A::Config,
            procs: u32,
        ) -> Result<ftcoll_sim::Report<A::Value>, SimError> {
            t.run::<A>(config, procs, 1 << 20)
        }
        match self {
            Model::LogP(s) => generic::<_, A>(s, config, procs),
            Model::Pap(s) => generic::<_, A>(s, config, procs),
        }
    }

    /// [`TimingModel::check`] through the seam.
    fn check<A: Automaton>(&self, config: &A::Config, procs: u32) -> Result<(), SimError> {
        match self {
            Model::LogP(s) => s.check::<A>(config, procs),
            Model::Pap(s) => s.check::<A>(config, procs),
        }
    }
}

fn ct16() -> ftcoll::protocols::corrected_tree::CorrectedTreeConfig {
    config(
        tree(TreeKind::Lame(2), Order::Interleaved, 16, 2, 1),
        CorrectionSpec::Checked,
        StartMode::Overlapped,
    )
}

#[test]
fn every_model_refuses_a_bad_scenario_with_the_same_error() {
    let c = ct16();
    type Case = (&'static str, u32, Vec<Time>, Vec<(Rank, Time)>, SimError);
    let cases: [Case; 4] = [
        (
            "procs",
            17,
            vec![],
            vec![],
            SimError::ProcsMismatch {
                given: 17,
                config: 16,
            },
        ),
        (
            "arrivals",
            16,
            vec![0; 15],
            vec![],
            SimError::ArrivalsLength { len: 15, procs: 16 },
        ),
        (
            "crashes",
            16,
            vec![],
            vec![(3, 0), (16, 5)],
            SimError::RankOutOfRange {
                field: "crashes",
                rank: 16,
                procs: 16,
            },
        ),
        // The first fault in the order procs, arrivals, crashes is the one named.
        (
            "arrivals before crashes",
            16,
            vec![0; 3],
            vec![(99, 0)],
            SimError::ArrivalsLength { len: 3, procs: 16 },
        ),
    ];
    for (what, procs, arrivals, crashes, expected) in cases {
        for (name, model) in each_model(&arrivals, &crashes) {
            // The run's own refusal, and the check that asks without running.
            let err = model.run::<CorrectedTreeNode>(&c, procs).unwrap_err();
            assert_eq!(err, expected, "{what}, {name}");
            let asked = model.check::<CorrectedTreeNode>(&c, procs).unwrap_err();
            assert_eq!(asked, expected, "{what}, {name}: check");
        }
    }
}

/// Where a rogue root sends wrongly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Misdeed {
    AtStart,
    TwiceInASlot,
    ToItself,
    OutsideTheRanks,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Data;

impl Message for Data {
    fn phase(&self) -> Phase {
        Phase::Dissemination
    }
    fn size(&self) -> u64 {
        4
    }
}

/// Rank 0 breaks the contract in its first send; the others only receive.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Rogue {
    rank: Rank,
}

impl Automaton for Rogue {
    type Msg = Data;
    type Value = u64;
    type Config = (u32, Misdeed);

    fn new(_: &Self::Config, rank: Rank) -> Self {
        Self { rank }
    }
    fn procs(config: &Self::Config) -> Option<u32> {
        Some(config.0)
    }
    fn on_start(&mut self, c: &Self::Config, _: Time, out: &mut Outbox<Data, u64>) {
        if self.rank == 0 && c.1 == Misdeed::AtStart {
            out.send(1, Data);
        }
    }
    fn on_message(
        &mut self,
        _: &Self::Config,
        _: Time,
        _: Rank,
        _: Data,
        out: &mut Outbox<Data, u64>,
    ) {
        out.deliver(1);
    }
    fn on_timer(&mut self, _: &Self::Config, _: Time, _: TimerId, _: &mut Outbox<Data, u64>) {}
    fn on_send_slot(&mut self, c: &Self::Config, _: Time, out: &mut Outbox<Data, u64>) {
        if self.rank != 0 {
            return;
        }
        match c.1 {
            Misdeed::AtStart => {}
            Misdeed::TwiceInASlot => {
                out.send(1, Data);
                out.send(2, Data);
            }
            Misdeed::ToItself => out.send(0, Data),
            Misdeed::OutsideTheRanks => out.send(c.0, Data),
        }
    }
}

#[test]
fn every_model_holds_automata_to_the_same_send_contract() {
    let cases = [
        (Misdeed::AtStart, "sent outside on_send_slot"),
        (Misdeed::TwiceInASlot, "sent twice in one send slot"),
        (
            Misdeed::ToItself,
            "sent to a rank outside 0..P or to itself",
        ),
        (
            Misdeed::OutsideTheRanks,
            "sent to a rank outside 0..P or to itself",
        ),
    ];
    for (misdeed, what) in cases {
        for (name, model) in each_model(&[], &[]) {
            let err = model.run::<Rogue>(&(4, misdeed), 4).unwrap_err();
            let expected = SimError::Contract {
                rank: 0,
                time: 0,
                what,
            };
            assert_eq!(err, expected, "{misdeed:?}, {name}");
        }
    }
}

/// A broadcast written for one family's model runs under every other: a Corrected Tree
/// (LogP, CT) and arrival_b (PAP) each reach every live process under all four models, with
/// two processes crashed before the operation and the processes arriving at 11 different
/// times.
#[test]
fn any_automaton_runs_under_any_model() {
    let arrivals: Vec<Time> = (0..16).map(|r| (r * 7) % 11).collect();
    let crashes = [(5, 0), (11, 0)];
    let ct = ct16();
    let pap = PapConfig::new(16, 8).unwrap();
    for (name, model) in each_model(&arrivals, &crashes) {
        let r = model.run::<CorrectedTreeNode>(&ct, 16).unwrap();
        assert_eq!(r.undelivered(), 0, "Corrected Tree, {name}");
        assert!(r.crashed(5) && r.crashed(11), "{name}");
        let r = model.run::<ArrivalBNode>(&pap, 16).unwrap();
        let missing: Vec<Rank> = (0..16)
            .filter(|&rank| !r.crashed(rank) && r.delivered_at(rank).is_none())
            .collect();
        // arrival_b routes only through processes that told the root they arrived, so a
        // process crashed before the operation cuts nobody off.
        assert!(missing.is_empty(), "arrival_b, {name}: {missing:?}");
    }
}
