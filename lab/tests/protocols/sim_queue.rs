//! The driver's longest-queue metric under FTCO's single-port step model (FTCO §5.2.3, Table 2
//! "Max. Len.") and the output spread (FTCO §5.2.4), on a hand-made automaton whose queues are
//! known exactly.

use ftcoll::automaton::{Automaton, Message, Outbox, Phase, TimerId};
use ftcoll::topology::LogP;
use ftcoll::{Rank, Time};
use ftcoll_sim::{run, PortModel, Scenario};

/// Every rank but 0 sends one message to rank 0 at its start; rank 0 completes per message.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Gather {
    rank: Rank,
    sent: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Ping;

impl Message for Ping {
    fn phase(&self) -> Phase {
        Phase::Dissemination
    }
}

impl Automaton for Gather {
    type Msg = Ping;
    type Value = u64;
    type Config = ();

    fn new(_: &(), rank: Rank) -> Self {
        Self { rank, sent: false }
    }
    fn on_start(&mut self, _: &(), _: Time, _: &mut Outbox<Ping, u64>) {}
    fn on_message(&mut self, _: &(), _: Time, from: Rank, _: Ping, out: &mut Outbox<Ping, u64>) {
        out.complete(u64::from(from));
    }
    fn on_timer(&mut self, _: &(), _: Time, _: TimerId, _: &mut Outbox<Ping, u64>) {}
    fn on_send_slot(&mut self, _: &(), _: Time, out: &mut Outbox<Ping, u64>) {
        if self.rank != 0 && !self.sent {
            self.sent = true;
            out.send(0, Ping);
        }
    }
}

fn scenario(model: PortModel) -> Scenario {
    Scenario {
        logp: LogP::new(10, 1).expect("valid LogP"),
        model,
        ..Default::default()
    }
}

#[test]
fn single_port_longest_queue_counts_every_message_waiting_at_once_ftco_5_2_3() {
    // All 7 messages enter rank 0's queue at step L + 1 = 11: 7 wait at once.
    let report = run::<Gather>(&(), 8, &scenario(PortModel::SinglePort), 1 << 20).expect("run");
    assert_eq!(report.longest_queue, 7);
    // Handled one per step from 11: completions at 12..=18, output spread 6.
    assert_eq!(report.completions.len(), 7);
    assert_eq!(report.completion_spread(), 6);
}

#[test]
fn dual_port_runs_report_no_queue_length() {
    let report = run::<Gather>(&(), 8, &scenario(PortModel::DualPort), 1 << 20).expect("run");
    assert_eq!(report.longest_queue, 0);
}

#[test]
fn output_spread_is_zero_without_two_completions_ftco_5_2_4() {
    let report = run::<Gather>(&(), 2, &scenario(PortModel::SinglePort), 1 << 20).expect("run");
    assert_eq!(report.longest_queue, 1);
    assert_eq!(report.completion_spread(), 0);
}
