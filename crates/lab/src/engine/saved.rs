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

/// Largest JSON text [`read_json_gz`] inflates (1 GiB): a damaged or hostile file stops there
/// with an error instead of filling the memory.
pub(crate) const MAX_INFLATED_JSON: u64 = 1 << 30;

/// Writes `value` to `path` as compact JSON, gzip-compressed: the same value gives the same
/// bytes (the gzip header carries no time), so a folder renders again byte for byte.
pub(crate) fn write_json_gz<V: serde::Serialize>(path: &Path, value: &V) -> anyhow::Result<()> {
    use flate2::write::GzEncoder;
    let f = std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut w = GzEncoder::new(std::io::BufWriter::new(f), flate2::Compression::default());
    serde_json::to_writer(&mut w, value).with_context(|| format!("writing {}", path.display()))?;
    let mut f = w
        .finish()
        .with_context(|| format!("writing {}", path.display()))?;
    std::io::Write::flush(&mut f).with_context(|| format!("writing {}", path.display()))
}

/// The value in `dir/file`, a gzip-compressed JSON file written by [`write_json_gz`];
/// if it is absent, the plain `dir/<file without .gz>` (folders written before the raw records
/// were compressed).
pub(crate) fn read_json_gz<V: DeserializeOwned>(dir: &Path, file: &str) -> anyhow::Result<V> {
    use std::io::Read as _;
    let path = dir.join(file);
    if !path.exists() {
        if let Some(plain) = file.strip_suffix(".gz") {
            if dir.join(plain).exists() {
                return read_json(dir, plain);
            }
        }
    }
    let f = std::fs::File::open(&path).with_context(|| format!("reading {}", path.display()))?;
    let mut text = Vec::new();
    flate2::read::GzDecoder::new(std::io::BufReader::new(f))
        .take(MAX_INFLATED_JSON + 1)
        .read_to_end(&mut text)
        .with_context(|| {
            format!(
                "{}: not a readable gzip file (corrupt or cut short)",
                path.display()
            )
        })?;
    anyhow::ensure!(
        text.len() as u64 <= MAX_INFLATED_JSON,
        "{}: more than {MAX_INFLATED_JSON} bytes of JSON once inflated",
        path.display()
    );
    serde_json::from_slice(&text).with_context(|| format!("parsing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("lab-saved-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn gzip_json_round_trips_the_same_bytes_and_reads_the_plain_file_before_it() {
        let d = scratch("gz");
        let v: Vec<(u32, String)> = (0..1000).map(|i| (i, format!("flow {i}"))).collect();
        write_json_gz(&d.join("raw.json.gz"), &v).unwrap();
        let first = std::fs::read(d.join("raw.json.gz")).unwrap();
        write_json_gz(&d.join("raw.json.gz"), &v).unwrap();
        assert_eq!(std::fs::read(d.join("raw.json.gz")).unwrap(), first);
        let back: Vec<(u32, String)> = read_json_gz(&d, "raw.json.gz").unwrap();
        assert_eq!(back, v);
        // A folder written before: only the plain file.
        std::fs::remove_file(d.join("raw.json.gz")).unwrap();
        std::fs::write(d.join("raw.json"), serde_json::to_string(&v).unwrap()).unwrap();
        let plain: Vec<(u32, String)> = read_json_gz(&d, "raw.json.gz").unwrap();
        assert_eq!(plain, v);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_cut_gzip_file_is_an_error_naming_it() {
        let d = scratch("cut");
        let v: Vec<u64> = (0..10_000).collect();
        write_json_gz(&d.join("raw.json.gz"), &v).unwrap();
        let bytes = std::fs::read(d.join("raw.json.gz")).unwrap();
        std::fs::write(d.join("raw.json.gz"), &bytes[..bytes.len() / 2]).unwrap();
        let e = read_json_gz::<Vec<u64>>(&d, "raw.json.gz").unwrap_err();
        assert!(format!("{e:#}").contains("raw.json.gz"), "{e:#}");
        std::fs::remove_dir_all(&d).unwrap();
    }
}
