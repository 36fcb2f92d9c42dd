//! Helpers shared by the lab's test files: scratch paths that go with the test, reading an
//! experiment's CSV outputs.

#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap};
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A path under the temporary directory (`lab-<kind>-<pid>-<n>-<name>`), empty at the start
/// and removed, file or directory, when dropped: a test leaves nothing behind. `n` counts the
/// scratch paths of the process, so tests running at once never share one (two tests running
/// the same experiment removed each other's outputs).
#[derive(Debug)]
pub struct Scratch(PathBuf);

impl Scratch {
    pub fn new(kind: &str, name: &str) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!("lab-{kind}-{}-{n}-{name}", std::process::id()));
        remove(&p);
        Self(p)
    }

    /// The path, owned (for options that take one).
    pub fn path(&self) -> PathBuf {
        self.0.clone()
    }
}

fn remove(p: &Path) {
    if p.is_dir() {
        let _ = std::fs::remove_dir_all(p);
    } else {
        let _ = std::fs::remove_file(p);
    }
}

impl Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl PartialEq<Scratch> for PathBuf {
    fn eq(&self, other: &Scratch) -> bool {
        *self == other.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        remove(&self.0);
    }
}

/// Rows of a CSV output as maps from column name to value.
pub fn csv_rows(dir: &Path, f: &str) -> Vec<HashMap<String, String>> {
    let mut r = csv::Reader::from_path(dir.join(f)).unwrap();
    let h = r.headers().unwrap().clone();
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            h.iter()
                .zip(rec.iter())
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

/// A numeric cell (NaN when it does not parse).
pub fn num(row: &HashMap<String, String>, k: &str) -> f64 {
    row[k].parse().unwrap_or(f64::NAN)
}

/// Runs experiment `name`'s quick variant into `out` (sharded when `shard` is given).
pub fn quick(name: &str, out: PathBuf, shard: Option<lab::Shard>) {
    lab::run(
        name,
        &lab::RunOptions {
            out_dir: Some(out),
            quick: true,
            shard,
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("{name} {shard:?}: {e:#}"));
}

/// Every file under `dir` (relative path → bytes) whose relative path `keep` accepts (a folder
/// it refuses is not entered).
pub fn files(dir: &Path, keep: impl Fn(&Path) -> bool) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(dir).unwrap().to_path_buf();
            if !keep(&rel) {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}
