//! The deliveries of an instant that carry their messages ([`Carried`]), in segments that keep
//! each run of equal messages once: what a dual-port run whose crashes are all known takes
//! instead of an arrival event and a message slot per message (the crate documentation,
//! "Arrivals taken at the send").

use alloc::collections::VecDeque;
use alloc::vec::Vec;
use core::hash::Hash;

use ftcoll::Rank;

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
pub(super) const SEGMENT: usize = 1 << 10;

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
    pub(super) segments: VecDeque<Segment<M>>,
}

/// Up to [`SEGMENT`] deliveries of a [`Carried`] list.
#[derive(Clone, Debug)]
pub(super) struct Segment<M> {
    /// Each delivery's receiver and sender, in order.
    pub(super) pairs: Vec<(Rank, Rank)>,
    /// Bit `i`: delivery `i` starts a run (its message differs from the one before).
    starts: [u64; SEGMENT / 64],
    /// The message of each run, in order; those of consumed runs taken out (`None`).
    pub(super) msgs: Vec<Option<M>>,
    /// The run of `head`: its index in `msgs`.
    pub(super) run: usize,
    /// Deliveries before this one are consumed (fewer than `pairs`: a consumed segment is
    /// dropped).
    pub(super) head: usize,
}

impl<M> Default for Carried<M> {
    fn default() -> Self {
        Self {
            segments: VecDeque::new(),
        }
    }
}

impl<M> Segment<M> {
    pub(super) fn starts_run(&self, i: usize) -> bool {
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
    pub(super) fn push_back(&mut self, delivery: Delivery<M>) {
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
    pub(super) fn pop_front(&mut self) -> Option<Delivery<M>> {
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
            // half of it, which at large P is a visible share of the peak).
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
    pub(super) fn clear(&mut self) {
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
