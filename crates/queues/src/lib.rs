//! Router packet disciplines of paper 003 (RuN and RuN2C), sans-IO.
//!
//! A discipline stores packets offered to an output link and says which one to send next.
//! It is driven with packets and `now` in, and hands back the packet to send or the packets it
//! dropped; it never touches a clock, a socket or a device. The simulator (`sim`) drives it at
//! its bottleneck; a router on real packets can drive the same code.
//!
//! - [`DropTail`]: FIFO, the arriving packet is dropped when the buffer is full (the baseline).
//! - [`Run`]: packets served in ascending *running number* — the bytes of the flow sent before
//!   the packet — i.e. LAS at packet level (paper 003, Section II-A, "RuN").
//! - [`Run2c`]: two classes by comparing the running number with a threshold, FIFO inside a
//!   class, strict priority to the first (Section II-C, "RuN2C"; flow-level model PS+PS, Eq. 7).
//!
//! Both RuN disciplines use the paper's buffer management (Section IV): an arriving packet is
//! always admitted; if the buffer then holds more than its limit, the tail — the packet with
//! the largest running number (RuN) or the last packet of the lowest non-empty class (RuN2C) —
//! is pushed out. Buffers are counted in packets.
//!
//! [`classifier`] is Section III's stateless classifier: initial sequence numbers with R random
//! bits, L zero bits and TH threshold bits, so that a router classifies a packet by a mask on
//! its sequence number alone.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod classifier;
mod droptail;
mod run;
mod run2c;
mod spec;

pub use classifier::{PinClass, PinScheme};
pub use droptail::DropTail;
pub use run::Run;
pub use run2c::Run2c;
pub use spec::{DisciplineSpec, SpecError};

/// Time as the driver counts it (the simulator: nanoseconds). Disciplines here only pass it
/// through; it is in the interface so that time-aware disciplines fit the same trait.
pub type Nanos = u64;

/// A packet as a discipline sees it: the driver's handle plus what scheduling needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Packet<T> {
    /// The driver's handle (the simulator: a packet id), handed back on dequeue or drop.
    pub item: T,
    /// Flow key (the simulator: the connection serial; a router: a hash of the 4-tuple).
    pub flow: u64,
    /// Bytes on the wire.
    pub size: u32,
    /// Running number: bytes of the flow sent before this packet (its sequence offset from
    /// the flow's initial sequence number). 0 for packets that carry no data (SYN, pure ACK).
    pub run: u64,
}

/// A queueing discipline at the head of a link.
pub trait Discipline<T> {
    /// Offers `pkt` at `now`. Every packet the discipline discards — the arriving one, or a
    /// stored one pushed out — is appended to `dropped` and is no longer stored.
    fn enqueue(&mut self, pkt: Packet<T>, now: Nanos, dropped: &mut Vec<Packet<T>>);
    /// Removes and returns the next packet to transmit, if any.
    fn dequeue(&mut self, now: Nanos) -> Option<Packet<T>>;
    /// Packets stored.
    fn len_packets(&self) -> usize;
    /// Wire bytes stored.
    fn len_bytes(&self) -> u64;
    /// Whether nothing is stored.
    fn is_empty(&self) -> bool {
        self.len_packets() == 0
    }
}

/// Initial capacity reserved for a buffer of `limit` packets: the limit, capped so that a huge
/// configured limit does not allocate up front.
pub(crate) fn initial_capacity(limit: usize) -> usize {
    limit.saturating_add(1).min(1 << 12)
}

#[cfg(test)]
pub(crate) mod testutil {
    use super::Packet;

    /// A packet with handle `item`, flow `flow`, running number `run`, 1500 bytes.
    pub fn p(item: u32, flow: u64, run: u64) -> Packet<u32> {
        Packet {
            item,
            flow,
            size: 1500,
            run,
        }
    }

    /// Handles of `ps`.
    pub fn items(ps: &[Packet<u32>]) -> Vec<u32> {
        ps.iter().map(|p| p.item).collect()
    }
}
