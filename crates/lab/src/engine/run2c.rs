//! Paper 003's flow-level outcomes: one flow's completion time, its statistics by size in
//! packets (Figs. 5/6, 12/13) and by size bin (Fig. 7's throughput), shared by the
//! packet-level and the real-TCP runs.

use serde::{Deserialize, Deserializer, Serialize};
use std::collections::BTreeSet;
use std::sync::{Mutex, OnceLock};

/// One flow's outcome.
#[derive(Debug, Clone)]
pub(crate) struct FlowRow {
    pub(crate) setting: &'static str,
    pub(crate) discipline: &'static str,
    pub(crate) size_packets: u64,
    /// Completion time (last byte acknowledged − arrival), if the flow completed.
    pub(crate) delay_s: Option<f64>,
}

impl FlowRow {
    /// Flow-level throughput: payload bits over completion time (kbit/s).
    pub(crate) fn kbps(&self, mss: u64) -> Option<f64> {
        self.delay_s
            .filter(|&x| x > 0.0)
            .map(|x| (self.size_packets * mss * 8) as f64 / x / 1e3)
    }
}

/// Mean, maximum and count of completed delays of flows of exactly `n` packets.
pub(crate) fn by_size(flows: &[&FlowRow], n: u64) -> Option<(f64, f64, usize)> {
    let d: Vec<f64> = flows
        .iter()
        .filter(|f| f.size_packets == n)
        .filter_map(|f| f.delay_s)
        .collect();
    if d.is_empty() {
        return None;
    }
    let mean = d.iter().sum::<f64>() / d.len() as f64;
    let max = d.iter().cloned().fold(f64::MIN, f64::max);
    Some((mean, max, d.len()))
}

/// Mean completion time of completed flows with `lo ≤ size ≤ hi` packets.
pub(crate) fn mean_delay(flows: &[&FlowRow], lo: u64, hi: u64) -> Option<f64> {
    let d: Vec<f64> = flows
        .iter()
        .filter(|f| (lo..=hi).contains(&f.size_packets))
        .filter_map(|f| f.delay_s)
        .collect();
    (!d.is_empty()).then(|| d.iter().sum::<f64>() / d.len() as f64)
}

#[derive(Serialize, Deserialize)]
pub(crate) struct ShortRow {
    #[serde(deserialize_with = "static_name")]
    pub(crate) setting: Name,
    #[serde(deserialize_with = "static_name")]
    pub(crate) discipline: Name,
    pub(crate) size_packets: u64,
    pub(crate) flows: usize,
    pub(crate) mean_delay_s: f64,
    pub(crate) max_delay_s: f64,
}

#[derive(Serialize, Deserialize)]
pub(crate) struct ThroughputRow {
    #[serde(deserialize_with = "static_name")]
    pub(crate) setting: Name,
    #[serde(deserialize_with = "static_name")]
    pub(crate) discipline: Name,
    pub(crate) bin_lo_packets: u64,
    pub(crate) bin_hi_packets: u64,
    pub(crate) flows: usize,
    pub(crate) mean_kbps: f64,
    pub(crate) sd_kbps: f64,
}

/// A setting's or discipline's name (an alias, so that serde does not borrow it from the
/// input: [`static_name`] reads it).
pub(crate) type Name = &'static str;

/// Most distinct names [`static_name`] keeps (settings and disciplines: a handful).
const MAX_NAMES: usize = 256;

/// Reads a setting's or discipline's name back from a CSV file as the `&'static str` the
/// rows hold: each distinct name is allocated once for the process, at most [`MAX_NAMES`].
pub(crate) fn static_name<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    use serde::de::Error;
    static NAMES: OnceLock<Mutex<BTreeSet<&'static str>>> = OnceLock::new();
    let s = String::deserialize(d)?;
    let mut names = NAMES
        .get_or_init(Default::default)
        .lock()
        .map_err(|_| D::Error::custom("the table of names is poisoned"))?;
    if let Some(&x) = names.get(s.as_str()) {
        return Ok(x);
    }
    if names.len() >= MAX_NAMES {
        return Err(D::Error::custom(format!(
            "more than {MAX_NAMES} distinct setting and discipline names"
        )));
    }
    let x: &'static str = Box::leak(s.into_boxed_str());
    names.insert(x);
    Ok(x)
}

pub(crate) const BIN_EDGES: [u64; 9] = [1, 4, 13, 20, 40, 100, 300, 1000, 5001];

/// A simulator size distribution as the models crate's (the same parameters, in the same
/// unit); a constant size has no model counterpart.
pub(crate) fn model_sizes(d: &sim::workload::SizeDist) -> anyhow::Result<models::SizeDist> {
    let m = match d {
        sim::workload::SizeDist::Exponential { mean } => models::SizeDist::exponential(*mean)?,
        sim::workload::SizeDist::BoundedPareto { k, p, alpha } => {
            models::SizeDist::bounded_pareto(*k, *p, *alpha)?
        }
        sim::workload::SizeDist::Pareto { alpha, c } => models::SizeDist::lomax(*c, *alpha)?,
        sim::workload::SizeDist::Mixture { components } => models::SizeDist::mixture(
            components
                .iter()
                .map(|c| Ok((c.weight, model_sizes(&c.dist)?)))
                .collect::<anyhow::Result<_>>()?,
        )?,
        sim::workload::SizeDist::Constant { .. } => {
            anyhow::bail!("a constant flow size has no flow-level model here")
        }
    };
    Ok(m)
}
