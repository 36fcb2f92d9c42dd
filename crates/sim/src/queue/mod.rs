//! Queues at link heads.
//!
//! A [`Queue`] decides, for each packet offered to a link, whether it is stored or dropped,
//! and in which order stored packets are transmitted. It sees the whole packet header
//! ([`Packet`]), including the TCP sequence number and the connection's running packet
//! number, which is what the RuN / RuN2C disciplines (paper 003, Section III) need; those
//! disciplines push out a packet other than the arriving one when full, which is why drops
//! are reported through a list rather than a yes/no answer.

mod droptail;
mod scripted;

pub use droptail::{DropTail, Limit};
pub use scripted::{DropRule, ScriptedDrops};

use crate::packet::{Packet, PacketId};
use crate::time::Time;
use serde::{Deserialize, Serialize};

/// A queueing discipline at the head of a link.
pub trait Queue {
    /// Offers packet `id` (header `pkt`) at time `now`. Every packet the queue decides to
    /// discard — the arriving one or packets already stored (push-out) — must be appended to
    /// `dropped` and be no longer stored; the caller frees them.
    fn enqueue(&mut self, id: PacketId, pkt: &Packet, now: Time, dropped: &mut Vec<PacketId>);
    /// The next packet to transmit, if any.
    fn dequeue(&mut self, now: Time) -> Option<PacketId>;
    /// Number of packets stored.
    fn len_packets(&self) -> usize;
    /// Number of wire bytes stored.
    fn len_bytes(&self) -> u64;
}

/// Serializable description of a queue, for scenario files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum QueueConfig {
    /// Drop-tail FIFO holding at most `limit` packets (excluding the one being sent).
    DropTailPackets {
        /// Capacity in packets.
        limit: usize,
    },
    /// Drop-tail FIFO holding at most `limit` wire bytes.
    DropTailBytes {
        /// Capacity in bytes.
        limit: u64,
    },
    /// FIFO without limit (for links that are never meant to drop).
    Unlimited,
}

impl QueueConfig {
    /// Builds the queue.
    pub fn build(&self) -> Box<dyn Queue> {
        match *self {
            QueueConfig::DropTailPackets { limit } => {
                Box::new(DropTail::new(Limit::Packets(limit)))
            }
            QueueConfig::DropTailBytes { limit } => Box::new(DropTail::new(Limit::Bytes(limit))),
            QueueConfig::Unlimited => Box::new(DropTail::new(Limit::Unlimited)),
        }
    }
}
