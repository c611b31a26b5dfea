//! `ftcoll tree` and `ftcoll gaps`: the topology of CT §3.2 on the command line.

use std::io::Write;

use clap::{Args, ValueEnum};
use ftcoll::topology::{LogP, Order, Reach, TopologyError, Tree, TreeKind};

use crate::args;
use crate::{CliError, UsageError};

/// Output formats of `tree`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum TreeFormat {
    /// One JSON object with every node (streamed).
    Json,
    /// A header line then one line per rank: `rank parent children recv_time`.
    Text,
    /// Graphviz.
    Dot,
}

/// The tree selection shared by `tree` and `gaps`.
#[derive(Args, Debug)]
pub struct TreeSpec {
    /// Tree kind: kary:K, binomial, lame:K or optimal (K in 1..=65536).
    #[arg(long, value_parser = args::tree)]
    tree: TreeKind,
    /// Rank numbering.
    #[arg(long, default_value = "interleaved", value_parser = args::order)]
    order: Order,
    /// Number of processes P.
    #[arg(long, value_parser = args::procs)]
    procs: u64,
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

    fn header_json(&self) -> String {
        format!(
            "\"procs\":{},\"tree\":\"{}\",\"order\":\"{}\",\"L\":{},\"o\":{}",
            self.procs, self.tree, self.order, self.latency, self.overhead
        )
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
pub struct TreeArgs {
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
pub fn tree(a: TreeArgs, out: &mut impl Write) -> Result<(), CliError> {
    let tree = a.spec.build()?;
    match a.format {
        TreeFormat::Json => {
            write!(
                out,
                "{{{},\"deadline\":{},\"nodes\":[",
                a.spec.header_json(),
                tree.deadline()
            )?;
            for (i, node) in tree.nodes().enumerate() {
                let parent = node.parent.map_or("null".to_string(), |p| p.to_string());
                write!(
                    out,
                    "{}{{\"rank\":{},\"parent\":{},\"children\":[{}],\"recv_time\":{}}}",
                    if i == 0 { "" } else { "," },
                    node.rank,
                    parent,
                    join(&node.children),
                    node.receive_time
                )?;
            }
            writeln!(out, "]}}")?;
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
    Ok(())
}

/// `ftcoll gaps`.
#[derive(Args, Debug)]
pub struct GapsArgs {
    #[command(flatten)]
    spec: TreeSpec,
    /// Failed ranks, comma-separated (never 0, each below P).
    #[arg(long, value_parser = args::rank_list, default_value = "")]
    faults: args::RankList,
}

/// Prints `uncolored`, `gmax` and the gap histogram as JSON.
pub fn gaps(a: GapsArgs, out: &mut impl Write) -> Result<(), CliError> {
    let tree = a.spec.build()?;
    let reach = Reach::compute(&tree, &a.faults.0).map_err(flag_error)?;
    let mut faults = a.faults.0.clone();
    faults.sort_unstable();
    faults.dedup();
    let histogram: Vec<String> = reach
        .histogram()
        .iter()
        .map(|(size, count)| format!("\"{size}\":{count}"))
        .collect();
    writeln!(
        out,
        "{{{},\"faults\":[{}],\"uncolored\":[{}],\"gmax\":{},\"gaps\":{{{}}}}}",
        a.spec.header_json(),
        join(&faults),
        join(&reach.uncolored),
        reach.gmax(),
        histogram.join(",")
    )?;
    Ok(())
}
