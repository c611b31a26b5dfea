//! One instant's events ([`Bucket`]): a list per event class (ranks, and data only once one is
//! not 0), the deliveries that carry their messages, and how far each list has been applied.

use alloc::vec::Vec;

use ftcoll::Rank;

use super::carried::Carried;
use super::{sort_by_rank, Entry, CLASSES, DELIVER_CLASS, FAR_GENERATION, TIMER_CLASS};

/// One class's events of an instant: ranks, and each one's data only once one is not 0. The
/// send-port polls and process starts carry none, and an instant of a synchronized correction
/// phase polls every process: 4 B an event instead of an [`Entry`]'s 8, for `P` events an
/// instant.
#[derive(Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(super) struct List {
    pub(super) ranks: Vec<Rank>,
    /// Empty (every datum 0) or as long as `ranks`.
    pub(super) data: Vec<u32>,
}

/// A list's entries from some index on.
#[derive(Clone, Copy)]
pub(crate) struct Pending<'a> {
    pub(super) ranks: &'a [Rank],
    /// Empty when every datum is 0.
    data: &'a [u32],
}

impl<'a> Pending<'a> {
    pub(crate) fn len(&self) -> usize {
        self.ranks.len()
    }

    pub(super) fn is_empty(&self) -> bool {
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
    pub(super) fn len(&self) -> usize {
        self.ranks.len()
    }

    pub(super) fn get(&self, i: usize) -> Entry {
        (self.ranks[i], self.data.get(i).copied().unwrap_or(0))
    }

    pub(super) fn pending(&self, from: usize) -> Pending<'_> {
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

    pub(super) fn push(&mut self, (rank, data): Entry) {
        // (Only `insert` and `sort_from` index the data, and make it as long as the ranks.)
        if data != 0 && self.data.len() < self.ranks.len() {
            self.materialize();
        }
        if !self.data.is_empty() || data != 0 {
            self.data.push(data);
        }
        self.ranks.push(rank);
    }

    pub(super) fn insert(&mut self, at: usize, (rank, data): Entry) {
        if self.needs_room(data) {
            self.materialize();
        }
        if !self.data.is_empty() || data != 0 {
            self.data.insert(at, data);
        }
        self.ranks.insert(at, rank);
    }

    pub(super) fn clear(&mut self) {
        self.ranks.clear();
        self.data.clear();
    }

    pub(super) fn capacity(&self) -> usize {
        self.ranks.capacity().max(self.data.capacity())
    }

    /// Sorts the entries from `from` on by rank, stably.
    pub(super) fn sort_from(
        &mut self,
        from: usize,
        scratch: &mut Vec<Rank>,
        entries: &mut Vec<Entry>,
    ) {
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
pub(super) struct Bucket<M> {
    pub(super) lists: [List; CLASSES],
    /// Deliveries that carry their messages, in the order they were added: they belong to the
    /// delivery class and are applied after its entries (a run uses one kind or the other;
    /// see [`Queue::push_delivery`]).
    pub(super) deliveries: Carried<M>,
    /// The generations of the timer events that do not fit their entry's data
    /// ([`FAR_GENERATION`]), in the order they were added; such an entry holds its index here,
    /// which sorting the list by rank carries along. Empty in every run of this crate's tools.
    pub(super) generations: Vec<u64>,
    /// Next entry to apply in each list (entries before it are done).
    pub(super) cursor: [usize; CLASSES],
    /// Whether the pending part of the list is sorted by rank (then new events are inserted
    /// in place; otherwise they are appended).
    pub(super) ranked: [bool; CLASSES],
    /// No class below this one has pending events: where [`Queue::current`] starts looking
    /// (lowered when an event of a lower class is added; 0 is always right). Not state: a copy
    /// keeps it (it holds for the copy), a deserialized bucket starts from 0.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(super) first: usize,
    /// Per class: the entries were appended in rank order, so sorting them by rank, stably,
    /// changes nothing (the send-port polls an instant's polls schedule for the next are added
    /// in rank order). Not state: `false` is always right.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(super) in_rank_order: [bool; CLASSES],
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
    pub(super) fn is_empty(&self) -> bool {
        (0..CLASSES).all(|c| self.cursor[c] >= self.lists[c].len()) && self.deliveries.is_empty()
    }

    /// Whether `class` has events left (entries, or deliveries for the delivery class).
    pub(super) fn has_pending(&self, class: usize) -> bool {
        self.cursor[class] < self.lists[class].len()
            || (class == DELIVER_CLASS && !self.deliveries.is_empty())
    }

    pub(super) fn pending(&self, class: usize) -> Pending<'_> {
        self.lists[class].pending(self.cursor[class])
    }

    /// An entry's data as the driver gave it: the timer generation for [`TIMER_CLASS`]. (An
    /// index outside `generations`, which only a corrupted deserialized queue holds, reads as
    /// generation 0, which no timer has: the event is stale and fires nothing.)
    pub(super) fn data(&self, class: usize, data: u32) -> u64 {
        if class == TIMER_CLASS && data >= FAR_GENERATION {
            let index = (data - FAR_GENERATION) as usize;
            self.generations.get(index).copied().unwrap_or(0)
        } else {
            u64::from(data)
        }
    }
}
