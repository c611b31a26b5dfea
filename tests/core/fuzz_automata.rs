//! Fuzzing the Corrected Tree automata (`docs/reference/fuzzing.md`).
//!
//! Each case builds a random configuration (every correction variant of `CorrectionSpec`, both
//! start modes, both first sides, every tree kind and numbering, `P` from 1 to `2^32 − 1`) and a
//! random rank, then feeds that one process a random sequence of inputs in any order: arrival at
//! any time (also twice, or never), messages of every kind from any `from` (out of range, itself,
//! the root, its parent, children, ring neighbours) with arbitrary fields, timers with any id at
//! any time (also ids never set, time going backwards) and send slots. After every call the
//! [`Observer`] checks the outputs and the state against the contract (`docs/guide.md`) and the
//! variant's rules (`docs/reference/corrected-tree.md`); its `check_*` methods list the invariants.
//!
//! A seeded SplitMix64 generator (not proptest) keeps a case cheap enough for the long mode; a
//! failure is shrunk by dropping inputs and printed with the seed and case index to replay.
//!
//! - default: 10^5 cases over the seven variant families (`cargo test --test fuzz_automata`);
//! - long mode: `FTCOLL_FUZZ_CASES=10000000` (total over the families), `FTCOLL_FUZZ_SEED=S`
//!   changes the seed (`docs/reference/fuzzing.md` records the last long run).
//!
//! `cases` draws the configurations and inputs; `observer` holds the checks (the correction
//! variants' own rules in `observer::correction`); `mutants` are deliberately broken wrappers
//! that the same checks must reject, so the checks are not vacuous; `findings` are minimal cases
//! of what the fuzzer found.

mod cases;
mod findings;
mod mutants;
mod observer;

use std::panic::{catch_unwind, AssertUnwindSafe};

use ftcoll::automaton::Outbox;
use ftcoll::protocols::corrected_tree::{CorrectedTreeConfig, CorrectedTreeNode};
use ftcoll::protocols::Msg;
use ftcoll::Time;

use cases::{generate, Case, Family, Input, FAMILIES, KINDS};
use observer::{hash_of, Checked, Coverage, Handler, Inspect, Observer, Violation};

/// Cases of the default suite, over all families together.
const DEFAULT_CASES: u64 = 100_000;
/// Longest input sequence of one case.
const MAX_INPUTS: u64 = 40;
/// Largest `now` fed in: delays and SOS timeouts are below `2^62` (the spec parser's bound), so
/// `now + delay` fits in a `Time`; drivers' clocks stay far below either.
const MAX_TIME: Time = 1 << 62;
const DEFAULT_SEED: u64 = 0x00f7_c011_f022;

fn feed<A: Inspect>(a: &mut A, config: &CorrectedTreeConfig, input: &Input, out: &mut Outbox<Msg>) {
    match input {
        Input::Start(now) => a.on_start(config, *now, out),
        Input::Message(now, from, msg) => a.on_message(config, *now, *from, msg.clone(), out),
        Input::Timer(now, id) => a.on_timer(config, *now, *id, out),
        Input::Slot(now) => a.on_send_slot(config, *now, out),
        Input::PendingTimer => unreachable!("resolved before the call"),
    }
}

fn handler(input: &Input) -> Handler {
    match input {
        Input::Start(_) => Handler::Start,
        Input::Message(..) => Handler::Message,
        Input::Timer(..) | Input::PendingTimer => Handler::Timer,
        Input::Slot(_) => Handler::Slot,
    }
}

/// Runs one case, checking after every call.
fn run_case<A: Inspect>(case: &Case, cov: &mut Coverage) -> Checked {
    let config = &case.config;
    let mut a = A::new(config, case.rank);
    let mut observer = Observer::new(config, &case.near, case.rank, &a);
    let mut twin: Option<A> = None;
    let (mut out, mut twin_out) = (Outbox::new(), Outbox::new());
    let determinism = |step, detail| Violation {
        check: "a clone fed the same inputs behaves the same",
        step,
        detail,
    };
    for (step, input) in case.inputs.iter().enumerate() {
        if step == case.clone_at {
            let clone = a.clone();
            if clone != a || hash_of(&clone) != hash_of(&a) {
                return Err(determinism(step, "clone differs".into()));
            }
            twin = Some(clone);
            cov.clones_compared += 1;
        }
        let input = observer.resolve(input);
        let before = observer.must_ignore(&input).then(|| a.clone());
        if before.is_none() {
            observer.learn(&input);
        }
        feed(&mut a, config, &input, &mut out);
        cov.steps += 1;
        if let Some(twin) = &mut twin {
            feed(twin, config, &input, &mut twin_out);
            if out.actions() != twin_out.actions() {
                let detail = format!("{:?} vs {:?}", out.actions(), twin_out.actions());
                return Err(determinism(step, detail));
            }
            twin_out.drain();
        }
        observer.check(
            step,
            &input,
            handler(&input),
            before.as_ref(),
            &a,
            out.actions(),
            cov,
        )?;
        out.drain();
    }
    if let Some(twin) = twin {
        if twin != a || hash_of(&twin) != hash_of(&a) {
            return Err(determinism(case.inputs.len(), "final states differ".into()));
        }
    }
    Ok(())
}

/// [`run_case`] with panics turned into violations.
fn try_case<A: Inspect>(case: &Case, cov: &mut Coverage) -> Checked {
    match catch_unwind(AssertUnwindSafe(|| run_case::<A>(case, cov))) {
        Ok(result) => result,
        Err(panic) => {
            let detail = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(Violation {
                check: "no panic",
                step: usize::MAX,
                detail,
            })
        }
    }
}

/// Drops inputs while the same check still fails, to print a small counterexample.
fn shrink<A: Inspect>(mut case: Case, check: &'static str) -> (Case, Violation) {
    let fails = |case: &Case| {
        try_case::<A>(case, &mut Coverage::default())
            .err()
            .filter(|v| v.check == check)
    };
    if check != "a clone fed the same inputs behaves the same" {
        case.clone_at = case.inputs.len();
    }
    let mut progress = true;
    while progress {
        progress = false;
        for i in (0..case.inputs.len()).rev() {
            let removed = case.inputs.remove(i);
            let clone_at = case.clone_at;
            if case.clone_at > i {
                case.clone_at -= 1;
            }
            if fails(&case).is_some() {
                progress = true;
            } else {
                case.inputs.insert(i, removed);
                case.clone_at = clone_at;
            }
        }
    }
    let violation = fails(&case).expect("the shrunk case still fails");
    (case, violation)
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().map(|v| {
        v.replace('_', "")
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v} is not a number"))
    })
}

fn seed() -> u64 {
    env_u64("FTCOLL_FUZZ_SEED").unwrap_or(DEFAULT_SEED)
}

/// This family's share of the total case count.
fn cases_per_family() -> u64 {
    let total = env_u64("FTCOLL_FUZZ_CASES").unwrap_or(DEFAULT_CASES);
    total.div_ceil(FAMILIES.len() as u64)
}

/// Runs `cases` cases of `family` against `A`; the first violation that `wanted` accepts,
/// shrunk.
fn fuzz<A: Inspect>(
    family: Family,
    seed: u64,
    cases: u64,
    cov: &mut Coverage,
    wanted: impl Fn(&Violation) -> bool,
) -> Option<(u64, Case, Violation)> {
    for index in 0..cases {
        let case = generate(family, seed, index);
        cov.cases += 1;
        let tree = &case.config.tree;
        cov.shapes.insert((
            tree.kind().to_string(),
            tree.order(),
            case.config.start,
            case.config.first_side,
        ));
        if matches!(tree.procs(), 1 | 2 | 3 | u32::MAX) {
            cov.edge_procs.insert(tree.procs());
        }
        match try_case::<A>(&case, cov) {
            Err(violation) if wanted(&violation) => {
                let (case, violation) = shrink::<A>(case, violation.check);
                return Some((index, case, violation));
            }
            _ => {}
        }
    }
    None
}

/// One family against the real automaton: no violation, and the variant's deep states reached.
fn fuzz_family(family: Family) {
    let (seed, cases) = (seed(), cases_per_family());
    let started = std::time::Instant::now();
    let mut cov = Coverage::default();
    if let Some((index, case, violation)) =
        fuzz::<CorrectedTreeNode>(family, seed, cases, &mut cov, |_| true)
    {
        panic!(
            "{family:?} case {index} (seed {seed:#x}) violates `{}` at step {}: {}\nshrunk case:\n\
             {case:?}",
            violation.check, violation.step, violation.detail
        );
    }
    eprintln!(
        "{family:?}: {cases} cases, {} steps in {:.1?}; {}",
        cov.steps,
        started.elapsed(),
        cov.summary()
    );
    let expected_shapes = KINDS.len() * 2 * 2 * 2;
    assert_eq!(
        cov.shapes.len(),
        expected_shapes,
        "every kind, order, start, side"
    );
    assert_eq!(cov.edge_procs.len(), 4, "P = 1, 2, 3 and 2^32 - 1");
    let reached = |what: &str, count: u64| assert!(count > 0, "{family:?} never reached {what}");
    reached("a delivery", cov.deliveries);
    reached("a tree send", cov.tree_sends);
    reached("an ignored input", cov.ignored);
    reached("a clone comparison", cov.clones_compared);
    match family {
        Family::None => {}
        Family::Ack => {
            reached("an ack", cov.ack_sends);
            reached("a completion", cov.completions);
        }
        Family::Opportunistic | Family::Optimized => reached("a ring send", cov.ring_sends),
        Family::Checked => reached("a side reaching its nearest corrector", {
            cov.checked_reached_nearest
        }),
        Family::Delayed => {
            reached("a sweep after the delay", cov.delayed_sweeps);
            reached("a Stop reply", cov.stop_sends);
        }
        Family::FailProof => {
            reached("a failure-proof send", cov.failproof_sends);
            reached("a final round", cov.final_rounds);
            reached("a finished SOS round", cov.sos_rounds_done);
            reached("a c-node delivery", cov.c_node_deliveries);
        }
    }
}

#[test]
fn plain_tree_survives_arbitrary_inputs() {
    fuzz_family(Family::None);
}

#[test]
fn tree_with_acknowledgments_survives_arbitrary_inputs() {
    fuzz_family(Family::Ack);
}

#[test]
fn opportunistic_correction_survives_arbitrary_inputs() {
    fuzz_family(Family::Opportunistic);
}

#[test]
fn optimized_correction_survives_arbitrary_inputs() {
    fuzz_family(Family::Optimized);
}

#[test]
fn checked_correction_survives_arbitrary_inputs() {
    fuzz_family(Family::Checked);
}

#[test]
fn delayed_correction_survives_arbitrary_inputs() {
    fuzz_family(Family::Delayed);
}

#[test]
fn failure_proof_correction_survives_arbitrary_inputs() {
    fuzz_family(Family::FailProof);
}
