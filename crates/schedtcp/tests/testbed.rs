//! The real-TCP testbed with the real binary (root only: CI runs as root; elsewhere each test
//! says it skipped and returns). Every test uses its own namespace prefix, bounds its waits,
//! and leaves no namespace behind; traffic stays inside the test's own namespaces.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use testbed::bed::{can_run, list_namespaces, namespaces};

const BIN: &str = env!("CARGO_BIN_EXE_schedtcp");

fn prefix(tag: &str) -> String {
    format!("t{tag}{}", std::process::id() % 100_000)
}

fn ours(prefix: &str) -> Vec<String> {
    let names = namespaces(prefix);
    list_namespaces()
        .unwrap()
        .into_iter()
        .filter(|n| names.contains(n))
        .collect()
}

#[test]
fn smoke_every_byte_arrives_and_the_namespaces_are_gone() {
    if !can_run("smoke") {
        return;
    }
    let p = prefix("s");
    let n = 8;
    let s = testbed::smoke::smoke(Path::new(BIN), &p, n).expect("smoke run");
    assert_eq!(s.runs.len(), 3, "plain, tcp, srpt");
    for r in &s.runs {
        assert_eq!(r.failed(), 0, "{}: {:?}", r.variant, r.results);
        let got: u64 = r.results.iter().map(|x| x.received).sum();
        assert_eq!(got, s.planned_bytes, "{}: bytes received", r.variant);
        assert!(r.results.iter().all(|x| x.completion_s.is_some()));
        if r.variant == "plain" {
            assert!(r.server.is_none());
            continue;
        }
        let inv = r.server.expect("the server reported its invariant");
        assert_eq!(inv.violated, 0, "{}: {inv:?}", r.variant);
        assert_eq!(
            inv.checked, n as u64,
            "{}: one connection per flow",
            r.variant
        );
        // Downloads plus the target's 32-byte digest, each exactly once.
        assert_eq!(inv.payload_bytes, s.planned_bytes + 32 * n as u64);
        assert!(inv.header_bytes > 0);
        let cli = r.client.expect("the client reported its invariant");
        assert_eq!(cli.violated, 0);
        assert_eq!(cli.payload_bytes, n as u64 * (16 + 300));
    }
    assert!(s.leftover.is_empty(), "{:?}", s.leftover);
    assert!(ours(&p).is_empty());
    assert!(!Path::new(testbed::bed::OWNER_DIR).join(&p).exists());
}

/// Waits (bounded) until the namespaces of `prefix` exist.
fn wait_for_namespaces(prefix: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while ours(prefix).len() < 3 {
        assert!(Instant::now() < deadline, "the testbed never came up");
        std::thread::sleep(Duration::from_millis(50));
    }
    // Past setup: the processes are starting.
    std::thread::sleep(Duration::from_millis(800));
}

fn smoke_cmd(prefix: &str, flows: usize) -> Command {
    let mut c = Command::new(BIN);
    c.args([
        "testbed",
        "smoke",
        "--prefix",
        prefix,
        "--flows",
        &flows.to_string(),
    ])
    .env("RUST_LOG", "warn")
    .stdout(Stdio::null())
    .stderr(Stdio::piped());
    c
}

#[test]
fn ctrl_c_cleans_up_and_a_killed_run_does_not_block_the_next() {
    if !can_run("interrupt") {
        return;
    }
    let p = prefix("i");
    // Ctrl-C (SIGINT) half-way: the run stops, exits non-zero, and removes everything.
    let mut child = smoke_cmd(&p, 400).spawn().expect("spawn");
    let files = |pid: u32| std::env::temp_dir().join(format!("schedtcp-testbed-{p}-{pid}"));
    let first = files(child.id());
    wait_for_namespaces(&p);
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).expect("SIGINT");
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        assert!(Instant::now() < deadline, "no exit after SIGINT");
        std::thread::sleep(Duration::from_millis(50));
    };
    let err = std::io::read_to_string(child.stderr.take().expect("stderr")).unwrap_or_default();
    assert!(!status.success());
    assert!(err.contains("interrupted"), "{err}");
    assert!(ours(&p).is_empty(), "namespaces left after Ctrl-C");
    assert!(
        !first.exists(),
        "files left after Ctrl-C: {}",
        first.display()
    );

    // SIGKILL: nothing can clean up; the next run removes the stale namespaces and works.
    let mut child = smoke_cmd(&p, 400).spawn().expect("spawn");
    let killed = files(child.id());
    wait_for_namespaces(&p);
    child.kill().expect("SIGKILL");
    child.wait().expect("wait");
    assert_eq!(ours(&p).len(), 3, "a killed run leaves its namespaces");
    let out = smoke_cmd(&p, 3).output().expect("second run");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("removed stale namespaces"), "{err}");
    assert!(ours(&p).is_empty());
    assert!(
        !killed.exists(),
        "the killed run's files were not removed: {}",
        killed.display()
    );
}
