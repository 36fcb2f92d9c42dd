//! What the real-TCP testbed runs share: the goodput share of the bottleneck's rate and the
//! sample paths of a Poisson workload beside long plain-TCP competitors.

use testbed::workload::{flows, poisson_lomax, Path, PlannedFlow, MAX_TRANSFER};

/// Payload per full-sized packet over its size on the wire (Ethernet + IPv4 + TCP with
/// timestamps): the share of the tbf rate TCP can use.
pub(crate) const GOODPUT_SHARE: f64 = 1448.0 / 1514.0;

/// The Poisson workload of one sample path beside its competitors.
pub(crate) struct Arrivals {
    /// Flows per second.
    pub lambda: f64,
    /// Arrivals fall in [0, arrivals_s).
    pub arrivals_s: f64,
    /// Lomax sizes: shape, scale (per byte) and the cap, bytes.
    pub alpha: f64,
    pub c: f64,
    pub max_size: u64,
    /// Long plain-TCP downloads from 0 s to `stop_s`, through the same bottleneck.
    pub competitors: usize,
    pub stop_s: f64,
}

/// Sample path k of `runs`: the arrivals of `seed + k` through the tunnel, then the
/// competitors (direct downloads of [`MAX_TRANSFER`] stopped at `stop_s`).
pub(crate) fn sample_paths(
    a: &Arrivals,
    runs: usize,
    seed: u64,
) -> anyhow::Result<Vec<Vec<PlannedFlow>>> {
    (0..runs)
        .map(|k| {
            let n = (a.lambda * a.arrivals_s * 3.0).ceil() as usize + 50;
            let arr: Vec<(f64, u64)> = poisson_lomax(
                n,
                a.lambda,
                a.alpha,
                a.c,
                a.max_size,
                seed.wrapping_add(k as u64),
            )?
            .into_iter()
            .filter(|(t, _)| *t < a.arrivals_s)
            .collect();
            let mut plan = flows(&arr, Path::Tunnel, 300);
            for _ in 0..a.competitors {
                plan.push(PlannedFlow {
                    id: plan.len(),
                    at_s: 0.0,
                    download: MAX_TRANSFER,
                    upload: 0,
                    path: Path::Direct,
                    label: "competitor".into(),
                    stop_at_s: Some(a.stop_s),
                });
            }
            Ok(plan)
        })
        .collect()
}
