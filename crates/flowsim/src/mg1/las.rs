//! LAS (foreground–background). Flows with equal attained service form a group; groups sit
//! on a stack ordered by attained service with the least-served group on top. Only the top
//! group is served (each of its flows at `C/|group|`); it completes flows when its level
//! reaches their sizes and merges into the next group when it reaches that group's level.
//! An arrival (attained service 0) becomes a new top group.

use crate::path::SamplePath;
use crate::Key;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

struct Group {
    level: f64,
    sizes: BinaryHeap<Reverse<Key>>,
}

pub(super) fn run(path: &SamplePath, cap: f64) -> Vec<f64> {
    let jobs = path.jobs();
    let mut done = vec![0.0; jobs.len()];
    let mut stack: Vec<Group> = Vec::new();
    let mut t = 0.0f64;
    let mut next = 0;
    loop {
        let t_arr = jobs.get(next).map_or(f64::INFINITY, |j| j.arrival);
        let Some(top) = stack.last() else {
            if t_arr.is_infinite() {
                break;
            }
            t = t_arr;
            push_arrival(&mut stack, next, jobs[next].size);
            next += 1;
            continue;
        };
        let g = top.sizes.len() as f64;
        let min_size = top.sizes.peek().map_or(f64::INFINITY, |Reverse(k)| k.0);
        let below = if stack.len() >= 2 {
            stack[stack.len() - 2].level
        } else {
            f64::INFINITY
        };
        let target = min_size.min(below);
        let t_ev = t + (target - top.level) * g / cap;
        if t_ev <= t_arr {
            t = t_ev;
            let top_idx = stack.len() - 1;
            stack[top_idx].level = target;
            // Completions first (sizes reached), then a merge if the level met the next group.
            while let Some(Reverse(Key(s, id))) = stack[top_idx].sizes.peek().copied() {
                if s <= target {
                    stack[top_idx].sizes.pop();
                    done[id] = t;
                } else {
                    break;
                }
            }
            if stack[top_idx].sizes.is_empty() {
                stack.pop();
            } else if target >= below {
                let Some(mut g_top) = stack.pop() else {
                    break;
                };
                let Some(g_below) = stack.last_mut() else {
                    break;
                };
                if g_top.sizes.len() > g_below.sizes.len() {
                    std::mem::swap(&mut g_top.sizes, &mut g_below.sizes);
                }
                g_below.sizes.extend(g_top.sizes.drain());
            }
        } else {
            let top_idx = stack.len() - 1;
            stack[top_idx].level += (t_arr - t) * cap / g;
            // Guard against rounding past a size or the next level.
            stack[top_idx].level = stack[top_idx].level.min(target);
            t = t_arr;
            push_arrival(&mut stack, next, jobs[next].size);
            next += 1;
        }
    }
    done
}

fn push_arrival(stack: &mut Vec<Group>, id: usize, size: f64) {
    if let Some(top) = stack.last_mut() {
        if top.level == 0.0 {
            top.sizes.push(Reverse(Key(size, id)));
            return;
        }
    }
    let mut sizes = BinaryHeap::new();
    sizes.push(Reverse(Key(size, id)));
    stack.push(Group { level: 0.0, sizes });
}
