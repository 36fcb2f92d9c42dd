//! Paper 000, Figure 6: throughput over time of a long and a short gtcp flow and a plain-TCP
//! sample flow through one bottleneck, under tcp and under SRPT.

use crate::check_param;
use crate::engine::md_table;
use crate::engine::packet::PathCfg;
use crate::plot::{render_svg, LinePlot, Series};
use crate::Context;
use anyhow::{anyhow, Context as _};
use serde::{Deserialize, Serialize};
use sim::driver::FlowDriver;
use sim::queue::QueueConfig;
use sim::scenario::{DriverKind, GtcpConfig, RecordConfig, Scenario};
use sim::tcp::TcpConfig;
use sim::time::{as_secs, secs};
use sim::topology::DumbbellConfig;
use sim::workload::{ListedFlow, WorkloadConfig};

pub const NAME: &str = "fig6";
pub const DESCRIPTION: &str =
    "Paper 000 Fig. 6: long + short gtcp flows and a plain-TCP sample flow, throughput over time under tcp and SRPT";
pub const SCENARIO: &str = include_str!("../../scenarios/fig6.toml");

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Flows {
    long_bytes: u64,
    long_start_s: f64,
    short_bytes: u64,
    short_start_s: f64,
    sample_bytes: u64,
    sample_start_s: f64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    seed: u64,
    repetitions: usize,
    jitter_ms: f64,
    bin_s: f64,
    duration_s: f64,
    policy: String,
    drivers: Vec<String>,
    flows: Flows,
    path: PathCfg,
    tcp: TcpConfig,
    gtcp: GtcpConfig,
}

const NAMES: [&str; 3] = ["long", "short", "sample"];

/// splitmix64: a tiny seeded generator for the start-time jitter.
fn splitmix(state: &mut u64) -> f64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

impl Params {
    fn scenario(&self, rep: usize, driver: DriverKind) -> Scenario {
        let mut rng = self.seed.wrapping_mul(1_000_003).wrapping_add(rep as u64);
        let f = &self.flows;
        let j = |rng: &mut u64| splitmix(rng) * self.jitter_ms / 1e3;
        let flows = vec![
            ListedFlow {
                arrival_s: f.long_start_s + j(&mut rng),
                size_bytes: f.long_bytes,
                source: 0,
            },
            ListedFlow {
                arrival_s: f.short_start_s + j(&mut rng),
                size_bytes: f.short_bytes,
                source: 0,
            },
            ListedFlow {
                arrival_s: f.sample_start_s + j(&mut rng),
                size_bytes: f.sample_bytes,
                source: 1,
            },
        ];
        Scenario {
            seed: self.seed.wrapping_add(rep as u64),
            duration_s: self.duration_s,
            drain_s: 0.0,
            driver,
            topology: DumbbellConfig {
                pairs: 2,
                access_rate_bps: self.path.access_rate_bps,
                access_delay_ms: self.path.access_delay_ms,
                receiver_rate_bps: self.path.access_rate_bps,
                receiver_delay_ms: self.path.access_delay_ms,
                bottleneck_rate_bps: (self.path.capacity_bytes_per_s * 8.0).round() as u64,
                bottleneck_delay_ms: self.path.rtt_ms / 2.0 - 2.0 * self.path.access_delay_ms,
                bottleneck_queue: QueueConfig::DropTailBytes {
                    limit: self.path.buffer_bytes,
                },
                other_queue: QueueConfig::DropTailPackets { limit: 100_000 },
                ecn_mark_packets: None,
            },
            tcp: self.tcp.clone(),
            workload: WorkloadConfig::List { flows },
            record: RecordConfig::default(),
            gtcp: GtcpConfig {
                policy: if driver == DriverKind::Tcp {
                    "tcp".into()
                } else {
                    self.policy.clone()
                },
                ..self.gtcp.clone()
            },
            perturb: Default::default(),
            mux: Default::default(),
        }
    }
}

/// Averaged throughput (MB/s) per bin of the three flows, and their mean completion times.
struct Curves {
    label: String,
    /// `[flow][bin]`.
    mbps: Vec<Vec<f64>>,
    /// Mean transfer time of each flow over the repetitions (s), if all completed.
    transfer_s: Vec<Option<f64>>,
    /// Mean finishing time (arrival + transfer) of each flow (s).
    done_s: Vec<Option<f64>>,
}

fn which(size: u64, f: &Flows) -> Option<usize> {
    [f.long_bytes, f.short_bytes, f.sample_bytes]
        .iter()
        .position(|&s| s == size)
}

fn curves(ctx: &Context, p: &Params, driver: DriverKind, label: &str) -> anyhow::Result<Curves> {
    let bins = (p.duration_s / p.bin_s).floor() as usize;
    let mut sum = vec![vec![0.0; bins]; 3];
    let mut tt: Vec<Vec<f64>> = vec![Vec::new(); 3];
    let mut done: Vec<Vec<f64>> = vec![Vec::new(); 3];
    let pb = ctx.progress(p.repetitions as u64, label);
    for rep in 0..p.repetitions {
        let sc = p.scenario(rep, driver);
        let mut last = [0u64; 3];
        let mut bin = 0usize;
        let bin_t = secs(p.bin_s);
        let report = sc
            .run_observed(Some(bin_t), |_, d: &dyn FlowDriver| {
                if bin >= bins {
                    return;
                }
                for r in d.flow_records() {
                    if let Some(k) = which(r.size, &p.flows) {
                        let now = d.delivered_bytes(r.id);
                        sum[k][bin] += (now - last[k]) as f64 / p.bin_s / 1e6;
                        last[k] = now;
                    }
                }
                bin += 1;
            })
            .with_context(|| format!("{label}, repetition {rep}"))?;
        if let Some(g) = report.gtcp {
            if g.api_errors + g.protocol_errors + g.payload_mismatches + g.invariant_violations > 0
            {
                return Err(anyhow!("{label}: the gtcp driver reported errors: {g:?}"));
            }
        }
        for r in &report.flows {
            if let (Some(k), Some(t)) = (which(r.size, &p.flows), r.transfer()) {
                tt[k].push(as_secs(t));
                done[k].push(as_secs(r.arrival + t));
            }
        }
        pb.inc(1);
    }
    pb.finish_and_clear();
    let n = p.repetitions as f64;
    let avg = |v: &Vec<f64>| (v.len() == p.repetitions).then(|| v.iter().sum::<f64>() / n);
    Ok(Curves {
        label: label.to_string(),
        mbps: sum
            .into_iter()
            .map(|v| v.into_iter().map(|x| x / n).collect())
            .collect(),
        transfer_s: tt.iter().map(avg).collect(),
        done_s: done.iter().map(avg).collect(),
    })
}

#[derive(Serialize, Deserialize)]
struct CsvRow {
    time_s: f64,
    config: String,
    long_mbps: f64,
    short_mbps: f64,
    sample_mbps: f64,
}

pub fn run(ctx: &Context) -> anyhow::Result<String> {
    let mut p: Params = ctx.params()?;
    p.seed = ctx.seed(p.seed);
    check_param!(p.repetitions >= 1, "repetitions must be >= 1");
    check_param!(
        p.bin_s > 0.0 && p.duration_s >= 2.0 * p.bin_s,
        "need bin_s > 0 and duration_s >= 2 bin_s"
    );
    check_param!(p.jitter_ms >= 0.0, "jitter_ms must be >= 0");
    check_param!(
        p.path.rtt_ms >= 4.0 * p.path.access_delay_ms,
        "path.rtt_ms must be at least four access delays"
    );
    let sizes = [
        p.flows.long_bytes,
        p.flows.short_bytes,
        p.flows.sample_bytes,
    ];
    check_param!(
        sizes.iter().all(|&s| s > 0)
            && sizes[0] != sizes[1]
            && sizes[1] != sizes[2]
            && sizes[0] != sizes[2],
        "the three flow sizes must be positive and distinct"
    );
    let drivers = drivers(&p)?;
    for (kind, label) in &drivers {
        p.scenario(0, *kind)
            .validate()
            .map_err(|e| anyhow!("{label}: {e}"))?;
    }
    let all: Vec<Curves> = drivers
        .iter()
        .map(|(k, l)| curves(ctx, &p, *k, l))
        .collect::<anyhow::Result<_>>()?;
    write_curves(ctx, &p, &drivers, &all)?;
    report(ctx, &p, &drivers, &all)
}

/// The configurations: tcp, then the policy under each driver of the scenario.
fn drivers(p: &Params) -> anyhow::Result<Vec<(DriverKind, String)>> {
    let mut drivers = vec![(DriverKind::Tcp, "tcp".to_string())];
    for d in &p.drivers {
        let kind = match d.as_str() {
            "schedtcp" => DriverKind::Schedtcp,
            "gtcp-ideal" => DriverKind::GtcpIdeal,
            other => return Err(anyhow!("invalid scenario parameter: driver `{other}`")),
        };
        drivers.push((kind, format!("{}/{}", kind.name(), p.policy)));
    }
    Ok(drivers)
}

/// Renders again what an earlier run wrote to `dir`: the throughput curves of every
/// configuration (`fig6.csv`, the mean over the repetitions per bin) and each flow's mean
/// finishing and transfer times (`fig6.json`). The repetitions themselves are not kept.
pub(crate) fn render_from(ctx: &Context, dir: &std::path::Path) -> anyhow::Result<String> {
    #[derive(Deserialize)]
    struct Config {
        label: String,
        mean_done_s: Vec<Option<f64>>,
        mean_transfer_s: Vec<Option<f64>>,
    }
    #[derive(Deserialize)]
    struct Json {
        configs: Vec<Config>,
    }
    let p: Params = ctx.params()?;
    let drivers = drivers(&p)?;
    let jp = dir.join("fig6.json");
    let json: Json = serde_json::from_str(
        &std::fs::read_to_string(&jp).with_context(|| format!("reading {}", jp.display()))?,
    )
    .with_context(|| format!("parsing {}", jp.display()))?;
    let rows: Vec<CsvRow> = crate::engine::saved::read_csv(dir, "fig6.csv")?;
    let all: Vec<Curves> = drivers
        .iter()
        .map(|(_, label)| {
            let c = json
                .configs
                .iter()
                .find(|c| c.label == *label)
                .with_context(|| format!("{}: no configuration `{label}`", jp.display()))?;
            let of: Vec<&CsvRow> = rows.iter().filter(|r| r.config == *label).collect();
            anyhow::ensure!(
                c.mean_done_s.len() == 3 && c.mean_transfer_s.len() == 3 && !of.is_empty(),
                "{}: `{label}` lacks its three flows or its curves",
                dir.display()
            );
            Ok(Curves {
                label: label.clone(),
                mbps: vec![
                    of.iter().map(|r| r.long_mbps).collect(),
                    of.iter().map(|r| r.short_mbps).collect(),
                    of.iter().map(|r| r.sample_mbps).collect(),
                ],
                transfer_s: c.mean_transfer_s.clone(),
                done_s: c.mean_done_s.clone(),
            })
        })
        .collect::<anyhow::Result<_>>()?;
    anyhow::ensure!(
        all.iter().all(|c| c.mbps[0].len() == all[0].mbps[0].len()),
        "{}: the configurations' curves have different lengths",
        dir.display()
    );
    write_curves(ctx, &p, &drivers, &all)?;
    report(ctx, &p, &drivers, &all)
}

/// `fig6.json` and the summary, from the curves of every configuration.
fn report(
    ctx: &Context,
    p: &Params,
    drivers: &[(DriverKind, String)],
    all: &[Curves],
) -> anyhow::Result<String> {
    let bins = all[0].mbps[0].len();

    // How far the sample moved, and what the scheduled pair did.
    let sample_gap = |c: &Curves| gap_to_tcp(c, &all[0], bins);
    let t_md = done_table(all, bins);
    let fmt = finished_at;
    ctx.write_json(
        "fig6.json",
        &serde_json::json!({
            "configs": all.iter().map(|c| serde_json::json!({
                "label": c.label,
                "mean_done_s": c.done_s,
                "mean_transfer_s": c.transfer_s,
                "sample_gap_mbps_max_mean": sample_gap(c),
            })).collect::<Vec<_>>(),
        }),
    )?;
    let ideal_exact = all
        .iter()
        .zip(drivers)
        .filter(|(_, d)| d.0 == DriverKind::GtcpIdeal)
        .all(|(c, _)| sample_gap(c).0 == 0.0);
    let short_speedup = |i: usize| match (all[0].transfer_s[1], all[i].transfer_s[1]) {
        (Some(a), Some(b)) => format!("{a:.2} s → {b:.2} s"),
        _ => "—".into(),
    };
    let f = &p.flows;
    Ok(format!(
        "# {NAME}: paper 000, Figure 6 (non-intrusiveness)\n\n\
Three flows share the path of `table2` ({cap:.0} MB/s, {rtt:.0} ms RTT, {buf:.0} kB \
drop-tail buffer, NewReno with delayed ACKs): *long* ({l:.0} MB at {ls} s) and *short* \
({s:.0} MB at {ss} s) are handled by gtcp on one sender/receiver pair; *sample* ({sa:.0} MB \
at {sas} s) is plain TCP on a second pair through the same bottleneck. Each start time is \
delayed by a uniform draw in [0, {jit} ms) per repetition; curves are the average of \
{reps} repetitions (the paper averaged 100 runs on a real network whose home link gave \
350 kB/s; the sizes are scaled to our link). Throughput = bytes delivered to the \
destination application per {bin} s bin.\n\n\
Paper 000: under SRPT, *short* gets full priority from its arrival (t = 5 s) and finishes \
around t = 11 s; *long* finishes around t = 25 s in both cases; the throughput of *sample* \
is similar in both cases.\n\n\
## Ours\n\n{t_md}\n\
* Under SRPT the short flow's transfer time goes {sp_s} with `schedtcp` and {sp_i} with \
`gtcp-ideal` (tcp: two connections of three, so two thirds of the link, for the pair; \
SRPT gives all of it to *short*). *Long* ends at {long_s} under schedtcp and {long_i} \
under gtcp-ideal, against {long_t} under tcp: the pair sends the same bytes at the same times (exactly under \
gtcp-ideal, approximately under schedtcp), only in another order.\n\
* The sample flow: under `gtcp-ideal` its curve is {ideal_word} tcp's (every connection \
injects exactly what it injects under tcp, so the network is the same). Under `schedtcp` it \
moves by the amounts in the last column: the implementation's writes, framing and closing \
change the pair's connections slightly, and with them the losses the sample sees.\n\n\
![tcp](fig6_tcp.svg)\n\n![schedtcp](fig6_schedtcp.svg)\n\n![gtcp-ideal](fig6_gtcp-ideal.svg)\n\n\
![sample](fig6_sample.svg)\n",
        cap = p.path.capacity_bytes_per_s / 1e6,
        rtt = p.path.rtt_ms,
        buf = p.path.buffer_bytes as f64 / 1e3,
        l = f.long_bytes as f64 / 1e6,
        ls = f.long_start_s,
        s = f.short_bytes as f64 / 1e6,
        ss = f.short_start_s,
        sa = f.sample_bytes as f64 / 1e6,
        sas = f.sample_start_s,
        jit = p.jitter_ms,
        reps = p.repetitions,
        bin = p.bin_s,
        sp_s = drivers
            .iter()
            .position(|d| d.0 == DriverKind::Schedtcp)
            .map_or("—".into(), short_speedup),
        sp_i = drivers
            .iter()
            .position(|d| d.0 == DriverKind::GtcpIdeal)
            .map_or("—".into(), short_speedup),
        long_t = fmt(all[0].done_s[0]),
        long_s = drivers
            .iter()
            .position(|d| d.0 == DriverKind::Schedtcp)
            .map_or("—".into(), |i| fmt(all[i].done_s[0])),
        long_i = drivers
            .iter()
            .position(|d| d.0 == DriverKind::GtcpIdeal)
            .map_or("—".into(), |i| fmt(all[i].done_s[0])),
        ideal_word = if ideal_exact {
            "identical, bin for bin, to"
        } else {
            "**not** identical to"
        },
    ))
}

/// How far the sample flow's throughput under `c` moved from its throughput under `tcp`:
/// the largest and the mean absolute difference over the bins, MB/s.
fn gap_to_tcp(c: &Curves, tcp: &Curves, bins: usize) -> (f64, f64) {
    let d: Vec<f64> = (0..bins)
        .map(|b| (c.mbps[2][b] - tcp.mbps[2][b]).abs())
        .collect();
    (
        d.iter().cloned().fold(0.0, f64::max),
        d.iter().sum::<f64>() / bins as f64,
    )
}

/// A time a flow finished at, or that it did not.
fn finished_at(v: Option<f64>) -> String {
    v.map_or("not finished".into(), |x| format!("{x:.2} s"))
}

/// When each flow finished under each configuration, and the sample's gap to tcp.
fn done_table(all: &[Curves], bins: usize) -> String {
    let sample_gap = |c: &Curves| gap_to_tcp(c, &all[0], bins);
    let fmt = finished_at;
    let mut table = Vec::new();
    for c in all {
        let (mx, mn) = sample_gap(c);
        table.push(vec![
            c.label.clone(),
            fmt(c.done_s[0]),
            fmt(c.done_s[1]),
            fmt(c.transfer_s[1]),
            fmt(c.done_s[2]),
            format!("{mx:.3} / {mn:.3}"),
        ]);
    }
    md_table(
        &[
            "configuration",
            "long done at",
            "short done at",
            "short transfer",
            "sample done at",
            "sample |Δ throughput| vs tcp, max / mean (MB/s)",
        ],
        &table,
    )
}

/// The throughput curves: `fig6.csv`, one plot per configuration and one of the sample flow
/// under each.
fn write_curves(
    ctx: &Context,
    p: &Params,
    drivers: &[(DriverKind, String)],
    all: &[Curves],
) -> anyhow::Result<()> {
    let bins = all[0].mbps[0].len();
    let t = |b: usize| (b as f64 + 0.5) * p.bin_s;
    let mut rows = Vec::new();
    for c in all {
        for b in 0..bins {
            rows.push(CsvRow {
                time_s: t(b),
                config: c.label.clone(),
                long_mbps: c.mbps[0][b],
                short_mbps: c.mbps[1][b],
                sample_mbps: c.mbps[2][b],
            });
        }
    }
    ctx.write_csv("fig6.csv", &rows)?;
    for (i, c) in all.iter().enumerate() {
        let file = match i {
            0 => "fig6_tcp.svg".to_string(),
            _ => format!("fig6_{}.svg", drivers[i].0.name()),
        };
        render_svg(
            &LinePlot {
                title: format!("Throughput over time, {}", c.label),
                x_label: "time (s)".into(),
                y_label: "throughput (MB/s)".into(),
                series: NAMES
                    .iter()
                    .enumerate()
                    .map(|(k, n)| {
                        Series::line(*n, (0..bins).map(|b| (t(b), c.mbps[k][b])).collect())
                    })
                    .collect(),
                y_range: Some((0.0, p.path.capacity_bytes_per_s / 1e6 * 1.05)),
                ..Default::default()
            },
            &ctx.path(&file),
        )?;
    }
    render_svg(
        &LinePlot {
            title: "The plain-TCP sample flow under each configuration".into(),
            x_label: "time (s)".into(),
            y_label: "sample throughput (MB/s)".into(),
            series: all
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let pts = (0..bins).map(|b| (t(b), c.mbps[2][b])).collect();
                    if i == 0 {
                        Series::line(c.label.clone(), pts)
                    } else {
                        Series::dashed(c.label.clone(), pts)
                    }
                })
                .collect(),
            y_range: Some((0.0, p.path.capacity_bytes_per_s / 1e6 * 1.05)),
            ..Default::default()
        },
        &ctx.path("fig6_sample.svg"),
    )?;
    Ok(())
}
