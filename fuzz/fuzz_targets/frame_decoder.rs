//! The frame decoder and the four handshake decoders on arbitrary bytes.
//!
//! Properties checked (any violation panics, which libFuzzer reports as a crash):
//! * decoding never panics, whatever the bytes;
//! * `Ok(None)` ("need more bytes") leaves the buffer untouched;
//! * a frame that decodes re-encodes to exactly the bytes it was decoded from, `encoded_len`
//!   agrees, and every strict prefix of those bytes is `Ok(None)` (so a frame split across reads
//!   decodes the same);
//! * a decoder with a smaller payload cap agrees with the default one, or refuses with
//!   `PayloadTooLarge`;
//! * the same round trip for `ClientHello`, `ServerHello`, `ClientAuth` and `VerdictMessage`
//!   (wire version 5).

#![no_main]

use bytes::BytesMut;
use gtcp::wire::handshake::{ClientAuth, ClientHello, ServerHello, VerdictMessage};
use gtcp::wire::{Frame, FrameDecoder, WireError};
use libfuzzer_sys::fuzz_target;

/// Cuts checked for the prefix property: every one up to this, and the last few.
const PREFIX_CUTS: usize = 40;

fuzz_target!(|data: &[u8]| {
    let full = FrameDecoder::default();
    let small = FrameDecoder::new(1000);
    let mut buf = BytesMut::from(data);
    loop {
        let before = buf.clone();
        let small_result = small.decode(&mut before.clone());
        match full.decode(&mut buf) {
            Ok(Some(frame)) => {
                let consumed = before.len() - buf.len();
                check_frame(&full, &frame, &before[..consumed]);
                match small_result {
                    Ok(Some(f)) => assert_eq!(f, frame, "decoders disagree"),
                    Err(WireError::PayloadTooLarge { .. }) => {}
                    other => panic!("small decoder gave {other:?} where the full one decoded"),
                }
            }
            Ok(None) => {
                assert_eq!(buf, before, "an incomplete frame must not be consumed");
                // The smaller cap may refuse a payload it can already see is too large.
                assert!(
                    matches!(
                        small_result,
                        Ok(None) | Err(WireError::PayloadTooLarge { .. })
                    ),
                    "small decoder gave {small_result:?} on an incomplete frame"
                );
                break;
            }
            Err(_) => break,
        }
    }

    let mut b = BytesMut::from(data);
    if let Ok(Some(m)) = ClientHello::decode(&mut b) {
        let mut enc = BytesMut::new();
        m.encode(&mut enc);
        assert_eq!(&enc[..], &data[..ClientHello::LEN]);
        assert_eq!(b.len(), data.len() - ClientHello::LEN);
    }
    let mut b = BytesMut::from(data);
    if let Ok(Some(m)) = ServerHello::decode(&mut b) {
        let mut enc = BytesMut::new();
        m.encode(&mut enc);
        assert_eq!(&enc[..], &data[..ServerHello::LEN]);
        assert_eq!(b.len(), data.len() - ServerHello::LEN);
    }
    let mut b = BytesMut::from(data);
    if let Ok(Some(m)) = ClientAuth::decode(&mut b) {
        let mut enc = BytesMut::new();
        m.encode(&mut enc);
        assert_eq!(&enc[..], &data[..ClientAuth::LEN]);
        assert_eq!(b.len(), data.len() - ClientAuth::LEN);
    }
    let mut b = BytesMut::from(data);
    if let Ok(Some(m)) = VerdictMessage::decode(&mut b) {
        let mut enc = BytesMut::new();
        m.encode(&mut enc);
        assert_eq!(&enc[..], &data[..VerdictMessage::LEN]);
        assert_eq!(b.len(), data.len() - VerdictMessage::LEN);
    }
});

fn check_frame(dec: &FrameDecoder, frame: &Frame, wire: &[u8]) {
    let mut enc = BytesMut::new();
    frame.encode(&mut enc);
    assert_eq!(
        &enc[..],
        wire,
        "decode -> encode is not the identity for {frame:?}"
    );
    assert_eq!(frame.encoded_len(), wire.len(), "encoded_len of {frame:?}");
    let cuts = (0..wire.len().min(PREFIX_CUTS)).chain(wire.len().saturating_sub(4)..wire.len());
    for cut in cuts {
        let mut part = BytesMut::from(&wire[..cut]);
        assert_eq!(dec.decode(&mut part), Ok(None), "prefix {cut} of {frame:?}");
        assert_eq!(part.len(), cut, "prefix {cut} of {frame:?} was consumed");
    }
}
