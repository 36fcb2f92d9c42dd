//! Flow traces: CSV files of `arrival_seconds,size_bytes[,source]`.
//!
//! Blank lines and lines starting with `#` are skipped. The first remaining line is taken as
//! a header if its first field is not a number. Arrival times must be finite, non-negative
//! and non-decreasing; sizes positive integers; sources non-negative integers (default 0).
//! Every problem is reported with its line number; nothing in a file can make the parser
//! panic.

use super::FlowSpec;
use crate::time::secs;
use std::fmt;
use std::path::Path;

/// Why a trace could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TraceError {
    /// The file could not be read.
    Io(String),
    /// Line `line` (1-based) is malformed.
    Line {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        msg: String,
    },
    /// The trace holds no flow.
    Empty,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceError::Io(e) => write!(f, "cannot read trace: {e}"),
            TraceError::Line { line, msg } => write!(f, "trace line {line}: {msg}"),
            TraceError::Empty => write!(f, "trace holds no flow"),
        }
    }
}

impl std::error::Error for TraceError {}

/// Reads and parses the trace at `path`.
pub fn load_trace(path: &Path) -> Result<Vec<FlowSpec>, TraceError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| TraceError::Io(format!("{}: {e}", path.display())))?;
    parse_trace(&text)
}

/// Parses trace text.
pub fn parse_trace(text: &str) -> Result<Vec<FlowSpec>, TraceError> {
    let mut flows = Vec::new();
    let mut first = true;
    let mut last = 0.0f64;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = l.split(',').map(str::trim).collect();
        let is_first = std::mem::replace(&mut first, false);
        if is_first && fields[0].parse::<f64>().is_err() {
            continue; // header
        }
        let err = |msg: String| TraceError::Line { line, msg };
        if fields.len() < 2 || fields.len() > 3 {
            return Err(err(format!(
                "expected 2 or 3 comma-separated fields (arrival_seconds,size_bytes[,source]), found {}",
                fields.len()
            )));
        }
        let t: f64 = fields[0]
            .parse()
            .map_err(|_| err(format!("arrival time {:?} is not a number", fields[0])))?;
        if !t.is_finite() || t < 0.0 {
            return Err(err(format!(
                "arrival time {t} must be finite and non-negative"
            )));
        }
        if t < last {
            return Err(err(format!(
                "arrival time {t} is before the previous one ({last}); sort the trace"
            )));
        }
        last = t;
        let size: u64 = fields[1].parse().map_err(|_| {
            err(format!(
                "size {:?} is not a non-negative integer number of bytes",
                fields[1]
            ))
        })?;
        if size == 0 {
            return Err(err("size must be at least 1 byte".into()));
        }
        let source: u32 = match fields.get(2) {
            Some(s) if !s.is_empty() => s
                .parse()
                .map_err(|_| err(format!("source {s:?} is not a non-negative integer")))?,
            _ => 0,
        };
        flows.push(FlowSpec {
            arrival: secs(t),
            size,
            source,
        });
    }
    if flows.is_empty() {
        return Err(TraceError::Empty);
    }
    Ok(flows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_with_header_comments_and_optional_source() {
        let t = "# a trace\narrival,size,source\n0.0,1000,1\n\n0.5, 20 ,\n1.25,3\n";
        let f = parse_trace(t).unwrap();
        assert_eq!(f.len(), 3);
        assert_eq!(
            f[0],
            FlowSpec {
                arrival: 0,
                size: 1000,
                source: 1
            }
        );
        assert_eq!(f[1].arrival, 500_000_000);
        assert_eq!(f[1].source, 0);
        assert_eq!(f[2].size, 3);
    }

    fn line_err(t: &str) -> (usize, String) {
        match parse_trace(t) {
            Err(TraceError::Line { line, msg }) => (line, msg),
            other => panic!("expected a line error, got {other:?}"),
        }
    }

    #[test]
    fn reports_bad_rows_with_line_numbers() {
        assert_eq!(line_err("0,10\nx,10\n").0, 2);
        assert!(line_err("0,10\n1,-5\n").1.contains("size"));
        assert!(line_err("0,0\n").1.contains("at least 1"));
        assert!(line_err("1,10\n0.5,10\n").1.contains("before"));
        assert!(line_err("0,10,1,2\n").1.contains("fields"));
        assert!(line_err("0\n").1.contains("fields"));
        assert!(line_err("inf,10\n").1.contains("finite"));
        assert!(line_err("0,10\nNaN,1\n").1.contains("finite"));
        assert!(line_err("-1,10\n").1.contains("non-negative"));
        assert!(line_err("0,10,src\n").1.contains("source"));
        assert!(line_err("0,10\n1,99999999999999999999999\n")
            .1
            .contains("size"));
    }

    #[test]
    fn empty_and_missing() {
        assert_eq!(parse_trace("# nothing\n\n"), Err(TraceError::Empty));
        assert_eq!(parse_trace("arrival,size\n"), Err(TraceError::Empty));
        assert!(matches!(
            load_trace(Path::new("/nonexistent/trace.csv")),
            Err(TraceError::Io(_))
        ));
    }
}
