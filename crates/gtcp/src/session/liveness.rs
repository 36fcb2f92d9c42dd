//! Liveness of a session end: a peer's `GoAway` scoped to the server instance that sent it,
//! flows the peer had with another instance of this side (reset, not fatal), keepalives on idle
//! connections, and bounded bookkeeping of retired flow ids.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use bytes::BytesMut;

use super::{Role, Session};
use crate::flow::state::{AckEvent, ResetEvent};
use crate::flow::{Delivery, Ownership};
use crate::ids::{ConnId, FlowId};
use crate::wire::Frame;

/// Retired flow ids above the contiguous prefix the acceptor remembers one by one at most
/// (a gap in the ids — a flow the opener gave up on before it ever reached this side — would
/// otherwise keep every later id here forever). Beyond it the oldest gap is closed: an id in
/// it that never arrived counts as retired, and frames about it get idempotent answers.
pub const MAX_RETIRED_ABOVE: usize = 4096;

/// Reset code of a flow whose connection reached an acceptor that never saw the flow open
/// (a server restarted, or that forgot the session, while the flow was under way): the
/// transfer cannot go on there, and the application sees a reset instead of a hang.
pub const RESET_UNKNOWN_FLOW: u32 = 7;

/// (Acceptor) Connections whose owner flow has not opened here, awaiting their first frame.
/// An opening always goes first on its flow's own connection (the opener writes a
/// connection's queued openings before anything else), so a first frame that is not that
/// opening means the flow opened with another acceptor instance.
///
/// It also keeps the count that [`MAX_UNOPENED_FLOWS`](super::caps::MAX_UNOPENED_FLOWS)
/// bounds, so that the check costs O(1) however many flows the session holds.
#[derive(Debug, Default)]
pub(crate) struct FirstFrames {
    owners: BTreeMap<ConnId, FlowId>,
    /// Flows not opened here that no live connection awaits the opening of (named only by
    /// frames that overtook their openings, or whose connection closed before its first
    /// frame): the flows `MAX_UNOPENED_FLOWS` bounds.
    unclaimed: usize,
}

impl FirstFrames {
    /// (Acceptor) A flow not opened here joins the session (`acceptor_flow`).
    pub fn created(&mut self) {
        self.unclaimed += 1;
    }

    /// (Acceptor) Flow `f` opens here (its route is about to be set) or is forgotten
    /// unopened: it no longer counts against `MAX_UNOPENED_FLOWS`.
    pub fn gone(&mut self, f: &crate::flow::Flow) {
        if !f.opened() && f.awaited_by == 0 {
            self.unclaimed -= 1;
        }
    }
}

/// (Opener) A flow that lost its connection and was reset (by the driver, when no replacement
/// could be established, or by the peer), with the reset settled: the peer has forgotten the
/// flow or will answer about it from the frames themselves, so it can be forgotten here too
/// without waiting for a connection that will never close cleanly.
pub(crate) fn reset_settled_without_owner(f: &crate::flow::Flow) -> bool {
    f.owner().is_none() && f.reset.frame() == Delivery::Confirmed
}

/// A reset of this side's own that the peer has not confirmed: the peer does not ask for it
/// (it may wait for the flow's end, or take a reply about a forgotten flow for the end of a
/// transfer that was in fact aborted), so the flow is kept until it is delivered, even with no
/// connection left: the acceptor carries it on the next connection the opener opens (an opener
/// on the next connection it opens), or the session expires (`session_timeout`).
pub(crate) fn own_reset_unconfirmed(role: Role, f: &crate::flow::Flow) -> bool {
    let unconfirmed =
        f.reset.is_local() && matches!(f.reset.frame(), Delivery::Queued | Delivery::SentOn(_));
    // The opener keeps its flows by their ownership instead, but for one: a flow that never
    // had a connection is unknown to the peer, and its reset need not reach it, unless other
    // connections carried its bytes or its end ahead of it (the policy may serve a flow before
    // its own connection exists). The peer then holds a flow never opened, with what arrived,
    // until its session expires (found by `session_input`, fuzz/findings/session_input/
    // not_settled_acceptor_not_idle: 6 939 bytes held). Whether anything of it went out is
    // `Ownership::Awaiting`'s `carried`: `fin` falls back when the connection that carried the
    // end dies and a reset then clears it (not_settled_acceptor_keeps_closed_flow_no_conn: an
    // empty flow's end), and a reset sets `send.next` to what was written, sent or not (a flow
    // of a client whose server was unreachable was kept for good: liveness test
    // `an_unreachable_server_resets_the_application_within_the_handshake_timeout`).
    let known_to_peer = || matches!(f.ownership, Ownership::Awaiting { carried: true });
    unconfirmed && (role == Role::Acceptor || known_to_peer())
}

/// The connections a peer's `GoAway` concerns: the one it arrived on and every connection live
/// when it did, i.e. the peer instance that is going away. A connection established later was
/// accepted by a live instance (a restarted server), so it lifts the refusal.
#[derive(Debug, Default)]
pub(crate) struct PeerGoAway {
    conns: BTreeSet<ConnId>,
}

impl Session {
    /// The peer said `GoAway` on `conn`: no new flows while only its connections are live.
    pub(crate) fn on_go_away(&mut self, conn: ConnId) {
        let live: Vec<ConnId> = self.conns.keys().copied().collect();
        let g = &mut self.peer_going_away.conns;
        g.retain(|c| live.contains(c));
        g.extend(live);
        g.insert(conn);
    }

    /// Whether the peer refuses new flows: some connection of the instance that said `GoAway`
    /// is still live and no connection of a newer instance is. With no live connection at all,
    /// a new flow opens a new connection, and the server's handshake answer decides.
    pub fn peer_going_away(&self) -> bool {
        let g = &self.peer_going_away.conns;
        let mut live = self.conns.keys().peekable();
        live.peek().is_some() && live.all(|c| g.contains(c))
    }

    /// (Acceptor) Connection `conn` was added for `owner`: if the flow has not opened here,
    /// the connection's first frame must be its opening.
    pub(crate) fn expect_opening(&mut self, conn: ConnId, owner: FlowId) {
        if self.role != Role::Acceptor {
            return;
        }
        let Some(f) = self.flows.get_mut(&owner).filter(|f| !f.opened()) else {
            return;
        };
        if self.first_frames.owners.insert(conn, owner).is_none() {
            if f.awaited_by == 0 {
                self.first_frames.unclaimed -= 1;
            }
            f.awaited_by += 1;
        }
    }

    /// (Acceptor) Checks the first frame on a connection added for a flow that had not opened
    /// here: anything but that flow's opening means the flow opened with another instance of
    /// this side, and it is reset ([`RESET_UNKNOWN_FLOW`]).
    pub(crate) fn check_first_frame(&mut self, now: Duration, conn: ConnId, frame: &Frame) {
        let Some(owner) = self.release_first_frame(conn) else {
            return;
        };
        if !matches!(frame, Frame::Open(o) if o.flow == owner) {
            self.reset_flow_of_another_instance(now, owner);
        }
    }

    /// (Acceptor) A frame showed that `flow`, not opened here, is one the peer had with another
    /// instance of this side (a restarted server, or one that forgot the session): a first
    /// frame on the flow's own connection that is not its opening, or an acknowledgement of
    /// bytes this instance never sent. The transfer cannot go on here: the flow is reset
    /// ([`RESET_UNKNOWN_FLOW`]), so the peer's application sees a reset instead of a hang, and
    /// the connection is not at fault (failing it would kill every new connection that carries
    /// such a frame; seen in the testbed's fault run after a server restart). Returns whether
    /// the flow was such a flow. An opened flow is left alone.
    pub(crate) fn reset_flow_of_another_instance(&mut self, now: Duration, flow: FlowId) -> bool {
        let unopened =
            self.role == Role::Acceptor && self.flows.get(&flow).is_some_and(|f| !f.opened());
        if unopened {
            let _ = self.reset(now, flow, RESET_UNKNOWN_FLOW);
        }
        unopened
    }

    /// Forgets what [`expect_opening`](Self::expect_opening) recorded for a closed connection.
    pub(crate) fn forget_first_frame(&mut self, conn: ConnId) {
        self.release_first_frame(conn);
    }

    /// Connection `conn` no longer awaits its owner's opening; returns that owner.
    fn release_first_frame(&mut self, conn: ConnId) -> Option<FlowId> {
        let owner = self.first_frames.owners.remove(&conn)?;
        if let Some(f) = self.flows.get_mut(&owner) {
            f.awaited_by -= 1;
            if f.awaited_by == 0 && !f.opened() {
                self.first_frames.unclaimed += 1;
            }
        }
        Some(owner)
    }

    /// (Acceptor) Flows not opened here that no live connection awaits the opening of.
    pub(crate) fn unclaimed_unopened(&self) -> usize {
        debug_assert_eq!(
            self.first_frames.unclaimed,
            self.flows
                .values()
                .filter(|f| !f.opened() && f.awaited_by == 0)
                .count(),
            "unopened flows miscounted"
        );
        self.first_frames.unclaimed
    }

    /// A keepalive frame for an idle connection (the driver sends one when nothing else went
    /// out for its keepalive interval, so a silent peer can be told from an idle one). Returns
    /// the bytes appended to `out`; 0 for an unknown connection.
    pub fn keepalive(&mut self, conn: ConnId, out: &mut BytesMut) -> usize {
        let Some(c) = self.conns.get_mut(&conn) else {
            return 0;
        };
        let before = out.len();
        Frame::Keepalive.encode(out);
        let n = out.len() - before;
        c.counters.header_bytes += n as u64;
        self.counters.header_sent += n as u64;
        n
    }

    /// A reset flow waits for nothing but its reset's confirmation: its segments in flight will
    /// never be acknowledged (the receiver drops a reset flow's data) and it sends no more
    /// acknowledgements itself. Its connections stop waiting for either, so they can say
    /// `Done` and close instead of staying open forever.
    pub(crate) fn release_for_reset(&mut self, id: FlowId) {
        let Some(f) = self.flows.get_mut(&id) else {
            return;
        };
        f.ack.on(AckEvent::Cancel);
        let (conns, settled) = (&mut self.conns, &mut self.settled);
        f.send.release_in_flight(|c, n| {
            if let Some(conn) = conns.get_mut(&c) {
                conn.unacked -= n.min(conn.unacked);
                if conn.unacked == 0 {
                    settled.push(c);
                }
            }
        });
        self.wake_settled();
    }

    /// A flow's `dropped` unsent bytes — a reset flow's, or lost bytes the peer turned out to
    /// hold (an acknowledgement skipped them) — were promised by its own connection's virtual
    /// queue first: that queue shrinks by them (what plain TCP would discard with the reset
    /// connection's buffer, or never resend) even while orphan debt exists. Left to the
    /// session-wide excess, the drop ate the orphan debt instead — another flow's bytes, left
    /// behind by a dead connection — and under `tcp` the flow's connection kept a queue only
    /// its own flow may use: the other flow's bytes then had no connection to carry them and
    /// it stalled for good (found by `resets_and_losses_leave_nothing_behind`, once for each).
    pub(crate) fn forgive_owner(&mut self, owner: Option<ConnId>, dropped: u64) {
        let Some(c) = owner.and_then(|c| self.conns.get_mut(&c)) else {
            return;
        };
        if dropped > 0 {
            self.ledger.forgive(&mut c.counters, dropped);
        }
    }

    /// The peer reset the flow (or confirmed our reset): it knows the flow, and it drops
    /// whatever else it gets about it. An opening or end sent (or to be sent again) is settled — a reset flow
    /// gets no acknowledgement that would otherwise settle them, and its connection could
    /// never say `Done`.
    pub(crate) fn peer_reset_settles(&mut self, id: FlowId) {
        let Some(f) = self.flows.get_mut(&id) else {
            return;
        };
        for d in [&mut f.open, &mut f.fin] {
            match *d {
                Delivery::SentOn(c) => {
                    *d = Delivery::Confirmed;
                    self.settled.push(c);
                }
                // An opening still to be sent again (its connection died) is moot.
                Delivery::Queued => *d = Delivery::Confirmed,
                _ => {}
            }
        }
    }

    /// The peer said `Done` on `conn` before this side did, while resets of ours sent on it
    /// are unconfirmed: the peer may have confirmed them on a connection that died after this
    /// side had handled its loss (nothing else would send them again), and then forgotten the
    /// flows; the connection would wait for those confirmations for ever. Each goes again on
    /// `conn`, where the peer still reads and may still write control frames; a peer that
    /// forgot the flow confirms from the frame itself, and a duplicate confirmation is a no-op.
    /// At most once per connection (one `Done` each), so it cannot multiply frames.
    pub(crate) fn resend_unconfirmed_resets(&mut self, conn: ConnId) {
        let mut any = false;
        for (id, f) in self.flows.iter_mut() {
            let fx = f
                .reset
                .is_local()
                .then(|| f.reset.on(ResetEvent::Requeue { conn, any: false }));
            if fx.is_some_and(|fx| fx.queue) {
                self.ctrl.push_back(*id);
                any = true;
            }
        }
        if any {
            self.wake_ctrl();
        }
    }

    /// (Acceptor) Records a retired id, keeping the set above the contiguous prefix bounded
    /// by [`MAX_RETIRED_ABOVE`].
    pub(crate) fn record_retired(&mut self, id: FlowId) {
        debug_assert_eq!(self.role, Role::Acceptor);
        if id.0 < self.retired_below {
            return;
        }
        self.retired_above.insert(id.0);
        loop {
            while self.retired_above.remove(&self.retired_below) {
                self.retired_below += 1;
            }
            if self.retired_above.len() <= MAX_RETIRED_ABOVE {
                return;
            }
            // Close the oldest gap: ids below the smallest retired one that are not live
            // never arrived and will be taken for retired ones.
            if let Some(&first) = self.retired_above.first() {
                self.retired_below = first;
            }
        }
    }

    /// Retired ids remembered one by one (bounded by [`MAX_RETIRED_ABOVE`]).
    pub fn retired_tracked(&self) -> usize {
        self.retired_above.len()
    }
}
