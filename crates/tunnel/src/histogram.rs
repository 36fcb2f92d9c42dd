//! Flow completion times as a histogram (the engine observes, the metrics
//! endpoint renders `schedtcp_flow_completion_seconds`).

/// Upper bounds of the completion-time buckets, seconds.
pub(crate) const BUCKETS: [f64; 14] = [
    0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
];

/// A histogram of flow completion times: a count per bucket (the exposition accumulates them).
#[derive(Debug, Clone, Default)]
pub struct Histogram {
    counts: [u64; BUCKETS.len()],
    count: u64,
    pub(crate) sum: f64,
}

impl Histogram {
    pub fn observe(&mut self, secs: f64) {
        if let Some(i) = BUCKETS.iter().position(|b| secs <= *b) {
            self.counts[i] += 1;
        }
        self.count += 1;
        self.sum += secs;
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    /// Each bucket's upper bound and the observations in it alone (not below it); those above
    /// the last bound are in [`count`](Self::count) only.
    pub fn buckets(&self) -> [(f64, u64); BUCKETS.len()] {
        std::array::from_fn(|i| (BUCKETS[i], self.counts[i]))
    }
}

/// Size classes of the per-route completion-time histograms: a flow's bytes both ways below
/// each bound (the last has none).
pub const SIZE_CLASSES: [(&str, u64); 3] = [
    ("below_100kB", 100_000),
    ("below_10MB", 10_000_000),
    ("from_10MB", u64::MAX),
];

/// What the flows of one route did in one session: only routes the configuration names get
/// one (so a peer cannot grow the labels), from the flow's opening on.
#[derive(Debug, Clone, Default)]
pub struct RouteStats {
    pub opened: u64,
    pub closed: u64,
    pub reset: u64,
    /// Bytes this side's applications handed over on the route's flows, and bytes of the
    /// peer's direction delivered to them.
    pub bytes_sent: u64,
    pub bytes_received: u64,
    /// Completion times by [`SIZE_CLASSES`].
    pub completion: [Histogram; SIZE_CLASSES.len()],
}

impl RouteStats {
    /// Counts a flow of this route that closed.
    pub fn closed(&mut self, s: &gtcp::FlowSummary) {
        self.closed += 1;
        self.reset += u64::from(s.reset.is_some());
        self.bytes_sent += s.bytes_sent;
        self.bytes_received += s.bytes_received;
        let bytes = s.bytes_sent.saturating_add(s.bytes_received);
        let class = SIZE_CLASSES
            .iter()
            .position(|&(_, below)| bytes < below)
            .unwrap_or(SIZE_CLASSES.len() - 1);
        self.completion[class].observe(s.completion_time().as_secs_f64());
    }
}
