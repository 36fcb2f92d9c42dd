//! What the demo measured, how it judges it, and how it shows it: the compact terminal
//! table, the one-line verdict, and the report folder's `summary.md`, `demo.csv` and
//! `ratios.svg`.

use std::path::Path;

use crate::engine::ratio::{Interval, Verdict};
use crate::plot::{render_svg, LinePlot, Series};
use anyhow::{Context, Result};
use serde::Serialize;

/// A long plain-TCP download through the same bottleneck as the workload: its share of the
/// bytes that crossed the bottleneck (competitor's over competitor's + the workload's), over
/// the runs, and the change of that share against the tunnel's `tcp` policy on the same
/// sample path (percentage points, per run, then the interval).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Competitor {
    pub share: Interval,
    pub delta: Interval,
}

/// One run of a competitor experiment (`runs.csv` of lab's `nonintrusive` and
/// `testbed-nonintrusive`).
#[derive(Debug, Clone, serde::Deserialize)]
pub struct CompetitorRun {
    pub run: usize,
    #[serde(alias = "variant")]
    pub config: String,
    pub competitor_bytes: u64,
    pub pair_bytes: u64,
}

/// The competitor of `config`, against `reference`'s on the same runs.
pub fn competitor(runs: &[CompetitorRun], config: &str, reference: &str) -> Option<Competitor> {
    let share = |r: &CompetitorRun| {
        r.competitor_bytes as f64 / (r.competitor_bytes + r.pair_bytes).max(1) as f64
    };
    let ours: Vec<&CompetitorRun> = runs.iter().filter(|r| r.config == config).collect();
    if ours.is_empty() {
        return None;
    }
    let delta: Vec<f64> = ours
        .iter()
        .filter_map(|o| {
            let base = runs
                .iter()
                .find(|r| r.run == o.run && r.config == reference)?;
            Some(share(o) - share(base))
        })
        .collect();
    Some(Competitor {
        share: Interval::of(&ours.iter().map(|r| share(r)).collect::<Vec<_>>()),
        delta: Interval::of(&delta),
    })
}

impl Competitor {
    /// `20.1% (−0.3 ±4.7)`: the share and its change in points.
    fn show(&self, reference: bool) -> String {
        if reference {
            format!("{:.1}%", self.share.mean * 100.0)
        } else if self.delta.half.is_finite() {
            format!(
                "{:.1}% ({:+.1} ±{:.1})",
                self.share.mean * 100.0,
                self.delta.mean * 100.0,
                self.delta.half * 100.0
            )
        } else {
            format!(
                "{:.1}% ({:+.1})",
                self.share.mean * 100.0,
                self.delta.mean * 100.0
            )
        }
    }
}

/// One policy's line of a measured part (simulator or testbed).
#[derive(Debug, Clone)]
pub struct PolicyRow {
    /// `srpt`, `fair`, … or `tcp (tunnel)`: the tunnel with its `tcp` policy.
    pub policy: String,
    /// Flows offered and flows completed, over all repeats.
    pub flows: usize,
    pub done: usize,
    /// Mean completion time over tcp's on the same flows, with its 95% interval.
    pub ratio: Interval,
    /// The per-repeat ratios (for the plot).
    pub ratios: Vec<f64>,
    pub verdict: Verdict,
    /// The fluid ideal of the policy on the same flows: mean response time over fluid PS's.
    pub fluid: Option<f64>,
    /// The plain-TCP competitor beside the same workload under this policy.
    pub competitor: Option<Competitor>,
    /// Pool connections that checked the per-connection invariant, and violated it.
    pub checked: u64,
    pub violated: u64,
    /// Byte checks that failed: protocol/API errors, payload mismatches, failed flows,
    /// carried bytes different from the flows' bytes.
    pub byte_errors: u64,
}

impl PolicyRow {
    pub fn ok(&self) -> bool {
        self.violated == 0 && self.byte_errors == 0 && self.done == self.flows
    }
}

/// A measured part: the same flows under plain TCP and under each policy.
#[derive(Debug, Clone)]
pub struct Part {
    /// `simulator` or `testbed`.
    pub name: &'static str,
    /// One line: what ran.
    pub setup: String,
    /// What the ratios are relative to (`tcp (plain)`: no tunnel; `tcp (tunnel)`: the
    /// tunnel's `tcp` policy), its mean completion time in seconds, and the repeats.
    pub base: &'static str,
    pub tcp_mean_s: f64,
    /// The A/A row (no policy acting), if the part has one, then the policies.
    pub rows: Vec<PolicyRow>,
    /// The competitor beside the workload without the tunnel (simulator only).
    pub competitor_plain: Option<Competitor>,
    /// The sub-reports, relative to the report folder.
    pub reports: Vec<String>,
}

/// The loopback check of one policy.
#[derive(Debug, Clone, Serialize)]
pub struct LoopbackRow {
    pub policy: String,
    pub flows: usize,
    /// Flows whose download and upload arrived intact (checked byte by byte / by SHA-256).
    pub intact: usize,
    pub checked: u64,
    pub violated: u64,
    /// Payload bytes the server's connections carried, and what the flows' downloads
    /// (plus each flow's 32-byte digest) add up to; the same for the client's uploads.
    pub server_payload: u64,
    pub download_bytes: u64,
    pub client_payload: u64,
    pub upload_bytes: u64,
}

impl LoopbackRow {
    pub fn ok(&self) -> bool {
        self.intact == self.flows
            && self.violated == 0
            && self.checked > 0
            && self.server_payload == self.download_bytes
            && self.client_payload == self.upload_bytes
    }
}

/// Everything the demo measured.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub parts: Vec<Part>,
    pub loopback: Vec<LoopbackRow>,
}

impl Outcome {
    /// Every flow done, every invariant held, every byte check passed.
    pub fn ok(&self) -> bool {
        self.parts.iter().flat_map(|p| &p.rows).all(PolicyRow::ok)
            && self.loopback.iter().all(LoopbackRow::ok)
    }

    /// One line: which policies finish flows faster beyond the noise, whether the
    /// competitor kept its share, and whether every check held.
    pub fn verdict(&self) -> String {
        let mut parts = Vec::new();
        for p in &self.parts {
            let pick = |v: Verdict| -> Vec<String> {
                p.rows
                    .iter()
                    .filter(|r| r.verdict == v && !r.policy.starts_with("tcp"))
                    .map(|r| format!("{} {:.2}×", r.policy.to_uppercase(), r.ratio.mean))
                    .collect()
            };
            let (f, s) = (pick(Verdict::Faster), pick(Verdict::Slower));
            let mut line = format!("{}: ", p.name);
            line += &if f.is_empty() {
                "no policy faster than tcp beyond noise".to_string()
            } else {
                format!("faster than tcp beyond noise: {}", f.join(", "))
            };
            if !s.is_empty() {
                line += &format!("; slower: {}", s.join(", "));
            }
            let base = p.rows.iter().find_map(|r| {
                r.policy
                    .starts_with("tcp")
                    .then_some(r.competitor)
                    .flatten()
            });
            let comp: Vec<(&str, Competitor)> = p
                .rows
                .iter()
                .filter(|r| !r.policy.starts_with("tcp"))
                .filter_map(|r| Some((r.policy.as_str(), r.competitor?)))
                .collect();
            if let (Some(base), false) = (base, comp.is_empty()) {
                let moved: Vec<String> = comp
                    .iter()
                    .filter(|(_, c)| c.delta.lo() > 0.0 || c.delta.hi() < 0.0)
                    .map(|(n, c)| {
                        format!("{} {:+.1} points", n.to_uppercase(), c.delta.mean * 100.0)
                    })
                    .collect();
                let (lo, hi) = comp
                    .iter()
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), (_, c)| {
                        (a.min(c.share.mean), b.max(c.share.mean))
                    });
                line += &format!(
                    "; a plain-TCP competitor's share: {:.1}% under tcp, {:.1}–{:.1}% under the policies, ",
                    base.share.mean * 100.0,
                    lo * 100.0,
                    hi * 100.0
                );
                line += &if moved.is_empty() {
                    "no change beyond noise".to_string()
                } else {
                    format!("changed beyond noise under {}", moved.join(", "))
                };
            }
            parts.push(line);
        }
        let checked: u64 = self
            .parts
            .iter()
            .flat_map(|p| &p.rows)
            .map(|r| r.checked)
            .sum::<u64>()
            + self.loopback.iter().map(|r| r.checked).sum::<u64>();
        let tail = if self.ok() {
            format!("every flow done, invariant held on {checked} connections, bytes intact")
        } else {
            "A CHECK FAILED (flows not done, invariant or bytes): see the table".to_string()
        };
        format!("Verdict — {}; {tail}.", parts.join(". "))
    }
}

/// The compact terminal tables.
pub fn terminal(o: &Outcome) -> String {
    let mut s = String::new();
    for p in &o.parts {
        s += &format!("{} — {}\n", title(p.name), p.setup);
        s += &format!(
            "{:<13} {:>11}  {:<22} {:<12} {:>6}  {:<24} {}\n",
            "policy",
            "flows done",
            "mean time / tcp (95%)",
            "verdict",
            "ideal",
            "competitor share (Δ pts)",
            "invariant"
        );
        s += &format!(
            "{:<13} {:>11}  {:<22} {:<12} {:>6}  {:<24} {}\n",
            p.base,
            "",
            format!("1 (= {:.2} s)", p.tcp_mean_s),
            "",
            "1",
            p.competitor_plain.map_or(String::new(), |c| c.show(false)),
            ""
        );
        for r in &p.rows {
            s += &format!(
                "{:<13} {:>11}  {:<22} {:<12} {:>6}  {:<24} {}\n",
                r.policy,
                format!("{}/{}", r.done, r.flows),
                r.ratio.show(2),
                r.verdict.word(),
                r.fluid.map_or("—".into(), |x| format!("{x:.2}")),
                r.competitor
                    .map_or("—".into(), |c| c.show(r.policy.starts_with("tcp"))),
                invariant_word(r.checked, r.violated, r.byte_errors)
            );
        }
        s.push('\n');
    }
    if !o.loopback.is_empty() {
        s += "loopback — the tunnel (the server and client the binaries run) on 127.0.0.1 with \
              an embedded target: an invariant and bytes check, not a timing (no bottleneck)\n";
        s += &format!(
            "{:<13} {:>13}  {:<28} {}\n",
            "policy", "flows intact", "bytes carried = flows' bytes", "invariant"
        );
        for r in &o.loopback {
            let bytes = r.server_payload == r.download_bytes && r.client_payload == r.upload_bytes;
            s += &format!(
                "{:<13} {:>13}  {:<28} {}\n",
                r.policy,
                format!("{}/{}", r.intact, r.flows),
                if bytes {
                    format!(
                        "yes ({:.1} MB)",
                        (r.download_bytes + r.upload_bytes) as f64 / 1e6
                    )
                } else {
                    format!(
                        "NO ({}/{} down, {}/{} up)",
                        r.server_payload, r.download_bytes, r.client_payload, r.upload_bytes
                    )
                },
                invariant_word(r.checked, r.violated, 0)
            );
        }
        s.push('\n');
    }
    // Empty last columns leave padding behind: no line ends in spaces.
    s.lines().map(|l| l.trim_end().to_owned() + "\n").collect()
}

fn title(name: &str) -> &'static str {
    match name {
        "simulator" => "simulator",
        _ => "testbed (real TCP)",
    }
}

fn invariant_word(checked: u64, violated: u64, errors: u64) -> String {
    match (violated, errors) {
        (0, 0) if checked > 0 => format!("held ({checked} conns)"),
        (0, 0) => "NOT CHECKED (no connection closed)".into(),
        (v, e) => format!("FAILED ({v} violated, {e} byte errors)"),
    }
}

/// One line of `demo.csv`.
#[derive(Serialize)]
struct CsvRow<'a> {
    part: &'a str,
    policy: &'a str,
    flows: usize,
    done: usize,
    ratio_to_tcp_mean: f64,
    ratio_to_tcp_ci95: f64,
    repeats: usize,
    verdict: Verdict,
    fluid_ratio_to_ps: Option<f64>,
    competitor_share: Option<f64>,
    competitor_share_delta: Option<f64>,
    competitor_share_delta_ci95: Option<f64>,
    invariant_checked: u64,
    invariant_violated: u64,
    byte_errors: u64,
    tcp_mean_s: f64,
}

/// Writes `summary.md`, `demo.csv`, `loopback.csv` and `ratios.svg` into `dir`.
pub fn write(dir: &Path, o: &Outcome, how: &str) -> Result<()> {
    let mut w = csv::Writer::from_path(dir.join("demo.csv")).context("creating demo.csv")?;
    for p in &o.parts {
        for r in &p.rows {
            w.serialize(CsvRow {
                part: p.name,
                policy: &r.policy,
                flows: r.flows,
                done: r.done,
                ratio_to_tcp_mean: r.ratio.mean,
                ratio_to_tcp_ci95: r.ratio.half,
                repeats: r.ratio.n,
                verdict: r.verdict,
                fluid_ratio_to_ps: r.fluid,
                competitor_share: r.competitor.map(|c| c.share.mean),
                competitor_share_delta: r.competitor.map(|c| c.delta.mean),
                competitor_share_delta_ci95: r.competitor.map(|c| c.delta.half),
                invariant_checked: r.checked,
                invariant_violated: r.violated,
                byte_errors: r.byte_errors,
                tcp_mean_s: p.tcp_mean_s,
            })
            .context("writing demo.csv")?;
        }
    }
    w.flush().context("writing demo.csv")?;
    if !o.loopback.is_empty() {
        let mut w =
            csv::Writer::from_path(dir.join("loopback.csv")).context("creating loopback.csv")?;
        for r in &o.loopback {
            w.serialize(r).context("writing loopback.csv")?;
        }
        w.flush().context("writing loopback.csv")?;
    }
    let mut plots = Vec::new();
    for p in &o.parts {
        let file = format!("ratios_{}.svg", p.name);
        ratio_plot(p, &dir.join(&file))?;
        plots.push(format!("![{} ratios]({file})", p.name));
    }
    let mut md = format!(
        "# `schedtcp demo`\n\n{how}\n\n## The terminal table\n\n```text\n{}{}\n```\n\n",
        terminal(o),
        o.verdict()
    );
    md += "**How to read it.** `mean time / tcp`: the mean completion time of the same flows \
under the policy over under `tcp`, ± the half-width of its 95% interval (simulator: Student-t \
over independent runs, each run's ratio of means; testbed: a paired bootstrap over the flows, \
each flow's completion time averaged over the repeats). `verdict`: *faster* (*slower*) only when that whole interval lies \
below (above) 1 by more than the noise margin: none in the simulator, whose interval is over \
independent runs; on the testbed, how far `tcp (A/A)` — tcp's even repeats against its odd \
ones, nothing scheduled — reaches from 1. `tcp (tunnel)` in the simulator is the tunnel \
carrying the same flows while scheduling nothing: what the implementation changes by itself. `ideal`: the fluid model of the same flows (perfect \
sharing and pre-emption), mean response time over fluid PS's. `competitor share`: a long \
plain-TCP download through the same bottleneck beside the same kind of workload, its share of \
the bytes that crossed the bottleneck, and in brackets the change against the tunnel's `tcp` \
on the same sample path, in percentage points ± its 95% interval (0 = the pair took exactly \
plain TCP's share whatever its policy: paper 000, Proposition 1). \
`invariant`: pool connections that closed with exactly their own flow's bytes carried \
(Algorithm 4's virtual queue emptied).\n\n";
    for p in &o.parts {
        md += &format!(
            "## {}\n\n{}\n\nFull reports (paper numbers beside ours, per-flow tables, CSV, \
plots): {}.\n\n{}\n\n",
            title(p.name),
            p.setup,
            p.reports
                .iter()
                .map(|r| format!("[{r}]({r}/summary.md)"))
                .collect::<Vec<_>>()
                .join(", "),
            plots.iter().find(|x| x.contains(p.name)).map_or("", |x| x)
        );
    }
    md += "Files: `demo.csv` (the table as numbers), `loopback.csv`, `ratios_*.svg`, and each \
part's own folder.\n";
    std::fs::write(dir.join("summary.md"), md).context("writing summary.md")
}

/// Per-repeat ratios (dots) and their means (markers) by policy, against 1.
fn ratio_plot(p: &Part, file: &Path) -> Result<()> {
    let x = |k: usize| (k + 1) as f64;
    let dots = p
        .rows
        .iter()
        .enumerate()
        .flat_map(|(k, r)| r.ratios.iter().map(move |&v| (x(k), v)))
        .collect();
    let means = p
        .rows
        .iter()
        .enumerate()
        .map(|(k, r)| (x(k), r.ratio.mean))
        .collect();
    let ideal = p
        .rows
        .iter()
        .enumerate()
        .filter_map(|(k, r)| Some((x(k), r.fluid?)))
        .collect();
    render_svg(
        &LinePlot {
            title: format!(
                "{}: mean completion time / tcp's; x: {}",
                title(p.name),
                p.rows
                    .iter()
                    .enumerate()
                    .map(|(k, r)| format!("{} = {}", k + 1, r.policy))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            x_label: "policy".into(),
            y_label: "mean completion time / tcp's".into(),
            series: vec![
                Series::dots("per repeat", dots),
                Series::markers("mean", means),
                Series::markers("fluid ideal (vs PS)", ideal),
                Series::dashed("tcp", vec![(0.5, 1.0), (p.rows.len() as f64 + 0.5, 1.0)]),
            ],
            ..Default::default()
        },
        file,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iv(mean: f64, half: f64) -> Interval {
        Interval { mean, half, n: 8 }
    }

    #[test]
    fn verdict_words_need_the_interval_clear_of_one_and_of_the_noise_margin() {
        assert_eq!(Verdict::judge(&iv(0.6, 0.05), 0.0), Verdict::Faster);
        assert_eq!(Verdict::judge(&iv(0.9, 0.05), 0.0), Verdict::Faster);
        assert_eq!(Verdict::judge(&iv(0.9, 0.2), 0.0), Verdict::WithinNoise);
        assert_eq!(Verdict::judge(&iv(1.2, 0.1), 0.0), Verdict::Slower);
        // A/A 0.96 ± 0.02 reaches 0.06 from 1: 0.91 ± 0.04 does not clear it, 0.85 does.
        let m = Verdict::aa_margin(&iv(0.96, 0.02));
        assert!((m - 0.06).abs() < 1e-12);
        assert_eq!(Verdict::judge(&iv(0.91, 0.04), m), Verdict::WithinNoise);
        assert_eq!(Verdict::judge(&iv(0.85, 0.04), m), Verdict::Faster);
        assert_eq!(Verdict::judge(&iv(1.05, 0.01), m), Verdict::WithinNoise);
        assert_eq!(Verdict::judge(&iv(1.2, 0.1), m), Verdict::Slower);
        assert_eq!(Verdict::judge(&iv(0.5, f64::NAN), 0.0), Verdict::Undecided);
        assert_eq!(Verdict::judge(&iv(0.5, 0.01), f64::NAN), Verdict::Undecided);
    }

    #[test]
    fn a_violation_a_byte_error_or_an_unfinished_flow_fails_the_demo() {
        let row = PolicyRow {
            policy: "srpt".into(),
            flows: 10,
            done: 10,
            ratio: iv(0.6, 0.05),
            ratios: vec![],
            verdict: Verdict::Faster,
            fluid: None,
            competitor: None,
            checked: 10,
            violated: 0,
            byte_errors: 0,
        };
        let lb = LoopbackRow {
            policy: "srpt".into(),
            flows: 3,
            intact: 3,
            checked: 6,
            violated: 0,
            server_payload: 100,
            download_bytes: 100,
            client_payload: 40,
            upload_bytes: 40,
        };
        let part = |r: PolicyRow| Part {
            name: "simulator",
            setup: String::new(),
            base: "tcp (plain)",
            tcp_mean_s: 1.0,
            rows: vec![r],
            competitor_plain: None,
            reports: vec![],
        };
        let o = |r: PolicyRow, l: LoopbackRow| Outcome {
            parts: vec![part(r)],
            loopback: vec![l],
        };
        assert!(o(row.clone(), lb.clone()).ok());
        let bad = [
            PolicyRow {
                violated: 1,
                ..row.clone()
            },
            PolicyRow {
                byte_errors: 1,
                ..row.clone()
            },
            PolicyRow {
                done: 9,
                ..row.clone()
            },
        ];
        for r in bad {
            assert!(!o(r, lb.clone()).ok());
        }
        let bad = [
            LoopbackRow {
                intact: 2,
                ..lb.clone()
            },
            LoopbackRow {
                violated: 1,
                ..lb.clone()
            },
            LoopbackRow {
                checked: 0,
                ..lb.clone()
            },
            LoopbackRow {
                server_payload: 99,
                ..lb.clone()
            },
            LoopbackRow {
                client_payload: 41,
                ..lb.clone()
            },
        ];
        for l in bad {
            assert!(!o(row.clone(), l).ok());
        }
    }

    #[test]
    fn the_bootstrap_interval_is_the_ratio_of_sums_and_shrinks_with_agreement() {
        let base: Vec<f64> = (1..=50).map(f64::from).collect();
        let half: Vec<(f64, f64)> = base.iter().map(|&a| (a, a / 2.0)).collect();
        let i = Interval::bootstrap_ratio(&half);
        assert!((i.mean - 0.5).abs() < 1e-12 && i.half < 1e-9, "{i:?}");
        // Noisy pairs: the same ratio of sums, a wider interval.
        let noisy: Vec<(f64, f64)> = base
            .iter()
            .enumerate()
            .map(|(k, &a)| (a, if k % 2 == 0 { a * 0.2 } else { a * 0.8 }))
            .collect();
        let j = Interval::bootstrap_ratio(&noisy);
        assert!(j.half > 0.02 && j.lo() < 0.5 && j.hi() > 0.5, "{j:?}");
        assert!(Interval::bootstrap_ratio(&[(1.0, 2.0)]).half.is_nan());
    }

    #[test]
    fn intervals_come_from_the_repeats() {
        let i = Interval::of(&[0.5, 0.7]);
        assert!((i.mean - 0.6).abs() < 1e-12);
        // t(1) = 12.706, s = 0.1414, n = 2: 12.706 · 0.1 = 1.2706.
        assert!((i.half - 1.2706).abs() < 1e-3);
        assert!(Interval::of(&[0.5]).half.is_nan());
    }
}
