//! Every experiment runs in quick mode into a temporary directory and produces its outputs;
//! the summaries contain the key numbers. Errors are reported, not panics.

use lab::{default_scenario, experiments, run, RunOptions};
use std::path::PathBuf;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lab-quick-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn quick(name: &str) -> (PathBuf, String) {
    let dir = tmp(name);
    let r = run(
        name,
        &RunOptions {
            out_dir: Some(dir.clone()),
            quick: true,
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("{name}: {e:#}"));
    assert_eq!(r.out_dir, dir);
    assert!(dir.join("summary.md").is_file());
    assert!(dir.join("scenario.toml").is_file());
    let on_disk = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert_eq!(on_disk, r.summary_markdown);
    (dir, r.summary_markdown)
}

/// Replace the value of the top-level key `key` in a scenario text.
fn set_line(text: &str, key: &str, value: &str) -> String {
    let prefix = format!("{key} = ");
    let mut replaced = false;
    let out: Vec<String> = text
        .lines()
        .map(|l| {
            if !replaced && l.starts_with(&prefix) {
                replaced = true;
                format!("{key} = {value}")
            } else {
                l.to_string()
            }
        })
        .collect();
    assert!(replaced, "scenario has no `{key}` line");
    out.join("\n")
}

fn has(dir: &std::path::Path, files: &[&str]) {
    for f in files {
        let p = dir.join(f);
        assert!(p.is_file(), "missing {}", p.display());
        let len = std::fs::metadata(&p).unwrap().len();
        assert!(len > 50, "{} is nearly empty", p.display());
        if f.ends_with(".svg") {
            let s = std::fs::read_to_string(&p).unwrap();
            assert!(s.contains("<text"), "{f} has no text");
        }
    }
}

#[test]
fn registry_lists_every_experiment_with_a_scenario() {
    let names: Vec<&str> = experiments().iter().map(|e| e.name).collect();
    for n in [
        "run2c-fig1",
        "run2c-fig2",
        "bg-fig2",
        "bg-fig3",
        "bg-fig4",
        "bg-theorem5",
        "fluid-table2",
    ] {
        assert!(names.contains(&n), "{n} not registered");
        let s = default_scenario(n).unwrap();
        assert!(s.contains("[quick]"), "{n} has no quick variant");
    }
    assert!(default_scenario("nope").is_none());
}

#[test]
fn run2c_fig1_quick() {
    let (dir, md) = quick("run2c-fig1");
    has(
        &dir,
        &[
            "fig1.csv",
            "fig1.svg",
            "simulation_check.csv",
            "summary.json",
        ],
    );
    assert!(md.contains("≈ 200 packets") && md.contains("optimal threshold"));
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    let th = j["optimal_threshold"].as_f64().unwrap();
    assert!(th > 50.0 && th < 1000.0, "optimum {th}");
    assert!(j["optimal_mean"].as_f64().unwrap() < j["ps_mean"].as_f64().unwrap());
}

#[test]
fn run2c_fig2_quick() {
    let (dir, md) = quick("run2c-fig2");
    has(
        &dir,
        &[
            "fig2.csv",
            "fig2.svg",
            "fig2_difference.svg",
            "simulation_check.csv",
        ],
    );
    assert!(md.contains("T_LAS(x)"));
}

#[test]
fn bg_fig2_quick() {
    let (dir, md) = quick("bg-fig2");
    has(&dir, &["fig2.csv", "fig2.svg", "simulation_check.csv"]);
    assert!(md.contains("ρ ≥ .5"));
}

#[test]
fn bg_fig3_quick() {
    let (dir, md) = quick("bg-fig3");
    has(&dir, &["fig3.csv", "fig3.svg"]);
    assert!(md.contains("20.7%"));
    // k = 1's worst case appears in our column (grid of 20 values: close to 20.7%).
    assert!(md.contains("| 1 | 20."), "{md}");
}

#[test]
fn bg_fig4_quick() {
    let (dir, md) = quick("bg-fig4");
    has(
        &dir,
        &[
            "fig4.csv",
            "fig4_rho0.5.svg",
            "fig4_rho0.9.svg",
            "fig4_ratio.svg",
            "simulation_check.csv",
        ],
    );
    assert!(md.contains("22%"));
}

#[test]
fn bg_theorem5_quick() {
    let (dir, md) = quick("bg-theorem5");
    has(&dir, &["theorem5.csv", "theorem5.json", "theorem5.svg"]);
    assert!(md.contains("20.71%"), "{md}");
    assert!(md.contains("0.586"));
}

#[test]
fn fluid_table2_quick() {
    let (dir, md) = quick("fluid-table2");
    has(
        &dir,
        &[
            "table2.csv",
            "table2_coarse_equal.csv",
            "table2.json",
            "by_size.csv",
            "by_size.svg",
        ],
    );
    assert!(md.contains("88.8%") && md.contains("FSP (FAIR)"));
    // FSP never slower than PS.
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("table2.json")).unwrap()).unwrap();
    let fsp = j["strict"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["policy"].as_str().unwrap().starts_with("FSP"))
        .unwrap();
    assert_eq!(fsp["slower"].as_f64().unwrap(), 0.0);
}

#[test]
fn errors_are_clear_not_panics() {
    let opts = RunOptions {
        out_dir: Some(tmp("errors")),
        quick: true,
        ..Default::default()
    };
    let e = run("no-such-experiment", &opts).unwrap_err();
    assert!(format!("{e:#}").contains("unknown experiment"));

    let bad = tmp("bad-toml.toml");
    std::fs::write(&bad, "load = [").unwrap();
    let e = run(
        "run2c-fig1",
        &RunOptions {
            scenario: Some(bad.clone()),
            ..opts.clone()
        },
    )
    .unwrap_err();
    assert!(format!("{e:#}").contains("not valid TOML"), "{e:#}");

    let text = set_line(default_scenario("run2c-fig1").unwrap(), "load", "1.2");
    std::fs::write(&bad, text).unwrap();
    let e = run(
        "run2c-fig1",
        &RunOptions {
            scenario: Some(bad.clone()),
            ..opts.clone()
        },
    )
    .unwrap_err();
    assert!(format!("{e:#}").contains("load"), "{e:#}");

    let text = default_scenario("bg-fig3")
        .unwrap()
        .replace("f_points = 199", "f_pointz = 199");
    std::fs::write(&bad, text).unwrap();
    let e = run(
        "bg-fig3",
        &RunOptions {
            scenario: Some(bad.clone()),
            ..opts.clone()
        },
    )
    .unwrap_err();
    assert!(format!("{e:#}").contains("f_point"), "{e:#}");

    let text = default_scenario("fluid-table2")
        .unwrap()
        .replace("alpha = 3.0", "alpha = 0.5");
    std::fs::write(&bad, text).unwrap();
    let e = run(
        "fluid-table2",
        &RunOptions {
            scenario: Some(bad.clone()),
            ..opts
        },
    )
    .unwrap_err();
    assert!(format!("{e:#}").contains("alpha"), "{e:#}");
    std::fs::remove_file(&bad).ok();
}
