//! Shards: an experiment's independent runs split into `N` disjoint parts, each run on its
//! own (a Slurm array task, a Kubernetes indexed pod, a GNU parallel job), then merged.
//!
//! A shard runs the indices `i` with `i mod N = I − 1` of every `Context::jobs`
//! call and writes, in its output folder, `shard.json` (the experiment, its scenario text,
//! quick mode, seed and `I/N`) and one raw file per `jobs` call (`raw/jobs-<k>.cbor`: CBOR,
//! so every `f64`, NaN included, comes back bit for bit). A merge checks that the shards
//! are the same experiment and scenario and that `1/N … N/N` are all there, then runs the
//! experiment with the shards' results in place of its runs: the analysis and the outputs
//! are the unsharded run's, byte for byte (every run is deterministic in its index).

use anyhow::{anyhow, bail, ensure, Context as _};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// Part `index` (1-based) of `count` disjoint parts of an experiment's runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// Which part, `1..=count`.
    pub index: usize,
    /// How many parts.
    pub count: usize,
}

/// Most shards an experiment splits into.
pub const MAX_SHARDS: usize = 10_000;

impl Shard {
    /// The indices of `0..n` this shard runs.
    pub(crate) fn indices(self, n: usize) -> impl Iterator<Item = usize> {
        (self.index - 1..n).step_by(self.count)
    }
}

impl FromStr for Shard {
    type Err = anyhow::Error;

    /// `I/N` with `1 ≤ I ≤ N ≤` [`MAX_SHARDS`].
    fn from_str(s: &str) -> anyhow::Result<Self> {
        let (i, n) = s
            .split_once('/')
            .ok_or_else(|| anyhow!("shard `{s}`: expected I/N, e.g. 2/8"))?;
        let index: usize = i
            .trim()
            .parse()
            .map_err(|_| anyhow!("shard `{s}`: `{i}` is not a whole number"))?;
        let count: usize = n
            .trim()
            .parse()
            .map_err(|_| anyhow!("shard `{s}`: `{n}` is not a whole number"))?;
        ensure!(
            (1..=MAX_SHARDS).contains(&count) && (1..=count).contains(&index),
            "shard `{s}`: need 1 <= I <= N <= {MAX_SHARDS}"
        );
        Ok(Self { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// How a context treats an experiment's runs.
#[derive(Debug, Clone)]
pub(crate) enum Mode {
    /// Run them all.
    Whole,
    /// Run one shard's and stop at `Context::runs_done`.
    Shard(Shard),
    /// Run none: read them from these shard folders.
    Merge(Vec<PathBuf>),
}

/// The stop of a sharded run once its results are written (not a failure).
#[derive(Debug)]
pub(crate) struct ShardWritten;

impl std::fmt::Display for ShardWritten {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("shard written")
    }
}

impl std::error::Error for ShardWritten {}

/// What a shard folder holds besides its raw results.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct Manifest {
    pub experiment: String,
    pub shard: Shard,
    pub quick: bool,
    pub seed: Option<u64>,
    pub scenario: String,
}

pub(crate) const MANIFEST: &str = "shard.json";

impl Manifest {
    pub fn write(&self, dir: &Path) -> anyhow::Result<()> {
        let p = dir.join(MANIFEST);
        let text = serde_json::to_string_pretty(self).context("serialising the manifest")?;
        std::fs::write(&p, text).with_context(|| format!("writing {}", p.display()))
    }

    pub fn read(dir: &Path) -> anyhow::Result<Self> {
        let p = dir.join(MANIFEST);
        let text = std::fs::read_to_string(&p)
            .with_context(|| format!("reading {} (is it a shard's folder?)", p.display()))?;
        serde_json::from_str(&text)
            .with_context(|| format!("{}: not a shard manifest", p.display()))
    }
}

/// The shards' manifests agree and cover `1/N … N/N` exactly once: their common manifest.
pub(crate) fn check_complete(manifests: &[(PathBuf, Manifest)]) -> anyhow::Result<Manifest> {
    let Some((first_dir, first)) = manifests.first() else {
        bail!("merge needs at least one shard folder");
    };
    let n = first.shard.count;
    let mut seen = vec![None::<&Path>; n];
    for (dir, m) in manifests {
        let same = m.experiment == first.experiment
            && m.quick == first.quick
            && m.seed == first.seed
            && m.scenario == first.scenario
            && m.shard.count == n;
        ensure!(
            same,
            "{} and {} are shards of different runs (experiment, scenario, quick, seed or N differ)",
            first_dir.display(),
            dir.display()
        );
        let slot = &mut seen[m.shard.index - 1];
        if let Some(other) = slot {
            bail!(
                "shard {} appears twice: {} and {}",
                m.shard,
                other.display(),
                dir.display()
            );
        }
        *slot = Some(dir);
    }
    let missing: Vec<String> = (1..=n)
        .filter(|i| seen[i - 1].is_none())
        .map(|i| format!("{i}/{n}"))
        .collect();
    ensure!(missing.is_empty(), "missing shards: {}", missing.join(", "));
    Ok(first.clone())
}

#[derive(Serialize, Deserialize)]
struct Raw<T> {
    /// Runs of this `jobs` call over all shards.
    total: usize,
    /// `(index, result)` of this shard's runs.
    results: Vec<(usize, T)>,
}

fn raw_path(dir: &Path, call: usize) -> PathBuf {
    dir.join("raw").join(format!("jobs-{call}.cbor"))
}

pub(crate) fn write_raw<T: Serialize>(
    dir: &Path,
    call: usize,
    total: usize,
    results: Vec<(usize, T)>,
) -> anyhow::Result<()> {
    let p = raw_path(dir, call);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    let f = std::fs::File::create(&p).with_context(|| format!("creating {}", p.display()))?;
    let mut w = std::io::BufWriter::new(f);
    ciborium::into_writer(&Raw { total, results }, &mut w)
        .with_context(|| format!("writing {}", p.display()))?;
    std::io::Write::flush(&mut w).with_context(|| format!("writing {}", p.display()))
}

pub(crate) fn read_raw<T: DeserializeOwned>(
    dirs: &[PathBuf],
    call: usize,
    total: usize,
) -> anyhow::Result<Vec<T>> {
    let mut slots: Vec<Option<T>> = (0..total).map(|_| None).collect();
    for d in dirs {
        let p = raw_path(d, call);
        let f = std::fs::File::open(&p).with_context(|| format!("opening {}", p.display()))?;
        let raw: Raw<T> = ciborium::from_reader(std::io::BufReader::new(f))
            .with_context(|| format!("{}: not this experiment's raw results", p.display()))?;
        ensure!(
            raw.total == total,
            "{}: {} runs planned, the merge plans {total} (a different build or scenario?)",
            p.display(),
            raw.total
        );
        for (i, r) in raw.results {
            let slot = slots
                .get_mut(i)
                .ok_or_else(|| anyhow!("{}: run {i} out of range", p.display()))?;
            ensure!(slot.is_none(), "{}: run {i} appears twice", p.display());
            *slot = Some(r);
        }
    }
    slots
        .into_iter()
        .enumerate()
        .map(|(i, r)| r.ok_or_else(|| anyhow!("run {i} of jobs call {call} is in no shard")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_runs() {
        let n = 11;
        let mut all: Vec<usize> = (1..=4)
            .flat_map(|i| Shard { index: i, count: 4 }.indices(n))
            .collect();
        all.sort();
        assert_eq!(all, (0..n).collect::<Vec<_>>());
    }

    #[test]
    fn bad_shards_are_refused() {
        for s in ["0/3", "4/3", "1/0", "a/3", "3", "1/10001", "-1/3"] {
            assert!(s.parse::<Shard>().is_err(), "{s}");
        }
        assert_eq!(
            "2/3".parse::<Shard>().unwrap(),
            Shard { index: 2, count: 3 }
        );
    }

    #[test]
    fn incomplete_or_mixed_shards_are_refused() {
        let m = |i: usize, n: usize, scenario: &str| {
            (
                PathBuf::from(format!("s{i}")),
                Manifest {
                    experiment: "table2".into(),
                    shard: Shard { index: i, count: n },
                    quick: true,
                    seed: None,
                    scenario: scenario.into(),
                },
            )
        };
        assert!(check_complete(&[m(1, 2, "a"), m(2, 2, "a")]).is_ok());
        assert!(check_complete(&[m(1, 2, "a")]).is_err());
        assert!(check_complete(&[m(1, 2, "a"), m(1, 2, "a")]).is_err());
        assert!(check_complete(&[m(1, 2, "a"), m(2, 2, "b")]).is_err());
        assert!(check_complete(&[m(1, 2, "a"), m(2, 3, "a")]).is_err());
    }

    #[test]
    fn raw_results_come_back_bit_for_bit() {
        let dir = std::env::temp_dir().join(format!("lab-shard-raw-{}", std::process::id()));
        let (a, b) = (dir.join("a"), dir.join("b"));
        let v = [f64::NAN, 0.1 + 0.2, -0.0, f64::INFINITY, 1e-300];
        write_raw(&a, 0, 3, vec![(0, v.to_vec()), (2, vec![])]).unwrap();
        write_raw(&b, 0, 3, vec![(1, vec![7.0])]).unwrap();
        let got: Vec<Vec<f64>> = read_raw(&[a.clone(), b.clone()], 0, 3).unwrap();
        let bits = |x: &[f64]| x.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&got[0]), bits(&v));
        assert_eq!(got[1], vec![7.0]);
        assert!(
            read_raw::<Vec<f64>>(std::slice::from_ref(&a), 0, 3).is_err(),
            "run 1 missing"
        );
        assert!(
            read_raw::<Vec<f64>>(&[a.clone(), a], 0, 3).is_err(),
            "run 0 twice"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
