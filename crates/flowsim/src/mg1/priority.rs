//! Pre-emptive priority service of one flow at a time: SRPT (key = remaining work) and FSP
//! (key = the flow's virtual finishing point under PS, `V_a + s`, fixed at arrival: among
//! flows present together, PS finishes them in that order whatever arrives later).

use crate::path::SamplePath;
use crate::Key;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Debug, Clone, Copy)]
pub(super) enum Rule {
    RemainingWork,
    StaticKey,
}

pub(super) fn run(path: &SamplePath, cap: f64, rule: Rule, v_at_arrival: &[f64]) -> Vec<f64> {
    let jobs = path.jobs();
    let mut done = vec![0.0; jobs.len()];
    let mut remaining: Vec<f64> = jobs.iter().map(|j| j.size).collect();
    let key = |id: usize, rem: f64| match rule {
        Rule::RemainingWork => rem,
        Rule::StaticKey => v_at_arrival[id] + jobs[id].size,
    };
    let mut waiting: BinaryHeap<Reverse<Key>> = BinaryHeap::new();
    let mut current: Option<usize> = None;
    let mut t = 0.0f64;
    let mut next = 0;
    loop {
        let t_arr = jobs.get(next).map_or(f64::INFINITY, |j| j.arrival);
        let t_done = current.map_or(f64::INFINITY, |c| t + remaining[c] / cap);
        if t_arr.is_infinite() && t_done.is_infinite() {
            break;
        }
        if t_done <= t_arr {
            t = t_done;
            if let Some(c) = current {
                remaining[c] = 0.0;
                done[c] = t;
            }
            current = waiting.pop().map(|Reverse(k)| k.1);
        } else {
            if let Some(c) = current {
                remaining[c] = (remaining[c] - (t_arr - t) * cap).max(0.0);
            }
            t = t_arr;
            let j = next;
            next += 1;
            match current {
                None => current = Some(j),
                Some(c) => {
                    if key(j, remaining[j]) < key(c, remaining[c]) {
                        waiting.push(Reverse(Key(key(c, remaining[c]), c)));
                        current = Some(j);
                    } else {
                        waiting.push(Reverse(Key(key(j, remaining[j]), j)));
                    }
                }
            }
        }
    }
    done
}
