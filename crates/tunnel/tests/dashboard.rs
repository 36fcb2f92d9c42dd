//! The Grafana dashboard in `dist/grafana/schedtcp.json` asks only for metrics the daemons
//! export: every `schedtcp_*` name in its queries (a histogram's `_bucket`, `_sum` and `_count`
//! series counted as the histogram) is a family in the metrics page of a server or a client
//! with a background route, after a flow went through.

mod common;

use std::collections::BTreeSet;

use tunnel::{client, ClientConfig};

/// Every `schedtcp_...` name in the dashboard's query expressions.
fn queried() -> BTreeSet<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../dist/grafana/schedtcp.json");
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
