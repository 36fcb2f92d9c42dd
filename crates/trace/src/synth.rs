//! Writing captures: payload-stripped TCP packets and pcap/pcapng files, for the tests, the
//! benchmark and the fuzz seeds. Headers come from `etherparse`; a packet carries its full
//! length in its IP header but no payload bytes (as a capture with a short snap length).

use std::io::{self, Write};

use etherparse::{IpNumber, Ipv4Header, Ipv6FlowLabel, Ipv6Header, TcpHeader, TcpOptionElement};

use crate::decode::flags;

/// One TCP segment to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tcp {
    /// Source port.
    pub sport: u16,
    /// Destination port.
    pub dport: u16,
    /// Sequence number.
    pub seq: u32,
    /// Flags (see [`flags`]).
    pub flags: u8,
    /// Payload length (declared in the IP header, not written).
    pub len: u16,
}

fn tcp_header(t: &Tcp) -> TcpHeader {
    let mut h = TcpHeader::new(t.sport, t.dport, t.seq, 65535);
    h.syn = t.flags & flags::SYN != 0;
    h.fin = t.flags & flags::FIN != 0;
    h.rst = t.flags & flags::RST != 0;
    h.ack = t.flags & flags::ACK != 0;
    // The timestamp option, as Linux sends: a 32-byte TCP header.
    let _ = h.set_options(&[
        TcpOptionElement::Noop,
        TcpOptionElement::Noop,
        TcpOptionElement::Timestamp(1, 2),
    ]);
    h
}

/// An IPv4 packet with `t` (headers only).
pub fn ipv4(src: [u8; 4], dst: [u8; 4], t: &Tcp) -> Vec<u8> {
    let tcp = tcp_header(t);
    let mut out = Vec::with_capacity(20 + tcp.header_len());
    let ip = Ipv4Header::new(tcp.header_len_u16() + t.len, 64, IpNumber::TCP, src, dst)
        .expect("a TCP header and a u16 payload fit an IPv4 packet");
    let _ = ip.write(&mut out);
    let _ = tcp.write(&mut out);
    out
}

/// An IPv6 packet with `t` (headers only); with `ext`, a hop-by-hop and a destination-options
/// extension header (8 bytes each) come before TCP.
pub fn ipv6(src: [u8; 16], dst: [u8; 16], t: &Tcp, ext: bool) -> Vec<u8> {
    let tcp = tcp_header(t);
    let ext_len: u16 = if ext { 16 } else { 0 };
    let ip = Ipv6Header {
        traffic_class: 0,
        flow_label: Ipv6FlowLabel::ZERO,
        payload_length: ext_len + tcp.header_len_u16() + t.len,
        next_header: if ext {
            IpNumber::IPV6_HEADER_HOP_BY_HOP
        } else {
            IpNumber::TCP
        },
        hop_limit: 64,
        source: src,
        destination: dst,
    };
    let mut out = Vec::new();
    let _ = ip.write(&mut out);
    if ext {
        // Hop-by-hop: next = destination options, length 0 (8 bytes), PadN.
        out.extend_from_slice(&[60, 0, 1, 4, 0, 0, 0, 0]);
        // Destination options: next = TCP.
        out.extend_from_slice(&[6, 0, 1, 4, 0, 0, 0, 0]);
    }
    let _ = tcp.write(&mut out);
    out
}

/// An Ethernet frame around an IP packet.
pub fn ethernet(ip: &[u8]) -> Vec<u8> {
    let mut f = vec![2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2];
    f.extend_from_slice(&ether_type(ip));
    f.extend_from_slice(ip);
    f
}

fn ether_type(ip: &[u8]) -> [u8; 2] {
    if ip.first().is_some_and(|b| b >> 4 == 6) {
        [0x86, 0xdd]
    } else {
        [0x08, 0x00]
    }
}

/// A Linux cooked v1 frame (16-byte header) around an IP packet.
pub fn sll(ip: &[u8]) -> Vec<u8> {
    let mut f = vec![0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0];
    f.extend_from_slice(&ether_type(ip));
    f.extend_from_slice(ip);
    f
}

/// A Linux cooked v2 frame (20-byte header) around an IP packet.
pub fn sll2(ip: &[u8]) -> Vec<u8> {
    let mut f = ether_type(ip).to_vec();
    f.extend_from_slice(&[0, 0, 0, 0, 0, 2, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0]);
    f.extend_from_slice(ip);
    f
}

/// A pcap file writer (little endian, micro- or nanosecond timestamps).
#[derive(Debug)]
pub struct PcapWriter<W: Write> {
    out: W,
    snaplen: u32,
    nanos: bool,
}

impl<W: Write> PcapWriter<W> {
    /// Writes the file header.
    pub fn new(mut out: W, linktype: i32, snaplen: u32, nanos: bool) -> io::Result<Self> {
        let magic: u32 = if nanos { 0xa1b2_3c4d } else { 0xa1b2_c3d4 };
        out.write_all(&magic.to_le_bytes())?;
        out.write_all(&2u16.to_le_bytes())?;
        out.write_all(&4u16.to_le_bytes())?;
        out.write_all(&0i32.to_le_bytes())?;
        out.write_all(&0u32.to_le_bytes())?;
        out.write_all(&snaplen.to_le_bytes())?;
        out.write_all(&(linktype as u32).to_le_bytes())?;
        Ok(Self {
            out,
            snaplen,
            nanos,
        })
    }

    /// Writes a packet captured at `ts_ns`; `frame` is cut at the snap length, and its original
    /// length is `frame.len() + stripped` (`stripped`: payload bytes not in `frame`).
    pub fn packet(&mut self, ts_ns: i64, frame: &[u8], stripped: u32) -> io::Result<()> {
        let cap = frame.len().min(self.snaplen as usize);
        let sec = ts_ns.div_euclid(1_000_000_000) as u32;
        let frac = ts_ns.rem_euclid(1_000_000_000) as u32;
        let frac = if self.nanos { frac } else { frac / 1000 };
        let mut h = [0u8; 16];
        h[0..4].copy_from_slice(&sec.to_le_bytes());
        h[4..8].copy_from_slice(&frac.to_le_bytes());
        h[8..12].copy_from_slice(&(cap as u32).to_le_bytes());
        h[12..16].copy_from_slice(&(frame.len() as u32 + stripped).to_le_bytes());
        self.out.write_all(&h)?;
        self.out.write_all(&frame[..cap])
    }

    /// The underlying writer.
    pub fn into_inner(self) -> W {
        self.out
    }
}

/// A pcapng writer (little endian): a section header, interfaces, enhanced packet blocks.
#[derive(Debug)]
pub struct PcapNgWriter<W: Write> {
    out: W,
    /// Per interface: units per second.
    resolutions: Vec<u64>,
}

fn block(out: &mut dyn Write, kind: u32, body: &[u8]) -> io::Result<()> {
    let pad = (4 - body.len() % 4) % 4;
    let total = (12 + body.len() + pad) as u32;
    out.write_all(&kind.to_le_bytes())?;
    out.write_all(&total.to_le_bytes())?;
    out.write_all(body)?;
    out.write_all(&[0u8; 3][..pad])?;
    out.write_all(&total.to_le_bytes())
}

impl<W: Write> PcapNgWriter<W> {
    /// Writes the section header block.
    pub fn new(mut out: W) -> io::Result<Self> {
        let mut b = Vec::new();
        b.extend_from_slice(&0x1a2b_3c4du32.to_le_bytes());
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&0u16.to_le_bytes());
        b.extend_from_slice(&(-1i64).to_le_bytes());
        block(&mut out, 0x0a0d_0d0a, &b)?;
        Ok(Self {
            out,
            resolutions: Vec::new(),
        })
    }

    /// Describes an interface with timestamps in units of 10^-`tsresol` s; returns its id.
    pub fn interface(&mut self, linktype: i32, snaplen: u32, tsresol: u8) -> io::Result<u32> {
        let mut b = Vec::new();
        b.extend_from_slice(&(linktype as u16).to_le_bytes());
        b.extend_from_slice(&0u16.to_le_bytes());
        b.extend_from_slice(&snaplen.to_le_bytes());
        // if_tsresol (code 9, length 1), padded; then opt_endofopt.
        b.extend_from_slice(&[9, 0, 1, 0, tsresol, 0, 0, 0, 0, 0, 0, 0]);
        block(&mut self.out, 1, &b)?;
        self.resolutions.push(10u64.pow(u32::from(tsresol)));
        Ok(self.resolutions.len() as u32 - 1)
    }

    /// Writes a packet on interface `id` (original length `frame.len() + stripped`).
    pub fn packet(&mut self, id: u32, ts_ns: i64, frame: &[u8], stripped: u32) -> io::Result<()> {
        let res = self
            .resolutions
            .get(id as usize)
            .copied()
            .unwrap_or(1_000_000);
        let units = (i128::from(ts_ns) * i128::from(res) / 1_000_000_000) as u64;
        let mut b = Vec::new();
        b.extend_from_slice(&id.to_le_bytes());
        b.extend_from_slice(&((units >> 32) as u32).to_le_bytes());
        b.extend_from_slice(&(units as u32).to_le_bytes());
        b.extend_from_slice(&(frame.len() as u32).to_le_bytes());
        b.extend_from_slice(&(frame.len() as u32 + stripped).to_le_bytes());
        b.extend_from_slice(frame);
        block(&mut self.out, 6, &b)
    }

    /// The underlying writer.
    pub fn into_inner(self) -> W {
        self.out
    }
}
