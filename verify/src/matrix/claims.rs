//! The Corrected Tree family's claims section: the papers' claims one by one (CT, CG), each
//! decided by exhaustive search, a guided search or a fixed scenario, against the paper's
//! prediction.

use std::fmt::Write as _;
use std::path::Path;

use ftcoll::protocols::corrected_tree::{CorrectionSpec, StartMode};
use ftcoll::topology::{LogP, Order, TreeKind};

use super::corrected_tree::short;
use super::{parallel, write_trace, MatrixArgs, Rendered, MATRIX_BUDGET};
use crate::search::SearchOptions;
use crate::{check_within, property, CorrectedTreeSpec, CrashTiming, ModelKind};

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
        spec: CorrectedTreeSpec,
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
        spec: CorrectedTreeSpec,
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
        spec: CorrectedTreeSpec,
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
) -> CorrectedTreeSpec {
    CorrectedTreeSpec {
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
    spec: CorrectedTreeSpec,
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

fn with_logp(spec: CorrectedTreeSpec, latency: u64, overhead: u64) -> CorrectedTreeSpec {
    CorrectedTreeSpec {
        logp: LogP::new(latency, overhead).expect("valid LogP"),
        ..spec
    }
}

fn exhaustive(
    spec: CorrectedTreeSpec,
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
    spec: &CorrectedTreeSpec,
    crashes: u32,
    timing: CrashTiming,
    property: &'static str,
) -> (bool, u32, usize, Vec<String>) {
    let mut states = 0;
    for procs in 2..=spec.procs {
        let s = CorrectedTreeSpec { procs, ..*spec };
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
    spec: &CorrectedTreeSpec,
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
    spec: &CorrectedTreeSpec,
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

pub(super) fn render_claims(args: &MatrixArgs, traces_dir: &Path) -> Result<Rendered, String> {
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

fn slug_spec(spec: &CorrectedTreeSpec) -> String {
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
