//! Speed benchmark of issue 3, as a command that prints numbers:
//!
//! ```text
//! cargo run --release -p sim --example dumbbell_speed [-- SIM_SECONDS [SEED [TCP]]]
//! ```
//!
//! Paper 003's setting S1 with workload D1 (see `Scenario::speed_benchmark`), 300 simulated
//! seconds by default. Prints bottleneck packets forwarded per wall-clock second. `TCP` is
//! `newreno` (the default: NewReno without SACK), `sack` (NewReno windows, RFC 6675
//! recovery) or `sack-cubic`.

use sim::scenario::Scenario;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let secs: f64 = match args.next().map(|a| a.parse()) {
        None => 300.0,
        Some(Ok(s)) => s,
        Some(Err(_)) => {
            eprintln!("usage: dumbbell_speed [SIM_SECONDS [SEED]]");
            std::process::exit(2);
        }
    };
    let mut sc = Scenario::speed_benchmark(secs);
    if let Some(seed) = args.next().and_then(|a| a.parse().ok()) {
        sc.seed = seed;
    }
    match args.next().as_deref() {
        None | Some("newreno") => {}
        Some("sack") => sc.tcp.sack = true,
        Some("sack-cubic") => {
            sc.tcp.sack = true;
            sc.tcp.congestion_control = sim::tcp::CongestionControl::Cubic;
        }
        Some(other) => {
            eprintln!("unknown TCP `{other}`: newreno, sack or sack-cubic");
            std::process::exit(2);
        }
    }
    let t0 = Instant::now();
    let report = match sc.run() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let wall = t0.elapsed().as_secs_f64();
    let fwd = report.bottleneck.tx_packets;
    let both = fwd + report.reverse_bottleneck.tx_packets;
    println!("{}", report.summary());
    let offered: u64 = report.flows.iter().map(|f| f.size).sum();
    let retx: u64 = report.conns.iter().map(|c| c.retransmits).sum();
    let rate = sc.topology.bottleneck_rate_bps as f64;
    println!(
        "offered payload load {:.3}, bottleneck utilisation (wire) {:.3}, retransmitted segments {retx}",
        offered as f64 * 8.0 / secs / rate,
        report.bottleneck.tx_bytes as f64 * 8.0 / secs / rate,
    );
    println!(
        "simulated {secs} s in {wall:.3} s wall ({:.0}x real time)",
        secs / wall
    );
    println!(
        "bottleneck packets/s (wall): {:.0} forward (data), {:.0} both directions; events/s: {:.0}",
        fwd as f64 / wall,
        both as f64 / wall,
        report.events as f64 / wall
    );
    println!("fingerprint {:016x}", report.fingerprint());
}
