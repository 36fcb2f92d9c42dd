//! RuN: LAS at packet level (paper 003, Sections II-A and IV).

use crate::{Discipline, Nanos, Packet};
use std::collections::BTreeMap;

/// Serves packets in ascending running number (ties in arrival order). An arriving packet is
/// always placed in the buffer; when that makes more than `limit` packets, the tail — the
/// largest running number, the latest arrival among equals — is pushed out (Section IV).
#[derive(Debug, Clone)]
pub struct Run<T> {
    limit: usize,
    /// Keyed by (running number, arrival order): iteration order is service order.
    q: BTreeMap<(u64, u64), Packet<T>>,
    arrivals: u64,
    bytes: u64,
}

impl<T> Run<T> {
    /// An empty RuN buffer of `limit` packets (0: every arrival is pushed out at once).
    pub fn new(limit: usize) -> Self {
        Run {
            limit,
            q: BTreeMap::new(),
            arrivals: 0,
            bytes: 0,
        }
    }
}

impl<T> Discipline<T> for Run<T> {
    fn enqueue(&mut self, pkt: Packet<T>, _now: Nanos, dropped: &mut Vec<Packet<T>>) {
        self.bytes += u64::from(pkt.size);
        self.q.insert((pkt.run, self.arrivals), pkt);
        self.arrivals += 1;
        if self.q.len() > self.limit {
            if let Some((_, tail)) = self.q.pop_last() {
                self.bytes -= u64::from(tail.size);
                dropped.push(tail);
            }
        }
    }

    fn dequeue(&mut self, _now: Nanos) -> Option<Packet<T>> {
        let (_, p) = self.q.pop_first()?;
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
    fn serves_least_attained_service_first_fifo_among_equals() {
        let mut q = Run::new(10);
        let mut d = Vec::new();
        // A long flow's 30th packet, two new flows' first packets, a second packet.
        q.enqueue(p(0, 1, 30 * 1460), 0, &mut d);
        q.enqueue(p(1, 2, 0), 0, &mut d);
        q.enqueue(p(2, 3, 1460), 0, &mut d);
        q.enqueue(p(3, 4, 0), 0, &mut d);
        assert!(d.is_empty());
        let order: Vec<u32> = std::iter::from_fn(|| q.dequeue(0).map(|p| p.item)).collect();
        assert_eq!(order, vec![1, 3, 2, 0]);
    }

    #[test]
    fn full_buffer_pushes_out_the_largest_running_number() {
        let mut q = Run::new(3);
        let mut d = Vec::new();
        q.enqueue(p(0, 1, 5000), 0, &mut d);
        q.enqueue(p(1, 1, 6500), 0, &mut d);
        q.enqueue(p(2, 2, 100), 0, &mut d);
        // Arrival with a small number: admitted, the tail (6500) goes.
        q.enqueue(p(3, 3, 0), 0, &mut d);
        assert_eq!(items(&d), vec![1]);
        // Arrival with the largest number: it is itself the tail.
        q.enqueue(p(4, 1, 9000), 0, &mut d);
        assert_eq!(items(&d), vec![1, 4]);
        // Equal numbers: the later arrival is the tail.
        q.enqueue(p(5, 5, 5000), 0, &mut d);
        assert_eq!(items(&d), vec![1, 4, 5]);
        assert_eq!((q.len_packets(), q.len_bytes()), (3, 4500));
        let order: Vec<u32> = std::iter::from_fn(|| q.dequeue(0).map(|p| p.item)).collect();
        assert_eq!(order, vec![3, 2, 0]);
        assert_eq!(q.len_bytes(), 0);
    }
}
