//! `schedtcp throughput`: bulk transfers through the tunnel on loopback beside direct TCP.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tunnel::{client, server, ClientConfig, ServerConfig};

const KEY: &str = "schedtcp-throughput-key-not-secret";

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Numbers of concurrent bulk flows to measure.
    #[arg(long, value_delimiter = ',', default_value = "1,64")]
    flows: Vec<usize>,
    /// Bytes moved in all, per measurement (split evenly among the flows).
    #[arg(long, default_value_t = 4_000_000_000)]
    bytes: u64,
    /// Policy of the tunnel.
    #[arg(long, default_value = "fair")]
    policy: String,
    /// Also measure a second tunnel without the record layer (`integrity = false`), in the
    /// same run: the cost of authenticating every byte, as a ratio.
    #[arg(long)]
    compare_integrity: bool,
}

/// A server and a client on loopback carrying route `bulk` to `source`; returns them and the
/// route's address.
async fn start_tunnel(
    source: SocketAddr,
    policy: &str,
    integrity: bool,
) -> Result<(server::ServerHandle, client::ClientHandle, SocketAddr)> {
    let srv = server::start(
        ServerConfig::from_toml(&format!(
            "listen = \"127.0.0.1:0\"\nkey = \"{KEY}\"\npolicy = \"{policy}\"\nintegrity = {integrity}\n[[route]]\nname = \"bulk\"\ntarget = \"{source}\"\n",
        ))?,
        KEY.as_bytes(),
    )
    .await?;
    let cli = client::start(
        ClientConfig::from_toml(&format!(
            "server = \"{}\"\nkey = \"{KEY}\"\npolicy = \"{policy}\"\nintegrity = {integrity}\n[[route]]\nname = \"bulk\"\nlisten = \"127.0.0.1:0\"\n",
            srv.addr
        ))?,
        KEY.as_bytes(),
    )
    .await?;
    let route = cli.routes[0].1;
    Ok((srv, cli, route))
}

/// A source: reads an 8-byte size, sends that many bytes, closes.
async fn start_source() -> Result<SocketAddr> {
    let l = TcpListener::bind("127.0.0.1:0").await?;
    let addr = l.local_addr()?;
    tokio::spawn(async move {
        while let Ok((mut s, _)) = l.accept().await {
            tokio::spawn(async move {
                let Ok(n) = s.read_u64().await else { return };
                let buf = vec![0x5Au8; 256 * 1024];
                let mut left = n;
                while left > 0 {
                    let k = left.min(buf.len() as u64) as usize;
                    if s.write_all(&buf[..k]).await.is_err() {
                        return;
                    }
                    left -= k as u64;
                }
                let _ = s.shutdown().await;
            });
        }
    });
    Ok(addr)
}

async fn pull(addr: SocketAddr, n: u64) -> Result<()> {
    let mut s = TcpStream::connect(addr).await?;
    s.write_u64(n).await?;
    let mut buf = vec![0u8; 256 * 1024];
    let mut got = 0u64;
    loop {
        let k = s.read(&mut buf).await?;
        if k == 0 {
            break;
        }
        got += k as u64;
    }
    if got != n {
        bail!("received {got} of {n} bytes");
    }
    Ok(())
}

/// Gbit/s of `flows` concurrent pulls of `total` bytes in all from `addr`.
async fn measure(addr: SocketAddr, flows: usize, total: u64) -> Result<f64> {
    let each = total / flows as u64;
    let t = Instant::now();
    let tasks: Vec<_> = (0..flows).map(|_| tokio::spawn(pull(addr, each))).collect();
    for task in tasks {
        task.await??;
    }
    Ok((each * flows as u64) as f64 * 8.0 / t.elapsed().as_secs_f64() / 1e9)
}

pub async fn run(args: Args) -> Result<()> {
    if args.flows.contains(&0) || args.bytes == 0 {
        bail!("--flows and --bytes must be positive");
    }
    let source = start_source().await?;
    let (srv, cli, route) = start_tunnel(source, &args.policy, true).await?;
    let plain = if args.compare_integrity {
        Some(start_tunnel(source, &args.policy, false).await?)
    } else {
        None
    };
    println!(
        "bulk throughput on loopback, {} MB per measurement, policy {}",
        args.bytes / 1_000_000,
        args.policy
    );
    print!(
        "{:>6}  {:>14}  {:>14}  {:>6}",
        "flows", "direct Gbit/s", "tunnel Gbit/s", "ratio"
    );
    if plain.is_some() {
        print!("  {:>17}  {:>17}", "no-integrity Gb/s", "integrity/without");
    }
    println!();
    for &n in &args.flows {
        let direct = measure(source, n, args.bytes).await.context("direct")?;
        let tunnel = measure(route, n, args.bytes)
            .await
            .context("through the tunnel")?;
        print!(
            "{n:>6}  {direct:>14.2}  {tunnel:>14.2}  {:>6.2}",
            tunnel / direct
        );
        if let Some((_, _, plain_route)) = &plain {
            let without = measure(*plain_route, n, args.bytes)
                .await
                .context("through the tunnel without integrity")?;
            print!("  {without:>17.2}  {:>17.2}", tunnel / without);
        }
        println!();
    }
    tokio::time::timeout(Duration::from_secs(10), async {
        cli.shutdown().await;
        srv.shutdown().await;
        if let Some((srv, cli, _)) = plain {
            cli.shutdown().await;
            srv.shutdown().await;
        }
    })
    .await
    .ok();
    Ok(())
}
