//! Throughput and memory of the streaming analysis on a large generated capture:
//!
//! ```text
//! cargo run --release -p trace --example bench_trace -- [PACKETS] [CONCURRENT] [FILE]
//! ```
//!
//! Writes a payload-stripped pcap (snap length 96, Ethernet, IPv4) of `PACKETS` packets
//! (default 10 000 000) with `CONCURRENT` connections alive at any time (default 20 000) on
//! 4 000 routes: each connection a SYN, a SYN-ACK, data segments (1448 bytes, some smaller)
//! each answered by an ACK, and FINs; a new connection replaces every one that ends. Then it
//! reads the file twice, once only decoding frames and once with the whole analysis
//! (Table 1, segment sizes, flow list), on one thread, and prints packets per second of each
//! and the process's peak resident memory (`VmHWM`). The file stays in the page cache, so
//! this measures parsing and analysis, not the disk. With `REUSE=1` and an existing FILE, the
//! generation is skipped (to compare builds on the same bytes).

use std::fs::File;
use std::io::BufWriter;
use std::time::Instant;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use trace::decode::{flags, linktype};
use trace::synth::{ethernet, ipv4, PcapWriter, Tcp};

struct Conn {
    client: [u8; 4],
    server: [u8; 4],
    port: u16,
    /// Data segments left.
    left: u32,
    seq: u32,
    /// Next packet: 0 SYN, 1 SYN-ACK, 2 data, 3 its ACK, 4 FIN, 5 FIN, 6 last ACK.
    step: u8,
}

fn new_conn(rng: &mut StdRng, next_port: &mut u16) -> Conn {
    let route: u32 = rng.random_range(0..4000);
    *next_port = next_port.wrapping_add(1).max(1024);
    Conn {
        client: [10, 1, (route >> 8) as u8, route as u8],
        server: [10, 2, 0, (route % 16) as u8],
        port: *next_port,
        // Heavy-ish tail: most connections short, some long.
        left: if rng.random_bool(0.9) {
            rng.random_range(1..20)
        } else {
            rng.random_range(20..2000)
        },
        seq: rng.random(),
        step: 0,
    }
}

fn peak_rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    s.lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// CPU time of this process so far (user + system, seconds), from `/proc/self/stat` (clock
/// ticks of 1/100 s, Linux's `USER_HZ`): on a shared machine, packets per CPU-second is the
/// one-core throughput; wall time also counts the time other processes held the core.
fn cpu_s() -> f64 {
    let Ok(s) = std::fs::read_to_string("/proc/self/stat") else {
        return f64::NAN;
    };
    // After the command name (which ends with the last ')') come fields 3, 4, ...: utime is
    // field 14, stime field 15 (proc(5)).
    let rest = s.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let field = |n: usize| f.get(n - 3).and_then(|x| x.parse::<f64>().ok());
    match (field(14), field(15)) {
        (Some(u), Some(s)) => (u + s) / 100.0,
        _ => f64::NAN,
    }
}

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let packets: u64 = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000_000);
    let concurrent: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(20_000);
    let path = args.next().unwrap_or_else(|| {
        std::env::temp_dir()
            .join("trace-bench.pcap")
            .display()
            .to_string()
    });

    // `REUSE=1`: analyse the file a previous run wrote (comparing builds on the same bytes).
    if std::env::var_os("REUSE").is_some() && std::path::Path::new(&path).exists() {
        return measure(&path);
    }
    let t0 = Instant::now();
    let mut rng = StdRng::seed_from_u64(1);
    let mut w = PcapWriter::new(
        BufWriter::new(File::create(&path)?),
        linktype::ETHERNET,
        96,
        false,
    )?;
    let mut port = 1024u16;
    let mut conns: Vec<Conn> = (0..concurrent)
        .map(|_| new_conn(&mut rng, &mut port))
        .collect();
    let mut ts: i64 = 1_700_000_000_000_000_000;
    for _ in 0..packets {
        let i = rng.random_range(0..conns.len());
        let c = &mut conns[i];
        let (up, f, len) = match c.step {
            0 => (true, flags::SYN, 0),
            1 => (false, flags::SYN | flags::ACK, 0),
            2 => (false, flags::ACK, if c.left == 1 { 700 } else { 1448 }),
            3 => (true, flags::ACK, 0),
            4 => (false, flags::FIN | flags::ACK, 0),
            5 => (true, flags::FIN | flags::ACK, 0),
            _ => (false, flags::ACK, 0),
        };
        let tcp = Tcp {
            sport: if up { c.port } else { 443 },
            dport: if up { 443 } else { c.port },
            seq: c.seq,
            flags: f,
            len,
        };
        let ip = if up {
            ipv4(c.client, c.server, &tcp)
        } else {
            ipv4(c.server, c.client, &tcp)
        };
        w.packet(ts, &ethernet(&ip), u32::from(len))?;
        ts += 1000; // 1 µs apart: a 1 M packets/s link
        c.seq = c.seq.wrapping_add(u32::from(len));
        c.step = match c.step {
            2 => 3,
            3 if c.left > 1 => {
                c.left -= 1;
                2
            }
            6 => 7,
            s => s + 1,
        };
        if c.step == 7 {
            conns[i] = new_conn(&mut rng, &mut port);
        }
    }
    drop(w.into_inner());
    let size = std::fs::metadata(&path)?.len();
    eprintln!(
        "wrote {packets} packets ({:.0} MB) to {path} in {:.1} s",
        size as f64 / 1e6,
        t0.elapsed().as_secs_f64()
    );
    measure(&path)
}

/// Reads `path` twice: decoding only, then the whole analysis.
fn measure(path: &str) -> std::io::Result<()> {
    // Reading and decoding only.
    let (t, c0) = (Instant::now(), cpu_s());
    let mut tcp = 0u64;
    let (sum, err) = trace::reader::read_file(path.as_ref(), &mut |p| {
        tcp += u64::from(trace::decode::decode(p.linktype, p.data).is_ok());
    });
    assert!(err.is_none(), "{err:?}");
    let (decode_s, decode_cpu) = (t.elapsed().as_secs_f64(), cpu_s() - c0);
    println!(
        "read + decode:  {} packets ({tcp} TCP): {decode_cpu:.2} CPU s = {:.2} M packets per CPU-second (wall {decode_s:.2} s = {:.2} M/s)",
        sum.packets,
        sum.packets as f64 / decode_cpu / 1e6,
        sum.packets as f64 / decode_s / 1e6
    );

    // The whole analysis.
    let (t, c0) = (Instant::now(), cpu_s());
    let cfg = trace::Config {
        keep_flows: true,
        ..trace::Config::default()
    };
    let (report, errors) = trace::analyze_files(&[path.into()], cfg);
    assert!(errors.is_empty(), "{errors:?}");
    let (all_s, all_cpu) = (t.elapsed().as_secs_f64(), cpu_s() - c0);
    let c = &report.counters;
    println!(
        "full analysis:  {} packets: {all_cpu:.2} CPU s = {:.2} M packets per CPU-second (wall {all_s:.2} s = {:.2} M/s; {} flows, {} routes, peak {} connections)",
        c.packets,
        c.packets as f64 / all_cpu / 1e6,
        c.packets as f64 / all_s / 1e6,
        report.total.flows,
        report.total.routes,
        c.peak_connections
    );
    println!(
        "peak resident memory: {} MiB",
        peak_rss_kib().map_or("?".into(), |k| format!("{:.1}", k as f64 / 1024.0))
    );
    Ok(())
}
