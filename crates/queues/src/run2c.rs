//! RuN2C: two classes by running number against a threshold (paper 003, Sections II-C, IV).

use crate::{initial_capacity, Discipline, Nanos, Packet};
use std::collections::VecDeque;

/// Two FIFO classes: class 1 holds packets whose running number is below `threshold` (bytes),
/// class 2 the rest; class 2 is served only when class 1 is empty. An arriving packet is always
/// admitted; when that makes more than `limit` packets, the last packet of the lowest non-empty
/// class is pushed out (Section IV). At flow level this is PS+PS (Section II-C).
#[derive(Debug, Clone)]
pub struct Run2c<T> {
    limit: usize,
    threshold: u64,
    high: VecDeque<Packet<T>>,
    low: VecDeque<Packet<T>>,
    bytes: u64,
}

impl<T> Run2c<T> {
    /// An empty RuN2C buffer of `limit` packets (0: every arrival is pushed out at once) with
    /// the class threshold `threshold` in bytes of running number (the paper's th; 20 packets
    /// in Section IV).
    pub fn new(limit: usize, threshold: u64) -> Self {
        Run2c {
            limit,
            threshold,
            high: VecDeque::with_capacity(initial_capacity(limit)),
            low: VecDeque::with_capacity(initial_capacity(limit)),
            bytes: 0,
        }
    }

    /// The threshold in bytes.
    pub fn threshold(&self) -> u64 {
        self.threshold
    }

    /// Whether a running number falls in the first (priority) class.
    #[inline]
    pub fn is_priority(&self, run: u64) -> bool {
        run < self.threshold
    }
}

impl<T> Discipline<T> for Run2c<T> {
    #[inline]
    fn enqueue(&mut self, pkt: Packet<T>, _now: Nanos, dropped: &mut Vec<Packet<T>>) {
        self.bytes += u64::from(pkt.size);
        if self.is_priority(pkt.run) {
            self.high.push_back(pkt);
        } else {
            self.low.push_back(pkt);
        }
        if self.high.len() + self.low.len() > self.limit {
            let tail = match self.low.pop_back() {
                Some(t) => Some(t),
                None => self.high.pop_back(),
            };
            if let Some(t) = tail {
                self.bytes -= u64::from(t.size);
                dropped.push(t);
            }
        }
    }

    #[inline]
    fn dequeue(&mut self, _now: Nanos) -> Option<Packet<T>> {
        let p = match self.high.pop_front() {
            Some(p) => p,
            None => self.low.pop_front()?,
        };
        self.bytes -= u64::from(p.size);
        Some(p)
    }

    fn len_packets(&self) -> usize {
        self.high.len() + self.low.len()
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{items, p};

    const TH: u64 = 20 * 1460;

    #[test]
    fn strict_priority_fifo_inside_each_class() {
        let mut q = Run2c::new(10, TH);
        let mut d = Vec::new();
        q.enqueue(p(0, 1, TH), 0, &mut d); // low (exactly th is past the threshold)
        q.enqueue(p(1, 2, 5 * 1460), 0, &mut d); // high
        q.enqueue(p(2, 1, 40 * 1460), 0, &mut d); // low
        q.enqueue(p(3, 3, TH - 1), 0, &mut d); // high
        q.enqueue(p(4, 4, 0), 0, &mut d); // high, arrived last
        assert!(d.is_empty());
        let order: Vec<u32> = std::iter::from_fn(|| q.dequeue(0).map(|p| p.item)).collect();
        // High class in arrival order (not by number: that is RuN), then low in arrival order.
        assert_eq!(order, vec![1, 3, 4, 0, 2]);
    }

    #[test]
    fn full_buffer_pushes_out_the_tail_of_the_lowest_class() {
        let mut q = Run2c::new(3, TH);
        let mut d = Vec::new();
        q.enqueue(p(0, 1, 0), 0, &mut d); // high
        q.enqueue(p(1, 2, TH + 1), 0, &mut d); // low
        q.enqueue(p(2, 3, TH * 5), 0, &mut d); // low
        q.enqueue(p(3, 4, 1460), 0, &mut d); // high: admitted, last low (2) pushed out
        assert_eq!(items(&d), vec![2]);
        q.enqueue(p(4, 5, TH * 2), 0, &mut d); // low arrival is itself the low tail
        assert_eq!(items(&d), vec![2, 4]);
        q.enqueue(p(5, 6, 0), 0, &mut d); // high: pushes out the remaining low (1)
        assert_eq!(items(&d), vec![2, 4, 1]);
        q.enqueue(p(6, 7, 0), 0, &mut d); // only high left: the last high (6 itself) goes
        assert_eq!(items(&d), vec![2, 4, 1, 6]);
        assert_eq!((q.len_packets(), q.len_bytes()), (3, 4500));
        let order: Vec<u32> = std::iter::from_fn(|| q.dequeue(0).map(|p| p.item)).collect();
        assert_eq!(order, vec![0, 3, 5]);
    }

    #[test]
    fn zero_threshold_is_one_fifo_with_push_out() {
        let mut q = Run2c::new(2, 0);
        let mut d = Vec::new();
        for i in 0..3 {
            q.enqueue(p(i, 1, 0), 0, &mut d);
        }
        assert_eq!(items(&d), vec![2]);
        assert_eq!(q.dequeue(0).map(|p| p.item), Some(0));
    }
}
