//! Pre-emptive service of one flow at a time by a gtcp policy's own key ([`gtcp::Policy::key_on`])
//! over what the policy learns of each flow's type ([`gtcp::policy::LearnedSizes`]): the
//! Gittins index policy and the μ-rule at flow level, ranked by the very code the session runs.
//!
//! Sizes are taken as bytes (the learned histogram's bins are in bytes), attained service as
//! its ceiling in whole bytes. No flow's size is known to the policy. Between events the served flow's key does not rise (a Gittins
//! effective remaining size falls as the flow is served within a histogram bin; an SRPT
//! remaining size falls), so it stays first until an arrival, its completion, or its attained
//! service crossing into the next bin, where its key is computed again. (Where the key rises
//! with service — a type's cold start, ranked least-attained-service first — the served flow
//! keeps the link up to its next bin edge: LAS in quanta of one bin.) When the learned
//! estimate moves (a rebuilt index, a new μ-rule rank) every waiting flow is keyed again, as in
//! the session.

use std::collections::BTreeSet;

use gtcp::policy::learned::{bin_of, lower_edge, SizeHistogram, BINS};
use gtcp::policy::{FlowState, LearnedSizes, SortKey};

use crate::path::SamplePath;
use crate::{Result, SimError};

/// What the policy knows of the size distribution of each type.
#[derive(Debug, Clone)]
pub enum Knowledge {
    /// Learned online from the flows this run completes (with the core's ageing and cold
    /// start).
    Learned,
    /// Known from the start and never updated: per type, its distribution function (bytes).
    Known(Vec<SizeHistogram>),
}

/// A keyed run: the policy, the type of each flow of the path (its route; all 0 if `None`)
/// and the knowledge.
#[derive(Debug, Clone)]
pub struct Keyed<'a> {
    /// The gtcp policy (e.g. `gittins`, `mu:srpt` with sizes unknown, `mu:gittins`).
    pub policy: gtcp::Policy,
    /// Type (route) of flow `i`; at most 64 distinct types are learned apart.
    pub types: Option<&'a [u8]>,
    /// Learned or known.
    pub knowledge: Knowledge,
}

fn route(t: u8) -> String {
    format!("t{t}")
}

pub(super) fn run(path: &SamplePath, cap: f64, k: &Keyed<'_>) -> Result<Vec<f64>> {
    let jobs = path.jobs();
    if let Some(types) = k.types {
        if types.len() != jobs.len() {
            return Err(SimError::InvalidParameter {
                name: "types",
                value: types.len() as f64,
                reason: "one type per flow",
            });
        }
    }
    let ty = |i: usize| k.types.map_or(0, |t| t[i]);
    let names: Vec<String> = (0..=u8::MAX).map(route).collect();
    let mut learned = LearnedSizes::default();
    let learn = match &k.knowledge {
        Knowledge::Learned => true,
        Knowledge::Known(hists) => {
            for (t, h) in hists.iter().enumerate() {
                learned.set_known(&names[t.min(255)], h.clone());
            }
            false
        }
    };
    let policy = k.policy;
    let key = |learned: &LearnedSizes, i: usize, attained: f64| -> SortKey {
        let st = FlowState {
            arrival: i as u64,
            class: ty(i),
            sent: attained.ceil() as u64,
            ..FlowState::default()
        };
        policy.key_on(&st, &learned.view(Some(&names[usize::from(ty(i))])))
    };
    let mut done = vec![0.0; jobs.len()];
    let mut attained = vec![0.0f64; jobs.len()];
    let mut waiting: BTreeSet<(SortKey, usize)> = BTreeSet::new();
    let mut current: Option<usize> = None;
    let mut t = 0.0f64;
    let mut next = 0;
    loop {
        let t_arr = jobs.get(next).map_or(f64::INFINITY, |j| j.arrival);
        // The served flow's next own event: completion or the next bin edge.
        let (t_own, at_edge) = match current {
            None => (f64::INFINITY, false),
            Some(c) => {
                let b = bin_of(attained[c].ceil() as u64);
                let edge = if b + 1 < BINS {
                    lower_edge(b + 1)
                } else {
                    f64::INFINITY
                };
                let to_end = jobs[c].size - attained[c];
                let to_edge = edge - attained[c];
                if to_edge < to_end {
                    (t + to_edge / cap, true)
                } else {
                    (t + to_end / cap, false)
                }
            }
        };
        if t_arr.is_infinite() && t_own.is_infinite() {
            break;
        }
        if t_own <= t_arr {
            let Some(c) = current else { break };
            t = t_own;
            if at_edge {
                attained[c] = lower_edge(bin_of(attained[c].ceil() as u64) + 1);
                let kc = key(&learned, c, attained[c]);
                if waiting.first().is_some_and(|&(kw, _)| kw < kc) {
                    waiting.insert((kc, c));
                    current = waiting.pop_first().map(|(_, i)| i);
                }
                continue;
            }
            attained[c] = jobs[c].size;
            done[c] = t;
            let moved = learn
                && learned.record(
                    Some(&names[usize::from(ty(c))]),
                    jobs[c].size.round() as u64,
                    policy.uses_index(),
                );
            if moved {
                let ids: Vec<usize> = waiting.iter().map(|&(_, i)| i).collect();
                waiting = ids
                    .into_iter()
                    .map(|i| (key(&learned, i, attained[i]), i))
                    .collect();
            }
            current = waiting.pop_first().map(|(_, i)| i);
        } else {
            if let Some(c) = current {
                attained[c] = (attained[c] + (t_arr - t) * cap).min(jobs[c].size);
            }
            t = t_arr;
            let j = next;
            next += 1;
            let kj = key(&learned, j, 0.0);
            match current {
                None => current = Some(j),
                Some(c) => {
                    let kc = key(&learned, c, attained[c]);
                    if (kj, j) < (kc, c) {
                        waiting.insert((kc, c));
                        current = Some(j);
                    } else {
                        waiting.insert((kj, j));
                    }
                }
            }
        }
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mg1::{simulate, simulate_keyed, Policy};
    use models::SizeDist;

    fn mean_response(path: &SamplePath, done: &[f64]) -> f64 {
        let jobs = path.jobs();
        done.iter()
            .zip(jobs)
            .map(|(d, j)| d - j.arrival)
            .sum::<f64>()
            / jobs.len() as f64
    }

    fn gittins(knowledge: Knowledge) -> Keyed<'static> {
        Keyed {
            policy: "gittins".parse().unwrap(),
            types: None,
            knowledge,
        }
    }

    /// Every flow of one size, known: the flow nearest its end goes first, which is FCFS.
    #[test]
    fn gittins_on_equal_sizes_is_fcfs() {
        let path = SamplePath::poisson(1.0, &SizeDist::pareto(50_000.0, 40.0).unwrap(), 400, 3)
            .unwrap()
            .jobs()
            .iter()
            .map(|j| crate::path::Job {
                arrival: j.arrival,
                size: 50_000.0,
            })
            .collect();
        let path = SamplePath::from_jobs(path).unwrap();
        let cap = 1.2 * 50_000.0;
        let known = SizeHistogram::from_cdf(|x| if x >= 50_000.0 { 1.0 } else { 0.0 });
        let g = simulate_keyed(&path, cap, &gittins(Knowledge::Known(vec![known]))).unwrap();
        let f = simulate(&path, cap, Policy::Fcfs).unwrap();
        for (a, b) in g.completion.iter().zip(&f.completion) {
            assert!((a - b).abs() < 1e-6 * b, "{a} vs {b}");
        }
    }

    /// Heavy tail (Lomax α = 1.5), learned: Gittins beats PS on the mean and is near LAS.
    #[test]
    fn gittins_learns_a_heavy_tail() {
        let dist = SizeDist::lomax(1.0 / (2e5 * 0.5), 1.5).unwrap();
        let cap = 1e6;
        let path = SamplePath::poisson(0.8 * cap / 2e5, &dist, 20_000, 7).unwrap();
        let ps = mean_response(&path, &simulate(&path, cap, Policy::Ps).unwrap().completion);
        let las = mean_response(
            &path,
            &simulate(&path, cap, Policy::Las).unwrap().completion,
        );
        let g = simulate_keyed(&path, cap, &gittins(Knowledge::Learned)).unwrap();
        let g = mean_response(&path, &g.completion);
        assert!(g < 0.8 * ps, "gittins {g} vs PS {ps}");
        assert!(g < 1.1 * las, "gittins {g} vs LAS {las}");
    }

    /// Two types, 1 KiB and 1 MiB: the μ-rule learns that type 0 is short and serves it first.
    #[test]
    fn mu_rule_serves_the_short_type_first() {
        let n = 4000;
        let jobs: Vec<_> = (0..n)
            .map(|i| crate::path::Job {
                arrival: i as f64 * 0.01,
                size: if i % 5 == 0 {
                    f64::from(1 << 20)
                } else {
                    1024.0
                },
            })
            .collect();
        let types: Vec<u8> = (0..n).map(|i| u8::from(i % 5 == 0)).collect();
        let path = SamplePath::from_jobs(jobs).unwrap();
        // Load 0.9: 100 flows per second of mean 0.2 MiB + 0.8 KiB.
        let cap = 100.0 * (0.2 * f64::from(1 << 20) + 0.8 * 1024.0) / 0.9;
        let run = |p: &str| {
            let k = Keyed {
                policy: p.parse().unwrap(),
                types: Some(&types),
                knowledge: Knowledge::Learned,
            };
            let done = simulate_keyed(&path, cap, &k).unwrap().completion;
            let short: Vec<f64> = (0..n)
                .filter(|i| i % 5 != 0)
                .map(|i| done[i] - path.jobs()[i].arrival)
                .collect();
            short.iter().sum::<f64>() / short.len() as f64
        };
        // Past the cold start a short flow never waits for a long one.
        let mu = run("mu:gittins");
        let alone = 1024.0 / cap;
        assert!(mu < 1.5 * alone, "mu {mu} vs alone {alone}");
        assert!(run("gittins") >= mu);
    }
}
