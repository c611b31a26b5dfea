//! The arguments `check`, `explore` and `search` share: the Corrected Tree protocol, the
//! size and faults, the output format, and the budgets of a search.

use super::*;

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum StartArg {
    Sync,
    Overlap,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum TimingArg {
    Pre,
    Any,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum ModelArg {
    Timed,
    Async,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub(crate) enum Format {
    Json,
    Text,
}

pub(crate) fn tree(s: &str) -> Result<TreeKind, String> {
    s.parse()
        .map_err(|e: ftcoll::topology::TopologyError| e.to_string())
}

pub(crate) fn order(s: &str) -> Result<Order, String> {
    s.parse()
        .map_err(|e: ftcoll::topology::TopologyError| e.to_string())
}

pub(crate) fn correction(s: &str) -> Result<CorrectionSpec, String> {
    s.parse()
        .map_err(|e: ftcoll::topology::TopologyError| e.to_string())
}

/// The protocol of a check or a search: everything but `P` and the faults.
#[derive(Args, Debug)]
pub(crate) struct ProtocolArgs {
    /// Tree kind: kary:K, binomial, lame:K or optimal.
    #[arg(long, value_parser = tree)]
    pub(crate) tree: TreeKind,
    /// Numbering.
    #[arg(long, default_value = "interleaved", value_parser = order)]
    pub(crate) order: Order,
    /// Correction variant.
    #[arg(long, value_parser = correction)]
    pub(crate) correction: CorrectionSpec,
    /// Correction start.
    #[arg(long, value_enum, default_value = "sync")]
    pub(crate) start: StartArg,
    /// LogP latency L.
    #[arg(short = 'L', default_value = "2", value_parser = clap::value_parser!(u64).range(0..=64))]
    pub(crate) latency: u64,
    /// LogP overhead o.
    #[arg(short = 'o', default_value = "1", value_parser = clap::value_parser!(u64).range(1..=64))]
    pub(crate) overhead: u64,
}

impl ProtocolArgs {
    pub(crate) fn spec(&self, procs: u32) -> Result<CorrectedTreeSpec, String> {
        Ok(CorrectedTreeSpec {
            tree: self.tree,
            order: self.order,
            correction: self.correction,
            start: match self.start {
                StartArg::Sync => StartMode::Synchronized,
                StartArg::Overlap => StartMode::Overlapped,
            },
            procs,
            logp: LogP::new(self.latency, self.overhead).map_err(|e| format!("-L/-o: {e}"))?,
        })
    }
}

#[derive(Args, Debug)]
pub(crate) struct SpecArgs {
    #[command(flatten)]
    pub(crate) protocol: ProtocolArgs,
    /// Number of processes (2..=16; state spaces grow fast).
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..=16))]
    pub(crate) procs: u32,
    /// At most this many crashes (0..P-1).
    #[arg(long, default_value = "1", value_parser = clap::value_parser!(u32).range(0..=15))]
    pub(crate) crashes: u32,
}

impl SpecArgs {
    pub(crate) fn spec(&self) -> Result<CorrectedTreeSpec, String> {
        if self.crashes >= self.procs {
            return Err(format!(
                "--crashes: {} is out of range: allowed 0..={}",
                self.crashes,
                self.procs - 1
            ));
        }
        self.protocol.spec(self.procs)
    }
}

pub(crate) fn max_states(s: &str) -> Result<u64, String> {
    budget::parse_max_states(s)
}

pub(crate) fn timeout(s: &str) -> Result<Duration, String> {
    budget::parse_timeout(s)
}

pub(crate) fn memory_limit(s: &str) -> Result<u64, String> {
    budget::parse_memory_limit(s, budget::max_memory())
}

pub(crate) fn threads(s: &str) -> Result<u32, String> {
    budget::parse_threads(s)
}

pub(crate) fn search_engine(s: &str) -> Result<budget::Search, String> {
    budget::parse_search(s)
}

pub(crate) fn pack_from(s: &str) -> Result<usize, String> {
    budget::parse_pack_from(s)
}

/// Budgets of `check` and `explore`.
#[derive(Args, Debug)]
pub(crate) struct BudgetArgs {
    /// Stop once this many states were generated, counting states reached again (1 or more;
    /// at most this many unique states); the verdict is then partial.
    #[arg(long, value_name = "N", value_parser = max_states, allow_hyphen_values = true)]
    pub(crate) max_states: Option<u64>,
    /// Stop after this many seconds (0.001 to 31536000, decimals allowed).
    #[arg(long, value_name = "SECONDS", value_parser = timeout, allow_hyphen_values = true)]
    pub(crate) timeout: Option<Duration>,
    /// Memory budget, e.g. 512M or 8G (16M up to the machine's MemTotal): a cap of SIZE / 256
    /// generated states for the layered search (4096 with `--search bfs`, 1024 for the async
    /// model; none for the depth-first search, which holds no states), and the resident memory
    /// checked while running. Default: half of MemAvailable.
    #[arg(long, value_name = "SIZE", value_parser = memory_limit, allow_hyphen_values = true)]
    pub(crate) memory_limit: Option<u64>,
    /// Worker threads of the search (1 to 256; default 1). Verdicts and state counts do not
    /// depend on it, nor, with the depth-first or layered search, anything else (but the count
    /// of a depth-first search stopped because every property has a discovery); with `bfs` and
    /// more than one, a counterexample's trace may differ between runs (whichever thread
    /// reaches a violation first). `explore` refuses it.
    #[arg(long, value_name = "N", value_parser = threads, allow_hyphen_values = true)]
    pub(crate) threads: Option<u32>,
    /// Search engine of the timed model: `depth` (depth first over the crash schedules,
    /// holding only the current path: no fingerprints, no memory per state), `layered` (keeps
    /// only the layers of (instant, crashes) in progress), `bfs` (stateright's breadth-first
    /// search) or `auto` (default: `bfs` where the model chooses gossip targets, so
    /// counterexamples are the shortest, else `depth`); docs/reference/checker.md compares them.
    /// The
    /// async model takes `bfs` (auto), `fingerprints` (depth first, holding one 64-bit
    /// fingerprint per state seen: the same unique states, far less memory), `transactions`
    /// (fingerprints over the runs in which each process receives right before it sends or
    /// crashes: the same verdicts in far fewer states; its count is those states) or `dpor`
    /// (one run per way the processes can order what they see, holding only the current run;
    /// its count is events, not unique states); each model refuses the other's engines;
    /// `explore` refuses it.
    #[arg(long, value_name = "ENGINE", value_parser = search_engine)]
    pub(crate) search: Option<budget::Search>,
    /// Layered search (refused with any other engine): once N states wait in its layers, hold
    /// new ones as compressed bytes (0 to 2^48; default 0: every one). Results do not depend
    /// on it: less memory per held state, more time (docs/reference/checker.md, "The layered
    /// search").
    /// `explore` refuses it.
    #[arg(long, value_name = "N", value_parser = pack_from, allow_hyphen_values = true)]
    pub(crate) pack_from: Option<usize>,
    /// Offer a crash only where it can change a run (the same verdicts in fewer states; see
    /// docs/reference/checker.md, "Crashes where they matter"): timed model with crashes at any
    /// instant,
    /// only before an instant at which the process has an event, and before the first (the
    /// default there); asynchronous model (not with `--search dpor`), only to a process with
    /// something to do, and messages to crashed processes discarded. `explore` refuses it.
    #[arg(long)]
    pub(crate) crashes_at_events_only: bool,
    /// Timed model with crashes at any instant (refused otherwise): offer every live process a
    /// crash before every instant — the full model, instead of the default
    /// `--crashes-at-events-only`, which decides the same verdicts in fewer states.
    #[arg(long)]
    pub(crate) crashes_at_every_instant: bool,
    /// Timed model, crashes at any instant (refused otherwise): offer a crash only before an
    /// instant at which the process sends, and before the first (at most as many states as
    /// `--crashes-at-events-only`, the same verdicts; the next instant runs on a copy to find
    /// the senders, and the layered search keeps that copy as the step's successor; see
    /// docs/reference/checker.md, "Crashes before sends"). `explore` refuses it.
    #[arg(long)]
    pub(crate) crashes_before_sends_only: bool,
}

/// What a command's budget flags are for, to refuse those it would ignore.
pub(crate) enum Target<'a> {
    /// A timed model: `what` names it in messages ("the timed model (--model timed)", "ftco
    /// (a timed model)"); `pre`: the flag that makes its crashes happen before the operation
    /// only, if it does ("--timing pre (the default)").
    Timed { what: &'a str, pre: Option<String> },
    /// The asynchronous model (`check --model async`).
    Async,
    /// stateright's Explorer (`explore`).
    Explorer,
}

impl BudgetArgs {
    /// Refuses, before any work, each flag `target` would silently ignore: an engine of the
    /// other model, a reduction of crash instants where no crash happens during the
    /// operation, `--pack-from` without the one engine that packs states, and the search
    /// options of `explore`, whose Explorer runs a search of its own.
    pub(crate) fn refuse_ignored(&self, target: &Target<'_>) -> Result<(), String> {
        let reductions = [
            ("--crashes-at-events-only", self.crashes_at_events_only),
            (
                "--crashes-before-sends-only",
                self.crashes_before_sends_only,
            ),
            ("--crashes-at-every-instant", self.crashes_at_every_instant),
        ];
        let chosen: Vec<&str> = reductions
            .iter()
            .filter(|(_, on)| *on)
            .map(|(flag, _)| *flag)
            .collect();
        if chosen.len() > 1 {
            return Err(format!(
                "{}: not allowed together: each chooses where crashes are offered; allowed: \
                 one of --crashes-at-events-only (the default with --timing any), \
                 --crashes-before-sends-only, --crashes-at-every-instant",
                chosen.join(", ")
            ));
        }
        let reduction = chosen.first();
        match target {
            Target::Explorer => {
                let given = [
                    ("--threads", self.threads.is_some()),
                    ("--search", self.search.is_some()),
                    ("--pack-from", self.pack_from.is_some()),
                ];
                let flag = given
                    .iter()
                    .find(|(_, on)| *on)
                    .map(|(flag, _)| flag)
                    .or(reduction);
                if let Some(flag) = flag {
                    return Err(format!(
                        "{flag}: not allowed with explore: the Explorer runs a search of its own; \
                         allowed with check, ftco and gossip"
                    ));
                }
            }
            Target::Async => {
                if let Some(s @ (budget::Search::Layered | budget::Search::Depth)) = self.search {
                    return Err(format!(
                        "--search: {} is not allowed with --model async: it searches the timed \
                         model; allowed: auto, bfs, dpor, fingerprints or transactions",
                        s.as_str()
                    ));
                }
                if self.crashes_before_sends_only {
                    return Err(
                        "--crashes-before-sends-only: not allowed with --model async: \
                         it runs the timed model's next instant to find the senders; allowed \
                         with --model timed --timing any"
                            .to_string(),
                    );
                }
                if self.crashes_at_every_instant {
                    return Err(
                        "--crashes-at-every-instant: not allowed with --model async: \
                         it has no instants, and its crashes happen at any moment unless \
                         --crashes-at-events-only is given; allowed with --model timed \
                         --timing any"
                            .to_string(),
                    );
                }
                if self.crashes_at_events_only && self.search == Some(budget::Search::Dpor) {
                    return Err("--crashes-at-events-only: not allowed with --search dpor: \
                         the reduction runs every crash set on its own; allowed with the \
                         asynchronous model's bfs and fingerprints searches"
                        .to_string());
                }
            }
            Target::Timed { what, pre } => {
                if let Some(
                    s @ (budget::Search::Dpor
                    | budget::Search::Fingerprints
                    | budget::Search::Transactions),
                ) = self.search
                {
                    return Err(format!(
                        "--search: {} is not allowed with {what}: it searches the \
                         asynchronous model (check --model async); allowed: auto, layered, bfs \
                         or depth",
                        s.as_str()
                    ));
                }
                if let (Some(flag), Some(pre)) = (reduction, pre) {
                    return Err(format!(
                        "{flag}: not allowed with {pre}: crashes happen before the operation \
                         only, no crash instant to reduce; allowed with --timing any"
                    ));
                }
            }
        }
        if self.pack_from.is_some() && self.search != Some(budget::Search::Layered) {
            let search = self.search.unwrap_or_default().as_str();
            return Err(format!(
                "--pack-from: not allowed with --search {search}{}: only the layered search \
                 packs the states it holds; allowed with --search layered on a timed model",
                if self.search.is_none() {
                    " (the default)"
                } else {
                    ""
                }
            ));
        }
        Ok(())
    }

    /// The budget of a check; `timed_any`: the check searches a timed model with crashes at
    /// any instant, where the events-only crash rule is the default.
    pub(crate) fn budget(&self, timed_any: bool) -> Budget {
        let default_rule =
            timed_any && !self.crashes_at_every_instant && !self.crashes_before_sends_only;
        Budget {
            max_states: self.max_states,
            timeout: self.timeout,
            memory: Some(self.memory_limit.unwrap_or_else(budget::default_memory)),
            threads: self.threads.unwrap_or(1),
            search: self.search.unwrap_or_default(),
            crashes_at_events_only: self.crashes_at_events_only || default_rule,
            crashes_before_sends_only: self.crashes_before_sends_only,
            pack_from: self.pack_from.unwrap_or(ftcoll_verify::budget::PACK_FROM),
        }
    }

    /// The one-line usage error when the initial states alone do not fit the budget `by`
    /// (`needed`: states or bytes).
    pub(crate) fn too_small(&self, initial: u64, needed: u64, by: Stop, what: &str) -> String {
        match by {
            Stop::Memory => {
                let limit = self.memory_limit.map_or_else(
                    || {
                        format!(
                            "the default (half of MemAvailable, {})",
                            budget::format_size(budget::default_memory())
                        )
                    },
                    budget::format_size,
                );
                format!(
                    "--memory-limit: {limit} cannot hold the {initial} initial states of {what} (about {}): allowed {}..={}",
                    budget::format_size(needed),
                    budget::format_size(
                        needed
                            .checked_next_multiple_of(1 << 20)
                            .unwrap_or(u64::MAX)
                            .max(budget::MIN_MEMORY)
                    ),
                    budget::format_size(budget::max_memory())
                )
            }
            _ => format!(
                "--max-states: {} is fewer than the {initial} initial states of {what}: allowed {needed}..={}",
                self.max_states.unwrap_or(0),
                u64::MAX
            ),
        }
    }
}

#[derive(Args, Debug)]
pub(crate) struct CheckArgs {
    #[command(flatten)]
    pub(crate) spec: SpecArgs,
    #[command(flatten)]
    pub(crate) budget: BudgetArgs,
    /// When crashes happen.
    #[arg(long, value_enum, default_value = "pre")]
    pub(crate) timing: TimingArg,
    /// Timed (LogP) or asynchronous model.
    #[arg(long, value_enum, default_value = "timed")]
    pub(crate) model: ModelArg,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    pub(crate) format: Format,
}

#[derive(Args, Debug)]
pub(crate) struct ExploreArgs {
    #[command(flatten)]
    pub(crate) spec: SpecArgs,
    /// Budgets of the background search (`--timeout` ends the session).
    #[command(flatten)]
    pub(crate) budget: BudgetArgs,
    /// When crashes happen.
    #[arg(long, value_enum, default_value = "pre")]
    pub(crate) timing: TimingArg,
    /// Address to serve on.
    #[arg(long, default_value = "localhost:3000")]
    pub(crate) address: String,
}
