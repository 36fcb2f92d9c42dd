//! Unidirectional links: a queue at the head, a serialiser of fixed rate, a propagation delay.
//!
//! A link transmits one packet at a time. A packet arriving at an idle link with an empty
//! queue starts serialising at once; otherwise it waits in the [`Queue`]. The only events a
//! link needs are one `Arrive` per packet (scheduled at serialisation end + propagation
//! delay) and one `TxDone` per packet that had to wait, so uncongested hops cost a single
//! event per packet.
//!
//! A link may add a per-packet processing time drawn uniformly from `[0, max]` to each
//! packet's serialisation ([`Link::set_jitter`]): the small independent perturbation under
//! which experiments repeat one sample path (a host's per-packet processing is never
//! exactly constant). The serialiser is busy for the extra time too, so packets never
//! overtake each other on a link.

use crate::packet::{NodeId, Packet, PacketKind};
use crate::queue::Queue;
use crate::time::{tx_time, Time};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

/// Per-packet processing jitter of a link: each packet holds the serialiser for an extra
/// time drawn uniformly from `[0, max]`, from the link's own random stream.
pub(crate) struct Jitter {
    max: Time,
    rng: ChaCha8Rng,
}

/// Counters of one link.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Hash)]
pub struct LinkStats {
    /// Packets that started serialisation (forwarded).
    pub tx_packets: u64,
    /// Data packets forwarded.
    pub tx_data_packets: u64,
    /// Wire bytes forwarded.
    pub tx_bytes: u64,
    /// Packets dropped by the queue.
    pub drops: u64,
    /// Data packets dropped by the queue.
    pub data_drops: u64,
    /// Largest queue length seen, in packets.
    pub max_queue_packets: u64,
    /// Integral of the queue length (packets waiting, not the one being serialised) over
    /// time, packet·ns, up to the last change of the queue: divide by the run's length for
    /// the time-average occupancy.
    pub queue_area: u64,
    /// Data packets marked congestion-experienced (ECN) on arrival.
    pub ecn_marks: u64,
}

/// A unidirectional link.
pub struct Link {
    /// Upstream node.
    pub from: NodeId,
    /// Downstream node.
    pub to: NodeId,
    /// Rate in bits per second (0 = infinitely fast).
    pub rate_bps: u64,
    /// Propagation delay.
    pub delay: Time,
    pub(crate) queue: Box<dyn Queue>,
    /// The serialiser is busy until this time.
    pub(crate) busy_until: Time,
    /// A `TxDone` event is pending.
    pub(crate) txdone_pending: bool,
    /// Counters.
    pub stats: LinkStats,
    /// Queue length and time of its last change (for `stats.queue_area`).
    q_len: u64,
    q_changed: Time,
    /// Per-packet processing jitter (`None`: none, the default).
    jitter: Option<Box<Jitter>>,
    /// ECN: a data packet arriving while this many packets (or more) wait in the queue is
    /// marked congestion-experienced (`None`: never marks).
    pub(crate) ecn_mark_packets: Option<u32>,
}

impl Link {
    /// A link from `from` to `to`.
    pub fn new(
        from: NodeId,
        to: NodeId,
        rate_bps: u64,
        delay: Time,
        queue: Box<dyn Queue>,
    ) -> Self {
        Link {
            from,
            to,
            rate_bps,
            delay,
            queue,
            busy_until: 0,
            txdone_pending: false,
            stats: LinkStats::default(),
            q_len: 0,
            q_changed: 0,
            jitter: None,
            ecn_mark_packets: None,
        }
    }

    /// Marks data packets arriving while at least `k` packets wait in the queue (RFC 3168
    /// congestion-experienced, a step at `k` as DCTCP's; `None`: never).
    pub fn set_ecn_mark(&mut self, k: Option<u32>) {
        self.ecn_mark_packets = k;
    }

    /// Adds to every packet's serialisation a processing time uniform in `[0, max]`, drawn
    /// from `rng` (`max = 0`: none).
    pub fn set_jitter(&mut self, max: Time, rng: ChaCha8Rng) {
        self.jitter = (max > 0).then(|| Box::new(Jitter { max, rng }));
    }

    /// The queue at the head of the link.
    pub fn queue(&self) -> &dyn Queue {
        &*self.queue
    }

    /// Starts serialising `pkt` at `now`; returns the time it reaches the far end.
    #[inline]
    pub(crate) fn start_tx(&mut self, pkt: &Packet, now: Time) -> Time {
        let mut done = now + tx_time(pkt.size, self.rate_bps);
        if let Some(j) = &mut self.jitter {
            done += j.rng.random_range(0..=j.max);
        }
        self.busy_until = done;
        self.stats.tx_packets += 1;
        self.stats.tx_bytes += pkt.size as u64;
        if pkt.kind == PacketKind::Data {
            self.stats.tx_data_packets += 1;
        }
        done + self.delay
    }

    /// The queue may have changed at `now`: integrates the previous length since the last
    /// change.
    #[inline]
    pub(crate) fn note_queue(&mut self, now: Time) {
        self.stats.queue_area += self.q_len * (now - self.q_changed);
        self.q_changed = now;
        self.q_len = self.queue.len_packets() as u64;
    }

    /// Counts a drop of `pkt`.
    #[inline]
    pub(crate) fn count_drop(&mut self, pkt: &Packet) {
        self.stats.drops += 1;
        if pkt.kind == PacketKind::Data {
            self.stats.data_drops += 1;
        }
    }
}
