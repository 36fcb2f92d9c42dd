//! From a captured frame to a TCP segment: link layer (Ethernet with VLAN tags, Linux cooked
//! v1 and v2, raw IP), IPv4 or IPv6 (extension headers), then the fixed part of the TCP header.
//!
//! Captures are usually payload-stripped (snap length 64–96 bytes), so the payload length of a
//! segment comes from the IP length fields, never from the captured length: IPv4 total length,
//! IPv6 payload length, minus every header up to and including TCP's. Only the first 14 bytes
//! of the TCP header are read (ports, sequence number, data offset, flags): a snap length that
//! cuts the TCP options still yields a segment.

use etherparse::{EtherType, Ethernet2Slice, IpNumber, LaxIpSlice, LinuxSllSlice, SingleVlanSlice};

/// Link types this decoder reads (pcap `LINKTYPE_*` values).
pub mod linktype {
    /// IEEE 802.3 Ethernet.
    pub const ETHERNET: i32 = 1;
    /// Raw IP (the version nibble says which).
    pub const RAW: i32 = 101;
    /// Linux cooked capture v1 (`tcpdump -i any`).
    pub const LINUX_SLL: i32 = 113;
    /// Raw IPv4.
    pub const IPV4: i32 = 228;
    /// Raw IPv6.
    pub const IPV6: i32 = 229;
    /// Linux cooked capture v2 (`tcpdump -i any` since libpcap 1.10).
    pub const LINUX_SLL2: i32 = 276;
    /// OpenBSD's raw IP value (`DLT_RAW` there is 14).
    pub const RAW_OPENBSD: i32 = 14;
}

/// Largest number of stacked VLAN tags followed (802.1Q, 802.1ad); deeper stacks are skipped.
pub const MAX_VLAN_TAGS: usize = 4;

/// Length of a Linux cooked v2 header (`LINKTYPE_LINUX_SLL2`).
const SLL2_HEADER_LEN: usize = 20;

/// TCP flags this crate looks at.
pub mod flags {
    /// FIN.
    pub const FIN: u8 = 0x01;
    /// SYN.
    pub const SYN: u8 = 0x02;
    /// RST.
    pub const RST: u8 = 0x04;
    /// ACK.
    pub const ACK: u8 = 0x10;
}

/// An address of either family, IPv4 mapped into IPv6 (`::ffff:a.b.c.d`) so one key type
/// holds both.
pub type Addr = [u8; 16];

/// Maps an IPv4 address into [`Addr`].
pub fn v4_mapped(a: [u8; 4]) -> Addr {
    let mut m = [0u8; 16];
    m[10] = 0xff;
    m[11] = 0xff;
    m[12..].copy_from_slice(&a);
    m
}

/// The part of a TCP segment the analyses need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    /// Source address.
    pub src: Addr,
    /// Destination address.
    pub dst: Addr,
    /// Source port.
    pub sport: u16,
    /// Destination port.
    pub dport: u16,
    /// Sequence number.
    pub seq: u32,
    /// TCP flags (see [`flags`]).
    pub flags: u8,
    /// Payload bytes, from the IP length fields.
    pub payload_len: u32,
}

/// Why a frame yields no segment. Not an error of the file: a capture holds other traffic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Skip {
    /// A link type this decoder does not read.
    LinkType,
    /// Neither IPv4 nor IPv6 (ARP, LLDP, ...).
    NotIp,
    /// IP, but not TCP (UDP, ICMP, ...).
    NotTcp,
    /// A fragment of an IP packet (its TCP header is in the first fragment, or nowhere).
    Fragment,
    /// Headers cut short by the snap length, or inconsistent length fields.
    Malformed,
}

/// Decodes one captured frame of link type `linktype`.
pub fn decode(linktype: i32, frame: &[u8]) -> Result<Segment, Skip> {
    match linktype {
        linktype::ETHERNET => {
            let eth = Ethernet2Slice::from_slice_without_fcs(frame).map_err(|_| Skip::Malformed)?;
            let mut ether_type = eth.ether_type();
            let mut rest = eth.payload_slice();
            for _ in 0..MAX_VLAN_TAGS {
                if !matches!(
                    ether_type,
                    EtherType::VLAN_TAGGED_FRAME
                        | EtherType::PROVIDER_BRIDGING
                        | EtherType::VLAN_DOUBLE_TAGGED_FRAME
                ) {
                    break;
                }
                let vlan = SingleVlanSlice::from_slice(rest).map_err(|_| Skip::Malformed)?;
                ether_type = vlan.ether_type();
                rest = vlan.payload_slice();
            }
            ip_by_ether_type(ether_type, rest)
        }
        linktype::LINUX_SLL => {
            let sll = LinuxSllSlice::from_slice(frame).map_err(|_| Skip::Malformed)?;
            match sll.protocol_type() {
                etherparse::LinuxSllProtocolType::EtherType(t) => {
                    ip_by_ether_type(t, sll.payload_slice())
                }
                _ => Err(Skip::NotIp),
            }
        }
        linktype::LINUX_SLL2 => {
            // Cooked v2: the protocol (an EtherType) comes first, the header is 20 bytes.
            if frame.len() < SLL2_HEADER_LEN {
                return Err(Skip::Malformed);
            }
            let t = EtherType(u16::from_be_bytes([frame[0], frame[1]]));
            ip_by_ether_type(t, &frame[SLL2_HEADER_LEN..])
        }
        linktype::RAW | linktype::RAW_OPENBSD | linktype::IPV4 | linktype::IPV6 => ip(frame),
        _ => Err(Skip::LinkType),
    }
}

fn ip_by_ether_type(t: EtherType, rest: &[u8]) -> Result<Segment, Skip> {
    match t {
        EtherType::IPV4 | EtherType::IPV6 => ip(rest),
        _ => Err(Skip::NotIp),
    }
}

/// Decodes an IP packet (either version) carrying TCP.
pub fn ip(packet: &[u8]) -> Result<Segment, Skip> {
    let (slice, ext_err) = LaxIpSlice::from_slice(packet).map_err(|e| match e {
        etherparse::err::ip::LaxHeaderSliceError::Content(
            etherparse::err::ip::HeaderError::UnsupportedIpVersion { .. },
        ) => Skip::NotIp,
        _ => Skip::Malformed,
    })?;
    let payload = match &slice {
        LaxIpSlice::Ipv4(s) => s.payload(),
        LaxIpSlice::Ipv6(s) => s.payload(),
    };
    if payload.fragmented {
        return Err(Skip::Fragment);
    }
    if payload.ip_number != IpNumber::TCP {
        // An extension header cut by the snap length also ends here: its next header is unknown.
        return Err(if ext_err.is_some() {
            Skip::Malformed
        } else {
            Skip::NotTcp
        });
    }
    // Where the IP payload starts inside `packet` (both are views of the same frame).
    let offset = (payload.payload.as_ptr() as usize).wrapping_sub(packet.as_ptr() as usize);
    if offset > packet.len() {
        return Err(Skip::Malformed);
    }
    // The declared end of the IP packet, from its length field.
    let declared_end = match &slice {
        LaxIpSlice::Ipv4(s) => usize::from(s.header().total_len()),
        LaxIpSlice::Ipv6(s) => match s.header().payload_length() {
            // A jumbogram (or a length left to the link): all we know is what was captured.
            0 => packet.len(),
            n => 40 + usize::from(n),
        },
    };
    let (src, dst) = match &slice {
        LaxIpSlice::Ipv4(s) => (
            v4_mapped(s.header().source()),
            v4_mapped(s.header().destination()),
        ),
        LaxIpSlice::Ipv6(s) => (s.header().source(), s.header().destination()),
    };
    tcp(src, dst, payload.payload, declared_end.checked_sub(offset))
}

/// Reads the fixed part of a TCP header; `declared_len` is the TCP segment's length (header and
/// payload) according to the IP header.
fn tcp(src: Addr, dst: Addr, t: &[u8], declared_len: Option<usize>) -> Result<Segment, Skip> {
    let declared = declared_len.ok_or(Skip::Malformed)?;
    let h: &[u8; 14] = t
        .get(..14)
        .and_then(|s| s.try_into().ok())
        .ok_or(Skip::Malformed)?;
    let header_len = usize::from(h[12] >> 4) * 4;
    if header_len < 20 || header_len > declared {
        return Err(Skip::Malformed);
    }
    Ok(Segment {
        src,
        dst,
        sport: u16::from_be_bytes([h[0], h[1]]),
        dport: u16::from_be_bytes([h[2], h[3]]),
        seq: u32::from_be_bytes([h[4], h[5], h[6], h[7]]),
        flags: h[13],
        // At most 65535: the IP length fields are 16 bits.
        payload_len: (declared - header_len) as u32,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use etherparse::PacketBuilder;

    fn v4_tcp(payload: usize) -> Vec<u8> {
        let b = PacketBuilder::ethernet2([1; 6], [2; 6])
            .ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
            .tcp(1000, 80, 7, 100)
            .ack(1);
        let mut out = Vec::new();
        b.write(&mut out, &vec![0u8; payload]).unwrap();
        out
    }

    #[test]
    fn payload_comes_from_the_ip_length_even_when_the_capture_is_cut() {
        let full = v4_tcp(1448);
        let s = decode(linktype::ETHERNET, &full[..64]).unwrap();
        assert_eq!(s.payload_len, 1448);
        assert_eq!((s.sport, s.dport, s.seq), (1000, 80, 7));
        assert_eq!(s.flags & flags::ACK, flags::ACK);
        assert_eq!(s.src, v4_mapped([10, 0, 0, 1]));
        // Cut inside the TCP header's fixed part: no segment.
        assert_eq!(
            decode(linktype::ETHERNET, &full[..14 + 20 + 10]),
            Err(Skip::Malformed)
        );
    }

    #[test]
    fn vlan_tags_are_followed() {
        let plain = v4_tcp(500);
        // Two 802.1Q tags between the MAC addresses and the IPv4 EtherType.
        let mut tagged = plain[..12].to_vec();
        tagged.extend_from_slice(&[0x81, 0x00, 0x00, 0x05, 0x81, 0x00, 0x00, 0x06]);
        tagged.extend_from_slice(&plain[12..]);
        assert_eq!(
            decode(linktype::ETHERNET, &tagged),
            decode(linktype::ETHERNET, &plain)
        );
        assert_eq!(
            decode(linktype::ETHERNET, &tagged).unwrap().payload_len,
            500
        );
    }

    #[test]
    fn other_traffic_is_skipped_not_failed() {
        let mut f = v4_tcp(0);
        f[12] = 0x08;
        f[13] = 0x06; // ARP
        assert_eq!(decode(linktype::ETHERNET, &f), Err(Skip::NotIp));
        assert_eq!(decode(9999, &f), Err(Skip::LinkType));
        assert_eq!(decode(linktype::ETHERNET, &[]), Err(Skip::Malformed));
        let mut udp = Vec::new();
        PacketBuilder::ipv4([1, 1, 1, 1], [2, 2, 2, 2], 9)
            .udp(1, 2)
            .write(&mut udp, &[0; 10])
            .unwrap();
        assert_eq!(decode(linktype::RAW, &udp), Err(Skip::NotTcp));
    }

    #[test]
    fn a_total_length_shorter_than_the_headers_is_malformed() {
        let mut f = v4_tcp(0);
        // IPv4 total length 30: less than IP (20) + TCP (20) headers.
        f[14 + 2] = 0;
        f[14 + 3] = 30;
        assert_eq!(decode(linktype::ETHERNET, &f), Err(Skip::Malformed));
    }
}
