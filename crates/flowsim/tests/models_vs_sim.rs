//! Closed forms (crate `models`) against exact simulation, with fixed seeds and tolerances
//! of about three standard errors of the simulated means.

use flowsim::bg::{simulate as bg_sim, BgConfig, BgControl, MLimit, MicroFlows};
use flowsim::compare::mean;
use flowsim::mg1::{simulate, Policy};
use flowsim::path::SamplePath;
use models::bg::{implementable::ImplementablePolicy, threshold::OptimalPolicy, wtcp};
use models::mg1::{fcfs, las, ps, psps, srpt};
use models::{Mg1, SizeDist};
use std::sync::Arc;

/// M/G/1 with hyperexponential sizes (mean 1, DHR) at load 0.5: 200 000 flows on one path,
/// skipping the first 1 000. Tolerance 4% (the standard error is about 1.2%).
#[test]
fn mg1_means_match_closed_forms() {
    let d = SizeDist::mixture(vec![
        (0.9, SizeDist::exponential(0.5).unwrap()),
        (0.1, SizeDist::exponential(5.5).unwrap()),
    ])
    .unwrap();
    let q = Mg1::with_load(0.5, d.clone()).unwrap();
    let path = SamplePath::poisson(q.lambda(), &d, 200_000, 7).unwrap();
    let sim_mean = |p| {
        let r = simulate(&path, 1.0, p).unwrap().response_times(&path);
        mean(&r[1000..])
    };
    let opts = psps::SolverOptions {
        grid_points: 200,
        ..Default::default()
    };
    let cases = [
        (Policy::Ps, ps::mean_response(&q).unwrap()),
        (Policy::Las, las::mean_response(&q).unwrap()),
        (
            Policy::PsPs { threshold: 1.0 },
            psps::mean_response(&q, 1.0, &opts).unwrap(),
        ),
        (Policy::Srpt, srpt::mean_response(&q).unwrap()),
        (Policy::Fcfs, fcfs::mean_response(&q).unwrap()),
    ];
    for (p, model) in cases {
        let s = sim_mean(p);
        assert!(
            (s / model - 1.0).abs() < 0.04,
            "{p:?}: simulated {s:.4} vs model {model:.4}"
        );
    }
}

/// Conditional means: simulated flows of size near x against T(x) of eqs. (4) and (6)–(7).
#[test]
fn conditional_response_times_match() {
    let d = SizeDist::exponential(1.0).unwrap();
    let q = Mg1::with_load(0.6, d.clone()).unwrap();
    let path = SamplePath::poisson(q.lambda(), &d, 150_000, 11).unwrap();
    let sizes: Vec<f64> = path.jobs().iter().map(|j| j.size).collect();
    let sol = psps::PsPs::solve(&q, 0.5, &psps::SolverOptions::default()).unwrap();
    for (policy, model) in [
        (
            Policy::Las,
            Box::new(|x: f64| las::response(&q, x).unwrap()) as Box<dyn Fn(f64) -> f64>,
        ),
        (
            Policy::PsPs { threshold: 0.5 },
            Box::new(|x: f64| sol.response(x).unwrap()),
        ),
    ] {
        let r = simulate(&path, 1.0, policy).unwrap().response_times(&path);
        for (lo, hi) in [(0.2, 0.3), (0.9, 1.1), (2.0, 2.5)] {
            let (mut s, mut c) = (0.0, 0);
            for (x, t) in sizes.iter().zip(&r) {
                if *x >= lo && *x < hi {
                    s += t;
                    c += 1;
                }
            }
            let sim = s / c as f64;
            let mid = model(0.5 * (lo + hi));
            assert!(
                (sim / mid - 1.0).abs() < 0.06,
                "{policy:?} [{lo},{hi}): {sim} vs {mid}"
            );
        }
    }
}

fn exp1() -> SizeDist {
    SizeDist::exponential(1.0).unwrap()
}

fn base(control: BgControl, rho: f64, k: u32) -> BgConfig {
    BgConfig {
        capacity: 1.0,
        lambda: rho,
        short_size: exp1(),
        k,
        control,
        micro: None,
        horizon: 150_000.0,
        warmup: 1_000.0,
        seed: 3,
    }
}

/// Section II policies: the simulated mean number of short flows and CBF share match
/// N_*, M_*, N_w; Little's law holds.
#[test]
fn background_policies_match_closed_forms() {
    let (k, rho, f) = (1u32, 0.5, 0.6);
    let opt = OptimalPolicy::new(k, f, rho).unwrap();
    let imp = ImplementablePolicy::new(k, f, rho).unwrap();
    let w = wtcp::weight(k, f).unwrap();
    let cases = [
        (
            "optimal",
            BgControl::Shares(Arc::new(move |n| opt.cbf_share(n))),
            opt.mean_short,
        ),
        (
            "implementable",
            BgControl::Shares(Arc::new(move |n| imp.cbf_share(n))),
            imp.mean_short,
        ),
        (
            "wtcp",
            BgControl::WTcp { w },
            wtcp::mean_short(k, f, rho).unwrap(),
        ),
    ];
    for (name, control, model) in cases {
        let s = bg_sim(&base(control, rho, k)).unwrap();
        assert!(
            (s.mean_short / model - 1.0).abs() < 0.05,
            "{name}: {} vs {model}",
            s.mean_short
        );
        let frac = s.cbf_fraction(1.0, rho);
        assert!((frac - f).abs() < 0.02, "{name}: CBF fraction {frac}");
        let little = rho * s.mean_delay;
        assert!(
            (little / s.mean_short - 1.0).abs() < 0.03,
            "{name}: Little {little}"
        );
    }
}

/// Theorem 7: access control with a fixed M and a backlog of micro-flows behaves as wTCP
/// with weight M; vanilla matches the product-form closed form; the adaptive M finds the
/// critical limit and the background throughput equals its load.
#[test]
fn access_control_and_vanilla() {
    let (k, rho) = (1u32, 0.5);
    // Overloaded micro-flows (load 0.45 > what M = 2 can carry): always M active.
    let mut cfg = base(BgControl::AccessControl(MLimit::Fixed(2)), rho, k);
    cfg.micro = Some(MicroFlows {
        lambda: 0.45,
        size: exp1(),
    });
    let s = bg_sim(&cfg).unwrap();
    let model = wtcp::mean_short(k, 2.0 / 3.0, rho).unwrap();
    assert!(
        (s.mean_short / model - 1.0).abs() < 0.05,
        "{} vs {model}",
        s.mean_short
    );
    assert!((s.mean_active_micro - 2.0).abs() < 0.01);

    // Vanilla: f = 0.5, ρ_b = 0.25.
    let mut cfg = base(BgControl::Vanilla, 0.4, k);
    cfg.micro = Some(MicroFlows {
        lambda: 0.3,
        size: exp1(),
    });
    let s = bg_sim(&cfg).unwrap();
    let model = wtcp::vanilla_mean_short(k, 0.5, 0.4).unwrap();
    assert!(
        (s.mean_short / model - 1.0).abs() < 0.06,
        "vanilla {} vs {model}",
        s.mean_short
    );

    // Adaptive M: ρ_b = 0.25 → f = 0.5 → critical M = 1 (eq. (27)).
    let mut cfg = base(
        BgControl::AccessControl(MLimit::Adaptive {
            initial: 5,
            period: 50.0,
            ewma_weight: 0.05,
            target_backlog: 20.0,
        }),
        rho,
        k,
    );
    cfg.micro = Some(MicroFlows {
        lambda: 0.25,
        size: exp1(),
    });
    let s = bg_sim(&cfg).unwrap();
    let model = wtcp::mean_short(k, 0.5, rho).unwrap();
    assert!(
        (s.cbf_rate / 0.25 - 1.0).abs() < 0.05,
        "throughput {}",
        s.cbf_rate
    );
    assert!(s.mean_limit < 2.5, "mean M {}", s.mean_limit);
    assert!(
        (s.mean_short / model - 1.0).abs() < 0.2,
        "adaptive {} vs {model}",
        s.mean_short
    );
}

#[test]
fn invalid_background_configurations_are_errors() {
    let cfg = base(BgControl::Vanilla, 0.5, 1);
    assert!(bg_sim(&cfg).is_err(), "vanilla without micro-flows");
    let mut cfg = base(BgControl::AccessControl(MLimit::Fixed(0)), 0.5, 1);
    cfg.micro = Some(MicroFlows {
        lambda: 0.1,
        size: exp1(),
    });
    assert!(bg_sim(&cfg).is_err());
    let mut cfg = base(BgControl::WTcp { w: 1.0 }, 0.5, 1);
    cfg.warmup = cfg.horizon;
    assert!(bg_sim(&cfg).is_err());
}
