//! Why flows of 100+ packets get less throughput under RuN2C than under DropTail in
//! `run2c-sim` (issue 13): one seed of workload D1 as `run2c-sim` runs it (NewReno without
//! SACK, initial window 1, maximum window 30, load 0.8, a 100-packet bottleneck buffer,
//! RuN2C threshold 20 packets), the same flows under DropTail and under RuN2C, and per size
//! band of the long flows what their senders went through.
//!
//! ```text
//! cargo run --release -p sim --example run2c_long_flows -- S1|S2 SECONDS SEED [MIN_RTO_MS [sack]]
//! ```
//!
//! Flows arrive for SECONDS, then SECONDS/5 (at least 60 s) more let them finish.
//! MIN_RTO_MS (default 1000, `run2c-sim`'s) changes the senders' minimum RTO, `sack` turns
//! on SACK (RFC 6675 recovery) instead of NewReno's one hole per round trip. For each
//! discipline and band: flows, mean throughput (payload bits over completion time, as
//! `run2c-sim`), the mean per flow of retransmission timeouts, fast recoveries and
//! retransmitted packets, the share of flows with at least one timeout, the mean
//! throughput of the flows without one, and the number and mean throughput of the flows
//! that retransmitted nothing; then the bottleneck's drops and the retransmissions of flows
//! within the threshold (1–20 packets) and above it.

use queues::DisciplineSpec;
use sim::queue::{QueueConfig, QueueName};
use sim::scenario::Scenario;
use sim::topology::{DumbbellConfig, PaperSetting};
use sim::workload::WorkloadConfig;
use std::collections::HashMap;

/// A long flow's throughput (kbit/s), timeouts, fast recoveries and retransmissions.
type Row = (f64, u64, u64, u64);

const BANDS: [(u64, u64); 3] = [(100, 299), (300, 999), (1000, 5000)];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (setting, secs, seed) = match args.get(..3) {
        Some([s, t, seed]) => (
            s.parse::<PaperSetting>()?,
            t.parse::<f64>()?,
            seed.parse::<u64>()?,
        ),
        _ => {
            eprintln!("usage: run2c_long_flows S1|S2 SECONDS SEED [MIN_RTO_MS [sack]]");
            std::process::exit(2);
        }
    };
    let min_rto: f64 = args.get(3).map_or(Ok(1000.0), |x| x.parse())?;
    let sack = args.get(4).is_some_and(|x| x == "sack");
    println!(
        "{setting} D1, {secs} s of arrivals, seed {seed}, min RTO {min_rto} ms, SACK {sack}\n\
         discipline band flows tput_kbps timeouts/flow fast_recoveries/flow retx/flow \
         flows_with_timeout tput_no_timeout_kbps lossless_flows tput_lossless_kbps"
    );
    for d in [
        DisciplineSpec::DropTail,
        DisciplineSpec::Run2c {
            threshold_packets: 20,
        },
    ] {
        let mut sc = Scenario::speed_benchmark(secs);
        sc.seed = seed;
        sc.drain_s = (secs / 5.0).max(60.0);
        sc.topology = DumbbellConfig {
            bottleneck_queue: QueueConfig::Discipline {
                queue: QueueName(d),
                limit: 100,
                segment_bytes: sc.tcp.mss,
            },
            ..setting.topology()
        };
        sc.tcp.initial_window = 1;
        sc.tcp.min_rto_ms = min_rto;
        sc.tcp.max_rto_ms = 64_000.0;
        sc.tcp.sack = sack;
        if let WorkloadConfig::Poisson { load, .. } = &mut sc.workload {
            *load = Some(0.8);
        }
        let mss = sc.tcp.mss as u64;
        let r = sc.run()?;
        let conns: HashMap<u64, &sim::world::ConnRecord> =
            r.conns.iter().map(|c| (c.user, c)).collect();
        let name = match d {
            DisciplineSpec::DropTail => "DropTail",
            _ => "RuN2C",
        };
        for (lo, hi) in BANDS {
            let rows: Vec<Row> = r
                .flows
                .iter()
                .enumerate()
                .filter(|(_, f)| (lo..=hi).contains(&f.size.div_ceil(mss)))
                .filter_map(|(i, f)| {
                    let t = sim::time::as_secs(f.completion()?);
                    let c = conns.get(&(i as u64))?;
                    Some((
                        f.size as f64 * 8.0 / t / 1e3,
                        c.timeouts,
                        c.fast_retransmits,
                        c.retransmits,
                    ))
                })
                .collect();
            let n = rows.len().max(1) as f64;
            let mean = |g: &dyn Fn(&Row) -> f64| rows.iter().map(g).sum::<f64>() / n;
            let clean: Vec<f64> = rows.iter().filter(|x| x.1 == 0).map(|x| x.0).collect();
            let lossless: Vec<f64> = rows.iter().filter(|x| x.3 == 0).map(|x| x.0).collect();
            println!(
                "{name} [{lo}, {hi}] {} {:.0} {:.2} {:.2} {:.1} {:.0}% {:.0} {} {:.0}",
                rows.len(),
                mean(&|x| x.0),
                mean(&|x| x.1 as f64),
                mean(&|x| x.2 as f64),
                mean(&|x| x.3 as f64),
                100.0 * rows.iter().filter(|x| x.1 > 0).count() as f64 / n,
                clean.iter().sum::<f64>() / clean.len().max(1) as f64,
                lossless.len(),
                lossless.iter().sum::<f64>() / lossless.len().max(1) as f64,
            );
        }
        // Retransmissions of flows within the RuN2C threshold (1–20 packets) and above it.
        let (mut short_retx, mut long_retx) = (0, 0);
        for (i, f) in r.flows.iter().enumerate() {
            if let Some(c) = conns.get(&(i as u64)) {
                if f.size.div_ceil(mss) <= 20 {
                    short_retx += c.retransmits;
                } else {
                    long_retx += c.retransmits;
                }
            }
        }
        println!(
            "{name} bottleneck: {} packets forwarded, {} dropped ({} data); retransmissions by \
             flows of 1-20 packets {short_retx}, of more {long_retx}",
            r.bottleneck.tx_packets, r.bottleneck.drops, r.bottleneck.data_drops
        );
    }
    Ok(())
}
