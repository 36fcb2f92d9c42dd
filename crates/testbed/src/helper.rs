//! The helpers the orchestrator starts inside the namespaces (as `schedtcp testbed helper
//! target|workload|mux-client|mux-server`, so that the testbed needs no binary but
//! `schedtcp`).

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

/// Completes at the first SIGTERM or SIGINT.
async fn stop_signal() -> Result<impl std::future::Future<Output = ()>> {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .context("SIGTERM handler")?;
    Ok(async move {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    })
}

/// The multiplexer's client ([`crate::mux::Client`]): connects to `server`, then listens on
/// `listen` and carries every connection it accepts as a stream, until SIGTERM or SIGINT.
pub fn mux_client(listen: SocketAddr, server: SocketAddr) -> Result<()> {
    runtime()?.block_on(async {
        let stop = stop_signal().await?;
        let client = crate::mux::Client::connect(server, crate::mux::Limits::default()).await?;
        let l = tokio::net::TcpListener::bind(listen)
            .await
            .with_context(|| format!("binding {listen}"))?;
        println!("mux client listening on {listen}, connected to {server}");
        let t = client.serve(l, stop).await?;
        println!(
            "mux client stopped: {} connection, {} streams, {} failed",
            t.connections, t.streams, t.failed
        );
        Ok(())
    })
}

/// The multiplexer's server ([`crate::mux::server`]): accepts multiplexed connections on
/// `listen` and connects their streams to `target`, until SIGTERM or SIGINT.
pub fn mux_server(listen: SocketAddr, target: SocketAddr) -> Result<()> {
    runtime()?.block_on(async {
        let stop = stop_signal().await?;
        let l = tokio::net::TcpListener::bind(listen)
            .await
            .with_context(|| format!("binding {listen}"))?;
        println!("mux server listening on {listen}, target {target}");
        let t = crate::mux::server(l, target, crate::mux::Limits::default(), stop).await?;
        println!(
            "mux server stopped: {} connections, {} streams, {} failed",
            t.connections, t.streams, t.failed
        );
        Ok(())
    })
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
