//! A run that kept every run's raw results (`--shard 1/1`) is re-analysed and re-rendered in
//! place by `render`, without re-running: the outputs are the unsharded run's byte for byte,
//! and a summary lost or edited since is regenerated from the raw results beside it.

mod common;

use common::{files, quick, Scratch};
use lab::{render, Shard};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every file under `dir` (relative path → bytes), but the raw results and their manifest.
fn outputs(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    files(dir, |rel| {
        !(rel.starts_with("raw") || rel == Path::new("shard.json"))
    })
}

fn rendered_equals_whole(name: &str) {
    let whole = Scratch::new("render", &format!("{name}-whole"));
    quick(name, whole.path(), None);
    let kept = Scratch::new("render", &format!("{name}-kept"));
    quick(name, kept.path(), Some(Shard { index: 1, count: 1 }));
    assert!(kept.join("raw").is_dir(), "{name}: no raw results kept");
    assert!(
        !kept.join("summary.md").exists(),
        "the run itself analyses nothing"
    );

    let report = render(&kept, false).unwrap_or_else(|e| panic!("{name}: render: {e:#}"));
    let (a, b) = (outputs(&whole), outputs(&kept));
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "{name}: render wrote other files"
    );
    assert!(a.keys().any(|f| f.extension().is_some_and(|x| x == "csv")));
    for (f, bytes) in &a {
        assert!(bytes == &b[f], "{name}: {} differs", f.display());
    }
    assert_eq!(
        report.summary_markdown.as_bytes(),
        &a[Path::new("summary.md")][..]
    );

    // The summary edited, a table lost: both come back, byte for byte, from the raw results.
    let summary = kept.join("summary.md");
    std::fs::write(&summary, "edited by hand\n").unwrap();
    let csv = b
        .keys()
        .find(|f| f.extension().is_some_and(|x| x == "csv"))
        .unwrap();
    std::fs::remove_file(kept.join(csv)).unwrap();
    render(&kept, false).unwrap_or_else(|e| panic!("{name}: second render: {e:#}"));
    assert!(outputs(&kept) == a, "{name}: the second render differs");
}

#[test]
fn table2_renders_from_its_raw_results_as_the_whole_run() {
    rendered_equals_whole("table2");
}

#[test]
fn bg_fig5_renders_from_its_raw_results_as_the_whole_run() {
    rendered_equals_whole("bg-fig5");
}

#[test]
fn render_refuses_one_shard_of_several_and_a_folder_without_raw_results() {
    let part = Scratch::new("render", "table2-1of2");
    quick("table2", part.path(), Some(Shard { index: 1, count: 2 }));
    let e = render(&part, false).unwrap_err();
    assert!(format!("{e:#}").contains("shard 1 of 2"), "{e:#}");
    let empty = Scratch::new("render", "empty");
    std::fs::create_dir_all(&empty).unwrap();
    assert!(render(&empty, false).is_err());
}
