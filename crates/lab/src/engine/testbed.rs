//! Constants of the real-TCP testbed runs.

/// Payload per full-sized packet over its size on the wire (Ethernet + IPv4 + TCP with
/// timestamps): the share of the tbf rate TCP can use.
pub(crate) const GOODPUT_SHARE: f64 = 1448.0 / 1514.0;
