//! The serialized forms of types with invariants (feature `serde`): they are written as their
//! parameters and read back through their validating constructors, so a file can never build a
//! tree, a LogP pair or a topology that the constructors would refuse. Types with a textual
//! spelling on the command line (`TreeKind`, `Order`, `CorrectionSpec`) are written as that
//! spelling (`"lame:2"`, `"in-order"`, `"failproof:1:40"`).

use alloc::string::{String, ToString};

use serde::{Deserialize, Serialize};

use crate::protocols::corrected_tree::CorrectionSpec;
use crate::topology::ftco::{FtcoKind, FtcoTopology};
use crate::topology::{procs_from_u64, LogP, Order, TopologyError, Tree, TreeKind};
use crate::Time;

/// The serialized form of [`LogP`]: `{"L": …, "o": …}`.
#[derive(Serialize, Deserialize)]
pub struct LogPParams {
    #[serde(rename = "L")]
    latency: Time,
    #[serde(rename = "o")]
    overhead: Time,
}

impl From<LogP> for LogPParams {
    fn from(l: LogP) -> Self {
        Self {
            latency: l.latency(),
            overhead: l.overhead(),
        }
    }
}

impl TryFrom<LogPParams> for LogP {
    type Error = TopologyError;
    fn try_from(p: LogPParams) -> Result<Self, TopologyError> {
        LogP::new(p.latency, p.overhead)
    }
}

/// The serialized form of [`Tree`]: its constructor's arguments.
#[derive(Serialize, Deserialize)]
pub struct TreeParams {
    kind: TreeKind,
    order: Order,
    procs: u64,
    logp: LogP,
}

impl From<Tree> for TreeParams {
    fn from(t: Tree) -> Self {
        Self {
            kind: t.kind(),
            order: t.order(),
            procs: u64::from(t.procs()),
            logp: t.logp(),
        }
    }
}

impl TryFrom<TreeParams> for Tree {
    type Error = TopologyError;
    fn try_from(p: TreeParams) -> Result<Self, TopologyError> {
        Tree::new(p.kind, p.order, procs_from_u64(p.procs)?, p.logp)
    }
}

/// The serialized form of [`FtcoTopology`]: its constructor's arguments.
#[derive(Serialize, Deserialize)]
pub struct FtcoParams {
    kind: FtcoKind,
    roots: u64,
    procs: u64,
}

impl From<FtcoTopology> for FtcoParams {
    fn from(t: FtcoTopology) -> Self {
        Self {
            kind: t.kind(),
            roots: u64::from(t.roots()),
            procs: u64::from(t.procs()),
        }
    }
}

impl TryFrom<FtcoParams> for FtcoTopology {
    type Error = TopologyError;
    fn try_from(p: FtcoParams) -> Result<Self, TopologyError> {
        FtcoTopology::new(p.kind, p.roots, procs_from_u64(p.procs)?)
    }
}

/// `Display` out, `FromStr` in: the command line's spelling is the serialized form.
macro_rules! as_spelling {
    ($($t:ty),*) => {$(
        impl From<$t> for String {
            fn from(v: $t) -> String {
                v.to_string()
            }
        }

        impl TryFrom<String> for $t {
            type Error = String;
            fn try_from(s: String) -> Result<Self, String> {
                s.parse::<$t>().map_err(|e| e.to_string())
            }
        }
    )*};
}

as_spelling!(TreeKind, Order, CorrectionSpec);

/// A map written as a list of `[key, value]` pairs, for keys JSON cannot name (tuples):
/// `#[serde(with = "crate::serde_support::pairs")]`.
pub mod pairs {
    use alloc::collections::BTreeMap;
    use alloc::vec::Vec;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// Writes the pairs in key order.
    pub fn serialize<K: Serialize, V: Serialize, S: Serializer>(
        map: &BTreeMap<K, V>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.collect_seq(map.iter())
    }

    /// Reads pairs; a repeated key is an error, not a silent overwrite.
    pub fn deserialize<'de, K, V, D>(d: D) -> Result<BTreeMap<K, V>, D::Error>
    where
        K: Deserialize<'de> + Ord,
        V: Deserialize<'de>,
        D: Deserializer<'de>,
    {
        let pairs: Vec<(K, V)> = Vec::deserialize(d)?;
        let n = pairs.len();
        let map: BTreeMap<K, V> = pairs.into_iter().collect();
        if map.len() != n {
            return Err(serde::de::Error::custom("a key is listed twice"));
        }
        Ok(map)
    }
}
