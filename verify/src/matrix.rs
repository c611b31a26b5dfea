//! The verification matrix (DESIGN §6), generated into `docs/verification.md` with every
//! counterexample under `docs/traces/` — never typed by hand:
//!
//! ```text
//! cargo run -p ftcoll-verify --release -- matrix --max-procs 8 --max-crashes 2
//! ```
//!
//! Rows: correction variant × tree kind × order × start mode. Columns: crash timing {before the
//! operation, any instant} × `f`. A cell is checked for every `P` from 2 to `--max-procs`
//! (smallest first); it reads "holds ≤ P" with the states explored at the largest `P` and the
//! total time, or names each violated property with the smallest `P` violating it and links its
//! shortest (BFS) counterexample. A "claims" section decides the papers' claims one by one.
//!
//! The document is fixed text ([`head`], [`grid_head`], [`async_head`], [`footer`]) around three
//! [`Part`]s — the claims, the grid rows, the asynchronous rows — and [`render`] regenerates any
//! part, or any subset of its rows, alone: `verify/tests/families/matrix.rs` compares the committed file
//! part by part, in parallel.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use ftcoll::protocols::corrected_tree::{CorrectionSpec, StartMode};
use ftcoll::topology::{LogP, Order, TreeKind};

use ftcoll::protocols::ftco::{EtaRule, RootFailure, TimeoutRule};
use ftcoll::topology::ftco::{Collective, FtcoKind};

use crate::ftco::{self as ftco_family, Entry, FtcoSpec};
use crate::search::SearchOptions;
use crate::{check_within, property, Budget, CrashTiming, ModelKind, ProtocolSpec};

/// `matrix` arguments.
#[derive(clap::Args, Debug, Clone)]
pub struct MatrixArgs {
    /// Largest P checked in the grid (every P from 2 up is checked).
    #[arg(long, default_value = "8", value_parser = clap::value_parser!(u32).range(2..=12))]
    pub max_procs: u32,
    /// Largest f in the grid.
    #[arg(long, default_value = "2", value_parser = clap::value_parser!(u32).range(0..=4))]
    pub max_crashes: u32,
    /// Output file (traces go to a `traces/` directory beside it).
    #[arg(long, default_value = "docs/verification.md")]
    pub out: PathBuf,
    /// Largest P of the asynchronous-model section.
    #[arg(long, default_value = "4", value_parser = clap::value_parser!(u32).range(2..=6))]
    pub max_async_procs: u32,
    /// Largest P of the FTCO section (every P from 2 up is checked).
    #[arg(long, default_value = "7", value_parser = clap::value_parser!(u32).range(2..=9))]
    pub max_ftco_procs: u32,
    /// Worker threads.
    #[arg(long, default_value = "2", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub threads: u32,
}

/// One verdict of one cell.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// The protocol (at P = 2; the grid varies P).
    pub row: Row,
    /// Crash timing.
    pub timing: CrashTiming,
    /// `f`.
    pub crashes: u32,
    /// For each property of [`property::ALL`]: `None` if it held for every P checked, else the
    /// smallest violating P and its trace.
    pub verdicts: Vec<Option<(u32, Vec<String>)>>,
    /// Largest P checked.
    pub max_procs: u32,
    /// States explored at the largest P checked.
    pub states: usize,
    /// Total seconds.
    pub seconds: f64,
    /// Short names of the liveness properties that runs cut at the horizon left undecided,
    /// with the smallest P where that happened (never expected: the horizons derive from the
    /// protocols' timers).
    pub undecided: Vec<(&'static str, u32)>,
}

/// A matrix row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Row {
    /// Correction variant.
    pub correction: CorrectionSpec,
    /// Tree kind.
    pub tree: TreeKind,
    /// Order.
    pub order: Order,
    /// Start mode.
    pub start: StartMode,
}

/// The rows of the matrix.
pub fn rows() -> Vec<Row> {
    let corrections = [
        CorrectionSpec::None,
        CorrectionSpec::Ack,
        CorrectionSpec::Opportunistic { distance: 1 },
        CorrectionSpec::Opportunistic { distance: 2 },
        CorrectionSpec::Optimized { distance: 2 },
        CorrectionSpec::Checked,
        CorrectionSpec::Delayed { delay: 4 },
        CorrectionSpec::FailProof {
            faults: 1,
            sos_timeout: Option::None,
            sos_on_full_loop: true,
        },
    ];
    let trees = [
        TreeKind::KAry(2),
        TreeKind::Binomial,
        TreeKind::Lame(2),
        TreeKind::Optimal,
    ];
    let mut rows = Vec::new();
    for correction in corrections {
        for tree in trees {
            for order in [Order::Interleaved, Order::InOrder] {
                for start in [StartMode::Synchronized, StartMode::Overlapped] {
                    rows.push(Row {
                        correction,
                        tree,
                        order,
                        start,
                    });
                }
            }
        }
    }
    rows
}

fn spec(row: &Row, procs: u32) -> ProtocolSpec {
    ProtocolSpec {
        tree: row.tree,
        order: row.order,
        correction: row.correction,
        start: row.start,
        procs,
        logp: LogP::default(),
    }
}

/// The rows of the asynchronous-model section: the variants whose correctness arguments need no
/// timing (CT §4.2: optimized opportunistic "does not depend on precise timing"; CG Claim 3's
/// proof for checked correction uses no timing), with overlapped start, on the Lamé(2) tree.
/// Delayed correction (its delay must be "short enough", CT §3.3) and failure-proof correction
/// (its SOS timeout) depend on timing by design, and their asynchronous state spaces exceed
/// 5·10^6 states already at P = 4.
pub fn async_rows() -> Vec<Row> {
    [
        CorrectionSpec::Opportunistic { distance: 2 },
        CorrectionSpec::Optimized { distance: 2 },
        CorrectionSpec::Checked,
    ]
    .into_iter()
    .map(|correction| Row {
        correction,
        tree: TreeKind::Lame(2),
        order: Order::Interleaved,
        start: StartMode::Overlapped,
    })
    .collect()
}

/// The matrix's budget: no limit, and crashes offered only where they can change a run
/// ([`Budget::crashes_at_events_only`]: before an instant at which the process has an event,
/// and before the first; docs/design.md "Crashes where they matter" argues that no verdict
/// changes and `verify/tests/engines/crash_instants.rs` compares the verdicts). The timed cells take the
/// default engine, the depth-first search, which holds no states; `pack_from` matters only to
/// the layered search (whole states: about 25 % faster on cells this small, 48.3 s against
/// 60.1 s for the whole matrix in one run each, when the layered search was the default).
pub const MATRIX_BUDGET: Budget = Budget {
    crashes_at_events_only: true,
    pack_from: usize::MAX,
    ..Budget::UNLIMITED
};

/// The budget of the asynchronous cells: every crash at any moment, searched by fingerprints
/// (the breadth-first search's unique states and verdicts, in less time; their cells all hold,
/// so no counterexample's path depends on the engine).
pub const ASYNC_MATRIX_BUDGET: Budget = Budget {
    search: crate::budget::Search::Fingerprints,
    ..Budget::UNLIMITED
};

/// Checks one cell for P = 2..=max_procs (f is capped at P − 1).
pub fn check_cell(row: Row, timing: CrashTiming, crashes: u32, max_procs: u32) -> Cell {
    check_cell_in(row, timing, crashes, max_procs, ModelKind::Timed)
}

/// [`check_cell`] in either model.
pub fn check_cell_in(
    row: Row,
    timing: CrashTiming,
    crashes: u32,
    max_procs: u32,
    model: ModelKind,
) -> Cell {
    let Scan {
        verdicts,
        states,
        seconds,
        undecided,
    } = scan(2..=max_procs, &property::ALL, &property::SHORT, |procs| {
        let f = crashes.min(procs - 1);
        let budget = match model {
            ModelKind::Timed => &MATRIX_BUDGET,
            ModelKind::Async => &ASYNC_MATRIX_BUDGET,
        };
        check_within(&spec(&row, procs), f, timing, model, budget, None).expect("valid spec")
    });
    Cell {
        row,
        timing,
        crashes,
        verdicts,
        max_procs,
        states,
        seconds,
        undecided,
    }
}

/// What a cell's checks over a range of `P` found.
struct Scan {
    verdicts: Vec<Option<(u32, Vec<String>)>>,
    states: usize,
    seconds: f64,
    undecided: Vec<(&'static str, u32)>,
}

/// Checks every `P` of `procs` (smallest first) with `check`; for each property of `all`, the
/// smallest violating `P` and its trace; the states at the largest `P`; the total time. One
/// loop for every family's cells.
fn scan(
    procs: core::ops::RangeInclusive<u32>,
    all: &[&'static str],
    short: &[&'static str],
    mut check: impl FnMut(u32) -> crate::CheckResult,
) -> Scan {
    let mut verdicts: Vec<Option<(u32, Vec<String>)>> = vec![None; all.len()];
    let (mut states, mut seconds) = (0, 0.0);
    let mut undecided: Vec<(&'static str, u32)> = Vec::new();
    for procs in procs {
        let result = check(procs);
        states = result.states;
        seconds += result.seconds;
        note_undecided(&mut undecided, &result, procs, all, short);
        for (i, name) in all.iter().enumerate() {
            if verdicts[i].is_none() {
                if let Some(v) = result.violations.iter().find(|v| v.property == *name) {
                    verdicts[i] = Some((procs, v.trace.clone()));
                }
            }
        }
    }
    Scan {
        verdicts,
        states,
        seconds,
        undecided,
    }
}

/// Records the liveness properties `result` left undecided at the horizon (first P only).
fn note_undecided(
    undecided: &mut Vec<(&'static str, u32)>,
    result: &crate::CheckResult,
    procs: u32,
    all: &[&'static str],
    short: &[&'static str],
) {
    for name in &result.cut_by_horizon {
        if let Some(i) = all.iter().position(|p| p == name) {
            if !undecided.iter().any(|(s, _)| *s == short[i]) {
                undecided.push((short[i], procs));
            }
        }
    }
}

/// "liveness undecided (horizon) P=p" for each entry.
fn undecided_text(undecided: &[(&'static str, u32)]) -> Vec<String> {
    undecided
        .iter()
        .map(|(name, p)| format!("{name} undecided (runs cut at the horizon) P={p}"))
        .collect()
}

fn slug(row: &Row, timing: CrashTiming, crashes: u32) -> String {
    format!(
        "{}-{}-{}-{}-{}-f{}",
        row.correction, row.tree, row.order, row.start, timing, crashes
    )
    .replace(':', "")
}

/// Runs `jobs` on `threads` threads, keeping the input order.
fn parallel<T: Send, R: Send>(jobs: Vec<T>, threads: u32, work: impl Fn(T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let jobs: Vec<Mutex<Option<T>>> = jobs.into_iter().map(|j| Mutex::new(Some(j))).collect();
    let results: Vec<Mutex<Option<R>>> = (0..jobs.len()).map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(slot) = jobs.get(i) else { break };
                let job = slot
                    .lock()
                    .expect("job lock")
                    .take()
                    .expect("each job once");
                let result = work(job);
                *results[i].lock().expect("result lock") = Some(result);
            });
        }
    });
    results
        .into_iter()
        .map(|r| r.into_inner().expect("lock").expect("every job ran"))
        .collect()
}

/// A targeted claim of the papers and how it was decided.
pub struct Claim {
    /// The claim, with its source.
    pub text: &'static str,
    /// How it is decided.
    pub checks: Vec<ClaimCheck>,
}

/// One check of a claim.
#[derive(Clone, Debug)]
pub enum ClaimCheck {
    /// Exhaustive for every P from 2 to `spec.procs`; `expected` is the paper's prediction, if it
    /// makes one for this bound.
    Exhaustive {
        /// The protocol at the largest P.
        spec: ProtocolSpec,
        /// `f`.
        crashes: u32,
        /// Crash timing.
        timing: CrashTiming,
        /// The property.
        property: &'static str,
        /// Whether the paper says it holds.
        expected: Option<bool>,
    },
    /// A guided random search ([`crate::search`]) at a size beyond exhaustive search: `expected`
    /// is whether the paper says `property` holds. Not finding a violation is a bounded claim
    /// ("not violated in N walks").
    Search {
        /// The protocol.
        spec: ProtocolSpec,
        /// The search.
        options: SearchOptions,
        /// The property.
        property: &'static str,
        /// Whether the paper says it holds.
        expected: Option<bool>,
    },
    /// One fixed scenario replayed in the timed model (for sizes beyond exhaustive search).
    Scenario {
        /// The protocol.
        spec: ProtocolSpec,
        /// Crashed before the operation.
        pre: Vec<ftcoll::Rank>,
        /// `(rank, time)` crashes during the operation.
        crash_at: Vec<(ftcoll::Rank, ftcoll::Time)>,
        /// Where the scenario was found.
        source: &'static str,
    },
}

fn protocol(
    tree: TreeKind,
    order: Order,
    correction: CorrectionSpec,
    start: StartMode,
    procs: u32,
) -> ProtocolSpec {
    ProtocolSpec {
        tree,
        order,
        correction,
        start,
        procs,
        logp: LogP::default(),
    }
}

/// A search with `pre` crashes before the operation and 2 during it (one thread: the matrix
/// runs its checks in parallel already).
fn search(
    spec: ProtocolSpec,
    walks: u64,
    pre: u32,
    property: &'static str,
    expected: Option<bool>,
) -> ClaimCheck {
    ClaimCheck::Search {
        spec,
        options: SearchOptions {
            walks,
            seed: 1,
            pre,
            during: 2,
            guided: true,
            threads: 1,
        },
        property,
        expected,
    }
}

fn with_logp(spec: ProtocolSpec, latency: u64, overhead: u64) -> ProtocolSpec {
    ProtocolSpec {
        logp: LogP::new(latency, overhead).expect("valid LogP"),
        ..spec
    }
}

fn exhaustive(
    spec: ProtocolSpec,
    crashes: u32,
    timing: CrashTiming,
    property: &'static str,
    expected: Option<bool>,
) -> ClaimCheck {
    ClaimCheck::Exhaustive {
        spec,
        crashes,
        timing,
        property,
        expected,
    }
}

/// The papers' claims the matrix must decide.
pub fn claims() -> Vec<Claim> {
    use CorrectionSpec::*;
    use Order::*;
    use StartMode::*;
    let sync = Synchronized;
    let (pre, any) = (CrashTiming::Pre, CrashTiming::Any);
    let lame = TreeKind::Lame(2);
    let binary = TreeKind::KAry(2);
    vec![
        Claim {
            text: "The plain tree fails liveness with one pre-operation crash (CT §2.1).",
            checks: vec![exhaustive(protocol(binary, Interleaved, None, sync, 4), 1, pre, property::LIVENESS, Some(false))],
        },
        Claim {
            text: "k-ary interleaved + opportunistic(d = k) survives k − 1 pre-operation crashes and not k (CT §3.2.1, §4.2).",
            checks: vec![
                exhaustive(protocol(binary, Interleaved, Opportunistic { distance: 2 }, sync, 8), 1, pre, property::LIVENESS, Some(true)),
                exhaustive(protocol(binary, Interleaved, Opportunistic { distance: 2 }, sync, 8), 2, pre, property::LIVENESS, Some(false)),
                exhaustive(protocol(TreeKind::KAry(3), Interleaved, Opportunistic { distance: 3 }, sync, 10), 2, pre, property::LIVENESS, Some(true)),
                exhaustive(protocol(TreeKind::KAry(3), Interleaved, Opportunistic { distance: 3 }, sync, 10), 3, pre, property::LIVENESS, Some(false)),
            ],
        },
        Claim {
            text: "Checked correction colors every live process for any number of pre-operation crashes (CT §4.2, CG Claim 3).",
            checks: vec![
                exhaustive(protocol(lame, Interleaved, Checked, sync, 8), 7, pre, property::LIVENESS, Some(true)),
                exhaustive(protocol(binary, InOrder, Checked, Overlapped, 8), 7, pre, property::LIVENESS, Some(true)),
            ],
        },
        Claim {
            text: "Checked correction under crashes during correction: CG §III.C says some nodes may then fail to be reached.",
            checks: vec![
                exhaustive(protocol(lame, Interleaved, Checked, sync, 8), 2, any, property::LIVENESS, Option::None),
                exhaustive(protocol(lame, Interleaved, Checked, sync, 8), 2, any, property::TERMINATION, Option::None),
                ClaimCheck::Scenario {
                    spec: protocol(lame, Interleaved, Checked, sync, 34),
                    pre: vec![2, 8, 30],
                    crash_at: vec![(27, 17), (32, 20)],
                    source: "sim/tests/drivers/sim_correction.rs",
                },
            ],
        },
        Claim {
            text: "Beyond exhaustive bounds (`ftcoll-verify search`, guided random walks of the timed model, counterexamples minimized): checked correction loses a live process to crashes during correction (CG §III.C), found by the tool at P = 34, 128 and 1024, and failure-proof(2) survives the same searches (CG Claim 4).",
            checks: vec![
                search(protocol(lame, Interleaved, Checked, sync, 34), 3000, 5, property::LIVENESS, Some(false)),
                search(protocol(lame, Interleaved, CorrectionSpec::FailProof { faults: 2, sos_timeout: Option::None, sos_on_full_loop: true }, sync, 34), 3000, 5, property::LIVENESS, Some(true)),
                search(protocol(lame, Interleaved, Checked, sync, 128), 3000, 8, property::LIVENESS, Some(false)),
                search(protocol(lame, Interleaved, CorrectionSpec::FailProof { faults: 2, sos_timeout: Option::None, sos_on_full_loop: true }, sync, 128), 3000, 8, property::LIVENESS, Some(true)),
                search(protocol(lame, Interleaved, Checked, sync, 1024), 1000, 8, property::LIVENESS, Some(false)),
            ],
        },
        Claim {
            text: "Failure-proof(f) colors every live process under f crashes at any instant (CG Claim 4).",
            checks: vec![
                exhaustive(protocol(lame, Interleaved, CorrectionSpec::FailProof { faults: 1, sos_timeout: Option::None, sos_on_full_loop: true }, sync, 8), 1, any, property::LIVENESS, Some(true)),
                exhaustive(protocol(lame, Interleaved, CorrectionSpec::FailProof { faults: 2, sos_timeout: Option::None, sos_on_full_loop: true }, sync, 7), 2, any, property::LIVENESS, Some(true)),
                ClaimCheck::Scenario {
                    spec: protocol(lame, Interleaved, CorrectionSpec::FailProof { faults: 2, sos_timeout: Option::None, sos_on_full_loop: true }, sync, 34),
                    pre: vec![2, 8, 30],
                    crash_at: vec![(27, 17), (32, 20)],
                    source: "sim/tests/drivers/sim_correction.rs (the checked counterexample above)",
                },
            ],
        },
        Claim {
            text: "Interleaved trees leave smaller gaps than in-order ones: with one pre-operation crash, opportunistic(1) colors everyone on the interleaved binary tree but not on the in-order one (CT §3.2).",
            checks: vec![
                exhaustive(protocol(binary, Interleaved, Opportunistic { distance: 1 }, sync, 8), 1, pre, property::LIVENESS, Some(true)),
                exhaustive(protocol(binary, InOrder, Opportunistic { distance: 1 }, sync, 8), 1, pre, property::LIVENESS, Some(false)),
            ],
        },
        Claim {
            text: "Opportunistic and optimized correction of distance d send at most d messages to each side, 2d per process, under crashes at any instant (CG Alg. 1; CT §3.1, §3.3).",
            checks: vec![
                exhaustive(protocol(binary, Interleaved, Opportunistic { distance: 2 }, sync, 8), 2, any, property::SEND_BOUND, Some(true)),
                exhaustive(protocol(lame, Interleaved, Optimized { distance: 2 }, Overlapped, 8), 2, any, property::SEND_BOUND, Some(true)),
            ],
        },
        Claim {
            text: "Processes colored by correction (c-nodes) never send a correction message (CG §III.B–C).",
            checks: vec![
                exhaustive(protocol(lame, Interleaved, Checked, sync, 8), 2, any, property::C_NODES_SILENT, Some(true)),
                exhaustive(protocol(TreeKind::Binomial, Interleaved, Delayed { delay: 4 }, Overlapped, 8), 2, any, property::C_NODES_SILENT, Some(true)),
                exhaustive(protocol(binary, InOrder, Opportunistic { distance: 1 }, sync, 8), 2, any, property::C_NODES_SILENT, Some(true)),
            ],
        },
        Claim {
            text: "CT Corollary 1 and Lemma 2: fault-free, synchronized checked correction sends 3 + ⌊L/o⌋ messages per process and lasts 4o + L + ⌊L/o⌋·o. Exact when o divides L; when it does not, the LogP driver sends one message more and lasts o steps longer (3 + ⌈L/o⌉ and 4o + L + ⌈L/o⌉·o: a send at 3o + ⌊L/o⌋·o < 3o + L still happens, where the paper's proof bounds the last send by n·o ≤ 3o + L; derivation in sim/tests/drivers/sim_lemmas.rs).",
            checks: vec![
                exhaustive(protocol(lame, Interleaved, Checked, sync, 8), 0, pre, property::CHECKED_MESSAGES, Some(true)),
                exhaustive(protocol(lame, Interleaved, Checked, sync, 8), 0, pre, property::CHECKED_LATENCY, Some(true)),
                exhaustive(with_logp(protocol(lame, Interleaved, Checked, sync, 8), 3, 2), 0, pre, property::CHECKED_MESSAGES, Some(true)),
                exhaustive(with_logp(protocol(lame, Interleaved, Checked, sync, 8), 3, 2), 0, pre, property::CHECKED_LATENCY, Some(true)),
            ],
        },
        Claim {
            text: "CT Lemma 3: after pre-operation crashes, synchronized checked correction lasts between L_FF + g_max·o and L_FF + (2·g_max + 1)·o, for P ≫ g_max. Read as P ≥ 2·g_max + 3 + ⌈L/o⌉ on a ring larger than a fault-free sweep (P > 4 + ⌈L/o⌉); with less room the lower bound fails (kary:2, P = 12, crashes {1, 6, 8}: g_max = 7, the correction lasts L_FF + 6; `verify/tests/families/quantitative.rs`).",
            checks: vec![
                exhaustive(protocol(binary, Interleaved, Checked, sync, 12), 3, pre, property::CHECKED_GAP_LATENCY, Some(true)),
                exhaustive(protocol(lame, InOrder, Checked, sync, 12), 3, pre, property::CHECKED_GAP_LATENCY, Some(true)),
            ],
        },
        Claim {
            text: "CT §4.1: fault-free, optimized opportunistic correction sends at most as many messages as synchronized checked correction; CT §3.3: fault-free, delayed correction sends one message per corrector (synchronized, delay longer than a hop).",
            checks: vec![
                exhaustive(protocol(binary, Interleaved, Optimized { distance: 4 }, sync, 12), 0, pre, property::OPTIMIZED_MESSAGES, Some(true)),
                exhaustive(protocol(lame, Interleaved, Optimized { distance: 4 }, Overlapped, 12), 0, pre, property::OPTIMIZED_MESSAGES, Some(true)),
                exhaustive(protocol(TreeKind::Binomial, Interleaved, Delayed { delay: 5 }, sync, 12), 0, pre, property::DELAYED_MESSAGES, Some(true)),
            ],
        },
        Claim {
            text: "CG Alg. 3, lines 11–14: a failure-proof c-node delivers only once it knows f + 1 correctors, or after SOS.",
            checks: vec![
                exhaustive(protocol(lame, Interleaved, CorrectionSpec::FailProof { faults: 1, sos_timeout: Option::None, sos_on_full_loop: true }, sync, 8), 1, any, property::FAILPROOF_WAITS, Some(true)),
                exhaustive(protocol(lame, Interleaved, CorrectionSpec::FailProof { faults: 2, sos_timeout: Option::None, sos_on_full_loop: true }, sync, 7), 2, any, property::FAILPROOF_WAITS, Some(true)),
            ],
        },
        Claim {
            text: "CG Claim 5: with at least f² + f + 1 g-nodes and at most f crashes, failure-proof correction completes without SOS. As printed, Alg. 3 enters SOS at line 28 when a sweep comes back to its sender without f + 1 correctors, which small rings force (failproof:1 at P = 3 to 5 with a crash during correction; from P = 6 on it holds here); CG's own footnote to Claim 5 says its analysis assumes a node may not enter SOS at line 28 when sending to itself, so the claim is about that variant: `failproof:F` runs the listing, `failproof-footnote:F` the footnote's variant, in which the claim holds at every P checked (the last two checks; it would catch a regression the listing's failure hides). CG starts correction at T, after the gossip; with overlapped start a corrector of the listing can loop the ring before the others are colored and enter SOS with no crash at all (line 28), so the claim does not carry over to overlapped Corrected Trees as listed.",
            checks: vec![
                exhaustive(protocol(lame, Interleaved, CorrectionSpec::FailProof { faults: 1, sos_timeout: Option::None, sos_on_full_loop: true }, sync, 10), 1, any, property::FAILPROOF_NO_SOS, Some(true)),
                exhaustive(protocol(lame, Interleaved, CorrectionSpec::FailProof { faults: 1, sos_timeout: Option::None, sos_on_full_loop: true }, sync, 10), 0, pre, property::FAILPROOF_FAULT_FREE_NO_SOS, Some(true)),
                exhaustive(protocol(lame, Interleaved, CorrectionSpec::FailProof { faults: 2, sos_timeout: Option::None, sos_on_full_loop: true }, sync, 8), 2, pre, property::FAILPROOF_NO_SOS, Some(true)),
                exhaustive(protocol(lame, Interleaved, CorrectionSpec::FailProof { faults: 1, sos_timeout: Option::None, sos_on_full_loop: true }, Overlapped, 10), 0, pre, property::FAILPROOF_FAULT_FREE_NO_SOS, Option::None),
                exhaustive(protocol(lame, Interleaved, CorrectionSpec::FailProof { faults: 1, sos_timeout: Option::None, sos_on_full_loop: false }, sync, 10), 1, any, property::FAILPROOF_NO_SOS, Some(true)),
                exhaustive(protocol(lame, Interleaved, CorrectionSpec::FailProof { faults: 2, sos_timeout: Option::None, sos_on_full_loop: false }, sync, 7), 2, any, property::FAILPROOF_NO_SOS, Some(true)),
            ],
        },
        Claim {
            text: "The stop rule (CT §3.1; the `Automaton::is_done` contract, which a runtime uses to stop serving a process): a process that says it has stopped never sends, delivers or completes again. Opportunistic, optimized and checked correction say so once their picks are empty; delayed and failure-proof correction never do (they answer later messages: `Stop` replies, SOS), so the rule says nothing about them.",
            checks: vec![
                exhaustive(protocol(lame, Interleaved, Checked, sync, 8), 2, any, property::STOPPED_SILENT, Some(true)),
                exhaustive(protocol(binary, InOrder, Checked, Overlapped, 8), 2, any, property::STOPPED_SILENT, Some(true)),
                exhaustive(protocol(binary, Interleaved, Opportunistic { distance: 2 }, Overlapped, 8), 2, any, property::STOPPED_SILENT, Some(true)),
                exhaustive(protocol(lame, Interleaved, Optimized { distance: 2 }, sync, 8), 2, any, property::STOPPED_SILENT, Some(true)),
            ],
        },
        Claim {
            text: "Optimized opportunistic correction preserves what opportunistic colors (CT §3.3: it \"preserves non-faulty liveness\").",
            checks: vec![
                ClaimCheck::Scenario {
                    spec: protocol(binary, Interleaved, Opportunistic { distance: 4 }, sync, 13),
                    pre: vec![1, 6, 8],
                    crash_at: vec![],
                    source: "the shortest liveness counterexample of optimized:4 at P = 13, f = 3 (`check --tree kary:2 --correction optimized:4 --procs 13 --crashes 3`)",
                },
                ClaimCheck::Scenario {
                    spec: protocol(binary, Interleaved, Optimized { distance: 4 }, sync, 13),
                    pre: vec![1, 6, 8],
                    crash_at: vec![],
                    source: "the same failure set",
                },
            ],
        },
    ]
}

/// Decides one exhaustive claim check: (holds, P reached or smallest violating P, states, trace).
pub fn decide(
    spec: &ProtocolSpec,
    crashes: u32,
    timing: CrashTiming,
    property: &'static str,
) -> (bool, u32, usize, Vec<String>) {
    let mut states = 0;
    for procs in 2..=spec.procs {
        let s = ProtocolSpec { procs, ..*spec };
        let result = check_within(
            &s,
            crashes.min(procs - 1),
            timing,
            ModelKind::Timed,
            &MATRIX_BUDGET,
            None,
        )
        .expect("valid spec");
        states = result.states;
        if let Some(v) = result.violations.iter().find(|v| v.property == property) {
            return (false, procs, states, v.trace.clone());
        }
    }
    (true, spec.procs, states, Vec::new())
}

/// How a decided check compares with the paper's prediction.
fn agreement(expected: Option<bool>, holds: bool) -> &'static str {
    match expected {
        Some(e) if e == holds => "as the paper says",
        Some(_) => "**contradicts the paper**",
        None => "the paper predicts no outcome at this bound",
    }
}

/// Runs a guided random search: (`property` not violated, the minimized counterexample with a
/// first line naming the crashes).
pub fn decide_search(
    spec: &ProtocolSpec,
    options: &SearchOptions,
    property: &'static str,
) -> (bool, Vec<String>) {
    let model =
        crate::TimedModel::corrected_tree(spec, options.pre + options.during, CrashTiming::Any)
            .expect("valid spec");
    let result = model.search(options);
    match result.found.iter().find(|f| f.property == property) {
        None => (true, Vec::new()),
        Some(found) => {
            let mut trace = vec![format!(
                "found in walk {} of {}, minimized to crashes {:?} before and {:?} (rank, instant) during the operation",
                found.walk, options.walks, found.pre, found.during
            )];
            trace.extend(found.trace.iter().cloned());
            (false, trace)
        }
    }
}

/// Replays a fixed scenario in the timed model: (every live process delivered, trace).
pub fn decide_scenario(
    spec: &ProtocolSpec,
    pre: &[ftcoll::Rank],
    crash_at: &[(ftcoll::Rank, ftcoll::Time)],
) -> (bool, Vec<String>) {
    let model = crate::TimedModel::corrected_tree(
        spec,
        (pre.len() + crash_at.len()) as u32,
        CrashTiming::Any,
    )
    .expect("valid spec");
    model.describe_run(
        pre,
        crash_at,
        format!("before the operation: ranks {pre:?} crash; during it: {crash_at:?} (rank, time)"),
    )
}

/// A part of the matrix document that can be regenerated alone: `run` regenerates every part
/// and puts them between the fixed text of [`head`], [`grid_head`], [`async_head`] and
/// [`footer`]; `verify/tests/families/matrix.rs` regenerates one part per test.
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    /// The claims section (after [`head`]): every check of [`claims`], in order.
    Claims,
    /// Grid table rows, one line per row, in the order given (the document has [`rows`]).
    Grid(Vec<Row>),
    /// Asynchronous-model table rows (the document has [`async_rows`]).
    Async(Vec<Row>),
    /// The FTCO section's claims (after [`ftco_head`]): every check of [`ftco_claims`].
    FtcoClaims,
    /// FTCO table rows (the document has [`ftco_rows`], after [`ftco_table_head`]).
    Ftco(Vec<FtcoRow>),
}

/// The text of one regenerated [`Part`] and what it adds to the [`footer`].
#[derive(Clone, Debug, PartialEq)]
pub struct Rendered {
    /// The part's lines, each ending with a newline.
    pub text: String,
    /// Grid or asynchronous cells (0 for the claims).
    pub cells: usize,
    /// Unique states at the largest P, summed over the cells (0 for the claims).
    pub states: usize,
}

/// The document up to the claims: title, preamble, the claims heading.
pub fn head(args: &MatrixArgs) -> String {
    let mut doc = String::new();
    let _ = writeln!(doc, "# Verification matrix\n");
    let _ = writeln!(
        doc,
        "Generated by `cargo run -p ftcoll-verify --release -- matrix --max-procs {} --max-crashes {}` \
         (do not edit: `verify/tests/families/matrix.rs` regenerates this file and its traces and compares them). Timed model \
         (the LogP driver's exact semantics, `L = 2, o = 1`), exhaustive search (`ftcoll_verify::depth`: depth first over the crash schedules, each state once) \
         for every `P` from 2 to \
         {}; `f` crash-stop crashes of non-root processes (capped at `P − 1`), either *pre* (before \
         the operation) or *any* (before any instant of it; the search offers a process's crash \
         only before the first instant and before the instants at which it has an event, which \
         changes no verdict: docs/design.md, \"Crashes where they matter\", and \
         `verify/tests/engines/crash_instants.rs`; the FTCO cells and claims likewise). Properties: {}. \
         A cell lists the violated properties with the smallest violating `P` and a link to a \
         minimized counterexample (fewest crashes, then earliest instants), or says that all hold, with the unique states at the largest `P` and \
         the total time. The horizon of a run contains every timer the protocol sets (delays, SOS, \
         timeouts); a run still busy there violates termination and leaves liveness *undecided* (the cell \
         says so), never holding. A pre-operation counterexample names the smallest crash set (fewest \
         ranks, then the lexicographically first).\n",
        args.max_procs,
        args.max_crashes,
        args.max_procs,
        property::ALL.iter().map(|p| format!("*{p}*")).collect::<Vec<_>>().join("; ")
    );
    let _ = writeln!(
        doc,
        "The Corrected Tree family's protocol rules and quantitative claims, each citing its source \
         and each shown able to fail by a mutant (`verify/tests/families/mutants.rs`), are decided in the claims \
         section on the configurations they are about (including where a claim does not hold as \
         printed), by `check` and `search`, and by the fast suite's pinned cells \
         (`verify/tests/engines/pinned_cells.rs`); the grid's exhaustive columns show the four properties above, \
         and its last column searches each row at P = {GRID_SEARCH_PROCS} ({} guided walks, {} crashes before and {} during \
         the operation, seed {}) for a violation of any of them or of a rule. A rule \
         applies only to the variant and conditions its text names: {}. Checks marked *search* are guided \
         random walks of the same timed model at sizes exhaustive search cannot reach \
         (`ftcoll-verify search`, `verify/src/search.rs`): crashes go to the ends of gaps, a \
         violation found is minimized (fewest crashes, then earliest instants, then smallest ranks) \
         and replayed, and finding none is only \"not violated in N walks\".\n",
        GRID_SEARCH.walks,
        GRID_SEARCH.pre,
        GRID_SEARCH.during,
        GRID_SEARCH.seed,
        property::RULES.iter().map(|p| format!("*{p}*")).collect::<Vec<_>>().join("; ")
    );
    let _ = writeln!(doc, "## Claims\n");
    doc
}

/// Between the claims and the grid rows: the grid heading and the table header.
pub fn grid_head(args: &MatrixArgs) -> String {
    let mut doc = String::new();
    let _ = writeln!(doc, "\n## Grid\n");
    let mut header = String::from("| correction | tree | order | start |");
    let mut rule = String::from("|---|---|---|---|");
    for timing in [CrashTiming::Pre, CrashTiming::Any] {
        for f in 1..=args.max_crashes {
            let _ = write!(header, " {timing}, f = {f} |");
            rule.push_str("---|");
        }
    }
    let _ = write!(header, " search, P = {GRID_SEARCH_PROCS} |");
    rule.push_str("---|");
    let _ = writeln!(doc, "{header}\n{rule}");
    doc
}

/// Between the grid rows and the asynchronous rows: that section's heading, text and header.
pub fn async_head(args: &MatrixArgs) -> String {
    let mut doc = String::new();
    let _ = writeln!(
        doc,
        "\n## Asynchronous model\n\nAny delivery order, timers firing at any moment, crashes at any moment \
         (`AsyncModel`), every P from 2 to {}, for the variants whose correctness arguments need no \
         timing (overlapped start). Delayed and failure-proof correction depend on timing by design \
         (their delay and SOS timeout); their asynchronous state spaces exceed 5·10^6 states at P = 4.\n",
        args.max_async_procs
    );
    let _ = writeln!(
        doc,
        "The last column draws {ASYNC_WALKS} random runs of each row at P = {ASYNC_WALK_PROCS} with up to \
         {ASYNC_WALK_CRASHES} crashes at any moment (`ftcoll-verify search --model async`): every run \
         picks a crash set, then one enabled action after another uniformly, and is checked like an \
         exhaustive one. Finding nothing is only \"not violated in N walks\".\n"
    );
    let _ = writeln!(
        doc,
        "Why exhaustive search stops at P = 4 here (the target is P = 6 with two crashes). \
         Any delivery order makes both kinds of exhaustive search grow by more than an order of \
         magnitude per process, and no sound reduction we know removes enough. The breadth-first \
         search of every interleaving holds 90,193 states for opportunistic:2 at P = 4 without \
         crashes and more than 3.6·10^6 at P = 5 (where a 22 GB budget's state cap stopped it). The \
         search by fingerprints (`--search fingerprints`, this section's engine: the same unique \
         states, one 64-bit fingerprint held per state) has room for them: opportunistic:2 at P = 5 \
         without crashes is 43,911,894 states (237 s on two threads, 626 MB), but with one crash \
         its states pass 10^8 in ten minutes before it ends, even with the asynchronous crash \
         reductions of `--crashes-at-events-only`. The dynamic \
         partial-order reduction (`--search dpor`: one run per way the processes can order what \
         they see, no state held) needs 1.6·10^8 events at P = 4 already: each process has many \
         orders of its messages and send slots but few local states, and only a search that merges \
         states exploits that. A static reduction (persistent sets) needs processes that can no \
         longer send to each other, but at P ≤ 6 a colored process with distance-2 or checked \
         correction may still send to nearly every other; the Lamé tree on a ring has no \
         symmetry to exploit. docs/performance.md has the measurements.\n"
    );
    let _ = writeln!(
        doc,
        "| correction | tree | order | start | f = 0 | f = 1 | runs, P = {ASYNC_WALK_PROCS}, f = {ASYNC_WALK_CRASHES} |\n|---|---|---|---|---|---|---|"
    );
    doc
}

/// The end of the document: cells, their states at the largest P, the run time.
pub fn footer(cells: usize, states: usize, seconds: f64, threads: u32) -> String {
    format!(
        "\n{cells} cells, {states} unique states at the largest P in total, {seconds:.1} s on {threads} threads.\n"
    )
}

/// The first columns of a table row, which identify it: `| correction | tree | order | start |`.
pub fn row_label(row: &Row) -> String {
    format!(
        "| {} | {} | {} | {} |",
        row.correction, row.tree, row.order, row.start
    )
}

/// Regenerates one part on `args.threads` threads, writing its counterexample traces into
/// `traces_dir`.
pub fn render(args: &MatrixArgs, part: &Part, traces_dir: &Path) -> Result<Rendered, String> {
    match part {
        Part::Claims => render_claims(args, traces_dir),
        Part::FtcoClaims => render_ftco_claims(args, traces_dir),
        Part::Ftco(rows) => {
            let mut jobs = Vec::new();
            for &row in rows {
                for timing in [CrashTiming::Pre, CrashTiming::Any] {
                    for crashes in 1..=args.max_crashes {
                        jobs.push((row, timing, crashes));
                    }
                }
            }
            let max_procs = args.max_ftco_procs;
            let cells = parallel(jobs, args.threads, |(row, timing, crashes)| {
                check_ftco_cell(row, timing, crashes, max_procs)
            });
            let mut text = String::new();
            let mut states = 0;
            for chunk in cells.chunks(2 * args.max_crashes.max(1) as usize) {
                let mut line = ftco_row_label(&chunk[0].row);
                for cell in chunk {
                    states += cell.states;
                    let cell_text = ftco_cell_text(cell, traces_dir)?;
                    let _ = write!(line, " {cell_text} |");
                }
                let _ = writeln!(text, "{line}");
            }
            Ok(Rendered {
                text,
                cells: cells.len(),
                states,
            })
        }
        Part::Grid(rows) => {
            let mut jobs = Vec::new();
            for &row in rows {
                for timing in [CrashTiming::Pre, CrashTiming::Any] {
                    for crashes in 1..=args.max_crashes {
                        jobs.push((row, timing, crashes));
                    }
                }
            }
            let max_procs = args.max_procs;
            let cells = parallel(jobs, args.threads, |(row, timing, crashes)| {
                check_cell(row, timing, crashes, max_procs)
            });
            let searches = parallel(rows.clone(), args.threads, search_row);
            let mut rendered = table(&cells, 2 * args.max_crashes as usize, "", traces_dir)?;
            let mut text = String::new();
            for (line, (row, result)) in rendered.text.lines().zip(rows.iter().zip(&searches)) {
                let cell = search_text(row, result, traces_dir)?;
                let _ = writeln!(text, "{line} {cell} |");
            }
            rendered.text = text;
            Ok(rendered)
        }
        Part::Async(rows) => {
            let mut jobs = Vec::new();
            for &row in rows {
                for crashes in 0..=1 {
                    jobs.push((row, crashes));
                }
            }
            let max_async = args.max_async_procs;
            let cells = parallel(jobs, args.threads, |(row, crashes)| {
                check_cell_in(row, CrashTiming::Any, crashes, max_async, ModelKind::Async)
            });
            let walks = parallel(rows.clone(), args.threads, async_walk_row);
            let mut rendered = table(&cells, 2, "async-", traces_dir)?;
            let mut text = String::new();
            for (line, (row, result)) in rendered.text.lines().zip(rows.iter().zip(&walks)) {
                let cell = async_walk_text(row, result, traces_dir)?;
                let _ = writeln!(text, "{line} {cell} |");
            }
            rendered.text = text;
            Ok(rendered)
        }
    }
}

/// The grid's last column: a guided random search of each row beyond the
/// exhaustive bound — [`GRID_SEARCH_PROCS`] processes, the walks of [`GRID_SEARCH`] — over every
/// property the family declares (the four above and the rules), counterexamples minimized.
pub const GRID_SEARCH: SearchOptions = SearchOptions {
    walks: 1000,
    seed: 1,
    pre: 5,
    during: 2,
    guided: true,
    threads: 1,
};

/// `P` of the grid's search column: the smallest ring the known crash-during-correction failure
/// of checked correction fits in (CG §III.C; `sim/tests/drivers/sim_correction.rs`).
pub const GRID_SEARCH_PROCS: u32 = 34;

/// The grid's search of one row ([`GRID_SEARCH`]).
pub fn search_row(row: Row) -> crate::search::SearchResult {
    let options = GRID_SEARCH;
    crate::TimedModel::corrected_tree(
        &spec(&row, GRID_SEARCH_PROCS),
        options.pre + options.during,
        CrashTiming::Any,
    )
    .expect("valid spec")
    .search(&options)
}

/// The asynchronous section's last column: random runs at a size its exhaustive search cannot
/// reach (P = 6 and up to two crashes at any moment take more than 10^9 states;
/// docs/verification.md, "Asynchronous model"), drawn by [`crate::dpor::walks`].
pub const ASYNC_WALK_PROCS: u32 = 6;

/// Crashes of the asynchronous section's random runs (at any moment).
pub const ASYNC_WALK_CRASHES: u32 = 2;

/// Random runs per asynchronous row (seed 1).
pub const ASYNC_WALKS: u64 = 100_000;

/// The random runs of one asynchronous row.
pub fn async_walk_row(row: Row) -> crate::dpor::Walked {
    let model =
        crate::AsyncModel::corrected_tree(&spec(&row, ASYNC_WALK_PROCS), ASYNC_WALK_CRASHES)
            .expect("valid spec");
    crate::dpor::walks(&model, ASYNC_WALKS, 1, 1).expect("few crash sets at P = 6")
}

/// The text of an asynchronous row's random-run cell: "not violated in N walks", or each
/// violated property with the first walk that violated it and a link to its run.
fn async_walk_text(
    row: &Row,
    result: &crate::dpor::Walked,
    traces_dir: &Path,
) -> Result<String, String> {
    let violated: Vec<(usize, &(u64, Vec<String>))> = property::ALL
        .iter()
        .enumerate()
        .filter_map(|(i, p)| result.found.get(p).map(|f| (i, f)))
        .collect();
    if violated.is_empty() {
        return Ok(format!("not violated in {} walks", result.walks));
    }
    let mut cell = Vec::new();
    let mut body = Vec::new();
    for (i, (walk, trace)) in violated {
        cell.push(format!("{} ✗ walk {walk}", property::SHORT[i]));
        body.push(format!(
            "== {} (short: {}), found in walk {walk} of {}",
            property::ALL[i],
            property::SHORT[i],
            result.walks
        ));
        body.extend(trace.iter().cloned());
    }
    let name = format!(
        "async-walks-{}-{}-{}-{}.txt",
        row.correction, row.tree, row.order, row.start
    )
    .replace(':', "");
    let title = format!(
        "{} {} {} {} P={ASYNC_WALK_PROCS} asynchronous model, {} random runs (seed 1, at most {ASYNC_WALK_CRASHES} crashes at any moment)",
        row.correction, row.tree, row.order, row.start, result.walks
    );
    write_trace(&traces_dir.join(&name), &title, &body)?;
    Ok(format!("{} [trace](traces/{name})", cell.join(", ")))
}

/// The text of a row's search cell: "not violated in N walks", or each violated property with
/// the walk that first found it and a link to the minimized counterexamples (written here).
fn search_text(
    row: &Row,
    result: &crate::search::SearchResult,
    traces_dir: &Path,
) -> Result<String, String> {
    if result.found.is_empty() {
        return Ok(format!("not violated in {} walks", result.walks));
    }
    let names = property::ALL
        .iter()
        .chain(&property::RULES)
        .zip(property::SHORT.iter().chain(&property::RULES_SHORT));
    let short = |p: &str| {
        names
            .clone()
            .find(|(n, _)| **n == p)
            .map_or(p.to_string(), |(_, s)| s.to_string())
    };
    let mut violated = Vec::new();
    let mut body = Vec::new();
    for found in &result.found {
        violated.push(format!("{} ✗ walk {}", short(found.property), found.walk));
        body.push(format!(
            "== {} (short: {}), found in walk {} of {}, minimized to crashes {:?} before and {:?} (rank, instant) during the operation",
            found.property,
            short(found.property),
            found.walk,
            result.walks,
            found.pre,
            found.during
        ));
        body.extend(found.trace.iter().cloned());
    }
    let name = format!(
        "search-{}-{}-{}-{}.txt",
        row.correction, row.tree, row.order, row.start
    )
    .replace(':', "");
    let o = GRID_SEARCH;
    let title = format!(
        "{} {} {} {} P={GRID_SEARCH_PROCS} search of {} walks (seed {}, {} crashes before and {} during the operation, guided to gap ends)",
        row.correction, row.tree, row.order, row.start, o.walks, o.seed, o.pre, o.during
    );
    write_trace(&traces_dir.join(&name), &title, &body)?;
    Ok(format!("{} [trace](traces/{name})", violated.join(", ")))
}

/// The table rows of `cells`, `per_row` cells a row.
fn table(
    cells: &[Cell],
    per_row: usize,
    prefix: &str,
    traces_dir: &Path,
) -> Result<Rendered, String> {
    let mut text = String::new();
    let mut states = 0;
    for chunk in cells.chunks(per_row.max(1)) {
        states += table_row(&mut text, chunk, prefix, traces_dir)?;
    }
    Ok(Rendered {
        text,
        cells: cells.len(),
        states,
    })
}

fn render_claims(args: &MatrixArgs, traces_dir: &Path) -> Result<Rendered, String> {
    let claim_list = claims();
    let claim_jobs: Vec<ClaimCheck> = claim_list
        .iter()
        .flat_map(|c| c.checks.iter().cloned())
        .collect();
    let claim_results = parallel(claim_jobs, args.threads, |check| match check {
        ClaimCheck::Exhaustive {
            spec,
            crashes,
            timing,
            property,
            ..
        } => decide(&spec, crashes, timing, property),
        ClaimCheck::Scenario {
            spec,
            pre,
            crash_at,
            ..
        } => {
            let (holds, trace) = decide_scenario(&spec, &pre, &crash_at);
            (holds, spec.procs, 0, trace)
        }
        ClaimCheck::Search {
            spec,
            options,
            property,
            ..
        } => {
            let (holds, trace) = decide_search(&spec, &options, property);
            (holds, spec.procs, options.walks as usize, trace)
        }
    });
    let mut doc = String::new();
    let mut k = 0;
    for claim in &claim_list {
        let _ = writeln!(doc, "- **{}**", claim.text);
        for check in &claim.checks {
            let (holds, procs, states, trace) = &claim_results[k];
            k += 1;
            match check {
                ClaimCheck::Exhaustive {
                    spec,
                    crashes,
                    timing,
                    property,
                    expected,
                } => {
                    let verdict = if *holds {
                        format!(
                            "holds, exhaustive up to P = {procs} ({states} states at P = {procs})"
                        )
                    } else {
                        let name = format!(
                            "claim-{}-f{}-{}{}.txt",
                            slug_spec(spec),
                            crashes,
                            timing,
                            rule_suffix(property)
                        );
                        write_trace(
                            &traces_dir.join(&name),
                            &format!("{} f={crashes} {timing}: {property}", spec.name()),
                            trace,
                        )?;
                        format!("violated: shortest counterexample at P = {procs}, [trace](traces/{name})")
                    };
                    let agrees = agreement(*expected, *holds);
                    let _ = writeln!(
                        doc,
                        "  - `{}`, f = {crashes}, {timing}: *{}* — {verdict} ({agrees})",
                        spec.name(),
                        short(property)
                    );
                }
                ClaimCheck::Search {
                    spec,
                    options,
                    property,
                    expected,
                } => {
                    let verdict = if *holds {
                        format!("not violated in {states} walks (a bounded claim)")
                    } else {
                        let name = format!(
                            "claim-search-{}{}.txt",
                            slug_spec(spec),
                            rule_suffix(property)
                        );
                        write_trace(
                            &traces_dir.join(&name),
                            &format!("{} search: {property}", spec.name()),
                            trace,
                        )?;
                        format!(
                            "violated: {}, [trace](traces/{name})",
                            trace.first().map_or("", String::as_str)
                        )
                    };
                    let agrees = agreement(*expected, *holds);
                    let _ = writeln!(
                        doc,
                        "  - `{}`, search of {} walks (seed {}, {} crashes before and {} during the operation, guided to gap ends): *{}* — {verdict} ({agrees})",
                        spec.name(),
                        options.walks,
                        options.seed,
                        options.pre,
                        options.during,
                        short(property)
                    );
                }
                ClaimCheck::Scenario {
                    spec,
                    pre,
                    crash_at,
                    source,
                } => {
                    let name = format!("claim-scenario-{}.txt", slug_spec(spec));
                    write_trace(&traces_dir.join(&name), &spec.name(), trace)?;
                    let verdict = if *holds {
                        "every live process delivered"
                    } else {
                        "**a live process never delivered**"
                    };
                    let _ = writeln!(
                        doc,
                        "  - `{}`, pre-operation crashes {pre:?}, crashes during it {crash_at:?} (rank, time), from {source}: {verdict}, [trace](traces/{name})",
                        spec.name()
                    );
                }
            }
        }
    }
    Ok(Rendered {
        text: doc,
        cells: 0,
        states: 0,
    })
}

/// Regenerates the matrix file and its traces: every part, between the fixed text.
pub fn run(args: &MatrixArgs) -> Result<(), String> {
    let started = std::time::Instant::now();
    let traces_dir = args
        .out
        .parent()
        .unwrap_or_else(|| Path::new("."))
        .join("traces");
    std::fs::create_dir_all(&traces_dir)
        .map_err(|e| format!("--out: cannot create {}: {e}", traces_dir.display()))?;
    let grid = render(args, &Part::Grid(rows()), &traces_dir)?;
    let asynchronous = render(args, &Part::Async(async_rows()), &traces_dir)?;
    let claims = render(args, &Part::Claims, &traces_dir)?;
    let ftco = render(args, &Part::Ftco(ftco_rows()), &traces_dir)?;
    let ftco_claims = render(args, &Part::FtcoClaims, &traces_dir)?;
    // The Corrected Gossip section (`crate::gossip::section`): its cells are not in the footer's
    // totals, which count the grid, asynchronous and FTCO tables.
    let (gossip, _) = crate::gossip::section(&traces_dir)?;
    let doc = [
        head(args),
        claims.text,
        grid_head(args),
        grid.text,
        async_head(args),
        asynchronous.text,
        ftco_head(args),
        ftco_claims.text,
        ftco_table_head(args),
        ftco.text,
        gossip,
        footer(
            grid.cells + asynchronous.cells + ftco.cells,
            grid.states + asynchronous.states + ftco.states,
            started.elapsed().as_secs_f64(),
            args.threads,
        ),
    ]
    .concat();
    std::fs::write(&args.out, doc)
        .map_err(|e| format!("--out: cannot write {}: {e}", args.out.display()))?;
    println!(
        "wrote {} ({} cells) in {:.1} s",
        args.out.display(),
        grid.cells,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Appends one table row (the cells of one protocol row); returns the states it explored.
fn table_row(
    doc: &mut String,
    cells: &[Cell],
    prefix: &str,
    traces_dir: &Path,
) -> Result<usize, String> {
    let Some(first) = cells.first() else {
        return Ok(0);
    };
    let mut line = row_label(&first.row);
    let mut states = 0;
    for cell in cells {
        states += cell.states;
        let text = cell_text(cell, prefix, traces_dir)?;
        let _ = write!(line, " {text} |");
    }
    let _ = writeln!(doc, "{line}");
    Ok(states)
}

/// The text of one grid cell, writing its trace file when something is violated.
fn cell_text(cell: &Cell, prefix: &str, traces_dir: &Path) -> Result<String, String> {
    let row = cell.row;
    verdict_text(
        &Scan {
            verdicts: cell.verdicts.clone(),
            states: cell.states,
            seconds: cell.seconds,
            undecided: cell.undecided.clone(),
        },
        cell.max_procs,
        (&property::ALL, &property::SHORT),
        &format!("{prefix}{}.txt", slug(&cell.row, cell.timing, cell.crashes)),
        &format!(
            "{}{} {} {} {} f={} {}",
            prefix, row.correction, row.tree, row.order, row.start, cell.crashes, cell.timing
        ),
        traces_dir,
    )
}

/// The text of a cell of any family: "all hold ≤ P (N st, T s)", or the violated and undecided
/// properties with a link to the trace file `name` (written here, titled `title`).
fn verdict_text(
    scan: &Scan,
    max_procs: u32,
    (all, short): (&[&'static str], &[&'static str]),
    name: &str,
    title: &str,
    traces_dir: &Path,
) -> Result<String, String> {
    let violated: Vec<String> = scan
        .verdicts
        .iter()
        .zip(short)
        .filter_map(|(v, name)| v.as_ref().map(|(p, _)| format!("{name} ✗ P={p}")))
        .collect();
    let undecided = undecided_text(&scan.undecided);
    if violated.is_empty() && !undecided.is_empty() {
        return Ok(format!("{} ({} st)", undecided.join(", "), scan.states));
    }
    let violated: Vec<String> = violated.into_iter().chain(undecided).collect();
    if violated.is_empty() {
        return Ok(format!(
            "all hold ≤ {max_procs} ({} st, {:.2} s)",
            scan.states, scan.seconds
        ));
    }
    let mut body = Vec::new();
    for ((v, prop), short_name) in scan.verdicts.iter().zip(all).zip(short) {
        if let Some((p, trace)) = v {
            body.push(format!("== {prop} (short: {short_name}), smallest P = {p}"));
            body.extend(trace.iter().cloned());
        }
    }
    write_trace(&traces_dir.join(name), title, &body)?;
    Ok(format!("{} [trace](traces/{name})", violated.join(", ")))
}

/// The matrix text without anything that varies between runs (times), for comparing a
/// regenerated matrix with the committed one.
pub fn normalize(doc: &str) -> String {
    doc.lines()
        .map(|l| {
            // "…, 221.9 s on 2 threads." → "…": only the run time goes.
            let l = match l.find(" s on ") {
                Some(i) => l[..i].rfind(", ").map_or(l, |j| &l[..j]),
                None => l,
            };
            let mut out = String::new();
            let mut rest = l;
            // "(N st, T s)" → "(N st)"
            while let Some(i) = rest.find(" st, ") {
                out.push_str(&rest[..i + 3]);
                let after = &rest[i + 5..];
                let end = after.find(" s)").map_or(0, |j| j + 2);
                rest = &after[end..];
            }
            out.push_str(rest);
            out
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn short(property: &str) -> &'static str {
    property::ALL
        .iter()
        .zip(property::SHORT)
        .chain(property::RULES.iter().zip(property::RULES_SHORT))
        .find(|(p, _)| **p == property)
        .map_or("?", |(_, s)| s)
}

fn slug_spec(spec: &ProtocolSpec) -> String {
    let logp = if spec.logp == LogP::default() {
        String::new()
    } else {
        format!("-L{}o{}", spec.logp.latency(), spec.logp.overhead())
    };
    format!(
        "{}-{}-{}-{}-P{}{logp}",
        spec.correction, spec.tree, spec.order, spec.start, spec.procs
    )
    .replace(':', "")
}

/// A file-name suffix for a protocol rule's trace (none for the four standard properties, whose
/// traces keep their names).
fn rule_suffix(property: &str) -> String {
    property::RULES
        .iter()
        .position(|&p| p == property)
        .map_or(String::new(), |i| format!("-rule{i}"))
}

fn write_trace(path: &std::path::Path, title: &str, lines: &[String]) -> Result<(), String> {
    let mut text = format!("# {title}\n");
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// A row of the FTCO section: one collective on one tree, everything but `P` and the faults.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FtcoRow {
    /// Bcast, Reduce or Allreduce.
    pub collective: Collective,
    /// The tree.
    pub kind: FtcoKind,
    /// `R`.
    pub roots: u64,
    /// When processes enter.
    pub entry: Entry,
    /// Immune root or root replacement.
    pub root_failure: RootFailure,
}

impl FtcoRow {
    /// The spec at `P = procs` (`L = 2`, the default timeout).
    pub fn spec(&self, procs: u32) -> FtcoSpec {
        FtcoSpec {
            roots: self.roots,
            entry: self.entry,
            root_failure: self.root_failure,
            ..FtcoSpec::new(self.collective, self.kind, procs)
        }
    }
}

/// The FTCO section's rows: Bcast, Reduce and Allreduce on the binary
/// heap and the 2-nomial tree, everyone entering together and odd ranks entering late with the
/// imbalance extension; the multi-root 2-nomial (`R = 2`); and root replacement (end of §4)
/// for Reduce and Allreduce, where rank 0 may crash too.
pub fn ftco_rows() -> Vec<FtcoRow> {
    let collectives = [Collective::Bcast, Collective::Reduce, Collective::Allreduce];
    let row = |collective, kind, roots, entry, root_failure| FtcoRow {
        collective,
        kind,
        roots,
        entry,
        root_failure,
    };
    let mut rows = Vec::new();
    for kind in [FtcoKind::KAry(2), FtcoKind::KNomial(2)] {
        for entry in [Entry::Together, Entry::LateAlg5] {
            for collective in collectives {
                rows.push(row(collective, kind, 1, entry, RootFailure::Immune));
            }
        }
    }
    for collective in collectives {
        rows.push(row(
            collective,
            FtcoKind::KNomial(2),
            2,
            Entry::Together,
            RootFailure::Immune,
        ));
    }
    for collective in [Collective::Reduce, Collective::Allreduce] {
        rows.push(row(
            collective,
            FtcoKind::KAry(2),
            1,
            Entry::Together,
            RootFailure::ReplacedByChildren,
        ));
    }
    rows
}

/// One FTCO cell: every P from 2 up.
#[derive(Clone, Debug, PartialEq)]
pub struct FtcoCell {
    /// The row.
    pub row: FtcoRow,
    /// Crash timing.
    pub timing: CrashTiming,
    /// `f`.
    pub crashes: u32,
    /// For each property of [`ftco_family::ALL`]: `None` if it held for every P checked, else
    /// the smallest violating P and its trace.
    pub verdicts: Vec<Option<(u32, Vec<String>)>>,
    /// Largest P checked.
    pub max_procs: u32,
    /// States explored at the largest P.
    pub states: usize,
    /// Total seconds.
    pub seconds: f64,
    /// As [`Cell::undecided`].
    pub undecided: Vec<(&'static str, u32)>,
}

/// Checks one FTCO cell for P = 2..=max_procs (f capped at the crashable ranks).
pub fn check_ftco_cell(
    row: FtcoRow,
    timing: CrashTiming,
    crashes: u32,
    max_procs: u32,
) -> FtcoCell {
    let Scan {
        verdicts,
        states,
        seconds,
        undecided,
    } = scan(
        (row.roots as u32).max(2)..=max_procs,
        &ftco_family::ALL,
        &ftco_family::SHORT,
        |procs| {
            let spec = row.spec(procs);
            let crashable = spec.crashable().expect("valid spec").len() as u32;
            ftco_family::check(&spec, crashes.min(crashable), timing, &MATRIX_BUDGET, None)
                .expect("valid spec")
        },
    );
    FtcoCell {
        row,
        timing,
        crashes,
        verdicts,
        max_procs,
        states,
        seconds,
        undecided,
    }
}

fn root_failure_name(r: RootFailure) -> &'static str {
    match r {
        RootFailure::Immune => "immune",
        RootFailure::ReplacedByChildren => "replaced",
    }
}

/// The first columns of an FTCO row: `| collective | tree | R | entry | root |`.
pub fn ftco_row_label(row: &FtcoRow) -> String {
    format!(
        "| {} | {} | {} | {} | {} |",
        ftco_family::collective_name(row.collective),
        row.kind,
        row.roots,
        row.entry,
        root_failure_name(row.root_failure)
    )
}

fn ftco_slug(row: &FtcoRow, timing: CrashTiming, crashes: u32) -> String {
    let entry = match row.entry {
        Entry::Together => "together",
        Entry::LateAlg5 => "late-alg5",
        Entry::LateDriver => "late-driver",
    };
    format!(
        "ftco-{}-{}-R{}-{entry}-{}-{timing}-f{crashes}",
        ftco_family::collective_name(row.collective),
        row.kind,
        row.roots,
        root_failure_name(row.root_failure)
    )
    .replace(':', "")
}

fn ftco_cell_text(cell: &FtcoCell, traces_dir: &Path) -> Result<String, String> {
    verdict_text(
        &Scan {
            verdicts: cell.verdicts.clone(),
            states: cell.states,
            seconds: cell.seconds,
            undecided: cell.undecided.clone(),
        },
        cell.max_procs,
        (&ftco_family::ALL, &ftco_family::SHORT),
        &format!("{}.txt", ftco_slug(&cell.row, cell.timing, cell.crashes)),
        &format!(
            "{} f={} {}",
            ftco_row_label(&cell.row),
            cell.crashes,
            cell.timing
        ),
        traces_dir,
    )
}

/// A claim of the FTCO section: one check of one property on one spec, with the outcome the
/// paper (or ftcoll's documented choice) predicts.
#[derive(Clone, Debug)]
pub struct FtcoClaim {
    /// The claim, with its source.
    pub text: &'static str,
    /// The protocol at the largest P (every P from 2 up is checked).
    pub spec: FtcoSpec,
    /// `f`.
    pub crashes: u32,
    /// Crash timing.
    pub timing: CrashTiming,
    /// The property.
    pub property: &'static str,
    /// Whether it should hold.
    pub expected: bool,
}

/// The FTCO section's claims: where `f_timeout` stops suspecting live processes, and what the
/// imbalance extension is for.
pub fn ftco_claims() -> Vec<FtcoClaim> {
    let allreduce = |procs| FtcoSpec::new(Collective::Allreduce, FtcoKind::KAry(2), procs);
    let with_timeout = |procs, round_trip, per_load| FtcoSpec {
        timeout: Some(TimeoutRule {
            round_trip,
            per_load,
        }),
        ..allreduce(procs)
    };
    let late = |collective, entry| FtcoSpec {
        entry,
        ..FtcoSpec::new(collective, FtcoKind::KAry(2), 7)
    };
    let with_eta = |collective, eta| FtcoSpec {
        eta,
        ..FtcoSpec::new(collective, FtcoKind::KAry(2), 7)
    };
    let (pre, any) = (CrashTiming::Pre, CrashTiming::Any);
    let nfs = ftco_family::NO_FALSE_SUSPICION;
    vec![
        FtcoClaim {
            text: "f_timeout = the unloaded round trip 2L + 4 alone suspects a live parent without any crash: a parent sends its own DATA before it acknowledges its children (Alg. 1's priority), so App. A's degree term is needed.",
            spec: with_timeout(7, 8, 0),
            crashes: 0,
            timing: pre,
            property: nfs,
            expected: false,
        },
        FtcoClaim {
            text: "With per_load = 1, a round trip of 7 steps suspects no live process (L = 2) …",
            spec: with_timeout(7, 7, 1),
            crashes: 1,
            timing: any,
            property: nfs,
            expected: true,
        },
        FtcoClaim {
            text: "… and one step less does (the timeout mutant).",
            spec: with_timeout(7, 6, 1),
            crashes: 1,
            timing: any,
            property: nfs,
            expected: false,
        },
        FtcoClaim {
            text: "The default rule (round trip 2L + 4 = 8, per_load = 2) holds with 5 steps of margin: round trip 3 still holds …",
            spec: with_timeout(7, 3, 2),
            crashes: 1,
            timing: any,
            property: nfs,
            expected: true,
        },
        FtcoClaim {
            text: "… round trip 2 does not.",
            spec: with_timeout(7, 2, 2),
            crashes: 1,
            timing: any,
            property: nfs,
            expected: false,
        },
        FtcoClaim {
            text: "Without App. B's extension, a Reduce suspects processes that enter late and drops their live operands (FTCO §5.2.4) …",
            spec: late(Collective::Reduce, Entry::LateDriver),
            crashes: 0,
            timing: pre,
            property: ftco_family::CONSISTENCY,
            expected: false,
        },
        FtcoClaim {
            text: "… an Allreduce suspects them too …",
            spec: late(Collective::Allreduce, Entry::LateDriver),
            crashes: 0,
            timing: pre,
            property: nfs,
            expected: false,
        },
        FtcoClaim {
            text: "… and with Alg. 5 nobody is suspected (App. B), also under two crashes at any instant (the grid's late rows).",
            spec: late(Collective::Allreduce, Entry::LateAlg5),
            crashes: 0,
            timing: pre,
            property: nfs,
            expected: true,
        },
        FtcoClaim {
            text: "The slack of the result's ETA (`EtaRule`, docs/protocols.md rule 1) suspects nobody: with `parent-recovery`, the rule of the fault experiments, no live process is suspected under two crashes at any instant …",
            spec: with_eta(Collective::Allreduce, EtaRule::ParentRecovery),
            crashes: 2,
            timing: any,
            property: nfs,
            expected: true,
        },
        FtcoClaim {
            text: "… every live process completes with one value that counts each operand once …",
            spec: with_eta(Collective::Allreduce, EtaRule::ParentRecovery),
            crashes: 2,
            timing: any,
            property: ftco_family::CONSISTENCY,
            expected: true,
        },
        FtcoClaim {
            text: "… also in a Bcast …",
            spec: with_eta(Collective::Bcast, EtaRule::ParentRecovery),
            crashes: 2,
            timing: any,
            property: nfs,
            expected: true,
        },
        FtcoClaim {
            text: "… and with `ancestor-recovery` …",
            spec: with_eta(Collective::Allreduce, EtaRule::AncestorRecovery),
            crashes: 2,
            timing: any,
            property: nfs,
            expected: true,
        },
        FtcoClaim {
            text: "… while a slack does not hide a too-short timeout: `parent-recovery` with round trip 2 still suspects a live process (the timeout mutant).",
            spec: FtcoSpec {
                eta: EtaRule::ParentRecovery,
                ..with_timeout(7, 2, 2)
            },
            crashes: 1,
            timing: any,
            property: nfs,
            expected: false,
        },
        FtcoClaim {
            text: "Fault-free, the schedule is exact (§4's f_ETA, §5.2.1's latency): no KEEPALIVE and the closed-form latency in a Bcast on binary trees up to P = 20 (depth 4; at depth 2 an f_ETA one step early per hop still falls on the DATA's arrival and is not seen, so the grid's P <= 7 cannot show it) …",
            spec: FtcoSpec::new(Collective::Bcast, FtcoKind::KAry(2), 20),
            crashes: 0,
            timing: pre,
            property: ftco_family::FAULT_FREE_COST,
            expected: true,
        },
        FtcoClaim {
            text: "… in a Reduce on binomial trees up to P = 20 …",
            spec: FtcoSpec::new(Collective::Reduce, FtcoKind::KNomial(2), 20),
            crashes: 0,
            timing: pre,
            property: ftco_family::FAULT_FREE_COST,
            expected: true,
        },
        FtcoClaim {
            text: "… and in an Allreduce on binomial trees up to P = 20.",
            spec: FtcoSpec::new(Collective::Allreduce, FtcoKind::KNomial(2), 20),
            crashes: 0,
            timing: pre,
            property: ftco_family::FAULT_FREE_COST,
            expected: true,
        },
    ]
}

/// Decides one FTCO claim: (holds, P reached or smallest violating P, states, trace).
pub fn decide_ftco(claim: &FtcoClaim) -> (bool, u32, usize, Vec<String>) {
    let mut states = 0;
    for procs in 2..=claim.spec.procs {
        let spec = FtcoSpec {
            procs,
            ..claim.spec
        };
        let crashable = spec.crashable().expect("valid spec").len() as u32;
        let result = ftco_family::check(
            &spec,
            claim.crashes.min(crashable),
            claim.timing,
            &MATRIX_BUDGET,
            None,
        )
        .expect("valid spec");
        states = result.states;
        if let Some(v) = result
            .violations
            .iter()
            .find(|v| v.property == claim.property)
        {
            return (false, procs, states, v.trace.clone());
        }
    }
    (true, claim.spec.procs, states, Vec::new())
}

fn ftco_short(property: &str) -> &'static str {
    ftco_family::ALL
        .iter()
        .zip(ftco_family::SHORT)
        .find(|(p, _)| **p == property)
        .map_or("?", |(_, s)| s)
}

fn render_ftco_claims(args: &MatrixArgs, traces_dir: &Path) -> Result<Rendered, String> {
    let list = ftco_claims();
    let results = parallel(list.clone(), args.threads, |claim| decide_ftco(&claim));
    let mut doc = String::new();
    for (i, (claim, (holds, procs, states, trace))) in list.iter().zip(results).enumerate() {
        let verdict = if holds {
            format!("holds, exhaustive up to P = {procs} ({states} states at P = {procs})")
        } else {
            let name = format!("ftco-claim-{}.txt", i + 1);
            write_trace(
                &traces_dir.join(&name),
                &format!(
                    "{} f={} {}: {}",
                    claim.spec.name(),
                    claim.crashes,
                    claim.timing,
                    claim.property
                ),
                &trace,
            )?;
            format!("violated: shortest counterexample at P = {procs}, [trace](traces/{name})")
        };
        let agrees = if holds == claim.expected {
            "as expected"
        } else {
            "**contradicts the expectation**"
        };
        let _ = writeln!(
            doc,
            "- {} `{}`, f = {}, {}: *{}* — {verdict} ({agrees})",
            claim.text,
            claim.spec.name(),
            claim.crashes,
            claim.timing,
            ftco_short(claim.property)
        );
    }
    Ok(Rendered {
        text: doc,
        cells: 0,
        states: 0,
    })
}

/// After the asynchronous rows: the FTCO section's heading, text and claims heading.
pub fn ftco_head(args: &MatrixArgs) -> String {
    format!(
        "\n## FTCO\n\nFTCO's Bcast, Reduce and Allreduce (`FtcoNode`, `ftcoll_verify::ftco`) in the timed model on \
         the single-port step model (`L = 2, o = 1`), operands `Contributions` (`{{(rank, 1)}}`, so a value \
         counted twice or missing shows), the default `f_timeout` (`2L + 4 + 2·(deg + deg)·distance`), \
         exhaustive depth-first search for every `P` from 2 to {}; `f` crash-stop crashes of any rank but the fault-immune \
         roots (with root replacement, rank 0 too), *pre* or at *any* instant. Late entry: every odd rank \
         enters one step after the fault-free latency plus the longest neighbour `f_timeout`. Properties: {}.\n\n\
         ### Claims\n\n",
        args.max_ftco_procs,
        ftco_family::ALL
            .iter()
            .map(|p| format!("*{p}*"))
            .collect::<Vec<_>>()
            .join("; ")
    )
}

/// Between the FTCO claims and the FTCO rows: the table header.
pub fn ftco_table_head(args: &MatrixArgs) -> String {
    let mut header = String::from("\n### Grid\n\n| collective | tree | R | entry | root |");
    let mut rule = String::from("|---|---|---|---|---|");
    for timing in [CrashTiming::Pre, CrashTiming::Any] {
        for f in 1..=args.max_crashes {
            let _ = write!(header, " {timing}, f = {f} |");
            rule.push_str("---|");
        }
    }
    format!("{header}\n{rule}\n")
}
