//! `schedtcp throughput`: its arguments; the benchmark itself is `lab::throughput`.

use std::path::PathBuf;

use anyhow::{Context, Result};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Numbers of parallel bulk flows to measure.
    #[arg(long, value_delimiter = ',', default_value = "1,64")]
    pub flows: Vec<usize>,
    /// Directions: `down` (the target sends), `up` (the application sends).
    #[arg(long, value_delimiter = ',', default_value = "down,up", value_parser = ["down", "up"])]
    pub directions: Vec<String>,
    /// Policies of the tunnel (one client/server pair each).
    #[arg(long, value_delimiter = ',', default_value = "tcp,srpt")]
    pub policies: Vec<String>,
    /// Seconds counted per cell (after the warm-up).
    #[arg(long, default_value_t = 3.0)]
    pub seconds: f64,
    /// Seconds a cell's flows run before counting starts.
    #[arg(long, default_value_t = 1.0)]
    pub warmup: f64,
    /// Times the whole table is measured (each repeat is its own side-by-side comparison).
    #[arg(long, default_value_t = 1)]
    pub repeat: usize,
    /// The socat program for the relay chain; the chain is skipped when it cannot be run.
    #[arg(long, default_value = "socat")]
    pub socat: String,
    /// Leave out the socat chain even when socat is installed.
    #[arg(long)]
    pub no_socat: bool,
    /// Another schedtcp executable (an earlier build) whose tunnel is measured too, beside
    /// this one's: a before/after comparison in one run.
    #[arg(long)]
    pub baseline_exe: Option<PathBuf>,
    /// Keep the work directory (the relays' configurations and logs) and print its path.
    #[arg(long)]
    pub keep: bool,
    /// Also measure each policy's tunnel without the record layer (`integrity = false`), in
    /// the same run: the cost of authenticating every byte, as a ratio.
    #[arg(long)]
    pub compare_integrity: bool,
    /// Worker threads of every tunnel relay (`tuning.threads`; 0, the default, leaves the
    /// relays' own default: one per core). A `--baseline-exe` older than the setting refuses it.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
}

impl Args {
    /// The benchmark's options; `exe` is the schedtcp executable whose tunnel is measured.
    fn options(self, exe: PathBuf) -> lab::throughput::Options {
        lab::throughput::Options {
            flows: self.flows,
            directions: self.directions,
            policies: self.policies,
            seconds: self.seconds,
            warmup: self.warmup,
            repeat: self.repeat,
            socat: self.socat,
            no_socat: self.no_socat,
            exe,
            baseline_exe: self.baseline_exe,
            keep: self.keep,
            compare_integrity: self.compare_integrity,
            threads: self.threads,
        }
    }
}

/// Runs the benchmark on this executable's tunnel until done or SIGINT/SIGTERM.
pub fn run(args: Args) -> Result<()> {
    let exe = std::env::current_exe().context("locating the schedtcp executable")?;
    crate::runtime(0)?.block_on(lab::throughput::run(
        args.options(exe),
        crate::shutdown_signal(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(clap::Parser, Debug)]
    struct Cmd {
        #[command(flatten)]
        args: Args,
    }

    #[test]
    fn by_default_one_and_64_flows_both_ways_under_tcp_and_srpt_beside_socat() {
        let a = Cmd::try_parse_from(["throughput"]).expect("defaults").args;
        assert_eq!(a.flows, [1, 64]);
        assert_eq!(a.directions, ["down", "up"]);
        assert_eq!(a.policies, ["tcp", "srpt"]);
        assert_eq!(a.socat, "socat");
        assert!(!a.no_socat);
        assert!(a.seconds > 0.0 && a.seconds <= 10.0, "a cell stays short");
        assert_eq!(a.repeat, 1);
    }

    #[test]
    fn lists_and_bounds_are_parsed_and_unknown_directions_refused() {
        let a = Cmd::try_parse_from([
            "throughput",
            "--flows",
            "2,8",
            "--directions",
            "up",
            "--policies",
            "fair",
            "--seconds",
            "0.5",
            "--repeat",
            "3",
            "--no-socat",
        ])
        .expect("options")
        .args;
        assert_eq!(a.flows, [2, 8]);
        assert_eq!(a.directions, ["up"]);
        assert_eq!(a.policies, ["fair"]);
        assert_eq!(a.repeat, 3);
        assert!(a.no_socat);
        assert!(Cmd::try_parse_from(["throughput", "--directions", "sideways"]).is_err());
    }
}
