//! Reading a sweep's output back, for resuming and `merge`: the identity line, then every row,
//! parsed with `serde_json` and `csv` and checked against what a sweep of that identity
//! writes byte for byte; anything else is a [`Fault`] naming the line.

use std::collections::BTreeMap;
use std::path::Path;

use crate::experiment::STATISTICS;
use serde::Deserialize;

use super::{
    csv_header, render, Family, Identity, JsonIdentity, Schema, CSV_IDENTITY, FORMAT_VERSION,
};
use crate::cli::sweep::{shard, Grid, SweepFormat, MAX_RUNS};
use crate::cli::UsageError;

/// An output's identity line, checked: its grid and the shard it runs (`0/1` when unsharded).
pub(in crate::cli::sweep) struct Header {
    /// As read (its grid, runs and seed checked to be a sweep's).
    pub(in crate::cli::sweep) identity: Identity,
    grid: Grid,
    /// Points in the grid.
    pub(in crate::cli::sweep) points: u64,
    /// `(I, N)`: the output holds the points `I mod N`.
    pub(in crate::cli::sweep) shard: (u64, u64),
}

impl Header {
    /// The columns of the output's rows.
    pub(in crate::cli::sweep) fn schema(&self) -> &'static Schema {
        self.grid.schema()
    }
}

/// Why line 1 is not an identity line of `format`.
fn not_identity(format: SweepFormat, line: &str) -> String {
    if format == SweepFormat::Json && line.starts_with(CSV_IDENTITY) {
        "a CSV sweep output, not JSON lines (use --format csv)".into()
    } else if format == SweepFormat::Csv && line.starts_with("{\"ftcoll_sweep\"") {
        "a JSON-lines sweep output, not CSV (use --format json)".into()
    } else if line == csv_header(Schema::ct())
        || line == csv_header(Schema::ftco())
        || line == csv_header(Schema::cg())
        || line.starts_with("{\"point\":")
    {
        "a sweep output without identity line (an older ftcoll's format), which cannot be checked"
            .into()
    } else {
        let expected = match format {
            SweepFormat::Csv => "'# ftcoll-sweep {…}'",
            SweepFormat::Json => "'{\"ftcoll_sweep\":{…}}'",
        };
        format!("not a sweep output (the first line is not the identity {expected})")
    }
}

/// Parses and checks an identity line.
fn parse_identity(format: SweepFormat, line: &str) -> Result<Header, String> {
    let text = match format {
        SweepFormat::Csv => line
            .strip_prefix(CSV_IDENTITY)
            .ok_or_else(|| not_identity(format, line))?,
        SweepFormat::Json => line,
    };
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| match format {
        // Past the CSV prefix the line claims to be an identity.
        SweepFormat::Csv => format!("identity: invalid JSON: {e}"),
        SweepFormat::Json => not_identity(format, line),
    })?;
    let object = match format {
        SweepFormat::Csv => &value,
        SweepFormat::Json => value
            .get("ftcoll_sweep")
            .ok_or_else(|| not_identity(format, line))?,
    };
    // The version first, so a future format is named as such rather than as a bad field.
    let version = object.get("version").and_then(serde_json::Value::as_u64);
    match version {
        Some(FORMAT_VERSION) => {}
        Some(v) => {
            return Err(format!(
                "sweep output format version {v}; this ftcoll reads version {FORMAT_VERSION}"
            ))
        }
        None => return Err("identity without a version".into()),
    }
    let identity: Identity = match format {
        SweepFormat::Csv => serde_json::from_value(value),
        SweepFormat::Json => serde_json::from_value::<JsonIdentity>(value).map(|j| j.ftcoll_sweep),
    }
    .map_err(|e| format!("identity: {e}"))?;
    if identity.line(format) != line {
        return Err("identity is not as sweep writes it".into());
    }
    let grid = Grid::from_text(&identity.grid).map_err(|e| format!("identity: {e}"))?;
    let points = grid
        .len()
        .ok_or("identity: the grid has more than 2^64 - 1 points")?;
    if !(1..=MAX_RUNS).contains(&identity.runs) {
        return Err(format!(
            "identity: runs {} not in 1..={MAX_RUNS}",
            identity.runs
        ));
    }
    let shard = match &identity.shard {
        None => (0, 1),
        Some(s) => {
            let (i, n) = shard(s).map_err(|e| format!("identity: shard '{s}': {e}"))?;
            if format!("{i}/{n}") != *s {
                return Err(format!("identity: shard '{s}' is not as sweep writes it"));
            }
            (i, n)
        }
    };
    Ok(Header {
        identity,
        grid,
        points,
        shard,
    })
}

/// A JSON-lines row as sweep writes it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonRow {
    point: u64,
    procs: u64,
    tree: String,
    order: String,
    correction: String,
    start: String,
    model: String,
    #[serde(rename = "L")]
    latency: u64,
    #[serde(rename = "o")]
    overhead: u64,
    first_side: String,
    faults: String,
    runs: u64,
    seed: u64,
    deadline: u64,
    metrics: BTreeMap<String, BTreeMap<String, serde_json::Number>>,
}

/// An FTCO JSON-lines row as sweep writes it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FtcoJsonRow {
    point: u64,
    procs: u64,
    collective: String,
    topology: String,
    roots: String,
    service: String,
    #[serde(rename = "L")]
    latency: u64,
    faults: String,
    crashes: String,
    arrival: String,
    imbalance: String,
    runs: u64,
    seed: u64,
    tree: String,
    root_count: u64,
    fault_free_latency: u64,
    metrics: BTreeMap<String, BTreeMap<String, serde_json::Number>>,
}

/// A Corrected Gossip JSON-lines row as sweep writes it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CgJsonRow {
    point: u64,
    procs: u64,
    gossip: String,
    #[serde(rename = "L")]
    latency: u64,
    #[serde(rename = "o")]
    overhead: u64,
    gossip_time: String,
    correction_time: String,
    delta: String,
    faults: String,
    runs: u64,
    seed: u64,
    #[serde(rename = "T")]
    t: u64,
    #[serde(rename = "C")]
    c: u64,
    metrics: BTreeMap<String, BTreeMap<String, serde_json::Number>>,
}

/// The statistics cells of a JSON row's metrics, in CSV column order.
fn json_stats(
    schema: &Schema,
    metrics: &BTreeMap<String, BTreeMap<String, serde_json::Number>>,
    cells: &mut Vec<String>,
) -> Result<(), String> {
    for m in schema.metrics {
        let decimal = schema.per_node.contains(m);
        for s in STATISTICS {
            let n = metrics
                .get(*m)
                .and_then(|stats| stats.get(s))
                .ok_or_else(|| format!("metrics.{m}.{s} is missing"))?;
            // Means and deviations (and every per-node statistic) are written with 4 decimals,
            // the rest as integers; a value of the wrong kind then fails the cell checks.
            cells.push(match (decimal || matches!(s, "mean" | "std"), n.as_f64()) {
                (true, Some(x)) => format!("{x:.4}"),
                _ => n.to_string(),
            });
        }
    }
    Ok(())
}

/// The cells of a JSON-lines row, in CSV column order.
fn json_cells(schema: &Schema, line: &str) -> Result<Vec<String>, String> {
    if schema.family == Family::Cg {
        let row: CgJsonRow = serde_json::from_str(line).map_err(|e| format!("invalid row: {e}"))?;
        let mut cells = vec![
            row.point.to_string(),
            row.procs.to_string(),
            row.gossip,
            row.latency.to_string(),
            row.overhead.to_string(),
            row.gossip_time,
            row.correction_time,
            row.delta,
            row.faults,
            row.runs.to_string(),
            row.seed.to_string(),
            row.t.to_string(),
            row.c.to_string(),
        ];
        json_stats(schema, &row.metrics, &mut cells)?;
        return Ok(cells);
    }
    if schema.family == Family::Ftco {
        let row: FtcoJsonRow =
            serde_json::from_str(line).map_err(|e| format!("invalid row: {e}"))?;
        let mut cells = vec![
            row.point.to_string(),
            row.procs.to_string(),
            row.collective,
            row.topology,
            row.roots,
            row.service,
            row.latency.to_string(),
            row.faults,
            row.crashes,
            row.arrival,
            row.imbalance,
            row.runs.to_string(),
            row.seed.to_string(),
            row.tree,
            row.root_count.to_string(),
            row.fault_free_latency.to_string(),
        ];
        json_stats(schema, &row.metrics, &mut cells)?;
        return Ok(cells);
    }
    let row: JsonRow = serde_json::from_str(line).map_err(|e| format!("invalid row: {e}"))?;
    let mut cells = vec![
        row.point.to_string(),
        row.procs.to_string(),
        row.tree,
        row.order,
        row.correction,
        row.start,
        row.model,
        row.latency.to_string(),
        row.overhead.to_string(),
        row.first_side,
        row.faults,
        row.runs.to_string(),
        row.seed.to_string(),
        row.deadline.to_string(),
    ];
    json_stats(schema, &row.metrics, &mut cells)?;
    Ok(cells)
}

/// The cells of a CSV row.
fn csv_cells(line: &str) -> Result<Vec<String>, String> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(line.as_bytes());
    let mut record = csv::StringRecord::new();
    match reader.read_record(&mut record) {
        Ok(true) => {}
        Ok(false) => return Err("empty line".into()),
        Err(e) => return Err(format!("invalid CSV: {e}")),
    }
    // A carriage return would end a record inside our line.
    if !matches!(reader.read_record(&mut csv::StringRecord::new()), Ok(false)) {
        return Err("invalid CSV: more than one record on the line".into());
    }
    Ok(record.iter().map(str::to_string).collect())
}

/// An integer cell, spelled as sweep spells it.
fn integer_cell(column: &str, cell: &str) -> Result<u64, String> {
    match cell.parse::<u64>() {
        Ok(v) if v.to_string() == cell => Ok(v),
        _ => Err(format!(
            "{column} '{cell}' is not an integer as sweep writes it"
        )),
    }
}

/// A mean or standard deviation cell: a non-negative number with 4 decimals.
fn decimal_cell(column: &str, cell: &str) -> Result<f64, String> {
    match cell.parse::<f64>() {
        Ok(v) if v.is_finite() && v.is_sign_positive() && format!("{v:.4}") == cell => Ok(v),
        _ => Err(format!(
            "{column} '{cell}' is not a non-negative number with 4 decimals"
        )),
    }
}

/// A row read back from an output.
pub(in crate::cli::sweep) struct Row {
    /// Line number in the file.
    pub(in crate::cli::sweep) number: usize,
    /// Point index.
    pub(in crate::cli::sweep) point: u64,
    /// The derived cells ([`Schema::derived`]; CT: the deadline), functions of the point that
    /// only a prepared point knows.
    pub(in crate::cli::sweep) derived: Vec<String>,
    /// The line as read, without the newline.
    pub(in crate::cli::sweep) line: String,
}

/// Parses a row and checks it against the identity: the point is in the grid and the shard,
/// the parameters are that point's, every statistic is of its type (percentiles in order), and
/// the line is byte for byte what sweep writes for these cells.
fn parse_row(format: SweepFormat, line: &str, h: &Header) -> Result<(u64, Vec<String>), String> {
    if line.is_empty() {
        return Err("empty line".into());
    }
    let schema = h.schema();
    let cells = match format {
        SweepFormat::Csv => csv_cells(line)?,
        SweepFormat::Json => json_cells(schema, line)?,
    };
    let expected_cells = schema.cells();
    if cells.len() != expected_cells {
        return Err(format!(
            "{} cells where rows have {expected_cells} (a cut or corrupted row)",
            cells.len()
        ));
    }
    let point = integer_cell("point", &cells[0])?;
    if point >= h.points {
        return Err(format!(
            "point {point} is outside the grid of {} points",
            h.points
        ));
    }
    let (i, n) = h.shard;
    if point % n != i {
        return Err(format!("point {point} does not belong to shard {i}/{n}"));
    }
    let g = schema.grid_cells;
    let expected = h.grid.point_cells(point);
    for ((column, cell), want) in schema.parameters[1..=g]
        .iter()
        .zip(&cells[1..=g])
        .zip(&expected)
    {
        if cell != want {
            return Err(format!(
                "{column} is '{cell}' but point {point} of the grid has {column} '{want}'"
            ));
        }
    }
    for (k, want) in [(g + 1, h.identity.runs), (g + 2, h.identity.seed)] {
        let column = schema.parameters[k];
        if integer_cell(column, &cells[k])? != want {
            return Err(format!(
                "{column} is '{}' but the sweep has {column} {want}",
                cells[k]
            ));
        }
    }
    let mut derived = Vec::new();
    for (k, column) in schema.derived().iter().enumerate() {
        let cell = &cells[g + 3 + k];
        if schema.numeric.contains(column) {
            integer_cell(column, cell)?;
        } else if cell.is_empty() {
            return Err(format!("{column} is empty"));
        }
        derived.push(cell.clone());
    }
    let stats = &cells[schema.parameters.len()..];
    for (m, cells) in schema.metrics.iter().zip(stats.chunks(STATISTICS.len())) {
        if schema.per_node.contains(m) {
            // Every statistic a decimal; the percentiles in order, the mean at most the max.
            let mut previous: Option<(String, f64)> = None;
            let mut mean = 0.0;
            for (s, cell) in STATISTICS.iter().zip(cells) {
                let column = format!("{m}_{s}");
                let v = decimal_cell(&column, cell)?;
                match *s {
                    "mean" => mean = v,
                    "std" => {}
                    _ => {
                        if let Some((p, pv)) = &previous {
                            if v < *pv {
                                return Err(format!("{column} {v:.4} is below {p} {pv:.4}"));
                            }
                        }
                        previous = Some((column, v));
                    }
                }
            }
            if let Some((column, max)) = previous {
                if mean > max + 1e-4 {
                    return Err(format!("{m}_mean {mean:.4} is above {column} {max:.4}"));
                }
            }
            continue;
        }
        let mut decimals: Vec<(String, f64)> = Vec::new();
        let mut below: Option<(String, u64)> = None;
        for (s, cell) in STATISTICS.iter().zip(cells) {
            let column = format!("{m}_{s}");
            if matches!(*s, "mean" | "std") {
                decimals.push((column.clone(), decimal_cell(&column, cell)?));
                continue;
            }
            let v = integer_cell(&column, cell)?;
            if let Some((previous, p)) = &below {
                if v < *p {
                    return Err(format!("{column} {v} is below {previous} {p}"));
                }
            }
            below = Some((column, v));
        }
        // Values lie in 0..=max, so the mean and the sample deviation do too (the slack covers
        // rounding to 4 decimals of large sums).
        if let Some((column, max)) = below {
            for (d, v) in decimals {
                if v > max as f64 * (1.0 + 1e-12) + 1e-4 {
                    return Err(format!("{d} {v:.4} is above {column} {max}"));
                }
            }
        }
    }
    if render(format, schema, &cells).ok().as_deref() != Some(line) {
        return Err("the row is not as sweep writes it (reformatted?)".into());
    }
    Ok((point, derived))
}

/// Where in a file something is wrong, and what.
pub(in crate::cli::sweep) struct Fault {
    line: Option<usize>,
    message: String,
}

impl Fault {
    /// Something wrong on line `line`.
    pub(in crate::cli::sweep) fn at(line: usize, message: impl Into<String>) -> Self {
        Self {
            line: Some(line),
            message: message.into(),
        }
    }

    /// Something wrong with the file as a whole.
    pub(in crate::cli::sweep) fn whole(message: impl Into<String>) -> Self {
        Self {
            line: None,
            message: message.into(),
        }
    }

    /// The one-line error: `flag: FILE line N: message`.
    pub(in crate::cli::sweep) fn in_file(self, flag: &str, path: &Path) -> UsageError {
        match self.line {
            Some(n) => UsageError(format!(
                "{flag}: {} line {n}: {}",
                path.display(),
                self.message
            )),
            None => UsageError(format!("{flag}: {}: {}", path.display(), self.message)),
        }
    }
}

/// The 1-based number of the line holding byte `offset`.
pub(in crate::cli::sweep) fn line_of(bytes: &[u8], offset: usize) -> usize {
    bytes[..offset.min(bytes.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The bytes as text, refusing binary files.
pub(in crate::cli::sweep) fn text_of(bytes: &[u8]) -> Result<&str, Fault> {
    if let Some(k) = bytes.iter().position(|&b| b == 0) {
        return Err(Fault::at(line_of(bytes, k), "a NUL byte: not a text file"));
    }
    std::str::from_utf8(bytes).map_err(|e| {
        Fault::at(
            line_of(bytes, e.valid_up_to()),
            "not UTF-8 text (a binary file?)",
        )
    })
}

/// An output read back.
#[derive(Default)]
pub(in crate::cli::sweep) struct Contents {
    /// The identity line, `None` when the text is empty.
    pub(in crate::cli::sweep) header: Option<Header>,
    /// Whether the CSV header line is present.
    pub(in crate::cli::sweep) csv_header: bool,
    /// The rows, checked, with increasing points.
    pub(in crate::cli::sweep) rows: Vec<Row>,
}

/// Parses complete lines (`text` is empty or ends with a newline) of an output.
pub(in crate::cli::sweep) fn parse_output(
    format: SweepFormat,
    text: &str,
) -> Result<Contents, Fault> {
    let mut lines = text.split_terminator('\n').zip(1..);
    let Some((first, _)) = lines.next() else {
        return Ok(Contents::default());
    };
    let header = parse_identity(format, first).map_err(|e| Fault::at(1, e))?;
    let mut contents = Contents::default();
    for (line, number) in lines {
        if format == SweepFormat::Csv && number == 2 {
            if line != csv_header(header.schema()) {
                return Err(Fault::at(2, "not the CSV header of this version's sweeps"));
            }
            contents.csv_header = true;
            continue;
        }
        let (point, derived) =
            parse_row(format, line, &header).map_err(|e| Fault::at(number, e))?;
        if let Some(previous) = contents.rows.last() {
            if point <= previous.point {
                return Err(Fault::at(
                    number,
                    format!(
                        "point {point} after point {} (repeated or out of order)",
                        previous.point
                    ),
                ));
            }
        }
        contents.rows.push(Row {
            number,
            point,
            derived,
            line: line.to_string(),
        });
    }
    contents.header = Some(header);
    Ok(contents)
}

/// The points `i, i + n, …` below `points` that `rows` (increasing, all in the shard) lacks:
/// their number and the first few.
pub(in crate::cli::sweep) fn missing_points(
    rows: &[Row],
    points: u64,
    (i, n): (u64, u64),
) -> (u64, Vec<u64>) {
    let owned = if points > i {
        (points - 1 - i) / n + 1
    } else {
        0
    };
    let missing = owned.saturating_sub(rows.len() as u64);
    let mut first = Vec::new();
    let mut have = rows.iter().map(|r| r.point).peekable();
    let mut p = i;
    while p < points && (first.len() as u64) < missing.min(5) {
        if have.peek() == Some(&p) {
            have.next();
        } else {
            first.push(p);
        }
        p += n;
    }
    (missing, first)
}
