//! FTCO topologies (FTCO §4, §5.2, §5.2.1, App. A, App. D): the arithmetic of
//! `ftcoll::topology::ftco` against oracles that materialize every tree from the textual
//! definitions, the fault-free latency model against an independent step-by-step scheduler, the
//! search for the best k-nomial `k`, and typed errors.
//!
//! The oracles never call the code under test: a k-nomial tree is grown round by round ("in round
//! `i` a node that has the data sends to up to `k − 1` new nodes at distance `j·k^i`"), a k-ary
//! tree breadth-first, and the multi-root partition is "rank `r` is in tree `r mod R`".

use std::collections::VecDeque;

use ftcoll::topology::ftco::{
    best_knomial, Collective, FtcoKind, FtcoTopology, KnomialChoice, Roots,
};
use ftcoll::topology::{LogP, Order, TopologyError, Tree, TreeKind, MAX_PROCS};
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------------
// Oracles
// ---------------------------------------------------------------------------------------------

/// Children lists (send order) of a single tree on local indices `0..n`, from the definitions.
fn oracle_local_children(kind: FtcoKind, n: usize) -> Vec<Vec<usize>> {
    let mut children = vec![Vec::new(); n];
    match kind {
        FtcoKind::KNomial(k) => {
            let k = k as usize;
            let mut has_data = vec![false; n];
            has_data[0] = true;
            let mut holders = vec![0usize];
            let mut distance = 1usize;
            while holders.len() < n {
                let mut new = Vec::new();
                for &h in &holders {
                    for j in 1..k {
                        let target = h + j * distance;
                        if target < n {
                            assert!(!has_data[target], "round sends to a node with the data");
                            has_data[target] = true;
                            children[h].push(target);
                            new.push(target);
                        }
                    }
                }
                holders.extend(new);
                distance *= k;
            }
        }
        FtcoKind::KAry(k) => {
            let mut next = 1usize;
            let mut queue = VecDeque::from([0usize]);
            while let Some(node) = queue.pop_front() {
                for _ in 0..k {
                    if next < n {
                        children[node].push(next);
                        queue.push_back(next);
                        next += 1;
                    }
                }
            }
        }
        other => panic!("no oracle for {other:?} (a tree kind added after this test)"),
    }
    children
}

/// A whole materialized topology over ranks `0..P`.
struct Oracle {
    roots: usize,
    parent: Vec<Option<usize>>,
    children: Vec<Vec<usize>>,
    level: Vec<u32>,
    tree: Vec<usize>,
    subtree: Vec<u64>,
}

impl Oracle {
    fn new(kind: FtcoKind, roots: usize, procs: usize) -> Self {
        let mut parent = vec![None; procs];
        let mut children = vec![Vec::new(); procs];
        let mut tree = vec![0; procs];
        for t in 0..roots {
            let members: Vec<usize> = (t..procs).step_by(roots).collect();
            let local = oracle_local_children(kind, members.len());
            for (x, kids) in local.iter().enumerate() {
                tree[members[x]] = t;
                for &c in kids {
                    parent[members[c]] = Some(members[x]);
                    children[members[x]].push(members[c]);
                }
            }
        }
        let mut level = vec![0u32; procs];
        let mut order = Vec::with_capacity(procs);
        let mut queue: VecDeque<usize> = (0..roots).collect();
        while let Some(r) = queue.pop_front() {
            order.push(r);
            for &c in &children[r] {
                level[c] = level[r] + 1;
                queue.push_back(c);
            }
        }
        assert_eq!(order.len(), procs, "oracle forest does not span");
        let mut subtree = vec![1u64; procs];
        for &r in order.iter().rev() {
            if let Some(p) = parent[r] {
                subtree[p] += subtree[r];
            }
        }
        Self {
            roots,
            parent,
            children,
            level,
            tree,
            subtree,
        }
    }

    fn procs(&self) -> usize {
        self.parent.len()
    }

    /// Edges: tree edges and the clique among the roots.
    fn neighbours(&self, r: usize) -> Vec<usize> {
        let mut out = self.children[r].clone();
        out.extend(self.parent[r]);
        if r < self.roots {
            out.extend((0..self.roots).filter(|&s| s != r));
        }
        out
    }

    fn bfs_distances(&self, from: usize) -> Vec<u32> {
        let mut dist = vec![u32::MAX; self.procs()];
        dist[from] = 0;
        let mut queue = VecDeque::from([from]);
        while let Some(r) = queue.pop_front() {
            for s in self.neighbours(r) {
                if dist[s] == u32::MAX {
                    dist[s] = dist[r] + 1;
                    queue.push_back(s);
                }
            }
        }
        dist
    }

    fn ancestors(&self, mut r: usize) -> Vec<usize> {
        let mut out = Vec::new();
        while let Some(p) = self.parent[r] {
            out.push(p);
            r = p;
        }
        out
    }
}

fn kinds() -> Vec<FtcoKind> {
    vec![
        FtcoKind::KAry(2),
        FtcoKind::KAry(3),
        FtcoKind::KAry(5),
        FtcoKind::KNomial(2),
        FtcoKind::KNomial(3),
        FtcoKind::KNomial(4),
        FtcoKind::KNomial(7),
    ]
}

fn root_counts(kind: FtcoKind, procs: usize) -> Vec<usize> {
    let mut counts = vec![1, 2, 3, 5, kind.k() as usize, 16];
    counts.retain(|&r| r <= procs);
    counts.sort_unstable();
    counts.dedup();
    counts
}

fn topology(kind: FtcoKind, roots: usize, procs: usize) -> FtcoTopology {
    FtcoTopology::new(kind, roots as u64, procs as u32).unwrap()
}

fn ranks(v: &[usize]) -> Vec<u32> {
    v.iter().map(|&r| r as u32).collect()
}

// ---------------------------------------------------------------------------------------------
// Structure against the oracle
// ---------------------------------------------------------------------------------------------

/// FTCO §5.2.1: for every P ≤ 300, kind, k and R, every lookup equals the materialized tree:
/// exactly the roots lack a parent, children come in Bcast send order and agree with the parents,
/// levels, tree membership, subtree sizes (which sum to the parent's), degree, and the height.
#[test]
fn ftco_5_2_1_every_lookup_matches_the_materialized_trees_up_to_300_ranks() {
    for kind in kinds() {
        for procs in 1..=300usize {
            for roots in root_counts(kind, procs) {
                let oracle = Oracle::new(kind, roots, procs);
                let topo = topology(kind, roots, procs);
                let what = format!("{kind} R={roots} P={procs}");
                let mut max_level = 0;
                for r in 0..procs {
                    let rank = r as u32;
                    assert_eq!(topo.is_root(rank), r < roots, "{what} root {r}");
                    assert_eq!(
                        topo.parent(rank),
                        oracle.parent[r].map(|p| p as u32),
                        "{what} parent of {r}"
                    );
                    let children: Vec<u32> = topo.children(rank).collect();
                    assert_eq!(
                        children,
                        ranks(&oracle.children[r]),
                        "{what} children of {r}"
                    );
                    assert_eq!(topo.child_count(rank), children.len() as u64, "{what} {r}");
                    for &c in &children {
                        assert_eq!(topo.parent(c), Some(rank), "{what} child {c} of {r}");
                    }
                    assert_eq!(topo.level(rank), Some(oracle.level[r]), "{what} level {r}");
                    assert_eq!(
                        topo.tree_of(rank),
                        Some(oracle.tree[r] as u32),
                        "{what} {r}"
                    );
                    assert_eq!(
                        topo.subtree_size(rank),
                        Some(oracle.subtree[r]),
                        "{what} subtree size of {r}"
                    );
                    let below: u64 = children
                        .iter()
                        .map(|&c| topo.subtree_size(c).unwrap())
                        .sum();
                    assert_eq!(below + 1, oracle.subtree[r], "{what} subtree sum at {r}");
                    assert_eq!(
                        topo.degree(rank),
                        oracle.neighbours(r).len() as u64,
                        "{what} degree of {r}"
                    );
                    max_level = max_level.max(oracle.level[r]);
                }
                assert_eq!(topo.depth(), max_level, "{what} depth");
                let tree_total: u64 = (0..roots as u32).map(|t| topo.tree_size(t).unwrap()).sum();
                assert_eq!(tree_total, procs as u64, "{what} trees span the ranks");
                assert_eq!(topo.tree_size(roots as u32), None, "{what}");
                let p = procs as u32;
                assert_eq!(topo.parent(p), None);
                assert_eq!(topo.children(p).count(), 0);
                assert_eq!(topo.level(p), None);
                assert_eq!(topo.subtree_size(p), None);
            }
        }
    }
}

/// FTCO §5.2.1 and §2: the multi-root partition is balanced (trees differ by at most one rank)
/// and rank 0, the fault-immune root, is always a root.
#[test]
fn ftco_5_2_1_multi_root_trees_differ_in_size_by_at_most_one() {
    for procs in 1..=200u32 {
        for roots in 1..=u64::from(procs.min(40)) {
            let topo = FtcoTopology::new(FtcoKind::KNomial(3), roots, procs).unwrap();
            let sizes: Vec<u64> = (0..roots as u32)
                .map(|t| topo.tree_size(t).unwrap())
                .collect();
            let (min, max) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
            assert!(max - min <= 1, "P={procs} R={roots}: {sizes:?}");
            assert!(sizes.windows(2).all(|w| w[0] >= w[1]), "larger trees first");
            assert!(topo.is_root(0));
        }
    }
}

/// FTCO §5.2.1: the k-nomial with k = 2 is the binomial tree — the crate's CT binomial tree,
/// parent for parent and child for child in send order.
#[test]
fn ftco_5_2_1_k_nomial_with_k_2_is_the_binomial_tree() {
    for procs in 1..=300u32 {
        let ftco = FtcoTopology::new(FtcoKind::KNomial(2), 1, procs).unwrap();
        let binomial = Tree::new(
            TreeKind::Binomial,
            Order::Interleaved,
            procs,
            LogP::default(),
        )
        .unwrap();
        for r in 0..procs {
            assert_eq!(ftco.parent(r), binomial.parent(r), "P={procs} parent {r}");
            let a: Vec<u32> = ftco.children(r).collect();
            let b: Vec<u32> = binomial.children(r).collect();
            assert_eq!(a, b, "P={procs} children of {r}");
            assert_eq!(ftco.subtree_size(r), binomial.subtree_size(r));
        }
    }
}

/// FTCO §5.2.1: with R = k the multi-root k-nomial is the k-nomial whose root's first round
/// (ranks 1..k) became a clique of roots: every other rank keeps its parent.
#[test]
fn ftco_5_2_1_multi_root_k_nomial_with_k_roots_is_the_k_nomial_with_a_root_clique() {
    for k in 2..=6u64 {
        for procs in k as u32..=300 {
            let single = FtcoTopology::new(FtcoKind::KNomial(k), 1, procs).unwrap();
            let multi = FtcoTopology::new(FtcoKind::KNomial(k), k, procs).unwrap();
            for r in 0..procs {
                if u64::from(r) < k {
                    assert!(multi.is_root(r));
                    assert_eq!(single.parent(r), (r > 0).then_some(0));
                } else {
                    assert_eq!(multi.parent(r), single.parent(r), "k={k} P={procs} r={r}");
                }
            }
        }
    }
}

/// FTCO Alg. 3–4 and App. D: `f_tree` gives the children as Down and the parent (or, for a
/// multi-root root, the other roots in exchange order) as Up; the grandparent is the parent's
/// parent and the ancestors are the chain of parents.
#[test]
fn ftco_alg_4_f_tree_and_grandparents_follow_the_parents() {
    for kind in kinds() {
        for procs in [1usize, 2, 5, 17, 64, 100, 257] {
            for roots in root_counts(kind, procs) {
                let oracle = Oracle::new(kind, roots, procs);
                let topo = topology(kind, roots, procs);
                for r in 0..procs {
                    let rank = r as u32;
                    let (down, up) = topo.f_tree(rank);
                    assert_eq!(down.collect::<Vec<_>>(), ranks(&oracle.children[r]));
                    let up: Vec<u32> = up.collect();
                    let expected: Vec<u32> = match oracle.parent[r] {
                        Some(p) => vec![p as u32],
                        None => (1..roots).map(|d| ((r + d) % roots) as u32).collect(),
                    };
                    assert_eq!(up, expected, "{kind} R={roots} P={procs} Up of {r}");
                    assert_eq!(
                        topo.grandparent(rank),
                        oracle.parent[r]
                            .and_then(|p| oracle.parent[p])
                            .map(|g| g as u32)
                    );
                    assert_eq!(
                        topo.ancestors(rank).collect::<Vec<_>>(),
                        ranks(&oracle.ancestors(r))
                    );
                }
            }
        }
    }
}

/// FTCO App. A: the tree distance is the shortest path over tree edges and the roots' clique —
/// so it is symmetric and satisfies the triangle inequality — and `in_subtree` is ancestry.
#[test]
fn ftco_app_a_distances_are_shortest_paths_symmetric_and_triangular() {
    for kind in kinds() {
        for procs in (1..=40usize).chain([64, 100, 129]) {
            for roots in root_counts(kind, procs) {
                let oracle = Oracle::new(kind, roots, procs);
                let topo = topology(kind, roots, procs);
                let what = format!("{kind} R={roots} P={procs}");
                let dist: Vec<Vec<u32>> = (0..procs).map(|a| oracle.bfs_distances(a)).collect();
                for (a, row) in dist.iter().enumerate() {
                    let ancestors = oracle.ancestors(a);
                    for (b, &shortest) in row.iter().enumerate() {
                        let d = topo.distance(a as u32, b as u32).unwrap();
                        assert_eq!(d, shortest, "{what} distance({a}, {b})");
                        assert_eq!(d, topo.distance(b as u32, a as u32).unwrap());
                        let ancestry = a == b || ancestors.contains(&b);
                        assert_eq!(topo.in_subtree(b as u32, a as u32), ancestry, "{what}");
                    }
                }
                if procs <= 24 {
                    for a in 0..procs {
                        for b in 0..procs {
                            for c in 0..procs {
                                let (ab, bc, ac) = (
                                    topo.distance(a as u32, b as u32).unwrap(),
                                    topo.distance(b as u32, c as u32).unwrap(),
                                    topo.distance(a as u32, c as u32).unwrap(),
                                );
                                assert!(ac <= ab + bc, "{what} triangle {a} {b} {c}");
                            }
                        }
                    }
                }
                assert_eq!(topo.distance(0, procs as u32), None);
            }
        }
    }
}

/// A tiny deterministic generator for failure sets (no dependency on the crate's RNG).
fn lcg(state: &mut u64) -> u64 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *state >> 33
}

/// FTCO Alg. 4 lines 6–10: replacing failed children by their children, recursively, reaches
/// exactly the topmost live descendants (in send order), and replacing failed parents reaches
/// the first live ancestor.
#[test]
fn ftco_alg_4_routing_around_failures_reaches_the_first_live_nodes() {
    let mut seed = 7u64;
    for kind in kinds() {
        for procs in [3usize, 10, 31, 100, 200] {
            for roots in root_counts(kind, procs) {
                let oracle = Oracle::new(kind, roots, procs);
                let topo = topology(kind, roots, procs);
                for trial in 0..20 {
                    let failed: Vec<bool> = (0..procs)
                        .map(|r| r > 0 && lcg(&mut seed) % 4 <= trial % 4)
                        .collect();
                    let is_failed = |r: u32| failed[r as usize];
                    for r in 0..procs {
                        // Alg. 4 line 10, unrolled on the materialized tree.
                        let mut expected = Vec::new();
                        let mut stack: Vec<usize> =
                            oracle.children[r].iter().rev().copied().collect();
                        while let Some(c) = stack.pop() {
                            if failed[c] {
                                stack.extend(oracle.children[c].iter().rev());
                            } else {
                                expected.push(c as u32);
                            }
                        }
                        let got: Vec<u32> = topo.live_frontier(r as u32, is_failed).collect();
                        assert_eq!(got, expected, "{kind} R={roots} P={procs} below {r}");
                        let first = oracle
                            .ancestors(r)
                            .into_iter()
                            .find(|&a| !failed[a])
                            .map(|a| a as u32);
                        assert_eq!(topo.first_live_ancestor(r as u32, is_failed), first);
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Fault-free latency against a step-by-step scheduler
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq)]
enum Msg {
    /// A partial from a child (or, in a multi-root Reduce, from another root to rank 0).
    Partial,
    /// A partial exchanged between the roots of a multi-root Allreduce.
    RootPartial,
    /// The broadcast value.
    Value,
}

/// Plays `collective` step by step on the materialized topology (FTCO §5.2): every node does
/// one thing per step, a message sent in step `s` can be handled from step `s + L + 1` on, and a
/// handler holds the value at the end of its step. Returns the latency as the module defines it.
fn schedule(oracle: &Oracle, collective: Collective, latency: u64) -> u64 {
    let procs = oracle.procs();
    let roots = oracle.roots;
    let mut queue: Vec<Vec<(u64, usize, Msg)>> = vec![Vec::new(); procs];
    // Outgoing messages still to send, in order.
    let mut outbox: Vec<VecDeque<(usize, Msg)>> = vec![VecDeque::new(); procs];
    let mut partials = vec![0usize; procs];
    let mut root_partials = vec![0usize; procs];
    let mut holds: Vec<Option<u64>> = vec![None; procs];
    let mut reduced: Vec<Option<u64>> = vec![None; procs];
    let mut up_sent = vec![false; procs];
    let expected_partials = |r: usize| -> usize {
        let extra = if collective == Collective::Reduce && r == 0 {
            roots - 1
        } else {
            0
        };
        oracle.children[r].len() + extra
    };
    let mut result = 0u64;
    let mut outstanding = procs;
    let down_targets = |r: usize| -> VecDeque<(usize, Msg)> {
        let mut out = VecDeque::new();
        if collective == Collective::Bcast && r == 0 {
            out.extend((1..roots).map(|t| (t, Msg::Value)));
        }
        out.extend(oracle.children[r].iter().map(|&c| (c, Msg::Value)));
        out
    };
    if collective == Collective::Bcast {
        holds[0] = Some(0);
        outbox[0] = down_targets(0);
        outstanding -= 1;
    }
    let mut step = 0u64;
    while outstanding > 0 || outbox.iter().any(|o| !o.is_empty()) {
        let mut sends = Vec::new();
        for r in 0..procs {
            // Partial complete: move up (non-roots; roots to rank 0 in a Reduce, to all roots in
            // an Allreduce).
            if collective != Collective::Bcast && !up_sent[r] && partials[r] == expected_partials(r)
            {
                up_sent[r] = true;
                reduced[r] = Some(step);
                if let Some(p) = oracle.parent[r] {
                    outbox[r].push_back((p, Msg::Partial));
                } else if collective == Collective::Reduce {
                    if r == 0 {
                        result = step;
                        outstanding -= 1;
                    } else {
                        outbox[r].push_back((0, Msg::Partial));
                    }
                } else {
                    for d in 1..roots {
                        outbox[r].push_back(((r + d) % roots, Msg::RootPartial));
                    }
                    if roots == 1 {
                        holds[r] = Some(step);
                        outbox[r].extend(down_targets(r));
                        outstanding -= 1;
                    }
                }
                if collective == Collective::Reduce && r != 0 {
                    outstanding -= 1;
                }
            }
            // Sending comes first (Alg. 3 runs before Alg. 1 handles the queue).
            if let Some((to, msg)) = outbox[r].pop_front() {
                sends.push((to, msg, r));
                continue;
            }
            let handleable = |&(arrival, _, msg): &(u64, usize, Msg)| {
                arrival <= step && (msg != Msg::RootPartial || up_sent[r])
            };
            let Some(pos) = queue[r]
                .iter()
                .enumerate()
                .filter(|(_, m)| handleable(m))
                .min_by_key(|(i, m)| (m.0, *i))
                .map(|(i, _)| i)
            else {
                continue;
            };
            let (_, _, msg) = queue[r].remove(pos);
            match msg {
                Msg::Partial => {
                    partials[r] += 1;
                    if collective == Collective::Reduce
                        && r == 0
                        && partials[0] == expected_partials(0)
                    {
                        up_sent[0] = true;
                        result = step + 1;
                        outstanding -= 1;
                    }
                }
                Msg::RootPartial => {
                    root_partials[r] += 1;
                    if root_partials[r] == roots - 1 {
                        holds[r] = Some(step + 1);
                        outbox[r].extend(down_targets(r));
                        outstanding -= 1;
                    }
                }
                Msg::Value => {
                    holds[r] = Some(step + 1);
                    outbox[r].extend(down_targets(r));
                    outstanding -= 1;
                }
            }
        }
        for (to, msg, from) in sends {
            queue[to].push((step + latency + 1, from, msg));
        }
        step += 1;
        assert!(step < 1_000_000, "scheduler does not terminate");
    }
    match collective {
        Collective::Reduce => result,
        _ => holds.iter().map(|h| h.unwrap()).max().unwrap(),
    }
}

const COLLECTIVES: [Collective; 3] = [Collective::Bcast, Collective::Reduce, Collective::Allreduce];

/// FTCO §5.2: the latency function equals a step-by-step play of the collective for every
/// P ≤ 100, kind, k, R and L in {0, 1, 10}, and for a few larger P at L = 10.
#[test]
fn ftco_5_2_latency_function_equals_a_step_by_step_schedule() {
    let mut cases: Vec<(usize, u64)> = Vec::new();
    for procs in 1..=100 {
        for latency in [0, 1, 10] {
            cases.push((procs, latency));
        }
    }
    for procs in [127, 128, 129, 255, 256, 300] {
        cases.push((procs, 10));
    }
    for kind in kinds() {
        for &(procs, latency) in &cases {
            for roots in root_counts(kind, procs) {
                let oracle = Oracle::new(kind, roots, procs);
                let topo = topology(kind, roots, procs);
                for collective in COLLECTIVES {
                    assert_eq!(
                        topo.fault_free_latency(collective, latency).unwrap(),
                        schedule(&oracle, collective, latency),
                        "{kind} R={roots} P={procs} L={latency} {collective:?}"
                    );
                }
            }
        }
    }
}

/// FTCO §5.2: a lone process finishes at once; one hop costs L + 2 steps (send, L, handle).
#[test]
fn ftco_5_2_one_hop_costs_l_plus_two_steps() {
    for kind in [FtcoKind::KAry(2), FtcoKind::KNomial(2)] {
        let lone = FtcoTopology::new(kind, 1, 1).unwrap();
        let pair = FtcoTopology::new(kind, 1, 2).unwrap();
        let two_roots = FtcoTopology::new(kind, 2, 2).unwrap();
        for collective in COLLECTIVES {
            assert_eq!(lone.fault_free_latency(collective, 10).unwrap(), 0);
        }
        assert_eq!(pair.fault_free_latency(Collective::Bcast, 10), Ok(12));
        assert_eq!(pair.fault_free_latency(Collective::Reduce, 10), Ok(12));
        assert_eq!(pair.fault_free_latency(Collective::Allreduce, 10), Ok(24));
        // Two roots exchange at once: send in step 0, handle in step 11.
        assert_eq!(
            two_roots.fault_free_latency(Collective::Allreduce, 10),
            Ok(12)
        );
    }
}

/// FTCO §5.2.1: with R = k, the multi-root k-nomial Bcast and Reduce are the single-root
/// k-nomial's (rank 0 treats the other roots as its first round); only Allreduce differs.
#[test]
fn ftco_5_2_1_k_roots_change_only_the_allreduce() {
    for k in 2..=12u64 {
        for procs in [k as u32, 100, 1000, 4096, 65536] {
            let single = FtcoTopology::new(FtcoKind::KNomial(k), 1, procs).unwrap();
            let multi = FtcoTopology::new(FtcoKind::KNomial(k), k, procs).unwrap();
            for collective in [Collective::Bcast, Collective::Reduce] {
                assert_eq!(
                    single.fault_free_latency(collective, 10),
                    multi.fault_free_latency(collective, 10),
                    "k={k} P={procs} {collective:?}"
                );
            }
        }
    }
}

/// FTCO §5.2.1 and Table 2 (fault-free row: 171 steps on 64 K nodes): the multi-root k-nomial
/// Allreduce with R = k is best at k = 9, where this model gives exactly 171 steps at L = 10.
#[test]
fn ftco_table_2_multi_root_k_nomial_allreduce_on_64k_nodes_takes_171_steps() {
    let best = best_knomial(Collective::Allreduce, 65536, 10, Roots::PerK).unwrap();
    assert_eq!(
        best,
        KnomialChoice {
            k: 9,
            roots: 9,
            latency: 171
        }
    );
    let single = best_knomial(Collective::Allreduce, 65536, 10, Roots::Single).unwrap();
    assert_eq!((single.k, single.latency), (9, 190));
    // A free number of roots does one step better: the paper optimizes only k.
    let free = (2..=32u64)
        .map(|r| {
            let c = best_knomial(Collective::Allreduce, 65536, 10, Roots::Fixed(r)).unwrap();
            (c.latency, c.k, r)
        })
        .min()
        .unwrap();
    assert_eq!(free, (170, 9, 10));
}

/// FTCO §5.2.1, Fig. 7: the best k-nomial k and latency for P = 1 K … 64 K at L = 10, o = 1, as
/// reported in docs/reference/topology.md ("The best k-nomial k"): (P, Bcast, Reduce, Allreduce
/// single-root, Allreduce R = k), each
/// as (k, steps).
#[test]
fn ftco_5_2_1_best_k_nomial_k_for_1k_to_64k_nodes() {
    let table: [(u32, [(u64, u64); 4]); 7] = [
        (1024, [(10, 60), (10, 60), (10, 120), (11, 99)]),
        (2048, [(7, 66), (7, 66), (7, 132), (12, 114)]),
        (4096, [(8, 72), (8, 72), (8, 144), (9, 125)]),
        (8192, [(10, 78), (10, 78), (10, 156), (10, 136)]),
        (16384, [(7, 84), (7, 84), (7, 168), (12, 148)]),
        (32768, [(8, 90), (8, 90), (8, 180), (9, 161)]),
        (65536, [(9, 95), (9, 95), (9, 190), (9, 171)]),
    ];
    let mut got = Vec::new();
    for (procs, _) in table {
        let row = [
            best_knomial(Collective::Bcast, procs, 10, Roots::Single).unwrap(),
            best_knomial(Collective::Reduce, procs, 10, Roots::Single).unwrap(),
            best_knomial(Collective::Allreduce, procs, 10, Roots::Single).unwrap(),
            best_knomial(Collective::Allreduce, procs, 10, Roots::PerK).unwrap(),
        ]
        .map(|c| (c.k, c.latency));
        got.push((procs, row));
    }
    assert_eq!(got, table.to_vec());
}

/// FTCO §5.2.1: "for a given k, the K-nomial topology outperforms K-ary" — checked for the
/// Allreduce at L = 10 on 1 K … 64 K nodes, k = 2 … 16, single-root.
#[test]
fn ftco_5_2_1_k_nomial_beats_k_ary_for_the_same_k() {
    for procs in [1024u32, 4096, 16384, 65536] {
        for k in 2..=16u64 {
            let nomial = FtcoTopology::new(FtcoKind::KNomial(k), 1, procs).unwrap();
            let ary = FtcoTopology::new(FtcoKind::KAry(k), 1, procs).unwrap();
            let (n, a) = (
                nomial
                    .fault_free_latency(Collective::Allreduce, 10)
                    .unwrap(),
                ary.fault_free_latency(Collective::Allreduce, 10).unwrap(),
            );
            assert!(n <= a, "P={procs} k={k}: k-nomial {n} > k-ary {a}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Large P: no panics, consistent lookups
// ---------------------------------------------------------------------------------------------

fn large_case() -> impl Strategy<Value = (FtcoKind, u32, u64, u32)> {
    let k = prop_oneof![2u64..=16, 2u64..=65536];
    let kind = (any::<bool>(), k).prop_map(|(nomial, k)| {
        if nomial {
            FtcoKind::KNomial(k)
        } else {
            FtcoKind::KAry(k)
        }
    });
    let procs = prop_oneof![Just(MAX_PROCS), 1u32..=MAX_PROCS, 1u32..=100_000];
    (kind, procs, any::<u64>(), any::<u32>()).prop_map(|(kind, procs, roots, rank)| {
        let wide = u64::from(procs);
        // Mostly few roots, sometimes any number up to P.
        let roots = match roots % 4 {
            0 => 1,
            1 => 1 + roots % wide.min(64),
            2 => kind.k().min(wide),
            _ => 1 + (roots >> 2) % wide,
        };
        (kind, procs, roots, rank % procs)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// FTCO §5.2.1: for P up to 2^32 − 1 and any k, R and rank, lookups do not panic and agree:
    /// children name their parent, sit one level lower at distance 1, and their subtrees sum to
    /// the parent's; the ancestors climb one level at a time to the tree root; the grandparent is
    /// the parent's parent; distances are symmetric and bounded by the levels.
    #[test]
    fn ftco_5_2_1_lookups_stay_consistent_for_any_p(case in large_case()) {
        let (kind, procs, roots, rank) = case;
        let topo = FtcoTopology::new(kind, roots, procs).unwrap();
        let level = topo.level(rank).unwrap();
        prop_assert!(level <= topo.depth());
        let size = topo.subtree_size(rank).unwrap();
        let mut below = 0u64;
        let mut count = 0u64;
        for child in topo.children(rank).take(5_000) {
            prop_assert_eq!(topo.parent(child), Some(rank));
            prop_assert_eq!(topo.level(child), Some(level + 1));
            prop_assert_eq!(topo.distance(rank, child), Some(1));
            prop_assert!(topo.in_subtree(rank, child));
            prop_assert!(!topo.in_subtree(child, rank));
            below += topo.subtree_size(child).unwrap();
            count += 1;
        }
        if count < 5_000 {
            prop_assert_eq!(count, topo.child_count(rank));
            prop_assert_eq!(below + 1, size);
        }
        let ancestors: Vec<u32> = topo.ancestors(rank).collect();
        prop_assert_eq!(ancestors.len() as u32, level);
        for (i, &a) in ancestors.iter().enumerate() {
            prop_assert_eq!(topo.level(a), Some(level - 1 - i as u32));
            prop_assert!(topo.in_subtree(a, rank));
            prop_assert_eq!(topo.distance(rank, a), Some(i as u32 + 1));
        }
        prop_assert_eq!(topo.grandparent(rank), topo.parent(rank).and_then(|p| topo.parent(p)));
        let root = ancestors.last().copied().unwrap_or(rank);
        prop_assert!(topo.is_root(root));
        prop_assert_eq!(topo.tree_of(rank), Some(root));
        let other = (u64::from(rank) * 2_654_435_761 % u64::from(procs)) as u32;
        let d = topo.distance(rank, other).unwrap();
        prop_assert_eq!(topo.distance(other, rank), Some(d));
        prop_assert!(d <= level + topo.level(other).unwrap() + 1);
        let (_, up) = topo.f_tree(rank);
        prop_assert_eq!(topo.degree(rank), topo.child_count(rank) + up.len() as u64);
        if up.len() <= 64 {
            prop_assert_eq!(up.clone().count(), up.len());
        }
    }

    /// FTCO §5.2: the latency function answers for any P, k and R without panicking, and adding
    /// latency never makes a collective faster.
    #[test]
    fn ftco_5_2_latency_is_defined_for_any_p(case in large_case(), latency in 0u64..=65535) {
        let (kind, procs, roots, _) = case;
        let topo = FtcoTopology::new(kind, roots, procs).unwrap();
        for collective in COLLECTIVES {
            let slow = topo.fault_free_latency(collective, latency).unwrap();
            let fast = topo.fault_free_latency(collective, latency / 2).unwrap();
            prop_assert!(fast <= slow);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

fn field(e: TopologyError) -> (&'static str, u64, u64, u64) {
    match e {
        TopologyError::OutOfRange {
            field,
            value,
            min,
            max,
        } => (field, value, min, max),
        other => panic!("expected OutOfRange, got {other:?}"),
    }
}

/// FTCO §5.2.1: bad P, k, R and L are typed errors naming the field and the allowed range.
#[test]
fn ftco_5_2_1_constructor_errors_name_the_field_and_range() {
    let k3 = FtcoKind::KNomial(3);
    let e = FtcoTopology::new(k3, 1, 0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "procs = 0 is out of range: allowed 1..=4294967295"
    );
    assert_eq!(field(e), ("procs", 0, 1, u64::from(MAX_PROCS)));
    // P is checked before k and R.
    let e = FtcoTopology::new(FtcoKind::KAry(0), 0, 0).unwrap_err();
    assert_eq!(field(e), ("procs", 0, 1, u64::from(MAX_PROCS)));
    for kind in [
        FtcoKind::KAry(0),
        FtcoKind::KAry(1),
        FtcoKind::KNomial(1),
        FtcoKind::KNomial(65537),
        FtcoKind::KAry(u64::MAX),
    ] {
        let e = FtcoTopology::new(kind, 1, 10).unwrap_err();
        assert!(e.to_string().contains("allowed 2..=65536"), "{e}");
        assert_eq!(field(e), ("k", kind.k(), 2, 65536));
    }
    for roots in [0, 11, u64::MAX] {
        let e = FtcoTopology::new(k3, roots, 10).unwrap_err();
        assert!(e.to_string().starts_with("roots = "), "{e}");
        assert_eq!(field(e), ("roots", roots, 1, 10));
    }
    assert!(FtcoTopology::new(FtcoKind::KAry(65536), u64::from(MAX_PROCS), MAX_PROCS).is_ok());
    let topo = FtcoTopology::new(k3, 2, 10).unwrap();
    let e = topo
        .fault_free_latency(Collective::Bcast, 65536)
        .unwrap_err();
    assert_eq!(field(e), ("L", 65536, 0, 65535));
    let e = best_knomial(Collective::Bcast, 0, 10, Roots::Single).unwrap_err();
    assert_eq!(field(e), ("procs", 0, 1, u64::from(MAX_PROCS)));
    let e = best_knomial(Collective::Bcast, 10, 70000, Roots::Single).unwrap_err();
    assert_eq!(field(e), ("L", 70000, 0, 65535));
    let e = best_knomial(Collective::Bcast, 10, 10, Roots::Fixed(11)).unwrap_err();
    assert_eq!(field(e), ("roots", 11, 1, 10));
    let lone = best_knomial(Collective::Allreduce, 1, 10, Roots::PerK).unwrap();
    assert_eq!((lone.k, lone.roots, lone.latency), (2, 1, 0));
}

/// `FtcoKind` reads what it writes, and refuses other spellings and orders outside 2..=65536.
#[test]
fn ftco_kinds_read_what_they_write() {
    for kind in [
        FtcoKind::KAry(2),
        FtcoKind::KAry(65_536),
        FtcoKind::KNomial(3),
    ] {
        assert_eq!(kind.to_string().parse::<FtcoKind>(), Ok(kind));
    }
    for bad in ["kary:1", "knomial:65537", "kary", "binary:2", "kary:x", ""] {
        let e = bad.parse::<FtcoKind>().unwrap_err();
        assert!(e.to_string().contains("kary:K or knomial:K"), "{bad}: {e}");
    }
}
