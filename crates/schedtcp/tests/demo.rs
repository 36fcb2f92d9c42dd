//! `schedtcp demo` without root (the path every newcomer meets), at its CI size: the packet
//! simulator's scaled Table 2 and competitor, then the tunnel on loopback. Asserts on what it
//! computed (`demo.csv`, `loopback.csv` in the report folder): every flow done, the invariant
//! held and checked, the bytes carried equal to the flows' bytes, and SRPT's and FAIR's mean
//! completion time below plain TCP's in the simulator.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;

type Row = HashMap<String, String>;

fn rows(file: PathBuf) -> Vec<Row> {
    let mut r = csv::Reader::from_path(&file).unwrap_or_else(|e| panic!("{file:?}: {e}"));
    r.deserialize().map(|x| x.unwrap()).collect()
}

fn num(r: &Row, col: &str) -> f64 {
    r[col]
        .parse()
        .unwrap_or_else(|e| panic!("{col} = {:?}: {e}", r[col]))
}

#[test]
fn the_demo_without_root_schedules_checks_and_keeps_the_competitor() {
    let dir = std::env::temp_dir().join(format!("schedtcp-demo-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = Command::new(env!("CARGO_BIN_EXE_schedtcp"))
        .args(["demo", "--loopback", "--quick", "--out"])
        .arg(&dir)
        .output()
        .expect("running schedtcp demo");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "demo failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let sim = rows(dir.join("demo.csv"));
    let policies: Vec<&str> = sim.iter().map(|r| r["policy"].as_str()).collect();
    assert_eq!(
        policies,
        [
            "tcp (tunnel)",
            "srpt",
            "fair",
            "las",
            "psps",
            "gittins",
            "auto"
        ],
        "{stdout}"
    );
    for r in &sim {
        assert_eq!(r["part"], "simulator");
        let flows = num(r, "flows");
        assert!(flows >= 50.0, "{r:?}");
        assert_eq!(num(r, "done"), flows, "every flow done: {r:?}");
        assert!(num(r, "invariant_checked") >= flows, "{r:?}");
        assert_eq!(num(r, "invariant_violated"), 0.0, "{r:?}");
        assert_eq!(num(r, "byte_errors"), 0.0, "{r:?}");
        assert!(num(r, "repeats") >= 2.0, "an interval needs repeats: {r:?}");
        // The competitor's share of the bottleneck moves by less than 10 points whatever
        // the policy (its share is about a quarter).
        let c = num(r, "competitor_share_delta");
        assert!(c.abs() < 0.1, "competitor share {c:+}: {r:?}");
    }
    for p in ["srpt", "fair"] {
        let r = sim.iter().find(|r| r["policy"] == p).unwrap();
        let ratio = num(r, "ratio_to_tcp_mean");
        assert!(
            ratio < 1.0,
            "{p}: mean completion time {ratio} × tcp's\n{stdout}"
        );
        // The fluid ideal of the same flows gains too.
        assert!(num(r, "fluid_ratio_to_ps") < 1.0, "{r:?}");
    }

    let lo = rows(dir.join("loopback.csv"));
    // tcp, srpt, fair, las, psps, priority:srpt, gittins (which learns sizes as flows end)
    // and auto.
    assert_eq!(lo.len(), 8);
    for p in ["gittins", "auto"] {
        assert!(lo.iter().any(|r| r["policy"] == p), "{lo:?}");
    }
    for r in &lo {
        let flows = num(r, "flows");
        assert!(flows > 0.0);
        assert_eq!(num(r, "intact"), flows, "{r:?}");
        assert!(num(r, "checked") >= flows, "{r:?}");
        assert_eq!(num(r, "violated"), 0.0, "{r:?}");
        assert_eq!(num(r, "server_payload"), num(r, "download_bytes"), "{r:?}");
        assert_eq!(num(r, "client_payload"), num(r, "upload_bytes"), "{r:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
