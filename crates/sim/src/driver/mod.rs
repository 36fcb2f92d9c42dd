//! Drivers: what decides *whose* payload the simulated TCP carries.
//!
//! The simulated TCP ([`crate::tcp`]) decides how many bytes leave and when; a [`Driver`]
//! decides which application data those bytes are. The world calls the driver's hooks at
//! well-defined points (see `DRIVERS.md` in the crate for the full contract):
//!
//! - [`Driver::on_segment_sent`] whenever a data segment — new or retransmitted — leaves a
//!   sender: the driver binds payload to it and returns a [`PayloadTag`](crate::packet::PayloadTag) the packet carries;
//! - [`Driver::on_send_ready`] after a connection's output ran: the send buffer may have
//!   room ([`World::send_buffer_space`](crate::world::World::send_buffer_space), [`World::notsent`](crate::world::World::notsent)) and the driver may
//!   [`World::write`](crate::world::World::write) more;
//! - [`Driver::on_acked`] when a cumulative ACK advances `snd_una`;
//! - [`Driver::on_segment_received`] / [`Driver::on_delivered`] at the receiver;
//! - [`Driver::on_timer`] for the driver's own timers ([`World::schedule`](crate::world::World::schedule)).
//!
//! Three gtcp-related drivers share the same simulated TCP (paper 000, §3 and §6.1):
//!
//! - [`TcpDriver`] (`tcp`), the baseline: one connection per flow, each connection carrying
//!   only its own flow's bytes;
//! - [`IdealDriver`] (`gtcp-ideal`): Algorithms 1–3 with zero buffer — payload is bound to a
//!   segment only when the segment, or its retransmission, leaves, by the gtcp core's own
//!   policy ([`gtcp::policy`]);
//! - [`SchedtcpDriver`] (`schedtcp`): the shipped gtcp core ([`gtcp::Session`]) as the tunnel
//!   uses it (Algorithm 4): real frames written into each connection's byte stream when its
//!   send buffer has room, parsed and reassembled at the destination.
//!
//! A fourth, [`MuxDriver`] (`mux`), is not gtcp but what it is compared with: every flow of
//! a pair multiplexed round robin over one long-lived connection (HTTP/2, yamux), or over
//! one per static lane (interactive, bulk).

mod arrivals;
pub mod background;
pub mod ideal;
pub mod mux;
mod pattern;
pub mod ranges;
pub mod schedtcp;
mod tcp;

pub use arrivals::{Arrivals, ARRIVAL_TOKEN};
pub use background::{BackgroundDriver, BgPolicy, LimitSample, LongFlow, Stream, StreamKind};
pub use ideal::IdealDriver;
pub use mux::{MuxConfig, MuxDriver};
pub use schedtcp::{SchedtcpDriver, SchedtcpOptions};
pub use tcp::{FlowRecord, TcpDriver};

use serde::{Deserialize, Serialize};

/// What the experiments need from any driver: per-flow records and progress.
pub trait FlowDriver {
    /// Records of every flow that has arrived, in arrival order (index = flow id).
    fn flow_records(&self) -> &[FlowRecord];

    /// Takes the flow records out.
    fn take_flow_records(&mut self) -> Vec<FlowRecord>;

    /// Bytes of flow `flow` the destination application has received so far (in order for
    /// the flow, for `schedtcp`: read from the core).
    fn delivered_bytes(&self, flow: u64) -> u64;

    /// Counters of the gtcp drivers (`None` for `tcp`).
    fn gtcp_stats(&self) -> Option<GtcpStats> {
        None
    }
}

/// Counters of the gtcp drivers: overhead, invariant checks, and anything that should be
/// zero. Fields that do not apply to a driver stay 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, Hash)]
pub struct GtcpStats {
    /// Payload bytes of scheduled flows the sender put on connections (re-sends included).
    pub payload_bytes: u64,
    /// Framing bytes written into the forward byte streams (`schedtcp`: frame headers and
    /// control frames; `gtcp-ideal`: 0, its header is carried in the tag).
    pub header_bytes: u64,
    /// Bytes the destination sent back over the reverse direction (`schedtcp`:
    /// acknowledgement, end and `Done` frames).
    pub reverse_bytes: u64,
    /// Connections whose invariant was checked when they closed.
    pub invariant_checked: u64,
    /// Connections whose payload differed from their own flow's bytes at close, or whose
    /// virtual queue was not empty.
    pub invariant_violations: u64,
    /// Protocol errors reported by the core (must be 0).
    pub protocol_errors: u64,
    /// Calls into the core that failed (must be 0).
    pub api_errors: u64,
    /// Bytes read at the destination that differ from what the origin wrote (must be 0).
    pub payload_mismatches: u64,
    /// `gtcp-ideal`: bytes whose binding a retransmission pre-empted (Algorithm 3).
    pub preempted_bytes: u64,
    /// `gtcp-ideal`: flow bytes the destination received more than once.
    pub duplicate_bytes: u64,
    /// `gtcp-ideal`: segment bytes that found no unmarked payload to carry.
    pub padding_bytes: u64,
    /// Scheduling decisions (`gtcp-ideal`: pieces bound; `schedtcp`: `poll_transmit` calls
    /// that wrote bytes).
    pub decisions: u64,
    /// `schedtcp`: control frames a session wrote on a connection after it had said `Done`
    /// there, which reached the peer after the peer had closed that connection. The core
    /// should not write them (a bug fixed in 3594b2d, see `DRIVERS.md`); the driver hands
    /// them to the peer through another of its live connections instead of dropping them.
    pub late_frames: u64,
}

impl std::ops::AddAssign for GtcpStats {
    /// Sums the counters of two runs (repeats of one sample path, for example).
    fn add_assign(&mut self, o: Self) {
        self.payload_bytes += o.payload_bytes;
        self.header_bytes += o.header_bytes;
        self.reverse_bytes += o.reverse_bytes;
        self.invariant_checked += o.invariant_checked;
        self.invariant_violations += o.invariant_violations;
        self.protocol_errors += o.protocol_errors;
        self.api_errors += o.api_errors;
        self.payload_mismatches += o.payload_mismatches;
        self.preempted_bytes += o.preempted_bytes;
        self.duplicate_bytes += o.duplicate_bytes;
        self.padding_bytes += o.padding_bytes;
        self.decisions += o.decisions;
        self.late_frames += o.late_frames;
    }
}

/// The payload side of the simulation (defined beside the world that calls it).
pub use crate::world::Driver;
