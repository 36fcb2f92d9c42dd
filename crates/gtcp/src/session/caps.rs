//! Bounds on what a peer can make a session hold, beyond the byte bounds of [`Config`]
//! (credit, send buffers, `max_flows`): counts of things a hostile but authenticated peer could
//! otherwise multiply — out-of-order segments, flows named before they are opened, control
//! frames waiting to be sent. Each one's cost is documented beside it; README's *Limits and
//! bounds* lists them.
//!
//! [`Config`]: super::Config

use super::Session;

/// Out-of-order segments one flow holds at most (beyond: the connection that carried the
/// segment broke the protocol). A sender cuts frames of `chunk` bytes (16 KiB by default) from
/// what its application handed over, so an honest flow with a 1 MiB window has at most about 64
/// segments out of order per connection that carries it; 4096 leaves room for 64 connections.
/// Each held segment costs its bytes (counted in the credit) plus about 100 bytes of
/// bookkeeping (its copy's allocation and its map entry): at most about 400 KiB per flow on top
/// of the window.
pub const MAX_OOO_SEGMENTS: usize = 4096;

/// (Acceptor) flows a peer may name in data, end, reset or acknowledgement frames before the
/// frame that opens them arrives (beyond: protocol error). Such frames are legitimate — the
/// opening travels on the flow's own connection, its data may come first on another — but a
/// flow never opened is never read: each holds up to the initial credit (256 KiB) until its
/// session expires.
///
/// A flow the acceptor created for a connection that names it as its owner is not counted while
/// that connection awaits its first frame (which must be the flow's opening, or the flow is
/// reset): it is bounded by the live connections, and a client opening more flows at once than
/// this would otherwise see the rest of its connections refused. If the connection
/// closes first, the flow counts again; so at most `MAX_UNOPENED_FLOWS` + live connections
/// flows are held unopened.
pub const MAX_UNOPENED_FLOWS: usize = 256;

/// Control frames (acknowledgements, ends, resets, replies about forgotten flows) a session
/// lets wait before a driver should stop reading from the peer until its writers caught up
/// ([`Session::control_backlog`]). Duplicates are no-ops (a flow waits once for its
/// acknowledgement), so an honest peer keeps this below about `max_flows` + 1024.
pub const CONTROL_BACKLOG_PAUSE: usize = 8192;

impl Session {
    /// Control frames waiting to be sent. A driver pauses reading its connections while this
    /// is at least [`CONTROL_BACKLOG_PAUSE`] (every frame read may queue one more).
    pub fn control_backlog(&self) -> usize {
        self.ctrl.len() + self.stale.len()
    }

    /// Bytes received and held for the applications (contiguous or out of order): at most the
    /// credit granted, Σ over flows of `credit − read`.
    pub fn recv_buffered_bytes(&self) -> u64 {
        self.flows.values().map(|f| f.recv.buffered()).sum()
    }

    /// Out-of-order segments held over all flows (each flow at most [`MAX_OOO_SEGMENTS`]).
    pub fn out_of_order_segments(&self) -> usize {
        self.flows.values().map(|f| f.recv.segments()).sum()
    }

    /// The most out-of-order segments any one flow holds.
    pub fn max_flow_out_of_order_segments(&self) -> usize {
        self.flows
            .values()
            .map(|f| f.recv.segments())
            .max()
            .unwrap_or(0)
    }

    /// Memory the received bytes occupy: [`recv_buffered_bytes`](Self::recv_buffered_bytes)
    /// plus the spare capacity of the flows' contiguous buffers.
    pub fn recv_allocated_bytes(&self) -> u64 {
        self.flows.values().map(|f| f.recv.allocated()).sum()
    }
}
