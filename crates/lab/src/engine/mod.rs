//! The shared engines every experiment runs on: packet-level runs of paper 000's Section 6.2
//! setup ([`packet`]), repeats of one sample path under small perturbations and the
//! comparisons beyond their noise ([`repeats`]), paper 004's background-transfer scenarios
//! ([`background`]), flow-level workloads on one link ([`flowlevel`]), the named size
//! workloads of the policy sweeps at both levels ([`sizes`]), paper 003's flow-size
//! bins ([`run2c`]), testbed constants ([`testbed`]), ratios over repeats ([`ratio`]), the one
//! progress bar of every long run ([`progress_bar`]), and the statistics, tables and verdicts
//! below. Experiments (`p000/`, `p003/`, `p004/`,
//! `project/`) import only from here and from each other never.

pub(crate) mod background;
pub(crate) mod flowlevel;
pub(crate) mod intrusion;
pub(crate) mod packet;
pub(crate) mod ratio;
pub(crate) mod repeats;
pub(crate) mod run2c;
pub(crate) mod saved;
pub(crate) mod sizes;
pub(crate) mod testbed;
pub mod verdict;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// What every long run shows on stderr: who, which step, a bar, runs done / total, time
/// elapsed and the estimated time left.
const PROGRESS_TEMPLATE: &str = "{prefix} {msg:24} [{bar:30}] {pos}/{len} ({elapsed}, eta {eta})";

/// The progress bar of every long run (an experiment's runs, the demo's parts): `len` runs,
/// labelled `prefix` and `what` (change `what` with `set_message` as the runs go), drawn on
/// stderr only when `shown` and stderr is a terminal, otherwise hidden (no output at all).
pub(crate) fn progress_bar(prefix: &str, len: u64, what: &str, shown: bool) -> ProgressBar {
    let pb = ProgressBar::new(len);
    if shown && std::io::stderr().is_terminal() {
        pb.set_draw_target(ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template(PROGRESS_TEMPLATE) {
            pb.set_style(style.progress_chars("=> "));
        }
    } else {
        pb.set_draw_target(ProgressDrawTarget::hidden());
    }
    pb.set_prefix(prefix.to_string());
    pb.set_message(what.to_string());
    pb
}

/// A markdown table.
pub(crate) fn md_table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut s = String::new();
    s.push_str(&format!("| {} |\n", headers.join(" | ")));
    s.push_str(&format!(
        "|{}\n",
        headers.iter().map(|_| "---|").collect::<String>()
    ));
    for r in rows {
        s.push_str(&format!("| {} |\n", r.join(" | ")));
    }
    s
}

/// `x` as a percentage with `d` decimals.
pub(crate) fn pct(x: f64, d: usize) -> String {
    format!("{:.*}%", d, 100.0 * x)
}

/// Evenly spaced points on `[a, b]` (inclusive), `n ≥ 2`.
pub(crate) fn linspace(a: f64, b: f64, n: usize) -> Vec<f64> {
    let n = n.max(2);
    (0..n)
        .map(|i| a + (b - a) * i as f64 / (n - 1) as f64)
        .collect()
}

/// Log-spaced points on `[a, b]` (inclusive), `n ≥ 2`, `0 < a < b`.
pub(crate) fn logspace(a: f64, b: f64, n: usize) -> Vec<f64> {
    linspace(a.ln(), b.ln(), n)
        .into_iter()
        .map(f64::exp)
        .collect()
}

/// Student's t quantile for a two-sided 95% interval with `df` degrees of freedom (table for
/// small df, normal beyond).
pub fn t95(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::NAN,
        d if d <= 30 => T[d - 1],
        _ => 1.96,
    }
}

/// Mean of `v` and the half-width of its 95% confidence interval (Student's t; NaN for
/// fewer than two values).
pub fn mean_ci(v: &[f64]) -> (f64, f64) {
    let n = v.len();
    if n == 0 {
        return (f64::NAN, f64::NAN);
    }
    let m = v.iter().sum::<f64>() / n as f64;
    if n < 2 {
        return (m, f64::NAN);
    }
    let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1) as f64;
    (m, t95(n - 1) * (var / n as f64).sqrt())
}

/// `f(0) .. f(n − 1)` on `threads` worker threads (each job's result in its slot); `tick`
/// after every job; the first error stops the remaining jobs and is returned.
pub(crate) fn parallel_map<T: Send>(
    n: usize,
    threads: usize,
    f: impl Fn(usize) -> anyhow::Result<T> + Sync,
    tick: impl Fn() + Sync,
) -> anyhow::Result<Vec<T>> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let next = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<T>>> = Mutex::new((0..n).map(|_| None).collect());
    let failure: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..threads.clamp(1, n.max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= n || failure.lock().map(|x| x.is_some()).unwrap_or(true) {
                    return;
                }
                match f(i) {
                    Ok(v) => {
                        if let Ok(mut sl) = slots.lock() {
                            sl[i] = Some(v);
                        }
                        tick();
                    }
                    Err(e) => {
                        if let Ok(mut x) = failure.lock() {
                            x.get_or_insert(e);
                        }
                        return;
                    }
                }
            });
        }
    });
    if let Some(e) = failure
        .into_inner()
        .map_err(|_| anyhow::anyhow!("a worker panicked"))?
    {
        return Err(e);
    }
    slots
        .into_inner()
        .map_err(|_| anyhow::anyhow!("a worker panicked"))?
        .into_iter()
        .map(|x| x.ok_or_else(|| anyhow::anyhow!("a job is missing")))
        .collect()
}

/// A verdict word for a paired difference `mean ± half` (95% interval): `below` if the
/// whole interval is below 0, `above` if above, otherwise "no difference beyond noise"
/// ([`verdict::judge`] against 0).
pub(crate) fn verdict(mean: f64, half: f64, below: &str, above: &str) -> String {
    says(
        verdict::judge(verdict::Interval::new(mean, half), verdict::DIFFERENCE),
        below,
        above,
    )
}

/// The words of a difference's verdict: `below`, `above`, or the noise's.
pub(crate) fn says(word: verdict::Word, below: &str, above: &str) -> String {
    match word {
        verdict::Word::Lower => below.to_string(),
        verdict::Word::Higher => above.to_string(),
        verdict::Word::Undecided => "undecided (too few samples for an interval)".to_string(),
        _ => "no difference beyond noise".to_string(),
    }
}

/// Whether the competitor's ratio `m ± ci` is within `±goal` of 1 ([`verdict::judge`]
/// against the goal band).
pub(crate) fn within_goal(m: f64, ci: f64, goal: f64) -> String {
    let x = verdict::Interval::new(m, ci);
    match verdict::judge(
        x,
        verdict::Rule::Goal {
            lo: 1.0 - goal,
            hi: 1.0 + goal,
        },
    ) {
        verdict::Word::Met => format!("within ±{}", pct(goal, 0)),
        verdict::Word::NotMet => format!("outside ±{}", pct(goal, 0)),
        _ if !x.decided() => "undecided (too few runs)".into(),
        _ => format!("undecided at ±{} (interval straddles it)", pct(goal, 0)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_progress_bar_has_a_valid_style_and_stays_hidden_unless_asked() {
        // The style is applied only when drawn: a broken template would silently leave the
        // default bar, without elapsed time or estimate.
        assert!(ProgressStyle::with_template(PROGRESS_TEMPLATE).is_ok());
        let pb = progress_bar("table2", 12, "runs", false);
        assert!(pb.is_hidden());
        assert_eq!(pb.length(), Some(12));
        pb.inc(5);
        assert_eq!(pb.position(), 5);
        // Under the test harness stderr is captured, not a terminal: hidden even when asked.
        if !std::io::stderr().is_terminal() {
            assert!(progress_bar("table2", 12, "runs", true).is_hidden());
        }
    }
}
