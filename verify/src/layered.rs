//! The layered search: the timed model's states explored in the order of a progress measure,
//! keeping only the states of the layers not yet finished (the sweep-line method of
//! Christensen, Kristensen and Mailund, TACAS 2001).
//!
//! Every action of [`TimedModel`] moves a state forward in the order of its *layer*
//! `(next instant, crashes so far)`: a `Step` applies every event of the next instant, so the
//! next instant strictly grows (the driver creates no event at an instant it has finished); a
//! `Crash` keeps the instant and adds a crash; a `Choose` keeps both (the same layer). So no
//! state of a finished layer can be reached again, and once the search has left a layer it
//! forgets that layer's states and fingerprints: memory holds the layers in progress, not every
//! state seen. Deduplication within a layer is by a 64-bit fingerprint, as in stateright.
//!
//! States without a successor whatever the budget (quiescent, past the horizon, stopped by a
//! driver error) are checked where they are generated and only their fingerprints kept, in one
//! set for the whole search: a quiescent state has no next instant to wait for.
//!
//! What the search finds is what stateright's breadth-first search finds on the same model: the
//! same unique states (the same graph, each state checked once) and so the same verdicts;
//! `verify/tests/engines/layered.rs` compares the two on every correction variant in both start modes
//! and both crash timings, on the small gossip cells and on FTCO. Counterexample paths can
//! differ (the first violation in layer order — earliest instant, then fewest crashes — instead
//! of the fewest actions); the checker minimizes them afterwards either way.
//!
//! **Threads.** A layer is explored in rounds of at most 2,048 states, each split into
//! contiguous parts, one for the calling thread and one for each helper (spawned once per
//! search); the successors are merged in the order of the parts, so the search, its counts and
//! its counterexamples are the same on any number of threads.
//!
//! **Copies.** A successor is copied into a state the search has finished with
//! (`Clone::clone_from`, which the driver's state implements field by field), so exploring a
//! state allocates little.
//!
//! **Held states as bytes.** Once [`Budget::pack_from`] states are held (by default from the
//! first, [`PACK_FROM`](crate::budget::PACK_FROM)), a new state waiting in a layer is held as bytes and read back, into a
//! state the search has finished with, when its turn comes: its postcard encoding (serde's
//! derives on the driver's state: every automaton, message in flight, pending event and the
//! report, without the driver's scratch lists), compressed by LZ4 with the first state
//! encoded into the same layer as dictionary. A state in memory is a dozen separate
//! allocations, most of them per-process tables of 8- or 16-byte times and options; the
//! encoding writes each number in as few bytes as it needs, and the states of one layer (one
//! instant, as many crashes) share most of their bytes, so a held state takes a fraction of
//! the memory, at the price of writing and reading it (docs/performance.md has both measured;
//! the matrix, whose searches are small, holds whole states, which is faster). A state read
//! back equals the one written and has its fingerprint, so the search, its counts and its
//! verdicts do not depend on how states are held (`verify/tests/engines/layered.rs` runs searches both
//! ways).

// Spare states are boxed: they move between pools, and a box moves 8 bytes where a state would
// move several hundred.
#![allow(clippy::vec_box)]

use std::collections::{BTreeMap, HashSet};
use std::hash::BuildHasherDefault;

use crate::fingerprints::{fingerprint, Identity};
use std::sync::{mpsc, Arc};

use ftcoll::automaton::Automaton;
use ftcoll::{Rank, Time};
use stateright::Model;

use crate::budget::{Budget, Halt, Watch};
use crate::timed::{
    crash_sets_of, Checkable, CrashTiming, Expectation, TimedAction, TimedModel, TimedState,
};

/// What a layered search found.
#[derive(Clone, Debug, Default)]
pub(crate) struct Exploration {
    /// Unique states explored (each one checked against every property).
    pub(crate) unique: usize,
    /// For each property with a discovery (an `always` property's counterexample, a
    /// `sometimes` property's example): the crashes before the operation and the actions from
    /// that initial state to the discovered state.
    pub(crate) discoveries: BTreeMap<&'static str, (Vec<Rank>, Vec<TimedAction>)>,
    /// The most states held at once (the layers in progress).
    pub(crate) peak_held: usize,
}

/// The layer of a state: its next instant (none: after every instant) and its crashes.
pub(crate) type Layer = (Time, u32);

pub(crate) fn layer_of<A: Automaton>(state: &TimedState<A>) -> Layer {
    (state.sim.next_time().unwrap_or(Time::MAX), state.crashes)
}

/// A state waiting to be explored, with what it takes to rebuild its path: the index of its
/// initial state's crash set and the actions that are not steps (steps are implied: a replay
/// steps until the instant of the next recorded action).
struct Entry<A: Automaton> {
    state: Held<A>,
    origin: u32,
    // Shared: a step adds no move, so its successor shares its state's list without copying.
    moves: Arc<[TimedAction]>,
}

/// A held state: whole, [`pack`]ed, or packed as its difference from its layer's reference.
enum Held<A: Automaton> {
    // Boxed: entries move between lists, a state is several hundred bytes.
    Whole(Box<TimedState<A>>),
    /// [`pack`]'s bytes.
    Packed(Box<[u8]>),
    /// [`pack`]'s length (4 bytes, little-endian) and its bytes compressed by LZ4 with the
    /// reference of the state's layer as dictionary.
    Delta(Box<[u8]>),
}

/// Each layer's reference: the bytes of the first state packed into it. The states of one
/// layer are at the same instant with the same number of crashes and mostly differ in a few
/// processes, so each compresses to what it does not share with the reference.
type References = BTreeMap<Layer, Arc<[u8]>>;

/// A thread's buffers for packing and reading back states.
#[derive(Default)]
struct Packer {
    raw: Vec<u8>,
    compressed: Vec<u8>,
}

impl Packer {
    /// `state` as held in a layer with `reference` (if it has one yet).
    fn hold<A: Checkable>(&mut self, state: &TimedState<A>, reference: Option<&[u8]>) -> Held<A> {
        pack(state, &mut self.raw);
        let raw = &self.raw[..];
        let Some(dictionary) = reference else {
            return Held::Packed(Box::from(raw));
        };
        let out = &mut self.compressed;
        // Grown to the maximum size LZ4 can need, never shrunk: no zeroing per state.
        let need = 4 + lz4_flex::block::get_maximum_output_size(raw.len());
        if out.len() < need {
            out.resize(need, 0);
        }
        out[..4].copy_from_slice(&(raw.len() as u32).to_le_bytes());
        let written = lz4_flex::block::compress_into_with_dict(raw, &mut out[4..], dictionary)
            .expect("the output buffer has LZ4's maximum size");
        Held::Delta(Box::from(&out[..4 + written]))
    }

    /// The state `held` holds, in a layer with `reference`; read into a state of `pool` if it
    /// has one (reusing its allocations).
    fn read<A: Checkable>(
        &mut self,
        held: Held<A>,
        reference: Option<&[u8]>,
        pool: &mut Vec<Box<TimedState<A>>>,
    ) -> Box<TimedState<A>> {
        let mut read_into = |bytes: &[u8]| match pool.pop() {
            Some(mut place) => {
                unpack_into(bytes, &mut place);
                place
            }
            None => Box::new(unpack(bytes)),
        };
        match held {
            Held::Whole(state) => state,
            Held::Packed(bytes) => read_into(&bytes),
            Held::Delta(bytes) => {
                // Ours, written by `hold` with the same reference: the layer keeps its
                // reference while it has entries.
                let dictionary = reference.expect("a layer with compressed states has a reference");
                let mut len = [0u8; 4];
                len.copy_from_slice(&bytes[..4]);
                let len = u32::from_le_bytes(len) as usize;
                // Every byte is overwritten (checked below), so only new room is zeroed.
                self.raw.resize(len, 0);
                let written = lz4_flex::block::decompress_into_with_dict(
                    &bytes[4..],
                    &mut self.raw,
                    dictionary,
                )
                .expect("a compressed state reads back");
                assert_eq!(written, len, "a compressed state reads back whole");
                read_into(&self.raw)
            }
        }
    }
}

struct Pending<A: Automaton> {
    seen: HashSet<u64, BuildHasherDefault<Identity>>,
    entries: Vec<Entry<A>>,
}

impl<A: Automaton> Default for Pending<A> {
    fn default() -> Self {
        Self {
            seen: HashSet::default(),
            entries: Vec::new(),
        }
    }
}

/// Writes a held state's bytes into `out` (replacing its contents): the postcard encoding of
/// its simulation and its two counters. Held states have no driver error (a state with one is
/// terminal, never held).
fn pack<A: Checkable>(state: &TimedState<A>, out: &mut Vec<u8>) {
    debug_assert!(state.error.is_none(), "a state with an error is never held");
    let fields = (&state.sim, state.crashes, state.acted_after_done);
    out.clear();
    // Writing to a vector fails only if a `Serialize` implementation reports an error, which
    // serde's derives on the driver's state never do.
    *out = postcard::to_extend(&fields, core::mem::take(out))
        .expect("the driver's state always encodes");
}

/// The state [`pack`] wrote, read into `place`: serde's in-place deserialization (derived with
/// `serde_derive`'s `deserialize_in_place`) overwrites the vectors' elements where they are, so
/// reading a state into one the search has finished with allocates little.
fn unpack_into<A: Checkable>(bytes: &[u8], place: &mut TimedState<A>) {
    use serde::Deserialize;
    // The bytes are ours, written by `pack` from a state of the same type.
    const OURS: &str = "a held state reads back";
    let mut from = postcard::Deserializer::from_bytes(bytes);
    Deserialize::deserialize_in_place(&mut from, &mut place.sim).expect(OURS);
    place.crashes = Deserialize::deserialize(&mut from).expect(OURS);
    place.acted_after_done = Deserialize::deserialize(&mut from).expect(OURS);
    place.error = None;
}

/// The state [`pack`] wrote.
fn unpack<A: Checkable>(bytes: &[u8]) -> TimedState<A> {
    // The bytes are ours, written by `pack` from a state of the same type.
    let (sim, crashes, acted_after_done) =
        postcard::from_bytes(bytes).expect("a held state reads back");
    TimedState {
        sim,
        crashes,
        error: None,
        acted_after_done,
    }
}

/// What one thread made of a run of entries.
struct Work<A: Automaton> {
    /// Successors in order: layer, fingerprint, entry.
    successors: Vec<(Layer, u64, Entry<A>)>,
    /// The fingerprints of the terminal successors, already checked.
    terminals: Vec<u64>,
    /// States finished with, to copy successors into.
    pool: Vec<Box<TimedState<A>>>,
    /// Whether this run discovered each property.
    found: Vec<bool>,
    /// The run's discovered entries' paths, by property index.
    paths: Vec<Option<(u32, Vec<TimedAction>, Layer)>>,
}

/// Entries handled per round: bounds the successors held before they are merged.
const ROUND: usize = 1 << 11;

/// Below this many entries a round runs on the calling thread.
const PARALLEL_FROM: usize = 512;

/// Explores `model` within `budget` (state cap through `model.halt`, time and memory checked
/// between rounds; held states packed from [`Budget::pack_from`] on). The model's `halt` is
/// left set if a budget stopped the search.
pub(crate) fn explore<A>(
    model: &TimedModel<A>,
    budget: &Budget,
    start: std::time::Instant,
    progress: Option<crate::Progress<'_>>,
) -> Exploration
where
    A: Checkable,
{
    let pack_from = budget.pack_from;
    let threads = budget.threads.max(1) as usize;
    let names = model_properties(model);
    // The helper threads live as long as the search: one spawn each, not one per round.
    std::thread::scope(|scope| {
        let helpers: Vec<Helper<A>> = (1..threads)
            .map(|_| {
                let (jobs, queued) = mpsc::channel::<Job<A>>();
                let (finished, done) = mpsc::channel();
                let names = &names;
                scope.spawn(move || {
                    while let Ok((batch, pool, found, holding)) = queued.recv() {
                        if finished
                            .send(run(model, names, &found, batch, pool, holding))
                            .is_err()
                        {
                            break;
                        }
                    }
                });
                Helper { jobs, done }
            })
            .collect();
        search(model, budget, start, progress, &names, &helpers, pack_from)
    })
}

/// A thread that runs [`run`] on the parts of a round sent to it.
struct Helper<A: Automaton> {
    jobs: mpsc::Sender<Job<A>>,
    done: mpsc::Receiver<Work<A>>,
}

/// A part of a round: its entries, states to recycle, the properties already discovered, and
/// how to hold the successors.
type Job<A> = (Vec<Entry<A>>, Vec<Box<TimedState<A>>>, Vec<bool>, Holding);

/// How a round holds its successors: whole, or packed against the layers' references; and the
/// layer being explored (whose reference reads its entries back).
#[derive(Clone)]
struct Holding {
    packing: bool,
    layer: Layer,
    references: Arc<References>,
}

fn search<A>(
    model: &TimedModel<A>,
    budget: &Budget,
    start: std::time::Instant,
    progress: Option<crate::Progress<'_>>,
    names: &[Named<A>],
    helpers: &[Helper<A>],
    pack_from: usize,
) -> Exploration
where
    A: Checkable,
{
    let halt: &Halt = &model.halt;
    let mut watch = Watch::new(budget, start, progress);
    let mut found: Vec<bool> = vec![false; names.len()];
    let mut result = Exploration::default();

    let origins: Vec<Vec<Rank>> = match model.timing {
        CrashTiming::Pre => crash_sets_of(&model.crashable, model.max_crashes),
        CrashTiming::Any => vec![Vec::new()],
    };
    let mut layers: BTreeMap<Layer, Pending<A>> = BTreeMap::new();
    let mut terminals: HashSet<u64, BuildHasherDefault<Identity>> = HashSet::default();
    let mut spare: Vec<Box<TimedState<A>>> = Vec::new();
    let mut held = 0usize;
    // Initial states without a successor (a driver error: a scenario the configuration
    // refuses) are checked here, like terminal successors, and never held.
    let mut first = Work::new(names.len(), Vec::new(), 0);
    for (i, state) in model.init_states().into_iter().enumerate() {
        let fp = fingerprint(&state);
        if terminal(model, &state) {
            first.check(model, names, &found, &state, i as u32, &[]);
            first.terminals.push(fp);
            continue;
        }
        let pending = layers.entry(layer_of(&state)).or_default();
        if pending.seen.insert(fp) {
            pending.entries.push(Entry {
                state: Held::Whole(Box::new(state)),
                origin: i as u32,
                moves: Arc::from([]),
            });
            held += 1;
        }
    }
    result.peak_held = held;
    let mut works = vec![first];
    // The layer being explored: no action leads back to an earlier one.
    let mut key: Layer = (0, 0);
    let mut references: Arc<References> = Arc::default();

    loop {
        for mut work in works.drain(..) {
            recycle(&mut spare, work.pool.drain(..));
            for (p, path) in work.paths.into_iter().enumerate() {
                if let (false, Some((origin, moves, layer))) = (found[p], path) {
                    found[p] = true;
                    let pre = origins[origin as usize].clone();
                    let actions = rebuild(model, &pre, &moves, layer);
                    result.discoveries.insert(names[p].0, (pre, actions));
                }
            }
            for fp in work.terminals {
                if terminals.insert(fp) {
                    result.unique += 1;
                }
            }
            for (layer, fp, entry) in work.successors {
                debug_assert!(layer >= key, "an action went back to an earlier layer");
                let pending = layers.entry(layer).or_default();
                if pending.seen.insert(fp) {
                    if let Held::Packed(bytes) = &entry.state {
                        if !references.contains_key(&layer) {
                            // The round's threads have finished: no copy of the map is made.
                            Arc::make_mut(&mut references).insert(layer, Arc::from(&bytes[..]));
                        }
                    }
                    pending.entries.push(entry);
                    held += 1;
                } else if let Held::Whole(state) = entry.state {
                    recycle(&mut spare, [state]);
                }
            }
        }
        result.peak_held = result.peak_held.max(held);
        // Every property decided and every example found: nothing more to learn.
        if found.iter().all(|&f| f) {
            break;
        }
        watch.look(halt, || result.unique);
        if halt.is_halted() {
            // The states generated but not explored are not checked: the verdict is partial.
            break;
        }
        let Some(mut current) = layers.first_entry() else {
            break;
        };
        key = *current.key();
        if current.get().entries.is_empty() {
            current.remove();
            if references.contains_key(&key) {
                Arc::make_mut(&mut references).remove(&key);
            }
            continue;
        }
        let take = current.get().entries.len().min(ROUND);
        let batch: Vec<Entry<A>> = current.get_mut().entries.drain(..take).collect();
        held -= batch.len();
        result.unique += batch.len();
        let pool = std::mem::take(&mut spare);
        // Decided per round from what is held, so the same on any number of threads.
        let holding = Holding {
            packing: held >= pack_from,
            layer: key,
            references: Arc::clone(&references),
        };
        works = if !helpers.is_empty() && batch.len() >= PARALLEL_FROM {
            run_split(model, names, &found, batch, pool, helpers, holding)
        } else {
            vec![run(model, names, &found, batch, pool, holding)]
        };
    }
    result
}

/// States kept for reuse between rounds: enough for a round's successors to be copied without
/// allocating, few enough not to matter beside the layers (a state is a few kilobytes).
const SPARES: usize = 4096;

fn recycle<A: Automaton>(
    spare: &mut Vec<Box<TimedState<A>>>,
    states: impl IntoIterator<Item = Box<TimedState<A>>>,
) {
    for state in states {
        if spare.len() >= SPARES {
            break;
        }
        spare.push(state);
    }
}

pub(crate) type Named<A> = (
    &'static str,
    Expectation,
    fn(&TimedModel<A>, &TimedState<A>) -> bool,
);

/// The model's properties as the checker sees them, its horizon check included.
pub(crate) fn model_properties<A>(model: &TimedModel<A>) -> Vec<Named<A>>
where
    A: Checkable,
{
    let mut names: Vec<Named<A>> = model
        .properties
        .iter()
        .map(|p| (p.name, p.expectation, p.condition))
        .collect();
    names.push((
        crate::timed::HORIZON_CUT,
        Expectation::Sometimes,
        crate::timed::cut_at_horizon::<A>,
    ));
    names
}

/// Runs a round split into contiguous parts, the first on this thread and one on each helper;
/// the works come back in the order of the parts.
fn run_split<A>(
    model: &TimedModel<A>,
    names: &[Named<A>],
    found: &[bool],
    mut batch: Vec<Entry<A>>,
    mut pool: Vec<Box<TimedState<A>>>,
    helpers: &[Helper<A>],
    holding: Holding,
) -> Vec<Work<A>>
where
    A: Checkable,
{
    let parts = helpers.len() + 1;
    let size = batch.len().div_ceil(parts);
    let share = pool.len() / parts;
    let mut tails = Vec::with_capacity(helpers.len());
    while batch.len() > size {
        let tail = batch.split_off(batch.len() - size);
        let spares = pool.split_off(pool.len() - share);
        tails.push((tail, spares));
    }
    tails.reverse();
    let sent = tails.len();
    for (helper, (part, spares)) in helpers.iter().zip(tails) {
        // A helper that stopped has panicked; the panic reaches the caller when the scope ends.
        let _ = helper
            .jobs
            .send((part, spares, found.to_vec(), holding.clone()));
    }
    let mut works = vec![run(model, names, found, batch, pool, holding)];
    for helper in &helpers[..sent] {
        match helper.done.recv() {
            Ok(work) => works.push(work),
            Err(_) => panic!("a thread of the layered search panicked"),
        }
    }
    works
}

/// Checks each entry against the properties not yet discovered and generates its successors.
fn run<A>(
    model: &TimedModel<A>,
    names: &[Named<A>],
    found: &[bool],
    batch: Vec<Entry<A>>,
    pool: Vec<Box<TimedState<A>>>,
    holding: Holding,
) -> Work<A>
where
    A: Checkable,
{
    let mut work = Work::new(names.len(), pool, batch.len() * 2);
    let mut actions = Vec::new();
    let mut packer = Packer::default();
    let own_reference = holding.references.get(&holding.layer).map(|r| &r[..]);
    for entry in batch {
        let state = packer.read(entry.state, own_reference, &mut work.pool);
        work.check(model, names, found, &state, entry.origin, &entry.moves);
        // The `Step` successor, when finding the crash points already computed it.
        let mut stepped = model.actions_stepping(&state, &mut actions, &mut work.pool);
        for action in actions.drain(..) {
            // What `Model::next_state` does, into a recycled state.
            if !model.halt.admit() {
                continue;
            }
            let ready = match action {
                TimedAction::Step { .. } => stepped.take(),
                _ => None,
            };
            let next = match ready {
                Some(next) => next,
                None => {
                    let mut next = match work.pool.pop() {
                        Some(mut spare) => {
                            spare.clone_from(&state);
                            spare
                        }
                        None => state.clone(),
                    };
                    if !model.apply_in_place(&mut next, action) {
                        work.pool.push(next);
                        continue;
                    }
                    next
                }
            };
            let moves: Arc<[TimedAction]> = if matches!(action, TimedAction::Step { .. }) {
                Arc::clone(&entry.moves)
            } else {
                entry.moves.iter().copied().chain([action]).collect()
            };
            let layer = layer_of(&next);
            let fp = fingerprint(&next);
            if terminal(model, &next) {
                // Checked now and never held: a duplicate's discoveries are its first copy's.
                work.check(model, names, found, &next, entry.origin, &moves);
                work.terminals.push(fp);
                work.pool.push(next);
                continue;
            }
            work.successors.push((
                layer,
                fp,
                Entry {
                    state: if holding.packing {
                        let reference = holding.references.get(&layer).map(|r| &r[..]);
                        let held = packer.hold(&next, reference);
                        work.pool.push(next);
                        held
                    } else {
                        Held::Whole(next)
                    },
                    origin: entry.origin,
                    moves,
                },
            ));
        }
        work.pool.extend(stepped);
        work.pool.push(state);
    }
    work
}

impl<A: Automaton> Work<A> {
    fn new(properties: usize, pool: Vec<Box<TimedState<A>>>, successors: usize) -> Self {
        Self {
            successors: Vec::with_capacity(successors),
            terminals: Vec::new(),
            pool,
            found: vec![false; properties],
            paths: (0..properties).map(|_| None).collect(),
        }
    }

    /// Checks `state` against the properties not yet discovered, recording its path for each
    /// discovery.
    fn check(
        &mut self,
        model: &TimedModel<A>,
        names: &[Named<A>],
        found: &[bool],
        state: &TimedState<A>,
        origin: u32,
        moves: &[TimedAction],
    ) {
        for (p, named) in names.iter().enumerate() {
            if found[p] || self.found[p] {
                continue;
            }
            if discovers(model, named, state) {
                self.found[p] = true;
                self.paths[p] = Some((origin, moves.to_vec(), layer_of(state)));
            }
        }
    }
}

/// Whether `state` is a discovery of the property `named`: a counterexample of an `always`
/// property, an example of a `sometimes` one.
pub(crate) fn discovers<A: Automaton>(
    model: &TimedModel<A>,
    &(_, expectation, condition): &Named<A>,
    state: &TimedState<A>,
) -> bool {
    let holds = condition(model, state);
    match expectation {
        Expectation::Always => !holds,
        Expectation::Sometimes => holds,
    }
}

/// Whether `state` has no successor whatever the budget: quiescent, past the horizon, or
/// stopped by a driver error. Such states are checked where they are generated and only their
/// fingerprints kept (they have no layer to wait in: a quiescent state's next instant is none).
pub(crate) fn terminal<A: Automaton>(model: &TimedModel<A>, state: &TimedState<A>) -> bool {
    state.error.is_some() || state.sim.next_time().is_none_or(|t| t > model.horizon)
}

/// The whole action path of a discovered state: the recorded moves, each at the instant it was
/// made, with the steps between them, and steps after the last until the state's layer.
pub(crate) fn rebuild<A>(
    model: &TimedModel<A>,
    pre: &[Rank],
    moves: &[TimedAction],
    layer: Layer,
) -> Vec<TimedAction>
where
    A: Checkable,
{
    let mut state = model.initial_state(pre);
    let mut actions = Vec::new();
    let step_until = |state: &mut TimedState<A>, actions: &mut Vec<TimedAction>, t: Time| {
        while let Some(time) = state
            .sim
            .next_time()
            .filter(|&n| n < t && state.error.is_none())
        {
            let step = TimedAction::Step { time };
            actions.push(step);
            model.step(state);
        }
    };
    for &action in moves {
        let t = match action {
            TimedAction::Crash { time, .. } | TimedAction::Choose { time, .. } => time,
            TimedAction::Step { time } => time,
        };
        step_until(&mut state, &mut actions, t);
        actions.push(action);
        if let Some(next) = model.apply(&state, action) {
            state = next;
        }
    }
    step_until(&mut state, &mut actions, layer.0);
    debug_assert_eq!(layer_of(&state), layer, "a rebuilt path missed its state");
    actions
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::Hasher;

    #[test]
    fn identity_hasher_passes_fingerprints_through() {
        let mut h = Identity::default();
        h.write_u64(0xdead_beef);
        assert_eq!(h.finish(), 0xdead_beef);
    }

    /// Every state of a search with crashes, timers and messages in flight reads back equal to
    /// the one packed, with its fingerprint (the search relies on both), also when held as a
    /// delta from another state.
    #[test]
    fn packed_states_read_back_equal() {
        use ftcoll::protocols::corrected_tree::StartMode;
        use ftcoll::topology::TreeKind;
        use stateright::Model;
        for correction in crate::corrected_tree::EVERY_VARIANT {
            let spec = crate::CorrectedTreeSpec::interleaved(
                TreeKind::Binomial,
                correction,
                StartMode::Overlapped,
                6,
            );
            let model = TimedModel::corrected_tree(&spec, 1, CrashTiming::Any).expect("valid spec");
            let mut states = model.init_states();
            let mut seen = 0;
            let mut scratch = Vec::new();
            let mut packer = Packer::default();
            let mut reference: Option<Vec<u8>> = None;
            let mut recycled = Vec::new();
            while let Some(state) = states.pop() {
                seen += 1;
                if seen > 2_000 {
                    break;
                }
                if state.error.is_none() {
                    pack(&state, &mut scratch);
                    let back: TimedState<_> = unpack(&scratch);
                    assert!(back == state, "a state read back differs");
                    assert_eq!(fingerprint(&back), fingerprint(&state));
                    // Compressed against another state's bytes, and without a reference.
                    let reference = reference.get_or_insert_with(|| scratch.clone());
                    for dictionary in [Some(&reference[..]), None] {
                        let held = packer.hold(&state, dictionary);
                        assert_eq!(
                            matches!(held, Held::Delta(_)),
                            dictionary.is_some(),
                            "held as a delta exactly when the layer has a reference"
                        );
                        // Read into the state read before: nothing of it may remain.
                        let back = packer.read(held, dictionary, &mut recycled);
                        assert!(*back == state, "a state held as bytes differs");
                        recycled.push(back);
                    }
                }
                let mut actions = Vec::new();
                model.actions(&state, &mut actions);
                states.extend(
                    actions
                        .into_iter()
                        .filter_map(|a| model.next_state(&state, a)),
                );
            }
            assert!(seen > 100, "only {seen} states");
        }
    }

    #[test]
    fn fingerprints_are_fixed() {
        assert_eq!(fingerprint(&(1u32, 2u64)), fingerprint(&(1u32, 2u64)));
        assert_ne!(fingerprint(&(1u32, 2u64)), fingerprint(&(2u32, 1u64)));
    }
}
