//! Speed benchmark of issue 3, as a command that prints numbers:
//!
//! ```text
//! cargo run --release -p sim --example dumbbell_speed [-- SIM_SECONDS [SEED [QUEUE [TCP]]]]
//! ```
//!
//! Paper 003's setting S1 with workload D1 (see `Scenario::speed_benchmark`), 300 simulated
//! seconds by default. Prints bottleneck packets forwarded per wall-clock second. `QUEUE` is
//! the bottleneck discipline (`droptail`, the default, `run`, `run2c:THRESHOLD_PACKETS`, or
//! `all` for the three of paper 003 one after the other), with the 100-packet buffer of S1.
//! `TCP` is `newreno` (the default: NewReno without SACK), `sack` (NewReno windows, RFC 6675
//! recovery) or `sack-cubic`.

use sim::queue::{DisciplineSpec, QueueConfig, QueueName};
use sim::scenario::Scenario;
use std::time::Instant;

fn usage() -> ! {
    eprintln!("usage: dumbbell_speed [SIM_SECONDS [SEED [droptail|run|run2c:N|all [newreno|sack|sack-cubic]]]]");
    std::process::exit(2);
}

fn main() {
    let mut args = std::env::args().skip(1);
    let secs: f64 = match args.next().map(|a| a.parse()) {
        None => 300.0,
        Some(Ok(s)) => s,
        Some(Err(_)) => usage(),
    };
    let seed: Option<u64> = match args.next().map(|a| a.parse()) {
        None => None,
        Some(Ok(s)) => Some(s),
        Some(Err(_)) => usage(),
    };
    let queues: Vec<Option<DisciplineSpec>> = match args.next().as_deref() {
        None => vec![None],
        Some("all") => vec![
            Some(DisciplineSpec::DropTail),
            Some(DisciplineSpec::Run),
            Some(DisciplineSpec::Run2c {
                threshold_packets: 20,
            }),
        ],
        Some(q) => match q.parse() {
            Ok(d) => vec![Some(d)],
            Err(e) => {
                eprintln!("{e}");
                usage()
            }
        },
    };
    let tcp = args.next();
    for q in queues {
        let mut sc = Scenario::speed_benchmark(secs);
        match tcp.as_deref() {
            None | Some("newreno") => {}
            Some("sack") => sc.tcp.sack = true,
            Some("sack-cubic") => {
                sc.tcp.sack = true;
                sc.tcp.congestion_control = sim::tcp::CongestionControl::Cubic;
            }
            Some(other) => {
                eprintln!("unknown TCP `{other}`: newreno, sack or sack-cubic");
                usage()
            }
        }
        if let Some(seed) = seed {
            sc.seed = seed;
        }
        if let Some(d) = q {
            sc.topology.bottleneck_queue = QueueConfig::Discipline {
                queue: QueueName(d),
                limit: 100,
                segment_bytes: sc.tcp.mss,
            };
        }
        run(
            &sc,
            secs,
            q.map_or("droptail (default config)".into(), |d| d.to_string()),
        );
    }
}

fn run(sc: &Scenario, secs: f64, queue: String) {
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
    println!("== bottleneck queue: {queue}");
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
