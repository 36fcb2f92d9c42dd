//! # router — paper 003's RuN and RuN2C on real packets
//!
//! A user-space router for one direction of a path: packets come in, each is classified
//! (its running number, [`classify`]), offered to a queue discipline of the `queues` crate
//! (drop-tail, RuN or RuN2C, buffer in packets) in front of a transmitter of a configured rate,
//! and leaves after a constant one-way propagation delay ([`link`]).
//!
//! The core ([`Router`]) is sans-IO, as the gtcp core and the `queues` disciplines are:
//! packets and `now` in; the packet to forward at a time, or the packets dropped, out. It
//! never reads a clock or a device. [`tun`] is the thin Linux driver: a TUN device, one thread
//! reading it and one releasing packets on time. The simulator drives the same disciplines
//! at its bottleneck, so what is simulated is what runs.
//!
//! ## On a Linux box
//!
//! The direction to shape is routed into the TUN device by policy routing on the input
//! interface (`ip rule add iif IN lookup T`, `ip route add default dev TUN table T`); what the
//! router writes back enters with the TUN device as input interface, misses that rule and is
//! forwarded by the main table, so it is not looped. [`tun::Routing`] sets that up and removes
//! it. The other direction is left to the kernel.
//!
//! ## At the edge
//!
//! With [`RouterConfig::mark`] the router is the edge router of paper 003's footnote 3: it
//! classifies each packet as above and writes its class into the IP header's DSCP ([`mark`]),
//! and forwards it after the configured delay with no rate and so no queue of its own; a core
//! router downstream (the kernel's own `pfifo_fast` or `htb`) serves the classes.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod classify;
pub mod link;
pub mod mark;
pub mod tun;

pub use classify::{Classified, Classifier, ClassifyMode, PacketError, UNKNOWN_RUN};
pub use link::{Link, LinkConfig, LinkStats};
pub use mark::Marking;
pub use queues::{DisciplineSpec, Nanos, PinScheme};

use queues::Packet;

/// Default buffer of the queue, packets (the paper's bottleneck buffer: 100 packets).
pub const DEFAULT_BUFFER_PACKETS: usize = 100;

/// Default segment size that converts a RuN2C threshold in packets into bytes: 1448 B, the
/// payload of a Linux TCP segment with timestamps on a 1500 B MTU.
pub const DEFAULT_SEGMENT_BYTES: u32 = 1448;

/// The router's configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RouterConfig {
    /// Rate in bytes per second (0: none).
    pub rate_bytes_per_s: u64,
    /// One-way propagation delay, nanoseconds.
    pub delay: Nanos,
    /// Queue discipline.
    pub discipline: DisciplineSpec,
    /// Buffer, packets.
    pub buffer_packets: usize,
    /// Payload bytes of one segment, to turn `run2c:N` packets into bytes (ISN mode). In PIN
    /// mode the threshold is the scheme's 2^TH bytes instead.
    pub segment_bytes: u32,
    /// How running numbers are found.
    pub mode: ClassifyMode,
    /// Bound of the flow table (ISN mode), connections.
    pub flow_capacity: usize,
    /// Idle time after which a flow-table entry may be reused, nanoseconds.
    pub idle_timeout: Nanos,
    /// Edge mode: write each packet's class into its DSCP (first class: running number below
    /// [`RouterConfig::threshold_bytes`]). `None`: no marking (the packets' DSCP is kept).
    pub mark: Option<Marking>,
}

impl Default for RouterConfig {
    fn default() -> Self {
        RouterConfig {
            rate_bytes_per_s: 0,
            delay: 0,
            discipline: DisciplineSpec::DropTail,
            buffer_packets: DEFAULT_BUFFER_PACKETS,
            segment_bytes: DEFAULT_SEGMENT_BYTES,
            mode: ClassifyMode::Isn,
            flow_capacity: classify::DEFAULT_FLOW_CAPACITY,
            idle_timeout: classify::DEFAULT_IDLE_TIMEOUT,
            mark: None,
        }
    }
}

/// The threshold the counters split drops by when the discipline has none: the paper's 20
/// packets (Section IV).
pub const ACCOUNTING_THRESHOLD_PACKETS: u32 = 20;

impl RouterConfig {
    /// The running number that splits [`RouterStats::drops_first`] from
    /// [`RouterStats::drops_rest`]: the RuN2C threshold, or 20 segments for the other
    /// disciplines, so that where each discipline's losses fall can be compared.
    pub fn accounting_threshold_bytes(&self) -> u64 {
        match (self.discipline, self.mode) {
            (DisciplineSpec::Run2c { .. }, _) | (_, ClassifyMode::Pin(_)) => self.threshold_bytes(),
            _ => u64::from(ACCOUNTING_THRESHOLD_PACKETS) * u64::from(self.segment_bytes),
        }
    }

    /// The RuN2C threshold in bytes of running number.
    pub fn threshold_bytes(&self) -> u64 {
        match self.mode {
            ClassifyMode::Pin(s) => s.threshold_bytes(),
            ClassifyMode::Isn => self.discipline.threshold_bytes(self.segment_bytes),
        }
    }
}

/// What became of an offered packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offer {
    /// Queued (it may still be pushed out later by a packet of a higher class).
    Queued,
    /// Not an IP packet, or a malformed TCP header: dropped.
    Malformed,
}

/// Counters of a router.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RouterStats {
    /// The link's counters.
    pub link: LinkStats,
    /// The classifier's counters.
    pub classify: classify::ClassifyStats,
    /// Packets dropped as malformed.
    pub malformed: u64,
    /// Queue drops of packets whose running number is below
    /// [`RouterConfig::accounting_threshold_bytes`] (the first bytes of their flow).
    pub drops_first: u64,
    /// Queue drops of the others (including connections whose SYN was not seen).
    pub drops_rest: u64,
    /// Edge mode: packets marked with the first class's DSCP.
    pub marked_first: u64,
    /// Edge mode: packets marked with the second class's DSCP.
    pub marked_rest: u64,
}

/// The sans-IO router: classifier and link. `T` is the packet (its bytes).
pub struct Router<T> {
    cfg: RouterConfig,
    classifier: Classifier,
    link: Link<T>,
    malformed: u64,
    drops_first: u64,
    drops_rest: u64,
    accounting_threshold: u64,
    threshold: u64,
    marked_first: u64,
    marked_rest: u64,
    scratch: Vec<Packet<T>>,
}

impl<T: AsRef<[u8]> + AsMut<[u8]> + 'static> Router<T> {
    /// A router with nothing queued.
    pub fn new(cfg: RouterConfig) -> Self {
        let link = Link::new(LinkConfig {
            rate_bytes_per_s: cfg.rate_bytes_per_s,
            delay: cfg.delay,
            buffer_packets: cfg.buffer_packets,
            discipline: cfg.discipline,
            threshold_bytes: cfg.threshold_bytes(),
            delay_line_limit: link::DELAY_LINE_LIMIT,
        });
        Router {
            cfg,
            classifier: Classifier::new(cfg.mode, cfg.flow_capacity, cfg.idle_timeout),
            link,
            malformed: 0,
            drops_first: 0,
            drops_rest: 0,
            accounting_threshold: cfg.accounting_threshold_bytes(),
            threshold: cfg.threshold_bytes(),
            marked_first: 0,
            marked_rest: 0,
            scratch: Vec::new(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &RouterConfig {
        &self.cfg
    }

    /// Offers a packet that arrived at `now`; packets the discipline dropped (this one, or
    /// queued ones pushed out) are appended to `dropped` (the driver frees them).
    pub fn offer(&mut self, now: Nanos, mut packet: T, dropped: &mut Vec<T>) -> Offer {
        let c = match self.classifier.classify(now, packet.as_ref()) {
            Ok(c) => c,
            Err(_) => {
                self.malformed += 1;
                dropped.push(packet);
                return Offer::Malformed;
            }
        };
        if let Some(m) = self.cfg.mark {
            let first = c.run < self.threshold;
            // The classifier read this IP header: writing its DSCP cannot fail.
            if mark::set_dscp(packet.as_mut(), m.dscp(first)).is_ok() {
                if first {
                    self.marked_first += 1;
                } else {
                    self.marked_rest += 1;
                }
            }
        }
        self.link.offer(
            now,
            Packet {
                item: packet,
                flow: c.flow,
                size: c.size,
                run: c.run,
            },
            &mut self.scratch,
        );
        for p in self.scratch.drain(..) {
            if p.run < self.accounting_threshold {
                self.drops_first += 1;
            } else {
                self.drops_rest += 1;
            }
            dropped.push(p.item);
        }
        Offer::Queued
    }

    /// The next packet to forward by `now`, if any.
    pub fn poll(&mut self, now: Nanos) -> Option<T> {
        self.link.poll(now)
    }

    /// When to poll next (a lower bound); `None` when nothing is queued or propagating.
    pub fn next_wakeup(&self) -> Option<Nanos> {
        self.link.next_wakeup()
    }

    /// Packets queued or propagating.
    pub fn held_packets(&self) -> usize {
        self.link.queued_packets() + self.link.in_flight_packets()
    }

    /// Counters.
    pub fn stats(&self) -> RouterStats {
        RouterStats {
            link: self.link.stats(),
            classify: self.classifier.table().stats(),
            malformed: self.malformed,
            drops_first: self.drops_first,
            drops_rest: self.drops_rest,
            marked_first: self.marked_first,
            marked_rest: self.marked_rest,
        }
    }
}
