//! One end of a session: every flow and pool connection of one origin–destination pair.
//!
//! The session is sans-IO. The driver (the tunnel, or the simulator) tells it what happened —
//! a connection was established or died, bytes arrived on a connection, an application handed
//! bytes over or read them — and asks it what to send on a connection when that connection may
//! send. Time is an argument (`now`, a [`Duration`] since the driver's epoch) and only labels
//! completion times. What the driver must do is returned or queued as [`Event`]s.
//!
//! # The virtual queues (paper 000, Algorithms 1 and 4)
//!
//! Each pool connection *i* keeps q_v(i), the bytes plain TCP would still have to send on it:
//! bytes its owning flow hands over raise it ([`Session::write`], Algorithm 1's `on_wri`), and
//! whatever payload *i* carries lowers it ([`Session::poll_transmit`], Algorithm 4's
//! `On_connection_ready`). A connection sends only while q_v(i) > 0, so it carries exactly as
//! many bytes as its own flow handed over; the policy only chooses *whose* bytes those are.
//! Because Σ q_v = the bytes not yet sent, some flow always has bytes for a connection with
//! q_v > 0 (unless the receiver's credit holds them back).
//!
//! When a connection dies, its q_v and the bytes it carried that were not acknowledged become
//! *orphan* debt, which any live connection carries after its own q_v (counted as
//! `adopted_bytes`): data is never lost with a connection, and the overhead is reported.
//! Under `tcp` only flows without a live connection of their own are served from orphan debt,
//! and a replacement connection (the opener opens one per flow that lost its connection)
//! inherits what its flow still has to send.
//!
//! # The life of a connection
//!
//! A side says `Done` on a connection once it owes nothing there (q_v = 0, no orphan debt),
//! its flow is over in both directions with the last acknowledgement sent, everything it
//! carried is acknowledged, and no opening, end or reset it sent there awaits confirmation.
//! After `Done` it sends no data there, but may still send control frames until the peer's
//! `Done`. Once both have said it the connection closes ([`Event::ConnDone`]). When any
//! connection closes, acknowledgements are sent again (they are cumulative), and after an
//! unclean loss unconfirmed ends and resets are too: whatever died with it is repeated, and a
//! peer that has forgotten the flow answers from the frame itself.
//!
//! # The life of a flow
//!
//! A flow's life is a handful of state machines (the `flow::state` module), each changed by
//! its one transition function: the sending half (`Open → Finished → FinAcked`, or `Reset`),
//! the receiving half (`Open → Ended`, or `Reset`), the reset and its confirmation, the
//! acknowledgement's delivery, the flow as a whole (`Open → Closed`), and a background flow's
//! admission. A transition the session must never ask for is a debug assertion; the test
//! harness (`gtcp::pair`, feature `pair`) checks after every step that the machines
//! agree on each end and between the two ends.
//!
//! # Forgetting flows
//!
//! The acceptor forgets a closed flow once nothing about it awaits the peer; the opener keeps
//! it until the flow's connection closed cleanly, so that a lost confirmation can still be
//! asked for on a replacement. Frames about forgotten flows get idempotent answers
//! (acknowledgement of what the frame covers, or a reset confirmation).

mod background;
pub mod caps;
mod input;
mod ledger;
mod liveness;
mod rank;
mod timers;
mod transmit;
mod types;

pub use liveness::{MAX_RETIRED_ABOVE, RESET_UNKNOWN_FLOW};
pub use rank::RankedFlow;
pub use types::{
    Bounds, Config, ConfigError, Event, FlowSendState, FlowSummary, ProtocolError, ReadOutcome,
    Role, SessionCounters, SessionError,
};

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::Duration;

use bytes::Bytes;

use crate::conn::{Conn, ConnCounters};
use crate::flow::state::{AckEvent, RecvEvent, RecvState, ResetEvent, SendEvent};
use crate::flow::{Delivery, Flow, Ownership, OwnershipEvent};
use crate::ids::{ConnId, FlowId};
use crate::policy::{LearnedSizes, Policy, SchedQueue};
use crate::room;
use crate::wire::Frame;
use ledger::Ledger;

/// Replies to frames about flows this side has already forgotten, at most this many waiting
/// (older ones are dropped: they are idempotent and the peer asks again if it must). Their
/// queue holds at most this many frames (56 bytes each on x86_64, 56 KiB), the largest fixed
/// part of a session's bookkeeping (`fuzz/fuzz_targets/session_bounds.rs`, `FIXED`), and gives
/// the room back once they are sent (`room::give_back`).
const MAX_STALE_REPLIES: usize = 1024;

/// Send buffers per live connection the session may lend flows that the policy sends ahead of
/// their own connections ([`Session::send_capacity`]). A flow served ahead of its connection
/// moves debt onto that connection about as fast as the others carry its bytes, so the budget
/// bounds how large a flow may be and still be served at the whole pair's rate: with 4 buffers
/// a heavy tail's large flows ran it dry. Measured on `table2-buffers` (Table 2 at load 0.9,
/// default 1 MiB buffers, the same 30 runs each): with 4, α = 1.5 cost SRPT 1.064 ± 0.026 and
/// FAIR 1.053 ± 0.030 × the unbounded variant's mean completion time; with 16, 1.007 ± 0.021
/// and 1.000 ± 0.017 (a 4 MiB `send_buffer` with 4 gave the same: 1.007, 0.998). Unsent
/// memory is at most `(1 + LEND_PER_CONNECTION) × live connections × send_buffer` (+ flows
/// without a connection, + orphan debt and lost bytes, + what was lent beyond the budget of
/// the connections left after some died, until it drains: the budget shrinks with the
/// connections, the loan does not, and nothing is lent while it is above the budget; see
/// [`Session::send_capacity`]); what is lent holds the bytes of flows the policy
/// holds back, which plain TCP would hold in its connections' socket buffers (Linux autotunes
/// those up to 4 MiB each).
pub const LEND_PER_CONNECTION: u64 = 16;

/// Receive windows per live connection in the session's receive budget
/// (`Session::credit_window`): the most credit flows may hold beyond their own `flow_window`s,
/// for bytes waiting behind a hole. Measured on `table2-buffers` (SRPT, α = 3, two runs): with
/// 1, mean completion time 1.04 × the unbounded variant's, 0.96 with 4.
pub const RECEIVE_BUDGET_PER_CONNECTION: u64 = 4;

/// Receive windows beyond the highest byte received that a flow's credit may reach
/// (`Session::extend_credit`), within the receive budget above. One window held the flow a
/// size-based policy serves on every connection below the pair's bandwidth-delay product:
/// measured on `table2-buffers` (SRPT, default buffers, load 0.9, 8 runs × 100 s), the
/// policy's first flow had no byte within credit 13–26% of the time (4–6% with 64 MiB
/// windows), and E\[T\] was 1.02–1.12 × the unbounded variant's; with 4, 4–7% of the time and
/// 0.99–1.07 × (`results/table2-buffers/diag-idle`). Memory is unchanged: the budget bounds
/// what all flows hold beyond their own windows.
pub const RECEIVE_AHEAD_WINDOWS: u64 = 4;

/// Largest flow id a peer may use (2^62): ids count up from 1, one per application connection,
/// so a larger one is malformed, and keeping far from `u64::MAX` keeps window arithmetic exact.
pub const MAX_FLOW_ID: u64 = 1 << 62;

/// Bit of a reset code marking the confirmation of a reset, not a reset.
pub(crate) const RESET_CONFIRM: u32 = 1 << 31;

/// One end of a session. See the [module documentation](crate::session).
#[derive(Debug)]
pub struct Session {
    role: Role,
    config: Config,
    /// Boxed: a B-tree node holds 11 values inline and splits half full as ids grow, so an
    /// inline flow cost about twice its size per flow; a box costs its size plus a pointer.
    flows: BTreeMap<FlowId, Box<Flow>>,
    /// Of `flows`, those closed (both directions over, or reset) and not yet forgotten.
    closed_flows: usize,
    /// Boxed, as `flows`.
    conns: BTreeMap<ConnId, Box<Conn>>,
    sched: SchedQueue,
    /// Sizes of the completed flows per route (bounded), for `gittins`, `auto` and `mu`.
    learned: LearnedSizes,
    /// What the driver must act on. This queue, `ctrl` and `stale` give back the room a burst
    /// left as they drain (`room::give_back`).
    events: VecDeque<Event>,
    /// Flows with an acknowledgement, end or reset to send (any connection may carry them).
    ctrl: VecDeque<FlowId>,
    /// Replies about forgotten flows.
    stale: VecDeque<Frame>,
    /// Connections that had budget but found no ready flow; woken when one becomes ready.
    starved: BTreeSet<ConnId>,
    /// Flows whose application waits for [`Event::FlowWritable`]: a write took less than
    /// offered, [`Session::send_capacity`] said 0, or the room ran below the writable
    /// threshold. At most one entry per flow (`max_flows`).
    wants_room: BTreeSet<FlowId>,
    /// The lend budget was below the writable threshold when last looked at: when it rises
    /// above, every flow in `wants_room` is looked at again ([`Session::lend_budget_moved`]).
    lend_budget_low: bool,
    /// The virtual queues, orphan debt and the invariant's counters (the one owner).
    ledger: Ledger,
    next_flow: u64,
    arrivals: u64,
    turn: u64,
    /// Every flow id below this has been retired (acceptor bookkeeping).
    retired_below: u64,
    retired_above: BTreeSet<u64>,
    highest_seen: u64,
    going_away: bool,
    /// The peer instance that said `GoAway` (see [`Session::peer_going_away`]).
    peer_going_away: liveness::PeerGoAway,
    /// (Acceptor) Connections whose first frame must open their flow.
    first_frames: liveness::FirstFrames,
    /// Access control of background flows, when configured.
    admission: Option<crate::admission::Admission>,
    /// Receive credit granted beyond the flows' own windows: Σ max(0, credit − read −
    /// flow_window), what the session's receive budget lends out ([`Session::credit_window`]).
    recv_extra: u64,
    /// Out-of-order segments held over all flows (Σ of the flows' own counts), within
    /// [`caps::MAX_SESSION_OOO_SEGMENTS`].
    ooo_segments: usize,
    last_input: Option<ConnId>,
    /// Connections on which something was just confirmed: they may be able to say `Done`.
    settled: Vec<ConnId>,
    counters: SessionCounters,
}

impl Session {
    /// A new, empty session end.
    pub fn new(role: Role, config: Config) -> Result<Self, ConfigError> {
        config.validate()?;
        Ok(Self {
            role,
            config,
            flows: BTreeMap::new(),
            closed_flows: 0,
            conns: BTreeMap::new(),
            sched: SchedQueue::default(),
            learned: LearnedSizes::default(),
            events: VecDeque::new(),
            ctrl: VecDeque::new(),
            stale: VecDeque::new(),
            starved: BTreeSet::new(),
            wants_room: BTreeSet::new(),
            lend_budget_low: false,
            ledger: Ledger::new(config.send_buffer),
            next_flow: 1,
            arrivals: 0,
            turn: 0,
            retired_below: 1,
            retired_above: BTreeSet::new(),
            highest_seen: 0,
            going_away: false,
            admission: None,
            recv_extra: 0,
            ooo_segments: 0,
            peer_going_away: liveness::PeerGoAway::default(),
            first_frames: liveness::FirstFrames::default(),
            last_input: None,
            settled: Vec::new(),
            counters: SessionCounters::default(),
        })
    }

    pub fn role(&self) -> Role {
        self.role
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn policy(&self) -> Policy {
        self.config.policy
    }

    /// The flow sizes learned per route from the flows this side completed sending.
    pub fn learned_sizes(&self) -> &LearnedSizes {
        &self.learned
    }

    /// The next thing the driver should act on.
    pub fn poll_event(&mut self) -> Option<Event> {
        let ev = self.events.pop_front();
        // The room of a burst (every connection's keepalive due at once) is given back as
        // the driver drains it.
        room::give_back(&mut self.events);
        if let Some(Event::FlowReadable(id)) = &ev {
            if let Some(f) = self.flows.get_mut(id) {
                f.readable_queued = false;
            }
        }
        ev
    }

    /// Queues [`Event::FlowReadable`] for `id` unless one already waits: the queue holds at
    /// most one per flow, whatever number of frames the peer packs into one read (a peer's
    /// one-byte data frames would otherwise queue an event per 22 bytes received).
    pub(crate) fn notify_readable(&mut self, id: FlowId) {
        if let Some(f) = self.flows.get_mut(&id) {
            if !f.readable_queued {
                f.readable_queued = true;
                self.events.push_back(Event::FlowReadable(id));
            }
        }
    }

    // ----- connections -------------------------------------------------------------------

    /// A pool connection finished its handshake. `owner` is the flow it was opened for (none
    /// for a warm spare, which takes the first flow opened on it).
    pub fn add_connection(
        &mut self,
        conn: ConnId,
        owner: Option<FlowId>,
    ) -> Result<(), SessionError> {
        if self.conns.contains_key(&conn) {
            return Err(SessionError::DuplicateConn(conn));
        }
        if let Some(f) = owner {
            match self.role {
                Role::Opener if !self.flows.contains_key(&f) => {
                    return Err(SessionError::UnknownFlow(f))
                }
                Role::Acceptor if !self.flows.contains_key(&f) => {
                    if self.is_retired(f) {
                        // A replacement for a flow this side has finished with: it only
                        // carries what the peer still owes, then closes.
                    } else {
                        self.acceptor_flow(f, true)
                            .map_err(|_| SessionError::UnknownFlow(f))?;
                    }
                }
                _ => {}
            }
            if let Some(flow) = self.flows.get(&f) {
                if let Some(c) = flow.owner() {
                    if self.conns.contains_key(&c) {
                        return Err(SessionError::AlreadyOwned { flow: f });
                    }
                }
            }
        }
        let mut c = Conn::new(conn, owner);
        if let Some(flow) = owner.and_then(|f| self.flows.get_mut(&f)) {
            if flow.open == Delivery::Queued {
                c.open_queue.push(flow.id);
            }
            take_ownership(&mut self.ledger, flow, conn, &mut c.counters);
        }
        self.conns.insert(conn, Box::new(c));
        self.counters.active_conns = self.conns.len() as u64;
        if let Some(f) = owner {
            self.expect_opening(conn, f);
            self.check_writable(f);
        }
        // The lend budget grew by a connection's share.
        self.lend_budget_moved();
        self.wake(conn);
        Ok(())
    }

    /// The connection is gone: closed after both sides said `Done`, or dead (reset, error,
    /// protocol violation). In the second case everything it carried that the peer did not
    /// acknowledge goes again on the other connections.
    pub fn connection_closed(&mut self, now: Duration, conn: ConnId) {
        self.end_starved(now, conn);
        let Some(c) = self.conns.remove(&conn) else {
            return;
        };
        self.counters.active_conns = self.conns.len() as u64;
        self.starved.remove(&conn);
        self.forget_first_frame(conn);
        self.ledger.detach(&c.counters);
        let clean = c.phase == crate::conn::Phase::Closing;
        if !clean {
            self.counters.conns_lost += 1;
        }
        // One pass in key order over the flows (no lookup per flow); only the flows the close
        // changed are then re-keyed, re-checked and maybe forgotten.
        let mut touched = Vec::new();
        for (&id, flow) in self.flows.iter_mut() {
            let lost = flow.send.requeue_lost(conn);
            // Lost bytes of a flow whose own connection lives join that connection's virtual
            // queue (they are its flow's, as plain TCP would resend them there); the others
            // are orphan debt until a replacement takes them over. Left as orphan debt under
            // `tcp`, nobody would carry them: only flows without a live connection of their
            // own are served from it.
            let live_owner = flow
                .owner()
                .filter(|&o| o != conn)
                .and_then(|o| self.conns.get_mut(&o));
            self.ledger
                .requeue(live_owner.map(|c| &mut c.counters), lost);
            self.counters.resent_bytes += lost;
            let mut requeue = false;
            // The end or the reset sent on the dead connection, or on another one but not yet
            // confirmed: the confirmation may have died with this one, and the peer may have
            // forgotten the flow since. Sent again, it is confirmed again (from the frame
            // itself if the flow is forgotten).
            if flow.fin == Delivery::SentOn(conn)
                || (!clean && matches!(flow.fin, Delivery::SentOn(_)))
            {
                flow.fin = Delivery::Queued;
                requeue = true;
            }
            requeue |= flow
                .reset
                .on(ResetEvent::Requeue { conn, any: !clean })
                .queue;
            let reopened = flow.open == Delivery::SentOn(conn);
            if reopened {
                flow.open = Delivery::Queued;
            }
            let received_any = flow.recv.received > 0 || flow.recv.final_size.is_some();
            // A reset flow sends no acknowledgements (its reset says everything). Even a clean
            // close does not prove the peer read what went on the connection after its `Done`:
            // its end may have died while it waited for ours, as a connection the peer gave up
            // on closes on this side like any other (the fuzz of resets and losses found an
            // acknowledgement of an end lost that way, and the peer waiting for it for good).
            if received_any && !flow.is_reset() {
                // The latest acknowledgement (and credit), if it went on it, may not have been
                // read: acknowledgements are cumulative, so sending the current one again
                // loses nothing. One that went on another connection supersedes what went on
                // this one (re-sending every flow's made each close cost a frame per flow
                // receiving: O(flows²) control bytes for flows that each close their own
                // connection).
                requeue |= flow.ack.on(AckEvent::ConnGone(conn));
            }
            if requeue {
                self.ctrl.push_back(id);
            }
            let owned = flow.owner() == Some(conn);
            if owned {
                flow.ownership.on(OwnershipEvent::Gone { clean });
                // Even a closed flow needs a connection again: the peer may still wait for
                // acknowledgements that died with this one, and only a connection that closes
                // cleanly proves it does not.
                if !clean && self.role == Role::Opener {
                    self.events.push_back(Event::ConnNeeded { owner: id });
                }
            }
            if lost > 0 || requeue || reopened || owned || flow.closed() {
                touched.push((id, owned));
            }
        }
        let mut changed = false;
        for (id, owned) in touched {
            if owned {
                self.check_writable(id);
            }
            self.refresh(id);
            // The connection of a flow the close changed may be able to say `Done` now.
            let owner = self.flows.get(&id).and_then(|f| f.owner());
            self.try_retire(id);
            if let Some(o) = owner {
                self.wake(o);
            }
            changed = true;
        }
        // One connection fewer shares the lend budget, but what it had lent is free again.
        self.lend_budget_moved();
        if !clean || self.orphan() > 0 {
            // The orphan debt grew: every live connection may carry it.
            self.wake_all();
        } else if changed {
            // A clean close leaves no debt (its connection owed nothing and had nothing in
            // flight): only control frames may wait, and any connection carries them. Waking
            // every connection made each close cost O(connections) polls.
            self.wake_ctrl();
        }
    }

    // ----- flows: the application side --------------------------------------------------

    /// (Opener) An application connected on `route`: a new flow. If `conn` names a warm spare
    /// connection, the flow takes it; otherwise the driver opens a connection with this flow as
    /// its owner. `size_hint` is the size of this side's direction, if known.
    pub fn open_flow(
        &mut self,
        now: Duration,
        conn: Option<ConnId>,
        route: &str,
        class: u8,
        size_hint: Option<u64>,
    ) -> Result<FlowId, SessionError> {
        if self.role != Role::Opener {
            return Err(SessionError::NotOpener);
        }
        if self.going_away || self.peer_going_away() {
            return Err(SessionError::GoingAway);
        }
        if self.flows.len() >= self.config.max_flows {
            return Err(SessionError::TooManyFlows(self.config.max_flows));
        }
        if let Some(c) = conn {
            match self.conns.get(&c).map(|c| c.owner) {
                None => return Err(SessionError::UnknownConn(c)),
                Some(Some(flow)) => return Err(SessionError::AlreadyOwned { flow }),
                Some(None) => {}
            }
        }
        let id = FlowId(self.next_flow);
        self.next_flow += 1;
        self.arrivals += 1;
        let mut flow = Flow::new(id, self.arrivals, now, self.config.flow_window);
        flow.route = Some(route.to_owned());
        flow.class = class;
        flow.send.known_end = size_hint;
        flow.open = Delivery::Queued;
        if let Some(c) = conn.and_then(|c| self.conns.get_mut(&c)) {
            c.owner = Some(id);
            c.open_queue.push(id);
            flow.ownership.on(OwnershipEvent::Attach(c.id));
        }
        self.flows.insert(id, Box::new(flow));
        self.counters.flows_opened += 1;
        self.counters.active_flows = self.flows.len() as u64;
        if let Some(c) = conn {
            self.wake(c);
        }
        Ok(id)
    }

    /// (Opener) Where the application connection of `flow` came from, to be carried in the
    /// flow's opening: the acceptor's driver may pass it on to the target (a PROXY protocol
    /// header). Has an effect only before the opening went out, i.e. when called right after
    /// [`open_flow`](Self::open_flow), before the next `poll_transmit`.
    pub fn set_origin(
        &mut self,
        flow: FlowId,
        origin: crate::wire::Origin,
    ) -> Result<(), SessionError> {
        let f = self
            .flows
            .get_mut(&flow)
            .ok_or(SessionError::UnknownFlow(flow))?;
        f.origin = Some(Box::new(origin));
        Ok(())
    }

    /// How many bytes [`write`](Self::write) would take now; an error once the flow takes no
    /// more (finished, reset or gone). A 0 registers the flow for [`Event::FlowWritable`], as
    /// a short write does: the application may wait for it (the driver contract, step 1).
    ///
    /// **The hand-over rule.** A flow may hand bytes over while *its own connection's* virtual
    /// queue is below [`Config::send_buffer`], however many of its bytes are already buffered:
    /// plain TCP's application keeps writing into its own socket buffer while that buffer has
    /// room, and it is that connection, not the flow, whose sending the virtual queue mirrors.
    /// Bounding by the flow instead would let the connection of a long flow that the policy
    /// holds back run dry (its bytes wait, its buffer stays full, it hands over nothing) while
    /// plain TCP's connection would still be sending: the pair would take less than plain TCP.
    ///
    /// The other way round, the flow the policy serves first is carried by every connection
    /// while only its own connection's sending lowers its own queue: bounded by that alone it
    /// could get only one buffer ahead, and a size-based policy would lose its gain. So a flow
    /// may also keep up to `send_buffer` of its own bytes waiting even when its connection owes
    /// more, the excess lent from a session budget of [`LEND_PER_CONNECTION`] send buffers per
    /// live connection.
    /// A flow without a live connection (its first one not yet established, or its
    /// connection died) may have at most `send_buffer` of its own bytes unsent.
    ///
    /// Memory: unsent bytes are at most (1 + [`LEND_PER_CONNECTION`]) × live connections ×
    /// `send_buffer`, plus `send_buffer` per flow without a live connection, plus what died
    /// with connections until it drains: orphan debt (what they owed), the bytes they had in
    /// flight (lost, back among the unsent), and what was lent beyond the budget of the
    /// connections left; sent and not yet acknowledged bytes stay within the receiver's
    /// credit ([`SessionCounters::unsent_bound`]). Each of those drains and none grows by a
    /// hand-over: lost bytes were in flight (within the receiver's credit) and leave as they
    /// go again, nothing is lent while the loan is above the budget, and a flow without a live
    /// connection takes bytes only while it holds less than a send buffer (its lost bytes,
    /// which are the ones a flow waiting for its first connection can hold beyond that when
    /// others carried its bytes and died, count as lost; found by `session_input`, fuzz/
    /// findings/session_input/unsent_above_bound_after_last_conn_died).
    pub fn send_capacity(&mut self, flow: FlowId) -> Result<usize, SessionError> {
        let room = self.room_of(flow)?;
        if room == 0 {
            self.wants_room.insert(flow);
        }
        Ok(usize::try_from(room).unwrap_or(usize::MAX))
    }

    /// [`handover_room`](Self::handover_room) of `flow`; an error once it takes no more bytes.
    fn room_of(&self, flow: FlowId) -> Result<u64, SessionError> {
        let f = self
            .flows
            .get(&flow)
            .filter(|f| f.opened())
            .ok_or(SessionError::UnknownFlow(flow))?;
        if f.no_more_writes() {
            return Err(SessionError::Finished(flow));
        }
        Ok(self.handover_room(f))
    }

    /// Bytes `f` may hand over now (see [`send_capacity`](Self::send_capacity)).
    fn handover_room(&self, f: &Flow) -> u64 {
        if f.admission.waiting() {
            return 0;
        }
        let bound = self.config.send_buffer;
        let waiting = bound.saturating_sub(f.send.unsent());
        let Some(c) = f.owner().and_then(|c| self.conns.get(&c)) else {
            return waiting;
        };
        // Its own connection's room, as plain TCP's socket buffer; or, for a flow the policy
        // sends ahead of its connection (the others carry it), a buffer of its own bytes
        // waiting, lent from the session's send budget (a buffer per live connection).
        bound
            .saturating_sub(c.vq())
            .max(waiting.min(self.lend_budget()))
    }

    /// What is left of the session's lend budget: [`LEND_PER_CONNECTION`] send buffers per
    /// live connection, less what flows sent ahead of their connections hold.
    fn lend_budget(&self) -> u64 {
        (self.conns.len() as u64 * LEND_PER_CONNECTION)
            .saturating_mul(self.config.send_buffer)
            .saturating_sub(self.ledger.lent())
    }

    /// Called wherever the lend budget may have moved (a connection added or gone, a queue
    /// above its buffer carried, cut or grown). The budget is part of every flow's room, but
    /// a waiting flow's room is below the writable threshold while the budget is at least the
    /// threshold only because of its own numbers (its connection's queue, its bytes unsent),
    /// each looked at where it changes; so the waiting flows are looked at again only when
    /// the budget rises from below the threshold to above it.
    pub(crate) fn lend_budget_moved(&mut self) {
        let low = self.lend_budget() < self.writable_threshold();
        let rose = self.lend_budget_low && !low;
        self.lend_budget_low = low;
        if rose {
            let waiting: Vec<FlowId> = self.wants_room.iter().copied().collect();
            for id in waiting {
                self.check_writable(id);
            }
        }
    }

    /// Room at which a flow that ran out of it is told [`Event::FlowWritable`]: half the
    /// bound, so a woken application hands over in large writes while its connection still
    /// owes half a buffer (it never runs dry while the application has bytes).
    pub fn writable_threshold(&self) -> u64 {
        (self.config.send_buffer / 2).max(1)
    }

    /// Arms `id` for [`Event::FlowWritable`] if its room fell below the threshold, or fires
    /// the event if an armed flow has room again. Called wherever the room of `id` may grow or
    /// shrink through its own numbers; [`lend_budget_moved`](Self::lend_budget_moved) where
    /// the shared budget does.
    pub(crate) fn check_writable(&mut self, id: FlowId) {
        let Ok(room) = self.room_of(id) else {
            // Gone, finished or reset: nothing to wait for (a reset told it already).
            self.wants_room.remove(&id);
            return;
        };
        if room < self.writable_threshold() {
            self.wants_room.insert(id);
        } else if self.wants_room.remove(&id) {
            self.events.push_back(Event::FlowWritable(id));
        }
    }

    /// The application handed bytes over (Algorithm 1, `on_wri`): they join the flow's buffer
    /// and its connection's virtual queue. Takes at most [`send_capacity`](Self::send_capacity)
    /// bytes and returns how many it took.
    pub fn write(&mut self, flow: FlowId, data: &[u8]) -> Result<usize, SessionError> {
        self.hand_over(flow, data.len(), |send, n| send.push(&data[..n]))
    }

    /// [`write`](Self::write) of bytes the driver holds in a buffer of its own: a piece of at
    /// least [`KEEP_PIECE_MIN`](crate::flow::KEEP_PIECE_MIN) bytes joins the flow's buffer
    /// without a copy (it keeps its allocation alive until acknowledged). Takes at most
    /// [`send_capacity`](Self::send_capacity) bytes and returns how many it took.
    pub fn write_bytes(&mut self, flow: FlowId, data: Bytes) -> Result<usize, SessionError> {
        self.hand_over(flow, data.len(), |send, n| send.push_bytes(data.slice(..n)))
    }

    /// Algorithm 1, `on_wri`, for `len` bytes offered; `push` stores the `n` taken.
    fn hand_over(
        &mut self,
        flow: FlowId,
        len: usize,
        push: impl FnOnce(&mut crate::flow::SendStream, usize),
    ) -> Result<usize, SessionError> {
        let cap = usize::try_from(self.room_of(flow)?).unwrap_or(usize::MAX);
        let n = len.min(cap);
        if n < len {
            // Took less than offered: the application waits for FlowWritable.
            self.wants_room.insert(flow);
        }
        if n == 0 {
            return Ok(0);
        }
        let Some(f) = self.flows.get_mut(&flow).filter(|f| f.opened()) else {
            return Err(SessionError::UnknownFlow(flow));
        };
        push(&mut f.send, n);
        let owner = f.owner();
        self.counters.bytes_handed += n as u64;
        let never_owned = f.ownership.awaiting();
        if never_owned {
            f.awaiting_owner += n as u64;
        }
        let conn = owner.and_then(|c| self.conns.get_mut(&c));
        let orphaned = conn.is_none() && !never_owned;
        self.ledger
            .hand_over(conn.map(|c| &mut c.counters), orphaned, n as u64);
        self.lend_budget_moved();
        self.refresh(flow);
        self.check_writable(flow);
        match owner.filter(|c| self.conns.contains_key(c)) {
            Some(c) => self.wake(c),
            // Waiting for its own connection: others may still carry it under the policy.
            None if never_owned => {}
            // Nobody owes these bytes: every live connection may carry them.
            None => self.wake_all(),
        }
        Ok(n)
    }

    /// The sender learned where the flow's current transfer ends (a stream offset): from a
    /// hint, or an HTTP `Content-Length`. `None` forgets it.
    pub fn set_known_end(&mut self, flow: FlowId, end: Option<u64>) -> Result<(), SessionError> {
        let f = self
            .flows
            .get_mut(&flow)
            .filter(|f| f.opened())
            .ok_or(SessionError::UnknownFlow(flow))?;
        if f.send_state.takes_writes() {
            f.send.known_end = end;
        }
        self.refresh(flow);
        Ok(())
    }

    /// The application closed its sending direction: the flow's size is now known, and its end
    /// goes to the peer.
    pub fn finish(&mut self, flow: FlowId) -> Result<(), SessionError> {
        let f = self
            .flows
            .get_mut(&flow)
            .filter(|f| f.opened())
            .ok_or(SessionError::UnknownFlow(flow))?;
        if f.no_more_writes() {
            return Ok(());
        }
        f.send_state.on(SendEvent::Finish);
        f.send.known_end = Some(f.send.written);
        f.fin = Delivery::Queued;
        self.ctrl.push_back(flow);
        self.refresh(flow);
        self.wake_ctrl();
        Ok(())
    }

    /// Aborts the flow in both directions (the application reset its connection, or its target
    /// could not be reached): unsent bytes are dropped and the peer is told.
    pub fn reset(&mut self, now: Duration, flow: FlowId, code: u32) -> Result<(), SessionError> {
        let f = self
            .flows
            .get_mut(&flow)
            .ok_or(SessionError::UnknownFlow(flow))?;
        if f.is_reset() || f.closed() {
            return Ok(());
        }
        // A flow waiting for admission: the peer never heard of it, so it ends here (and
        // leaves the waiting queue).
        let tell_peer = !f.admission.waiting();
        f.reset.on(ResetEvent::Local {
            code: code & !RESET_CONFIRM,
            tell_peer,
        });
        self.apply_reset(now, flow);
        if !tell_peer {
            return Ok(());
        }
        self.ctrl.push_back(flow);
        self.wake_ctrl();
        Ok(())
    }

    /// Reads up to `max` bytes of the peer's direction.
    pub fn read(
        &mut self,
        now: Duration,
        flow: FlowId,
        max: usize,
    ) -> Result<ReadOutcome, SessionError> {
        let f = self
            .flows
            .get_mut(&flow)
            .filter(|f| f.opened())
            .ok_or(SessionError::UnknownFlow(flow))?;
        if let Some(code) = f.reset.code() {
            return Ok(ReadOutcome::Reset(code));
        }
        let extra_before = f.recv.outstanding().saturating_sub(self.config.flow_window);
        if let Some(data) = f.recv.read(max.max(1)) {
            let extra_after = f.recv.outstanding().saturating_sub(self.config.flow_window);
            self.recv_extra = self.recv_extra - extra_before + extra_after;
            self.counters.bytes_delivered += data.len() as u64;
            let extended = self.extend_credit(flow);
            let Some(f) = self.flows.get_mut(&flow) else {
                return Ok(ReadOutcome::Data(data));
            };
            if extended && f.ack.on(AckEvent::Queue) {
                self.ctrl.push_back(flow);
                self.wake_ctrl();
            }
            return Ok(ReadOutcome::Data(data));
        }
        if f.recv.at_end() {
            if f.recv_state == RecvState::Open {
                f.recv_state.on(RecvEvent::EndRead);
                self.maybe_close(now, flow);
            }
            return Ok(ReadOutcome::End);
        }
        Ok(ReadOutcome::Blocked)
    }

    /// The receive window flow `id` may be granted: at least its own `flow_window`, and up to
    /// the session's receive budget — [`RECEIVE_BUDGET_PER_CONNECTION`] × `flow_window` per
    /// live connection (plain TCP's pair has one receive buffer per connection, autotuned up
    /// to several MiB) — less what the other flows hold beyond
    /// their own windows. Under a size-based policy the flow served first is carried by every
    /// connection at once; a window of one connection's would hold all of them back (the
    /// receive-side half of the hand-over rule). [`extend_credit`](Self::extend_credit)
    /// grants from it only what the flow's reassembly needs. A reader that stops reading holds
    /// at most the budget, and every other flow keeps its own window: memory stays within
    /// `max_flows × flow_window` plus the budget.
    pub(crate) fn credit_window(&self, id: FlowId) -> u64 {
        let w = self.config.flow_window;
        let budget =
            w.saturating_mul(RECEIVE_BUDGET_PER_CONNECTION * self.conns.len().max(1) as u64);
        let own = self
            .flows
            .get(&id)
            .map_or(0, |f| f.recv.outstanding().saturating_sub(w));
        let others = self.recv_extra.saturating_sub(own);
        w.max(budget.saturating_sub(others))
    }

    /// Extends flow `id`'s credit within [`credit_window`](Self::credit_window), keeping the
    /// session's tally of credit granted beyond the flows' own windows. Returns whether the
    /// credit grew (an acknowledgement should carry it).
    ///
    /// The credit goes at most [`RECEIVE_AHEAD_WINDOWS`] × `flow_window` beyond the highest
    /// byte received (one window while it has received nothing): enough for the bytes in flight on every connection carrying the flow
    /// (the pair's whole bandwidth-delay product when a size-based policy serves one flow on
    /// all of them), and for bytes waiting behind a hole (a connection in loss recovery while
    /// the others carry the flow on). Granting the whole budget at once instead left it with
    /// a flow the policy then stopped serving: credit cannot be taken back, and the next flow
    /// served was held to one window (measured on `table2-buffers`, SRPT with the default
    /// buffers 1.13–1.22 × the unbounded variant's E\[T\]; pinned in `tests/credit.rs`).
    pub(crate) fn extend_credit(&mut self, id: FlowId) -> bool {
        let budget = self.credit_window(id);
        let w = self.config.flow_window;
        let Some(f) = self.flows.get_mut(&id) else {
            return false;
        };
        // At most RECEIVE_AHEAD_WINDOWS own windows beyond the highest byte received: what
        // lies above `read` is then the flow's reassembly span (bytes waiting behind a hole,
        // which the peer has already sent) plus the bytes in flight on all its connections,
        // not credit it may never use.
        // A flow that has received nothing yet (just opened, or idle) is held to one window:
        // granting the allowance at its opening left the budget with flows that never used
        // it. Earning it gradually instead (ahead = bytes received, up to the allowance) held
        // short flows back: SRPT's first flow had no byte within credit 6–11% of the time.
        let ahead = if f.recv.seen() == 0 {
            w
        } else {
            RECEIVE_AHEAD_WINDOWS.saturating_mul(w)
        };
        let window = budget.min(f.recv.seen() - f.recv.read + ahead).max(w);
        let before = f.recv.outstanding().saturating_sub(w);
        let grew = f.recv.maybe_extend_credit_to(window);
        let after = f.recv.outstanding().saturating_sub(w);
        self.recv_extra = self.recv_extra - before + after;
        grew
    }

    /// Stop opening or accepting flows; the peer is told on the next transmission.
    pub fn go_away(&mut self) {
        self.going_away = true;
        self.wake_all();
    }

    // ----- observability ------------------------------------------------------------------

    /// Session-wide counters. The memory figures (`unsent_bound`, `send_buffered_bytes`)
    /// take a pass over the flows.
    pub fn counters(&self) -> SessionCounters {
        let mut c = self.counters;
        c.orphan_bytes = self.orphan();
        c.unsent_bytes = self.ledger.unsent();
        c.recv_credit_extra = self.recv_extra;
        c.lent_bytes = self.ledger.lent();
        // One pass over the flows for the three figures that need it.
        let (mut buffered, mut ownerless, mut lost) = (0, 0u64, 0);
        for f in self.flows.values() {
            buffered += f.send.buffered();
            ownerless += u64::from(f.owner().is_none());
            lost += f.send.lost();
        }
        c.send_buffered_bytes = buffered;
        c.lost_bytes = lost;
        // A live connection's queue takes hand-overs below one send buffer, plus what the
        // session lends flows sent ahead of their connections (`LEND_PER_CONNECTION` buffers
        // per live connection, or what is still lent after connections died); a flow with no
        // live connection takes hand-overs while it holds less than one send buffer; what dead
        // connections owed (orphan debt) and what died in flight with them (lost bytes, back
        // among the unsent) come on top until others carry them.
        c.unsent_bound =
            self.unsent_bound_of_connections() + ownerless * self.config.send_buffer + c.lost_bytes;
        c
    }

    /// The invariant counters of a live connection.
    pub fn connection_counters(&self, conn: ConnId) -> Option<ConnCounters> {
        self.conns.get(&conn).map(|c| c.counters)
    }

    /// Live connections and their owners.
    pub fn connections(&self) -> impl Iterator<Item = (ConnId, Option<FlowId>)> + '_ {
        self.conns.values().map(|c| (c.id, c.owner))
    }

    /// Flows this side tracks (open, or closed and waiting for their connection).
    pub fn flow_ids(&self) -> impl Iterator<Item = FlowId> + '_ {
        self.flows.keys().copied()
    }

    /// Flows this side tracks that are not closed (an acceptor admits a new flow while fewer
    /// than `max_flows`, and while it tracks fewer than 2 × `max_flows` in all).
    pub fn open_flows(&self) -> usize {
        self.flows.len() - self.closed_flows
    }

    /// Number of flows with bytes ready to send (the schedule's size).
    pub fn ready_flows(&self) -> usize {
        self.sched.len()
    }

    /// The route of a flow, once known.
    pub fn route(&self, flow: FlowId) -> Option<&str> {
        self.flows.get(&flow).and_then(|f| f.route.as_deref())
    }

    /// Bytes handed over and not yet sent (`SessionCounters::unsent_bytes` without the pass
    /// over the flows that [`counters`](Self::counters) takes).
    pub fn unsent_bytes(&self) -> u64 {
        self.ledger.unsent()
    }

    /// The part of [`SessionCounters::unsent_bound`] that needs no pass over the flows: live
    /// connections × `send_buffer`, + the lend budget ([`LEND_PER_CONNECTION`] × live
    /// connections × `send_buffer`, or what is lent while above it), + orphan debt. Unsent
    /// bytes below it are within the bound; above it, the flows without a live connection and
    /// the lost bytes (in [`counters`](Self::counters)) decide.
    pub fn unsent_bound_of_connections(&self) -> u64 {
        let conns = self.conns.len() as u64;
        let budget = LEND_PER_CONNECTION * conns * self.config.send_buffer;
        conns * self.config.send_buffer + budget.max(self.ledger.lent()) + self.orphan()
    }

    /// Where flow `id`'s sending direction stands: bytes handed over and not sent, how many of
    /// them the receiver's credit lets go now, and how many more its application may hand over
    /// (diagnostics: what holds a flow back, send buffer or credit).
    pub fn flow_send_state(&self, id: FlowId) -> Option<FlowSendState> {
        let f = self.flows.get(&id)?;
        Some(FlowSendState {
            unsent: f.send.unsent(),
            sendable: f.send.sendable(),
            handover_room: if f.no_more_writes() {
                0
            } else {
                self.handover_room(f)
            },
        })
    }

    /// Whether flow `id` ended without its end: it was reset, by either side, or this side no
    /// longer tracks it (a flow reset by the peer may be forgotten before its driver reads the
    /// reset). A driver blocked writing the flow's delivered bytes to an application that does
    /// not read checks this on `FlowReadable`, unless it has already read the flow's end: those
    /// bytes are no longer wanted, and the application socket is aborted rather than held until
    /// the write fails.
    pub fn ended_abruptly(&self, id: FlowId) -> bool {
        self.flows.get(&id).is_none_or(|f| f.is_reset())
    }

    /// Whether the flows' state machines are consistent at rest (between two calls into the
    /// session), whatever the peer sent: each flow's halves, reset, acknowledgement and life
    /// agree, an owner is a live connection, and the closed flows are counted. The test harness
    /// ([`Pair`](crate::pair::Pair)) and the fuzz targets check it after every step.
    #[cfg(feature = "pair")]
    pub fn check_flows(&self) -> Result<(), String> {
        let mut closed = 0;
        for f in self.flows.values() {
            f.check()?;
            if let Some(c) = f.owner().filter(|c| !self.conns.contains_key(c)) {
                return Err(format!("{}: owned by {c}, which is gone", f.id));
            }
            closed += usize::from(f.closed());
        }
        if closed != self.closed_flows {
            return Err(format!(
                "{closed} flows closed, {} counted",
                self.closed_flows
            ));
        }
        let segments: usize = self.flows.values().map(|f| f.recv.segments()).sum();
        if segments != self.ooo_segments {
            return Err(format!(
                "{segments} out-of-order segments held, {} counted",
                self.ooo_segments
            ));
        }
        if segments > caps::MAX_SESSION_OOO_SEGMENTS {
            return Err(format!(
                "{segments} out-of-order segments held, bound {}",
                caps::MAX_SESSION_OOO_SEGMENTS
            ));
        }
        Ok(())
    }

    /// Flow `id`, for the test harness's checks.
    #[cfg(feature = "pair")]
    pub(crate) fn flow(&self, id: FlowId) -> Option<&Flow> {
        self.flows.get(&id).map(|f| &**f)
    }

    /// Bytes owed by no live connection.
    pub fn orphan(&self) -> u64 {
        self.ledger.orphan()
    }

    /// Whether connection `conn` is ready to send: from its [`Event::ConnReady`] until a
    /// [`poll_transmit`](Self::poll_transmit) finds nothing to send. A poll that returns 0
    /// because the next frame did not fit in its budget leaves it ready: the driver polls
    /// again, with more room, when its socket has some (driver contract, step 2). `false` for
    /// an unknown connection.
    pub fn conn_ready(&self, conn: ConnId) -> bool {
        self.conns.get(&conn).is_some_and(|c| c.polled)
    }

    /// Whether nothing is left: no flow, no connection, nothing queued.
    pub fn is_idle(&self) -> bool {
        self.flows.is_empty() && self.conns.is_empty()
    }

    // ----- internals shared by input and transmit -------------------------------------------

    /// Puts the flow in the schedule under its current key, or takes it out.
    pub(crate) fn refresh(&mut self, id: FlowId) {
        let Some(f) = self.flows.get_mut(&id) else {
            return;
        };
        let ready = !f.is_reset() && f.send.ready();
        let key = ready.then(|| sort_key(self.config.policy, &self.learned, f));
        if key == f.key {
            return;
        }
        if let Some(old) = f.key.take() {
            self.sched.remove(old, id);
        }
        if let Some(k) = key {
            self.sched.insert(k, id);
            f.key = Some(k);
            if !self.starved.is_empty() {
                for c in std::mem::take(&mut self.starved) {
                    self.wake(c);
                }
            }
        }
    }

    /// Our direction of flow `id` completed with `size` bytes: its route's learned sizes take
    /// it, and if that moved any key (a rebuilt Gittins index, a new μ-rule rank) every ready
    /// flow is keyed again — once per [`REBUILD_EVERY`](crate::policy::learned::REBUILD_EVERY)
    /// completions on a route, O(n log n) in the ready flows.
    pub(crate) fn learn_size(&mut self, id: FlowId, size: u64) {
        let Some(f) = self.flows.get(&id) else {
            return;
        };
        let policy = self.config.policy;
        if self
            .learned
            .record(f.route.as_deref(), size, policy.uses_index())
            && policy.learns()
        {
            let ready: Vec<FlowId> = self
                .flows
                .iter()
                .filter(|(_, f)| f.key.is_some())
                .map(|(&id, _)| id)
                .collect();
            for id in ready {
                self.refresh(id);
            }
        }
    }

    pub(crate) fn wake(&mut self, conn: ConnId) {
        if let Some(c) = self.conns.get_mut(&conn) {
            if !c.polled {
                c.polled = true;
                self.events.push_back(Event::ConnReady(conn));
            }
        }
    }

    pub(crate) fn wake_settled(&mut self) {
        for c in std::mem::take(&mut self.settled) {
            self.wake(c);
        }
    }

    fn wake_all(&mut self) {
        let ids: Vec<ConnId> = self.conns.keys().copied().collect();
        for c in ids {
            self.wake(c);
        }
    }

    /// Control frames wait: wake the connection input last arrived on, or any live one.
    pub(crate) fn wake_ctrl(&mut self) {
        // Never a connection both sides said Done on: it is closing.
        let open = |c: &ConnId| {
            self.conns
                .get(c)
                .is_some_and(|c| c.phase != crate::conn::Phase::Closing)
        };
        let target = self
            .last_input
            .filter(open)
            .or_else(|| self.conns.keys().copied().find(open));
        if let Some(c) = target {
            self.wake(c);
        }
    }

    /// Applies a reset, from either side, once the flow's `ResetState` says it: unsent bytes
    /// are dropped, buffers freed, both halves reset, and the virtual queues shrink so they
    /// never promise bytes that no longer exist.
    pub(crate) fn apply_reset(&mut self, now: Duration, id: FlowId) {
        self.release_for_reset(id);
        let Some(f) = self.flows.get_mut(&id) else {
            return;
        };
        let took_writes = !f.no_more_writes();
        let dropped = f.send.abandon();
        self.ooo_segments -= f.recv.segments();
        f.recv.clear();
        debug_assert!(f.is_reset(), "{id}: reset applied before it was decided");
        f.send_state.on(SendEvent::Reset);
        f.recv_state.on(RecvEvent::Reset);
        if f.fin == Delivery::Queued {
            f.fin = Delivery::Idle;
        }
        let owner = f.owner();
        let awaiting = std::mem::take(&mut f.awaiting_owner);
        self.ledger.drop_unsent(dropped, awaiting);
        self.counters.flows_reset += 1;
        self.refresh(id);
        self.forgive_owner(owner, dropped - awaiting.min(dropped));
        self.clamp_virtual_queues(owner);
        // What its connection had lent is free again.
        self.lend_budget_moved();
        self.notify_readable(id);
        if took_writes {
            // An application waiting for room learns that the flow takes no more bytes (its
            // next `send_capacity` or `write` says so): a reset must not leave it waiting.
            self.wants_room.remove(&id);
            self.events.push_back(Event::FlowWritable(id));
        }
        self.maybe_close(now, id);
    }

    /// Keeps Σ q_v ≤ bytes unsent after bytes were dropped: the owner's queue shrinks first,
    /// as plain TCP would discard the reset connection's buffer.
    pub(crate) fn clamp_virtual_queues(&mut self, first: Option<ConnId>) {
        let mut excess = self.ledger.excess();
        if excess == 0 {
            return;
        }
        let order: Vec<ConnId> = first
            .into_iter()
            .chain(self.conns.keys().copied())
            .collect();
        for id in order {
            let Some(c) = self.conns.get_mut(&id) else {
                continue;
            };
            let cut = self.ledger.forgive(&mut c.counters, excess);
            let owner = c.owner;
            excess -= cut;
            if let Some(o) = owner.filter(|_| cut > 0) {
                self.check_writable(o);
            }
            if excess == 0 {
                break;
            }
        }
        if excess > 0 {
            self.forgive_awaiting(excess);
        }
        self.ledger.settled();
        self.lend_budget_moved();
    }

    /// The rest of an excess the live queues could not absorb: the queues of flows whose first
    /// connection does not exist yet promise bytes that others carried. Those promising more
    /// than their flow has left are cut first, then any. Rare (only after a reset or a skip
    /// left an excess above Σ q_v), so a pass over the flows.
    fn forgive_awaiting(&mut self, mut excess: u64) {
        for stale_only in [true, false] {
            for f in self.flows.values_mut() {
                if excess == 0 {
                    return;
                }
                if f.awaiting_owner == 0 || !f.ownership.awaiting() {
                    continue;
                }
                let stale = f.awaiting_owner.saturating_sub(f.send.unsent());
                let cap = if stale_only { stale } else { excess };
                excess -= self
                    .ledger
                    .forgive_unowned(&mut f.awaiting_owner, excess.min(cap));
            }
        }
    }

    /// Closes the flow if both directions are over.
    pub(crate) fn maybe_close(&mut self, now: Duration, id: FlowId) {
        let Some(f) = self.flows.get_mut(&id) else {
            return;
        };
        if f.closed() || !f.send_done() || !f.recv_done() {
            return;
        }
        f.life.close();
        self.closed_flows += 1;
        self.counters.flows_closed += 1;
        let summary = FlowSummary {
            flow: id,
            route: f.route.clone(),
            opened_at: f.opened_at,
            closed_at: now,
            bytes_sent: f.send.written,
            bytes_received: f.recv.read,
            reset: f.reset.code(),
        };
        let background = f.admission.background().then(|| {
            (summary.reset.is_none()).then_some(summary.bytes_sent + summary.bytes_received)
        });
        let owner = f.owner();
        self.events.push_back(Event::FlowClosed(summary));
        // The owner connection may now be able to say Done.
        if let Some(c) = owner {
            self.wake(c);
        }
        if let Some(size) = background {
            self.background_closed(now, id, size);
        }
        self.try_retire(id);
    }

    /// Forgets a closed flow once nothing about it waits for the peer (and, on the opener,
    /// once its connection is gone, so a replacement can still finish its business).
    pub(crate) fn try_retire(&mut self, id: FlowId) {
        let Some(f) = self.flows.get(&id) else { return };
        let waiting = |d: Delivery| matches!(d, Delivery::Queued | Delivery::SentOn(_));
        if !f.closed() {
            return;
        }
        // An acceptor flow whose opening has not arrived has acknowledged nothing (see
        // `on_fin`): forgotten now, the opening would find it retired, the reply could not
        // acknowledge the end it never acknowledged, and the opener would wait for that for
        // good (found by `session_input`). It waits for its opening, or for the expiry of
        // flows named but never opened. A reset flow needs no acknowledgement: its reset
        // answers everything.
        if self.role == Role::Acceptor && !f.opened() && !f.is_reset() {
            return;
        }
        // While a connection lives, what the peer still needs from us goes first. With none
        // left, the peer asks again (re-sending on a new connection) if it must, and frames
        // about a forgotten flow are answered from the frames themselves.
        let pending =
            f.ack.queued() || waiting(f.fin) || waiting(f.reset.frame()) || waiting(f.open);
        if pending && (!self.conns.is_empty() || liveness::own_reset_unconfirmed(self.role, f)) {
            return;
        }
        // The opener keeps a flow until the flow's connection closed cleanly (both sides said
        // Done), or it never had one, or it lost it and the reset is settled with the peer.
        if self.role == Role::Opener
            && !(matches!(
                f.ownership,
                Ownership::ClosedClean | Ownership::Awaiting { .. }
            ) || liveness::reset_settled_without_owner(f))
        {
            return;
        }
        if let Some(k) = f.key {
            self.sched.remove(k, id);
        }
        if self.role == Role::Acceptor {
            self.owe_final_ack(id);
        }
        self.wants_room.remove(&id);
        // Its entries in the control queue go with it: `write_control` would skip them, but
        // only a poll with room drains them, and flows created and forgotten while none came
        // (every connection closed, or polled short) left one dead entry each, a queue growing
        // with the frames received (found by `session_bounds`, fuzz/findings/session_bounds/
        // control_backlog_over_bound). The queue holds entries of tracked flows only, so this
        // costs O(its entries) per flow forgotten.
        self.ctrl.retain(|&f| f != id);
        room::give_back(&mut self.ctrl);
        if let Some(f) = self.flows.remove(&id) {
            if f.closed() {
                self.closed_flows -= 1;
            }
            self.ooo_segments -= f.recv.segments();
            // Its own connection may now say `Done` (`maybe_done` waits for the flow to be
            // forgotten), and that connection's poll may not be the one that forgot it: the
            // confirmation that did may have gone on another (`write_control`).
            if let Some(c) = f.owner() {
                self.wake(c);
            }
            // Bytes it handed over before a connection of its own existed, carried by others.
            self.ledger.release_unowned(f.awaiting_owner);
            if self.role == Role::Acceptor {
                self.first_frames.gone(&f);
            }
            let extra = f.recv.outstanding().saturating_sub(self.config.flow_window);
            self.recv_extra -= extra.min(self.recv_extra);
        }
        self.counters.active_flows = self.flows.len() as u64;
        if self.role == Role::Acceptor {
            self.record_retired(id);
        }
    }

    /// (Acceptor) Flow `id`, about to be forgotten, gets its last acknowledgement sent again on
    /// its own connection before that connection's `Done`, if it went on another one
    /// ([`Conn::final_ack`](crate::conn::Conn)). That other connection may have been dead at
    /// the opener already (it died there first and the acknowledgement was written into its
    /// remains here): nothing would then send it again, the flow being forgotten, while the
    /// opener keeps the flow until its own connection closes cleanly and this side's `Done`
    /// there would leave it waiting for good (found by `session_input`, fuzz/findings/
    /// session_input/not_settled_opener_not_idle_2). On the flow's own connection the
    /// acknowledgement precedes the `Done`, so a clean close proves the opener has it, and a
    /// loss of that connection is one the opener sees (it sends its end again).
    fn owe_final_ack(&mut self, id: FlowId) {
        let Some(f) = self.flows.get(&id) else { return };
        let (Some(own), Some(on)) = (f.owner(), f.ack.last_on()) else {
            return;
        };
        if on == own {
            return;
        }
        let ack = transmit::ack_of(id, f);
        if let Some(c) = self.conns.get_mut(&own) {
            if !c.phase.done_sent() {
                c.final_ack = Some(ack);
            }
        }
    }

    pub(crate) fn is_retired(&self, id: FlowId) -> bool {
        match self.role {
            Role::Acceptor => id.0 < self.retired_below || self.retired_above.contains(&id.0),
            Role::Opener => id.0 < self.next_flow && !self.flows.contains_key(&id),
        }
    }

    /// (Acceptor) The flow a frame names, created on first sight: frames may arrive before the
    /// frame that opens their flow. Ids above [`MAX_FLOW_ID`] are a violation.
    ///
    /// `for_connection`: created for the connection being added with `id` as its owner.
    pub(crate) fn acceptor_flow(
        &mut self,
        id: FlowId,
        for_connection: bool,
    ) -> Result<(), ProtocolError> {
        if self.flows.contains_key(&id) {
            return Ok(());
        }
        if id.0 > MAX_FLOW_ID {
            return Err(ProtocolError::ImpossibleFlow(id));
        }
        let fresh =
            self.highest_seen == 0 && self.retired_below == 1 && self.retired_above.is_empty();
        // A fresh session of a client that had flows before (the server forgot an idle
        // session, or restarted): its ids start near wherever it is. Flows opened concurrently
        // are at most `max_flows` apart, so none of them is taken for an old one.
        let base = if fresh {
            id.0.saturating_sub(self.config.max_flows as u64).max(1)
        } else {
            self.retired_below
        };
        // No horizon above the ids seen here (there was one: the highest id seen + 2 ×
        // `max_flows`, on the premise that an opener's ids run at most that far ahead of what
        // reaches this side). An honest opener spends ids on flows that never reach this side,
        // as many as its application opens and resets before any frame of theirs goes out (no
        // connection yet, or all lost) or as wait for admission and are given up: its next flow
        // may be any distance above the highest id seen, and with the horizon every connection
        // for it was refused (`ImpossibleFlow`) until the session expired (found by
        // `session_input`, fuzz/findings/session_input/still_talking_flow_ids_beyond_horizon:
        // 32 flows opened, 26 of them reset unseen, the acceptor refusing ids 26–32 beyond
        // 7 + 2 × 6). Nothing is bounded by it: flows by `max_flows` (below), flows named but
        // not opened by `MAX_UNOPENED_FLOWS`, retired ids remembered one by one by
        // `MAX_RETIRED_ABOVE`; an id above `MAX_FLOW_ID` is refused (above).
        // Flows the opener may still use count against `max_flows`; closed ones (both
        // directions over, or reset) have their own allowance of as many. A closed flow can
        // linger here after the opener forgot it (this side's reset crossed the opener's and
        // waits for its confirmation, which only a later round trip brings): counted with the
        // others, it made an honest opener's next flow a protocol error that closed every
        // connection carrying the flow's frames, the confirmation with it, until the session
        // expired (found by `session_input`, fuzz/findings/session_input/timeout_over_20s).
        // A closed flow holds no bytes, only its bookkeeping.
        let max = self.config.max_flows;
        if self.open_flows() >= max || self.flows.len() >= 2 * max {
            return Err(ProtocolError::TooManyFlows(max));
        }
        if self.unclaimed_unopened() >= caps::MAX_UNOPENED_FLOWS {
            return Err(ProtocolError::TooManyUnopened(caps::MAX_UNOPENED_FLOWS));
        }
        // Only an accepted id may anchor the session.
        self.retired_below = base;
        self.highest_seen = self.highest_seen.max(id.0);
        self.arrivals += 1;
        // Opened at the arrival of its opening frame (`on_open`): `now` is not known here.
        let mut flow = Flow::new(id, self.arrivals, Duration::ZERO, self.config.flow_window);
        // A live connection the opener already named as this flow's owner. (Created for the
        // connection being added, the flow is that connection's: `add_connection` says so, and
        // the pass over the connections would cost O(connections) per flow.)
        if !for_connection {
            if let Some(c) = self.conns.values().find(|c| c.owner == Some(id)) {
                flow.ownership.on(OwnershipEvent::Attach(c.id));
            }
        }
        self.flows.insert(id, Box::new(flow));
        self.first_frames.created();
        self.counters.active_flows = self.flows.len() as u64;
        Ok(())
    }

    pub(crate) fn push_stale(&mut self, frame: Frame) {
        if self.stale.len() >= MAX_STALE_REPLIES {
            self.stale.pop_front();
        }
        self.stale.push_back(frame);
        self.wake_ctrl();
    }
}

/// Connection `conn` (its `counters`) becomes `flow`'s own: what the flow handed over before
/// its connection existed is this connection's, and a replacement takes over what its flow
/// still has to send, as a new TCP connection for the flow would (that debt was orphaned when
/// the old one died). The one place for both ways a connection gets its flow: established for
/// it (`add_connection`) or claimed by its opening (`on_open`).
pub(crate) fn take_ownership(
    ledger: &mut Ledger,
    flow: &mut Flow,
    conn: ConnId,
    counters: &mut ConnCounters,
) {
    let replacement = flow.ownership.on(OwnershipEvent::Attach(conn));
    let waiting = std::mem::take(&mut flow.awaiting_owner);
    let inherited = if replacement { flow.send.unsent() } else { 0 };
    ledger.attach(counters, waiting, inherited);
}

/// Flow `f`'s key in the schedule under `policy` (with what the session learned of its route,
/// for the policies that look).
fn sort_key(policy: Policy, learned: &LearnedSizes, f: &Flow) -> crate::policy::SortKey {
    if policy.learns() {
        policy.key_on(&f.state(), &learned.view(f.route.as_deref()))
    } else {
        policy.key(&f.state())
    }
}
