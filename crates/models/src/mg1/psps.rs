//! Two-level processor sharing PS+PS — the flow-level model of RuN2C (paper 003, Section II-B).
//!
//! The first `th` units of service of every flow are served in a high-priority PS queue; the
//! rest waits in a low-priority PS queue that is served only when the high one is empty.
//!
//! * Flows no longer than the threshold, eq. (6): `T̄(x) = x / (1 − ρ_th)`, `x ≤ th`.
//! * Longer flows, eq. (7): `T̄(x) = (W̄(th) + th + α(x − th)) / (1 − ρ_th)`, `x > th`,
//!   with `W̄` from eq. (5) and `ρ_th = λ X̄_th^1`.
//! * `α'(x)` solves the integral equation (8):
//!
//! ```text
//! α'(x) = λn̄ ∫_0^∞ α'(y) B(x+y) dy + λn̄ ∫_0^x α'(y) B(x−y) dy + b B(x) + 1,
//! n̄ = F̄(th)/(1 − ρ_th),   b = 2λF̄(th)(W̄(th) + th)/(1 − ρ_th),   B(x) = F̄(th+x)/F̄(th).
//! ```
//!
//! (`b` is the mean number of *other* low-priority flows in the tagged flow's batch,
//! `E[n(n−1)]/E[n]` for the number `n` of over-threshold flows in a high-priority busy
//! period; we re-derived it by a branching argument and it agrees with the paper's formula.)
//!
//! ## Numerical method
//! `α'` is represented as a continuous piecewise-linear function on a grid `0 = y_0 < … <
//! y_{N−1} = Y` (geometric near zero, uniform far out, plus the kinks of `B`), and by its
//! limit `α'(∞) = (1 − ρ_th)/(1 − ρ)` beyond `Y` (Appendix A shows `α'(x) − α'(∞) → 0`).
//! The products of the hat functions with `B` are integrated **exactly** through the
//! truncated moments (`∫ F̄ = ΔX̄¹`, `∫ wF̄(w)dw = ΔX̄²/2`), which makes the discrete operator
//! a contraction in the sup norm with the same constant `(ρ − ρ_th)/(1 − ρ_th) < 1` as the
//! continuous one (Appendix A). The linear system is solved by Gauss–Seidel iteration until
//! the largest update is below `tolerance · α'(∞)`; if that does not happen within
//! `max_iterations` the solver returns [`ModelError::NoConvergence`].
//!
//! The overall mean uses `E[α((S − th)^+)] = F̄(th) ∫_0^∞ α'(y) B(y) dy`:
//! `E[T] = (X̄_th^1 + F̄(th) (W̄(th) + ∫_0^∞ α'B)) / (1 − ρ_th)`.

use super::Mg1;
use crate::dist::SizeDist;
use crate::error::{self, ModelError, Result};
use crate::num;

/// Discretisation and stopping parameters of the PS+PS solver.
#[derive(Debug, Clone, PartialEq)]
pub struct SolverOptions {
    /// Number of grid points for `α'` (cost grows as the square).
    pub grid_points: usize,
    /// Stop when the largest Gauss–Seidel update is below `tolerance · α'(∞)`.
    pub tolerance: f64,
    /// Give up (with an error) after this many sweeps.
    pub max_iterations: usize,
    /// For unbounded sizes, the grid ends where `B(Y)` falls below this.
    pub tail_mass: f64,
}

impl Default for SolverOptions {
    fn default() -> Self {
        Self {
            grid_points: 500,
            tolerance: 1e-12,
            max_iterations: 200_000,
            tail_mass: 1e-12,
        }
    }
}

/// A solved PS+PS system for one threshold.
#[derive(Debug, Clone)]
pub struct PsPs {
    dist: SizeDist,
    th: f64,
    rho: f64,
    rho_th: f64,
    sf_th: f64,
    w_th: f64,
    a_inf: f64,
    grid: Vec<f64>,
    a: Vec<f64>,
    cum: Vec<f64>,
    mean: f64,
    iterations: usize,
}

impl PsPs {
    /// Solve the model of eqs. (6)–(8) for threshold `th ≥ 0`.
    pub fn solve(q: &Mg1, th: f64, opts: &SolverOptions) -> Result<Self> {
        error::non_negative("threshold", th)?;
        if opts.grid_points < 8 {
            return Err(ModelError::InvalidParameter {
                name: "grid_points",
                value: opts.grid_points as f64,
                reason: "need at least 8 grid points",
            });
        }
        error::positive("tolerance", opts.tolerance)?;
        error::positive("tail_mass", opts.tail_mass)?;
        let d = q.dist().clone();
        let lambda = q.lambda();
        let rho = q.rho();
        let mean_s = d.mean()?;
        let x1_th = d.tm(1, th);
        let rho_th = lambda * x1_th;
        let sf_th = d.sf(th);
        let w_th = lambda * d.tm(2, th) / (2.0 * (1.0 - rho_th));
        let a_inf = (1.0 - rho_th) / (1.0 - rho);
        let mut out = Self {
            dist: d.clone(),
            th,
            rho,
            rho_th,
            sf_th,
            w_th,
            a_inf,
            grid: vec![],
            a: vec![],
            cum: vec![],
            mean: mean_s / (1.0 - rho),
            iterations: 0,
        };
        if sf_th <= 0.0 {
            // Threshold beyond the support: everything is high priority, i.e. plain PS.
            return Ok(out);
        }
        let nbar = sf_th / (1.0 - rho_th);
        let b = 2.0 * lambda * sf_th * (w_th + th) / (1.0 - rho_th);
        let ln = lambda * nbar;
        let grid = build_grid(&d, th, sf_th, opts)?;
        let n = grid.len();
        let y_max = grid[n - 1];
        let x1 = |w: f64| d.tm(1, w);
        let x2 = |w: f64| d.tm(2, w);

        // Dense operator A (row-major) and constant term c.
        let mut a_mat = vec![0.0; n * n];
        let mut c = vec![0.0; n];
        let mut row0 = vec![0.0; n]; // ∫ hat_j(y) B(y) dy, for the overall mean.
        let mut e1 = vec![0.0; n];
        let mut e2 = vec![0.0; n];
        for i in 0..n {
            let xi = grid[i];
            let row = &mut a_mat[i * n..(i + 1) * n];
            // Kernel 1: ∫_0^Y α'(y) B(x_i + y) dy.
            for j in 0..n {
                let w = th + xi + grid[j];
                e1[j] = x1(w);
                e2[j] = x2(w);
            }
            for j in 0..n - 1 {
                let h = grid[j + 1] - grid[j];
                let w_lo = th + xi + grid[j];
                let d1 = e1[j + 1] - e1[j];
                let d2 = e2[j + 1] - e2[j];
                let m0 = (d1 / sf_th).max(0.0);
                let m1 = ((0.5 * d2 - w_lo * d1) / sf_th).clamp(0.0, h * m0);
                row[j] += ln * (m0 - m1 / h);
                row[j + 1] += ln * m1 / h;
                if i == 0 {
                    row0[j] += m0 - m1 / h;
                    row0[j + 1] += m1 / h;
                }
            }
            // Kernel 2: ∫_0^{x_i} α'(y) B(x_i − y) dy over whole grid intervals below x_i.
            if i > 0 {
                for j in 0..=i {
                    let w = th + xi - grid[j];
                    e1[j] = x1(w);
                    e2[j] = x2(w);
                }
                for j in 0..i {
                    let h = grid[j + 1] - grid[j];
                    let w_hi = th + xi - grid[j];
                    // w decreases with j: the interval is [w(j+1), w(j)].
                    let d1 = e1[j] - e1[j + 1];
                    let d2 = e2[j] - e2[j + 1];
                    let m0 = (d1 / sf_th).max(0.0);
                    let m1 = ((w_hi * d1 - 0.5 * d2) / sf_th).clamp(0.0, h * m0);
                    row[j] += ln * (m0 - m1 / h);
                    row[j + 1] += ln * m1 / h;
                }
            }
            let tail = ((mean_s - x1(th + xi + y_max)) / sf_th).max(0.0);
            c[i] = 1.0 + b * d.sf(th + xi) / sf_th + ln * a_inf * tail;
        }

        // Gauss–Seidel sweeps from the asymptote.
        let mut a = vec![a_inf; n];
        let scale = a_inf.max(1.0);
        let mut iterations = 0;
        loop {
            let mut change: f64 = 0.0;
            for i in 0..n {
                let row = &a_mat[i * n..(i + 1) * n];
                let v = c[i] + row.iter().zip(&a).map(|(r, x)| r * x).sum::<f64>();
                change = change.max((v - a[i]).abs());
                a[i] = v;
            }
            iterations += 1;
            if !change.is_finite() {
                return Err(ModelError::Overflow("the PS+PS integral equation (8)"));
            }
            if change <= opts.tolerance * scale {
                break;
            }
            if iterations >= opts.max_iterations {
                return Err(ModelError::NoConvergence {
                    method: "Gauss-Seidel on the PS+PS integral equation (8)",
                    iterations,
                    residual: change,
                    tolerance: opts.tolerance * scale,
                });
            }
        }
        let mut cum = vec![0.0; n];
        for j in 0..n - 1 {
            cum[j + 1] = cum[j] + 0.5 * (grid[j + 1] - grid[j]) * (a[j] + a[j + 1]);
        }
        let tail0 = ((mean_s - x1(th + y_max)) / sf_th).max(0.0);
        let e_alpha_b = row0.iter().zip(&a).map(|(r, x)| r * x).sum::<f64>() + a_inf * tail0;
        let mean = (x1_th + sf_th * (w_th + e_alpha_b)) / (1.0 - rho_th);
        out.mean = error::finite("E[T_PS+PS]", mean)?;
        out.grid = grid;
        out.a = a;
        out.cum = cum;
        out.iterations = iterations;
        Ok(out)
    }

    /// The threshold `th`.
    pub fn threshold(&self) -> f64 {
        self.th
    }

    /// `ρ_th = λ X̄_th^1`, the load seen by the high-priority queue.
    pub fn rho_threshold(&self) -> f64 {
        self.rho_th
    }

    /// Gauss–Seidel sweeps used.
    pub fn iterations(&self) -> usize {
        self.iterations
    }

    /// The grid and `α'` on it.
    pub fn alpha_prime(&self) -> (&[f64], &[f64]) {
        (&self.grid, &self.a)
    }

    /// `α'(∞) = (1 − ρ_th)/(1 − ρ)`.
    pub fn alpha_prime_limit(&self) -> f64 {
        self.a_inf
    }

    /// `α(z) = ∫_0^z α'(y) dy` (exact for the piecewise-linear `α'`).
    pub fn alpha(&self, z: f64) -> f64 {
        let n = self.grid.len();
        if n == 0 || z <= 0.0 {
            return self.a_inf * z.max(0.0);
        }
        let y_max = self.grid[n - 1];
        if z >= y_max {
            return self.cum[n - 1] + self.a_inf * (z - y_max);
        }
        let j = self
            .grid
            .partition_point(|&y| y <= z)
            .saturating_sub(1)
            .min(n - 2);
        let h = self.grid[j + 1] - self.grid[j];
        let t = z - self.grid[j];
        self.cum[j] + self.a[j] * t + (self.a[j + 1] - self.a[j]) * t * t / (2.0 * h)
    }

    /// Mean response time of a flow of size `x`, eqs. (6)–(7).
    pub fn response(&self, x: f64) -> Result<f64> {
        error::non_negative("x", x)?;
        if x <= self.th || self.sf_th <= 0.0 {
            return Ok(x / (1.0 - self.rho_th));
        }
        Ok((self.w_th + self.th + self.alpha(x - self.th)) / (1.0 - self.rho_th))
    }

    /// Slowdown `T̄(x)/x`; Theorem 1: tends to `1/(1 − ρ)` as `x → ∞`.
    pub fn slowdown(&self, x: f64) -> Result<f64> {
        error::positive("x", x)?;
        Ok(self.response(x)? / x)
    }

    /// Overall mean response time `E[T^{PS+PS}]`.
    pub fn mean_response(&self) -> f64 {
        self.mean
    }

    /// The load `ρ` of the queue.
    pub fn rho(&self) -> f64 {
        self.rho
    }

    /// The size distribution.
    pub fn dist(&self) -> &SizeDist {
        &self.dist
    }
}

/// Overall mean response time of PS+PS for one threshold.
pub fn mean_response(q: &Mg1, th: f64, opts: &SolverOptions) -> Result<f64> {
    Ok(PsPs::solve(q, th, opts)?.mean_response())
}

/// The threshold minimising `E[T^{PS+PS}]` on `[lo, hi]`: a scan of `scan_points`
/// log-spaced thresholds followed by golden-section refinement (in `ln th`) around the best.
/// Returns `(th_opt, E[T](th_opt))`.
pub fn optimal_threshold(
    q: &Mg1,
    lo: f64,
    hi: f64,
    scan_points: usize,
    opts: &SolverOptions,
) -> Result<(f64, f64)> {
    error::positive("lo", lo)?;
    error::positive("hi", hi)?;
    if hi <= lo || scan_points < 3 {
        return Err(ModelError::InvalidParameter {
            name: "hi",
            value: hi,
            reason: "need lo < hi and at least 3 scan points",
        });
    }
    let (llo, lhi) = (lo.ln(), hi.ln());
    let pts: Vec<f64> = (0..scan_points)
        .map(|i| llo + (lhi - llo) * i as f64 / (scan_points - 1) as f64)
        .collect();
    let mut vals = Vec::with_capacity(pts.len());
    for &l in &pts {
        vals.push(mean_response(q, l.exp(), opts)?);
    }
    let best = vals
        .iter()
        .enumerate()
        .min_by(|a, b| a.1.total_cmp(b.1))
        .map(|(i, _)| i)
        .unwrap_or(0);
    let a = pts[best.saturating_sub(1)];
    let b = pts[(best + 1).min(pts.len() - 1)];
    let (l, v) = num::golden_min(|l| mean_response(q, l.exp(), opts), a, b, 1e-4)?;
    if v <= vals[best] {
        Ok((l.exp(), v))
    } else {
        Ok((pts[best].exp(), vals[best]))
    }
}

/// Grid for `α'`: 0, a geometric part from `h0` to `Y`, a uniform part, and the kinks of `B`.
fn build_grid(d: &SizeDist, th: f64, sf_th: f64, opts: &SolverOptions) -> Result<Vec<f64>> {
    let y_max = match d.upper_bound() {
        Some(u) => u - th,
        None => {
            let mut z = (th + d.scale()).max(th * 2.0);
            let mut steps = 0;
            while d.sf(z) / sf_th > opts.tail_mass {
                z *= 2.0;
                steps += 1;
                if steps > 2000 || !z.is_finite() {
                    return Err(ModelError::Overflow("the PS+PS grid extent"));
                }
            }
            z - th
        }
    };
    if y_max.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return Err(ModelError::InvalidParameter {
            name: "threshold",
            value: th,
            reason: "threshold is at or beyond the largest size",
        });
    }
    let n = opts.grid_points;
    let n_uni = n / 4;
    let n_geo = n - n_uni - 1;
    let feature = if th > 0.0 { th } else { d.scale() }.min(d.scale().max(th));
    let h0 = (1e-5 * feature).min(y_max * 1e-6).max(y_max * 1e-14);
    let mut g = Vec::with_capacity(n + 8);
    g.push(0.0);
    let ratio = (y_max / h0).ln() / (n_geo.max(2) - 1) as f64;
    for i in 0..n_geo {
        g.push(h0 * (ratio * i as f64).exp());
    }
    for i in 1..=n_uni {
        g.push(y_max * i as f64 / n_uni as f64);
    }
    for b in d.breaks() {
        let s = b - th;
        if s > 0.0 && s < y_max {
            g.push(s);
        }
    }
    g.push(y_max);
    g.sort_by(f64::total_cmp);
    let mut out: Vec<f64> = Vec::with_capacity(g.len());
    for v in g {
        if v <= y_max && out.last().is_none_or(|&l: &f64| v - l > y_max * 1e-15) {
            out.push(v);
        }
    }
    if let Some(last) = out.last_mut() {
        *last = y_max;
    }
    Ok(out)
}
