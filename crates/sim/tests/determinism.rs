//! Same seed, same bytes out; different seeds, different runs.

use sim::scenario::Scenario;

fn scenario(seed: u64) -> Scenario {
    let mut s = Scenario::speed_benchmark(20.0);
    s.seed = seed;
    s.record.injections = true;
    s.record.active_sample_period_s = Some(0.5);
    s
}

#[test]
fn same_seed_identical_results() {
    let a = scenario(11).run().unwrap();
    let b = scenario(11).run().unwrap();
    assert!(
        a.flows.len() > 500,
        "a real workload ran: {}",
        a.flows.len()
    );
    assert!(a.bottleneck.drops > 0, "with losses");
    assert_eq!(a, b);
    assert_eq!(a.fingerprint(), b.fingerprint());
    // Byte-identical serialisations too.
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
}

#[test]
fn different_seeds_differ() {
    let a = scenario(11).run().unwrap();
    let c = scenario(12).run().unwrap();
    assert_ne!(a.fingerprint(), c.fingerprint());
    assert_ne!(a.flows, c.flows);
}

#[test]
fn injection_log_adds_up() {
    let r = scenario(3).run().unwrap();
    let inj = r.injections.as_ref().unwrap();
    // Every closed connection's injected bytes equal the sum of its logged segments.
    for c in r.conns.iter().take(200) {
        let logged: u64 = inj
            .iter()
            .filter(|i| i.conn == c.conn)
            .map(|i| i.len as u64)
            .sum();
        assert_eq!(logged, c.injected_bytes);
        assert_eq!(c.acked, c.written);
        assert!(c.injected_bytes >= c.written);
    }
    // Per-connection cumulative series are non-decreasing in time.
    let series = sim::stats::injected_series(inj);
    assert!(series
        .values()
        .all(|s| s.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 < w[1].1)));
    // Completed flows: completion = last ACK − arrival > 0.
    assert!(r.flows.iter().filter_map(|f| f.completion()).all(|c| c > 0));
    assert!(r.mean_active > 0.0 && r.max_active as f64 >= r.mean_active);
    assert_eq!(r.active_samples.len(), 40);
}

#[test]
fn active_connection_integral_matches_lifetimes() {
    // Arrivals stop at 5 s; 60 s of drain lets every flow finish.
    let mut s = Scenario::speed_benchmark(5.0);
    s.drain_s = 60.0;
    let r = s.run().unwrap();
    assert_eq!(r.completed(), r.flows.len());
    assert_eq!(r.conns.len(), r.flows.len());
    let lifetimes: u128 = r.conns.iter().map(|c| (c.closed - c.opened) as u128).sum();
    let area = (r.mean_active * r.end as f64) as u128;
    let rel = (area as f64 - lifetimes as f64).abs() / lifetimes as f64;
    assert!(rel < 1e-9, "area {area} vs lifetimes {lifetimes}");
    // Each flow's completion is its connection's lifetime (one connection per flow).
    for f in &r.flows {
        let c = r.conns.iter().find(|c| c.conn == f.conn).unwrap();
        assert_eq!(f.completion(), Some(c.closed - c.opened));
        assert_eq!(c.written, f.size);
    }
}
