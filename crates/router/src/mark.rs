//! Edge marking (paper 003, footnote 3): the edge router classifies each packet by its flow's
//! running number and writes the class into the IP header's DSCP field, so that core routers
//! need only two priority levels of their own (Linux's default `pfifo_fast` bands by TOS, or
//! `htb` classes selected by `u32` filters on the DSCP) and no knowledge of flows.
//!
//! IPv4: the DSCP is the six high bits of the TOS byte; the two ECN bits below it are kept and
//! the header checksum is updated (RFC 1624's incremental update, RFC 1071's sum). IPv6: the
//! DSCP is the six high bits of the traffic class, which has no checksum.

use crate::classify::PacketError;

/// DSCP of the first class by default: 4, i.e. TOS byte 0x10, the old "minimize delay" bit
/// (RFC 1349), which Linux maps to priority `TC_PRIO_INTERACTIVE` for forwarded packets and
/// its default `pfifo_fast` queue serves in its first band: a stock Linux core needs no
/// configuration to give it priority.
pub const DEFAULT_PRIORITY_DSCP: u8 = 4;

/// DSCP of the second class by default: 0 (best effort, `pfifo_fast`'s middle band).
pub const DEFAULT_LOW_DSCP: u8 = 0;

/// The two code points an edge router writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Marking {
    priority: u8,
    low: u8,
}

/// Why a marking is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MarkingError {
    /// A DSCP has six bits.
    #[error("DSCP {0} is out of range 0..=63")]
    Range(u8),
    /// The two classes must be told apart downstream.
    #[error("the two classes need different DSCPs (both {0})")]
    Same(u8),
}

impl Default for Marking {
    fn default() -> Self {
        Marking {
            priority: DEFAULT_PRIORITY_DSCP,
            low: DEFAULT_LOW_DSCP,
        }
    }
}

impl Marking {
    /// Code points for the first (`priority`) and second (`low`) class, each 0..=63, distinct.
    pub fn new(priority: u8, low: u8) -> Result<Self, MarkingError> {
        for d in [priority, low] {
            if d > 63 {
                return Err(MarkingError::Range(d));
            }
        }
        if priority == low {
            return Err(MarkingError::Same(low));
        }
        Ok(Marking { priority, low })
    }

    /// The DSCP of the first class.
    pub fn priority(&self) -> u8 {
        self.priority
    }

    /// The DSCP of the second class.
    pub fn low(&self) -> u8 {
        self.low
    }

    /// The DSCP for a packet of the first class (`first`) or not.
    pub fn dscp(&self, first: bool) -> u8 {
        if first {
            self.priority
        } else {
            self.low
        }
    }
}

/// Writes `dscp` (0..=63, taken modulo 64) into the IP header of `packet` (IPv4 or IPv6, no
/// link-layer header), keeping the ECN bits; fixes the IPv4 header checksum.
pub fn set_dscp(packet: &mut [u8], dscp: u8) -> Result<(), PacketError> {
    let version = packet.first().map(|b| b >> 4);
    match version {
        Some(4) => {
            let ihl = usize::from(packet[0] & 0x0f) * 4;
            if ihl < 20 || packet.len() < ihl {
                return Err(PacketError::NotIp("truncated IPv4 header".into()));
            }
            let old = packet[1];
            let new = ((dscp & 0x3f) << 2) | (old & 0x03);
            if new == old {
                return Ok(());
            }
            packet[1] = new;
            // RFC 1624, eqn. 3: HC' = ~(~HC + ~m + m'), m the 16-bit word holding TOS.
            let word = |tos: u8| u32::from(u16::from_be_bytes([packet[0], tos]));
            let hc = u32::from(u16::from_be_bytes([packet[10], packet[11]]));
            let mut sum = (!hc & 0xffff) + (!word(old) & 0xffff) + word(new);
            while sum > 0xffff {
                sum = (sum & 0xffff) + (sum >> 16);
            }
            packet[10..12].copy_from_slice(&(!(sum as u16)).to_be_bytes());
            Ok(())
        }
        Some(6) => {
            if packet.len() < 40 {
                return Err(PacketError::NotIp("truncated IPv6 header".into()));
            }
            let tc = (packet[0] << 4) | (packet[1] >> 4);
            let tc = ((dscp & 0x3f) << 2) | (tc & 0x03);
            packet[0] = 0x60 | (tc >> 4);
            packet[1] = (tc << 4) | (packet[1] & 0x0f);
            Ok(())
        }
        _ => Err(PacketError::NotIp("neither IPv4 nor IPv6".into())),
    }
}

/// The DSCP of an IP packet (IPv4 or IPv6), if it is one.
pub fn dscp(packet: &[u8]) -> Option<u8> {
    match (packet.first().map(|b| b >> 4), packet.get(1)) {
        (Some(4), Some(tos)) => Some(tos >> 2),
        (Some(6), Some(b1)) if packet.len() >= 40 => Some(((packet[0] << 4) | (b1 >> 4)) >> 2),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use etherparse::{Ipv4HeaderSlice, Ipv6HeaderSlice, PacketBuilder};

    fn v4(tos_ecn: u8, payload: usize) -> Vec<u8> {
        let mut v = Vec::new();
        PacketBuilder::ipv4([198, 18, 1, 1], [198, 18, 2, 1], 64)
            .tcp(1000, 80, 12345, 1000)
            .ack(1)
            .write(&mut v, &vec![7u8; payload])
            .unwrap();
        // Set the ECN bits and recompute the checksum from scratch, as a sender would.
        v[1] = tos_ecn;
        let mut h = Ipv4HeaderSlice::from_slice(&v).unwrap().to_header();
        h.header_checksum = h.calc_header_checksum();
        v[..20].copy_from_slice(&h.to_bytes());
        v
    }

    fn checksum_ok(v: &[u8]) -> bool {
        let h = Ipv4HeaderSlice::from_slice(v).unwrap().to_header();
        h.header_checksum == h.calc_header_checksum()
    }

    #[test]
    fn ipv4_dscp_written_ecn_kept_checksum_fixed() {
        for ecn in 0..4u8 {
            for dscp in [0u8, 4, 10, 46, 63] {
                let mut p = v4(ecn, 100);
                let before = p.clone();
                set_dscp(&mut p, dscp).unwrap();
                assert_eq!(super::dscp(&p), Some(dscp));
                assert_eq!(p[1] & 3, ecn, "ECN bits kept");
                assert!(checksum_ok(&p), "dscp {dscp} ecn {ecn}");
                // Nothing else changed.
                assert_eq!(p[12..], before[12..]);
                assert_eq!(p[..1], before[..1]);
                assert_eq!(p[2..10], before[2..10]);
            }
        }
    }

    /// Marks back and forth many times: the incremental update never drifts from the full
    /// checksum (including the 0xffff/0x0000 corner of one's complement).
    #[test]
    fn repeated_marks_keep_a_valid_checksum() {
        let mut p = v4(1, 10);
        for i in 0..500u32 {
            set_dscp(&mut p, (i * 37 % 64) as u8).unwrap();
            assert!(checksum_ok(&p), "step {i}");
        }
        // A header whose checksum word is all ones or zero before the change.
        for ttl in 0..=255u8 {
            let mut q = v4(0, 0);
            q[8] = ttl;
            let mut h = Ipv4HeaderSlice::from_slice(&q).unwrap().to_header();
            h.header_checksum = h.calc_header_checksum();
            q[..20].copy_from_slice(&h.to_bytes());
            set_dscp(&mut q, 4).unwrap();
            assert!(checksum_ok(&q), "ttl {ttl}");
        }
    }

    #[test]
    fn ipv6_traffic_class() {
        let mut v = Vec::new();
        PacketBuilder::ipv6([1; 16], [2; 16], 64)
            .tcp(1, 2, 3, 4)
            .write(&mut v, &[0u8; 10])
            .unwrap();
        // ECN bits 0b10, flow label 0xabcde.
        v[1] = (0b10 << 4) | 0x0a;
        v[2] = 0xbc;
        v[3] = 0xde;
        set_dscp(&mut v, 46).unwrap();
        let h = Ipv6HeaderSlice::from_slice(&v).unwrap();
        assert_eq!(h.traffic_class(), (46 << 2) | 0b10);
        assert_eq!(h.flow_label().value(), 0xabcde);
        assert_eq!(dscp(&v), Some(46));
    }

    #[test]
    fn garbage_is_refused() {
        assert!(set_dscp(&mut [], 4).is_err());
        assert!(set_dscp(&mut [0x45, 0, 0], 4).is_err());
        assert!(set_dscp(&mut [0x60; 39], 4).is_err());
        assert!(set_dscp(&mut [0x20; 60], 4).is_err());
        assert!(
            set_dscp(&mut [0x46; 22], 4).is_err(),
            "IHL 6 needs 24 bytes"
        );
        assert_eq!(dscp(&[]), None);
    }

    #[test]
    fn markings_are_checked() {
        assert_eq!(Marking::default().dscp(true), 4);
        assert_eq!(Marking::default().dscp(false), 0);
        assert!(Marking::new(64, 0).is_err());
        assert!(Marking::new(8, 8).is_err());
        assert_eq!(Marking::new(46, 8).unwrap().dscp(false), 8);
    }
}
