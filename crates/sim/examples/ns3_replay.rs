//! The simulator's half of the ns-3 cross-check (`ns3/run.sh`, `results/ns3-crosscheck/`):
//!
//! ```text
//! cargo run --release -p sim --example ns3_replay -- gen S1|S2 LOAD SECONDS SEED FLOWS.csv
//! cargo run --release -p sim --example ns3_replay -- run S1|S2 FLOWS.csv newreno|sack OUT.csv
//! cargo run --release -p sim --example ns3_replay -- speed-flows SECONDS SEED FLOWS.csv
//! ```
//!
//! `gen` writes the flows of paper 003's workload D1 (`Scenario::ns3`, setting S1 or S2) as
//! a trace (`arrival_seconds,size_bytes,source`); `run` replays a trace in the simulator and
//! writes what `ns3/dumbbell.cc` writes: one line per flow (`transfer_s` = delivery of the
//! last byte − arrival) and `OUT.csv.stats` with the bottleneck's counters. `speed-flows`
//! writes the flows `dumbbell_speed SECONDS SEED` runs (`Scenario::speed_benchmark`), for
//! timing ns-3 on the same flows.

use sim::scenario::{DriverKind, Scenario};
use sim::topology::PaperSetting;
use sim::workload::WorkloadConfig;
use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["gen", setting, load, secs, seed, out] => {
            let mut sc = Scenario::ns3(setting.parse()?, load.parse()?, secs.parse()?, false);
            sc.seed = seed.parse()?;
            write_flows(&sc, out)?;
        }
        ["speed-flows", secs, seed, out] => {
            let mut sc = Scenario::speed_benchmark(secs.parse()?);
            sc.seed = seed.parse()?;
            write_flows(&sc, out)?;
        }
        ["run", setting, trace, tcp, out] => {
            let report = replay(setting.parse()?, trace, *tcp == "sack")?;
            write_outputs(&report, out)?;
        }
        _ => {
            eprintln!(
                "usage: ns3_replay gen S1|S2 LOAD SECONDS SEED FLOWS.csv \
                 | run S1|S2 FLOWS.csv newreno|sack OUT.csv | speed-flows SECONDS SEED FLOWS.csv"
            );
            std::process::exit(2);
        }
    }
    Ok(())
}

/// Writes the flows of `sc` arriving before its `duration_s` as a trace.
fn write_flows(sc: &Scenario, out: &str) -> Result<(), Box<dyn std::error::Error>> {
    let mut src = sc.flow_source()?;
    let mut f = std::io::BufWriter::new(std::fs::File::create(out)?);
    writeln!(f, "arrival_seconds,size_bytes,source")?;
    let end = sim::time::secs(sc.duration_s);
    while let Some(fl) = src.next_flow() {
        if fl.arrival >= end {
            break;
        }
        writeln!(
            f,
            "{:.9},{},{}",
            sim::time::as_secs(fl.arrival),
            fl.size,
            fl.source
        )?;
    }
    Ok(())
}

fn replay(
    setting: PaperSetting,
    trace: &str,
    sack: bool,
) -> Result<sim::stats::Report, Box<dyn std::error::Error>> {
    let flows = sim::workload::load_trace(std::path::Path::new(trace))?;
    let last = flows.last().map_or(0.0, |f| sim::time::as_secs(f.arrival));
    let mut sc = Scenario::ns3(setting, 0.5, last + 1e-6, sack);
    sc.driver = DriverKind::Tcp;
    sc.workload = WorkloadConfig::Trace {
        path: trace.to_string(),
    };
    Ok(sc.run()?)
}

fn write_outputs(r: &sim::stats::Report, out: &str) -> std::io::Result<()> {
    let mut f = std::io::BufWriter::new(std::fs::File::create(out)?);
    writeln!(f, "flow,arrival_s,size_bytes,source,transfer_s")?;
    let mut unique = 0;
    for (i, fl) in r.flows.iter().enumerate() {
        let t = fl
            .transfer()
            .map_or(String::new(), |t| format!("{}", sim::time::as_secs(t)));
        writeln!(
            f,
            "{i},{},{},{},{t}",
            sim::time::as_secs(fl.arrival),
            fl.size,
            fl.source
        )?;
        unique += fl.size.div_ceil(1460);
    }
    let injected: u64 = r.conns.iter().map(|c| c.injected_packets).sum();
    let horizon = sim::time::as_secs(r.end);
    let mut s = std::fs::File::create(format!("{out}.stats"))?;
    writeln!(
        s,
        "enqueued,dropped,data_packets_sent,unique_segments,mean_queue_packets,horizon_s,fast_recoveries,timeouts"
    )?;
    writeln!(
        s,
        "{},{},{injected},{unique},{},{horizon},{},{}",
        r.bottleneck.tx_packets,
        r.bottleneck.drops,
        r.bottleneck.queue_area as f64 / 1e9 / horizon.max(1e-9),
        r.conns.iter().map(|c| c.fast_retransmits).sum::<u64>(),
        r.conns.iter().map(|c| c.timeouts).sum::<u64>(),
    )
}
