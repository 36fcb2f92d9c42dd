//! Helpers shared by the lab's test files: reading an experiment's CSV outputs.

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::Path;

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
