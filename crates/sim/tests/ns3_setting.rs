//! `Scenario::ns3`'s settings and SACK option bytes, checked on single loss-free flows.

use sim::scenario::{DriverKind, Scenario};
use sim::topology::{Ns3Setting, PaperSetting};
use sim::workload::WorkloadConfig;

/// One flow of `segments` full segments, alone on the dumbbell: its transfer time (delivery
/// of the last byte − arrival), ns.
fn lone_flow(setting: Ns3Setting, sack: bool, option_bytes: bool, segments: u64) -> u64 {
    let mut sc = Scenario::ns3(setting, 0.5, 1.0, sack);
    sc.driver = DriverKind::Tcp;
    sc.tcp.sack_option_bytes = option_bytes;
    let dir = std::env::temp_dir().join(format!(
        "ns3_setting_{}_{setting}_{sack}_{option_bytes}_{segments}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("flows.csv");
    std::fs::write(
        &trace,
        format!(
            "arrival_seconds,size_bytes,source\n0.1,{},0\n",
            segments * 1460
        ),
    )
    .unwrap();
    sc.workload = WorkloadConfig::Trace {
        path: trace.display().to_string(),
    };
    let r = sc.run().unwrap();
    assert_eq!(r.bottleneck.drops, 0);
    r.flows[0].transfer().unwrap()
}

#[test]
fn s1p_is_run2c_sims_s1_and_s1_has_1_ms_links() {
    assert_eq!(Ns3Setting::S1p.topology(), PaperSetting::S1.topology());
    assert_eq!(Ns3Setting::S2.topology(), PaperSetting::S2.topology());
    assert_eq!(Ns3Setting::S1.topology().bottleneck_delay_ms, 1.0);
    for s in ["S1", "S1p", "S2"] {
        assert_eq!(s.parse::<Ns3Setting>().unwrap().name(), s);
    }
    assert!("S3".parse::<Ns3Setting>().is_err());
    // 3 ms more one way on the bottleneck; a one-segment flow's last byte is delivered
    // after three one-way crossings (SYN, SYN-ACK, data): 9 ms later.
    let short = lone_flow(Ns3Setting::S1, false, false, 1);
    let long = lone_flow(Ns3Setting::S1p, false, false, 1);
    assert_eq!(long - short, 9_000_000);
}

/// ns-3 sends SACK-permitted (4 bytes with padding) on the SYN and the SYN-ACK: each crosses
/// 3 links of 10 Mbit/s, 3.2 µs more per link, 19.2 µs per handshake. Without SACK nothing
/// changes; without loss no ACK carries SACK blocks.
#[test]
fn sack_option_bytes_lengthen_the_handshake_by_19_2_us() {
    for segments in [1, 20] {
        let plain = lone_flow(Ns3Setting::S1p, true, false, segments);
        let with = lone_flow(Ns3Setting::S1p, true, true, segments);
        assert_eq!(with - plain, 19_200, "{segments} segments");
        assert_eq!(
            lone_flow(Ns3Setting::S1p, false, true, segments),
            lone_flow(Ns3Setting::S1p, false, false, segments)
        );
    }
}
