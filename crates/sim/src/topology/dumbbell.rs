//! The dumbbell: `N` senders on access links → router A → bottleneck → router B → `N`
//! receivers on access links, every link duplex (ACKs take the reverse links).

use super::{Network, NetworkBuilder};
use crate::packet::{LinkId, NodeId};
use crate::queue::QueueConfig;
use crate::time::millis;
use serde::{Deserialize, Serialize};

/// Parameters of a dumbbell, as they appear in a scenario file. Rates are bits per second,
/// delays milliseconds (one way).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DumbbellConfig {
    /// Number of sender/receiver pairs.
    pub pairs: u32,
    /// Sender access link rate.
    pub access_rate_bps: u64,
    /// Sender access link propagation delay.
    pub access_delay_ms: f64,
    /// Receiver access link rate.
    pub receiver_rate_bps: u64,
    /// Receiver access link propagation delay.
    pub receiver_delay_ms: f64,
    /// Bottleneck (A → B and B → A) rate.
    pub bottleneck_rate_bps: u64,
    /// Bottleneck propagation delay.
    pub bottleneck_delay_ms: f64,
    /// Queue at the head of the forward bottleneck (A → B).
    pub bottleneck_queue: QueueConfig,
    /// Queue at the head of every other link (access links, reverse bottleneck).
    pub other_queue: QueueConfig,
    /// ECN marking at the forward bottleneck: data packets arriving while at least this
    /// many packets wait are marked congestion-experienced (RFC 3168; senders react only
    /// with `tcp.ecn`). `None` (the default): no marking.
    pub ecn_mark_packets: Option<u32>,
}

impl Default for DumbbellConfig {
    /// Setting S1 of paper 003 (Section IV): 10 pairs, 10 Mbit/s access links, a 10 Mbit/s
    /// bottleneck with a 100-packet drop-tail buffer, 6 ms one-way propagation in total
    /// (1 ms + 4 ms + 1 ms; the paper gives only the total).
    fn default() -> Self {
        DumbbellConfig {
            pairs: 10,
            access_rate_bps: 10_000_000,
            access_delay_ms: 1.0,
            receiver_rate_bps: 10_000_000,
            receiver_delay_ms: 1.0,
            bottleneck_rate_bps: 10_000_000,
            bottleneck_delay_ms: 4.0,
            bottleneck_queue: QueueConfig::DropTailPackets { limit: 100 },
            other_queue: QueueConfig::DropTailPackets { limit: 10_000 },
            ecn_mark_packets: None,
        }
    }
}

/// The two network settings of paper 003's Section IV: a 10 Mbit/s bottleneck with a
/// 100-packet drop-tail buffer behind 10 access links, and
///
/// * S1: 10 Mbit/s access links, "a total network propagation delay of 6 ms";
/// * S2: 2 Mbit/s access links, "a total propagation delay of 60 ms".
///
/// The paper gives only the totals; we read them as one-way and put 2/3 on the bottleneck
/// (S1: 1 + 4 + 1 ms, S2: 10 + 40 + 10 ms). Receiver access links are as the senders'.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PaperSetting {
    /// 10 Mbit/s access, 6 ms one way.
    S1,
    /// 2 Mbit/s access, 60 ms one way.
    S2,
}

impl PaperSetting {
    /// The dumbbell of this setting (drop-tail bottleneck of 100 packets).
    pub fn topology(self) -> DumbbellConfig {
        match self {
            PaperSetting::S1 => DumbbellConfig::default(),
            PaperSetting::S2 => DumbbellConfig {
                access_rate_bps: 2_000_000,
                access_delay_ms: 10.0,
                receiver_rate_bps: 2_000_000,
                receiver_delay_ms: 10.0,
                bottleneck_delay_ms: 40.0,
                ..DumbbellConfig::default()
            },
        }
    }

    /// "S1" or "S2".
    pub fn name(self) -> &'static str {
        match self {
            PaperSetting::S1 => "S1",
            PaperSetting::S2 => "S2",
        }
    }
}

impl std::str::FromStr for PaperSetting {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "S1" | "s1" => Ok(PaperSetting::S1),
            "S2" | "s2" => Ok(PaperSetting::S2),
            other => Err(format!(
                "unknown setting {other:?}: expected \"S1\" or \"S2\""
            )),
        }
    }
}

impl std::fmt::Display for PaperSetting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The dumbbells of the ns-3 cross-check (`ns3/dumbbell.cc`, `Scenario::ns3`): paper 003's
/// two settings as `run2c-sim` runs them, and the cross-check's first S1, made before
/// `run2c-sim` settled on 1 + 4 + 1 ms, with 1 ms on every link.
///
/// * `S1`: [`PaperSetting::S1`]'s rates, every link 1 ms (3 ms one way);
/// * `S1p`: [`PaperSetting::S1`] itself, 1 + 4 + 1 ms (the paper's 6 ms one way);
/// * `S2`: [`PaperSetting::S2`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ns3Setting {
    /// 10 Mbit/s access, 1 ms on every link.
    S1,
    /// `run2c-sim`'s S1: 10 Mbit/s access, 1 + 4 + 1 ms.
    S1p,
    /// `run2c-sim`'s S2: 2 Mbit/s access, 10 + 40 + 10 ms.
    S2,
}

impl Ns3Setting {
    /// The paper's setting whose rates and buffer this dumbbell has.
    pub fn paper(self) -> PaperSetting {
        match self {
            Ns3Setting::S1 | Ns3Setting::S1p => PaperSetting::S1,
            Ns3Setting::S2 => PaperSetting::S2,
        }
    }

    /// The dumbbell.
    pub fn topology(self) -> DumbbellConfig {
        let mut t = self.paper().topology();
        if self == Ns3Setting::S1 {
            t.bottleneck_delay_ms = 1.0;
        }
        t
    }

    /// "S1", "S1p" or "S2".
    pub fn name(self) -> &'static str {
        match self {
            Ns3Setting::S1 => "S1",
            Ns3Setting::S1p => "S1p",
            Ns3Setting::S2 => "S2",
        }
    }
}

impl std::str::FromStr for Ns3Setting {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "S1" | "s1" => Ok(Ns3Setting::S1),
            "S1p" | "s1p" => Ok(Ns3Setting::S1p),
            "S2" | "s2" => Ok(Ns3Setting::S2),
            other => Err(format!(
                "unknown setting {other:?}: expected \"S1\", \"S1p\" or \"S2\""
            )),
        }
    }
}

impl std::fmt::Display for Ns3Setting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A built dumbbell and the ids a driver or a test needs.
pub struct Dumbbell {
    /// The network.
    pub net: Network,
    /// Sender hosts, one per pair.
    pub senders: Vec<NodeId>,
    /// Receiver hosts, `receivers[i]` paired with `senders[i]`.
    pub receivers: Vec<NodeId>,
    /// Router on the senders' side.
    pub router_a: NodeId,
    /// Router on the receivers' side.
    pub router_b: NodeId,
    /// The forward bottleneck A → B.
    pub bottleneck: LinkId,
    /// The reverse bottleneck B → A (ACKs).
    pub reverse_bottleneck: LinkId,
}

impl DumbbellConfig {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), String> {
        if self.pairs == 0 {
            return Err("dumbbell needs at least one pair".into());
        }
        for (name, d) in [
            ("access_delay_ms", self.access_delay_ms),
            ("receiver_delay_ms", self.receiver_delay_ms),
            ("bottleneck_delay_ms", self.bottleneck_delay_ms),
        ] {
            if !d.is_finite() || d < 0.0 {
                return Err(format!(
                    "{name} must be a finite non-negative number, got {d}"
                ));
            }
        }
        if self.ecn_mark_packets == Some(0) {
            return Err("ecn_mark_packets must be at least 1".into());
        }
        Ok(())
    }

    /// Builds the dumbbell, its forward bottleneck queue taken from the config.
    pub fn build(&self) -> Dumbbell {
        self.build_with(self.bottleneck_queue.build())
    }

    /// Builds the dumbbell with `bottleneck_queue` at the head of the forward bottleneck
    /// (e.g. a [`crate::queue::ScriptedDrops`] in tests, or a custom discipline).
    pub fn build_with(&self, bottleneck_queue: Box<dyn crate::queue::Queue>) -> Dumbbell {
        let mut b = NetworkBuilder::new();
        let senders: Vec<_> = (0..self.pairs).map(|_| b.add_node()).collect();
        let router_a = b.add_node();
        let router_b = b.add_node();
        let receivers: Vec<_> = (0..self.pairs).map(|_| b.add_node()).collect();
        let q = || self.other_queue.build();
        let (ad, rd, bd) = (
            millis(self.access_delay_ms),
            millis(self.receiver_delay_ms),
            millis(self.bottleneck_delay_ms),
        );
        let bottleneck = b.add_link(
            router_a,
            router_b,
            self.bottleneck_rate_bps,
            bd,
            bottleneck_queue,
        );
        b.set_ecn_mark(bottleneck, self.ecn_mark_packets);
        let reverse_bottleneck = b.add_link(router_b, router_a, self.bottleneck_rate_bps, bd, q());
        for &s in &senders {
            b.add_link(s, router_a, self.access_rate_bps, ad, q());
            b.add_link(router_a, s, self.access_rate_bps, ad, q());
        }
        for &r in &receivers {
            b.add_link(router_b, r, self.receiver_rate_bps, rd, q());
            b.add_link(r, router_b, self.receiver_rate_bps, rd, q());
        }
        Dumbbell {
            net: b.build(),
            senders,
            receivers,
            router_a,
            router_b,
            bottleneck,
            reverse_bottleneck,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_routes_through_the_bottleneck() {
        let d = DumbbellConfig::default().build();
        assert_eq!(d.senders.len(), 10);
        let s = d.senders[3];
        let r = d.receivers[7];
        let first = d.net.next_link(s, r).unwrap();
        assert_eq!(d.net.link(first).to, d.router_a);
        assert_eq!(d.net.next_link(d.router_a, r), Some(d.bottleneck));
        assert_eq!(d.net.next_link(d.router_b, s), Some(d.reverse_bottleneck));
    }

    #[test]
    fn toml_round_trip() {
        let c = DumbbellConfig::default();
        let s = toml::to_string(&c).unwrap();
        let back: DumbbellConfig = toml::from_str(&s).unwrap();
        assert_eq!(c, back);
        let partial: DumbbellConfig = toml::from_str(
            "pairs = 2\nbottleneck_queue = { kind = \"drop_tail_bytes\", limit = 15000 }",
        )
        .unwrap();
        assert_eq!(partial.pairs, 2);
        assert_eq!(
            partial.bottleneck_queue,
            QueueConfig::DropTailBytes { limit: 15000 }
        );
        assert!(toml::from_str::<DumbbellConfig>("pairs = 2\nbogus = 1").is_err());
    }
}
