//! `schedtcp router ...`: the user-space router of paper 003 (RuN, RuN2C, drop-tail) on a TUN
//! device, and the measurement of its packet rate on this machine.

use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand, ValueEnum};
use router::{ClassifyMode, DisciplineSpec, PinScheme, RouterConfig};

#[derive(Subcommand)]
pub enum Cmd {
    /// Route what enters on --input through a TUN device, applying rate, queue discipline and
    /// one-way delay, until SIGTERM/SIGINT (root: creates the device and a policy rule).
    Run(RunArgs),
    /// Measure the packets per second the router forwards on this machine (root): a testbed
    /// with the router unshaped on origin→destination, UDP from the origin at increasing
    /// rates; prints offered and forwarded packet rates.
    Speed(SpeedArgs),
    /// Internal: the UDP sender of `speed`, started inside the origin namespace.
    #[command(hide = true)]
    Helper {
        #[command(subcommand)]
        what: Helper,
    },
}

#[derive(Subcommand)]
pub enum Helper {
    /// Send UDP packets at a paced rate.
    UdpSend {
        #[arg(long)]
        to: std::net::SocketAddr,
        #[arg(long)]
        pps: u64,
        #[arg(long)]
        seconds: f64,
        #[arg(long)]
        payload: usize,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Classify {
    /// Running number relative to the ISN learnt from each connection's SYN (edge router).
    Isn,
    /// Stateless: the position inside the sender's PIN block (paper 003, Section III).
    Pin,
}

#[derive(Args)]
pub struct RunArgs {
    /// Name of the TUN device to create.
    #[arg(long, default_value = "srt0")]
    tun: String,
    /// Interface whose incoming packets are routed through the router (policy rule on the
    /// input interface); without it, route into the TUN device yourself.
    #[arg(long)]
    input: Option<String>,
    /// Routing table (and rule priority) for the policy rule, 1..=251.
    #[arg(long, default_value_t = 100)]
    table: u32,
    /// Rate in bytes per second of IP packets (0: no rate limit).
    #[arg(long, default_value_t = 0)]
    rate_bytes: u64,
    /// One-way propagation delay, milliseconds.
    #[arg(long, default_value_t = 0.0)]
    delay_ms: f64,
    /// Queue discipline: droptail, run, or run2c:THRESHOLD_PACKETS.
    #[arg(long, default_value = "droptail")]
    queue: DisciplineSpec,
    /// Buffer, packets.
    #[arg(long, default_value_t = router::DEFAULT_BUFFER_PACKETS)]
    buffer: usize,
    /// Payload bytes of a segment (turns run2c:N packets into bytes).
    #[arg(long, default_value_t = router::DEFAULT_SEGMENT_BYTES)]
    segment_bytes: u32,
    /// How running numbers are found.
    #[arg(long, value_enum, default_value = "isn")]
    classify: Classify,
    /// PIN scheme as R,L,TH,LOW_RANDOM bits (with --classify pin; the paper's 10,8,14,10).
    #[arg(long, default_value = "10,8,14,10")]
    pin: String,
    /// Bound of the flow table, connections.
    #[arg(long, default_value_t = router::classify::DEFAULT_FLOW_CAPACITY)]
    flow_capacity: usize,
    /// Idle seconds after which a flow-table entry may be reused.
    #[arg(long, default_value_t = 120.0)]
    idle_timeout_s: f64,
    /// MTU of the TUN device.
    #[arg(long, default_value_t = 1500)]
    mtu: u16,
    /// Edge mode (paper 003, footnote 3): write each packet's class into its IP header's DSCP
    /// (first class: running number below the threshold of --queue run2c:N, or 2^TH with
    /// --classify pin) and forward it after --delay-ms, with no rate and no queue of its own;
    /// the core router's own queues serve the classes.
    #[arg(long)]
    mark: bool,
    /// DSCP of the first class with --mark (4: TOS 0x10, which Linux's default pfifo_fast
    /// serves in its first band).
    #[arg(long, default_value_t = router::mark::DEFAULT_PRIORITY_DSCP)]
    dscp_first: u8,
    /// DSCP of the second class with --mark.
    #[arg(long, default_value_t = router::mark::DEFAULT_LOW_DSCP)]
    dscp_rest: u8,
}

#[derive(Args)]
pub struct SpeedArgs {
    /// Testbed namespace prefix.
    #[arg(long, default_value = "srt")]
    prefix: String,
    /// Seconds of traffic per offered rate.
    #[arg(long, default_value_t = 3.0)]
    seconds: f64,
    /// UDP payload bytes per packet.
    #[arg(long, default_value_t = 1200)]
    payload: usize,
}

fn pin_scheme(s: &str) -> Result<PinScheme> {
    let v: Vec<u32> = s
        .split(',')
        .map(|x| x.trim().parse::<u32>())
        .collect::<Result<_, _>>()
        .with_context(|| format!("--pin {s:?}: four numbers R,L,TH,LOW_RANDOM"))?;
    let [r, l, th, low] = v[..] else {
        bail!("--pin {s:?}: four numbers R,L,TH,LOW_RANDOM");
    };
    PinScheme::new(r, l, th, low).map_err(|e| anyhow::anyhow!("--pin {s:?}: {e}"))
}

fn secs_to_nanos(what: &str, s: f64) -> Result<u64> {
    if !(s.is_finite() && (0.0..=86_400.0).contains(&s)) {
        bail!("{what} {s}: from 0 to 86400 seconds");
    }
    Ok((s * 1e9).round() as u64)
}

impl RunArgs {
    fn config(&self) -> Result<RouterConfig> {
        let mode = match self.classify {
            Classify::Isn => ClassifyMode::Isn,
            Classify::Pin => ClassifyMode::Pin(pin_scheme(&self.pin)?),
        };
        let mark = if self.mark {
            if self.rate_bytes != 0 {
                bail!("--mark forwards without queueing of its own: --rate-bytes must be 0");
            }
            if matches!(mode, ClassifyMode::Isn)
                && !matches!(self.queue, DisciplineSpec::Run2c { .. })
            {
                bail!("--mark with --classify isn takes its threshold from --queue run2c:N");
            }
            Some(
                router::Marking::new(self.dscp_first, self.dscp_rest)
                    .map_err(|e| anyhow::anyhow!("--dscp-first/--dscp-rest: {e}"))?,
            )
        } else {
            None
        };
        Ok(RouterConfig {
            mark,
            rate_bytes_per_s: self.rate_bytes,
            delay: secs_to_nanos("--delay-ms", self.delay_ms / 1e3)?,
            discipline: self.queue,
            buffer_packets: self.buffer,
            segment_bytes: self.segment_bytes,
            mode,
            flow_capacity: self.flow_capacity,
            idle_timeout: secs_to_nanos("--idle-timeout-s", self.idle_timeout_s)?,
        })
    }
}

pub fn run(cmd: Cmd) -> Result<()> {
    match cmd {
        Cmd::Run(args) => run_router(args),
        Cmd::Helper { what } => match what {
            Helper::UdpSend {
                to,
                pps,
                seconds,
                payload,
            } => testbed::router_speed::udp_send(to, pps, seconds.clamp(0.1, 600.0), payload)
                .map(|_| ()),
        },
        Cmd::Speed(args) => {
            let bin = testbed::find_binary()?;
            let report = testbed::router_speed::measure(
                &args.prefix,
                &bin,
                Duration::from_secs_f64(args.seconds.clamp(0.5, 60.0)),
                args.payload,
            )?;
            print!("{report}");
            Ok(())
        }
    }
}

fn run_router(args: RunArgs) -> Result<()> {
    let cfg = args.config()?;
    let stop = router::tun::stop_on_signals()?;
    let dev = router::tun::open_device(&args.tun, args.mtu)?;
    let routing = match &args.input {
        Some(input) => Some(router::tun::Routing::install(input, &args.tun, args.table)?),
        None => None,
    };
    tracing::info!(
        "router ready: {} → {} rate {} B/s, delay {} ms, queue {} buffer {} packets, threshold {} B, {:?} classification, marking {:?}",
        args.input.as_deref().unwrap_or("(your routes)"),
        args.tun,
        cfg.rate_bytes_per_s,
        args.delay_ms,
        cfg.discipline,
        cfg.buffer_packets,
        cfg.threshold_bytes(),
        cfg.mode,
        cfg.mark
    );
    let stats = router::tun::run(dev, cfg, &stop)?;
    drop(routing);
    tracing::info!(
        "router stats: offered={} released={} released_bytes={} queue_drops={} drops_first={} drops_rest={} delay_line_drops={} malformed={} learnt={} unknown={} table_full={} marked_first={} marked_rest={}",
        stats.link.offered,
        stats.link.released,
        stats.link.released_bytes,
        stats.link.queue_drops,
        stats.drops_first,
        stats.drops_rest,
        stats.link.delay_line_drops,
        stats.malformed,
        stats.classify.learnt,
        stats.classify.unknown,
        stats.classify.table_full,
        stats.marked_first,
        stats.marked_rest
    );
    Ok(())
}
