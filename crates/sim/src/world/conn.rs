//! The connection table entry and the per-connection records.

use crate::packet::{ConnId, NodeId};
use crate::tcp::{Receiver, Sender};
use crate::time::Time;
use serde::Serialize;

/// One data segment leaving a sender: the unit of the Proposition-1 comparison
/// (`V(t)` = sum of `len` over injections up to `t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Hash)]
pub struct Injection {
    /// When it left the sending host.
    pub time: Time,
    /// Connection serial.
    pub conn: u32,
    /// Sequence number of its first byte.
    pub seq: u64,
    /// Payload bytes.
    pub len: u32,
    /// Retransmission.
    pub retx: bool,
}

/// What a connection did, recorded when it closes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Hash)]
pub struct ConnRecord {
    /// Connection serial.
    pub conn: u32,
    /// Driver's user value.
    pub user: u64,
    /// Sending host.
    pub src: NodeId,
    /// Receiving host.
    pub dst: NodeId,
    /// Opening time.
    pub opened: Time,
    /// Closing time.
    pub closed: Time,
    /// Bytes the driver wrote.
    pub written: u64,
    /// Bytes acknowledged.
    pub acked: u64,
    /// Payload bytes injected (retransmissions included).
    pub injected_bytes: u64,
    /// Data packets injected (retransmissions included).
    pub injected_packets: u64,
    /// Segments retransmitted.
    pub retransmits: u64,
    /// Retransmission timeouts (the SYN's included).
    pub timeouts: u64,
    /// SYN transmissions (0 without a handshake).
    pub syns: u32,
    /// Fast retransmits.
    pub fast_retransmits: u64,
    /// Window reductions on an ECN echo (RFC 3168).
    pub ecn_reductions: u64,
}

pub(super) struct Conn {
    pub id: ConnId,
    pub alive: bool,
    pub src: NodeId,
    pub dst: NodeId,
    pub user: u64,
    pub opened: Time,
    pub sender: Sender,
    pub receiver: Receiver,
    pub pending: bool,
    pub rto_gen: u32,
    pub rto_at: Option<Time>,
    pub delack_gen: u32,
    pub delack_armed: bool,
    pub pkt_no: u32,
    pub injected_bytes: u64,
    pub injected_packets: u64,
    /// Receiver side: one-way delay of the last data packet received (echoed in ACKs).
    pub last_owd: Time,
    /// Receiver side: a CE-marked data packet arrived since the last ACK (ECN echo owed).
    pub ce_pending: bool,
}

impl Conn {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        serial: u32,
        slot: u32,
        src: NodeId,
        dst: NodeId,
        user: u64,
        sender: Sender,
        delack: bool,
        now: Time,
    ) -> Self {
        Conn {
            id: ConnId { slot, serial },
            alive: true,
            src,
            dst,
            user,
            opened: now,
            sender,
            receiver: Receiver::new(delack),
            pending: false,
            rto_gen: 0,
            rto_at: None,
            delack_gen: 0,
            delack_armed: false,
            pkt_no: 0,
            injected_bytes: 0,
            injected_packets: 0,
            last_owd: 0,
            ce_pending: false,
        }
    }

    /// Re-initialises a closed slot for a new connection, keeping the timer generations
    /// (so events of the previous occupant stay stale) and the receiver's capacity.
    #[allow(clippy::too_many_arguments)]
    pub fn reuse(
        &mut self,
        serial: u32,
        src: NodeId,
        dst: NodeId,
        user: u64,
        sender: Sender,
        delack: bool,
        now: Time,
    ) {
        self.id.serial = serial;
        self.alive = true;
        self.src = src;
        self.dst = dst;
        self.user = user;
        self.opened = now;
        self.sender = sender;
        self.receiver.reset(delack);
        self.pending = false;
        self.rto_gen = self.rto_gen.wrapping_add(1);
        self.rto_at = None;
        self.delack_gen = self.delack_gen.wrapping_add(1);
        self.delack_armed = false;
        self.pkt_no = 0;
        self.injected_bytes = 0;
        self.injected_packets = 0;
        self.last_owd = 0;
        self.ce_pending = false;
    }

    pub fn record(&self, now: Time) -> ConnRecord {
        ConnRecord {
            conn: self.id.serial,
            user: self.user,
            src: self.src,
            dst: self.dst,
            opened: self.opened,
            closed: now,
            written: self.sender.written(),
            acked: self.sender.snd_una(),
            injected_bytes: self.injected_bytes,
            injected_packets: self.injected_packets,
            retransmits: self.sender.retransmits(),
            timeouts: self.sender.timeouts(),
            syns: self.sender.syns_sent(),
            fast_retransmits: self.sender.fast_retransmits(),
            ecn_reductions: self.sender.ecn_reductions(),
        }
    }
}
