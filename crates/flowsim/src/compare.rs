//! Flow-by-flow comparison of two policies run on the same sample path (paper 000, Table 2):
//! the share of flows that finish faster, slower or in the same time, the mean gain among
//! faster flows and the mean loss among slower ones.

/// When two response times count as equal: `|a − b| ≤ abs + rel · max(a, b)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Absolute part (time units).
    pub abs: f64,
    /// Relative part.
    pub rel: f64,
}

impl Default for Tolerance {
    /// Equal up to floating-point noise (`1e-9` relative, `1e-12` absolute).
    fn default() -> Self {
        Self {
            abs: 1e-12,
            rel: 1e-9,
        }
    }
}

/// Per-flow comparison of a policy against a reference (both response-time vectors on the
/// same flows).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pairwise {
    /// Number of flows compared.
    pub flows: usize,
    /// Fraction finishing faster than under the reference.
    pub faster: f64,
    /// Fraction finishing slower.
    pub slower: f64,
    /// Fraction finishing in the same time (within the tolerance).
    pub equal: f64,
    /// Mean of `T − T_ref` over the faster flows (negative), if any.
    pub mean_gain: Option<f64>,
    /// Mean of `T − T_ref` over the slower flows (positive), if any.
    pub mean_loss: Option<f64>,
    /// Largest `T − T_ref` over all flows.
    pub max_loss: f64,
    /// `E[T] / E[T_ref]`.
    pub mean_ratio: f64,
}

/// Compare `other` to `reference`, flow by flow.
pub fn pairwise(reference: &[f64], other: &[f64], tol: Tolerance) -> Pairwise {
    let n = reference.len().min(other.len());
    let (mut fast, mut slow, mut eq) = (0usize, 0usize, 0usize);
    let (mut gain, mut loss) = (0.0, 0.0);
    let mut max_loss = f64::NEG_INFINITY;
    let (mut s_ref, mut s_oth) = (0.0, 0.0);
    for i in 0..n {
        let (r, o) = (reference[i], other[i]);
        s_ref += r;
        s_oth += o;
        let d = o - r;
        max_loss = max_loss.max(d);
        if d.abs() <= tol.abs + tol.rel * r.abs().max(o.abs()) {
            eq += 1;
        } else if d < 0.0 {
            fast += 1;
            gain += d;
        } else {
            slow += 1;
            loss += d;
        }
    }
    let nf = n.max(1) as f64;
    Pairwise {
        flows: n,
        faster: fast as f64 / nf,
        slower: slow as f64 / nf,
        equal: eq as f64 / nf,
        mean_gain: (fast > 0).then(|| gain / fast as f64),
        mean_loss: (slow > 0).then(|| loss / slow as f64),
        max_loss: if n == 0 { 0.0 } else { max_loss },
        mean_ratio: if s_ref > 0.0 { s_oth / s_ref } else { 1.0 },
    }
}

/// Arithmetic mean (0 for an empty slice).
pub fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// Mean response time per size bin: `edges` are increasing bin edges; returns for each bin
/// `(count, mean response)` (`None` for an empty bin).
pub fn binned_means(sizes: &[f64], responses: &[f64], edges: &[f64]) -> Vec<(usize, Option<f64>)> {
    let bins = edges.len().saturating_sub(1);
    let mut acc = vec![(0usize, 0.0f64); bins];
    for (s, r) in sizes.iter().zip(responses) {
        let i = edges.partition_point(|e| e <= s);
        if i == 0 || i > bins {
            continue;
        }
        acc[i - 1].0 += 1;
        acc[i - 1].1 += r;
    }
    acc.into_iter()
        .map(|(c, s)| (c, (c > 0).then(|| s / c as f64)))
        .collect()
}
