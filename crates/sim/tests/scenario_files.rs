//! Scenario files: parsing, validation, trace workloads.

use sim::scenario::{Scenario, ScenarioError};

const EXAMPLE: &str = r#"
seed = 7
duration_s = 5.0
drain_s = 5.0
driver = "tcp"

[topology]
pairs = 4
bottleneck_queue = { kind = "drop_tail_bytes", limit = 150000 }

[tcp]
max_window = 30
delayed_ack_ms = 40.0
handshake = true

[workload]
kind = "poisson"
load = 0.5
unit = "packets"
sources = "round_robin"
size = { kind = "mixture", components = [
  { weight = 0.8, dist = { kind = "exponential", mean = 4.0 } },
  { weight = 0.2, dist = { kind = "bounded_pareto", k = 13.0, p = 5000.0, alpha = 1.1 } },
] }

[record]
active_sample_period_s = 0.1
"#;

#[test]
fn example_parses_and_runs() {
    let s = Scenario::from_toml(EXAMPLE).unwrap();
    assert_eq!(s.topology.pairs, 4);
    assert_eq!(s.tcp.max_window, Some(30));
    let r = s.run().unwrap();
    assert!(!r.flows.is_empty());
    assert!(r.flows.iter().all(|f| f.source < 4));
    // Round trip through TOML.
    let again = Scenario::from_toml(&s.to_toml()).unwrap();
    assert_eq!(again, s);
}

fn err(text: &str) -> String {
    match Scenario::from_toml(text) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("expected an error for {text}"),
    }
}

#[test]
fn bad_scenarios_are_reported() {
    let base = "seed = 1\nduration_s = 1.0\n[workload]\nkind = \"poisson\"\nunit = \"bytes\"\nsize = { kind = \"constant\", value = 1000.0 }\n";
    assert!(err(base).contains("rate_per_s or load"));
    assert!(err(&format!("{base}load = 0.5\nrate_per_s = 3.0\n")).contains("not both"));
    assert!(err(&format!("{base}load = -1.0\n")).contains("positive"));
    assert!(err(&format!("bogus = 1\n{base}load = 0.5\n")).contains("bogus"));
    assert!(err(&base
        .replace("duration_s = 1.0", "duration_s = -1.0")
        .replace("unit", "load = 0.5\nunit"))
    .contains("duration_s"));
    assert!(err(&format!("{base}load = 0.5\n[tcp]\nmss = 0\n")).contains("mss"));
    assert!(err("seed = 1\n").contains("scenario file"));
}

#[test]
fn trace_workload_runs_and_checks_sources() {
    let dir = std::env::temp_dir().join(format!("sim-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.csv");
    std::fs::write(
        &good,
        "arrival,size,source\n0.0,14600,0\n0.1,1460,1\n0.2,100000\n",
    )
    .unwrap();
    let text = format!(
        "seed = 1\nduration_s = 1.0\ndrain_s = 5.0\n[topology]\npairs = 2\n[workload]\nkind = \"trace\"\npath = {:?}\n",
        good.display().to_string()
    );
    let r = Scenario::from_toml(&text).unwrap().run().unwrap();
    assert_eq!(r.flows.len(), 3);
    assert_eq!(r.completed(), 3);
    assert_eq!(r.flows[2].size, 100_000);

    let bad_src = dir.join("bad_src.csv");
    std::fs::write(&bad_src, "0.0,100,5\n").unwrap();
    let e = Scenario::from_toml(&text.replace("good.csv", "bad_src.csv"))
        .unwrap()
        .run();
    assert!(matches!(e, Err(ScenarioError::Invalid(m)) if m.contains("source 5")));

    let bad_row = dir.join("bad_row.csv");
    std::fs::write(&bad_row, "0.0,100\n0.5,abc\n").unwrap();
    let e = Scenario::from_toml(&text.replace("good.csv", "bad_row.csv"))
        .unwrap()
        .run();
    match e {
        Err(ScenarioError::Trace(t)) => assert!(t.to_string().contains("line 2"), "{t}"),
        other => panic!("{other:?}"),
    }
    let missing = Scenario::from_toml(&text.replace("good.csv", "missing.csv"))
        .unwrap()
        .run();
    assert!(matches!(missing, Err(ScenarioError::Trace(_))));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A paper 003 discipline is chosen by name; a RuN2C threshold counted in segments of another
/// size than the TCP MSS, or an unknown name, is refused with a clear error.
#[test]
fn bottleneck_discipline_by_name() {
    let with = |q: &str| {
        EXAMPLE.replace(
            "bottleneck_queue = { kind = \"drop_tail_bytes\", limit = 150000 }",
            &format!("bottleneck_queue = {q}"),
        )
    };
    for name in ["droptail", "run", "run2c:20"] {
        let s = Scenario::from_toml(&with(&format!(
            "{{ kind = \"discipline\", queue = \"{name}\", limit = 100 }}"
        )))
        .unwrap();
        let r = s.run().unwrap();
        assert!(r.bottleneck.tx_data_packets > 0, "{name}");
    }
    let bad_seg = Scenario::from_toml(&with(
        "{ kind = \"discipline\", queue = \"run2c:20\", limit = 100, segment_bytes = 1000 }",
    ));
    assert!(
        matches!(bad_seg, Err(ScenarioError::Invalid(ref m)) if m.contains("tcp.mss")),
        "{bad_seg:?}"
    );
    let bad_name = Scenario::from_toml(&with(
        "{ kind = \"discipline\", queue = \"red\", limit = 100 }",
    ));
    assert!(
        matches!(bad_name, Err(ScenarioError::Toml(ref m)) if m.contains("unknown queue discipline")),
        "{bad_name:?}"
    );
}
