//! Scheduling policies: *whose* bytes a ready connection carries (the `schedule` function of
//! paper 000, Algorithm 2, as used by Algorithm 4).
//!
//! A policy never changes how much or when a connection sends: that is the connection's own
//! congestion control, mirrored by its virtual queue. It only orders the flows that have bytes
//! ready to go. Each policy is a sort key over per-flow state ([`FlowState`]); the ready flow with
//! the smallest key is served, one chunk at a time, so a decision costs O(log n) in the number of
//! ready flows ([`SchedQueue`]).
//!
//! `gittins`, `auto` and `mu` also look at what the session learned of the flow's route
//! ([`learned`]): the distribution of its flows' sizes.

pub mod learned;
mod queue;

pub use learned::{LearnedSizes, RouteView};
pub use queue::SchedQueue;

use std::fmt;
use std::str::FromStr;

/// Default class threshold of [`Order::Psps`]: 200 segments of 1448 bytes. Paper 003 (Fig. 1,
/// Section II-C) finds the optimum of E\[T\] under PS+PS near 200 packets for its web-like
/// bounded-Pareto workload; it is a starting point, not a universal optimum.
pub const DEFAULT_PSPS_THRESHOLD: u64 = 200 * 1448;

/// The ordering a policy applies inside one priority class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Plain TCP through the same code path: connection *i* carries only its own flow *i*
    /// (Algorithm 2 with `schedule() = (i, s)`). Bytes a dead connection owed are re-sent by the
    /// others in arrival order.
    Tcp,
    /// Shortest remaining processing time (paper 000, Section 4.2): the flow with the fewest
    /// bytes left to send, `size − sent`. Flows of unknown size come after every flow of known
    /// size and are served least-attained-service among themselves.
    Srpt,
    /// Least attained service (paper 000, Section 4.2; paper 003's FB): the flow that has sent
    /// the fewest bytes. Needs no size knowledge.
    Las,
    /// FAIR (paper 000, Section 4.2, after the Fair Sojourn Protocol): the flow plain TCP would
    /// finish first, i.e. the least *virtual* remaining `size − (bytes its own connection has
    /// carried)`. With equally fast connections no flow finishes later than under `tcp`.
    /// Unknown sizes: after every known one, least attained service among themselves.
    Fair,
    /// PS+PS / RuN2C two-class threshold (paper 003, Section II-C): the first `threshold` bytes
    /// of every flow go before anything else; round robin, one chunk per turn, inside each class.
    Psps { threshold: u64 },
    /// The Gittins index policy (paper 000, Section 4; optimal among size-blind policies for a
    /// known size distribution): a flow of unknown size is ranked by its effective remaining
    /// size `1/G(sent)` under its route's learned distribution ([`learned`]), a flow of known
    /// size by its remaining size (its Gittins index exactly), on one scale. During a route's
    /// cold start its flows of unknown size are ranked as under `srpt`.
    Gittins,
    /// The policy that needs no tuning: flows of known size SRPT-like, flows of unknown size by
    /// their Gittins index — the ranking of [`Order::Gittins`]. With `fair`, a flow of known
    /// size is ranked by its *virtual* remaining size as under `fair` (no flow of known size
    /// finishes later than under `tcp`, paper 000, Section 4.2).
    Auto { fair: bool },
}

/// Priority classes above the [`Order`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Classes {
    /// One class: the order alone.
    #[default]
    None,
    /// Strict classes set by the operator: the lowest class number (a route's `class` in the
    /// configuration) first (the `priority` policy).
    Static,
    /// The μ-rule (paper 000, Proposition 2): types are routes, and the type present with the
    /// smallest learned mean flow size goes first ([`learned`]).
    Mu,
}

/// A scheduling policy: an [`Order`], optionally inside priority [`Classes`] (the `priority`
/// and `mu` policies), where `order` applies inside a class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    pub order: Order,
    pub classes: Classes,
}

/// Per-flow state a policy may look at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FlowState {
    /// Arrival order of the flow in its session (1, 2, ...).
    pub arrival: u64,
    /// Priority class (lower goes first under `priority`).
    pub class: u8,
    /// Bytes of this flow sent so far, on any connection (attained service).
    pub sent: u64,
    /// Where the sender knows the flow's current transfer ends (stream offset), if it knows.
    pub known_end: Option<u64>,
    /// Bytes the flow's *own* connection has carried: what plain TCP would have sent of it.
    pub virtual_sent: u64,
    /// Round-robin ticket: the value of a session counter when this flow was last served.
    pub turn: u64,
}

/// Sort key of a flow; smaller is served first. Slot 0 is the class (0 without classes).
pub type SortKey = [u64; 4];

impl Policy {
    pub const TCP: Policy = Policy {
        order: Order::Tcp,
        classes: Classes::None,
    };

    pub fn new(order: Order) -> Self {
        Policy {
            order,
            classes: Classes::None,
        }
    }

    /// Whether every connection sends only its own flow.
    pub fn is_tcp(&self) -> bool {
        self.order == Order::Tcp
    }

    /// Whether the key depends on the bytes the flow's own connection carried (so it changes
    /// when *that* connection sends, whoever's bytes it carries).
    pub fn uses_virtual(&self) -> bool {
        matches!(self.order, Order::Fair | Order::Auto { fair: true })
    }

    /// Whether keys depend on the route's learned sizes ([`RouteView`]).
    pub fn learns(&self) -> bool {
        self.uses_index() || self.classes == Classes::Mu
    }

    /// Whether keys use the route's Gittins index.
    pub fn uses_index(&self) -> bool {
        matches!(self.order, Order::Gittins | Order::Auto { .. })
    }

    /// The sort key of a flow in state `f`, knowing nothing of its route (every route in cold
    /// start).
    pub fn key(&self, f: &FlowState) -> SortKey {
        self.key_on(f, &RouteView::default())
    }

    /// The sort key of a flow in state `f` on a route of which `route` is known.
    pub fn key_on(&self, f: &FlowState, route: &RouteView<'_>) -> SortKey {
        let class = match self.classes {
            Classes::None => 0,
            Classes::Static => u64::from(f.class),
            Classes::Mu => route.rank,
        };
        let remaining = |done: u64| f.known_end.map(|end| end.saturating_sub(done));
        let gittins = |known: Option<u64>| match (known, route.index) {
            (Some(r), _) => [0, r, f.arrival],
            (None, Some(index)) => [0, index.effective_remaining(f.sent), f.arrival],
            (None, None) => [1, f.sent, f.arrival],
        };
        let [a, b, c] = match self.order {
            Order::Tcp => [f.arrival, 0, 0],
            Order::Las => [f.sent, f.arrival, 0],
            Order::Srpt => match remaining(f.sent) {
                Some(r) => [0, r, f.arrival],
                None => [1, f.sent, f.arrival],
            },
            Order::Fair => match remaining(f.virtual_sent) {
                Some(r) => [0, r, f.arrival],
                None => [1, f.sent, f.arrival],
            },
            Order::Psps { threshold } => [u64::from(f.sent >= threshold), f.turn, f.arrival],
            Order::Gittins | Order::Auto { fair: false } => gittins(remaining(f.sent)),
            Order::Auto { fair: true } => gittins(remaining(f.virtual_sent)),
        };
        [class, a, b, c]
    }
}

impl Default for Policy {
    fn default() -> Self {
        Policy::new(Order::Fair)
    }
}

impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Order::Tcp => f.write_str("tcp"),
            Order::Srpt => f.write_str("srpt"),
            Order::Las => f.write_str("las"),
            Order::Fair => f.write_str("fair"),
            Order::Psps { threshold } if *threshold == DEFAULT_PSPS_THRESHOLD => {
                f.write_str("psps")
            }
            Order::Psps { threshold } => write!(f, "psps:{threshold}"),
            Order::Gittins => f.write_str("gittins"),
            Order::Auto { fair: false } => f.write_str("auto"),
            Order::Auto { fair: true } => f.write_str("auto:fair"),
        }
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.classes {
            Classes::None => self.order.fmt(f),
            Classes::Static => write!(f, "priority:{}", self.order),
            Classes::Mu => write!(f, "mu:{}", self.order),
        }
    }
}

/// A policy name that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown policy {0:?}: expected tcp, srpt, las, fair, psps[:BYTES], gittins, auto[:fair], \
     priority[:INNER] or mu[:INNER]"
)]
pub struct ParsePolicyError(pub String);

impl FromStr for Order {
    type Err = ParsePolicyError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || ParsePolicyError(s.to_owned());
        Ok(match s.trim().to_ascii_lowercase().as_str() {
            "tcp" => Order::Tcp,
            "srpt" => Order::Srpt,
            "las" | "fb" => Order::Las,
            "fair" | "fsp" => Order::Fair,
            "psps" | "run2c" => Order::Psps {
                threshold: DEFAULT_PSPS_THRESHOLD,
            },
            "gittins" => Order::Gittins,
            "auto" => Order::Auto { fair: false },
            "auto:fair" => Order::Auto { fair: true },
            other => {
                let t = other
                    .strip_prefix("psps:")
                    .or_else(|| other.strip_prefix("run2c:"))
                    .ok_or_else(err)?;
                let threshold = t.parse::<u64>().map_err(|_| err())?;
                if threshold == 0 {
                    return Err(err());
                }
                Order::Psps { threshold }
            }
        })
    }
}

impl FromStr for Policy {
    type Err = ParsePolicyError;
    /// `tcp`, `srpt`, `las`, `fair`, `psps`, `psps:BYTES`, `gittins`, `auto`, `auto:fair`,
    /// `priority` (= `priority:fair`), `priority:INNER`, `mu` (= `mu:fair`) or `mu:INNER` with
    /// any of the non-`tcp` orders inside.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase();
        for (name, classes) in [("priority", Classes::Static), ("mu", Classes::Mu)] {
            let Some(rest) = lower.strip_prefix(name) else {
                continue;
            };
            let order = match rest.strip_prefix(':') {
                None if rest.is_empty() => Order::Fair,
                None => break,
                Some(inner) => inner.parse().map_err(|_| ParsePolicyError(s.to_owned()))?,
            };
            if order == Order::Tcp {
                return Err(ParsePolicyError(s.to_owned()));
            }
            return Ok(Policy { order, classes });
        }
        Ok(Policy::new(lower.parse()?))
    }
}

/// A policy is written by its name (`"srpt"`, `"priority:las"`), as [`FromStr`] reads it.
#[cfg(feature = "serde")]
impl serde::Serialize for Policy {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Policy {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(arrival: u64, sent: u64, end: Option<u64>) -> FlowState {
        FlowState {
            arrival,
            sent,
            known_end: end,
            ..FlowState::default()
        }
    }

    #[test]
    fn names_roundtrip() {
        for name in [
            "tcp",
            "srpt",
            "las",
            "fair",
            "psps",
            "psps:1000",
            "priority:srpt",
            "priority:psps:7",
            "gittins",
            "auto",
            "auto:fair",
            "mu:srpt",
            "mu:gittins",
            "priority:auto:fair",
        ] {
            let p: Policy = name.parse().unwrap();
            assert_eq!(p.to_string(), name);
        }
        assert_eq!(
            "priority".parse::<Policy>().unwrap().to_string(),
            "priority:fair"
        );
        assert_eq!("mu".parse::<Policy>().unwrap().to_string(), "mu:fair");
        for bad in [
            "",
            "sjf",
            "psps:0",
            "psps:x",
            "priority:tcp",
            "priority:",
            "mu:tcp",
            "mux",
            "gittins:3",
            "auto:srpt",
        ] {
            assert!(bad.parse::<Policy>().is_err(), "{bad} must not parse");
        }
    }

    #[test]
    fn srpt_prefers_least_remaining_then_unknown_by_las() {
        let p = Policy::new(Order::Srpt);
        let short = p.key(&st(2, 0, Some(10)));
        let long = p.key(&st(1, 50, Some(1000)));
        let unknown_young = p.key(&st(3, 5, None));
        let unknown_old = p.key(&st(4, 500, None));
        assert!(short < long && long < unknown_young && unknown_young < unknown_old);
    }

    #[test]
    fn las_prefers_least_sent() {
        let p = Policy::new(Order::Las);
        assert!(p.key(&st(9, 1, None)) < p.key(&st(1, 2, Some(3))));
    }

    #[test]
    fn fair_orders_by_virtual_remaining() {
        let p = Policy::new(Order::Fair);
        // Flow 1 has sent much for real but its own connection carried little: under plain TCP
        // it would finish later than flow 2.
        let a = FlowState {
            arrival: 1,
            sent: 900,
            known_end: Some(1000),
            virtual_sent: 100,
            ..Default::default()
        };
        let b = FlowState {
            arrival: 2,
            sent: 0,
            known_end: Some(500),
            virtual_sent: 0,
            ..Default::default()
        };
        assert!(p.key(&b) < p.key(&a));
    }

    #[test]
    fn psps_serves_first_class_first_and_round_robin_inside() {
        let p = Policy::new(Order::Psps { threshold: 100 });
        let young = FlowState {
            sent: 99,
            turn: 50,
            ..Default::default()
        };
        let old = FlowState {
            sent: 100,
            turn: 1,
            ..Default::default()
        };
        assert!(p.key(&young) < p.key(&old));
        let served_long_ago = FlowState {
            sent: 10,
            turn: 3,
            ..Default::default()
        };
        assert!(p.key(&served_long_ago) < p.key(&young));
    }

    #[test]
    fn priority_classes_dominate() {
        let p: Policy = "priority:srpt".parse().unwrap();
        let urgent_big = FlowState {
            class: 0,
            known_end: Some(1 << 30),
            ..Default::default()
        };
        let lazy_small = FlowState {
            class: 1,
            known_end: Some(1),
            ..Default::default()
        };
        assert!(p.key(&urgent_big) < p.key(&lazy_small));
    }

    /// Sizes all 1 MiB: the flow nearest its end goes first under Gittins (least effective
    /// remaining), where LAS would serve the newest; known sizes share the scale.
    #[test]
    fn gittins_ranks_by_effective_remaining_on_the_learned_distribution() {
        let mut l = LearnedSizes::default();
        for _ in 0..learned::COLD_START_FLOWS {
            l.record(Some("r"), 1 << 20, true);
        }
        let view = l.view(Some("r"));
        assert!(view.index.is_some());
        let p: Policy = "gittins".parse().unwrap();
        let halfway = p.key_on(&st(1, 1 << 19, None), &view);
        let new = p.key_on(&st(2, 0, None), &view);
        assert!(halfway < new);
        let las = Policy::new(Order::Las);
        assert!(las.key_on(&st(2, 0, None), &view) < las.key_on(&st(1, 1 << 19, None), &view));
        // A known flow with 100 KiB left beats the half-done unknown one (≈ 512 KiB left)...
        assert!(p.key_on(&st(3, 0, Some(100 << 10)), &view) < halfway);
        // ... one with 900 KiB left does not.
        assert!(halfway < p.key_on(&st(4, 0, Some(900 << 10)), &view));
        // Cold start (no index): unknown flows after known ones, LAS among them, as `srpt`.
        let cold = RouteView::default();
        let srpt = Policy::new(Order::Srpt);
        for f in [st(1, 1 << 19, None), st(3, 0, Some(100 << 10))] {
            assert_eq!(p.key_on(&f, &cold), srpt.key(&f));
        }
    }

    #[test]
    fn auto_fair_ranks_known_flows_by_virtual_remaining() {
        let p: Policy = "auto:fair".parse().unwrap();
        assert!(p.uses_virtual() && p.uses_index());
        let a = FlowState {
            arrival: 1,
            sent: 900,
            known_end: Some(1000),
            virtual_sent: 100,
            ..Default::default()
        };
        let b = FlowState {
            arrival: 2,
            known_end: Some(500),
            ..Default::default()
        };
        assert!(p.key(&b) < p.key(&a));
        assert!(
            "auto".parse::<Policy>().unwrap().key(&a) < "auto".parse::<Policy>().unwrap().key(&b)
        );
    }

    /// The μ-rule: the route with the smaller learned mean goes first, whatever the inner order
    /// says; inside a route the inner order applies.
    #[test]
    fn mu_serves_the_route_with_the_smallest_learned_mean_first() {
        let mut l = LearnedSizes::default();
        for _ in 0..100 {
            l.record(Some("bulk"), 1 << 26, false);
            l.record(Some("api"), 1 << 12, false);
        }
        let p: Policy = "mu:srpt".parse().unwrap();
        let api_big = p.key_on(&st(1, 0, Some(1 << 30)), &l.view(Some("api")));
        let bulk_small = p.key_on(&st(2, 0, Some(1)), &l.view(Some("bulk")));
        assert!(api_big < bulk_small);
        let api_small = p.key_on(&st(3, 0, Some(10)), &l.view(Some("api")));
        assert!(api_small < api_big);
        // The same flows under `srpt` alone: size decides.
        let srpt = Policy::new(Order::Srpt);
        assert!(srpt.key(&st(2, 0, Some(1))) < srpt.key(&st(1, 0, Some(1 << 30))));
    }
}
