//! Scheduling claims of paper 000 on the deterministic two-endpoint harness.

use gtcp::pair::{FlowSpec, Pair};
use gtcp::{Config, Policy};

const RATE: usize = 20_000; // bytes per tick per connection
const LONG: usize = 3_000_000;
const SHORT: usize = 200_000;

fn bytes(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

/// A long flow, then a short one that starts later; returns their completion ticks (upload
/// read to its end by the server application), with the data checked.
fn long_and_short(policy: &str) -> (u64, u64) {
    let config = Config {
        policy: policy.parse::<Policy>().unwrap(),
        ..Config::default()
    };
    let specs = vec![
        FlowSpec {
            start: 0,
            up: bytes(LONG, 1),
            down: Vec::new(),
        },
        FlowSpec {
            start: 30,
            up: bytes(SHORT, 2),
            down: Vec::new(),
        },
    ];
    let mut h = Pair::with_flows(config, specs.clone(), RATE, 2);
    assert!(
        h.run(10_000),
        "{policy}: everything finishes and every connection closes"
    );
    if let Err(e) = h.check_end() {
        panic!("{policy}: {e}");
    }
    let long = h.ids[0].unwrap();
    let short = h.ids[1].unwrap();
    for (id, spec) in [(long, &specs[0]), (short, &specs[1])] {
        assert_eq!(h.result(id).up_received, spec.up, "{policy}: bytes intact");
    }
    (
        h.result(long).up_done.unwrap(),
        h.result(short).up_done.unwrap(),
    )
}

#[test]
fn under_tcp_the_short_flow_does_not_finish_first() {
    let (long, short) = long_and_short("tcp");
    // Each connection carries its own flow at RATE: the short one needs SHORT/RATE ticks.
    assert!(short >= 30 + (SHORT / RATE) as u64, "short done at {short}");
    assert!(long >= (LONG / RATE) as u64);
}

#[test]
fn under_srpt_and_fair_the_short_flow_finishes_first_and_sooner() {
    let (tcp_long, tcp_short) = long_and_short("tcp");
    for policy in ["srpt", "fair", "las", "psps"] {
        let (long, short) = long_and_short(policy);
        assert!(short < long, "{policy}: short {short} before long {long}");
        // Both connections carry the short flow: about twice as fast as under tcp.
        assert!(
            short - 30 <= (tcp_short - 30) * 6 / 10,
            "{policy}: short {short} vs tcp {tcp_short}"
        );
        // Non-intrusive: the pair sends as much as before, so the long flow is not later
        // than under tcp by more than a tick of rounding.
        assert!(
            long <= tcp_long + 1,
            "{policy}: long {long} vs tcp {tcp_long}"
        );
    }
}

#[test]
fn under_fair_no_flow_finishes_later_than_under_tcp() {
    // A staggered mix: each flow's completion under fair is compared with its own under tcp.
    let sizes = [
        900_000usize,
        50_000,
        400_000,
        1,
        0,
        16_384,
        700_000,
        120_000,
    ];
    let specs: Vec<FlowSpec> = sizes
        .iter()
        .enumerate()
        .map(|(i, &n)| FlowSpec {
            start: i as u64 * 7,
            up: bytes(n, i as u8),
            down: Vec::new(),
        })
        .collect();
    let run = |policy: &str| {
        let config = Config {
            policy: policy.parse::<Policy>().unwrap(),
            ..Config::default()
        };
        let mut h = Pair::with_flows(config, specs.clone(), RATE, 2);
        assert!(h.run(20_000), "{policy} finishes");
        h.ids
            .iter()
            .map(|id| h.result(id.unwrap()).up_done.unwrap())
            .collect::<Vec<_>>()
    };
    let tcp = run("tcp");
    let fair = run("fair");
    let mut faster = 0;
    for (i, (f, t)) in fair.iter().zip(&tcp).enumerate() {
        assert!(f <= t, "flow {i} ({} bytes): fair {f} > tcp {t}", sizes[i]);
        faster += usize::from(f < t);
    }
    assert!(faster >= 3, "fair speeds flows up: {fair:?} vs {tcp:?}");
}
