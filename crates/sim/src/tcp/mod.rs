//! Simulated TCP (RFC 5681, RFC 6582 NewReno or RFC 2018/6675 SACK recovery, RFC 9438
//! CUBIC, RFC 6298 RTO; RFC 6817 LEDBAT and TCP-LP as less-than-best-effort variants, see
//! `lbe`), as sans-I/O state machines.
//!
//! [`Sender`] and [`Receiver`] know nothing of packets, links or payload: the world
//! (`crate::world`) feeds them ACKs and segments and turns their outputs into packets. This
//! is what lets several drivers decide *whose* bytes a segment carries without touching
//! *how many* bytes leave and *when* (see `DRIVERS.md`).

mod config;
mod lbe;
mod pin;
mod receiver;
mod rtt;
mod sender;

pub use config::{CongestionControl, TcpConfig, TcpParams};
pub use pin::{pin_isn, Pin, PinBits};
pub use receiver::{Receiver, RxOutcome};
pub use rtt::RttEstimator;
pub use sender::{AckEvent, SackBlocks, Segment, Sender, SenderState};
