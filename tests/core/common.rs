//! Independent oracles for the topology test suites (CT §3.2).
//!
//! Nothing here calls the code under test except [`build`], which only uses the public types to
//! construct the tree that is compared against an oracle. Every oracle materializes the whole tree
//! from the textual description of the construction (CT §3.2.1–3.2.3, DESIGN.md §4), never from
//! the crate's closed formulas.
#![allow(dead_code)]

use std::collections::BTreeMap;

use ftcoll::topology::{LogP, Order, Tree, TreeKind};

/// A fully materialized rooted tree over ranks `0..P`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OracleTree {
    /// `parent[r]`, `None` only for rank 0.
    pub parent: Vec<Option<u32>>,
    /// Children of every rank, in send order.
    pub children: Vec<Vec<u32>>,
    /// The construction time at which each rank can send first: the level for k-ary trees, the
    /// iteration `s'` for binomial/Lamé trees, the LogP time for the optimal tree.
    pub first_send: Vec<u64>,
}

impl OracleTree {
    pub fn procs(&self) -> usize {
        self.parent.len()
    }

    fn with_root() -> Self {
        Self {
            parent: vec![None],
            children: vec![Vec::new()],
            first_send: vec![0],
        }
    }

    fn add(&mut self, parent: u32, first_send: u64) -> u32 {
        let rank = self.parent.len() as u32;
        self.parent.push(Some(parent));
        self.children.push(Vec::new());
        self.children[parent as usize].push(rank);
        self.first_send.push(first_send);
        rank
    }

    /// Ranks in breadth-first order from the root along the children lists (asserts spanning).
    pub fn bfs_order(&self) -> Vec<u32> {
        let mut order = vec![0u32];
        let mut i = 0;
        while i < order.len() {
            let r = order[i] as usize;
            order.extend_from_slice(&self.children[r]);
            i += 1;
        }
        assert_eq!(order.len(), self.procs(), "oracle tree not spanning");
        order
    }

    /// Depth of every rank (root 0): parent's depth plus one, in breadth-first order.
    pub fn levels(&self) -> Vec<u32> {
        let mut level = vec![0u32; self.procs()];
        for r in self.bfs_order() {
            for &c in &self.children[r as usize] {
                level[c as usize] = level[r as usize] + 1;
            }
        }
        level
    }

    /// Number of ranks in every subtree: one plus the children's sizes, in reverse BFS order.
    pub fn subtree_sizes(&self) -> Vec<u64> {
        let mut size = vec![1u64; self.procs()];
        for r in self.bfs_order().into_iter().rev() {
            if let Some(p) = self.parent[r as usize] {
                size[p as usize] += size[r as usize];
            }
        }
        size
    }

    /// Fault-free dual-port LogP receive times: the root holds the message at 0; a process holding
    /// it at `t` starts its `j`-th send (0-based, send order) at `t + j·o`, and that child holds
    /// the message `2o + L` later.
    pub fn receive_times(&self, latency: u64, overhead: u64) -> Vec<u64> {
        let mut time = vec![u64::MAX; self.procs()];
        time[0] = 0;
        let mut queue = std::collections::VecDeque::from([0u32]);
        while let Some(r) = queue.pop_front() {
            let t = time[r as usize];
            for (j, &c) in self.children[r as usize].iter().enumerate() {
                time[c as usize] = t + j as u64 * overhead + 2 * overhead + latency;
                queue.push_back(c);
            }
        }
        assert!(
            time.iter().all(|&t| t != u64::MAX),
            "oracle tree not spanning"
        );
        time
    }

    /// Renumbers the same shape by depth-first pre-order, children visited in send order
    /// (CT Fig. 3 and 4, left). Send order and first-send times travel with the nodes.
    pub fn in_order(&self) -> Self {
        let n = self.procs();
        let mut new_of = vec![u32::MAX; n];
        let mut order = Vec::with_capacity(n);
        let mut stack = vec![0u32];
        while let Some(r) = stack.pop() {
            new_of[r as usize] = order.len() as u32;
            order.push(r);
            for &c in self.children[r as usize].iter().rev() {
                stack.push(c);
            }
        }
        let mut out = Self {
            parent: vec![None; n],
            children: vec![Vec::new(); n],
            first_send: vec![0; n],
        };
        for old in 0..n {
            let new = new_of[old] as usize;
            out.parent[new] = self.parent[old].map(|p| new_of[p as usize]);
            out.children[new] = self.children[old]
                .iter()
                .map(|&c| new_of[c as usize])
                .collect();
            out.first_send[new] = self.first_send[old];
        }
        out
    }
}

/// Interleaved k-ary tree (CT §3.2.1 as stated in DESIGN.md §4): level `l` holds `k^l` ranks
/// starting at `first(l) = Σ_{j<l} k^j`; rank `r` on level `l` has children `r + i·k^l`,
/// `i = 1..=k`, those `< P`, in that order. Built level by level from the root.
pub fn kary(k: u64, procs: usize) -> OracleTree {
    let mut parent: Vec<Option<u32>> = vec![None; procs];
    let mut children = vec![Vec::new(); procs];
    let mut first_send = vec![0u64; procs];
    let mut level: Vec<u32> = vec![0; procs];
    // Ranks on the current level, and its width k^l.
    let mut current: Vec<u64> = vec![0];
    let mut width: u64 = 1;
    let mut l = 0u32;
    while !current.is_empty() {
        let mut next = Vec::new();
        for &r in &current {
            level[r as usize] = l;
            first_send[r as usize] = u64::from(l);
            for i in 1..=k {
                let Some(c) = i.checked_mul(width).and_then(|x| x.checked_add(r)) else {
                    continue;
                };
                if c < procs as u64 {
                    assert!(
                        parent[c as usize].is_none(),
                        "k-ary oracle assigns {c} twice"
                    );
                    parent[c as usize] = Some(r as u32);
                    children[r as usize].push(c as u32);
                    next.push(c);
                }
            }
        }
        next.sort_unstable();
        current = next;
        width = width.saturating_mul(k);
        l += 1;
    }
    assert!(
        parent.iter().skip(1).all(Option::is_some),
        "k-ary oracle not spanning"
    );
    OracleTree {
        parent,
        children,
        first_send,
    }
}

/// Event-driven ready-to-send construction: the root is ready at 0; a process ready at `u` sends
/// at `u, u + step, u + 2·step, …`; each send started at `s` creates the next rank, ready at
/// `s + ready_after`; at one instant senders create their children in rank order.
///
/// - Lamé(k) (CT §3.2.2): `step = 1`, `ready_after = k` (binomial: `k = 1`), time = iteration.
/// - optimal for `(L, o)` (CT §3.2.3): `step = o`, `ready_after = 2o + L`, time = LogP time.
pub fn ready_construction(step: u64, ready_after: u64, procs: usize) -> OracleTree {
    let mut tree = OracleTree::with_root();
    let mut sends: BTreeMap<u64, Vec<u32>> = BTreeMap::new();
    sends.insert(0, vec![0]);
    while tree.procs() < procs {
        let (t, mut senders) = sends.pop_first().expect("someone always sends");
        senders.sort_unstable();
        for s in senders {
            if tree.procs() == procs {
                break;
            }
            let c = tree.add(s, t + ready_after);
            sends.entry(t + step).or_default().push(s);
            sends.entry(t + ready_after).or_default().push(c);
        }
    }
    tree
}

/// The oracle tree of `kind` numbered in `order`.
pub fn oracle(
    kind: TreeKind,
    order: Order,
    procs: usize,
    latency: u64,
    overhead: u64,
) -> OracleTree {
    let interleaved = match kind {
        TreeKind::KAry(k) => kary(k, procs),
        TreeKind::Binomial => ready_construction(1, 1, procs),
        TreeKind::Lame(k) => ready_construction(1, k, procs),
        TreeKind::Optimal => ready_construction(overhead, 2 * overhead + latency, procs),
        other => panic!("no oracle for {other} (a tree kind added after this test)"),
    };
    match order {
        Order::Interleaved => interleaved,
        Order::InOrder => interleaved.in_order(),
        other => panic!("no oracle for {other} (an order added after this test)"),
    }
}

/// The crate's tree (the code under test).
pub fn build(kind: TreeKind, order: Order, procs: u32, latency: u64, overhead: u64) -> Tree {
    Tree::new(kind, order, procs, LogP::new(latency, overhead).unwrap()).unwrap_or_else(|e| {
        panic!("Tree::new({kind}, {order}, {procs}, L={latency}, o={overhead}): {e}")
    })
}

/// The `(L, o)` pairs used across the suite: `o | L` and `o ∤ L`, `L = 0` included.
pub const LOGPS: &[(u64, u64)] = &[
    (1, 1),
    (2, 1),
    (3, 1),
    (0, 1),
    (1, 2),
    (3, 2),
    (4, 2),
    (5, 3),
    (10, 4),
    (0, 3),
];

/// Tree kinds (without `Optimal`, whose shape depends on `(L, o)`).
pub const FIXED_KINDS: &[TreeKind] = &[
    TreeKind::KAry(1),
    TreeKind::KAry(2),
    TreeKind::KAry(3),
    TreeKind::KAry(4),
    TreeKind::KAry(7),
    TreeKind::Binomial,
    TreeKind::Lame(1),
    TreeKind::Lame(2),
    TreeKind::Lame(3),
    TreeKind::Lame(5),
];

/// Every `(kind, L, o)` combination to test: fixed kinds under `L = 2, o = 1` plus the optimal
/// tree under every pair of [`LOGPS`].
pub fn all_kinds() -> Vec<(TreeKind, u64, u64)> {
    let mut out: Vec<(TreeKind, u64, u64)> = FIXED_KINDS.iter().map(|&k| (k, 2, 1)).collect();
    out.extend(LOGPS.iter().map(|&(l, o)| (TreeKind::Optimal, l, o)));
    out
}

/// Lowest common ancestor by explicit walks: depths from parent links, lift the deeper node.
pub fn lca(parent: &[Option<u32>], depth: &[u32], mut u: u32, mut v: u32) -> u32 {
    while depth[u as usize] > depth[v as usize] {
        u = parent[u as usize].unwrap();
    }
    while depth[v as usize] > depth[u as usize] {
        v = parent[v as usize].unwrap();
    }
    while u != v {
        u = parent[u as usize].unwrap();
        v = parent[v as usize].unwrap();
    }
    u
}

/// Depths from parent links (must form a tree rooted at 0 without cycles).
pub fn depths(parent: &[Option<u32>]) -> Vec<u32> {
    let mut depth = vec![u32::MAX; parent.len()];
    depth[0] = 0;
    fn get(parent: &[Option<u32>], depth: &mut [u32], r: usize, guard: usize) -> u32 {
        if depth[r] != u32::MAX {
            return depth[r];
        }
        assert!(guard <= parent.len(), "cycle");
        let p = parent[r].expect("only the root has no parent") as usize;
        let d = get(parent, depth, p, guard + 1) + 1;
        depth[r] = d;
        d
    }
    for r in 0..parent.len() {
        get(parent, &mut depth, r, 0);
    }
    depth
}

/// A brute-force CT Definition 1 witness: subtree root, the adjacent pair, and its LCA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BruteViolation {
    pub subtree_root: u32,
    pub pair: (u32, u32),
    pub lca: u32,
}

/// Whether `a` is an ancestor of `d` (or equal), by walking up from `d`.
pub fn is_ancestor(parent: &[Option<u32>], a: u32, d: u32) -> bool {
    let mut at = Some(d);
    while let Some(x) = at {
        if x == a {
            return true;
        }
        at = parent[x as usize];
    }
    false
}

/// The members of the subtree of every rank, by walking each rank to the root.
fn subtree_members(parent: &[Option<u32>]) -> Vec<Vec<u32>> {
    let mut members = vec![Vec::new(); parent.len()];
    for r in 0..parent.len() as u32 {
        let mut at = Some(r);
        while let Some(a) = at {
            members[a as usize].push(r);
            at = parent[a as usize];
        }
    }
    members
}

/// CT Definition 1, literally: for every subtree `T_s`, sort its nodes by rank into the ring
/// `R_s` (wrapping), and for every adjacent pair of distinct nodes require that one descends from
/// the other or that their lowest common ancestor is `root(T_s)`. Returns the first violation in
/// (subtree root, ring position) order, or `None`.
pub fn brute_force_violation(parent: &[Option<u32>]) -> Option<BruteViolation> {
    let depth = depths(parent);
    let members = subtree_members(parent);
    for s in 0..parent.len() as u32 {
        let ring = &members[s as usize]; // ascending by construction
        let n = ring.len();
        if n < 2 {
            continue;
        }
        for i in 0..n {
            let (u, v) = (ring[i], ring[(i + 1) % n]);
            if u == v {
                continue;
            }
            if is_ancestor(parent, u, v) || is_ancestor(parent, v, u) {
                continue;
            }
            let w = lca(parent, &depth, u, v);
            if w != s {
                return Some(BruteViolation {
                    subtree_root: s,
                    pair: (u.min(v), u.max(v)),
                    lca: w,
                });
            }
        }
    }
    None
}

/// Checks that a claimed witness really violates Definition 1: the pair is adjacent on the ring
/// of `subtree_root` (cyclically), the nodes are not ancestor/descendant, and their LCA is the
/// claimed one and is not `subtree_root`. Returns a description of what is wrong, if anything.
pub fn verify_witness(
    parent: &[Option<u32>],
    subtree_root: u32,
    pair: (u32, u32),
    common_ancestor: u32,
) -> Result<(), String> {
    let depth = depths(parent);
    let members = subtree_members(parent);
    let ring = &members[subtree_root as usize];
    let (u, v) = pair;
    let pos = |x: u32| ring.iter().position(|&m| m == x);
    let (Some(i), Some(j)) = (pos(u), pos(v)) else {
        return Err(format!(
            "pair {pair:?} not inside the subtree of {subtree_root}"
        ));
    };
    let n = ring.len();
    if !((i + 1) % n == j || (j + 1) % n == i) || u == v {
        return Err(format!(
            "pair {pair:?} not adjacent on the ring of {subtree_root}"
        ));
    }
    if is_ancestor(parent, u, v) || is_ancestor(parent, v, u) {
        return Err(format!("pair {pair:?} is ancestor/descendant"));
    }
    let w = lca(parent, &depth, u, v);
    if w != common_ancestor {
        return Err(format!(
            "LCA of {pair:?} is {w}, witness says {common_ancestor}"
        ));
    }
    if w == subtree_root {
        return Err(format!(
            "LCA of {pair:?} is the subtree root {subtree_root}: no violation"
        ));
    }
    Ok(())
}

/// Reach oracle: live ranks with a failed proper ancestor, and the maximal runs of consecutive
/// ranks that are failed or uncolored, as `(start, size, live uncolored in the run)`. Following
/// docs/reference/topology.md ("Dissemination reach"; the quoted phrase is there), runs without a
/// live uncolored
/// rank are included (with count 0). Rank 0 is live and colored, so no run wraps around the ring.
pub fn reach(parent: &[Option<u32>], failed: &[u32]) -> (Vec<u32>, Vec<(u32, u64, u64)>) {
    let n = parent.len();
    let mut is_failed = vec![false; n];
    for &f in failed {
        is_failed[f as usize] = true;
    }
    let mut uncolored_flag = vec![false; n];
    for r in 0..n {
        if is_failed[r] {
            continue;
        }
        let mut at = parent[r];
        while let Some(a) = at {
            if is_failed[a as usize] {
                uncolored_flag[r] = true;
                break;
            }
            at = parent[a as usize];
        }
    }
    let uncolored: Vec<u32> = (0..n as u32)
        .filter(|&r| uncolored_flag[r as usize])
        .collect();
    let dark = |r: usize| is_failed[r] || uncolored_flag[r];
    let mut gaps = Vec::new();
    let mut r = 0;
    while r < n {
        if !dark(r) {
            r += 1;
            continue;
        }
        let start = r;
        let mut live = 0u64;
        while r < n && dark(r) {
            live += u64::from(uncolored_flag[r]);
            r += 1;
        }
        gaps.push((start as u32, (r - start) as u64, live));
    }
    (uncolored, gaps)
}

/// Number of processes informed by each time `0..=t_max` in the greedy LogP broadcast (see
/// [`greedy_broadcast_times`]): every informed process sends every `o` steps from the moment it is
/// informed, a receiver is informed `2o + L` after the send starts. Count-only simulation in
/// saturating `u128`.
pub fn greedy_informed_counts(latency: u64, overhead: u64, t_max: usize) -> Vec<u128> {
    let hop = (2 * overhead + latency) as usize;
    let o = overhead as usize;
    let mut informed_at = vec![0u128; t_max + hop + 1];
    informed_at[0] = 1;
    let mut sending = vec![0u128; t_max + 1];
    let mut counts = Vec::with_capacity(t_max + 1);
    let mut total = 0u128;
    for t in 0..=t_max {
        total = total.saturating_add(informed_at[t]);
        counts.push(total);
        sending[t] = informed_at[t].saturating_add(if t >= o { sending[t - o] } else { 0 });
        informed_at[t + hop] = informed_at[t + hop].saturating_add(sending[t]);
    }
    counts
}

/// Optimal single-item broadcast time in LogP with `g <= o` (Karp, Sahay, Santos, Schauser):
/// the greedy schedule in which every informed process sends to a new process every `o` steps,
/// starting the moment it is informed, and a receiver is informed `2o + L` after the send starts.
/// Returns, for every `P` in `1..=max_procs`, the least `T` by which `P` processes are informed.
/// Count-only event simulation (no ranks).
pub fn greedy_broadcast_times(latency: u64, overhead: u64, max_procs: usize) -> Vec<u64> {
    let hop = (2 * overhead + latency) as usize;
    let o = overhead as usize;
    // informed_at[t]: processes informed exactly at t; sending[t]: processes sending at t.
    let mut informed_at: Vec<u64> = vec![0; hop + 1];
    let mut sending: Vec<u64> = Vec::new();
    informed_at[0] = 1;
    let mut total = 0u64;
    let mut answer = vec![0u64; max_procs + 1]; // answer[p] for p >= 1
    let mut next_p = 1usize;
    let mut t = 0usize;
    while next_p <= max_procs {
        if informed_at.len() <= t + hop {
            informed_at.resize(t + hop + 1, 0);
        }
        total += informed_at[t];
        while next_p <= max_procs && total >= next_p as u64 {
            answer[next_p] = t as u64;
            next_p += 1;
        }
        // Processes informed at t start sending now; those that sent at t - o send again.
        let again = if t >= o { sending[t - o] } else { 0 };
        let now = informed_at[t] + again;
        sending.push(now);
        informed_at[t + hop] += now;
        t += 1;
    }
    answer
}

/// A tiny deterministic generator (SplitMix64) for exhaustive-but-sampled loops.
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Whether CT Lemma 1 is claimed for this tree: k-ary (§3.2.1), binomial/Lamé (Eq. 2), and the
/// optimal tree when `o | L` (then the construction is Lamé of order `2 + L/o` in units of `o`,
/// and the paper's formula `r + R(i + o + L)` is well defined). For `o ∤ L` the optimal tree is
/// built by the ready-time construction, which is NOT interleaved (see
/// `topology_lemmas::optimal_tree_with_o_not_dividing_l_breaks_definition1`).
pub fn lemma1_applies(kind: TreeKind, latency: u64, overhead: u64) -> bool {
    kind != TreeKind::Optimal || latency % overhead == 0
}
