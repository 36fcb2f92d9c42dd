//! Paper 000's experiments in the packet-level simulator (`table2`, `fig6`–`fig9`), in quick
//! mode: they produce their outputs, Proposition 1 holds exactly for `gtcp-ideal`, the core's
//! invariant holds under `schedtcp`, and results do not depend on the number of threads.

mod common;

use common::{csv_rows, num, Scratch};

use lab::{default_scenario, run, RunOptions};
use std::path::{Path, PathBuf};

fn tmp(name: &str) -> Scratch {
    Scratch::new("packet", name)
}

fn quick_with(name: &str, tag: &str, scenario: Option<String>) -> (Scratch, String) {
    let dir = tmp(&format!("{name}-{tag}"));
    let file = scenario.map(|text| {
        let f = tmp(&format!("{name}-{tag}.toml"));
        std::fs::write(&f, text).unwrap();
        f
    });
    let r = run(
        name,
        &RunOptions {
            out_dir: Some(dir.path()),
            quick: true,
            scenario: file.as_ref().map(Scratch::path),
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("{name}: {e:#}"));
    (dir, r.summary_markdown)
}

fn has(dir: &Path, files: &[&str]) {
    for f in files {
        let p = dir.join(f);
        assert!(p.is_file(), "missing {}", p.display());
        assert!(
            std::fs::metadata(&p).unwrap().len() > 50,
            "{f} nearly empty"
        );
    }
}

fn json(dir: &Path, f: &str) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join(f)).unwrap()).unwrap()
}

#[test]
fn table2_quick_checks_proposition_one_and_the_invariant() {
    let (dir, _) = quick_with("table2", "a", None);
    has(
        &dir,
        &[
            "table2.csv",
            "table2.json",
            "nonintrusive.csv",
            "flows.csv",
            "slower_by_size.csv",
            "sensitivity.csv",
            "by_size_schedtcp.svg",
            "by_size_ideal.svg",
        ],
    );
    let j = json(&dir, "table2.json");
    let intr = j["nonintrusive"].as_array().unwrap();
    let mut ideal = 0;
    let mut sched = 0;
    for x in intr {
        let label = x["label"].as_str().unwrap();
        let n = |k: &str| x[k].as_u64().unwrap();
        if label.starts_with("gtcp-ideal") {
            ideal += 1;
            assert_eq!(n("runs_identical_to_tcp"), n("runs"), "{label}");
            assert_eq!(n("duplicate_bytes") + n("padding_bytes"), 0, "{label}");
        }
        if label.starts_with("schedtcp") {
            sched += 1;
            assert!(n("invariant_checked") > 0, "{label}");
            for k in [
                "invariant_violations",
                "protocol_errors",
                "api_errors",
                "payload_mismatches",
            ] {
                assert_eq!(n(k), 0, "{label}: {k}");
            }
            assert!(x["header_overhead"].as_f64().unwrap() > 0.0);
        }
    }
    assert!(ideal >= 2 && sched >= 3, "{ideal} {sched}");
    // The table has every policy under both drivers, plus the fluid ideal.
    let rows = j["table"].as_array().unwrap();
    for l in [
        "tcp (A/A)",
        "schedtcp/srpt",
        "gtcp-ideal/las",
        "fluid/srpt",
        "schedtcp/tcp",
    ] {
        assert!(rows.iter().any(|r| r["label"] == l), "{l} missing");
    }
    // Every flow compared is called once: faster, slower or within the noise; the
    // slower-by-size table counts the same flows and the same slower share.
    let by_size = csv_rows(&dir, "slower_by_size.csv");
    let flows_by_size: f64 = by_size.iter().map(|r| num(r, "flows")).sum();
    for r in rows.iter().filter(|r| r["source"] == "packet") {
        let f = |k: &str| r[k].as_f64().unwrap();
        assert!(
            (f("faster") + f("slower") + f("equal") - 1.0).abs() < 1e-9,
            "{r}"
        );
        let n = f("flows_compared");
        assert_eq!(n, flows_by_size, "{r}");
        let label = r["label"].as_str().unwrap();
        let slower: f64 = by_size
            .iter()
            .map(|b| num(b, "flows") * num(b, label))
            .sum();
        assert!((slower / n - f("slower")).abs() < 1e-3, "{label}");
    }
}

#[test]
fn table2_results_do_not_depend_on_threads() {
    let base = default_scenario("table2").unwrap();
    let two = |threads: u32| {
        base.replace(
            "[quick]\nruns = 1\nrepeats = 2\nthreads = 1",
            &format!("[quick]\nruns = 2\nrepeats = 2\nthreads = {threads}"),
        )
    };
    assert_ne!(two(1), base, "the quick section changed: update this test");
    let (a, _) = quick_with("table2", "t1", Some(two(1)));
    let (b, _) = quick_with("table2", "t2", Some(two(2)));
    for f in ["table2.csv", "flows.csv", "nonintrusive.csv", "summary.md"] {
        let x = std::fs::read(a.join(f)).unwrap();
        let y = std::fs::read(b.join(f)).unwrap();
        assert!(x == y, "{f} differs between 1 and 2 threads");
    }
}

#[test]
fn fig6_quick_sample_flow_is_untouched_by_the_ideal() {
    let (dir, _) = quick_with("fig6", "a", None);
    has(
        &dir,
        &[
            "fig6.csv",
            "fig6.json",
            "fig6_tcp.svg",
            "fig6_schedtcp.svg",
            "fig6_gtcp-ideal.svg",
            "fig6_sample.svg",
        ],
    );
    // Proposition 1: under gtcp-ideal the sample flow's throughput is tcp's, bin for bin.
    let j = json(&dir, "fig6.json");
    let ideal: Vec<&serde_json::Value> = j["configs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["label"].as_str().unwrap().starts_with("gtcp-ideal"))
        .collect();
    assert!(!ideal.is_empty());
    for c in ideal {
        assert_eq!(c["sample_gap_mbps_max_mean"][0].as_f64(), Some(0.0), "{c}");
    }
}

#[test]
fn fig7_fig8_fig9_quick() {
    let (d7, m7) = quick_with("fig7", "a", None);
    has(
        &d7,
        &[
            "fig7.csv",
            "fig7_summary.csv",
            "fig7_schedtcp.svg",
            "fig7_ideal.svg",
        ],
    );
    let _ = m7;
    // Paper 000: SRPT lowers the number of active flows against tcp, beyond the noise of the
    // paired batch means, under the shipped core and the ideal alike.
    let v7 = json(&d7, "verdicts.json");
    for label in ["schedtcp/srpt", "gtcp-ideal/srpt"] {
        let v = v7
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["claim"] == format!("{label}: E[N] − E[N_tcp]"))
            .unwrap_or_else(|| panic!("no verdict on {label}: {v7}"));
        assert_eq!(v["word"], "lower", "{v}");
        assert!(v["ours"]["mean"].as_f64().unwrap() < 0.0, "{v}");
    }
    // The batch means average to E[N] (equal windows), so the paired difference's mean is
    // E[N] − E[N_tcp]; tcp's row is the reference.
    let s7 = csv_rows(&d7, "fig7_summary.csv");
    let tcp_mean = num(&s7[0], "mean");
    assert_eq!(s7[0]["label"], "tcp");
    assert!(tcp_mean > 0.0);
    for r in &s7 {
        let d = num(r, "mean") - tcp_mean;
        assert!(
            (num(r, "diff_to_tcp") - d).abs() < 1e-6 * tcp_mean.max(1.0),
            "{r:?}"
        );
        assert!((num(r, "mean_ratio_to_tcp") * tcp_mean - num(r, "mean")).abs() < 1e-9);
        if r["label"] != "tcp" {
            assert!(num(r, "diff_ci95") > 0.0, "{r:?}");
        }
    }
    let (d8, m8) = quick_with("fig8", "a", None);
    has(
        &d8,
        &[
            "fig8.csv",
            "fig8_quantiles.csv",
            "fig8_schedtcp.svg",
            "fig8_ideal.svg",
        ],
    );
    let _ = m8;
    // Quantiles are ordered, and every configuration completed the same flows as tcp.
    let q8 = csv_rows(&d8, "fig8_quantiles.csv");
    for r in &q8 {
        let q: Vec<f64> = ["p10_s", "p25_s", "median_s", "p75_s", "p90_s", "p99_s"]
            .iter()
            .map(|k| num(r, k))
            .collect();
        assert!(q.windows(2).all(|w| w[0] <= w[1]), "{r:?}");
        assert_eq!(r["flows"], q8[0]["flows"], "{r:?}");
    }
    let (d9, m9) = quick_with("fig9", "a", None);
    has(
        &d9,
        &[
            "fig9.csv",
            "fig9_dispersion.csv",
            "fig9_tcp.svg",
            "fig9_schedtcp_srpt.svg",
        ],
    );
    let _ = m9;
    for r in csv_rows(&d9, "fig9_dispersion.csv") {
        if num(&r, "flows") > 0.0 {
            assert!(
                num(&r, "p10_s") <= num(&r, "median_s") && num(&r, "median_s") <= num(&r, "p90_s")
            );
            assert!((num(&r, "spread") - num(&r, "p90_s") / num(&r, "p10_s")).abs() < 1e-9);
        }
    }
}

#[test]
fn bad_packet_scenarios_are_errors() {
    let out = tmp("bad-out");
    let opts = |f: PathBuf| RunOptions {
        out_dir: Some(out.path()),
        quick: true,
        scenario: Some(f),
        ..Default::default()
    };
    let f = tmp("bad.toml");
    for (name, from, to, needle) in [
        (
            "table2",
            "policies = [\"srpt\", \"las\"]",
            "policies = [\"sjf\"]",
            "sjf",
        ),
        ("table2", "equal_ms = 1.0", "equal_ms = -1.0", "equal_ms"),
        ("table2", "rtt_ms = 50.0", "rtt_ms = 1.0", "rtt_ms"),
        (
            "fig6",
            "drivers = [\"schedtcp\", \"gtcp-ideal\"]",
            "drivers = [\"nope\"]",
            "nope",
        ),
        (
            "fig7",
            "drivers = [\"gtcp-ideal\", \"schedtcp\"]",
            "drivers = [\"x\"]",
            "drivers",
        ),
        (
            "run2c-sim",
            "workloads = [\"D1\", \"D2\"]",
            "workloads = [\"D3\"]",
            "D3",
        ),
        (
            "run2c-sim",
            "d2_persistent_flows = 50",
            "d2_persistent_flows = 0",
            "d2_persistent_flows",
        ),
        (
            "run2c-sim",
            "d2_short_load = 0.2",
            "d2_short_load = 1.5",
            "d2_short_load",
        ),
    ] {
        let text = default_scenario(name).unwrap();
        assert!(text.contains(from), "{name}: `{from}` not in the scenario");
        std::fs::write(&f, text.replace(from, to)).unwrap();
        let e = run(name, &opts(f.path())).unwrap_err();
        assert!(format!("{e:#}").contains(needle), "{name}: {e:#}");
    }
}

/// The simulator against committed ns-3.44 outputs of small cases (load 0.5, 20 s of D1
/// arrivals, S1 in `results/ns3-crosscheck/small/`, S1p in `small-s1p/`, S2 in `small-s2/`, made by `ns3/run.sh`
/// runs of `ns3/dumbbell.cc`): CI re-runs the simulator on the same flows, without ns-3.
#[test]
fn ns3_crosscheck_small_case_agrees() {
    let (dir, _) = quick_with("ns3-crosscheck", "a", None);
    let rows = csv_rows(&dir, "buckets.csv");
    for (setting, tcp) in [
        ("S1", "newreno"),
        ("S1", "sack"),
        ("S1p", "newreno"),
        ("S1p", "sack"),
        ("S2", "newreno"),
        ("S2", "sack"),
    ] {
        let rs: Vec<_> = rows
            .iter()
            .filter(|r| r["setting"] == setting && r["tcp"] == tcp)
            .collect();
        assert!(rs.len() >= 5, "{setting} {tcp}: {} buckets", rs.len());
        if setting == "S1p" {
            // run2c-sim's S1 (1 + 4 + 1 ms) on 20 s of load 0.5: no packet is lost in either
            // simulator, and every bucket mean agrees to 1e-4 (ns-3 prints 6 digits). With
            // SACK this needs the option bytes on the wire (`sack_option_bytes`): without
            // them every handshake is 19.2 µs shorter here, 5.6e-4 of a one-segment flow.
            for r in &rs {
                assert!(num(r, "gap").abs() < 1e-4, "{setting} {tcp}: {r:?}");
            }
            continue;
        }
        let (mut sim, mut ns3) = (0.0, 0.0);
        for r in &rs {
            let n = num(r, "flows");
            sim += n * num(r, "sim_mean_s");
            ns3 += n * num(r, "ns3_mean_s");
            // S2 at load 0.5 has almost no loss: slow start and propagation, which agree
            // closely (results/ns3-crosscheck/summary.md).
            let bound = if setting == "S2" { 0.05 } else { 0.25 };
            if n >= 50.0 {
                assert!(num(r, "gap").abs() < bound, "{setting} {tcp}: {r:?}");
            }
        }
        // SACK agrees within 10%. NewReno without SACK in S1: ns-3 loses more packets and
        // times out more often on the same flows (results/ns3-crosscheck/summary.md, an
        // open gap), so its mean is bounded, not matched: ours may be up to 20% faster.
        let lo = match (setting, tcp) {
            ("S1", "newreno") => -0.20,
            ("S1", _) => -0.10,
            _ => -0.05,
        };
        let hi = if setting == "S2" { 0.05 } else { 0.10 };
        let gap = sim / ns3 - 1.0;
        assert!(
            gap > lo && gap < hi,
            "{setting} {tcp}: mean completion {sim} vs {ns3}"
        );
    }
    for r in csv_rows(&dir, "counters.csv") {
        assert_eq!(num(&r, "sim_undelivered") + num(&r, "ns3_undelivered"), 0.0);
        let (a, b) = (num(&r, "sim_mean_queue"), num(&r, "ns3_mean_queue"));
        assert!((a / b - 1.0).abs() < 0.15, "{r:?}");
    }
}

/// `run2c-sim` in quick mode (S1/D1, 15 s of arrivals): the same flows arrive under the three
/// disciplines, and the priority disciplines cut the mean delay of flows under the threshold
/// (the paper's effect is tenfold; a short run only has to show the direction).
#[test]
fn run2c_sim_quick_priority_disciplines_cut_short_flow_delay() {
    let (dir, _) = quick_with("run2c-sim", "a", None);
    has(
        &dir,
        &[
            "runs.csv",
            "short_delay.csv",
            "throughput.csv",
            "mean_delay_S1.svg",
            "max_delay_S1.svg",
            "throughput_S1.svg",
            "flows_over_time_S1.svg",
        ],
    );
    let mut rd = csv::Reader::from_path(dir.join("runs.csv")).unwrap();
    let headers = rd.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (disc, flows, short) = (
        col("discipline"),
        col("flows"),
        col("mean_delay_under_threshold_s"),
    );
    let rows: Vec<(String, u64, f64)> = rd
        .records()
        .map(|r| {
            let r = r.unwrap();
            (
                r[disc].to_string(),
                r[flows].parse().unwrap(),
                r[short].parse().unwrap(),
            )
        })
        .collect();
    let names: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(names, ["DropTail", "RuN", "RuN2C"]);
    assert!(rows[0].1 > 100, "too few flows: {rows:?}");
    assert!(
        rows.iter().all(|r| r.1 == rows[0].1),
        "same arrivals: {rows:?}"
    );
    assert!(rows[1].2 < rows[0].2, "RuN vs DropTail: {rows:?}");
    assert!(rows[2].2 < rows[0].2, "RuN2C vs DropTail: {rows:?}");
}

/// `run2c-sim` quick, workload D2 only (S1, 50 persistent flows and short flows at 20% load
/// for 20 s): the persistent flows exist under every discipline and carry the bottleneck, and
/// the priority disciplines cut the short flows' delay and their number in the network
/// (seeds 1–8 of the quick run: DropTail's mean short-flow delay 1.55–2.19 s against RuN2C's
/// 0.08–0.16 s; RuN's persistent flows the most even, standard deviation 4–29 kbit/s against
/// DropTail's 75–125).
#[test]
fn run2c_sim_quick_d2_persistent_flows_and_short_flow_delay() {
    let text = default_scenario("run2c-sim")
        .unwrap()
        .replace("workloads = [\"D1\", \"D2\"]", "workloads = [\"D2\"]");
    assert!(text.contains("workloads = [\"D2\"]"));
    let (dir, _) = quick_with("run2c-sim", "d2", Some(text));
    has(
        &dir,
        &[
            "d2_runs.csv",
            "d2_short_delay.csv",
            "d2_persistent.csv",
            "d2_mean_delay_S1.svg",
            "d2_max_delay_S1.svg",
            "d2_short_flows_over_time_S1.svg",
            "d2_persistent_throughput_S1.svg",
        ],
    );
    // D1 was not run.
    assert!(!dir.join("runs.csv").exists());
    let rows = csv_rows(&dir, "d2_runs.csv");
    let names: Vec<&str> = rows.iter().map(|r| r["discipline"].as_str()).collect();
    assert_eq!(names, ["DropTail", "RuN", "RuN2C"]);
    let get = |d: &str, k: &str| {
        let r = rows.iter().find(|r| r["discipline"] == d).unwrap();
        num(r, k)
    };
    for d in ["DropTail", "RuN", "RuN2C"] {
        // The same short flows under each discipline, 20 s at ~27.5 flows/s.
        assert_eq!(get(d, "short_flows"), get("DropTail", "short_flows"));
        assert!(get(d, "short_flows") > 400.0, "{rows:?}");
        // 50 persistent flows sharing what the short flows leave of 10 Mbit/s.
        assert_eq!(get(d, "persistent_flows"), 50.0);
        let total = 50.0 * get(d, "persistent_mean_kbps");
        assert!(total > 6_500.0 && total < 8_500.0, "{d}: {total} kbit/s");
    }
    // Every persistent flow is listed, with a positive throughput.
    let per = csv_rows(&dir, "d2_persistent.csv");
    assert_eq!(per.len(), 150);
    assert!(per.iter().all(|r| num(r, "kbps") > 0.0));
    // Short flows: RuN2C and RuN cut the mean delay and the number in the network by more
    // than 3x (the quick runs show 9x to 30x); DropTail's delay is mostly timeouts.
    for d in ["RuN", "RuN2C"] {
        assert!(
            3.0 * get(d, "mean_short_delay_s") < get("DropTail", "mean_short_delay_s"),
            "{d}: {rows:?}"
        );
        assert!(
            3.0 * get(d, "mean_short_in_network") < get("DropTail", "mean_short_in_network"),
            "{d}: {rows:?}"
        );
    }
    assert!(get("DropTail", "timeout_delay_share") > 0.5, "{rows:?}");
    // Persistent flows: RuN the most even and the lowest mean (Fig. 14's statements).
    assert!(
        2.0 * get("RuN", "persistent_sd_kbps") < get("DropTail", "persistent_sd_kbps"),
        "{rows:?}"
    );
    assert!(
        get("RuN", "persistent_mean_kbps") < get("DropTail", "persistent_mean_kbps"),
        "{rows:?}"
    );
}

/// `run2c-sim` quick: the slow-start model (paper 003, end of Section II-B) plus the
/// flow-level queueing delay predicts RuN2C's short-flow delays per size bucket within 20%
/// (the queue of the first class is short; the model has no losses, which RuN2C spares those
/// flows), and each bucket's model is its slow start plus its queueing term.
#[test]
fn run2c_sim_quick_slow_start_model_predicts_run2c_short_flows() {
    let (dir, _) = quick_with("run2c-sim", "ss", None);
    let rows = csv_rows(&dir, "slow_start_model.csv");
    let run2c: Vec<_> = rows
        .iter()
        .filter(|r| r["discipline"] == "RuN2C" && num(r, "size_hi_packets") <= 20.0)
        .collect();
    assert!(run2c.len() >= 4, "{rows:?}");
    for r in &run2c {
        let err = num(r, "relative_error");
        assert!(err.abs() < 0.2, "{r:?}");
        let sum = num(r, "slow_start_s") + num(r, "queueing_s");
        assert!((sum - num(r, "model_s")).abs() < 1e-9, "{r:?}");
    }
    // The steps of slow start: every bucket up to the threshold costs one more round trip.
    let ss: Vec<f64> = run2c.iter().map(|r| num(r, "slow_start_s")).collect();
    assert!(ss.windows(2).all(|w| w[1] > w[0]), "{ss:?}");
}

/// `run2c-pin` quick: with the paper's blocks (L = 8) no flow of 15 s of S1/D1 overflows and
/// the stateless core gives the same run as the stateful one; with blocks of 32 KiB (L = 1)
/// flows overflow, the overflows are counted and the runs differ.
#[test]
fn run2c_pin_quick_stateless_core_and_overflows() {
    let (dir, _) = quick_with("run2c-pin", "a", None);
    let rows = csv_rows(&dir, "runs.csv");
    assert_eq!(rows.len(), 2, "{rows:?}");
    for r in &rows {
        assert_eq!(r["identical"], "true", "{r:?}");
        assert_eq!(num(r, "overflows"), 0.0, "{r:?}");
        assert!(num(r, "flows") > 100.0, "{r:?}");
    }
    let text = default_scenario("run2c-pin").unwrap().replace(
        "{ r = 10, l = 8, th = 14, low_random = 0 },",
        "{ r = 17, l = 1, th = 14, low_random = 0 },",
    );
    let (dir, _) = quick_with("run2c-pin", "small-blocks", Some(text));
    let rows = csv_rows(&dir, "runs.csv");
    let small = rows
        .iter()
        .find(|r| r["scheme"] == "R=17 L=1 TH=14 low=0")
        .expect("the small-block scheme ran");
    assert!(num(small, "overflows") > 0.0, "{small:?}");
    assert!(num(small, "promoted_packets") > 0.0, "{small:?}");
    assert_eq!(small["identical"], "false", "{small:?}");
}
