//! The output format of sweeps (version 2), and reading outputs back for resuming and `merge`
//! (module `read`).
//!
//! The first line is the sweep's *identity*, one JSON object `I` written by `serde_json`:
//!
//! ```text
//! {"version":2,"grid":{"procs":[64,300],"tree":["lame:2","binomial"],"order":["interleaved"],
//!  "correction":["checked"],"start":["sync"],"model":["dual"],"L":[2],"o":[1],
//!  "first_side":["left"],"faults":["count:0","count:3"]},"runs":12,"seed":7,"shard":"1/3"}
//! ```
//!
//! (on one line): every listed value of every axis in the order given, the runs, the seed and
//! the shard `I/N` (`null` for an unsharded sweep). An FTCO sweep's grid has FTCO's axes
//! instead (`"collective"` tells them apart):
//!
//! ```text
//! {"version":2,"grid":{"procs":[65536],"collective":["allreduce"],"topology":["knomial:best"],
//!  "roots":["k"],"service":["none"],"L":[10],"faults":["count:0","count:10"],
//!  "crashes":["none"],"arrival":["none"],"imbalance":["off"]},"runs":100,"seed":1,"shard":null}
//! ```
//!
//! A Corrected Gossip sweep's grid has the gossip axes (`"gossip"` tells them apart):
//!
//! ```text
//! {"version":2,"grid":{"procs":[4096],"gossip":["ocg","fcg:1"],"L":[2],"o":[1],
//!  "gossip_time":["auto"],"correction_time":["auto"],"delta":["6.9315e-7"],
//!  "faults":["count:0","count:3"]},"runs":1000,"seed":1,"shard":null}
//! ```
//!
//! The rows' columns ([`Schema`]): the point's index, its parameters, `runs`, `seed`, the cells
//! the point derives (CT: `deadline`; FTCO: `tree`, `root_count`, `fault_free_latency`;
//! Corrected Gossip: `T` and `C` as run), then
//! `METRIC_STAT` for every metric and statistic. The engine and thread count are left out:
//! they do not change a byte. CSV output is `# ftcoll-sweep I`, then the header, then one row
//! per point (pandas: `read_csv(f, comment='#')`); JSON-lines output is `{"ftcoll_sweep":I}`,
//! then one object per point.
//!
//! Resuming (`--output FILE` again) and `merge` parse every line back with `serde_json` and
//! `csv`, and refuse (exit 2, one line naming the file and line) anything a sweep of that
//! identity would not have written byte for byte: a different identity, a cut or corrupted
//! line, a point outside the grid or the shard, parameters that are not the grid's point, and,
//! for `merge`, a missing, repeated or incomplete shard.

use crate::ct_metrics::CtMetrics;
use crate::experiment::{Faults, Point, Prepared, STATISTICS};
use ftcoll::protocols::corrected_tree::{CorrectionSpec, StartMode};
use ftcoll::protocols::Side;
use ftcoll::topology::{Order, TreeKind};
use ftcoll_sim::PortModel;
use serde::{Deserialize, Serialize};

use super::ftco::{arrival_name, FtcoGrid, ALL_METRICS, PER_NODE};
use super::gossip::{self, delta_name, CgGrid};
use super::{count_item, model_item, side_item, start_item, CtGrid, Grid, SweepFormat};
use crate::cli::args;
use crate::cli::flags::ftco::collective_name;
use crate::cli::output::{csv_line, json_line, JsonCell, JsonObject};

mod read;

pub(super) use read::{line_of, missing_points, parse_output, text_of, Fault, Header, Row};

/// The version of the output format, in every identity line.
const FORMAT_VERSION: u64 = 2;

/// A grid as its identity spells it: the cells a point's row shows, numbers as numbers.
#[derive(Clone, Debug, PartialEq)]
enum GridText {
    /// Corrected Tree axes.
    Ct(CtGridText),
    /// FTCO axes (the only ones with `collective`).
    Ftco(FtcoGridText),
    /// Corrected Gossip axes (the only ones with `gossip`).
    Cg(CgGridText),
}

impl Serialize for GridText {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Ct(g) => g.serialize(s),
            Self::Ftco(g) => g.serialize(s),
            Self::Cg(g) => g.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for GridText {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let value = serde_json::Value::deserialize(d)?;
        if value.get("gossip").is_some() {
            serde_json::from_value(value)
                .map(Self::Cg)
                .map_err(D::Error::custom)
        } else if value.get("collective").is_some() {
            serde_json::from_value(value)
                .map(Self::Ftco)
                .map_err(D::Error::custom)
        } else {
            serde_json::from_value(value)
                .map(Self::Ct)
                .map_err(D::Error::custom)
        }
    }
}

/// An FTCO grid as its identity spells it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FtcoGridText {
    procs: Vec<u64>,
    collective: Vec<String>,
    topology: Vec<String>,
    roots: Vec<String>,
    service: Vec<String>,
    #[serde(rename = "L")]
    latency: Vec<u64>,
    faults: Vec<String>,
    crashes: Vec<String>,
    arrival: Vec<String>,
    imbalance: Vec<String>,
}

/// A Corrected Gossip grid as its identity spells it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CgGridText {
    procs: Vec<u64>,
    gossip: Vec<String>,
    #[serde(rename = "L")]
    latency: Vec<u64>,
    #[serde(rename = "o")]
    overhead: Vec<u64>,
    gossip_time: Vec<String>,
    correction_time: Vec<String>,
    delta: Vec<String>,
    faults: Vec<String>,
}

/// A Corrected Tree grid as its identity spells it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CtGridText {
    procs: Vec<u64>,
    tree: Vec<String>,
    order: Vec<String>,
    correction: Vec<String>,
    start: Vec<String>,
    model: Vec<String>,
    #[serde(rename = "L")]
    latency: Vec<u64>,
    #[serde(rename = "o")]
    overhead: Vec<u64>,
    first_side: Vec<String>,
    faults: Vec<String>,
}

/// What makes two sweep outputs parts of one sweep (everything but `shard`), and the shard.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Identity {
    version: u64,
    grid: GridText,
    runs: u64,
    seed: u64,
    /// `I/N`, or `None` for an unsharded sweep (and a merge).
    pub(super) shard: Option<String>,
}

/// The identity line of JSON-lines outputs.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonIdentity {
    ftcoll_sweep: Identity,
}

/// The prefix of the identity line of CSV outputs (a comment for CSV readers).
const CSV_IDENTITY: &str = "# ftcoll-sweep ";

fn faults_item(s: &str) -> Result<Faults, String> {
    match s.split_once(':') {
        None if s == "none" => Ok(Faults::None),
        Some(("count", n)) => count_item(n).map(Faults::Count),
        Some(("rate", r)) => crate::cli::flags::rate(r).map(Faults::Rate),
        Some(("fraction", f)) => crate::cli::flags::rate(f).map(Faults::Fraction),
        _ => Err("expected none, count:N, rate:R or fraction:F".into()),
    }
}

/// A procs axis as its identity spells it: identities keep `u64`, so that a count beyond `u32`
/// read back is refused by `--procs`' own parser with its message.
fn wide(procs: &[u32]) -> Vec<u64> {
    procs.iter().map(|&p| u64::from(p)).collect()
}

/// One axis of an identity's grid, parsed and checked to be spelled as sweep spells it.
fn axis<T: PartialEq>(
    name: &str,
    texts: &[String],
    parse: impl Fn(&str) -> Result<T, String>,
    show: impl Fn(&T) -> String,
) -> Result<Vec<T>, String> {
    if texts.is_empty() {
        return Err(format!("grid axis {name} is empty"));
    }
    let mut values: Vec<T> = Vec::new();
    for text in texts {
        let v = parse(text).map_err(|e| format!("grid axis {name}: '{text}': {e}"))?;
        if show(&v) != *text {
            return Err(format!(
                "grid axis {name}: '{text}' is not as sweep writes it"
            ));
        }
        if values.contains(&v) {
            return Err(format!("grid axis {name}: '{text}' is listed twice"));
        }
        values.push(v);
    }
    Ok(values)
}

fn numbers(v: &[u64]) -> Vec<String> {
    v.iter().map(u64::to_string).collect()
}

/// The fault axis of an identity, of one kind.
fn faults_axis(texts: &[String]) -> Result<Vec<Faults>, String> {
    let faults = axis("faults", texts, faults_item, Faults::to_string)?;
    if faults
        .iter()
        .any(|f| std::mem::discriminant(f) != std::mem::discriminant(&faults[0]))
    {
        return Err("grid axis faults mixes kinds of faults".into());
    }
    Ok(faults)
}

impl Grid {
    /// The grid an identity spells, refusing what the sweep arguments would refuse (and
    /// spellings sweep would not write), so every index below `len` is a valid point.
    fn from_text(t: &GridText) -> Result<Self, String> {
        match t {
            GridText::Ct(t) => CtGrid::from_text(t).map(Self::Ct),
            GridText::Ftco(t) => Ok(Self::Ftco(FtcoGrid {
                procs: axis("procs", &numbers(&t.procs), args::procs, u32::to_string)?,
                collective: axis(
                    "collective",
                    &t.collective,
                    crate::cli::flags::ftco::collective,
                    |c| collective_name(*c).into(),
                )?,
                topology: axis(
                    "topology",
                    &t.topology,
                    crate::cli::flags::ftco::topology,
                    ToString::to_string,
                )?,
                roots: axis(
                    "roots",
                    &t.roots,
                    crate::cli::flags::ftco::roots,
                    ToString::to_string,
                )?,
                service: axis(
                    "service",
                    &t.service,
                    crate::cli::flags::ftco::service,
                    ToString::to_string,
                )?,
                latency: axis("L", &numbers(&t.latency), args::latency, u64::to_string)?,
                faults: faults_axis(&t.faults)?,
                crashes: axis(
                    "crashes",
                    &t.crashes,
                    crate::cli::flags::ftco::random_crashes,
                    ToString::to_string,
                )?,
                arrival: axis(
                    "arrival",
                    &t.arrival,
                    crate::cli::flags::arrival,
                    arrival_name,
                )?,
                imbalance: axis(
                    "imbalance",
                    &t.imbalance,
                    crate::cli::flags::ftco::imbalance,
                    ToString::to_string,
                )?,
            })),
            GridText::Cg(t) => Ok(Self::Cg(CgGrid {
                procs: axis("procs", &numbers(&t.procs), args::procs, u32::to_string)?,
                gossip: axis(
                    "gossip",
                    &t.gossip,
                    crate::cli::flags::gossip::protocol,
                    ToString::to_string,
                )?,
                latency: axis("L", &numbers(&t.latency), args::latency, u64::to_string)?,
                overhead: axis("o", &numbers(&t.overhead), args::overhead, u64::to_string)?,
                gossip_time: axis(
                    "gossip_time",
                    &t.gossip_time,
                    crate::cli::flags::gossip::time_arg,
                    ToString::to_string,
                )?,
                correction_time: axis(
                    "correction_time",
                    &t.correction_time,
                    crate::cli::flags::gossip::time_arg,
                    ToString::to_string,
                )?,
                delta: axis(
                    "delta",
                    &t.delta,
                    crate::cli::flags::gossip::probability,
                    |d| delta_name(*d),
                )?,
                faults: faults_axis(&t.faults)?,
            })),
        }
    }

    /// The identity's spelling of the grid.
    fn text(&self) -> GridText {
        match self {
            Self::Ct(g) => GridText::Ct(g.text()),
            Self::Ftco(g) => GridText::Ftco(FtcoGridText {
                procs: wide(&g.procs),
                collective: g
                    .collective
                    .iter()
                    .map(|&c| collective_name(c).into())
                    .collect(),
                topology: g.topology.iter().map(ToString::to_string).collect(),
                roots: g.roots.iter().map(ToString::to_string).collect(),
                service: g.service.iter().map(ToString::to_string).collect(),
                latency: g.latency.clone(),
                faults: g.faults.iter().map(ToString::to_string).collect(),
                crashes: g.crashes.iter().map(ToString::to_string).collect(),
                arrival: g.arrival.iter().map(arrival_name).collect(),
                imbalance: g.imbalance.iter().map(ToString::to_string).collect(),
            }),
            Self::Cg(g) => GridText::Cg(CgGridText {
                procs: wide(&g.procs),
                gossip: g.gossip.iter().map(ToString::to_string).collect(),
                latency: g.latency.clone(),
                overhead: g.overhead.clone(),
                gossip_time: g.gossip_time.iter().map(ToString::to_string).collect(),
                correction_time: g.correction_time.iter().map(ToString::to_string).collect(),
                delta: g.delta.iter().map(|&d| delta_name(d)).collect(),
                faults: g.faults.iter().map(ToString::to_string).collect(),
            }),
        }
    }

    /// The columns of the grid's rows.
    pub(super) fn schema(&self) -> &'static Schema {
        match self {
            Self::Ct(_) => Schema::ct(),
            Self::Ftco(_) => Schema::ftco(),
            Self::Cg(_) => Schema::cg(),
        }
    }
}

impl CtGrid {
    /// The grid an identity spells.
    fn from_text(t: &CtGridText) -> Result<Self, String> {
        let faults = faults_axis(&t.faults)?;
        Ok(Self {
            procs: axis("procs", &numbers(&t.procs), args::procs, u32::to_string)?,
            tree: axis("tree", &t.tree, args::tree, TreeKind::to_string)?,
            order: axis("order", &t.order, args::order, Order::to_string)?,
            correction: axis(
                "correction",
                &t.correction,
                crate::cli::flags::correction,
                CorrectionSpec::to_string,
            )?,
            start: axis("start", &t.start, start_item, StartMode::to_string)?,
            model: axis("model", &t.model, model_item, |m| model_name(*m).into())?,
            latency: axis("L", &numbers(&t.latency), args::latency, u64::to_string)?,
            overhead: axis("o", &numbers(&t.overhead), args::overhead, u64::to_string)?,
            first_side: axis("first_side", &t.first_side, side_item, |s| {
                side_name(*s).into()
            })?,
            faults,
        })
    }

    /// The identity's spelling of the grid.
    fn text(&self) -> CtGridText {
        CtGridText {
            procs: wide(&self.procs),
            tree: self.tree.iter().map(ToString::to_string).collect(),
            order: self.order.iter().map(ToString::to_string).collect(),
            correction: self.correction.iter().map(ToString::to_string).collect(),
            start: self.start.iter().map(ToString::to_string).collect(),
            model: self.model.iter().map(|&m| model_name(m).into()).collect(),
            latency: self.latency.clone(),
            overhead: self.overhead.clone(),
            first_side: self
                .first_side
                .iter()
                .map(|&s| side_name(s).into())
                .collect(),
            faults: self.faults.iter().map(ToString::to_string).collect(),
        }
    }
}

const PARAMETERS: [&str; 14] = [
    "point",
    "procs",
    "tree",
    "order",
    "correction",
    "start",
    "model",
    "L",
    "o",
    "first_side",
    "faults",
    "runs",
    "seed",
    "deadline",
];

/// The parameter columns of FTCO rows.
const FTCO_PARAMETERS: [&str; 16] = [
    "point",
    "procs",
    "collective",
    "topology",
    "roots",
    "service",
    "L",
    "faults",
    "crashes",
    "arrival",
    "imbalance",
    "runs",
    "seed",
    "tree",
    "root_count",
    "fault_free_latency",
];

/// The parameter columns of Corrected Gossip rows.
const CG_PARAMETERS: [&str; 13] = [
    "point",
    "procs",
    "gossip",
    "L",
    "o",
    "gossip_time",
    "correction_time",
    "delta",
    "faults",
    "runs",
    "seed",
    "T",
    "C",
];

/// Which reader a schema's JSON rows need.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    Ct,
    Ftco,
    Cg,
}

/// The columns of a sweep's rows: `point`, the grid's cells, `runs`, `seed`, the derived
/// cells, then `METRIC_STAT` for every metric and statistic.
pub(super) struct Schema {
    /// The parameter columns.
    parameters: &'static [&'static str],
    /// How many of them after `point` the grid decides.
    grid_cells: usize,
    /// The parameter columns JSON writes as numbers.
    numeric: &'static [&'static str],
    /// The metrics, in order.
    metrics: &'static [&'static str],
    /// The metrics whose statistics are all decimals (per-node ratios).
    per_node: &'static [&'static str],
    /// The family, whose JSON rows have their own typed reader.
    family: Family,
}

static CT_SCHEMA: Schema = Schema {
    parameters: &PARAMETERS,
    grid_cells: 10,
    numeric: &["point", "procs", "L", "o", "runs", "seed", "deadline"],
    metrics: &CtMetrics::NAMES,
    per_node: &[],
    family: Family::Ct,
};

static FTCO_PER_NODE: [&str; 4] = [PER_NODE[0].0, PER_NODE[1].0, PER_NODE[2].0, PER_NODE[3].0];

static FTCO_SCHEMA: Schema = Schema {
    parameters: &FTCO_PARAMETERS,
    grid_cells: 10,
    numeric: &[
        "point",
        "procs",
        "L",
        "runs",
        "seed",
        "root_count",
        "fault_free_latency",
    ],
    metrics: &ALL_METRICS,
    per_node: &FTCO_PER_NODE,
    family: Family::Ftco,
};

static CG_SCHEMA: Schema = Schema {
    parameters: &CG_PARAMETERS,
    grid_cells: 8,
    numeric: &["point", "procs", "L", "o", "runs", "seed", "T", "C"],
    metrics: &gossip::ALL_METRICS,
    per_node: &[],
    family: Family::Cg,
};

impl Schema {
    /// Corrected Tree rows.
    pub(super) fn ct() -> &'static Self {
        &CT_SCHEMA
    }

    /// FTCO rows.
    pub(super) fn ftco() -> &'static Self {
        &FTCO_SCHEMA
    }

    /// Corrected Gossip rows.
    pub(super) fn cg() -> &'static Self {
        &CG_SCHEMA
    }

    /// The derived parameter columns (after `seed`).
    pub(super) fn derived(&self) -> &'static [&'static str] {
        &self.parameters[self.grid_cells + 3..]
    }

    /// Cells of a row: the parameters, then every statistic of every metric.
    fn cells(&self) -> usize {
        self.parameters.len() + self.metrics.len() * STATISTICS.len()
    }
}

fn side_name(s: Side) -> &'static str {
    match s {
        Side::Left => "left",
        Side::Right => "right",
    }
}

fn model_name(m: PortModel) -> &'static str {
    match m {
        PortModel::DualPort => "dual",
        PortModel::SinglePort => "single",
    }
}

/// The cells `procs` to `faults` of a point (what the grid decides).
pub(super) fn point_cells(p: &Point) -> [String; 10] {
    [
        p.procs.to_string(),
        p.tree.to_string(),
        p.order.to_string(),
        p.correction.to_string(),
        p.start.to_string(),
        model_name(p.model).into(),
        p.latency.to_string(),
        p.overhead.to_string(),
        side_name(p.first_side).into(),
        p.faults.to_string(),
    ]
}

/// The parameter cells of a point.
pub(super) fn parameters(
    index: usize,
    p: &Point,
    runs: u64,
    seed: u64,
    prepared: &Prepared,
) -> Vec<String> {
    let mut cells = vec![index.to_string()];
    cells.extend(point_cells(p));
    cells.extend([
        runs.to_string(),
        seed.to_string(),
        prepared.deadline().to_string(),
    ]);
    cells
}

/// The CSV header of sweeps of this schema (written by `csv`).
pub(super) fn csv_header(schema: &Schema) -> String {
    let mut cells: Vec<String> = schema.parameters.iter().map(|s| s.to_string()).collect();
    for m in schema.metrics {
        for s in STATISTICS {
            cells.push(format!("{m}_{s}"));
        }
    }
    csv_line(&cells).unwrap_or_default()
}

/// One output line (without the newline) from its [`Schema::cells`] cells: a CSV record written
/// by `csv`, or a JSON object written by `serde_json`. An error if a cell is not what its column
/// holds, e.g. a statistic that is not a number (never for cells a sweep computes; a line read
/// back that does not render to itself is rejected).
fn render(format: SweepFormat, schema: &Schema, cells: &[String]) -> std::io::Result<String> {
    match format {
        SweepFormat::Csv => csv_line(cells),
        SweepFormat::Json => {
            let (params, stats) = cells.split_at(schema.parameters.len().min(cells.len()));
            let mut fields: Vec<(&str, JsonCell<'_>)> = schema
                .parameters
                .iter()
                .zip(params)
                .map(|(&k, v)| {
                    if schema.numeric.contains(&k) {
                        (k, JsonCell::Num(v))
                    } else {
                        (k, JsonCell::Str(v))
                    }
                })
                .collect();
            let metrics = schema
                .metrics
                .iter()
                .zip(stats.chunks(STATISTICS.len()))
                .map(|(&m, s)| {
                    let stats = STATISTICS
                        .iter()
                        .zip(s)
                        .map(|(&k, v)| (k, JsonCell::Num(v)))
                        .collect();
                    (m, JsonCell::Object(JsonObject(stats)))
                })
                .collect();
            fields.push(("metrics", JsonCell::Object(JsonObject(metrics))));
            json_line(&JsonObject(fields))
        }
    }
}

/// One output line (without the newline): the parameter cells, then the statistics of every
/// metric; an error (never written as an empty line) if a cell does not fit its column.
pub(super) fn line(
    format: SweepFormat,
    schema: &Schema,
    params: &[String],
    summary: &[[String; 8]],
) -> std::io::Result<String> {
    let mut cells = params.to_vec();
    for s in summary {
        cells.extend(s.iter().cloned());
    }
    render(format, schema, &cells)
}

/// `serde_json` text of a value that always serializes (plain structs, strings and numbers).
fn json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

impl Identity {
    /// The identity of a sweep of `grid` (`shard` `None` when unsharded).
    pub(super) fn new(grid: &Grid, runs: u64, seed: u64, shard: Option<(u64, u64)>) -> Self {
        Self {
            version: FORMAT_VERSION,
            grid: grid.text(),
            runs,
            seed,
            shard: shard.map(|(i, n)| format!("{i}/{n}")),
        }
    }

    /// The first line of an output (without the newline).
    pub(super) fn line(&self, format: SweepFormat) -> String {
        match format {
            SweepFormat::Csv => format!("{CSV_IDENTITY}{}", json(self)),
            SweepFormat::Json => json(&JsonIdentity {
                ftcoll_sweep: self.clone(),
            }),
        }
    }

    /// The first difference between two identities other than the shard, as
    /// `what ours vs theirs`; `None` when they are shards of one sweep.
    pub(super) fn difference(&self, other: &Self) -> Option<String> {
        let (a, b) = match (&self.grid, &other.grid) {
            (GridText::Ct(a), GridText::Ct(b)) => (a, b),
            (GridText::Ftco(a), GridText::Ftco(b)) => {
                return [
                    ("version", json(&self.version), json(&other.version)),
                    ("procs", json(&a.procs), json(&b.procs)),
                    ("collective", json(&a.collective), json(&b.collective)),
                    ("topology", json(&a.topology), json(&b.topology)),
                    ("roots", json(&a.roots), json(&b.roots)),
                    ("service", json(&a.service), json(&b.service)),
                    ("L", json(&a.latency), json(&b.latency)),
                    ("faults", json(&a.faults), json(&b.faults)),
                    ("crashes", json(&a.crashes), json(&b.crashes)),
                    ("arrival", json(&a.arrival), json(&b.arrival)),
                    ("imbalance", json(&a.imbalance), json(&b.imbalance)),
                    ("runs", json(&self.runs), json(&other.runs)),
                    ("seed", json(&self.seed), json(&other.seed)),
                ]
                .into_iter()
                .find(|(_, x, y)| x != y)
                .map(|(what, x, y)| format!("{what} {x} vs {y}"));
            }
            (GridText::Cg(a), GridText::Cg(b)) => {
                return [
                    ("version", json(&self.version), json(&other.version)),
                    ("procs", json(&a.procs), json(&b.procs)),
                    ("gossip", json(&a.gossip), json(&b.gossip)),
                    ("L", json(&a.latency), json(&b.latency)),
                    ("o", json(&a.overhead), json(&b.overhead)),
                    ("gossip_time", json(&a.gossip_time), json(&b.gossip_time)),
                    (
                        "correction_time",
                        json(&a.correction_time),
                        json(&b.correction_time),
                    ),
                    ("delta", json(&a.delta), json(&b.delta)),
                    ("faults", json(&a.faults), json(&b.faults)),
                    ("runs", json(&self.runs), json(&other.runs)),
                    ("seed", json(&self.seed), json(&other.seed)),
                ]
                .into_iter()
                .find(|(_, x, y)| x != y)
                .map(|(what, x, y)| format!("{what} {x} vs {y}"));
            }
            (x, y) => return Some(format!("protocol {} vs {}", family_name(x), family_name(y))),
        };
        [
            ("version", json(&self.version), json(&other.version)),
            ("procs", json(&a.procs), json(&b.procs)),
            ("tree", json(&a.tree), json(&b.tree)),
            ("order", json(&a.order), json(&b.order)),
            ("correction", json(&a.correction), json(&b.correction)),
            ("start", json(&a.start), json(&b.start)),
            ("model", json(&a.model), json(&b.model)),
            ("L", json(&a.latency), json(&b.latency)),
            ("o", json(&a.overhead), json(&b.overhead)),
            ("first_side", json(&a.first_side), json(&b.first_side)),
            ("faults", json(&a.faults), json(&b.faults)),
            ("runs", json(&self.runs), json(&other.runs)),
            ("seed", json(&self.seed), json(&other.seed)),
        ]
        .into_iter()
        .find(|(_, x, y)| x != y)
        .map(|(what, x, y)| format!("{what} {x} vs {y}"))
    }
}

/// A grid's protocol family in messages.
fn family_name(g: &GridText) -> &'static str {
    match g {
        GridText::Ct(_) => "Corrected Tree",
        GridText::Ftco(_) => "FTCO",
        GridText::Cg(_) => "Corrected Gossip",
    }
}

/// A shard's name in messages.
pub(super) fn shard_name((i, n): (u64, u64)) -> String {
    if n == 1 {
        "the unsharded sweep".into()
    } else {
        format!("shard {i}/{n}")
    }
}
