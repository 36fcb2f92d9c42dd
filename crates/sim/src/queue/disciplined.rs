//! The simulator's side of the `queues` crate: a thin adapter that hands each packet's flow,
//! size and running number to a sans-IO discipline and maps its answers back to packet ids.

use super::Queue;
use crate::packet::{Packet, PacketId, PacketKind};
use crate::time::Time;
use queues::Discipline;

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

/// A [`queues::Discipline`] at a simulated link head.
#[derive(Debug)]
pub struct Disciplined<D> {
    inner: D,
    /// Stateless classification: running numbers read from the wire sequence number's place
    /// in its PIN block ([`queues::PinScheme::running_number`]) instead of the flow's offset.
    pin: Option<queues::PinScheme>,
    /// What the discipline dropped on the last enqueue (reused: no allocation per packet).
    scratch: Vec<queues::Packet<PacketId>>,
}

/// Drop-tail FIFO ([`queues::DropTail`]) at a simulated link head.
pub type DropTail = Disciplined<queues::DropTail<PacketId>>;

impl DropTail {
    /// An empty drop-tail queue with capacity `limit`.
    pub fn new(limit: Limit) -> Self {
        Disciplined::over(match limit {
            Limit::Packets(n) => queues::DropTail::new(n),
            Limit::Bytes(b) => queues::DropTail::with_byte_limit(b),
            Limit::Unlimited => queues::DropTail::unlimited(),
        })
    }
}

impl<D> Disciplined<D> {
    /// Drives `inner`.
    pub fn over(inner: D) -> Self {
        Disciplined {
            inner,
            pin: None,
            scratch: Vec::with_capacity(4),
        }
    }

    /// Drives `inner` with the running numbers a stateless router reads from the wire
    /// sequence numbers under `scheme` (data packets; 0 for the others).
    pub fn by_pin(inner: D, scheme: queues::PinScheme) -> Self {
        Disciplined {
            pin: Some(scheme),
            ..Self::over(inner)
        }
    }
}

/// The running number of a simulated packet: its sequence offset in the flow (bytes of the
/// connection sent before it, which the sender knows and an edge router learns from the SYN,
/// paper 003 footnote 3). Packets without payload (SYN, SYN-ACK, pure ACK) count as 0.
#[inline]
pub fn running_number(pkt: &Packet) -> u64 {
    match pkt.kind {
        PacketKind::Data => pkt.seq,
        PacketKind::Syn | PacketKind::SynAck | PacketKind::HandshakeAck | PacketKind::Ack => 0,
    }
}

impl<D: Discipline<PacketId>> Queue for Disciplined<D> {
    #[inline]
    fn enqueue(&mut self, id: PacketId, pkt: &Packet, now: Time, dropped: &mut Vec<PacketId>) {
        let p = queues::Packet {
            item: id,
            flow: u64::from(pkt.conn.serial),
            size: pkt.size,
            run: match (self.pin, pkt.kind) {
                (None, _) => running_number(pkt),
                (Some(s), PacketKind::Data) => s.running_number(pkt.wire_seq),
                (Some(_), _) => 0,
            },
        };
        self.inner.enqueue(p, now, &mut self.scratch);
        dropped.extend(self.scratch.drain(..).map(|p| p.item));
    }

    #[inline]
    fn dequeue(&mut self, now: Time) -> Option<PacketId> {
        self.inner.dequeue(now).map(|p| p.item)
    }

    fn len_packets(&self) -> usize {
        self.inner.len_packets()
    }

    fn len_bytes(&self) -> u64 {
        self.inner.len_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::ConnId;

    fn data(serial: u32, seq: u64) -> Packet {
        Packet {
            kind: PacketKind::Data,
            conn: ConnId { slot: 0, serial },
            seq,
            len: 1460,
            size: 1500,
            ..Packet::EMPTY
        }
    }

    #[test]
    fn packet_limit_drops_tail() {
        let mut q = DropTail::new(Limit::Packets(2));
        let mut d = Vec::new();
        for i in 0..3 {
            q.enqueue(PacketId(i), &data(0, 0), 0, &mut d);
        }
        assert_eq!(d, vec![PacketId(2)]);
        assert_eq!((q.len_packets(), q.len_bytes()), (2, 3000));
        assert_eq!(q.dequeue(0), Some(PacketId(0)));
        assert_eq!(q.dequeue(0), Some(PacketId(1)));
        assert_eq!(q.dequeue(0), None);
    }

    /// The running number the adapter hands over is the sequence offset: RuN serves a new
    /// flow's first segment before a long flow's, and pushes out the long flow's tail.
    #[test]
    fn run_sees_sequence_offsets_and_push_out_reaches_the_caller() {
        let mut q = Disciplined::over(queues::Run::new(2));
        let mut d = Vec::new();
        q.enqueue(PacketId(0), &data(1, 100 * 1460), 0, &mut d);
        q.enqueue(PacketId(1), &data(1, 101 * 1460), 0, &mut d);
        let syn = Packet {
            kind: PacketKind::Syn,
            seq: 77_777, // ignored: no payload
            ..data(2, 0)
        };
        q.enqueue(PacketId(2), &syn, 0, &mut d);
        assert_eq!(d, vec![PacketId(1)]);
        assert_eq!(q.dequeue(0), Some(PacketId(2)));
        assert_eq!(q.dequeue(0), Some(PacketId(0)));
    }
}
