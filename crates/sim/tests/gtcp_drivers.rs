//! The gtcp drivers: Proposition 1 holds exactly for `gtcp-ideal`, runs are deterministic,
//! and the shipped core keeps its invariant under `schedtcp`.

mod common;

use sim::driver::GtcpStats;
use sim::queue::QueueConfig;
use sim::scenario::{DriverKind, GtcpConfig, RecordConfig, Scenario};
use sim::stats::{injected_series, injection_distance, Report};
use sim::tcp::TcpConfig;
use sim::workload::{SizeDist, SizeUnit, SourcePick, WorkloadConfig};

const POLICIES: [&str; 7] = [
    "tcp",
    "srpt",
    "fair",
    "las",
    "psps",
    "psps:20000",
    "priority:srpt",
];

/// A small, lossy origin–destination path: 20 Mbit/s bottleneck, 30 ms RTT, a 40-packet
/// drop-tail buffer (well below the BDP, so fast retransmits *and* timeouts happen),
/// Pareto sizes of mean 60 kB at load 0.8.
fn scenario(seed: u64, driver: DriverKind, policy: &str) -> Scenario {
    Scenario {
        seed,
        duration_s: 6.0,
        drain_s: 30.0,
        driver,
        topology: common::two_pairs_20mbit(40),
        tcp: TcpConfig {
            mss: 1448,
            header_bytes: 52,
            initial_window: 10,
            ..TcpConfig::default()
        },
        workload: WorkloadConfig::Poisson {
            rate_per_s: None,
            load: Some(0.8),
            size: SizeDist::Pareto {
                alpha: 2.5,
                c: 1.0 / 90_000.0,
            },
            unit: SizeUnit::Bytes,
            sources: SourcePick::Random,
            max_flows: None,
        },
        record: RecordConfig {
            injections: true,
            active_sample_period_s: None,
        },
        gtcp: GtcpConfig {
            policy: policy.into(),
            core: gtcp::Config {
                flow_window: 16 << 20,
                send_buffer: 16 << 20,
                ..gtcp::Config::default()
            },
            ..GtcpConfig::default()
        },
        perturb: Default::default(),
        mux: Default::default(),
    }
}

fn run(s: &Scenario) -> Report {
    s.run().unwrap_or_else(|e| panic!("{e}"))
}

fn clean(g: &GtcpStats) {
    assert_eq!(g.api_errors, 0, "{g:?}");
    assert_eq!(g.protocol_errors, 0, "{g:?}");
    assert_eq!(g.payload_mismatches, 0, "{g:?}");
    assert_eq!(g.invariant_violations, 0, "{g:?}");
}

#[test]
fn ideal_injects_exactly_what_tcp_injects_under_every_policy() {
    for seed in [1, 2] {
        let tcp = run(&scenario(seed, DriverKind::Tcp, "tcp"));
        let retx: u64 = tcp.conns.iter().map(|c| c.retransmits).sum();
        let rtos: u64 = tcp.conns.iter().map(|c| c.timeouts).sum();
        let fast: u64 = tcp.conns.iter().map(|c| c.fast_retransmits).sum();
        assert!(tcp.flows.len() > 50, "a real workload: {}", tcp.flows.len());
        assert!(
            retx > 0 && rtos > 0 && fast > 0,
            "losses of both kinds: {retx} {rtos} {fast}"
        );
        let reference = injected_series(tcp.injections.as_deref().unwrap());
        for p in POLICIES {
            let r = run(&scenario(seed, DriverKind::GtcpIdeal, p));
            let series = injected_series(r.injections.as_deref().unwrap());
            assert!(
                series == reference,
                "seed {seed}, {p}: V(t) differs from tcp's"
            );
            let d = injection_distance(
                tcp.injections.as_deref().unwrap(),
                r.injections.as_deref().unwrap(),
            );
            assert!(d.identical && d.max_abs_diff_bytes == 0, "{d:?}");
            // Same packets at the same times: the network saw the same run.
            assert_eq!(r.bottleneck, tcp.bottleneck);
            assert_eq!(r.conns, tcp.conns);
            let g = r.gtcp.unwrap();
            clean(&g);
            assert_eq!((g.duplicate_bytes, g.padding_bytes), (0, 0), "{p}: {g:?}");
            // Every flow is delivered, and reported once.
            assert!(
                r.flows.iter().all(|f| f.delivered.is_some()),
                "{p}: a flow was not delivered"
            );
            if p != "tcp" {
                assert!(g.decisions > 0);
            }
        }
    }
}

#[test]
fn ideal_under_the_tcp_policy_is_the_tcp_driver() {
    let tcp = run(&scenario(3, DriverKind::Tcp, "tcp"));
    let ideal = run(&scenario(3, DriverKind::GtcpIdeal, "tcp"));
    assert_eq!(tcp.flows, ideal.flows);
}

#[test]
fn ideal_holds_with_handshake_delayed_acks_and_a_bounded_send_buffer() {
    let variant = |driver, policy| {
        let mut s = scenario(4, driver, policy);
        s.tcp.handshake = true;
        s.tcp.delayed_ack_ms = Some(40.0);
        s.tcp.send_buffer = Some(20_000);
        s.tcp.max_window = Some(40);
        s
    };
    let tcp = run(&variant(DriverKind::Tcp, "tcp"));
    let reference = injected_series(tcp.injections.as_deref().unwrap());
    for p in ["srpt", "las"] {
        let r = run(&variant(DriverKind::GtcpIdeal, p));
        assert!(injected_series(r.injections.as_deref().unwrap()) == reference);
        assert!(r.flows.iter().all(|f| f.delivered.is_some()));
    }
}

#[test]
fn ideal_and_schedtcp_hold_with_sack_and_cubic() {
    // RFC 6675 retransmits holes anywhere in the window, not only at snd_una: the ideal
    // driver must still re-bind exactly the lost bytes, and schedtcp keep the invariant.
    let variant = |driver, policy| {
        let mut s = scenario(5, driver, policy);
        s.tcp.sack = true;
        s.tcp.congestion_control = sim::tcp::CongestionControl::Cubic;
        s
    };
    let tcp = run(&variant(DriverKind::Tcp, "tcp"));
    let fast: u64 = tcp.conns.iter().map(|c| c.fast_retransmits).sum();
    let retx: u64 = tcp.conns.iter().map(|c| c.retransmits).sum();
    assert!(
        fast > 0 && retx > fast,
        "several holes per recovery: {fast} {retx}"
    );
    let reference = injected_series(tcp.injections.as_deref().unwrap());
    for p in ["srpt", "fair", "las"] {
        let r = run(&variant(DriverKind::GtcpIdeal, p));
        assert!(
            injected_series(r.injections.as_deref().unwrap()) == reference,
            "{p}"
        );
        let g = r.gtcp.unwrap();
        clean(&g);
        assert_eq!((g.duplicate_bytes, g.padding_bytes), (0, 0), "{p}: {g:?}");
        assert!(r.flows.iter().all(|f| f.delivered.is_some()), "{p}");
        let r = run(&variant(DriverKind::Schedtcp, p));
        clean(&r.gtcp.unwrap());
        assert!(r.flows.iter().all(|f| f.delivered.is_some()), "{p}");
    }
}

#[test]
fn size_based_policies_help_short_flows_in_the_ideal() {
    // Without losses (a buffer that never overflows), as Proposition 2 assumes. With
    // losses, payload bound to a connection in loss recovery waits behind its hole, which
    // can cost more than the policy gains (see the table2 experiment).
    let lossless = |d, p| {
        let mut s = scenario(5, d, p);
        s.topology.bottleneck_queue = QueueConfig::DropTailPackets { limit: 100_000 };
        s
    };
    let tcp = run(&lossless(DriverKind::Tcp, "tcp"));
    assert_eq!(tcp.bottleneck.drops, 0);
    let srpt = run(&lossless(DriverKind::GtcpIdeal, "srpt"));
    let mean = |r: &Report| {
        let v: Vec<u64> = r.flows.iter().filter_map(|f| f.transfer()).collect();
        v.iter().sum::<u64>() as f64 / v.len() as f64
    };
    assert!(
        mean(&srpt) < mean(&tcp),
        "SRPT lowers the mean transfer time"
    );
}

#[test]
fn gtcp_drivers_are_deterministic() {
    for d in [DriverKind::GtcpIdeal, DriverKind::Schedtcp] {
        for p in ["srpt", "psps"] {
            let a = run(&scenario(6, d, p));
            let b = run(&scenario(6, d, p));
            assert_eq!(a, b, "{d:?} {p}");
            assert_eq!(a.fingerprint(), b.fingerprint());
            assert_eq!(format!("{a:?}"), format!("{b:?}"));
            let c = run(&scenario(7, d, p));
            assert_ne!(a.fingerprint(), c.fingerprint());
        }
    }
}

#[test]
fn schedtcp_keeps_the_core_invariant_under_every_policy() {
    for p in POLICIES {
        let r = run(&scenario(8, DriverKind::Schedtcp, p));
        let g = r.gtcp.unwrap();
        clean(&g);
        // Every flow was read to its end at the destination, every connection closed
        // after both sides said Done, and at that moment carried exactly its own flow's
        // bytes of payload with an empty virtual queue.
        assert!(
            r.flows.iter().all(|f| f.delivered.is_some()),
            "{p}: undelivered flow"
        );
        assert!(r.flows.iter().all(|f| f.finished.is_some()));
        assert_eq!(g.invariant_checked, r.flows.len() as u64, "{p}");
        // Closing as the tunnel does (half-close, read to the end): nothing arrives late.
        assert_eq!(g.late_frames, 0, "{p}");
        assert_eq!(r.conns.len(), r.flows.len(), "{p}: every connection closed");
        let payload: u64 = r.flows.iter().map(|f| f.size).sum();
        assert_eq!(g.payload_bytes, payload, "{p}: no payload sent twice");
        // Framing is reported, and small.
        assert!(g.header_bytes > 0 && g.header_bytes < payload / 20, "{g:?}");
        assert!(g.reverse_bytes > 0);
        // Bytes on the wire: each connection injected its flow's payload plus framing
        // (plus retransmissions).
        for c in &r.conns {
            let f = &r.flows[c.user as usize];
            assert!(
                c.written >= f.size,
                "{p}: conn {} wrote {}",
                c.conn,
                c.written
            );
        }
    }
}

#[test]
fn schedtcp_distance_to_proposition_one_is_reported() {
    let tcp = run(&scenario(9, DriverKind::Tcp, "tcp"));
    let s = run(&scenario(9, DriverKind::Schedtcp, "tcp"));
    let d = injection_distance(
        tcp.injections.as_deref().unwrap(),
        s.injections.as_deref().unwrap(),
    );
    assert!(!d.identical, "schedtcp is not the ideal");
    assert_eq!(d.conns, tcp.conns.len());
    let g = s.gtcp.unwrap();
    // Same flows, more bytes: framing (and a different loss history).
    assert!(d.other_bytes as f64 > 0.9 * d.reference_bytes as f64);
    assert!(d.max_rel_diff < 0.5, "{d:?}");
    assert!(g.header_bytes > 0);
}

#[test]
fn plain_flows_bypass_the_scheduler() {
    // Source 1 is plain TCP; the others are scheduled. Under gtcp-ideal the plain flows
    // are exactly the tcp driver's (Proposition 1 holds per connection).
    let with_plain = |d, p| {
        let mut s = scenario(10, d, p);
        s.gtcp.plain_sources = vec![1];
        s
    };
    let tcp = run(&with_plain(DriverKind::Tcp, "tcp"));
    let ideal = run(&with_plain(DriverKind::GtcpIdeal, "srpt"));
    let sched = run(&with_plain(DriverKind::Schedtcp, "srpt"));
    let plain: Vec<_> = tcp.flows.iter().filter(|f| f.source == 1).collect();
    assert!(!plain.is_empty());
    for f in &plain {
        assert_eq!(
            ideal.flows[f.id as usize], **f,
            "plain flow moved under the ideal"
        );
        assert!(sched.flows[f.id as usize].delivered.is_some());
    }
    clean(&sched.gtcp.unwrap());
    let g = sched.gtcp.unwrap();
    let scheduled: u64 = tcp
        .flows
        .iter()
        .filter(|f| f.source != 1)
        .map(|f| f.size)
        .sum();
    assert_eq!(g.payload_bytes, scheduled);
}

#[test]
fn gtcp_scenario_files_parse_and_reject_bad_values() {
    let text = r#"
seed = 3
duration_s = 2.0
drain_s = 20.0
driver = "gtcp-ideal"

[topology]
pairs = 1

[workload]
kind = "poisson"
load = 0.5
unit = "bytes"
size = { kind = "pareto", alpha = 3.0, c = 1e-4 }

[gtcp]
policy = "las"
"#;
    let s = Scenario::from_toml(text).unwrap();
    assert_eq!(s.driver, DriverKind::GtcpIdeal);
    let r = s.run().unwrap();
    assert!(r.gtcp.is_some());
    let again = Scenario::from_toml(&s.to_toml()).unwrap();
    assert_eq!(again, s);
    let bad = text.replace("\"las\"", "\"sjf\"");
    let e = Scenario::from_toml(&bad).unwrap_err().to_string();
    assert!(e.contains("gtcp.policy"), "{e}");
    let bad = text.replace("policy = \"las\"", "policy = \"las\"\nchunk = 0");
    let e = Scenario::from_toml(&bad).unwrap_err().to_string();
    assert!(e.contains("chunk"), "{e}");
    let bad = text.replace("policy = \"las\"", "policy = \"las\"\nnotsent_lowat = 0");
    assert!(Scenario::from_toml(&bad).is_err());
}

#[test]
fn listed_flows_run_in_arrival_order_and_are_validated() {
    let text = r#"
seed = 1
duration_s = 5.0
drain_s = 10.0
driver = "schedtcp"

[topology]
pairs = 2

[workload]
kind = "list"
flows = [
  { arrival_s = 1.0, size_bytes = 30000, source = 0 },
  { arrival_s = 0.0, size_bytes = 50000, source = 0 },
  { arrival_s = 0.5, size_bytes = 40000, source = 1 },
  { arrival_s = 9.0, size_bytes = 10, source = 0 },
]

[gtcp]
policy = "srpt"
plain_sources = [1]
"#;
    let s = Scenario::from_toml(text).unwrap();
    let r = s.run().unwrap();
    let sizes: Vec<u64> = r.flows.iter().map(|f| f.size).collect();
    assert_eq!(
        sizes,
        vec![50000, 40000, 30000],
        "sorted, and cut at duration_s"
    );
    assert!(r.flows.iter().all(|f| f.delivered.is_some()));
    clean(&r.gtcp.unwrap());
    let bad = text.replace("source = 1 }", "source = 2 }");
    let e = Scenario::from_toml(&bad).unwrap_err().to_string();
    assert!(e.contains("source 2"), "{e}");
    let bad = text.replace("size_bytes = 10,", "size_bytes = 0,");
    assert!(Scenario::from_toml(&bad).is_err());
}

/// The repeats' perturbation (`Scenario::perturb`): a seed replays exactly, another seed
/// moves TCP's sample path (losses, transfer times) while the flows stay the same, and
/// `gtcp-ideal` still injects exactly what `tcp` injects under the same perturbation
/// (Proposition 1 holds on every repeat).
#[test]
fn host_jitter_perturbs_the_path_reproducibly_and_keeps_proposition_1() {
    let with = |driver, policy: &str, jitter_ns, pseed| {
        let mut s = scenario(4, driver, policy);
        s.perturb.host_jitter_ns = jitter_ns;
        s.perturb.seed = pseed;
        run(&s)
    };
    let plain = run(&scenario(4, DriverKind::Tcp, "tcp"));
    // No jitter: the seed of the perturbation changes nothing.
    assert_eq!(
        with(DriverKind::Tcp, "tcp", 0, 9).fingerprint(),
        plain.fingerprint()
    );
    let a = with(DriverKind::Tcp, "tcp", 1_000, 1);
    let a2 = with(DriverKind::Tcp, "tcp", 1_000, 1);
    let b = with(DriverKind::Tcp, "tcp", 1_000, 2);
    assert_eq!(a.fingerprint(), a2.fingerprint(), "a seed replays exactly");
    let arrivals = |r: &Report| {
        r.flows
            .iter()
            .map(|f| (f.size, f.arrival))
            .collect::<Vec<_>>()
    };
    assert_eq!(arrivals(&a), arrivals(&plain), "same flows");
    assert_eq!(arrivals(&b), arrivals(&plain), "same flows");
    let moved = |x: &Report, y: &Report| {
        x.flows
            .iter()
            .zip(&y.flows)
            .filter(|(f, g)| f.delivered != g.delivered)
            .count()
    };
    assert!(
        moved(&a, &b) * 4 > a.flows.len(),
        "another perturbation moves most flows: {} of {}",
        moved(&a, &b),
        a.flows.len()
    );
    assert!(moved(&a, &plain) * 4 > a.flows.len());
    // 1 µs of jitter per packet on 1 Gbit/s access links: the load is unchanged, so the
    // bottleneck carries the same bytes within 1%.
    let bytes = |r: &Report| r.bottleneck.tx_data_packets as f64;
    assert!((bytes(&a) / bytes(&plain) - 1.0).abs() < 0.01);
    ideal_injects_as(&b, |p| with(DriverKind::GtcpIdeal, p, 1_000, 2));
}

/// `gtcp-ideal` under SRPT and FAIR (`ideal(policy)`) injects exactly what `reference`
/// (tcp on the same path) injected: Proposition 1.
fn ideal_injects_as(reference: &Report, ideal: impl Fn(&str) -> Report) {
    for p in ["srpt", "fair"] {
        let r = ideal(p);
        let d = injection_distance(
            reference.injections.as_deref().unwrap(),
            r.injections.as_deref().unwrap(),
        );
        assert!(d.identical, "{p}: {d:?}");
        assert_eq!(r.conns, reference.conns);
    }
}

#[test]
fn a_jitter_above_the_bound_is_refused() {
    let mut s = scenario(1, DriverKind::Tcp, "tcp");
    s.perturb.host_jitter_ns = sim::scenario::MAX_HOST_JITTER_NS + 1;
    assert!(s.run().is_err());
}

/// ECN (RFC 3168) at the bottleneck: marking at 10 queued packets (of 40) with ECN-capable
/// senders replaces most drops by window reductions; senders without ECN ignore the marks
/// (the same flows finish at the same times as without marking); Proposition 1 holds for
/// `gtcp-ideal` with ECN too.
#[test]
fn ecn_marks_replace_drops_and_keep_proposition_1() {
    let with = |driver, policy: &str, mark: Option<u32>, ecn: bool| {
        let mut s = scenario(5, driver, policy);
        s.topology.ecn_mark_packets = mark;
        s.tcp.ecn = ecn;
        run(&s)
    };
    let plain = with(DriverKind::Tcp, "tcp", None, false);
    let ecn = with(DriverKind::Tcp, "tcp", Some(10), true);
    let ignored = with(DriverKind::Tcp, "tcp", Some(10), false);
    let reductions = |r: &Report| r.conns.iter().map(|c| c.ecn_reductions).sum::<u64>();
    assert_eq!(reductions(&plain), 0);
    assert_eq!(plain.bottleneck.ecn_marks, 0);
    assert!(ecn.bottleneck.ecn_marks > 0 && reductions(&ecn) > 0);
    assert!(
        ecn.bottleneck.drops * 2 < plain.bottleneck.drops,
        "drops with ECN {} vs without {}",
        ecn.bottleneck.drops,
        plain.bottleneck.drops
    );
    assert!(ecn.flows.iter().all(|f| f.delivered.is_some()));
    // Marks without ECN-capable senders change nothing but the mark counter.
    assert!(ignored.bottleneck.ecn_marks > 0);
    assert_eq!(reductions(&ignored), 0);
    assert_eq!(ignored.flows, plain.flows);
    ideal_injects_as(&ecn, |p| with(DriverKind::GtcpIdeal, p, Some(10), true));
}

#[test]
fn an_ecn_threshold_of_zero_is_refused() {
    let mut s = scenario(1, DriverKind::Tcp, "tcp");
    s.topology.ecn_mark_packets = Some(0);
    assert!(s.run().is_err());
}

/// Proposition 2 (paper 000) for FAIR, under its conditions: no loss (a buffer nothing
/// overflows) and no reordering. FAIR as the proof defines it serves the flow plain TCP
/// finishes first; told tcp's finish instants from the tcp run of the same sample path
/// (`IdealDriver::fair_oracle`), `gtcp-ideal` delivers every flow no later than tcp does.
/// FAIR as implemented predicts that flow as the least virtual remaining, exact only when
/// every connection sends at the same rate; TCP's do not (slow start against a grown
/// window), and some flows then finish later than under tcp (26-33 of about 210 here,
/// printed beside): the yardstick for a predictor that closes the gap.
#[test]
fn fair_with_tcps_finish_order_delays_no_flow_without_losses() {
    for seed in [1, 2, 3] {
        let mut s = scenario(seed, DriverKind::Tcp, "tcp");
        s.topology.bottleneck_queue = QueueConfig::DropTailPackets { limit: 1_000_000 };
        let tcp = run(&s);
        assert_eq!(tcp.bottleneck.drops, 0, "no loss");
        let finish: Vec<u64> = tcp
            .flows
            .iter()
            .map(|f| f.delivered.expect("tcp delivers every flow"))
            .collect();
        let later = |policy_run: &Report| {
            policy_run
                .flows
                .iter()
                .zip(&tcp.flows)
                .filter(|(g, t)| {
                    let g = g.delivered.expect("gtcp delivers every flow");
                    // One microsecond of slack: both runs see the same instants.
                    g > t.delivered.unwrap_or(0) + 1_000
                })
                .count()
        };
        s.driver = DriverKind::GtcpIdeal;
        s.gtcp.policy = "fair".into();
        let predicted = run(&s);
        s.gtcp.fair_oracle = Some(finish);
        let oracle = run(&s);
        for r in [&predicted, &oracle] {
            clean(&r.gtcp.expect("gtcp stats"));
            assert_eq!(
                r.bottleneck, tcp.bottleneck,
                "the same packets at the same times"
            );
        }
        assert_eq!(later(&oracle), 0, "seed {seed}: FAIR with tcp's order");
        let faster = oracle
            .flows
            .iter()
            .zip(&tcp.flows)
            .filter(|(g, t)| g.delivered < t.delivered)
            .count();
        assert!(faster * 2 > tcp.flows.len(), "seed {seed}: most flows gain");
        eprintln!(
            "seed {seed}: {} flows; later than tcp: predicted FAIR {}, tcp's order 0",
            tcp.flows.len(),
            later(&predicted)
        );
    }
}

/// The core keeps the connections' clocks (`Session::poll_timeout`): when the destination's
/// frames stop reaching the origin in the middle of a transfer (its path back dies), the
/// origin's core reports the connection dead one `dead_peer` after the last frame it
/// received, as the tunnel's does on real sockets (it then closes the connection); the
/// destination, which still receives the origin's keepalives, does not.
#[test]
fn a_silent_destination_is_detected_one_dead_peer_after_its_last_frame() {
    let mut s = scenario(1, DriverKind::Schedtcp, "fair");
    s.workload = WorkloadConfig::List {
        flows: vec![sim::workload::ListedFlow {
            arrival_s: 0.0,
            size_bytes: 100_000_000,
            source: 0,
        }],
    };
    s.duration_s = 1.0;
    s.drain_s = 40.0;
    let dead_peer = s.gtcp.core.dead_peer;
    let (mut sim, _, _) = s.build_schedtcp().unwrap();
    let silent = 2_000_000_000;
    sim.driver.silence_from(silent);
    sim.run_until(60_000_000_000);
    let dead = &sim.driver.dead_conns;
    assert_eq!(dead.len(), 1, "{dead:?}");
    let (conn, at, origin) = dead[0];
    assert_eq!((conn, origin), (0, true));
    // The last frame left the destination before `silent` (its acknowledgements come every
    // few hundred kB, a tenth of a second apart on this path) and took one reverse delay (a
    // few ms) to arrive: the report comes `dead_peer` after that, at the exact instant
    // (`crates/gtcp/tests/timers.rs`).
    let at_silence = silent + dead_peer.as_nanos() as u64;
    assert!(
        (at_silence - 500_000_000..=at_silence + 20_000_000).contains(&at),
        "reported at {at} ns, silent from {silent} ns"
    );
}
