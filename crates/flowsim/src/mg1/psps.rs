//! PS+PS: a high-priority PS class for the first `th` units of every flow, a low-priority PS
//! class for the rest, served only when the high class is empty. Each class has its own
//! virtual clock, reset when the class empties.

use crate::path::SamplePath;
use crate::Key;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub(super) fn run(path: &SamplePath, cap: f64, th: f64) -> Vec<f64> {
    let jobs = path.jobs();
    let mut done = vec![0.0; jobs.len()];
    let mut high: BinaryHeap<Reverse<Key>> = BinaryHeap::new();
    let mut low: BinaryHeap<Reverse<Key>> = BinaryHeap::new();
    let (mut t, mut vh, mut vl) = (0.0f64, 0.0f64, 0.0f64);
    let mut next = 0;
    loop {
        let t_arr = jobs.get(next).map_or(f64::INFINITY, |j| j.arrival);
        let nh = high.len();
        let nl = low.len();
        let (t_ev, is_high) = if nh > 0 {
            let Reverse(k) = high.peek().copied().unwrap_or(Reverse(Key(vh, 0)));
            (t + (k.0 - vh) * nh as f64 / cap, true)
        } else if nl > 0 {
            let Reverse(k) = low.peek().copied().unwrap_or(Reverse(Key(vl, 0)));
            (t + (k.0 - vl) * nl as f64 / cap, false)
        } else {
            (f64::INFINITY, false)
        };
        if t_arr.is_infinite() && t_ev.is_infinite() {
            break;
        }
        if t_ev <= t_arr {
            t = t_ev;
            if is_high {
                let Some(Reverse(Key(v, id))) = high.pop() else {
                    break;
                };
                vh = v;
                let size = jobs[id].size;
                if size <= th {
                    done[id] = t;
                } else {
                    if low.is_empty() {
                        vl = 0.0;
                    }
                    low.push(Reverse(Key(vl + (size - th), id)));
                }
                if high.is_empty() {
                    vh = 0.0;
                }
            } else {
                let Some(Reverse(Key(v, id))) = low.pop() else {
                    break;
                };
                vl = v;
                done[id] = t;
                if low.is_empty() {
                    vl = 0.0;
                }
            }
        } else {
            let dt = t_arr - t;
            if nh > 0 {
                vh += dt * cap / nh as f64;
            } else if nl > 0 {
                vl += dt * cap / nl as f64;
            }
            t = t_arr;
            let size = jobs[next].size;
            if th > 0.0 {
                high.push(Reverse(Key(vh + size.min(th), next)));
            } else {
                if low.is_empty() {
                    vl = 0.0;
                }
                low.push(Reverse(Key(vl + size, next)));
            }
            next += 1;
        }
    }
    done
}
