//! LEDBAT and TCP-LP over a simulated bottleneck (paper 004's setup: 10 Mbit/s, an 80 ms
//! buffer, 25 ms propagation): both yield to TCP, and LEDBAT shows the two failure modes
//! known from deployments — the latecomer advantage and starvation after a route change.

use sim::driver::{BackgroundDriver, BgPolicy, LongFlow};
use sim::queue::QueueConfig;
use sim::tcp::{CongestionControl, TcpConfig};
use sim::time::{millis, secs};
use sim::topology::{Dumbbell, DumbbellConfig, Ns3Setting};
use sim::{Sim, World};

const RATE: f64 = 10e6;

fn dumbbell(pairs: u32) -> Dumbbell {
    DumbbellConfig {
        pairs,
        access_rate_bps: 1_000_000_000,
        access_delay_ms: 0.0,
        receiver_rate_bps: 1_000_000_000,
        receiver_delay_ms: 0.0,
        bottleneck_rate_bps: RATE as u64,
        bottleneck_delay_ms: 25.0,
        // 80 ms at 10 Mbit/s.
        bottleneck_queue: QueueConfig::DropTailBytes { limit: 100_000 },
        ..DumbbellConfig::default()
    }
    .build()
}

fn flow(d: &Dumbbell, i: usize, start: f64, cc: CongestionControl) -> LongFlow {
    LongFlow {
        src: d.senders[i],
        dst: d.receivers[i],
        start: secs(start),
        cc,
        ledbat_target: millis(25.0),
    }
}

/// Runs `flows` (one per dumbbell pair); returns the sim.
fn sim(d: Dumbbell, flows: Vec<LongFlow>) -> Sim<BackgroundDriver> {
    let world = World::new(d.net, TcpConfig::default().params().unwrap());
    let driver = BackgroundDriver::new(BgPolicy::Vanilla, Vec::new(), flows).unwrap();
    Sim::new(world, driver)
}

/// Goodput of each long flow over `[from, to]`, as fractions of the bottleneck rate.
fn shares(s: &mut Sim<BackgroundDriver>, from: f64, to: f64) -> Vec<f64> {
    s.run_until(secs(from));
    let before = s.driver.long_acked.clone();
    s.run_until(secs(to));
    s.driver
        .long_acked
        .iter()
        .zip(&before)
        .map(|(a, b)| (a - b) as f64 * 8.0 / (RATE * (to - from)))
        .collect()
}

#[test]
fn ledbat_alone_fills_the_link_and_yields_to_tcp() {
    let d = dumbbell(1);
    let f = vec![flow(&d, 0, 0.0, CongestionControl::Ledbat)];
    let alone = shares(&mut sim(d, f), 5.0, 20.0);
    assert!(alone[0] > 0.85, "LEDBAT alone: {alone:?}");
    let d = dumbbell(2);
    let f = vec![
        flow(&d, 0, 0.0, CongestionControl::NewReno),
        flow(&d, 1, 0.0, CongestionControl::Ledbat),
    ];
    let s = shares(&mut sim(d, f), 5.0, 30.0);
    // TCP fills the 80 ms buffer, above LEDBAT's 25 ms target: LEDBAT sits at its minimum
    // window (2 segments per RTT of ~100-130 ms, about 0.02-0.03 of the link).
    assert!(s[1] < 0.1 && s[0] > 0.85, "TCP, LEDBAT: {s:?}");
}

#[test]
fn tcp_lp_yields_to_tcp_and_uses_the_link_alone() {
    let d = dumbbell(1);
    let f = vec![flow(&d, 0, 0.0, CongestionControl::TcpLp)];
    let alone = shares(&mut sim(d, f), 5.0, 20.0)[0];
    let d = dumbbell(1);
    let f = vec![flow(&d, 0, 0.0, CongestionControl::NewReno)];
    let reno = shares(&mut sim(d, f), 5.0, 20.0)[0];
    // Alone, TCP-LP halves whenever its smoothed delay passes 15% of its delay range (after
    // a reaction [sd, 2 sd]: about 4 ms of queue here) and does not grow for three RTTs: a
    // sawtooth between half and all of the bandwidth-delay product, about 0.8 of the link
    // where NewReno, which halves only at a full 80 ms buffer, keeps it full.
    assert!(
        alone > 0.7 && reno > 0.9,
        "TCP-LP, NewReno alone: {alone}, {reno}"
    );
    let d = dumbbell(2);
    let f = vec![
        flow(&d, 0, 0.0, CongestionControl::NewReno),
        flow(&d, 1, 0.0, CongestionControl::TcpLp),
    ];
    let mut s = sim(d, f);
    let sh = shares(&mut s, 5.0, 30.0);
    assert!(sh[1] < 0.1 && sh[0] > 0.85, "TCP, TCP-LP: {sh:?}");
}

#[test]
fn two_tcp_lp_transfers_share_an_idle_short_path_and_use_most_of_it() {
    // Paper 003's S1 (10 Mbit/s, 1 + 4 + 1 ms, 100 packets): a packet waits 1.2 ms behind
    // one of the other transfer's, an eighth of the one-way delay. A delay range made of
    // such waits alone puts the threshold within microseconds of the minimum: each wait is
    // an early congestion indication and the transfers stay at one or two segments.
    let run = |cc: CongestionControl| {
        let d = Ns3Setting::S1p.topology();
        let d = DumbbellConfig { pairs: 2, ..d }.build();
        let f = vec![flow(&d, 0, 0.0, cc), flow(&d, 1, 1.0, cc)];
        shares(&mut sim(d, f), 5.0, 20.0)
    };
    let lp = run(CongestionControl::TcpLp);
    let reno: f64 = run(CongestionControl::NewReno).iter().sum();
    let total: f64 = lp.iter().sum();
    assert!(
        total > 0.75 * reno,
        "TCP-LP {lp:?} against NewReno's {reno}"
    );
    // Neither starves the other.
    assert!(lp[0] > 0.25 * total && lp[1] > 0.25 * total, "{lp:?}");
}

#[test]
fn ledbat_latecomer_takes_the_larger_share() {
    // The first flow keeps a standing queue of about its 25 ms target; the second arrives on
    // it, counts it in its base delay, and pushes the queue to 25 ms above that — which the
    // first reads as 50 ms of queuing delay and backs off (RFC 6817 §4.4 names the problem).
    let d = dumbbell(2);
    let f = vec![
        flow(&d, 0, 0.0, CongestionControl::Ledbat),
        flow(&d, 1, 20.0, CongestionControl::Ledbat),
    ];
    let s = shares(&mut sim(d, f), 40.0, 70.0);
    assert!(s[1] > 2.0 * s[0], "first, latecomer: {s:?}");
    assert!(s[0] + s[1] > 0.85, "{s:?}");
}

#[test]
fn ledbat_starves_after_a_route_change_to_a_longer_path() {
    // 40 ms more propagation after 15 s: LEDBAT reads it as 40 ms of queuing delay (> its
    // 25 ms target) until the old base delay ages out of its 10-minute history, and shrinks
    // to its minimum window although the link is idle. A LEDBAT flow that starts on the new
    // path fills it.
    let d = dumbbell(1);
    let bottleneck = d.bottleneck as usize;
    let f = vec![flow(&d, 0, 0.0, CongestionControl::Ledbat)];
    let mut s = sim(d, f);
    let before = shares(&mut s, 5.0, 15.0)[0];
    s.world.net.links[bottleneck].delay += millis(40.0);
    let after = shares(&mut s, 25.0, 45.0)[0];
    assert!(before > 0.85, "before the change: {before}");
    assert!(after < 0.15, "after the change: {after}");

    let d = dumbbell(1);
    let bottleneck = d.bottleneck as usize;
    let f = vec![flow(&d, 0, 0.0, CongestionControl::Ledbat)];
    let mut fresh = sim(d, f);
    fresh.world.net.links[bottleneck].delay += millis(40.0);
    let fresh = shares(&mut fresh, 10.0, 30.0)[0];
    assert!(fresh > 0.85, "fresh flow on the longer path: {fresh}");
}
