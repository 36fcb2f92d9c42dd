//! The demo's loopback part: the tunnel itself (the `server` and `client` the binaries run,
//! here in one process) on 127.0.0.1 with the embedded target, under each policy. Loopback
//! has no bottleneck, so there is nothing to schedule and no timing is reported: this part
//! checks that every flow arrives intact (the download byte by byte, the upload by SHA-256)
//! and that every pool connection closed having carried exactly its own flow's bytes (the
//! per-connection invariant, paper 000, Algorithm 4).

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::Result;
use indicatif::ProgressBar;
use tunnel::loadgen::{self, FlowSpec};
use tunnel::{client, server, ClientConfig, ServerConfig};

use super::report::LoopbackRow;

const KEY: &str = "schedtcp-demo-key-not-a-secret";

/// The policies checked, in order.
pub const POLICIES: [&str; 8] = [
    "tcp",
    "srpt",
    "fair",
    "las",
    "psps",
    "priority:srpt",
    "gittins",
    "auto",
];

/// Upload of each flow (bytes): a request.
const UPLOAD: u64 = 300;
/// The target's reply ends with the 32-byte SHA-256 of the upload; the application's request
/// starts with a 16-byte header (download and upload sizes).
const DIGEST: u64 = 32;
const HEADER: u64 = 16;

/// `flows` arrivals (Poisson, `rate` per second) with Lomax α = 3 download sizes of mean
/// `mean` bytes (paper 000's shape; the testbed's generator); the same for every policy.
fn workload(flows: usize, mean: f64, rate: f64, seed: u64) -> Result<Vec<(Duration, FlowSpec)>> {
    let alpha = 3.0;
    // Lomax mean 1/(c(α−1)).
    let c = 1.0 / (mean * (alpha - 1.0));
    Ok(
        ::testbed::workload::poisson_lomax(flows, rate, alpha, c, 64_000_000, seed)?
            .into_iter()
            .map(|(t, download)| {
                (
                    Duration::from_secs_f64(t),
                    FlowSpec {
                        download,
                        upload: UPLOAD,
                    },
                )
            })
            .collect(),
    )
}

async fn run_policy(
    policy: &str,
    target: SocketAddr,
    flows: &[(Duration, FlowSpec)],
    pb: &ProgressBar,
) -> Result<LoopbackRow> {
    let scfg = ServerConfig::from_toml(&format!(
        "listen = \"127.0.0.1:0\"\nkey = \"{KEY}\"\npolicy = \"{policy}\"\n[[route]]\nname = \"demo\"\ntarget = \"{target}\"\n"
    ))?;
    let srv = server::start(scfg, KEY.as_bytes()).await?;
    let ccfg = ClientConfig::from_toml(&format!(
        "server = \"{}\"\nkey = \"{KEY}\"\npolicy = \"{policy}\"\n[[route]]\nname = \"demo\"\nlisten = \"127.0.0.1:0\"\n",
        srv.addr
    ))?;
    let cli = client::start(ccfg, KEY.as_bytes()).await?;
    let route = cli.routes[0].1;
    let start = tokio::time::Instant::now();
    let tasks: Vec<_> = flows
        .iter()
        .map(|&(at, spec)| {
            let pb = pb.clone();
            tokio::spawn(async move {
                tokio::time::sleep_until(start + at).await;
                let r = loadgen::run_flow(route, spec).await;
                pb.inc(1);
                r
            })
        })
        .collect();
    let mut intact = 0;
    for t in tasks {
        match t.await? {
            Ok(_) => intact += 1,
            Err(e) => tracing::warn!("{policy}: flow failed: {e:#}"),
        }
    }
    // The last pool connections close once both sides said Done: wait (at most 5 s) until
    // both sides have checked a connection per flow, then read the invariant.
    for _ in 0..250 {
        let done = cli.engine.invariant().checked >= flows.len() as u64
            && srv.invariant().checked >= flows.len() as u64;
        if done && cli.engine.inspect(|s| s.is_idle()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let up = cli.engine.invariant();
    let down = srv.invariant();
    cli.shutdown().await;
    srv.shutdown().await;
    Ok(LoopbackRow {
        policy: policy.to_owned(),
        flows: flows.len(),
        intact,
        checked: up.checked + down.checked,
        violated: up.violated + down.violated,
        server_payload: down.payload_bytes,
        download_bytes: flows.iter().map(|(_, f)| f.download + DIGEST).sum(),
        client_payload: up.payload_bytes,
        upload_bytes: flows.iter().map(|(_, f)| HEADER + f.upload).sum(),
    })
}

/// Every policy in turn on the same flows.
pub async fn run(quick: bool, seed: u64) -> Result<Vec<LoopbackRow>> {
    let n = if quick { 12 } else { 40 };
    let flows = workload(n, 200e3, 100.0, seed)?;
    let (target, target_task) = loadgen::start_target("127.0.0.1:0".parse()?).await?;
    let pb = crate::engine::progress_bar("loopback", (n * POLICIES.len()) as u64, "flows", true);
    let mut rows = Vec::new();
    for p in POLICIES {
        pb.set_message(p);
        rows.push(run_policy(p, target, &flows, &pb).await?);
    }
    pb.finish_and_clear();
    target_task.abort();
    Ok(rows)
}
