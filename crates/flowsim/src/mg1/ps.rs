//! Processor sharing with a virtual clock: `V` is the service every present flow has
//! received since the busy period began (`dV/dt = C/n`); a flow arriving at `V_a` with size
//! `s` leaves when `V = V_a + s`.

use crate::path::SamplePath;
use crate::Key;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Returns completion times and the virtual time at each arrival (FSP's priority key is
/// `V_a + s`, the flow's virtual PS finishing point).
pub(super) fn run(path: &SamplePath, cap: f64) -> (Vec<f64>, Vec<f64>) {
    let jobs = path.jobs();
    let mut done = vec![0.0; jobs.len()];
    let mut v_arr = vec![0.0; jobs.len()];
    let mut heap: BinaryHeap<Reverse<Key>> = BinaryHeap::new();
    let (mut t, mut v) = (0.0f64, 0.0f64);
    let mut next = 0;
    loop {
        let n = heap.len();
        let t_arr = jobs.get(next).map_or(f64::INFINITY, |j| j.arrival);
        let t_dep = heap
            .peek()
            .map_or(f64::INFINITY, |Reverse(k)| t + (k.0 - v) * n as f64 / cap);
        if t_arr.is_infinite() && t_dep.is_infinite() {
            break;
        }
        if t_dep <= t_arr {
            let Some(Reverse(Key(vf, id))) = heap.pop() else {
                break;
            };
            t = t_dep;
            v = vf;
            done[id] = t;
            if heap.is_empty() {
                v = 0.0;
            }
        } else {
            if n > 0 {
                v += (t_arr - t) * cap / n as f64;
            }
            t = t_arr;
            v_arr[next] = v;
            heap.push(Reverse(Key(v + jobs[next].size, next)));
            next += 1;
        }
    }
    (done, v_arr)
}
