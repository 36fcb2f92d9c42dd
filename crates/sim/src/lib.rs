//! # sim — a deterministic packet-level simulator for schedtcp
//!
//! A discrete-event simulator of links, queues and TCP (NewReno or SACK recovery, Reno or
//! CUBIC windows), built so that the question "*whose* bytes does this segment carry" is
//! answered by a pluggable [`driver::Driver`]
//! while "*how many* bytes may leave and *when*" is answered by the simulated TCP alone
//! (paper 000, §3: the decoupling of congestion control and scheduling).
//!
//! Layout, one job per module:
//! - [`engine`]: the event queue and seeded random streams;
//! - [`packet`]: packet headers and the packet pool;
//! - [`queue`]: queueing disciplines at link heads (drop-tail; the [`queue::Queue`] trait
//!   for RuN/RuN2C later; a scripted-drop test hook);
//! - [`link`]: rate + propagation delay;
//! - [`topology`]: nodes, links, routing, and the dumbbell builder;
//! - [`tcp`]: TCP sender (NewReno or RFC 6675 SACK recovery; NewReno or CUBIC windows, or
//!   the less-than-best-effort LEDBAT (RFC 6817) and TCP-LP, which exist only here: the
//!   kernel under the tunnel offers reno, cubic and bbr) and receiver as sans-I/O state
//!   machines;
//! - [`world`]: connections, packet movement, the event loop ([`world::Sim`]);
//! - [`driver`]: the payload hooks and the three drivers — `tcp`, `gtcp-ideal` (paper 000's
//!   Algorithms 1–3 with zero buffer, exactly non-intrusive) and `schedtcp` (the shipped
//!   [`gtcp`] core driven as the tunnel drives it, Algorithm 4); and `background` (paper 004,
//!   Section IV: short, long and background flows, the background class under vanilla TCP,
//!   the core's access controller [`gtcp::admission::Admission`], or LEDBAT / TCP-LP);
//! - [`workload`]: Poisson arrivals, size distributions, CSV traces;
//! - [`stats`]: run reports, and the distance between two runs' injections
//!   (Proposition 1);
//! - [`scenario`]: TOML scenario files and a one-call runner;
//! - [`competitor`]: a long plain-TCP competitor beside a scheduled workload.
//!
//! Time is integer nanoseconds ([`time::Time`]); the same scenario and seed give the same
//! bytes out ([`stats::Report::fingerprint`]).
//!
//! Running a scenario from code:
//!
//! ```
//! let report = sim::Scenario::speed_benchmark(2.0).run().expect("valid scenario");
//! assert!(report.bottleneck.tx_packets > 0);
//! ```
//!
//! Speed: `cargo run --release -p sim --example dumbbell_speed` (300 simulated seconds of
//! paper 003's S1/D1 dumbbell, prints bottleneck packets per wall second) and
//! `cargo bench -p sim --bench dumbbell`. Writing a new driver: see `DRIVERS.md`.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod competitor;
pub mod driver;
pub mod engine;
pub mod link;
pub mod packet;
pub mod queue;
pub mod scenario;
pub mod stats;
pub mod tcp;
pub mod time;
pub mod topology;
pub mod workload;
pub mod world;

pub use driver::{Driver, FlowDriver, IdealDriver, SchedtcpDriver, TcpDriver};
pub use scenario::Scenario;
pub use time::Time;
pub use world::{Sim, World};
