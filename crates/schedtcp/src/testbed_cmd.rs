//! `schedtcp testbed ...`: the real-TCP testbed in network namespaces (root only).

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::{bail, Result};
use clap::Subcommand;

#[derive(Subcommand)]
pub enum Cmd {
    /// A few seconds end to end: namespaces, a tbf bottleneck, real `schedtcp server` and
    /// `schedtcp client` processes, a handful of flows under plain TCP, `tcp` and `srpt`,
    /// every byte checked, everything removed afterwards.
    Smoke {
        /// Flows per variant.
        #[arg(long, default_value_t = 12)]
        flows: usize,
        /// Namespace name prefix (`<prefix>-origin`, `-router`, `-dest`).
        #[arg(long, default_value = "stb")]
        prefix: String,
    },
    /// Run a testbed experiment (`testbed-table2` or `testbed-fig6`); results in
    /// results/<name>/ unless --out says otherwise.
    Run {
        /// `table2` or `fig6` (or the full name).
        name: String,
        /// The short variant (the demo's size).
        #[arg(long)]
        quick: bool,
        /// Output folder.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Scenario file overriding the embedded default.
        #[arg(long)]
        scenario: Option<PathBuf>,
    },
    /// Remove the namespaces (and the processes in them) a killed run left behind.
    Cleanup {
        #[arg(long, default_value = "stb")]
        prefix: String,
        /// Also remove namespaces of that name that no testbed run claims.
        #[arg(long)]
        force: bool,
    },
    /// Internal: what the testbed starts inside its namespaces.
    #[command(hide = true)]
    Helper {
        #[command(subcommand)]
        what: Helper,
    },
}

#[derive(Subcommand)]
pub enum Helper {
    /// The embedded target (sink and source of bytes).
    Target {
        #[arg(long)]
        listen: SocketAddr,
    },
    /// The workload generator.
    Workload {
        #[arg(long)]
        plan: PathBuf,
        #[arg(long)]
        out: PathBuf,
    },
    /// The multiplexer's client: one yamux connection to `server`, a stream per connection.
    MuxClient {
        #[arg(long)]
        listen: SocketAddr,
        #[arg(long)]
        server: SocketAddr,
    },
    /// The multiplexer's server: each stream connected to `target`.
    MuxServer {
        #[arg(long)]
        listen: SocketAddr,
        #[arg(long)]
        target: SocketAddr,
    },
}

pub fn run(cmd: Cmd) -> Result<()> {
    match cmd {
        Cmd::Helper { what } => match what {
            Helper::Target { listen } => testbed::helper::target(listen),
            Helper::Workload { plan, out } => testbed::helper::workload(&plan, &out),
            Helper::MuxClient { listen, server } => testbed::helper::mux_client(listen, server),
            Helper::MuxServer { listen, target } => testbed::helper::mux_server(listen, target),
        },
        Cmd::Cleanup { prefix, force } => {
            testbed::bed::require_root()?;
            let r = testbed::bed::cleanup(&prefix, force)?;
            if r.namespaces.is_empty() {
                println!("nothing to remove for prefix {prefix:?}");
            } else {
                println!(
                    "removed {} ({} processes killed)",
                    r.namespaces.join(", "),
                    r.processes
                );
            }
            Ok(())
        }
        Cmd::Smoke { flows, prefix } => {
            let bin = testbed::find_binary()?;
            let s = testbed::smoke::smoke(&bin, &prefix, flows)?;
            let mut bad = false;
            for r in &s.runs {
                let got: u64 = r.results.iter().map(|x| x.received).sum();
                let mean = r.results.iter().filter_map(|x| x.completion_s).sum::<f64>()
                    / r.results.len().max(1) as f64;
                let inv = match r.server {
                    Some(i) => format!(
                        "invariant: {} connections checked, {} violated, header overhead {:.2}%",
                        i.checked,
                        i.violated,
                        100.0 * i.header_bytes as f64 / i.payload_bytes.max(1) as f64
                    ),
                    None => "no tunnel".into(),
                };
                println!(
                    "{:<6} {}/{} flows ok, {got}/{} bytes, mean completion {:.3} s, {inv}",
                    r.variant,
                    r.results.len() - r.failed(),
                    r.results.len(),
                    s.planned_bytes,
                    mean
                );
                bad |= r.failed() > 0
                    || got != s.planned_bytes
                    || r.server.is_some_and(|i| i.violated > 0);
            }
            if !s.leftover.is_empty() {
                bail!("namespaces left behind: {}", s.leftover.join(", "));
            }
            println!("namespaces removed");
            if bad {
                bail!("some flows failed, lost bytes or broke the invariant");
            }
            Ok(())
        }
        Cmd::Run {
            name,
            quick,
            out,
            scenario,
        } => {
            let name = match name.as_str() {
                "table2" => "testbed-table2".to_string(),
                "fig6" => "testbed-fig6".to_string(),
                n => n.to_string(),
            };
            if !name.starts_with("testbed-") {
                bail!("`schedtcp testbed run` runs testbed-table2 or testbed-fig6; other experiments: `schedtcp experiment run`");
            }
            let report = lab::run(
                &name,
                &lab::RunOptions {
                    scenario,
                    out_dir: out,
                    quick,
                    seed: None,
                    progress: true,
                    shard: None,
                },
            )?;
            println!("{}", report.summary_markdown);
            eprintln!("results in {}", report.out_dir.display());
            Ok(())
        }
    }
}
