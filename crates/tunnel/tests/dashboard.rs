//! The Grafana dashboard in `dist/grafana/schedtcp.json` asks only for metrics the daemons
//! export: every `schedtcp_*` name in its queries (a histogram's `_bucket`, `_sum` and `_count`
//! series counted as the histogram) is a family in the metrics page of a server or a client
//! with a background route, after a flow went through.

mod common;

use std::collections::BTreeSet;

use tunnel::{client, ClientConfig};

/// Every `schedtcp_...` name in the dashboard's query expressions.
fn queried() -> BTreeSet<String> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../dist/grafana/schedtcp.json"
    );
    let dash: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut names = BTreeSet::new();
    for panel in dash["panels"].as_array().unwrap() {
        for target in panel["targets"].as_array().unwrap() {
            let expr = target["expr"].as_str().unwrap();
            let mut rest = expr;
            while let Some(at) = rest.find("schedtcp_") {
                let name: String = rest[at..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                rest = &rest[at + name.len()..];
                let family = ["_bucket", "_sum", "_count"]
                    .iter()
                    .find_map(|s| name.strip_suffix(s))
                    .unwrap_or(&name)
                    .to_owned();
                names.insert(family);
            }
        }
    }
    names
}

/// The metric families a metrics page declares (`# TYPE name kind`).
fn families(page: &str) -> BTreeSet<String> {
    page.lines()
        .filter_map(|l| l.strip_prefix("# TYPE ")?.split(' ').next())
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn the_dashboard_queries_only_exported_metrics() {
    let wanted = queried();
    assert!(wanted.len() >= 20, "the dashboard names {wanted:?}");
    let (srv, cli, route) = common::start("").await;
    common::legit(route).await;
    // A second client with a background route, for the admission controller's families.
    let bg = client::start(
        ClientConfig::from_toml(&format!(
            "server = \"{}\"\nkey = \"{}\"\nmetrics = \"127.0.0.1:0\"\n[[route]]\nname = \"t\"\nlisten = \"127.0.0.1:0\"\nbackground = true\n",
            srv.addr,
            common::KEY
        ))
        .unwrap(),
        common::KEY.as_bytes(),
    )
    .await
    .unwrap();
    common::legit(bg.routes[0].1).await;
    let mut exported = families(&common::scrape(srv.metrics.unwrap()).await);
    exported.extend(families(&common::scrape(bg.metrics.unwrap()).await));
    let missing: Vec<_> = wanted.difference(&exported).collect();
    bg.shutdown().await;
    cli.shutdown().await;
    srv.shutdown().await;
    assert!(missing.is_empty(), "not exported: {missing:?}");
}

/// Per-route families: a flow through route `t` is counted under `route="t"` on both sides
/// (opened, closed, bytes each way, a completion time in its size class), and a hostile peer's
/// flow on a route the server does not know adds no label.
#[tokio::test]
async fn flows_are_counted_by_route_and_only_for_configured_routes() {
    use bytes::BytesMut;
    use gtcp::wire::{Frame, OpenFrame};
    use tokio::io::AsyncWriteExt;

    let (srv, cli, route) = common::start("").await;
    common::legit(route).await;
    let (mut s, mut sealer) = common::hostile(srv.addr, 7).await;
    let mut b = BytesMut::new();
    Frame::Open(OpenFrame {
        flow: gtcp::FlowId(1),
        route: "not-configured".into(),
        class: 0,
        size_hint: None,
        origin: None,
    })
    .encode(&mut b);
    let mut sealed = BytesMut::new();
    sealer.seal(&b, &mut sealed).unwrap();
    s.write_all(&sealed).await.unwrap();
    // The legitimate session's flow is closed on the server once the client saw it end; poll
    // the page (at most 5 s) until it says so.
    let mut page = String::new();
    for _ in 0..100 {
        page = common::scrape(srv.metrics.unwrap()).await;
        if page.contains("schedtcp_route_flows_closed_total{") && page.contains("route=\"t\"} 1") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let row = |page: &str, name: &str, extra: &str| -> f64 {
        page.lines()
            .filter(|l| {
                l.starts_with(&format!("{name}{{"))
                    && l.contains("route=\"t\"")
                    && l.contains(extra)
            })
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum()
    };
    assert_eq!(
        row(&page, "schedtcp_route_flows_opened_total", ""),
        1.0,
        "{page}"
    );
    assert_eq!(row(&page, "schedtcp_route_flows_closed_total", ""), 1.0);
    assert_eq!(row(&page, "schedtcp_route_flows_reset_total", ""), 0.0);
    // The server sends the download and the upload's SHA-256, and receives the 16-byte
    // request header and the upload (`tunnel::loadgen`).
    let down = (common::LEGIT.download + 32) as f64;
    let up = (common::LEGIT.upload + 16) as f64;
    assert_eq!(
        row(&page, "schedtcp_route_bytes_total", "direction=\"sent\""),
        down
    );
    assert_eq!(
        row(
            &page,
            "schedtcp_route_bytes_total",
            "direction=\"received\""
        ),
        up
    );
    // 4.2 MB both ways: the middle size class.
    assert_eq!(
        row(
            &page,
            "schedtcp_route_flow_completion_seconds_count",
            "size=\"below_10MB\""
        ),
        1.0
    );
    assert_eq!(
        row(
            &page,
            "schedtcp_route_flow_completion_seconds_count",
            "size=\"below_100kB\""
        ),
        0.0
    );
    assert!(
        !page.contains("not-configured"),
        "a route the server does not know got a label"
    );
    cli.shutdown().await;
    srv.shutdown().await;
}
