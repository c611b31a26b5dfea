//! Running a sweep's pieces: a range of a Corrected Tree point's runs in parallel, admission
//! against the memory a point needs, and the output: resuming after the last complete line of
//! an existing file.

use std::cell::RefCell;
use std::io::{IsTerminal, Write};
use std::ops::Range;
use std::path::Path;

use crate::experiment::{Point, PointStats, Prepared};
use crate::fastpath::Workspace;
use rayon::prelude::*;

use super::output::{csv_header, parse_output, shard_name, text_of, Fault, Identity, Schema};
use super::{SweepArgs, SweepFormat};
use crate::cli::{admission, CliError, UsageError};

thread_local! {
    static WORKSPACE: RefCell<Workspace> = RefCell::new(Workspace::new());
}

/// Runs `runs` (run numbers of the seed's streams) of a prepared point in parallel; `progress`
/// is called with finished runs.
pub(super) fn run_point(
    prepared: &Prepared,
    seed: u64,
    runs: Range<u64>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<PointStats, String> {
    const CHUNK: u64 = 64;
    let chunks = (runs.end.saturating_sub(runs.start)).div_ceil(CHUNK);
    (0..chunks)
        .into_par_iter()
        .map(|c| {
            let mut stats = PointStats::default();
            let a = runs.start + c * CHUNK;
            let b = (a + CHUNK).min(runs.end);
            WORKSPACE.with(|ws| -> Result<(), String> {
                let mut ws = ws.borrow_mut();
                for run in a..b {
                    let m = prepared.run(seed, run, &mut ws).map_err(|e| e.0)?;
                    stats.add(&m);
                }
                Ok(())
            })?;
            progress(b - a);
            Ok(stats)
        })
        .try_reduce(PointStats::default, |mut x, y| {
            x.merge(&y);
            Ok(x)
        })
}

/// A progress bar on stderr, hidden when stderr is not a terminal.
pub(crate) fn progress_bar(total: u64, message: &str) -> indicatif::ProgressBar {
    let bar = if std::io::stderr().is_terminal() {
        indicatif::ProgressBar::with_draw_target(
            Some(total),
            indicatif::ProgressDrawTarget::stderr(),
        )
    } else {
        indicatif::ProgressBar::hidden()
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{msg} [{elapsed_precise}] {wide_bar} {pos}/{len} runs ({eta})",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.set_message(message.to_string());
    bar
}

/// What resuming an output file found: how many of this sweep's points it holds, and what of
/// the identity line and CSV header is still to be written.
struct Resume {
    done: usize,
    preamble: String,
}

/// Checks the complete lines of `path` against this sweep (identity, then its points in order)
/// and only then cuts a partial last line (an interrupted write).
fn resume(
    path: &Path,
    format: SweepFormat,
    identity: &Identity,
    schema: &Schema,
    derived: &[(usize, Vec<String>)],
) -> Result<Resume, CliError> {
    let csv_header_line = match format {
        SweepFormat::Csv => format!("{}\n", csv_header(schema)),
        SweepFormat::Json => String::new(),
    };
    let fresh = Resume {
        done: 0,
        preamble: format!("{}\n{csv_header_line}", identity.line(format)),
    };
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(fresh),
        Err(e) => {
            return Err(UsageError(format!("--output: cannot read {}: {e}", path.display())).into())
        }
    };
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |k| k + 1);
    let refuse = |f: Fault| -> CliError { f.in_file("--output", path).into() };
    let text = text_of(&bytes[..complete]).map_err(refuse)?;
    let contents = parse_output(format, text).map_err(refuse)?;
    let mut preamble = String::new();
    match &contents.header {
        None => preamble = fresh.preamble,
        Some(h) => {
            if let Some(d) = identity.difference(&h.identity) {
                return Err(refuse(Fault::whole(format!(
                    "holds a different sweep (this one vs the file's: {d}); choose another file"
                ))));
            }
            if h.identity.shard != identity.shard {
                return Err(refuse(Fault::whole(format!(
                    "holds {} and this is {}; choose another file",
                    shard_name(h.shard),
                    identity
                        .shard
                        .as_deref()
                        .map_or("the unsharded sweep".into(), |s| format!("shard {s}"))
                ))));
            }
            if format == SweepFormat::Csv && !contents.csv_header {
                preamble = csv_header_line;
            }
        }
    }
    // The shard's points in order: the file's rows must be the first of them.
    for (row, (i, want)) in contents.rows.iter().zip(derived) {
        if row.point != *i as u64 {
            return Err(refuse(Fault::at(
                row.number,
                format!("point {} where this sweep's next point is {i}", row.point),
            )));
        }
        // The cells a prepared point derives (CT: the deadline) must be this build's.
        for ((column, got), want) in schema.derived().iter().zip(&row.derived).zip(want) {
            if got != want {
                return Err(refuse(Fault::at(
                    row.number,
                    format!("{column} {got} but point {i} has {column} {want}"),
                )));
            }
        }
    }
    if contents.rows.len() > derived.len() {
        return Err(refuse(Fault::whole("holds more points than this sweep")));
    }
    if complete != bytes.len() {
        // An interrupted write: cut the partial line.
        let f = std::fs::OpenOptions::new().write(true).open(path)?;
        f.set_len(complete as u64)?;
    }
    Ok(Resume {
        done: contents.rows.len(),
        preamble,
    })
}

/// Bytes of bookkeeping per grid point (the point, its prepared configuration and tree).
pub(super) const POINT_BYTES: u64 = 512;

/// The memory one point's runs need on `threads` threads: the fast path's shared tables and a
/// workspace per thread ([`admission::fastpath_need`]), or a full simulator per thread.
pub(super) fn point_need(p: &Point, auto: bool, threads: u64) -> u64 {
    let procs = u64::from(p.procs);
    let per_proc = if auto && p.takes_fast_path() {
        admission::fastpath_bytes_per_proc(threads)
    } else {
        admission::DRIVER_BYTES_PER_PROC * threads
    };
    procs.saturating_mul(per_proc)
}

/// Where a sweep's lines go: the `--output` file (resumed) or stdout.
pub(super) struct Sink {
    file: Option<std::fs::File>,
}

impl Sink {
    /// Opens the output: resumes `--output` (checking what it holds against `derived`, the
    /// shard's points and their derived cells) or writes the preamble to stdout. Returns the
    /// number of points already done.
    pub(super) fn open(
        a: &SweepArgs,
        identity: &Identity,
        schema: &Schema,
        derived: &[(usize, Vec<String>)],
        out: &mut impl Write,
    ) -> Result<(Self, usize), CliError> {
        let Some(path) = &a.output else {
            writeln!(out, "{}", identity.line(a.format))?;
            if a.format == SweepFormat::Csv {
                writeln!(out, "{}", csv_header(schema))?;
            }
            // Shown at once: a long first point must not look like a silent hang.
            out.flush()?;
            return Ok((Self { file: None }, 0));
        };
        let resumed = resume(path, a.format, identity, schema, derived)?;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| UsageError(format!("--output: cannot open {}: {e}", path.display())))?;
        f.write_all(resumed.preamble.as_bytes())?;
        Ok((Self { file: Some(f) }, resumed.done))
    }

    /// Appends a point's line and flushes it.
    pub(super) fn line(&mut self, text: &str, out: &mut impl Write) -> std::io::Result<()> {
        match &mut self.file {
            Some(f) => {
                writeln!(f, "{text}")?;
                f.flush()
            }
            None => {
                writeln!(out, "{text}")?;
                out.flush()
            }
        }
    }
}

/// The points of the grid this sweep (or shard) runs.
pub(super) fn owned_points(total: u64, shard: Option<(u64, u64)>) -> impl Iterator<Item = u64> {
    (0..total).filter(move |i| shard.is_none_or(|(k, n)| i % n == k))
}

/// Admission of a family that runs one simulator of `bytes_per_proc` bytes per process on
/// every thread: the largest point this sweep (or shard) owns. Returns the need.
pub(super) fn admit_largest(
    largest_procs: u32,
    bytes_per_proc: u64,
    what: &str,
) -> Result<u64, CliError> {
    let threads = rayon::current_num_threads() as u64;
    let need = admission::BASELINE_BYTES.saturating_add(
        u64::from(largest_procs).saturating_mul(bytes_per_proc.saturating_mul(threads)),
    );
    admission::admit(
        "--procs",
        &format!("running the largest {what} point on {threads} threads"),
        need,
    )?;
    Ok(need)
}
