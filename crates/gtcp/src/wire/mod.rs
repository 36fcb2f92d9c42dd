//! The wire format: a versioned handshake per pool connection, then a stream of frames.
//!
//! All integers are big-endian. Every length read from the wire is checked against a cap before
//! anything is allocated, and decoding never panics: a malformed or oversized input is a
//! [`WireError`], which closes the offending pool connection and nothing else.

mod error;
pub(crate) mod frame;
pub mod handshake;

pub use error::WireError;
pub use frame::{
    AckFrame, DataFrame, Frame, FrameDecoder, OpenFrame, Origin, DATA_HEADER_LEN, MAX_ROUTE_LEN,
};

/// Hard cap on the payload of one data frame, whatever the configuration says (64 KiB). A peer
/// announcing more is malformed. The configured chunk size (default 16 KiB) must not exceed it.
pub const MAX_PAYLOAD_CAP: u32 = 64 * 1024;

/// Protocol version spoken by this build. A peer with another version is refused in the handshake.
/// Version 2 added the server's explicit [`handshake::Verdict`]; version 3 has the client prove
/// the key first (the server sends nothing keyed before it verified the client) and the driver
/// authenticates every byte after the handshake (the tunnel's record layer); version 4 lets a
/// flow's opening carry its application's addresses ([`Origin`]); version 5 binds every session
/// to its client's key pair (the server hello carries a fresh key share, the session id is the
/// client's public key, and both proofs are keyed by a Diffie–Hellman secret as well as the
/// pre-shared key: [`handshake`]).
pub const VERSION: u16 = 5;
