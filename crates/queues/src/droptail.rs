//! Drop-tail FIFO: the baseline every RuN/RuN2C gain is measured against.

use crate::{initial_capacity, Discipline, Nanos, Packet};
use std::collections::VecDeque;

/// First-in first-out; the arriving packet is dropped when storing it would exceed the packet
/// limit or the byte limit.
#[derive(Debug, Clone)]
pub struct DropTail<T> {
    limit_packets: usize,
    limit_bytes: u64,
    q: VecDeque<Packet<T>>,
    bytes: u64,
}

impl<T> DropTail<T> {
    /// An empty FIFO holding at most `limit` packets (0: every arrival is dropped).
    pub fn new(limit: usize) -> Self {
        DropTail {
            limit_packets: limit,
            limit_bytes: u64::MAX,
            q: VecDeque::with_capacity(initial_capacity(limit)),
            bytes: 0,
        }
    }

    /// An empty FIFO holding at most `limit` wire bytes.
    pub fn with_byte_limit(limit: u64) -> Self {
        DropTail {
            limit_packets: usize::MAX,
            limit_bytes: limit,
            q: VecDeque::with_capacity(64),
            bytes: 0,
        }
    }

    /// An empty FIFO that never drops (for links that are never meant to; memory grows with
    /// what the driver offers).
    pub fn unlimited() -> Self {
        Self::with_byte_limit(u64::MAX)
    }
}

impl<T> Discipline<T> for DropTail<T> {
    #[inline]
    fn enqueue(&mut self, pkt: Packet<T>, _now: Nanos, dropped: &mut Vec<Packet<T>>) {
        let size = u64::from(pkt.size);
        if self.q.len() < self.limit_packets && self.bytes.saturating_add(size) <= self.limit_bytes
        {
            self.bytes += size;
            self.q.push_back(pkt);
        } else {
            dropped.push(pkt);
        }
    }

    #[inline]
    fn dequeue(&mut self, _now: Nanos) -> Option<Packet<T>> {
        let p = self.q.pop_front()?;
        self.bytes -= u64::from(p.size);
        Some(p)
    }

    fn len_packets(&self) -> usize {
        self.q.len()
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{items, p};

    #[test]
    fn drops_the_arrival_when_full_and_serves_in_arrival_order() {
        let mut q = DropTail::new(2);
        let mut d = Vec::new();
        q.enqueue(p(0, 1, 9000), 0, &mut d);
        q.enqueue(p(1, 2, 0), 0, &mut d);
        q.enqueue(p(2, 3, 0), 0, &mut d); // full: the arrival goes, whatever its number
        assert_eq!(items(&d), vec![2]);
        assert_eq!((q.len_packets(), q.len_bytes()), (2, 3000));
        assert_eq!(q.dequeue(0).map(|p| p.item), Some(0));
        assert_eq!(q.dequeue(0).map(|p| p.item), Some(1));
        assert_eq!(q.dequeue(0), None);
        assert_eq!(q.len_bytes(), 0);
    }

    #[test]
    fn byte_limit_counts_sizes() {
        let mut q = DropTail::with_byte_limit(1540);
        let mut d = Vec::new();
        let sized = |item, size| Packet {
            size,
            ..p(item, 0, 0)
        };
        q.enqueue(sized(0, 1500), 0, &mut d);
        q.enqueue(sized(1, 1500), 0, &mut d); // would exceed
        q.enqueue(sized(2, 40), 0, &mut d); // fits exactly
        assert_eq!(items(&d), vec![1]);
        assert_eq!((q.len_packets(), q.len_bytes()), (2, 1540));
    }

    #[test]
    fn zero_limit_drops_everything() {
        let mut q = DropTail::new(0);
        let mut d = Vec::new();
        q.enqueue(p(0, 0, 0), 0, &mut d);
        assert_eq!(items(&d), vec![0]);
        assert!(q.is_empty());
    }
}
