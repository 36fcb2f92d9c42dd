//! Simulated TCP NewReno (RFC 5681, RFC 6582, RFC 6298), as sans-I/O state machines.
//!
//! [`Sender`] and [`Receiver`] know nothing of packets, links or payload: the world
//! (`crate::world`) feeds them ACKs and segments and turns their outputs into packets. This
//! is what lets several drivers decide *whose* bytes a segment carries without touching
//! *how many* bytes leave and *when* (see `DRIVERS.md`).

mod config;
mod receiver;
mod rtt;
mod sender;

pub use config::{TcpConfig, TcpParams};
pub use receiver::{Receiver, RxOutcome};
pub use rtt::RttEstimator;
pub use sender::{AckEvent, Segment, Sender, SenderState};
