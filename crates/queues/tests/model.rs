//! Each discipline against a simple model (a sorted Vec): service order, push-out, byte
//! conservation and the buffer bound, on random arrival/departure sequences.

use proptest::prelude::*;
use queues::{Discipline, DropTail, Packet, Run, Run2c};

#[derive(Debug, Clone)]
enum Op {
    Arrive { flow: u64, run: u64, size: u32 },
    Depart,
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(
        prop_oneof![
            3 => (0u64..6, 0u64..60, 40u32..1501).prop_map(|(flow, r, size)| Op::Arrive {
                flow,
                run: r * 500,
                size
            }),
            2 => Just(Op::Depart),
        ],
        0..300,
    )
}

/// The model: every stored packet with a sort key; served from the smallest key, pushed out
/// (or dropped) from the largest. Ties are broken by arrival number in both directions.
struct Model {
    limit: usize,
    /// (key, arrival, packet), kept sorted.
    v: Vec<(u64, u64, Packet<u64>)>,
    arrivals: u64,
    /// Drop-tail: the arrival is refused when full (no push-out).
    refuse_when_full: bool,
    key: fn(&Packet<u64>) -> u64,
}

impl Model {
    fn enqueue(&mut self, p: Packet<u64>) -> Vec<u64> {
        let n = self.arrivals;
        self.arrivals += 1;
        if self.refuse_when_full && self.v.len() == self.limit {
            return vec![p.item];
        }
        self.v.push(((self.key)(&p), n, p));
        self.v.sort_by_key(|&(k, a, _)| (k, a));
        if self.v.len() > self.limit {
            return vec![self.v.pop().map(|e| e.2.item).unwrap_or(u64::MAX)];
        }
        vec![]
    }
    fn dequeue(&mut self) -> Option<u64> {
        if self.v.is_empty() {
            None
        } else {
            Some(self.v.remove(0).2.item)
        }
    }
}

fn check<D: Discipline<u64>>(mut q: D, mut m: Model, ops: &[Op]) -> Result<(), TestCaseError> {
    let (mut offered, mut sent, mut dropped_bytes) = (0u64, 0u64, 0u64);
    let mut dropped = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        match *op {
            Op::Arrive { flow, run, size } => {
                let p = Packet {
                    item: i as u64,
                    flow,
                    size,
                    run,
                };
                offered += u64::from(size);
                dropped.clear();
                q.enqueue(p, i as u64, &mut dropped);
                dropped_bytes += dropped.iter().map(|p| u64::from(p.size)).sum::<u64>();
                let got: Vec<u64> = dropped.iter().map(|p| p.item).collect();
                prop_assert_eq!(got, m.enqueue(p), "drops at op {}", i);
            }
            Op::Depart => {
                let got = q.dequeue(i as u64);
                sent += got.map_or(0, |p| u64::from(p.size));
                prop_assert_eq!(got.map(|p| p.item), m.dequeue(), "service at op {}", i);
            }
        }
        prop_assert!(q.len_packets() <= m.limit, "buffer bound");
        prop_assert_eq!(q.len_packets(), m.v.len());
        prop_assert_eq!(
            q.len_bytes(),
            m.v.iter().map(|e| u64::from(e.2.size)).sum::<u64>()
        );
        prop_assert_eq!(
            offered,
            sent + dropped_bytes + q.len_bytes(),
            "bytes conserved"
        );
    }
    Ok(())
}

const TH: u64 = 10_000;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn droptail_matches_fifo_model(limit in 0usize..12, ops in ops()) {
        let m = Model { limit, v: vec![], arrivals: 0, refuse_when_full: true, key: |_| 0 };
        check(DropTail::new(limit), m, &ops)?;
    }

    #[test]
    fn run_matches_sorted_model(limit in 0usize..12, ops in ops()) {
        let m = Model { limit, v: vec![], arrivals: 0, refuse_when_full: false, key: |p| p.run };
        check(Run::new(limit), m, &ops)?;
    }

    #[test]
    fn run2c_matches_two_key_model(limit in 0usize..12, ops in ops()) {
        let m = Model {
            limit, v: vec![], arrivals: 0, refuse_when_full: false,
            key: |p| u64::from(p.run >= TH),
        };
        check(Run2c::new(limit, TH), m, &ops)?;
    }
}
