//! Paper 004's mechanisms at equal throughput (Figs. 5, 6 and 7's settings): access control
//! with its M swept, adaptive access control, LEDBAT with its target delay swept, TCP-LP and
//! vanilla, each run on the same seeds; per run the background's carried fraction and the
//! short flows' delay. Each mechanism's points form a frontier (delay against carried
//! fraction); a mechanism is compared with another's frontier at its own carried fraction
//! ([`crate::engine::background::frontier`] says how), and with vanilla and with paper 004's
//! claims as they stand.

use crate::check_param;
use crate::engine::background::frontier::{ratio_at, read_at, FrontierRun, Point};
use crate::engine::background::setups::{single_link, two_links};
use crate::engine::background::{mean, run_policy, Params, Setup};
use crate::engine::md_table;
use crate::engine::verdict::{judge, Interval, Source, Verdict, Word, DIFFERENCE};
use crate::Context;
use serde::{Deserialize, Serialize};
use sim::driver::BgPolicy;
use sim::tcp::{CongestionControl, TcpConfig};
use sim::time::millis;

pub const NAME: &str = "bg-frontier";
pub const DESCRIPTION: &str =
    "Paper 004 at equal throughput: short-flow delay against the background's carried fraction, access control's M and LEDBAT's target swept, in Figs. 5-7's settings (packet level)";
pub const SCENARIO: &str = include_str!("../../scenarios/bg-frontier.toml");

/// The scenario.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Scenario {
    /// Seed of repeat 0; repeat `r` uses `seed + r` under every mechanism (paired).
    seed: u64,
    /// Repeats of every setting and mechanism.
    repeats: usize,
    /// Worker threads.
    threads: usize,
    rate_bps: f64,
    buffer_ms: f64,
    propagation_ms: f64,
    mean_size_bytes: f64,
    background_bps: f64,
    /// access-fixed's Ms, in frontier order.
    fixed_ms: Vec<u32>,
    /// LEDBAT's targets, ms, in frontier order.
    ledbat_targets_ms: Vec<f64>,
    /// A short flow of at least this size counts in a setting's large view.
    large_from_bytes: u64,
    /// The settings, each its own network and load.
    settings: Vec<Setting>,
    #[serde(default, deserialize_with = "crate::scenario::deserialize_adaptive")]
    adaptive: gtcp::admission::Adaptive,
    tcp: TcpConfig,
}

/// One setting: a figure's network at one load.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Setting {
    /// Short name (file names, table rows).
    id: String,
    /// The figure whose setting it is.
    figure: String,
    /// `single-link` (Figs. 5–6) or `two-links` (Fig. 7).
    topology: String,
    /// Long flows (single link only).
    k: usize,
    /// Short-flow load per link.
    rho: f64,
    duration_s: f64,
    warmup_s: f64,
    tail_s: f64,
    /// Also read the frontiers on the large short flows' delay.
    large_view: bool,
}

/// Most settings, Ms and targets a scenario may list (each multiplies the runs).
const MAX_LIST: usize = 64;

impl Scenario {
    fn load(ctx: &Context) -> anyhow::Result<Self> {
        let mut p: Scenario = ctx.params()?;
        p.seed = ctx.seed(p.seed);
        check_param!(
            p.repeats >= 2,
            "repeats must be >= 2 (an interval needs two)"
        );
        check_param!(p.threads >= 1, "threads must be >= 1");
        check_param!(
            !p.settings.is_empty() && p.settings.len() <= MAX_LIST,
            "settings must list 1 to {MAX_LIST} settings"
        );
        check_param!(
            p.fixed_ms.len() >= 2
                && p.fixed_ms.len() <= MAX_LIST
                && p.fixed_ms.windows(2).all(|w| w[0] < w[1])
                && p.fixed_ms.iter().all(|&m| (1..=1024).contains(&m)),
            "fixed_ms must list 2 to {MAX_LIST} increasing Ms in 1..=1024"
        );
        check_param!(
            p.ledbat_targets_ms.len() >= 2
                && p.ledbat_targets_ms.len() <= MAX_LIST
                && p.ledbat_targets_ms.windows(2).all(|w| w[0] < w[1])
                && p.ledbat_targets_ms
                    .iter()
                    .all(|&t| t > 0.0 && t <= 10_000.0),
            "ledbat_targets_ms must list 2 to {MAX_LIST} increasing targets in (0, 10000] ms"
        );
        for s in &p.settings {
            check_param!(
                s.topology == "single-link" || (s.topology == "two-links" && s.k == 0),
                "setting {}: topology must be `single-link` or `two-links` (the latter with k = 0)",
                s.id
            );
            check_param!(s.k <= 16, "setting {}: k must be at most 16", s.id);
            check_param!(
                (0.0..1.0).contains(&s.rho),
                "setting {}: rho must be in [0, 1)",
                s.id
            );
            check_param!(
                s.warmup_s >= 0.0 && s.tail_s >= 0.0 && s.duration_s > s.warmup_s + s.tail_s,
                "setting {}: need duration_s > warmup_s + tail_s >= 0",
                s.id
            );
            check_param!(
                !s.id.is_empty() && s.id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'),
                "setting ids must be letters, digits and `-` (they name files): `{}`",
                s.id
            );
        }
        // The shared checks (rates, sizes, the TCP) on every setting's parameters.
        for s in &p.settings {
            p.params(s)?;
        }
        Ok(p)
    }

    /// The figures' parameters of one setting (what a run takes).
    fn params(&self, s: &Setting) -> anyhow::Result<Params> {
        let p = Params {
            seed: self.seed,
            repeats: self.repeats,
            threads: self.threads,
            duration_s: s.duration_s,
            warmup_s: s.warmup_s,
            tail_s: s.tail_s,
            loads: vec![s.rho],
            policies: vec!["vanilla".into()],
            rate_bps: self.rate_bps,
            buffer_ms: self.buffer_ms,
            propagation_ms: self.propagation_ms,
            mean_size_bytes: self.mean_size_bytes,
            background_bps: self.background_bps,
            fixed_ms: vec![1],
            adaptive: self.adaptive,
            tcp: self.tcp.clone(),
        };
        p.checked()
    }

    fn setup(&self, p: &Params, s: &Setting) -> Setup {
        if s.topology == "two-links" {
            two_links(p, s.rho)
        } else {
            single_link(p, s.rho, s.k)
        }
    }

    /// Every setting's mechanisms, in order: vanilla, access-fixed per M, access-adaptive,
    /// LEDBAT per target, TCP-LP.
    fn variants(&self) -> Vec<Variant> {
        let mut v = vec![Variant::new(VANILLA, f64::NAN)];
        v.extend(
            self.fixed_ms
                .iter()
                .map(|&m| Variant::new(ACCESS_FIXED, f64::from(m))),
        );
        v.push(Variant::new(ADAPTIVE, f64::NAN));
        v.extend(
            self.ledbat_targets_ms
                .iter()
                .map(|&t| Variant::new(LEDBAT, t)),
        );
        v.push(Variant::new(TCP_LP, f64::NAN));
        v
    }

    fn policy(&self, v: &Variant) -> BgPolicy {
        use gtcp::admission::{AdmissionConfig, Limit};
        let access = |limit| {
            BgPolicy::Access(AdmissionConfig {
                limit,
                ..AdmissionConfig::default()
            })
        };
        match v.mechanism {
            ACCESS_FIXED => access(Limit::Fixed(v.param as u32)),
            ADAPTIVE => access(Limit::Adaptive(self.adaptive)),
            LEDBAT => BgPolicy::Lbe {
                cc: CongestionControl::Ledbat,
                ledbat_target: millis(v.param),
            },
            TCP_LP => BgPolicy::Lbe {
                cc: CongestionControl::TcpLp,
                ledbat_target: millis(25.0),
            },
            _ => BgPolicy::Vanilla,
        }
    }
}

const VANILLA: &str = "vanilla";
const ACCESS_FIXED: &str = "access-fixed";
const ADAPTIVE: &str = "access-adaptive";
const LEDBAT: &str = "ledbat";
const TCP_LP: &str = "tcp-lp";

/// The mechanisms with a swept parameter, whose points form frontiers.
const FRONTIERS: [&str; 2] = [ACCESS_FIXED, LEDBAT];

/// A mechanism with its parameter (M, LEDBAT's target in ms; NaN for none).
#[derive(Debug, Clone)]
struct Variant {
    mechanism: &'static str,
    param: f64,
    label: String,
}

impl Variant {
    fn new(mechanism: &'static str, param: f64) -> Self {
        let label = match mechanism {
            ACCESS_FIXED => format!("{mechanism} M={param}"),
            LEDBAT => format!("{mechanism} {param} ms"),
            _ => mechanism.to_string(),
        };
        Self {
            mechanism,
            param,
            label,
        }
    }
}

/// One run's row (`frontier-runs.csv`).
#[derive(Debug, Clone, Serialize)]
struct RunRow {
    setting: String,
    label: String,
    repeat: usize,
    carried: f64,
    delay_s: f64,
    delay_large_s: f64,
    flows: usize,
    large_flows: usize,
    censored: usize,
    mean_m: f64,
}

pub fn run(ctx: &Context) -> anyhow::Result<String> {
    let sc = Scenario::load(ctx)?;
    let variants = sc.variants();
    let params: Vec<Params> = sc
        .settings
        .iter()
        .map(|s| sc.params(s))
        .collect::<anyhow::Result<_>>()?;
    let (nv, nr) = (variants.len(), sc.repeats);
    let runs: Vec<FrontierRun> =
        ctx.jobs("runs", sc.settings.len() * nv * nr, sc.threads, |j| {
            let (s, v, r) = (j / (nv * nr), (j / nr) % nv, j % nr);
            let p = &params[s];
            let setup = sc.setup(p, &sc.settings[s]);
            let out = run_policy(p, &setup, sc.policy(&variants[v]), sc.seed + r as u64)?;
            Ok(FrontierRun::of(&out, sc.large_from_bytes))
        })?;
    ctx.runs_done()?;
    let rows: Vec<RunRow> = runs
        .iter()
        .enumerate()
        .map(|(j, run)| RunRow {
            setting: sc.settings[j / (nv * nr)].id.clone(),
            label: variants[(j / nr) % nv].label.clone(),
            repeat: j % nr,
            carried: run.carried,
            delay_s: run.delay_s,
            delay_large_s: run.delay_large_s,
            flows: run.flows,
            large_flows: run.large_flows,
            censored: run.censored,
            mean_m: run.mean_m,
        })
        .collect();
    ctx.write_csv("frontier-runs.csv", &rows)?;
    let mut points = Vec::new();
    let mut equal = Vec::new();
    let mut claims = Vec::new();
    for (si, s) in sc.settings.iter().enumerate() {
        let of = |v: usize| &runs[(si * nv + v) * nr..(si * nv + v + 1) * nr];
        let views: &[bool] = if s.large_view {
            &[false, true]
        } else {
            &[false]
        };
        for &large in views {
            let view = View::new(s, large, &sc);
            let series: Vec<Point> = (0..nv)
                .map(|v| Point {
                    carried: of(v).iter().map(|r| r.carried).collect(),
                    delay: of(v)
                        .iter()
                        .map(|r| if large { r.delay_large_s } else { r.delay_s })
                        .collect(),
                })
                .collect();
            let mean_m: Vec<f64> = (0..nv)
                .map(|v| mean(&of(v).iter().map(|r| r.mean_m).collect::<Vec<_>>()))
                .collect();
            let these = point_rows(&view, &variants, &series, &mean_m);
            let eq = equal_rows(&view, &variants, &series);
            claims.extend(paper_claims(&view, &these, &eq));
            plot(ctx, &view, &variants, &these)?;
            points.extend(these);
            equal.extend(eq);
        }
    }
    ctx.write_csv("frontier.csv", &points)?;
    ctx.write_csv("equal.csv", &equal)?;
    let verdicts: Vec<Verdict> = equal
        .iter()
        .filter(|e| e.ratio.is_finite())
        .map(|e| e.verdict())
        .chain(claims.iter().map(|c| c.verdict.clone()))
        .collect();
    ctx.write_json("verdicts.json", &verdicts)?;
    Ok(summary(&sc, &variants, &points, &equal, &claims))
}

/// A setting read on one delay: all short flows' or the large ones'.
struct View {
    setting: String,
    /// `all` or `large`.
    name: &'static str,
    title: String,
}

impl View {
    fn new(s: &Setting, large: bool, sc: &Scenario) -> Self {
        let net = if s.topology == "two-links" {
            "two links".to_string()
        } else {
            format!("one link, k = {}", s.k)
        };
        let flows = if large {
            format!("short flows ≥ {} MB", sc.large_from_bytes as f64 / 1e6)
        } else {
            "all short flows".to_string()
        };
        Self {
            setting: s.id.clone(),
            name: if large { "large" } else { "all" },
            title: format!("{} setting: {net}, ρ = {}; {flows}", s.figure, s.rho),
        }
    }

    fn file(&self) -> String {
        if self.name == "all" {
            format!("frontier-{}.svg", self.setting)
        } else {
            format!("frontier-{}-{}.svg", self.setting, self.name)
        }
    }
}

/// One mechanism's point of a view (`frontier.csv`).
#[derive(Debug, Clone, Serialize)]
struct PointRow {
    setting: String,
    view: String,
    mechanism: String,
    param: f64,
    label: String,
    repeats: usize,
    /// Background goodput over arrivals: mean and 95% half-width over the repeats.
    carried: f64,
    carried_ci95: f64,
    /// Mean short-flow delay (s) and its 95% half-width over the repeats.
    delay_s: f64,
    delay_ci95: f64,
    /// Delay over vanilla's on the same seed: mean and 95% half-width over the repeats.
    norm_delay: f64,
    norm_delay_ci95: f64,
    /// Mean M summed over the classes (access control), else NaN.
    mean_m: f64,
}

fn point_rows(
    view: &View,
    variants: &[Variant],
    series: &[Point],
    mean_m: &[f64],
) -> Vec<PointRow> {
    let vanilla = &series[0];
    variants
        .iter()
        .zip(series)
        .zip(mean_m)
        .map(|((v, pt), &m)| {
            let carried = Interval::of(&finite(&pt.carried));
            let delay = Interval::of(&finite(&pt.delay));
            let ratios: Vec<f64> = pt
                .delay
                .iter()
                .zip(&vanilla.delay)
                .filter(|(d, r)| d.is_finite() && r.is_finite() && **r > 0.0)
                .map(|(d, r)| d / r)
                .collect();
            let norm = Interval::of(&ratios);
            PointRow {
                setting: view.setting.clone(),
                view: view.name.into(),
                mechanism: v.mechanism.into(),
                param: v.param,
                label: v.label.clone(),
                repeats: pt.delay.len(),
                carried: carried.mean,
                carried_ci95: carried.half,
                delay_s: delay.mean,
                delay_ci95: delay.half,
                norm_delay: norm.mean,
                norm_delay_ci95: norm.half,
                mean_m: m,
            }
        })
        .collect()
}

fn finite(v: &[f64]) -> Vec<f64> {
    v.iter().copied().filter(|x| x.is_finite()).collect()
}

/// One mechanism read against another's frontier at its carried fraction (`equal.csv`).
#[derive(Debug, Clone, Serialize)]
struct EqualRow {
    setting: String,
    view: String,
    label: String,
    /// The frontier's mechanism.
    frontier: String,
    /// The point's mean carried fraction, where the frontier is read.
    carried: f64,
    /// The frontier's range of mean carried fractions.
    frontier_lo: f64,
    frontier_hi: f64,
    /// The two frontier points it is read between, and the weight on the second (empty and
    /// NaN outside the range).
    between: String,
    weight: f64,
    /// The point's delay over the frontier's there, paired by repeat: mean, 95% half-width.
    ratio: f64,
    ratio_ci95: f64,
    /// [`DIFFERENCE`]'s word on ratio − 1 (`lower`: the point's delay is below the
    /// frontier's at equal carried fraction), `outside` when the frontier does not reach the
    /// point's carried fraction.
    word: String,
}

impl EqualRow {
    fn claim(&self) -> String {
        format!(
            "{} ({}) {}: delay / {} frontier's at equal carried fraction ({:.3}) − 1",
            self.setting, self.view, self.label, self.frontier, self.carried
        )
    }

    fn verdict(&self) -> Verdict {
        Verdict::new(
            self.claim(),
            None,
            Interval::new(self.ratio - 1.0, self.ratio_ci95),
            DIFFERENCE,
        )
        .from(
            Source::new(
                "equal.csv",
                "ratio",
                &[
                    ("setting", &self.setting),
                    ("view", &self.view),
                    ("label", &self.label),
                    ("frontier", &self.frontier),
                ],
            )
            .scaled(1.0, -1.0),
        )
    }
}

fn equal_rows(view: &View, variants: &[Variant], series: &[Point]) -> Vec<EqualRow> {
    let mut rows = Vec::new();
    for frontier in FRONTIERS {
        let idx: Vec<usize> = (0..variants.len())
            .filter(|&i| variants[i].mechanism == frontier)
            .collect();
        let f: Vec<Point> = idx.iter().map(|&i| series[i].clone()).collect();
        let cs: Vec<f64> = f.iter().map(Point::mean_carried).collect();
        let (lo, hi) = (
            cs.iter().copied().fold(f64::INFINITY, f64::min),
            cs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        );
        for (v, pt) in variants.iter().zip(series) {
            if v.mechanism == frontier {
                continue;
            }
            let c = pt.mean_carried();
            let reading = read_at(&f, c);
            let (between, weight, ratio) = match reading {
                Some(r) => (
                    format!(
                        "{} – {}",
                        variants[idx[r.lo]].label, variants[idx[r.hi]].label
                    ),
                    r.w,
                    ratio_at(&pt.delay, &f, r),
                ),
                None => (String::new(), f64::NAN, Interval::new(f64::NAN, f64::NAN)),
            };
            let word = if reading.is_none() {
                "outside".to_string()
            } else {
                judge(Interval::new(ratio.mean - 1.0, ratio.half), DIFFERENCE)
                    .says("lower", "higher")
            };
            rows.push(EqualRow {
                setting: view.setting.clone(),
                view: view.name.into(),
                label: v.label.clone(),
                frontier: frontier.into(),
                carried: c,
                frontier_lo: lo,
                frontier_hi: hi,
                between,
                weight,
                ratio: ratio.mean,
                ratio_ci95: ratio.half,
                word,
            });
        }
    }
    rows
}

/// A claim of paper 004 read against this run: the verdict and what it says of the paper.
struct Claim {
    verdict: Verdict,
    /// The direction the paper reports ([`Word::Lower`] or [`Word::Higher`]).
    paper: Word,
    /// The carried fractions beside it: (the mechanism's, its reference's), as text.
    carried: String,
}

impl Claim {
    /// `agrees`, `CONTRADICTS` (the interval is beyond the reference on the other side) or
    /// `undecided` (no difference beyond noise).
    fn reading(&self) -> &'static str {
        match self.verdict.word {
            w if w == self.paper => "agrees",
            Word::Lower | Word::Higher => "CONTRADICTS",
            _ => "undecided",
        }
    }
}

/// The view's label of LEDBAT at the paper's target (25 ms, the figures' `ledbat`).
const PAPER_LEDBAT: &str = "ledbat 25 ms";

/// Paper 004's claims in a view: (mechanism label, `vanilla` or a frontier, the direction,
/// the paper's words).
fn claims_of(view: &View) -> Vec<(&'static str, &'static str, Word, &'static str)> {
    use Word::{Higher, Lower};
    match (view.setting.as_str(), view.name) {
        ("fig5-k0", "all") => vec![
            (
                PAPER_LEDBAT,
                VANILLA,
                Lower,
                "Fig. 5, k = 0: LBE is always below vanilla",
            ),
            (
                TCP_LP,
                VANILLA,
                Lower,
                "Fig. 5, k = 0: LBE is always below vanilla",
            ),
            (
                PAPER_LEDBAT,
                ACCESS_FIXED,
                Higher,
                "Fig. 5, k = 0: access control better than LBE at high load (20% at ρ = 0.5)",
            ),
        ],
        ("fig5-k1", "all") => vec![
            (
                PAPER_LEDBAT,
                VANILLA,
                Higher,
                "Fig. 5, k = 1: above ρ = 0.6 LBE is worse than vanilla",
            ),
            (
                TCP_LP,
                VANILLA,
                Higher,
                "Fig. 5, k = 1: above ρ = 0.6 LBE is worse than vanilla",
            ),
            (
                ADAPTIVE,
                VANILLA,
                Lower,
                "Fig. 5, k = 1: access control keeps decreasing relative to vanilla",
            ),
        ],
        ("fig6", "large") => vec![
            (
                PAPER_LEDBAT,
                VANILLA,
                Higher,
                "Fig. 6, ρ = 0.6: LBE worse than vanilla above 1 MB",
            ),
            (
                TCP_LP,
                VANILLA,
                Higher,
                "Fig. 6, ρ = 0.6: LBE worse than vanilla above 1 MB",
            ),
            (
                ADAPTIVE,
                VANILLA,
                Lower,
                "Fig. 6, ρ = 0.6: access control better than vanilla for all sizes",
            ),
        ],
        ("fig7", "all") => vec![
            (
                PAPER_LEDBAT,
                VANILLA,
                Lower,
                "Fig. 7, ρ = 0.65: LEDBAT cuts the delay by 10%",
            ),
            (
                ADAPTIVE,
                VANILLA,
                Lower,
                "Fig. 7, ρ = 0.65: access control cuts the delay by 28%",
            ),
            (
                PAPER_LEDBAT,
                ACCESS_FIXED,
                Higher,
                "Fig. 7, ρ = 0.65: access control cuts more than LEDBAT (28% against 10%)",
            ),
        ],
        _ => Vec::new(),
    }
}

fn paper_claims(view: &View, points: &[PointRow], equal: &[EqualRow]) -> Vec<Claim> {
    let point = |label: &str| points.iter().find(|p| p.label == label);
    let show = |p: &PointRow| format!("{:.3} ± {:.3}", p.carried, p.carried_ci95);
    claims_of(view)
        .into_iter()
        .filter_map(|(label, against, paper, words)| {
            let p = point(label)?;
            if against == VANILLA {
                let v = point(VANILLA)?;
                let verdict = Verdict::new(
                    format!(
                        "{} ({}) {label}: short-flow delay / vanilla's − 1",
                        view.setting, view.name
                    ),
                    Some(words),
                    Interval::new(p.norm_delay - 1.0, p.norm_delay_ci95),
                    DIFFERENCE,
                )
                .from(
                    Source::new(
                        "frontier.csv",
                        "norm_delay",
                        &[
                            ("setting", &view.setting),
                            ("view", view.name),
                            ("label", label),
                        ],
                    )
                    .scaled(1.0, -1.0),
                );
                Some(Claim {
                    verdict,
                    paper,
                    carried: format!("carried {} (vanilla {})", show(p), show(v)),
                })
            } else {
                let e = equal
                    .iter()
                    .find(|e| e.label == label && e.frontier == against)?;
                let mut verdict = e.verdict();
                verdict.paper = Some(words.to_string());
                Some(Claim {
                    verdict,
                    paper,
                    carried: format!(
                        "carried {} (the {against} frontier: {:.3} to {:.3})",
                        show(p),
                        e.frontier_lo,
                        e.frontier_hi
                    ),
                })
            }
        })
        .collect()
}

fn plot(
    ctx: &Context,
    view: &View,
    variants: &[Variant],
    points: &[PointRow],
) -> anyhow::Result<()> {
    use crate::plot::{render_svg, LinePlot, Series};
    let xy = |mech: &str| -> Vec<(f64, f64)> {
        points
            .iter()
            .zip(variants)
            .filter(|(_, v)| v.mechanism == mech)
            .map(|(p, _)| (p.carried, p.delay_s))
            .collect()
    };
    let series = vec![
        Series::line("access-fixed (M swept)", xy(ACCESS_FIXED)),
        Series::line("ledbat (target swept)", xy(LEDBAT)),
        Series::markers("access-adaptive", xy(ADAPTIVE)),
        Series::markers("tcp-lp", xy(TCP_LP)),
        Series::markers("vanilla", xy(VANILLA)),
    ];
    render_svg(
        &LinePlot {
            title: format!("Frontiers, {}", view.title),
            x_label: "background carried fraction (goodput / arrived)".into(),
            y_label: "mean short-flow delay (s)".into(),
            series,
            ..Default::default()
        },
        &ctx.path(&view.file()),
    )
}

fn summary(
    sc: &Scenario,
    variants: &[Variant],
    points: &[PointRow],
    equal: &[EqualRow],
    claims: &[Claim],
) -> String {
    let mut s = format!(
        "# bg-frontier — paper 004's mechanisms at equal throughput\n\n\
         Packet-level simulation (`crates/sim`), Section IV-A's networks: {:.0} Mbit/s links, \
         {:.0} ms buffers, {:.0} ms propagation, exponential sizes of mean {:.1} MB, one \
         background class of {:.1} Mbit/s. In every setting each mechanism runs on the same \
         {} seeds (paired): vanilla; access control with a fixed M of {}; adaptive access \
         control; LEDBAT with a target of {} ms; TCP-LP. Per run: the background's **carried \
         fraction** (its goodput after the warm-up over the payload that arrived after it) and \
         the mean delay of the short flows. ± is the 95% interval (Student's t over the \
         repeats). Fewer repeats than the figures ({} against 16): the figures' own folders \
         hold their 16-repeat runs of the same settings.\n\n",
        sc.rate_bps / 1e6,
        sc.buffer_ms,
        sc.propagation_ms,
        sc.mean_size_bytes / 1e6,
        sc.background_bps / 1e6,
        sc.repeats,
        join(sc.fixed_ms.iter().map(|m| m.to_string())),
        join(sc.ledbat_targets_ms.iter().map(|t| t.to_string())),
        sc.repeats,
    );
    s.push_str(
        "**Equal carried fraction.** A frontier is a mechanism's curve of mean delay against \
         mean carried fraction over its swept parameter (access control's M, LEDBAT's \
         target), piecewise linear between adjacent parameter values in parameter order. \
         Another mechanism's point is compared with it at the point's own mean carried \
         fraction: the frontier is read between the first two adjacent values whose mean \
         carried fractions bracket it (weight w on the second), each repeat's frontier delay \
         is the same weighting of that repeat's two delays, and the point's delay over it is \
         paired by repeat; the interval is Student's t over the repeats and holds the delays' \
         noise, not that of the reading's position. A point outside the frontier's range of \
         carried fractions is not compared (no extrapolation). The word is the lab's one rule \
         (`verdict::judge`, a difference against 0): *lower* (the point's delay is below the \
         frontier's at equal carried fraction beyond the interval), *higher*, or no difference \
         beyond noise.\n\n",
    );
    s.push_str("Settings:\n\n");
    for st in &sc.settings {
        s.push_str(&format!(
            "- `{}` ({}): {}, ρ = {}; runs of {:.0} s, statistics after {:.0} s, short flows \
             arriving in the last {:.0} s not measured{}.\n",
            st.id,
            st.figure,
            if st.topology == "two-links" {
                "two links in a row, the background crossing both, a short-flow stream of load ρ on each".to_string()
            } else {
                format!("one link, k = {} long flow(s)", st.k)
            },
            st.rho,
            st.duration_s,
            st.warmup_s,
            st.tail_s,
            if st.large_view {
                format!(
                    "; also read on the short flows of at least {} MB (view `large`)",
                    sc.large_from_bytes as f64 / 1e6
                )
            } else {
                String::new()
            }
        ));
    }
    s.push_str("\n## Against paper 004\n\n");
    s.push_str(
        "Each claim of the paper this run can read, with the carried fractions beside it. \
         *CONTRADICTS*: our interval lies beyond the reference on the other side from the \
         paper's. Cause: not found by this run, unless the folder's README names one.\n\n",
    );
    s.push_str(&md_table(
        &["setting (view)", "paper", "ours", "carried", "reading"],
        &claims
            .iter()
            .map(|c| {
                vec![
                    c.verdict
                        .claim
                        .split(':')
                        .next()
                        .unwrap_or_default()
                        .to_string(),
                    c.verdict.paper.clone().unwrap_or_default(),
                    format!(
                        "{:+.3} ± {:.3} ({})",
                        c.verdict.ours.mean,
                        c.verdict.ours.half,
                        c.verdict.word.says("lower", "higher")
                    ),
                    c.carried.clone(),
                    c.reading().to_string(),
                ]
            })
            .collect::<Vec<_>>(),
    ));
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for p in points {
        let key = (p.setting.as_str(), p.view.as_str());
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let st = sc.settings.iter().find(|x| x.id == p.setting);
        let title = st.map_or(String::new(), |st| {
            View::new(st, p.view == "large", sc).title
        });
        s.push_str(&format!("\n## `{}` ({}): {title}\n\n", p.setting, p.view));
        s.push_str(&view_tables(points, equal, key));
        if let Some(st) = st {
            s.push_str(&format!(
                "\nPlot: `{}`.\n",
                View::new(st, p.view == "large", sc).file()
            ));
        }
    }
    s.push_str(&format!(
        "\nPer-run rows: `frontier-runs.csv` (setting, mechanism, repeat, carried fraction, \
         delays); per point: `frontier.csv`; every comparison: `equal.csv`; {} mechanisms \
         per setting. Differences from the paper: this simulator's NewReno, RFC 6817 LEDBAT and \
         TCP-LP instead of ns-2's modules; the paper compares the mechanisms at their own \
         throughputs, not at equal carried fraction.\n",
        variants.len()
    ));
    s
}

/// A view's tables: each mechanism's point, and each reading at equal carried fraction.
fn view_tables(points: &[PointRow], equal: &[EqualRow], key: (&str, &str)) -> String {
    let mut s = String::new();
    s.push_str(&md_table(
        &[
            "mechanism",
            "carried fraction",
            "delay (s)",
            "delay / vanilla",
            "mean M",
        ],
        &points
            .iter()
            .filter(|q| (q.setting.as_str(), q.view.as_str()) == key)
            .map(|q| {
                vec![
                    q.label.clone(),
                    format!("{:.3} ± {:.3}", q.carried, q.carried_ci95),
                    format!("{:.2} ± {:.2}", q.delay_s, q.delay_ci95),
                    format!("{:.3} ± {:.3}", q.norm_delay, q.norm_delay_ci95),
                    if q.mean_m.is_finite() {
                        format!("{:.1}", q.mean_m)
                    } else {
                        String::new()
                    },
                ]
            })
            .collect::<Vec<_>>(),
    ));
    s.push_str("\nDelay at equal carried fraction:\n\n");
    let rows: Vec<Vec<String>> = equal
        .iter()
        .filter(|e| (e.setting.as_str(), e.view.as_str()) == key)
        .map(|e| {
            if e.ratio.is_finite() {
                vec![
                    e.label.clone(),
                    e.frontier.clone(),
                    format!("{:.3}", e.carried),
                    format!("{} (w = {:.2})", e.between, e.weight),
                    format!("{:.3} ± {:.3}", e.ratio, e.ratio_ci95),
                    e.word.clone(),
                ]
            } else {
                vec![
                    e.label.clone(),
                    e.frontier.clone(),
                    format!("{:.3}", e.carried),
                    format!("outside {:.3} – {:.3}", e.frontier_lo, e.frontier_hi),
                    String::new(),
                    e.word.clone(),
                ]
            }
        })
        .collect();
    s.push_str(&md_table(
        &[
            "mechanism",
            "frontier",
            "its carried fraction",
            "frontier read between",
            "delay / frontier's",
            "verdict",
        ],
        &rows,
    ));
    s
}

fn join(v: impl Iterator<Item = String>) -> String {
    v.collect::<Vec<_>>().join(", ")
}
