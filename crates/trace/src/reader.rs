//! Streaming capture readers: pcap (both byte orders, micro- and nanosecond timestamps) and
//! pcapng (several interfaces, each with its own link type and timestamp resolution), plain or
//! gzip-compressed, through `pcap-parser`'s circular-buffer readers. Memory is the read buffer
//! ([`READ_BUFFER`], grown up to [`MAX_BLOCK`] for one oversized block), whatever the file size.
//!
//! A truncated or corrupt file is not thrown away: every packet before the damage has already
//! been handed to the caller, and the error names the packet index and byte offset where
//! reading stopped.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use pcap_parser::{Block, PcapBlockOwned, PcapError};

/// Initial size of the read buffer (bytes). Large enough for any packet of a payload-stripped
/// capture and for full 64 KiB frames; see [`MAX_BLOCK`].
pub const READ_BUFFER: usize = 256 * 1024;

/// Largest block (a pcap record or a pcapng block) the reader grows its buffer for (bytes).
/// A block declaring more is taken as corruption.
pub const MAX_BLOCK: usize = 16 * 1024 * 1024;

/// One captured packet.
#[derive(Debug, Clone, Copy)]
pub struct Packet<'a> {
    /// Capture time, nanoseconds since the Unix epoch (signed: pcapng offsets can be negative).
    pub ts_ns: i64,
    /// Link type (`LINKTYPE_*`) of the interface it was captured on.
    pub linktype: i32,
    /// The captured bytes (possibly fewer than were on the wire).
    pub data: &'a [u8],
}

/// Where and why reading stopped early.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {reason} at packet {packet} (byte offset {offset}{gz}); the {packet} packets before it were read", gz = if *.gzip { " in the decompressed stream" } else { "" })]
pub struct ReadError {
    /// The file.
    pub file: String,
    /// Index (0-based) of the packet that could not be read: the number of packets read.
    pub packet: u64,
    /// Offset of the block that could not be read (in the decompressed stream for gzip).
    pub offset: u64,
    /// Whether the file was gzip-compressed.
    pub gzip: bool,
    /// What went wrong.
    pub reason: String,
}

/// What reading one file produced.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadSummary {
    /// Packets handed to the callback.
    pub packets: u64,
    /// Bytes of the (decompressed) file consumed.
    pub bytes: u64,
    /// pcapng simple packet blocks (no timestamp, not analysed).
    pub untimed_packets: u64,
}

/// Opens `path` (gzip recognised by its magic number) and calls `on_packet` for every packet.
///
/// The returned summary counts what was read even when the error is set: packets before the
/// damage have been passed to `on_packet`.
pub fn read_file(
    path: &Path,
    on_packet: &mut dyn FnMut(Packet<'_>),
) -> (ReadSummary, Option<ReadError>) {
    let name = path.display().to_string();
    let fail = |reason: String| ReadError {
        file: name.clone(),
        packet: 0,
        offset: 0,
        gzip: false,
        reason,
    };
    let mut file = match File::open(path) {
        Ok(f) => f,
        Err(e) => {
            return (
                ReadSummary::default(),
                Some(fail(format!("cannot open: {e}"))),
            )
        }
    };
    let mut magic = [0u8; 2];
    let gzip = match file.read(&mut magic) {
        Ok(2) => magic == [0x1f, 0x8b],
        Ok(_) => false,
        Err(e) => {
            return (
                ReadSummary::default(),
                Some(fail(format!("cannot read: {e}"))),
            )
        }
    };
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) => {
            return (
                ReadSummary::default(),
                Some(fail(format!("cannot open: {e}"))),
            )
        }
    };
    if gzip {
        let gz = flate2::read::MultiGzDecoder::new(BufReader::new(file));
        read(gz, &name, true, on_packet)
    } else {
        read(file, &name, false, on_packet)
    }
}

/// Per pcapng interface: link type, and how to turn a timestamp into nanoseconds.
#[derive(Debug, Clone, Copy)]
struct Interface {
    linktype: i32,
    /// Timestamp units per second.
    resolution: u64,
    /// Seconds added to every timestamp (`if_tsoffset`).
    offset_s: i64,
}

/// Reads a capture from any byte stream (`name` only labels errors).
pub fn read<R: Read + Send>(
    input: R,
    name: &str,
    gzip: bool,
    on_packet: &mut dyn FnMut(Packet<'_>),
) -> (ReadSummary, Option<ReadError>) {
    let mut sum = ReadSummary::default();
    let err = |sum: &ReadSummary, reason: String| ReadError {
        file: name.to_string(),
        packet: sum.packets,
        offset: sum.bytes,
        gzip,
        reason,
    };
    let mut reader = match pcap_parser::create_reader(READ_BUFFER, input) {
        Ok(r) => r,
        Err(PcapError::Eof) => return (sum, Some(err(&sum, "empty file".into()))),
        Err(e) => return (sum, Some(err(&sum, describe(&e)))),
    };
    // Legacy pcap: one link type and resolution for the whole file.
    let mut legacy: Option<(i32, u64)> = None;
    let mut interfaces: Vec<Interface> = Vec::new();
    let mut buffer = READ_BUFFER;
    // (pcapng) Whether the current section is big-endian, once its header was read.
    let mut section_big_endian: Option<bool> = None;
    loop {
        if let Some(len) = section_big_endian.and_then(|big| short_block(reader.data(), big)) {
            let reason =
                format!("corrupt block (length {len}, shorter than its own 12-byte frame)");
            return (sum, Some(err(&sum, reason)));
        }
        let (len, outcome) = match reader.next() {
            Ok((len, block)) => {
                if let PcapBlockOwned::NG(Block::SectionHeader(h)) = &block {
                    section_big_endian = Some(h.big_endian());
                }
                (
                    len,
                    handle_block(block, &mut legacy, &mut interfaces, &mut sum, on_packet),
                )
            }
            Err(PcapError::Eof) => return (sum, None),
            Err(PcapError::Incomplete(_)) => {
                if let Err(e) = reader.refill() {
                    let reason = describe(&e);
                    return (sum, Some(err(&sum, reason)));
                }
                continue;
            }
            Err(PcapError::BufferTooSmall) => {
                if buffer >= MAX_BLOCK {
                    return (
                        sum,
                        Some(err(&sum, format!("a block larger than {MAX_BLOCK} bytes"))),
                    );
                }
                buffer = (buffer * 4).min(MAX_BLOCK);
                reader.grow(buffer);
                if let Err(e) = reader.refill() {
                    let reason = describe(&e);
                    return (sum, Some(err(&sum, reason)));
                }
                continue;
            }
            Err(PcapError::UnexpectedEof) => {
                return (
                    sum,
                    Some(err(&sum, "file ends inside a block (truncated)".into())),
                )
            }
            Err(e) => {
                let reason = describe(&e);
                return (sum, Some(err(&sum, reason)));
            }
        };
        if let Err(reason) = outcome {
            return (sum, Some(err(&sum, reason)));
        }
        reader.consume(len);
        sum.bytes += len as u64;
    }
}

/// Section header block type (the same in either byte order).
const SECTION_HEADER: [u8; 4] = [0x0a, 0x0d, 0x0d, 0x0a];

/// (pcapng) The length of the block at the start of `data` if it is below the 12 bytes that
/// every block's type and two length fields take. `pcap-parser` 0.17 subtracts 12 from it
/// unchecked for blocks whose fixed header is shorter (process information, 4 bytes): an
/// overflow panic with overflow checks on (found by fuzzing), and a request for
/// about 4 GiB more input without them. A section header is checked by its own parser.
fn short_block(data: &[u8], big_endian: bool) -> Option<u32> {
    if data.len() < 8 || data[..4] == SECTION_HEADER {
        return None;
    }
    let raw = [data[4], data[5], data[6], data[7]];
    let len = if big_endian {
        u32::from_be_bytes(raw)
    } else {
        u32::from_le_bytes(raw)
    };
    (len < 12).then_some(len)
}

fn describe<I>(e: &PcapError<I>) -> String {
    match e {
        PcapError::HeaderNotRecognized => "not a pcap or pcapng file".into(),
        PcapError::ReadError => "read error (or corrupt gzip stream)".into(),
        PcapError::UnexpectedEof | PcapError::Incomplete(_) => {
            "file ends inside a block (truncated)".into()
        }
        PcapError::NomError(_, k) | PcapError::OwnedNomError(_, k) => {
            format!("corrupt block ({k:?})")
        }
        PcapError::BufferTooSmall => "block too large".into(),
        PcapError::Eof => "end of file".into(),
    }
}

fn handle_block(
    block: PcapBlockOwned<'_>,
    legacy: &mut Option<(i32, u64)>,
    interfaces: &mut Vec<Interface>,
    sum: &mut ReadSummary,
    on_packet: &mut dyn FnMut(Packet<'_>),
) -> Result<(), String> {
    match block {
        PcapBlockOwned::LegacyHeader(h) => {
            let res = if h.is_nanosecond_precision() {
                1_000_000_000
            } else {
                1_000_000
            };
            *legacy = Some((h.network.0, res));
        }
        PcapBlockOwned::Legacy(b) => {
            let (linktype, res) = legacy.ok_or("packet before the file header")?;
            let frac = u64::from(b.ts_usec) * (1_000_000_000 / res);
            on_packet(Packet {
                ts_ns: i64::from(b.ts_sec) * 1_000_000_000 + frac as i64,
                linktype,
                data: b.data,
            });
            sum.packets += 1;
        }
        PcapBlockOwned::NG(Block::SectionHeader(_)) => interfaces.clear(),
        PcapBlockOwned::NG(Block::InterfaceDescription(i)) => {
            let resolution = i
                .ts_resolution()
                .filter(|r| *r > 0)
                .ok_or("interface with an invalid timestamp resolution")?;
            interfaces.push(Interface {
                linktype: i.linktype.0,
                resolution,
                offset_s: i.ts_offset(),
            });
        }
        PcapBlockOwned::NG(Block::EnhancedPacket(p)) => {
            let i = interfaces.get(p.if_id as usize).ok_or_else(|| {
                format!("packet on interface {} which was never described", p.if_id)
            })?;
            let units = (u64::from(p.ts_high) << 32) | u64::from(p.ts_low);
            let ns = u128::from(units) * 1_000_000_000 / u128::from(i.resolution);
            let ts_ns = i64::try_from(ns)
                .ok()
                .and_then(|n| n.checked_add(i.offset_s.checked_mul(1_000_000_000)?))
                .ok_or("timestamp out of range")?;
            // The block may be padded: the captured length says how much is packet.
            let caplen = (p.caplen as usize).min(p.data.len());
            on_packet(Packet {
                ts_ns,
                linktype: i.linktype,
                data: &p.data[..caplen],
            });
            sum.packets += 1;
        }
        PcapBlockOwned::NG(Block::SimplePacket(_)) => sum.untimed_packets += 1,
        PcapBlockOwned::NG(_) => {}
    }
    Ok(())
}
