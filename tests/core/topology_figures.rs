//! The worked examples of CT §3.2, hand-derived from the paper's Figures 3, 4 and 5 and its text.
//! Every expected value below is written out by hand (derivations in the doc comments).

use crate::common;

use std::collections::BTreeMap;

use common::{brute_force_violation, build, depths, lca, verify_witness};
use ftcoll::topology::{check_interleaved, Gap, Order, Reach, Tree, TreeKind};

fn children_of(tree: &Tree) -> Vec<Vec<u32>> {
    (0..tree.procs())
        .map(|r| tree.children(r).collect())
        .collect()
}

/// Expands `(rank, children)` pairs into a full children table over `procs` ranks.
fn table(procs: usize, edges: &[(u32, &[u32])]) -> Vec<Vec<u32>> {
    let mut t = vec![Vec::new(); procs];
    for &(r, c) in edges {
        t[r as usize] = c.to_vec();
    }
    t
}

/// CT Fig. 5 (Lamé, k = 3, P = 9): R = 1, 1, 1, 2, 3, 4, 6, 9, 13, 19 (Eq. 1); Eq. 2 gives the
/// root the children R(2..=7) ∩ [0, 9) = 1, 2, 3, 4, 6 ("at each iteration i process 0 sends a
/// message to processes with ranks R(i + 2)"), rank 1 (s' = 3, R(3) = 2 > 1) the children
/// 1 + R(5) = 5, 1 + R(6) = 7, rank 2 (s' = 4, R(4) = 3 > 2) the child 2 + R(6) = 8; all others
/// are leaves. First send iterations s': 0 → 0, 1 → 3, 2 → 4, 3 → 5, 4/5 → 6, 6/7/8 → 7.
#[test]
fn figure5_lame3_p9_shape() {
    let tree = build(TreeKind::Lame(3), Order::Interleaved, 9, 1, 1);
    let expected = table(9, &[(0, &[1, 2, 3, 4, 6]), (1, &[5, 7]), (2, &[8])]);
    assert_eq!(children_of(&tree), expected);
    let parents: Vec<Option<u32>> = vec![
        None,
        Some(0),
        Some(0),
        Some(0),
        Some(0),
        Some(1),
        Some(0),
        Some(1),
        Some(2),
    ];
    assert_eq!(tree.parents(), parents);
    let first_send = [0u64, 3, 4, 5, 6, 6, 7, 7, 7];
    let levels = [0u32, 1, 1, 1, 1, 2, 1, 2, 2];
    let sizes = [9u64, 3, 2, 1, 1, 1, 1, 1, 1];
    for r in 0..9u32 {
        let i = r as usize;
        assert_eq!(
            tree.first_send_iteration(r),
            Some(first_send[i]),
            "s' of {r}"
        );
        assert_eq!(tree.level(r), Some(levels[i]), "level of {r}");
        assert_eq!(tree.subtree_size(r), Some(sizes[i]), "subtree size of {r}");
    }
    assert_eq!(check_interleaved(&tree), None);
}

/// CT Fig. 5 timeline with L = o = 1 (2o + L = 3 = k, "optimal for this model"): the root sends
/// at 0, 1, 2, 3, 4 to 1, 2, 3, 4, 6, which hold the message at 3, 4, 5, 6, 7; rank 1 (at 3)
/// sends at 3, 4 to 5, 7 (at 6, 7); rank 2 (at 4) sends at 4 to 8 (at 7). Deadline 7. With
/// L = o = 1 the optimal tree is this very tree.
#[test]
fn figure5_lame3_p9_timeline() {
    let tree = build(TreeKind::Lame(3), Order::Interleaved, 9, 1, 1);
    let times = [0u64, 3, 4, 5, 6, 6, 7, 7, 7];
    for r in 0..9u32 {
        assert_eq!(
            tree.receive_time(r),
            Some(times[r as usize]),
            "receive time of {r}"
        );
    }
    assert_eq!(tree.deadline(), 7);
    let optimal = build(TreeKind::Optimal, Order::Interleaved, 9, 1, 1);
    assert_eq!(children_of(&optimal), children_of(&tree));
    assert_eq!(optimal.deadline(), 7);
    for r in 0..9u32 {
        // In the optimal tree the first send time is the LogP time the rank holds the message.
        assert_eq!(optimal.first_send_iteration(r), Some(times[r as usize]));
    }
}

/// CT Fig. 5's tree numbered in-order (pre-order, children in send order): the visit order
/// 0, 1, 5, 7, 2, 8, 3, 4, 6 renumbers to 0→[1, 4, 6, 7, 8], 1→[2, 3], 4→[5]; receive times
/// travel with the nodes (L = o = 1).
#[test]
fn figure5_in_order() {
    let tree = build(TreeKind::Lame(3), Order::InOrder, 9, 1, 1);
    let expected = table(9, &[(0, &[1, 4, 6, 7, 8]), (1, &[2, 3]), (4, &[5])]);
    assert_eq!(children_of(&tree), expected);
    // Old ranks 0, 1, 5, 7, 2, 8, 3, 4, 6 received at 0, 3, 6, 7, 4, 7, 5, 6, 7.
    let times = [0u64, 3, 6, 7, 4, 7, 5, 6, 7];
    for r in 0..9u32 {
        assert_eq!(
            tree.receive_time(r),
            Some(times[r as usize]),
            "receive time of {r}"
        );
    }
    assert_eq!(tree.deadline(), 7);
}

/// CT Fig. 3 right (binary tree, interleaved, P = 7), via §3.2.1's `r + i·k^ℓ`: 0 → [1, 2],
/// 1 → [3, 5], 2 → [4, 6]. The text: "process 4 is a child of process 2, and its direct neighbors
/// 3 and 5 are children of process 1". Receive times under L = 2, o = 1 (hop 4): 1: 4, 2: 5,
/// 3: 8, 5: 9, 4: 9, 6: 10.
#[test]
fn figure3_binary_interleaved() {
    let tree = build(TreeKind::KAry(2), Order::Interleaved, 7, 2, 1);
    let expected = table(7, &[(0, &[1, 2]), (1, &[3, 5]), (2, &[4, 6])]);
    assert_eq!(children_of(&tree), expected);
    assert_eq!(tree.parent(4), Some(2));
    assert_eq!((tree.parent(3), tree.parent(5)), (Some(1), Some(1)));
    let times = [0u64, 4, 5, 8, 9, 9, 10];
    for r in 0..7u32 {
        assert_eq!(
            tree.receive_time(r),
            Some(times[r as usize]),
            "receive time of {r}"
        );
        assert_eq!(tree.first_send_iteration(r), tree.level(r).map(u64::from));
    }
    assert_eq!(tree.deadline(), 10);
    assert_eq!(check_interleaved(&tree), None);
}

/// CT Fig. 3 left (binary tree, in-order, P = 7): pre-order of the shape above visits
/// 0, 1, 3, 5, 2, 4, 6, giving 0 → [1, 4], 1 → [2, 3], 4 → [5, 6]. It is not interleaved: the
/// siblings (2, 3) are adjacent on the root's ring with LCA 1 ≠ 0 (likewise (5, 6) with LCA 4).
#[test]
fn figure3_binary_in_order() {
    let tree = build(TreeKind::KAry(2), Order::InOrder, 7, 2, 1);
    let expected = table(7, &[(0, &[1, 4]), (1, &[2, 3]), (4, &[5, 6])]);
    assert_eq!(children_of(&tree), expected);
    let parents = tree.parents();
    verify_witness(&parents, 0, (2, 3), 1).unwrap();
    verify_witness(&parents, 0, (5, 6), 4).unwrap();
    let v = check_interleaved(&tree).expect("Fig. 3 left is not interleaved");
    verify_witness(&parents, v.subtree_root, v.pair, v.common_ancestor).unwrap();
}

/// CT Fig. 3 left with process 4 failed: its children 5 and 6 stay uncolored and, with 4 itself,
/// form one run of ring positions 4, 5, 6. The paper ("a gap of size 2") counts the two live
/// uncolored ranks; ftcoll sizes count ring positions (docs/reference/topology.md, "Where the CT
/// paper is wrong or incomplete", item 4):
/// one gap {start 4, size 3, uncolored 2}, g_max = 3.
#[test]
fn figure3_in_order_failure_of_4() {
    let tree = build(TreeKind::KAry(2), Order::InOrder, 7, 2, 1);
    let reach = Reach::compute(&tree, &[4]).unwrap();
    assert_eq!(reach.uncolored, vec![5, 6]);
    assert_eq!(
        reach.gaps,
        vec![Gap {
            start: 4,
            size: 3,
            uncolored: 2
        }]
    );
    assert_eq!(reach.gmax(), 3);
    assert_eq!(reach.histogram(), BTreeMap::from([(3, 1)]));
}

/// CT Fig. 3 right with process 2 failed: "Its children (4 and 6) will not be colored ... The
/// maximum gap size is 1 and every second process on the ring is colored." Ring: 0 1 [2] 3 [4]
/// 5 [6]: three runs of size 1 — {2} (failed only, counted as a gap per docs/reference/topology.md
/// ("Dissemination reach")) and the
/// two gaps {4}, {6} the paper speaks of, each with one live uncolored rank.
#[test]
fn figure3_interleaved_failure_of_2() {
    let tree = build(TreeKind::KAry(2), Order::Interleaved, 7, 2, 1);
    let reach = Reach::compute(&tree, &[2]).unwrap();
    assert_eq!(reach.uncolored, vec![4, 6]);
    let with_uncolored: Vec<Gap> = reach
        .gaps
        .iter()
        .copied()
        .filter(|g| g.uncolored > 0)
        .collect();
    assert_eq!(
        with_uncolored,
        vec![
            Gap {
                start: 4,
                size: 1,
                uncolored: 1
            },
            Gap {
                start: 6,
                size: 1,
                uncolored: 1
            }
        ]
    );
    assert_eq!(
        reach
            .gaps
            .iter()
            .map(|g| (g.start, g.size))
            .collect::<Vec<_>>(),
        vec![(2, 1), (4, 1), (6, 1)]
    );
    assert_eq!(reach.gmax(), 1);
    assert_eq!(reach.histogram(), BTreeMap::from([(1, 3)]));
}

/// CT Fig. 4 right (binomial, level 3, P = 8, interleaved), via `r + 2^i, i ≥ s', 2^{s'} > r`:
/// 0 (s' = 0) → [1, 2, 4]; 1 (s' = 1) → [3, 5]; 2 (s' = 2) → [6]; 3 (s' = 2) → [7].
/// The text: the subtree of 1 is {1, 3, 5, 7} with ring pairs (1,3), (3,5), (5,7), (7,1), all
/// fine; (5, 6) and (6, 7) are adjacent on R_f and "descend from different children of the root"
/// (LCA 0). Also the receive times under L = 2, o = 1 (hop 4): 1: 4, 2: 5, 4: 6, 3: 8, 5: 9,
/// 6: 9, 7: 12.
#[test]
fn figure4_binomial_interleaved() {
    let tree = build(TreeKind::Binomial, Order::Interleaved, 8, 2, 1);
    let expected = table(8, &[(0, &[1, 2, 4]), (1, &[3, 5]), (2, &[6]), (3, &[7])]);
    assert_eq!(children_of(&tree), expected);
    assert_eq!(check_interleaved(&tree), None);
    let parents = tree.parents();
    let depth = depths(&parents);
    // Subtree of 1 by walking up from every rank.
    let members: Vec<u32> = (0..8u32)
        .filter(|&r| {
            let mut at = Some(r);
            while let Some(a) = at {
                if a == 1 {
                    return true;
                }
                at = parents[a as usize];
            }
            false
        })
        .collect();
    assert_eq!(members, vec![1, 3, 5, 7]);
    assert_eq!(tree.subtree_size(1), Some(4));
    for (u, v) in [(1, 3), (3, 5), (5, 7), (7, 1)] {
        let w = lca(&parents, &depth, u, v);
        assert!(w == 1 || w == u || w == v, "pair ({u}, {v}) has LCA {w}");
    }
    assert_eq!(lca(&parents, &depth, 5, 6), 0);
    assert_eq!(lca(&parents, &depth, 6, 7), 0);
    let times = [0u64, 4, 5, 8, 6, 9, 9, 12];
    for r in 0..8u32 {
        assert_eq!(
            tree.receive_time(r),
            Some(times[r as usize]),
            "receive time of {r}"
        );
    }
    assert_eq!(tree.deadline(), 12);
}

/// CT Fig. 4 left (binomial, level 3, in-order): the pre-order 0, 1, 3, 7, 5, 2, 6, 4 of the
/// shape above renumbers to 0 → [1, 5, 7], 1 → [2, 4], 2 → [3], 5 → [6]. It is not interleaved:
/// 3 (under 2) and 4 (child of 1) are adjacent on the root's ring with LCA 1.
#[test]
fn figure4_binomial_in_order() {
    let tree = build(TreeKind::Binomial, Order::InOrder, 8, 2, 1);
    let expected = table(8, &[(0, &[1, 5, 7]), (1, &[2, 4]), (2, &[3]), (5, &[6])]);
    assert_eq!(children_of(&tree), expected);
    let parents = tree.parents();
    verify_witness(&parents, 0, (3, 4), 1).unwrap();
    let v = check_interleaved(&tree).expect("Fig. 4 left is not interleaved");
    verify_witness(&parents, v.subtree_root, v.pair, v.common_ancestor).unwrap();
}

/// CT §3.2.2's binomial formula `{r + 2^i | i ≥ s', 2^{s'} > r, r + 2^i < P}` evaluated directly
/// (closed form from the paper, not the crate) equals the crate's children for every P ≤ 1024.
#[test]
fn binomial_formula_of_section_3_2_2() {
    for procs in 1..=1024u32 {
        let tree = build(TreeKind::Binomial, Order::Interleaved, procs, 2, 1);
        for r in 0..u64::from(procs) {
            let s = (0..64).find(|&s| 1u64 << s > r).unwrap();
            let expected: Vec<u32> = (s..64)
                .map(|i| r + (1u64 << i))
                .take_while(|&c| c < u64::from(procs))
                .map(|c| c as u32)
                .collect();
            let got: Vec<u32> = tree.children(r as u32).collect();
            assert_eq!(got, expected, "P={procs} rank {r}");
        }
    }
}

/// CT Eq. (2) evaluated directly with a naive R(t) (Eq. 1): children of r are
/// `r + R(i + k − 1)` for `i ≥ s'`, `R(s') > r`, below P — equal to the crate's for Lamé
/// k ∈ {1, 2, 3, 5, 8}, P ≤ 600.
#[test]
fn lame_equation_2() {
    for k in [1u64, 2, 3, 5, 8] {
        // Naive Eq. (1) in u128.
        let mut ready: Vec<u128> = Vec::new();
        while ready.len() < 200 {
            let t = ready.len();
            let v = if t < k as usize {
                1
            } else {
                let back = |d: usize| if t >= d { ready[t - d] } else { 0 };
                back(1).saturating_add(back(k as usize))
            };
            ready.push(v);
        }
        for procs in (1..=600u32).step_by(7).chain([600]) {
            let tree = build(TreeKind::Lame(k), Order::Interleaved, procs, 2, 1);
            for r in 0..procs {
                let s = (0..ready.len())
                    .find(|&s| ready[s] > u128::from(r))
                    .unwrap();
                let expected: Vec<u32> = (s..ready.len() - k as usize)
                    .map(|i| u128::from(r) + ready[i + k as usize - 1])
                    .take_while(|&c| c < u128::from(procs))
                    .map(|c| c as u32)
                    .collect();
                let got: Vec<u32> = tree.children(r).collect();
                assert_eq!(got, expected, "lame:{k} P={procs} rank {r}");
                assert_eq!(tree.first_send_iteration(r), Some(s as u64));
            }
        }
    }
}

/// CT §3.2.1 / Definition 1, hand-derived small cases of the binary in-order tree: the shape for
/// P = 4 is 0 → [1, 2], 1 → [3] and for P = 5 adds 2 → [4]; no non-root node has two children,
/// so the in-order trees (0 → [1, 3], 1 → [2] and 0 → [1, 3], 1 → [2], 3 → [4]) are interleaved.
/// P = 6 adds rank 5 under 1: in-order 0 → [1, 4], 1 → [2, 3], 4 → [5], and (2, 3) is adjacent on
/// the root's ring with LCA 1: not interleaved. (So the first violation is at P = 6, not at
/// P = 4 or 5.)
#[test]
fn binary_in_order_small_cases() {
    let p4 = build(TreeKind::KAry(2), Order::InOrder, 4, 2, 1);
    assert_eq!(children_of(&p4), table(4, &[(0, &[1, 3]), (1, &[2])]));
    assert_eq!(check_interleaved(&p4), None);
    assert_eq!(brute_force_violation(&p4.parents()), None);

    let p5 = build(TreeKind::KAry(2), Order::InOrder, 5, 2, 1);
    assert_eq!(
        children_of(&p5),
        table(5, &[(0, &[1, 3]), (1, &[2]), (3, &[4])])
    );
    assert_eq!(check_interleaved(&p5), None);
    assert_eq!(brute_force_violation(&p5.parents()), None);

    let p6 = build(TreeKind::KAry(2), Order::InOrder, 6, 2, 1);
    assert_eq!(
        children_of(&p6),
        table(6, &[(0, &[1, 4]), (1, &[2, 3]), (4, &[5])])
    );
    let parents = p6.parents();
    verify_witness(&parents, 0, (2, 3), 1).unwrap();
    let v = check_interleaved(&p6).expect("P = 6 in-order is not interleaved");
    verify_witness(&parents, v.subtree_root, v.pair, v.common_ancestor).unwrap();
}
