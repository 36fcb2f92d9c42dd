//! Competing flows on a route (paper 000, Section 5 (i) and Table 1), streaming.
//!
//! A flow is active from its first to its last data segment; two flows compete when they share
//! a route and their activity periods overlap. A flow competes exactly when it overlaps at
//! least one other flow of its route, that is when its connected group of overlapping
//! activity periods (a *component* of the route's interval graph) has two flows or more.
//!
//! Data segments arrive in time order, so a route's components form a list ordered by start.
//! When a flow starts at `t`, it joins the last component if that component's activity (as
//! seen so far) reaches `t`, else it opens a new one. When a flow of component `k` sends data
//! at `t`, its period now covers every later start, so `k` and all components after it merge.
//! A component is final once it has no live flow and neither has any component before it, and
//! nothing can join it any more (a later component exists, or its activity ended before now).
//! Memory: the components of a route that are not final, with the activity periods of their
//! finished flows (for the concurrency distribution), at most [`PERIOD_BUDGET`] periods over
//! all routes: a route that stays busy for hours never resolves its component, and its periods
//! must not grow without bound.

use std::collections::VecDeque;

/// Most activity periods held at once, over all routes, for the concurrency distribution (16
/// bytes each: 16 MiB). A component whose periods do not fit still counts exactly in Table 1;
/// only its time-weighted concurrency is left out (counted in
/// [`Table1::concurrency_left_out`]).
pub const PERIOD_BUDGET: usize = 1 << 20;

/// Levels of the concurrency histogram; the last one collects every higher level.
pub const CONCURRENCY_LEVELS: usize = 256;

/// Paper 000's Table 1 for one capture (or one time window of it), and the distribution of
/// the number of concurrent flows on a route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table1 {
    /// Routes (host pairs) that carried at least one flow with data.
    pub routes: u64,
    /// Routes with at least two competing flows.
    pub routes_competing: u64,
    /// Flows with at least one data segment.
    pub flows: u64,
    /// Flows that overlap another flow of their route.
    pub flows_competing: u64,
    /// Payload bytes (from the IP length fields, retransmissions included) of all flows.
    pub bytes: u64,
    /// Payload bytes of the competing flows.
    pub bytes_competing: u64,
    /// Connections seen without any data segment (handshakes, scans): not flows here.
    pub connections_without_data: u64,
    /// `concurrency_ns[n]`: total time (ns, summed over routes) during which exactly `n` flows
    /// were active on a route (`n ≥ 1`; the last level counts `n ≥ CONCURRENCY_LEVELS - 1`).
    pub concurrency_ns: Vec<u128>,
    /// Largest number of flows active at once on one route.
    pub peak_concurrency: u64,
    /// Components left out of `concurrency_ns` (beyond [`PERIOD_BUDGET`]).
    pub concurrency_left_out: u64,
}

impl Default for Table1 {
    fn default() -> Self {
        Self {
            routes: 0,
            routes_competing: 0,
            flows: 0,
            flows_competing: 0,
            bytes: 0,
            bytes_competing: 0,
            connections_without_data: 0,
            concurrency_ns: vec![0; CONCURRENCY_LEVELS],
            peak_concurrency: 0,
            concurrency_left_out: 0,
        }
    }
}

impl Table1 {
    /// Share of time with `n` concurrent flows among the time with at least one, per level.
    pub fn concurrency_shares(&self) -> Vec<(usize, f64)> {
        let total: u128 = self.concurrency_ns.iter().sum();
        self.concurrency_ns
            .iter()
            .enumerate()
            .skip(1)
            .filter(|(_, t)| **t > 0)
            .map(|(n, t)| (n, *t as f64 / total as f64))
            .collect()
    }
}

/// The activity periods held over all routes, against a budget ([`PERIOD_BUDGET`] by default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Periods {
    /// Periods held now.
    pub held: usize,
    /// Most periods held at once.
    pub budget: usize,
}

impl Default for Periods {
    fn default() -> Self {
        Self {
            held: 0,
            budget: PERIOD_BUDGET,
        }
    }
}

/// A group of flows of one route whose activity periods overlap in a chain.
#[derive(Debug, Clone)]
struct Component {
    /// Identifier (increasing with the start); flows of merged components keep theirs.
    id: u64,
    /// Latest data segment of any member so far (ns).
    end: i64,
    /// Members (flows that joined).
    flows: u64,
    /// Members not finished yet.
    live: u64,
    /// Payload bytes of the finished members.
    bytes: u64,
    /// Activity periods of the finished members (empty once `overflow`).
    periods: Vec<(i64, i64)>,
    overflow: bool,
}

/// The components of one route.
#[derive(Debug, Clone, Default)]
pub struct Route {
    comps: VecDeque<Component>,
    next_id: u64,
}

/// Per route and capture-wide result of finished components.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Resolved {
    /// Whether some finished component of the route had two flows or more.
    pub competing: bool,
}

impl Route {
    /// A flow's first data segment at `t`: returns its component id.
    pub fn start(&mut self, t: i64) -> u64 {
        if let Some(last) = self.comps.back_mut() {
            if t <= last.end {
                last.flows += 1;
                last.live += 1;
                return last.id;
            }
        }
        let id = self.next_id;
        self.next_id += 1;
        self.comps.push_back(Component {
            id,
            end: t,
            flows: 1,
            live: 1,
            bytes: 0,
            periods: Vec::new(),
            overflow: false,
        });
        id
    }

    /// Index of the component that holds flows of id `id`.
    fn index(&self, id: u64) -> usize {
        // The last component whose id is at most `id` (merges keep the first id of a run);
        // most often the last one.
        match self.comps.back() {
            Some(last) if last.id <= id => self.comps.len() - 1,
            _ => self.comps.partition_point(|c| c.id <= id).saturating_sub(1),
        }
    }

    /// A later data segment at `t` of a flow of component `id`; `held` counts the periods held
    /// over all routes.
    pub fn data(&mut self, id: u64, t: i64, held: &mut Periods) {
        let i = self.index(id);
        while self.comps.len() > i + 1 {
            if let Some(c) = self.comps.pop_back() {
                let n = self.comps.len();
                let into = &mut self.comps[n - 1];
                into.end = into.end.max(c.end);
                into.flows += c.flows;
                into.live += c.live;
                into.bytes += c.bytes;
                if into.overflow || c.overflow {
                    held.held -= into.periods.len() + c.periods.len();
                    into.overflow = true;
                    into.periods = Vec::new();
                } else {
                    into.periods.extend_from_slice(&c.periods);
                }
            }
        }
        let c = &mut self.comps[i];
        c.end = c.end.max(t);
    }

    /// A flow of component `id` finished: active over `[first, last]`, `bytes` of payload.
    pub fn finish(&mut self, id: u64, first: i64, last: i64, bytes: u64, held: &mut Periods) {
        let i = self.index(id);
        let c = &mut self.comps[i];
        c.live = c.live.saturating_sub(1);
        c.bytes += bytes;
        if c.overflow {
            return;
        }
        if held.held >= held.budget {
            held.held -= c.periods.len();
            c.overflow = true;
            c.periods = Vec::new();
        } else {
            c.periods.push((first, last));
            held.held += 1;
        }
    }

    /// Moves every final component into `table` (all of them with `now = i64::MAX`, at the end
    /// of a capture). Returns whether one of them had competing flows.
    pub fn settle(&mut self, now: i64, table: &mut Table1, held: &mut Periods) -> Resolved {
        let mut r = Resolved::default();
        while let Some(front) = self.comps.front() {
            let no_join = self.comps.len() > 1 || front.end < now;
            if front.live > 0 || !no_join {
                break;
            }
            let Some(c) = self.comps.pop_front() else {
                break;
            };
            table.flows += c.flows;
            table.bytes += c.bytes;
            if c.flows >= 2 {
                table.flows_competing += c.flows;
                table.bytes_competing += c.bytes;
                r.competing = true;
            }
            if c.overflow {
                table.concurrency_left_out += 1;
            } else {
                held.held -= c.periods.len();
                concurrency(c.periods, table);
            }
        }
        r
    }

    /// No component left: the route can be forgotten (its counts are in the table).
    pub fn is_empty(&self) -> bool {
        self.comps.is_empty()
    }
}

/// Adds the time-weighted number of active flows of one component's periods to `table`.
fn concurrency(periods: Vec<(i64, i64)>, table: &mut Table1) {
    // Starts sort before ends at the same instant: periods are closed intervals.
    let mut events: Vec<(i64, i8)> = Vec::with_capacity(periods.len() * 2);
    for (s, e) in periods {
        events.push((s, -1));
        events.push((e, 1));
    }
    events.sort_unstable();
    let mut level: i64 = 0;
    let mut prev = i64::MIN;
    for (t, kind) in events {
        if level > 0 {
            let idx = (level as usize).min(CONCURRENCY_LEVELS - 1);
            table.concurrency_ns[idx] += t.saturating_sub(prev) as u128;
        }
        level -= i64::from(kind);
        table.peak_concurrency = table.peak_concurrency.max(level.max(0) as u64);
        prev = t;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The model: sort the periods, a flow competes iff it overlaps another one.
    fn model(periods: &[(i64, i64, u64)]) -> (u64, u64, u64, u64) {
        let mut flows_c = 0;
        let mut bytes_c = 0;
        for (i, a) in periods.iter().enumerate() {
            let overlaps = periods
                .iter()
                .enumerate()
                .any(|(j, b)| i != j && a.0 <= b.1 && b.0 <= a.1);
            if overlaps {
                flows_c += 1;
                bytes_c += a.2;
            }
        }
        let bytes: u64 = periods.iter().map(|p| p.2).sum();
        (periods.len() as u64, flows_c, bytes, bytes_c)
    }

    /// Drives a route through the periods as a capture would: every flow has data segments
    /// at its start, at `mid` points and at its end, all events in time order; each flow is
    /// finished some time after its last data segment (`lag`), and `settle` runs after every
    /// event.
    fn drive(periods: &[(i64, i64, u64)], lag: i64) -> Table1 {
        drive_with(periods, lag, PERIOD_BUDGET)
    }

    fn drive_with(periods: &[(i64, i64, u64)], lag: i64, budget: usize) -> Table1 {
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
        enum Ev {
            Start,
            Data,
            Finish,
        }
        let mut evs: Vec<(i64, Ev, usize)> = Vec::new();
        for (i, (s, e, _)) in periods.iter().enumerate() {
            evs.push((*s, Ev::Start, i));
            evs.push(((*s + *e) / 2, Ev::Data, i));
            evs.push((*e, Ev::Data, i));
            evs.push((*e + lag, Ev::Finish, i));
        }
        evs.sort();
        let mut route = Route::default();
        let mut table = Table1::default();
        let mut ids = vec![0u64; periods.len()];
        let mut held = Periods { held: 0, budget };
        for (t, ev, i) in evs {
            match ev {
                Ev::Start => ids[i] = route.start(t),
                Ev::Data => route.data(ids[i], t, &mut held),
                Ev::Finish => {
                    route.finish(ids[i], periods[i].0, periods[i].1, periods[i].2, &mut held)
                }
            }
            route.settle(t, &mut table, &mut held);
        }
        route.settle(i64::MAX, &mut table, &mut held);
        assert!(route.is_empty());
        assert_eq!(held.held, 0);
        table
    }

    proptest! {
        #[test]
        fn streaming_components_match_the_pairwise_model(
            raw in prop::collection::vec((0i64..200, 0i64..40, 1u64..1000), 1..30),
            lag in 0i64..100,
        ) {
            let periods: Vec<(i64, i64, u64)> = raw.iter().map(|(s, d, b)| (*s, s + d, *b)).collect();
            let t = drive(&periods, lag);
            prop_assert_eq!((t.flows, t.flows_competing, t.bytes, t.bytes_competing), model(&periods));
        }
    }

    #[test]
    fn past_the_budget_a_component_leaves_the_concurrency_out_but_counts_in_table_1() {
        // Three overlapping flows, then one alone; room for two periods.
        let p = [(0, 10, 5), (2, 12, 6), (4, 14, 7), (30, 40, 8)];
        let t = drive_with(&p, 100, 2);
        assert_eq!((t.flows, t.flows_competing), (4, 3));
        assert_eq!((t.bytes, t.bytes_competing), (26, 18));
        assert_eq!(t.concurrency_left_out, 1);
        // Only the lone flow's 10 time units are in the distribution.
        assert_eq!(t.concurrency_ns[1], 10);
        assert_eq!(t.concurrency_ns[2..].iter().sum::<u128>(), 0);
    }

    #[test]
    fn concurrency_is_time_weighted() {
        // [0,10] and [5,20]: 1 flow for 5+10, 2 flows for 5; peak 2.
        let t = drive(&[(0, 10, 1), (5, 20, 1)], 3);
        assert_eq!(t.concurrency_ns[1], 15);
        assert_eq!(t.concurrency_ns[2], 5);
        assert_eq!(t.peak_concurrency, 2);
        assert_eq!(t.flows_competing, 2);
        let t = drive(&[(0, 10, 1), (11, 20, 1)], 3);
        assert_eq!((t.flows_competing, t.peak_concurrency), (0, 1));
        // Touching periods overlap at one instant (closed intervals).
        let t = drive(&[(0, 10, 1), (10, 20, 1)], 0);
        assert_eq!((t.flows_competing, t.peak_concurrency), (2, 2));
    }
}
