//! Property test: whatever packets are lost, a transfer completes, every byte is
//! acknowledged exactly once cumulatively, and no packet leaks.

mod common;

use common::*;
use proptest::prelude::*;
use sim::queue::DropRule;
use sim::tcp::TcpConfig;

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    #[test]
    fn lossy_transfers_complete(
        drops in proptest::collection::vec(0u64..150, 0..12),
        packets in 1u64..80,
        delack: bool,
        handshake: bool,
        max_window in proptest::option::of(2u32..40),
    ) {
        let cfg = TcpConfig {
            delayed_ack_ms: delack.then_some(40.0),
            handshake,
            max_window,
            ..tcp()
        };
        let r = one_flow(&cfg, packets, drops.into_iter().map(DropRule::Nth).collect());
        let f = &r.flows[0];
        prop_assert!(f.finished.is_some(), "flow did not complete: {:?}", r.conns);
        let c = &r.conns[0];
        prop_assert_eq!(c.acked, packets * MSS as u64);
        prop_assert_eq!(c.written, c.acked);
        let fresh: u64 = r.injections.iter().filter(|i| !i.retx).map(|i| i.len as u64).sum();
        prop_assert_eq!(fresh, c.written, "every byte sent once as new data");
        prop_assert_eq!(r.sim.world.packets_alive(), 0);
        prop_assert!(r.injections.iter().all(|i| i.len <= MSS));
    }
}
