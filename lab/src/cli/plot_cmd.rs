//! `ftcoll plot`: a line chart (SVG, the same plotting as `reproduce`) of two numeric columns of a
//! CSV file, one line per value of a third column (docs/performance.md's scaling figure).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use crate::cli::reproduce_cmd::chart;
use crate::cli::{CliError, UsageError};
use crate::experiment::ChartSeries;

/// `ftcoll plot`.
#[derive(Args, Debug)]
pub(super) struct PlotArgs {
    /// The CSV file (a header row, then one row per point).
    input: PathBuf,
    /// The column of x values (numbers).
    #[arg(long)]
    x: String,
    /// The column of y values (numbers).
    #[arg(long)]
    y: String,
    /// The column naming each point's line (default: one line, named after the y column).
    #[arg(long)]
    series: Option<String>,
    /// Logarithmic x axis.
    #[arg(long)]
    log_x: bool,
    /// Logarithmic y axis.
    #[arg(long)]
    log_y: bool,
    /// Title (default: "Y against X").
    #[arg(long)]
    title: Option<String>,
    /// X axis label (default: the column's name).
    #[arg(long)]
    x_label: Option<String>,
    /// Y axis label (default: the column's name).
    #[arg(long)]
    y_label: Option<String>,
    /// The SVG file to write.
    #[arg(long)]
    output: PathBuf,
}

/// Reads the CSV and draws the chart: lines in the order their names first appear, points in
/// file order; a point with a value `<= 0` on a logarithmic axis is left out (and counted).
/// The largest magnitude a plotted value may have (the axes pad their range).
const MAX_MAGNITUDE: f64 = 1e307;

pub(super) fn plot(a: PlotArgs, out: &mut impl Write) -> Result<(), CliError> {
    let input = a.input.display().to_string();
    // `#` lines are comments: `sweep` and `merge` start their CSV with the sweep's identity.
    let mut reader = csv::ReaderBuilder::new()
        .comment(Some(b'#'))
        .from_path(&a.input)
        .map_err(|e| UsageError(format!("input: cannot read {input}: {e}")))?;
    let header = reader
        .headers()
        .map_err(|e| UsageError(format!("input: {input}: {e}")))?
        .clone();
    let column = |flag: &str, name: &str| {
        header.iter().position(|h| h == name).ok_or_else(|| {
            UsageError(format!(
                "{flag}: no column '{name}' in {input} (columns: {})",
                header.iter().collect::<Vec<_>>().join(", ")
            ))
        })
    };
    let (x, y) = (column("--x", &a.x)?, column("--y", &a.y)?);
    let series = a
        .series
        .as_deref()
        .map(|s| column("--series", s))
        .transpose()?;
    let mut order: Vec<String> = Vec::new();
    let mut points: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    let mut skipped = 0u64;
    let mut rows = 0u64;
    for record in reader.records() {
        let record = record.map_err(|e| UsageError(format!("input: {input}: {e}")))?;
        rows += 1;
        let line = record.position().map_or(0, |p| p.line());
        let number = |c: usize, flag: &str| -> Result<f64, UsageError> {
            let cell = record.get(c).unwrap_or("");
            let value = cell
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| {
                    UsageError(format!(
                        "{flag}: '{cell}' on line {line} of {input} is not a number"
                    ))
                })?;
            // The axis pads its range by 30 %, which must stay finite.
            if value.abs() > MAX_MAGNITUDE {
                return Err(UsageError(format!(
                    "{flag}: {cell} on line {line} of {input} is out of range: allowed -1e307..=1e307"
                )));
            }
            Ok(value)
        };
        let point = (number(x, "--x")?, number(y, "--y")?);
        if (a.log_x && point.0 <= 0.0) || (a.log_y && point.1 <= 0.0) {
            // A log axis has no place for it (a time measured as 0.00 s).
            skipped += 1;
            continue;
        }
        let name = match series {
            Some(c) => record.get(c).unwrap_or("").to_string(),
            None => a.y.clone(),
        };
        if !points.contains_key(&name) {
            order.push(name.clone());
        }
        points.entry(name).or_default().push(point);
    }
    if rows == 0 {
        return Err(UsageError(format!(
            "input: {input} has a header and no rows: nothing to plot"
        ))
        .into());
    }
    if points.is_empty() {
        let axis = if a.log_x { "--log-x" } else { "--log-y" };
        return Err(UsageError(format!(
            "{axis}: all {skipped} points of {input} have a value <= 0 on a logarithmic axis"
        ))
        .into());
    }
    let lines: Vec<ChartSeries> = order
        .into_iter()
        .map(|name| {
            let p = points.remove(&name).unwrap_or_default();
            ChartSeries::line(name, p)
        })
        .collect();
    let title = a
        .title
        .unwrap_or_else(|| format!("{} against {}", a.y, a.x));
    chart(
        &a.output,
        &title,
        a.x_label.as_deref().unwrap_or(&a.x),
        a.y_label.as_deref().unwrap_or(&a.y),
        &lines,
        a.log_x,
        a.log_y,
    )?;
    writeln!(out, "wrote {}", a.output.display())?;
    if skipped > 0 {
        // A warning, not output: stdout says what was written.
        eprintln!("left out {skipped} points with a value <= 0 on a logarithmic axis");
    }
    Ok(())
}
