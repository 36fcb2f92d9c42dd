//! The `tcp` driver: every flow on its own connection, carrying only its own bytes.

use super::{Arrivals, Driver, FlowDriver};
use crate::packet::{ConnId, NodeId, PayloadTag};
use crate::tcp::Segment;
use crate::time::Time;
use crate::workload::FlowSource;
use crate::world::World;
use serde::Serialize;

/// What happened to one flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Hash)]
pub struct FlowRecord {
    /// Flow index (arrival order).
    pub id: u64,
    /// Source index.
    pub source: u32,
    /// Size in bytes.
    pub size: u64,
    /// Arrival time.
    pub arrival: Time,
    /// Serial of the connection carrying it.
    pub conn: u32,
    /// Time the sender learned the whole flow was received (its last byte acknowledged),
    /// if it did.
    pub finished: Option<Time>,
    /// Time the destination application had every byte of the flow (for `schedtcp`: read
    /// the flow's end), if it did.
    pub delivered: Option<Time>,
}

impl FlowRecord {
    /// Completion time at the sender (last ACK − arrival), if completed.
    pub fn completion(&self) -> Option<Time> {
        self.finished.map(|f| f - self.arrival)
    }

    /// Transfer time seen by the destination (everything delivered − arrival), if
    /// delivered. This is the transfer time the experiments compare across drivers.
    pub fn transfer(&self) -> Option<Time> {
        self.delivered.map(|d| d - self.arrival)
    }
}

/// One connection per flow: a flow's arrival opens a connection from its source's sender to
/// its receiver and writes the flow into the send buffer (as much as fits, the rest as room
/// appears); the flow completes, and the connection closes, when its last byte is ACKed.
/// Each segment's payload tag is the flow id.
pub struct TcpDriver<S> {
    arrivals: Arrivals<S>,
    endpoints: Vec<(NodeId, NodeId)>,
    flows: Vec<FlowRecord>,
    /// Bytes of each flow delivered in order to the destination application.
    delivered: Vec<u64>,
    /// Flows whose source index had no endpoint (skipped).
    pub skipped: u64,
}

impl<S: FlowSource> TcpDriver<S> {
    /// Flows from `source`; source index `i` runs from `endpoints[i].0` to `endpoints[i].1`.
    pub fn new(source: S, endpoints: Vec<(NodeId, NodeId)>) -> Self {
        TcpDriver {
            arrivals: Arrivals::new(source),
            endpoints,
            flows: Vec::new(),
            delivered: Vec::new(),
            skipped: 0,
        }
    }

    /// Records of every flow that has arrived.
    pub fn flows(&self) -> &[FlowRecord] {
        &self.flows
    }

    /// Takes the flow records out.
    pub fn take_flows(&mut self) -> Vec<FlowRecord> {
        std::mem::take(&mut self.flows)
    }

    fn fill(&mut self, w: &mut World, conn: ConnId, flow: usize) {
        let f = &self.flows[flow];
        let written = w.sender(conn).map_or(f.size, |s| s.written());
        if written < f.size {
            w.write(conn, f.size - written);
        }
    }
}

impl<S: FlowSource> Driver for TcpDriver<S> {
    fn on_start(&mut self, w: &mut World) {
        self.arrivals.start(w);
    }

    fn on_timer(&mut self, w: &mut World, token: u64) {
        let Some((_, f)) = self.arrivals.on_timer(w, token) else {
            return;
        };
        match self.endpoints.get(f.source as usize) {
            Some(&(src, dst)) => {
                let id = self.flows.len() as u64;
                let conn = w.open(src, dst, id);
                self.flows.push(FlowRecord {
                    id,
                    source: f.source,
                    size: f.size,
                    arrival: f.arrival,
                    conn: conn.serial,
                    finished: None,
                    delivered: None,
                });
                self.delivered.push(0);
                self.fill(w, conn, id as usize);
            }
            None => self.skipped += 1,
        }
    }

    #[inline]
    fn on_segment_sent(&mut self, w: &World, conn: ConnId, _seg: &Segment) -> PayloadTag {
        w.user(conn).unwrap_or(u64::MAX)
    }

    fn on_send_ready(&mut self, w: &mut World, conn: ConnId) {
        if let Some(flow) = w.user(conn) {
            self.fill(w, conn, flow as usize);
        }
    }

    fn on_acked(&mut self, w: &mut World, conn: ConnId, snd_una: u64, _newly: u64) {
        let Some(flow) = w.user(conn) else { return };
        let f = &mut self.flows[flow as usize];
        if snd_una >= f.size {
            f.finished = Some(w.now());
            w.close(conn);
        }
    }

    fn on_delivered(&mut self, w: &mut World, conn: ConnId, _from: u64, to: u64) {
        let Some(flow) = w.user(conn) else { return };
        let f = &mut self.flows[flow as usize];
        self.delivered[flow as usize] = to.min(f.size);
        if to >= f.size && f.delivered.is_none() {
            f.delivered = Some(w.now());
        }
    }
}

impl<S: FlowSource> FlowDriver for TcpDriver<S> {
    fn flow_records(&self) -> &[FlowRecord] {
        &self.flows
    }

    fn take_flow_records(&mut self) -> Vec<FlowRecord> {
        self.take_flows()
    }

    fn delivered_bytes(&self, flow: u64) -> u64 {
        self.delivered.get(flow as usize).copied().unwrap_or(0)
    }
}
