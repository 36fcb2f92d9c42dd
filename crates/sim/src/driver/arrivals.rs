//! Flow arrivals as driver timers, shared by every driver.
//!
//! Proposition 1 compares drivers on the *same sample path*: for that, flows must arrive
//! through the same events in the same order under every driver (events at equal times
//! fire in scheduling order). Every driver should therefore take its flows from
//! [`Arrivals`], which schedules exactly one pending timer — the next arrival — at a time.

use crate::workload::{FlowSource, FlowSpec};
use crate::world::World;

/// The driver-timer token [`Arrivals`] uses. Drivers must not use it for their own timers.
pub const ARRIVAL_TOKEN: u64 = u64::MAX;

/// Turns a [`FlowSource`] into timer events, one flow at a time.
pub struct Arrivals<S> {
    source: S,
    next: Option<FlowSpec>,
    count: u64,
}

impl<S: FlowSource> Arrivals<S> {
    /// Arrivals drawn from `source`.
    pub fn new(source: S) -> Self {
        Arrivals {
            source,
            next: None,
            count: 0,
        }
    }

    /// Schedules the first arrival (call from [`crate::driver::Driver::on_start`]).
    pub fn start(&mut self, w: &mut World) {
        self.pull(w);
    }

    /// If `token` is [`ARRIVAL_TOKEN`], returns the flow arriving now (numbered from 0 in
    /// arrival order) and schedules the next one.
    pub fn on_timer(&mut self, w: &mut World, token: u64) -> Option<(u64, FlowSpec)> {
        if token != ARRIVAL_TOKEN {
            return None;
        }
        let f = self.next.take()?;
        let id = self.count;
        self.count += 1;
        self.pull(w);
        Some((id, f))
    }

    /// Flows that have arrived so far.
    pub fn arrived(&self) -> u64 {
        self.count
    }

    fn pull(&mut self, w: &mut World) {
        self.next = self.source.next_flow();
        if let Some(f) = self.next {
            w.schedule(f.arrival, ARRIVAL_TOKEN);
        }
    }
}
