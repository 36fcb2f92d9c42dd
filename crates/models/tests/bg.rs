// The reference values are printed with 20 significant digits by the mpmath script on
// purpose: the literal is rounded to the nearest f64 by the compiler.
#![allow(clippy::excessive_precision)]

//! Paper 004's models checked against independent routes: high-precision reference values,
//! brute-force stationary distributions, the limits and bounds the paper proves.

use models::bg::{erlang, implementable::ImplementablePolicy, solve_chain, threshold, wtcp};

/// Erlang B `(k, a, B(k, a))`, from `tests/reference/erlang_engset_mpmath.py` (direct sums
/// with exact factorials in 60-digit arithmetic, mpmath 1.3.0).
const ERLANG_REF: &[(u32, f64, f64)] = &[
    (1, 0.5, 3.3333333333333333333e-1),
    (2, 1.0, 2.0e-1),
    (10, 5.0, 1.8384570336648133137e-2),
    (10, 12.5, 3.2195142211777476678e-1),
    (50, 40.0, 1.8690671109632249083e-2),
    (100, 80.0, 3.9920286045531974726e-3),
    (100, 120.0, 1.962699894551136299e-1),
    (500, 480.0, 1.4325780722426128402e-2),
    (1000, 950.0, 3.6492936889424098551e-3),
    (1000, 1100.0, 9.8625169689349127013e-2),
    (2000, 1900.5, 6.9726566950590326781e-4),
    (5000, 4800.0, 9.2758413396951000811e-5),
    (5000, 5000.0, 1.1199358278505485854e-2),
    (5000, 5500.0, 9.2654638962845121706e-2),
    (5000, 4000.0, 3.132093284650584088e-53),
];

/// Engset `(m, q, r, E(m, q, r))`, same script.
const ENGSET_REF: &[(u64, u64, f64, f64)] = &[
    (4, 3, 0.5, 3.7037037037037037037e-2),
    (11, 10, 0.25, 1.024e-7),
    (30, 10, 1.0, 5.4847353565853867446e-1),
    (200, 10, 0.111111111111111111, 5.6077568238856409203e-1),
    (1000, 1, 0.0010010010010010010, 4.9999999999999999783e-1),
    (2000, 100, 0.0526315789473684211, 7.7365135934985101874e-2),
    (5001, 5000, 1000.0, 6.7548016906498296474e-3),
    (5000, 2000, 0.6, 1.4875636243518040087e-5),
    (5000, 10, 0.002, 2.1378385572693869807e-1),
    (5001, 50, 0.0101010101010101, 1.0531524472335427052e-1),
];

#[test]
fn erlang_b_matches_high_precision_references() {
    for &(k, a, b) in ERLANG_REF {
        let v = erlang::erlang_b(k, a).unwrap();
        assert!(
            ((v - b) / b).abs() <= 1e-12,
            "B({k}, {a}) = {v:e}, reference {b:e}"
        );
    }
    // Far below f64's range the recursion underflows to 0 cleanly (reference 1.7e-9506).
    let tiny = erlang::erlang_b(3000, 0.75).unwrap();
    assert!(tiny == 0.0 || tiny < 1e-300);
}

#[test]
fn engset_matches_high_precision_references() {
    for &(m, q, r, e) in ENGSET_REF {
        let v = erlang::engset(m, q, r).unwrap();
        assert!(
            ((v - e) / e).abs() <= 1e-12,
            "E({m}, {q}, {r}) = {v:e}, reference {e:e}"
        );
    }
}

/// Corollary 1's step: Engset with many sources and vanishing per-source load tends to
/// Erlang B with the total load.
#[test]
fn engset_tends_to_erlang_b() {
    let (q, a) = (5u64, 3.0);
    let m = 10_000_000u64;
    let e = erlang::engset(m, q, a / m as f64).unwrap();
    let b = erlang::erlang_b(q as u32, a).unwrap();
    assert!((e / b - 1.0).abs() < 1e-5, "{e} vs {b}");
}

/// Lemma 1 (eq. (28)) sums to one and its mean is eq. (13), for several thresholds.
#[test]
fn lemma1_distribution_and_theorem2_mean_agree() {
    for &(k, rho, n0) in &[
        (1u32, 0.5, 0u64),
        (10, 0.7, 5),
        (3, 0.9, 40),
        (10, 0.95, 300),
    ] {
        let pi = threshold::lemma1_distribution(k, rho, n0, 1e-15).unwrap();
        let total: f64 = pi.iter().sum();
        let mean: f64 = pi
            .iter()
            .enumerate()
            .map(|(i, p)| (n0 + i as u64) as f64 * p)
            .sum();
        let n13 = threshold::threshold_mean(k, rho, n0).unwrap();
        assert!((total - 1.0).abs() < 1e-12, "sum {total}");
        assert!(
            (mean / n13 - 1.0).abs() < 1e-10,
            "k={k} rho={rho} n0={n0}: {mean} vs {n13}"
        );
        // Independent route: a generic birth–death solver with the CBF taking the link in
        // states ≤ n0.
        let chain = solve_chain(k, rho, |n| if n <= n0 { 1.0 } else { 0.0 }).unwrap();
        assert!((chain.mean_short / n13 - 1.0).abs() < 1e-10);
        let frac = threshold::threshold_fraction(k, rho, n0).unwrap();
        assert!((chain.cbf_fraction / frac - 1.0).abs() < 1e-10);
    }
}

/// Proposition 1 / Theorem 2 / eq. (10): the optimal policy meets the throughput target
/// exactly, its mean lies in [N_{n*}, N_{n*+1}), and a generic chain solver agrees.
#[test]
fn optimal_policy_meets_target_and_bounds() {
    for &k in &[1u32, 2, 10] {
        for &rho in &[0.3, 0.5, 0.9, 0.97] {
            for &f in &[0.05, 0.3, 0.6, 0.9, 0.99] {
                let pol = threshold::OptimalPolicy::new(k, f, rho).unwrap();
                let chain = solve_chain(k, rho, |n| pol.cbf_share(n)).unwrap();
                assert!(
                    (chain.cbf_fraction - f).abs() < 1e-9,
                    "k={k} rho={rho} f={f}: fraction {}",
                    chain.cbf_fraction
                );
                assert!((chain.mean_short / pol.mean_short - 1.0).abs() < 1e-9);
                match pol.regime {
                    threshold::Regime::Threshold { n_star, theta } => {
                        assert!(theta > 0.0 && theta <= 1.0);
                        let lo = threshold::threshold_mean(k, rho, n_star).unwrap();
                        let hi = threshold::threshold_mean(k, rho, n_star + 1).unwrap();
                        assert!(pol.mean_short >= lo * (1.0 - 1e-12) && pol.mean_short < hi);
                        let e_lo = threshold::threshold_fraction(k, rho, n_star).unwrap();
                        let e_hi = threshold::threshold_fraction(k, rho, n_star + 1).unwrap();
                        assert!(e_lo <= f && f < e_hi);
                    }
                    threshold::Regime::LowPriority { .. } => {
                        assert!((1.0 - rho).powi(k as i32) > f);
                        assert!(
                            (pol.mean_short - (k as f64 + 1.0) * rho / (1.0 - rho)).abs() < 1e-12
                        );
                    }
                }
                // No other policy does better: wTCP, the implementable optimum.
                let nw = wtcp::mean_short(k, f, rho).unwrap();
                assert!(nw >= pol.mean_short * (1.0 - 1e-12));
            }
        }
    }
}

/// Optimality of the threshold structure, checked by brute force: every two-level policy
/// (CBF share s1 in state 0.., s2 in the next state) meeting the same target is worse.
#[test]
fn threshold_policy_beats_perturbed_policies() {
    let (k, rho, f) = (2u32, 0.6, 0.5);
    let best = threshold::OptimalPolicy::new(k, f, rho).unwrap().mean_short;
    // Policies that give the CBF a constant share c in every state n ≤ L (and 0 above),
    // with c chosen to meet f: "smeared" versions of the threshold policy.
    for l in 1..8u64 {
        let frac = |c: f64| solve_chain(k, rho, |n| if n <= l { c } else { 0.0 }).unwrap();
        if frac(0.999_999).cbf_fraction < f {
            continue;
        }
        let (mut lo, mut hi) = (0.0, 0.999_999);
        for _ in 0..80 {
            let mid = 0.5 * (lo + hi);
            if frac(mid).cbf_fraction < f {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let m = frac(hi).mean_short;
        assert!(m >= best * (1.0 - 1e-9), "L={l}: {m} < optimum {best}");
    }
}

/// Corollary 1: n_*(1−ρ) → a_f and N_*(1−ρ) → k + 1 + a_f f as ρ → 1.
#[test]
fn corollary1_heavy_traffic_limits() {
    for &(k, f) in &[(1u32, 0.5), (10, 0.7), (5, 0.2)] {
        let af = threshold::corollary1_af(k, f).unwrap();
        let lim = threshold::corollary1_limit(k, f).unwrap();
        let mut prev_err = f64::INFINITY;
        for &rho in &[0.99, 0.999, 0.9999] {
            let pol = threshold::OptimalPolicy::new(k, f, rho).unwrap();
            let threshold::Regime::Threshold { n_star, .. } = pol.regime else {
                panic!("heavy traffic must be in the threshold regime");
            };
            let scaled_n = n_star as f64 * (1.0 - rho);
            let err = (pol.mean_short * (1.0 - rho) - lim).abs() / lim;
            assert!(err < prev_err, "k={k} f={f} rho={rho}: error not shrinking");
            prev_err = err;
            if rho == 0.9999 {
                assert!((scaled_n / af - 1.0).abs() < 0.02, "{scaled_n} vs {af}");
                assert!(err < 0.01, "N*(1-rho) vs limit: {err}");
            }
        }
    }
}

/// Theorem 5: the k = 1 limit, its maximum 20.7% at f = 2 − √2, the general-k limit, the
/// bound b_k(f) for k ≥ 2, and the ≈8% worst case at k = 5.
#[test]
fn theorem5_limits_and_bounds() {
    let (f_max, v_max) = wtcp::theorem5_k1_max();
    assert!((f_max - 0.585_786_437_626_905).abs() < 1e-12);
    assert!((v_max - 0.207_106_781_186_547_5).abs() < 1e-12);
    // Eq. (17) agrees with the general formula from Corollary 1 and (16) at k = 1.
    for i in 1..100 {
        let f = i as f64 / 100.0;
        let a = wtcp::theorem5_k1(f).unwrap();
        let b = wtcp::theorem5_limit(1, f).unwrap();
        assert!((a - b).abs() < 1e-12, "f={f}: {a} vs {b}");
        assert!(a <= v_max + 1e-15);
    }
    // b_k(f) bounds the limit for k ≥ 2, and its supremum decreases with k.
    let mut prev_sup = f64::INFINITY;
    for k in 2..=12u32 {
        let mut sup_b: f64 = 0.0;
        let mut sup_l: f64 = 0.0;
        for i in 1..400 {
            let f = i as f64 / 400.0;
            let l = wtcp::theorem5_limit(k, f).unwrap();
            let b = wtcp::theorem5_bound(k, f).unwrap();
            assert!(l <= b + 1e-12, "k={k} f={f}: limit {l} > bound {b}");
            sup_b = sup_b.max(b);
            sup_l = sup_l.max(l);
        }
        assert!(sup_b < prev_sup, "sup b_k not decreasing at k={k}");
        prev_sup = sup_b;
        if k == 5 {
            assert!((sup_l - 0.08).abs() < 0.01, "worst case at k=5: {sup_l}");
        }
    }
    // And the finite-ρ ratio approaches the limit.
    let f = 2.0 - 2f64.sqrt();
    let nw = wtcp::mean_short(1, f, 0.9999).unwrap();
    let ns = threshold::OptimalPolicy::new(1, f, 0.9999)
        .unwrap()
        .mean_short;
    assert!(((nw - ns) / ns - v_max).abs() < 5e-3);
}

/// Theorems 3–4: the implementable optimum meets the target, is no better than the full
/// information optimum, no worse than wTCP, and coincides with it as ρ → 1.
#[test]
fn implementable_policy_properties() {
    for &rho in &[0.5, 0.9] {
        for &f in &[0.1, 0.4, 0.7, 0.95] {
            let imp = ImplementablePolicy::new(1, f, rho).unwrap();
            let chain = solve_chain(1, rho, |n| imp.cbf_share(n)).unwrap();
            assert!((chain.cbf_fraction - f).abs() < 1e-8);
            let opt = threshold::OptimalPolicy::new(1, f, rho).unwrap().mean_short;
            let nw = wtcp::mean_short(1, f, rho).unwrap();
            assert!(imp.mean_short >= opt * (1.0 - 1e-9), "rho={rho} f={f}");
            assert!(imp.mean_short <= nw * (1.0 + 1e-9), "rho={rho} f={f}");
        }
    }
    let f = 0.5;
    let ratio = |rho: f64| {
        ImplementablePolicy::new(1, f, rho).unwrap().mean_short
            / threshold::OptimalPolicy::new(1, f, rho).unwrap().mean_short
    };
    assert!(ratio(0.999) < ratio(0.9) && ratio(0.9) < ratio(0.5));
    assert!(ratio(0.999) - 1.0 < 0.01);
}

/// The vanilla closed form (product form) and Theorem 7's access control limit.
#[test]
fn vanilla_and_access_control() {
    // Vanilla at f → 0 is plain TCP; its ratio to wTCP is (k+1)/(k+1−f) → 2 for k = 1.
    let v0 = wtcp::vanilla_mean_short(1, 0.0, 0.5).unwrap();
    assert!((v0 - 2.0).abs() < 1e-12);
    let f = 0.999;
    let r = wtcp::vanilla_mean_short(1, f, 0.9).unwrap() / wtcp::mean_short(1, f, 0.9).unwrap();
    assert!((r - 2.0 / (2.0 - f)).abs() < 1e-12);
    assert!((wtcp::access_control_limit(2, 0.6).unwrap() - 3.0).abs() < 1e-12);
}

#[test]
fn invalid_inputs_are_typed_errors() {
    assert!(threshold::OptimalPolicy::new(1, 1.0, 0.5).is_err());
    assert!(threshold::OptimalPolicy::new(1, -0.1, 0.5).is_err());
    assert!(threshold::OptimalPolicy::new(1, 0.5, 1.0).is_err());
    assert!(threshold::OptimalPolicy::new(1, 0.5, 0.0).is_err());
    assert!(wtcp::mean_short(1, 0.5, 1.5).is_err());
    assert!(wtcp::theorem5_bound(1, 0.5).is_err());
    assert!(erlang::erlang_b(3, -1.0).is_err());
    assert!(erlang::erlang_b_inverse(0, 0.5).is_err());
    assert!(ImplementablePolicy::new(0, 0.5, 0.5).is_err());
}

/// Theorem 3 by brute force: random non-increasing (implementable) policies
/// `x_n = min(C/(k+n), a (1+n)^{−β})`, with `a` tuned to the same target f, never beat M_*.
#[test]
fn implementable_optimum_beats_random_implementable_policies() {
    for &(k, rho, f) in &[(1u32, 0.5, 0.66), (2, 0.7, 0.4), (1, 0.9, 0.5)] {
        let best = ImplementablePolicy::new(k, f, rho).unwrap().mean_short;
        let kf = k as f64;
        // β ≤ 0.45 and a ≥ 0.05 keep the cap above C/(k+n) beyond a few hundred flows, so
        // every chain is positive recurrent.
        let mut tried = 0;
        for i in 0..10 {
            let beta = 0.05 * i as f64;
            // CBF share 1 − (k+n) x_n / C with x_n = min(1/(k+n), a (1+n)^−β), C = 1.
            let share = |a: f64, n: u64| {
                let x = (1.0 / (kf + n as f64)).min(a * (1.0 + n as f64).powf(-beta));
                1.0 - (kf + n as f64) * x
            };
            let frac = |a: f64| solve_chain(k, rho, |n| share(a, n)).unwrap().cbf_fraction;
            // Larger a → TCP gets more → less for the CBF.
            let (mut lo, mut hi) = (0.05, 10.0);
            if frac(lo) < f {
                continue;
            }
            tried += 1;
            for _ in 0..100 {
                let mid = (lo * hi).sqrt();
                if frac(mid) > f {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            let m = solve_chain(k, rho, |n| share(lo, n)).unwrap().mean_short;
            assert!(
                m >= best * (1.0 - 1e-6),
                "k={k} rho={rho} f={f} beta={beta}: {m} < {best}"
            );
        }
        assert!(
            tried >= 3,
            "too few policies reached the target for k={k} rho={rho} f={f}"
        );
    }
}
