//! The multiplexed alternatives on the real-TCP testbed with the real binary (root only: CI
//! runs as root; elsewhere the test says it skipped and returns): `mux` and `lanes` carry
//! every flow, each byte checked both ways, and their relays stop cleanly on SIGTERM
//! (`Session::run_mux` fails otherwise). Its own namespace prefix, bounded waits, nothing left.

use std::path::Path;

use testbed::bed::{can_run, list_namespaces, namespaces, BedConfig, Queue};
use testbed::workload::{flows, Path as FlowPath};
use testbed::Session;

const BIN: &str = env!("CARGO_BIN_EXE_schedtcp");

#[test]
fn mux_and_lanes_carry_every_flow_and_stop_cleanly() {
    if !can_run("mux") {
        return;
    }
    let prefix = format!("tm{}", std::process::id() % 100_000);
    let mut cfg = BedConfig::new(4_000_000, Queue::Bfifo(80_000));
    cfg.prefix = prefix.clone();
    let sizes: Vec<(f64, u64)> = (0..12)
        .map(|i| (i as f64 * 0.02, [1, 30_000, 400_000, 1_500_000][i % 4]))
        .collect();
    let mut plan = flows(&sizes, FlowPath::Tunnel, 5_000);
    // The two largest go on the bulk lane (on the only lane under `mux`).
    for f in plan.iter_mut().filter(|f| f.download > 1_000_000) {
        f.path = FlowPath::Bulk;
    }
    let planned: u64 = plan.iter().map(|f| f.download).sum();
    let mut s = Session::start(cfg, Path::new(BIN)).expect("the testbed");
    let mut runs = Vec::new();
    let outcome = (|| {
        for lanes in [1, 2] {
            runs.push(s.run_mux(lanes, &plan, 0.0, 60.0)?);
        }
        anyhow::Ok(())
    })();
    s.conclude(outcome).expect("mux runs");
    assert_eq!(runs[0].variant, "mux");
    assert_eq!(runs[1].variant, "lanes");
    for r in &runs {
        assert_eq!(r.failed(), 0, "{}: {:?}", r.variant, r.results);
        assert_eq!(
            r.results.iter().map(|x| x.received).sum::<u64>(),
            planned,
            "{}",
            r.variant
        );
        assert!(r.server.is_none() && r.client.is_none());
    }
    let names = namespaces(&prefix);
    assert!(!list_namespaces().unwrap().iter().any(|n| names.contains(n)));
}
