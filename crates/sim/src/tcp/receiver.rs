//! The receiving half of a TCP connection, sans I/O: reassembly and ACK generation.
//!
//! Out-of-order data is kept as a sorted list of disjoint byte ranges above `rcv_nxt`
//! (the list's capacity is reused, so the hot path does not allocate once warm). ACK policy
//! per RFC 5681 §4.2 / RFC 1122 §4.2.3.2: out-of-order segments and segments that fill a
//! hole are acknowledged at once; in-order segments are acknowledged at once, or, with
//! delayed ACKs, every second segment or when the delayed-ACK timer fires. The receive
//! window is unbounded (the application reads at once); a finite maximum window is
//! enforced at the sender.

/// What a data segment did at the receiver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RxOutcome {
    /// In-order bytes newly delivered to the application: `[from, to)`, empty if none.
    pub delivered: (u64, u64),
    /// Send an ACK now.
    pub ack_now: bool,
    /// An ACK is owed but delayed: start the delayed-ACK timer if not running.
    pub ack_delayed: bool,
    /// The segment brought no new byte (entirely duplicate).
    pub duplicate: bool,
}

/// Reassembly state of one connection.
#[derive(Debug, Clone, Default)]
pub struct Receiver {
    rcv_nxt: u64,
    /// Sorted, disjoint, non-adjacent ranges `[start, end)` above `rcv_nxt`.
    ooo: Vec<(u64, u64)>,
    delayed_ack: bool,
    /// In-order segments received since the last ACK.
    unacked_segments: u32,
    /// Bytes received above `rcv_nxt` (held out of order).
    ooo_bytes: u64,
    /// Start of the most recently received out-of-order segment (RFC 2018 §4: the first
    /// SACK block is the one holding it).
    last_ooo: Option<u64>,
}

impl Receiver {
    /// A receiver; `delayed_ack` turns on RFC 5681 §4.2 delayed acknowledgements.
    pub fn new(delayed_ack: bool) -> Self {
        Receiver {
            delayed_ack,
            ..Default::default()
        }
    }

    /// Resets to a fresh connection, keeping allocated capacity.
    pub fn reset(&mut self, delayed_ack: bool) {
        self.rcv_nxt = 0;
        self.ooo.clear();
        self.delayed_ack = delayed_ack;
        self.unacked_segments = 0;
        self.ooo_bytes = 0;
        self.last_ooo = None;
    }

    /// Next byte expected: the cumulative ACK value.
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    /// Out-of-order ranges held.
    pub fn out_of_order(&self) -> &[(u64, u64)] {
        &self.ooo
    }

    /// An ACK was just sent (by timer or piggy-back): nothing is owed any more.
    pub fn ack_sent(&mut self) {
        self.unacked_segments = 0;
    }

    /// Processes the data segment `[seq, seq + len)`.
    pub fn on_data(&mut self, seq: u64, len: u32) -> RxOutcome {
        let end = seq + len as u64;
        let before = self.rcv_nxt;
        let had_hole = !self.ooo.is_empty();
        let mut out = RxOutcome {
            delivered: (before, before),
            ack_now: true,
            ack_delayed: false,
            duplicate: false,
        };
        if end <= self.rcv_nxt || len == 0 {
            out.duplicate = len > 0;
            self.unacked_segments = 0;
            return out; // old duplicate: ACK at once (RFC 5681 §4.2)
        }
        if seq > self.rcv_nxt {
            self.last_ooo = Some(seq);
            out.duplicate = !self.insert(seq, end);
            self.unacked_segments = 0;
            return out; // out of order: immediate duplicate ACK
        }
        // In order (possibly overlapping what we have).
        self.rcv_nxt = end;
        // Absorb out-of-order ranges now contiguous.
        let mut absorbed = 0;
        for &(s, e) in &self.ooo {
            if s > self.rcv_nxt {
                break;
            }
            self.rcv_nxt = self.rcv_nxt.max(e);
            absorbed += 1;
        }
        if absorbed > 0 {
            let dropped: u64 = self.ooo.drain(..absorbed).map(|(s, e)| e - s).sum();
            self.ooo_bytes -= dropped;
        }
        out.delivered = (before, self.rcv_nxt);
        if had_hole || !self.delayed_ack {
            self.unacked_segments = 0;
            return out;
        }
        self.unacked_segments += 1;
        if self.unacked_segments >= 2 {
            self.unacked_segments = 0;
        } else {
            out.ack_now = false;
            out.ack_delayed = true;
        }
        out
    }

    /// Inserts `[s, e)` (with `s > rcv_nxt`) into the out-of-order list; returns whether it
    /// added any new byte.
    fn insert(&mut self, s: u64, e: u64) -> bool {
        // Ranges [i, j) overlap or touch [s, e).
        let i = self.ooo.partition_point(|&(_, re)| re < s);
        let mut j = i;
        let (mut ns, mut ne, mut old) = (s, e, 0);
        while j < self.ooo.len() && self.ooo[j].0 <= e {
            let (rs, re) = self.ooo[j];
            old += re - rs;
            ns = ns.min(rs);
            ne = ne.max(re);
            j += 1;
        }
        // Ranges are non-adjacent, so merging two of them always adds a byte: `added == 0`
        // means [s, e) lay inside one existing range.
        let added = (ne - ns) - old;
        if added == 0 {
            return false;
        }
        self.ooo.splice(i..j, std::iter::once((ns, ne)));
        self.ooo_bytes += added;
        true
    }

    /// The SACK blocks of an ACK sent now (RFC 2018 §4): the range holding the most recent
    /// out-of-order segment first, then the others from the highest down; at most 3 (the
    /// option space left with timestamps), `(0, 0)` for none.
    pub fn sack_blocks(&self) -> crate::tcp::SackBlocks {
        let mut out = [(0, 0); 3];
        let mut n = 0;
        let first = self
            .last_ooo
            .and_then(|s| self.ooo.iter().position(|&(a, b)| a <= s && s < b));
        if let Some(i) = first {
            out[0] = self.ooo[i];
            n = 1;
        }
        for (i, &r) in self.ooo.iter().enumerate().rev() {
            if n == 3 {
                break;
            }
            if Some(i) != first {
                out[n] = r;
                n += 1;
            }
        }
        out
    }

    /// Bytes held out of order.
    pub fn ooo_bytes(&self) -> u64 {
        self.ooo_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_order_and_holes() {
        let mut r = Receiver::new(false);
        let o = r.on_data(0, 100);
        assert_eq!(o.delivered, (0, 100));
        assert!(o.ack_now);
        let o = r.on_data(200, 100);
        assert_eq!(o.delivered, (100, 100));
        assert_eq!(r.out_of_order(), &[(200, 300)]);
        let o = r.on_data(100, 100);
        assert_eq!(o.delivered, (100, 300));
        assert!(r.out_of_order().is_empty());
        assert_eq!(r.ooo_bytes(), 0);
        let o = r.on_data(0, 100);
        assert!(o.duplicate && o.ack_now);
    }

    #[test]
    fn sack_blocks_most_recent_first_then_highest() {
        let mut r = Receiver::new(false);
        r.on_data(0, 100);
        assert_eq!(r.sack_blocks(), [(0, 0); 3]);
        r.on_data(200, 100);
        r.on_data(600, 100);
        r.on_data(400, 100);
        r.on_data(800, 100);
        r.on_data(300, 100); // joins [200, 300) and [400, 500)
        assert_eq!(r.sack_blocks(), [(200, 500), (800, 900), (600, 700)]);
        r.on_data(100, 100);
        assert_eq!(r.sack_blocks(), [(800, 900), (600, 700), (0, 0)]);
    }

    #[test]
    fn delayed_ack_every_second_segment() {
        let mut r = Receiver::new(true);
        let o = r.on_data(0, 100);
        assert!(!o.ack_now && o.ack_delayed);
        let o = r.on_data(100, 100);
        assert!(o.ack_now);
        let o = r.on_data(300, 100);
        assert!(o.ack_now, "out of order is acked at once");
        let o = r.on_data(200, 100);
        assert!(o.ack_now, "filling a hole is acked at once");
        assert_eq!(r.rcv_nxt(), 400);
    }
}
