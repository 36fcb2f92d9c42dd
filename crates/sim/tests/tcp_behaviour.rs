//! Hand-checkable TCP behaviour on a single flow.

mod common;

use common::*;
use sim::queue::DropRule;
use sim::tcp::TcpConfig;
use sim::time::millis;

#[test]
fn slow_start_doubles_per_rtt() {
    let r = one_flow(&tcp(), 126, vec![]);
    // IW = 2, one ACK per segment, no loss: 2, 4, 8, 16, 32, 64 segments per round trip.
    assert_eq!(
        rounds(&r.injections, millis(10.0)),
        vec![2, 4, 8, 16, 32, 64]
    );
    assert!(r.injections.iter().all(|i| !i.retx));
    assert_eq!(r.conns[0].retransmits, 0);
    // Six rounds of ~24.2 ms RTT (+ serialisation): the flow takes about 6 RTTs.
    let c = r.flows[0].completion().unwrap();
    assert!(
        c > millis(6.0 * 24.0) && c < millis(6.0 * 24.0 + 20.0),
        "completion {c}"
    );
}

#[test]
fn single_drop_recovered_by_fast_retransmit() {
    let cfg = TcpConfig {
        max_window: Some(20),
        ..tcp()
    };
    let lost = 30 * MSS as u64;
    let r = one_flow(
        &cfg,
        100,
        vec![DropRule::Data {
            conn: 0,
            seq: lost,
            occurrence: 0,
        }],
    );
    let c = &r.conns[0];
    assert_eq!(c.fast_retransmits, 1, "{c:?}");
    assert_eq!(c.timeouts, 0);
    assert_eq!(c.retransmits, 1);
    assert_eq!(c.injected_packets, 101);
    let retx: Vec<_> = r.injections.iter().filter(|i| i.retx).collect();
    assert_eq!(retx.len(), 1);
    assert_eq!(retx[0].seq, lost);
    assert!(r.flows[0].finished.is_some());
    // The retransmission left about one RTT after the original (three dupacks), far sooner
    // than any RTO.
    let orig = r
        .injections
        .iter()
        .find(|i| i.seq == lost && !i.retx)
        .unwrap();
    let gap = retx[0].time - orig.time;
    assert!(gap > millis(24.0) && gap < millis(30.0), "gap {gap}");
}

#[test]
fn two_drops_in_one_window_partial_ack() {
    let cfg = TcpConfig {
        max_window: Some(20),
        ..tcp()
    };
    let (a, b) = (40 * MSS as u64, 44 * MSS as u64);
    let drops = [a, b]
        .map(|seq| DropRule::Data {
            conn: 0,
            seq,
            occurrence: 0,
        })
        .to_vec();
    let r = one_flow(&cfg, 100, drops);
    let c = &r.conns[0];
    // NewReno: one fast recovery, the second hole repaired on the partial ACK, no timeout.
    assert_eq!(
        (c.fast_retransmits, c.timeouts, c.retransmits),
        (1, 0, 2),
        "{c:?}"
    );
    let retx: Vec<_> = r
        .injections
        .iter()
        .filter(|i| i.retx)
        .map(|i| i.seq)
        .collect();
    assert_eq!(retx, vec![a, b]);
}

#[test]
fn tail_drop_recovered_by_rto() {
    let cfg = tcp();
    let baseline = one_flow(&cfg, 30, vec![]).flows[0].completion().unwrap();
    let last = 29 * MSS as u64;
    let r = one_flow(
        &cfg,
        30,
        vec![DropRule::Data {
            conn: 0,
            seq: last,
            occurrence: 0,
        }],
    );
    let c = &r.conns[0];
    assert_eq!(
        (c.timeouts, c.fast_retransmits, c.retransmits),
        (1, 0, 1),
        "{c:?}"
    );
    // No duplicate ACK can follow the last segment: the loss costs one RTO (the 200 ms
    // minimum here, as the RTT is ~24 ms), minus the RTT already elapsed when it fires.
    let extra = r.flows[0].completion().unwrap() - baseline;
    assert!(
        extra > millis(170.0) && extra < millis(230.0),
        "extra {extra}"
    );
}

#[test]
fn repeated_timeouts_back_off_exponentially() {
    let cfg = tcp();
    let last = 9 * MSS as u64;
    let drops = (0..3)
        .map(|occurrence| DropRule::Data {
            conn: 0,
            seq: last,
            occurrence,
        })
        .collect();
    let r = one_flow(&cfg, 10, drops);
    let times: Vec<_> = r
        .injections
        .iter()
        .filter(|i| i.seq == last)
        .map(|i| i.time)
        .collect();
    assert_eq!(times.len(), 4);
    let g1 = times[2] - times[1];
    let g2 = times[3] - times[2];
    assert_eq!(g2, 2 * g1, "back-off doubles the RTO: {times:?}");
    assert_eq!(r.conns[0].timeouts, 3);
}

#[test]
fn window_capped_at_maximum() {
    let cfg = TcpConfig {
        max_window: Some(5),
        ..tcp()
    };
    let mut sim = build(
        &cfg,
        &path(),
        vec![sim::workload::FlowSpec {
            arrival: 0,
            size: 200 * MSS as u64,
            source: 0,
        }],
        vec![],
    );
    let conn = sim::packet::ConnId { slot: 0, serial: 0 };
    let mut max_flight = 0;
    let mut max_cwnd = 0;
    while sim.step() {
        if let Some(s) = sim.world.sender(conn) {
            max_flight = max_flight.max(s.in_flight());
            max_cwnd = max_cwnd.max(s.cwnd());
        }
    }
    assert_eq!(max_flight, 5 * MSS as u64);
    assert_eq!(max_cwnd, 5 * MSS as u64);
    // Window-limited: 5 segments per ~24 ms round trip.
    let r = rounds(sim.world.injections().unwrap(), millis(10.0));
    assert!(r[2..r.len() - 1].iter().all(|&n| n == 5), "{r:?}");
}

#[test]
fn send_buffer_limits_unacked_data() {
    let cfg = TcpConfig {
        send_buffer: Some(3 * MSS as u64),
        initial_window: 10,
        ..tcp()
    };
    let r = one_flow(&cfg, 30, vec![]);
    assert!(r.flows[0].finished.is_some());
    // Never more than the buffer in flight: 3 segments per round trip.
    assert!(rounds(&r.injections, millis(10.0)).iter().all(|&n| n <= 3));
}

#[test]
fn handshake_costs_one_rtt_and_lost_syn_costs_initial_rto() {
    let base = one_flow(&tcp(), 10, vec![]).flows[0].completion().unwrap();
    let hs_cfg = TcpConfig {
        handshake: true,
        ..tcp()
    };
    let hs = one_flow(&hs_cfg, 10, vec![]);
    let extra = hs.flows[0].completion().unwrap() - base;
    assert!(
        extra > millis(23.0) && extra < millis(26.0),
        "handshake extra {extra}"
    );
    // Drop the very first packet (the SYN): retransmitted after the 1 s initial RTO, then
    // the initial window is one segment (RFC 5681 §3.1).
    let lost = one_flow(&hs_cfg, 10, vec![DropRule::Nth(0)]);
    let first = lost.injections[0].time;
    assert!(first > millis(1000.0) && first < millis(1030.0), "{first}");
    assert_eq!(rounds(&lost.injections, millis(10.0))[0], 1);
}

#[test]
fn delayed_acks_halve_the_ack_count() {
    let cfg = TcpConfig {
        delayed_ack_ms: Some(40.0),
        ..tcp()
    };
    let r = one_flow(&cfg, 101, vec![]);
    assert!(r.flows[0].finished.is_some());
    let acks = r.sim.world.net.link(1).stats.tx_packets; // reverse bottleneck
    assert!((50..=60).contains(&acks), "acks {acks}");
}

#[test]
fn no_packet_leaks_after_completion() {
    let r = one_flow(&tcp(), 50, vec![DropRule::Nth(7)]);
    assert!(r.flows[0].finished.is_some());
    assert_eq!(r.sim.world.packets_alive(), 0);
    assert_eq!(r.sim.world.active_connections(), 0);
}

fn sack() -> TcpConfig {
    TcpConfig {
        sack: true,
        max_window: Some(30),
        ..tcp()
    }
}

fn drops_at(segments: &[u64]) -> Vec<DropRule> {
    segments
        .iter()
        .map(|&k| DropRule::Data {
            conn: 0,
            seq: k * MSS as u64,
            occurrence: 0,
        })
        .collect()
}

#[test]
fn sack_repairs_many_losses_of_one_window_in_one_round_trip() {
    // Five segments of one window lost. NewReno repairs one hole per round trip (partial
    // ACKs); RFC 6675 retransmits every hole the scoreboard shows lost, in one round trip,
    // and never times out.
    let lost = [60, 62, 64, 66, 68];
    let newreno = one_flow(
        &TcpConfig {
            max_window: Some(30),
            ..tcp()
        },
        150,
        drops_at(&lost),
    );
    let r = one_flow(&sack(), 150, drops_at(&lost));
    let c = &r.conns[0];
    assert_eq!(
        (c.fast_retransmits, c.timeouts, c.retransmits),
        (1, 0, 5),
        "{c:?}"
    );
    let retx: Vec<_> = r.injections.iter().filter(|i| i.retx).collect();
    let seqs: Vec<u64> = retx.iter().map(|i| i.seq / MSS as u64).collect();
    assert_eq!(seqs, lost.to_vec(), "only the holes, in order");
    let span = retx[4].time - retx[0].time;
    assert!(
        span < millis(24.0),
        "all holes repaired within one RTT: {span}"
    );
    let nr_retx: Vec<_> = newreno.injections.iter().filter(|i| i.retx).collect();
    assert_eq!(nr_retx.len(), 5);
    assert!(
        nr_retx[4].time - nr_retx[0].time > millis(4.0 * 24.0),
        "NewReno takes a round trip per hole"
    );
    let (t_sack, t_nr) = (
        r.flows[0].completion().unwrap(),
        newreno.flows[0].completion().unwrap(),
    );
    assert!(t_sack + millis(3.0 * 24.0) < t_nr, "{t_sack} vs {t_nr}");
}

#[test]
fn sack_timeout_retransmits_only_the_holes() {
    // Segment 10 lost, then its fast retransmission lost too: the timer fires. With SACK the
    // segments the receiver holds are not sent again (NewReno's go-back-N would).
    let cfg = TcpConfig {
        max_window: Some(12),
        ..sack()
    };
    let drops = vec![
        DropRule::Data {
            conn: 0,
            seq: 10 * MSS as u64,
            occurrence: 0,
        },
        DropRule::Data {
            conn: 0,
            seq: 10 * MSS as u64,
            occurrence: 1,
        },
    ];
    let r = one_flow(&cfg, 40, drops);
    let c = &r.conns[0];
    assert_eq!((c.timeouts, c.fast_retransmits), (1, 1), "{c:?}");
    let retx: Vec<u64> = r
        .injections
        .iter()
        .filter(|i| i.retx)
        .map(|i| i.seq / MSS as u64)
        .collect();
    assert_eq!(retx, vec![10, 10], "{retx:?}");
    assert!(r.flows[0].finished.is_some());
}

#[test]
fn sack_without_loss_is_byte_identical_to_newreno() {
    let a = one_flow(&tcp(), 200, vec![]);
    let b = one_flow(
        &TcpConfig {
            sack: true,
            ..tcp()
        },
        200,
        vec![],
    );
    assert_eq!(a.injections, b.injections);
}
