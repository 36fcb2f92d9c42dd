//! Workloads: which flows open when, and the generator that opens them.
//!
//! A [`Plan`] lists flows with their start offsets and sizes (Poisson arrivals and Lomax
//! sizes from [`poisson_lomax`], or a trace from [`from_trace`]). The generator
//! ([`execute`]) runs in the origin namespace: each flow is one TCP connection, to the
//! tunnel's route (`Path::Tunnel`) or straight to the target (`Path::Direct`, plain TCP),
//! speaking the protocol of `tunnel::loadgen` (16-byte header, upload, half-close; the
//! target answers with the download pattern and the SHA-256 of the upload). Every byte is
//! checked; a flow's completion time is what the application sees: from before `connect` to
//! the last byte of the answer.

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use rand::SeedableRng;
use rand_distr::{Distribution, Exp, Pareto};
use serde::{Deserialize, Serialize};
use tokio::time::Instant;
/// Largest download or upload of one flow (the target's bound).
pub use tunnel::loadgen::MAX_TRANSFER;
use tunnel::loadgen::{run_flow_observed, FlowSpec};

/// Which way a flow goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Path {
    /// Through `schedtcp client` (falls back to `Direct` when the run has no tunnel).
    Tunnel,
    /// Plain TCP to the target.
    Direct,
    /// Through the plan's bulk lane (falls back to `Tunnel` when the run has none).
    Bulk,
}

/// One flow of a plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlannedFlow {
    /// Index in the plan.
    pub id: usize,
    /// Start, seconds after the plan starts.
    pub at_s: f64,
    /// Bytes the target sends (the scheduled direction: destination → origin).
    pub download: u64,
    /// Bytes the application sends.
    pub upload: u64,
    /// Which way.
    pub path: Path,
    /// Free text (`long`, `short`, `sample`, ...).
    #[serde(default)]
    pub label: String,
    /// Stop reading at this offset after the plan's start, seconds, and close (a backlogged
    /// competitor measured over a window): not a failure, the result says `stopped`.
    #[serde(default)]
    pub stop_at_s: Option<f64>,
}

/// What the generator runs.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Plan {
    /// The flows.
    pub flows: Vec<PlannedFlow>,
    /// The client's route (tunnel flows), if the run has a tunnel.
    pub tunnel: Option<SocketAddr>,
    /// The bulk lane's route (bulk flows), if the run has lanes.
    #[serde(default)]
    pub bulk: Option<SocketAddr>,
    /// The target (direct flows).
    pub direct: SocketAddr,
    /// Width of the throughput-over-time bins, seconds (0: none recorded).
    pub bin_s: f64,
    /// A flow still running this long after its start fails.
    pub flow_timeout_s: f64,
}

/// How one flow went.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FlowResult {
    /// The planned flow's id.
    pub id: usize,
    /// Real start, seconds after the plan started.
    pub start_s: f64,
    /// Completion time as the application saw it (None: failed).
    pub completion_s: Option<f64>,
    /// Download bytes received and verified.
    pub received: u64,
    /// Why it failed.
    pub error: Option<String>,
    /// Download bytes per `bin_s` bin, from the plan's start (empty when `bin_s` is 0).
    pub bins: Vec<u64>,
    /// The flow was stopped at its `stop_at_s`, as planned (no completion, no error).
    #[serde(default)]
    pub stopped: bool,
}

/// `n` flows: Poisson arrivals of rate `rate` per second, sizes Lomax
/// `P(S > x) = (1 + c x)^(−α)` bytes (at least 1 B, at most `max` B), from `seed`.
pub fn poisson_lomax(
    n: usize,
    rate: f64,
    alpha: f64,
    c: f64,
    max: u64,
    seed: u64,
) -> Result<Vec<(f64, u64)>> {
    if !(rate > 0.0 && alpha > 1.0 && c > 0.0 && rate.is_finite() && c.is_finite()) {
        bail!("Poisson/Lomax workload: need rate > 0, alpha > 1, c > 0");
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    // Lomax(α, c) = Pareto(scale 1/c, α) − 1/c.
    let scale = 1.0 / c;
    let sizes = Pareto::new(scale, alpha).context("size distribution")?;
    let gaps = Exp::new(rate).context("arrival rate")?;
    let mut t = 0.0;
    Ok((0..n)
        .map(|_| {
            t += gaps.sample(&mut rng);
            let s = (sizes.sample(&mut rng) - scale)
                .round()
                .clamp(1.0, max as f64) as u64;
            (t, s)
        })
        .collect())
}

/// A trace: one flow per line, `start_seconds,download_bytes` (`#` comments and blank lines
/// skipped; sorted by start).
pub fn from_trace(text: &str) -> Result<Vec<(f64, u64)>> {
    let mut v = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut it = line.split(',').map(str::trim);
        let (Some(a), Some(b), None) = (it.next(), it.next(), it.next()) else {
            bail!("trace line {}: want `start_seconds,bytes`", i + 1);
        };
        let at: f64 = a
            .parse()
            .with_context(|| format!("trace line {}: start {a:?}", i + 1))?;
        let size: u64 = b
            .parse()
            .with_context(|| format!("trace line {}: size {b:?}", i + 1))?;
        if !(at.is_finite() && at >= 0.0) || size > MAX_TRANSFER {
            bail!("trace line {}: start must be >= 0, size <= 1 GiB", i + 1);
        }
        v.push((at, size));
    }
    v.sort_by(|x, y| x.0.total_cmp(&y.0));
    Ok(v)
}

/// Flows of a plan from `(start, download)` pairs, all on `path`, with a small upload.
pub fn flows(arrivals: &[(f64, u64)], path: Path, upload: u64) -> Vec<PlannedFlow> {
    arrivals
        .iter()
        .enumerate()
        .map(|(id, &(at_s, download))| PlannedFlow {
            id,
            at_s,
            download,
            upload,
            path,
            label: String::new(),
            stop_at_s: None,
        })
        .collect()
}

/// Runs a plan; one result per flow, in plan order.
pub async fn execute(plan: &Plan) -> Result<Vec<FlowResult>> {
    for f in &plan.flows {
        if f.download > MAX_TRANSFER || f.upload > MAX_TRANSFER {
            bail!("flow {}: transfers are at most 1 GiB", f.id);
        }
        if !(f.at_s.is_finite() && f.at_s >= 0.0) {
            bail!("flow {}: bad start {}", f.id, f.at_s);
        }
        if let Some(s) = f.stop_at_s {
            if !(s.is_finite() && s > f.at_s) {
                bail!("flow {}: stop {s} must be after its start {}", f.id, f.at_s);
            }
        }
    }
    let t0 = Instant::now();
    let tasks: Vec<_> = plan
        .flows
        .iter()
        .cloned()
        .map(|f| {
            let addr = match f.path {
                Path::Bulk => plan.bulk.or(plan.tunnel).unwrap_or(plan.direct),
                Path::Tunnel => plan.tunnel.unwrap_or(plan.direct),
                Path::Direct => plan.direct,
            };
            let bin = plan.bin_s;
            let timeout = Duration::from_secs_f64(plan.flow_timeout_s.clamp(1.0, 86_400.0));
            tokio::spawn(async move {
                tokio::time::sleep_until(t0 + Duration::from_secs_f64(f.at_s)).await;
                let start = t0.elapsed().as_secs_f64();
                let mut rec = Recorder::new(t0, bin);
                // A planned stop before the timeout ends the flow without failing it.
                let stop = f
                    .stop_at_s
                    .map(|s| {
                        (t0 + Duration::from_secs_f64(s)).saturating_duration_since(Instant::now())
                    })
                    .filter(|s| *s < timeout);
                let r =
                    tokio::time::timeout(stop.unwrap_or(timeout), one(addr, &f, &mut rec)).await;
                let (completion_s, error, stopped) = match r {
                    Ok(Ok(d)) => (Some(d.as_secs_f64()), None, false),
                    Ok(Err(e)) => (None, Some(format!("{e:#}")), false),
                    Err(_) if stop.is_some() => (None, None, true),
                    Err(_) => (None, Some(format!("timed out after {timeout:?}")), false),
                };
                FlowResult {
                    id: f.id,
                    start_s: start,
                    completion_s,
                    received: rec.total,
                    error,
                    bins: rec.bins,
                    stopped,
                }
            })
        })
        .collect();
    let mut out = Vec::with_capacity(tasks.len());
    for t in tasks {
        out.push(t.await.context("flow task")?);
    }
    Ok(out)
}

struct Recorder {
    t0: Instant,
    bin_s: f64,
    total: u64,
    bins: Vec<u64>,
}

impl Recorder {
    fn new(t0: Instant, bin_s: f64) -> Self {
        Self {
            t0,
            bin_s,
            total: 0,
            bins: Vec::new(),
        }
    }

    fn add(&mut self, n: usize) {
        self.total += n as u64;
        if self.bin_s > 0.0 {
            let i = (self.t0.elapsed().as_secs_f64() / self.bin_s) as usize;
            if i < 1_000_000 {
                if self.bins.len() <= i {
                    self.bins.resize(i + 1, 0);
                }
                self.bins[i] += n as u64;
            }
        }
    }
}

/// One flow, checked end to end by `tunnel::loadgen`, its download bytes recorded over time.
async fn one(addr: SocketAddr, f: &PlannedFlow, rec: &mut Recorder) -> Result<Duration> {
    let spec = FlowSpec {
        download: f.download,
        upload: f.upload,
    };
    let outcome = run_flow_observed(addr, spec, |n| rec.add(n)).await?;
    Ok(outcome.elapsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poisson_lomax_has_the_asked_rate_and_mean() {
        let v = poisson_lomax(20_000, 2.0, 3.0, 1e-6, u64::MAX, 7).unwrap();
        let span = v.last().unwrap().0;
        let rate = v.len() as f64 / span;
        assert!((rate - 2.0).abs() < 0.1, "rate {rate}");
        let mean = v.iter().map(|x| x.1 as f64).sum::<f64>() / v.len() as f64;
        // E[S] = 1/(c(α−1)) = 500 kB; the tail is heavy, so be lenient.
        assert!((mean - 5e5).abs() < 5e4, "mean {mean}");
        assert!(v.windows(2).all(|w| w[0].0 <= w[1].0));
        assert_eq!(
            v,
            poisson_lomax(20_000, 2.0, 3.0, 1e-6, u64::MAX, 7).unwrap()
        );
    }

    #[test]
    fn traces_parse_and_bad_lines_are_refused() {
        let v = from_trace("# start,bytes\n1.5, 100\n\n0.5,20\n").unwrap();
        assert_eq!(v, vec![(0.5, 20), (1.5, 100)]);
        for bad in ["1,2,3", "x,1", "1,-4", "-1,5", "1"] {
            assert!(from_trace(bad).is_err(), "{bad}");
        }
    }

    #[tokio::test]
    async fn a_plan_runs_against_the_loopback_target_with_bins() {
        let (target, task) = tunnel::loadgen::start_target("127.0.0.1:0".parse().unwrap())
            .await
            .unwrap();
        let mut fl = flows(
            &[(0.0, 300_000), (0.05, 0), (0.1, 70_000)],
            Path::Direct,
            500,
        );
        fl[1].path = Path::Tunnel; // no tunnel in this plan: goes direct
        let plan = Plan {
            flows: fl,
            tunnel: None,
            bulk: None,
            direct: target,
            bin_s: 0.01,
            flow_timeout_s: 20.0,
        };
        let r = execute(&plan).await.unwrap();
        task.abort();
        assert_eq!(r.len(), 3);
        for (x, f) in r.iter().zip(&plan.flows) {
            assert!(x.error.is_none(), "{:?}", x.error);
            assert!(x.completion_s.is_some());
            assert_eq!(x.received, f.download);
            assert_eq!(x.bins.iter().sum::<u64>(), f.download);
        }
    }

    #[tokio::test]
    async fn a_planned_stop_ends_a_flow_without_failing_it() {
        let (target, task) = tunnel::loadgen::start_target("127.0.0.1:0".parse().unwrap())
            .await
            .unwrap();
        let mut fl = flows(&[(0.0, MAX_TRANSFER), (0.0, 50_000)], Path::Direct, 0);
        fl[0].stop_at_s = Some(0.2);
        let mut plan = Plan {
            flows: fl,
            tunnel: None,
            bulk: None,
            direct: target,
            bin_s: 0.05,
            flow_timeout_s: 20.0,
        };
        let r = execute(&plan).await.unwrap();
        assert!(r[0].stopped && r[0].error.is_none() && r[0].completion_s.is_none());
        assert!(r[0].received > 0 && r[0].received < MAX_TRANSFER);
        assert_eq!(r[0].bins.iter().sum::<u64>(), r[0].received);
        assert!(!r[1].stopped && r[1].completion_s.is_some());
        // A stop before the start is refused.
        plan.flows[0].stop_at_s = Some(0.0);
        assert!(execute(&plan).await.is_err());
        task.abort();
    }
}
