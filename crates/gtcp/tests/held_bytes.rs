//! `Session::held_bytes` against the heap the session really holds, measured on glibc: each
//! allocation is counted as the chunk glibc gives it (`malloc_usable_size` + its 8-byte
//! header), not the size asked for, so a one-byte segment's payload counts 32 bytes as it does
//! in the resident size. The per-segment and per-flow constants of `gtcp::session::caps` are
//! these measurements rounded up: the tests fail if a constant falls below what is measured
//! (a budget that undercounts) or above twice it (a guess, not a measurement).
//!
//! The heap counter is per thread (each test's session lives on its test's thread), so the
//! tests run in parallel.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use bytes::Bytes;
use common::feed;
use gtcp::flow::RecvError;
use gtcp::pair::{Pair, Side, Source};
use gtcp::session::caps::{
    FLOW_BOOKKEEPING, MAX_OOO_SEGMENTS, MAX_SESSION_OOO_SEGMENTS, MAX_UNOPENED_FLOWS,
    SEGMENT_BOOKKEEPING,
};
use gtcp::wire::{DataFrame, Frame};
use gtcp::{Config, ConnId, FlowId, ProtocolError, Role, Session};

/// Live heap bytes of the process, counted as glibc's chunks.
struct Chunks;

thread_local! {
    /// Live heap bytes allocated (less those freed) by this thread: the test harness's own
    /// threads (results, captured output) allocate while a test runs and must not count.
    static LIVE: Cell<isize> = const { Cell::new(0) };
}

/// Adds `d` to this thread's count (nothing while the thread is being torn down).
fn count(d: isize) {
    let _ = LIVE.try_with(|c| c.set(c.get() + d));
}

/// The chunk glibc holds for the allocation at `p`: its usable size plus the size field in
/// front of it (the next chunk's `prev_size` is part of the usable size while it is in use).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn chunk(p: *mut u8, _l: Layout) -> isize {
    // SAFETY: `p` is a live allocation of the system allocator (glibc's malloc).
    (unsafe { libc::malloc_usable_size(p.cast()) } + 8) as isize
}

/// Elsewhere: the size asked for.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn chunk(_p: *mut u8, l: Layout) -> isize {
    l.size() as isize
}

// SAFETY: every call is forwarded to the system allocator unchanged; only a counter is kept.
unsafe impl GlobalAlloc for Chunks {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        // SAFETY: same layout as asked.
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            count(chunk(p, l));
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        count(-chunk(p, l));
        // SAFETY: `p` came from `alloc` with this layout.
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static A: Chunks = Chunks;

fn byte(flow: u64, offset: u64) -> Frame {
    Frame::Data(DataFrame {
        flow: FlowId(flow),
        offset,
        payload: Bytes::from_static(b"x"),
    })
}

fn acceptor() -> Session {
    let mut s = Session::new(Role::Acceptor, Config::default()).expect("config");
    // A warm spare: its first frame need not open a flow.
    s.add_connection(ConnId(1), None).expect("connection");
    s
}

fn live() -> isize {
    LIVE.with(Cell::get)
}

/// The order in which an attacking session sends each flow's segments (each order leaves the
/// flows' B-trees differently full).
#[derive(Debug, Clone, Copy)]
enum Order {
    Ascending,
    Descending,
    /// A stride through the offsets (97 is prime to the count): inserts land between held
    /// segments all the time.
    Scattered,
}

/// The `i`-th (from 1) segment offset of a flow that gets `n` of them, in `order`: even
/// offsets above byte 0, which never comes, so none is contiguous.
fn offset(order: Order, i: u64, n: u64) -> u64 {
    let k = match order {
        Order::Ascending => i,
        Order::Descending => n + 1 - i,
        Order::Scattered => (i * 97) % n + 1,
    };
    2 * k
}

/// The keyed one-byte-segment attack on one session: [`MAX_UNOPENED_FLOWS`] flows named by
/// data and never opened, each sent one-byte segments one byte apart (none contiguous), spread
/// over the flows so that no flow reaches its own cap, in each [`Order`]. The session holds
/// [`MAX_SESSION_OOO_SEGMENTS`] and refuses the next (a protocol error on the connection that
/// carried it); what it holds on the heap is within `held_bytes`, and `held_bytes` is within
/// 1.5 × the heap. Per segment and per flow the heap is within the documented constants and
/// above half of them.
#[test]
fn held_bytes_counts_the_heap_of_a_one_byte_segment_attack() {
    for order in [Order::Ascending, Order::Descending, Order::Scattered] {
        attack(order);
    }
}

fn attack(order: Order) {
    let flows = MAX_UNOPENED_FLOWS as u64;
    let per_flow = (MAX_SESSION_OOO_SEGMENTS / MAX_UNOPENED_FLOWS) as u64;
    assert!(per_flow < MAX_OOO_SEGMENTS as u64);
    let mut s = acceptor();
    let base = live();
    let base_held = s.held_bytes();
    // The flows, each named by its first byte (in order: no segment yet).
    let first = 1000;
    feed(&mut s, (first..first + flows).map(|f| byte(f, 0))).expect("flows named");
    let after_flows = live();
    let held_flows = s.held_bytes();
    assert_eq!(s.out_of_order_segments(), 0);
    // One-byte segments above a gap: the session's bound's worth, then one more.
    let segments = (1..=per_flow)
        .flat_map(|i| (first..first + flows).map(move |f| byte(f, 1 + offset(order, i, per_flow))));
    feed(&mut s, segments).expect("within the session's bound");
    assert_eq!(s.out_of_order_segments(), MAX_SESSION_OOO_SEGMENTS);
    let r = feed(&mut s, std::iter::once(byte(first, 2 * per_flow + 3)));
    assert_eq!(
        r,
        Err(ProtocolError::Flow {
            flow: FlowId(first),
            source: RecvError::TooManySessionSegments
        })
    );
    assert_eq!(s.out_of_order_segments(), MAX_SESSION_OOO_SEGMENTS);
    let heap = live() - base;
    let held = s.held_bytes() - base_held;
    let per_flow_heap = (after_flows - base) as f64 / flows as f64;
    let per_segment_heap = (live() - after_flows) as f64 / MAX_SESSION_OOO_SEGMENTS as f64;
    // The payload bytes are in `held_bytes` as bytes; the rest of a segment's chunk is its
    // bookkeeping.
    let per_segment_bookkeeping = per_segment_heap - 1.0;
    let per_flow_held = (held_flows - base_held) as f64 / flows as f64;
    println!(
        "{order:?}: {flows} flows: {per_flow_heap:.0} heap bytes each ({per_flow_held:.0} in \
         held_bytes); {MAX_SESSION_OOO_SEGMENTS} one-byte segments: {per_segment_heap:.1} heap \
         bytes each; heap {heap} bytes, held_bytes {held}"
    );
    assert!(held as isize >= heap, "held_bytes {held} < heap {heap}");
    assert!(
        held as f64 <= 1.5 * heap as f64,
        "held_bytes {held} > 1.5 × heap {heap}"
    );
    for (what, measured, constant) in [
        ("segment", per_segment_bookkeeping, SEGMENT_BOOKKEEPING),
        ("flow", per_flow_heap, FLOW_BOOKKEEPING),
    ] {
        assert!(
            measured <= constant as f64 && measured > constant as f64 / 2.0,
            "{order:?}: per {what}: {measured:.1} heap bytes measured, constant {constant}"
        );
    }
    // Everything goes with the session.
    drop(s);
    assert!(live() - base < 4096, "{} bytes left", live() - base);
}

/// A flow whose bytes are all acknowledged holds no send buffer: 64 idle flows (each on its
/// warm connection) write 1 000 bytes each (copied into the flows' buffers), the peer reads and
/// acknowledges them, and the opener's session holds less than 64 bytes per flow more than the
/// same session whose flows wrote nothing, with nothing left in `buffer_bytes`: the buffer's
/// tail and its segment lists are given up once all they held is acknowledged. A buffer that
/// kept its tail held at least the 1 000 bytes per flow; one that kept its lists, 121.
#[test]
fn flows_whose_bytes_are_acknowledged_hold_no_send_buffer() {
    let per_flow = heap_per_flow_after(Side::Opener);
    assert!(
        per_flow < 64.0,
        "{per_flow:.0} heap bytes more per flow after its bytes were acknowledged"
    );
}

/// A flow whose bytes are all read holds no receive buffer: the acceptor of the same exchange
/// holds less than 64 bytes per flow more than when nothing was sent (its block list and
/// out-of-order map are given up once read to the end).
#[test]
fn flows_whose_bytes_are_read_hold_no_receive_buffer() {
    let per_flow = heap_per_flow_after(Side::Acceptor);
    assert!(
        per_flow < 64.0,
        "{per_flow:.0} heap bytes more per flow after its bytes were read"
    );
}

/// Heap bytes per flow that `side`'s session holds after 64 flows each wrote 1 000 bytes
/// (opener to acceptor) that were read and acknowledged, over the same session when they wrote
/// nothing.
fn heap_per_flow_after(side: Side) -> f64 {
    const FLOWS: usize = 64;
    const WRITE: usize = 1000;
    let idle = session_heap(side, FLOWS, 0);
    let wrote = session_heap(side, FLOWS, WRITE);
    let per_flow = (wrote - idle) as f64 / FLOWS as f64;
    println!(
        "{side:?}, {FLOWS} flows: heap {idle} bytes; after {WRITE} bytes each written, read and \
         acknowledged {wrote} bytes, {per_flow:.0} more per flow"
    );
    per_flow
}

/// The heap `side`'s session of a [`Pair`] holds (freed when it is dropped) with `flows` flows
/// open, each on its own connection, after each wrote `write` bytes from the opener and the
/// acceptor read and acknowledged them all.
fn session_heap(side: Side, flows: usize, write: usize) -> isize {
    let mut p = Pair::new(Config::default()).expect("config");
    let mut ids = Vec::new();
    for _ in 0..flows {
        let c = p.add_connection(None).expect("connection");
        ids.push(
            p.open_flow(Some(c), "r", 0, None, Source::Pattern)
                .expect("flow"),
        );
    }
    assert!(p.pump(1000, usize::MAX), "the opened flows settle");
    for &f in &ids {
        assert_eq!(p.app_write(Side::Opener, f, write), write);
    }
    assert!(p.pump(1000, usize::MAX), "the writes settle");
    assert_eq!(
        p.opener().counters().send_buffered_bytes,
        0,
        "every byte is acknowledged"
    );
    assert_eq!(p.session(side).buffer_bytes(), 0);
    let role = match side {
        Side::Opener => Role::Opener,
        Side::Acceptor => Role::Acceptor,
    };
    let spare = Session::new(role, Config::default()).expect("config");
    let session = std::mem::replace(p.session_mut(side), spare);
    let before = live();
    drop(session);
    before - live()
}
