//! The experiments: issue 4's (analytical models and flow-level simulation), issue 3's
//! (paper 000 in the packet-level simulator: `table2`, `fig6`–`fig9`) and issue 5's (paper 000
//! on the real-TCP testbed: `testbed-table2`, `testbed-fig6`). Each module
//! exposes `NAME`, `DESCRIPTION`, `SCENARIO` (its embedded TOML) and `run`.

pub mod bg_fig2;
pub mod bg_fig3;
pub mod bg_fig4;
pub mod bg_theorem5;
pub mod fig6;
pub mod fig7;
pub mod fig8;
pub mod fig9;
pub mod fluid_table2;
pub mod run2c_fig1;
pub mod run2c_fig2;
pub mod run2c_sim;
pub(crate) mod section62;
pub mod table2;
pub mod testbed_fig6;
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
