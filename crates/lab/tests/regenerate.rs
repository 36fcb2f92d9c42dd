//! Every committed experiment summary follows from the raw results committed beside it: each
//! `results/<experiment>/` folder is copied, rendered again in the copy without running
//! anything (`render` for a folder that kept its runs with `--shard 1/1`, `render_from` for an
//! experiment that reads its own CSV/JSON), and every committed file must come out byte for
//! byte. A folder that cannot be regenerated must be listed in [`NOT_REGENERATED`] with the
//! reason, and a listed folder that can be is an error, so the list only shrinks.
//!
//! Folders of `results/` that are not named after an experiment (trace examples, benchmark
//! histories) are not lab outputs and are not walked.

mod common;

use common::{files, Scratch};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Committed experiment folders whose summary cannot yet be regenerated from what is
/// committed, and why.
const NOT_REGENERATED: &[(&str, &str)] = &[];

fn results() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../results")
}

/// Copies `from` (files and folders) into `to`.
fn copy(from: &Path, to: &Path) {
    for (rel, bytes) in files(from, |_| true) {
        let p = to.join(rel);
        std::fs::create_dir_all(p.parent().expect("a file has a folder")).expect("mkdir");
        std::fs::write(p, bytes).expect("write");
    }
}

/// Renders a copy of the committed folder of `name` again; the committed files that came out
/// different (or gone), or the error that stopped the render.
fn regenerate(name: &str, dir: &Path, renders: bool) -> Result<Vec<PathBuf>, String> {
    let scratch = Scratch::new("regenerate", name);
    copy(dir, &scratch);
    let done = if dir.join("shard.json").is_file() {
        lab::render(&scratch, false)
    } else if renders {
        lab::render_from(name, &scratch, None)
    } else {
        return Err("nothing to render it from".into());
    };
    done.map_err(|e| format!("{e:#}"))?;
    let before: BTreeMap<PathBuf, Vec<u8>> = files(dir, |_| true);
    let after = files(&scratch, |_| true);
    Ok(before
        .into_iter()
        .filter(|(f, bytes)| after.get(f) != Some(bytes))
        .map(|(f, _)| f)
        .collect())
}

#[test]
fn every_committed_summary_renders_again_from_its_committed_raw_results() {
    let mut failures = Vec::new();
    let mut regenerated = Vec::new();
    for e in lab::experiments() {
        let dir = results().join(e.name);
        if !dir.join("summary.md").is_file() {
            continue;
        }
        let listed = NOT_REGENERATED.iter().find(|(n, _)| *n == e.name);
        match (regenerate(e.name, &dir, e.renders), listed) {
            (Ok(changed), None) if changed.is_empty() => regenerated.push(e.name),
            (Ok(changed), None) => failures.push(format!(
                "{}: rendered again, these files differ from the committed ones: {changed:?}",
                e.name
            )),
            (Err(why), None) => failures.push(format!(
                "{}: cannot be rendered again ({why}); regenerate it or list it in \
                 NOT_REGENERATED with the reason",
                e.name
            )),
            (Ok(changed), Some(_)) if changed.is_empty() => failures.push(format!(
                "{}: renders again byte for byte: remove it from NOT_REGENERATED",
                e.name
            )),
            (_, Some(_)) => {}
        }
    }
    for (n, _) in NOT_REGENERATED {
        assert!(
            lab::experiments().iter().any(|e| e.name == *n),
            "NOT_REGENERATED names `{n}`, which is no experiment"
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        [
            "table2",
            "testbed-table2",
            "testbed-fig6",
            "testbed-nonintrusive",
            "testbed-alternatives"
        ]
        .iter()
        .all(|n| regenerated.contains(n)),
        "regenerated: {regenerated:?}"
    );
}
