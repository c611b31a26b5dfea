//! FTCO in the timed model (FTCO §3–4, App. B): the properties the paper claims for its
//! Bcast, Reduce and Allreduce, decided for the unchanged [`FtcoNode`] on the single-port step
//! model (`o = 1`), with crash-stop crashes of non-immune ranks before the operation or at any
//! instant of it.
//!
//! Properties (the FTCO family's columns; [`ALL`]):
//! - *consistency* (Def. 3.1–3.2, [`CONSISTENCY`]): in every state, every completion (Bcast:
//!   delivery) carries one and the same value, no process completes twice, the value counts no
//!   operand twice and contains every process that has not crashed (a process alive when a
//!   result without it exists is a counterexample: the run in which it never fails continues
//!   from that very state, and there it belongs to `RemainingNodes`); at quiescence every
//!   process that never crashed has completed (Reduce: rank 0).
//! - *termination* ([`property::TERMINATION`]): quiescent by the horizon ([`horizon`]), with no
//!   contract error.
//! - *no false suspicion* ([`NO_FALSE_SUSPICION`]): no process ever times out on a process
//!   that has not crashed (the timeouts of Alg. 4 are a failure detector; a false suspicion
//!   drops a live operand or re-parents around a live node).
//! - *fault-free cost and time* ([`FAULT_FREE_COST`]): in the paper's base algorithm (every
//!   process enters together, rank 0 immune), while no process has crashed, no KEEPALIVE has
//!   been sent (every `f_ETA` of §4 is met), and a fault-free run ends with one DATA per edge
//!   of §3's message flow ([`fault_free_data`]) and at most one ACK per DATA, at the
//!   closed-form latency of §5.2.1 ([`FtcoTopology::fault_free_latency`]). Timing and message
//!   counts are what a misplaced ETA or a repeated send changes, and no other property sees
//!   them.
//! - *type priority* ([`TYPE_PRIORITY`]): in every state, for every process with messages
//!   waiting, the message its `select_receive` would take next is of the highest-priority type
//!   waiting: DATA, then KEEPALIVE, then ACK (§3 "Message Priorities", Alg. 2 line 7). The
//!   choice is read from the automaton on every reachable queue, so the rule is checked on
//!   each queue a process can face, not only on those it happens to face at a receive.
//!   Under a service distance (App. A) the ranking applies among the messages from the peers
//!   at the distance the step serves when one of them waits, and among all messages
//!   otherwise; the served distance is computed from the configuration, not read from the
//!   process.
//! - *detection* ([`DETECTION`]): a crashed peer is suspected, and a due KEEPALIVE sent, on
//!   time (the configuration's ETAs and timeouts; `detects`).
//! - *recovery time* ([`RECOVERY_TIME`]): in the base algorithm with processes failed before
//!   the operation (§5's offline faults), the operation ends by [`recovery_bound`]: the
//!   fault-free latency plus, along the heaviest chain of failed processes one below another,
//!   each one's detection and re-routing, plus the busiest ancestor's extra port steps. §5.1's
//!   Table 1 states the shape (serial faults add up, parallel ones overlap); the paper gives
//!   no closed form, and the bound's argument is at [`recovery_bound`].
//!
//! Operands are [`Contributions`] (`{(rank, 1)}`): the non-idempotent operator that shows every
//! double count and every missing operand (FTCO §4: "each value is used only once").

use ftcoll::automaton::{Automaton, Contributions, Phase};
use ftcoll::protocols::ftco::{
    EtaRule, FtcoConfig, FtcoMsg, FtcoNode, Imbalance, RootFailure, ServiceDistance, TimeoutRule,
};
use ftcoll::topology::ftco::{Collective, FtcoKind, FtcoTopology};
use ftcoll::topology::{LogP, TopologyError};
use ftcoll::{Rank, Time};
use ftcoll_sim::PortModel;

use crate::budget::Halt;
use crate::property::Column;
use crate::timed::{quiescent, termination, TimedModel, TimedProperty, TimedState, Vocabulary};
use crate::{predicates, property, CrashTiming};

/// Consistency (FTCO Def. 3.1–3.2).
pub const CONSISTENCY: &str = "consistency: every live process completes once, all with one value that counts each operand at most once and every process that has not failed (FTCO Def. 3.1–3.2)";
/// No false suspicion.
pub const NO_FALSE_SUSPICION: &str =
    "no false suspicion: no process times out on a process that has not crashed";
/// Fault-free cost and time (FTCO §4, §5.2.1).
pub const FAULT_FREE_COST: &str = "fault-free cost and time: with no crash, everyone entering together and rank 0 immune, no KEEPALIVE is sent, one DATA crosses each edge (at most one ACK each) and the operation ends at its closed-form latency (FTCO §3, §4 f_ETA, §5.2.1)";
/// Alg. 2's type priority.
pub const TYPE_PRIORITY: &str = "type priority: a process never takes a message while one of a higher-priority type waits, DATA before KEEPALIVE before ACK (FTCO §3, Alg. 2 line 7), among the messages of the distance its step serves when one of those waits (App. A)";
/// Detection (FTCO §4, Alg. 4; App. A).
pub const DETECTION: &str = "detection: a process suspects a peer at the first instant more than f_timeout after a DATA or KEEPALIVE to it that no ACK or DATA answered, and sends a KEEPALIVE to a peer whose DATA it awaits as soon as the side's ETA (or f_timeout since the last one) has passed (FTCO §4, Alg. 4 lines 2–10 and 20–23; App. A)";
/// Recovery time (FTCO §5.1 Table 1; §4, App. A).
pub const RECOVERY_TIME: &str = "recovery time: with processes failed before the operation, it ends by the fault-free latency plus, over the failed processes one below another that cost most, each one's detection (the largest f_timeout from a process that awaits it, plus the ETA slack) and two hops to re-route, plus two steps per process re-routed to the busiest ancestor (FTCO §5.1 Table 1: serial faults add up, parallel ones overlap; §4, App. A)";
/// Reachability: the failure detector fires.
pub const SOMETIMES_SUSPECTS: &str = "sometimes: a process times out on a crashed process";

/// The FTCO family's `always` properties, in matrix column order, with their short names.
pub const COLUMNS: [Column; 7] = [
    Column::new(CONSISTENCY, "consistency"),
    Column::new(property::TERMINATION, "termination"),
    Column::new(NO_FALSE_SUSPICION, "no false suspicion"),
    Column::new(FAULT_FREE_COST, "fault-free cost"),
    Column::new(TYPE_PRIORITY, "type priority"),
    Column::new(DETECTION, "detection"),
    Column::new(RECOVERY_TIME, "recovery time"),
];
/// The statements of [`COLUMNS`].
pub const ALL: [&str; 7] = property::statements(COLUMNS);

/// What the FTCO properties read from an automaton and its configuration. The real automaton
/// implements it, and so do the mutants of [`crate::mutants`].
pub trait FtcoProcess:
    Automaton<Value = Vec<(Rank, u32)>, Msg = FtcoMsg<Vec<(Rank, u32)>>>
{
    /// The collective the configuration runs.
    fn collective(config: &Self::Config) -> Collective;
    /// The tree the configuration runs on.
    fn topology(config: &Self::Config) -> &FtcoTopology;
    /// Whether the configuration runs the paper's base algorithm, whose fault-free cost and
    /// time §4 and §5.2.1 fix: every process enters at once and no root is replaced (App. B's
    /// imbalance extension and §4's root replacement cost extra steps and messages).
    fn runs_the_base_algorithm(config: &Self::Config) -> bool;
    /// The service distance the configuration uses.
    fn service(config: &Self::Config) -> ServiceDistance;
    /// The ranks this process timed out on.
    fn suspected(&self) -> &[Rank];
    /// The real FTCO process (itself, or the one a mutant wraps).
    fn node(&self) -> &FtcoNode<Contributions>;
    /// The real protocol configuration, whose timers the properties hold the process to.
    fn protocol(config: &Self::Config) -> &FtcoConfig<Contributions>;
}

impl FtcoProcess for FtcoNode<Contributions> {
    fn collective(config: &FtcoConfig<Contributions>) -> Collective {
        config.collective
    }

    fn topology(config: &FtcoConfig<Contributions>) -> &FtcoTopology {
        &config.topology
    }

    fn runs_the_base_algorithm(config: &FtcoConfig<Contributions>) -> bool {
        config.imbalance == Imbalance::Off && !config.replaces_root()
    }

    fn service(config: &FtcoConfig<Contributions>) -> ServiceDistance {
        config.service
    }

    fn suspected(&self) -> &[Rank] {
        FtcoNode::suspected(self)
    }

    fn node(&self) -> &FtcoNode<Contributions> {
        self
    }

    fn protocol(config: &FtcoConfig<Contributions>) -> &FtcoConfig<Contributions> {
        config
    }
}

/// One FTCO collective to check: everything but the faults.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FtcoSpec {
    /// Bcast, Reduce or Allreduce.
    pub collective: Collective,
    /// k-ary or k-nomial.
    pub kind: FtcoKind,
    /// `R` (1: single-root).
    pub roots: u64,
    /// `P`.
    pub procs: u32,
    /// `L` in steps (`o = 1`).
    pub latency: u64,
    /// When processes enter the collective.
    pub entry: Entry,
    /// Immune roots, or rank 0 replaced by its children (end of §4).
    pub root_failure: RootFailure,
    /// `f_timeout` (`None`: [`TimeoutRule::for_latency`]).
    pub timeout: Option<TimeoutRule>,
    /// The result's ETA ([`EtaRule::Exact`] by default).
    pub eta: EtaRule,
    /// Which peers each step serves first (App. A; [`ServiceDistance::None`] by default).
    pub service: ServiceDistance,
}

/// When processes enter the collective (FTCO §5.2.4, App. B).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Entry {
    /// Everyone enters at 0.
    Together,
    /// Every odd rank enters late ([`FtcoSpec::late`]) with the imbalance extension (App. B,
    /// Alg. 5): reachable from 0, it answers before it enters.
    LateAlg5,
    /// Every odd rank arrives late at the driver (`Scenario::arrivals`) without the extension:
    /// until then it answers nothing (the "off" baseline of App. B).
    LateDriver,
}

impl core::fmt::Display for Entry {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::Together => "together",
            Self::LateAlg5 => "late, Alg. 5",
            Self::LateDriver => "late, no Alg. 5",
        })
    }
}

/// Lower-case name of a collective.
pub fn collective_name(collective: Collective) -> &'static str {
    match collective {
        Collective::Bcast => "bcast",
        Collective::Reduce => "reduce",
        Collective::Allreduce => "allreduce",
    }
}

/// A service distance as the CLI spells it: `none`, `disd`, `rsd:INV_R` (with `@SEED` when the
/// seed is not 0).
pub fn service_name(service: ServiceDistance) -> String {
    match service {
        ServiceDistance::Rsd { inverse_r, seed: 0 } => format!("rsd:{inverse_r}"),
        ServiceDistance::Rsd { inverse_r, seed } => format!("rsd:{inverse_r}@{seed}"),
        ServiceDistance::Disd => "disd".into(),
        _ => "none".into(),
    }
}

impl FtcoSpec {
    /// The default spec of the matrix: single root, `L = 2`, no imbalance, immune root, the
    /// default timeout.
    pub fn new(collective: Collective, kind: FtcoKind, procs: u32) -> Self {
        Self {
            collective,
            kind,
            roots: 1,
            procs,
            latency: 2,
            entry: Entry::Together,
            root_failure: RootFailure::Immune,
            timeout: None,
            eta: EtaRule::Exact,
            service: ServiceDistance::None,
        }
    }

    /// The topology.
    pub fn topology(&self) -> Result<FtcoTopology, TopologyError> {
        FtcoTopology::new(self.kind, self.roots, self.procs)
    }

    /// When each rank enters: odd ranks at [`Self::late`], the others at 0 (empty when
    /// everyone enters together).
    pub fn start_times(&self) -> Result<Vec<Time>, TopologyError> {
        if self.entry == Entry::Together {
            return Ok(Vec::new());
        }
        let late = self.late()?;
        Ok((0..self.procs)
            .map(|r| if r % 2 == 1 { late } else { 0 })
            .collect())
    }

    /// The late entry: one step after the fault-free latency plus the longest `f_timeout`
    /// between neighbours — late enough that a neighbour's ETA passes and its KEEPALIVE goes
    /// unanswered for a whole timeout unless Alg. 5 answers it.
    pub fn late(&self) -> Result<Time, TopologyError> {
        let topology = self.topology()?;
        let degree = (0..topology.procs())
            .map(|r| topology.degree(r))
            .max()
            .unwrap_or(0);
        let late = topology.fault_free_latency(self.collective, self.latency)?
            + self.timeout_rule().timeout(degree, degree, 1)
            + 1;
        Ok(late)
    }

    fn timeout_rule(&self) -> TimeoutRule {
        self.timeout
            .unwrap_or_else(|| TimeoutRule::for_latency(self.latency))
    }

    /// The longest `f_timeout` between two ranks of the tree (distance up to twice the depth).
    fn max_timeout(&self, topology: &FtcoTopology) -> Time {
        let degree = (0..topology.procs())
            .map(|r| topology.degree(r))
            .max()
            .unwrap_or(0);
        self.timeout_rule()
            .timeout(degree, degree, 2 * topology.depth() + 2)
    }

    /// The protocol configuration, with [`Contributions`] operands `{(rank, 1)}`.
    pub fn config(&self) -> Result<FtcoConfig<Contributions>, TopologyError> {
        let mut config = FtcoConfig::new(
            self.topology()?,
            self.collective,
            Contributions,
            |rank| vec![(rank, 1)],
            self.latency,
        )?;
        config.timeout = self.timeout_rule();
        config.eta = self.eta;
        config.root_failure = self.root_failure;
        config.service = self.service;
        if self.entry == Entry::LateAlg5 {
            config.imbalance = Imbalance::Alg5 {
                start: self.start_times()?,
            };
        }
        Ok(config)
    }

    /// The ranks that may crash: every rank but the fault-immune roots.
    pub fn crashable(&self) -> Result<Vec<Rank>, TopologyError> {
        let config = self.config()?;
        Ok((0..self.procs).filter(|&r| !config.is_immune(r)).collect())
    }

    /// A one-line name: `allreduce knomial:2 R=1 P=7 L=2 imbalance`.
    pub fn name(&self) -> String {
        let mut name = format!(
            "{} {} R={} P={} L={}",
            collective_name(self.collective),
            self.kind,
            self.roots,
            self.procs,
            self.latency
        );
        match self.entry {
            Entry::Together => {}
            Entry::LateAlg5 => name.push_str(" late-alg5"),
            Entry::LateDriver => name.push_str(" late-driver"),
        }
        if self.root_failure == RootFailure::ReplacedByChildren {
            name.push_str(" root-replaced");
        }
        if let Some(t) = self.timeout {
            name.push_str(&format!(" timeout={}+{}", t.round_trip, t.per_load));
        }
        if self.eta != EtaRule::Exact {
            name.push_str(&format!(" eta={}", self.eta));
        }
        if self.service != ServiceDistance::None {
            name.push_str(&format!(" service={}", service_name(self.service)));
        }
        name
    }

    /// The number of initial states of a check with at most `crashes` crashes: every crash set
    /// of crashable ranks for [`CrashTiming::Pre`], else one. Saturates.
    pub fn initial_states(&self, crashes: u32, timing: CrashTiming) -> u64 {
        let crashable = self
            .crashable()
            .map_or(u32::from(self.procs > 0), |c| c.len() as u32);
        crate::initial_states(crashable + 1, crashes, timing, crate::ModelKind::Timed)
    }
}

/// The latest instant by which a run must be quiescent: the fault-free latency, plus the
/// latest `StartTime`, plus, per crash and once more, one climb of the tree (`depth + 2`
/// levels) in which each level costs an ETA (the fault-free latency) and four timeouts of the
/// busiest pair — one timeout to suspect, one to re-send, two for a KEEPALIVE round; and once
/// per crash the largest slack of a result ETA (0 under [`EtaRule::Exact`]), by which a slack
/// delays the first KEEPALIVE. Derived from the protocol's own timers; `lab/tests/protocols/ftco_faults.rs`
/// runs thousands of random fault sets under the same bound.
pub fn horizon(spec: &FtcoSpec, crashes: u32) -> Result<Time, TopologyError> {
    let topology = spec.topology()?;
    let fault_free = topology.fault_free_latency(spec.collective, spec.latency)?;
    let levels = u64::from(topology.depth()) + 2;
    let start = spec.start_times()?.into_iter().max().unwrap_or(0);
    let config = spec.config()?;
    let slack = (0..spec.procs)
        .map(|r| config.result_slack(r))
        .max()
        .unwrap_or(0);
    Ok(fault_free
        + start
        + (u64::from(crashes) + 1)
            * (levels * (4 * spec.max_timeout(&topology) + fault_free) + slack))
}

/// The FTCO family's properties for automaton `A`.
pub fn properties<A: FtcoProcess>() -> Vec<TimedProperty<A>> {
    vec![
        TimedProperty::always_at_quiescence(CONSISTENCY, consistency::<A>),
        TimedProperty::always(property::TERMINATION, termination::<A>),
        TimedProperty::always(NO_FALSE_SUSPICION, no_false_suspicion::<A>),
        TimedProperty::always_at_quiescence(FAULT_FREE_COST, fault_free_cost::<A>),
        TimedProperty::always(TYPE_PRIORITY, keeps_type_priority::<A>),
        TimedProperty::always(DETECTION, detects::<A>),
        TimedProperty::always_at_quiescence(RECOVERY_TIME, recovers_in_time::<A>),
        TimedProperty::sometimes(SOMETIMES_SUSPECTS, suspects::<A>),
        TimedProperty::sometimes(property::SOMETIMES_QUIESCENT, quiescent::<A>),
    ]
}

/// The timed model of `spec` for automaton `A` (the real one, or a mutant wrapping it) with
/// configuration `config`, at most `max_crashes` crashes.
pub fn model_of<A: FtcoProcess>(
    spec: &FtcoSpec,
    config: A::Config,
    max_crashes: u32,
    timing: CrashTiming,
) -> Result<TimedModel<A>, TopologyError> {
    let logp = LogP::new(spec.latency, 1)?;
    Ok(TimedModel {
        config,
        procs: spec.procs,
        logp,
        port_model: PortModel::SinglePort,
        payload: vec![(0, 1)],
        max_crashes,
        timing,
        horizon: horizon(spec, max_crashes)?,
        halt: Halt::new(),
        crashable: spec.crashable()?,
        properties: properties(),
        arrivals: if spec.entry == Entry::LateDriver {
            spec.start_times()?
        } else {
            Vec::new()
        },
        vocabulary: Vocabulary::FTCO,
        guide: None,
        choices: None,
        crashes_at_events_only: false,
        crashes_before_sends_only: false,
    })
}

/// The timed model of the real FTCO automaton for `spec`.
pub fn model(
    spec: &FtcoSpec,
    max_crashes: u32,
    timing: CrashTiming,
) -> Result<TimedModel<FtcoNode<Contributions>>, TopologyError> {
    model_of(spec, spec.config()?, max_crashes, timing)
}

fn counted_once(value: &[(Rank, u32)]) -> bool {
    value.iter().all(|&(_, count)| count == 1)
}

fn consistency<A: FtcoProcess>(m: &TimedModel<A>, s: &TimedState<A>) -> bool {
    let report = s.sim.report();
    let done = TimedModel::quiescent(s);
    if A::collective(&m.config) == Collective::Bcast {
        return predicates::integrity(report, &m.payload)
            && predicates::no_duplicates(report)
            && (!done || predicates::all_live_delivered(report));
    }
    // Who must have completed at quiescence: a live rank 0 (Reduce), every live process
    // (Allreduce).
    let required = |r: Rank| {
        !s.sim.has_crashed(r) && (r == 0 || A::collective(&m.config) == Collective::Allreduce)
    };
    let completions = &report.completions;
    let Some((_, _, first)) = completions.first() else {
        return !done || !(0..m.procs).any(required);
    };
    if !counted_once(first) {
        return false;
    }
    // One value, and no process completes twice.
    let mut seen = vec![false; m.procs as usize];
    for (rank, _, value) in completions {
        if value != first || std::mem::replace(&mut seen[*rank as usize], true) {
            return false;
        }
    }
    // Every process that has not crashed is in the result.
    if (0..m.procs)
        .any(|r| !s.sim.has_crashed(r) && first.binary_search_by_key(&r, |&(x, _)| x).is_err())
    {
        return false;
    }
    !done || (0..m.procs).all(|r| !required(r) || seen[r as usize])
}

fn no_false_suspicion<A: FtcoProcess>(m: &TimedModel<A>, s: &TimedState<A>) -> bool {
    (0..m.procs).all(|r| {
        s.sim
            .automaton(r)
            .is_none_or(|node| node.suspected().iter().all(|&x| s.sim.has_crashed(x)))
    })
}

/// The fault-free latency as §5.2.1 measures it: Bcast, the last delivery; Reduce, rank 0's
/// completion (with root replacement the root's children complete too, after it, holding the
/// result in case they must replace it); Allreduce, the last completion. `None` before the
/// measured event.
fn measured_latency<V>(report: &ftcoll_sim::Report<V>, collective: Collective) -> Option<Time> {
    let completions = report.completions.iter();
    match collective {
        Collective::Bcast => (report.undelivered() == 0).then(|| report.coloring_latency()),
        Collective::Reduce => completions.filter(|c| c.0 == 0).map(|c| c.1).next(),
        Collective::Allreduce => completions.map(|c| c.1).max(),
    }
}

fn fault_free_cost<A: FtcoProcess>(m: &TimedModel<A>, s: &TimedState<A>) -> bool {
    if !A::runs_the_base_algorithm(&m.config)
        || !m.arrivals.is_empty()
        || (0..m.procs).any(|r| s.sim.has_crashed(r))
    {
        return true;
    }
    let report = s.sim.report();
    if report.messages_in(Phase::Liveness) != 0 {
        return false; // A KEEPALIVE: some f_ETA passed before its data came.
    }
    if !TimedModel::quiescent(s) {
        return true;
    }
    let collective = A::collective(&m.config);
    let topology = A::topology(&m.config);
    let expected = topology.fault_free_latency(collective, m.logp.latency());
    expected.ok() == measured_latency(report, collective)
        && report.messages_in(Phase::Dissemination) == fault_free_data(topology, collective)
        && report.messages_in(Phase::Acknowledgment) <= report.messages_in(Phase::Dissemination)
}

/// [`RECOVERY_TIME`], for the paper's base algorithm (as [`FAULT_FREE_COST`]) in runs whose
/// every crash came before the operation (FTCO §5's offline faults); runs with a crash during
/// the operation are held to *termination*'s horizon instead.
fn recovers_in_time<A: FtcoProcess>(m: &TimedModel<A>, s: &TimedState<A>) -> bool {
    if !A::runs_the_base_algorithm(&m.config) || !m.arrivals.is_empty() {
        return true;
    }
    let mut failed = Vec::new();
    for r in 0..m.procs {
        match s.sim.crash_instant(r) {
            None => {}
            Some(0) => failed.push(r),
            Some(_) => return true,
        }
    }
    if failed.is_empty() || !TimedModel::quiescent(s) {
        return true;
    }
    let collective = A::collective(&m.config);
    let Some(bound) = recovery_bound(A::protocol(&m.config), m.logp.latency(), &failed) else {
        return true;
    };
    // No end at all is consistency's to report.
    measured_latency(s.sim.report(), collective).is_none_or(|end| end <= bound)
}

/// The latest end (measured as §5.2.1 measures the fault-free latency) of an operation of
/// `config` on `L = latency` whose processes `failed` crashed before it started: the
/// fault-free latency, plus the heaviest chain of failed processes one below another (a failed
/// process and its failed ancestors) of each one's cost `D(x)`, plus two steps per process
/// re-routed to the busiest live ancestor. `None` if the topology has no fault-free latency.
///
/// Why (FTCO §4, App. A; §5.1 Table 1, where serial faults add up and parallel ones overlap):
/// a failed `x` is awaited by its first live ancestor `a` (its DATA up) and by the live
/// processes of its frontier, its topmost live descendants (the DATA down, or the ACK of their
/// DATA up). Each stops waiting at most `f_timeout(·, x)` after the instant its fault-free
/// schedule expected `x` (its KEEPALIVE goes at the ETA, late by at most the ETA slack, and
/// an unanswered DATA or KEEPALIVE is suspected `f_timeout` later), and then re-routes: a
/// message to the new peer and its answer, two hops of `L + 2` steps (send, `L + 1`,
/// handling). So `D(x)` is the largest of those timeouts (`a`'s at its distance to `x`, which
/// grows when `a` is a grandparent or above) plus `2(L + 2)` plus the slack. A failed process
/// below `x` is found only once `x`'s recovery re-routed to it, so a chain's costs add; faults
/// in different subtrees are recovered side by side, except that one ancestor's single port
/// serves each process re-routed to it, a message in and one out, two steps each.
pub fn recovery_bound(
    config: &FtcoConfig<Contributions>,
    latency: u64,
    failed: &[Rank],
) -> Option<Time> {
    let topology = &config.topology;
    let fault_free = topology
        .fault_free_latency(config.collective, latency)
        .ok()?;
    let is_failed = |r: Rank| failed.contains(&r);
    let slack = (0..topology.procs())
        .map(|r| config.result_slack(r))
        .max()
        .unwrap_or(0);
    let hop = latency.saturating_add(2);
    let cost = |x: Rank| {
        let ancestor = topology.first_live_ancestor(x, is_failed);
        let detection = ancestor
            .into_iter()
            .chain(topology.live_frontier(x, is_failed))
            .map(|y| config.f_timeout(y, x))
            .max()
            .unwrap_or(0);
        detection
            .saturating_add(hop.saturating_mul(2))
            .saturating_add(slack)
    };
    // Each live ancestor's re-routed processes, once each: a failed process's frontier holds
    // the frontier of a failed child of it too.
    let mut rerouted: Vec<(Rank, Rank)> = Vec::new();
    for &x in failed {
        if let Some(a) = topology.first_live_ancestor(x, is_failed) {
            rerouted.extend(topology.live_frontier(x, is_failed).map(|c| (a, c)));
        }
    }
    rerouted.sort_unstable();
    rerouted.dedup();
    let mut busiest = 0u64;
    for group in rerouted.chunk_by(|p, q| p.0 == q.0) {
        busiest = busiest.max(group.len() as u64);
    }
    let chain = failed
        .iter()
        .map(|&x| {
            failed
                .iter()
                .filter(|&&y| config.descends(y, x))
                .fold(cost(x), |sum, &y| sum.saturating_add(cost(y)))
        })
        .max()
        .unwrap_or(0);
    Some(
        fault_free
            .saturating_add(chain)
            .saturating_add(busiest.saturating_mul(2)),
    )
}

/// The DATA messages of a fault-free run (§3's message flow, §5.2.2's per-node count): one
/// per tree edge, down (Bcast) or up (Reduce, with the other roots' partials to rank 0), or
/// both (Allreduce, whose `R` roots exchange their partials all to all): `P − 1`, `P − 1` and
/// `2(P − R) + R(R − 1)`.
pub fn fault_free_data(topology: &FtcoTopology, collective: Collective) -> u64 {
    let (procs, roots) = (u64::from(topology.procs()), u64::from(topology.roots()));
    match collective {
        Collective::Bcast | Collective::Reduce => procs.saturating_sub(1),
        Collective::Allreduce => 2 * procs.saturating_sub(roots) + roots * roots.saturating_sub(1),
    }
}

fn keeps_type_priority<A: FtcoProcess>(m: &TimedModel<A>, s: &TimedState<A>) -> bool {
    let config = A::protocol(&m.config);
    let now = s.sim.next_time().unwrap_or(0);
    let mut queue: Vec<(Rank, A::Msg)> = Vec::new();
    (0..m.procs).all(|r| {
        let Some(node) = s.sim.automaton(r).filter(|_| !s.sim.has_crashed(r)) else {
            return true;
        };
        // One type waiting (the common case) leaves nothing to rank: no copy needed.
        let mut kinds = s.sim.waiting(r).map(|(_, msg)| msg.kind());
        let first = kinds.next();
        if kinds.all(|k| Some(k) == first) {
            return true;
        }
        queue.clear();
        queue.extend(s.sim.waiting(r).map(|(from, msg)| (from, msg.clone())));
        // App. A: a step that serves distance d takes from the peers at distance d when one of
        // them has a message waiting, and from everyone otherwise (or when it serves any).
        let served = served_distance(config, r, now);
        let at_served = |from: Rank| config.distance(r, from) == served;
        let narrowed = served != 0 && queue.iter().any(|(from, _)| at_served(*from));
        let candidate = |from: Rank| !narrowed || at_served(from);
        match node.select_receive(&m.config, now, &queue) {
            Some(i) => queue.get(i).is_some_and(|(from, taken)| {
                candidate(*from)
                    && queue
                        .iter()
                        .filter(|(other, _)| candidate(*other))
                        .all(|(_, waiting)| waiting.kind() >= taken.kind())
            }),
            None => true,
        }
    })
}

/// The distance `rank`'s step at `now` serves (App. A; 0: any), from the configuration.
pub(crate) fn served_distance(config: &FtcoConfig<Contributions>, rank: Rank, now: Time) -> u32 {
    let degree = match config.service {
        ServiceDistance::Disd => config.degree(rank),
        _ => 0,
    };
    config.service.at(rank, degree, now)
}

/// [`DETECTION`]: in a state whose next event is at `now`, every instant before `now` has
/// been run. So a suspicion due before `now` must have happened, and so must a KEEPALIVE due
/// before `now` unless the port stayed busy (sending, or single-port receiving) from the
/// instant it fell due: a due KEEPALIVE waits for the port, not for anything else. That holds
/// under a service distance too (App. A): a step that has nothing to send to the distance it
/// serves sends to any distance (Alg. 1 lines 5–10), so the served distance orders the due
/// messages but never idles the port while one is due.
fn detects<A: FtcoProcess>(m: &TimedModel<A>, s: &TimedState<A>) -> bool {
    let now = s.sim.next_time().unwrap_or(Time::MAX);
    let config = A::protocol(&m.config);
    (0..m.procs).all(|r| {
        let Some(node) = s.sim.automaton(r).filter(|_| !s.sim.has_crashed(r)) else {
            return true;
        };
        let port_free = s.sim.port_free_at(r).unwrap_or(0);
        node.node().watches(config).all(|w| {
            let suspected_in_time = w
                .unanswered_since
                .is_none_or(|sent| now <= sent.saturating_add(w.timeout) + 1);
            let probed_in_time = w.keepalive_due.is_none_or(|due| now <= due.max(port_free));
            suspected_in_time && probed_in_time
        })
    })
}

fn suspects<A: FtcoProcess>(m: &TimedModel<A>, s: &TimedState<A>) -> bool {
    (0..m.procs).any(|r| {
        s.sim
            .automaton(r)
            .is_some_and(|node| !node.suspected().is_empty())
    })
}

/// Checks `spec` with at most `crashes` crashes within `budget` (BFS: every counterexample is a
/// shortest one). Fails before allocating if the initial states do not fit the budget.
pub fn check(
    spec: &FtcoSpec,
    crashes: u32,
    timing: CrashTiming,
    budget: &crate::Budget,
    progress: Option<crate::Progress<'_>>,
) -> Result<crate::CheckResult, crate::CheckError> {
    let start = std::time::Instant::now();
    let initial = spec.initial_states(crashes, timing);
    crate::admit_initial(initial, spec.procs, crate::ModelKind::Timed, budget)?;
    let model = model(spec, crashes, timing)?;
    crate::check_timed(model, initial, budget, start, progress)
}
