//! The project's own experiments: non-intrusiveness under load (simulator and testbed),
//! the per-connection buffer bound's effect on Table 2, and the cross-check against ns-3.

pub mod nonintrusive;
pub mod ns3_crosscheck;
pub mod table2_buffers;
pub mod testbed_nonintrusive;
