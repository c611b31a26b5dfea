//! `f_ETA` (FTCO §4, "Data Propagation Disruptions"): when a node expects its data in a
//! fault-free run, from the topology's fault-free single-port schedule (docs/reference/topology.md,
//! "Fault-free latency").
//!
//! "For Allreduce two such time values are used: one for the subtree data and the other for
//! the final result." ftcoll computes both per node, exactly: the time it has handled its last
//! child's DATA (`gather`) and the time it holds the result (`result`), so a fault-free run
//! never sends a KEEPALIVE.

use alloc::vec;
use alloc::vec::Vec;

use crate::topology::ftco::{Collective, FtcoTopology, SubtreeTimes};
use crate::topology::TopologyError;
use crate::{Rank, Time};

/// The fault-free Allreduce root exchange: the time each root has handled the other roots'
/// partials (root `j` sends to `j + 1, j + 2, …` mod `R` from the step it has its tree's
/// partial, then handles what it receives in arrival order). With one root, its Reduce time.
pub(super) fn exchange_done(
    topology: &FtcoTopology,
    latency: u64,
) -> Result<Vec<Time>, TopologyError> {
    let roots = topology.roots();
    let mut partial = vec![0; roots as usize];
    for (t, slot) in partial.iter_mut().enumerate() {
        *slot = topology
            .subtree_times(t as Rank, latency)?
            .map_or(0, |(_, reduce)| reduce);
    }
    let r = u64::from(roots);
    let mut done = Vec::with_capacity(roots as usize);
    let mut arrivals = Vec::with_capacity(roots as usize);
    for j in 0..r {
        arrivals.clear();
        for i in (0..r).filter(|&i| i != j) {
            let slot = (j + r - i - 1) % r;
            arrivals.push(partial[i as usize] + slot + latency + 1);
        }
        arrivals.sort_unstable();
        let mut free = partial[j as usize] + r - 1;
        for &a in &arrivals {
            free = free.max(a) + 1;
        }
        done.push(if r == 1 { partial[0] } else { free });
    }
    Ok(done)
}

/// `(gather, result)` ETAs of `rank`: when it has handled every child's partial (Reduce,
/// Allreduce; for rank 0 of a Reduce, the other roots' too) and when it holds the result
/// (Bcast, Allreduce; for an Allreduce root, the end of the root exchange).
pub(super) fn etas(
    topology: &FtcoTopology,
    collective: Collective,
    latency: u64,
    exchange: &[Time],
    reduce_done: Time,
    rank: Rank,
) -> (Time, Time) {
    let reduce = topology
        .subtree_times(rank, latency)
        .ok()
        .flatten()
        .map_or(0, |(_, reduce)| reduce);
    let gather = gather_eta(collective, rank, reduce, reduce_done);
    let result = match collective {
        Collective::Reduce => 0,
        _ => hold(topology, collective, latency, exchange, rank),
    };
    (gather, result)
}

/// [`etas`] of every rank `0..P`, in `O(P)`: the gather times from one shared memo of subtree
/// timings, the result times top-down from each tree root (a child holds it [`hop`] after its
/// parent), where `hold` walks each rank's path; the unit test compares the two traversals.
pub(super) fn eta_table(
    topology: &FtcoTopology,
    collective: Collective,
    latency: u64,
    exchange: &[Time],
    reduce_done: Time,
) -> Result<Vec<(Time, Time)>, TopologyError> {
    let procs = topology.procs();
    let mut subtree = SubtreeTimes::new(topology, latency)?;
    let mut table: Vec<(Time, Time)> = Vec::with_capacity(procs as usize);
    for rank in 0..procs {
        let reduce = subtree.of(rank).map_or(0, |(_, reduce)| reduce);
        table.push((gather_eta(collective, rank, reduce, reduce_done), 0));
    }
    if collective == Collective::Reduce {
        return Ok(table);
    }
    let mut frontier: Vec<Rank> = Vec::new();
    for tree in 0..topology.roots() {
        if let Some(entry) = table.get_mut(tree as usize) {
            entry.1 = root_hold(collective, latency, exchange, tree);
            frontier.push(tree);
        }
    }
    while let Some(parent) = frontier.pop() {
        let held = table[parent as usize].1;
        for (index, child) in topology.children(parent).enumerate() {
            if let Some(entry) = table.get_mut(child as usize) {
                entry.1 = held + hop(topology, collective, latency, parent, index as u64);
                frontier.push(child);
            }
        }
    }
    Ok(table)
}

/// When `rank` holds the Bcast value or the Allreduce result: its tree root's time plus, per
/// edge on the way down, the child's position in its parent's send order and one hop `L + 2`.
fn hold(
    topology: &FtcoTopology,
    collective: Collective,
    latency: u64,
    exchange: &[Time],
    rank: Rank,
) -> Time {
    let Some(tree) = topology.tree_of(rank) else {
        return 0;
    };
    let mut time = root_hold(collective, latency, exchange, tree);
    // The path from the tree root down to `rank`.
    let mut path: Vec<Rank> = topology.ancestors(rank).collect();
    path.reverse();
    path.push(rank);
    for pair in path.windows(2) {
        let (parent, child) = (pair[0], pair[1]);
        let index = topology
            .children(parent)
            .position(|c| c == child)
            .unwrap_or(0) as u64;
        time += hop(topology, collective, latency, parent, index);
    }
    time
}

/// The gather ETA of `rank` whose subtree's fault-free Reduce ends at `reduce`: rank 0 of a
/// Reduce also waits for the other roots, until `reduce_done`.
fn gather_eta(collective: Collective, rank: Rank, reduce: Time, reduce_done: Time) -> Time {
    if rank == 0 && collective == Collective::Reduce {
        reduce_done
    } else {
        reduce
    }
}

/// When tree root `tree` holds the Bcast value or the Allreduce result.
fn root_hold(collective: Collective, latency: u64, exchange: &[Time], tree: Rank) -> Time {
    match collective {
        Collective::Allreduce => exchange.get(tree as usize).copied().unwrap_or(0),
        // Rank 0 sends to root t in step t − 1 (docs/reference/topology.md, "Fault-free latency").
        _ if tree == 0 => 0,
        _ => u64::from(tree) - 1 + latency + 2,
    }
}

/// How much later than `parent` its child at send position `index` holds it: the position,
/// one hop `L + 2`, and for rank 0 of a Bcast the other roots it sends to first.
fn hop(
    topology: &FtcoTopology,
    collective: Collective,
    latency: u64,
    parent: Rank,
    index: u64,
) -> Time {
    let offset = if parent == 0 && collective == Collective::Bcast {
        u64::from(topology.roots()) - 1
    } else {
        0
    };
    offset + index + latency + 2
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::ftco::FtcoKind;

    /// The `O(P)` table equals the per-rank tree walk it replaces, rank by rank, for k-ary and
    /// k-nomial trees with one or several roots (also when `R` does not divide `P`), each
    /// collective and several `L`.
    #[test]
    fn the_eta_table_equals_each_ranks_tree_walk() {
        let mut checked = 0;
        for kind in [
            FtcoKind::KAry(2),
            FtcoKind::KAry(3),
            FtcoKind::KNomial(2),
            FtcoKind::KNomial(4),
        ] {
            for roots in [1, 2, 3] {
                for procs in [1, 2, 7, 64, 100, 257] {
                    let Ok(topology) = FtcoTopology::new(kind, roots, procs) else {
                        continue;
                    };
                    for latency in [0, 1, 10] {
                        let exchange = exchange_done(&topology, latency).unwrap();
                        let reduce_done = topology
                            .fault_free_latency(Collective::Reduce, latency)
                            .unwrap();
                        for collective in
                            [Collective::Bcast, Collective::Reduce, Collective::Allreduce]
                        {
                            let table =
                                eta_table(&topology, collective, latency, &exchange, reduce_done)
                                    .unwrap();
                            let walked: Vec<(Time, Time)> = (0..topology.procs())
                                .map(|rank| {
                                    etas(
                                        &topology,
                                        collective,
                                        latency,
                                        &exchange,
                                        reduce_done,
                                        rank,
                                    )
                                })
                                .collect();
                            assert_eq!(table, walked, "{topology:?} {collective:?} L = {latency}");
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 100, "only {checked} configurations");
    }
}
