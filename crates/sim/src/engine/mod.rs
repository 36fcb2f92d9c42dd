//! The discrete-event engine: a priority queue of events keyed by `(time, sequence)`.
//!
//! Events scheduled for the same instant fire in the order they were scheduled (the
//! sequence number breaks ties), so a run is a pure function of its inputs and seed.
//! The queue is a binary heap over a `Vec` that is reused for the whole run: after the
//! warm-up no event costs an allocation.

mod rng;

pub use rng::rng_stream;

use crate::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Everything that can happen in the simulator. Kept small (16 bytes) and `Copy`:
/// packets travel as indices into the packet pool, never by value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// Link `link` finished serialising its current packet: start the next one.
    TxDone {
        /// The link.
        link: u32,
    },
    /// Packet `pkt` reaches the far end of link `link` (after serialisation + propagation).
    Arrive {
        /// The link.
        link: u32,
        /// The packet's pool index.
        pkt: u32,
    },
    /// Retransmission timer of the connection in slot `slot` (valid if `gen` matches).
    Rto {
        /// Connection slot.
        slot: u32,
        /// Timer generation.
        gen: u32,
    },
    /// Delayed-ACK timer of the connection in slot `slot` (valid if `gen` matches).
    DelAck {
        /// Connection slot.
        slot: u32,
        /// Timer generation.
        gen: u32,
    },
    /// Periodic sampling of the number of active connections.
    Sample,
    /// A timer the driver asked for, with its own token.
    Driver {
        /// The driver's token.
        token: u64,
    },
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    time: Time,
    seq: u64,
    ev: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    // Reversed: `BinaryHeap` is a max-heap and we want the earliest event first.
    fn cmp(&self, o: &Self) -> Ordering {
        o.time.cmp(&self.time).then(o.seq.cmp(&self.seq))
    }
}

/// Future-event list ordered by `(time, insertion sequence)`.
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    seq: u64,
}

impl EventQueue {
    /// An empty queue with room for `cap` pending events.
    pub fn with_capacity(cap: usize) -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(cap),
            seq: 0,
        }
    }

    /// Schedules `ev` at `time`.
    #[inline]
    pub fn push(&mut self, time: Time, ev: Event) {
        let seq = self.seq;
        self.seq += 1;
        self.heap.push(Entry { time, seq, ev });
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        self.heap.pop().map(|e| (e.time, e.ev))
    }

    /// Time of the earliest event.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.time)
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Total number of events ever scheduled.
    pub fn scheduled(&self) -> u64 {
        self.seq
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_then_fifo_order() {
        let mut q = EventQueue::with_capacity(4);
        q.push(20, Event::Driver { token: 1 });
        q.push(10, Event::Driver { token: 2 });
        q.push(20, Event::Driver { token: 3 });
        q.push(10, Event::Driver { token: 4 });
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (10, Event::Driver { token: 2 }),
                (10, Event::Driver { token: 4 }),
                (20, Event::Driver { token: 1 }),
                (20, Event::Driver { token: 3 }),
            ]
        );
        assert_eq!(q.scheduled(), 4);
        assert!(q.is_empty());
    }

    #[test]
    fn event_is_small() {
        assert!(std::mem::size_of::<Event>() <= 16);
    }
}
