//! Fluid ideals for Table-2-like workloads (paper 000, Section 6.2): the flow-level
//! performance every scheduling policy would reach on a perfectly shared link, compared
//! flow by flow with PS (plain TCP) on the same sample paths. The testbed experiments
//! compare their measured gains against these ideals.

use anyhow::Context as _;
use flowsim::compare::{mean, pairwise, Pairwise, Tolerance};
use flowsim::mg1::{simulate, Policy};
use flowsim::path::SamplePath;
use models::SizeDist;
use serde::{Deserialize, Serialize};

/// A Table-2-like workload: Poisson arrivals, Lomax sizes `P(S > x) = (1 + cx)^{−α}` in bytes,
/// a link of `capacity` bytes/s at load `load`.
#[derive(Debug, Clone, PartialEq)]
pub struct Table2Workload {
    /// Lomax tail index `α` (> 1).
    pub alpha: f64,
    /// Lomax scale `c` (1/bytes); mean size `1/(c(α−1))`.
    pub c: f64,
    /// Link capacity (bytes/s).
    pub capacity: f64,
    /// Offered load `λ E[S] / C`.
    pub load: f64,
    /// Flows per replication.
    pub flows: usize,
    /// Independent replications (seeds `seed, seed+1, …`); flows are pooled.
    pub replications: usize,
    /// Flows discarded at the start of each replication (the empty-start transient).
    pub warmup_flows: usize,
    /// Base seed.
    pub seed: u64,
    /// PS+PS (RuN2C) threshold in bytes, if that policy should be included.
    pub psps_threshold: Option<f64>,
    /// When two transfer times count as equal.
    pub equal: Tolerance,
}

impl Table2Workload {
    /// Paper 000's workload: α = 3, c = 1e−7 (mean 5 MB), 12 MB/s, load 0.9.
    pub fn paper() -> Self {
        Self {
            alpha: 3.0,
            c: 1e-7,
            capacity: 12e6,
            load: 0.9,
            flows: 100_000,
            replications: 5,
            warmup_flows: 1_000,
            seed: 1,
            psps_threshold: None,
            equal: Tolerance::default(),
        }
    }
}

/// One policy's fluid ideal against PS.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PolicyIdeal {
    /// Policy name (`LAS`, `SRPT`, `FSP` (= FAIR), `PS+PS(th)`, `FCFS`, `PS`).
    pub policy: String,
    /// Fraction of flows faster than under PS.
    pub faster: f64,
    /// Fraction slower.
    pub slower: f64,
    /// Fraction equal (within the tolerance).
    pub equal: f64,
    /// Mean change of transfer time among faster flows (s, negative).
    pub mean_gain_s: Option<f64>,
    /// Mean change among slower flows (s, positive).
    pub mean_loss_s: Option<f64>,
    /// Largest increase over PS (s).
    pub max_loss_s: f64,
    /// Mean transfer time (s).
    pub mean_response_s: f64,
    /// Mean transfer time relative to PS.
    pub mean_ratio_to_ps: f64,
    /// Flows compared.
    pub flows: usize,
}

impl PolicyIdeal {
    fn new(policy: String, p: &Pairwise, mean_response_s: f64) -> Self {
        Self {
            policy,
            faster: p.faster,
            slower: p.slower,
            equal: p.equal,
            mean_gain_s: p.mean_gain,
            mean_loss_s: p.mean_loss,
            max_loss_s: p.max_loss,
            mean_response_s,
            mean_ratio_to_ps: p.mean_ratio,
            flows: p.flows,
        }
    }
}

/// The policies compared, in table order.
pub fn policies(w: &Table2Workload) -> Vec<Policy> {
    let mut v = vec![Policy::Las, Policy::Srpt, Policy::Fsp];
    if let Some(th) = w.psps_threshold {
        v.push(Policy::PsPs { threshold: th });
    }
    v.push(Policy::Fcfs);
    v
}

/// Pooled response times of PS and of each policy (in [`policies`] order), plus the sizes.
pub struct Responses {
    /// Flow sizes (bytes).
    pub sizes: Vec<f64>,
    /// PS transfer times (s).
    pub ps: Vec<f64>,
    /// Per policy transfer times (s).
    pub others: Vec<(Policy, Vec<f64>)>,
}

/// Simulate the workload (calls `tick` after every policy run, for progress bars).
pub fn simulate_workload(w: &Table2Workload, mut tick: impl FnMut()) -> anyhow::Result<Responses> {
    anyhow::ensure!(
        w.alpha > 1.0,
        "alpha = {} must exceed 1 for a finite mean",
        w.alpha
    );
    anyhow::ensure!(
        w.load > 0.0 && w.load < 1.0,
        "load = {} must be in (0, 1)",
        w.load
    );
    anyhow::ensure!(w.capacity > 0.0, "capacity must be > 0");
    anyhow::ensure!(w.replications >= 1, "replications must be >= 1");
    anyhow::ensure!(
        w.flows > w.warmup_flows,
        "flows ({}) must exceed warmup_flows ({})",
        w.flows,
        w.warmup_flows
    );
    let dist = SizeDist::lomax(w.c, w.alpha).context("Lomax size distribution")?;
    let lambda = w.load * w.capacity / dist.mean()?;
    let pols = policies(w);
    let mut out = Responses {
        sizes: vec![],
        ps: vec![],
        others: pols.iter().map(|p| (*p, vec![])).collect(),
    };
    for r in 0..w.replications {
        let path = SamplePath::poisson(lambda, &dist, w.flows, w.seed.wrapping_add(r as u64))?;
        let resp = |p| -> anyhow::Result<Vec<f64>> {
            Ok(simulate(&path, w.capacity, p)?.response_times(&path)[w.warmup_flows..].to_vec())
        };
        out.sizes
            .extend(path.jobs()[w.warmup_flows..].iter().map(|j| j.size));
        out.ps.extend(resp(Policy::Ps)?);
        tick();
        for (p, v) in out.others.iter_mut() {
            v.extend(resp(*p)?);
            tick();
        }
    }
    Ok(out)
}

/// The fluid ideal of every policy against PS (the first row is PS itself).
pub fn fluid_ideal(w: &Table2Workload) -> anyhow::Result<Vec<PolicyIdeal>> {
    let r = simulate_workload(w, || {})?;
    Ok(ideals(w, &r))
}

/// Summaries from already simulated responses.
pub fn ideals(w: &Table2Workload, r: &Responses) -> Vec<PolicyIdeal> {
    let ps_self = pairwise(&r.ps, &r.ps, w.equal);
    let mut v = vec![PolicyIdeal::new("PS".into(), &ps_self, mean(&r.ps))];
    for (p, resp) in &r.others {
        let name = match p {
            Policy::Fsp => "FSP (FAIR)".to_string(),
            _ => p.name(),
        };
        v.push(PolicyIdeal::new(
            name,
            &pairwise(&r.ps, resp, w.equal),
            mean(resp),
        ));
    }
    v
}

/// The fluid ideal of `policies` against PS on given sample paths (each a list of
/// `(arrival s, size bytes)` sorted by arrival), on a link of `capacity` bytes/s, pooled
/// over the paths. The first row is PS itself. Used to put the ideal beside packet-level
/// runs of the very same flows.
pub fn ideal_on_paths(
    paths: &[Vec<(f64, f64)>],
    capacity: f64,
    policies: &[Policy],
    equal: Tolerance,
) -> anyhow::Result<Vec<PolicyIdeal>> {
    anyhow::ensure!(capacity > 0.0, "capacity must be > 0");
    let mut ps = Vec::new();
    let mut others: Vec<Vec<f64>> = vec![Vec::new(); policies.len()];
    for flows in paths {
        if flows.is_empty() {
            continue;
        }
        let jobs = flows
            .iter()
            .map(|&(arrival, size)| flowsim::path::Job { arrival, size })
            .collect();
        let path = SamplePath::from_jobs(jobs)?;
        ps.extend(simulate(&path, capacity, Policy::Ps)?.response_times(&path));
        for (p, v) in policies.iter().zip(others.iter_mut()) {
            v.extend(simulate(&path, capacity, *p)?.response_times(&path));
        }
    }
    let mut rows = vec![PolicyIdeal::new(
        "PS".into(),
        &pairwise(&ps, &ps, equal),
        mean(&ps),
    )];
    for (p, v) in policies.iter().zip(&others) {
        let name = match p {
            Policy::Fsp => "FSP (FAIR)".to_string(),
            _ => p.name(),
        };
        rows.push(PolicyIdeal::new(name, &pairwise(&ps, v, equal), mean(v)));
    }
    Ok(rows)
}
