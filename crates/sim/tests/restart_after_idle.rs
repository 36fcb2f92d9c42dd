//! Restart after idle (`[tcp] restart_after_idle`, Linux's `tcp_slow_start_after_idle`)
//! through whole scenarios: a warm multiplexed connection that sent nothing for longer than
//! its RTO carries its next flow from a cut window, one that went quiet for less keeps its
//! window, and connections that never go quiet (one per flow) are not touched.

use sim::scenario::Scenario;
use sim::stats::Report;
use sim::time::as_secs;

/// One pair over 20 Mbit/s, 30 ms round trip, a 100-packet buffer; SACK, CUBIC, IW10.
/// `flows` as (arrival s, bytes).
fn scenario(driver: &str, restart: bool, flows: &[(f64, u64)]) -> Scenario {
    let list: Vec<String> = flows
        .iter()
        .map(|(a, b)| format!("{{ arrival_s = {a:?}, size_bytes = {b} }}"))
        .collect();
    let text = format!(
        r#"
seed = 1
duration_s = 20.0
drain_s = 30.0
driver = "{driver}"

[topology]
pairs = 1
access_rate_bps = 1000000000
receiver_rate_bps = 1000000000
access_delay_ms = 1.0
receiver_delay_ms = 1.0
bottleneck_rate_bps = 20000000
bottleneck_delay_ms = 13.0
bottleneck_queue = {{ kind = "drop_tail_packets", limit = 100 }}

[tcp]
mss = 1448
header_bytes = 52
initial_window = 10
handshake = true
sack = true
congestion_control = "cubic"
restart_after_idle = {restart}

[workload]
kind = "list"
flows = [{}]
"#,
        list.join(", ")
    );
    Scenario::from_toml(&text).expect("the scenario parses")
}

fn transfer_s(r: &Report, id: usize) -> f64 {
    as_secs(r.flows[id].transfer().expect("the flow was delivered"))
}

fn run(driver: &str, restart: bool, flows: &[(f64, u64)]) -> Report {
    scenario(driver, restart, flows).run().expect("runs")
}

/// A 3 MB flow opens the multiplexed connection's window; a 1 MB flow follows on the same
/// connection seconds after the first ended.
const AFTER_SILENCE: &[(f64, u64)] = &[(0.0, 3_000_000), (8.0, 1_000_000)];

#[test]
fn a_warm_connection_idle_for_longer_than_its_rto_sends_from_a_cut_window() {
    let off = run("mux", false, AFTER_SILENCE);
    let on = run("mux", true, AFTER_SILENCE);
    assert_eq!(on.flows[0].conn, on.flows[1].conn, "one connection");
    // Before any silence the option changes nothing.
    assert_eq!(transfer_s(&on, 0), transfer_s(&off, 0));
    assert!(
        transfer_s(&off, 0) < 7.0,
        "the first flow ends before the second arrives"
    );
    // After seconds of silence (many RTOs) the window restarts from IW10 and slow-starts:
    // the second flow takes at least one more round trip (30 ms) than with the window kept.
    let (kept, cut) = (transfer_s(&off, 1), transfer_s(&on, 1));
    assert!(cut > kept + 0.03, "kept {kept} s, restarted {cut} s");
}

#[test]
fn a_silence_shorter_than_the_rto_keeps_the_window() {
    // The second flow arrives 20 ms after the first flow's last byte was delivered (found
    // from the run without the option): the connection has sent nothing for about 35 ms and
    // its RTO is at least 200 ms (`min_rto`).
    let off = run("mux", false, AFTER_SILENCE);
    let first_end = as_secs(off.flows[0].delivered.expect("delivered"));
    let flows = [(0.0, 3_000_000), (first_end + 0.02, 1_000_000)];
    let (off, on) = (run("mux", false, &flows), run("mux", true, &flows));
    assert_eq!(transfer_s(&on, 1), transfer_s(&off, 1));
}

#[test]
fn connections_of_their_own_never_idle_and_are_unchanged() {
    // `tcp` writes each flow into a fresh connection at once: nothing is ever idle.
    let flows: Vec<(f64, u64)> = (0..20)
        .map(|i| (0.3 * i as f64, 5_000 + 150_001 * i as u64))
        .collect();
    let (off, on) = (run("tcp", false, &flows), run("tcp", true, &flows));
    let times = |r: &Report| -> Vec<f64> { (0..r.flows.len()).map(|i| transfer_s(r, i)).collect() };
    assert_eq!(times(&on), times(&off));
}
