//! Mutants: deliberately broken wrappers around the real automata, one per property, proving
//! each property can fail (DESIGN §6). They live here, not in `ftcoll`, and change only what
//! their name says.

use ftcoll::automaton::{Action, Automaton, Contributions, Outbox, Reduction, TimerId};
use ftcoll::protocols::corrected_tree::{Coloring, CorrectedTreeConfig, CorrectedTreeNode};
use ftcoll::protocols::correction::{DELAY_TIMER, SOS_TIMER};
use ftcoll::protocols::ftco::{FtcoConfig, FtcoMsg, FtcoNode};
use ftcoll::protocols::gossip::{GossipColoring, GossipConfig, GossipNode, GossipProtocol};
use ftcoll::protocols::{Body, CorrectionMsg, Correctors, Msg, Ring, Side};
use ftcoll::{Rank, Time};

/// Which bug a [`Mutant`] has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Bug {
    /// Integrity: a relay flips a bit of the payload when it forwards a tree message.
    CorruptsRelayedPayload,
    /// No duplicates: a process delivers again on every message it receives after coloring.
    DeliversEveryCopy,
    /// Liveness: a corrector mistakes the side a correction message comes from (it records the
    /// message as coming from both sides), so checked correction stops a side it never covered.
    ConfusesDirections,
    /// Termination: a process answers every correction message with one back, forever.
    EchoesCorrection,
    /// Send bound (CG Alg. 1): the root sends one correction message more once its sweeps are
    /// done.
    SendsOneCorrectionTooMany,
    /// C-nodes stay silent (CG §III.B–C): a process colored by correction forwards it once to
    /// its right neighbour.
    CNodeForwards,
    /// A late stop rule (CT Corollary 1, Lemmas 2–3): every process colored by the tree sends
    /// one correction message more once its sweeps are done.
    StopsOneLate,
    /// A stop rule that only trusts neighbours (CT Lemma 3): a checked corrector stops a side
    /// only on a message from the process next to it there, so next to a gap it sweeps the
    /// whole ring. Fault-free it is the real protocol.
    StopsOnlyAtNeighbours,
    /// CT §3.3's skip rule ignored: optimized correction never learns that a nearby corrector
    /// covers a side (it takes every correction message as coming from itself).
    IgnoresCoverage,
    /// Delayed correction waits one step instead of its delay, so fault-free correctors sweep.
    ShortDelay,
    /// CT §3.3's `Stop` reply: a delayed corrector reached by a sweep never answers it (the
    /// reply is dropped), so a sweeper next to a gap sweeps until it has reached everyone.
    NeverRepliesStop,
    /// CG Alg. 3 lines 11–13: a failure-proof c-node delivers on its first correction message.
    DeliversOnFirstCorrector,
    /// CG Claim 5: the root enters SOS at its first send slot of the correction phase.
    PanicsIntoSos,
    /// CG Alg. 3, line 24: a failure-proof corrector starts each final round once it knows
    /// `f + 1` correctors on the other side instead of `f` (through the core's `mutation`
    /// hook: the rule is inside the correction state, out of a wrapper's reach). Its final
    /// messages come late, so fault-free runs enter SOS where a sweep comes back to its sender.
    StartsFinalRoundOneLate,
    /// The stop rule's promise (`Automaton::is_done`): a process says it has stopped as soon as
    /// it is colored, while its correction sweeps are still to come. Every run is the real
    /// protocol's; only a driver that trusts `is_done` (and stops serving the process) would
    /// lose the sweeps.
    ClaimsDoneWhenColored,
}

/// A Corrected Tree process with one [`Bug`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Mutant {
    inner: CorrectedTreeNode,
    rank: Rank,
    procs: u32,
    bug: Bug,
    /// Echo replies owed.
    echoes: Vec<Rank>,
    /// The extra correction message of [`Bug::SendsOneCorrectionTooMany`],
    /// [`Bug::CNodeForwards`] or [`Bug::StopsOneLate`] is owed (`Some(false)`) or sent
    /// (`Some(true)`).
    extra: Option<bool>,
    /// [`Bug::DeliversOnFirstCorrector`] delivered early, or [`Bug::PanicsIntoSos`] fired.
    fired: bool,
}

/// The asynchronous model of a Corrected Tree broadcast whose processes all have `bug`: the
/// real model's configuration, horizon and clock reading, with the mutant automaton.
pub fn async_model(
    spec: &crate::CorrectedTreeSpec,
    bug: Bug,
    max_crashes: u32,
) -> Result<crate::AsyncModel<Mutant>, ftcoll::topology::TopologyError> {
    let real = crate::AsyncModel::corrected_tree(spec, max_crashes)?;
    Ok(crate::AsyncModel {
        config: MutantConfig {
            inner: real.config,
            bug,
        },
        procs: real.procs,
        payload: real.payload,
        max_crashes,
        horizon: real.horizon,
        halt: real.halt,
        reads_clock: real.reads_clock,
        crashes_at_events_only: real.crashes_at_events_only,
    })
}

/// The configuration of a mutant run: the real configuration and the bug.
#[derive(Clone, Debug)]
pub struct MutantConfig {
    /// The real protocol configuration.
    pub inner: CorrectedTreeConfig,
    /// The injected bug.
    pub bug: Bug,
}

impl Mutant {
    /// Passes the real automaton's actions on, with this mutant's bug applied to them; returns
    /// whether a message was sent.
    fn relay(&mut self, now: Time, inner: &mut Outbox<Msg>, out: &mut Outbox<Msg>) -> bool {
        let mut sent = false;
        for action in inner.drain() {
            match action {
                Action::Send { msg, .. }
                    if self.bug == Bug::NeverRepliesStop
                        && msg.body == Body::Correction(CorrectionMsg::Stop) => {}
                Action::Send { to, mut msg }
                    if self.bug == Bug::CorruptsRelayedPayload
                        && self.rank != 0
                        && msg.body == Body::Tree =>
                {
                    msg.value ^= 1;
                    out.send(to, msg);
                    sent = true;
                }
                Action::Send { to, msg } => {
                    out.send(to, msg);
                    sent = true;
                }
                Action::SetTimer { id, .. } if self.bug == Bug::ShortDelay && id == DELAY_TIMER => {
                    out.set_timer(id, now + 1)
                }
                Action::SetTimer { id, at } => out.set_timer(id, at),
                Action::CancelTimer { id } => out.cancel_timer(id),
                // The early delivery replaces the real one.
                Action::Deliver(_) if self.bug == Bug::DeliversOnFirstCorrector && self.fired => {}
                Action::Deliver(v) => out.deliver(v),
                Action::Complete(v) => out.complete(v),
                Action::Ignored(r) => out.ignore(r),
            }
        }
        sent
    }
}

impl Automaton for Mutant {
    type Msg = Msg;
    type Value = u64;
    type Config = MutantConfig;

    fn new(config: &MutantConfig, rank: Rank) -> Self {
        let mut inner = CorrectedTreeNode::new(&config.inner, rank);
        if config.bug == Bug::StartsFinalRoundOneLate {
            inner.corrector_mut().mutate_final_round_one_late();
        }
        Self {
            inner,
            rank,
            procs: config.inner.tree.procs(),
            bug: config.bug,
            echoes: Vec::new(),
            extra: None,
            fired: false,
        }
    }

    fn on_start(&mut self, config: &MutantConfig, now: Time, out: &mut Outbox<Msg>) {
        self.inner.on_start(&config.inner, now, out);
    }

    fn on_message(
        &mut self,
        config: &MutantConfig,
        now: Time,
        from: Rank,
        msg: Msg,
        out: &mut Outbox<Msg>,
    ) {
        let colored = self.inner.delivered();
        if self.bug == Bug::ConfusesDirections {
            if let Body::Correction(CorrectionMsg::Ring { toward }) = msg.body {
                // Also believe a corrector at the same distance on the other side.
                let ring = Ring {
                    me: self.rank,
                    procs: self.procs,
                };
                let distance = ring.distance(toward.other(), from);
                let mirror = ring.neighbor(toward, distance);
                let fake = Msg {
                    value: msg.value,
                    body: Body::Correction(CorrectionMsg::Ring {
                        toward: toward.other(),
                    }),
                };
                self.inner
                    .on_message(&config.inner, now, mirror, fake, &mut Outbox::new());
            }
        }
        if self.bug == Bug::EchoesCorrection && matches!(msg.body, Body::Correction(_)) {
            self.echoes.push(from);
        }
        if self.bug == Bug::CNodeForwards
            && !colored
            && matches!(msg.body, Body::Correction(_))
            && self.extra.is_none()
        {
            self.extra = Some(false);
        }
        let value = msg.value;
        let early = self.bug == Bug::DeliversOnFirstCorrector
            && !colored
            && !self.fired
            && matches!(msg.body, Body::Correction(CorrectionMsg::FailProof { .. }));
        // The skip rule reads the sender's distance; from itself it is 0, which covers nothing.
        let from = if self.bug == Bug::IgnoresCoverage
            && matches!(msg.body, Body::Correction(CorrectionMsg::Ring { .. }))
        {
            self.rank
        } else {
            from
        };
        if self.bug == Bug::StopsOnlyAtNeighbours && self.inner.coloring() == Coloring::Tree {
            if let Body::Correction(CorrectionMsg::Ring { toward }) = msg.body {
                let ring = Ring {
                    me: self.rank,
                    procs: self.procs,
                };
                if ring.distance(toward.other(), from) > 1 {
                    out.ignore("mutant: a corrector that is not a neighbour");
                    return;
                }
            }
        }
        let mut inner_out = Outbox::new();
        self.inner
            .on_message(&config.inner, now, from, msg, &mut inner_out);
        self.relay(now, &mut inner_out, out);
        if early {
            self.fired = true;
            out.deliver(value);
        }
        if self.bug == Bug::DeliversEveryCopy && colored {
            out.deliver(value);
        }
    }

    fn on_timer(&mut self, config: &MutantConfig, now: Time, id: TimerId, out: &mut Outbox<Msg>) {
        let mut inner_out = Outbox::new();
        self.inner.on_timer(&config.inner, now, id, &mut inner_out);
        self.relay(now, &mut inner_out, out);
    }

    fn on_send_slot(&mut self, config: &MutantConfig, now: Time, out: &mut Outbox<Msg>) {
        if !self.echoes.is_empty() {
            let to = self.echoes.remove(0);
            let msg = Msg {
                value: config.inner.payload,
                body: Body::Correction(CorrectionMsg::Ring { toward: Side::Left }),
            };
            out.send(to, msg);
            return;
        }
        if self.bug == Bug::PanicsIntoSos
            && self.rank == 0
            && !self.fired
            && now >= config.inner.correction_start
        {
            self.fired = true;
            let sos = Msg {
                value: config.inner.payload,
                body: Body::Correction(CorrectionMsg::Sos),
            };
            let mut ignored = Outbox::new();
            self.inner
                .on_message(&config.inner, now, 1 % self.procs, sos, &mut ignored);
        }
        let mut inner_out = Outbox::new();
        self.inner.on_send_slot(&config.inner, now, &mut inner_out);
        let sent = self.relay(now, &mut inner_out, out);
        let owes_extra = match self.bug {
            Bug::SendsOneCorrectionTooMany => self.rank == 0,
            Bug::StopsOneLate => self.inner.coloring() == Coloring::Tree,
            _ => false,
        };
        if owes_extra
            && self.extra.is_none()
            && self.inner.delivered()
            && now >= config.inner.correction_start
        {
            self.extra = Some(false);
        }
        // An empty slot after the correction start: the root's sweeps are over (opportunistic
        // correction sends at every slot until it is done).
        if !sent && self.extra == Some(false) {
            self.extra = Some(true);
            let msg = Msg {
                value: config.inner.payload,
                body: Body::Correction(CorrectionMsg::Ring { toward: Side::Left }),
            };
            out.send((self.rank + 1) % self.procs, msg);
        }
    }

    /// The real process's answer, except for [`Bug::ClaimsDoneWhenColored`]. The bugs that
    /// send more than the real protocol do so once the real process has stopped, so the stop
    /// rule sees them too.
    fn is_done(&self, config: &MutantConfig) -> bool {
        match self.bug {
            Bug::ClaimsDoneWhenColored => self.inner.delivered(),
            _ => self.inner.is_done(&config.inner),
        }
    }
}

impl crate::corrected_tree::CorrectionView for Mutant {
    fn correction(config: &MutantConfig) -> ftcoll::protocols::corrected_tree::CorrectionSpec {
        config.inner.correction
    }

    fn start(config: &MutantConfig) -> ftcoll::protocols::corrected_tree::StartMode {
        config.inner.start
    }

    fn correction_start(config: &MutantConfig) -> Time {
        config.inner.correction_start
    }

    fn corrector(&self) -> &ftcoll::protocols::correction::Corrector {
        self.inner.corrector()
    }
}

/// Which bug an [`FtcoMutant`] has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FtcoBug {
    /// Consistency: a non-root process adds its own operand once more to every partial it
    /// sends up (a value added twice, FTCO §4).
    AddsItsOperandTwice,
    /// Termination: a process answers every ACK with a KEEPALIVE, so every ACK is answered by
    /// another ACK, forever.
    AnswersAcksWithKeepalives,
    /// Alg. 2's type priority changed: a process takes a waiting KEEPALIVE before any DATA.
    TakesKeepalivesBeforeData,
    /// App. A's service distance ignored when a message is taken: a process takes the
    /// highest-priority message of its whole queue, wherever its sender is (the same as the
    /// real process without a service distance).
    IgnoresTheServedDistance,
    /// Work: a process sends the result (Bcast value, Allreduce result) to each child twice;
    /// the child ignores the copy.
    SendsResultsTwice,
    /// Detection (FTCO §4, App. A): a process runs with every `f_timeout` one step longer than
    /// the configuration's, so it suspects a crashed peer one step late.
    SuspectsOneStepLate,
    /// Detection (FTCO §4's `f_ETA`): ETAs one step late per hop (`L + 3` instead of `L + 2`,
    /// the automaton's `L` one more than the configuration's), so a process waits longer than
    /// it should before its first KEEPALIVE.
    ProbesOneStepLatePerHop,
    /// Detection under a service distance (App. A): a process sends a due KEEPALIVE only in a
    /// step that serves its peer's distance (or any), and idles in the others, instead of
    /// falling back to any distance when the served one has nothing to send (Alg. 1 lines
    /// 5–10, the literal reading that App. A's "no starvation" rules out).
    ProbesOnlyAtTheServedDistance,
    /// Recovery time (FTCO §4, Alg. 4 lines 8–10): a process holds its first DATA to each peer
    /// that re-routing made (one beyond its tree neighbours) for one hop, `L + 2` steps, as if
    /// it waited to be asked; every timeout and KEEPALIVE stays on time.
    ReroutesAHopLate,
}

/// The timer by which a mutant that idles a step ([`FtcoBug::ProbesOnlyAtTheServedDistance`],
/// [`FtcoBug::ReroutesAHopLate`]) comes back to its send port the next one (the real process
/// uses [`TimerId`]s from 0 up).
const RETRY: TimerId = TimerId(u32::MAX);

/// An FTCO process (with [`Contributions`] operands) with one [`FtcoBug`]. Two more mutants of
/// the FTCO family need no wrapper, being configurations (`verify/tests/families/ftco.rs`): a
/// `TimeoutRule` one step too short, and ETAs one step early per hop (`FtcoConfig::latency`
/// one less than the network's `L`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FtcoMutant {
    inner: FtcoNode<Contributions>,
    rank: Rank,
    bug: FtcoBug,
    /// Messages owed: KEEPALIVEs to the senders of ACKs, second copies of results.
    owed: Vec<(Rank, ContributionsMsg)>,
    /// [`FtcoBug::ReroutesAHopLate`]: each re-routed peer and the step its first DATA to it
    /// was due.
    rerouted: Vec<(Rank, Time)>,
}

/// The configuration of an FTCO mutant run: the real configuration and the bug.
#[derive(Clone, Debug)]
pub struct FtcoMutantConfig {
    /// The real protocol configuration (what the properties read).
    pub inner: FtcoConfig<Contributions>,
    /// The injected bug.
    pub bug: FtcoBug,
    /// What the wrapped automaton runs, when the bug is a changed configuration.
    changed: Option<FtcoConfig<Contributions>>,
}

impl FtcoMutantConfig {
    /// The real configuration `inner` with `bug` injected.
    pub fn new(inner: FtcoConfig<Contributions>, bug: FtcoBug) -> Self {
        let changed = match bug {
            FtcoBug::SuspectsOneStepLate => {
                let mut late = inner.clone();
                late.timeout.round_trip += 1;
                Some(late)
            }
            FtcoBug::ProbesOneStepLatePerHop => {
                let mut late = inner.clone();
                late.latency += 1;
                Some(late)
            }
            _ => None,
        };
        Self {
            inner,
            bug,
            changed,
        }
    }

    /// The configuration the wrapped automaton runs.
    fn runs(&self) -> &FtcoConfig<Contributions> {
        self.changed.as_ref().unwrap_or(&self.inner)
    }
}

/// An FTCO message with [`Contributions`] operands.
type ContributionsMsg = FtcoMsg<Vec<(Rank, u32)>>;

type FtcoOut = Outbox<ContributionsMsg, Vec<(Rank, u32)>>;

impl Automaton for FtcoMutant {
    type Msg = FtcoMsg<Vec<(Rank, u32)>>;
    type Value = Vec<(Rank, u32)>;
    type Config = FtcoMutantConfig;

    fn new(config: &FtcoMutantConfig, rank: Rank) -> Self {
        Self {
            inner: FtcoNode::new(config.runs(), rank),
            rank,
            bug: config.bug,
            owed: Vec::new(),
            rerouted: Vec::new(),
        }
    }

    fn on_start(&mut self, config: &FtcoMutantConfig, now: Time, out: &mut FtcoOut) {
        self.inner.on_start(config.runs(), now, out);
    }

    fn on_message(
        &mut self,
        config: &FtcoMutantConfig,
        now: Time,
        from: Rank,
        msg: Self::Msg,
        out: &mut FtcoOut,
    ) {
        if self.bug == FtcoBug::AnswersAcksWithKeepalives && msg == FtcoMsg::Ack {
            self.owed.push((from, FtcoMsg::Keepalive));
        }
        self.inner.on_message(config.runs(), now, from, msg, out);
    }

    fn on_timer(&mut self, config: &FtcoMutantConfig, now: Time, id: TimerId, out: &mut FtcoOut) {
        if id != RETRY {
            self.inner.on_timer(config.runs(), now, id, out);
        }
    }

    fn on_send_slot(&mut self, config: &FtcoMutantConfig, now: Time, out: &mut FtcoOut) {
        if self.bug == FtcoBug::ProbesOnlyAtTheServedDistance
            && self.probes_another_distance(config.runs(), now)
        {
            // The step idles; a timer brings the process back to its port the next one.
            out.set_timer(RETRY, now + 1);
            return;
        }
        if self.bug == FtcoBug::ReroutesAHopLate && self.holds_data(config.runs(), now) {
            out.set_timer(RETRY, now + 1);
            return;
        }
        let mut inner_out = Outbox::new();
        self.inner.on_send_slot(config.runs(), now, &mut inner_out);
        let mut sent = false;
        for action in inner_out.drain() {
            match action {
                Action::Send {
                    to,
                    msg: FtcoMsg::Partial(v),
                } if self.bug == FtcoBug::AddsItsOperandTwice && self.rank != 0 => {
                    let twice = Contributions.combine(&v, &(config.inner.initial)(self.rank));
                    out.send(to, FtcoMsg::Partial(twice));
                    sent = true;
                }
                Action::Send {
                    to,
                    msg: FtcoMsg::Result(v),
                } if self.bug == FtcoBug::SendsResultsTwice => {
                    self.owed.push((to, FtcoMsg::Result(v.clone())));
                    out.send(to, FtcoMsg::Result(v));
                    sent = true;
                }
                Action::Send { to, msg } => {
                    out.send(to, msg);
                    sent = true;
                }
                Action::SetTimer { id, at } => out.set_timer(id, at),
                Action::CancelTimer { id } => out.cancel_timer(id),
                Action::Deliver(v) => out.deliver(v),
                Action::Complete(v) => out.complete(v),
                Action::Ignored(r) => out.ignore(r),
            }
        }
        if !sent && !self.owed.is_empty() {
            let (to, msg) = self.owed.remove(0);
            out.send(to, msg);
        }
    }

    fn select_receive(
        &self,
        config: &FtcoMutantConfig,
        now: Time,
        queue: &[(Rank, Self::Msg)],
    ) -> Option<usize> {
        let chosen = self.inner.select_receive(config.runs(), now, queue);
        if self.bug == FtcoBug::TakesKeepalivesBeforeData && chosen.is_some() {
            if let Some(i) = queue.iter().position(|(_, m)| *m == FtcoMsg::Keepalive) {
                return Some(i);
            }
        }
        if self.bug == FtcoBug::IgnoresTheServedDistance && chosen.is_some() {
            let best = queue.iter().map(|(_, m)| m.kind()).min();
            return queue.iter().position(|(_, m)| Some(m.kind()) == best);
        }
        if chosen.is_none() && !self.owed.is_empty() {
            // The step goes to the send slot, where the owed message is.
            return None;
        }
        chosen
    }
}

impl FtcoMutant {
    /// The send the real process would make in its send slot at `now`, if any.
    fn real_send(
        &self,
        config: &FtcoConfig<Contributions>,
        now: Time,
    ) -> Option<(Rank, ContributionsMsg)> {
        let mut probe = self.inner.clone();
        let mut out = Outbox::new();
        probe.on_send_slot(config, now, &mut out);
        let send = out.drain().find_map(|action| match action {
            Action::Send { to, msg } => Some((to, msg)),
            _ => None,
        });
        send
    }

    /// [`FtcoBug::ReroutesAHopLate`]: whether the real process would send in step `now` DATA
    /// to a re-routed peer (beyond distance 1) whose first DATA fell due less than `L + 2`
    /// steps ago, noting when it fell due.
    fn holds_data(&mut self, config: &FtcoConfig<Contributions>, now: Time) -> bool {
        let Some((to, _)) = self.real_send(config, now).filter(|(to, msg)| {
            matches!(msg, FtcoMsg::Partial(_) | FtcoMsg::Result(_))
                && config.distance(self.rank, *to) > 1
        }) else {
            return false;
        };
        let due = match self.rerouted.iter().find(|(peer, _)| *peer == to) {
            Some(&(_, due)) => due,
            None => {
                self.rerouted.push((to, now));
                now
            }
        };
        now < due + config.latency + 2
    }

    /// [`FtcoBug::ProbesOnlyAtTheServedDistance`]: whether the real process would send a
    /// KEEPALIVE in step `now` to a peer at a distance other than the one the step serves
    /// (which is not the wild card).
    fn probes_another_distance(&self, config: &FtcoConfig<Contributions>, now: Time) -> bool {
        let served = crate::ftco::served_distance(config, self.rank, now);
        served != 0
            && self.real_send(config, now).is_some_and(|(to, msg)| {
                msg == FtcoMsg::Keepalive && config.distance(self.rank, to) != served
            })
    }
}

impl crate::ftco::FtcoProcess for FtcoMutant {
    fn collective(config: &FtcoMutantConfig) -> ftcoll::topology::ftco::Collective {
        config.inner.collective
    }

    fn topology(config: &FtcoMutantConfig) -> &ftcoll::topology::ftco::FtcoTopology {
        <FtcoNode<Contributions> as crate::ftco::FtcoProcess>::topology(&config.inner)
    }

    fn runs_the_base_algorithm(config: &FtcoMutantConfig) -> bool {
        <FtcoNode<Contributions> as crate::ftco::FtcoProcess>::runs_the_base_algorithm(
            &config.inner,
        )
    }

    fn service(config: &FtcoMutantConfig) -> ftcoll::protocols::ftco::ServiceDistance {
        <FtcoNode<Contributions> as crate::ftco::FtcoProcess>::service(&config.inner)
    }

    fn suspected(&self) -> &[Rank] {
        self.inner.suspected()
    }

    fn node(&self) -> &FtcoNode<Contributions> {
        &self.inner
    }

    fn protocol(config: &FtcoMutantConfig) -> &FtcoConfig<Contributions> {
        &config.inner
    }
}

/// Which bug a [`GossipMutant`] has (the Corrected Gossip family, `crate::gossip`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GossipBug {
    /// CCG's stop rule (CG Alg. 2, lines 12–14) fed wrong: on every correction message a
    /// corrector also believes a corrector at the same distance on the other side, so it stops
    /// a side it never covered. Breaks CG Claim 3 (and FCG's direction bookkeeping, Claim 4).
    ConfusesDirections,
    /// C-nodes silent (CG §III.B–C): a process colored by correction forwards one correction
    /// message to its forward neighbour.
    CNodeForwards,
    /// FCG's f + 1 rule at c-nodes (CG Alg. 3, lines 11–13): a c-node delivers on its first
    /// correction message.
    DeliversOnFirstCorrector,
    /// OCG's fixed time `C` overrun (CG §III.B): a g-node makes one correction send more, to
    /// its forward neighbour, once its own sends are over.
    GNodeOverSends,
    /// The correction begun one step late (CG Claim 2's proof, §III.B–C: a g-node sends its
    /// first correction message at `T + L + O`): a g-node lets its first correction send slot
    /// pass and sends every correction message `O` later. Nobody is left out, so only the
    /// correction's reach in time can tell.
    CorrectsOneStepLate,
    /// FCG's SOS disabled (CG Alg. 3, lines 8–10, 14, 28; the hypothetical of Claim 5): the
    /// c-node timeout is never set and no SOS message is sent, so a c-node that never learns
    /// of f + 1 g-nodes never delivers.
    SosDisabled,
}

/// The configuration of a [`GossipMutant`] run: the real protocol configuration and the bug.
#[derive(Clone, Debug)]
pub struct GossipMutantConfig<C> {
    /// The real configuration (what the properties read, and what the wrapped automaton runs).
    pub inner: C,
    /// The injected bug.
    pub bug: GossipBug,
}

/// A corrected-gossip process of protocol `P` with one [`GossipBug`]; every other rule is the
/// real [`GossipNode`]'s, target draws included.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GossipMutant<P> {
    inner: GossipNode<P>,
    rank: Rank,
    procs: u32,
    bug: GossipBug,
    /// [`GossipBug::CNodeForwards`]: the extra message is owed (`Some(false)`) or sent.
    extra: Option<bool>,
    /// [`GossipBug::DeliversOnFirstCorrector`] delivered early; [`GossipBug::GNodeOverSends`]
    /// made its extra send.
    fired: bool,
    /// [`GossipBug::GNodeOverSends`]: the process has made a correction send.
    corrected: bool,
    /// [`GossipBug::CorrectsOneStepLate`]: the first correction slot was let pass.
    waited: bool,
}

/// Whether `out` holds a correction message.
fn sends_correction(out: &Outbox<Msg>) -> bool {
    out.actions().iter().any(|a| {
        matches!(
            a,
            Action::Send {
                msg: Msg {
                    body: Body::Correction(_),
                    ..
                },
                ..
            }
        )
    })
}

/// [`GossipBug::CorrectsOneStepLate`]'s timer, apart from the protocol's.
const LATE_START: TimerId = TimerId(u32::MAX);

impl<P: GossipProtocol> GossipMutant<P> {
    fn relay(&mut self, inner: &mut Outbox<Msg>, out: &mut Outbox<Msg>) -> bool {
        let mut sent = false;
        for action in inner.drain() {
            match action {
                Action::Send { msg, .. }
                    if self.bug == GossipBug::SosDisabled
                        && msg.body == Body::Correction(CorrectionMsg::Sos) => {}
                Action::Send { to, msg } => {
                    out.send(to, msg);
                    sent = true;
                }
                Action::SetTimer { id, .. }
                    if self.bug == GossipBug::SosDisabled && id == SOS_TIMER => {}
                Action::SetTimer { id, at } => out.set_timer(id, at),
                Action::CancelTimer { id } => out.cancel_timer(id),
                Action::Deliver(_)
                    if self.bug == GossipBug::DeliversOnFirstCorrector && self.fired => {}
                Action::Deliver(v) => out.deliver(v),
                Action::Complete(v) => out.complete(v),
                Action::Ignored(r) => out.ignore(r),
            }
        }
        sent
    }
}

impl<P: GossipProtocol> Automaton for GossipMutant<P> {
    type Msg = Msg;
    type Value = u64;
    type Config = GossipMutantConfig<P::Config>;

    fn new(config: &Self::Config, rank: Rank) -> Self {
        Self {
            inner: GossipNode::new(&config.inner, rank),
            rank,
            procs: P::gossip(&config.inner).procs,
            bug: config.bug,
            extra: None,
            fired: false,
            corrected: false,
            waited: false,
        }
    }

    fn on_start(&mut self, config: &Self::Config, now: Time, out: &mut Outbox<Msg>) {
        self.inner.on_start(&config.inner, now, out);
    }

    fn on_message(
        &mut self,
        config: &Self::Config,
        now: Time,
        from: Rank,
        msg: Msg,
        out: &mut Outbox<Msg>,
    ) {
        let colored = self.inner.coloring() != GossipColoring::Uncolored;
        if self.bug == GossipBug::ConfusesDirections {
            let fake = match &msg.body {
                Body::Correction(CorrectionMsg::Ring { toward }) => Some((
                    *toward,
                    CorrectionMsg::Ring {
                        toward: toward.other(),
                    },
                )),
                Body::Correction(CorrectionMsg::FailProof { toward, .. }) => Some((
                    *toward,
                    CorrectionMsg::FailProof {
                        toward: toward.other(),
                        known: Correctors::default(),
                    },
                )),
                _ => None,
            };
            if let Some((toward, body)) = fake {
                let ring = Ring {
                    me: self.rank,
                    procs: self.procs,
                };
                let mirror = ring.neighbor(toward, ring.distance(toward.other(), from));
                if mirror != self.rank {
                    let fake = Msg {
                        value: msg.value,
                        body: Body::Correction(body),
                    };
                    self.inner
                        .on_message(&config.inner, now, mirror, fake, &mut Outbox::new());
                }
            }
        }
        let early = self.bug == GossipBug::DeliversOnFirstCorrector
            && !colored
            && !self.fired
            && matches!(msg.body, Body::Correction(CorrectionMsg::FailProof { .. }));
        let value = msg.value;
        let mut inner_out = Outbox::new();
        self.inner
            .on_message(&config.inner, now, from, msg, &mut inner_out);
        self.relay(&mut inner_out, out);
        if early {
            self.fired = true;
            out.deliver(value);
        }
        if self.bug == GossipBug::CNodeForwards
            && self.inner.coloring() == GossipColoring::Correction
            && self.extra.is_none()
        {
            self.extra = Some(false);
        }
    }

    fn on_timer(&mut self, config: &Self::Config, now: Time, id: TimerId, out: &mut Outbox<Msg>) {
        if id == LATE_START {
            return; // The driver polls the send port after it: the first correction send.
        }
        let mut inner_out = Outbox::new();
        self.inner.on_timer(&config.inner, now, id, &mut inner_out);
        self.relay(&mut inner_out, out);
    }

    fn on_send_slot(&mut self, config: &Self::Config, now: Time, out: &mut Outbox<Msg>) {
        if self.bug == GossipBug::CorrectsOneStepLate && !self.waited {
            let mut probe = self.inner.clone();
            let mut probe_out = Outbox::new();
            probe.on_send_slot(&config.inner, now, &mut probe_out);
            if sends_correction(&probe_out) {
                self.waited = true;
                let overhead = P::gossip(&config.inner).logp.overhead();
                out.set_timer(LATE_START, now + overhead);
                return;
            }
        }
        if self.extra == Some(false) {
            self.extra = Some(true);
            let msg = Msg {
                value: P::gossip(&config.inner).payload,
                body: Body::Correction(CorrectionMsg::Ring {
                    toward: Side::Right,
                }),
            };
            out.send((self.rank + 1) % self.procs, msg);
            return;
        }
        let mut inner_out = Outbox::new();
        self.inner.on_send_slot(&config.inner, now, &mut inner_out);
        let correcting = sends_correction(&inner_out);
        let sent = self.relay(&mut inner_out, out);
        self.corrected |= correcting;
        if self.bug == GossipBug::GNodeOverSends
            && !sent
            && self.corrected
            && !self.fired
            && self.inner.coloring() == GossipColoring::Gossip
        {
            self.fired = true;
            let msg = Msg {
                value: P::gossip(&config.inner).payload,
                body: Body::Correction(CorrectionMsg::Ring {
                    toward: Side::Right,
                }),
            };
            out.send((self.rank + 1) % self.procs, msg);
        }
    }
}

impl<P: GossipProtocol> crate::gossip::GossipProcess for GossipMutant<P> {
    fn gossip(config: &Self::Config) -> &GossipConfig {
        P::gossip(&config.inner)
    }

    fn correction(config: &Self::Config) -> ftcoll::protocols::corrected_tree::CorrectionSpec {
        P::correction(&config.inner)
    }

    fn correction_time(config: &Self::Config) -> Option<Time> {
        P::correction_time(&config.inner)
    }

    fn coloring(&self) -> GossipColoring {
        self.inner.coloring()
    }

    fn corrector(&self) -> &ftcoll::protocols::correction::Corrector {
        self.inner.corrector()
    }

    fn chooser(&self) -> &ftcoll::rng::Chooser {
        self.inner.chooser()
    }

    fn chooser_mut(&mut self) -> &mut ftcoll::rng::Chooser {
        self.inner.chooser_mut()
    }
}
