//! A flow's life as explicit state machines, one per concern, each with one transition
//! function (`on`) that is the only place its state changes. A transition the session must
//! never ask for (its own bug, not the peer's: a peer's frames may arrive in any order, and
//! every transition a peer can provoke is legal) is a `debug_assert!` and leaves the state as
//! it was. [`Flow::check`](super::Flow::check) states what must hold between them at rest;
//! the test harness [`Pair`](crate::pair::Pair) checks it, and what must hold between the two
//! ends' copies of a flow ([`check_ends`]), after every step.
//!
//! * [`SendState`]: our direction, as the application hands bytes over and the peer
//!   acknowledges them.
//! * [`RecvState`]: the peer's direction, as the application reads it.
//! * [`ResetState`]: the abort of both directions, by either side, and the exchange of its
//!   frame and confirmation.
//! * [`AckState`]: where the acknowledgement (with credit) of the peer's direction stands.
//! * [`Life`]: the flow as a whole, closed once both directions are over.
//! * [`AdmissionState`]: access control of background flows (paper 004, Section III-B).
//!
//! The deliveries of the opening and the end frames are [`Delivery`]s, and the flow's own
//! connection is [`Ownership`](super::Ownership); both are owned by
//! [`Flow`](super::Flow). One flag stays a flag: `Flow::readable_queued` says that an
//! [`Event::FlowReadable`](crate::Event::FlowReadable) for the flow waits in the session's
//! event queue (it is cleared when the driver polls that event, whatever the flow's state):
//! membership of a queue, not a stage of the flow's life.

use super::Delivery;
use crate::ids::ConnId;

/// The sending half: our direction of the flow.
///
/// ```text
///            finish               peer acks the final size
///   Open ─────────────▶ Finished ──────────────────────────▶ FinAcked
///     │                    │                                   │
///     └──────── reset (either side) ───────────────────────────┴───▶ Reset
/// ```
///
/// `Open`: the application may hand bytes over. `Finished`: it will hand over no more; the
/// final size is what it wrote, and the end frame's delivery is `Flow::fin`. `FinAcked`: the
/// peer holds every byte up to the final size. `Reset`: what was not sent is dropped and
/// nothing more goes. `FinAcked` and `Reset` are the direction's ends
/// ([`done`](Self::done)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum SendState {
    #[default]
    Open,
    Finished,
    FinAcked,
    Reset,
}

/// What moves a [`SendState`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SendEvent {
    /// The application finished its direction.
    Finish,
    /// The peer acknowledged every byte up to the final size.
    FinAcked,
    /// The flow was reset, by either side.
    Reset,
}

impl SendState {
    /// The transition function.
    pub fn on(&mut self, ev: SendEvent) {
        use SendEvent as E;
        use SendState as S;
        *self = match (*self, ev) {
            (S::Open, E::Finish) => S::Finished,
            (S::Finished, E::FinAcked) => S::FinAcked,
            (S::Open | S::Finished | S::FinAcked, E::Reset) => S::Reset,
            (s, e) => {
                debug_assert!(false, "send half: {e:?} in {s:?}");
                s
            }
        };
    }

    /// The application may hand bytes over.
    pub fn takes_writes(self) -> bool {
        self == SendState::Open
    }

    /// The direction is over: acknowledged to its final size, or reset.
    pub fn done(self) -> bool {
        matches!(self, SendState::FinAcked | SendState::Reset)
    }
}

/// The receiving half: the peer's direction of the flow.
///
/// ```text
///            the application reads the end
///   Open ───────────────────────────────────▶ Ended
///     │                                         │
///     └──────────── reset (either side) ────────┴───▶ Reset
/// ```
///
/// `Open` covers what the reassembly ([`RecvStream`](super::RecvStream)) tells apart by its
/// numbers: the final size unknown or known (`final_size`), every byte received or not
/// (`received`). `Ended`: the application read every byte up to the final size and was told
/// the end ([`ReadOutcome::End`](crate::ReadOutcome::End)). `Ended` and `Reset` are the
/// direction's ends ([`done`](Self::done)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum RecvState {
    #[default]
    Open,
    Ended,
    Reset,
}

/// What moves a [`RecvState`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RecvEvent {
    /// The application read the end (every byte up to the final size was read).
    EndRead,
    /// The flow was reset, by either side.
    Reset,
}

impl RecvState {
    /// The transition function.
    pub fn on(&mut self, ev: RecvEvent) {
        use RecvEvent as E;
        use RecvState as S;
        *self = match (*self, ev) {
            (S::Open, E::EndRead) => S::Ended,
            (S::Open | S::Ended, E::Reset) => S::Reset,
            (s, e) => {
                debug_assert!(false, "receive half: {e:?} in {s:?}");
                s
            }
        };
    }

    /// The direction is over: read to its end, or reset.
    pub fn done(self) -> bool {
        matches!(self, RecvState::Ended | RecvState::Reset)
    }
}

/// The reset of a flow (both directions at once) and the exchange of its frame: our reset
/// waits for the peer's confirmation; the peer's reset gets ours.
///
/// ```text
///          local reset            sent on c               confirmed
///   None ──────────────▶ Local(Queued) ──────▶ Local(SentOn c) ──────▶ Local(Confirmed)
///     │                    ▲    │    c lost, or the    │
///     │                    │    │    peer said Done    │
///     │                    └────┼────── on c ──────────┘
///     │                         │ the peer's reset crosses ours (from Queued or SentOn)
///     │     peer's reset on c   ▼         our confirmation sent
///     └───────────────────▶ Peer(Queued, from c) ───────────────────▶ Peer(Confirmed)
/// ```
///
/// A flow still waiting for admission, which the peer never heard of, goes from `None` to
/// `Local(Confirmed)` at once: nothing to tell. A repeated reset from the peer while our
/// confirmation is queued updates `from`; one that finds our frame settled (`Confirmed`) is
/// answered from the frame ([`ResetEffect::answer`]). The code is the first reset's, whoever
/// sent it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum ResetState {
    /// Not reset.
    #[default]
    None,
    /// Reset by this side with `code`; `frame` is our reset frame's delivery (`Queued`,
    /// `SentOn`, `Confirmed`).
    Local { code: u32, frame: Delivery },
    /// Reset by the peer (or crossed: both reset, theirs settled ours); `frame` is our
    /// confirmation's delivery (`Queued`, then `Confirmed` once written); `from` is the
    /// connection the peer's latest reset came on: the confirmation goes back there while it
    /// lives (`Session::write_control`).
    Peer {
        code: u32,
        frame: Delivery,
        from: ConnId,
    },
}

/// What moves a [`ResetState`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ResetEvent {
    /// The application (or the session, for a flow of another instance) reset the flow;
    /// `tell_peer`: the peer may know the flow (else the reset ends here).
    Local { code: u32, tell_peer: bool },
    /// The peer's reset (not a confirmation) arrived on `conn`.
    Peer { code: u32, conn: ConnId },
    /// The peer's confirmation of a reset arrived.
    Confirmed,
    /// Our frame (reset or confirmation) was written on `conn`.
    Sent(ConnId),
    /// What was written on `conn` (or, with `any`, on any connection) may not arrive: it is
    /// due again.
    Requeue { conn: ConnId, any: bool },
}

/// What a [`ResetState`] transition asks of the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct ResetEffect {
    /// The flow is reset by this transition: it drops what it holds
    /// (`Session::apply_reset`).
    pub reset_now: bool,
    /// A frame became due that has no entry in the control queue yet.
    pub queue: bool,
    /// A frame of ours written on this connection is settled (it may be able to say `Done`).
    pub settled: Option<ConnId>,
    /// The peer's reset found ours settled both ways: a confirmation goes back, from the frame
    /// itself.
    pub answer: bool,
}

impl ResetState {
    /// The transition function.
    pub fn on(&mut self, ev: ResetEvent) -> ResetEffect {
        use ResetState as S;
        let mut fx = ResetEffect::default();
        match (*self, ev) {
            (S::None, ResetEvent::Local { code, tell_peer }) => {
                let frame = if tell_peer {
                    Delivery::Queued
                } else {
                    Delivery::Confirmed
                };
                *self = S::Local { code, frame };
            }
            (S::None, ResetEvent::Peer { code, conn }) => {
                fx.reset_now = true;
                *self = S::Peer {
                    code,
                    frame: Delivery::Queued,
                    from: conn,
                };
            }
            // Crossed (ours unsettled) or repeated (our confirmation of their first copy still
            // queued): theirs settles ours and gets a confirmation of its own. Taking ours for
            // the confirmation would drop a queued one, and the peer would keep the flow and
            // the connection it sent the reset on waiting for it.
            (
                S::Local { code, frame } | S::Peer { code, frame, .. },
                ResetEvent::Peer { conn, .. },
            ) if matches!(frame, Delivery::Queued | Delivery::SentOn(_)) => {
                if let Delivery::SentOn(c) = frame {
                    fx.settled = Some(c);
                }
                // A frame still queued has its entry in the control queue already: one more
                // per repeated reset would let a peer grow the queue without bound.
                fx.queue = frame != Delivery::Queued;
                *self = S::Peer {
                    code,
                    frame: Delivery::Queued,
                    from: conn,
                };
            }
            // Both sides reset at once, or a repeat after our confirmation went: ours needs no
            // confirmation beyond theirs.
            (S::Local { .. } | S::Peer { .. }, ResetEvent::Peer { .. }) => fx.answer = true,
            (S::Local { code, frame } | S::Peer { code, frame, .. }, ResetEvent::Confirmed)
                if matches!(frame, Delivery::Queued | Delivery::SentOn(_)) =>
            {
                if let Delivery::SentOn(c) = frame {
                    fx.settled = Some(c);
                }
                self.set_frame(code, Delivery::Confirmed);
            }
            // A confirmation of nothing unsettled (a duplicate, or a peer's mistake): no-op.
            (_, ResetEvent::Confirmed) => {}
            (
                S::Local {
                    code,
                    frame: Delivery::Queued,
                },
                ResetEvent::Sent(c),
            ) => {
                *self = S::Local {
                    code,
                    frame: Delivery::SentOn(c),
                };
            }
            // Our confirmation needs none: written, it is settled.
            (
                S::Peer {
                    code,
                    frame: Delivery::Queued,
                    ..
                },
                ResetEvent::Sent(_),
            ) => {
                self.set_frame(code, Delivery::Confirmed);
            }
            (
                S::Local { code, frame } | S::Peer { code, frame, .. },
                ResetEvent::Requeue { conn, any },
            ) => {
                if let Delivery::SentOn(c) = frame {
                    if c == conn || any {
                        fx.queue = true;
                        self.set_frame(code, Delivery::Queued);
                    }
                }
            }
            (S::None, ResetEvent::Requeue { .. }) => {}
            (s, e) => debug_assert!(false, "reset: {e:?} in {s:?}"),
        }
        fx
    }

    fn set_frame(&mut self, code: u32, to: Delivery) {
        match self {
            ResetState::Local { frame, .. } | ResetState::Peer { frame, .. } => *frame = to,
            ResetState::None => debug_assert!(false, "reset frame {to:?} of no reset {code}"),
        }
    }

    pub fn is_reset(self) -> bool {
        self != ResetState::None
    }

    /// The reset's code, if the flow was reset.
    pub fn code(self) -> Option<u32> {
        match self {
            ResetState::None => None,
            ResetState::Local { code, .. } | ResetState::Peer { code, .. } => Some(code),
        }
    }

    /// Our frame about the reset (`Idle` when not reset).
    pub fn frame(self) -> Delivery {
        match self {
            ResetState::None => Delivery::Idle,
            ResetState::Local { frame, .. } | ResetState::Peer { frame, .. } => frame,
        }
    }

    /// The reset is this side's own (its frame waits for the peer's confirmation).
    pub fn is_local(self) -> bool {
        matches!(self, ResetState::Local { .. })
    }

    /// The connection the peer's reset came on, if the reset is the peer's.
    pub fn peer_conn(self) -> Option<ConnId> {
        match self {
            ResetState::Peer { from, .. } => Some(from),
            _ => None,
        }
    }
}

/// The acknowledgement (with credit) of the peer's direction. Acknowledgements are cumulative:
/// only the latest one matters, and only the connection it went on can lose it.
///
/// ```text
///          data, end or opening arrived, or credit grew
///   Idle ───────────────────────────────────▶ Queued{last} ◀──────────┐
///                                               │    ▲                │
///                                      sent on c│    │ data / credit  │ c lost
///                                               ▼    │                │
///                                             SentOn(c) ──────────────┘
/// ```
///
/// `Queued { last }` keeps the connection the previous acknowledgement went on (`None` if
/// none went, or it was lost). A reset cancels a queued acknowledgement (a reset flow sends
/// none): back to `SentOn(last)`, or `Idle`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum AckState {
    #[default]
    Idle,
    Queued {
        last: Option<ConnId>,
    },
    SentOn(ConnId),
}

/// What moves an [`AckState`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AckEvent {
    /// Something to acknowledge (data, the end, the opening) or more credit to grant.
    Queue,
    /// The acknowledgement was written on this connection.
    Sent(ConnId),
    /// The flow was reset: no acknowledgement goes.
    Cancel,
    /// Connection `c` is gone: the latest acknowledgement, if it went there, goes again.
    ConnGone(ConnId),
}

impl AckState {
    /// The transition function. Returns whether an acknowledgement became due that was not
    /// (the flow then needs an entry in the control queue).
    pub fn on(&mut self, ev: AckEvent) -> bool {
        use AckState as S;
        let (next, newly) = match (*self, ev) {
            (S::Idle, AckEvent::Queue) => (S::Queued { last: None }, true),
            (S::SentOn(c), AckEvent::Queue) => (S::Queued { last: Some(c) }, true),
            (S::Queued { .. } | S::SentOn(_), AckEvent::Sent(c)) => (S::SentOn(c), false),
            (S::Queued { last }, AckEvent::Cancel) => (last.map_or(S::Idle, S::SentOn), false),
            (S::SentOn(on), AckEvent::ConnGone(c)) if on == c => (S::Queued { last: None }, true),
            (S::Queued { last: Some(on) }, AckEvent::ConnGone(c)) if on == c => {
                (S::Queued { last: None }, false)
            }
            (s, AckEvent::Queue | AckEvent::Cancel | AckEvent::ConnGone(_)) => (s, false),
            (s, e) => {
                debug_assert!(false, "acknowledgement: {e:?} in {s:?}");
                (s, false)
            }
        };
        *self = next;
        newly
    }

    /// An acknowledgement is due.
    pub fn queued(self) -> bool {
        matches!(self, AckState::Queued { .. })
    }

    /// The connection the latest acknowledgement written went on, while it may still arrive.
    pub fn last_on(self) -> Option<ConnId> {
        match self {
            AckState::Idle => None,
            AckState::Queued { last } => last,
            AckState::SentOn(c) => Some(c),
        }
    }
}

/// The flow as a whole.
///
/// ```text
///          both halves done (FinAcked or Reset, Ended or Reset)
///   Open ──────────────────────────────────────────────────────▶ Closed ──▶ (forgotten)
/// ```
///
/// `Closed` is entered once, when [`Event::FlowClosed`](crate::Event::FlowClosed) is
/// reported (`Session::maybe_close`); the flow then lingers until nothing about it awaits the
/// peer (and, on the opener, until its connection closed cleanly), and is forgotten
/// (`Session::try_retire`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Life {
    #[default]
    Open,
    Closed,
}

impl Life {
    /// The transition function (its one transition).
    pub fn close(&mut self) {
        debug_assert_eq!(*self, Life::Open, "a flow closes once");
        *self = Life::Closed;
    }

    pub fn closed(self) -> bool {
        self == Life::Closed
    }
}

/// Access control of a background flow (paper 004; the controller is
/// [`admission`](crate::admission)).
///
/// ```text
///   Foreground                      (not under access control: every flow opened otherwise)
///   Waiting ──admitted──▶ Admitted  (a background flow: waiting, or admitted at once)
/// ```
///
/// A waiting flow takes no bytes and has no connection: its opening is not queued until it is
/// admitted (the driver then opens its connection at
/// [`Event::ConnNeeded`](crate::Event::ConnNeeded)). A waiting flow that is reset stays
/// `Waiting` (it is forgotten at once: the peer never heard of it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum AdmissionState {
    #[default]
    Foreground,
    Waiting,
    Admitted,
}

/// What moves an [`AdmissionState`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AdmissionEvent {
    /// The flow opened on a background route; `waiting`: the controller made it wait.
    Arrive { waiting: bool },
    /// The controller admitted the waiting flow.
    Admit,
}

impl AdmissionState {
    /// The transition function.
    pub fn on(&mut self, ev: AdmissionEvent) {
        use AdmissionState as S;
        *self = match (*self, ev) {
            (S::Foreground, AdmissionEvent::Arrive { waiting: true }) => S::Waiting,
            (S::Foreground, AdmissionEvent::Arrive { waiting: false }) => S::Admitted,
            (S::Waiting, AdmissionEvent::Admit) => S::Admitted,
            (s, e) => {
                debug_assert!(false, "admission: {e:?} in {s:?}");
                s
            }
        };
    }

    /// A background flow (under access control, when the session has it).
    pub fn background(self) -> bool {
        self != AdmissionState::Foreground
    }

    /// A background flow not yet admitted.
    pub fn waiting(self) -> bool {
        self == AdmissionState::Waiting
    }
}

/// What must hold between the two ends' copies of flow `a` (on one side) and `b` (on the
/// other) at rest, when every frame came from an honest peer: an end is only acknowledged or
/// read once the other side finished its direction with that final size, a reset is only
/// confirmed (or received) from a peer that reset the flow too, and no byte is received that
/// was not sent. Checked by [`Pair`](crate::pair::Pair) after every step.
#[cfg(any(test, feature = "pair"))]
pub(crate) fn check_ends(a: &super::Flow, b: &super::Flow) -> Result<(), String> {
    for (x, y) in [(a, b), (b, a)] {
        let id = x.id;
        if x.send_state == SendState::FinAcked && y.recv.final_size != Some(x.send.written) {
            return Err(format!(
                "{id}: end acknowledged at {} but the peer's final size is {:?}",
                x.send.written, y.recv.final_size
            ));
        }
        if x.recv_state == RecvState::Ended
            && (y.send_state.takes_writes() || y.send.written != x.recv.read)
        {
            return Err(format!(
                "{id}: end read at {} but the peer's writer is {:?} at {}",
                x.recv.read, y.send_state, y.send.written
            ));
        }
        let peer_reset = matches!(
            x.reset,
            ResetState::Local {
                frame: Delivery::Confirmed,
                ..
            } | ResetState::Peer { .. }
        );
        if peer_reset && !y.reset.is_reset() {
            return Err(format!(
                "{id}: reset {:?} here, not reset at the peer",
                x.reset
            ));
        }
        if !x.reset.is_reset() && !y.reset.is_reset() && y.recv.seen() > x.send.next {
            return Err(format!(
                "{id}: peer received up to {}, only {} sent",
                y.recv.seen(),
                x.send.next
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::Flow;
    use crate::ids::FlowId;
    use std::time::Duration;

    const C1: ConnId = ConnId(1);
    const C2: ConnId = ConnId(2);

    #[test]
    fn the_sending_half_finishes_then_is_acknowledged_and_a_reset_ends_it_from_anywhere() {
        let mut s = SendState::Open;
        assert!(s.takes_writes() && !s.done());
        s.on(SendEvent::Finish);
        assert_eq!(s, SendState::Finished);
        assert!(!s.takes_writes() && !s.done());
        s.on(SendEvent::FinAcked);
        assert!(s.done());
        s.on(SendEvent::Reset);
        assert_eq!(s, SendState::Reset);
        let mut r = RecvState::Open;
        r.on(RecvEvent::EndRead);
        assert!(r.done());
        r.on(RecvEvent::Reset);
        assert_eq!(r, RecvState::Reset);
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "send half: Finish in Finished")]
    fn finishing_twice_is_an_illegal_transition() {
        let mut s = SendState::Open;
        s.on(SendEvent::Finish);
        s.on(SendEvent::Finish);
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "receive half: EndRead in Reset")]
    fn a_reset_direction_has_no_end_to_read() {
        let mut r = RecvState::Open;
        r.on(RecvEvent::Reset);
        r.on(RecvEvent::EndRead);
    }

    /// Our reset goes out, the connection dies (due again), goes out again, and the peer's
    /// reset crosses it: theirs settles ours (the connection ours went on is settled) and gets
    /// a confirmation of its own, which goes back once; a repeat of theirs after that is
    /// answered from the frame.
    #[test]
    fn crossed_resets_settle_each_other_and_each_gets_one_confirmation() {
        let mut r = ResetState::None;
        r.on(ResetEvent::Local {
            code: 5,
            tell_peer: true,
        });
        assert_eq!(r.frame(), Delivery::Queued);
        r.on(ResetEvent::Sent(C1));
        let fx = r.on(ResetEvent::Requeue {
            conn: C2,
            any: false,
        });
        assert!(!fx.queue, "sent on another connection");
        let fx = r.on(ResetEvent::Requeue {
            conn: C1,
            any: false,
        });
        assert!(fx.queue);
        assert_eq!(r.frame(), Delivery::Queued);
        r.on(ResetEvent::Sent(C1));
        let fx = r.on(ResetEvent::Peer { code: 9, conn: C2 });
        assert_eq!(
            fx,
            ResetEffect {
                settled: Some(C1),
                queue: true,
                ..ResetEffect::default()
            }
        );
        assert_eq!(
            r,
            ResetState::Peer {
                code: 5,
                frame: Delivery::Queued,
                from: C2
            }
        );
        // Repeated while our confirmation is queued: no second entry.
        let fx = r.on(ResetEvent::Peer { code: 9, conn: C1 });
        assert_eq!(fx, ResetEffect::default());
        assert_eq!(r.peer_conn(), Some(C1));
        r.on(ResetEvent::Sent(C1));
        assert_eq!(r.frame(), Delivery::Confirmed);
        let fx = r.on(ResetEvent::Peer { code: 9, conn: C1 });
        assert!(fx.answer);
        assert_eq!(r.code(), Some(5));
    }

    #[test]
    fn a_reset_nobody_heard_of_is_settled_at_once() {
        let mut r = ResetState::None;
        r.on(ResetEvent::Local {
            code: 1,
            tell_peer: false,
        });
        assert_eq!(r.frame(), Delivery::Confirmed);
        assert!(r.is_local());
        assert_eq!(r.on(ResetEvent::Confirmed), ResetEffect::default());
    }

    #[test]
    fn the_acknowledgement_goes_again_only_if_the_latest_went_on_the_lost_connection() {
        let mut a = AckState::Idle;
        assert!(a.on(AckEvent::Queue));
        assert!(!a.on(AckEvent::Queue), "queued once");
        a.on(AckEvent::Sent(C1));
        assert!(!a.on(AckEvent::ConnGone(C2)));
        assert_eq!(a, AckState::SentOn(C1));
        assert!(a.on(AckEvent::ConnGone(C1)));
        assert_eq!(a, AckState::Queued { last: None });
        a.on(AckEvent::Sent(C2));
        assert!(a.on(AckEvent::Queue));
        // A reset cancels what is queued; the last one written is still where it went.
        a.on(AckEvent::Cancel);
        assert_eq!(a, AckState::SentOn(C2));
        assert_eq!(a.last_on(), Some(C2));
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "acknowledgement: Sent")]
    fn an_acknowledgement_never_queued_is_never_sent() {
        AckState::Idle.on(AckEvent::Sent(C1));
    }

    fn flow() -> Flow {
        Flow::new(FlowId(1), 1, Duration::ZERO, crate::INITIAL_CREDIT)
    }

    /// The checks find what they are for: an end acknowledged at another size than the peer's
    /// final size, a reset confirmed by a peer that did not reset, halves that disagree on a
    /// reset.
    #[test]
    fn the_checks_find_inconsistent_flows() {
        let (mut a, mut b) = (flow(), flow());
        assert_eq!(check_ends(&a, &b), Ok(()));
        a.send.push(&[1; 10]);
        a.send_state.on(SendEvent::Finish);
        a.fin = Delivery::Confirmed;
        a.send_state.on(SendEvent::FinAcked);
        assert_eq!(a.check(), Ok(()));
        assert!(check_ends(&a, &b).is_err(), "no final size at the peer");
        b.recv.set_final(10).unwrap();
        assert_eq!(check_ends(&a, &b), Ok(()));
        a.reset.on(ResetEvent::Local {
            code: 1,
            tell_peer: true,
        });
        assert!(a.check().is_err(), "halves not reset");
        a.send_state.on(SendEvent::Reset);
        a.recv_state.on(RecvEvent::Reset);
        assert_eq!(a.check(), Ok(()));
        a.reset.on(ResetEvent::Confirmed);
        assert!(check_ends(&a, &b).is_err(), "confirmed by a peer not reset");
    }
}
