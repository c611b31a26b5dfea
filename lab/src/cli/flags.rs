//! The values of the flags that several commands share, each with its parser: a clap
//! `value_parser` whose error names the allowed values.

pub(super) mod ftco;
pub(super) mod gossip;

use clap::ValueEnum;
use ftcoll::protocols::corrected_tree::CorrectionSpec;
use ftcoll::{Rank, Time};
use ftcoll_sim::scenario::ArrivalSpec;

/// Parses `--correction`.
pub(super) fn correction(s: &str) -> Result<CorrectionSpec, String> {
    s.parse::<CorrectionSpec>().map_err(|e| e.to_string())
}

/// `--start`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub(super) enum StartArg {
    /// Synchronized at the tree's fault-free deadline.
    Sync,
    /// Overlapped: right after the process's tree sends.
    Overlap,
}

/// `--model`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub(super) enum ModelArg {
    /// Dual-port LogP (CT, CG).
    Dual,
    /// Single-port step model (FTCO).
    Single,
}

/// `--first-side`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub(super) enum SideArg {
    /// Toward r − 1 first (CT).
    Left,
    /// Toward r + 1 first (CG).
    Right,
}

/// `--format`.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub(super) enum SimFormat {
    /// One JSON object per run, one per line.
    Json,
    /// A header and one row per run.
    Csv,
    /// Aligned columns for reading.
    Table,
}

/// The largest arrival spread (`2^32 − 1` steps): beyond it arrival times dwarf every
/// protocol's latency and a run measures only the spread (latencies of 10^10 for a typo).
pub(super) const MAX_SPREAD: Time = u32::MAX as Time;

/// `--arrival`: a pattern, or `@FILE` (read once `P` is known, see [`ArrivalArg::resolve`]).
#[derive(Clone, Debug, PartialEq)]
pub(super) enum ArrivalArg {
    /// A drawn pattern.
    Spec(ArrivalSpec),
    /// `@FILE`: the path of a file of `P` arrival times.
    File(String),
}

impl ArrivalArg {
    /// No arrival pattern.
    pub(super) const NONE: Self = Self::Spec(ArrivalSpec::None);

    /// The pattern for `P = procs`: a file is read here (streamed, at most `P + 1` values kept)
    /// and must hold exactly `P` times, each in `0..=MAX_SPREAD`.
    pub(super) fn resolve(&self, procs: u32) -> Result<ArrivalSpec, String> {
        match self {
            Self::Spec(spec) => Ok(spec.clone()),
            Self::File(path) => {
                let times =
                    crate::cli::args::read_list_file(path, "arrival", procs as usize, times)
                        .map_err(|e| format!("{e} ({})", file_allowed(procs)))?;
                if times.len() != procs as usize {
                    return Err(format!(
                        "arrival file '{path}' holds {} times: {}",
                        times.len(),
                        file_allowed(procs)
                    ));
                }
                Ok(ArrivalSpec::Times(times))
            }
        }
    }
}

/// What an arrival file must hold.
fn file_allowed(procs: u32) -> String {
    format!(
        "expected exactly P = {procs} times, one per line or comma-separated, each an integer in 0..={MAX_SPREAD}"
    )
}

/// The arrival times of one line of an arrival file.
fn times(line: &str) -> Result<Vec<Time>, String> {
    line.split(',')
        .map(str::trim)
        .map(|item| {
            item.parse::<Time>()
                .ok()
                .filter(|&t| t <= MAX_SPREAD)
                .ok_or_else(|| format!("'{item}' is not a time"))
        })
        .collect()
}

impl std::fmt::Display for ArrivalArg {
    /// As `--arrival` spells it (a file: `@PATH`, as given).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::File(path) => write!(f, "@{path}"),
            Self::Spec(ArrivalSpec::SymmetricNormal(s)) => write!(f, "symnormal:{s}"),
            Self::Spec(ArrivalSpec::None) => write!(f, "none"),
            Self::Spec(ArrivalSpec::Uniform(s)) => write!(f, "uniform:{s}"),
            Self::Spec(ArrivalSpec::Normal(s)) => write!(f, "normal:{s}"),
            Self::Spec(ArrivalSpec::Random { max_if, unit }) => write!(f, "random:{max_if}:{unit}"),
            Self::Spec(ArrivalSpec::Late { fraction, delay }) => {
                write!(f, "late:{fraction}:{delay}")
            }
            Self::Spec(ArrivalSpec::Times(t)) => write!(f, "times:{}", t.len()),
        }
    }
}

/// Parses `--arrival`: `none`, `uniform:SPREAD`, `normal:SPREAD`, `symnormal:SIGMA`,
/// `random:MAX_IF:UNIT`, `late:FRACTION:DELAY` or `@FILE`.
pub(super) fn arrival(s: &str) -> Result<ArrivalArg, String> {
    let allowed = format!(
        "expected none, uniform:SPREAD, normal:SPREAD, symnormal:SIGMA, random:MAX_IF:UNIT, late:FRACTION:DELAY or @FILE (SPREAD, DELAY integers in 0..={MAX_SPREAD}; SIGMA an integer in 0..={}; MAX_IF ≥ 1 and UNIT ≥ 1 integers with (MAX_IF − 1)·UNIT ≤ {MAX_SPREAD}; FRACTION in 0.0..=1.0)",
        ArrivalSpec::MAX_SYMMETRIC_SIGMA
    );
    let spread = |spread: &str, what: &str| -> Result<Time, String> {
        spread
            .parse()
            .ok()
            .filter(|&v| v <= MAX_SPREAD)
            .ok_or_else(|| format!("{what} '{spread}' is out of range: {allowed}"))
    };
    if let Some(path) = s.strip_prefix('@') {
        if path.is_empty() {
            return Err(format!("'@' without a file name: {allowed}"));
        }
        return Ok(ArrivalArg::File(path.into()));
    }
    match s.split_once(':') {
        None if s == "none" => Ok(ArrivalArg::NONE),
        Some(("random", rest)) => {
            let (max_if, unit) = rest.split_once(':').ok_or_else(|| allowed.clone())?;
            let max_if: u64 = max_if
                .parse()
                .ok()
                .filter(|&m| m >= 1)
                .ok_or_else(|| format!("MAX_IF '{max_if}' is out of range: {allowed}"))?;
            let unit: Time = unit
                .parse()
                .ok()
                .filter(|&u| u >= 1)
                .ok_or_else(|| format!("UNIT '{unit}' is out of range: {allowed}"))?;
            if (max_if - 1)
                .checked_mul(unit)
                .is_none_or(|t| t > MAX_SPREAD)
            {
                return Err(format!(
                    "random:{max_if}:{unit} arrives as late as (MAX_IF − 1)·UNIT, above {MAX_SPREAD}: {allowed}"
                ));
            }
            Ok(ArrivalArg::Spec(ArrivalSpec::Random { max_if, unit }))
        }
        Some(("late", rest)) => {
            let (fraction, delay) = rest.split_once(':').ok_or_else(|| allowed.clone())?;
            let fraction: f64 = fraction
                .parse()
                .ok()
                .filter(|f| (0.0..=1.0).contains(f))
                .ok_or_else(|| format!("FRACTION '{fraction}' is out of range: {allowed}"))?;
            let delay = spread(delay, "DELAY")?;
            Ok(ArrivalArg::Spec(ArrivalSpec::Late { fraction, delay }))
        }
        Some(("symnormal", sigma)) => sigma
            .parse()
            .ok()
            .filter(|&v| v <= ArrivalSpec::MAX_SYMMETRIC_SIGMA)
            .map(|sigma| ArrivalArg::Spec(ArrivalSpec::SymmetricNormal(sigma)))
            .ok_or_else(|| format!("SIGMA '{sigma}' is out of range: {allowed}")),
        Some((kind, value)) => {
            let spread = spread(value, "spread")?;
            match kind {
                "uniform" => Ok(ArrivalArg::Spec(ArrivalSpec::Uniform(spread))),
                "normal" => Ok(ArrivalArg::Spec(ArrivalSpec::Normal(spread))),
                _ => Err(allowed),
            }
        }
        None => Err(allowed),
    }
}

/// Parses `--crash-at RANK@TIME,...`: each rank crashes once; an empty item is an error.
pub(super) fn crash_list(s: &str) -> Result<CrashList, String> {
    let mut crashes: Vec<(Rank, Time)> = Vec::new();
    if s.trim().is_empty() {
        return Ok(CrashList(crashes));
    }
    for item in s.split(',').map(str::trim) {
        if item.is_empty() {
            return Err("empty item in the list (two commas, or one at an end)".into());
        }
        let parsed = item
            .split_once('@')
            .and_then(|(r, t)| Some((r.parse::<Rank>().ok()?, t.parse::<Time>().ok()?)));
        crashes.push(parsed.ok_or_else(|| format!("'{item}' is not RANK@TIME with integers"))?);
    }
    let mut sorted = crashes.clone();
    sorted.sort_unstable();
    if let Some(w) = sorted.windows(2).find(|w| w[0].0 == w[1].0) {
        let rank = w[0].0;
        return Err(format!(
            "rank {rank} crashes twice ({rank}@{} and {rank}@{}): a rank crashes once",
            w[0].1, w[1].1
        ));
    }
    Ok(CrashList(crashes))
}

/// Parsed `--crash-at`.
#[derive(Clone, Debug, Default)]
pub(super) struct CrashList(pub Vec<(Rank, Time)>);

/// Parses `--fault-rate`.
pub(super) fn rate(s: &str) -> Result<f64, String> {
    s.parse::<f64>()
        .ok()
        .filter(|r| (0.0..=1.0).contains(r))
        .ok_or_else(|| "expected a probability in 0.0..=1.0".to_string())
}

/// Which simulator runs the points.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub(super) enum Engine {
    /// The fast path for synchronized checked correction under dual-port LogP, the full
    /// simulator otherwise (identical metrics).
    Auto,
    /// The full simulator for every point.
    Full,
}
