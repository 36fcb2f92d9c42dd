//! The tunnel's record layer (`crates/tunnel/src/record.rs`) on arbitrary input.
//!
//! The first byte picks the mode:
//! * even: the rest is the wire, fed to an `Opener` in pieces whose sizes come from the input
//!   (so forged headers, lengths and tags of every kind arrive split anywhere);
//! * odd: the rest is plaintext, sealed by the peer's `Sealer` in pieces, then one byte of the
//!   sealed stream is altered (its position and mask from the input; mask 0 leaves it intact)
//!   and the stream delivered in pieces.
//!
//! Bounded work per input (so the fuzzer runs thousands of inputs a second, not a hundred): at
//! most [`SMALL_RECORDS`] records are sealed from the input-chosen piece size, the rest of the
//! plaintext in one call (full 16 KiB records); at most [`SMALL_PIECES`] pieces of the
//! input-chosen size are delivered, the rest in pieces of one full record's size. Unbounded, a
//! 20-byte input sealed thousands of 1-byte records (19 wire bytes each) and fed the opener
//! a hundred thousand 1-byte pieces.
//!
//! Properties checked (any violation panics):
//! * nothing panics;
//! * state stays bounded: after each call the opener leaves at most one record's bytes
//!   (`HEADER_LEN + MAX_RECORD + TAG_LEN`) of unverified input;
//! * what is handed over is exactly the plaintext of the records that verified, in order:
//!   intact, all of it; altered, a strict prefix, then an error (and every later call fails
//!   too: nothing after a failure is ever handed over) or, if the last record's length was
//!   made larger, that record left waiting; forged bytes
//!   (even mode) never verify, so nothing at all is handed over.

#![no_main]

use bytes::BytesMut;
use libfuzzer_sys::fuzz_target;
use tunnel::record::{RecordLayer, Side, HEADER_LEN, MAX_RECORD, TAG_LEN};

const PSK: &[u8] = &[0x42; 32];
/// Records sealed one input-chosen piece at a time; the rest of the plaintext is sealed in one
/// call.
const SMALL_RECORDS: usize = 64;
/// Pieces of the input-chosen size delivered; the rest arrives in pieces of one full record.
const SMALL_PIECES: usize = 1024;

fn layers() -> (RecordLayer, RecordLayer) {
    let (s, c) = ([1u8; 32], [2u8; 32]);
    (
        RecordLayer::new(PSK, &s, &c, Side::Client),
        RecordLayer::new(PSK, &s, &c, Side::Server),
    )
}

/// Feeds `wire` to the server's opener in pieces of sizes cycling through `cuts`; returns
/// what was handed over, whether an error occurred, and the bytes left waiting (an
/// incomplete record).
fn deliver(wire: &[u8], cuts: &[u8]) -> (Vec<u8>, bool, usize) {
    let (_, mut server) = layers();
    let mut inbound = BytesMut::new();
    let mut plain = BytesMut::new();
    let mut handed = Vec::new();
    let mut at = 0;
    let mut i = 0;
    let mut failed = false;
    while at < wire.len() {
        let step = if i < SMALL_PIECES {
            1 + cuts.get(i % cuts.len().max(1)).copied().unwrap_or(255) as usize * 97
        } else {
            HEADER_LEN + MAX_RECORD + TAG_LEN
        };
        i += 1;
        let end = (at + step).min(wire.len());
        inbound.extend_from_slice(&wire[at..end]);
        at = end;
        match server.opener.open(&mut inbound, &mut plain) {
            Ok(n) => assert!(n <= plain.len()),
            Err(e) => {
                assert!(
                    server.opener.open(&mut inbound, &mut plain).is_err(),
                    "poisoned after {e}"
                );
                failed = true;
            }
        }
        handed.extend_from_slice(&plain);
        plain.clear();
        if failed {
            break;
        }
        assert!(
            inbound.len() < HEADER_LEN + MAX_RECORD + TAG_LEN,
            "unverified bytes held"
        );
    }
    (handed, failed, inbound.len())
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode % 2 == 0 {
        // Forged wire bytes: without the key nothing verifies.
        let (handed, _, _) = deliver(rest, &[mode / 2]);
        assert!(handed.is_empty(), "forged bytes were handed over");
        return;
    }
    // Sealed plaintext, maybe altered in one byte.
    if rest.len() < 6 {
        return;
    }
    let (ctl, plain) = rest.split_at(6);
    let (mut client, _) = layers();
    // Repeat the plaintext so that records fill up to the 16 KiB cap.
    let reps = 1 + (ctl[0] as usize % 8) * (MAX_RECORD / plain.len().max(1)).min(64);
    // (`repeat` copies by doubling; a byte-by-byte `cycle()` called libFuzzer's comparison
    // hook per byte.)
    let msg: Vec<u8> = plain.repeat(reps);
    let mut wire = BytesMut::new();
    let piece = 1 + ctl[1] as usize * 131;
    let small = msg.len().min(piece * SMALL_RECORDS);
    for chunk in msg[..small].chunks(piece) {
        client.sealer.seal(chunk, &mut wire).unwrap();
    }
    client.sealer.seal(&msg[small..], &mut wire).unwrap();
    // An empty plaintext seals to no record at all: then there is no byte to alter.
    let altered = !wire.is_empty() && ctl[2] != 0;
    let mask = ctl[2];
    if altered {
        let pos = u16::from_be_bytes([ctl[3], ctl[4]]) as usize * 7 % wire.len();
        wire[pos] ^= mask;
    }
    let (handed, failed, waiting) = deliver(&wire, &ctl[5..6]);
    if !altered {
        assert!(!failed && waiting == 0, "an intact stream failed");
        assert_eq!(handed, msg, "an intact stream changed");
    } else {
        // The last record's length made larger only leaves it waiting for bytes that never come.
        assert!(failed || waiting > 0, "an altered byte went unnoticed");
        assert!(
            handed.len() < msg.len() && msg.starts_with(&handed),
            "unverified bytes handed over"
        );
    }
});
