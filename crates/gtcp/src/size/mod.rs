//! Size knowledge for size-aware policies (SRPT, FAIR).
//!
//! Sources, best first: an explicit hint ([`Session::open_flow`](crate::Session::open_flow)),
//! an HTTP/1.1 `Content-Length` seen in the responding direction ([`HttpResponseSizer`], opt-in),
//! and the end of the stream reached while the sender reads ahead within its send buffer
//! ([`Session::finish`](crate::Session::finish)).

mod http;

pub use http::HttpResponseSizer;
