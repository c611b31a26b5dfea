//! `simulate`'s arguments, shared by the three families' runners, and the printer of their runs.

use crate::cli::flags::{
    arrival, correction, crash_list, rate, ArrivalArg, CrashList, Engine, ModelArg, SideArg,
    SimFormat, StartArg,
};
use crate::cli::output::{csv_line, json_line, JsonCell, JsonObject};
use crate::cli::{args, UsageError};
use clap::Args;
use ftcoll::protocols::corrected_tree::CorrectionSpec;
use ftcoll::topology::{Order, TreeKind};
use ftcoll_sim::scenario::{self, FaultSpec};
use std::io::Write;

/// `ftcoll simulate` (and its alias `ftco-simulate`): the Corrected Tree flags, FTCO's (with
/// `--collective`), Corrected Gossip's (with `--gossip`), and what they share (processes, L, faults, arrivals, seed, runs, output).
#[derive(Args, Debug)]
#[command(group = clap::ArgGroup::new("fault_spec").multiple(false).args(["faults", "fault_count", "fault_rate"]))]
pub(super) struct SimulateArgs {
    /// Number of processes P.
    #[arg(long, value_parser = args::procs)]
    pub procs: u32,
    /// Tree kind: kary:K, binomial, lame:K or optimal (required without --collective).
    #[arg(long, value_parser = args::tree)]
    pub tree: Option<TreeKind>,
    /// Rank numbering: interleaved (default) or in-order.
    #[arg(long, value_parser = args::order)]
    pub order: Option<Order>,
    /// Correction: none, opportunistic:D, optimized:D, checked, delayed:DELAY, failproof:F[:TIMEOUT], ack (required without --collective).
    #[arg(long, value_parser = correction)]
    pub correction: Option<CorrectionSpec>,
    /// When correction starts (default sync).
    #[arg(long, value_enum)]
    pub start: Option<StartArg>,
    /// First correction direction (default left).
    #[arg(long, value_enum)]
    pub first_side: Option<SideArg>,
    /// Timing model (default dual).
    #[arg(long, value_enum)]
    pub model: Option<ModelArg>,
    /// LogP latency L (FTCO: steps).
    #[arg(short = 'L', default_value = "2", value_parser = args::latency)]
    pub latency: u64,
    /// LogP overhead o (FTCO: 1, the only value its step model has).
    #[arg(short = 'o', default_value = "1", value_parser = args::overhead)]
    pub overhead: u64,
    /// Ranks failed before the operation, comma-separated or @FILE (never a root).
    #[arg(long, value_parser = args::rank_list)]
    pub faults: Option<args::RankList>,
    /// This many random non-root ranks fail before the operation.
    #[arg(long, value_parser = args::fault_count)]
    pub fault_count: Option<u32>,
    /// Every non-root rank fails before the operation with this probability.
    #[arg(long, value_parser = rate, allow_negative_numbers = true)]
    pub fault_rate: Option<f64>,
    /// Crashes during the operation (never a root): RANK@TIME,...
    #[arg(long, value_parser = crash_list, default_value = "")]
    pub crash_at: CrashList,
    /// Process arrival pattern (time steps): none, uniform:SPREAD, normal:SPREAD (half-normal),
    /// symnormal:SIGMA (symmetric normal shifted to start at 0), random:MAX_IF:UNIT
    /// (PAP Fig. 6), late:FRACTION:DELAY (PAP Figs. 9–10) or @FILE (P times).
    #[arg(long, value_parser = arrival, default_value = "none")]
    pub arrival: ArrivalArg,
    /// Seed of every random choice.
    #[arg(long, default_value = "1", value_parser = args::seed)]
    pub seed: u64,
    /// Number of runs (run i uses stream i of the seed).
    #[arg(long, default_value = "1", value_parser = args::runs)]
    pub runs: u64,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    pub format: SimFormat,
    /// Write a Chrome trace (Perfetto) of the first run to this file.
    #[arg(long)]
    pub trace: Option<std::path::PathBuf>,
    /// Simulator: auto (the exact fast path for synchronized checked correction under dual-port
    /// LogP without crashes during the operation, arrivals or trace; the full driver otherwise)
    /// or full (the driver for every run). Both print the same bytes.
    #[arg(long, value_enum, default_value = "auto")]
    pub engine: Engine,
    /// FTCO's flags.
    #[command(flatten)]
    pub ftco: crate::cli::flags::ftco::FtcoFlags,
    /// Corrected Gossip's flags.
    #[command(flatten)]
    pub gossip: crate::cli::flags::gossip::GossipFlags,
    /// Read parameters from a JSON file (TOML if its name ends in .toml), keyed by the flags'
    /// long names ("procs", "fault-rate") or short letters ("L", "o"); flags given on the command
    /// line override the file.
    #[arg(long, value_name = "FILE")]
    #[allow(dead_code)] // replaced by the file's flags before parsing (config_file::expand)
    pub config: Option<std::path::PathBuf>,
}

impl SimulateArgs {
    /// The first Corrected Tree flag given (FTCO runs refuse them).
    pub(super) fn ct_flag_given(&self) -> Option<&'static str> {
        [
            ("--tree", self.tree.is_some()),
            ("--order", self.order.is_some()),
            ("--correction", self.correction.is_some()),
            ("--start", self.start.is_some()),
            ("--first-side", self.first_side.is_some()),
            ("--model", self.model.is_some()),
            ("--engine", self.engine != Engine::Auto),
        ]
        .into_iter()
        .find(|g| g.1)
        .map(|g| g.0)
    }

    /// The failures before the operation the flags ask for.
    pub(super) fn fault_spec(&self) -> FaultSpec {
        if let Some(list) = &self.faults {
            let mut sorted = list.0.clone();
            sorted.sort_unstable();
            FaultSpec::List(sorted)
        } else if let Some(n) = self.fault_count {
            FaultSpec::Count(n)
        } else if let Some(r) = self.fault_rate {
            FaultSpec::Rate(r)
        } else {
            FaultSpec::None
        }
    }

    /// Refuses a rank both in `--faults` and `--crash-at`: a rank is failed from the start or
    /// crashes later, not both.
    pub(super) fn check_faults_against_crashes(&self) -> Result<(), UsageError> {
        if let Some(list) = &self.faults {
            let mut failed = list.0.clone();
            failed.sort_unstable();
            if let Some(&(rank, time)) = self
                .crash_at
                .0
                .iter()
                .find(|(r, _)| failed.binary_search(r).is_ok())
            {
                return Err(UsageError(format!(
                    "--crash-at: rank {rank} (at {time}) is also in --faults: a rank fails before the operation or crashes during it, not both"
                )));
            }
        }
        Ok(())
    }
}

/// A scenario error as the one-line usage error naming its flag.
pub(super) fn scenario_error(e: scenario::ScenarioError) -> UsageError {
    let flag = match &e {
        scenario::ScenarioError::BadRank {
            field: "crash-at", ..
        } => "--crash-at",
        scenario::ScenarioError::BadRank { .. } => "--faults",
        scenario::ScenarioError::TooManyFaults { .. } => "--fault-count",
        scenario::ScenarioError::BadRate => "--fault-rate",
        _ => return UsageError(e.to_string()),
    };
    UsageError(format!(
        "{flag}: {}",
        e.to_string().split_once(": ").map_or("", |x| x.1)
    ))
}

/// Writes rows as they come: JSON lines (`serde_json`), CSV (`csv`), or a table whose widths come from the first
/// [`TABLE_SIZING_ROWS`] rows.
pub(super) struct Printer<'a> {
    format: SimFormat,
    columns: &'a [&'a str],
    /// The columns JSON quotes as strings (`faults` is a list; an empty cell elsewhere is `null`).
    strings: &'a [&'a str],
    /// Table rows waiting for the widths to be known.
    pending: Vec<Vec<String>>,
    widths: Option<Vec<usize>>,
}

impl<'a> Printer<'a> {
    /// A printer of these columns, quoting `strings` in JSON.
    pub(super) fn new(format: SimFormat, columns: &'a [&'a str], strings: &'a [&'a str]) -> Self {
        Self {
            format,
            columns,
            strings,
            pending: Vec::new(),
            widths: None,
        }
    }

    /// Prints one row (buffered while a table's widths are not known).
    pub(super) fn row(&mut self, row: Vec<String>, out: &mut impl Write) -> std::io::Result<()> {
        match self.format {
            SimFormat::Json => {
                let fields = self
                    .columns
                    .iter()
                    .zip(&row)
                    .map(|(&k, val)| {
                        let cell = match k {
                            "faults" => JsonCell::Nums(val.split_whitespace().collect()),
                            k if self.strings.contains(&k) => JsonCell::Str(val),
                            _ if val.is_empty() => JsonCell::Null,
                            _ => JsonCell::Num(val),
                        };
                        (k, cell)
                    })
                    .collect();
                writeln!(out, "{}", json_line(&JsonObject(fields))?)
            }
            SimFormat::Csv => {
                if self.widths.is_none() {
                    writeln!(out, "{}", csv_line(self.columns)?)?;
                    self.widths = Some(Vec::new());
                }
                writeln!(out, "{}", csv_line(&row)?)
            }
            SimFormat::Table => {
                if self.widths.is_some() {
                    return self.table_line(&row, out);
                }
                self.pending.push(row);
                if self.pending.len() == TABLE_SIZING_ROWS {
                    self.flush_table(out)?;
                }
                Ok(())
            }
        }
    }

    /// Prints what is still buffered (a table of fewer than [`TABLE_SIZING_ROWS`] rows).
    pub(super) fn finish(&mut self, out: &mut impl Write) -> std::io::Result<()> {
        if self.format == SimFormat::Table && self.widths.is_none() {
            self.flush_table(out)?;
        }
        Ok(())
    }

    fn flush_table(&mut self, out: &mut impl Write) -> std::io::Result<()> {
        let widths: Vec<usize> = (0..self.columns.len())
            .map(|i| {
                self.pending
                    .iter()
                    .map(|r| r[i].len())
                    .chain([self.columns[i].len()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        self.widths = Some(widths);
        let header: Vec<String> = self.columns.iter().map(|c| c.to_string()).collect();
        self.table_line(&header, out)?;
        for row in std::mem::take(&mut self.pending) {
            self.table_line(&row, out)?;
        }
        Ok(())
    }

    fn table_line(&self, cells: &[String], out: &mut impl Write) -> std::io::Result<()> {
        let widths = self.widths.as_deref().unwrap_or_default();
        let line: Vec<String> = cells
            .iter()
            .zip(widths)
            .map(|(c, w)| format!("{c:>w$}"))
            .collect();
        writeln!(out, "{}", line.join("  "))
    }
}

/// `--format table` sizes its columns from this many first rows, then streams the rest with
/// the same widths (a wider cell pushes its row out of line; memory stays constant).
const TABLE_SIZING_ROWS: usize = 256;
