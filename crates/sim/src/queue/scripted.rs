//! A test hook: a queue wrapper that drops chosen packets deterministically.

use super::Queue;
use crate::packet::{Packet, PacketId, PacketKind};
use crate::time::Time;

/// Which packet a [`ScriptedDrops`] queue discards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropRule {
    /// The `n`-th packet offered to this queue (0-based, every kind counted).
    Nth(u64),
    /// The `occurrence`-th transmission (0 = first) of the data segment starting at `seq` of
    /// the connection with serial `conn`.
    Data {
        /// Connection serial ([`crate::packet::ConnId::serial`]).
        conn: u32,
        /// Sequence number of the segment's first byte.
        seq: u64,
        /// Which transmission of that segment (0 = the original).
        occurrence: u32,
    },
}

/// Wraps a queue and drops, before the inner queue sees them, the packets named by a list of
/// [`DropRule`]s. Everything else is passed through unchanged.
pub struct ScriptedDrops<Q> {
    inner: Q,
    rules: Vec<DropRule>,
    offered: u64,
    /// `(conn, seq)` → transmissions seen so far, for [`DropRule::Data`].
    seen: Vec<((u32, u64), u32)>,
    /// Packets dropped by the script.
    pub scripted_drops: u64,
}

impl<Q: Queue> ScriptedDrops<Q> {
    /// Wraps `inner`, dropping the packets `rules` name.
    pub fn new(inner: Q, rules: Vec<DropRule>) -> Self {
        ScriptedDrops {
            inner,
            rules,
            offered: 0,
            seen: Vec::new(),
            scripted_drops: 0,
        }
    }

    fn matches(&mut self, pkt: &Packet) -> bool {
        let n = self.offered;
        self.offered += 1;
        let mut hit = self
            .rules
            .iter()
            .any(|r| matches!(r, DropRule::Nth(k) if *k == n));
        if pkt.kind == PacketKind::Data {
            let watched = self
                .rules
                .iter()
                .any(|r| matches!(r, DropRule::Data { conn, seq, .. } if *conn == pkt.conn.serial && *seq == pkt.seq));
            if watched {
                let key = (pkt.conn.serial, pkt.seq);
                let occ = match self.seen.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, c)) => {
                        *c += 1;
                        *c - 1
                    }
                    None => {
                        self.seen.push((key, 1));
                        0
                    }
                };
                hit |= self.rules.iter().any(|r| {
                    matches!(r, DropRule::Data { conn, seq, occurrence }
                        if (*conn, *seq) == key && *occurrence == occ)
                });
            }
        }
        hit
    }
}

impl<Q: Queue> Queue for ScriptedDrops<Q> {
    fn enqueue(&mut self, id: PacketId, pkt: &Packet, now: Time, dropped: &mut Vec<PacketId>) {
        if self.matches(pkt) {
            self.scripted_drops += 1;
            dropped.push(id);
        } else {
            self.inner.enqueue(id, pkt, now, dropped);
        }
    }
    fn dequeue(&mut self, now: Time) -> Option<PacketId> {
        self.inner.dequeue(now)
    }
    fn len_packets(&self) -> usize {
        self.inner.len_packets()
    }
    fn len_bytes(&self) -> u64 {
        self.inner.len_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::ConnId;
    use crate::queue::{DropTail, Limit};

    #[test]
    fn drops_nth_and_named_segment_occurrence() {
        let rules = vec![
            DropRule::Nth(1),
            DropRule::Data {
                conn: 3,
                seq: 1000,
                occurrence: 1,
            },
        ];
        let mut q = ScriptedDrops::new(DropTail::new(Limit::Unlimited), rules);
        let mut d = Vec::new();
        let data = |seq| Packet {
            kind: PacketKind::Data,
            conn: ConnId { slot: 0, serial: 3 },
            seq,
            size: 100,
            ..Packet::EMPTY
        };
        q.enqueue(PacketId(0), &data(0), 0, &mut d); // #0 kept
        q.enqueue(PacketId(1), &data(500), 0, &mut d); // #1 dropped (Nth)
        q.enqueue(PacketId(2), &data(1000), 0, &mut d); // first tx of 1000 kept
        q.enqueue(PacketId(3), &data(1000), 0, &mut d); // second tx dropped
        q.enqueue(PacketId(4), &data(1000), 0, &mut d); // third kept
        assert_eq!(d, vec![PacketId(1), PacketId(3)]);
        assert_eq!(q.scripted_drops, 2);
        assert_eq!(q.len_packets(), 3);
    }
}
