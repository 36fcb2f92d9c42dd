//! Packets and the packet pool.
//!
//! A packet is a header only (payload bytes are never materialised): who sent it, to whom,
//! which connection, TCP sequence/acknowledgement numbers, sizes, and the metadata router
//! disciplines need (the connection's running packet number and the TCP sequence number of
//! the first payload byte, as RuN/RuN2C use them). Packets live in a [`PacketPool`] and
//! travel through events and queues as [`PacketId`]s, so the hot path never allocates.

use crate::time::Time;

/// A node of the topology.
pub type NodeId = u32;
/// A unidirectional link of the topology.
pub type LinkId = u32;

/// Index of a packet in the [`PacketPool`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PacketId(pub u32);

/// A connection handle: the slot in the connection table plus a serial number unique over
/// the whole run. A handle whose serial no longer matches its slot refers to a closed
/// connection (packets still in flight for it are discarded on arrival).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct ConnId {
    /// Slot in the connection table (reused after close).
    pub slot: u32,
    /// Unique, increasing ordinal of the connection in the run (0, 1, 2, ...).
    pub serial: u32,
}

/// Opaque value a driver attaches to a data segment when it leaves the sender; it travels
/// with the packet and is handed back to the driver at the receiver. The simulator never
/// interprets it. See `DRIVERS.md`.
pub type PayloadTag = u64;

/// What a packet is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PacketKind {
    /// Connection request (carries no payload; occupies no sequence number in this model).
    Syn,
    /// Connection accept.
    SynAck,
    /// Payload `[seq, seq + len)`.
    Data,
    /// Pure cumulative acknowledgement of everything below `ack`.
    Ack,
    /// The third packet of the handshake: the sender's ACK of the SYN-ACK (carries no data;
    /// it occupies a buffer slot on the data path, as in ns-3 and Linux).
    HandshakeAck,
}

/// The header every packet carries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Packet {
    /// Kind of packet.
    pub kind: PacketKind,
    /// Whether this data segment is a retransmission (its bytes were sent before).
    pub retx: bool,
    /// Traffic class, free for priority disciplines (0 by default).
    pub class: u8,
    /// Sending host.
    pub src: NodeId,
    /// Destination host.
    pub dst: NodeId,
    /// Connection the packet belongs to.
    pub conn: ConnId,
    /// Sequence number of the first payload byte (data), relative to the connection start.
    pub seq: u64,
    /// Data: the 32-bit sequence number on the wire, the connection's initial sequence number
    /// plus `seq` modulo 2^32. The ISN is 0 (as ns-2's) unless the senders pick PIN initial
    /// numbers (`tcp.pin_isn`, paper 003 Section III); what a stateless router reads.
    pub wire_seq: u32,
    /// Cumulative acknowledgement (ACK, SYN-ACK): next byte expected.
    pub ack: u64,
    /// Payload bytes.
    pub len: u32,
    /// Bytes on the wire (payload + headers): what links serialise and byte queues count.
    pub size: u32,
    /// Running number of this data packet within its connection (0 for the first data
    /// packet, retransmissions included), for RuN-style disciplines.
    pub pkt_no: u32,
    /// The driver's payload tag (data packets).
    pub tag: PayloadTag,
    /// When the packet left its sending host.
    pub sent_at: Time,
    /// SACK blocks of an ACK, as offsets `[start, end)` above `ack` (RFC 2018; `(0, 0)`:
    /// none). Offsets fit in 32 bits because a window never spans 4 GB.
    pub sack: [(u32, u32); 3],
    /// ACKs: one-way delay of the data packet that triggered this ACK (its arrival at the
    /// receiver − its `sent_at`), the timestamp echo delay-based senders (LEDBAT, TCP-LP)
    /// need; 0 if none. The simulated hosts share one clock, so this is the true one-way
    /// delay; both algorithms only use differences of it, as with unsynchronised clocks.
    pub echo_owd: Time,
    /// Data: a bottleneck marked it congestion-experienced (RFC 3168 CE).
    pub ce: bool,
    /// ACKs: the receiver echoes a CE mark (RFC 3168 ECE).
    pub ece: bool,
}

impl Packet {
    /// A zeroed header, convenient as a base for struct update syntax.
    pub const EMPTY: Packet = Packet {
        kind: PacketKind::Ack,
        retx: false,
        class: 0,
        src: 0,
        dst: 0,
        conn: ConnId { slot: 0, serial: 0 },
        seq: 0,
        wire_seq: 0,
        ack: 0,
        len: 0,
        size: 0,
        pkt_no: 0,
        tag: 0,
        sent_at: 0,
        sack: [(0, 0); 3],
        echo_owd: 0,
        ce: false,
        ece: false,
    };
}

/// A slab of packets with a free list: `alloc` reuses freed slots, so once the number of
/// packets in flight has peaked no further allocation happens.
#[derive(Debug, Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    free: Vec<u32>,
}

impl PacketPool {
    /// A pool with room for `cap` packets before it grows.
    pub fn with_capacity(cap: usize) -> Self {
        PacketPool {
            slots: Vec::with_capacity(cap),
            free: Vec::with_capacity(cap),
        }
    }

    /// Stores `p` and returns its id.
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> PacketId {
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = p;
                PacketId(i)
            }
            None => {
                self.slots.push(p);
                PacketId((self.slots.len() - 1) as u32)
            }
        }
    }

    /// The packet `id`, to change (a router marking it).
    #[inline]
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id.0 as usize]
    }

    /// The packet `id`.
    #[inline]
    pub fn get(&self, id: PacketId) -> &Packet {
        &self.slots[id.0 as usize]
    }

    /// Returns `id`'s slot to the pool.
    #[inline]
    pub fn free(&mut self, id: PacketId) {
        debug_assert!(!self.free.contains(&id.0), "double free of packet {}", id.0);
        self.free.push(id.0);
    }

    /// Number of packets currently allocated.
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Largest number of packets ever alive at once.
    pub fn high_water(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_reuses_slots() {
        let mut p = PacketPool::with_capacity(2);
        let a = p.alloc(Packet {
            seq: 1,
            ..Packet::EMPTY
        });
        let b = p.alloc(Packet {
            seq: 2,
            ..Packet::EMPTY
        });
        assert_eq!(p.live(), 2);
        p.free(a);
        let c = p.alloc(Packet {
            seq: 3,
            ..Packet::EMPTY
        });
        assert_eq!(c, a);
        assert_eq!(p.get(c).seq, 3);
        assert_eq!(p.get(b).seq, 2);
        assert_eq!(p.high_water(), 2);
    }
}
