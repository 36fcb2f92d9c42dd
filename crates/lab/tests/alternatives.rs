//! `alternatives` quick: on the same flows, one multiplexed connection leaves a competing
//! plain-TCP download more of the path than the pair's own connections do, every flow of
//! every option completes, and the verdicts agree with the experiment's own numbers.

mod common;

use common::{csv_rows, num, quick, Scratch};

#[test]
fn alternatives_quick_one_multiplexed_connection_yields_the_path_to_the_competitor() {
    let dir = Scratch::new("alternatives", "quick");
    quick("alternatives", dir.path(), None);
    let runs = csv_rows(&dir, "runs.csv");
    assert_eq!(runs.len(), 2 * 5, "2 runs x 5 options on one workload");
    for r in &runs {
        assert_eq!(num(r, "incomplete"), 0.0, "{r:?}");
        assert!(num(r, "short_flows") > 10.0, "{r:?}");
    }
    let of = |opt: &str, run: &str| {
        runs.iter()
            .find(|r| r["option"] == opt && r["run"] == run)
            .map(|r| num(r, "competitor_bytes"))
            .expect("a row per option and run")
    };
    for run in ["0", "1"] {
        assert!(
            of("mux", run) > 1.2 * of("tcp", run),
            "run {run}: competitor beside mux {} vs beside tcp {}",
            of("mux", run),
            of("tcp", run)
        );
    }
    let (n, bad) = lab::verdict::check_folder(&dir).expect("verdicts.json");
    assert!(n >= 5, "{n} verdicts");
    assert!(bad.is_empty(), "{bad:?}");
}
