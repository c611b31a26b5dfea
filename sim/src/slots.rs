//! The driver's messages in flight: a slab whose free slots form a stack threaded through the
//! slots themselves, stored in chunks of [`CHUNK`] slots.
//!
//! Chunks instead of one vector: a vector grows by doubling, so at the peak up to half of it is
//! reserved and never used (up to 112 B per process on a P = 2^16 Corrected Tree run), and each
//! growth copies every message in flight. The free stack inside the slots needs no list of its
//! own, which grew to the peak number of messages in flight too. Slot numbers, and which freed
//! slot is reused next (the last one freed), are those of a plain vector with a separate
//! free list: the model checker's state, which includes them, is unchanged.

use alloc::vec::Vec;

/// Slots per chunk.
const CHUNK_BITS: u32 = 12;
const CHUNK: usize = 1 << CHUNK_BITS;
/// The end of the free stack.
const NONE: usize = usize::MAX;

#[derive(Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) enum Slot<T> {
    /// Free; `next` is the slot freed before it ([`NONE`]: none).
    Free { next: usize },
    /// A message in flight.
    Busy(T),
}

/// A busy slot copied into a busy slot copies the message with its `clone_from`, which may
/// reuse its allocation (a failure-proof message's list of correctors).
impl<T: Clone> Clone for Slot<T> {
    fn clone(&self) -> Self {
        match self {
            Self::Free { next } => Self::Free { next: *next },
            Self::Busy(value) => Self::Busy(value.clone()),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        match (self, source) {
            (Self::Busy(mine), Self::Busy(theirs)) => mine.clone_from(theirs),
            (mine, theirs) => *mine = theirs.clone(),
        }
    }
}

/// Messages in flight by slot number.
#[derive(Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct Slots<T> {
    chunks: Vec<Vec<Slot<T>>>,
    /// Slots ever used.
    len: usize,
    /// The last slot freed ([`NONE`]: none).
    free: usize,
    /// Slots free.
    free_count: usize,
}

impl<T: Clone> Clone for Slots<T> {
    fn clone(&self) -> Self {
        Self {
            chunks: self.chunks.clone(),
            len: self.len,
            free: self.free,
            free_count: self.free_count,
        }
    }

    /// Reuses the chunks (`Vec::clone_from` copies into the existing ones).
    fn clone_from(&mut self, source: &Self) {
        self.chunks.clone_from(&source.chunks);
        self.len = source.len;
        self.free = source.free;
        self.free_count = source.free_count;
    }
}

impl<T> Slots<T> {
    pub(crate) fn new() -> Self {
        Self {
            chunks: Vec::new(),
            len: 0,
            free: NONE,
            free_count: 0,
        }
    }

    fn slot(&self, i: usize) -> Option<&Slot<T>> {
        self.chunks.get(i >> CHUNK_BITS)?.get(i & (CHUNK - 1))
    }

    fn slot_mut(&mut self, i: usize) -> Option<&mut Slot<T>> {
        self.chunks
            .get_mut(i >> CHUNK_BITS)?
            .get_mut(i & (CHUNK - 1))
    }

    /// Stores `value` in the last slot freed, or a new one; returns its number.
    pub(crate) fn insert(&mut self, value: T) -> usize {
        let i = self.free;
        if let Some(slot) = self.slot_mut(i) {
            if let Slot::Free { next } = *slot {
                *slot = Slot::Busy(value);
                self.free = next;
                self.free_count -= 1;
                return i;
            }
        }
        if self.len & (CHUNK - 1) == 0 {
            self.chunks.push(Vec::new());
        }
        if let Some(chunk) = self.chunks.last_mut() {
            chunk.push(Slot::Busy(value));
        }
        self.len += 1;
        self.len - 1
    }

    /// Takes the message out of slot `i` (`None` if it holds none) and frees the slot.
    pub(crate) fn take(&mut self, i: usize) -> Option<T> {
        let next = self.free;
        let slot = self.slot_mut(i)?;
        if matches!(slot, Slot::Free { .. }) {
            return None;
        }
        match core::mem::replace(slot, Slot::Free { next }) {
            Slot::Busy(value) => {
                self.free = i;
                self.free_count += 1;
                Some(value)
            }
            Slot::Free { .. } => None,
        }
    }

    /// The message in slot `i`.
    pub(crate) fn get(&self, i: usize) -> Option<&T> {
        match self.slot(i)? {
            Slot::Busy(value) => Some(value),
            Slot::Free { .. } => None,
        }
    }

    /// Messages in flight.
    pub(crate) fn in_use(&self) -> usize {
        self.len - self.free_count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The slot numbers of a vector with a separate last-in-first-out free list.
    #[test]
    fn reuses_the_last_freed_slot_like_a_vector_with_a_free_list() {
        let mut slots = Slots::new();
        let (mut plain, mut free): (Vec<Option<u32>>, Vec<usize>) = (Vec::new(), Vec::new());
        let mut x = 12345u32;
        for step in 0..50_000u32 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let busy: Vec<usize> = (0..plain.len()).filter(|&i| plain[i].is_some()).collect();
            if x % 3 == 0 && !busy.is_empty() {
                let i = busy[x as usize % busy.len()];
                assert_eq!(slots.take(i), plain[i].take());
                free.push(i);
            } else {
                let i = match free.pop() {
                    Some(i) => {
                        plain[i] = Some(step);
                        i
                    }
                    None => {
                        plain.push(Some(step));
                        plain.len() - 1
                    }
                };
                assert_eq!(slots.insert(step), i);
            }
            assert_eq!(slots.in_use(), plain.iter().filter(|v| v.is_some()).count());
        }
        for (i, v) in plain.iter().enumerate() {
            assert_eq!(slots.get(i), v.as_ref());
        }
        assert_eq!(slots.take(plain.len() + 5), None);
    }
}
