//! Corrected Gossip (CG §III) and its gossip baseline (CG §IV.B.1): one module per protocol, all
//! sharing the gossip phase below and the ring correction of [`super::correction`] (the same
//! [`Corrector`] the Corrected Tree family runs; CG's algorithms start *forward*,
//! [`Side::Right`]).
//!
//! | module | protocol | correction |
//! |---|---|---|
//! | [`gos`] | GOS, gossip until `T` (§IV.B.1, §III.A) | none |
//! | [`ocg`] | Opportunistic Corrected Gossip (§III.B, Alg. 1) | opportunistic, for a fixed time `C` |
//! | [`ccg`] | Checked Corrected Gossip (§III.C, Alg. 2) | checked |
//! | [`fcg`] | Failure-proof Corrected Gossip (§III.D, Alg. 3) | failure-proof(f) with SOS |
//! | [`big`] | BIG, broadcast on the binomial graph (§IV.B.3), a baseline | none |
//! | [`bfb`] | BFB, Buntinas' restarting tree broadcast with ACK/NACK (§IV.B.2), a baseline | none (restart) |
//! | [`plan`] | Lemma 1, Eq. 2–5: the model's `T` and `C` | — |
//!
//! # The gossip phase (§III.A; Alg. 1–3, lines 1–7)
//!
//! ```text
//! root: time = 0, colored                                  (a g-node)
//! other: on the first gossip message (time, data): colored (a g-node), deliver,
//!        time = time + L + 2O                               (Alg. 1 line 4, in steps)
//! every O while colored and time + O <= T:                 (Alg. 1 lines 5–6)
//!        send (time, data) to a uniformly random rank other than itself
//! at time T + L + O: start the correction (g-nodes only)   (§III.A: T .. T + L + O)
//! ```
//!
//! *Virtual time.* A gossip message carries its sender's virtual time `time` when the send
//! starts (`Body::Gossip { round }`); its receiver's virtual time is then `time + 2O + L` (the
//! listing's `time += L/O + 1` in units of `O`) and advances with the driver's clock from
//! there. Without late arrivals every process's virtual time equals the global time (a first
//! message always finds the receive port free), so `T` is a global deadline; with late arrivals
//! a process that was colored late keeps its own count, as the listing does. A send whose start
//! is at virtual time `t` is allowed while `t + O <= T`: every gossip send ends by `T`, and is
//! received by `T + L + O` unless the receive port queues it, which is why correction starts
//! there (§III.A).
//!
//! # Randomness (DESIGN §2, docs/guide.md, "Randomness")
//!
//! Every process holds its own [`SplitMix64`] in its state, seeded with
//! `SplitMix64::stream(config.seed, rank)` when the automaton is created. It draws one number per
//! gossip send, `below(P − 1)`, and maps it to the ranks other than itself (`x`, or `x + 1` when
//! `x >= rank`): uniform over the `P − 1` others, never itself. Nothing else is random. So the
//! sequence of targets of a process depends only on `(seed, rank)` and the number of gossip sends
//! it made, and the same seed gives the same run in every driver that applies the same events;
//! the state stays `Clone + Eq + Hash` (the generator is one `u64`).
//!
//! With [`Targets::Chosen`] the draws come from outside instead ([`Chooser::External`]): a
//! model checker supplies the outcome of each draw and explores every one of them
//! (ftcoll-verify's gossip module; docs/verification-gossip.md gives the soundness argument).
//! The draw is the same `below(P − 1)` at the same point of `on_send_slot`; only where its
//! outcome comes from differs.
//!
//! # Who corrects
//!
//! Exactly the g-nodes (the root and the processes whose first message was a gossip message).
//! A process whose first message is a correction message is a c-node: it never corrects (CG
//! §III.B–C: "c-nodes do not send any messages"); under FCG it may still send SOS (Alg. 3,
//! lines 8–14). Gossip messages reaching an already colored process are ignored.

pub mod bfb;
pub mod big;
pub mod ccg;
pub mod fcg;
pub mod gos;
pub mod math;
pub mod ocg;
pub mod plan;

use core::fmt::Debug;
use core::hash::Hash;
use core::marker::PhantomData;

use super::corrected_tree::CorrectionSpec;
use super::correction::{wrap, Corrector, Receipt, Rule};
use super::message::{Body, Msg};
use super::ring::{Ring, Side};
use crate::automaton::{Automaton, Outbox, TimerId, Value};
use crate::rng::{Chooser, SplitMix64};
use crate::topology::{check_procs, LogP, TopologyError};
use crate::{Rank, Time};

pub use bfb::{BfbBody, BfbConfig, BfbMsg, BfbNode, BfbTimeout};
pub use big::{BigConfig, BigNode};
pub use ccg::Ccg;
pub use fcg::{Fcg, FcgConfig};
pub use gos::Gos;
pub use ocg::{Ocg, OcgConfig};

/// Timer: the correction starts (virtual time `T + L + O`).
pub const CORRECTION_START: TimerId = TimerId(1);

/// Parameters of the gossip phase shared by every process of one operation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct GossipConfig {
    /// `N`: the ranks `0..N` (rank 0 is the root).
    pub procs: u32,
    /// `L` and `O`.
    pub logp: LogP,
    /// `T`: no gossip send starts at a virtual time `t` with `t + O > T`.
    pub gossip_time: Time,
    /// The seed of every process's generator (`SplitMix64::stream(seed, rank)`).
    pub seed: u64,
    /// The root's payload.
    pub payload: Value,
    /// Where the gossip targets come from (default: the seeded generators).
    #[cfg_attr(feature = "serde", serde(default))]
    pub targets: Targets,
}

/// Where the gossip targets come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Targets {
    /// Every process draws from its own seeded generator (`SplitMix64::stream(seed, rank)`):
    /// the protocol as it runs.
    #[default]
    Seeded,
    /// Every draw's outcome is supplied from outside ([`Chooser::External`]): for a model
    /// checker that explores every target sequence. A driver that supplies none sees no
    /// gossip send at all.
    Chosen,
}

impl GossipConfig {
    /// A configuration for `procs` in `1..=2^32 − 1` processes with gossip time `gossip_time`
    /// and `seed`; the payload is the Corrected Tree family's default.
    pub fn new(
        procs: u32,
        logp: LogP,
        gossip_time: Time,
        seed: u64,
    ) -> Result<Self, TopologyError> {
        check_procs(procs)?;
        Ok(Self {
            procs,
            logp,
            gossip_time,
            seed,
            payload: 0x00f7_c011,
            targets: Targets::Seeded,
        })
    }

    /// Virtual time at which the correction starts: `T + L + O` (§III.A).
    pub fn correction_start(&self) -> Time {
        self.gossip_time + self.logp.latency() + self.logp.overhead()
    }
}

/// What distinguishes one corrected-gossip protocol from another: its configuration and the
/// correction it runs. Implemented by the marker types of [`gos`], [`ocg`], [`ccg`], [`fcg`].
pub trait GossipProtocol: Clone + Eq + Hash + Debug + Default {
    /// The protocol's configuration.
    type Config: Debug;
    /// The gossip-phase part of it.
    fn gossip(config: &Self::Config) -> &GossipConfig;
    /// The correction the g-nodes run ([`CorrectionSpec::None`] for GOS; a failure-proof
    /// default timeout is the one of `FcgConfig::new`).
    fn correction(config: &Self::Config) -> CorrectionSpec;
    /// OCG only: the fixed correction time `C` (a correction send is made only if, unqueued, it
    /// is received within `C` of the correction start).
    fn correction_time(_config: &Self::Config) -> Option<Time> {
        None
    }
}

/// The rule `P`'s correctors run.
fn rule<P: GossipProtocol>(config: &P::Config) -> Rule {
    let gossip = P::gossip(config);
    P::correction(config).rule(gossip.procs, gossip.logp)
}

/// How a process got the payload (CG §III.A's g-nodes and c-nodes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum GossipColoring {
    /// Not yet.
    Uncolored,
    /// The root, or colored by a gossip message: a g-node, it gossips and corrects.
    Gossip,
    /// Colored by a correction (or SOS) message first: a c-node, it never corrects.
    Correction,
}

/// One process of a gossip protocol `P` (see the module documentation): the gossip phase, then
/// `P`'s correction through the shared [`Corrector`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct GossipNode<P> {
    rank: Rank,
    arrived: bool,
    coloring: GossipColoring,
    value: Option<Value>,
    delivered: bool,
    /// Global time minus virtual time, set when colored by gossip (or as the root).
    skew: Time,
    /// Gossip sends made (each drew one target).
    gossip_sent: u32,
    /// Where the targets come from ([`GossipConfig::targets`]).
    targets: Chooser,
    /// The correction start (virtual `T + L + O`) has passed.
    start_reached: bool,
    corrector: Corrector,
    protocol: PhantomData<P>,
}

impl<P: GossipProtocol> GossipNode<P> {
    /// How this process got the payload.
    pub fn coloring(&self) -> GossipColoring {
        self.coloring
    }

    /// Whether it delivered.
    pub fn delivered(&self) -> bool {
        self.delivered
    }

    /// Gossip messages it sent.
    pub fn gossip_sent(&self) -> u32 {
        self.gossip_sent
    }

    /// Its virtual time at global time `now` (meaningful once colored by gossip).
    pub fn virtual_time(&self, now: Time) -> Time {
        now.saturating_sub(self.skew)
    }

    /// The correction state.
    pub fn corrector(&self) -> &Corrector {
        &self.corrector
    }

    /// Where its gossip targets come from.
    pub fn chooser(&self) -> &Chooser {
        &self.targets
    }

    /// Where its gossip targets come from, mutably: the hook through which a model checker
    /// supplies the outcome of a draw under [`Targets::Chosen`] ([`Chooser::supply`]).
    pub fn chooser_mut(&mut self) -> &mut Chooser {
        &mut self.targets
    }

    fn deliver(&mut self, value: Value, out: &mut Outbox<Msg>) {
        if !self.delivered {
            self.delivered = true;
            out.deliver(value);
        }
    }

    /// Colored by gossip (or the root) at global `now`, virtual time `virtual_now`.
    fn color_by_gossip(
        &mut self,
        config: &P::Config,
        now: Time,
        virtual_now: Time,
        value: Value,
        out: &mut Outbox<Msg>,
    ) {
        self.coloring = GossipColoring::Gossip;
        self.value = Some(value);
        self.skew = now.saturating_sub(virtual_now);
        self.deliver(value, out);
        if rule::<P>(config) != Rule::None {
            let start = P::gossip(config).correction_start() + self.skew;
            if now >= start {
                self.start_reached = true;
            } else {
                out.set_timer(CORRECTION_START, start);
            }
        }
    }

    /// A uniformly random rank other than this one (`None` when alone, or when the outcome of
    /// an external draw was not supplied).
    fn draw_target(&mut self, procs: u32) -> Option<Rank> {
        if procs < 2 {
            return None;
        }
        let x = self.targets.below(u64::from(procs - 1))? as Rank;
        Some(if x >= self.rank { x + 1 } else { x })
    }

    /// The gossip send due at `now`, if any (Alg. 1 lines 5–6).
    fn gossip_send(&mut self, gossip: &GossipConfig, now: Time) -> Option<(Rank, Msg)> {
        if self.coloring != GossipColoring::Gossip {
            return None;
        }
        let time = self.virtual_time(now);
        if time + gossip.logp.overhead() > gossip.gossip_time {
            return None;
        }
        let to = self.draw_target(gossip.procs)?;
        self.gossip_sent += 1;
        Some((
            to,
            Msg {
                value: self.value?,
                body: Body::Gossip { round: time },
            },
        ))
    }

    /// OCG's fixed correction time: may a correction send start at `now`?
    fn within_correction_time(&self, config: &P::Config, now: Time) -> bool {
        let Some(c) = P::correction_time(config) else {
            return true;
        };
        let gossip = P::gossip(config);
        self.virtual_time(now) + gossip.logp.hop() <= gossip.correction_start() + c
    }
}

impl<P: GossipProtocol> Automaton for GossipNode<P> {
    type Msg = Msg;
    type Value = Value;
    type Config = P::Config;

    fn procs(config: &P::Config) -> Option<u32> {
        Some(P::gossip(config).procs)
    }

    fn new(config: &Self::Config, rank: Rank) -> Self {
        let gossip = P::gossip(config);
        let ring = Ring {
            me: rank,
            procs: gossip.procs,
        };
        Self {
            rank,
            arrived: false,
            coloring: GossipColoring::Uncolored,
            value: None,
            delivered: false,
            skew: 0,
            gossip_sent: 0,
            targets: match gossip.targets {
                Targets::Seeded => {
                    Chooser::Seeded(SplitMix64::stream(gossip.seed, u64::from(rank)))
                }
                Targets::Chosen => Chooser::EXTERNAL,
            },
            start_reached: false,
            corrector: Corrector::new(rule::<P>(config), ring, Side::Right),
            protocol: PhantomData,
        }
    }

    fn on_start(&mut self, config: &Self::Config, now: Time, out: &mut Outbox<Msg>) {
        if self.arrived {
            out.ignore("started twice");
            return;
        }
        self.arrived = true;
        if self.rank == 0 {
            let payload = P::gossip(config).payload;
            self.color_by_gossip(config, now, 0, payload, out);
        }
    }

    fn on_message(
        &mut self,
        config: &Self::Config,
        now: Time,
        from: Rank,
        msg: Msg,
        out: &mut Outbox<Msg>,
    ) {
        let gossip = P::gossip(config);
        if from >= gossip.procs {
            out.ignore("sender is not a rank of this operation");
            return;
        }
        if from == self.rank {
            out.ignore("message from the process itself");
            return;
        }
        if self.rank == 0 && !self.arrived {
            out.ignore("message to the root before it started");
            return;
        }
        match msg.body {
            Body::Gossip { round } => {
                if self.coloring == GossipColoring::Uncolored {
                    // Alg. 1 line 4: time += L/O + 1 (in steps: the hop 2O + L).
                    let virtual_now = round.saturating_add(gossip.logp.hop());
                    self.color_by_gossip(config, now, virtual_now, msg.value, out);
                } else {
                    out.ignore("duplicate: already colored");
                }
            }
            Body::Correction(c) => {
                let corrects = self.coloring == GossipColoring::Gossip;
                let kind = rule::<P>(config);
                let procs = P::gossip(config).procs;
                let receipt = self
                    .corrector
                    .receive(procs, kind, now, from, &c, corrects, out);
                if self.coloring == GossipColoring::Uncolored {
                    self.coloring = GossipColoring::Correction;
                    self.value = Some(msg.value);
                    if receipt == Receipt::Deliver {
                        self.deliver(msg.value, out);
                    }
                } else {
                    out.ignore("correction message: already colored");
                }
                if self.corrector.take_delivery() {
                    self.deliver(self.value.unwrap_or(msg.value), out);
                }
            }
            Body::Tree | Body::Ack => out.ignore("tree message in a gossip broadcast"),
        }
    }

    /// Unread: whatever `on_message` only ignores, and a correction message to a colored
    /// process whose corrector learns nothing from it (OCG's, and a c-node's).
    fn reads(&self, config: &Self::Config, from: Rank, msg: &Msg) -> bool {
        if from >= P::gossip(config).procs || from == self.rank || (self.rank == 0 && !self.arrived)
        {
            return false;
        }
        let uncolored = self.coloring == GossipColoring::Uncolored;
        match &msg.body {
            Body::Gossip { .. } => uncolored,
            Body::Correction(c) => {
                uncolored
                    || self
                        .corrector
                        .learns_from(c, self.coloring == GossipColoring::Gossip)
            }
            Body::Tree | Body::Ack => false,
        }
    }

    fn on_timer(
        &mut self,
        _config: &Self::Config,
        _now: Time,
        id: TimerId,
        _out: &mut Outbox<Msg>,
    ) {
        if id == CORRECTION_START {
            self.start_reached = true;
        } else {
            self.corrector.on_timer(id);
        }
    }

    fn on_send_slot(&mut self, config: &Self::Config, now: Time, out: &mut Outbox<Msg>) {
        let Some(value) = self.value else { return };
        // 1. Gossip until T.
        if let Some((to, msg)) = self.gossip_send(P::gossip(config), now) {
            out.send(to, msg);
            return;
        }
        if self.targets.wanted().is_some() {
            // An external draw without an outcome: as if the choice had not been reached.
            return;
        }
        // 2. Correction from T + L + O (g-nodes), for OCG only within C.
        if self.coloring == GossipColoring::Gossip
            && self.start_reached
            && !self.corrector.has_begun()
        {
            self.corrector.begin();
        }
        if self.within_correction_time(config, now) {
            let procs = P::gossip(config).procs;
            if let Some((to, msg)) = self.corrector.poll_send(procs, rule::<P>(config), now, out) {
                out.send(to, wrap(value, msg));
            }
        }
        if self.corrector.take_delivery() {
            self.deliver(value, out);
        }
    }
}
