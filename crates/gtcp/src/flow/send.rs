//! The sending half of a flow: the bytes its application handed over, which of them went out on
//! which connection, and which the receiver holds.

use std::collections::VecDeque;

use bytes::{Buf, BufMut, Bytes, BytesMut};

use crate::ids::ConnId;

/// Handed-over pieces shorter than this are copied into the buffer's tail (bytes); longer ones
/// are kept as they are, without a copy (`SendStream::push_bytes`). Bounds the bookkeeping:
/// every kept piece holds at least this many bytes, or is the tail.
pub const KEEP_PIECE_MIN: usize = 4096;

/// The tail's largest size before it is frozen into a piece (bytes, 64 KiB).
const TAIL_MAX: usize = 64 * 1024;

/// The bytes of `[base, written)`: pieces in order, then a tail being filled by copied writes.
///
/// A driver that reads an application into its own buffers hands over whole slices of them
/// ([`SendStream::push_bytes`]): the only copy of a byte on the sending side is then the one
/// into its frame. Such a slice keeps its allocation alive until acknowledged; a driver bounds
/// that by how it carves its buffers (the tunnel: at most a third of a 256 KiB read buffer
/// unused, see its `engine` module).
///
/// The tail is allocated when a copied write comes and released as soon as all it holds is
/// acknowledged: a flow whose bytes are all acknowledged holds no buffer. While some of it is
/// unacknowledged its allocation is counted ([`SendStream::allocated`]): what it holds,
/// its acknowledged front (moved out when the tail runs out of room and the front is at least
/// what is left, so a move copies no more than was freed) and room grown by doubling, at most
/// about 2 × [`TAIL_MAX`] plus the last write. A tail frozen into a piece keeps its
/// acknowledged front (less than [`TAIL_MAX`]) until the piece is all acknowledged; that front
/// is not counted.
#[derive(Debug, Default)]
struct SendBuf {
    pieces: VecDeque<Bytes>,
    /// Copied writes, `[front..]` not yet acknowledged. Never advanced, so that its
    /// `capacity()` is its whole allocation.
    tail: BytesMut,
    /// Bytes at the start of `tail` already acknowledged.
    front: usize,
}

impl SendBuf {
    fn push(&mut self, data: &[u8]) {
        let live = self.tail.len() - self.front;
        if self.front > 0
            && self.front >= live
            && self.tail.capacity() - self.tail.len() < data.len()
        {
            self.tail.copy_within(self.front.., 0);
            self.tail.truncate(live);
            self.front = 0;
        }
        self.tail.extend_from_slice(data);
        if self.tail.len() >= TAIL_MAX {
            self.freeze_tail();
        }
    }

    /// Moves the tail's unacknowledged bytes into a piece (the tail is then empty, with no
    /// allocation).
    fn freeze_tail(&mut self) {
        let mut t = std::mem::take(&mut self.tail).freeze();
        t.advance(std::mem::take(&mut self.front));
        if !t.is_empty() {
            self.pieces.push_back(t);
        }
    }

    fn push_bytes(&mut self, data: Bytes) {
        if data.len() < KEEP_PIECE_MIN {
            self.push(&data);
            return;
        }
        self.freeze_tail();
        self.pieces.push_back(data);
    }

    /// Appends bytes `[from, from + len)` (relative to the start) to `out`.
    fn copy_out(&self, mut from: usize, mut len: usize, out: &mut BytesMut) {
        for p in self
            .pieces
            .iter()
            .map(|b| &b[..])
            .chain(std::iter::once(&self.tail[self.front..]))
        {
            if len == 0 {
                return;
            }
            if from >= p.len() {
                from -= p.len();
                continue;
            }
            let n = (p.len() - from).min(len);
            out.put_slice(&p[from..from + n]);
            len -= n;
            from = 0;
        }
    }

    /// Forgets the first `n` bytes. A tail left empty is released.
    fn drain(&mut self, mut n: usize) {
        while n > 0 {
            let Some(front) = self.pieces.front_mut() else {
                self.front += n.min(self.tail.len() - self.front);
                if self.front == self.tail.len() {
                    self.tail = BytesMut::new();
                    self.front = 0;
                }
                return;
            };
            if n < front.len() {
                front.advance(n);
                return;
            }
            n -= front.len();
            self.pieces.pop_front();
        }
    }

    /// Bytes the tail's allocation holds beyond its unacknowledged bytes (its acknowledged
    /// front and its room).
    fn spare(&self) -> usize {
        self.tail.capacity() - (self.tail.len() - self.front)
    }

    /// Forgets everything and releases the tail.
    fn clear(&mut self) {
        *self = Self::default();
    }
}

/// Credit every flow has before the receiver says anything (bytes). Both ends use this constant,
/// so a sender may start at once and data may arrive before the frame that opens its flow.
pub const INITIAL_CREDIT: u64 = 256 * 1024;

/// Sending half of one flow: its bytes and where they are (its life is a
/// [`SendState`](super::state::SendState)).
///
/// Offsets: `[0, acked)` is held by the receiver and freed here; `[acked, next)` has been sent at
/// least once; `[next, written)` waits for a connection. Ranges lost with a dead connection wait
/// in `resend`. The buffer holds `[acked, written)`, at most the configured send buffer.
#[derive(Debug)]
pub(crate) struct SendStream {
    buf: SendBuf,
    /// Offset of `buf[0]`.
    base: u64,
    pub written: u64,
    pub next: u64,
    pub acked: u64,
    pub credit: u64,
    /// Where the current transfer is known to end (hint, end of stream, Content-Length).
    pub known_end: Option<u64>,
    resend: VecDeque<(u64, u64)>,
    /// Bytes in `resend` (the sum of its ranges' lengths, kept as they change: `unsent` is
    /// asked after every chunk sent, and a connection lost with thousands of small segments in
    /// flight leaves thousands of ranges).
    resend_bytes: u64,
    /// Unacknowledged segments (start, end, connection that carried it), in order of start
    /// (they never overlap). A segment of new bytes goes at the back; a re-sent one, below
    /// `next`, is put in its place.
    in_flight: VecDeque<(u64, u64, ConnId)>,
}

/// A range chosen to go out next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Segment {
    pub start: u64,
    pub len: u64,
    pub is_resend: bool,
}

impl SendStream {
    pub fn new() -> Self {
        Self {
            buf: SendBuf::default(),
            base: 0,
            written: 0,
            next: 0,
            acked: 0,
            credit: INITIAL_CREDIT,
            known_end: None,
            resend: VecDeque::new(),
            resend_bytes: 0,
            in_flight: VecDeque::new(),
        }
    }

    /// Bytes held in the buffer (handed over, not yet acknowledged).
    pub fn buffered(&self) -> u64 {
        self.written - self.base
    }

    /// Bytes of memory the buffer occupies: [`buffered`](Self::buffered) plus the spare part of
    /// its copy buffer (see `SendBuf`); 0 once everything handed over is acknowledged.
    pub fn allocated(&self) -> u64 {
        self.buffered() + self.buf.spare() as u64
    }

    /// Appends application bytes; the caller has checked the buffer bound.
    pub fn push(&mut self, data: &[u8]) {
        self.buf.push(data);
        self.written += data.len() as u64;
    }

    /// Appends application bytes the caller already holds in a buffer of its own: pieces of
    /// at least [`KEEP_PIECE_MIN`] bytes are kept without a copy. The caller has checked the
    /// buffer bound.
    pub fn push_bytes(&mut self, data: Bytes) {
        self.written += data.len() as u64;
        self.buf.push_bytes(data);
    }

    /// Bytes not sent yet, new or to be sent again: this flow's share of the virtual queues.
    pub fn unsent(&self) -> u64 {
        (self.written - self.next) + self.resend_bytes
    }

    /// Bytes of the lost ranges: sent on a connection that died unacknowledged, to be sent
    /// again.
    pub fn lost(&self) -> u64 {
        self.resend_bytes
    }

    /// Bytes that may go out now: lost ranges, and new bytes within the peer's credit.
    pub fn sendable(&self) -> u64 {
        self.resend_bytes + self.written.min(self.credit).saturating_sub(self.next)
    }

    /// Whether some byte may go out now (within the peer's credit).
    pub fn ready(&self) -> bool {
        !self.resend.is_empty() || self.next < self.written.min(self.credit)
    }

    /// The next range to send, at most `max` bytes: lost ranges first, then new bytes within
    /// credit. Marks it in flight on `conn`.
    pub fn take(&mut self, max: u64, conn: ConnId) -> Option<Segment> {
        if max == 0 {
            return None;
        }
        let seg = if let Some((s, e)) = self.resend.front_mut() {
            let start = *s;
            let len = (*e - *s).min(max);
            *s += len;
            self.resend_bytes -= len;
            if *s == *e {
                self.resend.pop_front();
            }
            Segment {
                start,
                len,
                is_resend: true,
            }
        } else {
            let limit = self.written.min(self.credit);
            if self.next >= limit {
                return None;
            }
            let start = self.next;
            let len = (limit - start).min(max);
            self.next += len;
            Segment {
                start,
                len,
                is_resend: false,
            }
        };
        let entry = (seg.start, seg.start + seg.len, conn);
        match self.in_flight.back() {
            Some(&(last, _, _)) if last >= seg.start => {
                let at = self.in_flight.partition_point(|&(s, _, _)| s < seg.start);
                match self.in_flight.get_mut(at) {
                    // (Segments never overlap; as a map keyed by start would, the later wins.)
                    Some(e) if e.0 == seg.start => *e = entry,
                    _ => self.in_flight.insert(at, entry),
                }
            }
            _ => self.in_flight.push_back(entry),
        }
        Some(seg)
    }

    /// Copies bytes `[start, start + len)` to `out`. They are in the buffer: sent bytes stay
    /// until acknowledged.
    pub fn copy_out(&self, start: u64, len: u64, out: &mut BytesMut) {
        let from = (start - self.base) as usize;
        self.buf.copy_out(from, len as usize, out);
    }

    /// The receiver holds `[0, received)` and grants up to `credit`. Frees what it holds,
    /// reports per connection the bytes of segments now acknowledged, and returns the bytes of
    /// lost ranges that no longer need to go again.
    pub fn on_ack(
        &mut self,
        received: u64,
        credit: u64,
        mut freed_on: impl FnMut(ConnId, u64),
    ) -> u64 {
        self.credit = self.credit.max(credit);
        if received <= self.acked {
            return 0;
        }
        self.acked = received;
        while let Some(&(start, end, conn)) = self.in_flight.front() {
            if end > received {
                break;
            }
            self.in_flight.pop_front();
            freed_on(conn, end - start);
        }
        // Lost ranges the receiver turned out to hold need not go again.
        let mut skipped = 0;
        while let Some((s, e)) = self.resend.front_mut() {
            if *e <= received {
                skipped += *e - *s;
                self.resend.pop_front();
            } else {
                skipped += received.saturating_sub(*s);
                *s = (*s).max(received);
                break;
            }
        }
        self.resend_bytes -= skipped;
        let drop = (received.min(self.written) - self.base) as usize;
        self.buf.drain(drop);
        self.base += drop as u64;
        if self.base == self.written {
            self.release_lists();
        }
        skipped
    }

    /// Everything handed over is acknowledged: the segment and range lists and the buffer's
    /// piece list, all empty, give up their allocations (a deque keeps its capacity when
    /// emptied), so an idle flow holds none.
    fn release_lists(&mut self) {
        if self.in_flight.is_empty() {
            self.in_flight = VecDeque::new();
        }
        if self.resend.is_empty() {
            self.resend = VecDeque::new();
        }
        if self.buf.pieces.is_empty() {
            self.buf.pieces = VecDeque::new();
        }
    }

    /// The connection `conn` died: every segment it carried that is not acknowledged must go
    /// again. Returns the bytes re-queued.
    pub fn requeue_lost(&mut self, conn: ConnId) -> u64 {
        if !self.in_flight.iter().any(|&(_, _, c)| c == conn) {
            return 0;
        }
        let mut bytes = 0;
        let acked = self.acked;
        let resend = &mut self.resend;
        self.in_flight.retain(|&(s, e, c)| {
            if c != conn {
                return true;
            }
            let s = s.max(acked);
            if e > s {
                resend.push_back((s, e));
                bytes += e - s;
            }
            false
        });
        self.resend.make_contiguous().sort_unstable();
        self.resend_bytes += bytes;
        // Debug builds: the count is the ranges' sum (checked here, where a pass over them
        // costs no more than the pass over `in_flight` above, not in `unsent`).
        debug_assert_eq!(
            self.resend_bytes,
            self.resend.iter().map(|(s, e)| e - s).sum::<u64>(),
            "resend_bytes"
        );
        bytes
    }

    /// Forgets the unacknowledged segments (the flow was reset: the receiver discards them and
    /// acknowledges nothing more), telling `freed_on` how many bytes each connection carried.
    pub fn release_in_flight(&mut self, mut freed_on: impl FnMut(ConnId, u64)) {
        for (start, end, conn) in std::mem::take(&mut self.in_flight) {
            freed_on(conn, end - start);
        }
    }

    /// Drops everything not yet sent (the flow was reset). Returns the bytes dropped.
    pub fn abandon(&mut self) -> u64 {
        let dropped = self.unsent();
        self.resend.clear();
        self.resend_bytes = 0;
        self.next = self.written;
        self.in_flight.clear();
        self.buf.clear();
        self.base = self.written;
        self.release_lists();
        dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn take_respects_credit_and_resends_first() {
        let mut s = SendStream::new();
        s.credit = 10;
        s.push(&[7; 30]);
        let a = s.take(4, ConnId(1)).unwrap();
        assert_eq!(
            a,
            Segment {
                start: 0,
                len: 4,
                is_resend: false
            }
        );
        let b = s.take(100, ConnId(2)).unwrap();
        assert_eq!((b.start, b.len), (4, 6), "stops at credit 10");
        assert!(s.take(100, ConnId(2)).is_none());
        assert!(!s.ready());
        assert_eq!(s.requeue_lost(ConnId(1)), 4);
        assert!(s.ready());
        assert_eq!(
            s.take(100, ConnId(2)).unwrap(),
            Segment {
                start: 0,
                len: 4,
                is_resend: true
            }
        );
        let mut freed = Vec::new();
        s.on_ack(10, 20, |c, n| freed.push((c, n)));
        freed.sort();
        assert_eq!(freed, vec![(ConnId(2), 4), (ConnId(2), 6)]);
        assert_eq!(s.buffered(), 20);
        assert_eq!(s.take(100, ConnId(2)).unwrap().len, 10);
    }

    /// `unsent` and `sendable` count the lost ranges from `resend_bytes`: it must stay their
    /// sum through losses, re-sends cut short by `max`, acknowledgements that land inside a
    /// range and past several, and an abandon.
    #[test]
    fn resend_bytes_stays_the_sum_of_the_lost_ranges() {
        fn sum(s: &SendStream) -> u64 {
            s.resend.iter().map(|(a, b)| b - a).sum()
        }
        let mut s = SendStream::new();
        s.credit = u64::MAX;
        s.push(&[1; 1000]);
        for i in 0..40 {
            s.take(10, ConnId(1 + i % 2)).unwrap();
        }
        assert_eq!(s.requeue_lost(ConnId(1)), 200);
        assert_eq!(s.resend_bytes, 200);
        assert_eq!(s.unsent(), 600 + 200);
        assert_eq!(s.sendable(), 600 + 200);
        // A re-send cut short by `max`: part of the first range stays.
        let seg = s.take(4, ConnId(3)).unwrap();
        assert!(seg.is_resend && seg.len == 4);
        assert_eq!((s.resend_bytes, sum(&s)), (196, 196));
        // An acknowledgement inside a range and past several.
        s.on_ack(55, 1 << 20, |_, _| {});
        assert_eq!(s.resend_bytes, sum(&s));
        s.on_ack(201, 1 << 20, |_, _| {});
        assert_eq!(s.resend_bytes, sum(&s));
        assert_eq!(s.unsent(), 600 + s.resend_bytes);
        // The other connection dies too; its ranges join, sorted.
        s.requeue_lost(ConnId(2));
        assert_eq!(s.resend_bytes, sum(&s));
        while s.take(7, ConnId(4)).is_some_and(|seg| seg.is_resend) {
            assert_eq!(s.resend_bytes, sum(&s));
        }
        assert_eq!(s.resend_bytes, 0);
        s.requeue_lost(ConnId(4));
        assert!(s.resend_bytes > 0);
        let unsent = s.written - s.next + sum(&s);
        assert_eq!(s.abandon(), unsent);
        assert_eq!((s.resend_bytes, s.unsent()), (0, 0));
    }

    #[test]
    fn kept_pieces_and_copied_writes_read_back_in_order_and_are_freed_by_acks() {
        let mut s = SendStream::new();
        let big: Vec<u8> = (0..10_000u32).map(|x| (x % 251) as u8).collect();
        let kept = Bytes::from(big.clone());
        s.push(&[1, 2, 3]);
        s.push_bytes(kept.clone());
        s.push_bytes(Bytes::from_static(&[9; 10])); // short: copied into the tail
        s.push(&[4; 5]);
        assert_eq!(s.written, 3 + 10_000 + 10 + 5);
        assert_eq!(
            s.buf.pieces.len(),
            2,
            "the tail before the kept piece, then it"
        );
        let mut want = vec![1, 2, 3];
        want.extend_from_slice(&big);
        want.extend_from_slice(&[9; 10]);
        want.extend_from_slice(&[4; 5]);
        let mut out = BytesMut::new();
        s.copy_out(0, s.written, &mut out);
        assert_eq!(&out[..], &want[..]);
        // A range across all three parts, then after acknowledgements freed part of them.
        out.clear();
        s.copy_out(2, 10_005, &mut out);
        assert_eq!(&out[..], &want[2..10_007]);
        s.take(u64::MAX, ConnId(1));
        s.on_ack(5_000, u64::MAX, |_, _| {});
        assert_eq!(s.buffered(), s.written - 5_000);
        out.clear();
        s.copy_out(5_000, s.written - 5_000, &mut out);
        assert_eq!(&out[..], &want[5_000..]);
        s.on_ack(s.written, u64::MAX, |_, _| {});
        assert_eq!(s.buffered(), 0);
        assert!(s.buf.pieces.is_empty() && s.buf.tail.is_empty());
    }

    #[test]
    fn the_tail_is_frozen_into_pieces_of_bounded_size() {
        let mut s = SendStream::new();
        for _ in 0..40 {
            s.push(&[7; 4000]);
        }
        assert!(s.buf.pieces.iter().all(|p| p.len() >= TAIL_MAX));
        assert!(s.buf.tail.len() < TAIL_MAX);
        let mut out = BytesMut::new();
        s.copy_out(0, s.written, &mut out);
        assert_eq!(out.len(), 160_000);
        assert!(out.iter().all(|&b| b == 7));
    }

    /// Once everything handed over is acknowledged the flow holds no buffer: the tail's
    /// allocation goes with its last byte (an idle flow kept up to `TAIL_MAX` of it), and an
    /// abandoned flow's too.
    #[test]
    fn a_drained_buffer_holds_no_allocation() {
        let mut s = SendStream::new();
        s.push(&[5; 1000]);
        assert!(s.allocated() >= 1000);
        s.take(u64::MAX, ConnId(1));
        s.on_ack(400, u64::MAX, |_, _| {});
        assert_eq!(s.buffered(), 600);
        assert!(
            s.allocated() >= 1000,
            "the acknowledged front is still allocated"
        );
        s.on_ack(1000, u64::MAX, |_, _| {});
        assert_eq!((s.buffered(), s.allocated()), (0, 0));
        assert_eq!(s.buf.tail.capacity(), 0);
        // Pieces and a tail, acknowledged in one go.
        s.push_bytes(Bytes::from(vec![6; 10_000]));
        s.push(&[7; 300]);
        s.take(u64::MAX, ConnId(1));
        s.on_ack(s.written, u64::MAX, |_, _| {});
        assert_eq!(s.allocated(), 0);
        assert!(s.buf.pieces.is_empty() && s.buf.tail.capacity() == 0);
        // An abandoned flow.
        s.push(&[8; 300]);
        s.abandon();
        assert_eq!((s.allocated(), s.buf.tail.capacity()), (0, 0));
    }

    /// Copied writes onto a partly acknowledged tail: the acknowledged front is moved out
    /// when room runs short (instead of the tail growing past it), every byte reads back in
    /// order, and `allocated` is the tail's allocation plus the pieces' bytes.
    #[test]
    fn a_partly_acknowledged_tail_reuses_its_front() {
        let mut s = SendStream::new();
        let mut want = Vec::new();
        let mut x = 0u8;
        for round in 0..200u64 {
            let n = 100 + (round as usize * 37) % 900;
            let data: Vec<u8> = (0..n)
                .map(|_| {
                    x = x.wrapping_add(1);
                    x
                })
                .collect();
            s.push(&data);
            want.extend_from_slice(&data);
            s.take(u64::MAX, ConnId(1));
            // Acknowledge all but the last 700 bytes.
            s.on_ack(s.written.saturating_sub(700), u64::MAX, |_, _| {});
            let pieces: usize = s.buf.pieces.iter().map(Bytes::len).sum();
            assert_eq!(s.allocated(), (pieces + s.buf.tail.capacity()) as u64);
            assert!(
                s.buf.tail.capacity() <= 4096,
                "the tail grew to {} holding {} bytes",
                s.buf.tail.capacity(),
                s.buffered()
            );
            let mut out = BytesMut::new();
            s.copy_out(s.base, s.buffered(), &mut out);
            assert_eq!(&out[..], &want[s.base as usize..]);
        }
    }

    #[test]
    fn copy_out_spans_the_ring() {
        let mut s = SendStream::new();
        s.push(&(0..100).collect::<Vec<u8>>());
        s.take(100, ConnId(1));
        s.on_ack(60, 1000, |_, _| {});
        s.push(&(100..200).map(|x| x as u8).collect::<Vec<u8>>());
        let mut out = BytesMut::new();
        s.copy_out(90, 20, &mut out);
        assert_eq!(
            &out[..],
            &(90..110).map(|x| x as u8).collect::<Vec<u8>>()[..]
        );
    }
}
