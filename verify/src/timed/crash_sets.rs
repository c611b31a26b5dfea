//! The crash sets of a model with pre-operation crashes: every set of at most `f` crashable
//! ranks, counted and enumerated in a fixed order without building the others.

use ftcoll::Rank;

/// Non-root subsets of `1..procs` with at most `max` elements, fewest first, those of one size
/// in lexicographic order.
pub fn crash_sets(procs: u32, max: u32) -> Vec<Vec<Rank>> {
    crash_sets_of(&(1..procs).collect::<Vec<_>>(), max)
}

/// `C(n, k)` (0 when `k > n`), `None` beyond `u64`.
fn binomial(n: u64, k: u64) -> Option<u64> {
    if k > n {
        return Some(0);
    }
    let k = k.min(n - k);
    let mut c: u64 = 1;
    for i in 1..=k {
        // C(n - k + i, i) from C(n - k + i - 1, i - 1): exact, and within 128 bits.
        c = u64::try_from(u128::from(c) * u128::from(n - k + i) / u128::from(i)).ok()?;
    }
    Some(c)
}

/// How many sets [`crash_sets`] lists: the subsets of `1..procs` with at most `max` elements
/// (`None` beyond `u64`).
pub fn crash_set_count(procs: u32, max: u32) -> Option<u64> {
    let n = u64::from(procs.saturating_sub(1));
    (0..=u64::from(max).min(n)).try_fold(0u64, |total, k| total.checked_add(binomial(n, k)?))
}

/// Set number `index` of [`crash_sets`] (`procs`, `max`) without listing the others (random runs
/// draw one at sizes whose list would not fit in memory); `None` if `index` is not below
/// [`crash_set_count`]. When that count is beyond `u64`, an `index` within the blocks of the
/// sizes whose counts fit in `u64` (they come first) names its set, and a later one gives
/// `None` (`walks` refuses such a count before drawing).
pub fn crash_set_at(procs: u32, max: u32, mut index: u64) -> Option<Vec<Rank>> {
    let n = u64::from(procs.saturating_sub(1));
    // The block of sets of `size` elements (fewest first).
    let mut size = 0;
    loop {
        if size > u64::from(max).min(n) {
            return None;
        }
        let block = binomial(n, size)?;
        if index < block {
            break;
        }
        index -= block;
        size += 1;
    }
    // The `index`-th `size`-subset of `1..=n` in lexicographic order: for each place, skip the
    // subsets that put a smaller rank there.
    let mut set = Vec::with_capacity(size as usize);
    let mut next = 1;
    for left in (1..=size).rev() {
        loop {
            if next > n {
                return None;
            }
            let with = binomial(n - next, left - 1)?;
            if index < with {
                break;
            }
            index -= with;
            next += 1;
        }
        set.push(next as Rank);
        next += 1;
    }
    Some(set)
}

/// Subsets of `candidates` (ascending) with at most `max` elements, fewest first, those of one
/// size in lexicographic order.
pub fn crash_sets_of(candidates: &[Rank], max: u32) -> Vec<Vec<Rank>> {
    let mut sets = vec![Vec::new()];
    let mut frontier: Vec<(usize, Vec<Rank>)> = vec![(0, Vec::new())];
    for _ in 0..max {
        let mut next = Vec::new();
        for (from, set) in &frontier {
            for (i, &r) in candidates.iter().enumerate().skip(*from) {
                let mut s = set.clone();
                s.push(r);
                next.push((i + 1, s));
            }
        }
        sets.extend(next.iter().map(|(_, s)| s.clone()));
        frontier = next;
    }
    sets
}
