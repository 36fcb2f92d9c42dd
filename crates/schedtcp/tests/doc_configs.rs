//! Every configuration snippet in README.md and docs/*.md is one `schedtcp check` accepts.
//!
//! A ```toml block with a `[[route]]` is a whole file: checked as it is (its role from its
//! first line: a client names its `server`). A block without one is a fragment of a file (a
//! key, a table): checked inside the smallest file of each role, and it must pass for at least
//! one. The key files the snippets name are created next to them.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The ```toml blocks of a markdown file.
fn toml_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut cur: Option<String> = None;
    for line in text.lines() {
        match (&mut cur, line.trim_start()) {
            (None, l) if l.starts_with("```toml") => cur = Some(String::new()),
            (Some(b), l) if l.starts_with("```") => {
                blocks.push(std::mem::take(b));
                cur = None;
            }
            (Some(b), _) => {
                b.push_str(line);
                b.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}

fn check(dir: &Path, toml: &str, role: &str) -> Result<(), String> {
    let path = dir.join(format!("{role}.toml"));
    std::fs::write(&path, toml).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_schedtcp"))
        .args(["check", "--config", path.to_str().unwrap(), "--role", role])
        .current_dir(dir)
        .output()
        .unwrap();
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// Key files the snippets name (relative ones next to the file, absolute ones moved there).
fn with_keys(dir: &Path, toml: &str) -> String {
    let mut out = String::new();
    for line in toml.lines() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix("key_file") {
            let name = rest
                .split('"')
                .nth(1)
                .and_then(|p| Path::new(p).file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "psk.hex".into());
            let key = dir.join(&name);
            if !key.exists() {
                tunnel::psk::write_new(&key).unwrap();
            }
            out.push_str(&format!("key_file = \"{name}\"\n"));
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// `base` without the top-level keys `fragment` sets.
fn without_keys_of(base: &str, fragment: &str) -> String {
    let key = |l: &str| l.split('=').next().unwrap_or("").trim().to_owned();
    let set: Vec<String> = fragment
        .lines()
        .take_while(|l| !l.trim_start().starts_with('['))
        .filter(|l| l.contains('=') && !l.trim_start().starts_with('#'))
        .map(key)
        .collect();
    base.lines()
        .filter(|l| !(l.contains('=') && set.contains(&key(l))))
        .map(|l| format!("{l}\n"))
        .collect()
}

const SERVER: &str =
    "listen = \"127.0.0.1:7000\"\nkey_file = \"psk.hex\"\n[[route]]\nname = \"r\"\ntarget = \"127.0.0.1:80\"\n";
const CLIENT: &str =
    "server = \"127.0.0.1:7000\"\nkey_file = \"psk.hex\"\n[[route]]\nname = \"r\"\nlisten = \"127.0.0.1:8080\"\n";

#[test]
fn every_configuration_snippet_in_the_docs_checks() {
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let mut files = vec![root.join("README.md")];
    for e in std::fs::read_dir(root.join("docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            files.push(p);
        }
    }
    let dir = std::env::temp_dir().join(format!("schedtcp-doc-configs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    tunnel::psk::write_new(&dir.join("psk.hex")).unwrap();
    let mut checked = 0;
    let mut failed = Vec::new();
    for f in &files {
        for (i, block) in toml_blocks(&std::fs::read_to_string(f).unwrap())
            .iter()
            .enumerate()
        {
            let block = with_keys(&dir, block);
            let result = if block.contains("[[route]]") {
                let role = if block
                    .lines()
                    .any(|l| l.trim_start().starts_with("server ="))
                {
                    "client"
                } else {
                    "server"
                };
                check(&dir, &block, role)
            } else {
                // A fragment: its keys go before the base's routes, at the top level, in place
                // of the base's own.
                let (server, client) = (
                    format!("{block}\n{}", without_keys_of(SERVER, &block)),
                    format!("{block}\n{}", without_keys_of(CLIENT, &block)),
                );
                check(&dir, &server, "server")
                    .or_else(|e| check(&dir, &client, "client").map_err(|e2| format!("{e}\n{e2}")))
            };
            checked += 1;
            if let Err(e) = result {
                failed.push(format!("{} block {i}:\n{block}\n{e}", f.display()));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(checked >= 3, "only {checked} snippets found");
    assert!(failed.is_empty(), "{}", failed.join("\n---\n"));
}
