//! Sample-path properties that hold flow by flow, on the same arrivals and sizes.

use flowsim::compare::{mean, pairwise, Tolerance};
use flowsim::mg1::{simulate, Policy};
use flowsim::path::{Job, SamplePath};
use models::SizeDist;
use proptest::prelude::*;

const ALL: [Policy; 6] = [
    Policy::Ps,
    Policy::Las,
    Policy::PsPs { threshold: 0.7 },
    Policy::Srpt,
    Policy::Fsp,
    Policy::Fcfs,
];

fn heavy_path(seed: u64, n: usize, rho: f64) -> SamplePath {
    let d = SizeDist::lomax(1.0 / 2.0, 3.0).unwrap(); // mean 1
    SamplePath::poisson(rho, &d, n, seed).unwrap()
}

/// Instants at which the system becomes empty, from arrivals and completions.
fn empty_instants(path: &SamplePath, completion: &[f64]) -> Vec<f64> {
    let mut ev: Vec<(f64, i32)> = path.jobs().iter().map(|j| (j.arrival, 1)).collect();
    ev.extend(completion.iter().map(|c| (*c, -1)));
    // Departures before arrivals at equal times.
    ev.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut n = 0;
    let mut out = vec![];
    for (t, d) in ev {
        n += d;
        if n == 0 {
            out.push(t);
        }
    }
    out
}

/// Each policy: every flow leaves no earlier than its arrival plus its size alone on the
/// link, and the system empties at exactly the same instants (work conservation: the
/// unfinished work, hence every busy period, is policy-independent).
fn check_conservation(path: &SamplePath, cap: f64) {
    let jobs = path.jobs();
    let reference = empty_instants(path, &simulate(path, cap, Policy::Fcfs).unwrap().completion);
    for p in ALL {
        let out = simulate(path, cap, p).unwrap();
        for (j, c) in jobs.iter().zip(&out.completion) {
            assert!(
                *c >= j.arrival + j.size / cap * (1.0 - 1e-9) - 1e-12,
                "{p:?}"
            );
        }
        let e = empty_instants(path, &out.completion);
        assert_eq!(e.len(), reference.len(), "{p:?}: busy periods differ");
        for (a, b) in e.iter().zip(&reference) {
            assert!((a - b).abs() <= 1e-9 * b.max(1.0), "{p:?}: {a} vs {b}");
        }
    }
}

#[test]
fn fsp_never_finishes_a_flow_later_than_ps() {
    for seed in 0..20 {
        let path = heavy_path(seed, 3000, 0.9);
        let ps = simulate(&path, 1.0, Policy::Ps)
            .unwrap()
            .response_times(&path);
        let fsp = simulate(&path, 1.0, Policy::Fsp)
            .unwrap()
            .response_times(&path);
        let cmp = pairwise(&ps, &fsp, Tolerance::default());
        assert_eq!(cmp.slower, 0.0, "seed {seed}: {cmp:?}");
        assert!(cmp.max_loss <= 1e-9 * 1e3, "seed {seed}: {}", cmp.max_loss);
        assert!(cmp.faster > 0.5);
    }
}

#[test]
fn srpt_minimises_the_mean_on_every_path() {
    for seed in 0..20 {
        let path = heavy_path(100 + seed, 3000, 0.85);
        let srpt = mean(
            &simulate(&path, 1.0, Policy::Srpt)
                .unwrap()
                .response_times(&path),
        );
        for p in ALL {
            let m = mean(&simulate(&path, 1.0, p).unwrap().response_times(&path));
            assert!(
                srpt <= m * (1.0 + 1e-12),
                "seed {seed}: SRPT {srpt} > {p:?} {m}"
            );
        }
    }
}

#[test]
fn hand_checked_small_path() {
    // Two flows: sizes 2 and 1, arrivals 0 and 0.5, capacity 1.
    let path = SamplePath::from_jobs(vec![
        Job {
            arrival: 0.0,
            size: 2.0,
        },
        Job {
            arrival: 0.5,
            size: 1.0,
        },
    ])
    .unwrap();
    let c = |p| simulate(&path, 1.0, p).unwrap().completion;
    // PS: by 0.5 flow 0 has 1.5 left; both at 1/2: flow 1 done at 0.5 + 2 = 2.5, flow 0 at 3.
    assert_eq!(c(Policy::Ps), vec![3.0, 2.5]);
    // FCFS: 2, 3. SRPT: flow 0 has 1.5 > 1 so flow 1 preempts: 1.5, then 3.
    assert_eq!(c(Policy::Fcfs), vec![2.0, 3.0]);
    assert_eq!(c(Policy::Srpt), vec![3.0, 1.5]);
    // LAS: flow 1 (attained 0) runs alone until it reaches 0.5 (t = 1), then both at 1/2:
    // flow 1 needs 0.5 more → t = 2; flow 0 then has 2 − 0.5 − 0.5 = 1 left → t = 3.
    assert_eq!(c(Policy::Las), vec![3.0, 2.0]);
    // FSP: PS order is flow 1 first: same as SRPT here.
    assert_eq!(c(Policy::Fsp), vec![3.0, 1.5]);
    // PS+PS(0.25): flow 0 in high until 0.25, low until 0.5 (has 1.5 left); flow 1 high
    // until t = 0.75, then both low at 1/2: flow 1 needs 0.75 → t = 2.25; flow 0 → t = 3.
    assert_eq!(c(Policy::PsPs { threshold: 0.25 }), vec![3.0, 2.25]);
}

#[test]
fn invalid_configurations_are_errors() {
    let path = heavy_path(1, 10, 0.5);
    assert!(simulate(&path, 0.0, Policy::Ps).is_err());
    assert!(simulate(&path, 1.0, Policy::PsPs { threshold: -1.0 }).is_err());
    assert!(SamplePath::from_jobs(vec![
        Job {
            arrival: 1.0,
            size: 1.0
        },
        Job {
            arrival: 0.5,
            size: 1.0
        }
    ])
    .is_err());
    assert!(SamplePath::from_jobs(vec![Job {
        arrival: 0.0,
        size: 0.0
    }])
    .is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Conservation on arbitrary small paths: all flows complete, none faster than alone,
    /// every policy empties the system at the same time; FSP ≤ PS flow by flow; SRPT has
    /// the least total response time.
    #[test]
    fn conservation_and_dominance(
        gaps in proptest::collection::vec(0.0f64..3.0, 1..40),
        sizes in proptest::collection::vec(0.01f64..5.0, 40),
        cap in 0.5f64..2.0,
    ) {
        let mut t = 0.0;
        let jobs: Vec<Job> = gaps.iter().zip(&sizes).map(|(g, s)| { t += g; Job { arrival: t, size: *s } }).collect();
        let path = SamplePath::from_jobs(jobs).unwrap();
        check_conservation(&path, cap);
        let ps = simulate(&path, cap, Policy::Ps).unwrap().completion;
        let fsp = simulate(&path, cap, Policy::Fsp).unwrap().completion;
        for (a, b) in ps.iter().zip(&fsp) {
            prop_assert!(*b <= *a + 1e-9 * a.max(1.0));
        }
        let total = |p| simulate(&path, cap, p).unwrap().completion.iter().sum::<f64>();
        let srpt = total(Policy::Srpt);
        for p in ALL {
            prop_assert!(srpt <= total(p) + 1e-9 * srpt.max(1.0));
        }
        // Work conservation through time: at every arrival instant the unfinished work is
        // policy-independent, so the number of flows completed by the end of a busy
        // period is the same; and the total work equals the sum of sizes.
        prop_assert!((path.total_work() - sizes[..path.len()].iter().sum::<f64>()).abs() < 1e-9);
    }
}
