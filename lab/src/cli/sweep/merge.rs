//! `ftcoll merge`: shard outputs back into exactly the bytes one unsharded sweep writes,
//! refusing a missing, repeated or incomplete shard (see [`super::output`]).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;

use super::output::{
    csv_header, line_of, missing_points, parse_output, shard_name, text_of, Fault, Header, Row,
};
use super::SweepFormat;
use crate::cli::{admission, CliError, UsageError};

/// `ftcoll merge`.
#[derive(Args, Debug)]
pub(crate) struct MergeArgs {
    /// Format of the shard files.
    #[arg(long, value_enum, default_value = "csv")]
    format: SweepFormat,
    /// Write here instead of stdout.
    #[arg(long)]
    output: Option<PathBuf>,
    /// Shard outputs of one sweep: every shard `0/N` to `N-1/N`, each complete, once.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
}

/// A shard output read back whole.
struct ShardFile<'a> {
    path: &'a Path,
    header: Header,
    rows: Vec<Row>,
}

/// Reads a complete shard output, refusing anything its sweep would not have written.
fn read_shard(path: &Path, format: SweepFormat) -> Result<ShardFile<'_>, UsageError> {
    let bytes = std::fs::read(path)
        .map_err(|e| UsageError(format!("inputs: cannot read {}: {e}", path.display())))?;
    let refuse = |f: Fault| f.in_file("inputs", path);
    if bytes.is_empty() {
        return Err(refuse(Fault::whole("empty file, not a sweep output")));
    }
    let text = text_of(&bytes).map_err(refuse)?;
    if !text.ends_with('\n') {
        return Err(refuse(Fault::at(
            line_of(&bytes, bytes.len()),
            "truncated: the last line has no newline \
             (an interrupted sweep: rerun it with --output on this file to finish it)",
        )));
    }
    let contents = parse_output(format, text).map_err(refuse)?;
    let Some(header) = contents.header else {
        return Err(refuse(Fault::whole("empty file, not a sweep output")));
    };
    if format == SweepFormat::Csv && !contents.csv_header {
        return Err(refuse(Fault::at(2, "the CSV header is missing")));
    }
    let (missing, first) = missing_points(&contents.rows, header.points, header.shard);
    if missing > 0 {
        let mut list: Vec<String> = first.iter().map(u64::to_string).collect();
        if missing > first.len() as u64 {
            list.push("…".into());
        }
        return Err(refuse(Fault::whole(format!(
            "incomplete {}: {missing} of its points missing (points {}); \
             rerun its sweep with --output on this file to finish it",
            shard_name(header.shard),
            list.join(", ")
        ))));
    }
    Ok(ShardFile {
        path,
        header,
        rows: contents.rows,
    })
}

/// `ftcoll merge`: checks that the inputs are every shard of one sweep, each complete and
/// intact, then writes the unsharded sweep's bytes: its identity, the header, the points in order.
pub(crate) fn merge(a: MergeArgs, out: &mut impl Write) -> Result<(), CliError> {
    // Writing over a shard would lose it: the output must be none of the inputs (compared as
    // files, so another spelling of the same path is caught too).
    if let Some(output) = &a.output {
        let same_file =
            |input: &PathBuf| match (std::fs::canonicalize(input), std::fs::canonicalize(output)) {
                (Ok(i), Ok(o)) => i == o,
                _ => input == output,
            };
        if let Some(input) = a.inputs.iter().find(|i| same_file(i)) {
            return Err(UsageError(format!(
                "--output: {} is one of the inputs; write the merged output to another file",
                input.display()
            ))
            .into());
        }
    }
    // Admission: every shard is held with its parsed rows and the merged output (about three
    // times the bytes of the inputs), so their sizes decide before anything is read.
    let bytes: u64 = a
        .inputs
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .fold(0, u64::saturating_add);
    admission::admit(
        "inputs",
        &format!("merging {} of shard outputs", admission::human(bytes)),
        admission::BASELINE_BYTES.saturating_add(bytes.saturating_mul(3)),
    )?;
    let shards = a
        .inputs
        .iter()
        .map(|p| read_shard(p, a.format))
        .collect::<Result<Vec<_>, _>>()?;
    let Some(first) = shards.first() else {
        return Err(UsageError("inputs: no shard outputs given".into()).into());
    };
    let count = first.header.shard.1;
    let mut given: BTreeMap<u64, &Path> = BTreeMap::new();
    for s in &shards {
        if let Some(d) = s.header.identity.difference(&first.header.identity) {
            return Err(UsageError(format!(
                "inputs: {} and {} are outputs of different sweeps ({d})",
                s.path.display(),
                first.path.display()
            ))
            .into());
        }
        if s.header.shard.1 != count {
            return Err(UsageError(format!(
                "inputs: {} holds {} but {} holds {} (shards of different sweeps)",
                s.path.display(),
                shard_name(s.header.shard),
                first.path.display(),
                shard_name(first.header.shard)
            ))
            .into());
        }
        if let Some(other) = given.insert(s.header.shard.0, s.path) {
            return Err(UsageError(format!(
                "inputs: {} repeats {} of {}",
                s.path.display(),
                shard_name(s.header.shard),
                other.display()
            ))
            .into());
        }
    }
    let missing: Vec<u64> = (0..count).filter(|k| !given.contains_key(k)).collect();
    if !missing.is_empty() {
        let mut names: Vec<String> = missing
            .iter()
            .take(5)
            .map(|k| format!("{k}/{count}"))
            .collect();
        if missing.len() > names.len() {
            names.push(format!("… ({} in all)", missing.len()));
        }
        return Err(UsageError(format!(
            "inputs: shard {} missing (given {} of {count} shards)",
            names.join(", "),
            given.len()
        ))
        .into());
    }
    let mut rows: Vec<&Row> = shards.iter().flat_map(|s| &s.rows).collect();
    // Shards own disjoint points, so the order is total.
    rows.sort_unstable_by_key(|r| r.point);
    let mut identity = first.header.identity.clone();
    identity.shard = None;
    let mut text = identity.line(a.format);
    text.push('\n');
    if a.format == SweepFormat::Csv {
        text.push_str(&csv_header(first.header.schema()));
        text.push('\n');
    }
    for r in rows {
        text.push_str(&r.line);
        text.push('\n');
    }
    match &a.output {
        Some(p) => std::fs::write(p, text)
            .map_err(|e| UsageError(format!("--output: cannot write {}: {e}", p.display())))?,
        None => out.write_all(text.as_bytes())?,
    }
    Ok(())
}
