//! Pool connections as the core sees them: a virtual queue and counters.

use crate::ids::{ConnId, FlowId};
use crate::wire::AckFrame;

/// Per-connection counters: the invariant of the product, observable.
///
/// For every connection, at any time,
/// `payload_bytes == owner_bytes − virtual_queue + adopted_bytes − forgiven_bytes`,
/// and once its virtual queue is empty, the bytes it carried are exactly the bytes its owning
/// flow handed over (plus `adopted_bytes`, non-zero only after another connection died, less
/// `forgiven_bytes`, non-zero only after a reset; plus `header_bytes` of framing). Policy
/// changes *whose* payload that is, never how much.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ConnCounters {
    /// Bytes the owning flow handed to the tunnel while this connection owned it.
    pub owner_bytes: u64,
    /// Payload bytes (of any flow) this connection carried.
    pub payload_bytes: u64,
    /// Framing bytes this connection carried (frame headers and control frames).
    pub header_bytes: u64,
    /// Payload carried on behalf of connections that died (their virtual queue and lost data).
    pub adopted_bytes: u64,
    /// Bytes struck from the virtual queue without being carried: what plain TCP would have
    /// discarded when a flow was reset, or lost data the receiver turned out to hold.
    pub forgiven_bytes: u64,
    /// Bytes this connection still owes: its virtual queue q_v (paper 000, Algorithm 4).
    pub virtual_queue: u64,
    /// Payload bytes received on this connection.
    pub received_payload_bytes: u64,
    /// All bytes received on this connection.
    pub received_bytes: u64,
}

/// A connection's counters break the invariant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum InvariantViolation {
    /// `payload + virtual_queue + forgiven ≠ owner + adopted`: the connection carried other
    /// than what its flow handed over (and what it adopted).
    #[error(
        "carried {carried} bytes (payload + virtual queue + forgiven) but owes {owed} (owner + adopted)"
    )]
    Ledger { carried: u64, owed: u64 },
    /// The connection closed owing bytes.
    #[error("closed with {0} bytes still in its virtual queue")]
    OpenDebt(u64),
}

impl ConnCounters {
    /// The ledger identity, true at any time:
    /// `payload + virtual_queue + forgiven == owner + adopted`.
    pub fn check_invariant(&self) -> Result<(), InvariantViolation> {
        let carried = self.payload_bytes + self.virtual_queue + self.forgiven_bytes;
        let owed = self.owner_bytes + self.adopted_bytes;
        if carried != owed {
            return Err(InvariantViolation::Ledger { carried, owed });
        }
        Ok(())
    }

    /// The invariant of a connection that is closing or closed: the identity, and nothing left
    /// owing, so its payload is exactly its flow's bytes (plus adopted, less forgiven). Every
    /// driver and test checks closed connections with this one function.
    pub fn check_closed(&self) -> Result<(), InvariantViolation> {
        self.check_invariant()?;
        if self.virtual_queue != 0 {
            return Err(InvariantViolation::OpenDebt(self.virtual_queue));
        }
        Ok(())
    }
}

/// Where a connection stands in its closing handshake: each side says `Done` once it owes
/// nothing there; once both have, it closes ([`Event::ConnDone`](crate::Event::ConnDone)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Phase {
    /// Carrying data.
    #[default]
    Open,
    /// We said `Done`: no more data from us here; control frames may still go until the
    /// peer's `Done`.
    DoneSent,
    /// The peer said `Done`: no more data from it here.
    DoneReceived,
    /// Both said `Done`: nothing more goes on it; the driver half-closes it.
    Closing,
}

impl Phase {
    pub fn done_sent(self) -> bool {
        matches!(self, Phase::DoneSent | Phase::Closing)
    }

    pub fn done_received(self) -> bool {
        matches!(self, Phase::DoneReceived | Phase::Closing)
    }

    /// The phase after we say `Done`.
    pub fn send_done(self) -> Phase {
        if self.done_received() {
            Phase::Closing
        } else {
            Phase::DoneSent
        }
    }

    /// The phase after the peer's `Done`.
    pub fn receive_done(self) -> Phase {
        if self.done_sent() {
            Phase::Closing
        } else {
            Phase::DoneReceived
        }
    }
}

#[derive(Debug)]
pub(crate) struct Conn {
    pub id: ConnId,
    pub owner: Option<FlowId>,
    pub counters: ConnCounters,
    /// Payload bytes carried here not yet acknowledged by the receiver.
    pub unacked: u64,
    /// The closing handshake.
    pub phase: Phase,
    /// The driver has been told this connection has something to send and has not yet found it
    /// empty.
    pub polled: bool,
    /// `GoAway` was sent on this connection.
    pub go_away_sent: bool,
    /// Frames that must go on this connection (the opening frame of its flow).
    pub open_queue: Vec<FlowId>,
    /// (Acceptor) The last acknowledgement of this connection's flow, forgotten after that
    /// acknowledgement went on another connection: it goes again here, before `Done`
    /// (`Session::try_retire`).
    pub final_ack: Option<AckFrame>,
    /// Since when the connection owes bytes (q_v > 0) and the policy found no flow it could
    /// send, and whether bytes were waiting for receive credit then
    /// ([`SessionCounters::starved_micros`](crate::SessionCounters::starved_micros)).
    pub starved_since: Option<(std::time::Duration, bool)>,
    /// Its keepalive and dead-peer clocks (`Session::poll_timeout`).
    pub timers: ConnTimers,
}

/// A connection's protocol clocks ([`Session::poll_timeout`](crate::Session::poll_timeout)):
/// when it last sent and last received (unknown until the session is first given a time for
/// it), whether a keepalive is due, and whether it was reported dead.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct ConnTimers {
    pub last_sent: Option<std::time::Duration>,
    pub last_received: Option<std::time::Duration>,
    pub keepalive_due: bool,
    pub dead: bool,
}

impl Conn {
    pub fn new(id: ConnId, owner: Option<FlowId>) -> Self {
        Self {
            id,
            owner,
            counters: ConnCounters::default(),
            unacked: 0,
            phase: Phase::Open,
            polled: false,
            go_away_sent: false,
            open_queue: Vec::new(),
            final_ack: None,
            starved_since: None,
            timers: ConnTimers::default(),
        }
    }

    pub fn vq(&self) -> u64 {
        self.counters.virtual_queue
    }
}
