//! `schedtcp status --metrics ADDR`: what a running daemon holds, read from its metrics
//! endpoint, in the manner of `ss`: sessions, flows and pool connections, then one line per
//! pool connection with its owning flow, the two sides of the invariant (bytes its flow handed
//! over, bytes it carried) and its virtual queue, the flows with bytes to send in the order the
//! policy serves them (the first `tunnel::metrics::RANKED_FLOWS` per session), and the
//! per-route counters.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use prometheus_parse::{Sample, Scrape, Value};

#[derive(clap::Args)]
pub struct Args {
    /// The daemon's metrics endpoint (its `metrics = "ADDR"`).
    #[arg(long)]
    metrics: SocketAddr,
}

pub fn run(args: Args) -> Result<()> {
    let page = fetch(args.metrics)?;
    print!("{}", render(&page)?);
    Ok(())
}

/// The metrics page's body (at most 64 MiB, within 5 s).
fn fetch(addr: SocketAddr) -> Result<String> {
    let timeout = Duration::from_secs(5);
    let mut s = TcpStream::connect_timeout(&addr, timeout)
        .with_context(|| format!("connecting to the metrics endpoint {addr}"))?;
    s.set_read_timeout(Some(timeout))?;
    s.set_write_timeout(Some(timeout))?;
    s.write_all(b"GET /metrics HTTP/1.1\r\nHost: schedtcp\r\nConnection: close\r\n\r\n")?;
    let mut raw = Vec::new();
    s.take(64 << 20)
        .read_to_end(&mut raw)
        .context("reading the metrics page")?;
    let text = String::from_utf8(raw).context("the metrics page is not UTF-8")?;
    match text.split_once("\r\n\r\n") {
        Some((head, body)) if head.starts_with("HTTP/1.1 200") => Ok(body.to_owned()),
        _ => bail!(
            "{addr} did not answer with a metrics page: {:?}",
            text.lines().next().unwrap_or("")
        ),
    }
}

fn value(s: &Sample) -> f64 {
    match s.value {
        Value::Counter(v) | Value::Gauge(v) | Value::Untyped(v) => v,
        _ => f64::NAN,
    }
}

/// The sum of a family over its samples.
fn total(scrape: &Scrape, name: &str) -> f64 {
    scrape
        .samples
        .iter()
        .filter(|s| s.metric == name)
        .map(value)
        .sum::<f64>()
        + 0.0 // an empty sum is -0.0
}

/// The report for a metrics page.
fn render(page: &str) -> Result<String> {
    // A sample without labels may be written `name{} value` (valid exposition), which the
    // parser does not take: written `name value` for it.
    let lines = page.lines().map(|l| Ok(l.replacen("{} ", " ", 1)));
    let scrape = Scrape::parse(lines).context("parsing the metrics page")?;
    let mut out = String::new();
    let t = |n: &str| total(&scrape, &format!("schedtcp_{n}"));
    out += &format!(
        "sessions {}  flows {}  pool connections {}  relayed sockets {}  unsent {} of {} bytes  memory {} bytes\n",
        t("sessions"),
        t("active_flows"),
        t("active_connections"),
        t("relayed_sockets"),
        t("unsent_bytes"),
        t("unsent_bound_bytes"),
        t("memory_bytes"),
    );
    // One row per pool connection: (session, conn) -> flow and the connection's counters.
    let mut conns: BTreeMap<(String, u64), (String, [f64; 5])> = BTreeMap::new();
    let fields = [
        "schedtcp_connection_owner_bytes",
        "schedtcp_connection_payload_bytes",
        "schedtcp_connection_virtual_queue_bytes",
        "schedtcp_connection_adopted_bytes",
        "schedtcp_connection_forgiven_bytes",
    ];
    for s in &scrape.samples {
        let Some(i) = fields.iter().position(|f| *f == s.metric) else {
            continue;
        };
        let session = s.labels.get("session").unwrap_or("").to_owned();
        let conn = s
            .labels
            .get("conn")
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        let flow = s.labels.get("flow").unwrap_or("0").to_owned();
        conns.entry((session, conn)).or_insert((flow, [0.0; 5])).1[i] = value(s);
    }
    out += &format!(
        "\n{:<18} {:>6} {:>8} {:>14} {:>14} {:>12} {:>10}\n",
        "session", "conn", "flow", "owner bytes", "carried", "virtual q", "invariant"
    );
    for ((session, conn), (flow, [owner, payload, vq, adopted, forgiven])) in &conns {
        // The ledger's identity: payload + virtual queue + forgiven == owner + adopted.
        let holds = payload + vq + forgiven == owner + adopted;
        let flow = if flow == "0" { "-" } else { flow.as_str() };
        out += &format!(
            "{session:<18} {conn:>6} {flow:>8} {owner:>14} {payload:>14} {vq:>12} {:>10}\n",
            if holds { "holds" } else { "VIOLATED" }
        );
    }
    out += &ranked(&scrape);
    // Per route: flows and bytes.
    let mut routes: BTreeMap<String, [f64; 5]> = BTreeMap::new();
    for s in &scrape.samples {
        let Some(route) = s.labels.get("route") else {
            continue;
        };
        let slot = match (s.metric.as_str(), s.labels.get("direction")) {
            ("schedtcp_route_flows_opened_total", _) => 0,
            ("schedtcp_route_flows_closed_total", _) => 1,
            ("schedtcp_route_flows_reset_total", _) => 2,
            ("schedtcp_route_bytes_total", Some("sent")) => 3,
            ("schedtcp_route_bytes_total", Some("received")) => 4,
            _ => continue,
        };
        routes.entry(route.to_owned()).or_default()[slot] += value(s);
    }
    if !routes.is_empty() {
        out += &format!(
            "\n{:<18} {:>8} {:>8} {:>8} {:>14} {:>14}\n",
            "route", "opened", "closed", "reset", "bytes sent", "bytes received"
        );
        for (route, [opened, closed, reset, sent, received]) in &routes {
            out += &format!(
                "{route:<18} {opened:>8} {closed:>8} {reset:>8} {sent:>14} {received:>14}\n"
            );
        }
    }
    Ok(out)
}

/// The flows with bytes to send, by session and rank (the policy's order).
fn ranked(scrape: &Scrape) -> String {
    let fields = [
        "schedtcp_ranked_flow_sent_bytes",
        "schedtcp_ranked_flow_remaining_bytes",
        "schedtcp_ranked_flow_unsent_bytes",
        "schedtcp_ranked_flow_ready",
    ];
    type Row = (String, String, [f64; 4]);
    let mut rows: BTreeMap<(String, u64), Row> = BTreeMap::new();
    for s in &scrape.samples {
        let Some(i) = fields.iter().position(|f| *f == s.metric) else {
            continue;
        };
        let Some(rank) = s.labels.get("rank").and_then(|r| r.parse().ok()) else {
            continue;
        };
        let session = s.labels.get("session").unwrap_or("").to_owned();
        let flow = s.labels.get("flow").unwrap_or("").to_owned();
        let route = s.labels.get("route").unwrap_or("").to_owned();
        rows.entry((session, rank))
            .or_insert((flow, route, [f64::NAN; 4]))
            .2[i] = value(s);
    }
    if rows.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "\n{:<18} {:>5} {:>8} {:<14} {:>14} {:>14} {:>12} {:>6}\n",
        "session", "rank", "flow", "route", "sent", "remaining", "unsent", "ready"
    );
    for ((session, rank), (flow, route, [sent, remaining, unsent, ready])) in &rows {
        let remaining = if remaining.is_nan() {
            "?".to_owned()
        } else {
            remaining.to_string()
        };
        let ready = if *ready == 1.0 { "yes" } else { "credit" };
        out += &format!(
            "{session:<18} {rank:>5} {flow:>8} {route:<14} {sent:>14} {remaining:>14} {unsent:>12} {ready:>6}\n"
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "\
# TYPE schedtcp_sessions gauge
schedtcp_sessions{} 1
# TYPE schedtcp_active_flows gauge
schedtcp_active_flows{session=\"s1\"} 2
# TYPE schedtcp_connection_owner_bytes gauge
schedtcp_connection_owner_bytes{session=\"s1\",conn=\"3\",flow=\"5\"} 100
schedtcp_connection_owner_bytes{session=\"s1\",conn=\"4\",flow=\"6\"} 50
# TYPE schedtcp_connection_payload_bytes gauge
schedtcp_connection_payload_bytes{session=\"s1\",conn=\"3\",flow=\"5\"} 60
schedtcp_connection_payload_bytes{session=\"s1\",conn=\"4\",flow=\"6\"} 50
# TYPE schedtcp_connection_virtual_queue_bytes gauge
schedtcp_connection_virtual_queue_bytes{session=\"s1\",conn=\"3\",flow=\"5\"} 40
schedtcp_connection_virtual_queue_bytes{session=\"s1\",conn=\"4\",flow=\"6\"} 7
# TYPE schedtcp_ranked_flow_sent_bytes gauge
schedtcp_ranked_flow_sent_bytes{session=\"s1\",rank=\"2\",flow=\"9\",route=\"web\"} 10
schedtcp_ranked_flow_sent_bytes{session=\"s1\",rank=\"10\",flow=\"4\",route=\"web\"} 30
schedtcp_ranked_flow_sent_bytes{session=\"s1\",rank=\"1\",flow=\"7\",route=\"web\"} 20
# TYPE schedtcp_ranked_flow_remaining_bytes gauge
schedtcp_ranked_flow_remaining_bytes{session=\"s1\",rank=\"2\",flow=\"9\",route=\"web\"} 500
schedtcp_ranked_flow_remaining_bytes{session=\"s1\",rank=\"10\",flow=\"4\",route=\"web\"} NaN
schedtcp_ranked_flow_remaining_bytes{session=\"s1\",rank=\"1\",flow=\"7\",route=\"web\"} 100
# TYPE schedtcp_route_flows_closed_total counter
schedtcp_route_flows_closed_total{session=\"s1\",route=\"web\"} 9
";

    /// Each connection's row says whether its ledger balances: 60 + 40 = 100 holds, 50 + 7
    /// against 50 does not; the route's counter is summed.
    #[test]
    fn rows_check_the_invariant_per_connection() {
        let r = render(PAGE).unwrap();
        let row = |conn: &str| {
            r.lines()
                .find(|l| l.split_whitespace().nth(1) == Some(conn))
                .unwrap_or_else(|| panic!("no row for {conn}: {r}"))
                .to_owned()
        };
        assert!(row("3").ends_with("holds"), "{r}");
        assert!(row("4").ends_with("VIOLATED"), "{r}");
        assert!(r.starts_with("sessions 1  flows 2"), "{r}");
        let web = r.lines().find(|l| l.starts_with("web")).unwrap();
        assert_eq!(web.split_whitespace().nth(2), Some("9"), "{r}");
    }

    /// The ranked flows come in rank order (numerically, whatever the page's order), with an
    /// unknown remaining size shown as such.
    #[test]
    fn ranked_flows_are_listed_by_rank() {
        let r = render(PAGE).unwrap();
        let ranked: Vec<Vec<&str>> = r
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>())
            .filter(|w| w.len() == 8 && w[0] == "s1")
            .collect();
        let flows: Vec<&str> = ranked.iter().map(|w| w[2]).collect();
        assert_eq!(flows, ["7", "9", "4"], "{r}");
        assert_eq!(ranked[0][5], "100", "{r}");
        assert_eq!(ranked[2][5], "?", "{r}");
    }
}
