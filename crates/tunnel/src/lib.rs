//! # tunnel — schedtcp's real driver of the gtcp core
//!
//! Two roles of one engine, symmetric (each side is the sender of what it reads):
//!
//! * [`server`] accepts pool connections, authenticates each (HMAC-SHA-256 challenge–response
//!   under a key derived from a pre-shared key checked by [`psk`] and an X25519 exchange with
//!   the client's session key, [`auth`]; the client proving first), and for each opened flow
//!   connects to the target its own configuration names for the route — never anywhere else.
//! * [`client`] listens on one local address per route; every accepted application connection
//!   is one flow with its own pool connection, as plain TCP would have it.
//!
//! After the handshake every byte of a pool connection goes through the [`record`] layer
//! (AES-256-GCM under per-connection keys): nothing can be injected or altered on the path.
//! Pool sockets use `TCP_NOTSENT_LOWAT` so the scheduling decision is made close to the wire.
//! Observability: an opt-in Prometheus text endpoint ([`metrics`]) and `tracing` logs.

#![forbid(unsafe_code)]

pub mod auth;
pub mod backoff;
pub mod client;
pub mod config;
pub mod engine;
pub mod histogram;
pub mod limits;
pub mod loadgen;
pub mod metrics;
pub mod net;
pub mod proxy_header;
pub mod psk;
pub mod record;
pub mod reload;
pub mod server;

pub use client::ClientHandle;
pub use config::{ClientConfig, ServerConfig};
/// The scheduling policy a configuration names (`policy = "srpt"`), as the core reads it.
pub use gtcp::Policy;
pub use server::ServerHandle;
