//! Shards: an experiment's independent runs split into `N` disjoint parts, each run on its
//! own (a Slurm array task, a Kubernetes indexed pod, a GNU parallel job), then merged.
//!
//! A shard runs the indices `i` with `i mod N = I − 1` of every `Context::jobs`
//! call and writes, in its output folder, `shard.json` (the experiment, its scenario text,
//! quick mode, seed and `I/N`) and one raw file per `jobs` call (`raw/jobs-<k>.cbor.gz`:
//! gzip-compressed CBOR, so every `f64`, NaN included, comes back bit for bit; a raw file
//! written without compression, `raw/jobs-<k>.cbor`, is read as well). Compression matters
//! because runs are records with field names and many equal values (a flow's size and arrival
//! under every configuration): table2's raw shrinks about five times. A merge checks that the shards
//! are the same experiment and scenario and that `1/N … N/N` are all there, then runs the
//! experiment with the shards' results in place of its runs: the analysis and the outputs
//! are the unsharded run's, byte for byte (every run is deterministic in its index).

use anyhow::{anyhow, bail, ensure, Context as _};
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::io::Read as _;
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

/// Largest raw file a merge reads, in bytes of CBOR (after decompression): 256 MiB. A raw
/// file is input from disk, possibly copied from a cluster, so a corrupt or hostile one must
/// not fill memory; a full table2 run (10 sample paths x 4 repeats x 9 configurations, about
/// 77 000 flows) is about 5 MB of CBOR, and a shard holds a part of an experiment's runs.
pub const MAX_RAW_BYTES: u64 = 256 << 20;

/// The raw file of `jobs` call `call`, as written: gzip-compressed CBOR.
fn raw_path(dir: &Path, call: usize) -> PathBuf {
    dir.join("raw").join(format!("jobs-{call}.cbor.gz"))
}

/// The raw file of `jobs` call `call` written without compression.
fn plain_raw_path(dir: &Path, call: usize) -> PathBuf {
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
    // An uncompressed raw file of an earlier run in this folder would sit beside this one,
    // unread: the folder keeps one version of the call's results.
    let plain = plain_raw_path(dir, call);
    if plain.is_file() {
        std::fs::remove_file(&plain).with_context(|| format!("removing {}", plain.display()))?;
    }
    let f = std::fs::File::create(&p).with_context(|| format!("creating {}", p.display()))?;
    let mut w = GzEncoder::new(std::io::BufWriter::new(f), Compression::best());
    ciborium::into_writer(&Raw { total, results }, &mut w)
        .with_context(|| format!("writing {}", p.display()))?;
    let mut f = w
        .finish()
        .with_context(|| format!("writing {}", p.display()))?;
    std::io::Write::flush(&mut f).with_context(|| format!("writing {}", p.display()))
}

/// The CBOR bytes of the raw file at `p` (gzip-compressed if `gzip`), at most `limit` of them.
fn read_bounded(p: &Path, gzip: bool, limit: u64) -> anyhow::Result<Vec<u8>> {
    let f = std::fs::File::open(p).with_context(|| format!("opening {}", p.display()))?;
    let mut bytes = Vec::new();
    let read = if gzip {
        GzDecoder::new(std::io::BufReader::new(f))
            .take(limit + 1)
            .read_to_end(&mut bytes)
    } else {
        f.take(limit + 1).read_to_end(&mut bytes)
    };
    read.with_context(|| {
        if gzip {
            format!(
                "{}: not a readable gzip file (corrupt or cut short)",
                p.display()
            )
        } else {
            format!("reading {}", p.display())
        }
    })?;
    ensure!(
        bytes.len() as u64 <= limit,
        "{}: more than {limit} bytes of raw results (the most a merge reads)",
        p.display()
    );
    Ok(bytes)
}

/// The raw results of `jobs` call `call` in `dir`: the compressed file, else the plain one.
fn read_one<T: DeserializeOwned>(dir: &Path, call: usize, limit: u64) -> anyhow::Result<Raw<T>> {
    let gz = raw_path(dir, call);
    let (p, gzip) = if gz.is_file() {
        (gz, true)
    } else {
        let plain = plain_raw_path(dir, call);
        ensure!(
            plain.is_file(),
            "{} holds neither {} nor {}: not this experiment's shard, or it was cut short",
            dir.display(),
            gz.display(),
            plain.display()
        );
        (plain, false)
    };
    let bytes = read_bounded(&p, gzip, limit)?;
    ciborium::from_reader(bytes.as_slice())
        .with_context(|| format!("{}: not this experiment's raw results", p.display()))
}

pub(crate) fn read_raw<T: DeserializeOwned>(
    dirs: &[PathBuf],
    call: usize,
    total: usize,
) -> anyhow::Result<Vec<T>> {
    read_raw_limited(dirs, call, total, MAX_RAW_BYTES)
}

fn read_raw_limited<T: DeserializeOwned>(
    dirs: &[PathBuf],
    call: usize,
    total: usize,
    limit: u64,
) -> anyhow::Result<Vec<T>> {
    let mut slots: Vec<Option<T>> = (0..total).map(|_| None).collect();
    for d in dirs {
        let raw: Raw<T> = read_one(d, call, limit)?;
        let p = d.join("raw");
        ensure!(
            raw.total == total,
            "{}: jobs call {call}: {} runs planned, the merge plans {total} (a different build \
             or scenario?)",
            p.display(),
            raw.total
        );
        for (i, r) in raw.results {
            let slot = slots.get_mut(i).ok_or_else(|| {
                anyhow!("{}: jobs call {call}: run {i} out of range", p.display())
            })?;
            ensure!(
                slot.is_none(),
                "{}: jobs call {call}: run {i} appears twice",
                p.display()
            );
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

    /// A scratch folder removed on drop.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Self {
            let d = std::env::temp_dir().join(format!("lab-shard-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&d);
            Self(d)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn bits(x: &[Option<f64>]) -> Vec<Option<u64>> {
        x.iter().map(|f| f.map(f64::to_bits)).collect()
    }

    #[test]
    fn raw_results_come_back_bit_for_bit() {
        let dir = Scratch::new("raw");
        let (a, b) = (dir.0.join("a"), dir.0.join("b"));
        // NaN with two payloads and both signs, signed zeros, subnormals, infinities, and
        // values no shorter float holds.
        let v: Vec<Option<f64>> = [
            f64::NAN,
            -f64::NAN,
            f64::from_bits(0x7ff0_0000_0000_0001),
            0.1 + 0.2,
            -0.0,
            0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e-300,
            f64::from_bits(1),
            f64::MAX,
            1.5,
        ]
        .into_iter()
        .map(Some)
        .chain([None])
        .collect();
        write_raw(&a, 0, 3, vec![(0, v.clone()), (2, vec![])]).unwrap();
        write_raw(&b, 0, 3, vec![(1, vec![Some(7.0)])]).unwrap();
        assert!(a.join("raw/jobs-0.cbor.gz").is_file(), "written compressed");
        let got: Vec<Vec<Option<f64>>> = read_raw(&[a.clone(), b.clone()], 0, 3).unwrap();
        assert_eq!(bits(&got[0]), bits(&v));
        assert_eq!(got[1], vec![Some(7.0)]);
        assert!(got[2].is_empty());
        assert!(
            read_raw::<Vec<f64>>(std::slice::from_ref(&a), 0, 3).is_err(),
            "run 1 missing"
        );
        assert!(
            read_raw::<Vec<f64>>(&[a.clone(), a], 0, 3).is_err(),
            "run 0 twice"
        );
    }

    #[test]
    fn compressed_raw_is_smaller_than_the_records() {
        #[derive(Serialize)]
        struct Flow {
            size: u64,
            arrival_s: f64,
            transfer_s: Option<f64>,
        }
        let dir = Scratch::new("small");
        let flows: Vec<Flow> = (0..2000u64)
            .map(|i| Flow {
                size: 1448 * (i % 97 + 1),
                arrival_s: i as f64 * 0.37,
                transfer_s: Some((i % 13) as f64 * 0.011),
            })
            .collect();
        let mut plain = Vec::new();
        ciborium::into_writer(
            &Raw {
                total: 1,
                results: vec![(0, &flows)],
            },
            &mut plain,
        )
        .unwrap();
        write_raw(&dir.0, 0, 1, vec![(0, &flows)]).unwrap();
        let written = std::fs::metadata(dir.0.join("raw/jobs-0.cbor.gz"))
            .unwrap()
            .len();
        assert!(
            written * 3 < plain.len() as u64,
            "{written} bytes written for {} of CBOR",
            plain.len()
        );
    }

    #[test]
    fn uncompressed_raw_of_earlier_runs_is_read() {
        let dir = Scratch::new("plain");
        let p = plain_raw_path(&dir.0, 1);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        let mut bytes = Vec::new();
        ciborium::into_writer(
            &Raw {
                total: 2,
                results: vec![(0, vec![f64::NAN]), (1, vec![2.5])],
            },
            &mut bytes,
        )
        .unwrap();
        std::fs::write(&p, bytes).unwrap();
        let got: Vec<Vec<f64>> = read_raw(std::slice::from_ref(&dir.0), 1, 2).unwrap();
        assert_eq!(got[0][0].to_bits(), f64::NAN.to_bits());
        assert_eq!(got[1], vec![2.5]);
        // A new run in the same folder replaces it.
        write_raw(&dir.0, 1, 2, vec![(0, vec![1.0]), (1, vec![3.0])]).unwrap();
        assert!(!p.exists());
        let got: Vec<Vec<f64>> = read_raw(std::slice::from_ref(&dir.0), 1, 2).unwrap();
        assert_eq!(got, vec![vec![1.0], vec![3.0]]);
    }

    #[test]
    fn corrupt_truncated_or_oversized_raw_is_an_error() {
        let dir = Scratch::new("bad");
        let d = || std::slice::from_ref(&dir.0);
        write_raw(&dir.0, 0, 1, vec![(0, vec![1.0f64; 1000])]).unwrap();
        let p = raw_path(&dir.0, 0);
        let good = std::fs::read(&p).unwrap();
        let err = |limit| {
            let e = read_raw_limited::<Vec<f64>>(d(), 0, 1, limit).unwrap_err();
            format!("{e:#}")
        };
        // Decompresses to more than the limit (1 000 f64 are 9 000 bytes of CBOR).
        assert!(read_raw_limited::<Vec<f64>>(d(), 0, 1, 10_000).is_ok());
        assert!(err(1000).contains("more than 1000 bytes"), "{}", err(1000));
        // Cut short, a flipped byte in the compressed stream, not gzip at all.
        std::fs::write(&p, &good[..good.len() / 2]).unwrap();
        assert!(
            err(MAX_RAW_BYTES).contains("gzip"),
            "{}",
            err(MAX_RAW_BYTES)
        );
        let mut flipped = good.clone();
        let mid = flipped.len() / 2;
        flipped[mid] ^= 0x55;
        std::fs::write(&p, &flipped).unwrap();
        assert!(read_raw::<Vec<f64>>(d(), 0, 1).is_err());
        std::fs::write(&p, b"not gzip").unwrap();
        assert!(
            err(MAX_RAW_BYTES).contains("gzip"),
            "{}",
            err(MAX_RAW_BYTES)
        );
        // Valid gzip holding something else than CBOR of this shape.
        let mut w = GzEncoder::new(Vec::new(), Compression::fast());
        std::io::Write::write_all(&mut w, b"{\"total\": 1}").unwrap();
        std::fs::write(&p, w.finish().unwrap()).unwrap();
        assert!(err(MAX_RAW_BYTES).contains("not this experiment's raw results"));
        // An uncompressed file over the limit, and no raw file at all.
        std::fs::remove_file(&p).unwrap();
        std::fs::write(plain_raw_path(&dir.0, 0), vec![0u8; 2000]).unwrap();
        assert!(err(1000).contains("more than 1000 bytes"), "{}", err(1000));
        std::fs::remove_file(plain_raw_path(&dir.0, 0)).unwrap();
        assert!(err(MAX_RAW_BYTES).contains("holds neither"));
    }
}
