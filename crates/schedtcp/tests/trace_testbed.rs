//! `trace` on a capture of the project's own testbed: a known set of flows (two that compete,
//! one alone) runs as plain TCP while tcpdump records the router's interface; the analysis
//! must find exactly those flows, their application bytes and which of them compete.
//! Root and tcpdump only (skips, saying so, elsewhere); ethtool is used when present.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use testbed::bed::{can_run, namespaces};
use testbed::workload::{flows, Path as FlowPath};
use testbed::{BedConfig, Queue, Session};

const BIN: &str = env!("CARGO_BIN_EXE_schedtcp");

/// What a testbed flow adds to its download on the wire: the application's 16-byte header and
/// 300-byte upload, the target's 32-byte digest.
const OVERHEAD: u64 = 16 + 300 + 32;

fn has(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

#[test]
fn a_testbed_capture_counts_its_known_competing_flows() {
    if !can_run("trace capture") {
        return;
    }
    if !has("tcpdump") {
        eprintln!("trace capture: SKIPPED — tcpdump is not installed");
        return;
    }
    let prefix = format!("ttr{}", std::process::id() % 100_000);
    let [origin, router, dest] = namespaces(&prefix);
    let mut cfg = BedConfig::new(3_000_000, Queue::Bfifo(600_000));
    cfg.prefix = prefix.clone();
    cfg.origin_rmem_max = 65536;
    let mut session = Session::start(cfg, Path::new(BIN)).expect("testbed");
    if has("ethtool") {
        // Wire-sized segments, as on a router's real link.
        for (ns, dev) in [
            (&origin, "o0"),
            (&router, "r0"),
            (&router, "r1"),
            (&dest, "d0"),
        ] {
            let _ = Command::new("ip")
                .args([
                    "netns", "exec", ns, "ethtool", "-K", dev, "tso", "off", "gso", "off", "gro",
                    "off",
                ])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
    }
    let dir = std::env::temp_dir().join(format!("trace-testbed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cap = dir.join("c.pcap");
    let mut td = Command::new("ip")
        .args([
            "netns",
            "exec",
            &router,
            "tcpdump",
            "--immediate-mode",
            "-Z",
            "root",
            "-i",
            "r0",
            "-s",
            "96",
            "-U",
            "-w",
        ])
        .arg(&cap)
        .arg("tcp port 9000")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tcpdump");
    // tcpdump says "listening on" once it captures.
    let mut err = BufReader::new(td.stderr.take().unwrap());
    let mut line = String::new();
    while err.read_line(&mut line).unwrap_or(0) > 0 && !line.contains("listening on") {
        line.clear();
    }
    assert!(line.contains("listening on"), "tcpdump did not start");

    // A [0 s, 1.5 MB] and B [0.2 s, 1 MB] share the 3 MB/s bottleneck: they overlap. C comes
    // at 4 s, when both have long finished (2.5 MB take under a second at 3 MB/s).
    let sizes = [1_500_000u64, 1_000_000, 200_000];
    let plan = flows(
        &[(0.0, sizes[0]), (0.2, sizes[1]), (4.0, sizes[2])],
        FlowPath::Direct,
        300,
    );
    let run = session.run(None, &plan, 0.0, 60.0);
    // The last packets may still be on their way from the kernel to tcpdump's file: wait
    // (bounded) until the file holds every byte the flows carried, then stop tcpdump.
    let planned: u64 = sizes.iter().map(|s| s + OVERHEAD).sum();
    let captured = |cap: &Path| {
        let cfg = trace::Config {
            keep_flows: true,
            ..trace::Config::default()
        };
        let (r, _) = trace::analyze_files(&[cap.to_path_buf()], cfg);
        r.flows.iter().map(|f| f.size).sum::<u64>()
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while run.is_ok() && captured(&cap) < planned && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let _ = kill(Pid::from_raw(td.id() as i32), Signal::SIGTERM);
    let _ = td.wait();
    session
        .conclude(
            run.as_ref()
                .map(|_| ())
                .map_err(|e| anyhow::anyhow!("{e:#}")),
        )
        .expect("testbed run");
    let run = run.unwrap();
    assert!(
        run.results.iter().all(|r| r.completion_s.is_some()),
        "{:?}",
        run.results
    );

    let cfg = trace::Config {
        keep_flows: true,
        ..trace::Config::default()
    };
    let (report, errors) = trace::analyze_files(std::slice::from_ref(&cap), cfg);
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(errors.is_empty(), "{errors:?}");
    let t = &report.total;
    assert_eq!((t.routes, t.routes_competing), (1, 1));
    assert_eq!((t.flows, t.flows_competing), (3, 2));
    let (lines, routes) = trace::flowlist::flow_list(&report.flows, report.first_ns.unwrap());
    assert_eq!(routes.len(), 1);
    let got: Vec<u64> = lines.iter().map(|l| l.size).collect();
    let want: Vec<u64> = sizes.iter().map(|s| s + OVERHEAD).collect();
    assert_eq!(got, want, "application bytes per flow, in arrival order");
    // Volume on the wire: at least the application bytes (retransmissions add).
    let app: u64 = want.iter().sum();
    assert!(t.bytes >= app);
    assert!(t.bytes_competing >= want[0] + want[1] && t.bytes_competing < t.bytes);
}
