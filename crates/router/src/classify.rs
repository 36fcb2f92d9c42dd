//! The running number of a real packet: what RuN and RuN2C sort by (paper 003, Section III).
//!
//! Two ways, chosen by [`ClassifyMode`]:
//!
//! - [`ClassifyMode::Isn`] — the edge router of footnote 3: the router learns each TCP
//!   connection's initial sequence number (ISN) from its SYN (or SYN-ACK) and gives every later
//!   packet of that direction the running number `seq − (ISN + 1)`, the bytes of the flow sent
//!   before it. This works with any sender (Linux picks random ISNs), at the price of per-flow
//!   state, kept in a bounded [`FlowTable`].
//! - [`ClassifyMode::Pin`] — the stateless scheme of Section III for senders that pick their
//!   ISN among the possible initial numbers ([`queues::PinScheme`]): the running number is the
//!   offset of the sequence number inside its PIN block, `seq mod 2^(L+TH)`, so that the
//!   RuN2C threshold 2^TH classifies exactly as the scheme's mask does.
//!
//! Packets that carry no TCP payload (SYN, pure ACK, FIN without data, RST) and non-TCP
//! packets (ICMP, UDP, non-first fragments) get running number 0: they are small and are what
//! keeps connections alive. A TCP data packet of a connection whose SYN the router did not see
//! (it started before the router, or the table was full) gets [`UNKNOWN_RUN`]: it is served
//! after every packet of a known connection, as a long flow's would be.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::net::IpAddr;

use etherparse::{IpNumber, IpSlice, TcpSlice};
use queues::{Nanos, PinScheme};

/// Running number given to data of connections whose ISN is unknown: last in RuN, low class
/// in RuN2C.
pub const UNKNOWN_RUN: u64 = u64::MAX;

/// Default bound of the flow table: 65 536 connections (about 5 MB with the map's overhead).
pub const DEFAULT_FLOW_CAPACITY: usize = 1 << 16;

/// Default idle time after which a connection's entry may be reused: 120 s (beyond the usual
/// TCP retransmission back-off for a live connection; a connection idle longer that sends
/// again is classified as unknown).
pub const DEFAULT_IDLE_TIMEOUT: Nanos = 120_000_000_000;

/// Shortest interval between two sweeps of a full table, so that a flood of SYNs into a full
/// table costs one O(table) sweep a second, not one per SYN: 1 s.
pub const SWEEP_INTERVAL: Nanos = 1_000_000_000;

/// How the router finds a packet's running number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClassifyMode {
    /// Relative to the ISN learnt from the SYN (an edge router with per-flow state).
    Isn,
    /// Stateless, by the position inside the PIN block (senders following the scheme).
    Pin(PinScheme),
}

/// Why a packet could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PacketError {
    /// Not a well-formed IPv4 or IPv6 packet.
    #[error("not an IP packet: {0}")]
    NotIp(String),
    /// The IP packet says it carries TCP but its header is malformed.
    #[error("malformed TCP header: {0}")]
    BadTcp(String),
}

/// What a discipline needs of a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Classified {
    /// Flow key: a hash of the protocol and the directional address/port pair.
    pub flow: u64,
    /// Bytes on the wire (the IP packet's length).
    pub size: u32,
    /// Running number, bytes.
    pub run: u64,
}

/// Direction of one TCP connection: source and destination address and port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FlowKey {
    /// Sender's address.
    pub src: IpAddr,
    /// Receiver's address.
    pub dst: IpAddr,
    /// Sender's port.
    pub sport: u16,
    /// Receiver's port.
    pub dport: u16,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    /// ISN + 1: the sequence number of the first data byte.
    base: u32,
    /// Highest offset from `base` seen, extended past 2^32 (the offset wraps every 4 GiB).
    highest: u64,
    last_seen: Nanos,
}

/// Counters of the classifier.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClassifyStats {
    /// Connections learnt from a SYN.
    pub learnt: u64,
    /// SYNs not learnt because the table was full of live connections.
    pub table_full: u64,
    /// Data packets of connections whose ISN was unknown.
    pub unknown: u64,
    /// Entries removed as idle.
    pub expired: u64,
}

/// The bounded table of connections' ISNs (ISN mode).
///
/// At most `capacity` entries. A SYN for a new connection when the table is full first
/// sweeps idle entries (at most once per [`SWEEP_INTERVAL`]); if none is idle the connection
/// is not learnt (its data is then [`UNKNOWN_RUN`]) and `table_full` is counted. An RST
/// removes the entry; a FIN keeps it (retransmissions follow), idleness removes it later. A
/// new SYN on a known key replaces the entry (a new connection on the same ports).
#[derive(Debug, Clone)]
pub struct FlowTable {
    capacity: usize,
    idle_timeout: Nanos,
    map: HashMap<FlowKey, Entry>,
    last_sweep: Option<Nanos>,
    stats: ClassifyStats,
}

impl FlowTable {
    /// An empty table of at most `capacity` connections, whose entries idle for longer than
    /// `idle_timeout` may be reused.
    pub fn new(capacity: usize, idle_timeout: Nanos) -> Self {
        FlowTable {
            capacity,
            idle_timeout,
            map: HashMap::with_capacity(capacity.min(1024)),
            last_sweep: None,
            stats: ClassifyStats::default(),
        }
    }

    /// Connections held.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Counters.
    pub fn stats(&self) -> ClassifyStats {
        self.stats
    }

    fn sweep(&mut self, now: Nanos) {
        if self
            .last_sweep
            .is_some_and(|t| now.saturating_sub(t) < SWEEP_INTERVAL)
        {
            return;
        }
        self.last_sweep = Some(now);
        let timeout = self.idle_timeout;
        let before = self.map.len();
        self.map
            .retain(|_, e| now.saturating_sub(e.last_seen) <= timeout);
        self.stats.expired += (before - self.map.len()) as u64;
    }

    /// Learns the ISN of `key` from its SYN.
    pub fn learn(&mut self, now: Nanos, key: FlowKey, isn: u32) {
        if !self.map.contains_key(&key) && self.map.len() >= self.capacity {
            self.sweep(now);
            if self.map.len() >= self.capacity {
                self.stats.table_full += 1;
                return;
            }
        }
        self.stats.learnt += 1;
        self.map.insert(
            key,
            Entry {
                base: isn.wrapping_add(1),
                highest: 0,
                last_seen: now,
            },
        );
    }

    /// Forgets `key` (its connection was reset).
    pub fn forget(&mut self, key: &FlowKey) {
        self.map.remove(key);
    }

    /// The running number of a data byte at sequence number `seq` of `key`, if the
    /// connection is known (and not idle past the timeout).
    pub fn running_number(&mut self, now: Nanos, key: &FlowKey, seq: u32) -> Option<u64> {
        let timeout = self.idle_timeout;
        let e = self.map.get_mut(key)?;
        if now.saturating_sub(e.last_seen) > timeout {
            self.map.remove(key);
            self.stats.expired += 1;
            return None;
        }
        e.last_seen = now;
        // The offset modulo 2^32, extended to the 64-bit value nearest the highest seen (as
        // RTP extends its sequence numbers): retransmissions of older data stay below it.
        let off = seq.wrapping_sub(e.base);
        let hi = e.highest;
        let candidate = (hi & !0xffff_ffff) | u64::from(off);
        let run = if candidate + (1 << 31) < hi {
            candidate + (1 << 32)
        } else if candidate > hi + (1 << 31) && candidate >= 1 << 32 {
            candidate - (1 << 32)
        } else {
            candidate
        };
        e.highest = e.highest.max(run);
        Some(run)
    }
}

/// Reads packets and gives each its flow, size and running number.
#[derive(Debug, Clone)]
pub struct Classifier {
    mode: ClassifyMode,
    table: FlowTable,
}

impl Classifier {
    /// A classifier in `mode`; the flow table (ISN mode) holds at most `capacity`
    /// connections, reusable after `idle_timeout`.
    pub fn new(mode: ClassifyMode, capacity: usize, idle_timeout: Nanos) -> Self {
        Classifier {
            mode,
            table: FlowTable::new(capacity, idle_timeout),
        }
    }

    /// The mode.
    pub fn mode(&self) -> ClassifyMode {
        self.mode
    }

    /// The flow table (empty in PIN mode).
    pub fn table(&self) -> &FlowTable {
        &self.table
    }

    /// Reads an IP packet (as a TUN device hands it: no link-layer header) arriving at `now`.
    pub fn classify(&mut self, now: Nanos, packet: &[u8]) -> Result<Classified, PacketError> {
        let ip = IpSlice::from_slice(packet).map_err(|e| PacketError::NotIp(e.to_string()))?;
        let size = u32::try_from(packet.len()).unwrap_or(u32::MAX);
        let payload = ip.payload();
        let (src, dst) = (ip.source_addr(), ip.destination_addr());
        let is_tcp = payload.ip_number == IpNumber::TCP && !ip.is_fragmenting_payload();
        if !is_tcp {
            return Ok(Classified {
                flow: flow_hash(payload.ip_number.0, src, dst, 0, 0),
                size,
                run: 0,
            });
        }
        let tcp = TcpSlice::from_slice(payload.payload)
            .map_err(|e| PacketError::BadTcp(e.to_string()))?;
        let key = FlowKey {
            src,
            dst,
            sport: tcp.source_port(),
            dport: tcp.destination_port(),
        };
        let flow = flow_hash(6, src, dst, key.sport, key.dport);
        let seq = tcp.sequence_number();
        let run = match self.mode {
            ClassifyMode::Isn => {
                if tcp.syn() {
                    self.table.learn(now, key, seq);
                    0
                } else if tcp.rst() {
                    self.table.forget(&key);
                    0
                } else if tcp.payload().is_empty() {
                    0
                } else {
                    match self.table.running_number(now, &key, seq) {
                        Some(run) => run,
                        None => {
                            self.table.stats.unknown += 1;
                            UNKNOWN_RUN
                        }
                    }
                }
            }
            ClassifyMode::Pin(scheme) => {
                if tcp.payload().is_empty() {
                    0
                } else {
                    scheme.running_number(seq)
                }
            }
        };
        Ok(Classified { flow, size, run })
    }
}

fn flow_hash(proto: u8, src: IpAddr, dst: IpAddr, sport: u16, dport: u16) -> u64 {
    let mut h = DefaultHasher::new();
    (proto, src, dst, sport, dport).hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use etherparse::PacketBuilder;
    use queues::PinClass;

    const SEC: Nanos = 1_000_000_000;

    /// An IPv4 TCP packet 198.18.1.1:port → 198.18.2.1:80.
    fn tcp(port: u16, seq: u32, syn: bool, rst: bool, payload: usize) -> Vec<u8> {
        let b = PacketBuilder::ipv4([198, 18, 1, 1], [198, 18, 2, 1], 64).tcp(port, 80, seq, 1000);
        let b = if syn { b.syn() } else { b.ack(1) };
        let b = if rst { b.rst() } else { b };
        let mut v = Vec::new();
        b.write(&mut v, &vec![0u8; payload]).unwrap();
        v
    }

    fn isn_classifier(capacity: usize) -> Classifier {
        Classifier::new(ClassifyMode::Isn, capacity, 10 * SEC)
    }

    #[test]
    fn running_number_counts_bytes_after_the_isn() {
        let mut c = isn_classifier(16);
        let isn = 0xffff_fff0; // wraps within the first segment
        let syn = c.classify(0, &tcp(1000, isn, true, false, 0)).unwrap();
        assert_eq!((syn.run, syn.size), (0, 40));
        let d0 = c.classify(1, &tcp(1000, isn.wrapping_add(1), false, false, 1448));
        assert_eq!(d0.unwrap().run, 0);
        let d1 = c
            .classify(
                2,
                &tcp(1000, isn.wrapping_add(1 + 1448), false, false, 1448),
            )
            .unwrap();
        assert_eq!((d1.run, d1.size), (1448, 1488));
        // A retransmission of the first segment is again 0.
        let re = c.classify(3, &tcp(1000, isn.wrapping_add(1), false, false, 1448));
        assert_eq!(re.unwrap().run, 0);
        // A pure ACK carries no data: 0.
        let ack = c.classify(4, &tcp(1000, isn.wrapping_add(99_999), false, false, 0));
        assert_eq!(ack.unwrap().run, 0);
        assert_eq!(c.table().stats().learnt, 1);
    }

    #[test]
    fn running_number_extends_past_four_gibibytes() {
        let mut t = FlowTable::new(4, 10 * SEC);
        let key = FlowKey {
            src: [10, 0, 0, 1].into(),
            dst: [10, 0, 0, 2].into(),
            sport: 1,
            dport: 2,
        };
        t.learn(0, key, 99);
        let base = 100u32;
        let mut want = 0u64;
        // Steps of 1 GiB: the 32-bit offset wraps after four.
        for _ in 0..9 {
            let seq = base.wrapping_add(want as u32);
            assert_eq!(t.running_number(1, &key, seq), Some(want));
            want += 1 << 30;
        }
        // Highest is 8 GiB (offset 0 mod 2^32): a retransmission just behind the wrap stays
        // behind it.
        let back = want - (1 << 30) - 10;
        assert_eq!(
            t.running_number(1, &key, base.wrapping_add(back as u32)),
            Some(back)
        );
    }

    #[test]
    fn unknown_connections_and_resets() {
        let mut c = isn_classifier(16);
        let d = c.classify(0, &tcp(1, 5000, false, false, 100)).unwrap();
        assert_eq!(d.run, UNKNOWN_RUN);
        c.classify(0, &tcp(2, 7000, true, false, 0)).unwrap();
        assert_eq!(
            c.classify(0, &tcp(2, 7101, false, false, 10)).unwrap().run,
            100
        );
        c.classify(0, &tcp(2, 7101, false, true, 0)).unwrap(); // RST
        assert_eq!(
            c.classify(0, &tcp(2, 7101, false, false, 10)).unwrap().run,
            UNKNOWN_RUN
        );
        assert_eq!(c.table().stats().unknown, 2);
        assert!(c.table().is_empty());
    }

    #[test]
    fn full_table_refuses_then_reuses_idle_entries() {
        let mut c = isn_classifier(2);
        c.classify(0, &tcp(1, 0, true, false, 0)).unwrap();
        c.classify(0, &tcp(2, 0, true, false, 0)).unwrap();
        c.classify(SEC, &tcp(3, 0, true, false, 0)).unwrap(); // full, nothing idle
        assert_eq!(c.table().stats().table_full, 1);
        assert_eq!(c.table().len(), 2);
        assert_eq!(
            c.classify(SEC, &tcp(3, 1, false, false, 10)).unwrap().run,
            UNKNOWN_RUN
        );
        // Keep flow 2 alive; flow 1 goes idle past 10 s.
        c.classify(9 * SEC, &tcp(2, 1, false, false, 10)).unwrap();
        c.classify(12 * SEC, &tcp(3, 0, true, false, 0)).unwrap();
        assert_eq!(c.table().len(), 2);
        assert_eq!(c.table().stats().expired, 1);
        assert_eq!(
            c.classify(12 * SEC, &tcp(3, 11, false, false, 10))
                .unwrap()
                .run,
            10
        );
        assert_eq!(
            c.classify(12 * SEC, &tcp(1, 11, false, false, 10))
                .unwrap()
                .run,
            UNKNOWN_RUN
        );
    }

    #[test]
    fn a_full_table_is_swept_at_most_once_a_second() {
        let mut t = FlowTable::new(1, SEC);
        let key = |p| FlowKey {
            src: [10, 0, 0, 1].into(),
            dst: [10, 0, 0, 2].into(),
            sport: p,
            dport: 2,
        };
        t.learn(0, key(1), 0);
        t.learn(SEC / 2, key(2), 0); // sweeps at 0.5 s: nothing idle
        t.learn(SEC + SEC / 4, key(3), 0); // key 1 idle now, but no sweep before 1.5 s
        assert_eq!(t.stats().table_full, 2);
        t.learn(SEC + SEC / 2, key(3), 0);
        assert_eq!(t.stats().learnt, 2);
    }

    #[test]
    fn an_idle_entry_is_forgotten_on_use() {
        let mut c = isn_classifier(4);
        c.classify(0, &tcp(1, 0, true, false, 0)).unwrap();
        let late = c.classify(11 * SEC, &tcp(1, 1, false, false, 10)).unwrap();
        assert_eq!(late.run, UNKNOWN_RUN);
        assert!(c.table().is_empty());
    }

    #[test]
    fn pin_mode_matches_the_scheme_mask() {
        let scheme = PinScheme::paper();
        let mut c = Classifier::new(ClassifyMode::Pin(scheme), 0, 0);
        let isn = scheme.isn(0x9abc_d123);
        let th = scheme.threshold_bytes();
        for off in [
            1u32, 1000, 16_000, 16_384, 100_000, 4_194_303, 4_194_304, 5_000_000,
        ] {
            let seq = isn.wrapping_add(off);
            let run = c.classify(0, &tcp(9, seq, false, false, 100)).unwrap().run;
            let priority = run < th;
            assert_eq!(
                priority,
                scheme.classify(seq) == PinClass::Priority,
                "offset {off}"
            );
        }
        assert!(c.table().is_empty(), "stateless");
    }

    #[test]
    fn non_tcp_and_garbage() {
        let mut c = isn_classifier(4);
        let mut udp = Vec::new();
        PacketBuilder::ipv6([1; 16], [2; 16], 64)
            .udp(1, 2)
            .write(&mut udp, &[0u8; 20])
            .unwrap();
        let u = c.classify(0, &udp).unwrap();
        assert_eq!((u.run, u.size), (0, 68));
        assert!(matches!(c.classify(0, &[]), Err(PacketError::NotIp(_))));
        assert!(matches!(
            c.classify(0, &[0x45, 0, 0]),
            Err(PacketError::NotIp(_))
        ));
        // An IPv4 header saying TCP with a 3-byte payload.
        let mut bad = tcp(1, 0, false, false, 0);
        bad.truncate(23);
        bad[2..4].copy_from_slice(&23u16.to_be_bytes());
        // Fix the header checksum is not needed: etherparse does not check it.
        assert!(matches!(c.classify(0, &bad), Err(PacketError::BadTcp(_))));
    }

    #[test]
    fn flows_are_told_apart_by_direction_and_ports() {
        let mut c = isn_classifier(4);
        let a = c.classify(0, &tcp(1, 0, false, false, 0)).unwrap().flow;
        let b = c.classify(0, &tcp(2, 0, false, false, 0)).unwrap().flow;
        let a2 = c.classify(0, &tcp(1, 77, false, false, 0)).unwrap().flow;
        assert_ne!(a, b);
        assert_eq!(a, a2);
    }
}
