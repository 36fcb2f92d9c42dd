//! `gittins-packet` quick: every flow finishes under tcp, LAS and Gittins on the same sample
//! paths, the best size-blind configuration is the one with the lower mean transfer time,
//! and the verdicts agree with the experiment's own numbers.

mod common;

use common::{csv_rows, num, quick, Scratch};

#[test]
fn gittins_packet_quick_compares_gittins_with_the_best_size_blind_policy_on_the_same_flows() {
    let dir = Scratch::new("gittins-packet", "quick");
    quick("gittins-packet", dir.path(), None);
    let rows = csv_rows(&dir, "cells.csv");
    let configs: Vec<&str> = rows.iter().map(|r| r["config"].as_str()).collect();
    assert_eq!(configs, ["tcp", "schedtcp/las", "schedtcp/gittins"]);
    for r in &rows {
        assert_eq!(num(r, "unfinished"), 0.0, "{r:?}");
        assert!(num(r, "flows") > 50.0, "{r:?}");
        assert_eq!(num(r, "paths"), 2.0, "{r:?}");
    }
    assert_eq!(num(&rows[0], "ratio_to_tcp"), 1.0);
    let (tcp, las, git) = (&rows[0], &rows[1], &rows[2]);
    let best = if num(las, "mean_transfer_s") < num(tcp, "mean_transfer_s") {
        las
    } else {
        tcp
    };
    assert_eq!(git["best"], best["config"]);
    // Both ratios are means of per-path ratios; against tcp and against the best they agree
    // when tcp is the best.
    if best["config"] == "tcp" {
        assert_eq!(num(git, "ratio_to_best"), num(git, "ratio_to_tcp"));
    }
    let (n, bad) = lab::verdict::check_folder(&dir).expect("verdicts.json");
    assert_eq!(n, 2, "two verdicts for the quick run's one cell");
    assert!(bad.is_empty(), "{bad:?}");
}
