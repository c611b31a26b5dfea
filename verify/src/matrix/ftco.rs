//! The FTCO family's part of the matrix: its rows (collective × tree × roots × entry × root
//! rule), the [`Family`] that checks them, and its claims (where `f_timeout` stops suspecting
//! live processes, what the imbalance extension is for).

use std::fmt::Write as _;
use std::path::Path;

use ftcoll::protocols::ftco::{EtaRule, RootFailure, ServiceDistance, TimeoutRule};
use ftcoll::topology::ftco::{Collective, FtcoKind};

use super::{parallel, write_trace, Family, MatrixArgs, Rendered, MATRIX_BUDGET};
use crate::ftco::{self as ftco_family, Entry, FtcoSpec};
use crate::property::Column;
use crate::{CheckResult, CrashTiming, ModelKind};

/// The FTCO family ([`crate::ftco`]) in the matrix: its seven properties
/// ([`ftco_family::COLUMNS`]) in every cell, rows of [`FtcoRow`], the timed model only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ftco;

impl Family for Ftco {
    type Row = FtcoRow;
    const COLUMNS: &'static [Column] = &ftco_family::COLUMNS;

    fn label(row: &FtcoRow) -> String {
        ftco_row_label(row)
    }

    fn slug(row: &FtcoRow, timing: CrashTiming, crashes: u32) -> String {
        ftco_slug(row, timing, crashes)
    }

    fn title(row: &FtcoRow, timing: CrashTiming, crashes: u32) -> String {
        format!("{} f={crashes} {timing}", ftco_row_label(row))
    }

    /// A multi-root row needs `R` processes.
    fn min_procs(row: &FtcoRow) -> u32 {
        (row.roots as u32).max(2)
    }

    /// `f` is capped at the crashable ranks; FTCO is checked in the timed model only.
    fn check(
        row: &FtcoRow,
        procs: u32,
        crashes: u32,
        timing: CrashTiming,
        _model: ModelKind,
    ) -> CheckResult {
        let spec = row.spec(procs);
        let crashable = spec.crashable().expect("valid spec").len() as u32;
        ftco_family::check(&spec, crashes.min(crashable), timing, &MATRIX_BUDGET, None)
            .expect("valid spec")
    }
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
    /// Which peers each step serves first (App. A).
    pub service: ServiceDistance,
}

impl FtcoRow {
    /// The spec at `P = procs` (`L = 2`, the default timeout).
    pub fn spec(&self, procs: u32) -> FtcoSpec {
        FtcoSpec {
            roots: self.roots,
            entry: self.entry,
            root_failure: self.root_failure,
            service: self.service,
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
        service: ServiceDistance::None,
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
    // App. A's service distances, which rank a step's messages by the sender's distance first.
    for (kind, service) in [
        (FtcoKind::KAry(2), ServiceDistance::Disd),
        (
            FtcoKind::KNomial(2),
            ServiceDistance::Rsd {
                inverse_r: 2,
                seed: 0,
            },
        ),
    ] {
        for collective in [Collective::Reduce, Collective::Allreduce] {
            rows.push(FtcoRow {
                service,
                ..row(collective, kind, 1, Entry::Together, RootFailure::Immune)
            });
        }
    }
    rows
}

fn root_failure_name(r: RootFailure) -> &'static str {
    match r {
        RootFailure::Immune => "immune",
        RootFailure::ReplacedByChildren => "replaced",
    }
}

/// The first columns of an FTCO row: `| collective | tree | R | entry | root | service |`.
pub fn ftco_row_label(row: &FtcoRow) -> String {
    format!(
        "| {} | {} | {} | {} | {} | {} |",
        ftco_family::collective_name(row.collective),
        row.kind,
        row.roots,
        row.entry,
        root_failure_name(row.root_failure),
        ftco_family::service_name(row.service)
    )
}

fn ftco_slug(row: &FtcoRow, timing: CrashTiming, crashes: u32) -> String {
    let entry = match row.entry {
        Entry::Together => "together",
        Entry::LateAlg5 => "late-alg5",
        Entry::LateDriver => "late-driver",
    };
    // A service distance joins the name only where there is one: the other traces keep theirs.
    let service = match row.service {
        ServiceDistance::None => String::new(),
        s => format!("-{}", ftco_family::service_name(s)),
    };
    format!(
        "ftco-{}-{}-R{}-{entry}-{}{service}-{timing}-f{crashes}",
        ftco_family::collective_name(row.collective),
        row.kind,
        row.roots,
        root_failure_name(row.root_failure)
    )
    .replace([':', '@'], "")
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

pub(super) fn render_ftco_claims(args: &MatrixArgs, traces_dir: &Path) -> Result<Rendered, String> {
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
            crate::property::short(&ftco_family::COLUMNS, claim.property)
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
         enters one step after the fault-free latency plus the longest neighbour `f_timeout`. Service \
         distance (App. A): none, or DISD and RSD (`1/r = 2`, seed 0) on the rows that name one. \
         Properties: {}.\n\n\
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
    let mut header =
        String::from("\n### Grid\n\n| collective | tree | R | entry | root | service |");
    let mut rule = String::from("|---|---|---|---|---|---|");
    for timing in [CrashTiming::Pre, CrashTiming::Any] {
        for f in 1..=args.max_crashes {
            let _ = write!(header, " {timing}, f = {f} |");
            rule.push_str("---|");
        }
    }
    format!("{header}\n{rule}\n")
}
