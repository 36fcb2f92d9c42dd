//! Scenario files: every parameter of a run in one TOML document, and a runner.
//!
//! ```toml
//! seed = 1
//! duration_s = 300.0       # flows arrive in [0, duration_s)
//! drain_s = 0.0            # extra simulated time after the last arrival window
//! driver = "tcp"
//!
//! [topology]               # a dumbbell, see DumbbellConfig (defaults: paper 003 S1)
//! pairs = 10
//! # the bottleneck discipline of paper 003: "droptail", "run" or "run2c:THRESHOLD_PACKETS"
//! bottleneck_queue = { kind = "discipline", queue = "run2c:20", limit = 100 }
//!
//! # ecn_mark_packets = 20  # ECN: mark data arriving behind >= 20 queued packets
//!
//! [tcp]                    # see TcpConfig
//! max_window = 30
//! # ecn = true             # ECN-capable senders react to the marks (RFC 3168)
//!
//! [workload]
//! kind = "poisson"
//! load = 0.8
//! unit = "packets"
//! size = { kind = "exponential", mean = 4.0 }
//! # or paper 003's D2: kind = "persistent", flows = 50, and the short flows in a
//! # [workload.short] table of kind = "poisson" (see WorkloadConfig::Persistent)
//!
//! [perturb]                # repeats of one sample path: host jitter, seeded per repeat
//! host_jitter_ns = 0       # off
//! seed = 0
//!
//! [record]
//! injections = false
//! active_sample_period_s = 0.1
//! ```
//!
//! The gtcp drivers (`driver = "schedtcp"` or `"gtcp_ideal"`) read a `[gtcp]` table
//! ([`GtcpConfig`]): the policy and the core's limits.

use crate::driver::{
    Driver, FlowDriver, IdealDriver, MuxConfig, MuxDriver, SchedtcpDriver, SchedtcpOptions,
    TcpDriver,
};
use crate::packet::{LinkId, NodeId};
use crate::stats::Report;
use crate::tcp::TcpConfig;
use crate::time::{secs, Time};
use crate::topology::{DumbbellConfig, Ns3Setting};
use crate::workload::{
    load_trace, persistent_flows, Component, FlowList, FlowSource, Merged, Poisson, SizeDist,
    SizeUnit, SourcePick, TraceError, WorkloadConfig,
};
use crate::world::{Sim, World};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Which driver decides the payload of segments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, Hash)]
#[serde(rename_all = "snake_case")]
pub enum DriverKind {
    /// One connection per flow ([`TcpDriver`]).
    #[default]
    Tcp,
    /// The gtcp core as the tunnel uses it ([`SchedtcpDriver`], Algorithm 4).
    Schedtcp,
    /// Algorithms 1–3 with zero buffer ([`IdealDriver`]).
    #[serde(alias = "gtcp-ideal")]
    GtcpIdeal,
    /// Every flow of a source multiplexed over one long-lived connection per lane
    /// ([`MuxDriver`], `[mux]`): the HTTP/2 / yamux alternative, not gtcp.
    Mux,
}

impl DriverKind {
    /// The name used in scenario files and reports.
    pub fn name(&self) -> &'static str {
        match self {
            DriverKind::Tcp => "tcp",
            DriverKind::Schedtcp => "schedtcp",
            DriverKind::GtcpIdeal => "gtcp-ideal",
            DriverKind::Mux => "mux",
        }
    }
}

/// Parameters of the gtcp drivers (`[gtcp]` in a scenario file). The core's part is
/// [`gtcp::Config`] itself (its keys, defaults, bounds and validation: `chunk`, `flow_window`,
/// `send_buffer`, `max_flows`, `keepalive_secs`, `dead_peer_secs`), flattened beside the keys
/// only the simulator's drivers have. Byte counts are bytes. Unknown keys are refused, naming
/// the closest valid one, wherever the table is read (a scenario, an experiment's file):
/// serde's `deny_unknown_fields` does not combine with `flatten`, so its `Deserialize` reads
/// the table, then checks its keys with [`tomlkeys::check_table`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", default)]
pub struct GtcpConfig {
    /// Scheduling policy: `tcp`, `srpt`, `las`, `fair`, `psps`, `psps:BYTES`, `gittins`,
    /// `auto[:fair]`, `priority[:INNER]`, `mu[:INNER]` (the core's names, [`gtcp::Policy`]).
    pub policy: String,
    /// The core's limits and timers (`schedtcp`; `gtcp-ideal` takes none of them).
    #[serde(flatten)]
    pub core: gtcp::Config,
    /// `schedtcp`: poll the core while a connection's not-sent backlog is below this
    /// (`TCP_NOTSENT_LOWAT`).
    pub notsent_lowat: u64,
    /// `schedtcp`: largest `poll_transmit`; default the core's driver profile
    /// ([`gtcp::DriverProfile::poll_max`]), as the tunnel.
    pub poll_max: Option<usize>,
    /// Tell the policy each flow's size (size-aware policies need it).
    pub size_hint: bool,
    /// `schedtcp`: check every byte the destination reads.
    pub verify_payload: bool,
    /// Sources whose flows bypass the scheduler (plain TCP sharing the path).
    pub plain_sources: Vec<u32>,
    /// `gtcp-ideal` with `fair` only, a diagnostic: the instant each flow (arrival order)
    /// finished under `tcp` on the same sample path, so FAIR serves the flow tcp finishes
    /// first ([`IdealDriver::fair_oracle`]). Set by an experiment, never from a file.
    #[serde(skip)]
    pub fair_oracle: Option<Vec<u64>>,
}

impl Serialize for GtcpConfig {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        GtcpConfig::serialize(self, s)
    }
}

impl<'de> Deserialize<'de> for GtcpConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let file = toml::Table::deserialize(d)?;
        let c =
            GtcpConfig::deserialize(toml::Value::Table(file.clone())).map_err(D::Error::custom)?;
        tomlkeys::check_table(&file, &c, "gtcp").map_err(D::Error::custom)?;
        Ok(c)
    }
}

impl Default for GtcpConfig {
    /// The core's defaults, the tunnel's low-water mark (one chunk), FAIR.
    fn default() -> Self {
        let c = gtcp::Config::default();
        GtcpConfig {
            policy: c.policy.to_string(),
            notsent_lowat: u64::from(gtcp::DriverProfile::new(&c).notsent_lowat),
            core: c,
            poll_max: None,
            size_hint: true,
            verify_payload: true,
            plain_sources: Vec::new(),
            fair_oracle: None,
        }
    }
}

impl GtcpConfig {
    /// The parsed policy.
    pub fn parsed_policy(&self) -> Result<gtcp::Policy, String> {
        self.policy.parse().map_err(|e| format!("gtcp.policy: {e}"))
    }

    /// The core's configuration.
    pub fn core_config(&self) -> Result<gtcp::Config, String> {
        let c = gtcp::Config {
            policy: self.parsed_policy()?,
            ..self.core
        };
        c.validate().map_err(|e| format!("gtcp: {e}"))?;
        Ok(c)
    }

    /// The `schedtcp` driver's options.
    pub fn schedtcp_options(&self) -> Result<SchedtcpOptions, String> {
        let mut o = SchedtcpOptions::new(self.core_config()?);
        if self.notsent_lowat == 0 {
            return Err("gtcp.notsent_lowat must be positive".into());
        }
        o.notsent_lowat = self.notsent_lowat;
        if let Some(m) = self.poll_max {
            if m < 64 {
                return Err(format!("gtcp.poll_max must be at least 64 bytes, got {m}"));
            }
            o.poll_max = m;
        }
        o.size_hint = self.size_hint;
        o.verify_payload = self.verify_payload;
        o.plain_sources = self.plain_sources.clone();
        Ok(o)
    }
}

/// What to record beyond flow and connection records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct RecordConfig {
    /// Log every data segment injected (time, connection, sequence, length).
    pub injections: bool,
    /// Sample the number of open connections with this period.
    pub active_sample_period_s: Option<f64>,
}

/// Small independent perturbations of a run, for repeating one sample path (same flows,
/// same seed) under different noise: every packet a host (sender or receiver) puts on its
/// access link holds the link for an extra processing time uniform in
/// `[0, host_jitter_ns]`, drawn from a random stream of `seed` (with the run's seed), one
/// stream per link. Two runs with the same `seed` see the same draws for the same
/// packets; different seeds give independent perturbations. Off (`host_jitter_ns = 0`) by
/// default.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct Perturbation {
    /// Largest extra processing time per packet, ns (at most [`MAX_HOST_JITTER_NS`]).
    pub host_jitter_ns: u64,
    /// Seed of the perturbation's random streams.
    pub seed: u64,
}

/// Upper bound of [`Perturbation::host_jitter_ns`] (100 µs): a perturbation, not a
/// change of the path.
pub const MAX_HOST_JITTER_NS: u64 = 100_000;

/// Random streams of the perturbation: this base plus the link's index.
const PERTURB_STREAM: u64 = 1 << 32;

/// A complete run description.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Seed of every random stream.
    pub seed: u64,
    /// Flows arrive in `[0, duration_s)`.
    pub duration_s: f64,
    /// Simulated time after `duration_s` to let flows finish.
    #[serde(default)]
    pub drain_s: f64,
    /// The driver.
    #[serde(default)]
    pub driver: DriverKind,
    /// The dumbbell.
    #[serde(default)]
    pub topology: DumbbellConfig,
    /// TCP parameters.
    #[serde(default)]
    pub tcp: TcpConfig,
    /// The flows.
    pub workload: WorkloadConfig,
    /// Extra recording.
    #[serde(default)]
    pub record: RecordConfig,
    /// The gtcp drivers' parameters.
    #[serde(default)]
    pub gtcp: GtcpConfig,
    /// Small perturbations for repeats of one sample path (off by default).
    #[serde(default)]
    pub perturb: Perturbation,
    /// The `mux` driver's parameters.
    #[serde(default)]
    pub mux: MuxConfig,
}

/// Why a scenario could not run.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// The TOML did not parse.
    #[error("scenario file: {0}")]
    Toml(String),
    /// A parameter is out of range.
    #[error("scenario: {0}")]
    Invalid(String),
    /// The trace could not be read.
    #[error(transparent)]
    Trace(#[from] TraceError),
}

impl FlowSource for Box<dyn FlowSource> {
    fn next_flow(&mut self) -> Option<crate::workload::FlowSpec> {
        (**self).next_flow()
    }
}

/// The simulation a scenario builds for the `tcp` driver.
pub type TcpSim = Sim<TcpDriver<Box<dyn FlowSource>>>;

impl Scenario {
    /// Parses a scenario from TOML text.
    pub fn from_toml(text: &str) -> Result<Self, ScenarioError> {
        let s: Scenario =
            tomlkeys::from_str(text).map_err(|e| ScenarioError::Toml(e.to_string()))?;
        s.validate()?;
        Ok(s)
    }

    /// Reads a scenario file.
    pub fn load(path: &Path) -> Result<Self, ScenarioError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ScenarioError::Toml(format!("cannot read {}: {e}", path.display())))?;
        Self::from_toml(&text)
    }

    /// The scenario as TOML.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }

    /// Checks every parameter.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        let inv = ScenarioError::Invalid;
        if !self.duration_s.is_finite() || self.duration_s <= 0.0 {
            return Err(inv(format!(
                "duration_s must be positive, got {}",
                self.duration_s
            )));
        }
        if !self.drain_s.is_finite() || self.drain_s < 0.0 {
            return Err(inv(format!(
                "drain_s must be non-negative, got {}",
                self.drain_s
            )));
        }
        self.topology.validate().map_err(inv)?;
        if self.perturb.host_jitter_ns > MAX_HOST_JITTER_NS {
            return Err(inv(format!(
                "perturb.host_jitter_ns = {} exceeds {MAX_HOST_JITTER_NS} ns",
                self.perturb.host_jitter_ns
            )));
        }
        self.tcp.params().map_err(inv)?;
        for (name, q) in [
            ("bottleneck_queue", &self.topology.bottleneck_queue),
            ("other_queue", &self.topology.other_queue),
        ] {
            if let Some(seg) = q.segment_bytes() {
                if seg != self.tcp.mss {
                    return Err(inv(format!(
                        "topology.{name}.segment_bytes ({seg}) must equal tcp.mss ({}): the \
                         RuN2C threshold is counted in full segments",
                        self.tcp.mss
                    )));
                }
            }
        }
        if let Some(p) = self.record.active_sample_period_s {
            if !p.is_finite() || p <= 0.0 {
                return Err(inv(format!(
                    "record.active_sample_period_s must be positive, got {p}"
                )));
            }
        }
        self.mux.validate().map_err(inv)?;
        if !matches!(self.driver, DriverKind::Tcp | DriverKind::Mux) {
            self.gtcp.core_config().map_err(inv)?;
            self.gtcp.schedtcp_options().map_err(inv)?;
        }
        if let WorkloadConfig::List { flows } = &self.workload {
            for f in flows {
                if !f.arrival_s.is_finite() || f.arrival_s < 0.0 || f.size_bytes == 0 {
                    return Err(inv(format!(
                        "workload flow at {} s of {} bytes: arrival must be finite and \
                         non-negative, size positive",
                        f.arrival_s, f.size_bytes
                    )));
                }
                if f.source >= self.topology.pairs {
                    return Err(inv(format!(
                        "workload flow at {} s uses source {} but the dumbbell has {} pairs",
                        f.arrival_s, f.source, self.topology.pairs
                    )));
                }
            }
        }
        if let WorkloadConfig::Poisson { .. } = self.workload {
            self.workload
                .poisson_rate(self.topology.bottleneck_rate_bps, self.tcp.mss)
                .map_err(inv)?;
        }
        self.workload
            .check_persistent(
                self.duration_s,
                self.drain_s,
                self.topology.bottleneck_rate_bps,
                self.tcp.mss,
            )
            .map_err(inv)?;
        Ok(())
    }

    /// The speed-benchmark scenario: paper 003's setting S1 with workload D1 —
    /// 10 senders on 10 Mbit/s, 1 ms access links, a 10 Mbit/s bottleneck with a 100-packet
    /// drop-tail FIFO, 1500-byte packets, NewReno with a 30-packet maximum window, Poisson
    /// flows, 80% exponential sizes of mean 4 packets and 20% BP(13, 5000, 1.1) packets,
    /// load 0.8, `duration_s` simulated seconds.
    pub fn speed_benchmark(duration_s: f64) -> Self {
        Scenario {
            seed: 1,
            duration_s,
            drain_s: 0.0,
            driver: DriverKind::Tcp,
            topology: DumbbellConfig::default(),
            tcp: TcpConfig {
                mss: 1460,
                header_bytes: 40,
                max_window: Some(30),
                ..TcpConfig::default()
            },
            workload: WorkloadConfig::Poisson {
                rate_per_s: None,
                load: Some(0.8),
                size: SizeDist::Mixture {
                    components: vec![
                        Component {
                            weight: 0.8,
                            dist: SizeDist::Exponential { mean: 4.0 },
                        },
                        Component {
                            weight: 0.2,
                            dist: SizeDist::BoundedPareto {
                                k: 13.0,
                                p: 5000.0,
                                alpha: 1.1,
                            },
                        },
                    ],
                },
                unit: SizeUnit::Packets,
                sources: SourcePick::Random,
                max_flows: None,
            },
            record: RecordConfig::default(),
            gtcp: GtcpConfig::default(),
            perturb: Perturbation::default(),
            mux: MuxConfig::default(),
        }
    }

    /// Paper 003's dumbbell as the ns-3 cross-check (`ns3/dumbbell.cc`) builds it: 10 pairs,
    /// a 10 Mbit/s bottleneck with a 100-packet drop-tail buffer, the links of `setting`
    /// ([`Ns3Setting`]: S1 with 1 ms on every link, S1p and S2 as `run2c-sim` runs them).
    /// TCP with the handshake, SMSS 1460 B and 42 B of headers on
    /// the wire (IP + TCP + ns-3's PPP header), initial window 1, no delayed ACKs, maximum
    /// window 30 segments, minimum RTO 200 ms; NewReno without SACK, or with SACK (`sack`),
    /// its options counted on the wire as ns-3 sends them (`TcpConfig::sack_option_bytes`).
    /// Workload D1 at `load`, flows arriving over `duration_s` and `drain_s` more to finish.
    pub fn ns3(setting: Ns3Setting, load: f64, duration_s: f64, sack: bool) -> Self {
        let mut s = Scenario::speed_benchmark(duration_s);
        s.drain_s = 60.0;
        s.topology = setting.topology();
        s.tcp = TcpConfig {
            mss: 1460,
            header_bytes: 42,
            initial_window: 1,
            max_window: Some(30),
            handshake: true,
            sack,
            sack_option_bytes: true,
            ..TcpConfig::default()
        };
        if let WorkloadConfig::Poisson { load: l, .. } = &mut s.workload {
            *l = Some(load);
        }
        s
    }

    /// The Poisson flows of a `kind = "poisson"` workload `w` in this scenario.
    fn poisson_source(&self, w: &WorkloadConfig) -> Result<Poisson, ScenarioError> {
        let WorkloadConfig::Poisson {
            size,
            unit,
            sources,
            max_flows,
            ..
        } = w
        else {
            return Err(ScenarioError::Invalid("not a Poisson workload".into()));
        };
        let rate = w
            .poisson_rate(self.topology.bottleneck_rate_bps, self.tcp.mss)
            .map_err(ScenarioError::Invalid)?;
        let unit_bytes = match unit {
            SizeUnit::Packets => self.tcp.mss as u64,
            SizeUnit::Bytes => 1,
        };
        Ok(Poisson::new(
            self.seed,
            rate,
            size.clone(),
            unit_bytes,
            self.topology.pairs,
            *sources,
            secs(self.duration_s),
            *max_flows,
        ))
    }

    /// The flows of this scenario (independent of the driver).
    pub fn flow_source(&self) -> Result<Box<dyn FlowSource>, ScenarioError> {
        match &self.workload {
            w @ WorkloadConfig::Poisson { .. } => Ok(Box::new(self.poisson_source(w)?)),
            WorkloadConfig::Persistent {
                flows,
                start_s,
                short,
            } => {
                self.workload
                    .check_persistent(
                        self.duration_s,
                        self.drain_s,
                        self.topology.bottleneck_rate_bps,
                        self.tcp.mss,
                    )
                    .map_err(ScenarioError::Invalid)?;
                let long = persistent_flows(*flows, secs(*start_s), self.topology.pairs);
                Ok(match short {
                    Some(w) => Box::new(Merged::new(long, self.poisson_source(w)?)),
                    None => Box::new(long),
                })
            }
            WorkloadConfig::List { flows } => {
                let stop = secs(self.duration_s);
                let mut v: Vec<crate::workload::FlowSpec> = flows
                    .iter()
                    .map(|f| crate::workload::FlowSpec {
                        arrival: secs(f.arrival_s),
                        size: f.size_bytes,
                        source: f.source,
                    })
                    .filter(|f| f.arrival < stop)
                    .collect();
                v.sort_by_key(|f| f.arrival);
                Ok(Box::new(FlowList::new(v)))
            }
            WorkloadConfig::Trace { path } => {
                let flows = load_trace(Path::new(path))?;
                if let Some(f) = flows.iter().find(|f| f.source >= self.topology.pairs) {
                    return Err(ScenarioError::Invalid(format!(
                        "trace flow at {} s uses source {} but the dumbbell has {} pairs",
                        crate::time::as_secs(f.arrival),
                        f.source,
                        self.topology.pairs
                    )));
                }
                let stop = secs(self.duration_s);
                Ok(Box::new(FlowList::new(
                    flows.into_iter().filter(|f| f.arrival < stop).collect(),
                )))
            }
        }
    }

    /// The world, the endpoints of each source, the one-way delay of an ACK-sized packet
    /// from each destination back to its origin, and the bottleneck pair.
    #[allow(clippy::type_complexity)]
    fn world(
        &self,
    ) -> Result<(World, Vec<(NodeId, NodeId)>, Vec<Time>, LinkId, LinkId), ScenarioError> {
        self.validate()?;
        let params = self.tcp.params().map_err(ScenarioError::Invalid)?;
        let mut d = self.topology.build();
        if self.perturb.host_jitter_ns > 0 {
            let base = self
                .seed
                .wrapping_add(self.perturb.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let hosts: Vec<NodeId> = d.senders.iter().chain(&d.receivers).copied().collect();
            for (i, link) in d.net.links.iter_mut().enumerate() {
                if hosts.contains(&link.from) {
                    let rng = crate::engine::rng_stream(base, PERTURB_STREAM + i as u64);
                    link.set_jitter(self.perturb.host_jitter_ns, rng);
                }
            }
        }
        let endpoints: Vec<(NodeId, NodeId)> = d
            .senders
            .iter()
            .copied()
            .zip(d.receivers.iter().copied())
            .collect();
        let back = endpoints
            .iter()
            .map(|&(s, r)| d.net.path_delay(r, s, params.header_bytes).unwrap_or(0))
            .collect();
        let mut world = World::new(d.net, params);
        world.record_injections(self.record.injections);
        if let Some(p) = self.record.active_sample_period_s {
            world.sample_active_every(secs(p));
        }
        Ok((world, endpoints, back, d.bottleneck, d.reverse_bottleneck))
    }

    /// Builds the `tcp`-driver simulation (not started). Also returns the bottleneck ids.
    pub fn build_tcp(&self) -> Result<(TcpSim, LinkId, LinkId), ScenarioError> {
        let (world, endpoints, _, fwd, rev) = self.world()?;
        let driver = TcpDriver::new(self.flow_source()?, endpoints);
        Ok((Sim::new(world, driver), fwd, rev))
    }

    /// Builds the `gtcp-ideal` simulation (not started), whatever `driver` says.
    pub fn build_ideal(&self) -> Result<(IdealSim, LinkId, LinkId), ScenarioError> {
        let (world, endpoints, _, fwd, rev) = self.world()?;
        let policy = self.gtcp.parsed_policy().map_err(ScenarioError::Invalid)?;
        let mut driver = IdealDriver::new(
            self.flow_source()?,
            endpoints,
            policy,
            self.gtcp.plain_sources.clone(),
        );
        if !self.gtcp.size_hint {
            driver = driver.size_unaware();
        }
        if let Some(fin) = &self.gtcp.fair_oracle {
            driver = driver.fair_oracle(fin.clone());
        }
        Ok((Sim::new(world, driver), fwd, rev))
    }

    /// Builds the `schedtcp` simulation (not started), whatever `driver` says.
    pub fn build_schedtcp(&self) -> Result<(SchedtcpSim, LinkId, LinkId), ScenarioError> {
        let (world, endpoints, back, fwd, rev) = self.world()?;
        let opts = self
            .gtcp
            .schedtcp_options()
            .map_err(ScenarioError::Invalid)?;
        let driver = SchedtcpDriver::new(self.flow_source()?, endpoints, back, opts)
            .map_err(|e| ScenarioError::Invalid(format!("gtcp: {e}")))?;
        Ok((Sim::new(world, driver), fwd, rev))
    }

    /// Builds the `mux` simulation (not started), whatever `driver` says; the flows of
    /// `gtcp.plain_sources` take plain connections.
    pub fn build_mux(&self) -> Result<(MuxSim, LinkId, LinkId), ScenarioError> {
        let (world, endpoints, _, fwd, rev) = self.world()?;
        let driver = MuxDriver::new(
            self.flow_source()?,
            endpoints,
            self.mux.clone(),
            self.gtcp.plain_sources.clone(),
        );
        Ok((Sim::new(world, driver), fwd, rev))
    }

    /// Runs the scenario to `duration_s + drain_s` and reports.
    pub fn run(&self) -> Result<Report, ScenarioError> {
        self.run_observed(None, |_, _| {})
    }

    /// Runs the scenario, pausing every `every` of simulated time (if given) to let
    /// `observe` look at the driver (per-flow progress, for throughput plots); `observe` is
    /// also called at the end.
    pub fn run_observed(
        &self,
        every: Option<Time>,
        observe: impl FnMut(Time, &dyn FlowDriver),
    ) -> Result<Report, ScenarioError> {
        let end = secs(self.duration_s + self.drain_s);
        let seed = self.seed;
        Ok(match self.driver {
            DriverKind::Tcp => {
                let (sim, fwd, rev) = self.build_tcp()?;
                drive(seed, sim, fwd, rev, end, every, observe)
            }
            DriverKind::GtcpIdeal => {
                let (sim, fwd, rev) = self.build_ideal()?;
                drive(seed, sim, fwd, rev, end, every, observe)
            }
            DriverKind::Schedtcp => {
                let (sim, fwd, rev) = self.build_schedtcp()?;
                drive(seed, sim, fwd, rev, end, every, observe)
            }
            DriverKind::Mux => {
                let (sim, fwd, rev) = self.build_mux()?;
                drive(seed, sim, fwd, rev, end, every, observe)
            }
        })
    }
}

/// The simulation a scenario builds for the `gtcp-ideal` driver.
pub type IdealSim = Sim<IdealDriver<Box<dyn FlowSource>>>;
/// The simulation a scenario builds for the `schedtcp` driver.
pub type SchedtcpSim = Sim<SchedtcpDriver<Box<dyn FlowSource>>>;
/// The simulation a scenario builds for the `mux` driver.
pub type MuxSim = Sim<MuxDriver<Box<dyn FlowSource>>>;

fn drive<D: Driver + FlowDriver>(
    seed: u64,
    mut sim: Sim<D>,
    fwd: LinkId,
    rev: LinkId,
    end: Time,
    every: Option<Time>,
    mut observe: impl FnMut(Time, &dyn FlowDriver),
) -> Report {
    if let Some(p) = every.filter(|&p| p > 0) {
        let mut t = p;
        while t < end {
            sim.run_until(t);
            observe(t, &sim.driver);
            t += p;
        }
    }
    sim.run_until(end);
    observe(end, &sim.driver);
    let gtcp = sim.driver.gtcp_stats();
    let flows = sim.driver.take_flow_records();
    let mut r = Report::collect(seed, &mut sim.world, flows, fwd, rev);
    r.gtcp = gtcp;
    r
}
