//! Frames exchanged on an authenticated pool connection.
//!
//! | type | frame | fields after the type byte |
//! |---|---|---|
//! | 0x01 | [`Frame::Open`] | flow u64, class u8, flags u8 (bit 0: size present, bit 1: origin present), [size u64], route length u8, route bytes, [origin: source address, destination address] |
//! | 0x02 | [`Frame::Data`] | flow u64, offset u64, length u32, payload |
//! | 0x03 | [`Frame::Fin`] | flow u64, final size u64 |
//! | 0x04 | [`Frame::Reset`] | flow u64, code u32 |
//! | 0x05 | [`Frame::Ack`] | flow u64, received u64, credit u64, flags u8 (bit 0: fin received) |
//! | 0x06 | [`Frame::Keepalive`] | — |
//! | 0x07 | [`Frame::Done`] | — (this side carries no more data on this connection) |
//! | 0x08 | [`Frame::GoAway`] | — (this side opens or accepts no new flows) |
//!
//! Type bytes 0xF0 and above belong to the handshake and are an error here ("a second
//! handshake").
//!
//! An address of an [`Origin`] is a family byte (4 or 6), the IP address (4 or 16 bytes) and
//! the port (u16).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use bytes::{Buf, BufMut, Bytes, BytesMut};

use super::{WireError, MAX_PAYLOAD_CAP};
use crate::ids::FlowId;

/// Longest route name a peer may send (bytes of UTF-8).
pub const MAX_ROUTE_LEN: usize = 255;
/// Bytes of framing in front of every data payload.
pub const DATA_HEADER_LEN: usize = 1 + 8 + 8 + 4;

const T_OPEN: u8 = 0x01;
const T_DATA: u8 = 0x02;
const T_FIN: u8 = 0x03;
const T_RESET: u8 = 0x04;
const T_ACK: u8 = 0x05;
const T_KEEPALIVE: u8 = 0x06;
pub(crate) const T_DONE: u8 = 0x07;
const T_GOAWAY: u8 = 0x08;
const T_HANDSHAKE_MIN: u8 = 0xF0;

/// Opens a flow: which route it takes, its priority class and, if the opener knows it, the size of
/// the opener's direction and the application's addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenFrame {
    pub flow: FlowId,
    pub route: String,
    pub class: u8,
    pub size_hint: Option<u64>,
    pub origin: Option<Origin>,
}

/// Where a flow came from, as the opener's side saw its application connection: the
/// application's address (`source`) and the listener's address it connected to
/// (`destination`). The acceptor may pass it on to the target (a PROXY protocol header), so
/// that the target sees the application's address rather than the tunnel's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Origin {
    pub source: SocketAddr,
    pub destination: SocketAddr,
}

/// Bytes of one encoded address of an [`Origin`].
fn address_len(addr: &SocketAddr) -> usize {
    match addr {
        SocketAddr::V4(_) => 1 + 4 + 2,
        SocketAddr::V6(_) => 1 + 16 + 2,
    }
}

fn encode_address(out: &mut BytesMut, addr: &SocketAddr) {
    match addr.ip() {
        IpAddr::V4(ip) => {
            out.put_u8(4);
            out.put_slice(&ip.octets());
        }
        IpAddr::V6(ip) => {
            out.put_u8(6);
            out.put_slice(&ip.octets());
        }
    }
    out.put_u16(addr.port());
}

/// Length of the encoded address starting at `buf[0]` (its family byte), once that byte is
/// there.
fn encoded_address_len(buf: &[u8]) -> Result<Option<usize>, WireError> {
    match buf.first() {
        None => Ok(None),
        Some(4) => Ok(Some(1 + 4 + 2)),
        Some(6) => Ok(Some(1 + 16 + 2)),
        Some(&other) => Err(WireError::BadAddressFamily(other)),
    }
}

/// Decodes one address; `frame_len` has checked its family and length.
fn decode_address(frame: &mut BytesMut) -> SocketAddr {
    let ip = if frame.get_u8() == 4 {
        let mut b = [0u8; 4];
        frame.copy_to_slice(&mut b);
        IpAddr::V4(Ipv4Addr::from(b))
    } else {
        let mut b = [0u8; 16];
        frame.copy_to_slice(&mut b);
        IpAddr::V6(Ipv6Addr::from(b))
    };
    SocketAddr::new(ip, frame.get_u16())
}

/// Bytes `[offset, offset + payload.len())` of a flow's stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataFrame {
    pub flow: FlowId,
    pub offset: u64,
    pub payload: Bytes,
}

/// Delivery acknowledgement and credit for one flow, from its receiver: every byte below
/// `received` is held by the receiver (the sender may free it), the sender may send bytes below
/// `credit`, and `fin` says the final size has been received too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AckFrame {
    pub flow: FlowId,
    pub received: u64,
    pub credit: u64,
    pub fin: bool,
}

/// One decoded frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    Open(OpenFrame),
    Data(DataFrame),
    Fin { flow: FlowId, final_size: u64 },
    Reset { flow: FlowId, code: u32 },
    Ack(AckFrame),
    Keepalive,
    Done,
    GoAway,
}

impl Frame {
    /// Bytes this frame occupies on the wire.
    pub fn encoded_len(&self) -> usize {
        match self {
            Frame::Open(o) => {
                1 + 8
                    + 1
                    + 1
                    + if o.size_hint.is_some() { 8 } else { 0 }
                    + 1
                    + truncate_utf8(&o.route, MAX_ROUTE_LEN).len()
                    + o.origin
                        .map_or(0, |g| address_len(&g.source) + address_len(&g.destination))
            }
            Frame::Data(d) => DATA_HEADER_LEN + d.payload.len(),
            Frame::Fin { .. } => 1 + 16,
            Frame::Reset { .. } => 1 + 12,
            Frame::Ack(_) => 1 + 25,
            Frame::Keepalive | Frame::Done | Frame::GoAway => 1,
        }
    }

    /// Appends the encoding of this frame to `out`.
    ///
    /// Route names longer than [`MAX_ROUTE_LEN`] and payloads longer than [`MAX_PAYLOAD_CAP`] are
    /// the caller's bug (the session never builds them); they are truncated rather than encoded
    /// into something the peer would reject.
    pub fn encode(&self, out: &mut BytesMut) {
        match self {
            Frame::Open(o) => {
                out.put_u8(T_OPEN);
                out.put_u64(o.flow.0);
                out.put_u8(o.class);
                out.put_u8(u8::from(o.size_hint.is_some()) | u8::from(o.origin.is_some()) << 1);
                if let Some(s) = o.size_hint {
                    out.put_u64(s);
                }
                let route = truncate_utf8(&o.route, MAX_ROUTE_LEN);
                out.put_u8(route.len() as u8);
                out.put_slice(route.as_bytes());
                if let Some(g) = &o.origin {
                    encode_address(out, &g.source);
                    encode_address(out, &g.destination);
                }
            }
            Frame::Data(d) => {
                let len = d.payload.len().min(MAX_PAYLOAD_CAP as usize);
                encode_data_header(out, d.flow, d.offset, len as u32);
                out.put_slice(&d.payload[..len]);
            }
            Frame::Fin { flow, final_size } => {
                out.put_u8(T_FIN);
                out.put_u64(flow.0);
                out.put_u64(*final_size);
            }
            Frame::Reset { flow, code } => {
                out.put_u8(T_RESET);
                out.put_u64(flow.0);
                out.put_u32(*code);
            }
            Frame::Ack(a) => {
                out.put_u8(T_ACK);
                out.put_u64(a.flow.0);
                out.put_u64(a.received);
                out.put_u64(a.credit);
                out.put_u8(u8::from(a.fin));
            }
            Frame::Keepalive => out.put_u8(T_KEEPALIVE),
            Frame::Done => out.put_u8(T_DONE),
            Frame::GoAway => out.put_u8(T_GOAWAY),
        }
    }
}

/// Writes the header of a data frame whose `len` payload bytes the caller appends next. This
/// lets the session copy payload straight from a flow's buffer into the output.
pub(crate) fn encode_data_header(out: &mut BytesMut, flow: FlowId, offset: u64, len: u32) {
    // One copy of the whole header (a data frame per chunk: four `put_*` calls, each checking
    // the buffer's room, were a visible part of sending tiny chunks).
    let mut h = [0u8; DATA_HEADER_LEN];
    h[0] = T_DATA;
    h[1..9].copy_from_slice(&flow.0.to_be_bytes());
    h[9..17].copy_from_slice(&offset.to_be_bytes());
    h[17..21].copy_from_slice(&len.to_be_bytes());
    out.extend_from_slice(&h);
}

fn truncate_utf8(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Incremental decoder: feed it whatever the socket returned, take out whole frames.
///
/// The only state is the cap on data payloads, so one decoder per connection is enough and
/// partial frames simply stay in the caller's buffer until more bytes arrive.
#[derive(Debug, Clone, Copy)]
pub struct FrameDecoder {
    max_payload: u32,
}

impl Default for FrameDecoder {
    fn default() -> Self {
        Self::new(MAX_PAYLOAD_CAP)
    }
}

impl FrameDecoder {
    /// A decoder refusing data payloads above `max_payload` (itself capped at
    /// [`MAX_PAYLOAD_CAP`]).
    pub fn new(max_payload: u32) -> Self {
        Self {
            max_payload: max_payload.min(MAX_PAYLOAD_CAP),
        }
    }

    /// Takes one whole frame off the front of `buf`. `Ok(None)` means more bytes are needed and
    /// `buf` is untouched; an error means the stream is malformed and must be abandoned.
    pub fn decode(&self, buf: &mut BytesMut) -> Result<Option<Frame>, WireError> {
        let Some(len) = self.frame_len(buf)? else {
            return Ok(None);
        };
        let mut frame = buf.split_to(len);
        if frame[0] == T_DATA {
            // The most frequent frame, read straight from its header (which `frame_len`
            // checked) rather than through a `get_*` per field.
            let flow = flow_id(u64::from_be_bytes(arr8(&frame[1..9])))?;
            let offset = u64::from_be_bytes(arr8(&frame[9..17]));
            frame.advance(DATA_HEADER_LEN);
            return Ok(Some(Frame::Data(DataFrame {
                flow,
                offset,
                payload: frame.freeze(),
            })));
        }
        let ty = frame.get_u8();
        let out = match ty {
            T_OPEN => {
                let flow = flow_id(frame.get_u64())?;
                let class = frame.get_u8();
                let flags = frame.get_u8();
                let size_hint = if flags & 1 == 1 {
                    Some(frame.get_u64())
                } else {
                    None
                };
                let rlen = frame.get_u8() as usize;
                let route = std::str::from_utf8(&frame[..rlen])
                    .map_err(|_| WireError::BadRoute(rlen))?
                    .to_owned();
                frame.advance(rlen);
                let origin = (flags & 2 == 2).then(|| Origin {
                    source: decode_address(&mut frame),
                    destination: decode_address(&mut frame),
                });
                Frame::Open(OpenFrame {
                    flow,
                    route,
                    class,
                    size_hint,
                    origin,
                })
            }
            T_FIN => Frame::Fin {
                flow: flow_id(frame.get_u64())?,
                final_size: frame.get_u64(),
            },
            T_RESET => Frame::Reset {
                flow: flow_id(frame.get_u64())?,
                code: frame.get_u32(),
            },
            T_ACK => {
                let flow = flow_id(frame.get_u64())?;
                let received = frame.get_u64();
                let credit = frame.get_u64();
                let flags = frame.get_u8();
                Frame::Ack(AckFrame {
                    flow,
                    received,
                    credit,
                    fin: flags & 1 == 1,
                })
            }
            T_KEEPALIVE => Frame::Keepalive,
            T_DONE => Frame::Done,
            T_GOAWAY => Frame::GoAway,
            // frame_len has already rejected every other type.
            other => return Err(WireError::UnknownFrame(other)),
        };
        Ok(Some(out))
    }

    /// Length of the frame at the front of `buf`, once enough of it is there to tell; validates
    /// everything that bounds the length.
    pub(crate) fn frame_len(&self, buf: &[u8]) -> Result<Option<usize>, WireError> {
        let Some(&ty) = buf.first() else {
            return Ok(None);
        };
        let fixed = match ty {
            T_OPEN => {
                // type, flow, class, flags
                if buf.len() < 11 {
                    return Ok(None);
                }
                let flags = buf[10];
                if flags & !3 != 0 {
                    return Err(WireError::BadFlags(flags));
                }
                let at = 11 + if flags & 1 == 1 { 8 } else { 0 };
                let Some(&rlen) = buf.get(at) else {
                    return Ok(None);
                };
                let mut end = at + 1 + rlen as usize;
                if flags & 2 == 2 {
                    for _ in 0..2 {
                        match encoded_address_len(buf.get(end..).unwrap_or_default())? {
                            Some(n) => end += n,
                            None => return Ok(None),
                        }
                    }
                }
                end
            }
            T_DATA => {
                if buf.len() < DATA_HEADER_LEN {
                    return Ok(None);
                }
                let offset = u64::from_be_bytes(arr8(&buf[9..17]));
                let len = u32::from_be_bytes([buf[17], buf[18], buf[19], buf[20]]);
                if len > self.max_payload {
                    return Err(WireError::PayloadTooLarge {
                        len,
                        cap: self.max_payload,
                    });
                }
                if offset.checked_add(u64::from(len)).is_none() {
                    return Err(WireError::Overflow {
                        offset,
                        len: u64::from(len),
                    });
                }
                DATA_HEADER_LEN + len as usize
            }
            T_FIN => 17,
            T_RESET => 13,
            T_ACK => {
                if buf.len() >= 26 && buf[25] & !1 != 0 {
                    return Err(WireError::BadFlags(buf[25]));
                }
                26
            }
            T_KEEPALIVE | T_DONE | T_GOAWAY => 1,
            t if t >= T_HANDSHAKE_MIN => return Err(WireError::UnexpectedHandshake(t)),
            t => return Err(WireError::UnknownFrame(t)),
        };
        Ok((buf.len() >= fixed).then_some(fixed))
    }
}

fn arr8(s: &[u8]) -> [u8; 8] {
    let mut a = [0u8; 8];
    a.copy_from_slice(&s[..8]);
    a
}

fn flow_id(raw: u64) -> Result<FlowId, WireError> {
    if raw == 0 {
        Err(WireError::ZeroFlow)
    } else {
        Ok(FlowId(raw))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(f: Frame) {
        let mut b = BytesMut::new();
        f.encode(&mut b);
        assert_eq!(b.len(), f.encoded_len(), "encoded_len of {f:?}");
        // Byte by byte: every strict prefix is incomplete, the whole is the frame.
        let dec = FrameDecoder::default();
        for cut in 0..b.len() {
            let mut part = BytesMut::from(&b[..cut]);
            assert_eq!(dec.decode(&mut part), Ok(None), "prefix {cut} of {f:?}");
            assert_eq!(part.len(), cut, "an incomplete frame must not be consumed");
        }
        assert_eq!(dec.decode(&mut b), Ok(Some(f)));
        assert!(b.is_empty());
    }

    /// An origin's address family is 4 or 6; anything else is refused before the frame is
    /// taken, and a frame cut inside its origin waits for more bytes.
    #[test]
    fn an_origin_with_an_unknown_family_is_refused_and_a_cut_one_waits() {
        let mut buf = BytesMut::new();
        Frame::Open(OpenFrame {
            flow: FlowId(3),
            route: "r".into(),
            class: 0,
            size_hint: None,
            origin: Some(Origin {
                source: "192.0.2.1:1".parse().unwrap(),
                destination: "192.0.2.2:2".parse().unwrap(),
            }),
        })
        .encode(&mut buf);
        let d = FrameDecoder::new(MAX_PAYLOAD_CAP);
        for cut in 1..buf.len() {
            let mut part = BytesMut::from(&buf[..cut]);
            assert_eq!(d.decode(&mut part), Ok(None), "cut at {cut}");
            assert_eq!(part.len(), cut);
        }
        // The source's family byte follows type, flow, class, flags, route length, route.
        let at = 1 + 8 + 1 + 1 + 1 + 1;
        assert_eq!(buf[at], 4);
        buf[at] = 5;
        assert_eq!(d.decode(&mut buf), Err(WireError::BadAddressFamily(5)));
    }

    #[test]
    fn every_frame_roundtrips() {
        let flow = FlowId(7);
        roundtrip(Frame::Open(OpenFrame {
            flow,
            route: "web".into(),
            class: 2,
            size_hint: Some(5),
            origin: None,
        }));
        roundtrip(Frame::Open(OpenFrame {
            flow,
            route: String::new(),
            class: 0,
            size_hint: None,
            origin: None,
        }));
        for (source, destination) in [
            ("192.0.2.7:50123", "127.0.0.1:8080"),
            ("[2001:db8::7]:443", "[::1]:8080"),
            ("[2001:db8::7]:443", "127.0.0.1:8080"),
        ] {
            roundtrip(Frame::Open(OpenFrame {
                flow,
                route: "web".into(),
                class: 1,
                size_hint: Some(1 << 40),
                origin: Some(Origin {
                    source: source.parse().unwrap(),
                    destination: destination.parse().unwrap(),
                }),
            }));
        }
        roundtrip(Frame::Data(DataFrame {
            flow,
            offset: 99,
            payload: Bytes::from_static(b"hello"),
        }));
        roundtrip(Frame::Data(DataFrame {
            flow,
            offset: 0,
            payload: Bytes::new(),
        }));
        roundtrip(Frame::Fin {
            flow,
            final_size: 1 << 40,
        });
        roundtrip(Frame::Reset { flow, code: 3 });
        roundtrip(Frame::Ack(AckFrame {
            flow,
            received: 10,
            credit: 20,
            fin: true,
        }));
        roundtrip(Frame::Keepalive);
        roundtrip(Frame::Done);
        roundtrip(Frame::GoAway);
    }

    #[test]
    fn oversized_payload_is_refused_before_it_arrives() {
        let mut b = BytesMut::new();
        encode_data_header(&mut b, FlowId(1), 0, 70_000);
        let err = FrameDecoder::default().decode(&mut b).unwrap_err();
        assert_eq!(
            err,
            WireError::PayloadTooLarge {
                len: 70_000,
                cap: MAX_PAYLOAD_CAP
            }
        );
        let mut b = BytesMut::new();
        encode_data_header(&mut b, FlowId(1), 0, 2000);
        assert!(FrameDecoder::new(1000).decode(&mut b).is_err());
    }

    #[test]
    fn malformed_inputs_are_errors() {
        let dec = FrameDecoder::default();
        let cases: &[(&[u8], WireError)] = &[
            (&[0x00], WireError::UnknownFrame(0)),
            (&[0x42], WireError::UnknownFrame(0x42)),
            (&[0xF1, 1, 2], WireError::UnexpectedHandshake(0xF1)),
            (
                &[T_OPEN, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0x80],
                WireError::BadFlags(0x80),
            ),
            (
                &[T_OPEN, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0xFF],
                WireError::BadRoute(1),
            ),
            (
                &[T_FIN, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
                WireError::ZeroFlow,
            ),
        ];
        for (input, want) in cases {
            let mut b = BytesMut::from(*input);
            assert_eq!(dec.decode(&mut b).as_ref(), Err(want), "input {input:?}");
        }
        let mut b = BytesMut::new();
        encode_data_header(&mut b, FlowId(1), u64::MAX - 1, 5);
        b.extend_from_slice(b"12345");
        assert!(matches!(
            dec.decode(&mut b),
            Err(WireError::Overflow { .. })
        ));
    }

    #[test]
    fn long_route_is_truncated_on_a_char_boundary() {
        let route = "é".repeat(200); // 400 bytes
        let mut b = BytesMut::new();
        Frame::Open(OpenFrame {
            flow: FlowId(1),
            route,
            class: 0,
            size_hint: None,
            origin: None,
        })
        .encode(&mut b);
        let Ok(Some(Frame::Open(o))) = FrameDecoder::default().decode(&mut b) else {
            panic!("decodes")
        };
        assert_eq!(o.route.len(), 254);
    }
}
