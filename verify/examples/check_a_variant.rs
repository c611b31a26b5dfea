//! Checking a protocol of your own with `ftcoll-verify`.
//!
//! The protocol, written here in a few dozen lines: a broadcast down a binary heap (rank `r`
//! sends to `2r + 1` and `2r + 2`) whose nodes, once they hold the value from their parent,
//! also send it once to their right ring neighbour — a one-message "correction". The checker
//! decides the standard broadcast properties plus one of the protocol's own (nobody sends more
//! than three messages) under one crash at any instant, and prints what is violated with the
//! shortest counterexample.
//!
//! ```text
//! cargo run -p ftcoll-verify --example check_a_variant
//! ```

use ftcoll::automaton::{Automaton, Message, Outbox, Phase, TimerId};
use ftcoll::topology::LogP;
use ftcoll::{Rank, Time};
use ftcoll_verify::timed::{broadcast_properties, TimedProperty, TimedState};
use ftcoll_verify::{check_model, Budget, CheckResult, CrashTiming, TimedModel};

/// The one message: the value, and whether it came down the tree or along the ring. The
/// checker holds the states it has yet to explore as bytes, so messages and automata derive
/// serde's traits.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
struct Hop {
    value: u64,
    along_ring: bool,
}

impl Message for Hop {
    fn phase(&self) -> Phase {
        if self.along_ring {
            Phase::Correction
        } else {
            Phase::Dissemination
        }
    }
}

/// One process.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
struct Node {
    rank: Rank,
    procs: u32,
    value: Option<u64>,
    /// Sends still to do, in order.
    pending: Vec<Hop>,
    targets: Vec<Rank>,
}

impl Node {
    fn color(&mut self, value: u64, by_tree: bool, out: &mut Outbox<Hop>) {
        if self.value.is_some() {
            return;
        }
        self.value = Some(value);
        out.deliver(value);
        for child in [2 * self.rank + 1, 2 * self.rank + 2] {
            if child < self.procs {
                self.pending.push(Hop {
                    value,
                    along_ring: false,
                });
                self.targets.push(child);
            }
        }
        if by_tree {
            self.pending.push(Hop {
                value,
                along_ring: true,
            });
            self.targets.push((self.rank + 1) % self.procs);
        }
    }
}

impl Automaton for Node {
    type Msg = Hop;
    type Value = u64;
    type Config = u32;

    /// The configuration is `P` itself: the drivers refuse any other process count.
    fn procs(procs: &u32) -> Option<u32> {
        Some(*procs)
    }

    fn new(procs: &u32, rank: Rank) -> Self {
        Self {
            rank,
            procs: *procs,
            value: None,
            pending: Vec::new(),
            targets: Vec::new(),
        }
    }

    fn on_start(&mut self, _: &u32, _: Time, out: &mut Outbox<Hop>) {
        if self.rank == 0 {
            self.color(42, true, out);
        }
    }

    fn on_message(&mut self, _: &u32, _: Time, _: Rank, msg: Hop, out: &mut Outbox<Hop>) {
        self.color(msg.value, !msg.along_ring, out);
    }

    fn on_timer(&mut self, _: &u32, _: Time, _: TimerId, _: &mut Outbox<Hop>) {}

    fn on_send_slot(&mut self, _: &u32, _: Time, out: &mut Outbox<Hop>) {
        if !self.pending.is_empty() {
            let (msg, to) = (self.pending.remove(0), self.targets.remove(0));
            out.send(to, msg);
        }
    }
}

/// The protocol's own claim: two children and one ring neighbour, so at most three sends.
fn at_most_three_sends(_: &TimedModel<Node>, s: &TimedState<Node>) -> bool {
    s.sim
        .report()
        .sent_counts()
        .all(|by_phase| by_phase.iter().sum::<u32>() <= 3)
}

fn check(procs: u32, crashes: u32) -> CheckResult {
    // LogP L = 2, o = 1; the protocol sets no timer, so a horizon of a few sweeps is generous.
    let mut model = TimedModel::<Node>::builder(procs, procs, 42, 64 * u64::from(procs))
        .logp(LogP::new(2, 1).expect("valid LogP"))
        .max_crashes(crashes)
        .timing(CrashTiming::Any)
        .build();
    model.properties = broadcast_properties();
    model.properties.push(TimedProperty::always(
        "at most three sends per process",
        at_most_three_sends,
    ));
    check_model(model, &Budget::UNLIMITED).expect("the model fits the budget")
}

fn main() {
    for (procs, crashes) in [(6, 0), (6, 1)] {
        let result = check(procs, crashes);
        println!(
            "P = {procs}, f = {crashes}: {} ({} states)",
            result.verdict().as_str(),
            result.states
        );
        for property in &result.properties {
            let verdict = if result.violated(property) {
                "VIOLATED"
            } else {
                "holds"
            };
            println!("  {verdict:8}  {property}");
        }
        if let Some(v) = result.violations.first() {
            println!("  shortest counterexample for \"{}\":", v.property);
            for line in &v.trace {
                println!("    {line}");
            }
        }
    }
}

/// `cargo test` runs the example, so it cannot rot: fault-free everything holds; with one crash
/// the one-message ring correction is not enough, and liveness has a counterexample.
#[test]
fn the_variant_is_checked_and_one_crash_breaks_its_liveness() {
    use ftcoll_verify::property;
    let clean = check(6, 0);
    assert!(clean.violations.is_empty(), "{:?}", clean.violations);
    let one = check(6, 1);
    assert!(one.violated(property::LIVENESS));
    assert!(!one.violated(property::INTEGRITY));
    assert!(!one.violated("at most three sends per process"));
    main();
}
