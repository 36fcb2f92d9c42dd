//! Runs a scenario file and prints its summary:
//!
//! ```text
//! cargo run --release -p sim --example run_scenario -- SCENARIO.toml
//! ```

use sim::scenario::Scenario;
use std::time::Instant;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: run_scenario SCENARIO.toml");
        std::process::exit(2);
    };
    let sc = match Scenario::load(std::path::Path::new(&path)) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let t0 = Instant::now();
    match sc.run() {
        Ok(r) => {
            println!("{}", r.summary());
            let tt: Vec<f64> = r
                .flows
                .iter()
                .filter_map(|f| f.transfer())
                .map(sim::time::as_secs)
                .collect();
            println!(
                "delivered {} of {} flows, mean transfer time {:.4} s",
                tt.len(),
                r.flows.len(),
                tt.iter().sum::<f64>() / tt.len().max(1) as f64
            );
            if let Some(g) = r.gtcp {
                println!("{g:?}");
            }
            println!(
                "wall {:.2} s, {:.0} bottleneck packets per wall second",
                t0.elapsed().as_secs_f64(),
                r.bottleneck.tx_packets as f64 / t0.elapsed().as_secs_f64()
            );
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
