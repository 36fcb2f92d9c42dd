//! Helpers shared by the core's integration tests.

#![allow(dead_code)]

use std::time::Duration;

use bytes::BytesMut;
use gtcp::wire::Frame;
use gtcp::{ConnId, ProtocolError, Session};

/// What one `handle_input` call gets at most: the tunnel's read buffer.
pub const READ_BUFFER: usize = gtcp::driver::APP_READ;

/// Feeds `frames` as the tunnel's reader would: packed into read buffers of `READ_BUFFER`
/// bytes, each handed to `handle_input` whole, the events taken after each (the driver acts on
/// them at once). Returns the first protocol error.
pub fn feed(s: &mut Session, frames: impl Iterator<Item = Frame>) -> Result<(), ProtocolError> {
    let mut buf = BytesMut::with_capacity(READ_BUFFER);
    let input = |s: &mut Session, buf: &mut BytesMut| {
        let r = s.handle_input(Duration::ZERO, ConnId(1), buf);
        while s.poll_event().is_some() {}
        r
    };
    for f in frames {
        if buf.len() + f.encoded_len() > READ_BUFFER {
            input(s, &mut buf)?;
            buf = BytesMut::with_capacity(READ_BUFFER);
        }
        f.encode(&mut buf);
    }
    input(s, &mut buf)
}
