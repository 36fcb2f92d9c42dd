//! `gittins-sweep` in quick mode: every workload and policy has its row, PS is the reference
//! (ratio 1), every ratio is a positive number, and SRPT, which knows every size, beats PS on
//! every workload.

mod common;

use common::{csv_rows, num, Scratch};
use lab::{run, RunOptions};

#[test]
fn gittins_sweep_quick() {
    let dir = Scratch::new("quick", "gittins-sweep");
    run(
        "gittins-sweep",
        &RunOptions {
            out_dir: Some(dir.path()),
            quick: true,
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e:#}"));
    let rows = csv_rows(&dir.path(), "ratios.csv");
    let workloads = [
        "exp", "lomax1.1", "lomax1.5", "lomax3", "bp", "d1", "change",
    ];
    // 7 policies per workload, and the μ-rule on the two-class mixture.
    assert_eq!(rows.len(), 7 * workloads.len() + 1);
    for w in workloads {
        let of = |p: &str| {
            rows.iter()
                .find(|r| r["workload"] == w && r["policy"] == p)
                .unwrap_or_else(|| panic!("{w}: no {p} row"))
        };
        assert_eq!(num(of("PS"), "mean_ratio_to_ps"), 1.0);
        for r in rows.iter().filter(|r| r["workload"] == w) {
            let m = num(r, "mean_ratio_to_ps");
            assert!(m.is_finite() && m > 0.0, "{w} {}: {m}", r["policy"]);
        }
        assert!(num(of("SRPT"), "mean_ratio_to_ps") < 1.0, "{w}: SRPT");
    }
    assert!(rows
        .iter()
        .any(|r| r["policy"] == "mu:gittins (learned)" && r["workload"] == "d1"));
}
