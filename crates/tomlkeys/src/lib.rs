//! Typed TOML configuration files: a file is read into its type, and every key it names must
//! be one the type has. An unknown key is refused with the closest valid one:
//!
//! ```text
//! unknown key `send_bufer` in [tuning] (line 12); did you mean `send_buffer`?
//! ```
//!
//! serde refuses unknown fields itself only in types that say `deny_unknown_fields`, and that
//! attribute does not combine with `#[serde(flatten)]`, the way the drivers' tables embed the
//! core's configuration (`gtcp::Config` inside the tunnel's `[tuning]`, the simulator's
//! `[gtcp]`). So the check is made on the file's tables instead: the value read is written
//! back as TOML, and a key of the file that the written value does not have at the same place
//! is one no field took. Errors of types that do deny unknown fields get the same suggestion.

#![forbid(unsafe_code)]

use std::fmt;

use serde::de::DeserializeOwned;
use serde::Serialize;
use toml::{Table, Value};

/// Why a configuration file was refused: the TOML's own error (with its line), or an unknown
/// key with the closest valid one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

/// Reads `text` into `T`, refusing any key `T` does not have.
pub fn from_str<T: DeserializeOwned + Serialize>(text: &str) -> Result<T, Error> {
    let value: T = toml::from_str(text).map_err(|e| Error(rewrite_unknown_field(&e, text)))?;
    let file: Table = text
        .parse()
        .map_err(|e: toml::de::Error| Error(e.to_string()))?;
    let known = Table::try_from(&value)
        .map_err(|e| Error(format!("cannot check the keys of the file: {e}")))?;
    check(&file, &known, &mut Vec::new()).map_err(Error)?;
    Ok(value)
}

/// Checks the keys of `file`, a table named `table` of a larger document, against `value`, what
/// was read from it: for a type that flattens another and is embedded in other types' files,
/// so that its own `Deserialize` refuses unknown keys wherever it is read (deserialize the
/// table, read the value from it, then call this).
pub fn check_table<T: Serialize>(file: &Table, value: &T, table: &str) -> Result<(), Error> {
    let known = Table::try_from(value)
        .map_err(|e| Error(format!("cannot check the keys of [{table}]: {e}")))?;
    check(file, &known, &mut vec![(table.to_owned(), false)]).map_err(Error)
}

/// Checks that every key of `file` is in `known` (the value read, written back), at every
/// depth; `path` names the table being checked.
fn check(file: &Table, known: &Table, path: &mut Vec<(String, bool)>) -> Result<(), String> {
    for (key, v) in file {
        let Some(k) = known.get(key) else {
            let valid: Vec<&str> = known.keys().map(String::as_str).collect();
            return Err(unknown_key(key, &table_name(path), None, &valid));
        };
        match (v, k) {
            (Value::Table(a), Value::Table(b)) => {
                path.push((key.clone(), false));
                check(a, b, path)?;
                path.pop();
            }
            (Value::Array(a), Value::Array(b)) => {
                for (x, y) in a.iter().zip(b) {
                    if let (Value::Table(x), Value::Table(y)) = (x, y) {
                        path.push((key.clone(), true));
                        check(x, y, path)?;
                        path.pop();
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// ` in [a.b]`, ` in [[route]]`, or nothing at the top level.
fn table_name(path: &[(String, bool)]) -> String {
    if path.is_empty() {
        return String::new();
    }
    let name: Vec<&str> = path.iter().map(|(k, _)| k.as_str()).collect();
    let name = name.join(".");
    if path.last().is_some_and(|(_, array)| *array) {
        format!(" in [[{name}]]")
    } else {
        format!(" in [{name}]")
    }
}

/// The message for an unknown `key` of table `table` (` in [tuning]`), among `valid` keys.
fn unknown_key(key: &str, table: &str, line: Option<usize>, valid: &[&str]) -> String {
    let at = line.map(|l| format!(" (line {l})")).unwrap_or_default();
    match closest(key, valid) {
        Some(c) => format!("unknown key `{key}`{table}{at}; did you mean `{c}`?"),
        None if valid.is_empty() => format!("unknown key `{key}`{table}{at}: it takes no keys"),
        None => format!(
            "unknown key `{key}`{table}{at}; valid keys: {}",
            valid.join(", ")
        ),
    }
}

/// The valid key nearest to `key` in edit distance (with transpositions), if it is near
/// enough to be a misspelling: at most a third of the key's length away, and at least 2.
pub fn closest<'a>(key: &str, valid: &[&'a str]) -> Option<&'a str> {
    let near = (key.chars().count() / 3).max(2);
    valid
        .iter()
        .map(|v| (strsim::damerau_levenshtein(key, v), *v))
        .filter(|(d, _)| *d <= near)
        .min()
        .map(|(_, v)| v)
}

/// serde's own error for a type that denies unknown fields (`unknown field `x`, expected one
/// of `a`, `b``), rewritten as [`unknown_key`]'s message with the table and line it is in;
/// any other error as it is.
fn rewrite_unknown_field(e: &toml::de::Error, text: &str) -> String {
    let msg = e.message();
    let Some(rest) = msg.strip_prefix("unknown field `") else {
        return e.to_string();
    };
    let Some((key, expected)) = rest.split_once('`') else {
        return e.to_string();
    };
    // `expected one of `a`, `b``, `expected `a` or `b``, `expected `a``, `there are no fields`.
    let valid: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    let (table, line) = match e.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let header = before
                .lines()
                .rev()
                .map(str::trim)
                .find(|l| l.starts_with('['))
                .and_then(|l| l.find(']').map(|end| &l[..end]))
                .map(|h| {
                    let (open, name) = match h.strip_prefix("[[") {
                        Some(n) => ("[[", n),
                        None => ("[", &h[1..]),
                    };
                    let close = if open == "[[" { "]]" } else { "]" };
                    format!(" in {open}{}{close}", name.trim())
                })
                .unwrap_or_default();
            (header, Some(before.matches('\n').count() + 1))
        }
        None => (String::new(), None),
    };
    unknown_key(key, &table, line, &valid)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Default, Serialize, Deserialize, PartialEq)]
    #[serde(default)]
    struct Core {
        chunk: u32,
        send_buffer: u64,
    }

    #[derive(Debug, Default, Serialize, Deserialize, PartialEq)]
    #[serde(default)]
    struct Tuning {
        #[serde(flatten)]
        core: Core,
        threads: usize,
    }

    #[derive(Debug, Serialize, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Route {
        name: String,
    }

    #[derive(Debug, Serialize, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct File {
        server: String,
        #[serde(default)]
        tuning: Tuning,
        #[serde(default)]
        fixed: Option<u32>,
        #[serde(default, rename = "route")]
        routes: Vec<Route>,
    }

    const GOOD: &str =
        "server = \"s\"\nfixed = 3\n[tuning]\nchunk = 5\nsend_buffer = 7\nthreads = 2\n\
                        [[route]]\nname = \"web\"\n";

    #[test]
    fn a_file_with_known_keys_reads_into_its_type() {
        let f: File = from_str(GOOD).unwrap();
        assert_eq!(f.tuning.core.send_buffer, 7);
        assert_eq!(f.tuning.threads, 2);
        assert_eq!(f.fixed, Some(3));
        assert_eq!(f.routes[0].name, "web");
    }

    /// A misspelled key of a flattened part is found although serde takes no notice of it.
    #[test]
    fn a_misspelled_key_of_a_flattened_table_names_the_closest_key() {
        let e = from_str::<File>(&GOOD.replace("send_buffer", "send_bufer")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown key `send_bufer` in [tuning]; did you mean `send_buffer`?"
        );
        let e = from_str::<File>(&GOOD.replace("threads", "thread")).unwrap_err();
        assert!(e.to_string().contains("did you mean `threads`?"), "{e}");
    }

    #[test]
    fn a_misspelled_key_of_a_strict_table_names_the_closest_key_and_its_line() {
        let e = from_str::<File>(&GOOD.replace("server", "sever")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown key `sever` (line 1); did you mean `server`?"
        );
        let e = from_str::<File>(&GOOD.replace("name", "nam")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown key `nam` in [[route]] (line 8); did you mean `name`?"
        );
    }

    #[test]
    fn a_key_near_nothing_lists_the_valid_keys() {
        let e = from_str::<File>(&format!("{GOOD}[tuning.x]\n")).unwrap_err();
        assert!(e.to_string().contains("unknown key `x` in [tuning]"), "{e}");
        let e = from_str::<File>(&GOOD.replace("threads = 2", "bogus_entirely = 2")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown key `bogus_entirely` in [tuning]; valid keys: chunk, send_buffer, threads"
        );
    }

    #[test]
    fn an_embedded_table_is_checked_under_its_name() {
        let file: Table = "chunk = 1\nsend_bufer = 2\n".parse().unwrap();
        let value: Tuning = file.clone().try_into().unwrap();
        let e = check_table(&file, &value, "tuning").unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown key `send_bufer` in [tuning]; did you mean `send_buffer`?"
        );
        let file: Table = "chunk = 1\nsend_buffer = 2\n".parse().unwrap();
        let value: Tuning = file.clone().try_into().unwrap();
        assert!(check_table(&file, &value, "tuning").is_ok());
    }

    #[test]
    fn closest_keeps_to_misspellings() {
        let keys = ["send_buffer", "flow_window", "max_flows", "chunk"];
        assert_eq!(closest("send_bufer", &keys), Some("send_buffer"));
        assert_eq!(closest("sendbuffer", &keys), Some("send_buffer"));
        assert_eq!(closest("flow_windwo", &keys), Some("flow_window"));
        assert_eq!(closest("chnuk", &keys), Some("chunk"));
        assert_eq!(closest("policy", &keys), None);
    }
}
