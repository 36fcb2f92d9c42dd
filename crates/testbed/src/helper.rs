//! The two helpers the orchestrator starts inside the namespaces (as `schedtcp testbed
//! helper target|workload`, so that the testbed needs no binary but `schedtcp`).

use std::net::SocketAddr;
use std::path::Path;

use anyhow::{Context, Result};

use crate::workload::{execute, Plan};

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the runtime")
}

/// The embedded target (sink and source of bytes, `tunnel::loadgen`) on `listen`, until
/// SIGTERM or SIGINT.
pub fn target(listen: SocketAddr) -> Result<()> {
    runtime()?.block_on(async {
        let (addr, task) = tunnel::loadgen::start_target(listen).await?;
        println!("target listening on {addr}");
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .context("SIGTERM handler")?;
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
        task.abort();
        Ok(())
    })
}

/// The workload generator: runs the plan in `plan` (JSON) and writes the flows' results
/// (JSON) to `out`.
pub fn workload(plan: &Path, out: &Path) -> Result<()> {
    let text =
        std::fs::read_to_string(plan).with_context(|| format!("reading {}", plan.display()))?;
    let plan: Plan =
        serde_json::from_str(&text).with_context(|| format!("parsing {}", plan.display()))?;
    let results = runtime()?.block_on(execute(&plan))?;
    let json = serde_json::to_string(&results).context("serialising the results")?;
    std::fs::write(out, json).with_context(|| format!("writing {}", out.display()))?;
    let failed = results.iter().filter(|r| r.error.is_some()).count();
    println!("{} flows, {failed} failed", results.len());
    Ok(())
}
