//! `schedtcp status` against the real binaries: the flows a server sends are listed in the
//! order its policy serves them.

mod common;

use std::net::SocketAddr;
use std::process::Command;
use std::time::{Duration, Instant};

use common::{free_port, scrape, Dir, Proc};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const BOUND: Duration = Duration::from_secs(30);

/// The response head the target sends for a body of `size` bytes.
fn head(size: u64) -> String {
    format!("HTTP/1.1 200 OK\r\nContent-Length: {size}\r\n\r\n")
}

/// An HTTP target: `GET /SIZE` gets a `SIZE`-byte body with its `Content-Length`.
async fn http_target() -> (SocketAddr, tokio::task::JoinHandle<()>) {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    let task = tokio::spawn(async move {
        while let Ok((mut s, _)) = l.accept().await {
            tokio::spawn(async move {
                let mut req = Vec::new();
                let mut buf = [0u8; 1024];
                while !req.windows(4).any(|w| w == b"\r\n\r\n") && req.len() < 8192 {
                    match s.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => req.extend_from_slice(&buf[..n]),
                    }
                }
                let text = String::from_utf8_lossy(&req);
                let Some(size) = text
                    .strip_prefix("GET /")
                    .and_then(|r| r.split(' ').next()?.parse::<u64>().ok())
                else {
                    return;
                };
                if s.write_all(head(size).as_bytes()).await.is_err() {
                    return;
                }
                let chunk = vec![0u8; 64 * 1024];
                let mut left = size;
                while left > 0 {
                    let n = left.min(chunk.len() as u64) as usize;
                    if s.write_all(&chunk[..n]).await.is_err() {
                        return;
                    }
                    left -= n as u64;
                }
            });
        }
    });
    (addr, task)
}

/// Three downloads of known sizes (HTTP `Content-Length`, read by the server) whose
/// applications do not read: under `srpt` the server's status lists them by remaining bytes,
/// the smallest first, whatever the order they opened in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_lists_a_servers_flows_in_the_order_srpt_serves_them() {
    let (target, _t) = http_target().await;
    let dir = Dir::with_key("status");
    let (listen, server_metrics, client_metrics, route) =
        (free_port(), free_port(), free_port(), free_port());
    let server_cfg = dir.config(
        "server",
        &format!(
            "listen = \"{listen}\"\nkey_file = \"psk.txt\"\nmetrics = \"{server_metrics}\"\npolicy = \"srpt\"\n[[route]]\nname = \"web\"\ntarget = \"{target}\"\nhttp_content_length = true\n"
        ),
    );
    let client_cfg = dir.config(
        "client",
        &format!(
            "server = \"{listen}\"\nkey_file = \"psk.txt\"\nmetrics = \"{client_metrics}\"\n[[route]]\nname = \"web\"\nlisten = \"{route}\"\n"
        ),
    );
    let _server = Proc::spawn("server", &server_cfg, server_metrics, "STATUS_LOG", BOUND).await;
    let _client = Proc::spawn("client", &client_cfg, client_metrics, "STATUS_LOG", BOUND).await;
    // Opened largest, smallest, middle; tens of megabytes apart, far more than what flow
    // control lets each send before its application reads.
    let sizes: [u64; 3] = [60_000_000, 20_000_000, 40_000_000];
    let mut apps = Vec::new();
    for size in sizes {
        let mut s = TcpStream::connect(route).await.unwrap();
        s.write_all(format!("GET /{size} HTTP/1.1\r\nHost: t\r\n\r\n").as_bytes())
            .await
            .unwrap();
        apps.push(s);
    }
    // Until the server knows every size (it has read each response's head) and every flow
    // waits for credit: nothing moves any more (the applications do not read).
    let deadline = Instant::now() + BOUND;
    loop {
        let page = scrape(server_metrics).await.unwrap_or_default();
        let values = |family: &str| -> Vec<f64> {
            page.lines()
                .filter(|l| l.starts_with(family))
                .filter_map(|l| l.rsplit(' ').next()?.parse().ok())
                .collect()
        };
        let known = values("schedtcp_ranked_flow_remaining_bytes{")
            .iter()
            .filter(|v| !v.is_nan())
            .count();
        let waiting = values("schedtcp_ranked_flow_ready{")
            .iter()
            .filter(|v| **v == 0.0)
            .count();
        if known == sizes.len() && waiting == sizes.len() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the server never held the three flows waiting for credit:\n{page}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The ranking lists the flows with bytes to send. Kernel buffers on the applications' side
    // may still grow and let a flow send all it holds for a moment (it is then not ranked):
    // ask again until every flow is listed.
    let (text, rows) = loop {
        let out = Command::new(env!("CARGO_BIN_EXE_schedtcp"))
            .args(["status", "--metrics", &server_metrics.to_string()])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        // The rows of the ranked flows: session, rank, flow, route, sent, remaining, unsent,
        // ready.
        let rows: Vec<Vec<String>> = text
            .lines()
            .map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
            .filter(|w| w.len() == 8 && w[3] == "web")
            .collect();
        if rows.len() == sizes.len() {
            break (text, rows);
        }
        assert!(
            Instant::now() < deadline,
            "status never listed the three flows:\n{text}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    println!("{text}");
    let ranks: Vec<&str> = rows.iter().map(|w| w[1].as_str()).collect();
    assert_eq!(ranks, ["1", "2", "3"], "{text}");
    // Each flow's end (bytes sent + remaining) is its response: head and body. Rank 1 is the
    // smallest response, rank 3 the largest.
    let ends: Vec<u64> = rows
        .iter()
        .map(|w| w[4].parse::<u64>().unwrap() + w[5].parse::<u64>().unwrap())
        .collect();
    let mut expected: Vec<u64> = sizes.iter().map(|&s| head(s).len() as u64 + s).collect();
    expected.sort();
    assert_eq!(ends, expected, "{text}");
    drop(apps);
}
