//! `schedtcp demo`: its arguments; the demo itself is `lab::demo`.

use std::path::PathBuf;

use anyhow::Result;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Folder for the full report (default: a new `schedtcp-demo-*` folder in the system's
    /// temporary directory).
    #[arg(long)]
    out: Option<PathBuf>,
    /// The demo without root even as root: the packet simulator and the tunnel on loopback.
    #[arg(long)]
    loopback: bool,
    /// The smallest variant (seconds; what the CI test runs).
    #[arg(long)]
    quick: bool,
    /// Seed of the workloads (each experiment's own by default).
    #[arg(long)]
    seed: Option<u64>,
}

/// Runs the demo; errors when a check failed (after printing the table).
pub fn run(args: Args) -> Result<()> {
    lab::demo::run(&lab::demo::Options {
        out: args.out,
        loopback: args.loopback,
        quick: args.quick,
        seed: args.seed,
    })
}
