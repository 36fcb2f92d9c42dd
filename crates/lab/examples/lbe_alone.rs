//! The background transfers of the LBE cross-check on their own: `cargo run --release -p lab
//! --example lbe_alone -- ledbat|tcp-lp|newreno [SECONDS]` replays
//! `results/ns3-crosscheck/lbe/evidence/flows_background_only.csv` (two long transfers on
//! pairs 10 and 11 of S1p, from 0 s and 1 s, nothing else) in the simulator, as
//! `ns3-crosscheck` replays its flow lists (`simulate_lbe`), and prints the background's
//! throughput and the bottleneck's mean queue over the first SECONDS (default 30), the
//! counterpart of `ns3_CC_background_only.csv.stats` there (`dumbbell --bgFrom=10 --pairs=12
//! --stop=30 --bgWindow=30`).

use lab::simulate_lbe;
use sim::tcp::CongestionControl;
use sim::topology::Ns3Setting;
use std::path::Path;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cc = match args.first().map(String::as_str) {
        Some("ledbat") => CongestionControl::Ledbat,
        Some("tcp-lp") => CongestionControl::TcpLp,
        Some("newreno") => CongestionControl::NewReno,
        _ => anyhow::bail!("usage: lbe_alone ledbat|tcp-lp|newreno [SECONDS]"),
    };
    let secs: f64 = match args.get(1) {
        Some(s) => s.parse()?,
        None => 30.0,
    };
    anyhow::ensure!(secs > 0.0, "SECONDS must be > 0");
    let flows = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../results/ns3-crosscheck/lbe/evidence/flows_background_only.csv");
    let out = simulate_lbe(Ns3Setting::S1p, &flows, 12, 10, cc, secs)?;
    println!(
        "background {:.2} Mbit/s, mean queue {:.1} packets over {secs} s",
        out.bg_bps() / 1e6,
        out.window_mean_queue_packets
    );
    Ok(())
}
