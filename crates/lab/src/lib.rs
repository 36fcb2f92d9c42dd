#![forbid(unsafe_code)]
#![warn(missing_docs)]
//! The schedtcp experiments framework.
//!
//! Every table and figure of the papers is a named experiment ([`experiments`]) with a
//! scenario file (TOML, embedded, overridable by a path) holding every parameter, a progress
//! bar, raw results as CSV/JSON, SVG plots and a `summary.md` that places the paper's numbers
//! beside ours. [`run`] executes one; outputs go to `results/<name>/` at the repository root
//! unless [`RunOptions::out_dir`] says otherwise.
//!
//! Layout: one wing per paper (`p000/`, `p003/`, `p004/`) and one for the project's own
//! experiments (`project/`, which also holds the programs behind `schedtcp demo`, [`demo`],
//! and `schedtcp throughput`, [`throughput`]), over the shared engines of `engine/` (packet
//! runs, repeats, background scenarios, statistics, verdicts, and the one progress bar of
//! every long run). An experiment imports from `engine/`, never from another experiment.
//! [`render`] regenerates a run's outputs from the raw results it kept.
//!
//! Adding an experiment: a module under its wing exposing `NAME`, `DESCRIPTION`,
//! `SCENARIO` (`include_str!` of a file under `scenarios/`) and `run(&Context) ->
//! anyhow::Result<String>` (the markdown summary), and one line in `src/registry.rs`.
//! A scenario's `[quick]` table overrides top-level keys in quick mode (used by tests).
//! Its independent runs go through `Context::jobs` and, before any result is read,
//! `Context::runs_done`: then they split into shards ([`RunOptions::shard`], [`merge`];
//! mark it `sharded` in the registry). Claims checked against the paper are
//! [`verdict::Verdict`]s, judged by the one rule function [`verdict::judge`] and written as
//! `verdicts.json` beside `summary.md`, each pointing where it can at the value in the
//! experiment's own CSV/JSON ([`verdict::Source`]); [`verdict::check_folder`] checks a folder's
//! verdicts against its data. Experiments whose summary follows from raw results kept in
//! their folder render again without running ([`render`]).
//!
//! Without the `schedtcp` CLI: `cargo run --release -p lab --example run_experiment -- all`
//! (or a list of names; `--quick`, `--seed N`, `--out DIR`, `--scenario FILE`).
//!
//! [`fluid::fluid_ideal`] gives the flow-level ideal of every scheduling policy for a
//! Table-2-like workload, for comparison with testbed measurements.

mod context;
mod engine;
pub mod fluid;
mod p000;
mod p003;
mod p004;
pub mod plot;
mod project;
mod registry;
pub mod scenario;
pub mod shard;

pub use context::Context;
pub use engine::{mean_ci, t95, verdict};
pub use project::ns3_crosscheck::{simulate_lbe, LbeOutput};
pub use project::{demo, throughput};
pub use shard::Shard;

use anyhow::Context as _;
use shard::Mode;
use std::path::{Path, PathBuf};

/// How to run an experiment.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Scenario file replacing the embedded default.
    pub scenario: Option<PathBuf>,
    /// Output directory (default `results/<name>/` at the repository root).
    pub out_dir: Option<PathBuf>,
    /// Use the scenario's `[quick]` overrides (small and fast, for tests).
    pub quick: bool,
    /// Seed replacing the scenario's.
    pub seed: Option<u64>,
    /// Show a progress bar (only drawn when stderr is a terminal).
    pub progress: bool,
    /// Run only this part of the experiment's runs and write their raw results (see
    /// [`merge`]); only for experiments whose [`ExperimentInfo::shardable`] is true.
    pub shard: Option<Shard>,
}

/// A registered experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExperimentInfo {
    /// Name used on the command line.
    pub name: &'static str,
    /// One-line description.
    pub description: &'static str,
    /// Whether its runs split into shards ([`RunOptions::shard`], [`merge`]).
    pub shardable: bool,
    /// Whether a folder holding the raw CSV/JSON of one of its runs renders again without
    /// running ([`render_from`]).
    pub renders: bool,
}

/// What a run produced.
#[derive(Debug, Clone)]
pub struct Report {
    /// Where the outputs were written.
    pub out_dir: PathBuf,
    /// The markdown summary (also written to `summary.md`).
    pub summary_markdown: String,
}

/// All registered experiments, in registry order.
pub fn experiments() -> Vec<ExperimentInfo> {
    registry::ENTRIES
        .iter()
        .map(|e| ExperimentInfo {
            name: e.name,
            description: e.description,
            shardable: e.shardable,
            renders: e.render.is_some(),
        })
        .collect()
}

/// The embedded default scenario (TOML text) of an experiment.
pub fn default_scenario(name: &str) -> Option<&'static str> {
    registry::find(name).map(|e| e.scenario)
}

/// Default output directory of an experiment: `results/<name>` at the repository root.
pub fn default_out_dir(name: &str) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("..");
    let base = if root.join("Cargo.toml").is_file() {
        root.join("results")
    } else {
        PathBuf::from("results")
    };
    base.join(name)
}

/// Run experiment `name`. With [`RunOptions::shard`], only that shard's runs: their raw
/// results, `shard.json` and `scenario.toml` go to the output folder, and the report's
/// summary says what was written.
pub fn run(name: &str, opts: &RunOptions) -> anyhow::Result<Report> {
    let entry = find(name)?;
    let (text, source) = match &opts.scenario {
        Some(p) => (
            std::fs::read_to_string(p)
                .with_context(|| format!("reading scenario file {}", p.display()))?,
            p.display().to_string(),
        ),
        None => (
            entry.scenario.to_string(),
            format!("embedded default scenario of {name}"),
        ),
    };
    let out_dir = opts
        .out_dir
        .clone()
        .unwrap_or_else(|| default_out_dir(name));
    let Some(s) = opts.shard else {
        let ctx = Context::new(name, &text, &source, out_dir, opts, Mode::Whole)?;
        return finish(entry, &ctx);
    };
    anyhow::ensure!(
        entry.shardable,
        "experiment `{name}` does not split into shards; the shardable ones: {}",
        registry::ENTRIES
            .iter()
            .filter(|e| e.shardable)
            .map(|e| e.name)
            .collect::<Vec<_>>()
            .join(", ")
    );
    let ctx = Context::new(name, &text, &source, out_dir.clone(), opts, Mode::Shard(s))?;
    shard::Manifest {
        experiment: name.to_string(),
        shard: s,
        quick: opts.quick,
        seed: opts.seed,
        scenario: text,
    }
    .write(&out_dir)?;
    match (entry.run)(&ctx) {
        Err(e) if e.downcast_ref::<shard::ShardWritten>().is_some() => Ok(Report {
            summary_markdown: format!(
                "Shard {s} of `{name}`: raw results in {}; merge all {} shards with \
                 `schedtcp experiment merge DIR... --out DIR`.\n",
                out_dir.join("raw").display(),
                s.count
            ),
            out_dir,
        }),
        Err(e) => Err(e.context(format!("experiment `{name}`, shard {s}, failed"))),
        Ok(_) => anyhow::bail!("experiment `{name}` finished without reaching the end of its runs"),
    }
}

/// Analyse and render the shards in `dirs` (folders written by [`run`] with
/// [`RunOptions::shard`], all `N` of them) into `out_dir`: the same files, byte for byte,
/// as one unsharded run of the same scenario.
pub fn merge(dirs: &[PathBuf], out_dir: &Path, progress: bool) -> anyhow::Result<Report> {
    let manifests = dirs
        .iter()
        .map(|d| Ok((d.clone(), shard::Manifest::read(d)?)))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let m = shard::check_complete(&manifests)?;
    let entry = find(&m.experiment)?;
    let opts = RunOptions {
        quick: m.quick,
        seed: m.seed,
        progress,
        ..Default::default()
    };
    let source = format!("scenario of the shards in {}", dirs[0].display());
    let ctx = Context::new(
        entry.name,
        &m.scenario,
        &source,
        out_dir.to_path_buf(),
        &opts,
        Mode::Merge(dirs.to_vec()),
    )?;
    finish(entry, &ctx)
}

/// Re-analyse and re-render, in place, the experiment run whose raw results `dir` holds (a
/// run with [`RunOptions::shard`] `1/1`: every run's raw results, `shard.json` and
/// `scenario.toml`), without re-running anything: `summary.md`, the CSV/JSON files and the
/// plots are written beside the raw results, byte for byte what one unsharded run of the same
/// scenario writes. So a committed summary can be regenerated from the raw results committed
/// with it, after a change to the analysis or the render.
pub fn render(dir: &Path, progress: bool) -> anyhow::Result<Report> {
    let m = shard::Manifest::read(dir)?;
    anyhow::ensure!(
        m.shard.count == 1,
        "{} holds shard {} of {}: merge all of them (`schedtcp experiment merge`), or keep \
         every run's raw results in one folder with `--shard 1/1`",
        dir.display(),
        m.shard.index,
        m.shard.count
    );
    merge(&[dir.to_path_buf()], dir, progress)
}

/// Analyses and renders again the files a run of experiment `name` wrote to `from` (its
/// `scenario.toml` and its CSV/JSON; for a run that kept `raw/`, see [`render`]), without
/// running anything: the outputs go to `out_dir` (`from` itself when `None`). Only experiments
/// whose output folder holds what their summary follows from can
/// ([`ExperimentInfo::renders`]); for some that is every run's numbers, for others the
/// averaged tables and curves the run wrote (the folder's README says which).
pub fn render_from(name: &str, from: &Path, out_dir: Option<&Path>) -> anyhow::Result<Report> {
    let entry = find(name)?;
    let render = entry.render.with_context(|| {
        let can: Vec<&str> = registry::ENTRIES
            .iter()
            .filter(|e| e.render.is_some())
            .map(|e| e.name)
            .collect();
        format!(
            "experiment `{name}` keeps no raw results to render again; these do: {}",
            can.join(", ")
        )
    })?;
    let scenario = from.join("scenario.toml");
    let text = std::fs::read_to_string(&scenario)
        .with_context(|| format!("reading {}", scenario.display()))?;
    let out = out_dir.unwrap_or(from).to_path_buf();
    let ctx = Context::new(
        name,
        &text,
        &scenario.display().to_string(),
        out,
        &RunOptions::default(),
        Mode::Whole,
    )?;
    let summary = render(&ctx, from)
        .with_context(|| format!("rendering `{name}` from {}", from.display()))?;
    ctx.write_text("summary.md", &summary)?;
    Ok(Report {
        out_dir: ctx.out_dir().to_path_buf(),
        summary_markdown: summary,
    })
}

fn find(name: &str) -> anyhow::Result<&'static registry::Entry> {
    registry::find(name).with_context(|| {
        let known: Vec<&str> = registry::ENTRIES.iter().map(|e| e.name).collect();
        format!(
            "unknown experiment `{name}`; known experiments: {}",
            known.join(", ")
        )
    })
}

/// Runs the experiment in `ctx` and writes its summary.
fn finish(entry: &registry::Entry, ctx: &Context) -> anyhow::Result<Report> {
    let name = entry.name;
    let summary = (entry.run)(ctx).with_context(|| format!("experiment `{name}` failed"))?;
    ctx.write_text("summary.md", &summary)?;
    Ok(Report {
        out_dir: ctx.out_dir().to_path_buf(),
        summary_markdown: summary,
    })
}
