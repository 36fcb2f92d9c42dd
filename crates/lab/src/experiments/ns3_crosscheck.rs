//! The simulator against ns-3 (issue 9): paper 003's S1 dumbbell, one flow list per load
//! replayed in both, NewReno without SACK and with SACK. The ns-3 half runs outside CI
//! (`ns3/run.sh`, `ns3/s1_dumbbell.cc`) and its outputs are committed; this experiment
//! re-runs `sim` on the same flow lists (`sim::Scenario::ns3_s1`) and compares per size
//! bucket mean completion time, loss rate at the bottleneck, retransmissions and mean queue
//! occupancy.

use crate::check_param;
use crate::experiments::{md_table, pct};
use crate::plot::{render_svg, LinePlot, Series};
use crate::Context;
use anyhow::{anyhow, Context as _};
use serde::{Deserialize, Serialize};
use sim::scenario::{DriverKind, Scenario};
use sim::workload::WorkloadConfig;
use std::path::{Path, PathBuf};

pub const NAME: &str = "ns3-crosscheck";
pub const DESCRIPTION: &str =
    "Issue 9: the packet simulator against ns-3.44 on paper 003's S1 dumbbell (same flows), NewReno and SACK";
pub const SCENARIO: &str = include_str!("../../scenarios/ns3-crosscheck.toml");

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    runs_dir: String,
    loads: Vec<f64>,
    tcps: Vec<String>,
    bucket_edges_segments: Vec<u64>,
    tolerance: f64,
}

/// Bottleneck counters of one run (the `.stats` file both sides write).
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct RunStats {
    /// Packets accepted by the bottleneck queue.
    pub enqueued: u64,
    /// Packets the bottleneck dropped.
    pub dropped: u64,
    /// Data packets the senders transmitted, retransmissions included.
    pub data_packets_sent: u64,
    /// Distinct segments of the flows (Σ ⌈size / 1460⌉).
    pub unique_segments: u64,
    /// Time-average bottleneck queue, packets.
    pub mean_queue_packets: f64,
    /// Entries into fast recovery (ns-3: its sockets' `CongState` trace).
    pub fast_recoveries: u64,
    /// Retransmission timeouts (ns-3: entries into its loss state).
    pub timeouts: u64,
}

impl RunStats {
    /// Drops over packets offered to the bottleneck.
    pub fn loss_rate(&self) -> f64 {
        self.dropped as f64 / (self.enqueued + self.dropped).max(1) as f64
    }
    /// Retransmitted data packets over distinct segments.
    pub fn retransmit_rate(&self) -> f64 {
        self.data_packets_sent.saturating_sub(self.unique_segments) as f64
            / self.unique_segments.max(1) as f64
    }
}

/// Per-flow transfer times (`None`: not delivered) by flow index, and the counters.
pub type RunOutput = (Vec<(u64, Option<f64>)>, RunStats);

/// Reads a per-flow CSV (`flow,arrival_s,size_bytes,source,transfer_s`) and its `.stats`.
pub fn read_run(path: &Path) -> anyhow::Result<RunOutput> {
    let mut r =
        csv::Reader::from_path(path).with_context(|| format!("reading {}", path.display()))?;
    let mut flows = Vec::new();
    for rec in r.records() {
        let rec = rec.with_context(|| format!("{}", path.display()))?;
        let size: u64 = rec
            .get(2)
            .ok_or_else(|| anyhow!("{}: no size", path.display()))?
            .parse()?;
        let t = rec
            .get(4)
            .filter(|s| !s.is_empty())
            .map(str::parse::<f64>)
            .transpose()?;
        flows.push((size, t));
    }
    let sp = PathBuf::from(format!("{}.stats", path.display()));
    let mut r = csv::Reader::from_path(&sp).with_context(|| format!("reading {}", sp.display()))?;
    let h = r.headers()?.clone();
    let rec = r
        .records()
        .next()
        .ok_or_else(|| anyhow!("{}: empty", sp.display()))??;
    let get = |k: &str| -> anyhow::Result<f64> {
        let i = h
            .iter()
            .position(|x| x == k)
            .ok_or_else(|| anyhow!("{}: no `{k}`", sp.display()))?;
        Ok(rec.get(i).unwrap_or("").parse()?)
    };
    let stats = RunStats {
        enqueued: get("enqueued")? as u64,
        dropped: get("dropped")? as u64,
        data_packets_sent: get("data_packets_sent")? as u64,
        unique_segments: get("unique_segments")? as u64,
        mean_queue_packets: get("mean_queue_packets")?,
        fast_recoveries: get("fast_recoveries").unwrap_or(f64::NAN) as u64,
        timeouts: get("timeouts").unwrap_or(f64::NAN) as u64,
    };
    Ok((flows, stats))
}

/// Replays the flow list `flows` in the simulator (`sack` on or off).
pub fn simulate(flows: &Path, sack: bool) -> anyhow::Result<RunOutput> {
    let list = sim::workload::load_trace(flows).map_err(|e| anyhow!("{e}"))?;
    let last = list.last().map_or(0.0, |f| sim::time::as_secs(f.arrival));
    let mut sc = Scenario::ns3_s1(0.5, last + 1e-6, sack);
    sc.driver = DriverKind::Tcp;
    sc.workload = WorkloadConfig::Trace {
        path: flows.display().to_string(),
    };
    let r = sc.run().map_err(|e| anyhow!("{e}"))?;
    let out = r
        .flows
        .iter()
        .map(|f| (f.size, f.transfer().map(sim::time::as_secs)))
        .collect();
    let horizon = sim::time::as_secs(r.end).max(1e-9);
    let stats = RunStats {
        enqueued: r.bottleneck.tx_packets,
        dropped: r.bottleneck.drops,
        data_packets_sent: r.conns.iter().map(|c| c.injected_packets).sum(),
        unique_segments: r.flows.iter().map(|f| f.size.div_ceil(1460)).sum(),
        mean_queue_packets: r.bottleneck.queue_area as f64 / 1e9 / horizon,
        fast_recoveries: r.conns.iter().map(|c| c.fast_retransmits).sum(),
        timeouts: r.conns.iter().map(|c| c.timeouts).sum(),
    };
    Ok((out, stats))
}

/// Mean transfer time per bucket (`edges` in segments) over the flows both runs delivered:
/// `(label, flows, mean a, mean b)`.
pub fn bucket_means(a: &RunOutput, b: &RunOutput, edges: &[u64]) -> Vec<(String, usize, f64, f64)> {
    let mut lo = 0;
    let mut out = Vec::new();
    for hi in edges.iter().copied().map(Some).chain([None]) {
        let inside = |s: u64| s > lo * 1460 && hi.is_none_or(|h| s <= h * 1460);
        let (mut n, mut sa, mut sb) = (0usize, 0.0, 0.0);
        for (x, y) in a.0.iter().zip(&b.0) {
            if let ((s, Some(ta)), (_, Some(tb))) = (x, y) {
                if inside(*s) {
                    n += 1;
                    sa += ta;
                    sb += tb;
                }
            }
        }
        let label = match hi {
            Some(h) => format!("({lo}, {h}]"),
            None => format!("> {lo}"),
        };
        if n > 0 {
            out.push((label, n, sa / n as f64, sb / n as f64));
        }
        lo = hi.unwrap_or(lo);
    }
    out
}

#[derive(Serialize)]
struct Row {
    tcp: String,
    load: f64,
    bucket: String,
    flows: usize,
    sim_mean_s: f64,
    ns3_mean_s: f64,
    gap: f64,
}

#[derive(Serialize)]
struct StatRow {
    tcp: String,
    load: f64,
    sim_loss: f64,
    ns3_loss: f64,
    sim_retransmit_rate: f64,
    ns3_retransmit_rate: f64,
    sim_mean_queue: f64,
    ns3_mean_queue: f64,
    sim_undelivered: usize,
    ns3_undelivered: usize,
    sim_drops: u64,
    ns3_drops: u64,
    sim_fast_recoveries: u64,
    ns3_fast_recoveries: u64,
    sim_timeouts: u64,
    ns3_timeouts: u64,
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn run(ctx: &Context) -> anyhow::Result<String> {
    let p: Params = ctx.params()?;
    check_param!(!p.loads.is_empty(), "loads must not be empty");
    check_param!(p.tolerance > 0.0, "tolerance must be > 0");
    check_param!(
        p.bucket_edges_segments.windows(2).all(|w| w[0] < w[1]),
        "bucket_edges_segments must increase"
    );
    for t in &p.tcps {
        check_param!(
            t == "newreno" || t == "sack",
            "tcps: `{t}` is not newreno or sack"
        );
    }
    let dir = workspace_root().join(&p.runs_dir);
    let pb = ctx.progress((p.loads.len() * p.tcps.len()) as u64, "loads x tcps");
    let (mut rows, mut stats, mut crashes) = (Vec::new(), Vec::new(), Vec::new());
    for tcp in &p.tcps {
        for &load in &p.loads {
            let flows = dir.join(format!("flows_{load}.csv"));
            let ns3_path = dir.join(format!("ns3_{tcp}_{load}.csv"));
            let crash = PathBuf::from(format!("{}.crash", ns3_path.display()));
            if !ns3_path.exists() && crash.exists() {
                // ns-3 aborted on this run: its message is committed instead of outputs.
                let msg = std::fs::read_to_string(&crash)?;
                crashes.push(format!(
                    "{tcp} at load {load}: `{}`",
                    msg.lines().next().unwrap_or("").trim()
                ));
                pb.inc(1);
                continue;
            }
            let ns3 = read_run(&ns3_path)?;
            let ours = simulate(&flows, tcp == "sack")?;
            check_param!(
                ns3.0.len() == ours.0.len(),
                "{tcp} {load}: flow counts differ"
            );
            for (bucket, n, a, b) in bucket_means(&ours, &ns3, &p.bucket_edges_segments) {
                rows.push(Row {
                    tcp: tcp.clone(),
                    load,
                    bucket,
                    flows: n,
                    sim_mean_s: a,
                    ns3_mean_s: b,
                    gap: a / b - 1.0,
                });
            }
            let undelivered = |r: &RunOutput| r.0.iter().filter(|f| f.1.is_none()).count();
            stats.push(StatRow {
                tcp: tcp.clone(),
                load,
                sim_loss: ours.1.loss_rate(),
                ns3_loss: ns3.1.loss_rate(),
                sim_retransmit_rate: ours.1.retransmit_rate(),
                ns3_retransmit_rate: ns3.1.retransmit_rate(),
                sim_mean_queue: ours.1.mean_queue_packets,
                ns3_mean_queue: ns3.1.mean_queue_packets,
                sim_undelivered: undelivered(&ours),
                ns3_undelivered: undelivered(&ns3),
                sim_drops: ours.1.dropped,
                ns3_drops: ns3.1.dropped,
                sim_fast_recoveries: ours.1.fast_recoveries,
                ns3_fast_recoveries: ns3.1.fast_recoveries,
                sim_timeouts: ours.1.timeouts,
                ns3_timeouts: ns3.1.timeouts,
            });
            pb.inc(1);
        }
    }
    pb.finish_and_clear();
    ctx.write_csv("buckets.csv", &rows)?;
    ctx.write_csv("counters.csv", &stats)?;
    for tcp in &p.tcps {
        let mut buckets: Vec<String> = Vec::new();
        for r in rows.iter().filter(|r| &r.tcp == tcp) {
            if !buckets.contains(&r.bucket) {
                buckets.push(r.bucket.clone());
            }
        }
        let mut series: Vec<Series> = buckets
            .iter()
            .map(|b| {
                Series::line(
                    format!("{b} segments"),
                    rows.iter()
                        .filter(|r| &r.tcp == tcp && &r.bucket == b)
                        .map(|r| (r.load, 100.0 * r.gap))
                        .collect(),
                )
            })
            .collect();
        let (lo, hi) = (p.loads[0], p.loads[p.loads.len() - 1]);
        series.push(Series::dashed(
            "+tolerance",
            vec![(lo, 100.0 * p.tolerance), (hi, 100.0 * p.tolerance)],
        ));
        series.push(Series::dashed(
            "−tolerance",
            vec![(lo, -100.0 * p.tolerance), (hi, -100.0 * p.tolerance)],
        ));
        render_svg(
            &LinePlot {
                title: format!("sim vs ns-3, {tcp}: mean completion time gap per size bucket"),
                x_label: "load".into(),
                y_label: "sim / ns-3 − 1 (%)".into(),
                series,
                ..Default::default()
            },
            &ctx.path(&format!("gap_{tcp}.svg")),
        )?;
    }
    Ok(summary(&p, &rows, &stats, &crashes))
}

fn summary(p: &Params, rows: &[Row], stats: &[StatRow], crashes: &[String]) -> String {
    let mut tables = String::new();
    for tcp in &p.tcps {
        let t = md_table(
            &[
                "load",
                "bucket (segments)",
                "flows",
                "sim mean",
                "ns-3 mean",
                "gap",
            ],
            &rows
                .iter()
                .filter(|r| &r.tcp == tcp)
                .map(|r| {
                    vec![
                        format!("{}", r.load),
                        r.bucket.clone(),
                        r.flows.to_string(),
                        format!("{:.1} ms", 1e3 * r.sim_mean_s),
                        format!("{:.1} ms", 1e3 * r.ns3_mean_s),
                        if r.gap.abs() > p.tolerance {
                            format!("**{}**", pct(r.gap, 1))
                        } else {
                            pct(r.gap, 1)
                        },
                    ]
                })
                .collect::<Vec<_>>(),
        );
        tables.push_str(&format!("### {tcp}\n\n{t}\n![gap](gap_{tcp}.svg)\n\n"));
    }
    let counters = md_table(
        &[
            "tcp",
            "load",
            "loss sim / ns-3",
            "retransmitted sim / ns-3",
            "mean queue sim / ns-3",
            "undelivered sim / ns-3",
            "fast recoveries sim / ns-3",
            "timeouts sim / ns-3",
        ],
        &stats
            .iter()
            .map(|s| {
                vec![
                    s.tcp.clone(),
                    format!("{}", s.load),
                    format!("{} / {}", pct(s.sim_loss, 2), pct(s.ns3_loss, 2)),
                    format!(
                        "{} / {}",
                        pct(s.sim_retransmit_rate, 2),
                        pct(s.ns3_retransmit_rate, 2)
                    ),
                    format!("{:.1} / {:.1}", s.sim_mean_queue, s.ns3_mean_queue),
                    format!("{} / {}", s.sim_undelivered, s.ns3_undelivered),
                    format!("{} / {}", s.sim_fast_recoveries, s.ns3_fast_recoveries),
                    format!("{} / {}", s.sim_timeouts, s.ns3_timeouts),
                ]
            })
            .collect::<Vec<_>>(),
    );
    let over: Vec<&Row> = rows.iter().filter(|r| r.gap.abs() > p.tolerance).collect();
    let worst = rows.iter().map(|r| r.gap.abs()).fold(0.0, f64::max);
    let verdict = if over.is_empty() {
        format!(
            "Every per-bucket mean completion time is within {} of ns-3's (largest gap {}).",
            pct(p.tolerance, 0),
            pct(worst, 1)
        )
    } else {
        format!(
            "{} of {} bucket means differ from ns-3's by more than {} (largest {}): {}.",
            over.len(),
            rows.len(),
            pct(p.tolerance, 0),
            pct(worst, 1),
            over.iter()
                .map(|r| format!("{} at {} {}: {}", r.bucket, r.tcp, r.load, pct(r.gap, 1)))
                .collect::<Vec<_>>()
                .join("; ")
        )
    };
    let crashed = if crashes.is_empty() {
        String::new()
    } else {
        format!(
            "ns-3 aborted (no output to compare) on: {}.\n\n",
            crashes.join("; ")
        )
    };
    format!(
        "# {NAME}: the packet simulator against ns-3\n\n\
Paper 003's S1 dumbbell (`sim::Scenario::ns3_s1`, `ns3/s1_dumbbell.cc`): 10 sender–receiver \
pairs, every link 10 Mbit/s and 1 ms, a 100-packet drop-tail buffer at the bottleneck, TCP \
with SMSS 1460 B, initial window 1, no delayed ACKs, a maximum window of 30 segments, minimum \
RTO 200 ms, initial (and SYN) RTO 1 s; NewReno without SACK, then with SACK (ours: RFC 6675; \
ns-3: its SACK scoreboard with classic recovery). One flow list per load (workload D1, the \
simulator's generator, committed in `runs/`) replayed in both. Completion time = delivery of \
the last byte − arrival. ns-3 3.44 from PyPI; the ns-3 runs are made outside CI by \
`ns3/run.sh` and committed in `runs/`; this summary re-runs the simulator.\n\n\
{verdict}\n\n{crashed}\
## Mean completion time per size bucket\n\n{tables}\
## Bottleneck counters\n\n{counters}\n\
Loss = drops / packets offered to the bottleneck; retransmitted = data packets sent / distinct \
segments − 1; mean queue = time-average of the packets waiting at the bottleneck.\n\n\
## What the comparison found (see `ns3/README.md` for the traces)\n\n\
* **ns-3's bottleneck drops are invisible to its queue.** With the traffic-control layer \
removed (so that the 100-packet device queue is the only buffer, as in paper 003), a full \
device queue *stops* itself and ns-3's traffic-control layer discards the next packet \
(trace `TrafficControlLayer/TcDrop`); the queue's `Drop` trace and its counters stay at 0. \
A comparison that counts drops at the queue sees a lossless ns-3 whose senders nonetheless \
retransmit and time out. We count `TcDrop` at the bottleneck router.\n\
* **SYN timeout.** ns-3 retransmits a lost SYN after `ConnTimeout` = 3 s (RFC 1122); our \
simulator after RFC 6298's initial RTO of 1 s. A single lost SYN made a one-segment flow take \
3.2 s in ns-3 against 1.1 s here (flow 931 of the load-0.8 list, traced with \
`s1_dumbbell --debugFlow`). The committed runs set `ConnTimeout` = 1 s.\n\
* **Fixed in ours: the handshake's third packet.** ns-3 (like Linux) answers the SYN-ACK \
with a pure ACK before the first data segment; our simulator did not send it, so the \
bottleneck saw about one packet per flow fewer (at load 0.7, 36 796 packets offered against \
ns-3's 40 159) and, in a queue counted in packets, dropped less. `sim` now sends it \
(`PacketKind::HandshakeAck`); the offered packets then agree within 0.1% under SACK.\n\
* **Open: NewReno without SACK.** With SACK the two agree (table above). Without SACK, on the \
same flows, ns-3 drops more, retransmits several packets per drop and enters its loss \
state far more often (its `CongState` trace: see `counters.csv` and the `.stats` files, \
columns `fast_recoveries`, `timeouts`), and its completion times are longer from load 0.7 \
on. A traced flow (flow 1229 at load 0.7, `--debugFlow`) shows ns-3 repairing a burst of 8 \
losses one per round trip on partial ACKs, as RFC 6582 and our sender do, so the per-flow \
recovery matches; we have not found what makes ns-3 lose more packets overall, and do not \
claim agreement for NewReno beyond load 0.6.\n\
* **Open: timeouts with SACK.** With SACK the completion times agree within 10% in most \
buckets, but from load 0.7 on our senders time out about twice as often as ns-3's (counters \
above; ours also counts SYN timeouts, ns-3's loss-state entries do not) and lose somewhat \
more; the largest bucket gaps (tens of flows of 64–256 segments) follow. Not yet explained: \
candidates are RFC 6675's rescue retransmission (`NextSeg` rules 3–4, not implemented here) \
and the loss-state recovery after a timeout.\n\
* **ns-3 aborts on NewReno without SACK at load 0.9**: its own assertion \
`m_congState != CA_DISORDER` in `TcpSocketBase::SendPendingData` (tcp-socket-base.cc), which \
requires that without SACK and without limited transmit no data leaves in the Disorder \
state, fails 40 s into the run. ns-3's non-SACK path thus sends in a state it declares \
impossible — one more sign that ns-3, not only our simulator, is off in that regime.\n",
    )
}
