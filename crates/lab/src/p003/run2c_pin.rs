//! Paper 003, Section III in use: senders pick PIN initial sequence numbers, and the
//! bottleneck's RuN2C classifies each packet by a mask on its sequence number alone (a
//! stateless core), beside the stateful classifier (the flow's byte offset, as an edge router
//! that learnt the ISN) on the same flows of S1/D1. While no flow runs over into its next PIN
//! block the two are the same run; the rate of overflows is measured against Section III-A's
//! worst case (3.6 × 10⁻⁴ for th = 12 kB, L = 8) and against `models::pin`'s estimate for D1.

use crate::check_param;
use crate::engine::md_table;
use crate::engine::run2c::model_sizes;
use crate::engine::saved::read_csv;
use crate::Context;
use queues::PinScheme;
use serde::{Deserialize, Serialize};
use sim::queue::{DisciplineSpec, QueueConfig, QueueName};
use sim::scenario::{RecordConfig, Scenario};
use sim::stats::Report;
use sim::tcp::{pin_isn, Pin, PinBits};
use sim::workload::{SizeUnit, WorkloadConfig};
use std::collections::HashMap;
use std::sync::Mutex;

pub const NAME: &str = "run2c-pin";
pub const DESCRIPTION: &str =
    "Paper 003 Sec. III: PIN initial sequence numbers and a stateless RuN2C core beside the stateful one; PIN overflow rate vs Sec. III-A";
pub const SCENARIO: &str = include_str!("../../scenarios/run2c-pin.toml");

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    seed: u64,
    runs: usize,
    duration_s: f64,
    drain_s: f64,
    load: f64,
    buffer_packets: usize,
    initial_window: u32,
    min_rto_ms: f64,
    max_rto_ms: f64,
    /// The divisions of the sequence number space compared (each: R, L, TH, low random bits).
    schemes: Vec<PinBits>,
    threads: usize,
}

/// (scheme index, seed index, stateless core).
type RunKey = (usize, usize, bool);

/// One run of one scheme: the stateful and the stateless core on the same flows.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct RunRow {
    scheme: String,
    run: usize,
    flows: usize,
    data_packets: u64,
    /// Connections whose bytes crossed at least one PIN block boundary.
    overflowed_flows: usize,
    /// Block boundaries crossed, summed over connections.
    overflows: u64,
    /// Data segments of overflowed blocks that the mask puts in the first class.
    promoted_packets: u64,
    /// Overflows per data packet sent (stateless run).
    overflow_rate: f64,
    retransmits_stateful: u64,
    retransmits_stateless: u64,
    /// Retransmissions of the connections that overflowed, under each core.
    retransmits_overflowed_stateful: u64,
    retransmits_overflowed_stateless: u64,
    /// Extra retransmissions of the overflowed connections per data packet of the run.
    extra_loss_rate: f64,
    /// Flows whose completion time differs between the two cores.
    flows_differing: usize,
    identical: bool,
    mean_delay_first_class_stateful_s: Option<f64>,
    mean_delay_first_class_stateless_s: Option<f64>,
}

/// Overflows and promoted segments of a connection of `written` bytes with ISN `isn`.
fn overflow_of(scheme: &PinScheme, isn: u32, written: u64, mss: u64) -> (u64, u64) {
    if written == 0 {
        return (0, 0);
    }
    let block = scheme.overflow_bytes();
    let start = scheme.running_number(isn);
    let crossings = (start + written - 1) / block;
    if crossings == 0 {
        return (0, 0);
    }
    let promoted = (0..written.div_ceil(mss))
        .map(|j| start + j * mss)
        .filter(|&pos| pos >= block && pos % block < scheme.threshold_bytes())
        .count() as u64;
    (crossings, promoted)
}

fn scenario(p: &Params, run: usize, scheme: PinScheme, stateless: bool) -> Scenario {
    let mut sc = Scenario::speed_benchmark(p.duration_s);
    sc.seed = p.seed.wrapping_add(run as u64);
    sc.drain_s = p.drain_s;
    sc.tcp.initial_window = p.initial_window;
    sc.tcp.min_rto_ms = p.min_rto_ms;
    sc.tcp.max_rto_ms = p.max_rto_ms;
    sc.tcp.pin_isn = Some(Pin(scheme));
    let mss = sc.tcp.mss;
    sc.topology.bottleneck_queue = if stateless {
        QueueConfig::Run2cPin {
            limit: p.buffer_packets,
            pin: Pin(scheme),
        }
    } else {
        // The first ⌈2^TH / MSS⌉ full segments: the same packets as the mask's first class
        // when the ISNs have no random low bits.
        QueueConfig::Discipline {
            queue: QueueName(DisciplineSpec::Run2c {
                threshold_packets: scheme.threshold_bytes().div_ceil(u64::from(mss)) as u32,
            }),
            limit: p.buffer_packets,
            segment_bytes: mss,
        }
    };
    if let WorkloadConfig::Poisson { load, .. } = &mut sc.workload {
        *load = Some(p.load);
    }
    sc.record = RecordConfig {
        injections: false,
        active_sample_period_s: None,
    };
    sc
}

fn label(s: &PinScheme) -> String {
    let (r, l, th, low) = s.bits();
    format!("R={r} L={l} TH={th} low={low}")
}

fn mean_first_class(r: &Report, th_bytes: u64) -> Option<f64> {
    let d: Vec<f64> = r
        .flows
        .iter()
        .filter(|f| f.size <= th_bytes)
        .filter_map(|f| f.completion().map(sim::time::as_secs))
        .collect();
    (!d.is_empty()).then(|| d.iter().sum::<f64>() / d.len() as f64)
}

fn compare(scheme: &PinScheme, run: usize, mss: u64, a: &Report, b: &Report) -> RunRow {
    let (mut overflows, mut promoted, mut overflowed) = (0, 0, 0);
    let mut over_serials = std::collections::HashSet::new();
    for c in &b.conns {
        let (o, pr) = overflow_of(scheme, pin_isn(Some(*scheme), c.conn), c.written, mss);
        overflows += o;
        promoted += pr;
        if o > 0 {
            overflowed += 1;
            over_serials.insert(c.conn);
        }
    }
    // A connection's serial is its flow's arrival order: the same in both runs.
    let retx_over = |r: &Report| {
        r.conns
            .iter()
            .filter(|c| over_serials.contains(&c.conn))
            .map(|c| c.retransmits)
            .sum::<u64>()
    };
    let (oa, ob) = (retx_over(a), retx_over(b));
    let packets: u64 = b.conns.iter().map(|c| c.injected_packets).sum();
    let retx = |r: &Report| r.conns.iter().map(|c| c.retransmits).sum::<u64>();
    let done: HashMap<u64, Option<u64>> = a.flows.iter().map(|f| (f.id, f.finished)).collect();
    let differing = b
        .flows
        .iter()
        .filter(|f| done.get(&f.id) != Some(&f.finished))
        .count();
    let (ra, rb) = (retx(a), retx(b));
    let th = scheme.threshold_bytes();
    RunRow {
        scheme: label(scheme),
        run,
        flows: b.flows.len(),
        data_packets: packets,
        overflowed_flows: overflowed,
        overflows,
        promoted_packets: promoted,
        overflow_rate: overflows as f64 / packets.max(1) as f64,
        retransmits_stateful: ra,
        retransmits_stateless: rb,
        retransmits_overflowed_stateful: oa,
        retransmits_overflowed_stateless: ob,
        extra_loss_rate: (ob as f64 - oa as f64) / packets.max(1) as f64,
        flows_differing: differing,
        identical: a.fingerprint() == b.fingerprint(),
        mean_delay_first_class_stateful_s: mean_first_class(a, th),
        mean_delay_first_class_stateless_s: mean_first_class(b, th),
    }
}

/// What the scenario asks for: its parameters (seed resolved), the schemes, and the segment
/// size and flow sizes of the S1/D1 runs.
struct Plan {
    p: Params,
    schemes: Vec<PinScheme>,
    mss: u64,
    size: sim::workload::SizeDist,
}

fn plan(ctx: &Context) -> anyhow::Result<Plan> {
    let p: Params = ctx.params()?;
    check_param!(p.runs >= 1 && p.runs <= 100, "runs must be 1..=100");
    check_param!(
        p.duration_s.is_finite() && p.duration_s > 0.0,
        "duration_s must be positive"
    );
    check_param!(
        p.drain_s.is_finite() && p.drain_s >= 0.0,
        "drain_s must be >= 0"
    );
    check_param!(p.load > 0.0 && p.load < 1.0, "load must be in (0, 1)");
    check_param!(p.buffer_packets >= 1, "buffer_packets must be >= 1");
    check_param!(p.threads >= 1, "threads must be >= 1");
    check_param!(!p.schemes.is_empty(), "schemes must not be empty");
    let schemes: Vec<PinScheme> = p
        .schemes
        .iter()
        .map(|b| {
            Pin::try_from(*b)
                .map(|x| x.0)
                .map_err(|e| anyhow::anyhow!("invalid scenario parameter: scheme {b:?}: {e}"))
        })
        .collect::<anyhow::Result<_>>()?;
    let seed = ctx.seed(p.seed);
    let p = Params { seed, ..p };

    let sc = scenario(&p, 0, schemes[0], false);
    let mss = u64::from(sc.tcp.mss);
    // The models' estimates need D1's sizes: the paper's worst case and D1's expected
    // overflows per packet.
    let WorkloadConfig::Poisson { size, unit, .. } = sc.workload else {
        anyhow::bail!("the S1/D1 scenario has no Poisson workload");
    };
    check_param!(
        unit == SizeUnit::Packets,
        "the S1/D1 sizes must be in packets"
    );
    Ok(Plan {
        p,
        schemes,
        mss,
        size,
    })
}

pub fn run(ctx: &Context) -> anyhow::Result<String> {
    let plan = plan(ctx)?;
    let (p, schemes, mss) = (&plan.p, &plan.schemes, plan.mss);
    let mut jobs = Vec::new();
    for (k, s) in schemes.iter().enumerate() {
        for run in 0..p.runs {
            for stateless in [false, true] {
                let sc = scenario(p, run, *s, stateless);
                sc.validate().map_err(|e| anyhow::anyhow!("{e}"))?;
                jobs.push(((k, run, stateless), sc));
            }
        }
    }
    let pb = ctx.progress(jobs.len() as u64, "simulations");
    let next = Mutex::new(0usize);
    let outs: Mutex<Vec<(RunKey, anyhow::Result<Report>)>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..p.threads.min(jobs.len()) {
            scope.spawn(|| loop {
                let i = {
                    let Ok(mut n) = next.lock() else { return };
                    *n += 1;
                    *n - 1
                };
                let Some((key, sc)) = jobs.get(i) else { return };
                let r = sc.run().map_err(|e| anyhow::anyhow!("{key:?}: {e}"));
                if let Ok(mut o) = outs.lock() {
                    o.push((*key, r));
                }
                pb.inc(1);
            });
        }
    });
    pb.finish_and_clear();
    let mut reports: HashMap<RunKey, Report> = HashMap::new();
    for (k, r) in outs
        .into_inner()
        .map_err(|_| anyhow::anyhow!("a simulation thread panicked"))?
    {
        reports.insert(k, r?);
    }

    let mut rows = Vec::new();
    for (k, s) in schemes.iter().enumerate() {
        for run in 0..p.runs {
            let (Some(a), Some(b)) = (reports.get(&(k, run, false)), reports.get(&(k, run, true)))
            else {
                anyhow::bail!("missing run {run} of {}", label(s));
            };
            rows.push(compare(s, run, mss, a, b));
        }
    }
    ctx.write_csv("runs.csv", &rows)?;
    render(&plan, &rows)
}

/// Renders the summary again from `runs.csv`, which an earlier run wrote to `dir`, without
/// simulating.
pub(crate) fn render_from(ctx: &Context, dir: &std::path::Path) -> anyhow::Result<String> {
    let plan = plan(ctx)?;
    let rows: Vec<RunRow> = read_csv(dir, "runs.csv")?;
    render(&plan, &rows)
}

/// The summary of the runs `rows`.
fn render(plan: &Plan, rows: &[RunRow]) -> anyhow::Result<String> {
    let (p, mss) = (&plan.p, plan.mss);
    let t = scheme_table(&plan.schemes, rows, &plan.size, mss)?;
    let flows = rows.first().map_or(0, |r| r.flows);
    Ok(format!(
        "# {NAME}: PIN initial sequence numbers and a stateless RuN2C core (paper 003, Section III)\n\n\
Simulator, S1/D1 as `run2c-sim` (10 Mbit/s bottleneck, {buf}-packet buffer, NewReno without SACK, \
initial window {iw}, maximum window 30, {mss}-byte segments, RTO in [{minrto} s, {maxrto} s], \
load {load}; {dur} s of arrivals and {drain} s of drain, {runs} seed(s), {flows} flows in the \
first). Every sender picks its initial sequence number among the scheme's possible initial \
numbers (`tcp.pin_isn`: R random high bits, L and TH bits zero, `low` random low bits). Each seed \
runs twice on the same flows: the bottleneck's RuN2C classifies by the flow's byte offset (the \
stateful core: threshold ⌈2^TH / MSS⌉ segments, the same packets as the mask when `low` = 0) and \
by the mask on the wire sequence number alone (`run2c_pin`: first class while the L bits are \
zero, no per-flow state). Identical runs (the same report fingerprint) are expected while no \
flow runs over into its next PIN block; an overflow puts the first th bytes of the next block \
into the first class again.\n\n\
The paper's estimate (Section III-A): with TH = 14 and L = 8 a connection overflows every 2^22 \
bytes (\"≈ 4 Mbytes\", \"2800 packets\"), which \"at the worst case\" may cost one loss: \
3.6 × 10⁻⁴ per packet (1/2800; MSS / 2^22 = 3.48 × 10⁻⁴ with {mss}-byte segments). That is the \
rate of an endless connection; D1's flows are at most 5000 packets, so most never overflow: \
`models::pin` sums P(S ≥ k · block) over k for D1's sizes. The project's default RuN2C \
threshold is 20 segments (29 200 B here, 28 960 B with Linux's 1448-byte segments): TH = 15 \
(32 KiB) is the smallest scheme that covers it, and with L = 8 its blocks are 8 MiB, longer \
than D1's largest flow.\n\n{t}\n\
\"Measured overflows per packet\": PIN block boundaries the connections' bytes crossed, over \
the data packets sent (retransmissions included); \"promoted packets\": segments of an \
overflowed block that the mask puts in the first class. What the overflows cost in the \
simulator: the retransmissions of the flows that overflowed under each core, and their \
difference over all the run's data packets (the paper's worst case counts one loss per \
overflow). The whole run's retransmissions are in `runs.csv` but are no measure of it: one \
packet classified differently changes every later event of the run (\"flows whose delay \
differs\"), so the two runs' totals differ by the sample path's noise. Ranges are over seeds.\n\nFiles: `runs.csv` (per scheme and seed).\n",
        buf = p.buffer_packets,
        iw = p.initial_window,
        mss = mss,
        minrto = p.min_rto_ms / 1e3,
        maxrto = p.max_rto_ms / 1e3,
        load = p.load,
        dur = p.duration_s,
        drain = p.drain_s,
        runs = p.runs,
    ))
}

/// Per scheme: the paper's worst case and the models' expected overflows beside what the runs
/// measured (ranges over the runs).
fn scheme_table(
    schemes: &[PinScheme],
    rows: &[RunRow],
    size: &sim::workload::SizeDist,
    mss: u64,
) -> anyhow::Result<String> {
    let sizes_packets = model_sizes(size)?;
    let mut table = Vec::new();
    for s in schemes {
        let (_, l, th, _) = s.bits();
        let rr: Vec<&RunRow> = rows.iter().filter(|r| r.scheme == label(s)).collect();
        let worst = models::pin::worst_case_loss(l, th, mss as f64)?;
        // D1 in bytes: packets × MSS, i.e. the block in packets is 2^(L+TH) / MSS.
        let block_packets = models::pin::block_bytes(l, th)? / mss as f64;
        let expected = models::pin::overflows_per_packet(&sizes_packets, block_packets, 1.0)?;
        let range = |f: &dyn Fn(&RunRow) -> f64, fmt: &dyn Fn(f64) -> String| {
            let v: Vec<f64> = rr.iter().map(|r| f(r)).collect();
            let lo = v.iter().cloned().fold(f64::INFINITY, f64::min);
            let hi = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            if fmt(lo) == fmt(hi) {
                fmt(lo)
            } else {
                format!("{}–{}", fmt(lo), fmt(hi))
            }
        };
        let sci = |x: f64| format!("{x:.2e}");
        let int = |x: f64| format!("{x:.0}");
        let ms = |x: f64| format!("{:.1}", x * 1e3);
        table.push(vec![
            label(s),
            format!("{} B / {} B", s.threshold_bytes(), s.overflow_bytes()),
            sci(worst),
            sci(expected),
            range(&|r| r.overflow_rate, &sci),
            range(&|r| r.overflowed_flows as f64, &int),
            range(&|r| r.promoted_packets as f64, &int),
            format!(
                "{} / {}",
                range(&|r| r.retransmits_overflowed_stateful as f64, &int),
                range(&|r| r.retransmits_overflowed_stateless as f64, &int)
            ),
            range(&|r| r.extra_loss_rate, &sci),
            format!(
                "{} of {}",
                rr.iter().filter(|r| r.identical).count(),
                rr.len()
            ),
            range(&|r| r.flows_differing as f64, &int),
            format!(
                "{} / {}",
                range(
                    &|r| r.mean_delay_first_class_stateful_s.unwrap_or(f64::NAN),
                    &ms
                ),
                range(
                    &|r| r.mean_delay_first_class_stateless_s.unwrap_or(f64::NAN),
                    &ms
                )
            ),
        ]);
    }
    Ok(md_table(
        &[
            "scheme",
            "th / PIN block",
            "paper's worst case: MSS / block",
            "models: D1 overflows per packet",
            "measured overflows per packet",
            "overflowed flows",
            "promoted packets",
            "retransmissions of the overflowed flows, stateful / stateless",
            "their difference per packet of the run",
            "runs identical",
            "flows whose delay differs",
            "mean delay of flows ≤ th, stateful / stateless (ms)",
        ],
        &table,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overflows_and_promoted_segments_of_a_connection() {
        // Blocks of 2^(1+14) = 32 KiB, th = 16 KiB, ISN at the start of its block.
        let s = PinScheme::new(17, 1, 14, 0).unwrap();
        let isn = s.isn(0x1234_5678);
        assert_eq!(overflow_of(&s, isn, 0, 1000), (0, 0));
        assert_eq!(overflow_of(&s, isn, 32_768, 1000), (0, 0));
        // One byte into the next block: one overflow; segment 33 starts at 33 000.
        assert_eq!(overflow_of(&s, isn, 32_769, 1000), (1, 0));
        assert_eq!(overflow_of(&s, isn, 33_001, 1000), (1, 1));
        // Two blocks and a half: two overflows; segments starting in [32 768, 49 152) and
        // [65 536, 81 920): 33..=49 and 66..=81.
        assert_eq!(overflow_of(&s, isn, 81_920, 1000), (2, 17 + 16));
    }
}
