//! Paper 003, Section III in the simulator: senders pick PIN initial sequence numbers and the
//! bottleneck's RuN2C classifies by the mask on the wire sequence number alone (`run2c_pin`),
//! beside the stateful classifier (the flow's offset, `run2c:N`) on the same flows. While no
//! flow runs over into its next PIN block the two classify every packet alike, so the runs are
//! identical; once flows overflow, they are not.

use queues::PinScheme;
use sim::queue::{DisciplineSpec, QueueConfig, QueueName};
use sim::scenario::Scenario;
use sim::tcp::Pin;

/// S1/D1 for `duration_s` with PIN ISNs of `scheme` and the bottleneck queue `queue`.
fn s1_d1(duration_s: f64, scheme: PinScheme, queue: QueueConfig) -> Scenario {
    let mut sc = Scenario::speed_benchmark(duration_s);
    sc.seed = 3;
    sc.drain_s = 60.0;
    sc.tcp.pin_isn = Some(Pin(scheme));
    sc.topology.bottleneck_queue = queue;
    sc.validate().expect("valid scenario");
    sc
}

/// The stateful RuN2C whose threshold matches 2^TH for full segments of `mss` bytes: the
/// first ⌈2^TH / mss⌉ segments of a flow are in the first class under both.
fn stateful(scheme: PinScheme, mss: u32) -> QueueConfig {
    QueueConfig::Discipline {
        queue: QueueName(DisciplineSpec::Run2c {
            threshold_packets: scheme.threshold_bytes().div_ceil(u64::from(mss)) as u32,
        }),
        limit: 100,
        segment_bytes: mss,
    }
}

fn stateless(scheme: PinScheme) -> QueueConfig {
    QueueConfig::Run2cPin {
        limit: 100,
        pin: Pin(scheme),
    }
}

/// The paper's L = 8, TH = 14 (blocks of 4 MiB) with no random low bits: 20 s of S1/D1 has
/// no flow of 4 MiB, and the stateless core gives the very same run as the stateful one.
#[test]
fn stateless_core_equals_stateful_while_no_flow_overflows() {
    let scheme = PinScheme::new(10, 8, 14, 0).unwrap();
    let a = s1_d1(20.0, scheme, stateful(scheme, 1460)).run().unwrap();
    let b = s1_d1(20.0, scheme, stateless(scheme)).run().unwrap();
    assert!(a.flows.len() > 100, "{} flows", a.flows.len());
    let largest = a.flows.iter().map(|f| f.size).max().unwrap();
    assert!(largest < scheme.overflow_bytes(), "a flow of {largest} B");
    assert!(a.bottleneck.drops > 0, "the queue must matter");
    assert_eq!(a.fingerprint(), b.fingerprint());
    assert_eq!(a, b);
}

/// Blocks of 32 KiB (L = 1): flows longer than that run over into the next block, whose first
/// 16 KiB the mask puts in the first class again: the runs differ.
#[test]
fn overflowing_flows_are_classified_apart() {
    let scheme = PinScheme::new(17, 1, 14, 0).unwrap();
    let a = s1_d1(20.0, scheme, stateful(scheme, 1460)).run().unwrap();
    let b = s1_d1(20.0, scheme, stateless(scheme)).run().unwrap();
    assert!(a.flows.iter().any(|f| f.size > scheme.overflow_bytes()));
    assert_ne!(a.fingerprint(), b.fingerprint());
}

/// The random low bits shift where a flow's first class ends by less than one segment: the
/// runs may differ, but the ISNs stay valid and nothing breaks.
#[test]
fn random_low_bits_run() {
    let scheme = PinScheme::paper();
    let r = s1_d1(10.0, scheme, stateless(scheme)).run().unwrap();
    assert!(r.completed() > 0);
    assert!((0..100).all(|s| scheme.is_valid_isn(sim::tcp::pin_isn(Some(scheme), s))));
}
