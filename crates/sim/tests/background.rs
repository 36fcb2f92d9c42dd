//! The background driver: the core's access controller keeps at most M micro-flows in the
//! network, the others wait outside it in arrival order; vanilla and LBE start every
//! micro-flow at once.

use gtcp::admission::{AdmissionConfig, Limit};
use sim::driver::{BackgroundDriver, BgPolicy, Stream, StreamKind};
use sim::queue::QueueConfig;
use sim::tcp::{CongestionControl, TcpConfig};
use sim::time::{millis, secs};
use sim::topology::NetworkBuilder;
use sim::workload::{Poisson, SizeDist, SourcePick};
use sim::{Sim, World};

/// One 10 Mbit/s link; background micro-flows of mean 300 kB at 6 Mbit/s and short flows
/// at 3 Mbit/s, for 60 s.
fn sim(policy: BgPolicy) -> Sim<BackgroundDriver> {
    let mut b = NetworkBuilder::new();
    let (a, z) = (b.add_node(), b.add_node());
    let q = QueueConfig::DropTailBytes { limit: 100_000 }.build();
    b.add_link(a, z, 10_000_000, millis(25.0), q);
    b.add_link(
        z,
        a,
        10_000_000,
        millis(25.0),
        QueueConfig::Unlimited.build(),
    );
    let stream = |kind, seed, bps: f64| Stream {
        kind,
        src: a,
        dst: z,
        source: Box::new(Poisson::new(
            seed,
            bps / 8.0 / 300e3,
            SizeDist::Exponential { mean: 300e3 },
            1,
            1,
            SourcePick::Random,
            secs(60.0),
            None,
        )),
    };
    let streams = vec![
        stream(StreamKind::Short, 1, 3e6),
        stream(StreamKind::Background, 2, 6e6),
    ];
    let d = BackgroundDriver::new(policy, streams, Vec::new()).unwrap();
    Sim::new(
        World::new(b.build(), TcpConfig::default().params().unwrap()),
        d,
    )
}

#[test]
fn access_control_keeps_at_most_m_in_the_network_and_admits_in_arrival_order() {
    let mut s = sim(BgPolicy::Access(AdmissionConfig {
        limit: Limit::Fixed(2),
        ..AdmissionConfig::default()
    }));
    let mut waited = 0;
    for i in 1..=600 {
        s.run_until(millis(100.0 * i as f64));
        let st = s.driver.bg_stats[1];
        assert!(st.active <= 2, "{} active at {} ms", st.active, 100 * i);
        let adm = s.driver.admission(1).unwrap();
        assert_eq!(adm.active(), st.active as usize);
        assert_eq!(adm.waiting() + adm.active(), st.present as usize);
        // A waiting flow has no connection: only short flows and the admitted are open.
        let short_open = s
            .driver
            .short
            .iter()
            .filter(|f| f.finished.is_none())
            .count();
        assert_eq!(
            s.world.active_connections() as usize,
            short_open + st.active as usize
        );
        waited = waited.max(adm.waiting());
    }
    assert!(waited > 0, "the load must make flows wait");
    let admitted: Vec<_> = s
        .driver
        .background
        .iter()
        .filter_map(|r| r.admitted)
        .collect();
    assert!(admitted.windows(2).all(|w| w[0] <= w[1]), "FIFO admission");
    // Every admitted flow before the last minute's backlog finished as plain TCP.
    s.run_until(secs(400.0));
    assert!(s.driver.background.iter().all(|r| r.finished.is_some()));
}

#[test]
fn vanilla_and_lbe_start_every_micro_flow_at_once() {
    for policy in [
        BgPolicy::Vanilla,
        BgPolicy::Lbe {
            cc: CongestionControl::Ledbat,
            ledbat_target: millis(25.0),
        },
    ] {
        let mut s = sim(policy);
        let mut most = 0;
        for i in 1..=300 {
            s.run_until(millis(200.0 * i as f64));
            let st = s.driver.bg_stats[1];
            assert_eq!(st.active, st.present, "{policy:?}");
            most = most.max(st.active);
        }
        assert!(most > 2, "{policy:?}: at most {most} at once");
        assert!(s
            .driver
            .background
            .iter()
            .all(|r| r.admitted == Some(r.arrival)));
    }
}
