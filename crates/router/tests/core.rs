//! The sans-IO router on hand-made packet sequences: real IPv4/TCP bytes in, released bytes
//! and times out.

use etherparse::PacketBuilder;
use proptest::prelude::*;
use router::{DisciplineSpec, Nanos, Offer, Router, RouterConfig};

const MS: Nanos = 1_000_000;

/// A TCP packet of connection `port` with `payload` bytes at sequence `seq` (SYN when `syn`).
fn tcp(port: u16, seq: u32, syn: bool, payload: usize) -> Vec<u8> {
    let b = PacketBuilder::ipv4([198, 18, 1, 1], [198, 18, 2, 1], 64).tcp(port, 80, seq, 1000);
    let b = if syn { b.syn() } else { b.ack(1) };
    let mut v = Vec::new();
    b.write(&mut v, &vec![7u8; payload]).unwrap();
    v
}

fn port_of(p: &[u8]) -> u16 {
    u16::from_be_bytes([p[20], p[21]])
}

fn seq_of(p: &[u8]) -> u32 {
    u32::from_be_bytes([p[24], p[25], p[26], p[27]])
}

/// Packets released, with the time of the poll that released them.
type Released = Vec<(Nanos, Vec<u8>)>;

/// Offers `arrivals` (time, packet) in order, polling at every `step`; returns (time, packet).
fn replay(
    r: &mut Router<Vec<u8>>,
    arrivals: Vec<(Nanos, Vec<u8>)>,
    until: Nanos,
    step: Nanos,
) -> (Released, Vec<Vec<u8>>) {
    let mut out = Vec::new();
    let mut dropped = Vec::new();
    let mut it = arrivals.into_iter().peekable();
    let mut t = 0;
    while t <= until {
        while it.peek().is_some_and(|(at, _)| *at <= t) {
            let (at, p) = it.next().unwrap();
            r.offer(at, p, &mut dropped);
        }
        while let Some(p) = r.poll(t) {
            out.push((t, p));
        }
        t += step;
    }
    (out, dropped)
}

/// One MSS-sized packet (1448 B payload + 40 B headers = 1488 B) takes 1488 µs at 1 MB/s.
fn cfg(discipline: DisciplineSpec, buffer: usize) -> RouterConfig {
    RouterConfig {
        rate_bytes_per_s: 1_000_000,
        delay: 20 * MS,
        discipline,
        buffer_packets: buffer,
        ..RouterConfig::default()
    }
}

#[test]
fn delay_and_rate_hold_for_a_train_of_segments() {
    let mut r = Router::new(cfg(DisciplineSpec::DropTail, 100));
    let mut arrivals = vec![(0, tcp(1, 999, true, 0))];
    for i in 0..10u32 {
        arrivals.push((0, tcp(1, 1000 + i * 1448, false, 1448)));
    }
    let (out, dropped) = replay(&mut r, arrivals, 100 * MS, 1000);
    assert!(dropped.is_empty());
    assert_eq!(out.len(), 11);
    // The SYN (40 B, 40 µs) leaves first, then each segment 1488 µs after the one before it;
    // each is released 20 ms after its last bit (within the 1 µs polling step).
    let mut finish = 40_000u64;
    assert_eq!(out[0].0, 20 * MS + 40_000); // SYN: 40 µs on the wire, then 20 ms
    for (i, (t, p)) in out[1..].iter().enumerate() {
        finish += 1_488_000;
        let due = finish + 20 * MS;
        assert!(*t >= due && *t < due + 1000, "segment {i}: {t} vs {due}");
        assert_eq!(seq_of(p), 1000 + i as u32 * 1448, "order kept");
    }
    let s = r.stats();
    assert_eq!(
        (s.link.released, s.link.queue_drops, s.malformed),
        (11, 0, 0)
    );
    assert_eq!(s.link.released_bytes, 40 + 10 * 1488);
}

#[test]
fn run2c_lets_a_new_flow_pass_a_long_flows_backlog() {
    // Threshold 3 segments: flow 1 is past it after its first three segments.
    let spec = DisciplineSpec::Run2c {
        threshold_packets: 3,
    };
    let mut r = Router::new(cfg(spec, 100));
    let mut arrivals = vec![(0, tcp(1, 0, true, 0))];
    for i in 0..20u32 {
        arrivals.push((0, tcp(1, 1 + i * 1448, false, 1448)));
    }
    // A new connection at 5 ms: its SYN and first segments overtake flow 1's low class.
    arrivals.push((5 * MS, tcp(2, 0, true, 0)));
    arrivals.push((5 * MS, tcp(2, 1, false, 1448)));
    arrivals.push((5 * MS, tcp(2, 1449, false, 1448)));
    let (out, _) = replay(&mut r, arrivals, 200 * MS, 10_000);
    let order: Vec<(u16, u32)> = out.iter().map(|(_, p)| (port_of(p), seq_of(p))).collect();
    let pos = |port, seq| order.iter().position(|x| *x == (port, seq)).unwrap();
    // Flow 2 is served right after the packet on the wire at 5 ms.
    assert!(pos(2, 1449) < pos(1, 1 + 6 * 1448), "{order:?}");
    // Under drop-tail the same sequence keeps arrival order.
    assert_eq!(r.stats().drops_first + r.stats().drops_rest, 0);
    let mut r = Router::new(cfg(DisciplineSpec::DropTail, 100));
    let mut arrivals = vec![(0, tcp(1, 0, true, 0))];
    for i in 0..20u32 {
        arrivals.push((0, tcp(1, 1 + i * 1448, false, 1448)));
    }
    arrivals.push((5 * MS, tcp(2, 1, false, 1448)));
    let (out, _) = replay(&mut r, arrivals, 200 * MS, 10_000);
    assert_eq!(port_of(&out.last().unwrap().1), 2);
}

#[test]
fn run2c_pushes_out_the_long_flows_tail_when_full() {
    let spec = DisciplineSpec::Run2c {
        threshold_packets: 2,
    };
    let mut r = Router::new(cfg(spec, 3));
    let mut d = Vec::new();
    r.offer(0, tcp(1, 0, true, 0), &mut d); // SYN: on the wire at once
    for i in 0..6u32 {
        r.offer(0, tcp(1, 1 + i * 1448, false, 1448), &mut d);
    }
    // Buffer 3: segments 0, 1 (priority) and 2 (low) held; 3.., each the low tail, dropped.
    assert_eq!(d.len(), 3);
    r.offer(0, tcp(2, 0, true, 0), &mut d); // pushes out flow 1's low segment 2
    assert_eq!(d.len(), 4);
    assert_eq!(seq_of(&d[3]), 1 + 2 * 1448);
    let s = r.stats();
    assert_eq!(s.link.queue_drops, 4);
    // Every drop was past the threshold (2 segments): flow 1's third segment and beyond.
    assert_eq!((s.drops_first, s.drops_rest), (0, 4));
}

#[test]
fn garbage_is_dropped_and_counted() {
    let mut r = Router::new(cfg(DisciplineSpec::DropTail, 10));
    let mut d = Vec::new();
    assert_eq!(r.offer(0, vec![1, 2, 3], &mut d), Offer::Malformed);
    assert_eq!(d, vec![vec![1, 2, 3]]);
    assert_eq!(r.stats().malformed, 1);
    assert_eq!(r.held_packets(), 0);
}

proptest! {
    /// Drop-tail with a buffer that never fills is the textbook single-server queue:
    /// finish_i = max(arrival_i, finish_{i-1}) + size_i / rate, released delay later, in order.
    #[test]
    fn droptail_matches_the_fifo_model(
        gaps in prop::collection::vec(0u64..3_000_000, 1..60),
        payloads in prop::collection::vec(0usize..1448, 60),
        delay_ms in 0u64..50,
    ) {
        let mut r = Router::new(RouterConfig {
            rate_bytes_per_s: 1_000_000,
            delay: delay_ms * MS,
            discipline: DisciplineSpec::DropTail,
            buffer_packets: 1000,
            ..RouterConfig::default()
        });
        let mut t = 0;
        let mut arrivals = Vec::new();
        let mut due = Vec::new();
        let mut finish = 0u64;
        for (i, g) in gaps.iter().enumerate() {
            t += g;
            let p = tcp(i as u16, 0, false, payloads[i]);
            finish = finish.max(t) + p.len() as u64 * 1000;
            due.push(finish + delay_ms * MS);
            arrivals.push((t, p));
        }
        let until = due.last().copied().unwrap() + MS;
        let (out, dropped) = replay(&mut r, arrivals, until, 1000);
        prop_assert!(dropped.is_empty());
        prop_assert_eq!(out.len(), due.len());
        for (i, (at, p)) in out.iter().enumerate() {
            prop_assert_eq!(port_of(p) as usize, i);
            prop_assert!(*at >= due[i] && *at < due[i] + 1000, "{} vs {}", at, due[i]);
        }
    }

    /// Whatever the discipline and load, every offered packet is released or dropped, once.
    #[test]
    fn every_packet_is_released_or_dropped_once(
        spec in prop::sample::select(vec!["droptail", "run", "run2c:2"]),
        buffer in 1usize..8,
        pkts in prop::collection::vec((0u64..500_000, 0u16..4, 0u32..8, 0usize..1448), 1..80),
    ) {
        let mut r = Router::new(cfg(spec.parse().unwrap(), buffer));
        let mut t = 0;
        let mut arrivals = Vec::new();
        for (i, (gap, port, k, len)) in pkts.iter().enumerate() {
            t += gap;
            let mut p = tcp(*port, k * 1448, i % 7 == 0, *len);
            p[4..6].copy_from_slice(&(i as u16).to_be_bytes()); // IP id: the packet's index
            arrivals.push((t, p));
        }
        let n = arrivals.len();
        let (out, dropped) = replay(&mut r, arrivals, t + 200 * MS, 50_000);
        let mut seen: Vec<u16> = out.iter().map(|(_, p)| &p[..])
            .chain(dropped.iter().map(|p| &p[..]))
            .map(|p| u16::from_be_bytes([p[4], p[5]]))
            .collect();
        seen.sort_unstable();
        prop_assert_eq!(seen, (0..n as u16).collect::<Vec<_>>());
        prop_assert_eq!(r.held_packets(), 0);
    }
}

/// Edge mode: every packet leaves after the delay in arrival order, with its class in the
/// DSCP (first class: the first 2 segments of the connection), a valid IPv4 checksum, and no
/// queue of the router's own, however fast the packets come.
#[test]
fn edge_mode_marks_and_forwards_without_queueing() {
    use router::mark::dscp;
    let mut r = Router::new(RouterConfig {
        rate_bytes_per_s: 0,
        delay: 5 * MS,
        discipline: "run2c:2".parse().unwrap(),
        buffer_packets: 1,
        mark: Some(router::Marking::default()),
        ..RouterConfig::default()
    });
    let isn = 1_000_000u32;
    let mut arrivals = vec![(0, tcp(7, isn, true, 0))];
    for k in 0..6u32 {
        arrivals.push((0, tcp(7, isn + 1 + k * 1448, false, 1448)));
    }
    let (out, dropped) = replay(&mut r, arrivals, 20 * MS, MS / 2);
    assert!(
        dropped.is_empty(),
        "a 1-packet buffer and no drop: no queue"
    );
    assert_eq!(out.len(), 7);
    assert!(out.iter().all(|(t, _)| *t == 5 * MS));
    let seqs: Vec<u32> = out.iter().map(|(_, p)| seq_of(p)).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "arrival order");
    let marks: Vec<u8> = out.iter().map(|(_, p)| dscp(p).unwrap()).collect();
    assert_eq!(marks, vec![4, 4, 4, 0, 0, 0, 0]);
    for (_, p) in &out {
        let h = etherparse::Ipv4HeaderSlice::from_slice(p)
            .unwrap()
            .to_header();
        assert_eq!(h.header_checksum, h.calc_header_checksum());
    }
    let s = r.stats();
    assert_eq!(
        (s.marked_first, s.marked_rest, s.link.queue_drops),
        (3, 4, 0)
    );
}

/// Edge mode with PIN classification: the mark follows the mask on the sequence number.
#[test]
fn edge_mode_with_pin_marks_by_the_mask() {
    use router::{mark::dscp, ClassifyMode, PinScheme};
    let scheme = PinScheme::new(17, 1, 14, 0).unwrap(); // th 16 KiB, blocks of 32 KiB
    let mut r = Router::new(RouterConfig {
        mode: ClassifyMode::Pin(scheme),
        mark: Some(router::Marking::new(46, 8).unwrap()),
        ..RouterConfig::default()
    });
    let isn = scheme.isn(0xdead_beef);
    let offsets = [1u32, 16_000, 16_385, 32_000, 32_769, 49_153];
    let arrivals = offsets
        .iter()
        .map(|&o| (0, tcp(9, isn.wrapping_add(o), false, 100)))
        .collect();
    let (out, _) = replay(&mut r, arrivals, MS, MS);
    let marks: Vec<u8> = out.iter().map(|(_, p)| dscp(p).unwrap()).collect();
    assert_eq!(marks, vec![46, 46, 8, 8, 46, 8]);
}
