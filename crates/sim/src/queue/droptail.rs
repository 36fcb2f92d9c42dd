//! Drop-tail FIFO, limited in packets or in bytes.

use super::Queue;
use crate::packet::{Packet, PacketId};
use crate::time::Time;
use std::collections::VecDeque;

/// Capacity of a [`DropTail`] queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// At most this many packets stored.
    Packets(usize),
    /// At most this many wire bytes stored.
    Bytes(u64),
    /// No limit.
    Unlimited,
}

/// First-in first-out queue that drops the arriving packet when it would exceed the limit.
#[derive(Debug)]
pub struct DropTail {
    limit: Limit,
    q: VecDeque<(PacketId, u32)>,
    bytes: u64,
}

impl DropTail {
    /// An empty queue with capacity `limit`.
    pub fn new(limit: Limit) -> Self {
        let cap = match limit {
            Limit::Packets(n) => n.min(1 << 16),
            _ => 64,
        };
        DropTail {
            limit,
            q: VecDeque::with_capacity(cap),
            bytes: 0,
        }
    }
}

impl Queue for DropTail {
    #[inline]
    fn enqueue(&mut self, id: PacketId, pkt: &Packet, _now: Time, dropped: &mut Vec<PacketId>) {
        let fits = match self.limit {
            Limit::Packets(n) => self.q.len() < n,
            Limit::Bytes(b) => self.bytes + pkt.size as u64 <= b,
            Limit::Unlimited => true,
        };
        if fits {
            self.q.push_back((id, pkt.size));
            self.bytes += pkt.size as u64;
        } else {
            dropped.push(id);
        }
    }

    #[inline]
    fn dequeue(&mut self, _now: Time) -> Option<PacketId> {
        let (id, size) = self.q.pop_front()?;
        self.bytes -= size as u64;
        Some(id)
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

    fn pkt(size: u32) -> Packet {
        Packet {
            size,
            ..Packet::EMPTY
        }
    }

    #[test]
    fn packet_limit_drops_tail() {
        let mut q = DropTail::new(Limit::Packets(2));
        let mut d = Vec::new();
        for i in 0..3 {
            q.enqueue(PacketId(i), &pkt(100), 0, &mut d);
        }
        assert_eq!(d, vec![PacketId(2)]);
        assert_eq!(q.len_packets(), 2);
        assert_eq!(q.len_bytes(), 200);
        assert_eq!(q.dequeue(0), Some(PacketId(0)));
        assert_eq!(q.dequeue(0), Some(PacketId(1)));
        assert_eq!(q.dequeue(0), None);
        assert_eq!(q.len_bytes(), 0);
    }

    #[test]
    fn byte_limit_counts_sizes() {
        let mut q = DropTail::new(Limit::Bytes(1540));
        let mut d = Vec::new();
        q.enqueue(PacketId(0), &pkt(1500), 0, &mut d);
        q.enqueue(PacketId(1), &pkt(1500), 0, &mut d); // would exceed
        q.enqueue(PacketId(2), &pkt(40), 0, &mut d); // fits exactly
        assert_eq!(d, vec![PacketId(1)]);
        assert_eq!(q.len_packets(), 2);
        assert_eq!(q.len_bytes(), 1540);
    }
}
