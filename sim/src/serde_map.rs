//! Serde helpers of the drivers' records.

/// The serialized form of a map keyed by `(rank, field)` (the far times and far send counts of
/// `sim`'s records and report): a list of `(rank, field, value)` triples in key order, since
/// JSON allows only strings and integers as map keys.
pub(crate) mod rank_field_map {
    use alloc::collections::BTreeMap;
    use alloc::vec::Vec;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use ftcoll::Rank;

    pub(crate) fn serialize<S: Serializer, V: Serialize>(
        map: &BTreeMap<(Rank, u8), V>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(
            map.iter()
                .map(|(&(rank, field), value)| (rank, field, value)),
        )
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>, V: Deserialize<'de>>(
        deserializer: D,
    ) -> Result<BTreeMap<(Rank, u8), V>, D::Error> {
        let list: Vec<(Rank, u8, V)> = Vec::deserialize(deserializer)?;
        Ok(list
            .into_iter()
            .map(|(rank, field, value)| ((rank, field), value))
            .collect())
    }
}
