//! The driver's event queue: one bucket per pending instant, one list per event class.
//!
//! The driver's order is `(time, class, rank, creation)`. Only two parts of it can change a run:
//! events of one rank are applied in creation order (the lists are kept in insertion order), and
//! send-port polls of one instant are applied in rank order, because the sends they make create
//! arrivals whose creation order decides the FIFO order of a receive port (the poll list is sorted
//! by rank, stably, when its instant comes). Arrivals, receive completions, timers and process
//! starts of different ranks touch different processes, so their relative order does not matter;
//! with tracing on every class is sorted by rank so traces keep the documented order.
//!
//! Equality and hashing see each list sorted by rank (stably), so states that differ only in the
//! interleaving of independent events compare equal.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use core::hash::{Hash, Hasher};

use ftcoll::{Rank, Time};

mod bucket;
mod carried;
#[cfg(all(test, feature = "std"))]
mod tests;

pub(crate) use bucket::Pending;
use bucket::{Bucket, List};
pub(crate) use carried::{Carried, Delivery};

/// Number of event classes.
pub(crate) const CLASSES: usize = 5;
/// The send-port poll class (the last one).
pub(crate) const POLL_CLASS: usize = 4;

/// The timer class, whose events carry a 64-bit generation.
pub(crate) const TIMER_CLASS: usize = 2;

/// The delivery class, which may carry messages ([`Queue::push_delivery`]).
pub(crate) const DELIVER_CLASS: usize = 1;

/// `(rank, data)`: the message slot, 0, or for [`TIMER_CLASS`] the generation itself (below
/// [`FAR_GENERATION`]) or [`FAR_GENERATION`] plus the index of the generation in the bucket's
/// `generations`. 32 bits of data instead of 64 halve each entry (8 B instead of
/// 16 B) and what the sorts move (docs/performance.md).
pub(crate) type Entry = (Rank, u32);

/// A timer entry's data at or above this bit is an index into its bucket's `generations`: the
/// generation is 2^31 or more (more timers set in one run than that), or 0. Below it the data
/// is the generation itself, so that a timer event costs its entry's 8 B and not 8 more for the
/// generation (a synchronized delayed correction sets every process's delay timer at one
/// instant, so those lists hold `P` entries).
pub(crate) const FAR_GENERATION: u32 = 1 << 31;

/// More events of one kind than 32 bits number: at one instant, timer events of generations
/// 2^31 or later beyond 2^31; in all, message slots beyond 2^32 (checked by the driver).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Full;

/// What [`Queue::pop`] takes out.
#[derive(Debug, PartialEq)]
pub(crate) enum Popped<M> {
    /// An event: class, rank and data (the message slot, timer generation or 0).
    Event(usize, Rank, u64),
    /// A delivery of the delivery class that carries its message.
    Delivery(Delivery<M>),
}

/// What [`Queue::ahead`] shows of the events about to be applied.
pub(crate) enum Ahead<'a, M> {
    /// Entries of a class.
    Entries(usize, Pending<'a>),
    /// Deliveries that carry their messages.
    Deliveries(&'a Carried<M>),
}

/// Pending events by instant.
///
/// Each pending instant has a bucket in `slab`, found through `index`; the instant being applied
/// (`active`) is taken out of `index`, so that applying its events and adding events to it search
/// nothing. An emptied bucket's slot is vacant until a new instant takes it, its lists cleared;
/// up to [`SPARES`] vacant slots keep lists of at most [`SPARE_CAPACITY`] entries, so that a new
/// instant's lists do not grow from nothing, while the kept lists stay under 1 MiB (a bucket can
/// hold an instant's worth of capacity, so keeping every emptied one would cost up to an
/// instant's worth per pending instant). The buckets live in
/// one vector, not in the map's nodes (a node of 11 buckets is about 2 KB), so that a copy of the
/// queue — a model checker stores one per state — is small, and copying into an existing queue
/// (`clone_from`) reuses its lists.
#[derive(Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct Queue<M> {
    /// The instant `pop` is applying and its bucket's slot, out of `index`.
    active: Option<(Time, u32)>,
    /// Every other pending instant and its bucket's slot.
    index: BTreeMap<Time, u32>,
    /// Buckets by slot, vacant ones included (empty lists).
    slab: Vec<Bucket<M>>,
    /// The vacant slots, the last vacated last.
    vacant: Vec<u32>,
    /// Sort every class by rank (tracing).
    strict: bool,
    /// Scratch for [`sort_by_rank`] (empty in every copy: not state).
    #[cfg_attr(feature = "serde", serde(skip))]
    scratch: Vec<Rank>,
    /// Scratch for sorting a list with data (tracing; empty in every copy: not state).
    #[cfg_attr(feature = "serde", serde(skip))]
    entries: Vec<Entry>,
    /// Recently found entries of `index` (not state).
    #[cfg_attr(feature = "serde", serde(skip))]
    near: Near,
}

/// Entries of [`Near`]: a power of two above the few instants ahead a LogP driver adds events to
/// (`now + o`, `now + o + L`, `now + 2o + L`, timers).
const NEAR: usize = 8;
/// A [`Near`] entry that holds nothing.
const NO_SLOT: u32 = u32::MAX;

/// A direct-mapped cache of a queue's `index` by instant (`time mod NEAR`): most events are
/// added a few instants ahead, and finding their bucket here costs a compare where the map
/// costs a search. An entry `(time, slot)` other than [`NO_SLOT`] always agrees with
/// the index: it is set when the index is searched, and dropped when the index loses `time`.
#[derive(Clone, Debug)]
struct Near([(Time, u32); NEAR]);

impl Default for Near {
    fn default() -> Self {
        Self([(0, NO_SLOT); NEAR])
    }
}

impl Near {
    #[inline]
    fn get(&self, time: Time) -> Option<u32> {
        let (at, slot) = self.0[time as usize % NEAR];
        (at == time && slot != NO_SLOT).then_some(slot)
    }

    #[inline]
    fn set(&mut self, time: Time, slot: u32) {
        self.0[time as usize % NEAR] = (time, slot);
    }

    /// The index no longer has `time`.
    #[inline]
    fn forget(&mut self, time: Time) {
        let entry = &mut self.0[time as usize % NEAR];
        if entry.0 == time {
            entry.1 = NO_SLOT;
        }
    }
}

/// Vacant slots that keep their lists' capacity.
const SPARES: usize = 8;
/// A list longer than this is freed, not kept, when its bucket is emptied: keeping longer
/// lists raised the peak memory of FTCO's reproduction for no measured gain
/// (docs/performance.md).
const SPARE_CAPACITY: usize = 1 << 10;

impl<M: Clone> Clone for Queue<M> {
    /// The pending events (vacant slots come along with empty lists: no capacity is copied).
    fn clone(&self) -> Self {
        Self {
            active: self.active,
            index: self.index.clone(),
            slab: self.slab.clone(),
            vacant: self.vacant.clone(),
            strict: self.strict,
            scratch: Vec::new(),
            entries: Vec::new(),
            // The copy's index holds the same slots.
            near: self.near.clone(),
        }
    }

    /// Reuses this queue's buckets and lists.
    fn clone_from(&mut self, source: &Self) {
        self.active = source.active;
        self.index.clone_from(&source.index);
        // The slab is copied slot for slot, so the source's cache holds for the copy.
        self.near = source.near.clone();
        self.slab.clone_from(&source.slab);
        self.vacant.clone_from(&source.vacant);
        self.strict = source.strict;
    }
}

impl<M> Queue<M> {
    pub(crate) fn new(strict: bool) -> Self {
        Self {
            active: None,
            index: BTreeMap::new(),
            slab: Vec::new(),
            vacant: Vec::new(),
            strict,
            scratch: Vec::new(),
            entries: Vec::new(),
            near: Near::default(),
        }
    }

    /// Adds a delivery of the delivery class at `time` that carries its message, so that it
    /// needs neither an entry nor a message slot. Deliveries are applied in the order they
    /// were added, after the class's entries of their instant, never sorted: only for runs that
    /// add every delivery this way and trace nothing (the driver's `run` under dual-port LogP).
    pub(crate) fn push_delivery(&mut self, time: Time, delivery: Delivery<M>)
    where
        M: Clone + PartialEq,
    {
        debug_assert!(
            !self.strict,
            "carried deliveries are never sorted: not when tracing"
        );
        let bucket = self.bucket(time);
        bucket.first = bucket.first.min(DELIVER_CLASS);
        bucket.deliveries.push_back(delivery);
    }

    /// Deliveries that carry their messages, pending (a sum over the buckets: `Sim::in_flight`).
    pub(crate) fn deliveries(&self) -> usize {
        self.slab.iter().map(|b| b.deliveries.len()).sum()
    }

    /// Adds an event of `class` (not [`TIMER_CLASS`]: [`Queue::push_timer`]) at `time`.
    pub(crate) fn push(&mut self, time: Time, class: usize, rank: Rank, data: u32) {
        debug_assert_ne!(class, TIMER_CLASS, "timer events go through push_timer");
        let bucket = self.bucket(time);
        Self::insert(bucket, class, (rank, data));
    }

    /// Adds a timer event of `generation` at `time`.
    pub(crate) fn push_timer(
        &mut self,
        time: Time,
        rank: Rank,
        generation: u64,
    ) -> Result<(), Full> {
        let bucket = self.bucket(time);
        let data = match u32::try_from(generation) {
            Ok(g) if g != 0 && g < FAR_GENERATION => g,
            _ => {
                let index = u32::try_from(bucket.generations.len())
                    .ok()
                    .filter(|&i| i < FAR_GENERATION)
                    .ok_or(Full)?;
                bucket.generations.push(generation);
                FAR_GENERATION + index
            }
        };
        Self::insert(bucket, TIMER_CLASS, (rank, data));
        Ok(())
    }

    /// The bucket of `time`, a new one if none is pending.
    fn bucket(&mut self, time: Time) -> &mut Bucket<M> {
        let slot = match self.active {
            Some((at, slot)) if at == time => slot,
            _ => match self.near.get(time) {
                Some(slot) => slot,
                None => self.search(time),
            },
        };
        &mut self.slab[slot as usize]
    }

    /// The slot of `time`'s bucket in the index, a new one if none is pending.
    #[inline(never)]
    fn search(&mut self, time: Time) -> u32 {
        let (slab, vacant) = (&mut self.slab, &mut self.vacant);
        let slot = *self.index.entry(time).or_insert_with(|| {
            vacant.pop().unwrap_or_else(|| {
                slab.push(Bucket::default());
                (slab.len() - 1) as u32
            })
        });
        self.near.set(time, slot);
        slot
    }

    #[inline]
    fn insert(bucket: &mut Bucket<M>, class: usize, entry: Entry) {
        bucket.first = bucket.first.min(class);
        let list = &mut bucket.lists[class];
        if bucket.ranked[class] {
            // An event for a list already being applied: keep the pending part in order.
            let start = bucket.cursor[class];
            let at = start + list.ranks[start..].partition_point(|&r| r <= entry.0);
            list.insert(at, entry);
        } else {
            if list.ranks.last().is_some_and(|&last| last > entry.0) {
                bucket.in_rank_order[class] = false;
            }
            list.push(entry);
        }
    }

    /// The earliest pending instant.
    pub(crate) fn next_time(&self) -> Option<Time> {
        let first = self.index.keys().next().copied();
        match self.active {
            Some((at, slot)) if !self.slab[slot as usize].is_empty() => {
                Some(first.map_or(at, |f| f.min(at)))
            }
            _ => first,
        }
    }

    /// Marks in `ranks` (indexed by rank, false elsewhere) every rank with a pending event at
    /// instant `time`.
    pub(crate) fn ranks_at(&self, time: Time, ranks: &mut [bool]) {
        let slot = match self.active {
            Some((at, slot)) if at == time => Some(slot),
            _ => self.index.get(&time).copied(),
        };
        let Some(bucket) = slot.map(|s| &self.slab[s as usize]) else {
            return;
        };
        for class in 0..CLASSES {
            for &rank in bucket.pending(class).ranks {
                if let Some(r) = ranks.get_mut(rank as usize) {
                    *r = true;
                }
            }
        }
        for d in bucket.deliveries.iter() {
            if let Some(r) = ranks.get_mut(d.0 as usize) {
                *r = true;
            }
        }
    }

    /// The next event of instant `now`: the lowest class first, within it by rank (polls, or
    /// every class when strict) or by insertion.
    pub(crate) fn pop(&mut self, now: Time) -> Option<Popped<M>>
    where
        M: Clone + PartialEq,
    {
        let (class, bucket) = self.current(now)?;
        let c = bucket.cursor[class];
        if c >= bucket.lists[class].len() {
            let delivery = bucket.deliveries.pop_front()?;
            return Some(Popped::Delivery(delivery));
        }
        bucket.cursor[class] = c + 1;
        let (rank, data) = bucket.lists[class].get(c);
        Some(Popped::Event(class, rank, bucket.data(class, data)))
    }

    /// The class `pop` takes its next event of instant `now` from, and its pending entries in
    /// the order `pop` returns them: what the driver is about to touch.
    pub(crate) fn ahead(&mut self, now: Time) -> Option<Ahead<'_, M>> {
        let (class, bucket) = self.current(now)?;
        if bucket.pending(class).is_empty() {
            return Some(Ahead::Deliveries(&bucket.deliveries));
        }
        Some(Ahead::Entries(class, bucket.pending(class)))
    }

    /// The lowest class of instant `now` with pending events, its pending part put in the order
    /// it is applied in (sorted by rank, stably, for polls or when strict).
    fn current(&mut self, now: Time) -> Option<(usize, &mut Bucket<M>)> {
        if self.active.is_none_or(|(at, _)| at != now) {
            let slot = self.index.remove(&now)?;
            self.near.forget(now);
            if let Some((at, old)) = self.active.replace((now, slot)) {
                self.stash(at, old);
            }
        }
        let (_, slot) = self.active?;
        let bucket = &mut self.slab[slot as usize];
        let class = (bucket.first..CLASSES).find(|&c| bucket.has_pending(c))?;
        bucket.first = class;
        if !bucket.ranked[class] && (self.strict || class == POLL_CLASS) {
            if !bucket.in_rank_order[class] {
                let c = bucket.cursor[class];
                bucket.lists[class].sort_from(c, &mut self.scratch, &mut self.entries);
            }
            bucket.ranked[class] = true;
        }
        Some((class, bucket))
    }

    /// Drops the bucket of `now` once it is empty.
    pub(crate) fn finish(&mut self, now: Time) {
        match self.active.take() {
            Some((at, slot)) if at == now && self.slab[slot as usize].is_empty() => {
                self.recycle(slot)
            }
            Some((at, slot)) => self.stash(at, slot),
            None => {}
        }
        if let Some(&slot) = self.index.get(&now) {
            if self.slab[slot as usize].is_empty() {
                self.index.remove(&now);
                self.near.forget(now);
                self.recycle(slot);
            }
        }
    }

    /// Puts a bucket taken out for applying back into the index (an instant left unfinished).
    fn stash(&mut self, at: Time, slot: u32) {
        if self.slab[slot as usize].is_empty() {
            self.recycle(slot);
        } else {
            self.index.insert(at, slot);
        }
    }

    /// Vacates an emptied bucket's slot, keeping its lists for a later instant within the spare
    /// bounds.
    fn recycle(&mut self, slot: u32) {
        let keep = self.vacant.len() < SPARES;
        let bucket = &mut self.slab[slot as usize];
        for list in &mut bucket.lists {
            if keep && list.capacity() <= SPARE_CAPACITY {
                list.clear();
            } else {
                *list = List::default();
            }
        }
        // (Empty: a bucket is recycled once empty, and holds no empty segment.)
        bucket.deliveries.clear();
        if keep && bucket.generations.capacity() <= SPARE_CAPACITY {
            bucket.generations.clear();
        } else {
            bucket.generations = Vec::new();
        }
        bucket.cursor = [0; CLASSES];
        bucket.ranked = [false; CLASSES];
        bucket.first = 0;
        bucket.in_rank_order = [true; CLASSES];
        self.vacant.push(slot);
    }

    /// Drops what is not state, as deserializing does (tests).
    #[cfg(test)]
    fn forget_hints(&mut self) {
        self.near = Near::default();
        for bucket in &mut self.slab {
            bucket.first = 0;
            bucket.in_rank_order = [false; CLASSES];
        }
    }

    /// Every bucket with its instant, in time order.
    fn in_order(&self) -> impl Iterator<Item = (Time, &Bucket<M>)> {
        let bucket = |slot: u32| &self.slab[slot as usize];
        let active = self.active.map(|(at, slot)| (at, bucket(slot)));
        let split = active.map_or(0, |(at, _)| at);
        let before = self
            .index
            .range(..split)
            .map(move |(&t, &s)| (t, bucket(s)));
        let after = self
            .index
            .range(split..)
            .map(move |(&t, &s)| (t, bucket(s)));
        before.chain(active).chain(after)
    }

    /// Every pending event in the canonical order: `(time, class, rank)`, stable.
    fn canonical(&self) -> Vec<(Time, usize, Rank, u64)> {
        let mut all = Vec::new();
        for (time, bucket) in self.in_order() {
            for class in 0..CLASSES {
                let mut list: Vec<Entry> = bucket.pending(class).iter().collect();
                list.sort_by_key(|e| e.0);
                all.extend(
                    list.into_iter()
                        .map(|(r, d)| (time, class, r, bucket.data(class, d))),
                );
            }
        }
        all
    }

    /// Every pending delivery that carries its message, by time, then receiver, stably
    /// (deliveries to different receivers are independent, as the entries' are).
    fn canonical_deliveries(&self) -> Vec<(Time, Rank, Rank, &M)> {
        let mut all = Vec::new();
        for (time, bucket) in self.in_order() {
            let start = all.len();
            all.extend(
                bucket
                    .deliveries
                    .iter()
                    .map(|(to, from, msg)| (time, to, from, msg)),
            );
            all[start..].sort_by_key(|&(_, to, _, _)| to);
        }
        all
    }
}

/// Sorts `list` by `rank`, stably: what `sort_by_key(rank)` does. A list of 512 to 2^16
/// entries (the send-port polls of a busy instant: thousands at P = 64 K; the bound keeps the
/// scratch at most 1 MiB) is sorted by an LSD radix sort on 11-bit digits of the rank, in as
/// many passes as the largest rank needs (two below 2^22): stable like the comparison sort it
/// replaces, and 72 M instead of 103 M instructions for the sorts of a 64 K-process FTCO run
/// (callgrind; docs/performance.md).
#[inline(never)]
fn sort_by_rank<T: Copy + Default>(
    list: &mut [T],
    scratch: &mut Vec<T>,
    rank: impl Fn(&T) -> Rank,
) {
    const BITS: u32 = 11;
    const DIGITS: usize = 1 << BITS;
    const MAX_PASSES: usize = 3;
    // Short lists gain nothing; very long ones (a 2^20-process instant) would keep a scratch
    // as long as themselves for the rest of the run: the comparison sort takes both.
    if !(512..=1 << 16).contains(&list.len()) {
        list.sort_by_key(&rank);
        return;
    }
    let max = list.iter().map(&rank).max().unwrap_or(0);
    let passes = (u32::BITS - max.leading_zeros()).div_ceil(BITS) as usize;
    if passes > MAX_PASSES {
        list.sort_by_key(&rank);
        return;
    }
    // Every pass's digit counts in one read of the list.
    let mut start = [[0usize; DIGITS]; MAX_PASSES];
    for e in list.iter() {
        for (pass, counts) in start.iter_mut().enumerate().take(passes) {
            counts[((rank(e) >> (pass as u32 * BITS)) as usize) & (DIGITS - 1)] += 1;
        }
    }
    for counts in start.iter_mut().take(passes) {
        let mut sum = 0;
        for slot in counts.iter_mut() {
            let count = *slot;
            *slot = sum;
            sum += count;
        }
    }
    scratch.clear();
    scratch.resize(list.len(), T::default());
    // Each pass moves the entries between `list` and `scratch`; they end in `list` after an
    // even number of passes, and are copied back after an odd one.
    for (pass, counts) in start.iter_mut().enumerate().take(passes) {
        let shift = pass as u32 * BITS;
        let (from, to): (&[T], &mut [T]) = if pass % 2 == 0 {
            (&*list, &mut scratch[..])
        } else {
            (&scratch[..], &mut *list)
        };
        for e in from {
            let d = ((rank(e) >> shift) as usize) & (DIGITS - 1);
            to[counts[d]] = *e;
            counts[d] += 1;
        }
    }
    if passes % 2 == 1 {
        list.copy_from_slice(scratch);
    }
}

impl<M: PartialEq> PartialEq for Queue<M> {
    fn eq(&self, other: &Self) -> bool {
        self.strict == other.strict
            && self.canonical() == other.canonical()
            && self.canonical_deliveries() == other.canonical_deliveries()
    }
}

impl<M: Eq> Eq for Queue<M> {}

impl<M: Hash> Hash for Queue<M> {
    /// Hashes exactly what `self.canonical().hash(state)` would (the same values in the same
    /// order, so the fingerprints a model checker computes are unchanged), without building the
    /// list: a pending part already sorted by rank is hashed in place, and only an unsorted one
    /// is copied to be sorted.
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.strict.hash(state);
        let total: usize = self
            .in_order()
            .map(|(_, b)| (0..CLASSES).map(|c| b.pending(c).len()).sum::<usize>())
            .sum();
        // `Vec::hash`: the length, then each element.
        state.write_usize(total);
        let mut sorted: Vec<Entry> = Vec::new();
        for (time, bucket) in self.in_order() {
            for class in 0..CLASSES {
                let pending = bucket.pending(class);
                let mut each = |(rank, data): Entry| {
                    (time, class, rank, bucket.data(class, data)).hash(state);
                };
                if pending.ranks.is_sorted() {
                    pending.iter().for_each(&mut each);
                } else {
                    sorted.clear();
                    sorted.extend(pending.iter());
                    sorted.sort_by_key(|e| e.0);
                    sorted.iter().copied().for_each(&mut each);
                }
            }
        }
        // Deliveries that carry their messages (none in a model checker's states, whose
        // fingerprints therefore stay those of the entries alone).
        if self.slab.iter().any(|b| !b.deliveries.is_empty()) {
            // As `(time, delivery).hash(state)` with a `Delivery { to, from, msg }`.
            for (time, to, from, msg) in self.canonical_deliveries() {
                (time, to, from, msg).hash(state);
            }
        }
    }
}
