//! The driver contract: how every driver of a [`Session`](crate::Session) — the tunnel on real
//! sockets, the simulator on simulated TCP — must drive it, so that what the simulator measures
//! is what the tunnel ships. A driver takes these numbers from [`DriverProfile`] and never
//! re-types them.
//!
//! # The contract
//!
//! 1. **Applications.** An application's bytes go in with [`Session::write`] while
//!    [`Session::send_capacity`] is above 0, in reads of at most [`DriverProfile::app_read`]
//!    bytes; when it is 0, or a write took less than offered, the driver waits for
//!    [`Event::FlowWritable`] and polls nothing meanwhile. Either registers the flow: the event
//!    comes once its room is back at [`Session::writable_threshold`] (whatever freed it: its
//!    bytes sent, the session's lend budget freed, a connection added), or when the flow takes
//!    no more bytes (a reset; the next call then returns the error), so a waiting application
//!    never waits with room nor past its flow's end. The end of the application's stream is
//!    [`Session::finish`], an abort [`Session::reset`]. Delivered bytes are read with
//!    [`Session::read`] after [`Event::FlowReadable`], until it is `Blocked`.
//! 2. **Writing on a pool connection (Algorithm 4, `On_connection_ready`).** After
//!    [`Event::ConnReady`], and only while the connection's socket can take bytes *and* its
//!    not-yet-sent backlog is below [`DriverProfile::notsent_lowat`] (`TCP_NOTSENT_LOWAT` on a
//!    real socket), the driver calls [`Session::poll_transmit`] with at most
//!    [`DriverProfile::poll_max`] bytes and writes what it returns, until it returns 0. A budget
//!    smaller than the next frame is allowed (a socket with little room): the poll returns 0
//!    and [`Session::conn_ready`] stays `true`, so the driver polls again once the socket has
//!    more room; after a 0 with `conn_ready` `false` the connection is drained and waits for
//!    the next [`Event::ConnReady`]. While [`Session::conn_ready`] stays `true` after a poll, a
//!    driver whose socket cuts writes into segments may keep back a tail shorter than one
//!    segment and poll again at once, writing it with the next poll's bytes (the tunnel does:
//!    a short tail is a segment of its own on a `TCP_NODELAY` socket; the simulator's TCP has
//!    no per-segment cost, so it writes everything). Each
//!    chunk in a poll is its own scheduling decision; a poll holds at most
//!    [`DriverProfile::chunks_per_wakeup`] chunks, so the kernel never holds more than about that
//!    many chunks plus the low-water mark of decisions already made.
//! 3. **Reading a pool connection.** Every byte that arrives goes to
//!    [`Session::handle_input`]; an error closes that connection (then step 4's last call).
//! 4. **Closing.** At [`Event::ConnDone`] the driver writes nothing more on the connection and
//!    half-closes it (TCP FIN), keeps reading (and handing to `handle_input`) until the peer's
//!    end of stream, then calls [`Session::connection_closed`]. A connection that dies
//!    (reset, error) is reported with `connection_closed` at once. Before that last call, the
//!    driver may check the invariant with [`ConnCounters::check_closed`](crate::ConnCounters::check_closed).
//! 5. **Opening (opener).** [`Event::ConnNeeded`] asks for a replacement connection owned by the
//!    flow; [`Session::add_connection`] registers an authenticated one.
//! 6. **Time.** The session keeps its protocol timers (keepalives, dead peers, the admission
//!    tick): the driver calls [`Session::handle_timeout`] at the instant
//!    [`Session::poll_timeout`] names, and again after adding a connection (its clocks start
//!    then). At [`Event::ConnDead`] it closes the connection as a dead one (step 4's last call).
//!
//! [`Session`]: crate::Session
//! [`Session::write`]: crate::Session::write
//! [`Session::send_capacity`]: crate::Session::send_capacity
//! [`Session::writable_threshold`]: crate::Session::writable_threshold
//! [`Session::finish`]: crate::Session::finish
//! [`Session::reset`]: crate::Session::reset
//! [`Session::read`]: crate::Session::read
//! [`Session::poll_transmit`]: crate::Session::poll_transmit
//! [`Session::conn_ready`]: crate::Session::conn_ready
//! [`Session::handle_input`]: crate::Session::handle_input
//! [`Session::connection_closed`]: crate::Session::connection_closed
//! [`Session::add_connection`]: crate::Session::add_connection
//! [`Event::FlowWritable`]: crate::Event::FlowWritable
//! [`Event::FlowReadable`]: crate::Event::FlowReadable
//! [`Event::ConnReady`]: crate::Event::ConnReady
//! [`Event::ConnDone`]: crate::Event::ConnDone
//! [`Event::ConnNeeded`]: crate::Event::ConnNeeded
//! [`Event::ConnDead`]: crate::Event::ConnDead
//! [`Session::poll_timeout`]: crate::Session::poll_timeout
//! [`Session::handle_timeout`]: crate::Session::handle_timeout

use crate::session::Config;
use crate::wire::DATA_HEADER_LEN;

/// Data chunks one wake-up of a writable connection may carry (default 4). Writing four per
/// system call is what lets one flow pass 5 Gbit/s on loopback; each is still its own decision.
pub const DEFAULT_CHUNKS_PER_WAKEUP: usize = 4;

/// Bytes of a poll kept for control frames (acknowledgements, ends, opening frames).
pub const CONTROL_ROOM: usize = 2048;

/// Largest application read handed over at once, bytes (256 KiB).
pub const APP_READ: usize = 256 * 1024;

/// How a driver drives a session; see the [module documentation](self).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DriverProfile {
    /// Largest payload of one data frame (the session's [`Config::chunk`]).
    pub chunk: u32,
    /// Data chunks per wake-up of a writable connection (default 4).
    pub chunks_per_wakeup: usize,
    /// Poll only while the connection's not-yet-sent backlog is below this many bytes
    /// (`TCP_NOTSENT_LOWAT`; default one chunk).
    pub notsent_lowat: u32,
    /// Largest application read handed over at once (default 256 KiB).
    pub app_read: usize,
}

impl DriverProfile {
    /// The profile for a session with `config`: one chunk of low-water mark, four chunks per
    /// wake-up.
    pub fn new(config: &Config) -> Self {
        DriverProfile {
            chunk: config.chunk,
            chunks_per_wakeup: DEFAULT_CHUNKS_PER_WAKEUP,
            notsent_lowat: config.chunk,
            app_read: APP_READ,
        }
    }

    /// Largest [`poll_transmit`](crate::Session::poll_transmit) per wake-up: the chunks with
    /// their data headers, plus [`CONTROL_ROOM`].
    pub fn poll_max(&self) -> usize {
        self.chunks_per_wakeup.max(1) * (self.chunk as usize + DATA_HEADER_LEN) + CONTROL_ROOM
    }
}

impl Default for DriverProfile {
    fn default() -> Self {
        DriverProfile::new(&Config::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poll_max_holds_the_chunks_their_headers_and_control_room() {
        let p = DriverProfile::default();
        assert_eq!(p.notsent_lowat, 16 * 1024);
        assert_eq!(
            p.poll_max(),
            4 * (16 * 1024 + DATA_HEADER_LEN) + CONTROL_ROOM
        );
        let one = DriverProfile {
            chunks_per_wakeup: 0,
            ..p
        };
        assert_eq!(one.poll_max(), 16 * 1024 + DATA_HEADER_LEN + CONTROL_ROOM);
    }
}
