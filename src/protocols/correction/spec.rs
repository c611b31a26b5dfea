//! The correction variants as a user names them ([`CorrectionSpec`]: in code, as text and in
//! serde), and the rule each resolves to for one operation ([`Rule`]).

use crate::topology::LogP;
use crate::Time;

use super::{default_sos_timeout, Rule};

/// A Corrected Tree variant: the correction its processes run, or the tree with
/// acknowledgments. This is the one public spelling of a correction variant, in code
/// (`CorrectionSpec::Checked`), in text (`"checked"`, see [`CORRECTION_SPELLINGS`]; `Display`
/// writes what `FromStr` reads) and in serde (the same text).
///
/// Marked `#[non_exhaustive]`: a new variant is not a breaking change, so a `match` on it needs a
/// wildcard arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(try_from = "alloc::string::String", into = "alloc::string::String")
)]
#[non_exhaustive]
pub enum CorrectionSpec {
    /// No correction: the plain tree (`none`).
    None,
    /// Opportunistic correction with distance `d` (CT §3.1, CG Alg. 1): `opportunistic:D`.
    Opportunistic {
        /// Messages per side, in `1..=2^31`.
        distance: u32,
    },
    /// Optimized opportunistic correction (CT §3.3): `optimized:D`.
    Optimized {
        /// Messages per side at most, in `1..=2^31`.
        distance: u32,
    },
    /// Checked correction (CT §3.1, CG Alg. 2): `checked`.
    Checked,
    /// Delayed correction (CT §3.3): `delayed:DELAY`.
    Delayed {
        /// Time from the first correction send until the other side is expected to have spoken.
        delay: Time,
    },
    /// Failure-proof correction tolerating `faults` crashes during correction (CG §III.D,
    /// Alg. 3): `failproof:F` or `failproof:F:TIMEOUT` as listed, `failproof-footnote:F` or
    /// `failproof-footnote:F:TIMEOUT` for the variant of CG's footnote to Claim 5.
    FailProof {
        /// `f`, in `0..=2^31`.
        faults: u32,
        /// How long a c-node waits for `f + 1` correctors before SOS; `None`: the default
        /// `4·P·o + 2(2o + L)` of the operation's tree (long enough for a corrector to sweep the
        /// ring twice), see [`CorrectedTreeConfig::sos_timeout`](crate::protocols::corrected_tree::CorrectedTreeConfig::sos_timeout).
        sos_timeout: Option<Time>,
        /// Whether a corrector whose sweep of one side comes back to itself without `f + 1`
        /// known correctors enters SOS (CG Alg. 3 line 28, `true`: the listing) or only stops
        /// that side (`false`: the footnote to Claim 5, "a node may not trigger the SOS mode in
        /// line 28 when sending to itself", which Claim 5's proof assumes).
        sos_on_full_loop: bool,
    },
    /// Tree with acknowledgments, no correction (CT §4.1): `ack`.
    Ack,
}

/// The allowed spellings of [`CorrectionSpec`].
pub const CORRECTION_SPELLINGS: &str = "none, opportunistic:D, optimized:D, checked, delayed:DELAY, failproof:F[:TIMEOUT], failproof-footnote:F[:TIMEOUT] or ack (D in 1..=2^31, F in 0..=2^31)";

impl core::fmt::Display for CorrectionSpec {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::None => write!(f, "none"),
            Self::Opportunistic { distance } => write!(f, "opportunistic:{distance}"),
            Self::Optimized { distance } => write!(f, "optimized:{distance}"),
            Self::Checked => write!(f, "checked"),
            Self::Delayed { delay } => write!(f, "delayed:{delay}"),
            Self::FailProof {
                faults,
                sos_timeout,
                sos_on_full_loop,
            } => {
                let name = if *sos_on_full_loop {
                    "failproof"
                } else {
                    "failproof-footnote"
                };
                match sos_timeout {
                    Some(t) => write!(f, "{name}:{faults}:{t}"),
                    None => write!(f, "{name}:{faults}"),
                }
            }
            Self::Ack => write!(f, "ack"),
        }
    }
}

impl core::str::FromStr for CorrectionSpec {
    type Err = crate::topology::TopologyError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let unknown = crate::topology::TopologyError::Unknown {
            field: "correction",
            allowed: CORRECTION_SPELLINGS,
        };
        let number = |v: &str, min: u64, max: u64| -> Result<u64, crate::topology::TopologyError> {
            v.parse::<u64>()
                .ok()
                .filter(|n| (min..=max).contains(n))
                .ok_or_else(|| unknown.clone())
        };
        let mut parts = s.split(':');
        let name = parts.next().unwrap_or("");
        let args: alloc::vec::Vec<&str> = parts.collect();
        let spec = match (name, args.as_slice()) {
            ("none", []) => Self::None,
            ("checked", []) => Self::Checked,
            ("ack", []) => Self::Ack,
            ("opportunistic", [d]) => Self::Opportunistic {
                distance: number(d, 1, 1 << 31)? as u32,
            },
            ("optimized", [d]) => Self::Optimized {
                distance: number(d, 1, 1 << 31)? as u32,
            },
            ("delayed", [d]) => Self::Delayed {
                delay: number(d, 0, u64::MAX >> 2)?,
            },
            ("failproof" | "failproof-footnote", [f]) => Self::FailProof {
                faults: number(f, 0, 1 << 31)? as u32,
                sos_timeout: None,
                sos_on_full_loop: name == "failproof",
            },
            ("failproof" | "failproof-footnote", [f, t]) => Self::FailProof {
                faults: number(f, 0, 1 << 31)? as u32,
                sos_timeout: Some(number(t, 0, u64::MAX >> 2)?),
                sos_on_full_loop: name == "failproof",
            },
            _ => return Err(unknown),
        };
        Ok(spec)
    }
}

impl CorrectionSpec {
    /// The rule a corrector of an operation on `procs` ranks under `logp` runs (the failure-proof default
    /// timeout resolved; the acknowledged tree corrects nothing).
    pub(crate) fn rule(self, procs: u32, logp: LogP) -> Rule {
        match self {
            Self::None | Self::Ack => Rule::None,
            Self::Opportunistic { distance } => Rule::Opportunistic { distance },
            Self::Optimized { distance } => Rule::Optimized { distance },
            Self::Checked => Rule::Checked,
            Self::Delayed { delay } => Rule::Delayed { delay },
            Self::FailProof {
                faults,
                sos_timeout,
                sos_on_full_loop,
            } => Rule::FailProof {
                faults,
                sos_timeout: sos_timeout.unwrap_or_else(|| default_sos_timeout(procs, logp)),
                sos_on_full_loop,
            },
        }
    }
}
