//! The receiving half of a flow: reassembly of frames that may arrive on any connection in any
//! order, bounded by the credit this side grants.

use std::collections::{BTreeMap, VecDeque};

use bytes::{Bytes, BytesMut};

use super::send::INITIAL_CREDIT;
use crate::session::caps::{MAX_OOO_SEGMENTS, MAX_SESSION_OOO_SEGMENTS};

/// Largest block of a flow's contiguous buffer (64 KiB): below the allocator's mmap threshold,
/// so blocks are reused from the heap, and large enough that a 256 KiB vectored write to the
/// application takes four of them.
pub const READY_BLOCK: usize = 64 * 1024;

/// A peer broke the flow's rules; the connection that carried the frame is closed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecvError {
    #[error("data up to offset {end} beyond granted credit {credit}")]
    BeyondCredit { end: u64, credit: u64 },
    #[error("data up to offset {end} beyond final size {final_size}")]
    BeyondFinal { end: u64, final_size: u64 },
    #[error("final size {got} contradicts {known}")]
    FinalSizeChanged { got: u64, known: u64 },
    #[error("more than {MAX_OOO_SEGMENTS} out-of-order segments")]
    TooManySegments,
    #[error("more than {MAX_SESSION_OOO_SEGMENTS} out-of-order segments in the session")]
    TooManySessionSegments,
}

/// Receiving half of one flow.
///
/// `[0, read)` went to the application, `[read, received)` is contiguous and waits in `ready`
/// (a list of blocks, so that it grows without moving what it holds),
/// segments above `received` wait in `ooo`. Everything buffered lies below `credit`, which is at
/// most `read + window`: the receiver's memory for a flow is bounded by its window.
///
/// Every stored byte is copied out of the frame it came in (`ready`'s blocks are this flow's
/// own, `ooo` holds copies): a payload handed in by a driver is usually a slice of a
/// read buffer of 256 KiB or more, and keeping such a slice would pin the whole buffer, so a
/// peer sending one-byte segments could hold hundreds of times the window. Out-of-order segments
/// are at most [`MAX_OOO_SEGMENTS`] (beyond: [`RecvError::TooManySegments`], a protocol
/// error), and at most what the session's bound leaves ([`MAX_SESSION_OOO_SEGMENTS`] over all
/// flows; beyond: [`RecvError::TooManySessionSegments`]), so a flow holds at most its credit in
/// bytes plus that many segments' bookkeeping.
#[derive(Debug)]
pub(crate) struct RecvStream {
    /// In-order bytes, in blocks of at most [`READY_BLOCK`] (a larger frame spans several),
    /// none of them empty. Only the last block has room left; a block is never grown
    /// (`extend_from_slice` only within its capacity), so what a block holds never moves.
    /// One buffer grown by doubling would copy what it held at every growth and, past the
    /// allocator's mmap threshold, fault fresh pages in (docs/THROUGHPUT.md).
    ready: VecDeque<BytesMut>,
    /// Bytes read (split off the front of the first block) since that block was made: its
    /// allocation still holds them (`BytesMut::split_to` shares it), and its `capacity()`
    /// counts only from where the unread bytes start. So the blocks' allocations are exactly
    /// `front + Σ capacity()`.
    front: u64,
    /// Bytes the application took in its last read: the first block after the buffer ran
    /// empty has room for that many (at most [`READY_BLOCK`] and the credit), and each later
    /// block twice the one before.
    last_read: usize,
    ooo: BTreeMap<u64, Bytes>,
    /// Bytes held in `ooo` (kept as it changes, so that [`allocated`](Self::allocated) and
    /// [`buffered`](Self::buffered) need no walk over the segments).
    ooo_bytes: u64,
    pub read: u64,
    pub received: u64,
    pub credit: u64,
    pub final_size: Option<u64>,
    window: u64,
}

impl RecvStream {
    pub fn new(window: u64) -> Self {
        Self {
            ready: VecDeque::new(),
            front: 0,
            last_read: 0,
            ooo: BTreeMap::new(),
            ooo_bytes: 0,
            read: 0,
            received: 0,
            credit: INITIAL_CREDIT,
            final_size: None,
            window: window.max(INITIAL_CREDIT),
        }
    }

    /// Takes bytes `[offset, offset + data.len())`. Returns whether `received` advanced.
    /// Duplicates and overlaps are trimmed (a lost connection's data may come twice). At most
    /// `session_room` new out-of-order segments are stored (what the session's bound
    /// [`MAX_SESSION_OOO_SEGMENTS`] leaves); one more is [`RecvError::TooManySessionSegments`].
    /// On an error, what was stored before it stays (the caller counts [`segments`](Self::segments)
    /// before and after).
    pub fn insert(
        &mut self,
        offset: u64,
        data: Bytes,
        session_room: usize,
    ) -> Result<bool, RecvError> {
        let end = offset + data.len() as u64; // the decoder rejected overflow
        if end > self.credit {
            return Err(RecvError::BeyondCredit {
                end,
                credit: self.credit,
            });
        }
        if let Some(final_size) = self.final_size {
            if end > final_size {
                return Err(RecvError::BeyondFinal { end, final_size });
            }
        }
        let before = self.received;
        self.insert_gaps(offset, &data, session_room)?;
        let held = !self.ooo.is_empty();
        while let Some(entry) = self.ooo.first_entry() {
            if *entry.key() != self.received {
                break;
            }
            let chunk = entry.remove();
            self.ooo_bytes -= chunk.len() as u64;
            self.received += chunk.len() as u64;
            self.append_ready(&chunk);
        }
        if held && self.ooo.is_empty() {
            // A B-tree emptied by removals keeps its root node (11 slots); a flow with no
            // hole left keeps none.
            self.ooo = BTreeMap::new();
        }
        Ok(self.received > before)
    }

    /// Stores (copies of) only the parts of `[offset, ..)` not already held: the next in-order
    /// bytes go straight to `ready`, the rest to `ooo`.
    fn insert_gaps(
        &mut self,
        mut offset: u64,
        mut data: &[u8],
        mut session_room: usize,
    ) -> Result<(), RecvError> {
        if offset == self.received && self.ooo.is_empty() {
            // In order with nothing held above: what the loop below does, without its lookups.
            self.append_ready(data);
            self.received += data.len() as u64;
            return Ok(());
        }
        if offset < self.received {
            let skip = (self.received - offset).min(data.len() as u64);
            data = &data[skip as usize..];
            offset += skip;
        }
        while !data.is_empty() {
            let end = offset + data.len() as u64;
            // A held segment starting at or before `offset` that covers it?
            if let Some((&s, held)) = self.ooo.range(..=offset).next_back() {
                let held_end = s + held.len() as u64;
                if held_end > offset {
                    let skip = (held_end - offset).min(data.len() as u64);
                    data = &data[skip as usize..];
                    offset += skip;
                    continue;
                }
            }
            // The next held segment after `offset` bounds what we can store now.
            let until = self
                .ooo
                .range(offset + 1..end)
                .next()
                .map_or(end, |(&s, _)| s);
            let n = (until - offset) as usize;
            if n > 0 {
                if offset == self.received {
                    self.append_ready(&data[..n]);
                    self.received += n as u64;
                } else {
                    if self.ooo.len() >= MAX_OOO_SEGMENTS {
                        return Err(RecvError::TooManySegments);
                    }
                    if session_room == 0 {
                        return Err(RecvError::TooManySessionSegments);
                    }
                    session_room -= 1;
                    self.ooo.insert(offset, Bytes::copy_from_slice(&data[..n]));
                    self.ooo_bytes += n as u64;
                }
            }
            data = &data[n..];
            offset += n as u64;
        }
        Ok(())
    }

    /// The peer's direction ends at `final_size`.
    pub fn set_final(&mut self, final_size: u64) -> Result<(), RecvError> {
        if let Some(known) = self.final_size {
            if known != final_size {
                return Err(RecvError::FinalSizeChanged {
                    got: final_size,
                    known,
                });
            }
        }
        let seen = self
            .ooo
            .last_key_value()
            .map_or(self.received, |(&s, b)| s + b.len() as u64);
        if final_size < seen {
            return Err(RecvError::FinalSizeChanged {
                got: final_size,
                known: seen,
            });
        }
        self.final_size = Some(final_size);
        Ok(())
    }

    /// Up to `max` contiguous bytes for the application.
    pub fn read(&mut self, max: usize) -> Option<Bytes> {
        if max == 0 {
            return None;
        }
        let first = self.ready.front_mut()?;
        let out = first.split_to(max.min(first.len())).freeze();
        self.read += out.len() as u64;
        self.last_read = out.len();
        if first.is_empty() {
            // The block is read: its allocation is the application's now (its `Bytes` keep
            // it as long as they live). Its room, if it was the last block, is given up too,
            // so a flow read to the end holds nothing; the next bytes start a block of their
            // own.
            self.ready.pop_front();
            self.front = 0;
            if self.ready.is_empty() {
                // An idle flow keeps no block list either.
                self.ready = VecDeque::new();
            }
        } else {
            self.front += out.len() as u64;
        }
        Some(out)
    }

    /// Appends in-order bytes to `ready`: into the last block's room, then into new blocks.
    /// A new block has room for twice the last block (for the first, the application's last
    /// read), at least what is left of `data` up to [`READY_BLOCK`], at most [`READY_BLOCK`]
    /// and never more than this flow may still receive, so the blocks' allocations stay within
    /// the credit: `Σ capacity ≤ credit − read`.
    fn append_ready(&mut self, mut data: &[u8]) {
        while !data.is_empty() {
            if let Some(last) = self.ready.back_mut() {
                let room = last.capacity() - last.len();
                if room > 0 {
                    let n = room.min(data.len());
                    // Within the capacity: `BytesMut` neither grows nor moves the block.
                    last.extend_from_slice(&data[..n]);
                    data = &data[n..];
                    continue;
                }
            }
            let held: usize = self.ready.iter().map(BytesMut::len).sum();
            // `data` lies below the credit, so what may still come is at least `data`.
            let may_come = (self.outstanding() as usize).saturating_sub(held);
            let hint = self
                .ready
                .back()
                .map_or(self.last_read, |b| 2 * b.capacity());
            let room = hint
                .min(may_come)
                .clamp(data.len().min(READY_BLOCK), READY_BLOCK);
            self.ready.push_back(BytesMut::with_capacity(room));
        }
    }

    /// Bytes held for this flow (contiguous and out of order).
    pub fn buffered(&self) -> u64 {
        self.ready.iter().map(|b| b.len() as u64).sum::<u64>() + self.ooo_bytes
    }

    /// Out-of-order segments held (at most [`MAX_OOO_SEGMENTS`]).
    pub fn segments(&self) -> usize {
        self.ooo.len()
    }

    /// Bytes of memory the buffered bytes occupy: the blocks' allocations (which may exceed
    /// what they hold: the first block's read front, the last block's room) plus the
    /// out-of-order copies.
    /// (Counting `ready.capacity()` alone missed the read front: up to 32 KiB of a flow's
    /// buffer showed as bookkeeping in `session_bounds`, fuzz/findings/session_bounds/
    /// bookkeeping_over_read_front_uncounted.)
    pub fn allocated(&self) -> u64 {
        self.front + self.ready.iter().map(|b| b.capacity() as u64).sum::<u64>() + self.ooo_bytes
    }

    /// Whether every byte up to the final size has been read.
    pub fn at_end(&self) -> bool {
        self.final_size == Some(self.read)
    }

    pub fn has_ready(&self) -> bool {
        // No block is empty.
        !self.ready.is_empty()
    }

    /// One past the highest byte received (in order or not).
    pub fn seen(&self) -> u64 {
        self.ooo
            .last_key_value()
            .map_or(self.received, |(&s, b)| s + b.len() as u64)
    }

    /// Raises the credit to `read + window` (a window at least this flow's own, at most what the
    /// session's receive budget leaves it) if that grants at least a quarter of the flow's own
    /// window more.
    pub fn maybe_extend_credit_to(&mut self, window: u64) -> bool {
        let target = self.read + window.max(self.window);
        if target >= self.credit + self.window / 4 {
            self.credit = target;
            true
        } else {
            false
        }
    }

    /// Credit granted beyond what the application read: what this flow may still receive and
    /// buffer.
    pub fn outstanding(&self) -> u64 {
        self.credit.saturating_sub(self.read)
    }

    pub fn clear(&mut self) {
        self.ready = VecDeque::new();
        self.front = 0;
        self.ooo.clear();
        self.ooo_bytes = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(v: &[u8]) -> Bytes {
        Bytes::copy_from_slice(v)
    }

    #[test]
    fn out_of_order_overlapping_and_duplicate_data_reassemble() {
        let mut r = RecvStream::new(1 << 20);
        assert_eq!(r.insert(5, b(b"fghij"), usize::MAX), Ok(false));
        assert_eq!(r.insert(3, b(b"defg"), usize::MAX), Ok(false));
        assert_eq!(r.insert(0, b(b"abcde"), usize::MAX), Ok(true));
        assert_eq!(r.insert(0, b(b"abc"), usize::MAX), Ok(false));
        assert_eq!(r.received, 10);
        let mut got = Vec::new();
        while let Some(c) = r.read(3) {
            got.extend_from_slice(&c);
        }
        assert_eq!(got, b"abcdefghij");
    }

    #[test]
    fn credit_and_final_size_are_enforced() {
        let mut r = RecvStream::new(INITIAL_CREDIT);
        assert!(matches!(
            r.insert(INITIAL_CREDIT, b(b"x"), usize::MAX),
            Err(RecvError::BeyondCredit { .. })
        ));
        r.set_final(4).unwrap();
        assert!(matches!(
            r.insert(3, b(b"xy"), usize::MAX),
            Err(RecvError::BeyondFinal { .. })
        ));
        assert!(r.set_final(5).is_err());
        r.insert(0, b(b"abcd"), usize::MAX).unwrap();
        assert!(!r.at_end());
        r.read(10);
        assert!(r.at_end());
    }

    proptest::proptest! {
        /// Reassembly against a model (a map offset → byte): whatever the order, overlap and
        /// duplication of the segments, the application reads exactly the stream, never more
        /// than granted credit is buffered, and data beyond credit is refused.
        #[test]
        fn reassembly_matches_a_byte_model(
            segs in proptest::collection::vec((0u64..3000, 1usize..700), 1..60),
            reads in proptest::collection::vec(1usize..900, 1..40),
        ) {
            let stream: Vec<u8> = (0..4000u32).map(|i| (i * 13 % 251) as u8).collect();
            let mut r = RecvStream::new(INITIAL_CREDIT);
            r.credit = 2500; // a small window to exercise the bound
            let mut model = std::collections::BTreeMap::new();
            let mut out = Vec::new();
            let mut reads = reads.into_iter().cycle();
            for (off, len) in segs {
                let end = (off + len as u64).min(stream.len() as u64);
                let data = Bytes::copy_from_slice(&stream[off as usize..end as usize]);
                let res = r.insert(off, data, usize::MAX);
                if end > r.credit {
                    let refused = matches!(res, Err(RecvError::BeyondCredit { .. }));
                    proptest::prop_assert!(refused, "data beyond credit accepted");
                    continue;
                }
                proptest::prop_assert!(res.is_ok());
                for o in off..end {
                    model.insert(o, stream[o as usize]);
                }
                // `received` is the model's contiguous prefix.
                let contiguous = (0..).take_while(|o| model.contains_key(o)).count() as u64;
                proptest::prop_assert_eq!(r.received, contiguous.max(r.read));
                if let Some(chunk) = r.read(reads.next().unwrap_or(1)) {
                    out.extend_from_slice(&chunk);
                }
                proptest::prop_assert!(r.credit - r.read <= 2500 + INITIAL_CREDIT);
                // Memory: a new block's room is sized by what may still come less what `ready`
                // holds (not what `ooo` holds), so blocks and out-of-order copies are each
                // within the outstanding credit, plus the first block's read front.
                proptest::prop_assert!(
                    r.allocated() <= 2 * (r.credit - r.read) + r.front,
                    "allocated {} > 2 × (credit {} - read {}) + front {}",
                    r.allocated(), r.credit, r.read, r.front
                );
            }
            while let Some(chunk) = r.read(usize::MAX) {
                out.extend_from_slice(&chunk);
            }
            proptest::prop_assert_eq!(&out[..], &stream[..out.len()]);
            proptest::prop_assert_eq!(out.len() as u64, r.received);
        }
    }

    proptest::proptest! {
        /// The session's room for out-of-order segments: whatever the segments (overlapping,
        /// duplicated, above a hole that never fills), a flow stores at most the room it is
        /// given; the segment beyond is refused with `TooManySessionSegments`, and only then.
        #[test]
        fn out_of_order_segments_stay_within_the_room_the_session_leaves(
            segs in proptest::collection::vec((1u64..2000, 1usize..6), 1..200),
            room in 0usize..40,
        ) {
            let mut r = RecvStream::new(INITIAL_CREDIT);
            for (off, len) in segs {
                let left = room.saturating_sub(r.segments());
                match r.insert(off, Bytes::from(vec![1u8; len]), left) {
                    Ok(advanced) => proptest::prop_assert!(!advanced, "byte 0 never came"),
                    Err(RecvError::TooManySessionSegments) => {
                        proptest::prop_assert_eq!(r.segments(), room);
                    }
                    Err(e) => proptest::prop_assert!(false, "{e}"),
                }
                proptest::prop_assert!(r.segments() <= room);
                proptest::prop_assert_eq!(
                    r.buffered(),
                    r.ooo.values().map(|b| b.len() as u64).sum::<u64>()
                );
            }
        }
    }

    /// The contiguous buffer grows without moving what it holds (no doubling copies): a burst
    /// of 200 kB in 1 000-byte frames after a read of that size lands in blocks of at most
    /// [`READY_BLOCK`] whose bytes stay where they were first written, the allocations exceed
    /// the burst by less than a block, and with little credit left a block is no larger than
    /// what may still come.
    #[test]
    fn the_buffer_grows_in_blocks_without_moving_its_bytes() {
        let mut r = RecvStream::new(1 << 20);
        r.credit = 1 << 20;
        let burst = 200_000usize;
        r.insert(0, Bytes::from(vec![1u8; burst]), usize::MAX)
            .unwrap();
        let mut got = 0;
        while let Some(c) = r.read(usize::MAX) {
            got += c.len();
        }
        assert_eq!(got, burst);
        assert_eq!(r.allocated(), 0, "a flow read to the end holds nothing");
        r.insert(burst as u64, Bytes::from(vec![2u8; 1000]), usize::MAX)
            .unwrap();
        let first_byte = r.ready[0].as_ptr();
        for i in 1..burst / 1000 {
            r.insert(
                (burst + i * 1000) as u64,
                Bytes::from(vec![2u8; 1000]),
                usize::MAX,
            )
            .unwrap();
        }
        assert_eq!(r.ready[0].as_ptr(), first_byte, "the first bytes moved");
        assert!(r.ready.iter().all(|b| b.capacity() <= READY_BLOCK));
        let allocated = r.allocated();
        assert!(
            allocated >= burst as u64 && allocated < (burst + READY_BLOCK) as u64,
            "{allocated}"
        );
        let mut got = Vec::new();
        while let Some(c) = r.read(usize::MAX) {
            got.extend_from_slice(&c);
        }
        assert_eq!(got, vec![2u8; burst]);
        // Little credit left: the block is cut to what may still arrive.
        r.credit = r.read + 5_000;
        r.insert(r.read, Bytes::from(vec![3u8; 100]), usize::MAX)
            .unwrap();
        assert_eq!(r.allocated(), 5_000);
    }

    #[test]
    fn credit_grows_as_the_application_reads() {
        let mut r = RecvStream::new(INITIAL_CREDIT);
        r.insert(0, Bytes::from(vec![0u8; 100_000]), usize::MAX)
            .unwrap();
        assert!(!r.maybe_extend_credit_to(0));
        let mut got = 0;
        while let Some(c) = r.read(100_000 - got) {
            got += c.len();
        }
        assert_eq!(got, 100_000);
        assert!(r.maybe_extend_credit_to(0));
        assert_eq!(r.credit, 100_000 + INITIAL_CREDIT);
    }
}
