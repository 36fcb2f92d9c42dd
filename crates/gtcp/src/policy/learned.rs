//! Learned flow sizes per route, and what the size-blind policies derive from them: the
//! Gittins index of a flow at its attained service (`gittins`, `auto`) and the rank of a route
//! by its mean flow size (`mu`, the μ-rule of paper 000, Proposition 2).
//!
//! Every completed flow (its direction acknowledged to its final size) adds its size to its
//! route's [`SizeHistogram`]: log-spaced bins, [`BINS_PER_OCTAVE`] per octave from
//! 2^[`FIRST_EDGE_LOG2`] to 2^[`LAST_EDGE_LOG2`] bytes, one bin below and one above. Weights
//! age exponentially with the route's completions (a flow's weight falls by `e` after
//! [`HORIZON_FLOWS`] later ones), so the estimate follows a change of the distribution within
//! about that many flows. Reset flows are not recorded (their size is unknown).
//!
//! **Gittins index.** For a flow that has sent `a` bytes, with size `S` drawn from the route's
//! distribution, the Gittins index is `G(a) = sup_Δ P(S − a ≤ Δ | S > a) / E[min(S − a, Δ) | S > a]`
//! (paper 000, Section 4; Gittins, *Multi-armed Bandit Allocation Indices*). The policies use
//! its inverse `1/G(a)`, an *effective remaining size* in bytes: for a flow of known remaining
//! size `r` it is exactly `r`, so flows of known and unknown size are ranked on one scale
//! (serving the least effective remaining size is serving the highest index). The histogram is
//! read as atoms at each bin's upper edge (the overflow bin: its flows' mean), which overstates
//! a flow's chance to end in its current bin by at most the bin's width (2^(1/4) ≈ 1.19×).
//! For a flow in bin `i` the index is the least of the lines `(N_k − a·T_i) / D_{i,k}` over the
//! candidate stopping bins `k ≥ i` (the numerator is `E[min(S − a, e_k − a); S ≥ b_i]`, the
//! denominator `P(b_i ≤ S ≤ e_k)`); [`GittinsIndex`] keeps, per bin, the two lines that are
//! least at the bin's two ends, so a key costs O(1) and the table O(bins²) to rebuild, done
//! once every [`REBUILD_EVERY`] completions on the route.
//!
//! **Beyond the support.** A flow that has sent more than every learned size, or than all but
//! fewer than [`MIN_TAIL_FLOWS`] of them, is ranked after every flow the estimate covers, and
//! by least attained service among such flows ([`BEYOND_SUPPORT`]): LAS, the order that assumes
//! nothing of sizes, where the histogram has too few samples to say more.
//!
//! **Cold start.** A route has no index until [`COLD_START_FLOWS`] of its flows completed; its
//! flows of unknown size are then ranked as under `srpt` (after every flow of known size, least
//! attained service among them). The μ-rule ranks a route by its mean shrunk towards the mean
//! of all routes, `(Σ sizes + k · pooled mean) / (flows + k)` with `k = COLD_START_FLOWS`, so a
//! route that has completed nothing yet ranks as an average one.
//!
//! **Bounds.** At most [`MAX_LEARNED_ROUTES`] routes are learned separately (route names on an
//! acceptor come from the peer); flows of any further route share one estimate. Per route:
//! [`BINS`] bins of two `f64` plus the index (four `f64` per bin), about 6 KiB.

use std::collections::HashMap;

/// Bins per octave of flow size: the width of a bin is a factor 2^(1/4) ≈ 1.19.
pub const BINS_PER_OCTAVE: u32 = 4;
/// Lower edge of the first regular bin: 2^8 = 256 bytes (smaller flows share bin 0).
pub const FIRST_EDGE_LOG2: u32 = 8;
/// Upper edge of the last regular bin: 2^40 bytes = 1 TiB (larger flows share the last bin).
pub const LAST_EDGE_LOG2: u32 = 40;
/// Number of bins: the regular ones plus one below and one above.
pub const BINS: usize = ((LAST_EDGE_LOG2 - FIRST_EDGE_LOG2) * BINS_PER_OCTAVE) as usize + 2;
/// Ageing horizon, in completions on the route: a flow's weight falls by a factor `e` after
/// this many later ones. Default 1000: long enough for a stable tail estimate at 1% of the
/// flows, short enough to follow a change within a few thousand flows.
pub const HORIZON_FLOWS: f64 = 1000.0;
/// Completed flows before a route's Gittins index is used (default 32).
pub const COLD_START_FLOWS: u64 = 32;
/// The index of a route is rebuilt every this many completions on it (default 64: the ageing
/// moves at most 1 − e^(−64/1000) ≈ 6% of the weight between rebuilds).
pub const REBUILD_EVERY: u64 = 64;
/// Routes learned separately (default 64); flows of further routes share one estimate.
pub const MAX_LEARNED_ROUTES: usize = 64;

/// Rescale the ageing increment beyond this (keeps every weight finite).
const RESCALE_ABOVE: f64 = 1e100;

/// The bin of a size in bytes.
pub fn bin_of(size: u64) -> usize {
    if size < (1 << FIRST_EDGE_LOG2) {
        return 0;
    }
    // floor(log2(size) * BINS_PER_OCTAVE): the octave exactly, the bin inside it by the log.
    let octave = 63 - size.leading_zeros();
    if octave >= LAST_EDGE_LOG2 {
        return BINS - 1;
    }
    let frac = (size as f64 / (1u64 << octave) as f64).log2();
    let sub = ((frac * f64::from(BINS_PER_OCTAVE)) as u32).min(BINS_PER_OCTAVE - 1);
    let mut b = 1 + ((octave - FIRST_EDGE_LOG2) * BINS_PER_OCTAVE + sub) as usize;
    // The float log may land one bin off at an edge: the bin is the last whose lower edge is
    // at most `size`, exactly as `lower_edge` says.
    let s = size as f64;
    if b + 1 < BINS && s >= lower_edge(b + 1) {
        b += 1;
    } else if s < lower_edge(b) {
        b -= 1;
    }
    b
}

/// Lower edge of bin `i` in bytes (0 for bin 0).
pub fn lower_edge(i: usize) -> f64 {
    if i == 0 {
        0.0
    } else {
        let steps = (i - 1) as f64 / f64::from(BINS_PER_OCTAVE);
        (f64::from(FIRST_EDGE_LOG2) + steps).exp2()
    }
}

/// The flow-size distribution of one route, learned from its completed flows.
#[derive(Debug, Clone)]
pub struct SizeHistogram {
    /// Aged weight per bin, in units of `inc`.
    weight: Vec<f64>,
    /// Aged sum of the sizes per bin, in units of `inc`.
    sum: Vec<f64>,
    /// Weight of the next completion: grows by `1 / (1 − 1/HORIZON_FLOWS)` per completion, so
    /// that every earlier weight shrinks relative to it.
    inc: f64,
    completed: u64,
    /// The histogram of a known law ([`from_cdf`](Self::from_cdf)), not of samples.
    exact: bool,
}

impl Default for SizeHistogram {
    fn default() -> Self {
        Self {
            weight: vec![0.0; BINS],
            sum: vec![0.0; BINS],
            inc: 1.0,
            completed: 0,
            exact: false,
        }
    }
}

impl SizeHistogram {
    /// Adds a completed flow of `size` bytes.
    pub fn record(&mut self, size: u64) {
        let b = bin_of(size);
        self.weight[b] += self.inc;
        self.sum[b] += self.inc * size as f64;
        self.completed += 1;
        self.inc /= 1.0 - 1.0 / HORIZON_FLOWS;
        if self.inc > RESCALE_ABOVE {
            for w in self.weight.iter_mut().chain(self.sum.iter_mut()) {
                *w /= self.inc;
            }
            self.inc = 1.0;
        }
    }

    /// Flows recorded since the start (not aged).
    pub fn completed(&self) -> u64 {
        self.completed
    }

    /// Effective number of recent flows: the aged weight in units of the newest one (at most
    /// about [`HORIZON_FLOWS`]).
    pub fn weight(&self) -> f64 {
        self.weight.iter().sum::<f64>() / self.inc
    }

    /// Aged sum of the sizes, in the units of [`weight`](Self::weight).
    pub fn size_sum(&self) -> f64 {
        self.sum.iter().sum::<f64>() / self.inc
    }

    /// Aged mean flow size in bytes, if any flow completed.
    pub fn mean(&self) -> Option<f64> {
        let w = self.weight();
        (w > 0.0).then(|| self.size_sum() / w)
    }

    /// Aged fraction of the flows in each bin (all zero before the first completion).
    pub fn fractions(&self) -> Vec<f64> {
        let total: f64 = self.weight.iter().sum();
        self.weight
            .iter()
            .map(|w| if total > 0.0 { w / total } else { 0.0 })
            .collect()
    }

    /// The aged `q`-quantile of the flow size (the upper edge of the bin it falls in), if any
    /// flow completed.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        let total: f64 = self.weight.iter().sum();
        if total <= 0.0 {
            return None;
        }
        let mut acc = 0.0;
        for (i, w) in self.weight.iter().enumerate() {
            acc += w;
            if acc >= q * total {
                return Some(self.atom(i));
            }
        }
        Some(self.atom(BINS - 1))
    }

    /// The size bin `i`'s flows are taken to have: its upper edge, or in the overflow bin the
    /// mean of its flows.
    fn atom(&self, i: usize) -> f64 {
        if i + 1 < BINS {
            lower_edge(i + 1)
        } else if self.weight[i] > 0.0 {
            (self.sum[i] / self.weight[i]).max(lower_edge(i))
        } else {
            lower_edge(i)
        }
    }

    /// The histogram of a known distribution with distribution function `cdf` (bytes), as if
    /// [`HORIZON_FLOWS`] flows had been recorded: each bin holds its probability; the overflow
    /// bin's flows are taken at twice its lower edge.
    pub fn from_cdf(cdf: impl Fn(f64) -> f64) -> Self {
        let mut h = SizeHistogram::default();
        for i in 0..BINS {
            let hi = if i + 1 < BINS {
                cdf(lower_edge(i + 1))
            } else {
                1.0
            };
            let p = (hi - cdf(lower_edge(i))).max(0.0) * HORIZON_FLOWS;
            h.weight[i] = p;
            h.sum[i] = p * if i + 1 < BINS {
                0.5 * (lower_edge(i) + lower_edge(i + 1))
            } else {
                2.0 * lower_edge(i)
            };
        }
        h.completed = HORIZON_FLOWS as u64;
        h.exact = true;
        h
    }

    /// The Gittins index of this distribution, or `None` before any completion.
    pub fn gittins(&self) -> Option<GittinsIndex> {
        GittinsIndex::new(self)
    }
}

/// One line `(n − a·t) / d` of the index.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Line {
    n: f64,
    t: f64,
    d: f64,
}

impl Line {
    fn at(&self, a: f64) -> f64 {
        (self.n - a * self.t) / self.d
    }
}

/// The inverse Gittins index (effective remaining bytes) of a route's distribution, per bin of
/// attained service. See the [module documentation](self).
#[derive(Debug, Clone, PartialEq)]
pub struct GittinsIndex {
    /// Per bin, the lines least at its lower and upper edge; `None` where no learned flow is
    /// as large (a flow beyond every learned size).
    lines: Vec<Option<[Line; 2]>>,
    /// The size the overflow bin's flows are taken to have.
    last_atom: f64,
}

impl GittinsIndex {
    fn new(h: &SizeHistogram) -> Option<Self> {
        let w = &h.weight;
        if w.iter().all(|&x| x <= 0.0) {
            return None;
        }
        let e: Vec<f64> = (0..BINS).map(|i| h.atom(i)).collect();
        let mut lines = vec![None; BINS];
        // tail[i] = Σ_{j ≥ i} w_j
        let mut tail = vec![0.0; BINS + 1];
        for i in (0..BINS).rev() {
            tail[i] = tail[i + 1] + w[i];
        }
        // Bins with too few learned flows at or above them are left without lines: flows that
        // reach them rank as beyond the support (`MIN_TAIL_FLOWS`).
        let floor = if h.exact { 0.0 } else { MIN_TAIL_FLOWS * h.inc };
        for (i, slot) in lines.iter_mut().enumerate() {
            if tail[i] <= 0.0 || tail[i] < floor {
                continue;
            }
            let (lo, hi) = (lower_edge(i), e[i]);
            let (mut best_lo, mut best_hi) = (None::<(f64, Line)>, None::<(f64, Line)>);
            // Σ_{j=i..k} w_j e_j and Σ_{j=i..k} w_j, growing with k.
            let (mut we, mut d) = (0.0, 0.0);
            for k in i..BINS {
                we += w[k] * e[k];
                d += w[k];
                if w[k] <= 0.0 {
                    continue;
                }
                let line = Line {
                    n: we + tail[k + 1] * e[k],
                    t: tail[i],
                    d,
                };
                for (best, a) in [(&mut best_lo, lo), (&mut best_hi, hi)] {
                    let v = line.at(a);
                    if best.is_none_or(|(bv, _)| v < bv) {
                        *best = Some((v, line));
                    }
                }
            }
            if let (Some((_, l)), Some((_, h))) = (best_lo, best_hi) {
                *slot = Some([l, h]);
            }
        }
        Some(Self {
            lines,
            last_atom: e[BINS - 1],
        })
    }

    /// Effective remaining bytes of a flow of unknown size that has sent `attained` bytes:
    /// `1 / G(attained)`, rounded up and kept below [`BEYOND_SUPPORT`]. A flow that has sent
    /// more than every learned size (or than all but fewer than [`MIN_TAIL_FLOWS`] of them) is
    /// past the estimate's support: the histogram says nothing (or only noise) of how much it
    /// has left, so it gets `BEYOND_SUPPORT + attained` — after every flow the
    /// estimate covers, and least attained service first among such flows (as LAS, the order
    /// that assumes nothing of the sizes; first come, first served would let the oldest such
    /// flow hold the connections while later ones, possibly nearly done, wait).
    pub fn effective_remaining(&self, attained: u64) -> u64 {
        let a = attained as f64;
        let bin = bin_of(attained);
        match self.lines[bin] {
            Some([l, h]) if bin + 1 < BINS || a < self.last_atom => {
                let v = l.at(a).min(h.at(a)).max(1.0).ceil();
                if v >= (BEYOND_SUPPORT - 1) as f64 {
                    BEYOND_SUPPORT - 1
                } else {
                    v as u64
                }
            }
            _ => BEYOND_SUPPORT.saturating_add(attained),
        }
    }
}

/// Where [`GittinsIndex::effective_remaining`] puts flows beyond the learned sizes' support:
/// above every value the index gives a covered flow (those are capped just below it).
pub const BEYOND_SUPPORT: u64 = 1 << 63;

/// Fewest learned flows (aged weight) at or above a bin for the index to rank flows that have
/// reached it (8): above that, the histogram's tail is a handful of samples, and an index read
/// from them orders the largest flows by noise (on a heavy tail, where those flows carry most
/// of the bytes, that costs 2–4% of the mean response time against LAS in `gittins-sweep`).
/// Such flows are treated as beyond the support ([`BEYOND_SUPPORT`]: least attained first).
/// Not applied to the histogram of a known law ([`SizeHistogram::from_cdf`]), which has no
/// sampling noise.
pub const MIN_TAIL_FLOWS: f64 = 8.0;

/// What a policy knows of a flow's route: its Gittins index (if learned) and its μ-rule rank.
#[derive(Debug, Clone, Copy, Default)]
pub struct RouteView<'a> {
    /// The route's index; `None` during its cold start.
    pub index: Option<&'a GittinsIndex>,
    /// Rank of the route by learned mean size (0 = smallest).
    pub rank: u64,
}

/// One learned route.
#[derive(Debug, Clone, Default)]
struct Route {
    hist: SizeHistogram,
    index: Option<GittinsIndex>,
    /// Completions when the index was last built.
    built_at: u64,
    rank: u64,
}

/// Summary of one route's learned sizes, for metrics.
#[derive(Debug, Clone, PartialEq)]
pub struct RouteSizes<'a> {
    /// The route (`None`: the shared estimate of routes beyond [`MAX_LEARNED_ROUTES`]).
    pub route: Option<&'a str>,
    /// Flows completed since the start.
    pub completed: u64,
    /// Aged mean size, bytes.
    pub mean: Option<f64>,
    /// Aged median and 99th percentile (bin upper edges), bytes.
    pub median: Option<f64>,
    pub p99: Option<f64>,
    /// Whether the Gittins index is in use (the cold start is over).
    pub indexed: bool,
    /// Rank under the μ-rule (0 = smallest mean).
    pub rank: u64,
}

/// The learned sizes of every route of a session (bounded: [`MAX_LEARNED_ROUTES`]).
#[derive(Debug, Clone, Default)]
pub struct LearnedSizes {
    routes: HashMap<String, Route>,
    /// Routes beyond the bound, and flows without a route.
    others: Route,
    /// Rank of a route with no completion (the pooled mean's rank).
    default_rank: u64,
}

impl LearnedSizes {
    /// Records a completed flow of `size` bytes on `route`. With `index`, the route's Gittins
    /// index is rebuilt when due. Returns whether any flow's key may have changed (an index
    /// was rebuilt or a route's μ-rule rank moved): the caller then re-keys the ready flows.
    pub fn record(&mut self, route: Option<&str>, size: u64, index: bool) -> bool {
        let bound = self.routes.len() < MAX_LEARNED_ROUTES;
        let r = match route {
            Some(name) if bound || self.routes.contains_key(name) => {
                self.routes.entry(name.to_owned()).or_default()
            }
            _ => &mut self.others,
        };
        let first = r.hist.completed() == 0;
        r.hist.record(size);
        let n = r.hist.completed();
        let due = n >= COLD_START_FLOWS && (r.index.is_none() || n - r.built_at >= REBUILD_EVERY);
        if !(due || first) {
            return false;
        }
        if due {
            r.built_at = n;
            if index {
                r.index = r.hist.gittins();
            }
        }
        self.rank();
        true
    }

    /// The μ-rule ranks: routes ordered by shrunk mean (module documentation).
    fn rank(&mut self) {
        let all = || self.routes.values().chain(std::iter::once(&self.others));
        let (w, s) = all().fold((0.0, 0.0), |(w, s), r| {
            (w + r.hist.weight(), s + r.hist.size_sum())
        });
        let pooled = if w > 0.0 { s / w } else { 0.0 };
        let k = COLD_START_FLOWS as f64;
        let shrunk = |h: &SizeHistogram| (h.size_sum() + k * pooled) / (h.weight() + k);
        let mut means: Vec<f64> = all().map(|r| shrunk(&r.hist)).collect();
        means.sort_by(f64::total_cmp);
        let rank_of = |m: f64| means.partition_point(|&x| x < m) as u64;
        for r in self
            .routes
            .values_mut()
            .chain(std::iter::once(&mut self.others))
        {
            r.rank = rank_of(shrunk(&r.hist));
        }
        self.default_rank = rank_of(pooled);
    }

    /// Sets `route`'s distribution to a known one (e.g. [`SizeHistogram::from_cdf`]), its index
    /// built: for experiments that compare learning with knowing.
    pub fn set_known(&mut self, route: &str, hist: SizeHistogram) {
        let bound = self.routes.len() < MAX_LEARNED_ROUTES;
        let r = if bound || self.routes.contains_key(route) {
            self.routes.entry(route.to_owned()).or_default()
        } else {
            &mut self.others
        };
        r.built_at = hist.completed();
        r.index = hist.gittins();
        r.hist = hist;
        self.rank();
    }

    /// What a policy knows of `route`.
    pub fn view(&self, route: Option<&str>) -> RouteView<'_> {
        let r = match route {
            Some(name) => self
                .routes
                .get(name)
                .or_else(|| (self.routes.len() >= MAX_LEARNED_ROUTES).then_some(&self.others)),
            None => Some(&self.others),
        };
        match r {
            Some(r) if r.hist.completed() > 0 => RouteView {
                index: r.index.as_ref(),
                rank: r.rank,
            },
            _ => RouteView {
                index: None,
                rank: self.default_rank,
            },
        }
    }

    /// The histogram of `route`, if it has one of its own.
    pub fn histogram(&self, route: &str) -> Option<&SizeHistogram> {
        self.routes.get(route).map(|r| &r.hist)
    }

    /// Every learned route (and the shared estimate, if used), for metrics.
    pub fn routes(&self) -> impl Iterator<Item = RouteSizes<'_>> + '_ {
        let named = self.routes.iter().map(|(k, r)| (Some(k.as_str()), r));
        let others = (self.others.hist.completed() > 0).then_some((None, &self.others));
        named.chain(others).map(|(route, r)| RouteSizes {
            route,
            completed: r.hist.completed(),
            mean: r.hist.mean(),
            median: r.hist.quantile(0.5),
            p99: r.hist.quantile(0.99),
            indexed: r.index.is_some(),
            rank: r.rank,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_are_monotone_and_edges_match() {
        let mut last = 0;
        for s in (0..60).flat_map(|e| [1u64 << e, (1u64 << e) + (1u64 << e) / 3]) {
            let b = bin_of(s);
            assert!(b >= last, "bin of {s}");
            last = b;
            assert!(
                lower_edge(b) <= s as f64 * (1.0 + 1e-12),
                "{s} below its bin {b}"
            );
            if b + 1 < BINS {
                assert!((s as f64) < lower_edge(b + 1), "{s} above its bin {b}");
            }
        }
        assert_eq!(bin_of(u64::MAX), BINS - 1);
        assert_eq!(bin_of(0), 0);
    }

    /// The index of a point mass at `s` is the remaining size `s − a`, up to the bin width.
    #[test]
    fn point_mass_index_is_remaining_size() {
        let mut h = SizeHistogram::default();
        for _ in 0..100 {
            h.record(100_000);
        }
        let g = h.gittins().unwrap();
        let edge = lower_edge(bin_of(100_000) + 1);
        for a in [0u64, 1000, 50_000, 99_000] {
            let r = g.effective_remaining(a) as f64;
            assert!((r - (edge - a as f64)).abs() <= 1.0, "a = {a}: {r}");
        }
    }

    /// Two sizes, 1 KiB (90%) and 1 MiB (10%): a new flow is worth about its chance to be
    /// short; once it has sent more than the short size it is known to be long.
    #[test]
    fn bimodal_index_favours_new_flows_then_knows_long_ones() {
        let mut h = SizeHistogram::default();
        for i in 0..1000 {
            h.record(if i % 10 == 0 { 1 << 20 } else { 1 << 10 });
        }
        let g = h.gittins().unwrap();
        let new = g.effective_remaining(0);
        // Δ = the short size: E[min(S, Δ)] / P(S ≤ Δ) ≈ atom / 0.9.
        let short_atom = lower_edge(bin_of(1 << 10) + 1);
        assert!((new as f64 - short_atom / 0.9).abs() < 2.0, "{new}");
        let long = g.effective_remaining(4096);
        let long_atom = lower_edge(bin_of(1 << 20) + 1);
        assert!((long as f64 - (long_atom - 4096.0)).abs() < 2.0, "{long}");
        assert!(new < long);
    }

    /// Flows past every learned size go after every covered flow, least attained first
    /// among them (not by arrival: the oldest would hold the connections).
    #[test]
    fn flows_beyond_the_support_go_last_least_attained_first() {
        let mut h = SizeHistogram::default();
        for _ in 0..1000 {
            h.record(1 << 10);
        }
        let g = h.gittins().unwrap();
        let covered = g.effective_remaining(0);
        let (a, b) = (
            g.effective_remaining(1 << 20),
            g.effective_remaining(1 << 24),
        );
        assert!(covered < BEYOND_SUPPORT, "{covered}");
        assert!(a >= BEYOND_SUPPORT && b >= BEYOND_SUPPORT, "{a} {b}");
        assert!(a < b, "less attained first: {a} {b}");
        assert_eq!(g.effective_remaining(u64::MAX), u64::MAX);
    }

    /// A tail of a handful of flows is not trusted: 995 flows of 1 KiB and 5 of 1 MiB. A flow
    /// past 1 KiB has only the 5 above it: beyond the support, least attained first, after a
    /// new flow. The law of the same sizes given exactly is trusted in the same region.
    #[test]
    fn a_tail_of_few_flows_ranks_as_beyond_the_support() {
        let mut h = SizeHistogram::default();
        for i in 0..1000 {
            h.record(if i % 200 == 0 { 1 << 20 } else { 1 << 10 });
        }
        let g = h.gittins().unwrap();
        let (new, past, further) = (
            g.effective_remaining(0),
            g.effective_remaining(4096),
            g.effective_remaining(1 << 19),
        );
        assert!(new < BEYOND_SUPPORT, "{new}");
        assert!(past >= BEYOND_SUPPORT && further > past, "{past} {further}");
        let exact = SizeHistogram::from_cdf(|x| {
            if x < 1025.0 {
                0.0
            } else if x < f64::from(1 << 20) + 1.0 {
                0.995
            } else {
                1.0
            }
        });
        let e = exact.gittins().unwrap();
        assert!(e.effective_remaining(4096) < BEYOND_SUPPORT);
    }

    /// Heavy tail (decreasing hazard rate): the index falls with attained service, so the
    /// effective remaining size grows — Gittins behaves as LAS.
    #[test]
    fn heavy_tail_index_grows_with_attained_service() {
        let mut h = SizeHistogram::default();
        // Pareto(α = 1.2) sizes from 1 KiB by inversion of a deterministic grid.
        for i in 0..1000 {
            let u = (f64::from(i) + 0.5) / 1000.0;
            h.record((1024.0 * u.powf(-1.0 / 1.2)) as u64);
        }
        let g = h.gittins().unwrap();
        let r: Vec<u64> = [0u64, 10_000, 100_000, 1_000_000]
            .iter()
            .map(|&a| g.effective_remaining(a))
            .collect();
        assert!(r.windows(2).all(|w| w[0] < w[1]), "{r:?}");
    }

    #[test]
    fn ageing_follows_a_change() {
        let mut h = SizeHistogram::default();
        for _ in 0..5000 {
            h.record(1 << 12);
        }
        assert!((h.mean().unwrap() - 4096.0).abs() < 1.0);
        for _ in 0..(3.0 * HORIZON_FLOWS) as usize {
            h.record(1 << 20);
        }
        // e^-3 ≈ 5% of the weight is still on the old size.
        let m = h.mean().unwrap();
        assert!(
            m > 0.9 * f64::from(1 << 20) && m < 0.97 * f64::from(1 << 20),
            "{m}"
        );
        assert!(h.weight() <= HORIZON_FLOWS + 1.0);
    }

    #[test]
    fn cold_start_then_index_and_ranks() {
        let mut l = LearnedSizes::default();
        for _ in 0..COLD_START_FLOWS - 1 {
            l.record(Some("bulk"), 1 << 24, true);
            l.record(Some("web"), 1 << 12, true);
        }
        assert!(l.view(Some("web")).index.is_none());
        assert!(l.record(Some("web"), 1 << 12, true), "the index is built");
        assert!(l.view(Some("web")).index.is_some());
        assert!(l.view(Some("bulk")).index.is_none());
        assert!(l.view(Some("web")).rank < l.view(Some("bulk")).rank);
        // A route never seen ranks as the pooled mean: between the two.
        let new = l.view(Some("new")).rank;
        assert!(l.view(Some("web")).rank < new && new <= l.view(Some("bulk")).rank);
    }

    #[test]
    fn routes_are_bounded() {
        let mut l = LearnedSizes::default();
        for i in 0..(2 * MAX_LEARNED_ROUTES) {
            l.record(Some(&format!("r{i}")), 1000, true);
        }
        assert_eq!(l.routes.len(), MAX_LEARNED_ROUTES);
        assert_eq!(l.others.hist.completed(), MAX_LEARNED_ROUTES as u64);
        assert_eq!(l.routes().count(), MAX_LEARNED_ROUTES + 1);
    }
}
