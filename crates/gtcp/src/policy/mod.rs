//! Scheduling policies: *whose* bytes a ready connection carries (the `schedule` function of
//! paper 000, Algorithm 2, as used by Algorithm 4).
//!
//! A policy never changes how much or when a connection sends: that is the connection's own
//! congestion control, mirrored by its virtual queue. It only orders the flows that have bytes
//! ready to go. Each policy is a sort key over per-flow state ([`FlowState`]); the ready flow with
//! the smallest key is served, one chunk at a time, so a decision costs O(log n) in the number of
//! ready flows ([`SchedQueue`]).

mod queue;

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
}

/// A scheduling policy: an [`Order`], optionally inside strict priority classes.
///
/// With `classes`, the flow of the lowest class number (a route's `class` in the configuration)
/// always goes first and `order` applies inside a class (the `priority` policy).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    pub order: Order,
    pub classes: bool,
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
        classes: false,
    };

    pub fn new(order: Order) -> Self {
        Policy {
            order,
            classes: false,
        }
    }

    /// Whether every connection sends only its own flow.
    pub fn is_tcp(&self) -> bool {
        self.order == Order::Tcp
    }

    /// Whether the key depends on the bytes the flow's own connection carried (so it changes
    /// when *that* connection sends, whoever's bytes it carries).
    pub fn uses_virtual(&self) -> bool {
        self.order == Order::Fair
    }

    /// The sort key of a flow in state `f`.
    pub fn key(&self, f: &FlowState) -> SortKey {
        let class = if self.classes { u64::from(f.class) } else { 0 };
        let remaining = |done: u64| f.known_end.map(|end| end.saturating_sub(done));
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
        }
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.classes {
            write!(f, "priority:{}", self.order)
        } else {
            self.order.fmt(f)
        }
    }
}

/// A policy name that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown policy {0:?}: expected tcp, srpt, las, fair, psps[:BYTES] or priority[:INNER]")]
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
    /// `tcp`, `srpt`, `las`, `fair`, `psps`, `psps:BYTES`, `priority` (= `priority:fair`) or
    /// `priority:INNER` with any of the non-`tcp` orders inside.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase();
        if lower == "priority" {
            return Ok(Policy {
                order: Order::Fair,
                classes: true,
            });
        }
        if let Some(inner) = lower.strip_prefix("priority:") {
            let order: Order = inner.parse().map_err(|_| ParsePolicyError(s.to_owned()))?;
            if order == Order::Tcp {
                return Err(ParsePolicyError(s.to_owned()));
            }
            return Ok(Policy {
                order,
                classes: true,
            });
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
        ] {
            let p: Policy = name.parse().unwrap();
            assert_eq!(p.to_string(), name);
        }
        assert_eq!(
            "priority".parse::<Policy>().unwrap().to_string(),
            "priority:fair"
        );
        for bad in ["", "sjf", "psps:0", "psps:x", "priority:tcp", "priority:"] {
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
}
