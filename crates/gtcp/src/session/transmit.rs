//! What a ready connection sends (Algorithm 4, `On_connection_ready(i)`).

use std::time::Duration;

use bytes::BytesMut;

use super::{Role, Session, RESET_CONFIRM};
use crate::conn::Phase;
use crate::flow::state::{AckEvent, ResetEvent};
use crate::flow::{Delivery, Flow, OwnershipEvent};
use crate::ids::{ConnId, FlowId};
use crate::room;
use crate::wire::{frame::encode_data_header, AckFrame, Frame, OpenFrame, DATA_HEADER_LEN};

/// The most one flow's control frames take in one poll: an end (17 bytes) and an
/// acknowledgement (26 bytes); a reset alone is 13.
const MAX_CONTROL_PER_FLOW: usize = 17 + 26;

/// The acknowledgement (with credit) of flow `id` as it stands.
pub(crate) fn ack_of(id: FlowId, f: &Flow) -> AckFrame {
    AckFrame {
        flow: id,
        received: f.recv.received,
        credit: f.recv.credit,
        fin: f.recv.final_size == Some(f.recv.received),
    }
}

/// Adds a starved period (its start, and whether it began with bytes held by credit) that
/// ends at `now` to the session's counters.
fn add_starved(
    counters: &mut super::SessionCounters,
    now: Duration,
    (since, by_credit): (Duration, bool),
) {
    let us = u64::try_from(now.saturating_sub(since).as_micros()).unwrap_or(u64::MAX);
    counters.starved_micros = counters.starved_micros.saturating_add(us);
    if by_credit {
        counters.starved_by_credit_micros = counters.starved_by_credit_micros.saturating_add(us);
    }
}

/// What a chunk's payload is charged to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Charge {
    /// The connection's own virtual queue only (`tcp`, its own flow).
    Own,
    /// Orphan debt only (`tcp`, a flow whose connection died).
    Orphan,
    /// The connection's virtual queue first, then orphan debt.
    OwnThenOrphan,
}

impl Session {
    /// The frames [`Session::poll_transmit`] sends (everything but the keepalive).
    pub(crate) fn poll_frames(
        &mut self,
        now: Duration,
        conn: ConnId,
        out: &mut BytesMut,
        max: usize,
    ) -> usize {
        let start = out.len();
        if self.admission.is_some() {
            self.tick(now);
        }
        let Some(c) = self.conns.get_mut(&conn) else {
            return 0;
        };
        // Once both sides said Done the connection is closing: nothing more goes on it. After
        // only our Done, control frames may still go (the peer is still reading), data not.
        if c.phase == Phase::Closing {
            c.polled = false;
            return 0;
        }
        let limit = start + max;
        let announce_go_away =
            self.going_away && self.role == Role::Acceptor && !c.go_away_sent && max >= 1;
        c.go_away_sent |= announce_go_away;
        let mut opens = std::mem::take(&mut c.open_queue).into_iter();
        let mut header = 0usize;
        let mut payload = 0u64;
        let mut open_blocked = false;
        for id in opens.by_ref() {
            let Some(f) = self.flows.get_mut(&id) else {
                continue;
            };
            if f.open != Delivery::Queued {
                continue;
            }
            let frame = Frame::Open(OpenFrame {
                flow: id,
                route: f.route.clone().unwrap_or_default(),
                class: f.class,
                size_hint: f.send.known_end,
                origin: f.origin.as_deref().copied(),
            });
            if out.len() + frame.encoded_len() > limit {
                // No room: it waits, with the rest, for the next poll.
                let rest: Vec<FlowId> = std::iter::once(id).chain(opens.by_ref()).collect();
                if let Some(c) = self.conns.get_mut(&conn) {
                    c.open_queue = rest;
                }
                // Nothing may overtake it: an acceptor takes a connection whose first frame is
                // not its owner's opening for one opened with another instance of itself.
                open_blocked = true;
                break;
            }
            header += frame.encoded_len();
            frame.encode(out);
            f.open = Delivery::SentOn(conn);
        }
        // The opener has nothing to announce: it simply opens no more flows.
        if announce_go_away {
            Frame::GoAway.encode(out);
            header += 1;
        }
        // Something waits that did not fit in `max`.
        let mut short = open_blocked;
        if !open_blocked {
            let (control, control_short) = self.write_control(conn, out, limit);
            header += control;
            let (data_header, data, data_short) = self.write_data(now, conn, out, limit);
            header += data_header;
            payload += data;
            if out.len() < limit {
                let (done, done_short) = self.maybe_done(conn, out, limit);
                header += done;
                short |= done_short;
            }
            short |= control_short || data_short;
        }
        // No room left at all: a `Done` or a `GoAway` may be waiting (and a `max` of 0 tells
        // nothing).
        short |= out.len() >= limit;
        if let Some(c) = self.conns.get_mut(&conn) {
            c.counters.header_bytes += header as u64;
        }
        self.counters.header_sent += header as u64;
        self.counters.payload_sent += payload;
        let written = out.len() - start;
        if written == 0 {
            // Drained: the next `ConnReady` says when there is more. Short of room: the
            // connection stays ready (no `ConnReady` comes; the driver polls again once its
            // socket has room), found by the fuzz input `settle_opener_never_transmits`.
            if let Some(c) = self.conns.get_mut(&conn) {
                c.polled = short;
            }
        }
        written
    }

    /// Acknowledgements, ends and resets of any flow; returns the bytes written and whether
    /// some did not fit before `limit`.
    fn write_control(&mut self, conn: ConnId, out: &mut BytesMut, limit: usize) -> (usize, bool) {
        let before = out.len();
        let mut short = false;
        while let Some(frame) = self.stale.front() {
            if out.len() + frame.encoded_len() > limit {
                short = true;
                break;
            }
            frame.encode(out);
            self.stale.pop_front();
        }
        let mut sent_for_closed = Vec::new();
        let mut elsewhere = Vec::new();
        while let Some(&id) = self.ctrl.front() {
            if out.len() + MAX_CONTROL_PER_FLOW > limit {
                short = true;
                break;
            }
            self.ctrl.pop_front();
            let Some(f) = self.flows.get_mut(&id) else {
                continue;
            };
            // The confirmation of the peer's reset goes back on the connection the reset came
            // on while that one lives here: any other may have died at the peer already (this
            // side learns it later), and once confirmed the flow is forgotten, so nothing would
            // send the confirmation again, while the peer asked on a connection it saw alive
            // and asks again if that one dies (found by `session_input`, fuzz/findings/
            // session_input/not_settled_opener_not_idle_3).
            if f.reset.frame() == Delivery::Queued && !f.reset.is_local() {
                let back = f.reset.peer_conn().filter(|&r| r != conn);
                if let Some(r) =
                    back.filter(|r| self.conns.get(r).is_some_and(|c| c.phase != Phase::Closing))
                {
                    elsewhere.push((id, r));
                    continue;
                }
            }
            if f.reset.frame() == Delivery::Queued {
                // Our own reset waits for confirmation; the confirmation of the peer's does not
                // (`ResetState::on`).
                let code = f.reset.code().unwrap_or(0);
                let local = f.reset.is_local();
                f.reset.on(ResetEvent::Sent(conn));
                if local {
                    Frame::Reset { flow: id, code }.encode(out);
                } else {
                    Frame::Reset {
                        flow: id,
                        code: code | RESET_CONFIRM,
                    }
                    .encode(out);
                    // Nothing else may come for a closed flow (an acceptor flow named only
                    // by the peer's reset, never opened, has no connection to close): it is
                    // retired here, or it would count against `max_flows` for good.
                    if f.closed() {
                        sent_for_closed.push(id);
                    }
                }
                continue;
            }
            if f.is_reset() {
                continue;
            }
            if f.fin == Delivery::Queued {
                Frame::Fin {
                    flow: id,
                    final_size: f.send.written,
                }
                .encode(out);
                f.fin = Delivery::SentOn(conn);
                f.ownership.on(OwnershipEvent::Carried);
            }
            if f.ack.queued() {
                self.extend_credit(id);
                let Some(f) = self.flows.get_mut(&id) else {
                    continue;
                };
                Frame::Ack(ack_of(id, f)).encode(out);
                f.ack.on(AckEvent::Sent(conn));
                if f.closed() {
                    sent_for_closed.push(id);
                }
            }
        }
        for id in sent_for_closed {
            self.try_retire(id);
        }
        for (id, r) in elsewhere {
            // Only a tracked flow has entries (`try_retire` removes a forgotten one's).
            if self.flows.contains_key(&id) {
                self.ctrl.push_back(id);
                self.wake(r);
            }
        }
        // A burst's room (thousands of flows acknowledged at once) is given back once sent.
        room::give_back(&mut self.ctrl);
        room::give_back(&mut self.stale);
        (out.len() - before, short)
    }

    /// Data chunks while the connection's budget and `limit` allow; returns (header bytes,
    /// payload bytes, whether the connection could send more than `limit` let it).
    fn write_data(
        &mut self,
        now: Duration,
        conn: ConnId,
        out: &mut BytesMut,
        limit: usize,
    ) -> (usize, u64, bool) {
        let (mut header, mut payload, mut short) = (0usize, 0u64, false);
        let chunk = u64::from(self.config.chunk);
        while let Some(c) = self.conns.get(&conn) {
            if c.phase.done_sent() {
                break;
            }
            let own = c.vq();
            let orphan = self.orphan();
            let room = limit.saturating_sub(out.len() + DATA_HEADER_LEN) as u64;
            if own + orphan == 0 {
                self.end_starved(now, conn);
                break;
            }
            if room == 0 {
                short = true;
                break;
            }
            let Some((id, charge)) = self.pick(conn, own, orphan) else {
                self.starved.insert(conn);
                let by_credit = self.ledger.unsent() > 0;
                if let Some(c) = self.conns.get_mut(&conn) {
                    c.starved_since.get_or_insert((now, by_credit));
                }
                break;
            };
            let (budget, own) = match charge {
                Charge::Own => (own, own),
                Charge::Orphan => (orphan, 0),
                Charge::OwnThenOrphan => (own + orphan, own),
            };
            let Some(f) = self.flows.get_mut(&id) else {
                break;
            };
            let Some(seg) = f.send.take(chunk.min(budget).min(room), conn) else {
                // Not ready after all (cannot happen: the schedule holds ready flows only).
                self.refresh(id);
                continue;
            };
            f.ownership.on(OwnershipEvent::Carried);
            encode_data_header(out, id, seg.start, seg.len as u32);
            f.send.copy_out(seg.start, seg.len, out);
            self.turn += 1;
            f.turn = self.turn;
            header += DATA_HEADER_LEN;
            payload += seg.len;
            // Charge the connection's own virtual queue first, then the orphan debt.
            let Some(c) = self.conns.get_mut(&conn) else {
                break;
            };
            let from_own = self.ledger.carry(&mut c.counters, seg.len, own);
            c.unacked += seg.len;
            if let Some(period) = c.starved_since.take() {
                add_starved(&mut self.counters, now, period);
            }
            let owner = c.owner;
            self.lend_budget_moved();
            self.refresh(id);
            self.background_bytes(now, id, seg.len);
            // Room to hand over: the owner's (its connection owes less) or, for a flow with
            // no live connection, this flow's own (it has fewer bytes unsent).
            // (Once when the owner is this flow: a second look at the same room changes
            // nothing.)
            if let Some(o) = owner.filter(|&o| from_own > 0 && o != id) {
                self.check_writable(o);
            }
            self.check_writable(id);
            // FAIR's key of the owner depends on what its own connection carried.
            if from_own > 0 {
                if let Some(o) = owner {
                    if let Some(of) = self.flows.get_mut(&o) {
                        of.virtual_sent += from_own;
                    }
                    if self.config.policy.uses_virtual() {
                        self.refresh(o);
                    }
                }
            }
        }
        (header, payload, short)
    }

    /// Ends `conn`'s starved period, if any, at `now`
    /// ([`SessionCounters::starved_micros`](crate::SessionCounters::starved_micros)).
    pub(crate) fn end_starved(&mut self, now: Duration, conn: ConnId) {
        if let Some(period) = self
            .conns
            .get_mut(&conn)
            .and_then(|c| c.starved_since.take())
        {
            add_starved(&mut self.counters, now, period);
        }
    }

    /// The flow whose bytes go next on `conn`, and what they are charged to: the policy's
    /// first ready flow, charged to the connection's virtual queue then to orphan debt. Under
    /// `tcp` a connection's virtual queue pays only for its own flow, and orphan debt only for
    /// flows whose connection died (anything else would leave another connection owing bytes
    /// its flow no longer has). A flow still waiting for its first connection is not one: its
    /// bytes are not orphan debt but that connection's queue to be (`unowned`), so carried
    /// against orphan debt they used up another flow's share of it, and the first connection
    /// then owed the carried bytes twice while the flow whose debt they used had none left to
    /// inherit: under `tcp` nobody would send its bytes (found by `session_input`, fuzz/
    /// findings/session_input/not_settled_tcp_replacement_inherits_other_flows_debt).
    fn pick(&self, conn: ConnId, own: u64, orphan: u64) -> Option<(FlowId, Charge)> {
        if !self.config.policy.is_tcp() {
            return self.sched.first().map(|f| (f, Charge::OwnThenOrphan));
        }
        if own > 0 {
            let owner = self.conns.get(&conn).and_then(|c| c.owner);
            if let Some(o) = owner.filter(|o| self.flows.get(o).is_some_and(|f| f.key.is_some())) {
                return Some((o, Charge::Own));
            }
        }
        if orphan == 0 {
            return None;
        }
        let orphaned = |f: &FlowId| {
            self.flows.get(f).is_some_and(|f| {
                !f.ownership.awaiting() && !f.owner().is_some_and(|c| self.conns.contains_key(&c))
            })
        };
        self.sched
            .iter()
            .find(orphaned)
            .map(|f| (f, Charge::Orphan))
    }

    /// Says `Done` once the connection owes nothing, its flow is over in both directions with
    /// its last acknowledgement sent, and nothing it carried waits for acknowledgement.
    /// Returns the bytes written and whether they did not fit in `limit`.
    fn maybe_done(&mut self, conn: ConnId, out: &mut BytesMut, limit: usize) -> (usize, bool) {
        let Some(c) = self.conns.get(&conn) else {
            return (0, false);
        };
        if c.phase.done_sent() || c.vq() > 0 || c.unacked > 0 || self.orphan() > 0 {
            return (0, false);
        }
        // (Acceptor) The flow's last acknowledgement, if it went on another connection, goes
        // again here first (`Session::owe_final_ack`).
        let mut final_ack = None;
        match c.owner {
            // A connection that carries no flow of its own (a warm spare here) says `Done`
            // only in answer to the peer's: the peer took it for its flow's (an opening on a
            // spare that this side forgot with the flow's reset) and is closing it, and would
            // wait for that answer for good (found by `session_input`).
            None if !c.phase.done_received() => return (0, false),
            None => {}
            Some(owner) => match self.flows.get(&owner) {
                // Both directions over and the last acknowledgement out: after Done this side
                // writes nothing more here.
                // A reset still to be sent goes on the flow's own connection first.
                Some(f) if !f.closed() || f.ack.queued() || f.reset.frame() == Delivery::Queued => {
                    return (0, false)
                }
                Some(f) => {
                    if self.role == Role::Acceptor && f.ack.last_on().is_some_and(|on| on != conn) {
                        final_ack = Some(ack_of(owner, f));
                    }
                }
                None if self.role == Role::Acceptor && !self.is_retired(owner) => {
                    return (0, false)
                }
                None => final_ack = c.final_ack,
            },
        }
        if !self.flows.values().all(|f| f.settled_on(conn)) {
            return (0, false);
        }
        let ack = final_ack.map(Frame::Ack);
        let len = ack.as_ref().map_or(0, Frame::encoded_len) + 1;
        if out.len() + len > limit {
            return (0, true);
        }
        if let Some(ack) = ack {
            ack.encode(out);
            if let Some(f) = c.owner.and_then(|o| self.flows.get_mut(&o)) {
                f.ack.on(AckEvent::Sent(conn));
            }
        }
        Frame::Done.encode(out);
        let c = self.conns.get_mut(&conn).expect("checked above");
        c.final_ack = None;
        c.phase = c.phase.send_done();
        if c.phase == Phase::Closing {
            self.events.push_back(super::Event::ConnDone(conn));
        }
        (len, false)
    }
}
