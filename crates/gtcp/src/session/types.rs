//! What goes in and out of a [`Session`](super::Session): configuration, events, errors,
//! counters.

use std::time::Duration;

use bytes::Bytes;

use crate::flow::{RecvError, INITIAL_CREDIT};
use crate::ids::{ConnId, FlowId};
use crate::policy::Policy;
use crate::wire::{WireError, MAX_PAYLOAD_CAP};

/// Which end of the origin–destination pair this is. Both send and receive; they differ only in
/// who opens flows and pool connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The client side: applications connect here, it opens flows and pool connections.
    Opener,
    /// The server side: it accepts pool connections and the flows the opener opens.
    Acceptor,
}

/// Limits, timers and policy of one session: the configuration schema every driver's files
/// deserialize into (the tunnel's `[tuning]`, the simulator's `[gtcp]`; feature `serde`, keys
/// as the field names, durations in seconds). Every buffer bound is here, with its default;
/// what they bound together is [`Config::bounds`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
pub struct Config {
    /// Whose bytes a ready connection carries (default `fair`). Each side chooses it for the
    /// bytes it sends, so it is not a key of the shared table: the drivers' files give it
    /// beside it (the tunnel's top-level `policy`, the simulator's `gtcp.policy`).
    #[cfg_attr(feature = "serde", serde(skip))]
    pub policy: Policy,
    /// Largest payload of one data frame (default 16 KiB, at most 64 KiB). Smaller chunks put
    /// the scheduling decision closer to the wire at the cost of 21 header bytes each.
    pub chunk: u32,
    /// Receive window per flow (default 1 MiB, at least 256 KiB = the initial credit): what
    /// this side grants every flow's incoming direction. A flow carried by many connections
    /// may borrow more, up to [`RECEIVE_AHEAD_WINDOWS`](super::RECEIVE_AHEAD_WINDOWS) windows
    /// beyond its highest byte received, from a session budget of
    /// [`RECEIVE_BUDGET_PER_CONNECTION`](super::RECEIVE_BUDGET_PER_CONNECTION) windows per live
    /// connection ([`Bounds::receive_budget`]).
    pub flow_window: u64,
    /// Send buffer per pool connection (default 1 MiB, plain TCP's socket send buffer): a
    /// flow hands bytes over while its own connection's virtual queue is below this, however
    /// many of its bytes already wait ([`Session::send_capacity`](super::Session::send_capacity)).
    /// Unsent bytes are then bounded by [`Bounds::unsent_per_connection`] per live connection
    /// plus orphan debt. It is also the read-ahead within which reaching the end of a stream
    /// makes a new flow's size known.
    pub send_buffer: u64,
    /// Flows tracked at once (default 4096); a session's memory is then bounded by
    /// [`Bounds::memory_per_session`]. An acceptor also keeps up to as many closed flows (no
    /// bytes, bookkeeping only) until the peer confirms what it must (`Session::open_flows`).
    pub max_flows: usize,
    /// Time a pool connection may send nothing before the session has it send a keepalive
    /// frame (default 5 s, more than 0; key `keepalive_secs`), so that a silent peer can be
    /// told from an idle one ([`Session::poll_timeout`](super::Session::poll_timeout)).
    #[cfg_attr(
        feature = "serde",
        serde(rename = "keepalive_secs", with = "crate::secs")
    )]
    pub keepalive: Duration,
    /// Time without a byte from the peer after which a pool connection is dead
    /// ([`Event::ConnDead`]; default 15 s, at least twice `keepalive`; key `dead_peer_secs`).
    /// A live peer sends at least a keepalive every `keepalive`.
    #[cfg_attr(
        feature = "serde",
        serde(rename = "dead_peer_secs", with = "crate::secs")
    )]
    pub dead_peer: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            policy: Policy::default(),
            chunk: 16 * 1024,
            flow_window: 1024 * 1024,
            send_buffer: 1024 * 1024,
            max_flows: 4096,
            keepalive: Duration::from_secs(5),
            dead_peer: Duration::from_secs(15),
        }
    }
}

/// What a [`Config`] bounds, derived in one place ([`Config::bounds`]): the figures the
/// tunnel's metrics, its example configuration and README's limits table state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Unsent bytes one live connection admits: its own `send_buffer` plus
    /// [`LEND_PER_CONNECTION`](super::LEND_PER_CONNECTION) buffers the session may lend flows
    /// the policy sends ahead of their connections: `(1 + LEND_PER_CONNECTION) × send_buffer`.
    pub unsent_per_connection: u64,
    /// Unsent bytes of a session with `max_flows` live connections:
    /// `max_flows × unsent_per_connection`, plus orphan debt and lost bytes of dead
    /// connections until they drain ([`SessionCounters::unsent_bound`] is the live figure).
    pub unsent_per_session: u64,
    /// Receive credit all flows may hold beyond their own windows with `max_flows` live
    /// connections: `RECEIVE_BUDGET_PER_CONNECTION × flow_window × max_flows`.
    pub receive_budget: u64,
    /// Bytes one flow may hold: `unsent_per_connection` unsent, `flow_window` sent and not
    /// yet acknowledged, `flow_window` received and not yet read.
    pub memory_per_flow: u64,
    /// Bytes a session may hold: `max_flows × memory_per_flow + receive_budget` (plus
    /// bookkeeping, and what dead connections left until it drains).
    pub memory_per_session: u64,
}

impl Config {
    /// Checks the bounds; the session refuses a configuration that cannot work. The error
    /// names the key and its allowed range.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.chunk == 0 || self.chunk > MAX_PAYLOAD_CAP {
            return Err(ConfigError::Chunk(self.chunk));
        }
        if self.flow_window < INITIAL_CREDIT {
            return Err(ConfigError::Window(self.flow_window));
        }
        if self.send_buffer == 0 {
            return Err(ConfigError::SendBuffer);
        }
        if self.max_flows == 0 {
            return Err(ConfigError::MaxFlows);
        }
        if self.keepalive.is_zero() {
            return Err(ConfigError::Keepalive);
        }
        if self.dead_peer < 2 * self.keepalive {
            return Err(ConfigError::DeadPeer {
                dead_peer: self.dead_peer.as_secs_f64(),
                keepalive: self.keepalive.as_secs_f64(),
            });
        }
        Ok(())
    }

    /// The bounds this configuration keeps ([`Bounds`]).
    pub fn bounds(&self) -> Bounds {
        use super::{LEND_PER_CONNECTION, RECEIVE_BUDGET_PER_CONNECTION};
        let flows = self.max_flows as u64;
        let unsent_per_connection = (1 + LEND_PER_CONNECTION).saturating_mul(self.send_buffer);
        let receive_budget = RECEIVE_BUDGET_PER_CONNECTION
            .saturating_mul(self.flow_window)
            .saturating_mul(flows);
        let memory_per_flow =
            unsent_per_connection.saturating_add(self.flow_window.saturating_mul(2));
        Bounds {
            unsent_per_connection,
            unsent_per_session: flows.saturating_mul(unsent_per_connection),
            receive_budget,
            memory_per_flow,
            memory_per_session: flows
                .saturating_mul(memory_per_flow)
                .saturating_add(receive_budget),
        }
    }
}

/// A configuration the session refuses.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    #[error("chunk must be between 1 and {MAX_PAYLOAD_CAP} bytes, not {0}")]
    Chunk(u32),
    #[error("flow_window must be at least the initial credit of {INITIAL_CREDIT} bytes, not {0}")]
    Window(u64),
    #[error("send_buffer must be at least 1 byte, not 0")]
    SendBuffer,
    #[error("max_flows must be at least 1, not 0")]
    MaxFlows,
    #[error("keepalive_secs must be more than 0")]
    Keepalive,
    #[error(
        "dead_peer_secs must be at least twice keepalive_secs ({}), not {dead_peer}",
        2.0 * keepalive
    )]
    DeadPeer { dead_peer: f64, keepalive: f64 },
}

/// Something the driver should act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// The peer opened a flow (acceptor): connect to the route's target.
    FlowOpened {
        flow: FlowId,
        route: String,
        class: u8,
        /// The application's addresses as the opener saw them, if it said.
        origin: Option<crate::wire::Origin>,
    },
    /// Data, the end or a reset of the peer's direction can be read.
    FlowReadable(FlowId),
    /// The flow may hand bytes over again ([`Session::send_capacity`](super::Session::send_capacity)
    /// had fallen below half of `send_buffer` and is above it now).
    FlowWritable(FlowId),
    /// Both directions are over.
    FlowClosed(FlowSummary),
    /// The connection has frames to send: call `poll_transmit` while it is writable until it
    /// returns 0.
    ConnReady(ConnId),
    /// Both sides said `Done` on this connection: write nothing more on it, close its sending
    /// half (TCP FIN), keep reading until the peer's end — control frames the peer wrote
    /// before it saw our `Done` may still be on their way — then call `connection_closed`.
    ConnDone(ConnId),
    /// Nothing came from the peer on this connection for `dead_peer`
    /// ([`Session::poll_timeout`](super::Session::poll_timeout)): the peer or the path is gone.
    /// Close the connection (no `Done`), then call `connection_closed`; what it carried goes
    /// again on the others.
    ConnDead(ConnId),
    /// (Opener) the flow needs a connection with this owner: it lost its connection while it
    /// still needs one (plain TCP keeps one connection per active flow), or it is a background
    /// flow that was waiting and is now admitted.
    ConnNeeded { owner: FlowId },
}

/// What happened to a flow, reported when it closes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowSummary {
    pub flow: FlowId,
    pub route: Option<String>,
    pub opened_at: Duration,
    pub closed_at: Duration,
    /// Bytes this side handed over for the flow.
    pub bytes_sent: u64,
    /// Bytes of the peer's direction delivered to this side's application.
    pub bytes_received: u64,
    /// The flow ended by a reset with this code.
    pub reset: Option<u32>,
}

impl FlowSummary {
    pub fn completion_time(&self) -> Duration {
        self.closed_at.saturating_sub(self.opened_at)
    }
}

/// What a read of a flow returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadOutcome {
    Data(Bytes),
    /// The peer's direction ended cleanly.
    End,
    /// The flow was reset with this code.
    Reset(u32),
    /// Nothing to read yet.
    Blocked,
}

/// The peer broke the protocol on a connection: close that connection (and call
/// `connection_closed`); every other flow goes on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    #[error("malformed input: {0}")]
    Wire(#[from] WireError),
    #[error("{flow}: {source}")]
    Flow { flow: FlowId, source: RecvError },
    #[error("{0} is a flow the peer could not have opened")]
    ImpossibleFlow(FlowId),
    #[error("the acceptor may not open flows ({0})")]
    OpenFromAcceptor(FlowId),
    #[error("{flow} opened on {conn}, which another flow owns")]
    ForeignOwner { flow: FlowId, conn: ConnId },
    #[error("{flow}: acknowledgement of {received} bytes, only {sent} were sent")]
    AckBeyondSent {
        flow: FlowId,
        received: u64,
        sent: u64,
    },
    #[error("{flow}: the end of an unfinished direction was acknowledged")]
    AckOfUnsentFin { flow: FlowId },
    #[error("more than {0} flows")]
    TooManyFlows(usize),
    #[error("more than {0} flows named before they were opened")]
    TooManyUnopened(usize),
    #[error("{0} is not a connection of this session")]
    UnknownConn(ConnId),
    #[error("data after Done on {0}")]
    DataAfterDone(ConnId),
}

/// A call the session cannot honour.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SessionError {
    #[error("{0} is not an active flow")]
    UnknownFlow(FlowId),
    #[error("{0} is not a connection of this session")]
    UnknownConn(ConnId),
    #[error("{0} already exists")]
    DuplicateConn(ConnId),
    #[error("{flow} already has a live connection")]
    AlreadyOwned { flow: FlowId },
    #[error("only the opener opens flows")]
    NotOpener,
    #[error("the session already tracks its maximum of {0} flows")]
    TooManyFlows(usize),
    #[error("{0} was finished or reset; it takes no more bytes")]
    Finished(FlowId),
    #[error("the session is shutting down")]
    GoingAway,
    #[error("{0} background flows already wait for admission")]
    BackgroundFull(usize),
}

/// Session-wide counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SessionCounters {
    pub flows_opened: u64,
    pub flows_closed: u64,
    pub flows_reset: u64,
    pub active_flows: u64,
    pub active_conns: u64,
    pub conns_lost: u64,
    /// Bytes handed over by applications on this side.
    pub bytes_handed: u64,
    /// Payload bytes sent, counting re-sends.
    pub payload_sent: u64,
    /// Payload bytes sent again after their connection died.
    pub resent_bytes: u64,
    /// Framing bytes sent.
    pub header_sent: u64,
    /// Payload bytes delivered to applications on this side.
    pub bytes_delivered: u64,
    /// Bytes owed by no live connection (after a connection died), carried by the others.
    pub orphan_bytes: u64,
    /// Bytes handed over and not yet sent (new, or to be sent again).
    pub unsent_bytes: u64,
    /// The bound on `unsent_bytes` the hand-over rule keeps: (live connections + flows
    /// without a live connection) × `send_buffer`, + the lend budget (`LEND_PER_CONNECTION`
    /// × live connections × `send_buffer`, or `lent_bytes` while above it), + `orphan_bytes`,
    /// + `lost_bytes` ([`Session::send_capacity`](super::Session::send_capacity)).
    pub unsent_bound: u64,
    /// Bytes lent: Σ over live connections of what their virtual queues hold beyond one
    /// `send_buffer` (flows sent ahead of their own connections handed them over). Within the
    /// lend budget, except after connections died (the budget shrinks with them, the rest of
    /// the loan stays until the live connections carry it: nothing more is lent meanwhile).
    pub lent_bytes: u64,
    /// Bytes sent on connections that died unacknowledged, to be sent again (they were in
    /// flight, so within the receiver's credit; they drain as they go again).
    pub lost_bytes: u64,
    /// Bytes held in send buffers: unsent, plus sent and not yet acknowledged.
    pub send_buffered_bytes: u64,
    /// Receive credit granted beyond the flows' own `flow_window`s, from the session's
    /// receive budget ([`RECEIVE_BUDGET_PER_CONNECTION`](super::RECEIVE_BUDGET_PER_CONNECTION)
    /// windows per live connection).
    pub recv_credit_extra: u64,
    /// Connection-microseconds during which a connection owed bytes (its virtual queue, or
    /// orphan debt, above zero) and the policy had no flow with bytes it could send: time
    /// plain TCP's connection would have been sending. Zero under `tcp` unless receive
    /// credit holds a flow back; the non-intrusiveness alarm. Counted when the
    /// connection sends again, drains or closes.
    pub starved_micros: u64,
    /// Of `starved_micros`, the periods that began while handed-over bytes were waiting for
    /// the receiver's credit (nothing else kept them from going).
    pub starved_by_credit_micros: u64,
}

/// One flow's sending direction ([`Session::flow_send_state`](super::Session::flow_send_state)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FlowSendState {
    /// Bytes handed over and not yet sent (new, or to be sent again).
    pub unsent: u64,
    /// Of those, bytes the receiver's credit lets go now.
    pub sendable: u64,
    /// Bytes the application may hand over now ([`Session::send_capacity`](super::Session::send_capacity)).
    pub handover_room: u64,
}
