//! The `mux` driver: the alternatives to gtcp that multiplex flows over long-lived
//! connections, as HTTP/2 or yamux do.
//!
//! Each source keeps, per *lane*, one TCP connection, opened by the lane's first flow and
//! never closed. A flow is cut into frames of at most [`MuxConfig::frame_bytes`] payload
//! bytes plus [`MuxConfig::frame_header_bytes`] of framing (HTTP/2's DATA frame header is
//! 9 bytes, yamux's 12), and the lane writes the frames of its flows round robin, one frame
//! per flow per turn, whenever the connection's send buffer has room (as a multiplexer
//! writes while its socket is writable) — or, with [`MuxConfig::notsent_lowat`], only
//! while fewer bytes than that wait unsent (`TCP_NOTSENT_LOWAT`). Once written a frame
//! keeps its place in the byte stream: a flow that arrives behind a full send buffer waits
//! for it to drain, whatever its size.
//!
//! With [`MuxConfig::bulk_above_bytes`] unset a source has one lane: every flow of the pair
//! on a single multiplexed connection. Set, flows larger than it go to a second lane
//! (*static lanes*: interactive and bulk traffic on connections of their own, each
//! multiplexed), the classification an application makes when it knows a transfer is
//! bulk. Flows of the scenario's `gtcp.plain_sources` bypass the multiplexer as they bypass
//! the scheduler, one plain connection per flow as under `tcp` (a competitor sharing the
//! path, [`crate::competitor`]).
//!
//! Unlike `tcp` and gtcp, the pair's connection count does not follow its flows: the
//! multiplexed connection is *one* TCP sender against the competitor's one, whatever the
//! number of flows it carries, and a lane that has been idle sends again with the window it
//! had (the simulated TCP has no restart after idle).

use super::{Arrivals, Driver, FlowDriver, FlowRecord};
use crate::packet::{ConnId, NodeId, PayloadTag};
use crate::tcp::Segment;
use crate::workload::FlowSource;
use crate::world::World;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, VecDeque};

/// Parameters of the `mux` driver (`[mux]` in a scenario file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MuxConfig {
    /// Largest payload of one frame, bytes (HTTP/2's default `SETTINGS_MAX_FRAME_SIZE`,
    /// 16 384).
    pub frame_bytes: u64,
    /// Framing bytes per frame, written into the stream with it (HTTP/2: 9).
    pub frame_header_bytes: u64,
    /// Flows larger than this go to the source's bulk lane (none: one lane per source).
    pub bulk_above_bytes: Option<u64>,
    /// Write only while fewer bytes than this wait unsent in the connection (none: write
    /// while the send buffer has room).
    pub notsent_lowat: Option<u64>,
}

impl Default for MuxConfig {
    fn default() -> Self {
        MuxConfig {
            frame_bytes: 16_384,
            frame_header_bytes: 9,
            bulk_above_bytes: None,
            notsent_lowat: None,
        }
    }
}

impl MuxConfig {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), String> {
        if self.frame_bytes == 0 {
            return Err("mux.frame_bytes must be positive".into());
        }
        if self.notsent_lowat == Some(0) {
            return Err("mux.notsent_lowat must be positive".into());
        }
        if self.bulk_above_bytes == Some(0) {
            return Err("mux.bulk_above_bytes must be positive (leave it out for one lane)".into());
        }
        Ok(())
    }
}

/// A frame's bytes in its lane's stream: `[start, end)`, of which the last `payload` are
/// flow `flow`'s.
#[derive(Debug, Clone, Copy)]
struct Frame {
    end: u64,
    payload: u64,
    flow: usize,
}

/// One connection and the flows multiplexed on it.
#[derive(Debug)]
struct Lane {
    conn: ConnId,
    /// Flows with bytes not yet written, in round-robin order.
    turn: VecDeque<usize>,
    /// Frames written and not yet delivered to the destination, in stream order.
    frames: VecDeque<Frame>,
    /// Flows whose last frame is written and not yet acknowledged: (its end, flow).
    last: VecDeque<(u64, usize)>,
    /// Bytes written into the stream.
    written: u64,
    /// A plain lane: one flow, closed when it completes.
    plain: bool,
}

/// Flows multiplexed per source and lane over long-lived connections (see the module
/// documentation).
pub struct MuxDriver<S> {
    arrivals: Arrivals<S>,
    endpoints: Vec<(NodeId, NodeId)>,
    cfg: MuxConfig,
    /// Sources whose flows take a plain connection each.
    plain_sources: Vec<u32>,
    flows: Vec<FlowRecord>,
    /// Bytes of each flow written into its lane.
    written: Vec<u64>,
    /// Bytes of each flow delivered to the destination application.
    delivered: Vec<u64>,
    lanes: Vec<Lane>,
    /// (source, bulk) → its lane.
    open_lanes: HashMap<(u32, bool), usize>,
    /// Flows whose source index had no endpoint (skipped).
    pub skipped: u64,
}

impl<S: FlowSource> MuxDriver<S> {
    /// Flows from `source`; source `i` runs from `endpoints[i].0` to `endpoints[i].1`; the
    /// flows of `plain_sources` take a plain connection each.
    pub fn new(
        source: S,
        endpoints: Vec<(NodeId, NodeId)>,
        cfg: MuxConfig,
        plain_sources: Vec<u32>,
    ) -> Self {
        MuxDriver {
            arrivals: Arrivals::new(source),
            endpoints,
            cfg,
            plain_sources,
            flows: Vec::new(),
            written: Vec::new(),
            delivered: Vec::new(),
            lanes: Vec::new(),
            open_lanes: HashMap::new(),
            skipped: 0,
        }
    }

    /// The lane a flow of `size` bytes from `source` goes to, opened if needed.
    fn lane_for(&mut self, w: &mut World, source: u32, size: u64) -> Option<usize> {
        let (src, dst) = *self.endpoints.get(source as usize)?;
        let plain = self.plain_sources.contains(&source);
        let bulk = self.cfg.bulk_above_bytes.is_some_and(|t| size > t);
        if !plain {
            if let Some(&l) = self.open_lanes.get(&(source, bulk)) {
                return Some(l);
            }
        }
        let l = self.lanes.len();
        let conn = w.open(src, dst, l as u64);
        self.lanes.push(Lane {
            conn,
            turn: VecDeque::new(),
            frames: VecDeque::new(),
            last: VecDeque::new(),
            written: 0,
            plain,
        });
        if !plain {
            self.open_lanes.insert((source, bulk), l);
        }
        Some(l)
    }

    /// Writes frames of lane `l`'s flows, round robin, while the connection takes them.
    fn fill(&mut self, w: &mut World, l: usize) {
        let lane = &mut self.lanes[l];
        let header = if lane.plain {
            0
        } else {
            self.cfg.frame_header_bytes
        };
        while let Some(&flow) = lane.turn.front() {
            if self
                .cfg
                .notsent_lowat
                .is_some_and(|lowat| !lane.plain && w.notsent(lane.conn) >= lowat)
            {
                return;
            }
            let room = w.send_buffer_space(lane.conn);
            if room <= header {
                return;
            }
            let left = self.flows[flow].size - self.written[flow];
            let cap = if lane.plain {
                left
            } else {
                self.cfg.frame_bytes
            };
            let payload = left.min(cap).min(room - header);
            let took = w.write(lane.conn, header + payload);
            debug_assert_eq!(took, header + payload, "the send buffer had room");
            lane.written += took;
            self.written[flow] += payload;
            lane.frames.push_back(Frame {
                end: lane.written,
                payload,
                flow,
            });
            lane.turn.pop_front();
            if self.written[flow] < self.flows[flow].size {
                lane.turn.push_back(flow);
            } else {
                lane.last.push_back((lane.written, flow));
            }
        }
    }
}

impl<S: FlowSource> Driver for MuxDriver<S> {
    fn on_start(&mut self, w: &mut World) {
        self.arrivals.start(w);
    }

    fn on_timer(&mut self, w: &mut World, token: u64) {
        let Some((_, f)) = self.arrivals.on_timer(w, token) else {
            return;
        };
        let Some(l) = self.lane_for(w, f.source, f.size) else {
            self.skipped += 1;
            return;
        };
        let id = self.flows.len();
        self.flows.push(FlowRecord {
            id: id as u64,
            source: f.source,
            size: f.size,
            arrival: f.arrival,
            conn: self.lanes[l].conn.serial,
            finished: None,
            delivered: None,
        });
        self.written.push(0);
        self.delivered.push(0);
        self.lanes[l].turn.push_back(id);
        self.fill(w, l);
    }

    #[inline]
    fn on_segment_sent(&mut self, w: &World, conn: ConnId, _seg: &Segment) -> PayloadTag {
        w.user(conn).unwrap_or(u64::MAX)
    }

    fn on_send_ready(&mut self, w: &mut World, conn: ConnId) {
        if let Some(l) = w.user(conn) {
            self.fill(w, l as usize);
        }
    }

    fn on_acked(&mut self, w: &mut World, conn: ConnId, snd_una: u64, _newly: u64) {
        let Some(l) = w.user(conn) else { return };
        let lane = &mut self.lanes[l as usize];
        while let Some(&(end, flow)) = lane.last.front() {
            if end > snd_una {
                break;
            }
            lane.last.pop_front();
            self.flows[flow].finished = Some(w.now());
        }
        if lane.plain && lane.turn.is_empty() && lane.last.is_empty() && lane.written > 0 {
            w.close(conn);
        }
    }

    fn on_delivered(&mut self, w: &mut World, conn: ConnId, from: u64, to: u64) {
        let Some(l) = w.user(conn) else { return };
        let lane = &mut self.lanes[l as usize];
        let mut at = from;
        while let Some(fr) = lane.frames.front_mut() {
            let start = fr.end - fr.payload;
            let upto = fr.end.min(to);
            if upto > at.max(start) {
                self.delivered[fr.flow] += upto - at.max(start);
            }
            at = at.max(upto);
            if fr.end > to {
                break;
            }
            let flow = fr.flow;
            lane.frames.pop_front();
            let f = &mut self.flows[flow];
            if self.delivered[flow] >= f.size && f.delivered.is_none() {
                f.delivered = Some(w.now());
            }
        }
    }
}

impl<S: FlowSource> FlowDriver for MuxDriver<S> {
    fn flow_records(&self) -> &[FlowRecord] {
        &self.flows
    }

    fn take_flow_records(&mut self) -> Vec<FlowRecord> {
        std::mem::take(&mut self.flows)
    }

    fn delivered_bytes(&self, flow: u64) -> u64 {
        self.delivered.get(flow as usize).copied().unwrap_or(0)
    }
}
