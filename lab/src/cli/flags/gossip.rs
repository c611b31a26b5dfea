//! Corrected Gossip's flags (`simulate --gossip …`, `sweep --gossip …`) and their values.

use crate::experiment::cg::CgProtocol;
use clap::Args;
use ftcoll_sim::IgnoredMessages;

/// Parses `--delta`: a probability strictly between 0 and 1.
pub(crate) fn probability(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v < 1.0 => Ok(v),
        _ => Err("expected a probability strictly between 0 and 1 (e.g. 6.9315e-7)".to_string()),
    }
}

/// `--gossip-time` / `--correction-time`: `auto` (from the model) or a number of steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TimeArg {
    /// From `ftcoll::protocols::gossip::plan`.
    Auto,
    /// As given.
    Steps(u64),
}

impl std::fmt::Display for TimeArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Auto => f.write_str("auto"),
            Self::Steps(t) => write!(f, "{t}"),
        }
    }
}

/// Parses `--gossip-time` and `--correction-time`: `auto` or steps up to [`crate::experiment::cg::MAX_TIME`].
pub(crate) fn time_arg(s: &str) -> Result<TimeArg, String> {
    let max = crate::experiment::cg::MAX_TIME;
    match s.trim() {
        "auto" => Ok(TimeArg::Auto),
        t => match t.parse::<u64>() {
            Ok(v) if v <= max => Ok(TimeArg::Steps(v)),
            _ => Err(format!("expected auto or an integer in 0..={max}")),
        },
    }
}

/// Parses `--gossip`: gos, ocg, ccg, fcg:F, big or bfb.
pub(crate) fn protocol(s: &str) -> Result<CgProtocol, String> {
    s.parse()
}

/// `simulate`'s Corrected Gossip flags (`--gossip` selects a gossip run).
#[derive(Args, Debug, Default)]
pub(crate) struct GossipFlags {
    /// Corrected Gossip or a baseline (CG §III, §IV.B): gos, ocg, ccg, fcg:F, big or bfb.
    #[arg(long, value_parser = protocol)]
    pub gossip: Option<CgProtocol>,
    /// Gossip time T (steps), or auto: the model's (plan.rs) for GOS, OCG, CCG, FCG (default auto).
    #[arg(long, value_parser = time_arg, allow_negative_numbers = true)]
    pub gossip_time: Option<TimeArg>,
    /// OCG's correction time C (steps), or auto: K̄O + L + O from the model (default auto).
    #[arg(long, value_parser = time_arg, allow_negative_numbers = true)]
    pub correction_time: Option<TimeArg>,
    /// δ for auto T and C (default: the paper's 6.9315e-7, 50 % that 10^6 runs all succeed).
    #[arg(long, value_parser = probability, allow_negative_numbers = true)]
    pub delta: Option<f64>,
    /// What a message its receiver ignores (a duplicate) costs: charged (it takes o off the
    /// receive port, the default) or free (dropped unread when it arrives: the model of CG's
    /// Table 7).
    #[arg(long, value_parser = ignored_messages)]
    pub ignored_messages: Option<IgnoredMessages>,
}

/// Parses `--ignored-messages`: charged or free.
pub(crate) fn ignored_messages(s: &str) -> Result<IgnoredMessages, String> {
    match s {
        "charged" => Ok(IgnoredMessages::Charged),
        "free" => Ok(IgnoredMessages::Free),
        _ => Err("expected charged or free".to_string()),
    }
}

/// `--ignored-messages`'s spelling of `ignored`.
pub(crate) fn ignored_name(ignored: IgnoredMessages) -> &'static str {
    match ignored {
        IgnoredMessages::Charged => "charged",
        IgnoredMessages::Free => "free",
    }
}

impl GossipFlags {
    /// The first gossip flag given other than `--gossip`.
    pub(crate) fn first_given(&self) -> Option<&'static str> {
        first_timing_flag(
            self.gossip_time.is_some(),
            self.correction_time.is_some(),
            self.delta.is_some(),
        )
    }
}

/// The first of `--gossip-time`, `--correction-time` and `--delta` given (`simulate` and `sweep`
/// refuse them where no protocol uses them).
pub(crate) fn first_timing_flag(
    gossip_time: bool,
    correction_time: bool,
    delta: bool,
) -> Option<&'static str> {
    [
        ("--gossip-time", gossip_time),
        ("--correction-time", correction_time),
        ("--delta", delta),
    ]
    .into_iter()
    .find(|g| g.1)
    .map(|g| g.0)
}
