//! Packet movement: hosts inject, links queue, serialise and propagate, routers forward.

use super::World;
use crate::driver::Driver;
use crate::engine::Event;
use crate::packet::{LinkId, Packet, PacketId};

impl World {
    /// Puts a new packet on the wire at its source host.
    pub(super) fn inject(&mut self, p: Packet) {
        match self.net.next_link(p.src, p.dst) {
            Some(l) => {
                let id = self.pkts.alloc(p);
                self.enqueue(l, id);
            }
            None => self.stats.unroutable += 1,
        }
    }

    /// Offers packet `id` to link `l`, starting transmission if the link is idle.
    #[inline]
    fn enqueue(&mut self, l: LinkId, id: PacketId) {
        let now = self.now;
        let link = &mut self.net.links[l as usize];
        if let Some(k) = link.ecn_mark_packets {
            let p = self.pkts.get_mut(id);
            if p.kind == crate::packet::PacketKind::Data && link.queue.len_packets() >= k as usize {
                p.ce = true;
                link.stats.ecn_marks += 1;
            }
        }
        link.queue
            .enqueue(id, self.pkts.get(id), now, &mut self.drop_buf);
        for d in self.drop_buf.drain(..) {
            let p = self.pkts.get(d);
            link.count_drop(p);
            if let Some(log) = &mut self.drop_log {
                if p.kind == crate::packet::PacketKind::Data {
                    log.push((p.conn.serial, p.tag));
                }
            }
            self.pkts.free(d);
        }
        let qlen = link.queue.len_packets() as u64;
        if qlen > link.stats.max_queue_packets {
            link.stats.max_queue_packets = qlen;
        }
        link.note_queue(now);
        if link.txdone_pending {
            return;
        }
        if now >= link.busy_until {
            self.transmit_next(l);
        } else {
            link.txdone_pending = true;
            self.events.push(link.busy_until, Event::TxDone { link: l });
        }
    }

    /// Starts serialising the next queued packet of idle link `l`, if any, and arranges for
    /// the one after it.
    #[inline]
    fn transmit_next(&mut self, l: LinkId) {
        let now = self.now;
        let link = &mut self.net.links[l as usize];
        let Some(id) = link.queue.dequeue(now) else {
            return;
        };
        link.note_queue(now);
        let arrival = link.start_tx(self.pkts.get(id), now);
        self.events
            .push(arrival, Event::Arrive { link: l, pkt: id.0 });
        if link.queue.len_packets() > 0 {
            link.txdone_pending = true;
            self.events.push(link.busy_until, Event::TxDone { link: l });
        }
    }

    pub(super) fn on_tx_done(&mut self, l: LinkId) {
        self.net.links[l as usize].txdone_pending = false;
        self.transmit_next(l);
    }

    /// Packet `id` reached the far end of link `l`: forward it or deliver it.
    pub(super) fn on_arrive<D: Driver>(&mut self, l: LinkId, id: PacketId, d: &mut D) {
        let node = self.net.links[l as usize].to;
        let p = *self.pkts.get(id);
        if p.dst != node {
            match self.net.next_link(node, p.dst) {
                Some(next) => self.enqueue(next, id),
                None => {
                    self.stats.unroutable += 1;
                    self.pkts.free(id);
                }
            }
            return;
        }
        self.pkts.free(id);
        self.deliver(p, d);
    }
}
