//! Processes inside a namespace (`ip netns exec NS ...`), each in its own process group (a
//! terminal's Ctrl-C reaches only the orchestrator, which stops them in order), with stdout
//! and stderr in a log file, killed when dropped.

use std::fs::File;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

use crate::interrupt;

/// A child process in a namespace.
#[derive(Debug)]
pub struct Proc {
    name: String,
    child: Child,
    log: PathBuf,
    status: Option<ExitStatus>,
}

impl Proc {
    /// Starts `bin args...` in namespace `ns`; output goes to `log`.
    pub fn spawn(name: &str, ns: &str, bin: &Path, args: &[String], log: &Path) -> Result<Self> {
        let out = File::create(log).with_context(|| format!("creating {}", log.display()))?;
        let err = out.try_clone()?;
        let child = Command::new("ip")
            .args(["netns", "exec", ns])
            .arg(bin)
            .args(args)
            .env("NO_COLOR", "1")
            .env(
                "RUST_LOG",
                std::env::var("TESTBED_LOG").unwrap_or_else(|_| "info".into()),
            )
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .process_group(0)
            .spawn()
            .with_context(|| format!("starting {name} in {ns}"))?;
        Ok(Self {
            name: name.into(),
            child,
            log: log.into(),
            status: None,
        })
    }

    /// The log file.
    pub fn log(&self) -> &Path {
        &self.log
    }

    /// The last lines of the log (for error messages).
    pub fn log_tail(&self, lines: usize) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let v: Vec<&str> = text.lines().collect();
        v[v.len().saturating_sub(lines)..].join("\n")
    }

    /// Whether it has exited (and how).
    pub fn try_wait(&mut self) -> Result<Option<ExitStatus>> {
        if self.status.is_none() {
            self.status = self.child.try_wait()?;
        }
        Ok(self.status)
    }

    /// Waits until it exits, `deadline` passes (error) or a signal arrives (error).
    pub fn wait_until(&mut self, deadline: Instant) -> Result<ExitStatus> {
        loop {
            if let Some(s) = self.try_wait()? {
                return Ok(s);
            }
            interrupt::check()?;
            if Instant::now() >= deadline {
                bail!(
                    "{} did not finish in time (log: {})",
                    self.name,
                    self.log.display()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// SIGKILL now (a crash), reaped before it returns.
    pub fn kill9(&mut self) {
        if self.status.is_none() {
            let _ = self.child.kill();
            self.status = self.child.wait().ok();
        }
    }

    /// SIGTERM, then SIGKILL after `grace`; returns the exit status.
    pub fn terminate(&mut self, grace: Duration) -> Result<ExitStatus> {
        if let Some(s) = self.try_wait()? {
            return Ok(s);
        }
        let _ = kill(Pid::from_raw(self.child.id() as i32), Signal::SIGTERM);
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            if let Some(s) = self.try_wait()? {
                return Ok(s);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let s = self.child.wait()?;
        self.status = Some(s);
        Ok(s)
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if self.status.is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Waits until something listens on TCP `port` inside `ns` (`ss -ltn`), so no probe
/// connection disturbs what is measured.
pub fn wait_listening(ns: &str, port: u16, deadline: Instant, owner: &mut Proc) -> Result<()> {
    let suffix = format!(":{port}");
    loop {
        let out = sh("ip", &["netns", "exec", ns, "ss", "-Hltn"])?;
        if out.lines().any(|l| {
            l.split_whitespace()
                .nth(3)
                .is_some_and(|a| a.ends_with(&suffix))
        }) {
            return Ok(());
        }
        if let Some(s) = owner.try_wait()? {
            bail!(
                "{} exited ({s}) before listening on port {port}:\n{}",
                owner.name,
                owner.log_tail(20)
            );
        }
        interrupt::check()?;
        if Instant::now() >= deadline {
            bail!(
                "{} never listened on port {port} in {ns}:\n{}",
                owner.name,
                owner.log_tail(20)
            );
        }
        std::thread::sleep(Duration::from_millis(30));
    }
}

/// Runs `ip`/`tc`/... and fails with its stderr.
pub(crate) fn sh(prog: &str, args: &[&str]) -> Result<String> {
    let out = Command::new(prog)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("running {prog}"))?;
    if !out.status.success() {
        bail!(
            "`{prog} {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
