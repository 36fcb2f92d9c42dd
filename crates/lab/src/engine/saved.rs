//! Reading back the CSV and JSON files an experiment wrote to its folder, so that its summary
//! renders again from them without running.

use anyhow::Context as _;
use serde::de::DeserializeOwned;
use std::path::Path;

/// The rows of `dir/file`, a CSV file written by `Context::write_csv`.
pub(crate) fn read_csv<R: DeserializeOwned>(dir: &Path, file: &str) -> anyhow::Result<Vec<R>> {
    let path = dir.join(file);
    csv::Reader::from_path(&path)
        .with_context(|| format!("reading {}", path.display()))?
        .deserialize()
        .collect::<Result<_, _>>()
        .with_context(|| format!("parsing {}", path.display()))
}

/// The value in `dir/file`, a JSON file written by `Context::write_json`.
pub(crate) fn read_json<V: DeserializeOwned>(dir: &Path, file: &str) -> anyhow::Result<V> {
    let path = dir.join(file);
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))
}
