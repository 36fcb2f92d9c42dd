//! The `tcp` driver: every flow on its own connection, carrying only its own bytes.

use super::{Arrivals, Driver, FlowDriver};
use crate::packet::{ConnId, NodeId, PayloadTag};
use crate::tcp::{CongestionControl, Segment};
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
    /// Per source index, a congestion control (and LEDBAT target) other than the world's:
    /// background transfers over LEDBAT or TCP-LP beside TCP flows, on the sources given.
    source_cc: Vec<Option<(CongestionControl, Time)>>,
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
            source_cc: Vec::new(),
        }
    }

    /// Flows of source index `source` open with congestion control `cc` (and LEDBAT target
    /// `ledbat_target`, used only by [`CongestionControl::Ledbat`]) instead of the world's.
    /// Flows arrived before the call keep theirs.
    pub fn set_source_cc(&mut self, source: u32, cc: CongestionControl, ledbat_target: Time) {
        let i = source as usize;
        if self.source_cc.len() <= i {
            self.source_cc.resize(i + 1, None);
        }
        self.source_cc[i] = Some((cc, ledbat_target));
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
                let conn = match self.source_cc.get(f.source as usize) {
                    Some(&Some((cc, target))) => w.open_with(src, dst, id, cc, target),
                    _ => w.open(src, dst, id),
                };
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

#[cfg(test)]
mod tests {
    use crate::scenario::Scenario;
    use crate::tcp::CongestionControl;
    use crate::time::{millis, secs};
    use crate::topology::Ns3Setting;
    use crate::workload::{ListedFlow, WorkloadConfig};

    /// The bottleneck's mean queue (packets) over 20 s of one long flow on source 1, that
    /// source's flows over `cc` (LEDBAT target 5 ms) or, with `None`, the world's NewReno.
    fn mean_queue(cc: Option<CongestionControl>) -> f64 {
        let mut sc = Scenario::ns3(Ns3Setting::S1p, 0.5, 1.0, false);
        sc.topology.pairs = 2;
        // Access links faster than the bottleneck, so that the queue forms there.
        sc.topology.access_rate_bps = 100_000_000;
        sc.drain_s = 19.0;
        sc.workload = WorkloadConfig::List {
            flows: vec![ListedFlow {
                arrival_s: 0.0,
                size_bytes: 1 << 40,
                source: 1,
            }],
        };
        let (mut s, fwd, _) = sc.build_tcp().expect("a valid scenario");
        if let Some(cc) = cc {
            s.driver.set_source_cc(1, cc, millis(5.0));
        }
        s.run_until(secs(20.0));
        s.world.net.links[fwd as usize].stats.queue_area as f64 / 1e9 / 20.0
    }

    #[test]
    fn flows_of_a_source_given_its_own_congestion_control_open_with_it() {
        // NewReno fills the queue to its 30-segment window (the path holds about 10
        // packets); LEDBAT holds it near its 5 ms target (about 4 packets at 10 Mbit/s).
        let reno = mean_queue(None);
        let ledbat = mean_queue(Some(CongestionControl::Ledbat));
        assert!(reno > 15.0, "NewReno: {reno}");
        assert!(ledbat < 8.0, "LEDBAT: {ledbat}");
    }
}
