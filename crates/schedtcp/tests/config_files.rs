//! Every TOML file committed under `crates/` and `results/` reads with the configuration types:
//! the tunnel's files (`[[route]]` with `listen`/`target`) with the tunnel's parser, and the
//! experiments' scenario files with the types of their `[gtcp]` tables (the simulator's
//! `GtcpConfig`, which flattens the core's `gtcp::Config`) and of their `[adaptive]` tables
//! (the core's `gtcp::admission::Adaptive`), their own experiment checking the rest when it
//! runs them (`crates/lab/tests/quick_runs.rs`). A misspelled key in either kind
//! is refused naming the closest valid key.

use std::path::{Path, PathBuf};

use sim::scenario::GtcpConfig;
use tunnel::config::{ClientConfig, ServerConfig};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `*.toml` under `dir` but Cargo's manifests.
fn tomls(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            tomls(&p, out);
        } else if p.extension().is_some_and(|x| x == "toml")
            && p.file_name().is_some_and(|n| n != "Cargo.toml")
        {
            out.push(p);
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Kind {
    Client,
    Server,
    Scenario,
}

fn kind(t: &toml::Table) -> Kind {
    let routes = t.get("route").and_then(|r| r.as_array());
    match routes {
        Some(_) if t.contains_key("server") => Kind::Client,
        Some(_) if t.contains_key("listen") => Kind::Server,
        _ => Kind::Scenario,
    }
}

/// The `[name]` tables of a scenario file: its own and its `[quick]` override's.
fn tables<'a>(t: &'a toml::Table, name: &str) -> Vec<&'a toml::Table> {
    let quick = t.get("quick").and_then(|q| q.as_table());
    [Some(t), quick]
        .into_iter()
        .flatten()
        .filter_map(|t| t.get(name).and_then(|g| g.as_table()))
        .collect()
}

#[test]
fn every_committed_toml_file_reads_with_the_configuration_types() {
    let mut files = Vec::new();
    for dir in ["crates", "results"] {
        tomls(&root().join(dir), &mut files);
    }
    files.sort();
    let (mut clients, mut servers, mut scenarios, mut gtcp, mut adaptive) = (0, 0, 0, 0, 0);
    let mut failures = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let table: toml::Table = match text.parse() {
            Ok(t) => t,
            Err(e) => {
                failures.push(format!("{}: {e}", f.display()));
                continue;
            }
        };
        let result = match kind(&table) {
            Kind::Client => {
                clients += 1;
                ClientConfig::from_toml(&text).map(|_| ())
            }
            Kind::Server => {
                servers += 1;
                ServerConfig::from_toml(&text).map(|_| ())
            }
            Kind::Scenario => {
                scenarios += 1;
                tables(&table, "gtcp")
                    .into_iter()
                    .try_for_each(|g| {
                        gtcp += 1;
                        let c: GtcpConfig = toml::Value::Table(g.clone()).try_into()?;
                        c.core_config().map_err(anyhow::Error::msg)?;
                        Ok(())
                    })
                    .and_then(|()| {
                        tables(&table, "adaptive").into_iter().try_for_each(|a| {
                            adaptive += 1;
                            lab::scenario::adaptive_table(a).map(|_| ())
                        })
                    })
            }
        };
        if let Err(e) = result {
            failures.push(format!("{}: {e:#}", f.display()));
        }
    }
    eprintln!(
        "{} TOML files: {clients} client and {servers} server configurations, {scenarios} \
         scenario files with {gtcp} [gtcp] and {adaptive} [adaptive] tables",
        files.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(clients >= 1 && servers >= 1 && scenarios >= 100 && gtcp >= 20 && adaptive >= 60);
}

#[test]
fn a_misspelled_key_names_the_closest_valid_key_in_every_kind_of_file() {
    let dir = root().join("crates/schedtcp/examples");
    let client = std::fs::read_to_string(dir.join("client.toml")).unwrap();
    let server = std::fs::read_to_string(dir.join("server.toml")).unwrap();
    let e =
        ClientConfig::from_toml(&format!("{client}\n[tuning]\nsend_bufer = 4096\n")).unwrap_err();
    assert!(
        format!("{e:#}")
            .contains("unknown key `send_bufer` in [tuning]; did you mean `send_buffer`?"),
        "{e:#}"
    );
    let e = ServerConfig::from_toml(&format!("max_session = 3\n{server}")).unwrap_err();
    assert!(
        format!("{e:#}").contains("unknown key `max_session`; did you mean `max_sessions`?"),
        "{e:#}"
    );
    // An experiment's scenario: its `[gtcp]` table, as the experiment reads it.
    let scenario = lab::default_scenario("table2").unwrap();
    assert!(scenario.contains("\n[gtcp]\n"));
    let bad = scenario.replace("\n[gtcp]\n", "\n[gtcp]\nflow_windw = 262144\n");
    let path = std::env::temp_dir().join(format!("config-files-{}.toml", std::process::id()));
    std::fs::write(&path, bad).unwrap();
    let e = lab::run(
        "table2",
        &lab::RunOptions {
            scenario: Some(path.clone()),
            out_dir: Some(
                std::env::temp_dir().join(format!("config-files-{}", std::process::id())),
            ),
            quick: true,
            seed: None,
            progress: false,
            shard: None,
        },
    )
    .unwrap_err();
    let _ = std::fs::remove_file(&path);
    assert!(
        format!("{e:#}")
            .contains("unknown key `flow_windw` in [gtcp]; did you mean `flow_window`?"),
        "{e:#}"
    );
    // A simulator scenario.
    let text = "seed = 1\nduration_s = 1.0\ndriver = \"schedtcp\"\n\
                [workload]\nkind = \"list\"\nflows = []\n[gtcp]\nkeepalive_sec = 5\n";
    let e = sim::scenario::Scenario::from_toml(text).unwrap_err();
    assert!(
        e.to_string()
            .contains("unknown key `keepalive_sec` in [gtcp]; did you mean `keepalive_secs`?"),
        "{e}"
    );
}

/// README's "Limits and bounds" table states what the code derives for the defaults
/// (`gtcp::Config::bounds`) and names every key of `[tuning]`.
#[test]
fn readme_limits_table_matches_the_derived_bounds() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let table = readme
        .split("## Limits and bounds")
        .nth(1)
        .and_then(|t| t.split("\n## ").next())
        .expect("README has a limits table");
    let row = |starts: &str| -> &str {
        table
            .lines()
            .find(|l| l.starts_with(&format!("| {starts}")))
            .unwrap_or_else(|| panic!("no row `{starts}` in README's limits table"))
    };
    let c = gtcp::Config::default();
    let b = c.bounds();
    let per_conn = b.unsent_per_connection / c.send_buffer;
    let unsent = row("unsent bytes per session");
    assert!(
        unsent.contains(&format!(
            "≤ ({per_conn} × live connections + flows without one) × `send_buffer`"
        )),
        "{unsent}"
    );
    let flows = row("flows per session");
    let want = format!(
        "{} → memory ≤ {} × ({per_conn} × `send_buffer` + 2 × `flow_window` = {} MiB",
        c.max_flows,
        c.max_flows,
        b.memory_per_flow >> 20
    );
    assert!(flows.contains(&want), "{flows}\nshould say {want}");
    let window = row("receive window per flow");
    let budget = b.receive_budget / c.flow_window / c.max_flows as u64;
    assert!(
        window.contains(&format!("{budget} × `flow_window` × live connections")),
        "{window}"
    );
    let tuning = toml::Table::try_from(tunnel::config::Tuning::default()).unwrap();
    for key in tuning.keys() {
        assert!(
            table.contains(&format!("`tuning.{key}`")),
            "README's limits table does not name tuning.{key}"
        );
    }
}
