//! `schedtcp trace ...`: how much of a network's TCP traffic can be scheduled, from packet
//! captures (the `trace` crate does the work; this parses arguments, prints, writes files).

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use lab::plot::{render_svg, LinePlot, Series};

#[derive(Subcommand)]
pub enum Cmd {
    /// Paper 000's Table 1: routes (host pairs), flows and volume, total and competing (two
    /// flows of a route compete when their activity, first to last data segment, overlaps),
    /// and the distribution of the number of concurrent flows on a route.
    Schedulable {
        #[command(flatten)]
        input: Input,
        /// Also analyse the capture in windows of this many seconds, each as its own capture.
        #[arg(long)]
        window: Option<f64>,
        /// Table 1 (per window, then the total) as CSV.
        #[arg(long)]
        csv: Option<PathBuf>,
        /// The concurrency distribution as CSV.
        #[arg(long)]
        concurrency_csv: Option<PathBuf>,
        /// The concurrency distribution as an SVG plot.
        #[arg(long)]
        svg: Option<PathBuf>,
    },
    /// Paper 000's Figure 3: the CDF of data-segment sizes and the share of full-sized
    /// segments per MSS seen.
    Segments {
        #[command(flatten)]
        input: Input,
        /// The CDF as CSV.
        #[arg(long)]
        csv: Option<PathBuf>,
        /// The CDF as an SVG plot.
        #[arg(long)]
        svg: Option<PathBuf>,
    },
    /// The flow list (arrival, size, route) in the simulator's trace format
    /// (`[workload] kind = "trace"`, one source per route) or the testbed's (`trace = "..."`
    /// in a testbed-table2 scenario).
    Flows {
        #[command(flatten)]
        input: Input,
        /// Output file.
        #[arg(long, short)]
        out: PathBuf,
        /// `sim`: `arrival_s,size_bytes,source`; `testbed`: `start_seconds,bytes` (one pair).
        #[arg(long, value_enum, default_value_t = Format::Sim)]
        format: Format,
    },
}

/// Flow-list formats.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The simulator's trace workload.
    Sim,
    /// The testbed's trace.
    Testbed,
}

/// The captures and the connection timeout.
#[derive(Args)]
pub struct Input {
    /// pcap or pcapng files, plain or gzip; several are read in order as one capture.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// A connection silent for this many seconds is over (bounds memory by the connections
    /// alive at once).
    #[arg(long, default_value_t = 60.0)]
    idle_timeout: f64,
}

fn seconds_to_ns(s: f64, what: &str) -> Result<i64> {
    if !(s.is_finite() && s > 0.0 && s < 1e9) {
        bail!("{what} must be a positive number of seconds, got {s}");
    }
    Ok((s * 1e9) as i64)
}

fn analyse(
    input: &Input,
    window: Option<f64>,
    keep_flows: bool,
) -> Result<(trace::Report, Vec<trace::ReadError>)> {
    let cfg = trace::Config {
        idle_timeout_ns: seconds_to_ns(input.idle_timeout, "--idle-timeout")?,
        window_ns: window.map(|w| seconds_to_ns(w, "--window")).transpose()?,
        keep_flows,
        ..trace::Config::default()
    };
    Ok(trace::analyze_files(&input.files, cfg))
}

fn create(path: &Path) -> Result<BufWriter<File>> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    Ok(BufWriter::new(
        File::create(path).with_context(|| format!("creating {}", path.display()))?,
    ))
}

/// After the outputs are written: read errors make the command fail (what was read counted).
fn conclude(errors: Vec<trace::ReadError>) -> Result<()> {
    if errors.is_empty() {
        return Ok(());
    }
    for e in &errors {
        eprintln!("error: {e}");
    }
    bail!(
        "{} file(s) could not be read to the end; the results above count the packets before the damage",
        errors.len()
    )
}

pub fn run(cmd: Cmd) -> Result<()> {
    match cmd {
        Cmd::Schedulable {
            input,
            window,
            csv,
            concurrency_csv,
            svg,
        } => {
            let (report, errors) = analyse(&input, window, false)?;
            print!("{}", trace::output::schedulable_text(&report));
            if let Some(p) = csv {
                trace::output::schedulable_csv(&report, &mut create(&p)?)
                    .with_context(|| format!("writing {}", p.display()))?;
            }
            if let Some(p) = concurrency_csv {
                trace::output::concurrency_csv(&report.total, &mut create(&p)?)
                    .with_context(|| format!("writing {}", p.display()))?;
            }
            if let Some(p) = svg {
                let points: Vec<(f64, f64)> = report
                    .total
                    .concurrency_shares()
                    .into_iter()
                    .map(|(n, s)| (n as f64, s))
                    .collect();
                if points.is_empty() {
                    eprintln!("no flow with data: no plot written");
                } else {
                    let plot = LinePlot {
                        title: "Concurrent flows on a route (time-weighted)".into(),
                        x_label: "active flows on the route".into(),
                        y_label: "share of active route time".into(),
                        log_y: true,
                        series: vec![Series::markers("capture", points)],
                        ..LinePlot::default()
                    };
                    render_svg(&plot, &p)?;
                }
            }
            conclude(errors)
        }
        Cmd::Segments { input, csv, svg } => {
            let (report, errors) = analyse(&input, None, false)?;
            print!("{}", trace::output::segments_text(&report.segments));
            if let Some(p) = csv {
                trace::output::segments_csv(&report.segments, &mut create(&p)?)
                    .with_context(|| format!("writing {}", p.display()))?;
            }
            if let Some(p) = svg {
                let cdf = report.segments.cdf();
                if cdf.is_empty() {
                    eprintln!("no data segment: no plot written");
                } else {
                    // A step function: the CDF is flat between sizes that occur.
                    let mut points = vec![(0.0, 0.0)];
                    let mut prev = 0.0;
                    for (size, p) in cdf {
                        points.push((f64::from(size), prev));
                        points.push((f64::from(size), p));
                        prev = p;
                    }
                    let plot = LinePlot {
                        title: "TCP data-segment sizes (cf. paper 000, Figure 3)".into(),
                        x_label: "segment size (bytes of payload)".into(),
                        y_label: "P(size <= x)".into(),
                        series: vec![Series::line("capture", points)],
                        y_range: Some((0.0, 1.0)),
                        ..LinePlot::default()
                    };
                    render_svg(&plot, &p)?;
                }
            }
            conclude(errors)
        }
        Cmd::Flows { input, out, format } => {
            let (report, errors) = analyse(&input, None, true)?;
            let Some(first) = report.first_ns else {
                conclude(errors)?;
                bail!("the capture holds no packet");
            };
            let (lines, routes) = trace::flowlist::flow_list(&report.flows, first);
            let mut w = create(&out)?;
            match format {
                Format::Sim => trace::flowlist::write_flow_list(&mut w, &lines, &routes),
                Format::Testbed => trace::flowlist::write_testbed_list(&mut w, &lines),
            }
            .and_then(|()| std::io::Write::flush(&mut w))
            .with_context(|| format!("writing {}", out.display()))?;
            eprintln!(
                "{} flows on {} routes written to {}",
                lines.len(),
                routes.len(),
                out.display()
            );
            conclude(errors)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use trace::decode::{flags, linktype};
    use trace::synth::{ethernet, ipv4, PcapWriter, Tcp};

    /// Two overlapping flows on one route and one on another, through `schedtcp trace flows`:
    /// the file must load as a simulator trace with the flows' arrivals, sizes and routes.
    #[test]
    fn the_flow_list_replays_as_a_simulator_trace() {
        let mut w = PcapWriter::new(Vec::new(), linktype::ETHERNET, 96, false).unwrap();
        let mut pkt = |t_ms: i64, src: u8, dst: u8, sport: u16, dport: u16, seq: u32, len: u16| {
            let ip = ipv4(
                [10, 0, 0, src],
                [10, 0, 0, dst],
                &Tcp {
                    sport,
                    dport,
                    seq,
                    flags: flags::ACK,
                    len,
                },
            );
            w.packet(t_ms * 1_000_000, &ethernet(&ip), u32::from(len))
                .unwrap();
        };
        pkt(1000, 2, 1, 80, 5000, 1, 1448);
        pkt(1100, 2, 1, 80, 5001, 1, 1000);
        pkt(1200, 2, 1, 80, 5000, 1449, 1448);
        pkt(1300, 3, 1, 80, 5000, 1, 700);
        let bytes = w.into_inner();
        let dir = std::env::temp_dir().join(format!("schedtcp-trace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let cap = dir.join("c.pcap");
        std::fs::write(&cap, &bytes).unwrap();
        let flows_cmd = |cap: &Path, out: &Path, format| {
            run(Cmd::Flows {
                input: Input {
                    files: vec![cap.to_path_buf()],
                    idle_timeout: 60.0,
                },
                out: out.to_path_buf(),
                format,
            })
        };
        let out = dir.join("flows.csv");
        flows_cmd(&cap, &out, Format::Sim).unwrap();
        let flows = sim::workload::load_trace(&out).unwrap();
        let got: Vec<(u64, u64, u32)> = flows
            .iter()
            .map(|f| (f.arrival, f.size, f.source))
            .collect();
        assert_eq!(
            got,
            vec![
                (0, 2 * 1448, 0),
                (100_000_000, 1000, 0),
                (300_000_000, 700, 1)
            ]
        );
        // The testbed's format: one pair, `start_seconds,bytes`.
        let tb = dir.join("flows-testbed.csv");
        flows_cmd(&cap, &tb, Format::Testbed).unwrap();
        let text = std::fs::read_to_string(&tb).unwrap();
        let flows = testbed::workload::from_trace(&text).unwrap();
        assert_eq!(flows, vec![(0.0, 2 * 1448), (0.1, 1000), (0.3, 700)]);
        // Cut inside the last packet: the command fails, naming where, after writing the
        // flows read before it.
        let cut = dir.join("cut.pcap");
        std::fs::write(&cut, &bytes[..bytes.len() - 10]).unwrap();
        let e = flows_cmd(&cut, &out, Format::Sim).unwrap_err();
        assert!(
            e.to_string().contains("could not be read to the end"),
            "{e:#}"
        );
        let flows = sim::workload::load_trace(&out).unwrap();
        assert_eq!(flows.len(), 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
