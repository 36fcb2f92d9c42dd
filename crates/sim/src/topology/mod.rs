//! Topologies: nodes, links, and static shortest-path routing.
//!
//! Build one with [`NetworkBuilder`] (from code) or [`DumbbellConfig`] (from a scenario
//! file). Routing is computed once, by breadth-first search on hop count; ties go to the
//! link added first, so routes are deterministic.

mod dumbbell;

pub use dumbbell::{Dumbbell, DumbbellConfig, Ns3Setting, PaperSetting};

use crate::link::Link;
use crate::packet::{LinkId, NodeId};
use crate::queue::Queue;
use crate::time::Time;
use std::collections::VecDeque;

const NO_ROUTE: u32 = u32::MAX;

/// Nodes, links and the routing table.
pub struct Network {
    nodes: u32,
    /// All links, indexed by [`LinkId`].
    pub links: Vec<Link>,
    /// `route[from * nodes + to]` = first link on the path from `from` to `to`.
    route: Vec<u32>,
}

impl Network {
    /// Number of nodes.
    pub fn nodes(&self) -> u32 {
        self.nodes
    }

    /// The first link on the path from `from` to `to`, if there is a path.
    #[inline]
    pub fn next_link(&self, from: NodeId, to: NodeId) -> Option<LinkId> {
        let l = self.route[(from as usize) * (self.nodes as usize) + to as usize];
        (l != NO_ROUTE).then_some(l)
    }

    /// Link `id`.
    pub fn link(&self, id: LinkId) -> &Link {
        &self.links[id as usize]
    }

    /// Time a packet of `bytes` wire bytes takes from `from` to `to` through empty queues
    /// (serialisation plus propagation on every hop), if there is a path.
    pub fn path_delay(&self, from: NodeId, to: NodeId, bytes: u32) -> Option<Time> {
        let mut at = from;
        let mut t = 0;
        let mut hops = 0;
        while at != to {
            let l = self.link(self.next_link(at, to)?);
            t += crate::time::tx_time(bytes, l.rate_bps) + l.delay;
            at = l.to;
            hops += 1;
            if hops > self.nodes {
                return None;
            }
        }
        Some(t)
    }
}

/// Incremental construction of a [`Network`].
#[derive(Default)]
pub struct NetworkBuilder {
    nodes: u32,
    links: Vec<Link>,
}

impl NetworkBuilder {
    /// An empty topology.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a node.
    pub fn add_node(&mut self) -> NodeId {
        self.nodes += 1;
        self.nodes - 1
    }

    /// Adds a unidirectional link `from → to` of `rate_bps` bits/s and propagation `delay`,
    /// with `queue` at its head.
    pub fn add_link(
        &mut self,
        from: NodeId,
        to: NodeId,
        rate_bps: u64,
        delay: Time,
        queue: Box<dyn Queue>,
    ) -> LinkId {
        assert!(
            from < self.nodes && to < self.nodes,
            "link endpoints must be existing nodes"
        );
        self.links.push(Link::new(from, to, rate_bps, delay, queue));
        (self.links.len() - 1) as LinkId
    }

    /// Sets ECN marking on link `l` ([`Link::set_ecn_mark`]).
    pub fn set_ecn_mark(&mut self, l: LinkId, k: Option<u32>) {
        self.links[l as usize].set_ecn_mark(k);
    }

    /// Computes routes and returns the network.
    pub fn build(self) -> Network {
        let n = self.nodes as usize;
        let mut route = vec![NO_ROUTE; n * n];
        let mut out: Vec<Vec<LinkId>> = vec![Vec::new(); n];
        for (i, l) in self.links.iter().enumerate() {
            out[l.from as usize].push(i as LinkId);
        }
        // BFS from every source; record the first hop used to reach each destination.
        let mut seen = vec![false; n];
        let mut q = VecDeque::new();
        for src in 0..n {
            seen.iter_mut().for_each(|s| *s = false);
            seen[src] = true;
            q.clear();
            for &l in &out[src] {
                let to = self.links[l as usize].to as usize;
                if !seen[to] {
                    seen[to] = true;
                    route[src * n + to] = l;
                    q.push_back(to);
                }
            }
            while let Some(v) = q.pop_front() {
                let first = route[src * n + v];
                for &l in &out[v] {
                    let to = self.links[l as usize].to as usize;
                    if !seen[to] {
                        seen[to] = true;
                        route[src * n + to] = first;
                        q.push_back(to);
                    }
                }
            }
        }
        Network {
            nodes: self.nodes,
            links: self.links,
            route,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::QueueConfig;

    #[test]
    fn routes_follow_shortest_paths() {
        let mut b = NetworkBuilder::new();
        let (a, r, c) = (b.add_node(), b.add_node(), b.add_node());
        let q = || QueueConfig::Unlimited.build();
        let ar = b.add_link(a, r, 1, 0, q());
        let rc = b.add_link(r, c, 1, 0, q());
        let cr = b.add_link(c, r, 1, 0, q());
        let ra = b.add_link(r, a, 1, 0, q());
        let net = b.build();
        assert_eq!(net.next_link(a, c), Some(ar));
        assert_eq!(net.next_link(r, c), Some(rc));
        assert_eq!(net.next_link(c, a), Some(cr));
        assert_eq!(net.next_link(r, a), Some(ra));
        assert_eq!(net.next_link(a, a), None);
    }
}
