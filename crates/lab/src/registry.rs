//! The experiment registry: one line per experiment.

use crate::Context;
use crate::{p000, p003, p004, project};

/// A registered experiment: its name, description, embedded scenario and runner.
pub(crate) struct Entry {
    pub name: &'static str,
    pub description: &'static str,
    pub scenario: &'static str,
    pub run: fn(&Context) -> anyhow::Result<String>,
    /// Whether every run goes through `Context::jobs` before `Context::runs_done`, and no
    /// result is read before it: then the runs split into shards.
    pub shardable: bool,
    /// Analyses and renders again the raw results an earlier run wrote to a folder.
    pub render: Option<fn(&Context, &std::path::Path) -> anyhow::Result<String>>,
}

macro_rules! entry {
    ($w:ident :: $m:ident) => {
        Entry {
            name: $w::$m::NAME,
            description: $w::$m::DESCRIPTION,
            scenario: $w::$m::SCENARIO,
            run: $w::$m::run,
            shardable: false,
            render: None,
        }
    };
    ($w:ident :: $m:ident, renders) => {
        Entry {
            name: $w::$m::NAME,
            description: $w::$m::DESCRIPTION,
            scenario: $w::$m::SCENARIO,
            run: $w::$m::run,
            shardable: false,
            render: Some($w::$m::render_from),
        }
    };
    ($w:ident :: $m:ident, sharded, renders) => {
        Entry {
            name: $w::$m::NAME,
            description: $w::$m::DESCRIPTION,
            scenario: $w::$m::SCENARIO,
            run: $w::$m::run,
            shardable: true,
            render: Some($w::$m::render_from),
        }
    };
    ($w:ident :: $m:ident, sharded) => {
        Entry {
            name: $w::$m::NAME,
            description: $w::$m::DESCRIPTION,
            scenario: $w::$m::SCENARIO,
            run: $w::$m::run,
            shardable: true,
            render: None,
        }
    };
}

/// Every experiment. Add new ones here (one line each).
pub(crate) const ENTRIES: &[Entry] = &[
    entry!(p003::run2c_fig1, renders),
    entry!(p003::run2c_fig2, renders),
    entry!(p003::run2c_pin, renders),
    entry!(p003::run2c_sim, sharded, renders),
    entry!(p003::run2c_testbed, renders),
    entry!(p004::bg_fig2, renders),
    entry!(p004::bg_fig3, renders),
    entry!(p004::bg_fig4, renders),
    entry!(p004::bg_fig5, sharded, renders),
    entry!(p004::bg_fig6, sharded, renders),
    entry!(p004::bg_fig7, sharded, renders),
    entry!(p004::bg_fig8, sharded, renders),
    entry!(p004::bg_fig9, sharded, renders),
    entry!(p004::bg_frontier, sharded),
    entry!(p004::bg_testbed, renders),
    entry!(p004::bg_theorem5, renders),
    entry!(p000::fluid_table2, renders),
    entry!(p000::table2, sharded),
    entry!(p000::fig6, renders),
    entry!(p000::fig7, sharded),
    entry!(p000::fig8, sharded),
    entry!(p000::fig9, sharded),
    entry!(p000::testbed_table2, renders),
    entry!(p000::testbed_fig6, renders),
    entry!(project::nonintrusive, renders),
    entry!(project::testbed_nonintrusive, renders),
    entry!(project::testbed_alternatives, renders),
    entry!(project::table2_buffers, renders),
    entry!(project::ns3_crosscheck, sharded),
    entry!(project::gittins_sweep, sharded),
    entry!(project::gittins_packet, sharded, renders),
    entry!(project::mu_rule, sharded),
    entry!(project::alternatives, sharded),
];

pub(crate) fn find(name: &str) -> Option<&'static Entry> {
    ENTRIES.iter().find(|e| e.name == name)
}
