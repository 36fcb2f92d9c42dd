//! The TUN router's packet-rate limit on this machine (`schedtcp router speed`).
//!
//! A testbed whose origin→destination direction goes through the TUN router, unshaped (rate
//! 10 Gbit/s, drop-tail, 1000 packets, no delay). A UDP sender in the origin offers packets at
//! a paced rate for a few seconds; the destination's interface counts what arrives (its
//! `rx_packets`, so that no receiving process's scheduling or socket buffer is measured; the
//! packets then meet a closed port). The offered rate doubles until the forwarded rate falls
//! below 95% of it; the limit is the highest forwarded rate seen. UDP, because TCP would adapt
//! its rate to the losses and hide them.

use std::fmt::Write as _;
use std::net::{SocketAddr, SocketAddrV4, UdpSocket};
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::bed::{BedConfig, Queue, RouterQueue, Testbed, DEST};
use crate::proc::Proc;

/// Port the packets are sent to (destination namespace; nothing listens).
pub const SINK_PORT: u16 = 9100;

/// Packets received by the destination's interface `d0`.
fn dest_rx_packets(bed: &Testbed) -> Result<u64> {
    let out = crate::proc::sh(
        "ip",
        &[
            "netns",
            "exec",
            bed.dest(),
            "cat",
            "/sys/class/net/d0/statistics/rx_packets",
        ],
    )?;
    out.trim()
        .parse()
        .with_context(|| format!("reading d0's rx_packets: {out:?}"))
}

/// Sends `payload`-byte UDP packets to `to` at `pps` for `seconds` (paced in 1 ms slices);
/// prints the number sent.
pub fn udp_send(to: SocketAddr, pps: u64, seconds: f64, payload: usize) -> Result<u64> {
    let sock = UdpSocket::bind("0.0.0.0:0").context("binding the sender")?;
    sock.connect(to)?;
    let buf = vec![0x5au8; payload.clamp(1, 1472)];
    let start = Instant::now();
    let mut sent = 0u64;
    loop {
        let t = start.elapsed().as_secs_f64();
        if t >= seconds {
            break;
        }
        let due = (t * pps as f64) as u64;
        while sent < due {
            // A full socket buffer (ENOBUFS) is a packet not offered; go on.
            if sock.send(&buf).is_ok() {
                sent += 1;
            } else {
                break;
            }
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    println!("sent {sent}");
    Ok(sent)
}

/// One step of the measurement.
#[derive(Debug, Clone, Copy)]
pub struct Step {
    /// Packets per second asked of the sender.
    pub asked_pps: u64,
    /// Packets per second it sent.
    pub offered_pps: f64,
    /// Packets per second that arrived.
    pub forwarded_pps: f64,
}

/// Runs the measurement in a testbed of prefix `prefix` with the `schedtcp` binary `bin`;
/// returns a printable report.
pub fn measure(prefix: &str, bin: &Path, per_step: Duration, payload: usize) -> Result<String> {
    let mut cfg = BedConfig::new(1_250_000_000, Queue::Pfifo(1000));
    cfg.prefix = prefix.into();
    cfg.router_queue = Some(RouterQueue {
        discipline: "droptail".into(),
        buffer_packets: 1000,
    });
    let mut bed = Testbed::create(cfg)?;
    let dir = std::env::temp_dir().join(format!("schedtcp-router-speed-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    bed.start_router(bin, &dir.join("router.log"))?;
    let secs = per_step.as_secs_f64();
    let mut steps: Vec<Step> = Vec::new();
    let mut pps = 10_000u64;
    while pps <= 1_280_000 {
        let sink_addr = SocketAddr::V4(SocketAddrV4::new(DEST, SINK_PORT));
        let before = dest_rx_packets(&bed)?;
        let mut send = Proc::spawn(
            "udp sender",
            bed.origin(),
            bin,
            &[
                "router".into(),
                "helper".into(),
                "udp-send".into(),
                "--to".into(),
                sink_addr.to_string(),
                "--pps".into(),
                pps.to_string(),
                "--seconds".into(),
                secs.to_string(),
                "--payload".into(),
                payload.to_string(),
            ],
            &dir.join(format!("send-{pps}.log")),
        )?;
        let deadline = Instant::now() + per_step + Duration::from_secs(20);
        send.wait_until(deadline)?;
        // What the router still holds leaves within a few milliseconds.
        std::thread::sleep(Duration::from_millis(300));
        let got = dest_rx_packets(&bed)?.saturating_sub(before);
        let sent: u64 = std::fs::read_to_string(send.log())?
            .lines()
            .find_map(|l| l.strip_prefix("sent ")?.trim().parse().ok())
            .context("the sender printed no count")?;
        let step = Step {
            asked_pps: pps,
            offered_pps: sent as f64 / secs,
            forwarded_pps: got as f64 / secs,
        };
        steps.push(step);
        if step.forwarded_pps < 0.95 * step.offered_pps || step.offered_pps < 0.8 * pps as f64 {
            break;
        }
        pps *= 2;
    }
    let counters = bed.stop_router()?;
    bed.teardown()?;
    let _ = std::fs::remove_dir_all(&dir);
    let mut out = String::new();
    writeln!(
        out,
        "TUN router packet rate ({} B UDP payload, {} B IP packets, {:.1} s per step, unshaped, drop-tail 1000)",
        payload,
        payload + 28,
        secs
    )?;
    writeln!(
        out,
        "{:>10} {:>12} {:>12} {:>8}",
        "asked/s", "offered/s", "forwarded/s", "loss"
    )?;
    for s in &steps {
        writeln!(
            out,
            "{:>10} {:>12.0} {:>12.0} {:>7.1}%",
            s.asked_pps,
            s.offered_pps,
            s.forwarded_pps,
            100.0 * (1.0 - s.forwarded_pps / s.offered_pps.max(1.0))
        )?;
    }
    let best = steps.iter().map(|s| s.forwarded_pps).fold(0.0, f64::max);
    writeln!(
        out,
        "limit: {best:.0} packets/s forwarded ({:.0} Mbit/s of {}-byte packets)",
        best * (payload + 28) as f64 * 8.0 / 1e6,
        payload + 28
    )?;
    if let Some(c) = counters {
        writeln!(
            out,
            "router counters: offered {} released {} queue drops {}",
            c.offered, c.released, c.queue_drops
        )?;
    }
    Ok(out)
}
