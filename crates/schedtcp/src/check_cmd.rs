//! `schedtcp check`: validates a configuration file as the daemon would at start (the key
//! included) and prints the effective configuration — every default filled in, an inline key
//! redacted — with the bounds that follow from it as comments, so the output is itself a
//! configuration file with the same hash.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use gtcp::session::{LEND_PER_CONNECTION, RECEIVE_BUDGET_PER_CONNECTION};
use tunnel::reload::{self, Side};

#[derive(clap::Args)]
pub struct Args {
    /// The configuration file (TOML).
    #[arg(long, short)]
    config: PathBuf,
    /// Which daemon it is for; by default told from the file (`server = ...`: a client's,
    /// `listen = ...`: a server's).
    #[arg(long, value_parser = ["server", "client"])]
    role: Option<String>,
}

pub fn run(args: Args) -> Result<()> {
    print!("{}", check(&args.config, args.role.as_deref())?);
    Ok(())
}

/// The report on a valid file, or why it is not.
fn check(path: &Path, role: Option<&str>) -> Result<String> {
    let side = match role {
        Some("server") => Side::Server,
        Some(_) => Side::Client,
        None => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            reload::side_of(&text).with_context(|| format!("in {}", path.display()))?
        }
    };
    let (table, hash, core, name) = match side {
        Side::Server => {
            let (c, _) = tunnel::ServerConfig::load(path)?;
            (
                reload::effective(&c)?,
                reload::hash(&c)?,
                c.tuning.core(c.policy)?,
                "server",
            )
        }
        Side::Client => {
            let (c, _) = tunnel::ClientConfig::load(path)?;
            (
                reload::effective(&c)?,
                reload::hash(&c)?,
                c.tuning.core(c.policy)?,
                "client",
            )
        }
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# {}: a valid `schedtcp {name}` configuration, its key loaded.\n# hash {hash} (the metric schedtcp_config_info shows the running one's)\n#\n# Bounds that follow from it, per session:",
        path.display()
    );
    for (what, value) in derived(&core) {
        let _ = writeln!(out, "#   {what}: {value}");
    }
    let _ = writeln!(out, "#\n# Every key, defaults filled in:");
    out += &toml::to_string(&reload::redact(table)).context("writing the configuration")?;
    Ok(out)
}

/// Bytes, with the nearest binary unit.
fn size(b: u64) -> String {
    const UNITS: [&str; 4] = ["bytes", "KiB", "MiB", "GiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} bytes")
    } else {
        format!("{v:.1} {} ({b} bytes)", UNITS[u])
    }
}

/// What a session may hold under `c` (the core's rules: `gtcp::Config`, `Session::send_capacity`,
/// the receive budget).
fn derived(c: &gtcp::Config) -> Vec<(&'static str, String)> {
    let flows = c.max_flows as u64;
    vec![
        (
            "flows at once (max_flows)",
            flows.to_string(),
        ),
        (
            "unsent bytes per live pool connection, at most (1 + LEND_PER_CONNECTION) x send_buffer",
            size((1 + LEND_PER_CONNECTION) * c.send_buffer),
        ),
        (
            "received and not yet delivered, at most max_flows x flow_window + RECEIVE_BUDGET_PER_CONNECTION x flow_window per live connection",
            format!(
                "{} + {} per connection",
                size(flows * c.flow_window),
                size(RECEIVE_BUDGET_PER_CONNECTION * c.flow_window)
            ),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("schedtcp-check-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        tunnel::psk::write_new(&d.join("psk.hex")).unwrap();
        d
    }

    /// The report is a configuration file again: it loads, with the same hash, and every
    /// default is written out.
    #[test]
    fn the_report_is_the_effective_configuration() {
        let d = dir("ok");
        for (name, text) in [
            ("server.toml", "listen = \"127.0.0.1:7000\"\nkey_file = \"psk.hex\"\n[[route]]\nname = \"web\"\ntarget = \"127.0.0.1:80\"\n"),
            ("client.toml", "server = \"127.0.0.1:7000\"\nkey_file = \"psk.hex\"\npolicy = \"srpt\"\n[[route]]\nname = \"web\"\nlisten = \"127.0.0.1:8080\"\n"),
        ] {
            let path = d.join(name);
            std::fs::write(&path, text).unwrap();
            let report = check(&path, None).unwrap();
            std::fs::write(&path, &report).unwrap();
            assert_eq!(check(&path, None).unwrap(), report, "{name}");
            let t: toml::Table = report.parse().unwrap();
            let tuning = t["tuning"].as_table().unwrap();
            assert_eq!(
                tuning["send_buffer"].as_integer(),
                Some(gtcp::Config::default().send_buffer as i64)
            );
        }
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_bad_file_is_refused_with_the_reason() {
        let d = dir("bad");
        let path = d.join("c.toml");
        for (text, role, want) in [
            ("server = \"127.0.0.1:7000\"\nkey_file = \"psk.hex\"\n", None, "missing field `route`"),
            ("listen = \"127.0.0.1:7000\"\nkey_file = \"missing.hex\"\n[[route]]\nname = \"a\"\ntarget = \"x:1\"\n", None, "missing.hex"),
            ("server = \"127.0.0.1:7000\"\nkey_file = \"psk.hex\"\n[[route]]\nname = \"a\"\nlisten = \"127.0.0.1:1\"\n", Some("server"), "listen"),
            ("policy = \"srpt\"\n", None, "neither a client"),
            ("server = \"127.0.0.1:7000\"\nkey_file = \"psk.hex\"\n[tuning]\nsend_bufer = 1\n[[route]]\nname = \"a\"\nlisten = \"127.0.0.1:1\"\n", None, "send_bufer"),
        ] {
            std::fs::write(&path, text).unwrap();
            let msg = format!("{:#}", check(&path, role).expect_err(want));
            assert!(msg.contains(want), "{msg:?} should name {want:?}");
        }
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn an_inline_key_is_not_printed() {
        use std::os::unix::fs::PermissionsExt;
        let d = dir("inline");
        let path = d.join("s.toml");
        let key = tunnel::psk::generate().unwrap();
        std::fs::write(&path, format!("listen = \"127.0.0.1:7000\"\nkey = \"{key}\"\n[[route]]\nname = \"a\"\ntarget = \"x:1\"\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        let report = check(&path, None).unwrap();
        assert!(
            !report.contains(&key) && report.contains("key = \"(redacted)\""),
            "{report}"
        );
        std::fs::remove_dir_all(&d).unwrap();
    }
}
