//! Unit tests of the event queue: lists read as lists of entries, far timer generations, the
//! documented order, equality and hashing as the canonical lists, carried deliveries.

use super::carried::SEGMENT;
use super::*;
use alloc::collections::VecDeque;
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
        let mut push =
            |queue: &mut Queue<()>, reference: &mut Vec<_>, time: Time, rng: &mut SplitMix64| {
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
