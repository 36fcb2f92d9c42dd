//! Shared helpers: one flow over a one-pair dumbbell, with optional scripted drops.
#![allow(dead_code)]

use sim::driver::{FlowRecord, TcpDriver};
use sim::queue::{DropRule, DropTail, Limit, ScriptedDrops};
use sim::tcp::TcpConfig;
use sim::topology::DumbbellConfig;
use sim::workload::{FlowList, FlowSpec};
use sim::world::{ConnRecord, Injection, Sim, World};

pub const MSS: u32 = 1000;

/// A fast, lossless path: 1 Gbit/s access, 100 Mbit/s bottleneck, 1 + 10 + 1 ms one way.
pub fn path() -> DumbbellConfig {
    DumbbellConfig {
        pairs: 1,
        access_rate_bps: 1_000_000_000,
        receiver_rate_bps: 1_000_000_000,
        bottleneck_rate_bps: 100_000_000,
        access_delay_ms: 1.0,
        receiver_delay_ms: 1.0,
        bottleneck_delay_ms: 10.0,
        ..DumbbellConfig::default()
    }
}

/// Two pairs over a 20 Mbit/s, 13 ms bottleneck with a drop-tail buffer of `limit` packets
/// (1 Gbit/s, 1 ms access links): the path of the driver tests.
pub fn two_pairs_20mbit(limit: usize) -> DumbbellConfig {
    DumbbellConfig {
        pairs: 2,
        access_rate_bps: 1_000_000_000,
        receiver_rate_bps: 1_000_000_000,
        access_delay_ms: 1.0,
        receiver_delay_ms: 1.0,
        bottleneck_rate_bps: 20_000_000,
        bottleneck_delay_ms: 13.0,
        bottleneck_queue: sim::queue::QueueConfig::DropTailPackets { limit },
        other_queue: sim::queue::QueueConfig::DropTailPackets { limit: 10_000 },
        ecn_mark_packets: None,
    }
}

pub fn tcp() -> TcpConfig {
    TcpConfig {
        mss: MSS,
        header_bytes: 40,
        initial_window: 2,
        ..TcpConfig::default()
    }
}

pub struct Run {
    pub flows: Vec<FlowRecord>,
    pub conns: Vec<ConnRecord>,
    pub injections: Vec<Injection>,
    pub sim: Sim<TcpDriver<FlowList>>,
}

pub fn build(
    cfg: &TcpConfig,
    topo: &DumbbellConfig,
    flows: Vec<FlowSpec>,
    drops: Vec<DropRule>,
) -> Sim<TcpDriver<FlowList>> {
    let q = ScriptedDrops::new(DropTail::new(Limit::Packets(1000)), drops);
    let d = topo.build_with(Box::new(q));
    let endpoints = d
        .senders
        .iter()
        .copied()
        .zip(d.receivers.iter().copied())
        .collect();
    let mut w = World::new(d.net, cfg.params().expect("valid tcp config"));
    w.record_injections(true);
    Sim::new(w, TcpDriver::new(FlowList::new(flows), endpoints))
}

/// One flow of `packets` full segments at time 0, run to completion.
pub fn one_flow(cfg: &TcpConfig, packets: u64, drops: Vec<DropRule>) -> Run {
    let flows = vec![FlowSpec {
        arrival: 0,
        size: packets * MSS as u64,
        source: 0,
    }];
    let mut sim = build(cfg, &path(), flows, drops);
    sim.run();
    Run {
        flows: sim.driver.flows().to_vec(),
        conns: sim.world.conn_records().to_vec(),
        injections: sim.world.injections().unwrap_or_default().to_vec(),
        sim,
    }
}

/// Groups injections into rounds: a new round starts after a silence longer than `gap`.
pub fn rounds(inj: &[Injection], gap: u64) -> Vec<usize> {
    let mut out = Vec::new();
    let mut last = None;
    for i in inj {
        match last {
            Some(t) if i.time - t <= gap => *out.last_mut().unwrap() += 1,
            _ => out.push(1),
        }
        last = Some(i.time);
    }
    out
}
