//! # gtcp — the sans-IO core of schedtcp
//!
//! For one origin–destination pair, many application flows share the path. Plain TCP gives each
//! flow its own connection. gtcp keeps exactly those connections — one per flow, each running
//! the kernel's own congestion control, so the pair takes no more of the network than before —
//! but decides, whenever a connection may send, *whose* bytes go out (U. Ayesta, L. Bertaux,
//! D. Carvin, *Non-Intrusive Scheduling of TCP Flows*, IFIP Networking 2015; "paper 000").
//!
//! This crate holds all protocol logic and no I/O: no sockets, clocks or runtime. Events and
//! `now` go in, frames and [`Event`]s come out, so the tunnel (tokio) and the packet-level
//! simulator drive the very same state machine, and every scheduling claim is testable
//! deterministically.
//!
//! * [`Session`] — one end of a session: flows, pool connections, their virtual queues
//!   (Algorithm 4), reassembly, per-flow credit, delivery acknowledgements and re-sending what a
//!   dead connection carried.
//! * [`policy`] — `tcp`, `srpt`, `las`, `fair`, `psps` (RuN2C), `priority`, and on sizes
//!   learned per route `gittins`, `auto` and `mu` (the μ-rule), each a sort key over per-flow
//!   state.
//! * [`wire`] — the handshake and the frames; decoding never panics and caps every length.
//! * [`size`] — size knowledge from HTTP/1.1 `Content-Length`.
//! * [`driver`] — the contract every driver honours ([`DriverProfile`]): when to poll, how much,
//!   how to close.
//!
//! The invariant that defines the product is observable through [`ConnCounters`] and checked by
//! one function, [`ConnCounters::check_closed`]: a connection carries exactly the bytes its own
//! flow handed over, plus framing.

#![forbid(unsafe_code)]

pub mod admission;
mod conn;
pub mod driver;
pub mod flow;
mod ids;
#[cfg(feature = "pair")]
pub mod pair;
pub mod policy;
pub mod room;
#[cfg(feature = "serde")]
mod secs;
pub mod session;
pub mod size;
pub mod wire;

pub use conn::{ConnCounters, InvariantViolation};
pub use driver::DriverProfile;
pub use flow::INITIAL_CREDIT;
pub use ids::{ConnId, FlowId};
pub use policy::{Order, Policy};
pub use session::{
    Bounds, Config, ConfigError, Event, FlowSendState, FlowSummary, ProtocolError, RankedFlow,
    ReadOutcome, Role, Session, SessionCounters, SessionError, MAX_RETIRED_ABOVE,
    RESET_UNKNOWN_FLOW,
};
