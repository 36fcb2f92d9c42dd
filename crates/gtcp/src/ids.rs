//! Identifiers of flows and connections.
//!
//! Both are assigned by the *opening* side (the client), so the two endpoints of a session agree
//! on them without negotiation: flow ids count up from 1 in the order applications connect, and a
//! connection id names one pool connection of the session.

use std::fmt;

/// One application flow: one application TCP connection accepted by the client, carried in both
/// directions. In paper 000's notation this is a *queue* `j`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FlowId(pub u64);

/// One pool connection: a real TCP connection (a *server* `i` of paper 000), owned by exactly one
/// flow for its whole life, exactly as plain TCP would have it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ConnId(pub u64);

impl fmt::Display for FlowId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "flow#{}", self.0)
    }
}

impl fmt::Display for ConnId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "conn#{}", self.0)
    }
}
