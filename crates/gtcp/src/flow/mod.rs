//! Flows: one application connection, both directions, as the session sees it.

mod recv;
mod send;
pub(crate) mod state;

pub use recv::RecvError;
pub(crate) use recv::RecvStream;
pub(crate) use send::SendStream;
pub use send::{INITIAL_CREDIT, KEEP_PIECE_MIN};

use std::time::Duration;

use crate::ids::{ConnId, FlowId};
use crate::policy::{FlowState, SortKey};
use state::{AckState, AdmissionState, Life, RecvState, ResetState, SendState};

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
///
/// ```text
///   Awaiting{carried} ──established──▶ Live(c) ──closed after both Done──▶ ClosedClean
///                                        │  ▲
///                                   died │  │ a replacement established
///                                        ▼  │
///                                        Lost
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ownership {
    /// Its first connection is not established yet: what it hands over waits for it.
    /// `carried`: other connections carried some of its bytes or its end ahead of it (the
    /// policy may serve a flow before its own connection exists), so the peer may know the
    /// flow though it never saw it opened. It never goes back to `false`, unlike `Flow::fin`
    /// (back to `Queued` when its connection dies, then `Idle` on a reset) and `send.next`
    /// (set to what was written when a reset abandons the rest); it matters only while the
    /// flow has had no connection (`liveness::own_reset_unconfirmed`).
    Awaiting { carried: bool },
    /// This live connection owns it.
    Live(ConnId),
    /// Its connection died: what it hands over is orphan debt until a replacement arrives,
    /// which inherits what the flow still has to send.
    Lost,
    /// Its connection closed after both sides said `Done`.
    ClosedClean,
}

impl Default for Ownership {
    fn default() -> Self {
        Ownership::Awaiting { carried: false }
    }
}

/// What moves an [`Ownership`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OwnershipEvent {
    /// Connection `c` becomes the flow's own (established for it, or claimed by its opening).
    Attach(ConnId),
    /// The flow's own connection is gone: `clean`, closed after both sides said `Done`.
    Gone { clean: bool },
    /// Another connection carried some of the flow's bytes or its end.
    Carried,
}

impl Ownership {
    /// The transition function. Returns, for `Attach`, whether the connection replaces one
    /// that died (it inherits what the flow still has to send).
    pub fn on(&mut self, ev: OwnershipEvent) -> bool {
        use Ownership as O;
        let mut replacement = false;
        *self = match (*self, ev) {
            (O::Live(c), OwnershipEvent::Attach(_)) => {
                debug_assert!(false, "flow already owned by {c}");
                O::Live(c)
            }
            (prev, OwnershipEvent::Attach(c)) => {
                replacement = prev == O::Lost;
                O::Live(c)
            }
            (O::Live(_), OwnershipEvent::Gone { clean: true }) => O::ClosedClean,
            (O::Live(_), OwnershipEvent::Gone { clean: false }) => O::Lost,
            (O::Awaiting { .. }, OwnershipEvent::Carried) => O::Awaiting { carried: true },
            (o, OwnershipEvent::Carried) => o,
            (o, e) => {
                debug_assert!(false, "ownership: {e:?} in {o:?}");
                o
            }
        };
        replacement
    }

    /// Its first connection is not established yet.
    pub fn awaiting(self) -> bool {
        matches!(self, Ownership::Awaiting { .. })
    }
}

/// One flow.
#[derive(Debug)]
pub(crate) struct Flow {
    pub id: FlowId,
    /// The route; `None` on the accepting side until the frame that opens the flow arrives.
    pub route: Option<String>,
    pub class: u8,
    /// Where the application connection came from, if the opener said
    /// ([`Session::set_origin`](crate::Session::set_origin)); boxed, as few flows have one.
    pub origin: Option<Box<crate::wire::Origin>>,
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
    /// Our direction ([`SendState`]).
    pub send_state: SendState,
    /// The peer's direction ([`RecvState`]).
    pub recv_state: RecvState,
    /// The reset of both directions and its frame ([`ResetState`]).
    pub reset: ResetState,
    /// The acknowledgement of the peer's direction ([`AckState`]).
    pub ack: AckState,
    /// Open, or closed and lingering ([`Life`]).
    pub life: Life,
    /// Access control of a background flow ([`AdmissionState`]).
    pub admission: AdmissionState,
    /// An [`Event::FlowReadable`](crate::Event::FlowReadable) for it waits in the event queue
    /// (one is enough: the application reads until blocked), so a peer's frames cannot
    /// multiply the queue. A mark of membership in that queue, cleared when the driver polls
    /// the event, not a stage of the flow's life (see [`state`]).
    pub readable_queued: bool,
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
            ownership: Ownership::default(),
            virtual_sent: 0,
            awaiting_owner: 0,
            turn: 0,
            key: None,
            open: Delivery::Idle,
            fin: Delivery::Idle,
            send_state: SendState::Open,
            recv_state: RecvState::Open,
            reset: ResetState::None,
            ack: AckState::Idle,
            life: Life::Open,
            admission: AdmissionState::Foreground,
            readable_queued: false,
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

    /// The flow was reset, by either side.
    pub fn is_reset(&self) -> bool {
        self.reset.is_reset()
    }

    /// Both directions are over and the flow was reported closed.
    pub fn closed(&self) -> bool {
        self.life.closed()
    }

    /// Our direction is over: acknowledged to its final size, or reset.
    pub fn send_done(&self) -> bool {
        self.send_state.done()
    }

    /// The peer's direction is over: read to its final size, or reset.
    pub fn recv_done(&self) -> bool {
        self.recv_state.done()
    }

    /// The application will hand no more bytes to this flow's connection.
    pub fn no_more_writes(&self) -> bool {
        !self.send_state.takes_writes()
    }

    /// Nothing of ours waits for the peer's confirmation on connection `c`.
    pub fn settled_on(&self, c: ConnId) -> bool {
        self.fin != Delivery::SentOn(c)
            && self.reset.frame() != Delivery::SentOn(c)
            && self.open != Delivery::SentOn(c)
    }

    /// What must hold between the flow's state machines at rest (between two calls into the
    /// session), whatever the peer sent: both halves and the reset agree on whether the flow
    /// was reset, a closed flow has both halves over, the end frame's delivery matches the
    /// sending half, an ended receiving half has read to the final size, and a reset or
    /// unopened flow owes no acknowledgement.
    #[cfg(any(test, feature = "pair"))]
    pub fn check(&self) -> Result<(), String> {
        let id = self.id;
        let reset = self.is_reset();
        if (self.send_state == SendState::Reset) != reset
            || (self.recv_state == RecvState::Reset) != reset
        {
            return Err(format!(
                "{id}: halves {:?}/{:?} disagree with {:?}",
                self.send_state, self.recv_state, self.reset
            ));
        }
        let frame_ok = match self.reset {
            ResetState::None => true,
            ResetState::Local { frame, .. } => frame != Delivery::Idle,
            ResetState::Peer { frame, .. } => {
                matches!(frame, Delivery::Queued | Delivery::Confirmed)
            }
        };
        if !frame_ok {
            return Err(format!("{id}: {:?}", self.reset));
        }
        if self.closed() && !(self.send_done() && self.recv_done()) {
            return Err(format!(
                "{id}: closed with {:?}/{:?}",
                self.send_state, self.recv_state
            ));
        }
        let fin_ok = match self.send_state {
            SendState::Open => self.fin == Delivery::Idle,
            SendState::Finished => self.fin != Delivery::Idle,
            SendState::FinAcked => self.fin == Delivery::Confirmed,
            SendState::Reset => true,
        };
        if !fin_ok {
            return Err(format!(
                "{id}: {:?} with end {:?}",
                self.send_state, self.fin
            ));
        }
        if self.recv_state == RecvState::Ended && !self.recv.at_end() {
            return Err(format!(
                "{id}: ended at {} of {:?}",
                self.recv.read, self.recv.final_size
            ));
        }
        if self.ack.queued() && (reset || !self.opened()) {
            return Err(format!(
                "{id}: acknowledgement queued, reset {reset}, opened {}",
                self.opened()
            ));
        }
        if self.admission.waiting() && self.send.written > 0 {
            return Err(format!("{id}: waiting for admission with bytes"));
        }
        Ok(())
    }
}
