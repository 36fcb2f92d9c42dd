//! `table2` with the core's DEFAULT buffers against (nearly) unbounded ones, for
//! light (α = 3) and heavy (α = 1.5) tails at load 0.9. Goal: `schedtcp/srpt` and
//! `schedtcp/fair` with the default configuration finish flows within 5% of the unbounded
//! variant and sooner than `tcp`; and the per-connection injection distance to `tcp`
//! (Proposition 1 of paper 000) for both. Runs `table2`'s machinery (`engine::packet`) once per
//! size distribution; the scenario is a `table2` scenario plus a `sizes` list.

use crate::check_param;
use crate::engine::intrusion::intrusion;
use crate::engine::packet::{paired, run_all, Params, RunOut};
use crate::engine::verdict::{Interval, Rule, Source, Verdict, Word};
use crate::engine::{md_table, mean_ci, pct, within_goal};
use crate::Context;
use anyhow::{anyhow, Context as _};
use flowsim::compare::mean;
use serde::{Deserialize, Serialize};

pub const NAME: &str = "table2-buffers";
pub const DESCRIPTION: &str =
    "table2 (load 0.9, α = 3 and 1.5) with the core's default buffers vs unbounded (64 MiB): E[T] of srpt/fair vs tcp and vs unbounded, injection distance to tcp";
pub const SCENARIO: &str = include_str!("../../scenarios/table2-buffers.toml");

/// One size distribution: `P(S > x) = (1 + cx)^(−α)`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct Sizes {
    name: String,
    alpha: f64,
    c: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Row {
    sizes: String,
    config: String,
    runs: usize,
    flows: usize,
    incomplete: usize,
    mean_t_s: f64,
    /// E[T] / E[T_tcp] on the flows both completed, pooled over runs.
    ratio_to_tcp: f64,
    /// The same ratio per run: mean and 95% half-width.
    ratio_to_tcp_run_mean: f64,
    ratio_to_tcp_run_ci95: f64,
    vs_tcp: String,
    /// E[T] / E[T] of the same policy with unbounded buffers (default-buffer rows only).
    ratio_to_unbounded: Option<f64>,
    ratio_to_unbounded_run_mean: Option<f64>,
    ratio_to_unbounded_run_ci95: Option<f64>,
    vs_unbounded: String,
    /// Proposition 1: mean over runs and connections of max_t |V_i(t) − V_i^tcp(t)| / V_i.
    mean_conn_rel_diff: f64,
    /// Largest gap of the aggregate injected bytes, relative.
    max_rel_diff_aggregate: f64,
    injected_bytes_ratio: f64,
    mean_active_conns: f64,
    invariant_violations: u64,
}

/// E[T_other] / E[T_base] over the flows both completed: pooled, and per run (mean, 95%).
fn ratios(base: &[RunOut], other: &[RunOut]) -> (f64, f64, f64) {
    let (a, b, _) = paired(base, other);
    let per_run: Vec<f64> = base
        .iter()
        .zip(other)
        .map(|(x, y)| {
            let (a, b, _) = paired(std::slice::from_ref(x), std::slice::from_ref(y));
            mean(&b) / mean(&a)
        })
        .filter(|r| r.is_finite())
        .collect();
    let (m, ci) = mean_ci(&per_run);
    (mean(&b) / mean(&a), m, ci)
}

/// The goal's two verdicts on a core-buffers row: E[T] / unbounded's within ±`goal`, and
/// E[T] / tcp's below 1 (each the per-run ratio's 95% interval).
fn goal_verdicts(r: &Row, goal: f64) -> Option<[Verdict; 2]> {
    let (m, ci) = (
        r.ratio_to_unbounded_run_mean?,
        r.ratio_to_unbounded_run_ci95?,
    );
    let filter = [("sizes", r.sizes.as_str()), ("config", r.config.as_str())];
    Some([
        Verdict::new(
            format!(
                "{} / {}: E[T] / unbounded buffers', per run",
                r.sizes, r.config
            ),
            None,
            Interval::new(m, ci),
            Rule::Goal {
                lo: 1.0 - goal,
                hi: 1.0 + goal,
            },
        )
        .from(Source::new(
            "table2_buffers.csv",
            "ratio_to_unbounded_run_mean",
            &filter,
        )),
        vs_tcp(r).from(Source::new(
            "table2_buffers.csv",
            "ratio_to_tcp_run_mean",
            &filter,
        )),
    ])
}

/// E[T] / tcp's per run against 1.
fn vs_tcp(r: &Row) -> Verdict {
    Verdict::new(
        format!("{} / {}: E[T] / tcp's, per run", r.sizes, r.config),
        None,
        Interval::new(r.ratio_to_tcp_run_mean, r.ratio_to_tcp_run_ci95),
        Rule::Against {
            reference: 1.0,
            margin: 0.0,
        },
    )
}

/// The goal's word from its two verdicts: met when E[T] / unbounded's is within the band and
/// E[T] / tcp's below 1; not met when the first is outside the band or the second above 1;
/// otherwise undecided.
fn goal_word(v: &[Verdict; 2]) -> Word {
    match (v[0].word, v[1].word) {
        (Word::Met, Word::Lower) => Word::Met,
        (Word::NotMet, _) | (_, Word::Higher) => Word::NotMet,
        _ => Word::Undecided,
    }
}

/// The goal's word in the summary; an undecided one says which part and where the mean is.
fn goal_says(v: &[Verdict; 2], goal: f64) -> String {
    match goal_word(v) {
        Word::Undecided if v[0].word == Word::Met => {
            "undecided: E[T] / tcp's interval contains 1".to_string()
        }
        Word::Undecided => {
            let point = if (v[0].ours.mean - 1.0).abs() <= goal {
                "inside"
            } else {
                "outside"
            };
            format!(
                "undecided: the interval straddles ±{}, the mean ratio is {point} it",
                pct(goal, 0)
            )
        }
        w => w.says("", ""),
    }
}

/// Whether a ratio is below 1, from its interval.
fn below_one(w: Word) -> String {
    match w {
        Word::Lower => "below".into(),
        Word::Higher => "above".into(),
        Word::Undecided => "undecided (too few runs)".into(),
        _ => "undecided (interval contains 1)".into(),
    }
}

fn json_f64(v: &serde_json::Value, k: &str) -> f64 {
    v.get(k)
        .and_then(serde_json::Value::as_f64)
        .unwrap_or(f64::NAN)
}

/// The scenario: a `table2` scenario, its size distributions and the goal.
fn params(ctx: &Context) -> anyhow::Result<(Params, Vec<Sizes>, f64)> {
    let mut table: toml::Table = ctx.params()?;
    let sizes: Vec<Sizes> = table
        .remove("sizes")
        .ok_or_else(|| anyhow!("invalid scenario: `sizes` is missing"))?
        .try_into()
        .map_err(|e| anyhow!("invalid scenario: sizes: {e}"))?;
    let goal: f64 = table
        .remove("goal")
        .ok_or_else(|| anyhow!("invalid scenario: `goal` is missing"))?
        .try_into()
        .map_err(|e| anyhow!("invalid scenario: goal: {e}"))?;
    let mut base = Params::checked(
        toml::Value::Table(table)
            .try_into()
            .map_err(|e| anyhow!("invalid scenario: {e}"))?,
    )?;
    base.seed = ctx.seed(base.seed);
    check_param!(!sizes.is_empty(), "sizes must not be empty");
    check_param!(goal > 0.0 && goal < 1.0, "goal must be in (0, 1)");
    check_param!(
        !base.core_buffer_policies.is_empty(),
        "core_buffer_policies must list the policies run with default buffers"
    );
    Ok((base, sizes, goal))
}

pub fn run(ctx: &Context) -> anyhow::Result<String> {
    let (base, sizes, goal) = params(ctx)?;
    let mut rows: Vec<Row> = Vec::new();
    for sz in &sizes {
        check_param!(
            sz.alpha > 1.0 && sz.c > 0.0,
            "sizes `{}`: need alpha > 1, c > 0",
            sz.name
        );
        let mut p = base.clone();
        p.workload.alpha = sz.alpha;
        p.workload.c = sz.c;
        let p = Params::checked(p)?;
        let cfgs = p.configs();
        let out = run_all(ctx, &p, &cfgs).with_context(|| format!("sizes `{}`", sz.name))?;
        let tcp = &out[0];
        for (k, c) in cfgs.iter().enumerate() {
            let (r, rm, rci) = ratios(tcp, &out[k]);
            let unbounded = cfgs.iter().position(|u| {
                c.core_buffers && u.policy == c.policy && u.kind == c.kind && !u.core_buffers
            });
            let vs_unb = unbounded.map(|u| ratios(&out[u], &out[k]));
            let intr = serde_json::to_value(intrusion(c, &out[k]))?;
            let incomplete = out[k]
                .iter()
                .map(|x| x.flows.iter().filter(|f| f.transfer_s.is_none()).count())
                .sum();
            rows.push(Row {
                sizes: sz.name.clone(),
                config: c.label.clone(),
                runs: p.runs,
                flows: out[k].iter().map(|x| x.flows.len()).sum(),
                incomplete,
                mean_t_s: mean(&crate::engine::packet::transfers(&out[k])),
                ratio_to_tcp: r,
                ratio_to_tcp_run_mean: rm,
                ratio_to_tcp_run_ci95: rci,
                vs_tcp: String::new(),
                ratio_to_unbounded: vs_unb.map(|x| x.0),
                ratio_to_unbounded_run_mean: vs_unb.map(|x| x.1),
                ratio_to_unbounded_run_ci95: vs_unb.map(|x| x.2),
                vs_unbounded: String::new(),
                mean_conn_rel_diff: json_f64(&intr, "mean_conn_rel_diff"),
                max_rel_diff_aggregate: json_f64(&intr, "max_rel_diff_aggregate"),
                injected_bytes_ratio: json_f64(&intr, "injected_bytes_ratio"),
                mean_active_conns: json_f64(&intr, "mean_active_conns"),
                invariant_violations: intr
                    .get("invariant_violations")
                    .and_then(serde_json::Value::as_u64)
                    .unwrap_or(0),
            });
        }
    }
    analyse(ctx, &base, &sizes, goal, rows)
}

/// Renders again what an earlier run wrote to `dir`: every configuration's row of
/// `table2_buffers.json` (its means over the runs and the per-run ratios' intervals). The
/// runs' flows are not kept.
pub(crate) fn render_from(ctx: &Context, dir: &std::path::Path) -> anyhow::Result<String> {
    #[derive(Deserialize)]
    struct Json {
        rows: Vec<Row>,
    }
    let (base, sizes, goal) = params(ctx)?;
    let jp = dir.join("table2_buffers.json");
    let json: Json = serde_json::from_str(
        &std::fs::read_to_string(&jp).with_context(|| format!("reading {}", jp.display()))?,
    )
    .with_context(|| format!("parsing {}", jp.display()))?;
    analyse(ctx, &base, &sizes, goal, json.rows)
}

/// The words of every row, the verdicts, the outputs and the summary, from the rows' numbers.
fn analyse(
    ctx: &Context,
    base: &Params,
    sizes: &[Sizes],
    goal: f64,
    mut rows: Vec<Row>,
) -> anyhow::Result<String> {
    for row in &mut rows {
        row.vs_tcp = if row.config == "tcp" {
            "reference".into()
        } else {
            below_one(vs_tcp(row).word)
        };
        row.vs_unbounded = match (
            row.ratio_to_unbounded_run_mean,
            row.ratio_to_unbounded_run_ci95,
        ) {
            (Some(m), Some(ci)) => within_goal(m, ci, goal),
            _ => String::new(),
        };
    }
    ctx.write_csv("table2_buffers.csv", &rows)?;
    let verdicts: Vec<Verdict> = rows
        .iter()
        .filter_map(|r| goal_verdicts(r, goal))
        .flatten()
        .collect();
    ctx.write_json("verdicts.json", &verdicts)?;
    ctx.write_json(
        "table2_buffers.json",
        &serde_json::json!({ "sizes": sizes, "goal": goal, "rows": rows }),
    )?;
    Ok(summary(base, sizes, goal, &rows))
}

fn summary(p: &Params, sizes: &[Sizes], goal: f64, rows: &[Row]) -> String {
    let opt = |m: Option<f64>, ci: Option<f64>| match (m, ci) {
        (Some(m), Some(ci)) => format!("{m:.3} ± {ci:.3}"),
        _ => "—".into(),
    };
    let mut out = String::new();
    for sz in sizes {
        let body: Vec<Vec<String>> = rows
            .iter()
            .filter(|r| r.sizes == sz.name)
            .map(|r| {
                vec![
                    r.config.clone(),
                    format!("{:.2} s", r.mean_t_s),
                    format!("{}", r.incomplete),
                    format!("{:.3}", r.ratio_to_tcp),
                    format!(
                        "{:.3} ± {:.3}",
                        r.ratio_to_tcp_run_mean, r.ratio_to_tcp_run_ci95
                    ),
                    r.vs_tcp.clone(),
                    opt(r.ratio_to_unbounded_run_mean, r.ratio_to_unbounded_run_ci95),
                    r.vs_unbounded.clone(),
                    pct(r.mean_conn_rel_diff, 2),
                    pct(r.max_rel_diff_aggregate, 2),
                    format!("{:.1}", r.mean_active_conns),
                ]
            })
            .collect();
        let mean_mb = 1.0 / (sz.c * (sz.alpha - 1.0)) / 1e6;
        out.push_str(&format!(
            "## {name}: α = {a}, c = {c:e} (mean {mean_mb:.2} MB)\n\n{t}\n",
            name = sz.name,
            a = sz.alpha,
            c = sz.c,
            t = md_table(
                &[
                    "configuration",
                    "E[T]",
                    "not finished",
                    "E[T] / tcp (pooled)",
                    "E[T] / tcp per run (95% CI)",
                    "vs tcp",
                    "E[T] / unbounded per run (95% CI)",
                    "vs unbounded",
                    "mean per-conn max |ΔV_i| / V_i",
                    "max |ΔV(t)| / V",
                    "mean open conns",
                ],
                &body,
            )
        ));
    }
    let goals: Vec<String> = rows
        .iter()
        .filter_map(|r| Some((r, goal_verdicts(r, goal)?)))
        .map(|(r, v)| {
            let verdict = goal_says(&v, goal);
            format!(
                "* {} / {}: E[T] / unbounded {:.3} ± {:.3} ({}), / tcp {:.3} ± {:.3} ({}): **{}**",
                r.sizes,
                r.config,
                r.ratio_to_unbounded_run_mean.unwrap_or(f64::NAN),
                r.ratio_to_unbounded_run_ci95.unwrap_or(f64::NAN),
                r.vs_unbounded,
                r.ratio_to_tcp_run_mean,
                r.ratio_to_tcp_run_ci95,
                r.vs_tcp,
                verdict
            )
        })
        .collect();
    let violations: u64 = rows.iter().map(|r| r.invariant_violations).sum();
    format!(
        "# {NAME}: Table 2 with the core's default buffers vs unbounded ones\n\n\
{desc}\n\n\
`schedtcp/X`: the core with `flow_window` = `send_buffer` = {fw} MiB (nearly unbounded, \
Proposition 1's condition). `schedtcp/X (core buffers)`: the same with the core's default \
`flow_window` / `send_buffer` ({dfw} / {dsb} bytes), i.e. the configuration that ships. \
E[T] is the mean transfer time of the flows every compared configuration finished; the \
per-run ratio is the ratio of means within one run (same flows), averaged over the runs with \
a 95% Student-t interval, so one run's luck with a huge flow does not decide it. \
`not finished`: flows still incomplete at the end of the drain time (left out of the \
ratios). Injection distance (Proposition 1): `V_i(t)`, payload bytes connection i injected \
up to t, against the `tcp` run of the same seed (0 = exactly plain TCP's connections).\n\n\
{tables}\
## Goal\n\nWithin ±{goal} of unbounded and below tcp:\n\n{goals}\n\n\
Measured with α = 1.5 (mean 5 MB, load 0.9) on a core with per-flow bounds: `schedtcp/srpt` with \
the default 1 MiB buffers E[T] = 1.26 × tcp's, 3 flows never finished; with 64 MiB, 0.57 × \
tcp's. Paper 000's Table 2 reports shares of flows faster / slower than under TCP (SRPT 88.8% \
/ 3.2%, FAIR 89.6% / 2.4%), not mean completion times: it has no counterpart of these ratios \
(the shares are beside ours in `table2`). Invariant violations over all runs: {violations}.\n\n\
Files: `table2_buffers.csv`, `table2_buffers.json`. Reproduce: `schedtcp experiment run {NAME}`.\n",
        desc = {
            // The path and workload of the first size distribution (the others differ only
            // in α and c, see their headers).
            let mut first = p.clone();
            if let Some(sz) = sizes.first() {
                first.workload.alpha = sz.alpha;
                first.workload.c = sz.c;
            }
            crate::engine::packet::describe(&first)
        },
        fw = p.gtcp.core.flow_window as f64 / 1048576.0,
        dfw = sim::scenario::GtcpConfig::default().core.flow_window,
        dsb = sim::scenario::GtcpConfig::default().core.send_buffer,
        tables = out,
        goal = pct(goal, 0),
        goals = goals.join("\n"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(unb: (f64, f64), tcp: (f64, f64)) -> Row {
        Row {
            sizes: "a".into(),
            config: "schedtcp/srpt (core buffers)".into(),
            runs: 4,
            flows: 100,
            incomplete: 0,
            mean_t_s: 1.0,
            ratio_to_tcp: tcp.0,
            ratio_to_tcp_run_mean: tcp.0,
            ratio_to_tcp_run_ci95: tcp.1,
            vs_tcp: String::new(),
            ratio_to_unbounded: Some(unb.0),
            ratio_to_unbounded_run_mean: Some(unb.0),
            ratio_to_unbounded_run_ci95: Some(unb.1),
            vs_unbounded: String::new(),
            mean_conn_rel_diff: 0.0,
            max_rel_diff_aggregate: 0.0,
            injected_bytes_ratio: 1.0,
            mean_active_conns: 1.0,
            invariant_violations: 0,
        }
    }

    fn says(unb: (f64, f64), tcp: (f64, f64)) -> String {
        let v = goal_verdicts(&row(unb, tcp), 0.05).expect("a core-buffers row");
        goal_says(&v, 0.05)
    }

    #[test]
    fn the_goal_follows_both_intervals() {
        assert_eq!(says((1.01, 0.02), (0.6, 0.1)), "met");
        assert_eq!(says((1.2, 0.02), (0.6, 0.1)), "not met");
        assert_eq!(says((1.0, 0.02), (1.3, 0.1)), "not met");
        assert_eq!(
            says((1.03, 0.03), (0.6, 0.1)),
            "undecided: the interval straddles ±5%, the mean ratio is inside it"
        );
        assert!(says((1.07, 0.03), (0.6, 0.1)).ends_with("outside it"));
        assert_eq!(
            says((1.0, 0.02), (0.95, 0.1)),
            "undecided: E[T] / tcp's interval contains 1"
        );
    }
}
