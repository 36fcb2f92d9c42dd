//! Flows: one application connection, both directions, as the session sees it.

mod recv;
mod send;

pub use recv::RecvError;
pub(crate) use recv::RecvStream;
pub(crate) use send::SendStream;
pub use send::{INITIAL_CREDIT, KEEP_PIECE_MIN};

use std::time::Duration;

use crate::ids::{ConnId, FlowId};
use crate::policy::{FlowState, SortKey};

/// Where a control frame that must reach the peer stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Delivery {
    /// Nothing to send.
    #[default]
    Idle,
    /// Waiting for a connection to carry it.
    Queued,
    /// Written on this connection, not yet confirmed by the peer.
    SentOn(ConnId),
    /// The peer confirmed it.
    Confirmed,
}

/// A flow's own connection (plain TCP's connection for it) over the flow's life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Ownership {
    /// Its first connection is not established yet: what it hands over waits for it.
    #[default]
    Awaiting,
    /// This live connection owns it.
    Live(ConnId),
    /// Its connection died: what it hands over is orphan debt until a replacement arrives,
    /// which inherits what the flow still has to send.
    Lost,
    /// Its connection closed after both sides said `Done`.
    ClosedClean,
}

/// One flow.
#[derive(Debug)]
pub(crate) struct Flow {
    pub id: FlowId,
    /// The route; `None` on the accepting side until the frame that opens the flow arrives.
    pub route: Option<String>,
    pub class: u8,
    /// Where the application connection came from, if the opener said
    /// ([`Session::set_origin`](crate::Session::set_origin)).
    pub origin: Option<crate::wire::Origin>,
    pub arrival: u64,
    pub opened_at: Duration,
    pub send: SendStream,
    pub recv: RecvStream,
    /// The connection that owns this flow (plain TCP's connection for it), and what became
    /// of it.
    pub ownership: Ownership,
    /// Bytes of this flow's own connection's virtual queue it has carried (for FAIR).
    pub virtual_sent: u64,
    /// Bytes handed over before the flow's first connection existed.
    pub awaiting_owner: u64,
    /// Round-robin ticket (for PS+PS).
    pub turn: u64,
    /// Current key in the schedule, when the flow is ready.
    pub key: Option<SortKey>,
    /// The opening frame (opener side only).
    pub open: Delivery,
    /// The end-of-flow frame of our direction.
    pub fin: Delivery,
    /// A data frame or the end of this flow went out on some connection at least once: the
    /// peer may know the flow even if it never saw it opened. Monotonic, unlike `fin` (back to
    /// `Queued` when its connection dies, then `Idle` on a reset) and `send.next` (set to what
    /// was written when a reset abandons the rest).
    pub went_out: bool,
    /// A reset we sent (or must send) and its confirmation.
    pub reset: Delivery,
    /// The reset was decided on this side (else it is the peer's, which we confirm).
    pub reset_local: bool,
    /// The flow was reset, by either side, with this code.
    pub reset_code: Option<u32>,
    /// Our direction has been finished by the peer's acknowledgement of the final size.
    pub fin_acked: bool,
    /// An acknowledgement (with credit) should go to the peer.
    pub ack_queued: bool,
    /// The connection the latest acknowledgement went on. Acknowledgements are cumulative, so
    /// only that connection's loss can leave the peer without the latest one.
    pub ack_on: Option<ConnId>,
    /// The connection the peer's latest reset arrived on: its confirmation goes back there
    /// while that connection lives (`Session::write_control`).
    pub reset_from: Option<ConnId>,
    /// The application has been told the peer's direction ended (or reset).
    pub end_reported: bool,
    /// The flow counts as closed; it lingers until its connection is gone (opener side).
    pub closed: bool,
    /// An [`Event::FlowReadable`](crate::Event::FlowReadable) for it waits in the event queue
    /// (one is enough: the application reads until blocked), so a peer's frames cannot
    /// multiply the queue (issue 16).
    pub readable_queued: bool,
    /// A background flow (under access control, when the session has it).
    pub background: bool,
    /// A background flow not yet admitted: it takes no bytes and has no connection.
    pub waiting_admission: bool,
    /// (Acceptor) Live connections added for this flow whose first frame, still to come, must
    /// be its opening. While one does, the flow is not counted against
    /// [`MAX_UNOPENED_FLOWS`](crate::session::caps::MAX_UNOPENED_FLOWS).
    pub awaited_by: u32,
}

impl Flow {
    pub fn new(id: FlowId, arrival: u64, now: Duration, window: u64) -> Self {
        Self {
            id,
            route: None,
            class: 0,
            origin: None,
            arrival,
            opened_at: now,
            send: SendStream::new(),
            recv: RecvStream::new(window),
            ownership: Ownership::Awaiting,
            virtual_sent: 0,
            awaiting_owner: 0,
            turn: 0,
            key: None,
            open: Delivery::Idle,
            fin: Delivery::Idle,
            went_out: false,
            reset: Delivery::Idle,
            reset_local: false,
            reset_code: None,
            fin_acked: false,
            ack_queued: false,
            ack_on: None,
            reset_from: None,
            end_reported: false,
            closed: false,
            readable_queued: false,
            background: false,
            waiting_admission: false,
            awaited_by: 0,
        }
    }

    /// Whether the flow is open on this side: always on the opener (its application opened
    /// it); on the acceptor once the frame that opens it arrived (its route is then known).
    /// Until then an acceptor flow exists only because frames about it overtook its opening
    /// (or its connection was announced first): its application does not know it (the
    /// session refuses the application's calls on it: a driver out of contract, as the fuzzer
    /// is, once ended such a flow, and the opener's stale reply broke every new connection),
    /// nothing of it is acknowledged, and evidence that the peer had it with another instance
    /// of this side resets it (`Session::reset_flow_of_another_instance`).
    pub fn opened(&self) -> bool {
        self.route.is_some()
    }

    /// The live connection that owns the flow.
    pub fn owner(&self) -> Option<ConnId> {
        match self.ownership {
            Ownership::Live(c) => Some(c),
            _ => None,
        }
    }

    /// What the policy sees.
    pub fn state(&self) -> FlowState {
        FlowState {
            arrival: self.arrival,
            class: self.class,
            sent: self.send.next,
            known_end: self.send.known_end,
            virtual_sent: self.virtual_sent,
            turn: self.turn,
        }
    }

    /// Our direction is over: acknowledged to its final size, or reset.
    pub fn send_done(&self) -> bool {
        self.reset_code.is_some() || self.fin_acked
    }

    /// The peer's direction is over: read to its final size, or reset.
    pub fn recv_done(&self) -> bool {
        self.reset_code.is_some() || (self.recv.at_end() && self.end_reported)
    }

    /// The application will hand no more bytes to this flow's connection.
    pub fn no_more_writes(&self) -> bool {
        self.reset_code.is_some() || self.send.finished
    }

    /// Nothing of ours waits for the peer's confirmation on connection `c`.
    pub fn settled_on(&self, c: ConnId) -> bool {
        self.fin != Delivery::SentOn(c)
            && self.reset != Delivery::SentOn(c)
            && self.open != Delivery::SentOn(c)
    }
}
