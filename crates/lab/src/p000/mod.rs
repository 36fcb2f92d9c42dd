//! Paper 000 (SCHED_TCP): Table 2 and Figs. 6–9 in the packet-level simulator, on the
//! real-TCP testbed, and as the fluid model's ideal.

pub mod fig6;
pub mod fig7;
pub mod fig8;
pub mod fig9;
pub mod fluid_table2;
pub mod table2;
pub mod testbed_fig6;
pub mod testbed_table2;

use crate::engine::md_table;

/// Paper 000's Table 2 (SCHED_TCP on a real network, 100 runs), as a markdown table: the
/// reference every Table 2 experiment puts its numbers beside.
pub(crate) fn paper000_table2() -> String {
    let rows = [
        ["LAS", "61%", "25.6%", "13.2%", "−0.57 s", "+314 ms"],
        ["SRPT", "88.8%", "3.2%", "8%", "−1.11 s", "+28 ms"],
        ["FAIR", "89.6%", "2.4%", "7.9%", "−1.13 s", "+33 ms"],
    ];
    md_table(
        &[
            "policy",
            "faster",
            "slower",
            "equal",
            "mean gain",
            "mean loss",
        ],
        &rows.map(|r| r.map(String::from).to_vec()),
    )
}
