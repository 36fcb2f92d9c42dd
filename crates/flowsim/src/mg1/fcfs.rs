//! FCFS: `c_i = max(a_i, c_{i−1}) + s_i/C`.

use crate::path::SamplePath;

pub(super) fn run(path: &SamplePath, cap: f64) -> Vec<f64> {
    let mut last = 0.0f64;
    path.jobs()
        .iter()
        .map(|j| {
            last = last.max(j.arrival) + j.size / cap;
            last
        })
        .collect()
}
