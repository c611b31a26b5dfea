//! The depth-first search: the timed model's runs explored one schedule after another, holding
//! only the states of the current path, with no fingerprint and no state kept once left.
//!
//! **Why no state needs remembering.** Without choices left to the checker (gossip targets), a
//! timed state determines the path that reached it, up to the order of crashes injected before
//! one instant: a `Step` applies every event of the next instant and the run is otherwise
//! deterministic; a `Crash` writes its instant into the crashed process's record
//! ([`ftcoll_sim::Sim::crash`]), and crashes are never undone, so two paths that crash
//! different processes, or one process before different instants, end in different states;
//! and the number of instants applied is fixed by the next instant (time strictly grows with
//! every `Step`). So the state graph is a tree once the crashes before one instant are taken in
//! one order, and this search takes them in ascending rank order: after `Crash(r)` before
//! instant `t`, only crashes of higher ranks are offered before `t`. Crashes before the same
//! instant commute (each only marks its process), and which processes a reduced model offers a
//! crash before `t` does not depend on the crashes before `t` (docs/reference/checker.md, "Crashes before
//! sends"), so every state of the model is still reached, each exactly once.
//! `verify/tests/engines/depth.rs` checks this: the states this search visits are as many as the
//! layered search's unique states, with the same verdicts, on every correction variant, both
//! start modes, both crash timings and FTCO.
//!
//! So the search needs neither a fingerprint nor a set of them, nor states waiting to be
//! explored: its memory is the current path (a few dozen states), whatever the size of the
//! space, and its time per state is one copy and one instant of the driver. The last child of a
//! state takes that state's own storage (a `Step` applied in place), so a run with all its
//! crashes spent costs no copy at all.
//!
//! **Threads.** The search first expands the states with the fewest crashes and the earliest
//! instants, on the calling thread, until [`FRONTIER`] states wait (a fixed number, so the
//! split does not depend on the threads); the subtrees under them are then explored by the
//! workers, each taking the next subtree in order. A discovery is ranked by where it was made:
//! the expansion's states first (in the order expanded), then by subtree, then in depth-first
//! order within it; the lowest rank found is kept, and a subtree is only checked for the
//! properties not yet discovered in an earlier one, so what the search reports is the same on
//! any number of threads.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};

use ftcoll::{Rank, Time};

use crate::budget::{Budget, Watch};
use crate::layered::{
    discovers, layer_of, model_properties, rebuild, terminal, Exploration, Layer, Named,
};
use crate::timed::{Checkable, TimedAction, TimedModel, TimedState};

/// States the expansion leaves waiting before the workers start: enough subtrees for two threads
/// to share the work evenly, few enough to hold whole (a few kilobytes each).
pub(crate) const FRONTIER: usize = 4096;

/// How often (in states) a worker publishes its count and looks for a reason to stop.
const SLICE: u64 = 1 << 12;

/// A state waiting at the frontier, with what it takes to rebuild its path.
struct Node<A: Checkable> {
    state: Box<TimedState<A>>,
    /// The index of its initial state's crash set.
    origin: u32,
    /// The actions that are not steps, from the initial state.
    moves: Vec<TimedAction>,
    /// The crash that made it, if one did: later crashes before the same instant are of higher
    /// ranks only.
    after: Option<(Rank, Time)>,
}

/// Where a discovery was made: 0 for the expansion, subtree index + 1 otherwise; then the
/// order within it.
type Order = (u64, u64);

/// A discovery: its rank and what rebuilds its path.
type Found = (Order, u32, Vec<TimedAction>, Layer);

/// What the workers share.
struct Shared<A: Checkable> {
    subtrees: Vec<Mutex<Option<Node<A>>>>,
    next: AtomicUsize,
    /// Per property: the lowest subtree key with a discovery (`u64::MAX`: none yet).
    lowest: Vec<AtomicU64>,
    found: Mutex<Vec<Option<Found>>>,
    visited: AtomicUsize,
}

impl<A: Checkable> Shared<A> {
    fn record(&self, p: usize, found: Found) {
        self.lowest[p].fetch_min(found.0 .0, Ordering::Relaxed);
        let mut all = self.found.lock().unwrap_or_else(|e| e.into_inner());
        if all[p].as_ref().is_none_or(|f| found.0 < f.0) {
            all[p] = Some(found);
        }
    }

    /// Whether subtree `key` (and so every later one) can discover nothing new.
    fn nothing_left(&self, key: u64) -> bool {
        self.lowest.iter().all(|l| l.load(Ordering::Relaxed) < key)
    }
}

/// Explores `model` depth first within `budget` (state cap through `model.halt`; time and memory
/// looked at every 10 ms by the calling thread while [`Budget::threads`] workers search). The
/// model's `halt` is left set if a budget stopped the search.
pub(crate) fn explore<A: Checkable>(
    model: &TimedModel<A>,
    budget: &Budget,
    start: std::time::Instant,
    progress: Option<crate::Progress<'_>>,
) -> Exploration {
    explore_split(model, budget, start, progress, FRONTIER)
}

/// [`explore`] with `frontier` states left waiting by the expansion instead of [`FRONTIER`]
/// (1: the whole search in one worker's subtree): what it finds does not depend on it, only
/// which discovery of a property comes first may (`verify/tests/engines/depth.rs`).
pub(crate) fn explore_split<A: Checkable>(
    model: &TimedModel<A>,
    budget: &Budget,
    start: std::time::Instant,
    progress: Option<crate::Progress<'_>>,
    frontier: usize,
) -> Exploration {
    let names = model_properties(model);
    let origins = model_origins(model);
    let mut watch = Watch::new(budget, start, progress);
    let shared = Shared {
        subtrees: Vec::new(),
        next: AtomicUsize::new(0),
        lowest: names.iter().map(|_| AtomicU64::new(u64::MAX)).collect(),
        found: Mutex::new(names.iter().map(|_| None).collect()),
        visited: AtomicUsize::new(0),
    };
    let (subtrees, expanded) = expand(model, &names, &shared, frontier.max(1));
    let peak_held = subtrees.len();
    let shared = Shared {
        subtrees: subtrees.into_iter().map(|n| Mutex::new(Some(n))).collect(),
        visited: AtomicUsize::new(expanded),
        ..shared
    };
    let threads = budget.threads.max(1) as usize;
    std::thread::scope(|scope| {
        let (done_tx, done_rx) = mpsc::channel::<()>();
        for _ in 0..threads {
            let done = done_tx.clone();
            let (shared, names) = (&shared, &names);
            scope.spawn(move || {
                // Dropped when the worker ends, also by a panic: the loop below sees it.
                let _done = done;
                work(model, names, shared);
            });
        }
        drop(done_tx);
        loop {
            match done_rx.recv_timeout(std::time::Duration::from_millis(10)) {
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Ok(()) | Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
            watch.look(&model.halt, || shared.visited.load(Ordering::Relaxed));
        }
    });
    let found = shared.found.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut result = Exploration {
        unique: shared.visited.load(Ordering::Relaxed),
        peak_held,
        ..Exploration::default()
    };
    for (p, f) in found.into_iter().enumerate() {
        if let Some((_, origin, moves, layer)) = f {
            let pre = origins[origin as usize].clone();
            let actions = rebuild(model, &pre, &moves, layer);
            result.discoveries.insert(names[p].0, (pre, actions));
        }
    }
    result
}

/// The crash set of each initial state, by index.
fn model_origins<A: Checkable>(model: &TimedModel<A>) -> Vec<Vec<Rank>> {
    match model.timing {
        crate::timed::CrashTiming::Pre => {
            crate::timed::crash_sets_of(&model.crashable, model.max_crashes)
        }
        crate::timed::CrashTiming::Any => vec![Vec::new()],
    }
}

/// Expands the states with the fewest crashes, then the earliest next instant, until
/// `frontier` wait or only runs with every crash spent are left (each a single chain of
/// steps). Returns the waiting states in that order and how many states were expanded (each
/// checked, with rank `(0, its order)`).
fn expand<A: Checkable>(
    model: &TimedModel<A>,
    names: &[Named<A>],
    shared: &Shared<A>,
    frontier: usize,
) -> (Vec<Node<A>>, usize) {
    use stateright::Model;
    let mut waiting: BTreeMap<(u32, Time, u64), Node<A>> = BTreeMap::new();
    let mut seq = 0u64;
    let key = |state: &TimedState<A>, seq: u64| {
        let (time, crashes) = layer_of(state);
        (crashes, time, seq)
    };
    for (origin, state) in model.init_states().into_iter().enumerate() {
        let node = Node {
            state: Box::new(state),
            origin: origin as u32,
            moves: Vec::new(),
            after: None,
        };
        waiting.insert(key(&node.state, seq), node);
        seq += 1;
    }
    let mut checker = Checker::new(names.len());
    let mut expanded = 0usize;
    let mut spares = Vec::new();
    let mut actions = Vec::new();
    // Before the operation every crash set is its own initial state and its run a chain of
    // steps: those are the subtrees already.
    let chains = model.timing == crate::timed::CrashTiming::Pre;
    while waiting.len() < frontier && !chains && !model.halt.is_halted() {
        let Some(first) = waiting.first_entry() else {
            break;
        };
        if first.key().0 >= model.max_crashes {
            break;
        }
        let node = first.remove();
        checker.check(
            model,
            names,
            shared,
            &node.state,
            (0, expanded as u64),
            node.origin,
            &node.moves,
        );
        expanded += 1;
        if terminal(model, &node.state) {
            continue;
        }
        let mut stepped = children(model, &node.state, node.after, &mut actions, &mut spares);
        for action in actions.drain(..) {
            if !model.halt.admit() {
                continue;
            }
            let child = match (action, stepped.take()) {
                (TimedAction::Step { .. }, Some(s)) => s,
                (_, s) => {
                    stepped = s;
                    let mut c = Box::new((*node.state).clone());
                    if !model.apply_in_place(&mut c, action) {
                        continue;
                    }
                    c
                }
            };
            let mut moves = node.moves.clone();
            let after = match action {
                TimedAction::Crash { rank, time } => Some((rank, time)),
                _ => None,
            };
            if !matches!(action, TimedAction::Step { .. }) {
                moves.push(action);
            }
            waiting.insert(
                key(&child, seq),
                Node {
                    state: child,
                    origin: node.origin,
                    moves,
                    after,
                },
            );
            seq += 1;
        }
    }
    (waiting.into_values().collect(), expanded)
}

/// The actions of `state` in the order this search takes them — crashes by ascending rank
/// (after `after`, only higher ranks before the same instant), then the step — into `actions`;
/// returns the `Step` successor if finding the crash points computed it.
fn children<A: Checkable>(
    model: &TimedModel<A>,
    state: &TimedState<A>,
    after: Option<(Rank, Time)>,
    actions: &mut Vec<TimedAction>,
    spares: &mut Vec<Box<TimedState<A>>>,
) -> Option<Box<TimedState<A>>> {
    actions.clear();
    let stepped = model.actions_stepping(state, actions, spares);
    if let Some((last, at)) = after {
        actions.retain(|a| match *a {
            TimedAction::Crash { rank, time } => time != at || rank > last,
            _ => true,
        });
    }
    // `actions_stepping` lists the step (or the choices) first: move them last, so that the
    // last child can take its parent's storage.
    let steps = actions
        .iter()
        .take_while(|a| !matches!(a, TimedAction::Crash { .. }))
        .count();
    actions.rotate_left(steps);
    stepped
}

/// Each worker's property checks: which properties it still looks for in its subtree.
struct Checker {
    found_here: Vec<bool>,
}

impl Checker {
    fn new(properties: usize) -> Self {
        Self {
            found_here: vec![false; properties],
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn check<A: Checkable>(
        &mut self,
        model: &TimedModel<A>,
        names: &[Named<A>],
        shared: &Shared<A>,
        state: &TimedState<A>,
        rank: Order,
        origin: u32,
        moves: &[TimedAction],
    ) {
        for (p, named) in names.iter().enumerate() {
            if self.found_here[p] || shared.lowest[p].load(Ordering::Relaxed) < rank.0 {
                continue;
            }
            if discovers(model, named, state) {
                self.found_here[p] = true;
                shared.record(p, (rank, origin, moves.to_vec(), layer_of(state)));
            }
        }
    }
}

/// A state on the current path: its untaken children and where its path's moves end.
struct Frame<A: Checkable> {
    state: Box<TimedState<A>>,
    actions: Vec<TimedAction>,
    next: usize,
    stepped: Option<Box<TimedState<A>>>,
    moves_len: usize,
}

/// One worker: takes the subtrees in order and explores each depth first.
fn work<A: Checkable>(model: &TimedModel<A>, names: &[Named<A>], shared: &Shared<A>) {
    let mut spares: Vec<Box<TimedState<A>>> = Vec::new();
    let mut frames: Vec<Frame<A>> = Vec::new();
    let mut lists: Vec<Vec<TimedAction>> = Vec::new();
    let mut moves: Vec<TimedAction> = Vec::new();
    let mut unpublished = 0u64;
    loop {
        let i = shared.next.fetch_add(1, Ordering::Relaxed);
        if i >= shared.subtrees.len() || model.halt.is_halted() {
            break;
        }
        let subtree = (i + 1) as u64;
        if shared.nothing_left(subtree) {
            break;
        }
        let Some(node) = shared.subtrees[i]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
        else {
            continue;
        };
        let mut checker = Checker::new(names.len());
        let mut order = 0u64;
        moves.clear();
        moves.extend_from_slice(&node.moves);
        let origin = node.origin;
        // Visits a state: checks it and, unless it is terminal, pushes its frame.
        let mut visit = |state: Box<TimedState<A>>,
                         after: Option<(Rank, Time)>,
                         moves: &[TimedAction],
                         frames: &mut Vec<Frame<A>>,
                         spares: &mut Vec<Box<TimedState<A>>>,
                         lists: &mut Vec<Vec<TimedAction>>| {
            checker.check(
                model,
                names,
                shared,
                &state,
                (subtree, order),
                origin,
                moves,
            );
            order += 1;
            if terminal(model, &state) {
                spares.push(state);
                return;
            }
            let mut actions = lists.pop().unwrap_or_default();
            let stepped = children(model, &state, after, &mut actions, spares);
            frames.push(Frame {
                state,
                actions,
                next: 0,
                stepped,
                moves_len: moves.len(),
            });
        };
        visit(
            node.state,
            node.after,
            &moves,
            &mut frames,
            &mut spares,
            &mut lists,
        );
        while let Some(top) = frames.last_mut() {
            if top.next == top.actions.len() || model.halt.is_halted() {
                let frame = frames.pop().expect("a frame is on top");
                spares.push(frame.state);
                spares.extend(frame.stepped);
                lists.push(frame.actions);
                continue;
            }
            let action = top.actions[top.next];
            top.next += 1;
            let last = top.next == top.actions.len();
            moves.truncate(top.moves_len);
            if !model.halt.admit() {
                continue;
            }
            let child = if last {
                // The parent is done with: its storage becomes the child's.
                let mut frame = frames.pop().expect("a frame is on top");
                lists.push(std::mem::take(&mut frame.actions));
                match (action, frame.stepped.take()) {
                    (TimedAction::Step { .. }, Some(stepped)) => {
                        spares.push(frame.state);
                        stepped
                    }
                    (_, stepped) => {
                        spares.extend(stepped);
                        let mut state = frame.state;
                        if !model.apply_in_place(&mut state, action) {
                            spares.push(state);
                            continue;
                        }
                        state
                    }
                }
            } else {
                match (action, top.stepped.take()) {
                    (TimedAction::Step { .. }, Some(stepped)) => stepped,
                    (_, stepped) => {
                        top.stepped = stepped;
                        let mut state = match spares.pop() {
                            Some(mut spare) => {
                                spare.clone_from(&top.state);
                                spare
                            }
                            None => Box::new((*top.state).clone()),
                        };
                        if !model.apply_in_place(&mut state, action) {
                            spares.push(state);
                            continue;
                        }
                        state
                    }
                }
            };
            let after = match action {
                TimedAction::Crash { rank, time } => {
                    moves.push(action);
                    Some((rank, time))
                }
                TimedAction::Choose { .. } => {
                    moves.push(action);
                    None
                }
                TimedAction::Step { .. } => None,
            };
            visit(child, after, &moves, &mut frames, &mut spares, &mut lists);
            unpublished += 1;
            if unpublished >= SLICE {
                shared
                    .visited
                    .fetch_add(unpublished as usize, Ordering::Relaxed);
                unpublished = 0;
                if shared.nothing_left(subtree) {
                    // Every property has a discovery in an earlier subtree: drop this one.
                    for frame in frames.drain(..) {
                        spares.push(frame.state);
                        spares.extend(frame.stepped);
                    }
                }
            }
        }
        // The subtree's root is counted here, its descendants as they are visited.
        unpublished += 1;
        if spares.len() > 64 {
            spares.truncate(64);
        }
    }
    shared
        .visited
        .fetch_add(unpublished as usize, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::Search;
    use crate::{CorrectedTreeSpec, CrashTiming};
    use ftcoll::protocols::corrected_tree::{CorrectionSpec, StartMode};
    use ftcoll::topology::TreeKind;
    use std::time::Instant;

    /// Models large enough for the workers: the expansion leaves `frontier` subtrees (1: the whole
    /// search in one), explored on one thread or two. Every split visits the layered search's
    /// unique states and discovers the same properties; on a given split the discoveries' paths
    /// do not depend on the threads.
    #[test]
    fn the_split_between_workers_changes_nothing() {
        let mut large = 0;
        for correction in [
            CorrectionSpec::Checked,
            CorrectionSpec::Opportunistic { distance: 2 },
            CorrectionSpec::FailProof {
                faults: 2,
                sos_timeout: None,
                sos_on_full_loop: true,
            },
        ] {
            for start in [StartMode::Synchronized, StartMode::Overlapped] {
                let spec =
                    CorrectedTreeSpec::interleaved(TreeKind::Binomial, correction, start, 10);
                let mut model =
                    TimedModel::corrected_tree(&spec, 2, CrashTiming::Any).expect("valid spec");
                model.crashes_before_sends_only = true;
                let one = Budget {
                    search: Search::Depth,
                    threads: 1,
                    crashes_before_sends_only: true,
                    ..Budget::UNLIMITED
                };
                let reference = crate::layered::explore(&model, &one, Instant::now(), None);
                large += usize::from(reference.unique > 2 * FRONTIER);
                for frontier in [1, 7, FRONTIER] {
                    let split = |threads| {
                        let b = Budget { threads, ..one };
                        explore_split(&model, &b, Instant::now(), None, frontier)
                    };
                    let (a, b) = (split(1), split(2));
                    let what = format!("{} frontier {frontier}", spec.name());
                    assert_eq!(a.unique, reference.unique, "{what}: states");
                    assert_eq!(b.unique, reference.unique, "{what}: states, two threads");
                    let keys = |e: &crate::layered::Exploration| {
                        e.discoveries.keys().copied().collect::<Vec<_>>()
                    };
                    assert_eq!(keys(&a), keys(&reference), "{what}: discoveries");
                    assert_eq!(a.discoveries, b.discoveries, "{what}: threads");
                }
            }
        }
        assert!(large >= 3, "only {large} models larger than the frontier");
    }
}
