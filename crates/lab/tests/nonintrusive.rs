//! Issue 8's simulator experiments in quick mode: `nonintrusive` measures a backlogged
//! competitor and the pair over the window on the same sample paths, `table2-buffers` compares
//! default with unbounded buffers, and bad scenarios are refused. (`testbed-nonintrusive`
//! needs root: its planned-stop mechanism is tested in `testbed`.)

mod common;

use common::Scratch;
use lab::{default_scenario, run, RunOptions};
use std::path::PathBuf;

fn tmp(name: &str) -> Scratch {
    Scratch::new("ni", name)
}

fn quick(name: &str, scenario: Option<String>) -> anyhow::Result<Scratch> {
    let dir = tmp(name);
    let file = scenario.map(|text| {
        let f = tmp(&format!("{name}.toml"));
        std::fs::write(&f, text).unwrap();
        f
    });
    run(
        name,
        &RunOptions {
            out_dir: Some(dir.path()),
            quick: true,
            scenario: file.as_ref().map(Scratch::path),
            ..Default::default()
        },
    )?;
    Ok(dir)
}

fn csv_rows(path: PathBuf) -> Vec<std::collections::HashMap<String, String>> {
    let mut r = csv::Reader::from_path(&path).unwrap();
    let h: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    r.records()
        .map(|x| {
            let x = x.unwrap();
            h.iter().cloned().zip(x.iter().map(String::from)).collect()
        })
        .collect()
}

fn num(row: &std::collections::HashMap<String, String>, k: &str) -> f64 {
    row[k].parse().unwrap_or(f64::NAN)
}

#[test]
fn nonintrusive_quick_measures_competitor_and_pair_on_the_same_paths() {
    let dir = quick("nonintrusive", None).unwrap();
    let rows = csv_rows(dir.join("runs.csv"));
    // [quick]: one run of schedtcp/tcp, schedtcp/srpt and plain tcp.
    let configs: Vec<&str> = rows.iter().map(|r| r["config"].as_str()).collect();
    assert_eq!(
        configs,
        ["schedtcp/tcp", "schedtcp/srpt", "plain tcp (no tunnel)"]
    );
    // The quick path: 12 MB/s over a 4 s window.
    for r in &rows {
        let (c, p) = (num(r, "competitor_bytes"), num(r, "pair_bytes"));
        assert!(c > 0.0 && p > 0.0, "{r:?}");
        assert!(c + p <= 12e6 * 4.0 * 1.01, "more than the link: {r:?}");
        assert_eq!(num(r, "errors"), 0.0, "{r:?}");
        assert_eq!(num(r, "invariant_violations"), 0.0, "{r:?}");
        // Same sample path: the same flows arrived under every configuration.
        assert_eq!(r["flows"], rows[0]["flows"]);
    }
    let reference = &rows[0];
    let srpt = &rows[1];
    let ratio = num(srpt, "competitor_bytes") / num(reference, "competitor_bytes");
    assert!(
        (ratio - num(srpt, "competitor_ratio_to_tcp_policy")).abs() < 1e-9,
        "the ratio is taken against the same run's tcp policy"
    );
    for f in ["competitor_over_time.svg", "ratio.svg", "nonintrusive.csv"] {
        assert!(dir.join(f).is_file(), "{f}");
    }
}

#[test]
fn table2_buffers_quick_compares_default_with_unbounded() {
    let dir = quick("table2-buffers", None).unwrap();
    let rows = csv_rows(dir.join("table2_buffers.csv"));
    let configs: Vec<&str> = rows.iter().map(|r| r["config"].as_str()).collect();
    assert_eq!(
        configs,
        [
            "tcp",
            "schedtcp/srpt",
            "schedtcp/fair",
            "schedtcp/srpt (core buffers)",
            "schedtcp/fair (core buffers)"
        ]
    );
    for r in &rows {
        let default_buffers = r["config"].ends_with("(core buffers)");
        assert_eq!(
            r["ratio_to_unbounded"].is_empty(),
            !default_buffers,
            "only default-buffer rows compare with unbounded: {r:?}"
        );
        assert_eq!(num(r, "invariant_violations"), 0.0);
        assert!(num(r, "mean_t_s") > 0.0);
    }
    // tcp is its own reference and injects exactly its own bytes.
    assert_eq!(num(&rows[0], "ratio_to_tcp"), 1.0);
    assert_eq!(num(&rows[0], "mean_conn_rel_diff"), 0.0);
}

#[test]
fn bad_issue8_scenarios_are_errors() {
    for (name, from, to, needle) in [
        (
            "nonintrusive",
            "warmup_s = 2.0",
            "warmup_s = 7.0",
            "warmup_s",
        ),
        ("nonintrusive", "goal = 0.02", "goal = 2.0", "goal"),
        (
            "nonintrusive",
            "policies = [\"tcp\", \"srpt\"]",
            "policies = [\"srpt\"]",
            "tcp",
        ),
        ("table2-buffers", "goal = 0.05", "goal = -1.0", "goal"),
        (
            "table2-buffers",
            "sizes = [{ name = \"alpha3\", alpha = 3.0, c = 2e-6 }]",
            "sizes = [{ name = \"x\", alpha = 0.5, c = 2e-6 }]",
            "alpha",
        ),
        (
            "testbed-nonintrusive",
            "stop_s = 6.0",
            "stop_s = 0.5",
            "warmup_s",
        ),
    ] {
        let text = default_scenario(name).unwrap();
        assert!(text.contains(from), "{name}: `{from}` not in the scenario");
        let e = quick(name, Some(text.replace(from, to))).unwrap_err();
        assert!(format!("{e:#}").contains(needle), "{name}: {e:#}");
    }
}
