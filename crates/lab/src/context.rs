//! What an experiment gets: its parsed scenario, an output directory, progress bars, and
//! the runner of its independent runs ([`Context::jobs`]), which also splits them into
//! shards and reads shards back for a merge.

use crate::scenario;
use crate::shard::{self, Mode};
use crate::RunOptions;
use anyhow::Context as _;
use indicatif::ProgressBar;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The run context handed to an experiment.
pub struct Context {
    name: String,
    text: String,
    source: String,
    out_dir: PathBuf,
    quick: bool,
    seed: Option<u64>,
    progress: bool,
    mode: Mode,
    /// `jobs` calls so far (each call's runs are one numbered raw file of a shard).
    calls: std::cell::Cell<usize>,
}

impl Context {
    pub(crate) fn new(
        name: &str,
        text: &str,
        source: &str,
        out_dir: PathBuf,
        opts: &RunOptions,
        mode: Mode,
    ) -> anyhow::Result<Self> {
        std::fs::create_dir_all(&out_dir)
            .with_context(|| format!("creating output directory {}", out_dir.display()))?;
        let ctx = Self {
            name: name.to_string(),
            text: text.to_string(),
            source: source.to_string(),
            out_dir,
            quick: opts.quick,
            seed: opts.seed,
            progress: opts.progress,
            mode,
            calls: std::cell::Cell::new(0),
        };
        ctx.write_text("scenario.toml", text)?;
        Ok(ctx)
    }

    /// The experiment's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Parse the scenario (applying `[quick]` overrides in quick mode).
    pub fn params<P: DeserializeOwned>(&self) -> anyhow::Result<P> {
        scenario::parse(&self.text, &self.source, self.quick)
    }

    /// Whether this is a quick run.
    pub fn quick(&self) -> bool {
        self.quick
    }

    /// The seed: the command line's if given, else the scenario's.
    pub fn seed(&self, scenario_seed: u64) -> u64 {
        self.seed.unwrap_or(scenario_seed)
    }

    /// The output directory.
    pub fn out_dir(&self) -> &Path {
        &self.out_dir
    }

    /// Path of an output file.
    pub fn path(&self, file: &str) -> PathBuf {
        self.out_dir.join(file)
    }

    /// A progress bar of `len` runs (the engine's one progress bar: runs done / total,
    /// elapsed, time left), hidden unless requested and stderr is a terminal.
    pub fn progress(&self, len: u64, what: &str) -> ProgressBar {
        crate::engine::progress_bar(&self.name, len, what, self.progress)
    }

    /// Runs `f(0) .. f(n − 1)` (independent runs, deterministic per index) on `threads`
    /// worker threads with a progress bar, results in index order.
    ///
    /// Sharded (`--shard I/N`), it runs only the indices `i` with `i mod N = I − 1`, writes
    /// their results to the shard's raw file and returns an empty vector: the experiment
    /// must reach [`Context::runs_done`] before it reads any result. Merging, it runs
    /// nothing and returns every shard's results in index order.
    pub(crate) fn jobs<T>(
        &self,
        what: &str,
        n: usize,
        threads: usize,
        f: impl Fn(usize) -> anyhow::Result<T> + Sync,
    ) -> anyhow::Result<Vec<T>>
    where
        T: Serialize + DeserializeOwned + Send,
    {
        let call = self.calls.get();
        self.calls.set(call + 1);
        match &self.mode {
            Mode::Whole => {
                let pb = self.progress(n as u64, what);
                let out = crate::engine::parallel_map(n, threads, f, || pb.inc(1));
                pb.finish_and_clear();
                out
            }
            Mode::Shard(s) => {
                let mine: Vec<usize> = s.indices(n).collect();
                let pb = self.progress(mine.len() as u64, what);
                let out =
                    crate::engine::parallel_map(mine.len(), threads, |k| f(mine[k]), || pb.inc(1));
                pb.finish_and_clear();
                let results: Vec<(usize, T)> = mine.iter().copied().zip(out?).collect();
                shard::write_raw(&self.out_dir, call, n, results)?;
                Ok(Vec::new())
            }
            Mode::Merge(dirs) => shard::read_raw(dirs, call, n),
        }
    }

    /// The end of the runs: sharded, the experiment stops here (its shard's results are
    /// written); otherwise a no-op.
    pub(crate) fn runs_done(&self) -> anyhow::Result<()> {
        match &self.mode {
            Mode::Shard(_) => Err(shard::ShardWritten.into()),
            _ => Ok(()),
        }
    }

    /// Write a text file.
    pub fn write_text(&self, file: &str, text: &str) -> anyhow::Result<()> {
        let p = self.path(file);
        std::fs::write(&p, text).with_context(|| format!("writing {}", p.display()))
    }

    /// Write rows as CSV (header from the struct's field names).
    pub fn write_csv<R: Serialize>(&self, file: &str, rows: &[R]) -> anyhow::Result<()> {
        let p = self.path(file);
        let mut w =
            csv::Writer::from_path(&p).with_context(|| format!("creating {}", p.display()))?;
        for r in rows {
            w.serialize(r)
                .with_context(|| format!("writing {}", p.display()))?;
        }
        w.flush()
            .with_context(|| format!("writing {}", p.display()))?;
        Ok(())
    }

    /// Write a value as pretty JSON.
    pub fn write_json<V: Serialize>(&self, file: &str, value: &V) -> anyhow::Result<()> {
        let text = serde_json::to_string_pretty(value).context("serialising JSON")?;
        self.write_text(file, &text)
    }

    /// Write a value as compact JSON, gzip-compressed (`file` should end in `.json.gz`): for the
    /// raw records of a run, which are large (`saved::write_json_gz`).
    pub fn write_json_gz<V: Serialize>(&self, file: &str, value: &V) -> anyhow::Result<()> {
        crate::engine::saved::write_json_gz(&self.path(file), value)
    }
}
