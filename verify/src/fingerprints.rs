//! Depth-first search with a visited set of fingerprints only: for models whose paths merge
//! (the asynchronous model: any delivery order reaches the same state many ways), every
//! reachable state is explored once while the search holds, per state seen, only its 64-bit
//! fingerprint — no state, no parent, no path.
//!
//! **What is held.** The visited set (8 B a fingerprint in a hash set at a load between 7/16
//! and 7/8, so 10–21 B per state with the control bytes) and the current path: one frame per
//! action taken, each with its state and the state's actions. stateright's breadth-first search
//! holds the queue of states waiting to be explored, whole, with their paths, which is what
//! stops it at P = 5 (docs/performance.md has the figures).
//!
//! **What it decides.** The models searched here state only `always` and `sometimes` properties,
//! each a predicate of one state, so the order in which states are reached does not matter:
//! every reachable state is checked once ([`Refusal::Eventually`] refuses a model with an
//! `eventually` property, whose verdict would depend on the paths). As in stateright, two states
//! with equal fingerprints are taken for one: with `n` states the chance that any two of them
//! share a fingerprint is below `n² / 2^65` (3 · 10⁻⁴ at 10⁸ states), and a collision can only
//! leave states unexplored, never invent a violation.
//!
//! **Counterexamples** are the path on the stack when the state was reached: a run of the model,
//! not the shortest one (the breadth-first search gives those).
//!
//! **Threads.** The calling thread expands the initial states breadth first until [`FRONTIER`]
//! states wait; the workers then take the subtrees under them in order and share the visited
//! set, so the states counted are the same on any number of threads for a search that runs to
//! its end. Which thread first reaches a state is a race, so with more than one thread which
//! counterexample is reported (and the count of a search stopped because every property has a
//! discovery) can differ from run to run; with one thread everything is deterministic.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use stateright::{Expectation, Model};

use crate::budget::{Budget, Halt, Watch};

/// States the expansion leaves waiting before the workers start.
pub const FRONTIER: usize = 4096;

/// How often (in states) a worker publishes its count.
const SLICE: u64 = 1 << 12;

/// Shards of the visited set (a power of two): two threads rarely wait for the same one.
const SHARDS: usize = 64;

/// Why [`explore`] refuses a model, before any work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The model has an `eventually` property, which depends on the paths to a state, not on
    /// the state alone; merging paths would decide it wrongly.
    Eventually(&'static str),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Eventually(name) => write!(
                f,
                "the search by fingerprints decides `always` and `sometimes` properties only; \
                 '{name}' is an `eventually` property"
            ),
        }
    }
}

impl std::error::Error for Refusal {}

/// What [`explore`] found.
#[derive(Clone, Debug)]
pub struct Explored<Action> {
    /// Unique states explored, initial states included.
    pub states: u64,
    /// For each property with a discovery: the index of the initial state and the actions from
    /// it to the first state found that violates it (`always`) or shows it (`sometimes`).
    pub discoveries: BTreeMap<&'static str, (usize, Vec<Action>)>,
    /// Bytes the visited set held at the end (its tables' allocations).
    pub set_bytes: u64,
}

/// A hasher for keys that are already fingerprints (also the layered search's).
#[derive(Default)]
pub(crate) struct Identity(u64);

impl Hasher for Identity {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// The 64-bit fingerprint of a state (fixed keys: the same on every run).
pub(crate) fn fingerprint<T: Hash>(value: &T) -> u64 {
    ahash::RandomState::with_seeds(
        0x243f_6a88_85a3_08d3,
        0x1319_8a2e_0370_7344,
        0xa409_3822_299f_31d0,
        0x082e_fa98_ec4e_6c89,
    )
    .hash_one(value)
}

/// How a model's states are fingerprinted for [`explore`]: by default the hash of the whole
/// state; a model may compute a successor's fingerprint without building it, so that a state
/// seen before is never built again.
pub trait Fingerprints: Model {
    /// The fingerprint of `state`.
    fn fingerprint_of(&self, state: &Self::State) -> u64
    where
        Self::State: Hash,
    {
        fingerprint(state)
    }

    /// The fingerprint of the state `action` leads to from `state`, if known before building
    /// it; it must equal [`Self::fingerprint_of`] that state.
    fn fingerprint_after(&self, _state: &Self::State, _action: &Self::Action) -> Option<u64> {
        None
    }
}

impl<A> Fingerprints for crate::AsyncModel<A>
where
    A: ftcoll::automaton::Automaton + Send + Sync + 'static,
    A::Msg: Ord + Send + Sync,
    A::Config: Send + Sync + 'static,
{
}

/// The fingerprints seen, in shards chosen by the fingerprint's top bits.
struct Visited {
    shards: Vec<Mutex<HashSet<u64, BuildHasherDefault<Identity>>>>,
}

impl Visited {
    fn new() -> Self {
        Self {
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
        }
    }

    /// Whether `fp` is new (and now seen).
    fn insert(&self, fp: u64) -> bool {
        let shard = (fp >> 58) as usize % SHARDS;
        // A poisoned shard only means a worker panicked, which the caller reports; the set
        // itself is still consistent.
        let mut set = self.shards[shard]
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        set.insert(fp)
    }

    /// Bytes the tables hold: a bucket of 8 B and a control byte per slot, the slots the
    /// power of two whose 7/8 is the capacity.
    fn bytes(&self) -> u64 {
        self.shards
            .iter()
            .map(|s| {
                let cap = s
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .capacity() as u64;
                if cap == 0 {
                    0
                } else {
                    (cap * 8 / 7).next_power_of_two() * 9
                }
            })
            .sum()
    }
}

/// A frame of the depth-first path.
struct Frame<M: Model> {
    state: M::State,
    actions: Vec<M::Action>,
    next: usize,
}

/// A subtree waiting for a worker: a state and the path that reached it.
struct Root<M: Model> {
    state: M::State,
    origin: usize,
    path: Vec<M::Action>,
}

/// Where a discovery was made: 0 for the expansion, subtree index + 1 otherwise; then the
/// order within it. The lowest is kept.
type Order = (u64, u64);

/// A discovery: where it was made, its initial state's index and the actions from there.
type Found<Action> = (Order, usize, Vec<Action>);

/// What the workers share.
struct Shared<'m, M: Model> {
    model: &'m M,
    properties: Vec<stateright::Property<M>>,
    visited: Visited,
    halt: &'m Halt,
    /// Per property: whether some thread has a discovery.
    discovered: Vec<AtomicBool>,
    found: Mutex<Vec<Option<Found<M::Action>>>>,
    states: AtomicU64,
}

impl<M: Fingerprints> Shared<'_, M>
where
    M::State: Hash,
    M::Action: Clone,
{
    /// The successor of `state` by `action` if it is new (and within the boundary): its
    /// fingerprint taken before it is built when the model knows it.
    fn successor(&self, state: &M::State, action: &M::Action) -> Option<M::State> {
        if let Some(known) = self.model.fingerprint_after(state, action) {
            if !self.visited.insert(known) {
                return None;
            }
            let next = self.model.next_state(state, action.clone())?;
            debug_assert_eq!(known, self.model.fingerprint_of(&next));
            return self.model.within_boundary(&next).then_some(next);
        }
        let next = self.model.next_state(state, action.clone())?;
        (self.model.within_boundary(&next) && self.visited.insert(self.model.fingerprint_of(&next)))
            .then_some(next)
    }

    /// Checks `state` against every property not yet discovered, recording what it shows.
    fn check(&self, state: &M::State, order: Order, origin: usize, path: &[M::Action]) {
        for (i, property) in self.properties.iter().enumerate() {
            if self.discovered[i].load(Ordering::Relaxed) {
                continue;
            }
            let holds = (property.condition)(self.model, state);
            let shows = match property.expectation {
                Expectation::Always => !holds,
                Expectation::Sometimes => holds,
                Expectation::Eventually => false,
            };
            if shows {
                let mut found = self
                    .found
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                if found[i].as_ref().is_none_or(|(o, _, _)| order < *o) {
                    found[i] = Some((order, origin, path.to_vec()));
                }
                self.discovered[i].store(true, Ordering::Relaxed);
            }
        }
    }

    fn all_discovered(&self) -> bool {
        self.discovered.iter().all(|d| d.load(Ordering::Relaxed))
    }

    /// Explores everything new under `root`, depth first.
    fn subtree(&self, root: Root<M>, key: u64) {
        let mut path = root.path;
        let base = path.len();
        let mut stack: Vec<Frame<M>> = Vec::new();
        let mut seq = 0u64;
        let mut unpublished = 0u64;
        let mut actions = Vec::new();
        self.model.actions(&root.state, &mut actions);
        stack.push(Frame {
            state: root.state,
            actions,
            next: 0,
        });
        while let Some(top) = stack.last_mut() {
            if top.next == top.actions.len() {
                stack.pop();
                continue;
            }
            let action = top.actions[top.next].clone();
            top.next += 1;
            let Some(next) = self.successor(&top.state, &action) else {
                continue;
            };
            unpublished += 1;
            if unpublished == SLICE {
                self.states.fetch_add(unpublished, Ordering::Relaxed);
                unpublished = 0;
                if self.halt.is_halted() || self.all_discovered() {
                    break;
                }
            }
            path.truncate(base + stack.len() - 1);
            path.push(action);
            seq += 1;
            self.check(&next, (key, seq), root.origin, &path);
            let mut actions = Vec::new();
            self.model.actions(&next, &mut actions);
            stack.push(Frame {
                state: next,
                actions,
                next: 0,
            });
        }
        self.states.fetch_add(unpublished, Ordering::Relaxed);
    }
}

/// Explores every state of `model` reachable within `budget` (time and memory, through the
/// model's `halt`), on `budget.threads` threads. `progress` is called about once a second.
pub fn explore<M>(
    model: &M,
    halt: &Halt,
    budget: &Budget,
    start: std::time::Instant,
    progress: Option<crate::Progress<'_>>,
) -> Result<Explored<M::Action>, Refusal>
where
    M: Fingerprints + Sync,
    M::State: Hash + Send + Sync,
    M::Action: Clone + Send + Sync,
{
    let properties = model.properties();
    if let Some(p) = properties
        .iter()
        .find(|p| matches!(p.expectation, Expectation::Eventually))
    {
        return Err(Refusal::Eventually(p.name));
    }
    let count = properties.len();
    let shared = Shared {
        model,
        properties,
        visited: Visited::new(),
        halt,
        discovered: (0..count).map(|_| AtomicBool::new(false)).collect(),
        found: Mutex::new(vec![None; count]),
        states: AtomicU64::new(0),
    };

    // The expansion: breadth first from the initial states until the frontier is wide enough.
    let mut waiting: VecDeque<Root<M>> = VecDeque::new();
    let mut seq = 0u64;
    for (origin, state) in model.init_states().into_iter().enumerate() {
        if !model.within_boundary(&state) || !shared.visited.insert(model.fingerprint_of(&state)) {
            continue;
        }
        shared.states.fetch_add(1, Ordering::Relaxed);
        seq += 1;
        shared.check(&state, (0, seq), origin, &[]);
        waiting.push_back(Root {
            state,
            origin,
            path: Vec::new(),
        });
    }
    let mut actions = Vec::new();
    while waiting.len() < FRONTIER && !halt.is_halted() && !shared.all_discovered() {
        let Some(root) = waiting.pop_front() else {
            break;
        };
        actions.clear();
        model.actions(&root.state, &mut actions);
        for action in actions.drain(..) {
            let Some(next) = shared.successor(&root.state, &action) else {
                continue;
            };
            shared.states.fetch_add(1, Ordering::Relaxed);
            let mut path = root.path.clone();
            path.push(action);
            seq += 1;
            shared.check(&next, (0, seq), root.origin, &path);
            waiting.push_back(Root {
                state: next,
                origin: root.origin,
                path,
            });
        }
    }

    // The subtrees, in order, by the workers.
    let subtrees: Vec<Mutex<Option<Root<M>>>> =
        waiting.into_iter().map(|r| Mutex::new(Some(r))).collect();
    let next = AtomicUsize::new(0);
    let threads = budget.threads.max(1) as usize;
    let mut watch = Watch::new(budget, start, progress);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= subtrees.len() || halt.is_halted() || shared.all_discovered() {
                        break;
                    }
                    let root = subtrees[i]
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .take();
                    if let Some(root) = root {
                        shared.subtree(root, i as u64 + 1);
                    }
                })
            })
            .collect();
        while !workers.iter().all(|w| w.is_finished()) {
            std::thread::sleep(std::time::Duration::from_millis(10));
            watch.look(halt, || shared.states.load(Ordering::Relaxed) as usize);
        }
    });
    let set_bytes = shared.visited.bytes();
    let found = shared
        .found
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let discoveries = shared
        .properties
        .iter()
        .zip(found)
        .filter_map(|(p, f)| f.map(|(_, origin, path)| (p.name, (origin, path))))
        .collect();
    Ok(Explored {
        states: shared.states.load(Ordering::Relaxed),
        discoveries,
        set_bytes,
    })
}
