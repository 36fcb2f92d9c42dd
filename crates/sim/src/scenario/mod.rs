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
//!
//! [tcp]                    # see TcpConfig
//! max_window = 30
//!
//! [workload]
//! kind = "poisson"
//! load = 0.8
//! unit = "packets"
//! size = { kind = "exponential", mean = 4.0 }
//!
//! [record]
//! injections = false
//! active_sample_period_s = 0.1
//! ```

use crate::driver::TcpDriver;
use crate::stats::Report;
use crate::tcp::TcpConfig;
use crate::time::secs;
use crate::topology::DumbbellConfig;
use crate::workload::{
    load_trace, Component, FlowList, FlowSource, Poisson, SizeDist, SizeUnit, SourcePick,
    TraceError, WorkloadConfig,
};
use crate::world::{Sim, World};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Which driver decides the payload of segments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum DriverKind {
    /// One connection per flow ([`TcpDriver`]).
    #[default]
    Tcp,
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
        let s: Scenario = toml::from_str(text).map_err(|e| ScenarioError::Toml(e.to_string()))?;
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
        self.tcp.params().map_err(inv)?;
        if let Some(p) = self.record.active_sample_period_s {
            if !p.is_finite() || p <= 0.0 {
                return Err(inv(format!(
                    "record.active_sample_period_s must be positive, got {p}"
                )));
            }
        }
        if let WorkloadConfig::Poisson { .. } = self.workload {
            self.workload
                .poisson_rate(self.topology.bottleneck_rate_bps, self.tcp.mss)
                .map_err(inv)?;
        }
        Ok(())
    }

    /// The speed-benchmark scenario of issue 3: paper 003's setting S1 with workload D1 —
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
        }
    }

    /// The flows of this scenario (independent of the driver).
    pub fn flow_source(&self) -> Result<Box<dyn FlowSource>, ScenarioError> {
        match &self.workload {
            WorkloadConfig::Poisson {
                size,
                unit,
                sources,
                max_flows,
                ..
            } => {
                let rate = self
                    .workload
                    .poisson_rate(self.topology.bottleneck_rate_bps, self.tcp.mss)
                    .map_err(ScenarioError::Invalid)?;
                let unit_bytes = match unit {
                    SizeUnit::Packets => self.tcp.mss as u64,
                    SizeUnit::Bytes => 1,
                };
                Ok(Box::new(Poisson::new(
                    self.seed,
                    rate,
                    size.clone(),
                    unit_bytes,
                    self.topology.pairs,
                    *sources,
                    secs(self.duration_s),
                    *max_flows,
                )))
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

    /// Builds the `tcp`-driver simulation (not started). Also returns the bottleneck ids.
    pub fn build_tcp(
        &self,
    ) -> Result<(TcpSim, crate::packet::LinkId, crate::packet::LinkId), ScenarioError> {
        self.validate()?;
        let params = self.tcp.params().map_err(ScenarioError::Invalid)?;
        let d = self.topology.build();
        let endpoints = d
            .senders
            .iter()
            .copied()
            .zip(d.receivers.iter().copied())
            .collect();
        let mut world = World::new(d.net, params);
        world.record_injections(self.record.injections);
        if let Some(p) = self.record.active_sample_period_s {
            world.sample_active_every(secs(p));
        }
        let driver = TcpDriver::new(self.flow_source()?, endpoints);
        Ok((Sim::new(world, driver), d.bottleneck, d.reverse_bottleneck))
    }

    /// Runs the scenario to `duration_s + drain_s` and reports.
    pub fn run(&self) -> Result<Report, ScenarioError> {
        match self.driver {
            DriverKind::Tcp => {
                let (mut sim, fwd, rev) = self.build_tcp()?;
                let end = secs(self.duration_s + self.drain_s);
                sim.run_until(end);
                let flows = sim.driver.take_flows();
                Ok(Report::collect(self.seed, &mut sim.world, flows, fwd, rev))
            }
        }
    }
}
