//! `alternatives` quick: on the same flows, one multiplexed connection leaves a competing
//! plain-TCP download more of the path than the pair's own connections do, and alone on the
//! path carries what they carry; every flow of every option completes, and the verdicts
//! agree with the experiment's own numbers.

mod common;

use common::{csv_rows, num, quick, Scratch};

#[test]
fn alternatives_quick_one_multiplexed_connection_yields_the_path_to_the_competitor() {
    let dir = Scratch::new("alternatives", "quick");
    quick("alternatives", dir.path(), None);
    let runs = csv_rows(&dir, "runs.csv");
    assert_eq!(
        runs.len(),
        2 * 5 * 2,
        "2 runs x 5 options on one workload, beside the competitor and alone"
    );
    for r in &runs {
        assert_eq!(num(r, "incomplete"), 0.0, "{r:?}");
        assert!(num(r, "short_flows") > 10.0, "{r:?}");
    }
    let get = |cell: &str, opt: &str, run: &str, col: &str| {
        runs.iter()
            .find(|r| r["workload"] == cell && r["option"] == opt && r["run"] == run)
            .map(|r| num(r, col))
            .expect("a row per cell, option and run")
    };
    for run in ["0", "1"] {
        let (mux, tcp) = (
            get("web+bulk", "mux", run, "competitor_bytes"),
            get("web+bulk", "tcp", run, "competitor_bytes"),
        );
        assert!(
            mux > 1.2 * tcp,
            "run {run}: competitor beside mux {mux} vs beside tcp {tcp}"
        );
        let alone = "web+bulk, alone";
        assert_eq!(get(alone, "mux", run, "competitor_bytes"), 0.0);
        let (mux, tcp) = (
            get(alone, "mux", run, "pair_bytes"),
            get(alone, "tcp", run, "pair_bytes"),
        );
        assert!(
            (mux / tcp - 1.0).abs() < 0.1,
            "run {run}: alone, the pair carried {mux} bytes on one connection, {tcp} on its own"
        );
    }
    let (n, bad) = lab::verdict::check_folder(&dir).expect("verdicts.json");
    assert!(n >= 5, "{n} verdicts");
    assert!(bad.is_empty(), "{bad:?}");
}
