//! The Linux driver: a TUN device, policy routing into it, and two threads driving the
//! sans-IO [`Router`].
//!
//! - The *reader* thread blocks on the device, stamps each packet with its arrival time and
//!   hands it over a bounded channel ([`CHANNEL_PACKETS`]; when the router falls behind, the
//!   reader blocks and the kernel's TUN queue — `txqueuelen`, 500 packets — drops).
//! - The *releaser* (the calling thread) offers arrivals to the router, waits until the
//!   router's next wake-up or the next arrival, whichever is first (a futex wait with
//!   nanosecond timeout, so a release is late by the kernel's timer slack, ~50 µs, not by a
//!   millisecond tick), and writes released packets back into the device.
//!
//! The time the core sees is nanoseconds since [`run`] started, from a monotonic clock.

use std::io;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use tun_rs::{DeviceBuilder, InterruptEvent, SyncDevice};

use crate::{Nanos, Router, RouterConfig, RouterStats};

/// Packets in flight between the reader and the releaser: 4096 (6 MB of full-size packets).
pub const CHANNEL_PACKETS: usize = 4096;

/// Largest packet read from the device: 65 535 B (an IP packet's limit; offloads are off, so
/// packets are at most the device's MTU in practice).
pub const MAX_PACKET: usize = 65_535;

/// Linux's "no buffer space available": the device's queue is full (the packet is lost).
const ENOBUFS: i32 = 105;

/// Longest wait of the releaser without an event, so that a stop request is seen: 100 ms.
const IDLE_WAIT: Duration = Duration::from_millis(100);

/// Runs a command, failing with its stderr.
fn ip(args: &[&str]) -> Result<()> {
    let out = Command::new("ip")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .context("running `ip` (iproute2)")?;
    if !out.status.success() {
        bail!(
            "`ip {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(())
}

/// Policy routing that sends what enters on `input` into the TUN device `tun` (IPv4). Removed
/// when dropped.
///
/// `ip rule add iif INPUT lookup TABLE priority TABLE` and `ip route add default dev TUN
/// table TABLE`. Packets the router writes back enter with `tun` as input interface, miss the
/// rule and are forwarded by the main table. The reverse-path filter must be off for the TUN
/// device (it is set so) and in `all` (checked): the kernel drops, under any filter mode,
/// what arrives on a device that has no address. IP forwarding must be on
/// (`net.ipv4.ip_forward = 1`).
#[derive(Debug)]
pub struct Routing {
    input: String,
    table: String,
    tun: String,
}

impl Routing {
    /// Installs the rule and the route (`table` also serves as the rule's priority).
    pub fn install(input: &str, tun: &str, table: u32) -> Result<Self> {
        if table == 0 || table >= 252 {
            bail!("routing table {table}: use 1..=251 (252-255 are the kernel's own)");
        }
        let t = table.to_string();
        // The reverse-path filter drops what a device without an address receives whenever it
        // is on (`fib_validate_source`), whatever the mode; the effective value is the larger
        // of `all` and the device's.
        std::fs::write(format!("/proc/sys/net/ipv4/conf/{tun}/rp_filter"), "0\n")
            .with_context(|| format!("turning off the reverse-path filter of {tun}"))?;
        let all = std::fs::read_to_string("/proc/sys/net/ipv4/conf/all/rp_filter")
            .context("reading net.ipv4.conf.all.rp_filter")?;
        if all.trim() != "0" {
            bail!(
                "net.ipv4.conf.all.rp_filter is {}: the kernel would drop every packet the router \
                 writes back into {tun} (reverse-path filter on a device without an address); \
                 set it to 0 here (`sysctl -w net.ipv4.conf.all.rp_filter=0`) and use the \
                 per-interface settings for the other devices",
                all.trim()
            );
        }
        ip(&["route", "replace", "default", "dev", tun, "table", &t])?;
        let routing = Routing {
            input: input.into(),
            table: t,
            tun: tun.into(),
        };
        ip(&[
            "rule",
            "add",
            "iif",
            input,
            "lookup",
            &routing.table,
            "priority",
            &routing.table,
        ])?;
        Ok(routing)
    }
}

impl Drop for Routing {
    fn drop(&mut self) {
        let t = &self.table;
        let _ = ip(&[
            "rule",
            "del",
            "iif",
            &self.input,
            "lookup",
            t,
            "priority",
            t,
        ]);
        let _ = ip(&["route", "del", "default", "dev", &self.tun, "table", t]);
    }
}

/// Creates the TUN device `name` (up, MTU `mtu`, no packet-information header, no offloads).
pub fn open_device(name: &str, mtu: u16) -> Result<SyncDevice> {
    DeviceBuilder::new()
        .name(name)
        .mtu(mtu)
        .packet_information(false)
        .offload(false)
        .enable(true)
        .build_sync()
        .with_context(|| format!("creating TUN device {name} (needs root or CAP_NET_ADMIN)"))
}

/// Runs the router on `dev` until `stop` is set (or the device fails); returns its counters.
pub fn run(dev: SyncDevice, cfg: RouterConfig, stop: &AtomicBool) -> Result<RouterStats> {
    let dev = Arc::new(dev);
    let event = Arc::new(InterruptEvent::new().context("creating the interrupt event")?);
    let (tx, rx) = mpsc::sync_channel::<(Instant, Vec<u8>)>(CHANNEL_PACKETS);
    let reader = {
        let dev = Arc::clone(&dev);
        let event = Arc::clone(&event);
        std::thread::Builder::new()
            .name("router-reader".into())
            .spawn(move || -> io::Result<()> {
                let mut buf = vec![0u8; MAX_PACKET];
                loop {
                    match dev.recv_intr(&mut buf, &event) {
                        Ok(n) => {
                            if tx.send((Instant::now(), buf[..n].to_vec())).is_err() {
                                return Ok(());
                            }
                        }
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {
                            if event.is_trigger() {
                                return Ok(());
                            }
                        }
                        Err(e) => return Err(e),
                    }
                }
            })
            .context("starting the reader thread")?
    };
    let start = Instant::now();
    let since = |t: Instant| -> Nanos {
        u64::try_from(t.saturating_duration_since(start).as_nanos()).unwrap_or(u64::MAX)
    };
    let mut router: Router<Vec<u8>> = Router::new(cfg);
    let mut dropped = Vec::new();
    let mut result = Ok(());
    while !stop.load(Ordering::Relaxed) {
        let now = since(Instant::now());
        let wait = router
            .next_wakeup()
            .map(|at| Duration::from_nanos(at.saturating_sub(now)))
            .unwrap_or(IDLE_WAIT)
            .min(IDLE_WAIT);
        let first = if wait.is_zero() {
            rx.try_recv().map_err(|e| match e {
                mpsc::TryRecvError::Empty => RecvTimeoutError::Timeout,
                mpsc::TryRecvError::Disconnected => RecvTimeoutError::Disconnected,
            })
        } else {
            rx.recv_timeout(wait)
        };
        match first {
            Ok((at, pkt)) => {
                router.offer(since(at), pkt, &mut dropped);
                // Whatever else arrived meanwhile, without waiting.
                while let Ok((at, pkt)) = rx.try_recv() {
                    router.offer(since(at), pkt, &mut dropped);
                }
                dropped.clear();
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
        let now = since(Instant::now());
        while let Some(pkt) = router.poll(now) {
            if let Err(e) = dev.send(&pkt) {
                // A full or vanished device: the packet is lost, as on a real link; a device
                // that is gone ends the run.
                if e.kind() != io::ErrorKind::WouldBlock && e.raw_os_error() != Some(ENOBUFS) {
                    result = Err(e).context("writing to the TUN device");
                    stop.store(true, Ordering::Relaxed);
                    break;
                }
            }
        }
    }
    let _ = event.trigger();
    drop(rx);
    match reader.join() {
        Ok(Ok(())) => {}
        Ok(Err(e)) if result.is_ok() => {
            result = Err(e).context("reading the TUN device");
        }
        Ok(Err(_)) => {}
        Err(_) => bail!("the reader thread panicked"),
    }
    result.map(|()| router.stats())
}

/// A flag set by SIGTERM or SIGINT (the router then stops, prints its counters and removes
/// its routing).
pub fn stop_on_signals() -> Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
        signal_hook::flag::register(sig, Arc::clone(&stop))
            .context("installing the signal handlers")?;
    }
    Ok(stop)
}
