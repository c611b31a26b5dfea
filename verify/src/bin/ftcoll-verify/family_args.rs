//! The arguments of `ftcoll-verify ftco` and `ftcoll-verify gossip`: which collective or gossip
//! protocol, on which topology, and their parsers.

use super::*;

pub(crate) fn collective(s: &str) -> Result<Collective, String> {
    match s {
        "bcast" => Ok(Collective::Bcast),
        "reduce" => Ok(Collective::Reduce),
        "allreduce" => Ok(Collective::Allreduce),
        _ => Err("expected bcast, reduce or allreduce".into()),
    }
}

pub(crate) fn ftco_topology(s: &str) -> Result<FtcoKind, String> {
    let allowed = "expected kary:K or knomial:K with K an integer in 2..=8";
    let (name, k) = s.split_once(':').ok_or(allowed)?;
    let k: u64 = k
        .parse()
        .ok()
        .filter(|k| (2..=8).contains(k))
        .ok_or(allowed)?;
    match name {
        "kary" => Ok(FtcoKind::KAry(k)),
        "knomial" => Ok(FtcoKind::KNomial(k)),
        _ => Err(allowed.into()),
    }
}

pub(crate) fn eta_rule(s: &str) -> Result<EtaRule, String> {
    s.parse()
}

/// `--service none|disd|rsd:INV_R[@SEED]` (FTCO App. A).
pub(crate) fn service(s: &str) -> Result<ftcoll::protocols::ftco::ServiceDistance, String> {
    use ftcoll::protocols::ftco::ServiceDistance;
    let allowed = "expected none, disd or rsd:INV_R[@SEED] with INV_R in 2..=1024 and SEED a u64";
    match s {
        "none" => Ok(ServiceDistance::None),
        "disd" => Ok(ServiceDistance::Disd),
        _ => {
            let rest = s.strip_prefix("rsd:").ok_or(allowed)?;
            let (inverse, seed) = rest.split_once('@').unwrap_or((rest, "0"));
            let inverse_r = inverse
                .parse::<u32>()
                .ok()
                .filter(|v| (2..=1024).contains(v))
                .ok_or(allowed)?;
            let seed = seed.parse::<u64>().map_err(|_| allowed)?;
            Ok(ServiceDistance::Rsd { inverse_r, seed })
        }
    }
}

pub(crate) fn timeout_rule(s: &str) -> Result<TimeoutRule, String> {
    let allowed = "expected ROUND_TRIP+PER_LOAD, two integers in 0..=1000 (default: 2L+4 and 2)";
    let (a, b) = s.split_once('+').ok_or(allowed)?;
    let parse = |x: &str| x.parse::<u64>().ok().filter(|v| *v <= 1000).ok_or(allowed);
    Ok(TimeoutRule {
        round_trip: parse(a)?,
        per_load: parse(b)?,
    })
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum EntryArg {
    /// Everyone enters at 0.
    Together,
    /// Odd ranks enter late, with the imbalance extension (App. B, Alg. 5).
    LateAlg5,
    /// Odd ranks arrive late at the driver, without the extension.
    LateDriver,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum RootArg {
    /// Fault-immune roots (FTCO §2).
    Immune,
    /// Rank 0 replaced by its children (end of §4; single-root Reduce and Allreduce).
    Replaced,
}

#[derive(Args, Debug)]
pub(crate) struct FtcoArgs {
    /// bcast, reduce or allreduce.
    #[arg(long, value_parser = collective)]
    pub(crate) collective: Collective,
    /// kary:K or knomial:K (K in 2..=8).
    #[arg(long, value_parser = ftco_topology)]
    pub(crate) topology: FtcoKind,
    /// Number of roots R (1..=P).
    #[arg(long, default_value = "1", value_parser = clap::value_parser!(u64).range(1..=9))]
    pub(crate) roots: u64,
    /// Number of processes (2..=9; state spaces grow fast).
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..=9))]
    pub(crate) procs: u32,
    /// At most this many crashes (of ranks that are not fault-immune).
    #[arg(long, default_value = "1", value_parser = clap::value_parser!(u32).range(0..=8))]
    pub(crate) crashes: u32,
    /// When crashes happen.
    #[arg(long, value_enum, default_value = "any")]
    pub(crate) timing: TimingArg,
    /// L in steps (o = 1).
    #[arg(short = 'L', default_value = "2", value_parser = clap::value_parser!(u64).range(0..=64))]
    pub(crate) latency: u64,
    /// When processes enter.
    #[arg(long, value_enum, default_value = "together")]
    pub(crate) entry: EntryArg,
    /// What a root's failure does.
    #[arg(long, value_enum, default_value = "immune")]
    pub(crate) root_failure: RootArg,
    /// f_timeout as ROUND_TRIP+PER_LOAD (default: 2L+4 and 2).
    #[arg(long = "timeout-rule", value_parser = timeout_rule)]
    pub(crate) timeout_rule: Option<TimeoutRule>,
    /// The result's ETA: exact (default), parent-recovery or ancestor-recovery.
    #[arg(long, default_value = "exact", value_parser = eta_rule)]
    pub(crate) eta: EtaRule,
    /// Which peers each step serves first (FTCO App. A): none (default), disd or
    /// rsd:INV_R[@SEED].
    #[arg(long, default_value = "none", value_parser = service)]
    pub(crate) service: ftcoll::protocols::ftco::ServiceDistance,
    #[command(flatten)]
    pub(crate) budget: BudgetArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    pub(crate) format: Format,
}

impl FtcoArgs {
    pub(crate) fn spec(&self) -> Result<FtcoSpec, String> {
        if self.roots > u64::from(self.procs) {
            return Err(format!(
                "--roots: {} is out of range: allowed 1..={} (--procs)",
                self.roots, self.procs
            ));
        }
        let spec = FtcoSpec {
            collective: self.collective,
            kind: self.topology,
            roots: self.roots,
            procs: self.procs,
            latency: self.latency,
            entry: match self.entry {
                EntryArg::Together => Entry::Together,
                EntryArg::LateAlg5 => Entry::LateAlg5,
                EntryArg::LateDriver => Entry::LateDriver,
            },
            root_failure: match self.root_failure {
                RootArg::Immune => RootFailure::Immune,
                RootArg::Replaced => RootFailure::ReplacedByChildren,
            },
            timeout: self.timeout_rule,
            eta: self.eta,
            service: self.service,
        };
        // The rule is the library's, shared with `ftcoll simulate`: elsewhere the roots would
        // silently stay immune.
        if !spec
            .root_failure
            .applies_to(self.collective, self.roots as u32)
        {
            return Err(format!(
                "--root-failure: replaced applies to a single-root reduce or allreduce (this is \
                 --collective {} with --roots {}); allowed: immune, or replaced with \
                 --collective reduce or allreduce and --roots 1",
                ftco::collective_name(self.collective),
                self.roots
            ));
        }
        let crashable = spec
            .crashable()
            .map_err(|e| format!("--topology/--roots/--procs: {e}"))?
            .len() as u32;
        if self.crashes > crashable {
            return Err(format!(
                "--crashes: {} is out of range: allowed 0..={crashable} (the ranks that are not fault-immune)",
                self.crashes
            ));
        }
        Ok(spec)
    }
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub(crate) enum GossipProtocolArg {
    Gos,
    Ocg,
    Ccg,
    Fcg,
}

#[derive(Args, Debug)]
pub(crate) struct GossipArgs {
    /// One of the matrix's gossip cells by id (ccg-pre, ccg-any, fcg-any, ...): runs it and
    /// says whether the verdict agrees with CG; the protocol flags are then refused (the cell
    /// fixes them).
    #[arg(long)]
    pub(crate) cell: Option<String>,
    /// gos, ocg, ccg or fcg.
    #[arg(long, value_enum, default_value = "ccg")]
    pub(crate) protocol: GossipProtocolArg,
    /// Number of processes N (2..=16; every target draw has N − 1 outcomes).
    #[arg(long, default_value = "5", value_parser = clap::value_parser!(u32).range(2..=16))]
    pub(crate) procs: u32,
    /// L (0..=16).
    #[arg(short = 'L', default_value = "1", value_parser = clap::value_parser!(u64).range(0..=16))]
    pub(crate) latency: u64,
    /// O (1..=4).
    #[arg(short = 'O', default_value = "1", value_parser = clap::value_parser!(u64).range(1..=4))]
    pub(crate) overhead: u64,
    /// Gossip time T (0..=32).
    #[arg(long, default_value = "2", value_parser = clap::value_parser!(u64).range(0..=32))]
    pub(crate) gossip_time: u64,
    /// OCG's correction time C (0..=256; only with --protocol ocg, which needs it).
    #[arg(long, value_parser = clap::value_parser!(u64).range(0..=256))]
    pub(crate) correction_time: Option<u64>,
    /// FCG's f (0..N−1; only with --protocol fcg).
    #[arg(long, default_value = "1", value_parser = clap::value_parser!(u32).range(0..=15))]
    pub(crate) faults: u32,
    /// FCG with the variant of CG's footnote to Claim 5: a sweep that comes back to its sender
    /// ends that side instead of entering SOS at line 28 (only with --protocol fcg).
    #[arg(long)]
    pub(crate) footnote: bool,
    /// At most this many crashes (0..N−1).
    #[arg(long, default_value = "1", value_parser = clap::value_parser!(u32).range(0..=15))]
    pub(crate) crashes: u32,
    /// When crashes happen.
    #[arg(long, value_enum, default_value = "any")]
    pub(crate) timing: TimingArg,
    #[command(flatten)]
    pub(crate) budget: BudgetArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    pub(crate) format: Format,
}

impl GossipArgs {
    /// The spec, crashes and timing to check (a named cell's, or the flags'); `flags`: the
    /// command's matches, which tell the flags given from their defaults.
    pub(crate) fn target(
        &self,
        flags: &ArgMatches,
    ) -> Result<(GossipSpec, u32, CrashTiming), String> {
        if let Some(id) = &self.cell {
            // A cell fixes all of these: one given beside it would be ignored.
            let fixed = [
                ("protocol", "--protocol"),
                ("procs", "--procs"),
                ("latency", "-L"),
                ("overhead", "-O"),
                ("gossip_time", "--gossip-time"),
                ("correction_time", "--correction-time"),
                ("faults", "--faults"),
                ("footnote", "--footnote"),
                ("crashes", "--crashes"),
                ("timing", "--timing"),
            ];
            if let Some((_, flag)) = fixed.iter().find(|(id, _)| given(flags, id)) {
                return Err(format!(
                    "--cell: not allowed with {flag}: the cell fixes the protocol, its \
                     parameters, the crashes and their timing; allowed: --cell with budget \
                     flags and --format only, or the protocol flags without --cell"
                ));
            }
            let cells = gossip::cells();
            return cells
                .iter()
                .find(|c| c.id == id)
                .map(|c| (c.spec, c.crashes, c.timing))
                .ok_or_else(|| {
                    let ids: Vec<&str> = cells.iter().map(|c| c.id).collect();
                    format!(
                        "--cell: {id:?} is not a gossip cell: allowed {}",
                        ids.join(", ")
                    )
                });
        }
        let variant = match self.protocol {
            GossipProtocolArg::Gos => Variant::Gos,
            GossipProtocolArg::Ccg => Variant::Ccg,
            GossipProtocolArg::Ocg => Variant::Ocg {
                correction_time: self.correction_time.ok_or_else(|| {
                    "--correction-time: required with --protocol ocg (0..=256)".to_string()
                })?,
            },
            GossipProtocolArg::Fcg => {
                if self.faults >= self.procs {
                    return Err(format!(
                        "--faults: {} is out of range: allowed 0..={} (--procs − 1)",
                        self.faults,
                        self.procs - 1
                    ));
                }
                Variant::Fcg {
                    faults: self.faults,
                    sos_on_full_loop: !self.footnote,
                }
            }
        };
        if self.correction_time.is_some() && self.protocol != GossipProtocolArg::Ocg {
            return Err("--correction-time: only with --protocol ocg".to_string());
        }
        if self.footnote && self.protocol != GossipProtocolArg::Fcg {
            return Err(
                "--footnote: not allowed with this --protocol: it is a variant of FCG's line 28; allowed with --protocol fcg"
                    .to_string(),
            );
        }
        if given(flags, "faults") && self.protocol != GossipProtocolArg::Fcg {
            return Err(format!(
                "--faults: not allowed with --protocol {}: it is FCG's f; allowed with \
                 --protocol fcg",
                match self.protocol {
                    GossipProtocolArg::Gos => "gos",
                    GossipProtocolArg::Ocg => "ocg",
                    GossipProtocolArg::Ccg => "ccg (the default)",
                    GossipProtocolArg::Fcg => "fcg",
                }
            ));
        }
        if self.crashes >= self.procs {
            return Err(format!(
                "--crashes: {} is out of range: allowed 0..={} (--procs − 1)",
                self.crashes,
                self.procs - 1
            ));
        }
        let logp = LogP::new(self.latency, self.overhead).map_err(|e| format!("-L/-O: {e}"))?;
        Ok((
            GossipSpec {
                variant,
                procs: self.procs,
                logp,
                gossip_time: self.gossip_time,
            },
            self.crashes,
            timing(self.timing),
        ))
    }
}
