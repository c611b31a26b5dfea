//! FTCO's flags (`simulate --collective …`, `sweep --collective …`) and their values.

use clap::Args;
use ftcoll::protocols::ftco::{EtaRule, RootFailure};
use ftcoll::topology::ftco::{Collective, FtcoKind};
use ftcoll::topology::MAX_ORDER;
use ftcoll::Time;

/// `--topology`: a k-ary or k-nomial tree, or the k-nomial of least fault-free latency.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TopologyArg {
    /// `kary:K` or `knomial:K`.
    Kind(FtcoKind),
    /// `knomial:best`: `k` (and, with `--roots k`, `R`) from `best_knomial`.
    BestKnomial,
}

impl std::fmt::Display for TopologyArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Kind(kind) => write!(f, "{kind}"),
            Self::BestKnomial => write!(f, "knomial:best"),
        }
    }
}

/// Parses `--topology`.
pub(crate) fn topology(s: &str) -> Result<TopologyArg, String> {
    let allowed = format!(
        "expected kary:K or knomial:K with K an integer in 2..={MAX_ORDER}, or knomial:best"
    );
    let k = |k: &str| {
        k.parse::<u64>()
            .ok()
            .filter(|k| (2..=MAX_ORDER).contains(k))
            .ok_or_else(|| format!("k = '{k}' is out of range: {allowed}"))
    };
    match s.split_once(':') {
        Some(("knomial", "best")) => Ok(TopologyArg::BestKnomial),
        Some(("kary", v)) => Ok(TopologyArg::Kind(FtcoKind::KAry(k(v)?))),
        Some(("knomial", v)) => Ok(TopologyArg::Kind(FtcoKind::KNomial(k(v)?))),
        _ => Err(allowed),
    }
}

/// Parses `--collective`.
pub(crate) fn collective(s: &str) -> Result<Collective, String> {
    match s {
        "bcast" => Ok(Collective::Bcast),
        "reduce" => Ok(Collective::Reduce),
        "allreduce" => Ok(Collective::Allreduce),
        _ => Err("expected bcast, reduce or allreduce".into()),
    }
}

/// `bcast`, `reduce` or `allreduce`.
pub(crate) fn collective_name(c: Collective) -> &'static str {
    match c {
        Collective::Bcast => "bcast",
        Collective::Reduce => "reduce",
        Collective::Allreduce => "allreduce",
    }
}

/// `--roots`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RootsArg {
    /// `R` roots (1: single-root).
    Count(u64),
    /// `k`: `R = min(k, P)`, FTCO's multi-root k-nomial (Table 2).
    PerK,
}

impl std::fmt::Display for RootsArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Count(r) => write!(f, "{r}"),
            Self::PerK => write!(f, "k"),
        }
    }
}

/// Parses `--roots`.
pub(crate) fn roots(s: &str) -> Result<RootsArg, String> {
    if s == "k" {
        return Ok(RootsArg::PerK);
    }
    match s.parse::<u64>() {
        Ok(r) if (1..=u64::from(ftcoll::topology::MAX_PROCS)).contains(&r) => {
            Ok(RootsArg::Count(r))
        }
        _ => Err("expected an integer in 1..=P (1: single-root) or k (R = k)".into()),
    }
}

/// `--service`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ServiceArg {
    /// Every step serves any distance.
    None,
    /// Randomized Service-Distance with `r = 1 / INV_R`, seeded per run.
    Rsd(u32),
    /// Deterministic Intervals Service-Distance.
    Disd,
}

/// Parses `--service`: `none`, `rsd` (`r = 1/2`), `rsd:INV_R` or `disd`.
pub(crate) fn service(s: &str) -> Result<ServiceArg, String> {
    let allowed =
        "expected none, rsd, rsd:INV_R (r = 1/INV_R, INV_R an integer in 2..=4294967295) or disd";
    match s {
        "none" => Ok(ServiceArg::None),
        "rsd" => Ok(ServiceArg::Rsd(2)),
        "disd" => Ok(ServiceArg::Disd),
        _ => match s.strip_prefix("rsd:").map(str::parse::<u32>) {
            Some(Ok(inv)) if inv >= 2 => Ok(ServiceArg::Rsd(inv)),
            _ => Err(allowed.into()),
        },
    }
}

impl std::fmt::Display for ServiceArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::None => write!(f, "none"),
            Self::Rsd(inv) => write!(f, "rsd:{inv}"),
            Self::Disd => write!(f, "disd"),
        }
    }
}

/// `--op`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OpArg {
    /// Wrapping sum.
    Sum,
    /// Minimum.
    Min,
    /// Maximum.
    Max,
}

/// Parses `--op`.
pub(crate) fn op(s: &str) -> Result<OpArg, String> {
    match s {
        "sum" => Ok(OpArg::Sum),
        "min" => Ok(OpArg::Min),
        "max" => Ok(OpArg::Max),
        _ => Err("expected sum, min or max".into()),
    }
}

/// `--imbalance`: how processes arriving at different times (`--arrival`) enter the collective.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ImbalanceArg {
    /// The driver's arrivals: a process is unreachable until it arrives (the baseline).
    Off,
    /// App. B, Alg. 5: reachable from 0, entering the collective at its arrival time.
    Alg5,
}

/// Parses `--imbalance`.
pub(crate) fn imbalance(s: &str) -> Result<ImbalanceArg, String> {
    match s {
        "off" => Ok(ImbalanceArg::Off),
        "alg5" => Ok(ImbalanceArg::Alg5),
        _ => Err("expected off (the driver's arrivals) or alg5 (FTCO App. B)".into()),
    }
}

impl std::fmt::Display for ImbalanceArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Off => "off",
            Self::Alg5 => "alg5",
        })
    }
}

/// Parses `--root-failure`.
pub(crate) fn root_failure(s: &str) -> Result<RootFailure, String> {
    match s {
        "immune" => Ok(RootFailure::Immune),
        "replaced" => Ok(RootFailure::ReplacedByChildren),
        _ => Err(
            "expected immune (roots never fail) or replaced (rank 0 replaced by its children)"
                .into(),
        ),
    }
}

/// `immune` or `replaced`.
pub(crate) fn root_failure_name(r: RootFailure) -> &'static str {
    match r {
        RootFailure::Immune => "immune",
        RootFailure::ReplacedByChildren => "replaced",
    }
}

fn steps(s: &str, min: u64) -> Result<u64, String> {
    let max = u64::from(u32::MAX);
    s.trim()
        .parse::<u64>()
        .ok()
        .filter(|v| (min..=max).contains(v))
        .ok_or_else(|| format!("expected an integer in {min}..={max}"))
}

/// Parses `--timeout-round-trip` (at least one step, or KEEPALIVEs would never let time pass).
pub(crate) fn round_trip(s: &str) -> Result<u64, String> {
    steps(s, 1)
}

/// Parses `--eta`.
pub(crate) fn eta(s: &str) -> Result<EtaRule, String> {
    s.parse()
}

/// Parses `--timeout-per-load`.
pub(crate) fn per_load(s: &str) -> Result<u64, String> {
    steps(s, 0)
}

/// `simulate`'s FTCO flags: `--collective` selects FTCO, the others need it. Every field is an
/// option so that a Corrected Tree run can refuse any of them by name.
#[derive(Args, Debug, Default)]
pub(crate) struct FtcoFlags {
    /// FTCO: run this collective (bcast, reduce or allreduce) instead of a Corrected Tree.
    #[arg(long, value_parser = collective, help_heading = "FTCO (with --collective)")]
    pub collective: Option<Collective>,
    /// Tree: kary:K, knomial:K (K in 2..=65536) or knomial:best (least fault-free latency).
    #[arg(long, value_parser = topology, help_heading = "FTCO (with --collective)")]
    pub topology: Option<TopologyArg>,
    /// Roots R: 1 (single-root; default), an integer up to P, or k (R = k: multi-root k-nomial).
    #[arg(long, value_parser = roots, help_heading = "FTCO (with --collective)")]
    pub roots: Option<RootsArg>,
    /// Service distance: none (default), rsd, rsd:INV_R (r = 1/INV_R; rsd is 2) or disd.
    #[arg(long, value_parser = service, help_heading = "FTCO (with --collective)")]
    pub service: Option<ServiceArg>,
    /// Reduction operator over the operands rank + 1: sum (default), min or max.
    #[arg(long, value_parser = op, help_heading = "FTCO (with --collective)")]
    pub op: Option<OpArg>,
    /// Timeout: steps of an unloaded round trip (default 2L + 4).
    #[arg(long, value_parser = round_trip, help_heading = "FTCO (with --collective)")]
    pub timeout_round_trip: Option<u64>,
    /// Timeout: steps per neighbour of either end, per unit of tree distance (default 2).
    #[arg(long, value_parser = per_load, help_heading = "FTCO (with --collective)")]
    pub timeout_per_load: Option<u64>,
    /// The result's ETA: exact (default; the fault-free arrival), parent-recovery (plus one
    /// recovery of a non-root parent) or ancestor-recovery (plus one per non-root ancestor).
    #[arg(long, value_parser = eta, help_heading = "FTCO (with --collective)")]
    pub eta: Option<EtaRule>,
    /// Process imbalance: off (default; the --arrival times are the driver's, a process is
    /// unreachable before it) or alg5 (App. B: reachable from 0, enters at its arrival time).
    #[arg(long, value_parser = imbalance, help_heading = "FTCO (with --collective)")]
    pub imbalance: Option<ImbalanceArg>,
    /// Root failure: immune (default; roots never fail) or replaced (single-root reduce or
    /// allreduce: rank 0 may fail and is replaced by its children).
    #[arg(long, value_parser = root_failure, help_heading = "FTCO (with --collective)")]
    pub root_failure: Option<RootFailure>,
}

impl FtcoFlags {
    /// The first FTCO flag given, for a Corrected Tree run to refuse.
    pub(crate) fn first_given(&self) -> Option<&'static str> {
        [
            ("--collective", self.collective.is_some()),
            ("--topology", self.topology.is_some()),
            ("--roots", self.roots.is_some()),
            ("--service", self.service.is_some()),
            ("--op", self.op.is_some()),
            ("--timeout-round-trip", self.timeout_round_trip.is_some()),
            ("--timeout-per-load", self.timeout_per_load.is_some()),
            ("--eta", self.eta.is_some()),
            ("--imbalance", self.imbalance.is_some()),
            ("--root-failure", self.root_failure.is_some()),
        ]
        .into_iter()
        .find(|g| g.1)
        .map(|g| g.0)
    }
}

/// Run-time faults drawn at random (sweeps): `count` ranks, among those that may fail and did
/// not fail before the operation, each crashing at a time uniform in `from..=to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RandomCrashes {
    /// How many ranks crash.
    pub count: u32,
    /// Earliest crash time.
    pub from: Time,
    /// Latest crash time.
    pub to: Time,
}

impl std::fmt::Display for RandomCrashes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.count == 0 {
            write!(f, "none")
        } else if self.from == self.to {
            write!(f, "{}@{}", self.count, self.from)
        } else {
            write!(f, "{}@{}..{}", self.count, self.from, self.to)
        }
    }
}

/// Parses one run-time fault item of `sweep --crashes`: `none`, `N@T` (N random ranks crash at
/// step T) or `N@A..B` (each at a step uniform in A..=B).
pub(crate) fn random_crashes(s: &str) -> Result<RandomCrashes, String> {
    let allowed = "expected none, N@T or N@A..B (N random ranks crash at step T, or each at a step uniform in A..=B; integers, 1 <= N, A <= B <= 4294967295)";
    if s == "none" {
        return Ok(RandomCrashes {
            count: 0,
            from: 0,
            to: 0,
        });
    }
    let (n, times) = s.split_once('@').ok_or(allowed)?;
    let count: u32 = n.parse().ok().filter(|&n| n >= 1).ok_or(allowed)?;
    let time = |t: &str| {
        t.parse::<Time>()
            .ok()
            .filter(|&t| t <= Time::from(u32::MAX))
    };
    let (from, to) = match times.split_once("..") {
        Some((a, b)) => (time(a).ok_or(allowed)?, time(b).ok_or(allowed)?),
        None => {
            let t = time(times).ok_or(allowed)?;
            (t, t)
        }
    };
    if from > to {
        return Err(allowed.into());
    }
    Ok(RandomCrashes { count, from, to })
}
