//! Bounds on what a peer can make a session hold, beyond the byte bounds of [`Config`]
//! (credit, send buffers, `max_flows`): counts of things a hostile but authenticated peer could
//! otherwise multiply — out-of-order segments, flows named before they are opened, control
//! frames waiting to be sent. Each one's cost is documented beside it; README's *Limits and
//! bounds* lists them.
//!
//! [`Config`]: super::Config

use super::Session;
use crate::ids::FlowId;
use crate::wire::Frame;

/// Out-of-order segments one flow holds at most (beyond: the connection that carried the
/// segment broke the protocol). A sender cuts frames of `chunk` bytes (16 KiB by default) from
/// what its application handed over, so an honest flow with a 1 MiB window has at most about 64
/// segments out of order per connection that carries it; 4096 leaves room for 64 connections.
/// Each held segment costs its bytes (counted in the credit) plus about 100 bytes of
/// bookkeeping (its copy's allocation and its map entry): at most about 400 KiB per flow on top
/// of the window.
pub const MAX_OOO_SEGMENTS: usize = 4096;

/// Out-of-order segments a session holds at most over all its flows (beyond: the connection
/// that carried the segment broke the protocol, [`RecvError::TooManySessionSegments`]). Without
/// it a peer could make every flow it names hold [`MAX_OOO_SEGMENTS`] one-byte segments: 256
/// flows never opened × 4096 segments, about 100 MiB of bookkeeping for 1 MiB of bytes.
///
/// Why a protocol error and not a dropped segment: the opener sends a frame once and relies on
/// its connection's TCP to deliver it; it sends it again only when that connection dies. A
/// dropped segment would leave a hole nobody fills, and the flow would stall for good. Closing
/// the connection makes an honest opener send everything it carried and that was not yet
/// acknowledged again on its other connections: it costs an honest peer time, never bytes.
///
/// An honest opener cuts its frames `chunk` bytes long (16 KiB by default) out of what its
/// applications handed over, so 65 536 segments out of order are 1 GiB of bytes waiting behind
/// holes (the default `memory_budget_bytes` of a whole server): only a session sending far
/// smaller frames reaches it. Its bookkeeping is at most
/// `MAX_SESSION_OOO_SEGMENTS × SEGMENT_BOOKKEEPING` (about 7 MiB).
///
/// [`RecvError::TooManySessionSegments`]: crate::flow::RecvError::TooManySessionSegments
pub const MAX_SESSION_OOO_SEGMENTS: usize = 16 * MAX_OOO_SEGMENTS;

/// Heap bytes one out-of-order segment costs beyond its payload, measured on glibc's heap
/// (`crates/gtcp/tests/held_bytes.rs`: 65 536 one-byte segments over 256 flows, each
/// allocation counted as the chunk glibc gives it, `malloc_usable_size` + 8): 109.4 bytes sent
/// in ascending or descending order, 92.3 scattered. It is the segment's entry in its flow's
/// `BTreeMap` (key, `Bytes`, and its share of the B-tree nodes, which hold 11 entries and are
/// about half full when filled in order) and the rest of its payload's own allocation (a
/// 32-byte chunk for 1 byte).
pub const SEGMENT_BOOKKEEPING: u64 = 128;

/// Heap bytes one flow costs beyond its buffered bytes, measured in the same test: 788 bytes
/// per flow named by one byte of data and never opened (its boxed state, a 576-byte chunk;
/// its entry in the session's flow map, a key and a pointer with their share of the half-full
/// B-tree nodes; the chunk of its one byte).
pub const FLOW_BOOKKEEPING: u64 = 1024;

/// Heap bytes one pool connection costs in the session (its state and map entry).
pub const CONN_BOOKKEEPING: u64 = 512;

/// Heap bytes one retired flow id held above the contiguous range costs (a `BTreeSet<u64>`
/// entry and its share of the nodes).
pub const RETIRED_BOOKKEEPING: u64 = 32;

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

    /// Slots the session's queues that a burst can fill hold room for (their capacity, not
    /// their content), named: the events, the control queue, the replies about forgotten flows
    /// and the background flows waiting for admission. Each gives the room back as it drains,
    /// down to [`ROOM_FLOOR`](crate::room::ROOM_FLOOR) slots (`crates/gtcp/tests/room.rs`).
    #[doc(hidden)]
    pub fn queue_room(&self) -> [(&'static str, usize); 4] {
        [
            ("events", self.events.capacity()),
            ("control", self.ctrl.capacity()),
            ("stale", self.stale.capacity()),
            (
                "admission",
                self.admission.as_ref().map_or(0, |a| a.waiting_room()),
            ),
        ]
    }

    /// Bytes received and held for the applications (contiguous or out of order): at most the
    /// credit granted, Σ over flows of `credit − read`.
    pub fn recv_buffered_bytes(&self) -> u64 {
        self.flows.values().map(|f| f.recv.buffered()).sum()
    }

    /// Out-of-order segments held over all flows (each flow at most [`MAX_OOO_SEGMENTS`], all
    /// at most [`MAX_SESSION_OOO_SEGMENTS`]).
    pub fn out_of_order_segments(&self) -> usize {
        self.ooo_segments
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

    /// Heap bytes this session holds for its peer and its applications: the allocations of the
    /// bytes handed over and not yet acknowledged, the allocations of the received bytes
    /// ([`recv_allocated_bytes`](Self::recv_allocated_bytes)), and the bookkeeping a peer can
    /// multiply — [`SEGMENT_BOOKKEEPING`] per out-of-order segment, [`FLOW_BOOKKEEPING`] per
    /// flow (opened or only named), [`CONN_BOOKKEEPING`] per connection,
    /// [`RETIRED_BOOKKEEPING`] per retired id tracked, and the slots of the control and event
    /// queues. What a driver counts against a memory budget: [`buffer_bytes`](Self::buffer_bytes)
    /// (a walk over the flows, not over their segments) plus
    /// [`bookkeeping_bytes`](Self::bookkeeping_bytes).
    pub fn held_bytes(&self) -> u64 {
        self.buffer_bytes() + self.bookkeeping_bytes()
    }

    /// The buffers' part of [`held_bytes`](Self::held_bytes): the allocations of the bytes
    /// handed over and not yet acknowledged (with the room of the buffer short writes are
    /// copied into) and of the received bytes. A walk over the flows.
    pub fn buffer_bytes(&self) -> u64 {
        self.flows
            .values()
            .map(|f| f.send.allocated() + f.recv.allocated())
            .sum()
    }

    /// The bookkeeping part of [`held_bytes`](Self::held_bytes), what a peer's frames multiply
    /// (segments, flows, connections, retired ids, queue slots). Constant time: a driver may
    /// ask after every read.
    pub fn bookkeeping_bytes(&self) -> u64 {
        let queues = self.ctrl.capacity() * std::mem::size_of::<FlowId>()
            + self.stale.capacity() * std::mem::size_of::<Frame>()
            + self.events.capacity() * std::mem::size_of::<super::Event>();
        SEGMENT_BOOKKEEPING * self.ooo_segments as u64
            + FLOW_BOOKKEEPING * self.flows.len() as u64
            + CONN_BOOKKEEPING * self.conns.len() as u64
            + RETIRED_BOOKKEEPING * self.retired_tracked() as u64
            + queues as u64
    }
}
