//! The experiments: issue 4's (analytical models and flow-level simulation), issue 3's
//! (paper 000 in the packet-level simulator: `table2`, `fig6`–`fig9`) and issue 5's (paper 000
//! on the real-TCP testbed: `testbed-table2`, `testbed-fig6`) and issue 8's (non-intrusive
//! under load with the default configuration: `nonintrusive`, `table2-buffers`,
//! `testbed-nonintrusive`). Each module exposes `NAME`, `DESCRIPTION`, `SCENARIO` (its
//! embedded TOML) and `run`.

pub mod bg_fig2;
pub mod bg_fig3;
pub mod bg_fig4;
pub mod bg_fig5;
pub mod bg_fig6;
pub mod bg_fig7;
pub mod bg_fig8;
pub mod bg_fig9;
pub(crate) mod bg_sim;
pub mod bg_testbed;
pub mod bg_theorem5;
pub mod fig6;
pub mod fig7;
pub mod fig8;
pub mod fig9;
pub mod fluid_table2;
pub mod nonintrusive;
pub mod ns3_crosscheck;
pub(crate) mod repeats;
pub mod run2c_fig1;
pub mod run2c_fig2;
pub mod run2c_pin;
pub mod run2c_sim;
pub mod run2c_testbed;
pub(crate) mod section62;
pub mod table2;
pub mod table2_buffers;
pub mod testbed_fig6;
pub mod testbed_nonintrusive;
pub mod testbed_table2;

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

/// Paper 000's Table 2 (SCHED_TCP on a real network, 100 runs), as a markdown table: the
/// reference every Table 2 experiment puts its numbers beside.
pub(crate) fn paper000_table2() -> String {
    let rows = [
        ["LAS", "61%", "25.6%", "13.2%", "−0.57 s", "+314 ms"],
        ["SRPT", "88.8%", "3.2%", "8%", "−1.11 s", "+28 ms"],
        ["FAIR", "89.6%", "2.4%", "7.9%", "−1.13 s", "+33 ms"],
    ];
    md_table(
        &[
            "policy",
            "faster",
            "slower",
            "equal",
            "mean gain",
            "mean loss",
        ],
        &rows.map(|r| r.map(String::from).to_vec()),
    )
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
/// whole interval is below 0, `above` if above, otherwise "no difference beyond noise".
pub(crate) fn verdict(mean: f64, half: f64, below: &str, above: &str) -> String {
    if !(mean.is_finite() && half.is_finite()) {
        "undecided (too few samples for an interval)".to_string()
    } else if mean + half < 0.0 {
        below.to_string()
    } else if mean - half > 0.0 {
        above.to_string()
    } else {
        "no difference beyond noise".to_string()
    }
}
