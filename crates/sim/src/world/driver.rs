//! What the world calls a driver with: the payload side of the simulation.

use super::World;
use crate::packet::{ConnId, Packet, PayloadTag};
use crate::tcp::Segment;

/// The payload side of the simulation. Every hook but `on_segment_sent` and `on_timer` has
/// a no-op default.
pub trait Driver {
    /// Called once before the first event: schedule the first arrivals here.
    fn on_start(&mut self, w: &mut World);

    /// A timer scheduled with [`World::schedule`] fired.
    fn on_timer(&mut self, w: &mut World, token: u64);

    /// Segment `seg` of connection `conn` leaves its sender at `w.now()`: first
    /// transmission (`seg.retx == false`) or retransmission. Bind payload to it and return
    /// the tag the packet will carry. Must not change the world (it is borrowed shared):
    /// record what you need and act in a later hook.
    fn on_segment_sent(&mut self, w: &World, conn: ConnId, seg: &Segment) -> PayloadTag;

    /// Connection `conn` just ran its output (and after [`World::open`] with handshake off):
    /// its send buffer may have room. Writing here makes the connection send again.
    fn on_send_ready(&mut self, w: &mut World, conn: ConnId) {
        let _ = (w, conn);
    }

    /// The three-way handshake of `conn` completed (only with `tcp.handshake = true`).
    fn on_established(&mut self, w: &mut World, conn: ConnId) {
        let _ = (w, conn);
    }

    /// A cumulative ACK advanced `conn`'s `snd_una` to `snd_una` (`newly` bytes). Closing
    /// the connection here is allowed.
    fn on_acked(&mut self, w: &mut World, conn: ConnId, snd_una: u64, newly: u64) {
        let _ = (w, conn, snd_una, newly);
    }

    /// A data packet of `conn` reached the receiver (in order or not, duplicates included).
    /// `pkt.tag` is what [`Driver::on_segment_sent`] returned for this transmission.
    fn on_segment_received(&mut self, w: &mut World, conn: ConnId, pkt: &Packet) {
        let _ = (w, conn, pkt);
    }

    /// In-order bytes `[from, to)` of `conn` were delivered to the receiving application.
    fn on_delivered(&mut self, w: &mut World, conn: ConnId, from: u64, to: u64) {
        let _ = (w, conn, from, to);
    }
}
