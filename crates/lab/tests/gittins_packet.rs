//! `gittins-packet` quick, read back as typed results: every flow finishes under tcp, its A/A
//! repeat, LAS and Gittins on the same sample paths of each workload; the bounded Pareto cell
//! draws its own (smaller) sizes; on the heavy-tailed Lomax cell Gittins is no slower than LAS
//! on average; and every cell has one verdict per goal, judged beyond the A/A noise of its
//! statistic.

mod common;

use common::{quick, Scratch};
use lab::verdict::{Rule, Verdict, Word};
use serde::Deserialize;

/// A row of `cells.csv`.
#[derive(Debug, Deserialize)]
struct Row {
    workload: String,
    load: f64,
    config: String,
    paths: usize,
    flows: f64,
    beyond_buffer: f64,
    unfinished: usize,
    mean_transfer_s: f64,
    p99_transfer_s: f64,
    ratio_to_tcp: f64,
    ratio_to_tcp_half: f64,
    p99_ratio_to_tcp: f64,
    p99_ratio_to_tcp_half: f64,
    ratio_to_best: Option<f64>,
    best: Option<String>,
}

const CONFIGS: [&str; 4] = ["tcp", "tcp (A/A)", "schedtcp/las", "schedtcp/gittins"];

#[test]
fn gittins_packet_quick_judges_gittins_on_each_workload_beyond_the_aa_noise() {
    let dir = Scratch::new("gittins-packet", "quick");
    quick("gittins-packet", dir.path(), None);
    let rows: Vec<Row> = csv::Reader::from_path(dir.join("cells.csv"))
        .expect("cells.csv")
        .deserialize()
        .collect::<Result<_, _>>()
        .expect("typed rows");
    let cells = [("lomax1.5", 0.8), ("bp", 0.8)];
    assert_eq!(rows.len(), cells.len() * CONFIGS.len());
    let cell = |w: &str| -> Vec<&Row> { rows.iter().filter(|r| r.workload == w).collect() };
    for (w, load) in cells {
        let c = cell(w);
        let configs: Vec<&str> = c.iter().map(|r| r.config.as_str()).collect();
        assert_eq!(configs, CONFIGS, "{w}");
        for r in &c {
            assert_eq!(r.load, load, "{r:?}");
            assert_eq!(r.unfinished, 0, "{r:?}");
            assert_eq!(r.paths, 2, "{r:?}");
            assert!(r.flows > 50.0, "{r:?}");
            assert!(
                r.p99_transfer_s >= r.mean_transfer_s && r.mean_transfer_s > 0.0,
                "{r:?}"
            );
        }
        let (tcp, aa, las, git) = (c[0], c[1], c[2], c[3]);
        assert_eq!((tcp.ratio_to_tcp, tcp.p99_ratio_to_tcp), (1.0, 1.0));
        // The A/A repeat ran under other perturbations: an interval, not a copy of tcp.
        assert!(aa.ratio_to_tcp_half.is_finite() && aa.p99_ratio_to_tcp_half.is_finite());
        assert!(aa.mean_transfer_s != tcp.mean_transfer_s, "{aa:?}");
        let best = if las.mean_transfer_s < tcp.mean_transfer_s {
            las
        } else {
            tcp
        };
        assert_eq!(git.best.as_deref(), Some(best.config.as_str()));
        assert!(git.ratio_to_best.is_some_and(f64::is_finite), "{git:?}");
        assert!(las.ratio_to_best.is_none());
    }
    // The bounded Pareto's mean (about 96 kB) is below the quick Lomax's 250 kB: more flows
    // at the same load; a few of each beyond the core's 1 MiB send buffer.
    let (lomax, bp) = (cell("lomax1.5"), cell("bp"));
    assert!(bp[0].flows > 1.5 * lomax[0].flows, "{bp:?} {lomax:?}");
    for r in lomax.iter().chain(&bp) {
        assert!(r.beyond_buffer > 0.0 && r.beyond_buffer < 0.2, "{r:?}");
    }
    // Heavy tail: Gittins (sizes known within the last MiB, the index before) is no slower
    // on average than LAS on the same flows.
    assert!(
        lomax[3].mean_transfer_s <= lomax[2].mean_transfer_s,
        "gittins {} s vs las {} s",
        lomax[3].mean_transfer_s,
        lomax[2].mean_transfer_s
    );

    let verdicts: Vec<Verdict> = serde_json::from_str(
        &std::fs::read_to_string(dir.join("verdicts.json")).expect("verdicts.json"),
    )
    .expect("typed verdicts");
    assert_eq!(
        verdicts.len(),
        3 * cells.len(),
        "one verdict per cell per goal"
    );
    for ((w, load), v) in cells.iter().zip(verdicts.chunks(3)) {
        let aa = &cell(w)[1];
        let reach = |m: f64, h: f64| ((m - h) - 1.0).abs().max(((m + h) - 1.0).abs());
        let name = format!("{w} at load {load}:");
        assert!(v.iter().all(|v| v.claim.starts_with(&name)), "{v:?}");
        let margin = |r: &Rule| match *r {
            Rule::AtMost { max, margin } => {
                assert_eq!(max, 1.05);
                margin
            }
            Rule::Against { reference, margin } => {
                assert_eq!(reference, 1.0);
                margin
            }
            other => panic!("unexpected rule {other:?}"),
        };
        let mean_reach = reach(aa.ratio_to_tcp, aa.ratio_to_tcp_half);
        let p99_reach = reach(aa.p99_ratio_to_tcp, aa.p99_ratio_to_tcp_half);
        assert!(matches!(v[0].rule, Rule::AtMost { .. }), "{:?}", v[0]);
        assert!(matches!(v[1].rule, Rule::Against { .. }), "{:?}", v[1]);
        assert!(matches!(v[2].rule, Rule::Against { .. }), "{:?}", v[2]);
        assert!((margin(&v[0].rule) - mean_reach).abs() < 1e-12);
        assert!((margin(&v[1].rule) - mean_reach).abs() < 1e-12);
        assert!((margin(&v[2].rule) - p99_reach).abs() < 1e-12);
        assert!(v[2].claim.contains("99th percentile"));
        assert!(v.iter().all(|v| v.word != Word::Met || v.ours.hi() <= 1.05));
    }
    let (n, bad) = lab::verdict::check_folder(&dir).expect("verdicts.json");
    assert_eq!(n, verdicts.len());
    assert!(bad.is_empty(), "{bad:?}");
}
