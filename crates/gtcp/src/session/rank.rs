//! The flows as the policy ranks them, for diagnostics (`schedtcp status`): what a ready
//! connection would carry next, and what waits behind it.

use super::{sort_key, Session};
use crate::ids::FlowId;
use crate::policy::SortKey;

/// A flow with bytes to send, where the policy ranks it ([`Session::ranked_flows`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RankedFlow {
    pub flow: FlowId,
    /// The flow's route, once known.
    pub route: Option<String>,
    /// Bytes of the flow sent so far (attained service).
    pub sent: u64,
    /// Bytes left to send where the sender knows where the flow ends.
    pub remaining: Option<u64>,
    /// Bytes handed over and not yet sent (new, or lost with a connection and to go again).
    pub unsent: u64,
    /// Whether the flow is in the schedule now: some of its bytes may go (within the receiver's
    /// credit). A flow that is not waits for credit, and takes its rank back once it has some.
    pub ready: bool,
}

impl Session {
    /// The first `n` flows (at most) with bytes to send, in the order the policy serves them:
    /// by the schedule's own sort key ([`Policy::key_on`](crate::policy::Policy::key_on)),
    /// which every flow with unsent bytes gets here whether or not the receiver's credit lets
    /// it send now ([`RankedFlow::ready`]). Reset flows are left out. One pass over the flows
    /// and a sort of the first `n`: O(flows + n log n).
    pub fn ranked_flows(&self, n: usize) -> Vec<RankedFlow> {
        let policy = self.config.policy;
        let mut keyed: Vec<(SortKey, FlowId)> = self
            .flows
            .values()
            .filter(|f| !f.is_reset() && f.send.unsent() > 0)
            .map(|f| (sort_key(policy, &self.learned, f), f.id))
            .collect();
        if keyed.len() > n {
            if n == 0 {
                return Vec::new();
            }
            keyed.select_nth_unstable(n - 1);
            keyed.truncate(n);
        }
        keyed.sort_unstable();
        keyed
            .into_iter()
            .filter_map(|(_, id)| {
                let f = self.flows.get(&id)?;
                let state = f.state();
                Some(RankedFlow {
                    flow: id,
                    route: f.route.clone(),
                    sent: state.sent,
                    remaining: state.known_end.map(|end| end.saturating_sub(state.sent)),
                    unsent: f.send.unsent(),
                    ready: f.key.is_some(),
                })
            })
            .collect()
    }
}
