//! # trace — how much of a network's TCP traffic can be scheduled
//!
//! Paper 000, Section 5 asks whether real traffic gives a scheduler anything to choose from:
//! scheduling only helps when several flows of one route (origin–destination host pair) are
//! active at once. From a packet capture this crate computes
//!
//! * Table 1: routes, flows and volume, total and competing, with their ratios, optionally per
//!   time window, and the time-weighted distribution of the number of concurrent flows on a
//!   route ([`routes`]);
//! * Figure 3: the distribution of TCP data-segment sizes and the share of full-sized segments
//!   per MSS seen ([`segments`]);
//! * the flow list (arrival, size, route) in the simulator's trace format, so that a capture
//!   replays through the simulator or the testbed under every policy ([`flowlist`]).
//!
//! Input: pcap or pcapng, plain or gzip; link types Ethernet, Linux cooked v1/v2 and raw IP;
//! IPv4 and IPv6 with extension headers; TCP only ([`reader`], [`decode`]). Captures are
//! usually payload-stripped, so volumes come from the IP length fields. Everything streams:
//! memory is bounded by the connections alive at once (see [`analysis`]), not by the size of
//! the file. A truncated or corrupt file still yields the analysis of what was read, with an
//! error naming the packet index and byte offset where reading stopped.
//!
//! The crate depends on nothing of the project's.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod analysis;
pub mod decode;
pub mod flowlist;
pub mod output;
pub mod reader;
pub mod routes;
pub mod segments;
pub mod synth;

use std::path::PathBuf;

pub use analysis::{Analyzer, Config, FlowRecord, Report};
pub use reader::{ReadError, ReadSummary};
pub use routes::Table1;

/// Analyses `files` in order as one capture (rotated files of one capture session). A file
/// that cannot be read to its end contributes the packets before the damage and one error;
/// the next files are still read.
pub fn analyze_files(files: &[PathBuf], cfg: Config) -> (Report, Vec<ReadError>) {
    let mut an = Analyzer::new(cfg);
    let mut errors = Vec::new();
    for f in files {
        let (_, err) = reader::read_file(f, &mut |p| an.packet(p));
        errors.extend(err);
    }
    (an.finish(), errors)
}
