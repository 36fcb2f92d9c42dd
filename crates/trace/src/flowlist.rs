//! The flow list of a capture in the simulator's trace format
//! (`arrival_seconds,size_bytes,source`, see `sim::workload::trace`): one line per flow,
//! sorted by arrival, arrival relative to the capture's first packet, size the application
//! bytes of the flow (both directions' sequence spans), source the index of its route in order
//! of first appearance. Comment lines (`#`) before the header name every route's hosts, so
//! the file replays through `[workload] kind = "trace"` with one dumbbell pair per route.

use std::io::{self, Write};
use std::net::IpAddr;

use rustc_hash::FxHashMap;

use crate::analysis::{FlowRecord, RouteKey};
use crate::decode::Addr;

/// One line of the flow list.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ListedFlow {
    /// Seconds after the capture's first packet.
    pub arrival_s: f64,
    /// Bytes.
    pub size: u64,
    /// Route index.
    pub source: u32,
}

/// Sorts `flows` by arrival and numbers their routes. Returns the lines and the routes (index
/// = source).
pub fn flow_list(flows: &[FlowRecord], first_ns: i64) -> (Vec<ListedFlow>, Vec<RouteKey>) {
    let mut sorted: Vec<&FlowRecord> = flows.iter().filter(|f| f.size > 0).collect();
    sorted.sort_by_key(|f| (f.first_data_ns, f.route, f.last_data_ns, f.size));
    let mut index: FxHashMap<RouteKey, u32> = FxHashMap::default();
    let mut routes = Vec::new();
    let lines = sorted
        .into_iter()
        .map(|f| {
            let source = *index.entry(f.route).or_insert_with(|| {
                routes.push(f.route);
                (routes.len() - 1) as u32
            });
            ListedFlow {
                arrival_s: (f.first_data_ns - first_ns).max(0) as f64 / 1e9,
                size: f.size,
                source,
            }
        })
        .collect();
    (lines, routes)
}

/// An address as text (IPv4-mapped addresses as IPv4).
pub fn addr_text(a: &Addr) -> String {
    let v6 = std::net::Ipv6Addr::from(*a);
    match v6.to_ipv4_mapped() {
        Some(v4) => IpAddr::V4(v4).to_string(),
        None => IpAddr::V6(v6).to_string(),
    }
}

/// Writes the flow list in the simulator's trace format.
pub fn write_flow_list(
    out: &mut dyn Write,
    lines: &[ListedFlow],
    routes: &[RouteKey],
) -> io::Result<()> {
    writeln!(
        out,
        "# flow list from a packet capture: arrival (s after its first packet), application bytes, route"
    )?;
    for (i, (a, b)) in routes.iter().enumerate() {
        writeln!(out, "# route {i}: {} <-> {}", addr_text(a), addr_text(b))?;
    }
    writeln!(out, "arrival_s,size_bytes,source")?;
    for l in lines {
        // Nanosecond precision; the simulator reads non-decreasing arrivals.
        writeln!(out, "{:.9},{},{}", l.arrival_s, l.size, l.source)?;
    }
    Ok(())
}

/// Writes the flow list in the testbed's trace format (`start_seconds,bytes`, one route: the
/// testbed has one origin–destination pair, so every route's flows go through it).
pub fn write_testbed_list(out: &mut dyn Write, lines: &[ListedFlow]) -> io::Result<()> {
    writeln!(
        out,
        "# flow list from a packet capture for the testbed: start (s after its first packet), application bytes"
    )?;
    for l in lines {
        writeln!(out, "{:.9},{}", l.arrival_s, l.size)?;
    }
    Ok(())
}
