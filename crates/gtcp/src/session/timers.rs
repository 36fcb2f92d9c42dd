//! The session's protocol clocks, kept by the core (as quinn-proto's `poll_timeout` and
//! `handle_timeout`): a driver asks [`Session::poll_timeout`] for the next deadline and calls
//! [`Session::handle_timeout`] once it has passed, so every driver (the tunnel on real time,
//! the simulator on simulated time) keeps the same timers:
//!
//! - keepalive: a connection that sent nothing for [`Config::keepalive`](super::Config::keepalive)
//!   is made ready ([`Event::ConnReady`]) and its next [`Session::poll_transmit`] carries a
//!   keepalive frame, so that a silent peer can be told from an idle one;
//! - dead peer: a connection that received nothing for
//!   [`Config::dead_peer`](super::Config::dead_peer) (at least two keepalives missed) is
//!   reported dead ([`Event::ConnDead`]);
//! - the admission tick of background flows ([`crate::admission::TICK`]).

use std::time::Duration;

use bytes::BytesMut;

use super::{Event, Session};
use crate::conn::Phase;
use crate::ids::ConnId;

impl Session {
    /// Connection `conn` may send: appends at most `max` bytes of frames to `out` and returns
    /// how many. Control frames go first (they are small and unblock the peer), then data:
    ///
    /// ```text
    /// while q_v(i) > 0 and room:           // Algorithm 4, repeated per chunk
    ///     j ← schedule()                   // the policy's first ready flow
    ///     send a chunk of j on i, at most q_v(i)
    ///     q_v(i) ← q_v(i) − chunk
    /// ```
    ///
    /// A connection whose virtual queue is empty may also carry orphan debt (bytes of a dead
    /// connection). Returns 0 when there is nothing to send, or when the next frame does not fit
    /// in `max` (an opening frame is up to 275 bytes, a flow's control frames 43, a data frame
    /// 1 byte of payload plus its header; `max` 0 fits nothing). The two differ by
    /// [`conn_ready`](Self::conn_ready): after a 0 for lack of room the connection stays ready
    /// and the driver polls again, with more room, once its socket has some; after a 0 with
    /// nothing to send it polls again after the next [`Event::ConnReady`].
    ///
    /// A connection that sent nothing for the keepalive period gets a keepalive frame when
    /// nothing else goes ([`handle_timeout`](Self::handle_timeout) made it ready).
    pub fn poll_transmit(
        &mut self,
        now: Duration,
        conn: ConnId,
        out: &mut BytesMut,
        max: usize,
    ) -> usize {
        let mut n = self.poll_frames(now, conn, out, max);
        let due = self
            .conns
            .get(&conn)
            .is_some_and(|c| c.timers.keepalive_due && c.phase != Phase::Closing);
        if n == 0 && due && max >= 1 {
            n = self.keepalive(conn, out);
        }
        if let Some(c) = self.conns.get_mut(&conn) {
            if n > 0 {
                c.timers.last_sent = Some(now);
                c.timers.keepalive_due = false;
            }
        }
        n
    }

    /// Bytes arrived on `conn` at `now` (its dead-peer clock starts again).
    pub(crate) fn heard(&mut self, now: Duration, conn: ConnId) {
        if let Some(c) = self.conns.get_mut(&conn) {
            c.timers.last_received = Some(now);
        }
    }

    /// The next instant [`handle_timeout`](Self::handle_timeout) has something to do, on the
    /// clock of the `now`s the session is given; `None` while no timer runs (no connection and
    /// no access control). A connection the session has no time for yet (just added) is due
    /// at once: its clocks start at the next call. Later deadlines only move later, except a
    /// new connection's, so a driver waits for the earlier of this and a new connection.
    pub fn poll_timeout(&self) -> Option<Duration> {
        let (keepalive, dead_peer) = (self.config.keepalive, self.config.dead_peer);
        let mut next = self.admission.as_ref().map(|a| a.poll_timeout());
        for c in self.conns.values() {
            let t = &c.timers;
            if t.dead {
                continue;
            }
            let due = match (t.last_sent, t.last_received) {
                (Some(sent), Some(received)) => {
                    let dead = received.saturating_add(dead_peer);
                    if t.keepalive_due || c.phase == Phase::Closing {
                        dead
                    } else {
                        dead.min(sent.saturating_add(keepalive))
                    }
                }
                _ => Duration::ZERO,
            };
            next = Some(next.map_or(due, |n| n.min(due)));
        }
        next
    }

    /// Runs the timers due at `now`: keepalives ([`Event::ConnReady`]), dead connections
    /// ([`Event::ConnDead`], once each) and the admission tick (flows admitted in its stead
    /// get [`Event::ConnNeeded`]).
    pub fn handle_timeout(&mut self, now: Duration) {
        let (keepalive, dead_peer) = (self.config.keepalive, self.config.dead_peer);
        let mut ready = Vec::new();
        for c in self.conns.values_mut() {
            let t = &mut c.timers;
            let sent = *t.last_sent.get_or_insert(now);
            let received = *t.last_received.get_or_insert(now);
            if t.dead {
                continue;
            }
            if now >= received.saturating_add(dead_peer) {
                t.dead = true;
                self.events.push_back(Event::ConnDead(c.id));
                continue;
            }
            if !t.keepalive_due
                && c.phase != Phase::Closing
                && now >= sent.saturating_add(keepalive)
            {
                t.keepalive_due = true;
                ready.push(c.id);
            }
        }
        for c in ready {
            self.wake(c);
        }
        if let Some(a) = self.admission.as_mut() {
            let admitted = a.handle_timeout(now);
            self.admit(admitted);
        }
    }
}
