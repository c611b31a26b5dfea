//! A small seeded PRNG (SplitMix64) whose state can live inside hashed automaton state.
//!
//! Deterministic across platforms; not cryptographic.

/// SplitMix64 (Steele, Lea, Flood 2014): one `u64` of state, full period `2^64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// A generator for stream `stream` of `seed` (e.g. one per process or per run).
    pub fn stream(seed: u64, stream: u64) -> Self {
        let mut mixer = Self::new(seed ^ stream.wrapping_mul(0xd1b5_4a32_d192_ed03));
        Self::new(mixer.next_u64())
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform integer in `0..bound` (`bound > 0`), unbiased (Lemire's method).
    pub fn below(&mut self, bound: u64) -> u64 {
        debug_assert!(bound > 0);
        let bound = bound.max(1);
        loop {
            let product = u128::from(self.next_u64()) * u128::from(bound);
            let low = product as u64;
            if low >= bound.wrapping_neg() % bound {
                return (product >> 64) as u64;
            }
        }
    }

    /// `true` with probability `numerator / 2^64`.
    pub fn chance(&mut self, numerator: u64) -> bool {
        self.next_u64() < numerator
    }
}

/// Where a protocol's random choices come from: a seeded generator (every driver, every run of
/// the protocol), or its environment, one outcome at a time (a model checker that explores
/// every outcome, as stateright's `choose_random` does).
///
/// An automaton draws with [`Chooser::below`]. [`Chooser::Seeded`] answers at once.
/// [`Chooser::External`] answers with the outcome supplied by [`Chooser::supply`] since the
/// last draw; with none, the draw fails (`None`), the bound it wanted is recorded
/// ([`Chooser::wanted`]) and the automaton must act as if it had not reached the choice (send
/// nothing). A checker that sees a failed draw discards that successor, supplies each outcome
/// in `0..bound` to the state before it, and runs the same step again: the draw then happens
/// exactly where the protocol makes it, with every outcome. The state stays `Clone + Eq +
/// Hash`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Chooser {
    /// Draws from this generator.
    Seeded(SplitMix64),
    /// Draws are supplied from outside.
    External {
        /// The outcome of the next draw, once supplied.
        next: Option<u64>,
        /// The bound of a draw that found no outcome supplied.
        wanted: Option<u64>,
    },
}

impl Chooser {
    /// A chooser whose outcomes are supplied from outside, none yet.
    pub const EXTERNAL: Self = Self::External {
        next: None,
        wanted: None,
    };

    /// A uniform integer in `0..bound` (`bound > 0`): drawn from the generator, or the
    /// supplied outcome (consumed). `None` when external and nothing (or an outcome out of
    /// range) was supplied; the wanted bound is then recorded.
    pub fn below(&mut self, bound: u64) -> Option<u64> {
        match self {
            Self::Seeded(rng) => Some(rng.below(bound)),
            Self::External { next, wanted } => match next.take() {
                Some(x) if x < bound => {
                    *wanted = None;
                    Some(x)
                }
                _ => {
                    *wanted = Some(bound);
                    None
                }
            },
        }
    }

    /// The bound of the draw that failed for want of an outcome, if one did.
    pub fn wanted(&self) -> Option<u64> {
        match self {
            Self::Seeded(_) => None,
            Self::External { wanted, .. } => *wanted,
        }
    }

    /// Supplies the outcome of the next draw (external choosers only; a seeded one ignores
    /// it) and clears the record of a failed draw.
    pub fn supply(&mut self, outcome: u64) {
        if let Self::External { next, wanted } = self {
            *next = Some(outcome);
            *wanted = None;
        }
    }
}
