//! The access controller (`gtcp::admission`) against a simple model of its queue, under random
//! arrivals, ends (completed, reset, lost), ticks and bytes sent, with M fixed or adapted: the
//! waiting flows are served in arrival order and never ahead of a free slot; no more than M are
//! ever admitted; a flow beyond the waiting bound is refused; an ended flow leaves no trace; the
//! adaptive M moves by one step at a time within its bounds.

use std::collections::{BTreeSet, VecDeque};
use std::time::Duration;

use gtcp::admission::{Adaptive, Admission, AdmissionConfig, Limit, Verdict};
use gtcp::FlowId;
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    /// A new flow arrives after this many milliseconds.
    Arrive(u32),
    /// The flow at this index (modulo the present flows) ends: completed with a size, or
    /// reset / lost (no size).
    End(usize, Option<u32>),
    /// Bytes sent, then a tick, after this many milliseconds.
    Tick(u32, u32),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0u32..3_000).prop_map(Op::Arrive),
        3 => (any::<usize>(), prop::option::of(1u32..2_000_000)).prop_map(|(i, s)| Op::End(i, s)),
        3 => (0u32..3_000, 0u32..3_000_000).prop_map(|(ms, b)| Op::Tick(ms, b)),
    ]
}

fn limit() -> impl Strategy<Value = Limit> {
    prop_oneof![
        (1u32..5).prop_map(Limit::Fixed),
        (1u32..4, 0.0f64..0.1, 0u32..4).prop_map(|(max_extra, min_gain, check_floor)| {
            Limit::Adaptive(Adaptive {
                min: 1,
                max: 1 + max_extra,
                window: Duration::from_secs(3),
                period: Duration::from_millis(1_500),
                target_waiting: 2,
                probe: Duration::from_secs(3),
                memory: Duration::from_secs(30),
                min_gain,
                check_floor,
                ..Adaptive::default()
            })
        }),
    ]
}

/// Checks `admitted` (returned by a call) against the model's queue and moves them to active.
fn take(
    active: &mut BTreeSet<FlowId>,
    waiting: &mut VecDeque<FlowId>,
    admitted: &[FlowId],
) -> Result<(), TestCaseError> {
    for f in admitted {
        prop_assert_eq!(
            waiting.pop_front(),
            Some(*f),
            "admitted out of arrival order"
        );
        active.insert(*f);
    }
    Ok(())
}

fn run(limit: Limit, max_waiting: usize, ops: Vec<Op>) -> Result<(), TestCaseError> {
    let mut a = Admission::new(AdmissionConfig { limit, max_waiting }).unwrap();
    let (lo, hi) = match limit {
        Limit::Fixed(m) => (m, m),
        Limit::Adaptive(c) => (c.min, c.max),
    };
    let mut active: BTreeSet<FlowId> = BTreeSet::new();
    let mut waiting: VecDeque<FlowId> = VecDeque::new();
    let mut now = Duration::ZERO;
    let mut next = 0u64;
    let mut m = a.limit();
    for op in ops {
        let before = active.len();
        match op {
            Op::Arrive(ms) => {
                now += Duration::from_millis(u64::from(ms));
                next += 1;
                let f = FlowId(next);
                let free = active.len() < a.limit() as usize && waiting.is_empty();
                match a.arrive(now, f) {
                    Verdict::Admitted => {
                        prop_assert!(free, "admitted {f:?} without a free slot");
                        active.insert(f);
                    }
                    Verdict::Waiting(pos) => {
                        prop_assert!(!free, "{f:?} waits though a slot is free");
                        prop_assert_eq!(pos, waiting.len());
                        prop_assert!(waiting.len() < max_waiting);
                        waiting.push_back(f);
                    }
                    Verdict::Refused => {
                        prop_assert_eq!(waiting.len(), max_waiting, "refused below the bound");
                    }
                }
            }
            Op::End(i, size) => {
                let present: Vec<FlowId> = active.iter().chain(waiting.iter()).copied().collect();
                if present.is_empty() {
                    continue;
                }
                let f = present[i % present.len()];
                let admitted = a.release(now, f, size.map(u64::from));
                active.remove(&f);
                waiting.retain(|&w| w != f);
                take(&mut active, &mut waiting, &admitted)?;
            }
            Op::Tick(ms, bytes) => {
                now += Duration::from_millis(u64::from(ms));
                a.sent(now, u64::from(bytes));
                let admitted = a.tick(now);
                take(&mut active, &mut waiting, &admitted)?;
            }
        }
        let m_now = a.limit();
        prop_assert!((lo..=hi).contains(&m_now), "M {m_now} outside [{lo}, {hi}]");
        prop_assert!(
            m_now.abs_diff(m) <= 1,
            "M moved from {m} to {m_now} in one call"
        );
        m = m_now;
        prop_assert_eq!(a.active(), active.len());
        prop_assert_eq!(a.waiting(), waiting.len());
        // Never more admitted than M allows (more may stay active after M was lowered, until
        // they end), and no slot left free while a flow waits.
        prop_assert!(
            active.len() <= (m_now as usize).max(before),
            "{} active with M = {m_now} (before: {before})",
            active.len()
        );
        if !waiting.is_empty() {
            prop_assert!(
                active.len() >= m_now as usize,
                "a slot free while flows wait"
            );
        }
        for f in &waiting {
            prop_assert!(a.is_waiting(*f));
        }
        for f in &active {
            prop_assert!(!a.is_waiting(*f));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn the_queue_matches_a_simple_model(
        limit in limit(),
        max_waiting in 0usize..6,
        ops in prop::collection::vec(op(), 0..400),
    ) {
        run(limit, max_waiting, ops)?;
    }
}
