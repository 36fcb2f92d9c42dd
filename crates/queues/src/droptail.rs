//! Drop-tail FIFO: the baseline every RuN/RuN2C gain is measured against.

use crate::{check_limit, initial_capacity, BuildError, Discipline, Nanos, Packet};
use std::collections::VecDeque;

/// First-in first-out; the arriving packet is dropped when `limit` packets are stored.
#[derive(Debug, Clone)]
pub struct DropTail<T> {
    limit: usize,
    q: VecDeque<Packet<T>>,
    bytes: u64,
}

impl<T> DropTail<T> {
    /// An empty FIFO holding at most `limit` packets (`limit ≥ 1`).
    pub fn new(limit: usize) -> Result<Self, BuildError> {
        let limit = check_limit(limit)?;
        Ok(DropTail {
            limit,
            q: VecDeque::with_capacity(initial_capacity(limit)),
            bytes: 0,
        })
    }

    /// An empty FIFO that never drops (for links that are never meant to; memory grows with
    /// what the driver offers).
    pub fn unlimited() -> Self {
        DropTail {
            limit: usize::MAX,
            q: VecDeque::with_capacity(64),
            bytes: 0,
        }
    }
}

impl<T> Discipline<T> for DropTail<T> {
    #[inline]
    fn enqueue(&mut self, pkt: Packet<T>, _now: Nanos, dropped: &mut Vec<Packet<T>>) {
        if self.q.len() < self.limit {
            self.bytes += u64::from(pkt.size);
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
        let mut q = DropTail::new(2).unwrap();
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
    fn zero_limit_is_refused() {
        assert_eq!(DropTail::<u32>::new(0).unwrap_err(), BuildError::ZeroLimit);
    }
}
