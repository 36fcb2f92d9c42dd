//! The experiment registry: one line per experiment.

use crate::experiments as x;
use crate::Context;

/// A registered experiment: its name, description, embedded scenario and runner.
pub(crate) struct Entry {
    pub name: &'static str,
    pub description: &'static str,
    pub scenario: &'static str,
    pub run: fn(&Context) -> anyhow::Result<String>,
}

macro_rules! entry {
    ($m:ident) => {
        Entry {
            name: x::$m::NAME,
            description: x::$m::DESCRIPTION,
            scenario: x::$m::SCENARIO,
            run: x::$m::run,
        }
    };
}

/// Every experiment. Add new ones here (one line each).
pub(crate) const ENTRIES: &[Entry] = &[
    entry!(run2c_fig1),
    entry!(run2c_fig2),
    entry!(run2c_pin),
    entry!(run2c_sim),
    entry!(run2c_testbed),
    entry!(bg_fig2),
    entry!(bg_fig3),
    entry!(bg_fig4),
    entry!(bg_fig5),
    entry!(bg_fig6),
    entry!(bg_fig7),
    entry!(bg_fig8),
    entry!(bg_fig9),
    entry!(bg_testbed),
    entry!(bg_theorem5),
    entry!(fluid_table2),
    entry!(table2),
    entry!(fig6),
    entry!(fig7),
    entry!(fig8),
    entry!(fig9),
    entry!(testbed_table2),
    entry!(testbed_fig6),
    entry!(nonintrusive),
    entry!(testbed_nonintrusive),
    entry!(table2_buffers),
    entry!(ns3_crosscheck),
];

pub(crate) fn find(name: &str) -> Option<&'static Entry> {
    ENTRIES.iter().find(|e| e.name == name)
}
