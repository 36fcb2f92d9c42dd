//! `schedtcp demo`: the point of the product in two minutes, with or without root.
//!
//! * Without root (or with `--loopback`): the **packet simulator** driving the shipped gtcp
//!   core — paper 000's Table 2 scaled to seconds (completion times by policy against plain
//!   TCP and the fluid ideal) and a long plain-TCP competitor beside the same workload (its
//!   throughput must not depend on the policy: Proposition 1) — then the tunnel itself on
//!   loopback under each policy, as an invariant and bytes check (no timing: loopback has no
//!   bottleneck).
//! * As root with iproute2: the same two halves on the **real-TCP testbed** (network
//!   namespaces, a `tbf` bottleneck, real `schedtcp server`/`client` processes).
//!
//! Both print the report folder first, a progress bar while running, then one compact table
//! and a one-line verdict; the full report (markdown, CSV, SVG, and each experiment's own
//! report) stays in the folder. The exit status is non-zero when a flow did not finish, the
//! invariant was violated or a byte check failed.

mod loopback;
mod report;
mod sim;
mod testbed;

use std::path::PathBuf;

use anyhow::{bail, Context, Result};

/// What `schedtcp demo` was asked for.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Folder for the full report (default: a new `schedtcp-demo-*` folder in the system's
    /// temporary directory).
    pub out: Option<PathBuf>,
    /// The demo without root even as root: the packet simulator and the tunnel on loopback.
    pub loopback: bool,
    /// The smallest variant (seconds; what the CI test runs).
    pub quick: bool,
    /// Seed of the workloads (each experiment's own by default).
    pub seed: Option<u64>,
}

/// A step of the demo, on stderr beside the progress bars.
fn step(what: &str) {
    eprintln!("· {what}");
}

/// Runs the demo; errors when a check failed (after printing the table).
pub fn run(args: &Options) -> Result<()> {
    let why_not_testbed = if args.loopback {
        Some("--loopback".to_string())
    } else if !::testbed::bed::is_root() {
        Some("not running as root".to_string())
    } else {
        ::testbed::bed::require_tools()
            .err()
            .map(|e| format!("{e:#}"))
    };
    let dir = match &args.out {
        Some(d) => d.clone(),
        None => std::env::temp_dir().join(format!(
            "schedtcp-demo-{}",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        )),
    };
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    println!(
        "schedtcp demo: full report in {} (summary.md, demo.csv, SVG plots)",
        dir.display()
    );
    let mut outcome = report::Outcome::default();
    let how = match &why_not_testbed {
        None => {
            println!(
                "Real TCP (root): paper 000's Table 2 and a plain-TCP competitor on the testbed, \
                 under two minutes.\n"
            );
            outcome
                .parts
                .push(testbed::run(&dir, args.quick, args.seed)?);
            "As root: lab's `testbed-table2` and `testbed-nonintrusive` on the demo's short \
             scenarios (real kernel TCP, real `schedtcp` processes)."
        }
        Some(why) => {
            println!(
                "Packet simulator (the shipped core), then the tunnel on loopback: well under \
                 a minute. Real TCP needs root ({why}).\n"
            );
            outcome.parts.push(sim::run(&dir, args.quick, args.seed)?);
            step("loopback: the tunnel under each policy, every flow's bytes checked");
            outcome.loopback =
                runtime()?.block_on(loopback::run(args.quick, args.seed.unwrap_or(1)))?;
            "Without root: lab's `table2` and `nonintrusive` in the packet simulator on the \
             demo's scaled scenarios, then the tunnel on loopback as an invariant and bytes check."
        }
    };
    report::write(&dir, &outcome, how)?;
    print!("{}", report::terminal(&outcome));
    println!("{}", outcome.verdict());
    if why_not_testbed.is_some() {
        println!(
            "Real TCP through a bottleneck (network namespaces, tbf, real processes): run \
             `sudo schedtcp demo` (needs iproute2)."
        );
    }
    if !outcome.ok() {
        bail!(
            "a check failed: a flow did not finish, the invariant was violated or bytes differ \
             (see {})",
            dir.join("summary.md").display()
        );
    }
    Ok(())
}

/// The multi-thread runtime the loopback part runs the tunnel on.
fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the runtime")
}
