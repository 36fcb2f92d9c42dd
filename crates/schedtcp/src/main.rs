//! `schedtcp`: non-intrusive scheduling of the TCP flows of one origin–destination pair.
//!
//! This binary is thin: it parses arguments and calls the crates that do the work (`tunnel`
//! for the proxies, `lab` for experiments).

// One system call needs `unsafe` (the allocator's thresholds): allowed in `allocator` only.
#![deny(unsafe_code)]
// Doc comments here are clap's help text: `<name>` in them is a placeholder for the user, not HTML.
#![allow(rustdoc::invalid_html_tags)]

mod allocator;
mod check_cmd;
mod demo;
mod router_cmd;
mod status_cmd;
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

/// `schedtcp example-config SIDE`: the commented example, then the tables every key of which
/// has a default, written from the configuration types themselves (`[tuning]`, and on the
/// client `[admission]`), so they list every knob with its default and nothing else.
fn example_config(side: &str) -> Result<String> {
    let client = side == "client";
    let mut out = String::from(if client {
        EXAMPLE_CLIENT
    } else {
        EXAMPLE_SERVER
    });
    let b = gtcp::Config::default().bounds();
    out.push_str(&format!(
        "\n# [tuning]: every key with its default (README, \"Limits and bounds\"). With these, a\n\
         # session holds at most {} MiB unsent per connection and {} MiB per flow, {} GiB in all\n\
         # with max_flows flows (gtcp::Bounds).\n[tuning]\n",
        b.unsent_per_connection >> 20,
        b.memory_per_flow >> 20,
        b.memory_per_session >> 30,
    ));
    out.push_str(&toml::to_string(&tunnel::config::Tuning::default())?);
    if client {
        out.push_str("\n# [admission]: every key with its default.\n[admission]\n");
        out.push_str(&toml::to_string(
            &gtcp::admission::AdmissionConfig::default(),
        )?);
    }
    Ok(out)
}

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
  schedtcp check --config server.toml             validate a file, print it with every default
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
    /// Validate a configuration file as the daemon would at start (its key included) and print
    /// the effective configuration: every default filled in, the bounds that follow, and its
    /// hash. Exits non-zero with the reason on a bad file.
    Check(check_cmd::Args),
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
    /// What a running daemon holds, from its metrics endpoint (like `ss`): sessions, flows,
    /// each pool connection with its owning flow, the invariant's two sides and its virtual
    /// queue, and the counters by route.
    Status(status_cmd::Args),
    /// The user-space router of paper 003 (root): rate, drop-tail/RuN/RuN2C queue and one-way
    /// delay on real packets through a TUN device (`run`), and its packet rate here (`speed`).
    Router {
        #[command(subcommand)]
        cmd: router_cmd::Cmd,
    },
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell): e.g.
    /// `schedtcp completions bash > /etc/bash_completion.d/schedtcp`.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff): e.g. `schedtcp man > /usr/local/share/man/man1/schedtcp.1`.
    Man,
}

#[derive(Subcommand)]
enum ExperimentCmd {
    /// List the experiments (`[shards]`: its runs split with `run --shard I/N`).
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
        /// Run only part I of N of the runs (1 <= I <= N) and write their raw results to
        /// --out; `schedtcp experiment merge` turns all N into the experiment's outputs.
        #[arg(long, value_name = "I/N")]
        shard: Option<lab::Shard>,
    },
    /// Analyse and render the shards of one experiment run (all N of them, written by
    /// `experiment run --shard I/N`): the same outputs as one unsharded run.
    Merge {
        /// The shards' output folders.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Output folder.
        #[arg(long)]
        out: PathBuf,
    },
    /// Analyse and render again, without running anything, the results a run left in DIR:
    /// a run with `--shard 1/1` (its shard.json, scenario.toml and raw/) is re-rendered in
    /// place, byte-identical to an unsharded run's; with --name, an experiment that keeps its
    /// raw CSV/JSON in its folder (testbed-table2, testbed-fig6, run2c-sim) is rendered from them.
    Render {
        /// The folder of the earlier run.
        dir: PathBuf,
        /// Experiment name, for a folder without shard.json (rendered from its raw CSV/JSON).
        #[arg(long)]
        name: Option<String>,
        /// Output folder with --name (default: DIR, rewritten in place).
        #[arg(long, requires = "name")]
        out: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    // First, before any thread: the data path's buffers are reused (see `allocator`).
    allocator::tune();
    let cli = Cli::parse();
    // The daemons run without glibc's per-thread caches, so that trimming reaches what a burst
    // freed (see `allocator`): started again in place with them off, before any thread.
    let restart = if matches!(cli.command, Command::Server { .. } | Command::Client { .. }) {
        allocator::restart_without_thread_caches()
    } else {
        Ok(())
    };
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
    if let Err(e) = restart {
        tracing::warn!(
            "glibc's per-thread caches stay on (less memory is given back after a burst): \
             starting again without them failed: {e}"
        );
    }
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
                serve_until_stopped(|| std::future::ready(server.reload(&config))).await?;
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
                serve_until_stopped(|| client.reload(&config)).await?;
                tracing::info!("shutting down: no new flows, finishing the ones in flight");
                let inv = client.engine.invariant();
                client.shutdown().await;
                log_invariant(inv);
                Ok(())
            })
        }
        Command::Check(args) => check_cmd::run(args),
        Command::Demo(args) => demo::run(args),
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
            print!("{}", example_config(&side)?);
            Ok(())
        }
        Command::Experiment { action } => experiment(action),
        Command::Throughput(args) => throughput::run(args),
        Command::Testbed { cmd } => testbed_cmd::run(cmd),
        Command::Trace { cmd } => trace_cmd::run(cmd),
        Command::Router { cmd } => router_cmd::run(cmd),
        Command::Status(args) => status_cmd::run(args),
        Command::Completions { shell } => {
            completions(shell, &mut std::io::stdout().lock());
            Ok(())
        }
        Command::Man => man(&mut std::io::stdout().lock()),
    }
}

/// The shell's completion script, generated from the command definitions.
fn completions(shell: clap_complete::Shell, out: &mut impl std::io::Write) {
    use clap::CommandFactory;
    clap_complete::generate(shell, &mut Cli::command(), "schedtcp", out);
}

/// The manual page, generated from the command definitions.
fn man(out: &mut impl std::io::Write) -> Result<()> {
    use clap::CommandFactory;
    clap_mangen::Man::new(Cli::command())
        .render(out)
        .context("writing the manual page")
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
                let shards = if e.shardable { " [shards]" } else { "" };
                println!("{:width$}  {}{shards}", e.name, e.description);
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
            shard,
        } => {
            let opts = lab::RunOptions {
                scenario,
                out_dir: out,
                quick,
                seed,
                progress: true,
                shard,
            };
            let report = lab::run(&name, &opts)?;
            println!("{}", report.summary_markdown);
            eprintln!("results in {}", report.out_dir.display());
            Ok(())
        }
        ExperimentCmd::Merge { dirs, out } => {
            let report = lab::merge(&dirs, &out, true)?;
            println!("{}", report.summary_markdown);
            eprintln!("results in {}", report.out_dir.display());
            Ok(())
        }
        ExperimentCmd::Render { dir, name, out } => {
            let report = match name {
                Some(name) => lab::render_from(&name, &dir, out.as_deref())?,
                None if !dir.join("shard.json").is_file() => {
                    lab::render(&dir, true).with_context(|| {
                        format!(
                            "{} holds no run kept with --shard 1/1; for an experiment that \
                             keeps its raw CSV/JSON, give --name",
                            dir.display()
                        )
                    })?
                }
                None => lab::render(&dir, true)?,
            };
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

/// Runs a started daemon until SIGINT or SIGTERM; every SIGHUP meanwhile reloads the
/// configuration (`reload` logs and counts its outcome; a failed one keeps the running
/// configuration). Under systemd (`Type=notify`, dist/systemd/) it tells the service manager
/// when the daemon is ready, reloading, ready again and stopping.
async fn serve_until_stopped<F>(mut reload: impl FnMut() -> F) -> Result<()>
where
    F: std::future::Future<Output = Result<String>>,
{
    use sd_notify::NotifyState;
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate()).context("installing the SIGTERM handler")?;
    let mut hup = signal(SignalKind::hangup()).context("installing the SIGHUP handler")?;
    notify(&[NotifyState::Ready]);
    let stopped = loop {
        tokio::select! {
            r = tokio::signal::ctrl_c() => break r.context("waiting for SIGINT"),
            _ = term.recv() => break Ok(()),
            _ = hup.recv() => {
                tracing::info!("SIGHUP: reloading the configuration");
                // systemd ≥ 253 (`Type=notify-reload`) requires the monotonic time with RELOADING=1.
                match NotifyState::monotonic_usec_now() {
                    Ok(now) => notify(&[NotifyState::Reloading, now]),
                    Err(_) => notify(&[NotifyState::Reloading]),
                }
                let status = match reload().await {
                    Ok(hash) => format!("configuration {hash}"),
                    Err(_) => "the last reload failed: running the previous configuration".into(),
                };
                notify(&[NotifyState::Ready, NotifyState::Status(&status)]);
            }
        }
    };
    notify(&[NotifyState::Stopping]);
    stopped
}

/// Tells the service manager how the daemon is (nothing without `NOTIFY_SOCKET`); a failure
/// is logged, never fatal.
fn notify(states: &[sd_notify::NotifyState]) {
    if let Err(e) = sd_notify::notify(states) {
        tracing::warn!("telling the service manager (NOTIFY_SOCKET): {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    fn subcommands() -> Vec<String> {
        Cli::command()
            .get_subcommands()
            .filter(|c| !c.is_hide_set())
            .map(|c| c.get_name().to_owned())
            .collect()
    }

    /// Every shell's script completes every subcommand.
    #[test]
    fn completion_scripts_name_every_subcommand() {
        use clap_complete::Shell;
        for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
            let mut out = Vec::new();
            completions(shell, &mut out);
            let text = String::from_utf8(out).unwrap();
            for name in subcommands() {
                assert!(text.contains(&name), "{shell}: no {name}");
            }
        }
    }

    #[test]
    fn the_manual_page_names_every_subcommand() {
        let mut out = Vec::new();
        man(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.starts_with(".ie") || text.contains(".TH schedtcp 1"),
            "{text}"
        );
        let names = subcommands();
        assert!(names.iter().any(|n| n == "server"), "{names:?}");
        for name in names {
            // roff escapes the hyphen.
            assert!(text.contains(&name.replace('-', "\\-")), "no {name}");
        }
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

    /// `example-config` lists every key of `[tuning]` (and on the client `[admission]`) with
    /// the default the types have, and reads back as what it says.
    #[test]
    fn example_config_lists_every_knob_with_its_default() {
        let c = tunnel::ClientConfig::from_toml(&example_config("client").unwrap()).unwrap();
        let s = tunnel::ServerConfig::from_toml(&example_config("server").unwrap()).unwrap();
        let d = tunnel::config::Tuning::default();
        for t in [&c.tuning, &s.tuning] {
            assert_eq!(t.core, d.core);
            assert_eq!(t.notsent_lowat, d.notsent_lowat);
        }
        assert_eq!(c.admission, gtcp::admission::AdmissionConfig::default());
        let text = example_config("server").unwrap();
        for key in [
            "keepalive_secs = 5",
            "dead_peer_secs = 15",
            "send_buffer = 1048576",
        ] {
            assert!(text.contains(key), "{key} missing from\n{text}");
        }
    }
}
