//! Queues at link heads.
//!
//! A [`Queue`] decides, for each packet offered to a link, whether it is stored or dropped,
//! and in which order stored packets are transmitted. It sees the whole packet header
//! ([`Packet`]), including the TCP sequence number and the connection's running packet
//! number, which is what the RuN / RuN2C disciplines (paper 003, Section III) need; those
//! disciplines push out a packet other than the arriving one when full, which is why drops
//! are reported through a list rather than a yes/no answer.
//!
//! The disciplines themselves live in the sans-IO crate `queues` (one owner, shared with a
//! router on real packets); [`Disciplined`] adapts them to this trait.

mod disciplined;
mod scripted;

pub use disciplined::{running_number, Disciplined, DropTail, Limit};
pub use queues::DisciplineSpec;
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
    /// A discipline of paper 003 by name, with a buffer of `limit` packets:
    /// `{ kind = "discipline", queue = "run2c:20", limit = 100 }`.
    Discipline {
        /// `"droptail"`, `"run"` or `"run2c:THRESHOLD_PACKETS"` ([`DisciplineSpec`]).
        queue: QueueName,
        /// Capacity in packets (RuN/RuN2C: push-out of the tail beyond it).
        limit: usize,
        /// Payload bytes of a full segment: a RuN2C threshold of `n` packets is `n` times this
        /// many bytes of running number. Must equal the TCP MSS of the scenario.
        #[serde(default = "default_segment_bytes")]
        segment_bytes: u32,
    },
    /// RuN2C in a stateless core (paper 003, Section III): the class of a packet is read from
    /// its wire sequence number by the mask of `pin` (priority while the L bits are zero, i.e.
    /// threshold 2^TH bytes), with no per-flow state; the senders should pick PIN initial
    /// numbers (`tcp.pin_isn`, the same scheme). A buffer of `limit` packets with push-out, as
    /// `run2c`: `{ kind = "run2c_pin", limit = 100, pin = { r = 10, l = 8, th = 14,
    /// low_random = 0 } }`.
    Run2cPin {
        /// Capacity in packets.
        limit: usize,
        /// The division of the sequence number space.
        pin: crate::tcp::Pin,
    },
}

fn default_segment_bytes() -> u32 {
    1460
}

/// A [`DisciplineSpec`] as a scenario file spells it (a string).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct QueueName(pub DisciplineSpec);

impl TryFrom<String> for QueueName {
    type Error = queues::SpecError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse().map(QueueName)
    }
}

impl From<QueueName> for String {
    fn from(q: QueueName) -> String {
        q.0.to_string()
    }
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
            QueueConfig::Discipline {
                queue: QueueName(spec),
                limit,
                segment_bytes,
            } => match spec {
                DisciplineSpec::DropTail => Box::new(DropTail::new(Limit::Packets(limit))),
                DisciplineSpec::Run => Box::new(Disciplined::over(queues::Run::new(limit))),
                DisciplineSpec::Run2c { .. } => Box::new(Disciplined::over(queues::Run2c::new(
                    limit,
                    spec.threshold_bytes(segment_bytes),
                ))),
            },
            QueueConfig::Run2cPin { limit, pin } => Box::new(Disciplined::by_pin(
                queues::Run2c::new(limit, pin.0.threshold_bytes()),
                pin.0,
            )),
        }
    }

    /// The segment size a RuN2C threshold in packets is counted in, if this queue has one.
    pub fn segment_bytes(&self) -> Option<u32> {
        match *self {
            QueueConfig::Discipline {
                queue: QueueName(DisciplineSpec::Run2c { .. }),
                segment_bytes,
                ..
            } => Some(segment_bytes),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    struct Holder {
        q: QueueConfig,
    }

    #[test]
    fn disciplines_by_name_in_toml() {
        let h: Holder =
            toml::from_str("q = { kind = \"discipline\", queue = \"run2c:20\", limit = 100 }")
                .unwrap();
        assert_eq!(
            h.q,
            QueueConfig::Discipline {
                queue: QueueName(DisciplineSpec::Run2c {
                    threshold_packets: 20
                }),
                limit: 100,
                segment_bytes: 1460,
            }
        );
        assert_eq!(h.q.segment_bytes(), Some(1460));
        let err =
            toml::from_str::<Holder>("q = { kind = \"discipline\", queue = \"sfq\", limit = 1 }")
                .unwrap_err()
                .to_string();
        assert!(err.contains("unknown queue discipline"), "{err}");
    }
}
