//! A protocol of one's own, checked with ftcoll-verify: a flat broadcast (the root sends to
//! every other rank in rank order) and, as a variant, one where every receiver also forwards
//! once to its ring successor. Written from the docs of `Automaton`, `TimedModel::builder` and
//! `check_model`.

use ftcoll::automaton::{Automaton, Message, Outbox, Phase, TimerId};
use ftcoll::topology::LogP;
use ftcoll::{Rank, Time};
use ftcoll_verify::timed::{broadcast_properties, TimedProperty, TimedState};
use ftcoll_verify::{check_model, Budget, CheckResult, CrashTiming, TimedModel};
use serde::{Deserialize, Serialize};

/// The configuration: `P` and whether receivers forward to their ring successor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Flat {
    /// `P`.
    pub procs: u32,
    /// Receivers forward once along the ring.
    pub forward: bool,
}

/// The message: the value. Serde's traits: the checker writes states, and the messages in
/// flight with them, as bytes.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Value(pub u64);

impl Message for Value {
    fn phase(&self) -> Phase {
        Phase::Dissemination
    }
}

/// One process (serde's traits, as for the message).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Node {
    rank: Rank,
    value: Option<u64>,
    /// Ranks still to send to, in order.
    to: Vec<Rank>,
}

impl Node {
    fn got(&mut self, config: &Flat, value: u64, out: &mut Outbox<Value>) {
        if self.value.is_some() {
            out.ignore("duplicate");
            return;
        }
        self.value = Some(value);
        out.deliver(value);
        if self.rank == 0 {
            self.to = (1..config.procs).collect();
        } else if config.forward {
            self.to = vec![(self.rank + 1) % config.procs];
        }
    }
}

impl Automaton for Node {
    type Msg = Value;
    type Value = u64;
    type Config = Flat;

    fn new(_: &Flat, rank: Rank) -> Self {
        Self {
            rank,
            value: None,
            to: Vec::new(),
        }
    }

    fn procs(config: &Flat) -> Option<u32> {
        Some(config.procs)
    }

    fn on_start(&mut self, config: &Flat, _: Time, out: &mut Outbox<Value>) {
        if self.rank == 0 {
            self.got(config, 7, out);
        }
    }

    fn on_message(&mut self, config: &Flat, _: Time, _: Rank, msg: Value, out: &mut Outbox<Value>) {
        self.got(config, msg.0, out);
    }

    fn on_timer(&mut self, _: &Flat, _: Time, _: TimerId, _: &mut Outbox<Value>) {}

    fn on_send_slot(&mut self, _: &Flat, _: Time, out: &mut Outbox<Value>) {
        if let Some(to) = (!self.to.is_empty()).then(|| self.to.remove(0)) {
            out.send(to, Value(self.value.expect("sends only after receiving")));
        }
    }
}

/// A property of this protocol: only the root sends more than one message.
pub const ONE_SEND_EACH: &str = "every non-root process sends at most once";

fn one_send_each(_: &TimedModel<Node>, s: &TimedState<Node>) -> bool {
    s.sim
        .report()
        .sent_counts()
        .skip(1)
        .all(|by_phase| by_phase.iter().sum::<u32>() <= 1)
}

/// Checks the protocol on `procs` processes with at most `crashes` crashes at any instant.
pub fn check(config: Flat, crashes: u32) -> CheckResult {
    let horizon = 64 * u64::from(config.procs);
    let mut model = TimedModel::<Node>::builder(config, config.procs, 7, horizon)
        .logp(LogP::new(2, 1).expect("valid LogP"))
        .max_crashes(crashes)
        .timing(CrashTiming::Any)
        .build();
    model.properties = broadcast_properties();
    model
        .properties
        .push(TimedProperty::always(ONE_SEND_EACH, one_send_each));
    check_model(model, &Budget::UNLIMITED).expect("the model fits the budget")
}

#[cfg(test)]
mod tests {
    use super::*;
    use ftcoll_verify::property;

    #[test]
    fn flat_broadcast_holds_every_property_with_up_to_one_non_root_crash() {
        // Crashes are of non-root processes: a crashed receiver is simply not live, so the flat
        // broadcast keeps every property.
        for crashes in [0, 1] {
            let r = check(Flat { procs: 5, forward: false }, crashes);
            assert!(r.violations.is_empty(), "f = {crashes}: {:?}", r.violations);
            assert!(r.states > 1);
        }
    }

    #[test]
    fn the_forwarding_variant_keeps_its_own_property_and_the_standard_ones() {
        let r = check(Flat { procs: 5, forward: true }, 1);
        assert!(!r.violated(property::INTEGRITY));
        assert!(!r.violated(property::NO_DUPLICATES));
        assert!(!r.violated(property::LIVENESS));
        assert!(!r.violated(ONE_SEND_EACH));
    }

    #[test]
    fn a_violated_own_property_comes_with_a_trace() {
        // The root sends P − 1 messages; claiming "at most once" for it too must fail.
        fn at_most_once_everywhere(_: &TimedModel<Node>, s: &TimedState<Node>) -> bool {
            s.sim.report().sent_counts().all(|p| p.iter().sum::<u32>() <= 1)
        }
        let config = Flat { procs: 4, forward: false };
        let mut model = TimedModel::<Node>::builder(config, 4, 7, 256)
            .logp(LogP::new(2, 1).unwrap())
            .max_crashes(0)
            .timing(CrashTiming::Pre)
            .build();
        model.properties = broadcast_properties();
        model
            .properties
            .push(TimedProperty::always("at most once everywhere", at_most_once_everywhere));
        let r = check_model(model, &Budget::UNLIMITED).unwrap();
        assert!(r.violated("at most once everywhere"));
        let v = r
            .violations
            .iter()
            .find(|v| v.property == "at most once everywhere")
            .unwrap();
        assert!(!v.trace.is_empty());
        assert!(!r.violated(property::LIVENESS));
    }
}
