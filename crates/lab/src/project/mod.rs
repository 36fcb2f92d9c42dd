//! The project's own experiments: non-intrusiveness under load (simulator and testbed),
//! the per-connection buffer bound's effect on Table 2, the cross-check against ns-3, and the
//! Gittins index on learned sizes against the size-blind policies (flow and packet level) and
//! the μ-rule against every static class order (flow level), the alternatives to gtcp (one multiplexed
//! connection, static lanes) on the same flows, in the simulator and on the testbed; and the two programs behind `schedtcp demo` and
//! `schedtcp throughput`.

pub mod alternatives;
pub mod demo;
pub mod gittins_packet;
pub mod gittins_sweep;
pub mod mu_rule;
pub mod nonintrusive;
pub mod ns3_crosscheck;
pub mod table2_buffers;
pub mod testbed_alternatives;
pub mod testbed_nonintrusive;
pub mod throughput;
