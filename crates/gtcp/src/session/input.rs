//! Frames from the peer (the receiver's half of Algorithms 3 and 4, plus reassembly, credit
//! and acknowledgements).

use std::time::Duration;

use bytes::BytesMut;

use super::{Event, ProtocolError, Role, Session, RESET_CONFIRM};
use crate::flow::state::{AckEvent, ResetEvent, SendEvent, SendState};
use crate::flow::Delivery;
use crate::ids::{ConnId, FlowId};
use crate::wire::{AckFrame, DataFrame, Frame, FrameDecoder, OpenFrame};

/// What to do with a frame about a flow id.
enum Lookup {
    /// The flow is live here.
    Live,
    /// This side already forgot it: a late duplicate.
    Stale,
}

impl Session {
    /// Bytes arrived on `conn`: decodes every whole frame in `buf` (leaving a partial one there)
    /// and acts on it. An error means the peer broke the protocol: close `conn` and call
    /// [`connection_closed`](Self::connection_closed); the session itself goes on.
    pub fn handle_input(
        &mut self,
        now: Duration,
        conn: ConnId,
        buf: &mut BytesMut,
    ) -> Result<(), ProtocolError> {
        if !self.conns.contains_key(&conn) {
            return Err(ProtocolError::UnknownConn(conn));
        }
        self.last_input = Some(conn);
        self.heard(now, conn);
        if self.admission.is_some() {
            self.tick(now);
        }
        let decoder = FrameDecoder::new(crate::wire::MAX_PAYLOAD_CAP);
        loop {
            let before = buf.len();
            let Some(frame) = decoder.decode(buf)? else {
                return Ok(());
            };
            if let Some(c) = self.conns.get_mut(&conn) {
                c.counters.received_bytes += (before - buf.len()) as u64;
            }
            self.handle_frame(now, conn, frame)?;
        }
    }

    /// Acts on one decoded frame that arrived on `conn`.
    pub fn handle_frame(
        &mut self,
        now: Duration,
        conn: ConnId,
        frame: Frame,
    ) -> Result<(), ProtocolError> {
        self.check_first_frame(now, conn, &frame);
        match frame {
            Frame::Open(o) => self.on_open(now, conn, o),
            Frame::Data(d) => self.on_data(now, conn, d),
            Frame::Fin { flow, final_size } => self.on_fin(now, flow, final_size),
            Frame::Reset { flow, code } => self.on_reset(now, conn, flow, code),
            Frame::Ack(a) => self.on_ack(now, a),
            Frame::Keepalive => Ok(()),
            Frame::Done => {
                if let Some(c) = self.conns.get_mut(&conn) {
                    c.phase = c.phase.receive_done();
                    if c.phase == crate::conn::Phase::Closing {
                        self.events.push_back(Event::ConnDone(conn));
                    } else {
                        self.resend_unconfirmed_resets(conn);
                        self.wake(conn);
                    }
                }
                self.done_confirms_opening(conn);
                Ok(())
            }
            Frame::GoAway => {
                self.on_go_away(conn);
                Ok(())
            }
        }
    }

    /// (Opener) The acceptor says `Done` on a flow's own connection only once that flow is
    /// over on its side (closed, or forgotten after it was), so it had the flow's opening: an
    /// opening still unconfirmed is confirmed. Its acknowledgement may have died with another
    /// connection after the acceptor forgot the flow, and nothing else would ever confirm it:
    /// the opener kept the flow and the connection for good (found by
    /// `resets_and_losses_leave_nothing_behind`).
    fn done_confirms_opening(&mut self, conn: ConnId) {
        if self.role != Role::Opener {
            return;
        }
        let Some(owner) = self.conns.get(&conn).and_then(|c| c.owner) else {
            return;
        };
        if let Some(f) = self.flows.get_mut(&owner) {
            if let Delivery::SentOn(c) = f.open {
                f.open = Delivery::Confirmed;
                self.settled.push(c);
                self.wake_settled();
            }
        }
    }

    /// Whether a frame about `id` concerns a live flow, a forgotten one, or one the peer could
    /// not have opened.
    fn lookup(&mut self, id: FlowId) -> Result<Lookup, ProtocolError> {
        if self.flows.contains_key(&id) {
            return Ok(Lookup::Live);
        }
        if self.is_retired(id) {
            return Ok(Lookup::Stale);
        }
        match self.role {
            Role::Acceptor => self.acceptor_flow(id, false).map(|()| Lookup::Live),
            Role::Opener => Err(ProtocolError::ImpossibleFlow(id)),
        }
    }

    fn on_open(&mut self, now: Duration, conn: ConnId, o: OpenFrame) -> Result<(), ProtocolError> {
        if self.role == Role::Opener {
            return Err(ProtocolError::OpenFromAcceptor(o.flow));
        }
        if let Lookup::Stale = self.lookup(o.flow)? {
            // The opener sent it again after a connection died; confirm so it can forget it.
            self.push_stale(Frame::Ack(AckFrame {
                flow: o.flow,
                received: 0,
                credit: 0,
                fin: false,
            }));
            return Ok(());
        }
        let c = self
            .conns
            .get_mut(&conn)
            .ok_or(ProtocolError::UnknownConn(conn))?;
        match c.owner {
            None => c.owner = Some(o.flow),
            Some(f) if f == o.flow => {}
            Some(_) => return Err(ProtocolError::ForeignOwner { flow: o.flow, conn }),
        }
        let f = self
            .flows
            .get_mut(&o.flow)
            .ok_or(ProtocolError::ImpossibleFlow(o.flow))?;
        if !f.owner().is_some_and(|c| self.conns.contains_key(&c)) {
            // The connection takes the flow's queue as `add_connection` would.
            if let Some(c) = self.conns.get_mut(&conn) {
                super::take_ownership(&mut self.ledger, f, conn, &mut c.counters);
            }
        }
        if f.is_reset() {
            // Reset here before its opening arrived (a driver resetting every flow): the
            // reset answers the opening; an acknowledgement would never be sent (reset flows
            // send none) and would keep the connection from saying `Done`.
            self.wake(conn);
            return Ok(());
        }
        // A repeated opening is confirmed by the acknowledgement already waiting, if one is:
        // each flow waits in the control queue once.
        if f.ack.on(AckEvent::Queue) {
            self.ctrl.push_back(o.flow);
        }
        if !f.opened() {
            self.first_frames.gone(f);
            // The flow opens here now (it may have been created earlier, by its connection or
            // by a frame that overtook its opening, when `now` was not known).
            f.opened_at = now;
            f.route = Some(o.route.clone());
            f.class = o.class;
            f.origin = o.origin.map(Box::new);
            self.counters.flows_opened += 1;
            self.events.push_back(Event::FlowOpened {
                flow: o.flow,
                route: o.route,
                class: o.class,
                origin: o.origin,
            });
            if f.recv.has_ready() || f.recv.final_size.is_some() {
                self.notify_readable(o.flow);
            }
        }
        self.wake(conn);
        Ok(())
    }

    fn on_data(&mut self, now: Duration, conn: ConnId, d: DataFrame) -> Result<(), ProtocolError> {
        let len = d.payload.len() as u64;
        // The decoder checks this; a driver may also hand frames in directly.
        if d.offset.checked_add(len).is_none() {
            return Err(crate::wire::WireError::Overflow {
                offset: d.offset,
                len,
            }
            .into());
        }
        let c = self
            .conns
            .get_mut(&conn)
            .ok_or(ProtocolError::UnknownConn(conn))?;
        if c.phase.done_received() {
            return Err(ProtocolError::DataAfterDone(conn));
        }
        c.counters.received_payload_bytes += len;
        if let Lookup::Stale = self.lookup(d.flow)? {
            let end = d.offset + len;
            self.push_stale(Frame::Ack(AckFrame {
                flow: d.flow,
                received: end,
                credit: end,
                fin: false,
            }));
            return Ok(());
        }
        let Some(f) = self.flows.get_mut(&d.flow) else {
            return Ok(());
        };
        if f.is_reset() {
            return Ok(());
        }
        // The session's bound on out-of-order segments over all its flows: the room left is
        // this insert's limit, and the count follows what the flow holds after it (stored
        // segments stay when it fails half-way).
        let room = super::caps::MAX_SESSION_OOO_SEGMENTS.saturating_sub(self.ooo_segments);
        let before = f.recv.segments();
        let inserted = f.recv.insert(d.offset, d.payload, room);
        self.ooo_segments = self.ooo_segments - before + f.recv.segments();
        let advanced = inserted.map_err(|source| ProtocolError::Flow {
            flow: d.flow,
            source,
        })?;
        let readable = advanced && f.opened();
        let background = f.admission.background();
        if readable {
            self.notify_readable(d.flow);
        }
        if background {
            self.background_bytes(now, d.flow, len);
        }
        let Some(f) = self.flows.get_mut(&d.flow) else {
            return Ok(());
        };
        // Acknowledge even a duplicate: its sender believes it lost, and waits for word. Not
        // before the flow's opening arrived (see `on_fin`).
        if f.opened() && f.ack.on(AckEvent::Queue) {
            self.ctrl.push_back(d.flow);
        }
        self.wake_ctrl();
        Ok(())
    }

    fn on_fin(&mut self, _now: Duration, id: FlowId, final_size: u64) -> Result<(), ProtocolError> {
        if let Lookup::Stale = self.lookup(id)? {
            self.push_stale(Frame::Ack(AckFrame {
                flow: id,
                received: final_size,
                credit: final_size,
                fin: true,
            }));
            return Ok(());
        }
        let Some(f) = self.flows.get_mut(&id) else {
            return Ok(());
        };
        if f.is_reset() {
            return Ok(());
        }
        f.recv
            .set_final(final_size)
            .map_err(|source| ProtocolError::Flow { flow: id, source })?;
        // An acknowledgement also confirms the flow's opening to the opener, which then never
        // sends it again: none goes before the opening arrived, or an opening lost with its
        // connection while its overtaking FIN (or data) was acknowledged would leave the flow
        // never opened here (`on_open` acknowledges everything received so far).
        let readable = f.opened();
        if readable && f.ack.on(AckEvent::Queue) {
            self.ctrl.push_back(id);
        }
        if readable {
            self.notify_readable(id);
        }
        self.wake_ctrl();
        Ok(())
    }

    fn on_reset(
        &mut self,
        now: Duration,
        conn: ConnId,
        id: FlowId,
        code: u32,
    ) -> Result<(), ProtocolError> {
        let confirm = code & RESET_CONFIRM != 0;
        if let Lookup::Stale = self.lookup(id)? {
            if !confirm {
                self.push_stale(Frame::Reset {
                    flow: id,
                    code: code | RESET_CONFIRM,
                });
            }
            return Ok(());
        }
        self.peer_reset_settles(id);
        let Some(f) = self.flows.get_mut(&id) else {
            return Ok(());
        };
        if confirm {
            let fx = f.reset.on(ResetEvent::Confirmed);
            self.settled.extend(fx.settled);
        } else {
            let fx = f.reset.on(ResetEvent::Peer { code, conn });
            if fx.reset_now {
                // The peer aborted: confirm, and tell the application.
                f.ack.on(AckEvent::Cancel);
                self.ctrl.push_back(id);
                self.apply_reset(now, id);
                self.wake_ctrl();
            } else if fx.answer {
                // Both sides reset at once: our reset needs no confirmation beyond theirs.
                self.push_stale(Frame::Reset {
                    flow: id,
                    code: code | RESET_CONFIRM,
                });
            } else {
                // Crossed resets, or a repeat whose confirmation is still queued
                // (`ResetState::on`).
                self.settled.extend(fx.settled);
                if fx.queue {
                    self.ctrl.push_back(id);
                }
                self.wake_ctrl();
            }
        }
        self.wake_settled();
        self.maybe_close(now, id);
        self.try_retire(id);
        Ok(())
    }

    fn on_ack(&mut self, now: Duration, a: AckFrame) -> Result<(), ProtocolError> {
        if let Lookup::Stale = self.lookup(a.flow)? {
            return Ok(());
        }
        let Some(f) = self.flows.get_mut(&a.flow) else {
            return Ok(());
        };
        if let Delivery::SentOn(c) = f.open {
            f.open = Delivery::Confirmed;
            self.settled.push(c);
        }
        if f.is_reset() {
            return Ok(());
        }
        // A stale-flow reply from the peer may acknowledge up to what we sent, never beyond;
        // beyond, the flow is another server instance's, or the peer is at fault.
        if a.received > f.send.next {
            let sent = f.send.next;
            if self.reset_flow_of_another_instance(now, a.flow) {
                return Ok(());
            }
            return Err(ProtocolError::AckBeyondSent {
                flow: a.flow,
                received: a.received,
                sent,
            });
        }
        let (conns, settled) = (&mut self.conns, &mut self.settled);
        let skipped = f.send.on_ack(a.received, a.credit, |c, n| {
            if let Some(conn) = conns.get_mut(&c) {
                conn.unacked -= n.min(conn.unacked);
                if conn.unacked == 0 {
                    settled.push(c);
                }
            }
        });
        let mut completed = None;
        if a.fin && f.send_state != SendState::FinAcked {
            if f.send_state != SendState::Finished || a.received != f.send.written {
                return Err(ProtocolError::AckOfUnsentFin { flow: a.flow });
            }
            f.send_state.on(SendEvent::FinAcked);
            if let Delivery::SentOn(c) = f.fin {
                self.settled.push(c);
            }
            f.fin = Delivery::Confirmed;
            completed = Some(f.send.written);
        }
        let owner = f.owner();
        if skipped > 0 {
            self.ledger.drop_unsent(skipped, 0);
            self.counters.resent_bytes -= skipped;
            self.forgive_owner(owner, skipped);
            self.clamp_virtual_queues(owner);
        }
        self.refresh(a.flow);
        if let Some(size) = completed {
            self.learn_size(a.flow, size);
        }
        self.check_writable(a.flow);
        // Acknowledged data may let a connection say Done.
        self.settled.extend(owner);
        self.wake_settled();
        self.maybe_close(now, a.flow);
        self.try_retire(a.flow);
        Ok(())
    }
}
