//! `schedtcp throughput`: the benchmark of record for the tunnel's data path.
//!
//! On loopback, in one run and side by side: direct TCP, a tuned two-hop `socat` relay chain
//! (`socat -b 262144`, the fair anchor for a user-space relay: the tunnel is also a two-hop
//! chain; only when `socat` is installed) and the tunnel under each policy, with `--flows`
//! parallel bulk flows in each direction (download: the target sends; upload: the application
//! sends). Each relay runs as its own processes (`socat` twice; `schedtcp server` and
//! `schedtcp client`), so the CPU time of exactly those processes is measured, from
//! `/proc/<pid>/stat` (their threads and reaped children included).
//!
//! A cell lets its flows run `--warmup` seconds, then counts the bytes the receiving end got
//! during `--seconds`; the flows are then aborted and the next cell starts once the target saw
//! every connection end.

use std::net::{SocketAddr, TcpListener as StdListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;

use crate::engine::ratio::{Interval, Verdict};

/// Bytes per read or write of the load generator (and the socat chain's `-b`): 256 KiB.
const IO_BUF: usize = 256 * 1024;

/// Longest wait for a relay to start listening, or for a cell's connections to end.
const SETTLE: Duration = Duration::from_secs(10);

/// What `schedtcp throughput` was asked for (its `--help` describes each).
#[derive(Debug, Clone)]
pub struct Options {
    /// Numbers of parallel bulk flows to measure (1 to 4096 each).
    pub flows: Vec<usize>,
    /// Directions: `down` (the target sends), `up` (the application sends).
    pub directions: Vec<String>,
    /// Policies of the tunnel (one client/server pair each).
    pub policies: Vec<String>,
    /// Seconds counted per cell (after the warm-up), in (0, 600].
    pub seconds: f64,
    /// Seconds a cell's flows run before counting starts, in [0, 60].
    pub warmup: f64,
    /// Times the whole table is measured, 1 to 100.
    pub repeat: usize,
    /// The socat program for the relay chain; the chain is skipped when it cannot be run.
    pub socat: String,
    /// Leave out the socat chain even when socat is installed.
    pub no_socat: bool,
    /// The schedtcp executable whose `server` and `client` are the tunnel measured.
    pub exe: PathBuf,
    /// Another schedtcp executable (an earlier build) whose tunnel is measured too.
    pub baseline_exe: Option<PathBuf>,
    /// Keep the work directory (the relays' configurations and logs) and print its path.
    pub keep: bool,
    /// Also measure each policy's tunnel without the record layer (`integrity = false`).
    pub compare_integrity: bool,
    /// Worker threads of every tunnel relay (`tuning.threads`; 0: the relays' default).
    pub threads: usize,
}

/// Which way the bulk bytes go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    /// The target sends, the application receives.
    Down,
    /// The application sends, the target receives.
    Up,
}

impl Direction {
    fn parse(s: &str) -> Result<Self> {
        match s {
            "down" => Ok(Direction::Down),
            "up" => Ok(Direction::Up),
            _ => bail!("unknown direction {s:?} (down, up)"),
        }
    }

    fn byte(self) -> u8 {
        match self {
            Direction::Down => b'D',
            Direction::Up => b'U',
        }
    }

    fn name(self) -> &'static str {
        match self {
            Direction::Down => "down",
            Direction::Up => "up",
        }
    }
}

/// The load generator's shared state: bytes received (by whichever end receives) and the
/// target's live connections.
#[derive(Default)]
struct Counters {
    received: AtomicU64,
    target_live: AtomicUsize,
    target_ended: Notify,
}

/// Sends from `buf` forever (until the connection fails).
async fn send_forever(s: &mut (impl AsyncWriteExt + Unpin)) {
    let buf = vec![0x5Au8; IO_BUF];
    while s.write_all(&buf).await.is_ok() {}
}

/// Receives until the end or an error, counting the bytes.
async fn receive_counting(s: &mut (impl AsyncReadExt + Unpin), c: &Counters) {
    let mut buf = vec![0u8; IO_BUF];
    while let Ok(n) = s.read(&mut buf).await {
        if n == 0 {
            return;
        }
        c.received.fetch_add(n as u64, Ordering::Relaxed);
    }
}

/// The target: reads one byte, `D` (send forever) or `U` (receive forever, counting).
async fn start_target(c: Arc<Counters>) -> Result<SocketAddr> {
    let l = TcpListener::bind("127.0.0.1:0").await?;
    let addr = l.local_addr()?;
    tokio::spawn(async move {
        while let Ok((mut s, _)) = l.accept().await {
            let c = c.clone();
            c.target_live.fetch_add(1, Ordering::AcqRel);
            tokio::spawn(async move {
                match s.read_u8().await {
                    Ok(b'D') => send_forever(&mut s).await,
                    Ok(b'U') => receive_counting(&mut s, &c).await,
                    _ => {}
                }
                drop(s);
                c.target_live.fetch_sub(1, Ordering::AcqRel);
                c.target_ended.notify_waiters();
            });
        }
    });
    Ok(addr)
}

/// One application flow through `addr`.
async fn app_flow(addr: SocketAddr, dir: Direction, c: Arc<Counters>) -> Result<()> {
    let mut s = TcpStream::connect(addr).await?;
    s.write_u8(dir.byte()).await?;
    match dir {
        Direction::Down => receive_counting(&mut s, &c).await,
        Direction::Up => send_forever(&mut s).await,
    }
    Ok(())
}

/// CPU seconds of a process, split by where they were spent: in the program (`utime`) and in
/// the kernel on its behalf (`stime`: system calls, and the softirq work of the loopback path
/// charged to it).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Cpu {
    user: f64,
    kernel: f64,
}

impl Cpu {
    fn total(self) -> f64 {
        self.user + self.kernel
    }

    fn scaled(self, k: f64) -> Cpu {
        Cpu {
            user: self.user * k,
            kernel: self.kernel * k,
        }
    }
}

impl std::ops::Add for Cpu {
    type Output = Cpu;
    fn add(self, o: Cpu) -> Cpu {
        Cpu {
            user: self.user + o.user,
            kernel: self.kernel + o.kernel,
        }
    }
}

impl std::ops::Sub for Cpu {
    type Output = Cpu;
    fn sub(self, o: Cpu) -> Cpu {
        Cpu {
            user: self.user - o.user,
            kernel: self.kernel - o.kernel,
        }
    }
}

/// CPU seconds by process id, from one scan of `/proc`: each process's own (its threads) plus
/// its reaped children's, and its parent's id.
struct ProcCpu(std::collections::HashMap<u32, (u32, Cpu)>);

impl ProcCpu {
    fn scan(ticks: f64) -> Self {
        let mut map = std::collections::HashMap::new();
        if let Ok(dir) = std::fs::read_dir("/proc") {
            for e in dir.flatten() {
                let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
                    continue;
                };
                let Ok(s) = std::fs::read_to_string(e.path().join("stat")) else {
                    continue;
                };
                // The command name may hold spaces: the fields start after its closing
                // parenthesis. After it: state(0) ppid(1) ... utime(11) stime(12) cutime(13)
                // cstime(14).
                let Some(close) = s.rfind(')') else { continue };
                let f: Vec<&str> = s[close + 1..].split_whitespace().collect();
                let num = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
                let ppid = f.get(1).and_then(|x| x.parse::<u32>().ok()).unwrap_or(0);
                let cpu = Cpu {
                    user: (num(11) + num(13)) / ticks,
                    kernel: (num(12) + num(14)) / ticks,
                };
                map.insert(pid, (ppid, cpu));
            }
        }
        ProcCpu(map)
    }

    /// CPU seconds of `pid` alone (its threads and reaped children).
    fn own(&self, pid: u32) -> Cpu {
        self.0.get(&pid).map_or(Cpu::default(), |&(_, c)| c)
    }

    /// CPU seconds of `pid` and every live descendant (socat forks one per connection).
    fn tree(&self, pid: u32) -> Cpu {
        let mut total = Cpu::default();
        let mut todo = vec![pid];
        while let Some(p) = todo.pop() {
            total = total + self.own(p);
            todo.extend(
                self.0
                    .iter()
                    .filter(|(&c, &(pp, _))| pp == p && c != p)
                    .map(|(&c, _)| c),
            );
            if todo.len() > self.0.len() {
                break;
            }
        }
        total
    }
}

/// TCP segments sent and retransmitted so far in this network namespace (`OutSegs`,
/// `RetransSegs` of `/proc/net/snmp`), or none when the file cannot be read or parsed.
fn tcp_segments() -> Option<(u64, u64)> {
    parse_tcp_segments(&std::fs::read_to_string("/proc/net/snmp").ok()?)
}

/// `OutSegs` and `RetransSegs` from the text of `/proc/net/snmp`: a `Tcp:` line of names
/// followed by a `Tcp:` line of values.
fn parse_tcp_segments(snmp: &str) -> Option<(u64, u64)> {
    let mut tcp = snmp.lines().filter(|l| l.starts_with("Tcp:"));
    let (names, values) = (tcp.next()?, tcp.next()?);
    let field = |name: &str| {
        let i = names.split_whitespace().position(|n| n == name)?;
        values.split_whitespace().nth(i)?.parse::<u64>().ok()
    };
    Some((field("OutSegs")?, field("RetransSegs")?))
}

/// Clock ticks per second of `/proc/<pid>/stat` (`getconf CLK_TCK`; 100 on Linux otherwise).
fn clock_ticks() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|&t| t > 0.0)
        .unwrap_or(100.0)
}

/// A free loopback port (bound, then released for a child process to bind).
fn free_port() -> Result<u16> {
    Ok(StdListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Waits until something listens on `addr` (bounded by [`SETTLE`]).
async fn wait_listening(addr: SocketAddr, child: &mut Child, what: &str) -> Result<()> {
    let deadline = Instant::now() + SETTLE;
    loop {
        if TcpStream::connect(addr).await.is_ok() {
            return Ok(());
        }
        if let Some(status) = child.try_wait()? {
            bail!("{what} exited ({status}) before listening on {addr}");
        }
        if Instant::now() > deadline {
            bail!(
                "{what} not listening on {addr} within {} s",
                SETTLE.as_secs()
            );
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A relay under test: where applications connect, and its processes.
struct Relay {
    name: String,
    /// The relay this one is a variant of (an earlier build, the tunnel without the record
    /// layer): the summary prints that relay's cells divided by this one's, repeat by repeat.
    versus: Option<String>,
    entry: SocketAddr,
    procs: Vec<Child>,
}

impl Relay {
    fn cpu(&self, p: &ProcCpu) -> Cpu {
        self.procs
            .iter()
            .fold(Cpu::default(), |t, c| t + p.tree(c.id()))
    }

    fn stop(&mut self) {
        for c in &mut self.procs {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The two-hop socat chain: entry -> hop -> target, 256 KiB buffers.
async fn start_socat(socat: &str, target: SocketAddr, dir: &Path) -> Result<Relay> {
    let (p1, p2) = (free_port()?, free_port()?);
    let hop = |listen: u16, to: String, log: &str| -> Result<Child> {
        Command::new(socat)
            .args([
                "-b".to_owned(),
                IO_BUF.to_string(),
                format!("TCP-LISTEN:{listen},bind=127.0.0.1,reuseaddr,fork,backlog=1024"),
                format!("TCP:{to}"),
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.join(log))?)
            .spawn()
            .with_context(|| format!("running {socat}"))
    };
    let mut second = hop(p2, target.to_string(), "socat2.log")?;
    let first = hop(p1, format!("127.0.0.1:{p2}"), "socat1.log")?;
    let entry: SocketAddr = ([127, 0, 0, 1], p1).into();
    let mut relay = Relay {
        name: "socat chain".into(),
        versus: None,
        entry,
        procs: vec![first],
    };
    wait_listening(
        ([127, 0, 0, 1], p2).into(),
        &mut second,
        "socat (second hop)",
    )
    .await?;
    relay.procs.push(second);
    let mut first = relay.procs.remove(0);
    let r = wait_listening(entry, &mut first, "socat (first hop)").await;
    relay.procs.insert(0, first);
    r?;
    Ok(relay)
}

/// Which tunnel a relay is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Build {
    /// The build under test, with its record layer.
    This,
    /// The build under test without the record layer (`integrity = false`).
    NoRecordLayer,
    /// An earlier build (`--baseline-exe`), with its record layer.
    Baseline,
}

/// A tunnel: `exe server` and `exe client` processes under `policy`.
async fn start_tunnel(
    policy: &str,
    target: SocketAddr,
    dir: &Path,
    exe: &Path,
    build: Build,
    key: &str,
    threads: usize,
) -> Result<Relay> {
    let integrity = build != Build::NoRecordLayer;
    // File-name tag and the suffix of the relay's name in the table.
    let (tag, label) = match build {
        Build::Baseline => ("-base", " base"),
        Build::This => ("", ""),
        Build::NoRecordLayer => ("-plain", " no-MAC"),
    };
    // Written only when off: an earlier build (`--baseline-exe`) may not know the key.
    let integrity_line = if integrity { "" } else { "integrity = false\n" };
    // Written only when asked: an earlier build may not know the setting.
    let tuning = if threads > 0 {
        format!("[tuning]\nthreads = {threads}\n")
    } else {
        String::new()
    };
    let (ps, pc) = (free_port()?, free_port()?);
    let server_cfg = dir.join(format!("server-{policy}{tag}.toml"));
    let client_cfg = dir.join(format!("client-{policy}{tag}.toml"));
    write_owner_only(
        &server_cfg,
        format!(
            "listen = \"127.0.0.1:{ps}\"\nkey = \"{key}\"\npolicy = \"{policy}\"\n{integrity_line}[[route]]\nname = \"bulk\"\ntarget = \"{target}\"\n{tuning}"
        ),
    )?;
    write_owner_only(
        &client_cfg,
        format!(
            "server = \"127.0.0.1:{ps}\"\nkey = \"{key}\"\npolicy = \"{policy}\"\n{integrity_line}[[route]]\nname = \"bulk\"\nlisten = \"127.0.0.1:{pc}\"\n{tuning}"
        ),
    )?;
    let spawn = |role: &str, cfg: &PathBuf| -> Result<Child> {
        Command::new(exe)
            .args([role, "--config"])
            .arg(cfg)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(
                dir.join(format!("{role}-{policy}{tag}.log")),
            )?)
            .spawn()
            .with_context(|| format!("running {} {role}", exe.display()))
    };
    let mut server = spawn("server", &server_cfg)?;
    wait_listening(([127, 0, 0, 1], ps).into(), &mut server, "schedtcp server").await?;
    let mut relay = Relay {
        name: format!("tunnel {policy}{label}"),
        versus: (!label.is_empty()).then(|| format!("tunnel {policy}")),
        entry: ([127, 0, 0, 1], pc).into(),
        procs: vec![server],
    };
    let mut client = spawn("client", &client_cfg)?;
    let r = wait_listening(relay.entry, &mut client, "schedtcp client").await;
    relay.procs.push(client);
    r?;
    Ok(relay)
}

/// What one cell measured.
#[derive(Clone, Copy, Debug)]
struct Cell {
    gbps: f64,
    /// CPU seconds per GB of the relay's processes (none for direct TCP).
    relay_cpu_per_gb: Option<Cpu>,
    /// CPU seconds per GB of this process (the load generator).
    gen_cpu_per_gb: f64,
    /// TCP segments retransmitted during the counted window, per 100 sent, over every
    /// connection of this network namespace (the cell's own traffic: generator, relay, target);
    /// none when `/proc/net/snmp` cannot be read. On a loaded machine loopback connections
    /// retransmit too (tail loss probes that fire when a delayed ACK outlasts twice the
    /// microsecond round trip, mostly undone by D-SACK), and a cell that did much of it costs
    /// more kernel time per byte.
    retrans_pct: Option<f64>,
}

/// Runs `flows` flows through `entry` for the warm-up and the counted window, then aborts
/// them and waits (bounded) for the target to see every connection end.
async fn measure(
    args: &Options,
    c: &Arc<Counters>,
    entry: SocketAddr,
    relay: Option<&Relay>,
    flows: usize,
    dir: Direction,
    ticks: f64,
) -> Result<Cell> {
    // Connections a relay failed to close in an earlier cell stay counted (and reported) there.
    let stale = c.target_live.load(Ordering::Acquire);
    let tasks: Vec<_> = (0..flows)
        .map(|_| tokio::spawn(app_flow(entry, dir, c.clone())))
        .collect();
    tokio::time::sleep(Duration::from_secs_f64(args.warmup)).await;
    let me = std::process::id();
    let p0 = ProcCpu::scan(ticks);
    let s0 = tcp_segments();
    let (b0, t0) = (c.received.load(Ordering::Relaxed), Instant::now());
    tokio::time::sleep(Duration::from_secs_f64(args.seconds)).await;
    let (b1, t1) = (c.received.load(Ordering::Relaxed), Instant::now());
    let p1 = ProcCpu::scan(ticks);
    let s1 = tcp_segments();
    let (r0, g0) = (relay.map(|r| r.cpu(&p0)), p0.own(me));
    let (r1, g1) = (relay.map(|r| r.cpu(&p1)), p1.own(me));
    let mut failed = None;
    for t in &tasks {
        if t.is_finished() {
            failed = Some("a flow ended during the measurement");
        }
    }
    for t in tasks {
        t.abort();
        if let Ok(Err(e)) = t.await {
            bail!("flow through {entry}: {e:#}");
        }
    }
    let deadline = tokio::time::Instant::now() + SETTLE;
    loop {
        let ended = c.target_ended.notified();
        tokio::pin!(ended);
        ended.as_mut().enable();
        if c.target_live.load(Ordering::Acquire) <= stale {
            break;
        }
        if tokio::time::timeout_at(deadline, ended).await.is_err() {
            eprintln!(
                "warning: {} target connections still open {} s after the cell through {}",
                c.target_live.load(Ordering::Acquire).saturating_sub(stale),
                SETTLE.as_secs(),
                relay.map_or("direct TCP", |r| r.name.as_str()),
            );
            break;
        }
    }
    if let Some(why) = failed {
        bail!("{why} (through {entry})");
    }
    let gb = (b1 - b0) as f64 / 1e9;
    if gb <= 0.0 {
        bail!("no bytes moved through {entry}");
    }
    Ok(Cell {
        gbps: gb * 8.0 / (t1 - t0).as_secs_f64(),
        relay_cpu_per_gb: r0.zip(r1).map(|(a, b)| (b - a).scaled(1.0 / gb)),
        gen_cpu_per_gb: (g1 - g0).total() / gb,
        retrans_pct: s0.zip(s1).and_then(|((o0, r0), (o1, r1))| {
            (o1 > o0).then(|| 100.0 * r1.saturating_sub(r0) as f64 / (o1 - o0) as f64)
        }),
    })
}

fn socat_usable(socat: &str) -> bool {
    Command::new(socat)
        .arg("-V")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Measures the table (every repeat) and prints it, then the summary over the repeats; stops
/// early with an error when `interrupted` resolves (the relays' processes are stopped either
/// way).
pub async fn run(
    args: Options,
    interrupted: impl std::future::Future<Output = Result<()>>,
) -> Result<()> {
    if args.flows.is_empty() || args.flows.iter().any(|&n| n == 0 || n > 4096) {
        bail!("--flows takes numbers from 1 to 4096");
    }
    let seconds_ok = args.seconds > 0.0 && args.seconds <= 600.0;
    if !seconds_ok || !(0.0..=60.0).contains(&args.warmup) {
        bail!("--seconds must be in (0, 600] and --warmup in [0, 60]");
    }
    if args.repeat == 0 || args.repeat > 100 {
        bail!("--repeat takes 1 to 100");
    }
    let dirs: Vec<Direction> = args
        .directions
        .iter()
        .map(|d| Direction::parse(d))
        .collect::<Result<_>>()?;
    for p in &args.policies {
        p.parse::<gtcp::Policy>()
            .map_err(|e| anyhow::anyhow!("policy {p:?}: {e}"))?;
    }
    let ticks = clock_ticks();
    let workdir = std::env::temp_dir().join(format!("schedtcp-throughput-{}", std::process::id()));
    std::fs::create_dir_all(&workdir)?;
    // A fresh key per run: the tunnel refuses weak or well-known ones.
    let key = tunnel::psk::generate()?;
    let counters = Arc::new(Counters::default());
    let target = start_target(counters.clone()).await?;
    let mut relays = Vec::new();
    let use_socat = !args.no_socat && socat_usable(&args.socat);
    if use_socat {
        relays.push(start_socat(&args.socat, target, &workdir).await?);
    } else if !args.no_socat {
        println!("({} not found: no socat chain to compare with)", args.socat);
    }
    for p in &args.policies {
        let (exe, threads) = (&args.exe, args.threads);
        relays.push(start_tunnel(p, target, &workdir, exe, Build::This, &key, threads).await?);
        if args.compare_integrity {
            let build = Build::NoRecordLayer;
            relays.push(start_tunnel(p, target, &workdir, exe, build, &key, threads).await?);
        }
        if let Some(b) = &args.baseline_exe {
            relays
                .push(start_tunnel(p, target, &workdir, b, Build::Baseline, &key, threads).await?);
        }
    }
    // The readiness probes opened connections to the target: let them end.
    let deadline = tokio::time::Instant::now() + SETTLE;
    while counters.target_live.load(Ordering::Acquire) > 0 && tokio::time::Instant::now() < deadline
    {
        let _ = tokio::time::timeout_at(deadline, counters.target_ended.notified()).await;
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "bulk throughput on loopback: {} s counted per cell after {} s of warm-up; load average {}",
        args.seconds,
        args.warmup,
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!(
        "CPU: seconds of the relay's processes per GB moved (socat: both hops; tunnel: client and server), of which kern in the kernel (system calls, the loopback path); gen: this process (the load generator); retr %: TCP segments retransmitted per 100 sent in the cell (all loopback connections)"
    );
    // Interrupted (SIGINT, SIGTERM), the relays' processes are still stopped below.
    let result = tokio::select! {
        r = table(&args, &counters, target, &relays, &dirs, use_socat, ticks) => r,
        r = interrupted => r.and_then(|()| bail!("interrupted")),
    };
    for mut r in relays {
        r.stop();
    }
    if args.keep {
        println!(
            "configurations and logs of the relays: {}",
            workdir.display()
        );
    } else {
        let _ = std::fs::remove_dir_all(&workdir);
    }
    result
}

async fn table(
    args: &Options,
    c: &Arc<Counters>,
    target: SocketAddr,
    relays: &[Relay],
    dirs: &[Direction],
    have_socat: bool,
    ticks: f64,
) -> Result<()> {
    // Every cell of every repeat: `[flows][direction][path]` (path 0 direct TCP, then the
    // relays in order), one entry per repeat.
    let mut all: Vec<Vec<Vec<Vec<Cell>>>> =
        vec![vec![vec![Vec::new(); relays.len() + 1]; dirs.len()]; args.flows.len()];
    for rep in 1..=args.repeat {
        if args.repeat > 1 {
            println!("\nrepeat {rep} of {}", args.repeat);
        }
        println!("{}", header(&[8, 8, 9, 8, 10, 7, 7]));
        for (fi, &n) in args.flows.iter().enumerate() {
            for (di, &d) in dirs.iter().enumerate() {
                let mut cells = vec![(
                    "direct TCP".to_owned(),
                    measure(args, c, target, None, n, d, ticks).await?,
                )];
                for r in relays {
                    let cell = measure(args, c, r.entry, Some(r), n, d, ticks)
                        .await
                        .with_context(|| r.name.clone())?;
                    cells.push((r.name.clone(), cell));
                }
                let anchor = have_socat.then(|| &cells[1].1);
                for (name, cell) in &cells {
                    let fmt = |x: Option<f64>, w: usize| match x {
                        Some(v) => format!("{v:>w$.2}"),
                        None => format!("{:>w$}", "-"),
                    };
                    let cpu_ratio = anchor
                        .and_then(|a| {
                            Some(cell.relay_cpu_per_gb?.total() / a.relay_cpu_per_gb?.total())
                        })
                        .filter(|r| r.is_finite());
                    println!(
                        "{n:>5} {:>4}  {name:<16} {:>8.2} {} {} {} {} {:>7.2} {}",
                        d.name(),
                        cell.gbps,
                        fmt(anchor.map(|a| cell.gbps / a.gbps), 8),
                        fmt(cell.relay_cpu_per_gb.map(Cpu::total), 9),
                        fmt(cpu_ratio, 8),
                        fmt(cell.relay_cpu_per_gb.map(|c| c.kernel), 10),
                        cell.gen_cpu_per_gb,
                        fmt(cell.retrans_pct, 7),
                    );
                }
                for (pi, (_, cell)) in cells.iter().enumerate() {
                    all[fi][di][pi].push(*cell);
                }
            }
        }
    }
    if args.repeat > 1 {
        let mut paths = vec![SummaryPath {
            name: "direct TCP".into(),
            versus: None,
        }];
        paths.extend(relays.iter().map(|r| SummaryPath {
            name: r.name.clone(),
            versus: r.versus.clone(),
        }));
        for (fi, &n) in args.flows.iter().enumerate() {
            for (di, &d) in dirs.iter().enumerate() {
                let rows = summarise(&paths, &all[fi][di], have_socat);
                if fi == 0 && di == 0 {
                    println!(
                        "\nsummary of {} repeats: mean, and ± the half-width of the 95% interval \
                         (Student's t) of the ratios taken side by side within each repeat",
                        args.repeat
                    );
                    println!("{}", header(&[8, 13, 9, 13, 10]));
                }
                for line in rows {
                    println!("{n:>5} {:>4}  {line}", d.name());
                }
            }
        }
    }
    Ok(())
}

/// The tables' header: flows, direction and path, then the numeric columns right-aligned in
/// `widths` (as many as given: the summary leaves out the generator's CPU).
fn header(widths: &[usize]) -> String {
    const NUMERIC: [&str; 7] = [
        "Gbit/s",
        "x socat",
        "CPU s/GB",
        "x socat",
        "kern s/GB",
        "gen s/GB",
        "retr %",
    ];
    let mut line = format!("{:>5} {:>4}  {:<16}", "flows", "dir", "path");
    for (h, &w) in NUMERIC.iter().zip(widths) {
        line.push_str(&format!(" {h:>w$}"));
    }
    line
}

/// A row of the summary: a path's name and what it is a variant of.
struct SummaryPath {
    name: String,
    versus: Option<String>,
}

/// `mean ±half-width` of `v`, or `-` when `v` is empty.
fn ci(v: &[f64]) -> String {
    if v.is_empty() {
        return "-".into();
    }
    Interval::of(v).show(2)
}

/// `below` when the 95% interval of the ratios `v` lies below 1, `above` when above 1,
/// otherwise that they do not differ beyond the noise ([`Verdict::judge`] with no margin: the
/// repeats are independent runs, so their interval is the noise itself).
fn verdict(v: &[f64], below: &'static str, above: &'static str) -> &'static str {
    match Verdict::judge(&Interval::of(v), 0.0) {
        Verdict::Faster => below,
        Verdict::Slower => above,
        Verdict::Undecided => "too few repeats to tell",
        Verdict::WithinNoise | Verdict::Noise => "no difference beyond the noise",
    }
}

/// `f(a) / f(b)` repeat by repeat (cells `a[i]` and `b[i]` ran in the same repeat), leaving
/// out repeats where either is missing or the ratio is not finite.
fn paired_ratios(a: &[Cell], b: &[Cell], f: &dyn Fn(&Cell) -> Option<f64>) -> Vec<f64> {
    a.iter()
        .zip(b)
        .filter_map(|(x, y)| Some(f(x)? / f(y)?))
        .filter(|r| r.is_finite())
        .collect()
}

/// The summary's lines for one (flows, direction): per path the mean throughput and CPU per
/// GB with the ratios to the socat chain (path 1 when `have_socat`), then per variant the ratios
/// of the path it varies to it. Ratios are taken within a repeat (the cells of a repeat ran
/// one after the other on the same machine state), then averaged over the repeats.
/// `cells[path][repeat]`.
fn summarise(paths: &[SummaryPath], cells: &[Vec<Cell>], have_socat: bool) -> Vec<String> {
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let ratios = |a: usize, b: usize, f: &dyn Fn(&Cell) -> Option<f64>| {
        paired_ratios(&cells[a], &cells[b], f)
    };
    let gbps = |c: &Cell| Some(c.gbps);
    let cpu = |c: &Cell| c.relay_cpu_per_gb.map(Cpu::total);
    let mut lines = Vec::new();
    for (pi, p) in paths.iter().enumerate() {
        let g: Vec<f64> = cells[pi].iter().map(|c| c.gbps).collect();
        let c: Vec<f64> = cells[pi].iter().filter_map(cpu).collect();
        let k: Vec<f64> = cells[pi]
            .iter()
            .filter_map(|c| c.relay_cpu_per_gb.map(|x| x.kernel))
            .collect();
        let (xg, xc) = if have_socat && pi > 0 {
            (ci(&ratios(pi, 1, &gbps)), ci(&ratios(pi, 1, &cpu)))
        } else {
            ("-".into(), "-".into())
        };
        let num = |v: &[f64]| {
            if v.is_empty() {
                "-".to_owned()
            } else {
                format!("{:.2}", mean(v))
            }
        };
        lines.push(format!(
            "{:<16} {:>8} {:>13} {:>9} {:>13} {:>10}",
            p.name,
            num(&g),
            xg,
            num(&c),
            xc,
            num(&k)
        ));
    }
    for (pi, p) in paths.iter().enumerate() {
        let Some(of) = &p.versus else { continue };
        let Some(oi) = paths.iter().position(|q| &q.name == of) else {
            continue;
        };
        let (rg, rc) = (ratios(oi, pi, &gbps), ratios(oi, pi, &cpu));
        lines.push(format!(
            "{of} ÷ {}: Gbit/s {} ({}), CPU per GB {} ({})",
            p.name,
            ci(&rg),
            verdict(&rg, "slower", "faster"),
            ci(&rc),
            verdict(&rc, "lower", "higher"),
        ));
    }
    lines
}

/// Writes a configuration that holds the key inline, readable by its owner only (the tunnel
/// refuses such a file that its group or others may read).
fn write_owner_only(path: &Path, text: String) -> std::io::Result<()> {
    std::fs::write(path, text)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directions_are_parsed_and_unknown_ones_refused() {
        assert_eq!(Direction::parse("down").expect("down"), Direction::Down);
        assert_eq!(Direction::parse("up").expect("up"), Direction::Up);
        assert!(Direction::parse("left").is_err());
    }

    fn cell(gbps: f64, cpu: f64) -> Cell {
        Cell {
            gbps,
            relay_cpu_per_gb: Some(Cpu {
                user: cpu / 2.0,
                kernel: cpu / 2.0,
            }),
            gen_cpu_per_gb: 0.3,
            retrans_pct: None,
        }
    }

    #[test]
    fn ratios_are_paired_within_a_repeat_so_a_drifting_machine_still_gives_a_verdict() {
        // The machine's speed drifts by 2x between repeats, the new build always costs 0.9 of
        // the base: paired, the ratio is exactly 0.9 each time.
        let new: Vec<Cell> = [1.0, 2.0, 1.5, 1.2]
            .iter()
            .map(|&k| cell(8.0 / k, 0.9 * k))
            .collect();
        let base: Vec<Cell> = [1.0, 2.0, 1.5, 1.2]
            .iter()
            .map(|&k| cell(8.0 / k, k))
            .collect();
        let cpu = |c: &Cell| c.relay_cpu_per_gb.map(Cpu::total);
        let r = paired_ratios(&new, &base, &cpu);
        assert_eq!(r.len(), 4);
        assert!(r.iter().all(|x| (x - 0.9).abs() < 1e-12), "{r:?}");
        assert_eq!(verdict(&r, "lower", "higher"), "lower");
        // Unpaired, the same numbers are within each other's spread.
        let (n, b): (Vec<f64>, Vec<f64>) = (
            new.iter().filter_map(cpu).collect(),
            base.iter().filter_map(cpu).collect(),
        );
        let (iv_n, iv_b) = (Interval::of(&n), Interval::of(&b));
        assert!(
            iv_n.hi() > iv_b.lo(),
            "the drift hides the difference unpaired"
        );
        // A missing CPU reading (direct TCP) leaves its repeat out.
        let mut gap = new.clone();
        gap[1].relay_cpu_per_gb = None;
        assert_eq!(paired_ratios(&gap, &base, &cpu).len(), 3);
    }

    #[test]
    fn a_verdict_needs_the_interval_clear_of_one() {
        assert_eq!(
            verdict(&[0.95, 1.04, 0.99], "lower", "higher"),
            "no difference beyond the noise"
        );
        assert_eq!(verdict(&[1.10, 1.12, 1.11], "slower", "faster"), "faster");
        assert_eq!(
            verdict(&[0.8], "lower", "higher"),
            "too few repeats to tell"
        );
    }

    #[test]
    fn segments_are_read_by_name_from_the_tcp_lines_of_snmp() {
        let snmp = "Ip: Forwarding DefaultTTL\nIp: 1 64\n\
                    Tcp: RtoAlgorithm ActiveOpens OutSegs RetransSegs InErrs\n\
                    Tcp: 1 20 9000 45 0\nUdp: InDatagrams\nUdp: 3\n";
        assert_eq!(parse_tcp_segments(snmp), Some((9000, 45)));
        assert_eq!(parse_tcp_segments("Tcp: OutSegs\n"), None);
        assert_eq!(
            parse_tcp_segments("Tcp: OutSegs RetransSegs\nTcp: 5 x\n"),
            None
        );
        // This machine's own file parses (Linux).
        if let Ok(t) = std::fs::read_to_string("/proc/net/snmp") {
            assert!(parse_tcp_segments(&t).is_some());
        }
    }

    #[test]
    fn the_cpu_scan_sees_this_process_and_counts_it_in_its_tree() {
        let p = ProcCpu::scan(clock_ticks());
        let me = std::process::id();
        assert!(p.0.contains_key(&me));
        let (tree, own) = (p.tree(me), p.own(me));
        assert!(tree.user >= own.user && tree.kernel >= own.kernel);
        assert!(own.user >= 0.0 && own.kernel >= 0.0);
        assert_eq!(p.own(u32::MAX), Cpu::default());
    }
}
