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
