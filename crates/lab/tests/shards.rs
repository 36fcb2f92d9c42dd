//! An experiment's runs split into shards (`--shard I/N`) and merged give the unsharded
//! run's outputs byte for byte; a merge refuses an incomplete set of shards.

mod common;

use common::{files, quick, Scratch};
use lab::{merge, run, RunOptions, Shard};
use std::path::PathBuf;

/// Shards 1/3, 2/3, 3/3 of `name`'s quick run, merged, against the unsharded quick run.
fn sharded_equals_whole(name: &str) {
    let whole = Scratch::new("shards", &format!("{name}-whole"));
    quick(name, whole.path(), None);
    let shards: Vec<Scratch> = (1..=3)
        .map(|i| {
            let d = Scratch::new("shards", &format!("{name}-{i}of3"));
            quick(name, d.path(), Some(Shard { index: i, count: 3 }));
            assert!(!d.join("summary.md").exists(), "a shard analyses nothing");
            d
        })
        .collect();
    let dirs: Vec<PathBuf> = shards.iter().map(Scratch::path).collect();

    // Two shards of three are not enough.
    let short = Scratch::new("shards", &format!("{name}-short"));
    let e = merge(&dirs[..2], &short, false).unwrap_err();
    assert!(format!("{e:#}").contains("missing shards: 3/3"), "{e:#}");

    let merged = Scratch::new("shards", &format!("{name}-merged"));
    merge(&dirs, &merged, false).unwrap_or_else(|e| panic!("{name}: merge: {e:#}"));
    let (a, b) = (files(&whole, |_| true), files(&merged, |_| true));
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "{name}: the merge wrote other files"
    );
    assert!(a.keys().any(|f| f.extension().is_some_and(|x| x == "csv")));
    for (f, bytes) in &a {
        assert!(
            bytes == &b[f],
            "{name}: {} differs after the merge",
            f.display()
        );
    }
}

#[test]
fn table2_merged_shards_equal_the_whole_run() {
    sharded_equals_whole("table2");
}

#[test]
fn run2c_sim_merged_shards_equal_the_whole_run() {
    sharded_equals_whole("run2c-sim");
}

#[test]
fn bg_fig5_merged_shards_equal_the_whole_run() {
    sharded_equals_whole("bg-fig5");
}

#[test]
fn an_experiment_without_shards_refuses_one() {
    let d = Scratch::new("shards", "fig6");
    let e = run(
        "fig6",
        &RunOptions {
            out_dir: Some(d.path()),
            quick: true,
            shard: Some(Shard { index: 1, count: 2 }),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(
        format!("{e:#}").contains("does not split into shards"),
        "{e:#}"
    );
}
