//! Paper 003, Section IV-A (S1 × D1) on real kernel TCP: drop-tail against RuN2C at the
//! bottleneck of the TUN router (`schedtcp router`), which learns each connection's ISN from
//! its SYN (footnote 3's edge router). Short-flow delay by size (Figs. 5/6) and long-flow
//! throughput by size (Fig. 7), with an A/A repeat of drop-tail as the noise margin.

use crate::check_param;
use crate::engine::md_table;
use crate::engine::run2c::{by_size, mean_delay, FlowRow, ShortRow, ThroughputRow, BIN_EDGES};
use crate::engine::saved::read_csv;
use crate::engine::verdict::{aa_margin, Interval, Rule, Verdict, Word, DIFFERENCE};
use crate::plot::{render_svg, LinePlot, Series};
use crate::Context;
use anyhow::{bail, Context as _};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Exp};
use serde::{Deserialize, Serialize};
use sim::queue::DisciplineSpec;
use sim::workload::{SizeDist, WorkloadConfig};
use testbed::workload::{Path as FlowPath, PlannedFlow};
use testbed::{BedConfig, Queue, RouterCounters, RouterQueue, Session};

pub const NAME: &str = "run2c-testbed";
pub const DESCRIPTION: &str =
    "Paper 003 Sec. IV-A (S1/D1) on real kernel TCP (root): DropTail vs RuN2C in the TUN router; short-flow delay, long-flow throughput";
pub const SCENARIO: &str = include_str!("../../scenarios/run2c-testbed.toml");

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    seed: u64,
    runs: usize,
    variants: Vec<String>,
    rate_bytes_per_s: u64,
    buffer_packets: usize,
    delay_ms: f64,
    load: f64,
    segment_bytes: u64,
    duration_s: f64,
    flow_timeout_s: f64,
    short_max_packets: u64,
    threshold_packets: u64,
    congestion_control: String,
    prefix: String,
}

/// TCP/IP header bytes of a full segment with timestamps (20 IP + 20 TCP + 12 options).
const HEADER_BYTES: u64 = 52;

/// D1 (Section IV): 80% exponential of mean 4 packets, 20% BP(13, 5000, 1.1), in packets —
/// the simulator's S1/D1 scenario's sizes, so that both experiments draw from one definition.
fn d1() -> anyhow::Result<SizeDist> {
    match sim::scenario::Scenario::speed_benchmark(1.0).workload {
        WorkloadConfig::Poisson { size, .. } => Ok(size),
        _ => bail!("the simulator's S1/D1 scenario has no Poisson workload"),
    }
}

/// Prefix of a variant whose bottleneck is the kernel's own queue (`kernel:droptail`,
/// `kernel:run2c:N`): the TUN router only delays and marks (edge mode), see
/// `testbed::BedConfig::kernel_core`.
const KERNEL: &str = "kernel:";

/// The variant's discipline and whether the kernel's queue is the core.
fn kernel_split(spec: &str) -> (&str, bool) {
    match spec.strip_prefix(KERNEL) {
        Some(s) => (s, true),
        None => (spec, false),
    }
}

/// Label of the `i`-th variant: the discipline's name, "A/A" for its second occurrence.
fn label(spec: &str, earlier_same: usize) -> anyhow::Result<&'static str> {
    let (spec, kernel) = kernel_split(spec);
    let d: DisciplineSpec = spec
        .parse()
        .map_err(|e| anyhow::anyhow!("invalid scenario parameter: {e}"))?;
    if kernel {
        return Ok(match (d, earlier_same) {
            (DisciplineSpec::DropTail, 0) => "Kernel DropTail",
            (DisciplineSpec::DropTail, 1) => "Kernel DropTail A/A",
            (DisciplineSpec::Run2c { .. }, 0) => "Kernel RuN2C",
            (DisciplineSpec::Run2c { .. }, 1) => "Kernel RuN2C A/A",
            (DisciplineSpec::Run, _) => {
                bail!("invalid scenario parameter: a kernel core has no RuN (droptail or run2c:N)")
            }
            _ => bail!(
                "invalid scenario parameter: a discipline may appear at most twice in variants"
            ),
        });
    }
    Ok(match (d, earlier_same) {
        (DisciplineSpec::DropTail, 0) => "DropTail",
        (DisciplineSpec::DropTail, 1) => "DropTail A/A",
        (DisciplineSpec::Run, 0) => "RuN",
        (DisciplineSpec::Run, 1) => "RuN A/A",
        (DisciplineSpec::Run2c { .. }, 0) => "RuN2C",
        (DisciplineSpec::Run2c { .. }, 1) => "RuN2C A/A",
        _ => bail!("invalid scenario parameter: a discipline may appear at most twice in variants"),
    })
}

/// Poisson arrivals of D1 flows (sizes in packets) during `duration_s` at `load` of the rate.
fn arrivals(p: &Params, seed: u64) -> anyhow::Result<Vec<(f64, u64)>> {
    let dist = d1()?;
    let wire = (p.segment_bytes + HEADER_BYTES) as f64;
    let lambda = p.load * p.rate_bytes_per_s as f64 / (dist.mean_ceil() * wire);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let gap = Exp::new(lambda).expect("positive rate (checked)");
    let mut t = 0.0;
    let mut out = Vec::new();
    loop {
        t += gap.sample(&mut rng);
        if t >= p.duration_s {
            return Ok(out);
        }
        out.push((t, dist.sample_units(&mut rng)));
    }
}

#[derive(Serialize, Deserialize)]
struct FlowCsv {
    run: usize,
    variant: String,
    size_packets: u64,
    start_s: f64,
    completion_s: Option<f64>,
}

#[derive(Serialize, Deserialize)]
struct RunRow {
    run: usize,
    variant: String,
    flows: usize,
    failed: usize,
    mean_delay_under_threshold_s: Option<f64>,
    max_delay_7_packets_s: Option<f64>,
    router_offered: u64,
    router_queue_drops: u64,
    /// Drops of packets within the first `threshold_packets` segments of their flow (unknown
    /// for a kernel core, which does not tell the classes' drops apart).
    router_drops_first: Option<u64>,
    loss_rate: f64,
}

struct RunOut {
    run: usize,
    variant: &'static str,
    flows: Vec<FlowRow>,
    starts: Vec<f64>,
    counters: RouterCounters,
    /// Kernel core: the drops `tc` counted at the bottleneck (the router's own are none).
    kernel_drops: Option<u64>,
}

/// Mean and standard error of `v`.
fn mean_se(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    (m, (var / n).sqrt())
}

fn fmt_range(v: &[f64], d: usize) -> String {
    let lo = v.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    if !lo.is_finite() {
        "—".into()
    } else if v.len() == 1 {
        format!("{lo:.d$}")
    } else {
        format!("{lo:.d$}–{hi:.d$}")
    }
}

/// The scenario's parameters, checked, and its variants' labels.
fn plan(ctx: &Context) -> anyhow::Result<(Params, Vec<&'static str>)> {
    let p: Params = ctx.params()?;
    check_param!(p.runs >= 1 && p.runs <= 100, "runs must be 1..=100");
    check_param!(!p.variants.is_empty(), "variants must not be empty");
    check_param!(
        p.load > 0.0 && p.load < 1.0,
        "load must be in (0, 1) (the router's queue is finite, but a load of 1 or more never drains)"
    );
    check_param!(
        p.duration_s > 0.0 && p.duration_s <= 3600.0,
        "duration_s must be in (0, 3600]"
    );
    check_param!(p.flow_timeout_s >= 1.0, "flow_timeout_s must be >= 1");
    check_param!(
        p.segment_bytes >= 500 && p.segment_bytes <= 9000,
        "segment_bytes must be 500..=9000"
    );
    check_param!(p.buffer_packets >= 1, "buffer_packets must be >= 1");
    check_param!(
        p.short_max_packets >= 8 && p.threshold_packets >= 1,
        "short_max_packets must be >= 8 and threshold_packets >= 1"
    );
    // The router splits drop-tail's drops at the paper's 20 packets (its accounting threshold).
    check_param!(
        p.threshold_packets == 20,
        "threshold_packets must be 20 (the router counts drops past 20 segments)"
    );
    for v in &p.variants {
        if let Ok(DisciplineSpec::Run2c { threshold_packets }) =
            kernel_split(v).0.parse::<DisciplineSpec>()
        {
            check_param!(
                u64::from(threshold_packets) == p.threshold_packets,
                "RuN2C variants must use threshold_packets"
            );
        }
    }
    let mut labels = Vec::new();
    for (i, v) in p.variants.iter().enumerate() {
        // The discipline without its threshold, "kernel:" kept: "run2c", "kernel:droptail".
        let kind = |s: &str| {
            s.split(':')
                .take_while(|part| part.parse::<u64>().is_err())
                .collect::<Vec<_>>()
                .join(":")
        };
        let earlier = p.variants[..i]
            .iter()
            .filter(|w| kind(w) == kind(v))
            .count();
        labels.push(label(v, earlier)?);
    }
    Ok((p, labels))
}

pub fn run(ctx: &Context) -> anyhow::Result<String> {
    let (p, labels) = plan(ctx)?;
    let base_seed = ctx.seed(p.seed);
    let bin = testbed::find_binary()?;
    let nv = p.variants.len();
    let plans: Vec<Vec<(f64, u64)>> = (0..p.runs)
        .map(|k| arrivals(&p, base_seed.wrapping_add(k as u64)))
        .collect::<anyhow::Result<_>>()?;
    let pb = ctx.progress((p.runs * nv) as u64, "runs x variants");
    let mut outs: Vec<RunOut> = Vec::new();
    let mut cc = String::from("unknown");
    for (k, plan) in plans.iter().enumerate() {
        let flows: Vec<PlannedFlow> = plan
            .iter()
            .enumerate()
            .map(|(id, &(at_s, n))| PlannedFlow {
                id,
                at_s,
                download: 0,
                upload: n * p.segment_bytes,
                path: FlowPath::Direct,
                label: n.to_string(),
                stop_at_s: None,
            })
            .collect();
        for j in 0..nv {
            let v = (j + k) % nv;
            pb.set_message(format!("run {} {}", k + 1, labels[v]));
            let mut cfg = BedConfig::new(p.rate_bytes_per_s, Queue::Pfifo(1000));
            cfg.prefix = p.prefix.clone();
            cfg.delay_ms = p.delay_ms;
            cfg.congestion_control = p.congestion_control.clone();
            let (discipline, kernel) = kernel_split(&p.variants[v]);
            cfg.router_queue = Some(RouterQueue {
                discipline: discipline.to_string(),
                buffer_packets: p.buffer_packets,
            });
            cfg.kernel_core = kernel;
            let mut session = Session::start(cfg, &bin)?;
            cc = session.bed().congestion_control();
            let outcome = session
                .run(None, &flows, 0.0, p.flow_timeout_s)
                .and_then(|r| {
                    // The kernel core's drops are `tc`'s (the TUN router queues nothing).
                    let kernel_drops = if kernel {
                        let (_, drops) = session.bed().uplink_counters().ok_or_else(|| {
                            anyhow::anyhow!("no tc counters on the kernel core's egress")
                        })?;
                        Some(drops)
                    } else {
                        None
                    };
                    Ok((r, session.stop_router()?, kernel_drops))
                });
            let (r, counters, kernel_drops) = match outcome {
                Ok((r, Some(c), k)) => {
                    session.finish(false)?;
                    (r, c, k)
                }
                other => {
                    let e = other
                        .err()
                        .unwrap_or_else(|| anyhow::anyhow!("the bed ran no router"));
                    // `conclude` returns the error with where the logs were kept.
                    return Err(session
                        .conclude(Err(e))
                        .err()
                        .unwrap_or_else(|| anyhow::anyhow!("the run failed")));
                }
            };
            let rows = r
                .results
                .iter()
                .zip(plan)
                .map(|(res, &(_, n))| FlowRow {
                    setting: "testbed",
                    discipline: labels[v],
                    size_packets: n,
                    delay_s: res.completion_s.filter(|_| res.error.is_none()),
                })
                .collect();
            outs.push(RunOut {
                run: k,
                variant: labels[v],
                flows: rows,
                starts: r.results.iter().map(|x| x.start_s).collect(),
                counters,
                kernel_drops,
            });
            pb.inc(1);
        }
    }
    pb.finish_and_clear();
    report(ctx, &p, &labels, &outs, &cc)
}

/// Analyses and renders again the runs an earlier run wrote to `dir` (`flows.csv`: every
/// flow; `runs.csv`: the router's counters per run and variant), without the testbed. The
/// senders' congestion control is the scenario's, which the bed sets on every run.
pub(crate) fn render_from(ctx: &Context, dir: &std::path::Path) -> anyhow::Result<String> {
    let (p, labels) = plan(ctx)?;
    let flows: Vec<FlowCsv> = read_csv(dir, "flows.csv")?;
    let runs: Vec<RunRow> = read_csv(dir, "runs.csv")?;
    let mut outs = Vec::new();
    for r in &runs {
        let variant = labels
            .iter()
            .copied()
            .find(|l| *l == r.variant)
            .with_context(|| format!("runs.csv: variant `{}` is not the scenario's", r.variant))?;
        let mine: Vec<&FlowCsv> = flows
            .iter()
            .filter(|f| f.run == r.run && f.variant == r.variant)
            .collect();
        // The kernel core's drops are `tc`'s, which do not tell the classes apart.
        let kernel = r.router_drops_first.is_none();
        outs.push(RunOut {
            run: r.run,
            variant,
            flows: mine
                .iter()
                .map(|f| FlowRow {
                    setting: "testbed",
                    discipline: variant,
                    size_packets: f.size_packets,
                    delay_s: f.completion_s,
                })
                .collect(),
            starts: mine.iter().map(|f| f.start_s).collect(),
            counters: RouterCounters {
                offered: r.router_offered,
                queue_drops: if kernel { 0 } else { r.router_queue_drops },
                drops_first: r.router_drops_first.unwrap_or(0),
                ..Default::default()
            },
            kernel_drops: kernel.then_some(r.router_queue_drops),
        });
    }
    report(ctx, &p, &labels, &outs, &p.congestion_control)
}

/// Per-size delays of the short flows, per variant: the rows and the two plots' series (mean,
/// maximum).
struct ShortDelays {
    rows: Vec<ShortRow>,
    mean: Vec<Series>,
    max: Vec<Series>,
}

/// One size bin of long flows, DropTail against RuN2C (kbit/s).
struct LongBin {
    lo: u64,
    hi: u64,
    flows_droptail: usize,
    flows_run2c: usize,
    droptail: f64,
    run2c: f64,
    /// RuN2C − DropTail mean throughput (kbit/s), its 95% interval over the flows.
    diff: Verdict,
    /// DropTail A/A's mean, with at least two flows.
    aa: Option<f64>,
}

/// The paper's three statements, measured.
struct BesidePaper {
    /// DropTail / RuN2C mean delay under the threshold, per run.
    gain: Vec<f64>,
    /// DropTail / DropTail A/A, per run.
    aa: Vec<f64>,
    /// Maximum delay of 7-packet flows, all runs pooled: DropTail, RuN2C.
    max7: (Option<f64>, Option<f64>),
    long: Vec<LongBin>,
    /// The mean-delay gain against the paper's tenfold, then against the A/A noise.
    gain_verdicts: Option<(Verdict, Verdict)>,
}

impl BesidePaper {
    /// Every verdict, in the order of the summary (`verdicts.json`).
    fn verdicts(&self) -> Vec<Verdict> {
        let mut v = Vec::new();
        if let Some((tenfold, noise)) = &self.gain_verdicts {
            v.push(tenfold.clone());
            v.push(noise.clone());
        }
        v.extend(self.long.iter().map(|l| l.diff.clone()));
        v
    }
}

/// What the runs show.
struct Analysis {
    flows: Vec<FlowCsv>,
    runs: Vec<RunRow>,
    short: ShortDelays,
    throughput: Vec<ThroughputRow>,
    throughput_series: Vec<Series>,
    beside: BesidePaper,
}

fn report(
    ctx: &Context,
    p: &Params,
    labels: &[&'static str],
    outs: &[RunOut],
    cc: &str,
) -> anyhow::Result<String> {
    let a = analyse(p, labels, outs);
    let (kernel, kernel_verdicts) = kernel_section(p, labels, outs, &a.beside.aa);
    let mut verdicts = a.beside.verdicts();
    verdicts.extend(kernel_verdicts);
    write_files(ctx, &a, &verdicts)?;
    Ok(render(p, labels, outs, &a, &kernel, cc))
}

fn analyse(p: &Params, labels: &[&'static str], outs: &[RunOut]) -> Analysis {
    let (flows, runs) = flow_and_run_rows(p, outs);
    let (throughput, throughput_series) = throughput_by_size(p, labels, outs);
    Analysis {
        flows,
        runs,
        short: short_delays(p, labels, outs),
        throughput,
        throughput_series,
        beside: beside_paper(p, outs),
    }
}

/// Every flow, and per run and variant its delays and the router's counters.
fn flow_and_run_rows(p: &Params, outs: &[RunOut]) -> (Vec<FlowCsv>, Vec<RunRow>) {
    let th = p.threshold_packets;
    let mut flow_rows = Vec::new();
    let mut run_rows = Vec::new();
    for o in outs {
        for (f, s) in o.flows.iter().zip(&o.starts) {
            flow_rows.push(FlowCsv {
                run: o.run,
                variant: o.variant.to_string(),
                size_packets: f.size_packets,
                start_s: *s,
                completion_s: f.delay_s,
            });
        }
        let fl: Vec<&FlowRow> = o.flows.iter().collect();
        run_rows.push(RunRow {
            run: o.run,
            variant: o.variant.to_string(),
            flows: fl.len(),
            failed: fl.iter().filter(|f| f.delay_s.is_none()).count(),
            mean_delay_under_threshold_s: mean_delay(&fl, 1, th - 1),
            max_delay_7_packets_s: by_size(&fl, 7).map(|x| x.1),
            router_offered: o.counters.offered,
            router_queue_drops: o.kernel_drops.unwrap_or(o.counters.queue_drops),
            router_drops_first: o.kernel_drops.is_none().then_some(o.counters.drops_first),
            loss_rate: o.kernel_drops.unwrap_or(o.counters.queue_drops) as f64
                / o.counters.offered.max(1) as f64,
        });
    }
    (flow_rows, run_rows)
}

/// Mean and maximum delay per size of flows of 1..=`short_max_packets` packets, all runs.
fn short_delays(p: &Params, labels: &[&'static str], outs: &[RunOut]) -> ShortDelays {
    let mut rows = Vec::new();
    let (mut mean, mut max) = (Vec::new(), Vec::new());
    for &v in labels {
        let fl = pooled_flows(outs, v);
        let (mut mp, mut xp) = (Vec::new(), Vec::new());
        for n in 1..=p.short_max_packets {
            if let Some((m, x, c)) = by_size(&fl, n) {
                rows.push(ShortRow {
                    setting: "testbed",
                    discipline: v,
                    size_packets: n,
                    flows: c,
                    mean_delay_s: m,
                    max_delay_s: x,
                });
                mp.push((n as f64, m * 1e3));
                xp.push((n as f64, x * 1e3));
            }
        }
        mean.push(Series::line(v, mp));
        max.push(Series::line(v, xp));
    }
    ShortDelays { rows, mean, max }
}

/// Mean throughput (and its standard deviation) per size bin, all runs.
fn throughput_by_size(
    p: &Params,
    labels: &[&'static str],
    outs: &[RunOut],
) -> (Vec<ThroughputRow>, Vec<Series>) {
    let mut tput_rows = Vec::new();
    let mut tput_series = Vec::new();
    for &v in labels {
        let fl = pooled_flows(outs, v);
        let mut pts = Vec::new();
        for w in BIN_EDGES.windows(2) {
            let t: Vec<f64> = fl
                .iter()
                .filter(|f| (w[0]..w[1]).contains(&f.size_packets))
                .filter_map(|f| f.kbps(p.segment_bytes))
                .collect();
            if t.is_empty() {
                continue;
            }
            let m = t.iter().sum::<f64>() / t.len() as f64;
            let sd = (t.iter().map(|x| (x - m).powi(2)).sum::<f64>() / t.len() as f64).sqrt();
            tput_rows.push(ThroughputRow {
                setting: "testbed",
                discipline: v,
                bin_lo_packets: w[0],
                bin_hi_packets: w[1] - 1,
                flows: t.len(),
                mean_kbps: m,
                sd_kbps: sd,
            });
            pts.push((((w[0] * (w[1] - 1)) as f64).sqrt(), m));
        }
        tput_series.push(Series::line(v, pts));
    }
    (tput_rows, tput_series)
}

/// The paper's statements (Figs. 5–7) measured on our runs.
fn beside_paper(p: &Params, outs: &[RunOut]) -> BesidePaper {
    let ratio = |a: &str, b: &str| delay_ratio(p, outs, a, b);
    let gain = ratio("DropTail", "RuN2C");
    let aa = ratio("DropTail", "DropTail A/A");
    let max7 = |v: &str| by_size(&pooled_flows(outs, v), 7).map(|x| x.1);
    let mut long = Vec::new();
    for w in BIN_EDGES.windows(2).filter(|w| w[0] >= 100) {
        let t = |v: &str| -> Vec<f64> {
            pooled_flows(outs, v)
                .iter()
                .filter(|f| (w[0]..w[1]).contains(&f.size_packets))
                .filter_map(|f| f.kbps(p.segment_bytes))
                .collect()
        };
        let (a, b) = (t("DropTail"), t("RuN2C"));
        if a.len() < 2 || b.len() < 2 {
            continue;
        }
        let ((ma, sa), (mb, sb)) = (mean_se(&a), mean_se(&b));
        // Hundreds of flows a bin: the normal quantile.
        let diff = Verdict::new(
            format!(
                "RuN2C − DropTail mean throughput of flows of {}–{} packets (kbit/s)",
                w[0],
                w[1] - 1
            ),
            Some("the same or better (Fig. 7)"),
            Interval::new(
                mb - ma,
                crate::engine::t95(usize::MAX) * (sa * sa + sb * sb).sqrt(),
            ),
            DIFFERENCE,
        );
        let c = t("DropTail A/A");
        long.push(LongBin {
            lo: w[0],
            hi: w[1] - 1,
            flows_droptail: a.len(),
            flows_run2c: b.len(),
            droptail: ma,
            run2c: mb,
            diff,
            aa: (c.len() >= 2).then(|| mean_se(&c).0),
        });
    }
    let gain_verdicts = (!gain.is_empty()).then(|| {
        let claim = format!(
            "DropTail / RuN2C mean delay of flows of 1–{} packets, per run",
            p.threshold_packets - 1
        );
        let ours = Interval::of(&gain);
        (
            Verdict::new(
                claim.clone(),
                Some("more than tenfold (Fig. 5)"),
                ours,
                Rule::AtLeast {
                    min: 10.0,
                    margin: 0.0,
                },
            ),
            Verdict::new(
                format!("{claim}, against the DropTail A/A ratio"),
                None,
                ours,
                Rule::Against {
                    reference: 1.0,
                    margin: aa_margin(Interval::of(&aa), 1.0),
                },
            ),
        )
    });
    BesidePaper {
        gain,
        aa,
        gain_verdicts,
        max7: (max7("DropTail"), max7("RuN2C")),
        long,
    }
}

/// `flows.csv`, `runs.csv`, `short_delay.csv`, `throughput.csv` and the three plots.
fn write_files(ctx: &Context, a: &Analysis, verdicts: &[Verdict]) -> anyhow::Result<()> {
    ctx.write_csv("flows.csv", &a.flows)?;
    ctx.write_csv("runs.csv", &a.runs)?;
    ctx.write_json("verdicts.json", &verdicts)?;
    ctx.write_csv("short_delay.csv", &a.short.rows)?;
    for (title, series, file) in [
        ("Mean delay of short flows", &a.short.mean, "mean_delay.svg"),
        (
            "Maximum delay of short flows",
            &a.short.max,
            "max_delay.svg",
        ),
    ] {
        render_svg(
            &LinePlot {
                title: format!("{title} — testbed, S1/D1, TUN router"),
                x_label: "flow size (packets)".into(),
                y_label: "completion time (ms)".into(),
                log_y: true,
                series: series.clone(),
                ..Default::default()
            },
            &ctx.path(file),
        )?;
    }
    ctx.write_csv("throughput.csv", &a.throughput)?;
    render_svg(
        &LinePlot {
            title: "Mean throughput by flow size — testbed, S1/D1, TUN router".into(),
            x_label: "flow size (packets, bin geometric middle)".into(),
            y_label: "throughput (kbit/s)".into(),
            log_x: true,
            series: a.throughput_series.clone(),
            ..Default::default()
        },
        &ctx.path("throughput.svg"),
    )
}

/// Per variant, the range over runs of its counts, delays and losses.
fn per_variant_table(th: u64, labels: &[&'static str], run_rows: &[RunRow]) -> String {
    let mut rows = Vec::new();
    for &v in labels {
        let rr: Vec<&RunRow> = run_rows.iter().filter(|r| r.variant == v).collect();
        let col = |f: &dyn Fn(&RunRow) -> Option<f64>| -> Vec<f64> {
            rr.iter().filter_map(|r| f(r)).collect()
        };
        rows.push(vec![
            v.to_string(),
            fmt_range(&col(&|r| Some(r.flows as f64)), 0),
            fmt_range(&col(&|r| Some(r.failed as f64)), 0),
            fmt_range(&col(&|r| r.mean_delay_under_threshold_s), 3),
            fmt_range(&col(&|r| r.max_delay_7_packets_s), 3),
            format!("{}%", fmt_range(&col(&|r| Some(100.0 * r.loss_rate)), 2)),
            format!(
                "{}%",
                fmt_range(
                    &col(&|r| {
                        let first = r.router_drops_first?;
                        (r.router_queue_drops > 0)
                            .then(|| 100.0 * (1.0 - first as f64 / r.router_queue_drops as f64))
                    }),
                    1
                )
            ),
        ]);
    }
    md_table(
        &[
            "variant",
            "flows",
            "failed",
            &format!("mean delay < {th} pkts (s)"),
            "max delay 7-pkt flows (s)",
            "router loss rate",
            &format!("drops past {th} pkts of their flow"),
        ],
        &rows,
    )
}

/// The paper's three statements beside ours, as a table.
fn paper_table(th: u64, b: &BesidePaper) -> String {
    let gain_verdict = match &b.gain_verdicts {
        None => "not measured (needs DropTail and RuN2C)".to_string(),
        Some((tenfold, noise)) => {
            let beyond = if b.aa.is_empty() {
                "no A/A run to compare with".to_string()
            } else {
                format!(
                    "against the A/A ratio's reach (±{:.2}): {}",
                    aa_margin(Interval::of(&b.aa), 1.0),
                    noise
                        .word
                        .says("longer under RuN2C", "a cut beyond the noise")
                )
            };
            let paper = match tenfold.word {
                Word::Met => "above the paper's 10×: agrees",
                Word::NotMet => "below the paper's 10×: does not reach it",
                _ => "the interval reaches 10×: undecided",
            };
            format!(
                "DropTail / RuN2C mean delay of flows of 1–{} packets: {}× per run, {:.2} ± {:.2} (95%); {}; {}",
                th - 1,
                fmt_range(&b.gain, 1),
                tenfold.ours.mean,
                tenfold.ours.half,
                beyond,
                paper
            )
        }
    };
    let fmt_opt = |x: Option<f64>| x.map_or("—".into(), |x| format!("{x:.3} s"));
    let seven = format!(
        "maximum delay of 7-packet flows, all runs pooled: DropTail {}, RuN2C {}",
        fmt_opt(b.max7.0),
        fmt_opt(b.max7.1)
    );
    let long_parts: Vec<String> = b
        .long
        .iter()
        .map(|l| {
            let aa_part = l
                .aa
                .map_or(String::new(), |m| format!("; A/A DropTail {m:.0}"));
            format!(
                "[{}, {}] pkts ({} / {} flows): DropTail {:.0}, RuN2C {:.0} kbit/s ({}, 95% ±{:.0}){aa_part}",
                l.lo,
                l.hi,
                l.flows_droptail,
                l.flows_run2c,
                l.droptail,
                l.run2c,
                l.diff.word.says("lower", "higher"),
                l.diff.ours.half
            )
        })
        .collect();
    let long = if long_parts.is_empty() {
        "too few long flows to compare".to_string()
    } else {
        long_parts.join("; ")
    };
    md_table(
        &["paper 003 says (ns-2, S1/D1)", "ours (real TCP through the TUN router)"],
        &[
            vec![
                "Mean delay reduced \"by more than a ten fold for all flows under the threshold of 20 packets\" (Fig. 5)".into(),
                gain_verdict,
            ],
            vec![
                "7-packet flows: maximum delay about 100 ms under RuN2C, 200 s under DropTail (Fig. 6)".into(),
                seven,
            ],
            vec![
                "\"all flows have the same or better throughput under the RuN and RuN2C schemes compared to DropTail\" (Fig. 7)".into(),
                long,
            ],
        ],
    )
}

/// The summary.
fn render(
    p: &Params,
    labels: &[&'static str],
    outs: &[RunOut],
    a: &Analysis,
    kernel: &str,
    cc: &str,
) -> String {
    let th = p.threshold_packets;
    let per_variant = per_variant_table(th, labels, &a.runs);
    let paper = paper_table(th, &a.beside);
    let pps = p.rate_bytes_per_s as f64 / (p.segment_bytes + HEADER_BYTES) as f64;
    let flows_per_run = outs.first().map_or(0, |o| o.flows.len());
    format!(
        "# {NAME}: DropTail against RuN2C on real kernel TCP (paper 003, Section IV-A, S1/D1)\n\n\
Testbed: three network namespaces; the data direction (origin → destination) goes through the TUN \
router `schedtcp router` in the router namespace: rate {rate:.3} MB/s of IP bytes ({mbit:.0} Mbit/s, \
{pps:.0} full packets/s), a {buf}-packet buffer under the variant's discipline, {delay} ms one-way \
delay (S1's 6 ms; the ACK direction is not delayed). The router learns each connection's ISN from its \
SYN and gives RuN2C's first class to the first {th} × {seg} bytes of every connection (threshold 20 \
packets). Senders: the kernel's TCP (`{cc}`; otherwise Linux defaults: SACK, initial window 10, minimum RTO \
200 ms, no window cap). Workload D1: Poisson arrivals for {dur} s at load {load} of the rate, 80% of \
flows exponential mean 4 packets, 20% BP(13, 5000, 1.1), sizes in {seg}-byte segments; each flow is \
an upload on its own connection (connect, data, the receiver's 32-byte digest), its delay the \
application's completion time. {runs} run(s) (seeds), {flows_per_run} flows in the first; each \
seed's flows under every variant in rotating order. `DropTail A/A` repeats drop-tail on the same \
flows: how much two runs of one discipline differ.\n\n\
The paper's S1 needs {pps:.0} packets/s; `schedtcp router speed` prints the router's packet-rate \
limit on this machine (see the router crate's documentation for the value measured); nothing is \
scaled.\n\n\
## Per variant (range over runs)\n\n{per_variant}\n\
## Beside the paper\n\n{paper}\n{kernel}\
![mean delay](mean_delay.svg)\n![max delay](max_delay.svg)\n![throughput](throughput.svg)\n\n\
## Why ours may differ\n\n\
The paper's senders are ns-2 agents: initial window 1, maximum window 30, no SACK, minimum RTO \
1 s with back-off to 64 s, no connection set-up. Linux starts with 10 segments (a 4-packet flow is \
one burst), recovers most losses with SACK and fast retransmit, and backs off from 200 ms, so a drop \
costs a short flow far less under DropTail and the room RuN2C has to win is smaller; our delays also \
include the handshake and the digest's round trip. The load (0.8) is our assumption, as in \
`run2c-sim`. Every verdict word above comes from the lab's one rule (`engine::verdict::judge`): a \
per-run ratio's 95% interval over the runs against the paper's 10× or against the reach of the \
DropTail A/A ratio's interval, a throughput difference's 95% interval over the flows against 0.\n\n\
Files: `flows.csv` (every flow), `runs.csv` (per run and variant, with the router's counters), \
`short_delay.csv`, `throughput.csv`, `verdicts.json`.\n",
        rate = p.rate_bytes_per_s as f64 / 1e6,
        mbit = p.rate_bytes_per_s as f64 * 8.0 / 1e6,
        buf = p.buffer_packets,
        delay = p.delay_ms,
        seg = p.segment_bytes,
        dur = p.duration_s,
        load = p.load,
        runs = p.runs,
    )
}

/// Every flow of variant `v`, all runs.
fn pooled_flows<'a>(outs: &'a [RunOut], v: &str) -> Vec<&'a FlowRow> {
    outs.iter()
        .filter(|o| o.variant == v)
        .flat_map(|o| o.flows.iter())
        .collect()
}

/// Per run, variant `a`'s mean delay of flows under the threshold over variant `b`'s.
fn delay_ratio(p: &Params, outs: &[RunOut], a: &str, b: &str) -> Vec<f64> {
    let th = p.threshold_packets;
    let of = |v: &str, k: usize| outs.iter().find(|o| o.variant == v && o.run == k);
    (0..p.runs)
        .filter_map(|k| {
            let fa: Vec<&FlowRow> = of(a, k)?.flows.iter().collect();
            let fb: Vec<&FlowRow> = of(b, k)?.flows.iter().collect();
            Some(mean_delay(&fa, 1, th - 1)? / mean_delay(&fb, 1, th - 1)?)
        })
        .collect()
}

/// The section on the kernel-core variants: RuN2C with the edge router marking and the
/// kernel's `pfifo_fast` serving the classes, against drop-tail (the kernel's and the TUN
/// router's) and against the TUN router's own RuN2C (push-out), per run and pooled.
/// The kernel core's section, and its cuts judged against the A/A ratio's reach (`aa`: the
/// per-run DropTail / DropTail A/A ratios).
fn kernel_section(
    p: &Params,
    labels: &[&'static str],
    outs: &[RunOut],
    aa: &[f64],
) -> (String, Vec<Verdict>) {
    let pooled = |v: &str| pooled_flows(outs, v);
    let ratio = |a: &str, b: &str| delay_ratio(p, outs, a, b);
    if !labels.contains(&"Kernel RuN2C") {
        return (String::new(), Vec::new());
    }
    let margin = aa_margin(Interval::of(aa), 1.0);
    let verdicts = std::cell::RefCell::new(Vec::new());
    let th = p.threshold_packets;
    // Pooled mean delay of flows under the threshold, ± 2 standard errors over flows.
    let short = |v: &str| -> String {
        let d: Vec<f64> = pooled(v)
            .iter()
            .filter(|f| (1..th).contains(&f.size_packets))
            .filter_map(|f| f.delay_s)
            .collect();
        if d.len() < 2 {
            return "—".into();
        }
        let (m, se) = mean_se(&d);
        format!("{:.1} ± {:.1}", m * 1e3, 2.0 * se * 1e3)
    };
    let long = |v: &str| -> String {
        let t: Vec<f64> = pooled(v)
            .iter()
            .filter(|f| f.size_packets >= 100)
            .filter_map(|f| f.kbps(p.segment_bytes))
            .collect();
        if t.len() < 2 {
            return "—".into();
        }
        let (m, se) = mean_se(&t);
        format!("{m:.0} ± {:.0} ({} flows)", 2.0 * se, t.len())
    };
    let rows: Vec<Vec<String>> = labels
        .iter()
        .map(|v| vec![v.to_string(), short(v), long(v)])
        .collect();
    let table = md_table(
        &[
            "variant",
            &format!(
                "mean delay of flows of 1–{} packets, all runs (ms, ± 2 SE)",
                th - 1
            ),
            "throughput of flows of 100+ packets (kbit/s, ± 2 SE)",
        ],
        &rows,
    );
    let cut = |a: &str, b: &str| -> String {
        let r = ratio(a, b);
        if r.is_empty() {
            return "not measured".into();
        }
        let v = Verdict::new(
            format!(
                "{a} / {b} mean delay of flows of 1–{} packets, per run",
                th - 1
            ),
            None,
            Interval::of(&r),
            Rule::Against {
                reference: 1.0,
                margin,
            },
        );
        let text = format!(
            "{}× per run, {:.2} ± {:.2} (95%; against the A/A ratio's reach ±{margin:.2}: {})",
            fmt_range(&r, 2),
            v.ours.mean,
            v.ours.half,
            v.word
                .says("longer under the second", "a cut beyond the noise")
        );
        verdicts.borrow_mut().push(v);
        text
    };
    let cost = ratio("Kernel RuN2C", "RuN2C");
    let text = format!(
        "## RuN2C on a stock core: the kernel's queue, marked at the edge\n\n\
`Kernel RuN2C`: the TUN router in the router namespace is only the edge of footnote 3: it adds the \
delay, reads each packet's running number (ISN learnt from the SYN) and writes the class into the \
DSCP (first {th} packets: DSCP 4, TOS 0x10; the rest: 0), forwarding with no rate and no queue of \
its own. The bottleneck is the kernel's: `tbf` at the same rate over `pfifo_fast`, the qdisc \
Linux attaches by default, which puts TOS 0x10 in its first band and serves that band first; \
each band holds {buf} packets (the device's `txqueuelen`). `Kernel DropTail`: the same path \
with a {buf}-packet `pfifo` under `tbf` and no marking. Same flows as the other rows.\n\n{table}\n\
- Short-flow delay cut on the kernel core, Kernel DropTail / Kernel RuN2C (flows of 1–{thm} \
packets): {k}\n\
- The same against the TUN router's drop-tail, DropTail / Kernel RuN2C: {kd}\n\
- The TUN router's own RuN2C for comparison, DropTail / RuN2C: {u}\n\
- What the kernel's queue costs against the paper's push-out discipline (the TUN router's \
RuN2C), Kernel RuN2C / RuN2C mean delay of the same short flows: {c}× per run. The kernel's \
queue differs in three ways: its two bands are separate buffers ({buf} packets each, where \
push-out shares {buf} between the classes and evicts the second class's tail to admit a \
first-class packet), it shapes with a token bucket (bursts of up to the `tbf` burst leave at \
line rate) instead of the TUN router's exact transmitter, and a packet crosses the kernel's \
forwarding path twice (TUN device, then `r1`).\n\n",
        thm = th - 1,
        buf = p.buffer_packets,
        k = cut("Kernel DropTail", "Kernel RuN2C"),
        kd = cut("DropTail", "Kernel RuN2C"),
        u = cut("DropTail", "RuN2C"),
        c = if cost.is_empty() {
            "not measured".to_string()
        } else {
            fmt_range(&cost, 2)
        },
    );
    (text, verdicts.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> Params {
        let mut p: Params =
            crate::scenario::parse(SCENARIO, NAME, false).expect("the embedded scenario parses");
        p.duration_s = 2000.0;
        p
    }

    /// The plan offers the configured load: wire bytes over the duration ≈ load × rate (the
    /// bounded Pareto's heavy tail makes the sample mean noisy: 10% over 2000 s of flows).
    #[test]
    fn arrivals_offer_the_configured_load() {
        let p = params();
        let a = arrivals(&p, 7).unwrap();
        assert!(a.windows(2).all(|w| w[0].0 <= w[1].0));
        assert!(a
            .iter()
            .all(|&(t, n)| t < p.duration_s && (1..=5000).contains(&n)));
        let wire: u64 = a
            .iter()
            .map(|&(_, n)| n * (p.segment_bytes + HEADER_BYTES))
            .sum();
        let load = wire as f64 / p.duration_s / p.rate_bytes_per_s as f64;
        assert!((load - p.load).abs() < 0.1 * p.load, "offered load {load}");
        let short = a.iter().filter(|&&(_, n)| n < 13).count() as f64 / a.len() as f64;
        assert!(
            (0.75..0.85).contains(&short),
            "share of flows under 13 packets {short}"
        );
        assert_eq!(arrivals(&p, 7).unwrap(), a, "a seed gives one plan");
    }

    #[test]
    fn variants_are_labelled_and_checked() {
        assert_eq!(label("droptail", 0).unwrap(), "DropTail");
        assert_eq!(label("droptail", 1).unwrap(), "DropTail A/A");
        assert_eq!(label("run2c:20", 0).unwrap(), "RuN2C");
        assert!(label("droptail", 2).is_err());
        assert_eq!(label("kernel:run2c:20", 0).unwrap(), "Kernel RuN2C");
        assert_eq!(label("kernel:droptail", 1).unwrap(), "Kernel DropTail A/A");
        assert!(label("kernel:run", 0).is_err());
        assert_eq!(kernel_split("kernel:run2c:20"), ("run2c:20", true));
        assert!(label("fifo", 0).is_err());
    }
}
