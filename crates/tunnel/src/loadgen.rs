//! A target and a workload generator for exercising the tunnel end to end: the embedded target
//! of `schedtcp demo`, the end-to-end tests and the testbed.
//!
//! Each flow is one TCP connection to the target. The flow's opener sends a 16-byte header
//! (download size, upload size; big-endian u64), then the upload, then half-closes. The target
//! sends the download (a deterministic pattern), and once the upload has ended, the SHA-256 of
//! the upload, then closes. The opener checks both, so a flow either arrives intact or fails.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use sha2::{Digest, Sha256};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// Largest transfer the target accepts in one direction (bytes): 1 GiB.
pub const MAX_TRANSFER: u64 = 1 << 30;

/// Deterministic bytes of a stream: byte `i` of stream `seed`.
pub fn fill(seed: u64, offset: u64, out: &mut [u8]) {
    for (i, b) in out.iter_mut().enumerate() {
        let x = (offset + i as u64).wrapping_add(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        *b = (x ^ (x >> 7) ^ (x >> 13))
            .wrapping_mul(0x2545_F491_4F6C_DD1D)
            .to_le_bytes()[0]
            ^ (x >> 8) as u8;
    }
}

async fn send_pattern(
    w: &mut (impl AsyncWriteExt + Unpin),
    seed: u64,
    len: u64,
    hasher: Option<&mut Sha256>,
) -> std::io::Result<()> {
    let mut buf = vec![0u8; 64 * 1024];
    let mut off = 0;
    let mut hasher = hasher;
    while off < len {
        let n = (len - off).min(buf.len() as u64) as usize;
        fill(seed, off, &mut buf[..n]);
        if let Some(h) = hasher.as_deref_mut() {
            h.update(&buf[..n]);
        }
        w.write_all(&buf[..n]).await?;
        off += n as u64;
    }
    Ok(())
}

/// Starts the target on `addr` (port 0 for any); it serves until the handle is aborted.
pub async fn start_target(addr: SocketAddr) -> Result<(SocketAddr, JoinHandle<()>)> {
    let l = TcpListener::bind(addr)
        .await
        .context("binding the target")?;
    let local = l.local_addr()?;
    let task = tokio::spawn(async move {
        while let Ok((s, _)) = l.accept().await {
            tokio::spawn(async move {
                let _ = serve(s).await;
            });
        }
    });
    Ok((local, task))
}

async fn serve(s: TcpStream) -> Result<()> {
    let _ = s.set_nodelay(true);
    let (mut r, mut w) = s.into_split();
    let down = r.read_u64().await?;
    let up = r.read_u64().await?;
    if down > MAX_TRANSFER || up > MAX_TRANSFER {
        bail!("transfer too large");
    }
    let reader = tokio::spawn(async move {
        let mut h = Sha256::new();
        let mut buf = vec![0u8; 64 * 1024];
        let mut total = 0u64;
        loop {
            let n = r.read(&mut buf).await?;
            if n == 0 {
                break;
            }
            total += n as u64;
            h.update(&buf[..n]);
        }
        anyhow::Ok((total, h.finalize()))
    });
    send_pattern(&mut w, down, down, None).await?;
    let (total, digest) = reader.await??;
    if total != up {
        bail!("upload of {total} bytes, {up} announced");
    }
    w.write_all(&digest).await?;
    w.shutdown().await?;
    Ok(())
}

/// One flow of a workload.
#[derive(Debug, Clone, Copy)]
pub struct FlowSpec {
    pub download: u64,
    pub upload: u64,
}

/// How one flow went.
#[derive(Debug, Clone)]
pub struct FlowOutcome {
    pub spec: FlowSpec,
    pub started: Instant,
    pub elapsed: Duration,
}

/// Runs one flow through `addr` (a client route, or the target directly) and checks both
/// directions end to end.
pub async fn run_flow(addr: SocketAddr, spec: FlowSpec) -> Result<FlowOutcome> {
    run_flow_observed(addr, spec, |_| {}).await
}

/// [`run_flow`], telling `on_download` how many download bytes arrived each time some did
/// (for throughput over time).
pub async fn run_flow_observed(
    addr: SocketAddr,
    spec: FlowSpec,
    mut on_download: impl FnMut(usize),
) -> Result<FlowOutcome> {
    let started = Instant::now();
    let s = TcpStream::connect(addr)
        .await
        .with_context(|| format!("connecting to {addr}"))?;
    let _ = s.set_nodelay(true);
    let (mut r, mut w) = s.into_split();
    let writer = tokio::spawn(async move {
        w.write_u64(spec.download).await?;
        w.write_u64(spec.upload).await?;
        let mut h = Sha256::new();
        send_pattern(&mut w, spec.upload ^ 0xABCD, spec.upload, Some(&mut h)).await?;
        w.shutdown().await?;
        anyhow::Ok(h.finalize())
    });
    let mut got = Vec::with_capacity(32);
    let mut want = vec![0u8; 64 * 1024];
    let mut buf = vec![0u8; 64 * 1024];
    let mut off = 0u64;
    loop {
        let n = r.read(&mut buf).await.context("reading the download")?;
        if n == 0 {
            break;
        }
        let mut chunk = &buf[..n];
        if off < spec.download {
            let k = ((spec.download - off) as usize).min(chunk.len());
            fill(spec.download, off, &mut want[..k]);
            if want[..k] != chunk[..k] {
                bail!("download corrupted near offset {off}");
            }
            off += k as u64;
            on_download(k);
            chunk = &chunk[k..];
        }
        got.extend_from_slice(chunk);
        if got.len() > 32 {
            bail!("download longer than announced");
        }
    }
    let digest = writer.await.context("upload task")??;
    if off != spec.download || got.len() != 32 {
        bail!(
            "flow ended early: {off} of {} bytes and {} of 32 digest bytes",
            spec.download,
            got.len()
        );
    }
    if got[..] != digest[..] {
        bail!("upload corrupted: the target's SHA-256 differs");
    }
    Ok(FlowOutcome {
        spec,
        started,
        elapsed: started.elapsed(),
    })
}
