//! The simulator's half of the ns-3 cross-check (`ns3/run.sh`, `results/ns3-crosscheck/`):
//!
//! ```text
//! cargo run --release -p sim --example ns3_replay -- gen S1|S1p|S2 LOAD SECONDS SEED FLOWS.csv
//! cargo run --release -p sim --example ns3_replay -- run S1|S1p|S2 FLOWS.csv newreno|sack OUT.csv [--ns3-ssthresh]
//! cargo run --release -p sim --example ns3_replay -- trace S1|S1p|S2 FLOWS.csv newreno|sack FLOW
//! cargo run --release -p sim --example ns3_replay -- speed-flows SECONDS SEED FLOWS.csv
//! ```
//!
//! `gen` writes the flows of paper 003's workload D1 (`Scenario::ns3`; the flows depend only
//! on the bottleneck rate, so they are the same in every setting) as a trace
//! (`arrival_seconds,size_bytes,source`); `run` replays a trace in the simulator and writes
//! what `ns3/dumbbell.cc` writes: one line per flow (`transfer_s` = delivery of the last byte
//! − arrival; its sender's SYNs, data packets, fast recoveries and retransmission timeouts,
//! the SYN's included) and `OUT.csv.stats` with the bottleneck's counters; with
//! `--ns3-ssthresh`, SACK senders set ssthresh from `pipe` as ns-3 does
//! (`TcpConfig::ssthresh_from_pipe`). `trace` prints
//! the data segments flow FLOW's sender put on its access link (time, sequence, length,
//! retransmission) and its counters, the counterpart of `dumbbell --debugFlow`. `speed-flows`
//! writes the flows `dumbbell_speed SECONDS SEED` runs (`Scenario::speed_benchmark`), for
//! timing ns-3 on the same flows.

use sim::scenario::{DriverKind, Scenario};
use sim::topology::Ns3Setting;
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
            let report = replay(setting.parse()?, trace, *tcp == "sack", false, false)?;
            write_outputs(&report, out)?;
        }
        ["run", setting, trace, tcp, out, "--ns3-ssthresh"] => {
            let report = replay(setting.parse()?, trace, *tcp == "sack", false, true)?;
            write_outputs(&report, out)?;
        }
        ["trace", setting, trace, tcp, flow] => {
            let report = replay(setting.parse()?, trace, *tcp == "sack", true, false)?;
            print_flow(&report, flow.parse()?)?;
        }
        _ => {
            eprintln!(
                "usage: ns3_replay gen S1|S1p|S2 LOAD SECONDS SEED FLOWS.csv \
                 | run S1|S1p|S2 FLOWS.csv newreno|sack OUT.csv [--ns3-ssthresh] \
                 | trace S1|S1p|S2 FLOWS.csv newreno|sack FLOW | speed-flows SECONDS SEED FLOWS.csv"
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
    setting: Ns3Setting,
    trace: &str,
    sack: bool,
    injections: bool,
    ns3_ssthresh: bool,
) -> Result<sim::stats::Report, Box<dyn std::error::Error>> {
    let flows = sim::workload::load_trace(std::path::Path::new(trace))?;
    let last = flows.last().map_or(0.0, |f| sim::time::as_secs(f.arrival));
    let mut sc = Scenario::ns3(setting, 0.5, last + 1e-6, sack);
    sc.driver = DriverKind::Tcp;
    sc.workload = WorkloadConfig::Trace {
        path: trace.to_string(),
    };
    sc.record.injections = injections;
    sc.tcp.ssthresh_from_pipe = ns3_ssthresh;
    Ok(sc.run()?)
}

/// The connection records by flow index.
fn conns_by_flow(
    r: &sim::stats::Report,
) -> std::collections::HashMap<u64, &sim::world::ConnRecord> {
    r.conns.iter().map(|c| (c.user, c)).collect()
}

/// Prints the data segments of flow `flow` and its counters.
fn print_flow(r: &sim::stats::Report, flow: u64) -> Result<(), Box<dyn std::error::Error>> {
    let fl = r
        .flows
        .get(flow as usize)
        .ok_or_else(|| format!("no flow {flow}"))?;
    let conns = conns_by_flow(r);
    let c = conns
        .get(&flow)
        .ok_or_else(|| format!("flow {flow} opened no connection"))?;
    println!(
        "flow {flow}: arrival {:.6} s, {} B, transfer {}",
        sim::time::as_secs(fl.arrival),
        fl.size,
        fl.transfer().map_or("-".to_string(), |t| format!(
            "{:.6} s",
            sim::time::as_secs(t)
        ))
    );
    println!("{c:?}");
    for i in r.injections.iter().flatten().filter(|i| i.conn == c.conn) {
        println!(
            "{:.6} tx seq={} len={}{}",
            sim::time::as_secs(i.time),
            i.seq,
            i.len,
            if i.retx { " retx" } else { "" }
        );
    }
    Ok(())
}

fn write_outputs(r: &sim::stats::Report, out: &str) -> std::io::Result<()> {
    let mut f = std::io::BufWriter::new(std::fs::File::create(out)?);
    writeln!(
        f,
        "flow,arrival_s,size_bytes,source,transfer_s,syns,data_packets,fast_recoveries,timeouts"
    )?;
    let conns = conns_by_flow(r);
    let mut unique = 0;
    for (i, fl) in r.flows.iter().enumerate() {
        let t = fl
            .transfer()
            .map_or(String::new(), |t| format!("{}", sim::time::as_secs(t)));
        let counts = conns.get(&(i as u64)).map_or(",,,".to_string(), |c| {
            format!(
                "{},{},{},{}",
                c.syns, c.injected_packets, c.fast_retransmits, c.timeouts
            )
        });
        writeln!(
            f,
            "{i},{},{},{},{t},{counts}",
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
        "enqueued,dropped,data_packets_sent,unique_segments,mean_queue_packets,horizon_s,fast_recoveries,timeouts,control_drops"
    )?;
    writeln!(
        s,
        "{},{},{injected},{unique},{},{horizon},{},{},{}",
        r.bottleneck.tx_packets,
        r.bottleneck.drops,
        r.bottleneck.queue_area as f64 / 1e9 / horizon.max(1e-9),
        r.conns.iter().map(|c| c.fast_retransmits).sum::<u64>(),
        r.conns.iter().map(|c| c.timeouts).sum::<u64>(),
        r.bottleneck.drops - r.bottleneck.data_drops,
    )
}
