//! Flow completion times as a cumulative histogram (the engine observes, the metrics
//! endpoint renders `schedtcp_flow_completion_seconds`).

/// Upper bounds of the completion-time buckets, seconds.
pub(crate) const BUCKETS: [f64; 14] = [
    0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
];

/// A cumulative histogram of flow completion times.
#[derive(Debug, Clone, Default)]
pub struct Histogram {
    pub(crate) counts: [u64; BUCKETS.len()],
    count: u64,
    pub(crate) sum: f64,
}

impl Histogram {
    pub fn observe(&mut self, secs: f64) {
        for (i, b) in BUCKETS.iter().enumerate() {
            if secs <= *b {
                self.counts[i] += 1;
            }
        }
        self.count += 1;
        self.sum += secs;
    }

    pub fn count(&self) -> u64 {
        self.count
    }
}
