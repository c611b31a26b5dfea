//! `ftcoll tree` and `ftcoll gaps`: the topology of CT §3.2 on the command line.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io::Write;

use clap::{Args, ValueEnum};
use ftcoll::topology::{LogP, Order, Reach, TopologyError, Tree, TreeKind};
use serde::Serialize;

use crate::cli::admission;
use crate::cli::args;
use crate::cli::{CliError, UsageError};

/// Output formats of `tree`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub(super) enum TreeFormat {
    /// One JSON object with every node (streamed).
    Json,
    /// A header line then one line per rank: `rank parent children recv_time`.
    Text,
    /// Graphviz.
    Dot,
}

/// The tree selection shared by `tree` and `gaps`.
#[derive(Args, Debug)]
pub(super) struct TreeSpec {
    /// Tree kind: kary:K, binomial, lame:K or optimal (K in 1..=65536).
    #[arg(long, value_parser = args::tree)]
    tree: TreeKind,
    /// Rank numbering.
    #[arg(long, default_value = "interleaved", value_parser = args::order)]
    order: Order,
    /// Number of processes P.
    #[arg(long, value_parser = args::procs)]
    procs: u32,
    /// LogP latency L (steps).
    #[arg(short = 'L', default_value = "2", value_parser = args::latency)]
    latency: u64,
    /// LogP overhead o (steps).
    #[arg(short = 'o', default_value = "1", value_parser = args::overhead)]
    overhead: u64,
}

impl TreeSpec {
    fn build(&self) -> Result<Tree, UsageError> {
        let logp = LogP::new(self.latency, self.overhead).map_err(flag_error)?;
        Tree::new(self.tree, self.order, self.procs, logp).map_err(flag_error)
    }

    /// The fields every `tree` and `gaps` JSON object starts with.
    fn header(&self) -> Header {
        Header {
            procs: self.procs,
            tree: self.tree.to_string(),
            order: self.order.to_string(),
            latency: self.latency,
            overhead: self.overhead,
        }
    }
}

/// The parameters at the start of `tree`'s and `gaps`' JSON objects.
#[derive(Serialize)]
struct Header {
    procs: u32,
    tree: String,
    order: String,
    #[serde(rename = "L")]
    latency: u64,
    #[serde(rename = "o")]
    overhead: u64,
}

/// `tree --format json`: the parameters, the deadline and every node (streamed).
#[derive(Serialize)]
struct TreeJson<N> {
    #[serde(flatten)]
    header: Header,
    deadline: u64,
    nodes: N,
}

/// One node of `tree --format json`.
#[derive(Serialize)]
struct NodeJson {
    rank: u32,
    parent: Option<u32>,
    children: Vec<u32>,
    recv_time: u64,
}

/// `gaps`' JSON object.
#[derive(Serialize)]
struct GapsJson<'a> {
    #[serde(flatten)]
    header: Header,
    faults: &'a [u32],
    uncolored: &'a [u32],
    gmax: u64,
    /// Gap size → number of gaps of that size (keys are JSON strings).
    gaps: BTreeMap<u64, u64>,
}

/// A JSON list written as its items come: `serde_json` pulls them from the iterator, so the
/// whole list is never held.
struct Streamed<I>(RefCell<Option<I>>);

impl<I, T> Serialize for Streamed<I>
where
    I: Iterator<Item = T>,
    T: Serialize,
{
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.borrow_mut().take().into_iter().flatten())
    }
}

/// Maps a library error to the flag it came from.
fn flag_error(e: TopologyError) -> UsageError {
    let flag = match &e {
        TopologyError::OutOfRange { field, .. } => match *field {
            "procs" => "--procs",
            "k" => "--tree",
            "L" => "-L",
            "o" => "-o",
            _ => "input",
        },
        TopologyError::Unknown { field, .. } => match *field {
            "order" => "--order",
            _ => "--tree",
        },
        // These already start with the field name.
        TopologyError::RankOutOfRange { .. } | TopologyError::RootFailed => {
            return UsageError(format!("--{e}"))
        }
        _ => "input",
    };
    UsageError(format!("{flag}: {e}"))
}

/// `ftcoll tree`.
#[derive(Args, Debug)]
pub(super) struct TreeArgs {
    #[command(flatten)]
    spec: TreeSpec,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    format: TreeFormat,
}

fn join(ranks: &[u32]) -> String {
    let items: Vec<String> = ranks.iter().map(u32::to_string).collect();
    items.join(",")
}

/// Streams the tree: memory stays `O(depth · fan-out)` whatever `P`.
pub(super) fn tree(a: TreeArgs, out: &mut impl Write) -> Result<(), CliError> {
    let tree = a.spec.build()?;
    let bar = admission::progress(
        Some(u64::from(tree.procs())),
        "{msg} [{elapsed_precise}] {wide_bar} {pos}/{len} ranks ({eta})",
        "tree",
    );
    let tick = |rank: u32| {
        if rank % 65_536 == 65_535 {
            bar.inc(65_536);
        }
    };
    match a.format {
        TreeFormat::Json => {
            let nodes = tree.nodes().map(|node| {
                tick(node.rank);
                NodeJson {
                    rank: node.rank,
                    parent: node.parent,
                    children: node.children,
                    recv_time: node.receive_time,
                }
            });
            let json = TreeJson {
                header: a.spec.header(),
                deadline: tree.deadline(),
                nodes: Streamed(RefCell::new(Some(nodes))),
            };
            serde_json::to_writer(&mut *out, &json).map_err(std::io::Error::from)?;
            writeln!(out)?;
        }
        TreeFormat::Text => {
            writeln!(
                out,
                "# tree={} order={} procs={} L={} o={} deadline={}",
                a.spec.tree,
                a.spec.order,
                a.spec.procs,
                a.spec.latency,
                a.spec.overhead,
                tree.deadline()
            )?;
            writeln!(out, "# rank parent children recv_time")?;
            for node in tree.nodes() {
                tick(node.rank);
                let parent = node.parent.map_or("-".to_string(), |p| p.to_string());
                let children = if node.children.is_empty() {
                    "-".to_string()
                } else {
                    join(&node.children)
                };
                writeln!(
                    out,
                    "{} {} {} {}",
                    node.rank, parent, children, node.receive_time
                )?;
            }
        }
        TreeFormat::Dot => {
            writeln!(
                out,
                "digraph \"{} {} P={} L={} o={}\" {{",
                a.spec.tree, a.spec.order, a.spec.procs, a.spec.latency, a.spec.overhead
            )?;
            for node in tree.nodes() {
                tick(node.rank);
                writeln!(
                    out,
                    "  {} [label=\"{}\\nt={}\"];",
                    node.rank, node.rank, node.receive_time
                )?;
                for child in &node.children {
                    writeln!(out, "  {} -> {};", node.rank, child)?;
                }
            }
            writeln!(out, "}}")?;
        }
    }
    bar.finish_and_clear();
    Ok(())
}

/// `ftcoll gaps`.
#[derive(Args, Debug)]
pub(super) struct GapsArgs {
    #[command(flatten)]
    spec: TreeSpec,
    /// Failed ranks, comma-separated, or @FILE to read them from a file (never 0, each below P).
    #[arg(long, value_parser = args::rank_list, default_value = "")]
    faults: args::RankList,
}

/// Prints `uncolored`, `gmax` and the gap histogram as JSON.
pub(super) fn gaps(a: GapsArgs, out: &mut impl Write) -> Result<(), CliError> {
    let tree = a.spec.build()?;
    let mut faults = a.faults.0.clone();
    faults.sort_unstable();
    // Bad ranks first, so their error is not hidden behind a memory refusal.
    for &rank in &faults {
        if rank == 0 {
            return Err(flag_error(TopologyError::RootFailed).into());
        }
        if !tree.contains(rank) {
            return Err(flag_error(TopologyError::RankOutOfRange {
                field: "faults",
                rank: u64::from(rank),
                procs: u64::from(tree.procs()),
            })
            .into());
        }
    }
    // Admission: the failed subtrees' ranks are materialized (sorted, then split into gaps);
    // their number is known from the tree's arithmetic before anything is allocated.
    let dark = dark_ranks(&tree, &faults);
    // The output lists every uncolored rank: past this many the answer is too large to read,
    // and its time (seconds per 10^7 ranks) would pass without a word.
    if dark > MAX_DARK_RANKS {
        return Err(UsageError(format!(
            "--faults: the failed subtrees hold {dark} ranks; gaps lists each of them and takes \
             at most {MAX_DARK_RANKS} (faults deeper in the tree, or a smaller --procs)"
        ))
        .into());
    }
    admission::admit(
        "--faults",
        &format!("holding the {dark} ranks of the failed subtrees"),
        admission::BASELINE_BYTES
            .saturating_add(dark.saturating_mul(GAPS_BYTES_PER_DARK_RANK))
            .saturating_add(8 * faults.len() as u64),
    )?;
    let spinner = admission::progress(
        None,
        "{spinner} {msg} [{elapsed_precise}]",
        &format!("gaps: {dark} ranks below the failed ones"),
    );
    let reach = Reach::compute(&tree, &faults).map_err(flag_error)?;
    spinner.finish_and_clear();
    let json = GapsJson {
        header: a.spec.header(),
        faults: &faults,
        uncolored: &reach.uncolored,
        gmax: reach.gmax(),
        gaps: reach.histogram(),
    };
    serde_json::to_writer(&mut *out, &json).map_err(std::io::Error::from)?;
    writeln!(out)?;
    Ok(())
}

/// The most ranks below failed ones that `gaps` lists (time and memory: docs/performance.md).
const MAX_DARK_RANKS: u64 = 1 << 24;

/// Bytes `Reach::compute` holds per rank below a failed one: the dark and uncolored lists
/// (4 B each), and at most one 24-byte gap record per rank, rounded up.
const GAPS_BYTES_PER_DARK_RANK: u64 = 40;

/// How many ranks lie in failed subtrees (failed ranks included), from subtree sizes alone;
/// out-of-range ranks count nothing here (`Reach::compute` reports them).
fn dark_ranks(tree: &Tree, sorted_faults: &[u32]) -> u64 {
    let failed = |r: u32| sorted_faults.binary_search(&r).is_ok();
    sorted_faults
        .iter()
        .filter(|&&r| tree.contains(r))
        .filter(|&&r| {
            let mut at = r;
            while let Some(parent) = tree.parent(at) {
                if failed(parent) {
                    return false;
                }
                at = parent;
            }
            true
        })
        .map(|&r| tree.subtree_size(r).unwrap_or(1))
        .sum()
}
