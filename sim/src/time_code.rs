//! Times in 32 bits, with the rare larger ones kept aside: what the driver's process records and
//! the report's rows store. First timers keep their generations the same way.
//!
//! A code below [`FAR_CODE`] is the time itself, [`NEVER_CODE`] is [`Time::MAX`] (the driver's
//! "never"), and [`FAR_CODE`] says the time is in a [`FarTimes`] map under the record's rank and
//! field. The map holds exactly the times its records mark far, so equal states are equal values
//! and hash alike: a model checker's state includes both.

use alloc::collections::BTreeMap;

use ftcoll::{Rank, Time};

/// The code of [`Time::MAX`].
pub(crate) const NEVER_CODE: u32 = u32::MAX;
/// The code of a time kept in a [`FarTimes`] map: 2^32 − 2 or later, other than [`Time::MAX`].
pub(crate) const FAR_CODE: u32 = u32::MAX - 1;

/// The times too large for their records' 32-bit codes, by rank and field (a small number the
/// record's owner chooses per time it keeps). Empty in every run of this crate's tools.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
pub(crate) struct FarTimes(
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_map::rank_field_map"))]
    BTreeMap<(Rank, u8), Time>,
);

impl FarTimes {
    pub(crate) fn new() -> Self {
        Self(BTreeMap::new())
    }

    /// The time `code` (of `field` of `rank`'s record) stands for. (A far code with no entry,
    /// which only a corrupted deserialized state holds, reads as [`Time::MAX`].)
    #[inline(always)]
    pub(crate) fn decode(&self, rank: Rank, field: u8, code: u32) -> Time {
        if code < FAR_CODE {
            Time::from(code)
        } else if code == NEVER_CODE {
            Time::MAX
        } else {
            self.decode_far(rank, field)
        }
    }

    #[cold]
    #[inline(never)]
    fn decode_far(&self, rank: Rank, field: u8) -> Time {
        self.0.get(&(rank, field)).copied().unwrap_or(Time::MAX)
    }

    /// The code of `time` for `field` of `rank`'s record, whose code was `old`: the map gets
    /// the time if the code cannot hold it, and loses the old one if it held it. (The common
    /// case, a near time replacing a code that held none, is inlined; the rest is out of line,
    /// so the driver's hot path stays small.)
    #[inline(always)]
    pub(crate) fn encode(&mut self, rank: Rank, field: u8, old: u32, time: Time) -> u32 {
        if old != FAR_CODE {
            if time < Time::from(FAR_CODE) {
                // Exact: the time is below 2^32 − 2.
                return time as u32;
            }
            if time == Time::MAX {
                return NEVER_CODE;
            }
        }
        self.encode_far(rank, field, old, time)
    }

    #[cold]
    #[inline(never)]
    fn encode_far(&mut self, rank: Rank, field: u8, old: u32, time: Time) -> u32 {
        let code = if time < Time::from(FAR_CODE) {
            // Exact: the time is below 2^32 − 2.
            time as u32
        } else if time == Time::MAX {
            NEVER_CODE
        } else {
            self.0.insert((rank, field), time);
            return FAR_CODE;
        };
        if old == FAR_CODE {
            self.0.remove(&(rank, field));
        }
        code
    }

    /// How many times are kept aside.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the map holds exactly the far codes that `codes` lists as `(rank, field, code)`.
    #[cfg(test)]
    pub(crate) fn matches(&self, codes: impl IntoIterator<Item = (Rank, u8, u32)>) -> bool {
        let marked: alloc::vec::Vec<(Rank, u8)> = codes
            .into_iter()
            .filter(|&(_, _, code)| code == FAR_CODE)
            .map(|(rank, field, _)| (rank, field))
            .collect();
        marked.len() == self.0.len() && marked.iter().all(|key| self.0.contains_key(key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every time reads back exactly, near and far, and the map holds only the far ones.
    #[test]
    fn times_read_back_exactly_and_far_ones_only_are_kept_aside() {
        let mut far = FarTimes::new();
        let mut code = 0;
        let cases = [
            0,
            7,
            Time::from(FAR_CODE) - 1,
            Time::from(FAR_CODE),
            1 << 40,
            Time::MAX - 1,
            Time::MAX,
            3,
        ];
        for time in cases {
            code = far.encode(2, 1, code, time);
            assert_eq!(far.decode(2, 1, code), time);
            let kept = usize::from(time >= Time::from(FAR_CODE) && time != Time::MAX);
            assert_eq!(far.len(), kept, "{time}");
            assert_eq!(code == FAR_CODE, kept == 1, "{time}");
        }
    }
}
