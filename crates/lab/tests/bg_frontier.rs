//! `bg-frontier` in quick mode: every comparison at equal carried fraction follows from the
//! per-run rows it wrote (recomputed here from `frontier-runs.csv` alone), a point outside a
//! frontier's range is not compared, and a bad scenario is an error naming the key.

mod common;

use common::{csv_rows, num, Scratch};
use std::collections::HashMap;

fn quick(scenario: Option<String>) -> anyhow::Result<Scratch> {
    let dir = Scratch::new("quick", "bg-frontier");
    let scenario_path = match scenario {
        Some(text) => {
            let p = dir.with_extension("toml");
            std::fs::write(&p, text)?;
            Some(p)
        }
        None => None,
    };
    let r = lab::run(
        "bg-frontier",
        &lab::RunOptions {
            out_dir: Some(dir.path()),
            scenario: scenario_path.clone(),
            quick: true,
            ..Default::default()
        },
    );
    if let Some(p) = scenario_path {
        let _ = std::fs::remove_file(p);
    }
    r?;
    Ok(dir)
}

#[test]
fn bg_frontier_quick_reads_each_frontier_at_the_points_carried_fraction() {
    let dir = quick(None).unwrap();
    for f in [
        "summary.md",
        "frontier-runs.csv",
        "frontier.csv",
        "equal.csv",
        "verdicts.json",
        "frontier-fig5-k1.svg",
        "frontier-fig5-k1-large.svg",
    ] {
        assert!(dir.join(f).is_file(), "missing {f}");
    }
    // Per (label): the repeats' carried fractions and delays, from the per-run rows.
    let mut runs: HashMap<String, Vec<(f64, f64)>> = HashMap::new();
    for r in csv_rows(&dir, "frontier-runs.csv") {
        assert_eq!(r["setting"], "fig5-k1");
        let c = num(&r, "carried");
        assert!((0.0..=1.5).contains(&c), "{r:?}");
        runs.entry(r["label"].clone())
            .or_default()
            .push((c, num(&r, "delay_s")));
    }
    // [quick]: vanilla, M = 1 and 4, adaptive, LEDBAT 25 and 60 ms, TCP-LP; two repeats.
    assert_eq!(runs.len(), 7, "{:?}", runs.keys());
    assert!(runs.values().all(|v| v.len() == 2));
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let carried = |l: &str| mean(&runs[l].iter().map(|x| x.0).collect::<Vec<_>>());
    let frontier = |f: &str| -> Vec<&str> {
        match f {
            "access-fixed" => vec!["access-fixed M=1", "access-fixed M=4"],
            _ => vec!["ledbat 25 ms", "ledbat 60 ms"],
        }
    };
    let mut compared = 0;
    let mut outside = 0;
    for e in csv_rows(&dir, "equal.csv")
        .iter()
        .filter(|e| e["view"] == "all")
    {
        let f = frontier(&e["frontier"]);
        let (a, b) = (carried(f[0]), carried(f[1]));
        let c = carried(&e["label"]);
        assert!((num(e, "carried") - c).abs() < 1e-9, "{e:?}");
        if c < a.min(b) || c > a.max(b) {
            assert_eq!(e["word"], "outside", "{e:?}");
            assert!(e["ratio"].is_empty() || e["ratio"] == "NaN", "{e:?}");
            outside += 1;
            continue;
        }
        compared += 1;
        let w = if a == b { 0.0 } else { (c - a) / (b - a) };
        assert!((num(e, "weight") - w).abs() < 1e-9, "{e:?}");
        let ratios: Vec<f64> = (0..2)
            .map(|i| {
                let at = (1.0 - w) * runs[f[0]][i].1 + w * runs[f[1]][i].1;
                runs[&e["label"]][i].1 / at
            })
            .collect();
        assert!((num(e, "ratio") - mean(&ratios)).abs() < 1e-9, "{e:?}");
        assert!(
            ["lower", "higher", "no difference beyond noise"].contains(&e["word"].as_str()),
            "{e:?}"
        );
    }
    // Two frontiers, each read by the five other mechanisms.
    assert_eq!(compared + outside, 10);
    // The verdicts are the in-range comparisons and the paper's three claims on Fig. 5's
    // k = 1 setting (LEDBAT and TCP-LP against vanilla, access control against vanilla).
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("verdicts.json")).unwrap()).unwrap();
    let in_range = csv_rows(&dir, "equal.csv")
        .iter()
        .filter(|e| e["word"] != "outside")
        .count();
    assert_eq!(v.as_array().unwrap().len(), in_range + 3);
    let (n, bad) = lab::verdict::check_folder(&dir).unwrap();
    assert_eq!(n, in_range + 3);
    assert!(bad.is_empty(), "{bad:?}");
}

#[test]
fn bg_frontier_bad_scenarios_are_clear_errors() {
    let text = lab::default_scenario("bg-frontier").unwrap();
    for (from, to, key) in [
        ("fixed_ms = [1, 4]", "fixed_ms = [4, 1]", "fixed_ms"),
        ("repeats = 2", "repeats = 1", "repeats"),
        (
            "topology = \"single-link\", k = 1",
            "topology = \"ring\", k = 1",
            "topology",
        ),
        (
            "ledbat_targets_ms = [25.0, 60.0]",
            "ledbat_targets_ms = [25.0, -1.0]",
            "ledbat_targets_ms",
        ),
    ] {
        assert!(text.contains(from), "{from}");
        let e = format!("{:#}", quick(Some(text.replace(from, to))).unwrap_err());
        assert!(e.contains(key), "{to}: {e}");
    }
}
