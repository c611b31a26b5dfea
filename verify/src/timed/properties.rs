//! What the timed model decides: properties as a family declares them ([`TimedProperty`]: an
//! English phrase and a predicate on a state, `always` or `sometimes`), the broadcast's four
//! (CT §2.1, CG §II) and the predicates several families share.

use ftcoll::automaton::Automaton;

use super::{TimedModel, TimedState};
use crate::{predicates, property};

/// Whether a property must hold in every reachable state or be reached in some.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Expectation {
    /// Safety (and liveness read at quiescent states): a state violating it is a
    /// counterexample.
    Always,
    /// Reachability: a state satisfying it is an example; not reaching one means the model
    /// never gets where the property looks (a vacuity check, DESIGN §6).
    Sometimes,
}

/// One property the timed model decides, declared by a protocol family: an English phrase
/// (the name the matrix and the CLI print) and a predicate on a state.
pub struct TimedProperty<A: Automaton> {
    /// The property as an English phrase, e.g. "integrity: every delivery is the root's payload".
    pub name: &'static str,
    /// Always or sometimes.
    pub expectation: Expectation,
    /// Whether the property says something about quiescent states (a liveness property read
    /// at the end): a run cut at the horizon satisfies it vacuously, so when the horizon cuts
    /// some run the check reports it undecided instead of holding.
    pub at_quiescence: bool,
    /// Whether the state satisfies it.
    pub condition: fn(&TimedModel<A>, &TimedState<A>) -> bool,
}

impl<A: Automaton> TimedProperty<A> {
    /// A property every reachable state must satisfy.
    pub fn always(
        name: &'static str,
        condition: fn(&TimedModel<A>, &TimedState<A>) -> bool,
    ) -> Self {
        Self {
            name,
            expectation: Expectation::Always,
            at_quiescence: false,
            condition,
        }
    }

    /// An `always` property whose condition constrains quiescent states (see
    /// [`Self::at_quiescence`]).
    pub fn always_at_quiescence(
        name: &'static str,
        condition: fn(&TimedModel<A>, &TimedState<A>) -> bool,
    ) -> Self {
        Self {
            at_quiescence: true,
            ..Self::always(name, condition)
        }
    }

    /// A property some reachable state must satisfy.
    pub fn sometimes(
        name: &'static str,
        condition: fn(&TimedModel<A>, &TimedState<A>) -> bool,
    ) -> Self {
        Self {
            name,
            expectation: Expectation::Sometimes,
            at_quiescence: false,
            condition,
        }
    }
}

impl<A: Automaton> Clone for TimedProperty<A> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<A: Automaton> Copy for TimedProperty<A> {}

impl<A: Automaton> core::fmt::Debug for TimedProperty<A> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{:?}({:?})", self.expectation, self.name)
    }
}

/// The properties of a broadcast (CT §2.1, CG §II, DESIGN §6), for any automaton whose
/// deliveries carry the root's payload: integrity, no duplicates, non-faulty liveness and
/// termination, with two reachability checks (some process is colored by correction, some run
/// becomes quiescent).
pub fn broadcast_properties<A: Automaton>() -> Vec<TimedProperty<A>> {
    vec![
        TimedProperty::always(property::INTEGRITY, integrity::<A>),
        TimedProperty::always(property::NO_DUPLICATES, no_duplicates::<A>),
        TimedProperty::always_at_quiescence(property::LIVENESS, liveness::<A>),
        TimedProperty::always(property::TERMINATION, termination::<A>),
        TimedProperty::sometimes(property::SOMETIMES_CORRECTED, corrected::<A>),
        TimedProperty::sometimes(property::SOMETIMES_QUIESCENT, quiescent::<A>),
    ]
}

/// The stop rule every family that implements [`Automaton::is_done`] promises (its contract,
/// `src/automaton.rs`; for the ring corrections CT §3.1's stop rule and CG Alg. 1–3): a process
/// that has stopped never sends, delivers or completes again. A driver may stop serving a
/// stopped process, so breaking the promise loses messages in a real runtime.
pub fn stopped_stays_silent<A: Automaton>(_: &TimedModel<A>, s: &TimedState<A>) -> bool {
    s.acted_after_done.is_none()
}

fn integrity<A: Automaton>(m: &TimedModel<A>, s: &TimedState<A>) -> bool {
    predicates::integrity(s.sim.report(), &m.payload)
}

fn no_duplicates<A: Automaton>(_: &TimedModel<A>, s: &TimedState<A>) -> bool {
    predicates::no_duplicates(s.sim.report())
}

fn liveness<A: Automaton>(_: &TimedModel<A>, s: &TimedState<A>) -> bool {
    !TimedModel::quiescent(s) || predicates::all_live_delivered(s.sim.report())
}

/// Termination, shared by every family: no driver error and nothing left to happen after the
/// horizon.
pub fn termination<A: Automaton>(m: &TimedModel<A>, s: &TimedState<A>) -> bool {
    s.error.is_none() && s.sim.next_time().is_none_or(|t| t <= m.horizon)
}

fn corrected<A: Automaton>(_: &TimedModel<A>, s: &TimedState<A>) -> bool {
    predicates::some_corrected(s.sim.report())
}

/// Every model's own reachability check: some run still has something to do after the
/// horizon, where the model stops exploring it. Reached, it makes every
/// [`TimedProperty::at_quiescence`] property undecided (a cut run never gets to be checked at
/// its end) — a bounded verdict, never a silent pass.
pub const HORIZON_CUT: &str = "sometimes: a run is cut at the horizon";

pub(crate) fn cut_at_horizon<A: Automaton>(m: &TimedModel<A>, s: &TimedState<A>) -> bool {
    s.error.is_none() && s.sim.next_time().is_some_and(|t| t > m.horizon)
}

/// Reachability of quiescence, shared by every family.
pub fn quiescent<A: Automaton>(_: &TimedModel<A>, s: &TimedState<A>) -> bool {
    s.sim.next_time().is_none()
}
