//! The `mux` driver: every flow of a pair on one long-lived connection (or one per static
//! lane), frames round robin; every byte delivered; a flow that arrives behind a full send
//! buffer waits for it, a bulk lane keeps interactive flows off it.

mod common;

use sim::driver::MuxConfig;
use sim::scenario::{DriverKind, Scenario};
use sim::stats::Report;
use sim::tcp::TcpConfig;
use sim::time::as_secs;
use sim::workload::{ListedFlow, WorkloadConfig};

const BULK: u64 = 8_000_000;
const SHORT: u64 = 20_000;

/// 20 Mbit/s, 30 ms RTT, a 100-packet buffer; `flows` as (arrival s, bytes, source).
fn scenario(driver: DriverKind, mux: MuxConfig, flows: &[(f64, u64, u32)]) -> Scenario {
    Scenario {
        seed: 1,
        duration_s: 20.0,
        drain_s: 30.0,
        driver,
        topology: common::two_pairs_20mbit(100),
        tcp: TcpConfig {
            mss: 1448,
            header_bytes: 52,
            initial_window: 10,
            handshake: true,
            ..TcpConfig::default()
        },
        workload: WorkloadConfig::List {
            flows: flows
                .iter()
                .map(|&(arrival_s, size_bytes, source)| ListedFlow {
                    arrival_s,
                    size_bytes,
                    source,
                })
                .collect(),
        },
        record: Default::default(),
        gtcp: Default::default(),
        perturb: Default::default(),
        mux,
    }
}

fn transfer_s(r: &Report, id: usize) -> f64 {
    as_secs(r.flows[id].transfer().expect("the flow was delivered"))
}

/// One bulk transfer, then a short flow one second later, on the same pair.
const BULK_THEN_SHORT: &[(f64, u64, u32)] = &[(0.0, BULK, 0), (1.0, SHORT, 0)];

#[test]
fn every_flow_of_a_pair_shares_one_connection_and_arrives_whole() {
    let flows: Vec<(f64, u64, u32)> = (0..40)
        .map(|i| (0.05 * i as f64, 3_000 + 7_919 * i as u64, 0))
        .collect();
    let r = scenario(DriverKind::Mux, MuxConfig::default(), &flows)
        .run()
        .expect("runs");
    assert_eq!(r.flows.len(), 40);
    assert!(r.flows.iter().all(|f| f.conn == r.flows[0].conn));
    assert!(r.conns.is_empty(), "the multiplexed connection stays open");
    for f in &r.flows {
        assert!(f.delivered.is_some() && f.finished.is_some(), "{f:?}");
        assert!(
            f.finished >= f.delivered,
            "acknowledged after delivered: {f:?}"
        );
    }
    // The same flows under `tcp` open one connection each.
    let t = scenario(DriverKind::Tcp, MuxConfig::default(), &flows)
        .run()
        .expect("runs");
    assert_eq!(t.conns.len(), 40);
    assert_eq!(serials(&t), 40);
}

/// Distinct connections the flows of a run went over.
fn serials(r: &Report) -> usize {
    let mut s: Vec<u32> = r.flows.iter().map(|f| f.conn).collect();
    s.sort_unstable();
    s.dedup();
    s.len()
}

#[test]
fn a_short_flow_waits_behind_the_bulk_bytes_already_written_unless_it_has_a_lane() {
    let run = |mux| {
        scenario(DriverKind::Mux, mux, BULK_THEN_SHORT)
            .run()
            .expect("runs")
    };
    // Writing while the (unbounded) send buffer has room commits the whole bulk flow first.
    let full = run(MuxConfig::default());
    let bulk_done = transfer_s(&full, 0);
    assert!(
        transfer_s(&full, 1) > bulk_done - 1.0 - 0.2,
        "short {} s, bulk {bulk_done} s",
        transfer_s(&full, 1)
    );
    // Frames written only as the backlog drains: the short flow gets its turn at once.
    let lowat = run(MuxConfig {
        notsent_lowat: Some(16_384),
        ..MuxConfig::default()
    });
    eprintln!(
        "short flow: {} s behind the whole bulk flow, {} s with a low-water mark",
        transfer_s(&full, 1),
        transfer_s(&lowat, 1)
    );
    assert!(transfer_s(&lowat, 1) < 0.3 * transfer_s(&full, 1));
    // A lane of its own: no bulk byte ahead of it in its connection.
    let lanes = run(MuxConfig {
        bulk_above_bytes: Some(1_000_000),
        ..MuxConfig::default()
    });
    eprintln!(
        "short flow on a lane of its own: {} s",
        transfer_s(&lanes, 1)
    );
    assert!(transfer_s(&lanes, 1) < 0.3 * transfer_s(&full, 1));
    assert_ne!(lanes.flows[0].conn, lanes.flows[1].conn);
    for r in [&full, &lowat, &lanes] {
        assert!(r.flows.iter().all(|f| f.delivered.is_some()));
    }
}

#[test]
fn frames_go_round_robin_so_equal_flows_on_one_connection_finish_together() {
    let flows = [(0.0, 2_000_000, 0), (0.0, 2_000_000, 0)];
    let r = scenario(
        DriverKind::Mux,
        MuxConfig {
            notsent_lowat: Some(16_384),
            ..MuxConfig::default()
        },
        &flows,
    )
    .run()
    .expect("runs");
    let (a, b) = (transfer_s(&r, 0), transfer_s(&r, 1));
    // Each frame of one is followed by a frame of the other: they end one frame apart.
    let frame_s = 16_393.0 * 8.0 / 20e6;
    assert!((a - b).abs() < 2.0 * frame_s, "{a} s vs {b} s");
    // Serving one after the other would finish the first in about half the time.
    assert!(a.min(b) > 0.8 * a.max(b));
}

#[test]
fn flows_of_a_plain_source_take_a_connection_each() {
    let mut s = scenario(
        DriverKind::Mux,
        MuxConfig::default(),
        &[(0.0, 100_000, 0), (0.0, 100_000, 1), (0.1, 100_000, 1)],
    );
    s.gtcp.plain_sources = vec![1];
    let r = s.run().expect("runs");
    assert_eq!(serials(&r), 3);
    assert_eq!(
        r.conns.len(),
        2,
        "each plain connection closes with its flow"
    );
    assert!(r.flows.iter().all(|f| f.delivered.is_some()));
}

#[test]
fn bad_mux_parameters_are_refused_with_the_key() {
    for (mux, key) in [
        (
            MuxConfig {
                frame_bytes: 0,
                ..MuxConfig::default()
            },
            "frame_bytes",
        ),
        (
            MuxConfig {
                notsent_lowat: Some(0),
                ..MuxConfig::default()
            },
            "notsent_lowat",
        ),
    ] {
        let e = scenario(DriverKind::Mux, mux, BULK_THEN_SHORT)
            .validate()
            .unwrap_err();
        assert!(e.to_string().contains(key), "{e}");
    }
    let text = "seed = 1\nduration_s = 1.0\ndriver = \"mux\"\n[workload]\nkind = \"list\"\n\
                flows = [{ arrival_s = 0.0, size_bytes = 10 }]\n[mux]\nframe_byte = 10\n";
    let e = Scenario::from_toml(text).unwrap_err().to_string();
    assert!(e.contains("frame_byte"), "{e}");
}
