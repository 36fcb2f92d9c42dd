use std::collections::BTreeSet;

use super::SortKey;
use crate::ids::FlowId;

/// The ready flows, ordered by their policy key: the schedule's priority queue.
///
/// A flow is in the queue exactly when it has bytes it may send (data not yet sent, or lost
/// data to send again, within the peer's credit). Lookup of the first flow and every update are
/// O(log n); the caller keeps each flow's current key so it can remove it.
#[derive(Debug, Default, Clone)]
pub struct SchedQueue {
    ready: BTreeSet<(SortKey, FlowId)>,
}

impl SchedQueue {
    pub fn insert(&mut self, key: SortKey, flow: FlowId) {
        self.ready.insert((key, flow));
    }

    pub fn remove(&mut self, key: SortKey, flow: FlowId) -> bool {
        self.ready.remove(&(key, flow))
    }

    /// The flow to serve next, if any.
    pub fn first(&self) -> Option<FlowId> {
        self.ready.first().map(|&(_, f)| f)
    }

    /// The ready flows in the order they would be served.
    pub fn iter(&self) -> impl Iterator<Item = FlowId> + '_ {
        self.ready.iter().map(|&(_, f)| f)
    }

    pub fn len(&self) -> usize {
        self.ready.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ready.is_empty()
    }
}
