//! Giving back the room a burst left in a queue: a `Vec` or `VecDeque` keeps the capacity of
//! its largest content for ever, so one burst (4 000 connections whose keepalives fall due
//! together, thousands of flows acknowledged in one read) would leave each session holding
//! room for it until the session ends. The session's and the admission's queues call
//! `give_back` where they drain. (`BTreeMap` and `BTreeSet` free their nodes as they shrink.)

use std::collections::VecDeque;

/// Slots a queue keeps at least once it shrank, and below which it is never shrunk: a session
/// whose queues all sit at the floor holds 64 × (56 + 8 + 56) bytes (events, control flows,
/// stale replies on x86_64), about 7.5 KiB, and a queue that only ever holds a few dozen
/// entries is never reallocated.
///
/// The rule, with this floor (`give_back`): when a queue holds less than a quarter of its
/// capacity and that capacity is above the floor, it is shrunk to twice what it holds (at
/// least the floor). Between two reallocations (a shrink, or the growth that follows one) a
/// queue lost at least half of what it held or doubled it, so each costs amortised constant
/// time per entry pushed or popped, and a queue whose content moves within a factor of four
/// is never reallocated, however often it is looked at. A queue that is drained to empty and
/// filled past the floor again each time is reallocated twice per fill: amortised over the
/// more than 64 entries pushed.
pub const ROOM_FLOOR: usize = 64;

/// A queue whose room can be given back.
pub(crate) trait Room {
    fn held(&self) -> usize;
    fn room(&self) -> usize;
    fn shrink_room_to(&mut self, min: usize);
}

impl<T> Room for Vec<T> {
    fn held(&self) -> usize {
        self.len()
    }
    fn room(&self) -> usize {
        self.capacity()
    }
    fn shrink_room_to(&mut self, min: usize) {
        self.shrink_to(min);
    }
}

impl<T> Room for VecDeque<T> {
    fn held(&self) -> usize {
        self.len()
    }
    fn room(&self) -> usize {
        self.capacity()
    }
    fn shrink_room_to(&mut self, min: usize) {
        self.shrink_to(min);
    }
}

/// Gives back the room of `q` if it holds less than a quarter of it and has more than
/// [`ROOM_FLOOR`] slots: shrinks it to twice what it holds, at least the floor. Constant time
/// unless it shrinks (then linear in what it holds).
#[inline]
pub(crate) fn give_back<Q: Room>(q: &mut Q) {
    let room = q.room();
    if room > ROOM_FLOOR && q.held() < room / 4 {
        q.shrink_room_to((2 * q.held()).max(ROOM_FLOOR));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drained_queue_goes_back_to_the_floor_and_a_small_one_is_left_alone() {
        let mut q: VecDeque<u64> = (0..4000).collect();
        assert!(q.capacity() >= 4000);
        while q.pop_front().is_some() {
            give_back(&mut q);
        }
        assert_eq!(q.capacity(), ROOM_FLOOR);
        let mut small: Vec<u8> = Vec::with_capacity(ROOM_FLOOR);
        small.push(1);
        give_back(&mut small);
        assert_eq!(small.capacity(), ROOM_FLOOR, "the floor is kept");
    }

    #[test]
    fn shrinking_leaves_twice_the_content_and_a_queue_within_a_factor_of_four_stays() {
        let mut q: Vec<u32> = Vec::with_capacity(1024);
        q.extend(0..300);
        give_back(&mut q);
        assert_eq!(q.capacity(), 1024, "300 of 1024 is above a quarter");
        q.truncate(200);
        give_back(&mut q);
        assert_eq!(q.capacity(), 400, "below a quarter: twice the content");
        // Between 101 and 400 entries it is never reallocated again.
        for n in [101, 400, 101, 400] {
            q.resize(n, 0);
            give_back(&mut q);
            assert_eq!(q.capacity(), 400);
        }
        q.truncate(99);
        give_back(&mut q);
        assert_eq!(q.capacity(), 198);
    }
}
