//! Exact counts on hand-built captures: every link type and file format gives the same
//! answer, and that answer is the one worked out by hand below.

use std::io::Write;
use std::path::{Path, PathBuf};

use trace::analysis::NS;
use trace::decode::{flags, linktype};
use trace::synth::{self, PcapNgWriter, PcapWriter, Tcp};
use trace::{analyze_files, Config, Report};

/// A packet of a scenario: time, whether IPv6, source and destination host numbers, TCP.
#[derive(Clone, Copy)]
struct Pkt {
    t: i64,
    src: u8,
    dst: u8,
    tcp: Tcp,
}

fn ms(x: i64) -> i64 {
    x * 1_000_000
}

/// A request–response connection: SYN, SYN-ACK, a `req`-byte request from the client at
/// `start`, then `n` segments of `seg` bytes from the server every `dt`, FINs and a last ACK.
/// Active from `start` to `start + n·dt`.
#[allow(clippy::too_many_arguments)]
fn conn(
    client: u8,
    server: u8,
    cport: u16,
    start: i64,
    req: u16,
    n: u32,
    seg: u16,
    dt: i64,
) -> Vec<Pkt> {
    let p = |t, up: bool, seq, f, len| Pkt {
        t,
        src: if up { client } else { server },
        dst: if up { server } else { client },
        tcp: Tcp {
            sport: if up { cport } else { 80 },
            dport: if up { 80 } else { cport },
            seq,
            flags: f,
            len,
        },
    };
    let (ci, si) = (1000u32, 5000u32);
    let mut v = vec![
        p(start - ms(20), true, ci, flags::SYN, 0),
        p(start - ms(10), false, si, flags::SYN | flags::ACK, 0),
        p(start, true, ci + 1, flags::ACK, req),
    ];
    for i in 0..n {
        v.push(p(
            start + dt * i64::from(i + 1),
            false,
            si + 1 + i * u32::from(seg),
            flags::ACK,
            seg,
        ));
    }
    let end = start + dt * i64::from(n);
    let fin_seq = si + 1 + n * u32::from(seg);
    v.push(p(end + ms(1), false, fin_seq, flags::FIN | flags::ACK, 0));
    v.push(p(
        end + ms(2),
        true,
        ci + 1 + u32::from(req),
        flags::FIN | flags::ACK,
        0,
    ));
    v.push(p(end + ms(3), false, fin_seq + 1, flags::ACK, 0));
    v
}

fn sorted(mut v: Vec<Pkt>) -> Vec<Pkt> {
    v.sort_by_key(|p| p.t);
    v
}

fn host4(h: u8) -> [u8; 4] {
    [10, 0, 0, h]
}

fn host6(h: u8) -> [u8; 16] {
    let mut a = [0u8; 16];
    a[0] = 0x20;
    a[1] = 0x01;
    a[2] = 0x0d;
    a[3] = 0xb8;
    a[15] = h;
    a
}

#[derive(Clone, Copy, PartialEq)]
enum Ip {
    V4,
    V6,
    V6Ext,
}

fn ip_packet(p: &Pkt, ip: Ip) -> Vec<u8> {
    match ip {
        Ip::V4 => synth::ipv4(host4(p.src), host4(p.dst), &p.tcp),
        Ip::V6 => synth::ipv6(host6(p.src), host6(p.dst), &p.tcp, false),
        Ip::V6Ext => synth::ipv6(host6(p.src), host6(p.dst), &p.tcp, true),
    }
}

fn frame(p: &Pkt, ip: Ip, lt: i32) -> Vec<u8> {
    let pkt = ip_packet(p, ip);
    match lt {
        linktype::ETHERNET => synth::ethernet(&pkt),
        linktype::LINUX_SLL => synth::sll(&pkt),
        linktype::LINUX_SLL2 => synth::sll2(&pkt),
        _ => pkt,
    }
}

/// Base of every timestamp (a realistic epoch time).
const EPOCH: i64 = 1_700_000_000 * NS;

fn pcap_bytes(pkts: &[Pkt], ip: Ip, lt: i32, snaplen: u32, nanos: bool) -> Vec<u8> {
    let mut w = PcapWriter::new(Vec::new(), lt, snaplen, nanos).unwrap();
    for p in pkts {
        w.packet(EPOCH + p.t, &frame(p, ip, lt), u32::from(p.tcp.len))
            .unwrap();
    }
    w.into_inner()
}

struct Tmp(PathBuf);
impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn tmp(name: &str, bytes: &[u8]) -> Tmp {
    let p = std::env::temp_dir().join(format!("trace-test-{}-{name}", std::process::id()));
    std::fs::write(&p, bytes).unwrap();
    Tmp(p)
}

fn analyse(bytes: &[u8], name: &str, cfg: Config) -> (Report, Vec<trace::ReadError>) {
    let f = tmp(name, bytes);
    analyze_files(std::slice::from_ref(&f.0), cfg)
}

fn ok(bytes: &[u8], name: &str) -> Report {
    let (r, e) = analyse(bytes, name, Config::default());
    assert!(e.is_empty(), "{e:?}");
    r
}

/// One route: A [1, 2.5] and B [2, 3.5] overlap, C [5, 6.5] does not.
fn one_route() -> Vec<Pkt> {
    let mut v = conn(1, 2, 40000, ms(1000), 100, 3, 1448, ms(500));
    v.extend(conn(1, 2, 40001, ms(2000), 200, 3, 1448, ms(500)));
    v.extend(conn(1, 2, 40002, ms(5000), 300, 3, 1000, ms(500)));
    sorted(v)
}

const ONE_ROUTE_BYTES: u64 = 100 + 3 * 1448 + 200 + 3 * 1448 + 300 + 3 * 1000;

#[test]
fn one_route_overlapping_and_not() {
    let r = ok(
        &pcap_bytes(&one_route(), Ip::V4, linktype::ETHERNET, 65535, false),
        "one",
    );
    let t = &r.total;
    assert_eq!((t.routes, t.routes_competing), (1, 1));
    assert_eq!((t.flows, t.flows_competing), (3, 2));
    assert_eq!(t.bytes, ONE_ROUTE_BYTES);
    assert_eq!(t.bytes_competing, 100 + 3 * 1448 + 200 + 3 * 1448);
    assert_eq!(t.connections_without_data, 0);
    // One flow alone: [1, 2) and (2.5, 3.5] and [5, 6.5]; two at once: [2, 2.5].
    assert_eq!(t.concurrency_ns[1], 3_500_000_000);
    assert_eq!(t.concurrency_ns[2], 500_000_000);
    assert_eq!(t.peak_concurrency, 2);
    assert_eq!(r.counters.ended_closed, 3);
    // Segment sizes: three requests, six 1448-byte and three 1000-byte segments.
    let s = &r.segments;
    assert_eq!(s.total(), 12);
    assert_eq!((s.counts[1448], s.counts[1000], s.counts[100]), (6, 3, 1));
    assert_eq!(s.full(), 9);
    assert_eq!(s.by_mss[&1448].directions, 2);
    assert_eq!(s.unknown_mss_segments, 3);
}

#[test]
fn several_routes() {
    let mut v = conn(1, 9, 40000, ms(1000), 100, 3, 1448, ms(500)); // route 1-9: A
    v.extend(conn(1, 9, 40001, ms(2000), 100, 3, 1448, ms(500))); // route 1-9: B, overlaps A
    v.extend(conn(2, 9, 40000, ms(1500), 100, 3, 1448, ms(500))); // route 2-9: alone
    v.extend(conn(3, 9, 40000, ms(1000), 100, 2, 1448, ms(500))); // route 3-9: E [1, 2]
    v.extend(conn(3, 9, 40001, ms(2100), 100, 2, 1448, ms(500))); // route 3-9: F [2.1, 3.1]
    let r = ok(
        &pcap_bytes(&sorted(v), Ip::V4, linktype::ETHERNET, 96, false),
        "routes",
    );
    let t = &r.total;
    assert_eq!((t.routes, t.routes_competing), (3, 1));
    assert_eq!((t.flows, t.flows_competing), (5, 2));
    assert_eq!(t.bytes, 5 * 100 + 13 * 1448);
    assert_eq!(t.bytes_competing, 2 * (100 + 3 * 1448));
}

#[test]
fn retransmissions_count_on_the_wire_once_in_the_flow_size() {
    let mut v = conn(1, 2, 40000, ms(1000), 100, 3, 1448, ms(100));
    // The second data segment again at 1.5 s (after the FINs' times: move them later).
    for p in v
        .iter_mut()
        .filter(|p| p.tcp.flags & flags::FIN != 0 || p.tcp.len == 0 && p.t > ms(1000))
    {
        p.t += ms(1000);
    }
    let mut rtx = v[4];
    rtx.t = ms(1500);
    v.push(rtx);
    let cfg = Config {
        keep_flows: true,
        ..Config::default()
    };
    let (r, e) = analyse(
        &pcap_bytes(&sorted(v), Ip::V4, linktype::ETHERNET, 65535, true),
        "rtx",
        cfg,
    );
    assert!(e.is_empty());
    assert_eq!(r.total.flows, 1);
    assert_eq!(r.total.bytes, 100 + 4 * 1448);
    assert_eq!(r.flows.len(), 1);
    assert_eq!(r.flows[0].size, 100 + 3 * 1448);
    // Active from the request (1.0 s) to the retransmission (1.5 s).
    assert_eq!(r.flows[0].last_data_ns - r.flows[0].first_data_ns, ms(500));
    assert_eq!(r.segments.by_mss[&1448].full, 4);
}

#[test]
fn every_link_type_ip_version_and_format_gives_the_same_answer() {
    let pkts = one_route();
    let base = ok(
        &pcap_bytes(&pkts, Ip::V4, linktype::ETHERNET, 65535, false),
        "base",
    );
    let same = |r: &Report, what: &str| {
        assert_eq!(r.total, base.total, "{what}");
        assert_eq!(r.segments, base.segments, "{what}");
        assert_eq!(r.counters.tcp_segments, pkts.len() as u64, "{what}");
    };
    for (ip, name) in [(Ip::V4, "v4"), (Ip::V6, "v6"), (Ip::V6Ext, "v6ext")] {
        for lt in [
            linktype::ETHERNET,
            linktype::LINUX_SLL,
            linktype::LINUX_SLL2,
            linktype::RAW,
        ] {
            // A short snap length that cuts the TCP options (the 14 bytes read stay whole).
            let short = match ip {
                Ip::V4 => 64,
                Ip::V6 => 78,
                Ip::V6Ext => 96,
            };
            for snap in [short, 65535] {
                let what = format!("{name} linktype {lt} snaplen {snap}");
                let r = ok(
                    &pcap_bytes(&pkts, ip, lt, snap, snap < 100),
                    &what.replace(' ', "-"),
                );
                same(&r, &what);
            }
        }
    }
    // Too short to hold TCP's flags (Ethernet + IPv6 + 16 bytes of extensions = 70 > 64):
    // every packet is malformed, none is counted.
    let r = ok(
        &pcap_bytes(&pkts, Ip::V6Ext, linktype::ETHERNET, 64, false),
        "v6short",
    );
    assert_eq!(r.counters.skipped_malformed, pkts.len() as u64);
    assert_eq!(r.total.flows, 0);
    // pcapng: two interfaces (Ethernet in microseconds, cooked v2 in nanoseconds), packets
    // alternating between them.
    let mut w = PcapNgWriter::new(Vec::new()).unwrap();
    let eth = w.interface(linktype::ETHERNET, 96, 6).unwrap();
    let cooked = w.interface(linktype::LINUX_SLL2, 96, 9).unwrap();
    for (i, p) in pkts.iter().enumerate() {
        let (id, lt) = if i % 2 == 0 {
            (eth, linktype::ETHERNET)
        } else {
            (cooked, linktype::LINUX_SLL2)
        };
        w.packet(
            id,
            EPOCH + p.t,
            &frame(p, Ip::V6Ext, lt),
            u32::from(p.tcp.len),
        )
        .unwrap();
    }
    same(&ok(&w.into_inner(), "ng"), "pcapng");
    // gzip.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&pcap_bytes(&pkts, Ip::V4, linktype::ETHERNET, 80, false))
        .unwrap();
    same(&ok(&gz.finish().unwrap(), "gz"), "gzip");
}

#[test]
fn a_truncated_file_counts_what_was_read_and_says_where_it_stopped() {
    let pkts = one_route();
    let bytes = pcap_bytes(&pkts, Ip::V4, linktype::ETHERNET, 65535, false);
    // Offsets of every record.
    let mut offsets = vec![24u64];
    for p in &pkts {
        let len = 16 + frame(p, Ip::V4, linktype::ETHERNET).len() as u64;
        offsets.push(offsets.last().unwrap() + len);
    }
    assert_eq!(*offsets.last().unwrap(), bytes.len() as u64);
    // Cut inside packet 10's record, and inside packet 10's record header.
    for cut in [offsets[10] + 20, offsets[10] + 5] {
        let (r, e) = analyse(
            &bytes[..cut as usize],
            &format!("cut{cut}"),
            Config::default(),
        );
        assert_eq!(e.len(), 1);
        assert_eq!((e[0].packet, e[0].offset), (10, offsets[10]), "{}", e[0]);
        assert_eq!(r.counters.packets, 10);
        // The first ten packets: A's handshake, request and data, B's handshake... worked out
        // from the scenario's order.
        let data: u64 = pkts[..10].iter().filter(|p| p.tcp.len > 0).count() as u64;
        assert_eq!(r.counters.data_segments, data);
        let msg = e[0].to_string();
        assert!(
            msg.contains("packet 10") && msg.contains(&format!("byte offset {}", offsets[10])),
            "{msg}"
        );
    }
    // The same cut through gzip: the offset is in the decompressed stream.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&bytes[..offsets[7] as usize + 3]).unwrap();
    let (r, e) = analyse(&gz.finish().unwrap(), "cutgz", Config::default());
    assert_eq!((e[0].packet, e[0].offset, e[0].gzip), (7, offsets[7], true));
    assert_eq!(r.counters.packets, 7);
    // A gzip stream cut in the middle.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&bytes).unwrap();
    let z = gz.finish().unwrap();
    let (_, e) = analyse(&z[..z.len() / 2], "halfgz", Config::default());
    assert_eq!(e.len(), 1);
    // Not a capture at all; an empty file; a missing file.
    let (r, e) = analyse(
        b"hello, this is not a capture file at all",
        "text",
        Config::default(),
    );
    assert_eq!((e.len(), r.counters.packets), (1, 0));
    assert_eq!(analyse(b"", "empty", Config::default()).1.len(), 1);
    let (_, e) = analyze_files(
        &[Path::new("/nonexistent/x.pcap").to_path_buf()],
        Config::default(),
    );
    assert!(e[0].reason.contains("cannot open"));
}

#[test]
fn a_corrupt_record_length_is_an_error_not_a_hang() {
    let pkts = one_route();
    let mut bytes = pcap_bytes(&pkts, Ip::V4, linktype::ETHERNET, 65535, false);
    let at = 24 + 3 * (16 + frame(&pkts[0], Ip::V4, linktype::ETHERNET).len());
    // Packet 3's captured length: 2^31.
    bytes[at + 8..at + 12].copy_from_slice(&0x8000_0000u32.to_le_bytes());
    let (r, e) = analyse(&bytes, "corrupt", Config::default());
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].packet, 3);
    assert_eq!(r.counters.packets, 3);
}

#[test]
fn idle_timeout_and_port_reuse_end_flows() {
    // A flow with no FIN and a 100 s silence in the middle.
    let mut v: Vec<Pkt> = conn(1, 2, 40000, ms(1000), 100, 2, 1448, ms(100))
        .into_iter()
        .filter(|p| p.tcp.flags & flags::FIN == 0 && !(p.tcp.len == 0 && p.t > ms(1000)))
        .collect();
    let mut late = v[3];
    late.t = ms(101_000);
    late.tcp.seq += 2 * 1448;
    v.push(late);
    let bytes = pcap_bytes(&sorted(v), Ip::V4, linktype::ETHERNET, 65535, false);
    let (r, _) = analyse(&bytes, "idle60", Config::default());
    assert_eq!((r.total.flows, r.counters.ended_idle), (2, 1));
    let cfg = Config {
        idle_timeout_ns: 200 * NS,
        ..Config::default()
    };
    let (r, _) = analyse(&bytes, "idle200", cfg);
    assert_eq!(r.total.flows, 1);
    // The same ports again 0.5 s after a clean close, with a new ISN: two flows.
    let mut v = conn(1, 2, 40000, ms(1000), 100, 2, 1448, ms(100));
    let mut again = conn(1, 2, 40000, ms(2000), 100, 2, 1448, ms(100));
    for p in &mut again {
        p.tcp.seq = p.tcp.seq.wrapping_add(7_000_000);
    }
    v.extend(again);
    let r = ok(
        &pcap_bytes(&sorted(v), Ip::V4, linktype::ETHERNET, 65535, false),
        "reuse",
    );
    assert_eq!((r.total.flows, r.total.flows_competing), (2, 0));
    // The first closed with its FINs; its last ACK went to its tombstone, the new SYN did not.
    assert_eq!((r.counters.ended_closed, r.counters.after_close), (2, 2));
}

#[test]
fn windows_are_separate_captures() {
    let cfg = Config {
        // The first packet is at 0.98 s: windows [0.98, 4.98) and [4.98, 8.98).
        window_ns: Some(4 * NS),
        ..Config::default()
    };
    let (r, e) = analyse(
        &pcap_bytes(&one_route(), Ip::V4, linktype::ETHERNET, 65535, false),
        "win",
        cfg,
    );
    assert!(e.is_empty());
    assert_eq!(r.windows.len(), 2);
    let (w0, w1) = (&r.windows[0].table, &r.windows[1].table);
    assert_eq!(
        (w0.routes, w0.routes_competing, w0.flows, w0.flows_competing),
        (1, 1, 2, 2)
    );
    assert_eq!(
        (w1.routes, w1.routes_competing, w1.flows, w1.flows_competing),
        (1, 0, 1, 0)
    );
    assert_eq!(r.total.flows, 3);
    assert_eq!(r.total.routes, 2, "a route in two windows counts in each");
}

#[test]
fn the_flow_list_is_sorted_and_numbers_routes() {
    let mut v = conn(5, 9, 40000, ms(3000), 100, 2, 1448, ms(100));
    v.extend(conn(4, 9, 40000, ms(1000), 10, 1, 500, ms(100)));
    v.extend(conn(5, 9, 40001, ms(2000), 20, 1, 700, ms(100)));
    let cfg = Config {
        keep_flows: true,
        ..Config::default()
    };
    let (r, _) = analyse(
        &pcap_bytes(&sorted(v), Ip::V4, linktype::ETHERNET, 65535, false),
        "list",
        cfg,
    );
    let (lines, routes) = trace::flowlist::flow_list(&r.flows, r.first_ns.unwrap());
    let got: Vec<(i64, u64, u32)> = lines
        .iter()
        .map(|l| ((l.arrival_s * 1000.0).round() as i64, l.size, l.source))
        .collect();
    // The capture starts with the first SYN, 20 ms before the first request.
    assert_eq!(
        got,
        vec![(20, 510, 0), (1020, 720, 1), (2020, 100 + 2 * 1448, 1)]
    );
    assert_eq!(routes.len(), 2);
    let mut out = Vec::new();
    trace::flowlist::write_flow_list(&mut out, &lines, &routes).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("# route 0: 10.0.0.4 <-> 10.0.0.9"));
    assert!(text.contains("\n0.020000000,510,0\n"));
}

/// Found by the `trace_decoder` fuzz target (issue 16), input
/// `crash-265441312480e0cc161132460125b41b4cd20bdf`: a pcapng process-information block whose
/// length field (6) is below the 12 bytes of every block's own frame made `pcap-parser` 0.17
/// subtract 12 from it unchecked (an overflow panic with overflow checks on; without them, a
/// request for about 4 GiB more input). The reader refuses such a block as corrupt, in either
/// byte order, and still reads the packets before it.
#[test]
fn a_pcapng_block_shorter_than_its_own_frame_is_corrupt_not_a_panic() {
    for big in [false, true] {
        let u32b = |v: u32| {
            if big {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            }
        };
        let u16b = |v: u16| {
            if big {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            }
        };
        let mut file = Vec::new();
        // Section header: type, length 28, byte-order magic, version 1.0, section length -1.
        file.extend_from_slice(&[0x0a, 0x0d, 0x0d, 0x0a]);
        file.extend_from_slice(&u32b(28));
        file.extend_from_slice(&u32b(0x1a2b_3c4d));
        file.extend_from_slice(&u16b(1));
        file.extend_from_slice(&u16b(0));
        file.extend_from_slice(&[0xff; 8]);
        file.extend_from_slice(&u32b(28));
        // Process information block (0x80000001) claiming 6 bytes.
        file.extend_from_slice(&u32b(0x8000_0001));
        file.extend_from_slice(&u32b(6));
        file.extend_from_slice(&[0x34, 0xcd, 0x00, 0x00]);
        let (sum, err) = trace::reader::read(&file[..], "short-block", false, &mut |_| {});
        let err = err.expect("a corrupt block is an error");
        assert_eq!(sum.packets, 0);
        assert!(err.reason.contains("corrupt block"), "{err}");
        assert_eq!(
            err.offset, 28,
            "the error points at the block after the header"
        );
    }
}
