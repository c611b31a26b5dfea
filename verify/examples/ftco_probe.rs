use ftcoll::topology::ftco::{Collective, FtcoKind};
use ftcoll_verify::ftco::{check, FtcoSpec};
use ftcoll_verify::{Budget, CrashTiming};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let procs: u32 = args[1].parse().unwrap();
    let f: u32 = args[2].parse().unwrap();
    let timing = if args[3] == "any" { CrashTiming::Any } else { CrashTiming::Pre };
    let collective = match args[4].as_str() { "bcast" => Collective::Bcast, "reduce" => Collective::Reduce, _ => Collective::Allreduce };
    let kind = if args[5] == "kary" { FtcoKind::KAry(2) } else { FtcoKind::KNomial(2) };
    let mut spec = FtcoSpec::new(collective, kind, procs);
    spec.entry = match args.get(6).map(String::as_str) { Some("imb") => ftcoll_verify::ftco::Entry::LateAlg5, Some("late") => ftcoll_verify::ftco::Entry::LateDriver, _ => ftcoll_verify::ftco::Entry::Together };
    if let Some(rt) = args.get(7) { spec.timeout = Some(ftcoll::protocols::ftco::TimeoutRule { round_trip: rt.parse().unwrap(), per_load: args[8].parse().unwrap() }); }
    if let Ok(r) = std::env::var("ROOTS") { spec.roots = r.parse().unwrap(); }
    if std::env::var("REPLACE").is_ok() { spec.root_failure = ftcoll::protocols::ftco::RootFailure::ReplacedByChildren; }
    let r = check(&spec, f, timing, &Budget::UNLIMITED, None).unwrap();
    println!("{} f={f} {timing}: states {} in {:.2}s, horizon {}, violations {:?}, reached {:?}", spec.name(), r.states, r.seconds, ftcoll_verify::ftco::horizon(&spec, f).unwrap(), r.violations.iter().map(|v| v.property).collect::<Vec<_>>(), r.reached);
    for v in &r.violations { println!("== {}", v.property); for l in v.trace.iter().take(80) { println!("  {l}"); } }
}
