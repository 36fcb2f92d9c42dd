//! `schedtcp`: non-intrusive scheduling of the TCP flows of one origin–destination pair.
//!
//! This binary is thin: it parses arguments and calls the crates that do the work (`tunnel`
//! for the proxies, `lab` for experiments).

// One system call needs `unsafe` (the allocator's thresholds): allowed in `allocator` only.
#![deny(unsafe_code)]
// Doc comments here are clap's help text: `<name>` in them is a placeholder for the user, not HTML.
#![allow(rustdoc::invalid_html_tags)]

mod allocator;
mod demo;
mod router_cmd;
mod testbed_cmd;
mod throughput;
mod trace_cmd;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use tracing_subscriber::EnvFilter;

const EXAMPLE_CLIENT: &str = include_str!("../examples/client.toml");
const EXAMPLE_SERVER: &str = include_str!("../examples/server.toml");

/// Non-intrusive scheduling of TCP flows.
///
/// For one origin–destination pair, every application connection stays its own TCP connection
/// (so the pair takes no more of the network than plain TCP), but whenever a connection may
/// send, a policy decides whose bytes go out: tcp, srpt, las, fair, psps (RuN2C) or
/// priority:<inner>. Run `schedtcp client` near the applications and `schedtcp server` near the
/// targets; both sides schedule what they send.
#[derive(Parser)]
#[command(name = "schedtcp", version, about, long_about, after_help = AFTER_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

const AFTER_HELP: &str = "\
Examples:
  schedtcp demo                                   the point in two minutes (simulator; real TCP as root)
  schedtcp keygen --out psk.hex                   a new pre-shared key (file mode 0600)
  schedtcp example-config server > server.toml    a commented configuration to start from
  schedtcp server --config server.toml            (near the targets)
  schedtcp client --config client.toml            (near the applications)
  schedtcp experiment list                        the papers' tables and figures
  schedtcp experiment run fluid-table2            reproduce one (writes results/fluid-table2/)
  schedtcp trace schedulable capture.pcap.gz      how much of a capture's traffic can be scheduled

Logs go to stderr; set RUST_LOG (e.g. RUST_LOG=debug, RUST_LOG=tunnel=debug) to change them.";

#[derive(Subcommand)]
enum Command {
    /// Run the destination side: accept pool connections and connect each flow to the target
    /// its route names in the configuration (and nowhere else).
    Server {
        /// Server configuration (TOML); see `schedtcp example-config server`.
        #[arg(long, short)]
        config: PathBuf,
    },
    /// Run the origin side: one local listener per route; each accepted connection is a flow
    /// with its own pool connection to the server.
    Client {
        /// Client configuration (TOML); see `schedtcp example-config client`.
        #[arg(long, short)]
        config: PathBuf,
    },
    /// The main job on an embedded default, in about two minutes: paper 000's Table 2 and a
    /// plain-TCP competitor under every policy, in the packet simulator driving the shipped
    /// core plus the tunnel on loopback as an invariant and bytes check (as root: on the
    /// real-TCP testbed); a compact table, a verdict, the full report in a folder.
    Demo(demo::Args),
    /// Generate a pre-shared key: 32 bytes from the operating system's random number
    /// generator, as 64 hex characters; written to a new file readable by its owner only
    /// (0600), or printed.
    Keygen {
        /// File to create (it must not exist); without it the key is printed on stdout.
        #[arg(long, short)]
        out: Option<PathBuf>,
    },
    /// Print a commented example configuration.
    ExampleConfig {
        /// Which side.
        #[arg(value_parser = ["client", "server"])]
        side: String,
    },
    /// Reproduce the papers' tables and figures.
    Experiment {
        #[command(subcommand)]
        action: ExperimentCmd,
    },
    /// Measure bulk throughput through the tunnel on loopback beside direct TCP.
    Throughput(throughput::Args),
    /// The real-TCP testbed (root): network namespaces, a tbf bottleneck, real server and
    /// client processes (`smoke`, `run table2|fig6`, `cleanup`).
    Testbed {
        #[command(subcommand)]
        cmd: testbed_cmd::Cmd,
    },
    /// How much of a network's TCP traffic can be scheduled, from packet captures (pcap,
    /// pcapng, gzip): `schedulable` (paper 000, Table 1), `segments` (Figure 3), `flows` (a
    /// flow list the simulator replays).
    Trace {
        #[command(subcommand)]
        cmd: trace_cmd::Cmd,
    },
    /// The user-space router of paper 003 (root): rate, drop-tail/RuN/RuN2C queue and one-way
    /// delay on real packets through a TUN device (`run`), and its packet rate here (`speed`).
    Router {
        #[command(subcommand)]
        cmd: router_cmd::Cmd,
    },
}

#[derive(Subcommand)]
enum ExperimentCmd {
    /// List the experiments.
    List,
    /// Print an experiment's default scenario (edit it and pass it with --scenario).
    Scenario { name: String },
    /// Run an experiment: CSV/JSON, plots and summary.md in its output folder.
    Run {
        /// Experiment name (see `schedtcp experiment list`).
        name: String,
        /// Scenario file overriding the embedded default.
        #[arg(long)]
        scenario: Option<PathBuf>,
        /// Output folder (default results/<name>/).
        #[arg(long)]
        out: Option<PathBuf>,
        /// The small variant used by the tests: seconds instead of minutes.
        #[arg(long)]
        quick: bool,
        /// Seed overriding the scenario's.
        #[arg(long)]
        seed: Option<u64>,
    },
}

fn main() -> ExitCode {
    // First, before any thread: the data path's buffers are reused (see `allocator`).
    allocator::tune();
    let cli = Cli::parse();
    // The demo's output is its table: its logs stay at warn unless RUST_LOG says otherwise.
    let default = match cli.command {
        Command::Demo(_) => "warn",
        _ => "info",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// The multi-thread runtime with `threads` workers (0: tokio's default, one per core).
fn runtime(threads: usize) -> Result<tokio::runtime::Runtime> {
    let mut b = tokio::runtime::Builder::new_multi_thread();
    if threads > 0 {
        b.worker_threads(threads);
    }
    b.enable_all().build().context("starting the runtime")
}

fn run(cli: Cli) -> Result<()> {
    if matches!(cli.command, Command::Server { .. } | Command::Client { .. }) {
        // The daemons give back what a burst of flows needed (see `allocator`).
        allocator::start_trimming().context("starting the allocator's trimming thread")?;
    }
    match cli.command {
        Command::Server { config } => {
            let (cfg, key) = tunnel::ServerConfig::load(&config)?;
            runtime(cfg.tuning.threads)?.block_on(async {
                let server = tunnel::server::start(cfg, &key).await?;
                shutdown_signal().await?;
                tracing::info!("shutting down: no new flows, finishing the ones in flight");
                let inv = server.invariant();
                server.shutdown().await;
                log_invariant(inv);
                Ok(())
            })
        }
        Command::Client { config } => {
            let (cfg, key) = tunnel::ClientConfig::load(&config)?;
            runtime(cfg.tuning.threads)?.block_on(async {
                let client = tunnel::client::start(cfg, &key).await?;
                shutdown_signal().await?;
                tracing::info!("shutting down: no new flows, finishing the ones in flight");
                let inv = client.engine.invariant();
                client.shutdown().await;
                log_invariant(inv);
                Ok(())
            })
        }
        Command::Demo(args) => demo::main(args),
        Command::Keygen { out: Some(path) } => {
            tunnel::psk::write_new(&path)?;
            eprintln!(
                "wrote a new key to {} (mode 0600); copy it to the other end over a secure channel and name it in key_file",
                path.display()
            );
            Ok(())
        }
        Command::Keygen { out: None } => {
            println!("{}", tunnel::psk::generate()?);
            Ok(())
        }
        Command::ExampleConfig { side } => {
            print!(
                "{}",
                if side == "client" {
                    EXAMPLE_CLIENT
                } else {
                    EXAMPLE_SERVER
                }
            );
            Ok(())
        }
        Command::Experiment { action } => experiment(action),
        Command::Throughput(args) => runtime(0)?.block_on(throughput::run(args)),
        Command::Testbed { cmd } => testbed_cmd::run(cmd),
        Command::Trace { cmd } => trace_cmd::run(cmd),
        Command::Router { cmd } => router_cmd::run(cmd),
    }
}

/// The per-connection invariant over the connections that closed cleanly, logged when the
/// process stops (the testbed reads this line).
fn log_invariant(i: tunnel::engine::InvariantTally) {
    tracing::info!(
        "invariant at shutdown: checked={} violated={} payload_bytes={} header_bytes={} adopted_bytes={} starved_us={} starved_by_credit_us={}",
        i.checked,
        i.violated,
        i.payload_bytes,
        i.header_bytes,
        i.adopted_bytes,
        i.starved_micros,
        i.starved_by_credit_micros
    );
}

fn experiment(action: ExperimentCmd) -> Result<()> {
    match action {
        ExperimentCmd::List => {
            let list = lab::experiments();
            let width = list.iter().map(|e| e.name.len()).max().unwrap_or(0);
            for e in list {
                println!("{:width$}  {}", e.name, e.description);
            }
            Ok(())
        }
        ExperimentCmd::Scenario { name } => {
            let text = lab::default_scenario(&name).with_context(|| {
                format!("no experiment named {name:?} (see `schedtcp experiment list`)")
            })?;
            print!("{text}");
            Ok(())
        }
        ExperimentCmd::Run {
            name,
            scenario,
            out,
            quick,
            seed,
        } => {
            let opts = lab::RunOptions {
                scenario,
                out_dir: out,
                quick,
                seed,
                progress: true,
            };
            let report = lab::run(&name, &opts)?;
            println!("{}", report.summary_markdown);
            eprintln!("results in {}", report.out_dir.display());
            Ok(())
        }
    }
}

/// SIGINT or SIGTERM.
async fn shutdown_signal() -> Result<()> {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .context("installing the SIGTERM handler")?;
    tokio::select! {
        r = tokio::signal::ctrl_c() => r.context("waiting for SIGINT")?,
        _ = term.recv() => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    /// The examples parse, but their placeholder key is refused with the way to a real one.
    #[test]
    fn the_example_configurations_parse_and_their_placeholder_key_is_refused() {
        let c = tunnel::ClientConfig::from_toml(EXAMPLE_CLIENT).expect("client example");
        let s = tunnel::ServerConfig::from_toml(EXAMPLE_SERVER).expect("server example");
        for key in [&c.key, &s.key] {
            let msg = format!("{:#}", key.load(std::path::Path::new(".")).unwrap_err());
            assert!(
                msg.contains("placeholder") && msg.contains("schedtcp keygen"),
                "{msg}"
            );
        }
        assert!(c.integrity && s.integrity, "integrity is on by default");
    }
}
