//! Issue 8: the pair takes exactly the share plain TCP would, under every policy, with the
//! core's DEFAULT configuration. A long plain-TCP competitor shares the bottleneck with a
//! heavy-tailed workload carried by `schedtcp` at high load; its bytes must not depend on
//! the tunnel's policy. (The full-size measurement is the `nonintrusive` experiment of
//! `lab`.)

use sim::competitor::{measure, with_competitor, CompetitorOutcome};
use sim::queue::QueueConfig;
use sim::scenario::{DriverKind, GtcpConfig, RecordConfig, Scenario};
use sim::tcp::TcpConfig;
use sim::topology::DumbbellConfig;
use sim::workload::{SizeDist, SizeUnit, SourcePick, WorkloadConfig};

/// Table 2's shape scaled down to run in seconds in a debug build: a 2 MB/s bottleneck,
/// 50 ms round trip, a one-BDP drop-tail buffer, Lomax sizes (α = 3) of mean 2 MB — twice
/// the core's default 1 MiB buffer, as Table 2's 5 MB are — at load 0.9, and the core's
/// default configuration (`GtcpConfig::default()`).
fn base(seed: u64, driver: DriverKind, policy: &str, duration_s: f64) -> Scenario {
    Scenario {
        seed,
        duration_s,
        drain_s: 0.0,
        driver,
        topology: DumbbellConfig {
            pairs: 1,
            access_rate_bps: 1_000_000_000,
            receiver_rate_bps: 1_000_000_000,
            access_delay_ms: 1.0,
            receiver_delay_ms: 1.0,
            bottleneck_rate_bps: 16_000_000,
            bottleneck_delay_ms: 23.0,
            bottleneck_queue: QueueConfig::DropTailBytes { limit: 100_000 },
            other_queue: QueueConfig::DropTailPackets { limit: 100_000 },
            ecn_mark_packets: None,
        },
        tcp: TcpConfig {
            mss: 1448,
            header_bytes: 52,
            initial_window: 10,
            delayed_ack_ms: Some(40.0),
            ..TcpConfig::default()
        },
        workload: WorkloadConfig::Poisson {
            rate_per_s: None,
            load: Some(0.9),
            size: SizeDist::Pareto {
                alpha: 3.0,
                c: 2.5e-7,
            },
            unit: SizeUnit::Bytes,
            sources: SourcePick::Random,
            max_flows: None,
        },
        record: RecordConfig::default(),
        gtcp: GtcpConfig {
            policy: policy.into(),
            ..GtcpConfig::default()
        },
        perturb: Default::default(),
        mux: Default::default(),
    }
}

fn outcome(
    seed: u64,
    driver: DriverKind,
    policy: &str,
    from_s: f64,
    to_s: f64,
) -> CompetitorOutcome {
    let s =
        with_competitor(&base(seed, driver, policy, to_s), 0.0).unwrap_or_else(|e| panic!("{e}"));
    let (o, _) = measure(&s, from_s, to_s, 1.0).unwrap_or_else(|e| panic!("{e}"));
    if let Some(g) = o.gtcp {
        assert_eq!(
            g.api_errors + g.protocol_errors + g.payload_mismatches,
            0,
            "{g:?}"
        );
        assert_eq!(g.invariant_violations, 0, "{g:?}");
    }
    o
}

#[test]
fn the_competitor_is_counted_and_the_workload_is_carried() {
    let o = outcome(1, DriverKind::Schedtcp, "srpt", 2.0, 8.0);
    // The competitor is backlogged: it gets a positive share, never more than the link.
    assert!(o.competitor_bytes > 0, "{o:?}");
    assert!(o.competitor_rate() + o.pair_rate() <= 2.0e6 * 1.01, "{o:?}");
    assert!(o.pair_bytes > 0 && o.flows > 0, "{o:?}");
    // A scenario with more than one source is refused.
    let mut two = base(1, DriverKind::Tcp, "tcp", 5.0);
    two.topology.pairs = 2;
    assert!(with_competitor(&two, 0.0).is_err());
    let one = with_competitor(&base(1, DriverKind::Tcp, "tcp", 5.0), 0.0).unwrap();
    assert!(measure(&one, 3.0, 2.0, 1.0).is_err());
    assert!(measure(&one, 0.0, 6.0, 1.0).is_err());
}

/// Issue 8's goal at CI size: pooled over 48 sample paths of 40 s, the competitor's bytes
/// over [5, 40) s under `srpt` and `fair` are within ±2% of its bytes under the tunnel's
/// `tcp` policy, with the default configuration. With the old per-flow hand-over bound
/// (before 8012484) the competitor gained about 30% here: the deprioritised long flows'
/// connections ran dry. Per path the ratio moves by several percent (a packet-level run is
/// chaotic once two sample paths differ by a byte; plain TCP without the tunnel differs from
/// the tunnel's `tcp` policy as much), so the pool must be large: bootstrapped over these
/// paths, the pooled ratio's standard deviation is 1.6% for 8 paths (an unrelated change to
/// the core moved it to 0.976 there) and 0.65% for 48, which puts ±2% three deviations out.
#[test]
fn the_competitor_gets_the_same_bytes_under_srpt_and_fair_as_under_tcp() {
    const SEEDS: u64 = 48;
    let pooled = |policy: &str| -> u64 {
        let per_seed: Vec<u64> = std::thread::scope(|s| {
            let h: Vec<_> = (1..=SEEDS)
                .map(|seed| {
                    s.spawn(move || {
                        outcome(seed, DriverKind::Schedtcp, policy, 5.0, 40.0).competitor_bytes
                    })
                })
                .collect();
            h.into_iter().map(|h| h.join().unwrap()).collect()
        });
        per_seed.iter().sum()
    };
    let tcp = pooled("tcp") as f64;
    for policy in ["srpt", "fair"] {
        let ratio = pooled(policy) as f64 / tcp;
        assert!(
            (ratio - 1.0).abs() <= 0.02,
            "competitor under {policy} / under tcp = {ratio:.4} (goal ±2%)"
        );
    }
}
