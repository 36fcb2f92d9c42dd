//! Regressions found by the fuzz targets in `fuzz/` (see fuzz/README.md), as plain API calls so
//! they survive changes to the fuzz input format. Each names the fuzz input that found it.

use std::path::Path;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use gtcp::wire::{DataFrame, Frame, FrameDecoder};
use gtcp::{Config, ConnId, Event, FlowId, ProtocolError, Role, Session};

const T0: Duration = Duration::ZERO;

fn acceptor() -> Session {
    Session::new(Role::Acceptor, Config::default()).expect("default config")
}

fn frame(f: Frame) -> BytesMut {
    let mut b = BytesMut::new();
    f.encode(&mut b);
    b
}

fn open(flow: u64) -> Frame {
    Frame::Open(gtcp::wire::OpenFrame {
        flow: FlowId(flow),
        route: "web".into(),
        class: 0,
        size_hint: None,
    })
}

/// Was a bug in `acceptor_flow` (session/mod.rs), fixed in 3594b2d (flow ids capped at
/// `MAX_FLOW_ID`, only an accepted id anchors the session): on a fresh acceptor the first flow id
/// seen set `retired_below = id − max_flows`, then `horizon = retired_below + 2 × max_flows`
/// overflowed for an id near `u64::MAX` ("attempt to add with overflow" with overflow checks, as
/// in tests and fuzzing). In release it wrapped and the id was refused, but `retired_below`
/// stayed near `u64::MAX`: every later flow of the session was taken for a retired one, its
/// `Open` answered as stale and never reported, its data acknowledged and dropped.
///
/// Found by `session_input`, input (hex) `dec8c80f299d1940ffffd3ffffffffffffffffffffd1`:
/// `AcceptConn { owner: Some(18446744073709551615) }` on a fresh acceptor, i.e. a `ClientAuth`
/// naming owner flow `u64::MAX`.
#[test]
fn huge_owner_on_a_fresh_acceptor_is_refused_without_panic() {
    let mut s = acceptor();
    assert!(s.add_connection(ConnId(1), Some(FlowId(u64::MAX))).is_err());
    // The refused id must not have poisoned the session: flow 1 still opens.
    flow_1_opens(&mut s, ConnId(2));
}

/// Flow 1 opens on a new connection `conn` (and is not taken for a retired flow).
fn flow_1_opens(s: &mut Session, conn: ConnId) {
    s.add_connection(conn, Some(FlowId(1)))
        .expect("flow 1 on a new connection");
    let mut b = frame(open(1));
    s.handle_input(T0, conn, &mut b).expect("open flow 1");
    let opened = std::iter::from_fn(|| s.poll_event())
        .any(|e| matches!(e, Event::FlowOpened { flow, .. } if flow == FlowId(1)));
    assert!(opened, "flow 1 opened");
}

/// Same bug through the input path: the first frame a fresh acceptor decodes names flow
/// `u64::MAX` (a data frame on a warm spare connection).
#[test]
fn huge_first_flow_id_on_a_fresh_acceptor_is_an_error_not_a_panic() {
    let mut s = acceptor();
    s.add_connection(ConnId(1), None).expect("warm spare");
    let mut b = frame(Frame::Data(DataFrame {
        flow: FlowId(u64::MAX),
        offset: 0,
        payload: Bytes::new(),
    }));
    assert_eq!(
        s.handle_input(T0, ConnId(1), &mut b),
        Err(ProtocolError::ImpossibleFlow(FlowId(u64::MAX)))
    );
    // The connection is closed; the session goes on and flow 1 works on another one.
    s.connection_closed(T0, ConnId(1));
    flow_1_opens(&mut s, ConnId(2));
}

/// The committed seed corpus of `frame_decoder` decodes, and re-encodes to its bytes, in CI too.
#[test]
fn frame_decoder_seeds_roundtrip() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus-seeds/frame_decoder");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return; // a crate checkout without the fuzz directory
    };
    let dec = FrameDecoder::default();
    let mut frames = 0;
    for entry in entries {
        let path = entry.expect("dir entry").path();
        let bytes = std::fs::read(&path).expect("seed");
        if bytes.first().is_some_and(|&t| t >= 0xF0) {
            handshake_seed_roundtrips(&path, &bytes);
            continue;
        }
        let mut buf = BytesMut::from(&bytes[..]);
        let mut again = BytesMut::new();
        while !buf.is_empty() {
            let f = dec
                .decode(&mut buf)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
                .unwrap_or_else(|| panic!("{}: incomplete frame", path.display()));
            f.encode(&mut again);
            frames += 1;
        }
        assert_eq!(&again[..], &bytes[..], "{}", path.display());
    }
    assert!(frames > 0, "no frame seeds in {}", dir.display());
}

/// A handshake seed is a whole message of the current wire version that re-encodes to itself.
fn handshake_seed_roundtrips(path: &Path, bytes: &[u8]) {
    use gtcp::wire::handshake::{ClientAuth, ClientHello, ServerHello, VerdictMessage};
    use gtcp::wire::WireError;
    fn one<T>(
        path: &Path,
        b: &mut BytesMut,
        decode: fn(&mut BytesMut) -> Result<Option<T>, WireError>,
        encode: fn(&T, &mut BytesMut),
    ) -> BytesMut {
        let m = decode(b)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .unwrap_or_else(|| panic!("{}: incomplete", path.display()));
        let mut again = BytesMut::new();
        encode(&m, &mut again);
        again
    }
    let mut b = BytesMut::from(bytes);
    let again = match bytes[0] {
        0xF1 => one(path, &mut b, ClientHello::decode, ClientHello::encode),
        0xF2 => one(path, &mut b, ServerHello::decode, ServerHello::encode),
        0xF3 => one(path, &mut b, ClientAuth::decode, ClientAuth::encode),
        0xF4 => one(path, &mut b, VerdictMessage::decode, VerdictMessage::encode),
        t => panic!("{}: unknown handshake type 0x{t:02x}", path.display()),
    };
    assert!(b.is_empty(), "{}: bytes left over", path.display());
    assert_eq!(&again[..], bytes, "{}", path.display());
}
