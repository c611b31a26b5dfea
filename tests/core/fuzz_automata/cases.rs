//! The cases: random configurations of every correction variant (CT §3.1, §3.3; CG §III.B–D)
//! and tree, and random input sequences for one process, biased toward the ranks and fields
//! that move the automaton.

use std::sync::OnceLock;

use ftcoll::automaton::TimerId;
use ftcoll::protocols::corrected_tree::{CorrectedTreeConfig, CorrectionSpec, StartMode};
use ftcoll::protocols::{Body, CorrectionMsg, Msg, Ring, Side};
use ftcoll::rng::SplitMix64;
use ftcoll::topology::{LogP, Order, Tree, TreeKind};
use ftcoll::{Rank, Time};

use super::{MAX_INPUTS, MAX_TIME};

/// The correction variants, one test each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Family {
    None,
    Ack,
    Opportunistic,
    Optimized,
    Checked,
    Delayed,
    FailProof,
}

pub(super) const FAMILIES: [Family; 7] = [
    Family::None,
    Family::Ack,
    Family::Opportunistic,
    Family::Optimized,
    Family::Checked,
    Family::Delayed,
    Family::FailProof,
];

pub(super) const KINDS: [TreeKind; 10] = [
    TreeKind::KAry(1),
    TreeKind::KAry(2),
    TreeKind::KAry(3),
    TreeKind::KAry(65_536),
    TreeKind::Binomial,
    TreeKind::Lame(1),
    TreeKind::Lame(2),
    TreeKind::Lame(3),
    TreeKind::Lame(7),
    TreeKind::Optimal,
];

/// Sizes beyond the small ones: powers of two and their neighbours up to the largest `P`.
const LARGE_PROCS: [u32; 12] = [
    31,
    32,
    33,
    100,
    1_000,
    65_535,
    65_537,
    (1 << 31) - 1,
    1 << 31,
    (1 << 31) + 1,
    u32::MAX - 1,
    u32::MAX,
];
const SMALL_PROCS: u32 = 17;
const LOGPS: [(Time, Time); 4] = [(2, 1), (0, 1), (3, 2), (1, 3)];

/// Every tree the fuzzer uses, built once (building a tree for `P = 2^32 − 1` costs more than a
/// case).
struct Pool {
    small: Vec<Tree>,
    large: Vec<Tree>,
}

fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| {
        let build = |procs: u32| {
            KINDS.iter().flat_map(move |&kind| {
                [Order::Interleaved, Order::InOrder]
                    .into_iter()
                    .flat_map(move |order| {
                        LOGPS.iter().map(move |&(l, o)| {
                            let logp = LogP::new(l, o).expect("valid LogP");
                            Tree::new(kind, order, procs, logp).expect("valid tree")
                        })
                    })
            })
        };
        Pool {
            small: (1..=SMALL_PROCS).flat_map(build).collect(),
            large: LARGE_PROCS.into_iter().flat_map(build).collect(),
        }
    })
}

/// A parameter drawn mostly from edge values.
fn pick(rng: &mut SplitMix64, edges: &[u64], random_below: u64) -> u64 {
    let i = rng.below(edges.len() as u64 + 2) as usize;
    match edges.get(i) {
        Some(&v) => v,
        None => rng.below(random_below.max(1)),
    }
}

fn spec(family: Family, rng: &mut SplitMix64, procs: u64, hop: Time) -> CorrectionSpec {
    const MAX_D: u64 = 1 << 31;
    let distance = |rng: &mut SplitMix64| {
        let d = pick(
            rng,
            &[1, 2, 3, 4, procs - 1, procs, procs + 1, MAX_D],
            procs + 2,
        );
        d.clamp(1, MAX_D) as u32
    };
    // The parser's largest delay and timeout.
    let long = u64::MAX >> 2;
    match family {
        Family::None => CorrectionSpec::None,
        Family::Ack => CorrectionSpec::Ack,
        Family::Opportunistic => CorrectionSpec::Opportunistic {
            distance: distance(rng),
        },
        Family::Optimized => CorrectionSpec::Optimized {
            distance: distance(rng),
        },
        Family::Checked => CorrectionSpec::Checked,
        Family::Delayed => CorrectionSpec::Delayed {
            delay: pick(rng, &[0, 1, 2, hop, 2 * hop, long], 4 * hop + 1),
        },
        Family::FailProof => {
            let faults = pick(rng, &[0, 1, 2, 3, procs - 1, procs, MAX_D], procs + 1).min(MAX_D);
            if rng.below(2) == 0 {
                CorrectionSpec::FailProof {
                    faults: faults as u32,
                    sos_timeout: None,
                    sos_on_full_loop: true,
                }
            } else {
                CorrectionSpec::FailProof {
                    faults: faults as u32,
                    sos_timeout: Some(pick(rng, &[0, 1, hop, long], 8 * hop + 1)),
                    sos_on_full_loop: true,
                }
            }
        }
    }
}

/// One input to the automaton.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Input {
    Start(Time),
    Message(Time, Rank, Msg),
    Timer(Time, TimerId),
    /// Fires the timer the automaton set last (if any, else timer 0) at the time it asked for:
    /// this reaches the states a driver would, which random ids and times rarely do.
    PendingTimer,
    Slot(Time),
}

pub(super) struct Case {
    spec: CorrectionSpec,
    pub(super) config: CorrectedTreeConfig,
    pub(super) rank: Rank,
    pub(super) near: Neighbourhood,
    pub(super) inputs: Vec<Input>,
    /// Step at which a clone is taken and fed the rest in lockstep (`inputs.len()`: never).
    pub(super) clone_at: usize,
}

impl std::fmt::Debug for Case {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let c = &self.config;
        writeln!(
            f,
            "{} {} P={} L={} o={} correction={} start={} first_side={:?} acks={} payload={:#x} \
             correction_start={} rank={} clone_at={}",
            c.tree.kind(),
            c.tree.order(),
            c.tree.procs(),
            c.tree.logp().latency(),
            c.tree.logp().overhead(),
            self.spec,
            c.start,
            c.first_side,
            c.acknowledgments(),
            c.payload,
            c.correction_start,
            self.rank,
            self.clone_at,
        )?;
        for (i, input) in self.inputs.iter().enumerate() {
            writeln!(f, "  {i:>2}: {input:?}")?;
        }
        Ok(())
    }
}

/// The rank's parent and first children, computed once per case: tree queries cost
/// `O(depth · K)` on in-order k-ary trees, so repeating them would dominate a case.
pub(super) struct Neighbourhood {
    pub(super) parent: Option<Rank>,
    /// The first [`CHILDREN_KNOWN`] children in send order, one more if there are more.
    children: Vec<Rank>,
}

/// More children than a case can send to or hear acks from.
const CHILDREN_KNOWN: usize = 2 * MAX_INPUTS as usize + 2;

impl Neighbourhood {
    pub(super) fn new(tree: &Tree, rank: Rank) -> Self {
        Self {
            parent: tree.parent(rank),
            children: tree.children(rank).take(CHILDREN_KNOWN + 1).collect(),
        }
    }

    /// The number of children, if at most [`CHILDREN_KNOWN`].
    pub(super) fn fan_out(&self) -> Option<usize> {
        (self.children.len() <= CHILDREN_KNOWN).then_some(self.children.len())
    }

    /// The `k`-th child in send order.
    pub(super) fn child(&self, tree: &Tree, rank: Rank, k: usize) -> Option<Rank> {
        match self.children.get(k) {
            Some(&child) => Some(child),
            None if self.fan_out().is_some() => None,
            None => tree.children(rank).nth(k),
        }
    }

    pub(super) fn is_child(&self, tree: &Tree, rank: Rank, other: Rank) -> bool {
        self.children.contains(&other)
            || self.fan_out().is_none() && tree.parent(other) == Some(rank)
    }
}

/// Draws the inputs of one case; biased toward the ranks and fields that move the automaton.
struct Generator<'a> {
    rng: SplitMix64,
    config: &'a CorrectedTreeConfig,
    near: &'a Neighbourhood,
    rank: Rank,
    clock: Time,
}

impl Generator<'_> {
    fn procs(&self) -> u32 {
        self.config.tree.procs()
    }

    fn ring(&self) -> Ring {
        Ring {
            me: self.rank,
            procs: self.procs(),
        }
    }

    fn side(&mut self) -> Side {
        if self.rng.below(2) == 0 {
            Side::Left
        } else {
            Side::Right
        }
    }

    fn time(&mut self) -> Time {
        let start = self.config.correction_start;
        let hop = self.config.tree.logp().hop();
        self.clock = match self.rng.below(100) {
            0..=59 => self.clock + self.rng.below(2 * hop + 1),
            60..=74 => self.clock,
            75..=84 => self.clock - self.rng.below(self.clock + 1),
            85..=92 => (start + self.rng.below(3)).saturating_sub(1),
            _ => self.rng.below(MAX_TIME),
        }
        .min(MAX_TIME);
        self.clock
    }

    /// A sender or listed rank: mostly one the process has a reason to hear from.
    fn rank_like(&mut self) -> Rank {
        let p = self.procs();
        match self.rng.below(100) {
            0..=19 => self.near.parent.unwrap_or(0),
            20..=29 => {
                let k = self.rng.below(4) as usize;
                self.near.children.get(k).copied().unwrap_or(self.rank)
            }
            30..=54 => {
                let side = self.side();
                self.ring().neighbor(side, 1 + self.rng.below(4) as u32)
            }
            55..=59 => self.rank,
            60..=64 => 0,
            65..=69 => [p, p.saturating_add(1), u32::MAX][self.rng.below(3) as usize],
            70..=79 => [1 % p, p - 1][self.rng.below(2) as usize],
            _ => self.rng.below(u64::from(p)) as Rank,
        }
    }

    fn message(&mut self) -> Msg {
        let value = if self.rng.below(10) == 0 {
            [1, 2, self.config.payload ^ 1][self.rng.below(3) as usize]
        } else {
            self.config.payload
        };
        let body = match self.rng.below(100) {
            0..=19 => Body::Tree,
            20..=29 => Body::Ack,
            30..=32 => Body::Gossip {
                round: self.rng.next_u64(),
            },
            33..=62 => Body::Correction(CorrectionMsg::Ring {
                toward: self.side(),
            }),
            63..=72 => Body::Correction(CorrectionMsg::Stop),
            73..=89 => {
                let len = if self.rng.below(10) == 0 {
                    self.rng.below(40)
                } else {
                    self.rng.below(4)
                };
                Body::Correction(CorrectionMsg::FailProof {
                    toward: self.side(),
                    known: (0..len).map(|_| self.rank_like()).collect(),
                })
            }
            _ => Body::Correction(CorrectionMsg::Sos),
        };
        Msg { value, body }
    }

    fn timer(&mut self) -> TimerId {
        TimerId(match self.rng.below(10) {
            0..=2 => 1,
            3..=5 => 10,
            6..=8 => 11,
            _ => [0, 2, 12, u32::MAX][self.rng.below(4) as usize],
        })
    }

    fn input(&mut self, first: bool) -> Input {
        let roll = if first && self.rng.below(10) < 7 {
            0
        } else {
            self.rng.below(100)
        };
        match roll {
            0..=4 => Input::Start(self.time()),
            5..=49 => {
                let now = self.time();
                let msg = self.message();
                let from = match (msg.body == Body::Tree, self.near.parent) {
                    // Only the parent's tree message colors; make it common.
                    (true, Some(parent)) if self.rng.below(2) == 0 => parent,
                    _ => self.rank_like(),
                };
                Input::Message(now, from, msg)
            }
            50..=55 => Input::Timer(self.time(), self.timer()),
            56..=63 => Input::PendingTimer,
            _ => Input::Slot(self.time()),
        }
    }
}

pub(super) fn generate(family: Family, seed: u64, index: u64) -> Case {
    let mut rng = SplitMix64::stream(seed ^ family as u64, index);
    let pool = pool();
    let trees = if rng.below(10) < 7 {
        &pool.small
    } else {
        &pool.large
    };
    let tree = trees[rng.below(trees.len() as u64) as usize].clone();
    let procs = u64::from(tree.procs());
    let spec = spec(family, &mut rng, procs, tree.logp().hop());
    let start = if rng.below(2) == 0 {
        StartMode::Synchronized
    } else {
        StartMode::Overlapped
    };
    let mut config = CorrectedTreeConfig::new(tree, spec, start);
    if rng.below(2) == 0 {
        config.first_side = Side::Right;
    }
    if rng.below(5) == 0 {
        config.payload = rng.next_u64();
    }
    let rank = match rng.below(10) {
        0..=2 => 0,
        3 => (procs - 1) as Rank,
        4 => 1 % procs as Rank,
        _ => rng.below(procs) as Rank,
    };
    let near = Neighbourhood::new(&config.tree, rank);
    let len = 1 + rng.below(MAX_INPUTS) as usize;
    let clone_at = rng.below(len as u64 + 1) as usize;
    let mut draw = Generator {
        rng,
        config: &config,
        near: &near,
        rank,
        clock: 0,
    };
    draw.clock = match draw.rng.below(5) {
        0 | 1 => 0,
        2 => draw.rng.below(3 * config.tree.logp().hop()),
        3 => config.correction_start.saturating_sub(1),
        _ => draw.rng.below(1 << 40),
    };
    // Half the cases open as a run does (arrival, then the parent's tree message), so the rest of
    // the sequence reaches correction, acknowledgment and SOS states.
    let mut inputs = Vec::with_capacity(len + 2);
    if draw.rng.below(2) == 0 {
        inputs.push(Input::Start(draw.time()));
        if let Some(parent) = near.parent {
            let tree = Msg {
                value: config.payload,
                body: Body::Tree,
            };
            inputs.push(Input::Message(draw.time(), parent, tree));
        }
    }
    while inputs.len() < len {
        let first = inputs.is_empty();
        inputs.push(draw.input(first));
    }
    Case {
        spec,
        config,
        rank,
        near,
        inputs,
        clone_at,
    }
}
