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

use alloc::collections::{BTreeMap, VecDeque};
use alloc::vec::Vec;
use core::hash::{Hash, Hasher};

use ftcoll::{Rank, Time};

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
/// instant: those 8 B lists held 268 MB at P = 2^24, two instants' worth).
pub(crate) const FAR_GENERATION: u32 = 1 << 31;

/// More events of one kind than 32 bits number: at one instant, timer events of generations
/// 2^31 or later beyond 2^31; in all, message slots beyond 2^32 (checked by the driver).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Full;

/// A delivery that carries its message (see [`Queue::push_delivery`]), as it is added and taken
/// out; an instant holds its deliveries as a [`Carried`] list.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct Delivery<M> {
    /// The receiver.
    pub(crate) to: Rank,
    /// The sender.
    pub(crate) from: Rank,
    /// The message.
    pub(crate) msg: M,
}

/// Deliveries of a [`Carried`] segment: 8 KiB of receivers and senders, below the 128 KiB from
/// which the CLI's allocator maps memory of its own, so a segment freed is reused by the next.
const SEGMENT: usize = 1 << 10;

/// An instant's deliveries that carry their messages, in the order they were added.
///
/// They are held in segments of at most [`SEGMENT`] deliveries, none consumed: one growing
/// list would keep up to twice its peak (a doubling's spare half, and both halves while it
/// copies; at P = 2^20 synchronized checked correction peaked with room for 5.2 M deliveries
/// for 3.9 M in flight), where segments keep what is pending and one partly filled
/// segment per instant, and free one as soon as it is consumed. A segment keeps each
/// delivery's receiver and sender (8 B) and each message once for a run of equal messages
/// added one after the other: the messages a synchronized correction phase sends at one
/// instant are mostly the same, so such a run costs 8 B a delivery instead of 32 with a
/// Corrected Tree message, while distinct messages cost what they did (8 B, the message, and
/// a bit).
#[derive(Clone, Debug)]
pub(crate) struct Carried<M> {
    segments: VecDeque<Segment<M>>,
}

/// Up to [`SEGMENT`] deliveries of a [`Carried`] list.
#[derive(Clone, Debug)]
struct Segment<M> {
    /// Each delivery's receiver and sender, in order.
    pairs: Vec<(Rank, Rank)>,
    /// Bit `i`: delivery `i` starts a run (its message differs from the one before).
    starts: [u64; SEGMENT / 64],
    /// The message of each run, in order; those of consumed runs taken out (`None`).
    msgs: Vec<Option<M>>,
    /// The run of `head`: its index in `msgs`.
    run: usize,
    /// Deliveries before this one are consumed (fewer than `pairs`: a consumed segment is
    /// dropped).
    head: usize,
}

impl<M> Default for Carried<M> {
    fn default() -> Self {
        Self {
            segments: VecDeque::new(),
        }
    }
}

impl<M> Segment<M> {
    fn starts_run(&self, i: usize) -> bool {
        self.starts[i / 64] >> (i % 64) & 1 == 1
    }

    /// The pending deliveries: receiver, sender and message.
    fn iter(&self) -> impl Iterator<Item = (Rank, Rank, &M)> {
        let mut run = self.run;
        (self.head..self.pairs.len()).filter_map(move |i| {
            if i > self.head && self.starts_run(i) {
                run += 1;
            }
            let (to, from) = self.pairs[i];
            // (Always `Some`: a pending delivery's run is not consumed.)
            Some((to, from, self.msgs.get(run)?.as_ref()?))
        })
    }
}

impl<M: Clone + PartialEq> Carried<M> {
    /// Adds a delivery after the others.
    #[inline]
    fn push_back(&mut self, delivery: Delivery<M>) {
        let Delivery { to, from, msg } = delivery;
        match self.segments.back_mut() {
            // The last message is that of the last delivery, consumed or not: one equal to it
            // continues its run.
            Some(last)
                if last.pairs.len() < SEGMENT
                    && last.msgs.last().and_then(Option::as_ref) == Some(&msg) =>
            {
                last.pairs.push((to, from));
            }
            _ => self.push_run(to, from, msg),
        }
    }

    /// Takes out the first delivery.
    #[inline]
    fn pop_front(&mut self) -> Option<Delivery<M>> {
        let first = self.segments.front_mut()?;
        let i = first.head;
        let &(to, from) = first.pairs.get(i)?;
        first.head = i + 1;
        // The last of its run, or of the segment (which is then dropped): the message moves
        // out; otherwise the run's next delivery needs it too.
        let run_ends = i + 1 == first.pairs.len() || first.starts_run(i + 1);
        let slot = first.msgs.get_mut(first.run)?;
        let msg = if run_ends {
            first.run += 1;
            slot.take()
        } else {
            slot.clone()
        }?;
        if first.head == first.pairs.len() {
            // Consumed. (Deliveries go to later instants than the one being applied, so none
            // would have followed into it; one that did would start a new segment.)
            self.segments.pop_front();
        }
        Some(Delivery { to, from, msg })
    }
}

impl<M> Carried<M> {
    /// Adds a delivery that starts a run, in a new segment if the last one is full.
    #[inline]
    fn push_run(&mut self, to: Rank, from: Rank, msg: M) {
        match self.segments.back_mut() {
            Some(last) if last.pairs.len() < SEGMENT => {
                let i = last.pairs.len();
                last.pairs.push((to, from));
                last.starts[i / 64] |= 1 << (i % 64);
                last.msgs.push(Some(msg));
            }
            _ => self.start_segment(to, from, msg),
        }
    }

    #[inline(never)]
    fn start_segment(&mut self, to: Rank, from: Rank, msg: M) {
        if let Some(full) = self.segments.back_mut() {
            // Its runs are all added: give back the spare room of the list's doublings (up to
            // half of it; 80 MB of peak RSS at P = 2^24, delayed:2 overlapped).
            full.msgs.shrink_to_fit();
        }
        let mut pairs = Vec::with_capacity(SEGMENT);
        pairs.push((to, from));
        let msgs = alloc::vec![Some(msg)];
        let mut starts = [0; SEGMENT / 64];
        starts[0] = 1;
        self.segments.push_back(Segment {
            pairs,
            starts,
            msgs,
            run: 0,
            head: 0,
        });
    }

    /// Whether no delivery is pending.
    pub(crate) fn is_empty(&self) -> bool {
        self.segments.is_empty()
    }

    /// Pending deliveries.
    pub(crate) fn len(&self) -> usize {
        self.segments.iter().map(|s| s.pairs.len() - s.head).sum()
    }

    /// The pending deliveries in the order they are applied: receiver, sender and message.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (Rank, Rank, &M)> {
        self.segments.iter().flat_map(Segment::iter)
    }

    /// The receivers of the first pending deliveries, in the order they are applied: those of
    /// the first segment.
    pub(crate) fn first_receivers(&self) -> impl Iterator<Item = Rank> + '_ {
        self.segments
            .front()
            .into_iter()
            .flat_map(|s| s.pairs[s.head..].iter().map(|&(to, _)| to))
    }

    /// Drops every delivery and segment.
    fn clear(&mut self) {
        self.segments.clear();
    }
}

#[cfg(feature = "serde")]
impl<M: serde::Serialize> serde::Serialize for Carried<M> {
    /// As the list of [`Delivery`] it holds.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(serde::Serialize)]
        #[serde(rename = "Delivery")]
        struct Ref<'a, M> {
            to: Rank,
            from: Rank,
            msg: &'a M,
        }
        serializer.collect_seq(self.iter().map(|(to, from, msg)| Ref { to, from, msg }))
    }
}

#[cfg(feature = "serde")]
impl<'de, M: serde::Deserialize<'de>> serde::Deserialize<'de> for Carried<M> {
    /// Each delivery a run of its own (equality and hashing do not see runs).
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let list = Vec::<Delivery<M>>::deserialize(deserializer)?;
        let mut carried = Self::default();
        for Delivery { to, from, msg } in list {
            carried.push_run(to, from, msg);
        }
        Ok(carried)
    }
}

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

/// One class's events of an instant: ranks, and each one's data only once one is not 0. The
/// send-port polls and process starts carry none, and an instant of a synchronized correction
/// phase polls every process: 4 B an event instead of an [`Entry`]'s 8 (at P = 2^24, two such
/// instants pending at once held 256 MiB).
#[derive(Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct List {
    ranks: Vec<Rank>,
    /// Empty (every datum 0) or as long as `ranks`.
    data: Vec<u32>,
}

/// A list's entries from some index on.
#[derive(Clone, Copy)]
pub(crate) struct Pending<'a> {
    ranks: &'a [Rank],
    /// Empty when every datum is 0.
    data: &'a [u32],
}

impl<'a> Pending<'a> {
    pub(crate) fn len(&self) -> usize {
        self.ranks.len()
    }

    fn is_empty(&self) -> bool {
        self.ranks.is_empty()
    }

    /// The first `n` entries.
    pub(crate) fn take(self, n: usize) -> Self {
        let n = n.min(self.ranks.len());
        Self {
            ranks: &self.ranks[..n],
            data: &self.data[..n.min(self.data.len())],
        }
    }

    /// `(rank, data)` in order.
    pub(crate) fn iter(self) -> impl Iterator<Item = Entry> + 'a {
        let data = self.data;
        self.ranks
            .iter()
            .enumerate()
            .map(move |(i, &r)| (r, data.get(i).copied().unwrap_or(0)))
    }
}

impl Clone for List {
    fn clone(&self) -> Self {
        Self {
            ranks: self.ranks.clone(),
            data: self.data.clone(),
        }
    }

    /// Into this list's allocations (the model checker copies every successor into a state it
    /// has finished with).
    fn clone_from(&mut self, source: &Self) {
        self.ranks.clone_from(&source.ranks);
        self.data.clone_from(&source.data);
    }
}

impl List {
    fn len(&self) -> usize {
        self.ranks.len()
    }

    fn get(&self, i: usize) -> Entry {
        (self.ranks[i], self.data.get(i).copied().unwrap_or(0))
    }

    fn pending(&self, from: usize) -> Pending<'_> {
        Pending {
            ranks: &self.ranks[from..],
            data: self.data.get(from..).unwrap_or(&[]),
        }
    }

    /// Makes room for data that is not 0 (and, in a deserialized list of another length, makes
    /// the data as long as the ranks, so that nothing indexes past it).
    #[cold]
    fn materialize(&mut self) {
        self.data.resize(self.ranks.len(), 0);
    }

    /// Whether data must be kept, or made as long as the ranks, before adding `data`.
    fn needs_room(&self, data: u32) -> bool {
        (data != 0 || !self.data.is_empty()) && self.data.len() != self.ranks.len()
    }

    fn push(&mut self, (rank, data): Entry) {
        // (Only `insert` and `sort_from` index the data, and make it as long as the ranks.)
        if data != 0 && self.data.len() < self.ranks.len() {
            self.materialize();
        }
        if !self.data.is_empty() || data != 0 {
            self.data.push(data);
        }
        self.ranks.push(rank);
    }

    fn insert(&mut self, at: usize, (rank, data): Entry) {
        if self.needs_room(data) {
            self.materialize();
        }
        if !self.data.is_empty() || data != 0 {
            self.data.insert(at, data);
        }
        self.ranks.insert(at, rank);
    }

    fn clear(&mut self) {
        self.ranks.clear();
        self.data.clear();
    }

    fn capacity(&self) -> usize {
        self.ranks.capacity().max(self.data.capacity())
    }

    /// Sorts the entries from `from` on by rank, stably.
    fn sort_from(&mut self, from: usize, scratch: &mut Vec<Rank>, entries: &mut Vec<Entry>) {
        if self.needs_room(0) {
            self.materialize();
        }
        if self.data.is_empty() {
            // (Equal ranks without data are alike: stability is moot.)
            sort_by_rank(&mut self.ranks[from..], scratch, |&r| r);
        } else {
            // Data moves with its rank (only strict queues sort these: tracing).
            entries.clear();
            entries.extend(self.pending(from).iter());
            entries.sort_by_key(|e| e.0);
            for (i, &(rank, data)) in entries.iter().enumerate() {
                self.ranks[from + i] = rank;
                self.data[from + i] = data;
            }
        }
    }
}

#[derive(Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Bucket<M> {
    lists: [List; CLASSES],
    /// Deliveries that carry their messages, in the order they were added: they belong to the
    /// delivery class and are applied after its entries (a run uses one kind or the other;
    /// see [`Queue::push_delivery`]).
    deliveries: Carried<M>,
    /// The generations of the timer events that do not fit their entry's data
    /// ([`FAR_GENERATION`]), in the order they were added; such an entry holds its index here,
    /// which sorting the list by rank carries along. Empty in every run of this crate's tools.
    generations: Vec<u64>,
    /// Next entry to apply in each list (entries before it are done).
    cursor: [usize; CLASSES],
    /// Whether the pending part of the list is sorted by rank (then new events are inserted
    /// in place; otherwise they are appended).
    ranked: [bool; CLASSES],
    /// No class below this one has pending events: where [`Queue::current`] starts looking
    /// (lowered when an event of a lower class is added; 0 is always right). Not state: a copy
    /// keeps it (it holds for the copy), a deserialized bucket starts from 0.
    #[cfg_attr(feature = "serde", serde(skip))]
    first: usize,
    /// Per class: the entries were appended in rank order, so sorting them by rank, stably,
    /// changes nothing (the send-port polls an instant's polls schedule for the next are added
    /// in rank order). Not state: `false` is always right.
    #[cfg_attr(feature = "serde", serde(skip))]
    in_rank_order: [bool; CLASSES],
}

impl<M> Default for Bucket<M> {
    fn default() -> Self {
        Self {
            lists: Default::default(),
            deliveries: Carried::default(),
            generations: Vec::new(),
            cursor: [0; CLASSES],
            ranked: [false; CLASSES],
            first: 0,
            in_rank_order: [true; CLASSES],
        }
    }
}

impl<M: Clone> Clone for Bucket<M> {
    fn clone(&self) -> Self {
        Self {
            lists: self.lists.clone(),
            deliveries: self.deliveries.clone(),
            generations: self.generations.clone(),
            cursor: self.cursor,
            ranked: self.ranked,
            first: self.first,
            in_rank_order: self.in_rank_order,
        }
    }

    fn clone_from(&mut self, source: &Self) {
        for (mine, theirs) in self.lists.iter_mut().zip(&source.lists) {
            mine.clone_from(theirs);
        }
        self.deliveries.clone_from(&source.deliveries);
        self.generations.clone_from(&source.generations);
        self.cursor = source.cursor;
        self.ranked = source.ranked;
        self.first = source.first;
        self.in_rank_order = source.in_rank_order;
    }
}

impl<M> Bucket<M> {
    fn is_empty(&self) -> bool {
        (0..CLASSES).all(|c| self.cursor[c] >= self.lists[c].len()) && self.deliveries.is_empty()
    }

    /// Whether `class` has events left (entries, or deliveries for the delivery class).
    fn has_pending(&self, class: usize) -> bool {
        self.cursor[class] < self.lists[class].len()
            || (class == DELIVER_CLASS && !self.deliveries.is_empty())
    }

    fn pending(&self, class: usize) -> Pending<'_> {
        self.lists[class].pending(self.cursor[class])
    }

    /// An entry's data as the driver gave it: the timer generation for [`TIMER_CLASS`]. (An
    /// index outside `generations`, which only a corrupted deserialized queue holds, reads as
    /// generation 0, which no timer has: the event is stale and fires nothing.)
    fn data(&self, class: usize, data: u32) -> u64 {
        if class == TIMER_CLASS && data >= FAR_GENERATION {
            let index = (data - FAR_GENERATION) as usize;
            self.generations.get(index).copied().unwrap_or(0)
        } else {
            u64::from(data)
        }
    }
}

/// Pending events by instant.
///
/// Each pending instant has a bucket in `slab`, found through `index`; the instant being applied
/// (`active`) is taken out of `index`, so that applying its events and adding events to it search
/// nothing. An emptied bucket's slot is vacant until a new instant takes it, its lists cleared;
/// up to [`SPARES`] vacant slots keep lists of at most [`SPARE_CAPACITY`] entries, so that a new
/// instant's lists do not grow from nothing. (Keeping every emptied bucket with its whole capacity
/// was tried before: up to 130 MiB more peak memory at P = 2^20, since a bucket can hold an
/// instant's worth of capacity; these bounds keep the kept lists under 1 MiB.) The buckets live in
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

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;
    use ftcoll::rng::SplitMix64;
    use std::hash::DefaultHasher;

    /// [`Queue::push`], or [`Queue::push_timer`] for the timer class.
    fn push(queue: &mut Queue<()>, time: Time, class: usize, rank: Rank, data: u64) {
        if class == TIMER_CLASS {
            queue.push_timer(time, rank, data).expect("few timers");
        } else {
            queue.push(time, class, rank, data as u32);
        }
    }

    /// A class's list keeps data only once one is not 0, and reads, inserts and sorts (stably,
    /// with or without data) as the list of entries it replaces.
    #[test]
    fn lists_read_as_lists_of_entries() {
        let mut rng = SplitMix64::new(9);
        let (mut scratch, mut entries) = (Vec::new(), Vec::new());
        for case in 0..300 {
            let (mut list, mut model) = (List::default(), Vec::<Entry>::new());
            let with_data = case % 3 != 0;
            for _ in 0..rng.below(1200) {
                let data = if with_data && rng.below(4) == 0 {
                    rng.below(50) as u32
                } else {
                    0
                };
                let entry = (rng.below(3000) as Rank, data);
                if rng.below(5) == 0 && !model.is_empty() {
                    let at = rng.below(model.len() as u64 + 1) as usize;
                    list.insert(at, entry);
                    model.insert(at, entry);
                } else {
                    list.push(entry);
                    model.push(entry);
                }
            }
            assert!(list.data.is_empty() || list.data.len() == list.ranks.len());
            assert_eq!(list.data.is_empty(), model.iter().all(|e| e.1 == 0));
            let from = rng.below(model.len() as u64 + 1) as usize;
            assert!(list.pending(from).iter().eq(model[from..].iter().copied()));
            assert!(list
                .pending(from)
                .take(5)
                .iter()
                .eq(model[from..].iter().copied().take(5)));
            list.sort_from(from, &mut scratch, &mut entries);
            model[from..].sort_by_key(|e| e.0);
            assert!((0..model.len())
                .map(|i| list.get(i))
                .eq(model.iter().copied()));
        }
    }

    /// A timer event's generation reads back as it was added, held in the entry below
    /// [`FAR_GENERATION`] and aside at or above it (or 0): only those take room in
    /// `generations`, and queues holding the same generations are equal and hash alike.
    #[test]
    fn timer_generations_read_back_near_and_far() {
        let generations = [
            1,
            5,
            u64::from(FAR_GENERATION) - 1,
            u64::from(FAR_GENERATION),
            (1 << 32) + 7,
            u64::MAX,
            0,
            3,
        ];
        let mut queue: Queue<()> = Queue::new(false);
        for (rank, &generation) in generations.iter().enumerate() {
            queue.push_timer(9, rank as Rank, generation).expect("room");
        }
        let slot = queue.index[&9] as usize;
        assert_eq!(
            queue.slab[slot].generations.len(),
            4,
            "far generations only"
        );
        let mut again: Queue<()> = Queue::new(false);
        for (rank, &generation) in generations.iter().enumerate().rev() {
            again.push_timer(9, rank as Rank, generation).expect("room");
        }
        assert!(queue == again);
        let hash = |q: &Queue<()>| {
            let mut h = DefaultHasher::new();
            q.hash(&mut h);
            h.finish()
        };
        assert_eq!(hash(&queue), hash(&again));
        for (rank, &generation) in generations.iter().enumerate() {
            assert_eq!(
                queue.pop(9),
                Some(Popped::Event(TIMER_CLASS, rank as Rank, generation))
            );
        }
        assert_eq!(queue.pop(9), None);
    }

    /// A list whose data is not as long as its ranks (only a corrupted deserialized state holds
    /// one) is read, inserted into and sorted without panicking.
    #[test]
    fn a_list_with_data_of_another_length_does_not_panic() {
        let (mut scratch, mut entries) = (Vec::new(), Vec::new());
        for data_len in [1, 3, 9] {
            let mut list = List {
                ranks: alloc::vec![5, 3, 8, 1],
                data: alloc::vec![7; data_len],
            };
            list.insert(4, (2, 0));
            list.push((0, 4));
            list.sort_from(1, &mut scratch, &mut entries);
            assert_eq!(list.ranks, [5, 0, 1, 2, 3, 8]);
            assert_eq!(list.ranks.len(), list.data.len());
            assert!((0..list.len()).all(|i| list.get(i).0 == list.ranks[i]));
            assert_eq!(list.pending(2).take(10).iter().count(), 4);
        }
    }

    /// The radix sort of long lists orders like the stable comparison sort: by rank, equal ranks
    /// in their order before (the data tells them apart), for ranks that need one to three
    /// passes and lists around the switch-over length.
    #[test]
    fn sort_by_rank_is_the_stable_sort_by_rank() {
        let mut rng = SplitMix64::new(5);
        let mut scratch = Vec::new();
        for case in 0..200 {
            let len = [0, 1, 511, 512, 513, 3000, 65_530][case % 7] + rng.below(40) as usize;
            let bound = [1u64, 7, 2048, 70_000, 1 << 31][case % 5];
            let mut list: Vec<Entry> = (0..len)
                .map(|i| (rng.below(bound) as Rank, i as u32))
                .collect();
            let mut expected = list.clone();
            expected.sort_by_key(|e| e.0);
            sort_by_rank(&mut list, &mut scratch, |e| e.0);
            assert_eq!(list, expected, "case {case}");
        }
    }

    /// The in-place hash feeds the hasher what hashing the canonical list did, so the model
    /// checker's fingerprints (and its pinned state counts) do not depend on which one runs.
    #[test]
    fn hash_equals_the_canonical_lists_hash() {
        let mut rng = SplitMix64::new(7);
        for case in 0..500 {
            let mut queue = Queue::<()>::new(case % 7 == 0);
            for _ in 0..rng.below(40) {
                let time = rng.below(5);
                let class = rng.below(CLASSES as u64) as usize;
                push(&mut queue, time, class, rng.below(9) as Rank, rng.below(4));
            }
            // Apply part of the first instant, so cursors and sorted lists occur too.
            if let Some(now) = queue.next_time() {
                for _ in 0..rng.below(6) {
                    let _ = queue.pop(now);
                }
                // Events created during the instant: into a list already sorted for applying
                // (the `ranked` insert path) as well as into unsorted ones.
                for _ in 0..rng.below(6) {
                    let class = rng.below(CLASSES as u64) as usize;
                    push(&mut queue, now, class, rng.below(9) as Rank, rng.below(4));
                }
            }
            let mut expected = DefaultHasher::new();
            queue.strict.hash(&mut expected);
            queue.canonical().hash(&mut expected);
            let mut got = DefaultHasher::new();
            queue.hash(&mut got);
            assert_eq!(got.finish(), expected.finish(), "case {case}");
        }
    }

    /// The order the driver relies on (module docs), against a plain list: at each instant the
    /// lowest class first; within the poll class (every class when strict) by rank, then by
    /// insertion; otherwise by insertion. Events are added at the current instant while it is
    /// applied and at later ones, as the driver adds them, across many instants, so the bucket
    /// taken out for applying, the spares (buckets of every size, reused across instants) and
    /// the lists sorted while they are applied are all exercised.
    #[test]
    fn pops_in_the_documented_order_across_instants() {
        let mut rng = SplitMix64::new(11);
        for case in 0..300 {
            let strict = case % 5 == 0;
            let mut queue = Queue::<()>::new(strict);
            // (time, class, rank, data, insertion number) of every pending event.
            let mut reference: Vec<(Time, usize, Rank, u64, u64)> = Vec::new();
            let mut seq = 0u64;
            let mut now: Time = 0;
            // Large instants now and then, so that spares of every size are recycled.
            let spread = if case % 3 == 0 { 200 } else { 12 };
            let mut push = |queue: &mut Queue<()>,
                            reference: &mut Vec<_>,
                            time: Time,
                            rng: &mut SplitMix64| {
                let class = rng.below(CLASSES as u64) as usize;
                let rank = rng.below(16) as Rank;
                let data = match class {
                    POLL_CLASS => 0,
                    // Generations beyond 32 bits come back whole.
                    TIMER_CLASS => (1 << 40) + rng.below(1000),
                    _ => rng.below(1000),
                };
                push(queue, time, class, rank, data);
                reference.push((time, class, rank, data, seq));
                seq += 1;
            };
            for _ in 0..rng.below(spread) {
                let time = rng.below(4);
                push(&mut queue, &mut reference, time, &mut rng);
            }
            for _ in 0..40 {
                let expected_next = reference.iter().map(|e| e.0).min();
                assert_eq!(queue.next_time(), expected_next, "case {case}");
                let Some(t) = expected_next else { break };
                assert!(t >= now);
                now = t;
                // Apply the instant, adding events to it and to later ones on the way.
                loop {
                    let best = reference
                        .iter()
                        .enumerate()
                        .filter(|(_, e)| e.0 == now)
                        .min_by_key(|(_, e)| {
                            let ranked = strict || e.1 == POLL_CLASS;
                            (e.1, if ranked { e.2 } else { 0 }, e.4)
                        })
                        .map(|(i, _)| i);
                    let got = queue.pop(now);
                    let Some(i) = best else {
                        assert_eq!(got, None, "case {case}");
                        break;
                    };
                    let e = reference.remove(i);
                    assert_eq!(
                        got,
                        Some(Popped::Event(e.1, e.2, e.3)),
                        "case {case} at t={now}"
                    );
                    // Fewer than one new event per applied one on average, so the run ends.
                    // Now and then a multiple of `NEAR` later, so that instants share an
                    // entry of the cache of the index (`Near`).
                    if rng.below(2) == 0 {
                        let time = now + rng.below(4) + NEAR as Time * rng.below(2);
                        push(&mut queue, &mut reference, time, &mut rng);
                    }
                }
                // A batch for a later instant, large now and then.
                for _ in 0..rng.below(spread) {
                    let time = now + 1 + rng.below(3) + NEAR as Time * rng.below(3);
                    push(&mut queue, &mut reference, time, &mut rng);
                }
                queue.finish(now);
                // A copy (spares are not copied) is the same queue and pops the same events;
                // now and then the run goes on with the copy, or with the hints a deserialized
                // queue starts from (an empty index cache, no class skipped, no list known to
                // be in rank order).
                let copy = queue.clone();
                assert!(copy == queue);
                match rng.below(4) {
                    0 => queue = copy,
                    1 => queue.forget_hints(),
                    _ => {}
                }
            }
        }
    }

    /// An instant applied and finished can get events again (the queue does not assume that
    /// time only moves on): they are pending, though the cache of the index had found that
    /// instant's old bucket.
    #[test]
    fn an_instant_finished_takes_new_events() {
        let mut queue = Queue::<()>::new(false);
        push(&mut queue, 5, POLL_CLASS, 1, 0);
        assert_eq!(queue.pop(5), Some(Popped::Event(POLL_CLASS, 1, 0)));
        assert_eq!(queue.pop(5), None);
        queue.finish(5);
        assert_eq!(queue.next_time(), None);
        push(&mut queue, 5, POLL_CLASS, 2, 0);
        assert_eq!(queue.next_time(), Some(5));
        assert_eq!(queue.pop(5), Some(Popped::Event(POLL_CLASS, 2, 0)));
    }

    fn hash_of<T: Hash>(value: &T) -> u64 {
        let mut h = DefaultHasher::new();
        value.hash(&mut h);
        h.finish()
    }

    fn delivery(to: Rank, from: Rank, msg: u8) -> Delivery<u8> {
        Delivery { to, from, msg }
    }

    /// Deliveries that carry their messages belong to the delivery class: after the instant's
    /// arrivals and delivery entries, before its timers, starts and polls, in the order they
    /// were added; and they count as pending until popped.
    #[test]
    fn carried_deliveries_pop_in_their_class_in_insertion_order() {
        let mut queue = Queue::<u8>::new(false);
        queue.push(5, POLL_CLASS, 1, 0);
        queue.push_delivery(5, delivery(9, 1, 10));
        queue.push(5, 3, 4, 0);
        queue.push_delivery(5, delivery(2, 3, 11));
        queue.push(5, 0, 7, 70);
        queue.push(5, DELIVER_CLASS, 8, 80);
        queue.push_delivery(3, delivery(6, 6, 12));
        assert_eq!(queue.deliveries(), 3);
        assert_eq!(queue.next_time(), Some(3));
        assert_eq!(queue.pop(3), Some(Popped::Delivery(delivery(6, 6, 12))));
        assert_eq!(queue.pop(3), None);
        queue.finish(3);
        assert_eq!(queue.next_time(), Some(5));
        let mut ranks = alloc::vec![false; 10];
        queue.ranks_at(5, &mut ranks);
        assert_eq!(
            (0..10).filter(|&r| ranks[r]).collect::<Vec<usize>>(),
            alloc::vec![1, 2, 4, 7, 8, 9],
            "every rank with a pending event, deliveries' receivers too"
        );
        let order: Vec<_> = core::iter::from_fn(|| queue.pop(5)).collect();
        assert_eq!(
            order,
            alloc::vec![
                Popped::Event(0, 7, 70),
                Popped::Event(DELIVER_CLASS, 8, 80),
                Popped::Delivery(delivery(9, 1, 10)),
                Popped::Delivery(delivery(2, 3, 11)),
                Popped::Event(3, 4, 0),
                Popped::Event(POLL_CLASS, 1, 0),
            ]
        );
        assert_eq!(queue.deliveries(), 0);
        queue.finish(5);
        assert_eq!(queue.next_time(), None);
    }

    /// Carried deliveries across many segments, added while an instant is being applied and to
    /// later instants, with runs of equal messages and distinct ones, pop in the order they
    /// were added, as from one list; an instant holds no more segments than its pending
    /// deliveries fill, plus the partly consumed first and the partly filled last, and a
    /// segment one message per pending run (what keeps peak memory near what is in flight).
    #[test]
    fn carried_deliveries_span_segments_in_order() {
        let mut queue = Queue::<u8>::new(false);
        let mut model: [VecDeque<Delivery<u8>>; 3] = Default::default();
        let mut rng = SplitMix64::new(7);
        let mut added = 0u32;
        let mut last = [0u8; 3];
        let check = |queue: &Queue<u8>, model: &[VecDeque<Delivery<u8>>; 3]| {
            for (k, expected) in model.iter().enumerate() {
                let Some(&slot) = queue.index.get(&(k as Time)).or(match queue.active {
                    Some((at, ref slot)) if at == k as Time => Some(slot),
                    _ => None,
                }) else {
                    assert!(expected.is_empty());
                    continue;
                };
                let carried = &queue.slab[slot as usize].deliveries;
                assert!(carried
                    .iter()
                    .eq(expected.iter().map(|d| (d.to, d.from, &d.msg))));
                assert_eq!(carried.len(), expected.len());
                assert!(carried.segments.len() <= expected.len().div_ceil(SEGMENT) + 1);
                for s in &carried.segments {
                    assert!(s.head < s.pairs.len() && s.pairs.len() <= SEGMENT);
                    let runs = (s.head..s.pairs.len())
                        .filter(|&i| i == s.head || s.starts_run(i))
                        .count();
                    // The runs before `run` are consumed and their messages taken out.
                    assert_eq!(s.msgs.len() - s.run, runs);
                    assert!(s.msgs[..s.run].iter().all(Option::is_none));
                    assert!(s.msgs[s.run..].iter().all(Option::is_some));
                }
            }
        };
        for round in 0..6 {
            // Add to instants 0..3 at random, popping some of instant 0 now and then.
            for _ in 0..3 * SEGMENT {
                let at = (rng.next_u64() % 3) as usize;
                // Runs of equal messages, broken now and then.
                if rng.next_u64() % 4 == 0 {
                    last[at] = (rng.next_u64() % 3) as u8;
                }
                let d = delivery(added % 50, added % 7, last[at]);
                added += 1;
                queue.push_delivery(at as Time, d.clone());
                model[at].push_back(d);
                if rng.next_u64() % 3 == 0 {
                    let popped = queue.pop(0);
                    assert_eq!(popped, model[0].pop_front().map(Popped::Delivery));
                }
            }
            check(&queue, &model);
            assert_eq!(
                queue.deliveries(),
                model.iter().map(VecDeque::len).sum::<usize>()
            );
            if round % 2 == 1 {
                while let Some(popped) = queue.pop(0) {
                    assert_eq!(Some(popped), model[0].pop_front().map(Popped::Delivery));
                }
                assert!(model[0].is_empty());
                check(&queue, &model);
            }
        }
    }

    /// Equality and hashing see carried deliveries by receiver: to different receivers in
    /// either order the same state, to one receiver in another order a different one (its
    /// receive port serves them in that order).
    #[test]
    fn carried_deliveries_compare_by_receiver_in_order() {
        let build = |list: &[Delivery<u8>]| {
            let mut queue = Queue::<u8>::new(false);
            for d in list {
                queue.push_delivery(4, d.clone());
            }
            queue
        };
        let a = build(&[delivery(1, 0, 5), delivery(2, 0, 6)]);
        let b = build(&[delivery(2, 0, 6), delivery(1, 0, 5)]);
        assert!(a == b);
        assert_eq!(hash_of(&a), hash_of(&b));
        let c = build(&[delivery(1, 0, 5), delivery(1, 0, 6)]);
        let d = build(&[delivery(1, 0, 6), delivery(1, 0, 5)]);
        assert!(c != d);
        assert_ne!(hash_of(&c), hash_of(&d));
        assert!(a.clone() == a);
        let empty = Queue::<u8>::new(false);
        assert!(a != empty);
    }
}
