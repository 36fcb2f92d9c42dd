//! What the tests that run the real `schedtcp` processes share: ports, the processes
//! themselves (killed if a test fails half-way), their configuration directory and the
//! metrics they serve.

#![allow(dead_code)] // each test file uses its own part

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A port nobody listens on (yet).
pub fn free_port() -> SocketAddr {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
}

/// A temporary directory, removed with its files when the test ends.
pub struct Dir(pub PathBuf);

impl Dir {
    /// A new directory named after the test process and `tag`, with a fresh key in `psk.txt`.
    pub fn with_key(tag: &str) -> Self {
        let d = std::env::temp_dir().join(format!("schedtcp-test-{}-{tag}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        tunnel::psk::write_new(&d.join("psk.txt")).unwrap();
        Self(d)
    }

    /// Writes `toml` to `NAME.toml` here; returns its path.
    pub fn config(&self, name: &str, toml: &str) -> PathBuf {
        let path = self.0.join(format!("{name}.toml"));
        std::fs::write(&path, toml).unwrap();
        path
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A `schedtcp` process, killed if the test fails half-way.
pub struct Proc(pub Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Proc {
    /// Starts `schedtcp ROLE --config CONFIG` (`SCHEDTCP_EXE` runs another build, e.g. a
    /// release binary for measurements; `log_var` names the variable whose value, if set, is
    /// its `RUST_LOG`) and waits up to `bound` until `ready` accepts connections.
    pub async fn spawn(
        role: &str,
        config: &Path,
        ready: SocketAddr,
        log_var: &str,
        bound: Duration,
    ) -> Self {
        let exe = std::env::var_os("SCHEDTCP_EXE")
            .unwrap_or_else(|| env!("CARGO_BIN_EXE_schedtcp").into());
        let mut p = Proc(
            Command::new(exe)
                .args([role, "--config", config.to_str().unwrap()])
                .env(
                    "RUST_LOG",
                    std::env::var(log_var).unwrap_or_else(|_| "error".into()),
                )
                .stdout(Stdio::null())
                .stderr(Stdio::inherit())
                .spawn()
                .expect("spawn schedtcp"),
        );
        let deadline = Instant::now() + bound;
        while TcpStream::connect(ready).await.is_err() || p.exited() {
            assert!(!p.exited(), "{role} exited at start");
            assert!(Instant::now() < deadline, "{role}: {ready} never listened");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        p
    }

    pub fn pid(&self) -> u32 {
        self.0.id()
    }

    /// Open file descriptors of the process.
    pub fn fds(&self) -> usize {
        std::fs::read_dir(format!("/proc/{}/fd", self.pid()))
            .map(|d| d.count())
            .unwrap_or(0)
    }

    pub fn exited(&mut self) -> bool {
        self.0.try_wait().ok().flatten().is_some()
    }

    /// Sends signal `sig` (as `kill` takes it: `-HUP`, `-STOP`, ...).
    pub fn signal(&self, sig: &str) {
        let ok = Command::new("kill")
            .args([sig, &self.pid().to_string()])
            .status()
            .expect("kill")
            .success();
        assert!(ok, "kill {sig}");
    }

    pub fn kill9(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }

    /// SIGTERM, then the exit status (within 30 s).
    pub async fn sigterm(&mut self) -> std::process::ExitStatus {
        self.signal("-TERM");
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(s) = self.0.try_wait().unwrap() {
                return s;
            }
            assert!(Instant::now() < deadline, "no exit after SIGTERM");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// The metrics endpoint's answer (head and page), within 5 s; `None` if it did not answer.
pub async fn scrape(addr: SocketAddr) -> Option<String> {
    let mut s = TcpStream::connect(addr).await.ok()?;
    s.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .ok()?;
    let mut text = String::new();
    tokio::time::timeout(Duration::from_secs(5), s.read_to_string(&mut text))
        .await
        .ok()?
        .ok()?;
    Some(text)
}

/// The sum of `schedtcp_NAME` over all its label sets (0 if absent).
pub fn total(text: &str, name: &str) -> f64 {
    let name = format!("schedtcp_{name}");
    text.lines()
        .filter(|l| {
            l.strip_prefix(&name)
                .is_some_and(|rest| rest.starts_with(['{', ' ']))
        })
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

/// The value of one exact series (`name{labels}`), 0 if absent.
pub fn series(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or(0.0)
}

/// A number field of `/proc/PID/status` (0 if absent).
pub fn proc_status(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// Resident memory of a process, KiB.
pub fn rss_kib(pid: u32) -> u64 {
    proc_status(pid, "VmRSS:")
}
