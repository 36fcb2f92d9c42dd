//! Property test: the receiver's reassembly against a byte-set model.

use proptest::prelude::*;
use sim::tcp::Receiver;
use std::collections::BTreeSet;

proptest! {
    #[test]
    fn receiver_matches_model(segs in proptest::collection::vec((0u64..400, 1u32..60), 1..80), delack: bool) {
        let mut r = Receiver::new(delack);
        let mut have: BTreeSet<u64> = BTreeSet::new();
        let mut delivered = 0u64;
        for (seq, len) in segs {
            let before: usize = have.len();
            have.extend(seq..seq + len as u64);
            let o = r.on_data(seq, len);
            // rcv_nxt = first byte missing from the model.
            let nxt = (0..).find(|b| !have.contains(b)).unwrap();
            prop_assert_eq!(r.rcv_nxt(), nxt);
            // Delivered ranges are contiguous and add up.
            prop_assert_eq!(o.delivered.0, delivered);
            delivered = o.delivered.1;
            prop_assert_eq!(delivered, nxt);
            // Out-of-order ranges are exactly the model's bytes above rcv_nxt.
            let ooo: BTreeSet<u64> = r.out_of_order().iter().flat_map(|&(s, e)| s..e).collect();
            let model: BTreeSet<u64> = have.range(nxt..).copied().collect();
            prop_assert_eq!(&ooo, &model);
            prop_assert_eq!(r.ooo_bytes(), model.len() as u64);
            // Ranges sorted, disjoint, non-adjacent.
            for w in r.out_of_order().windows(2) {
                prop_assert!(w[0].1 < w[1].0);
            }
            prop_assert_eq!(o.duplicate, have.len() == before);
            // Out-of-order and duplicate segments are acknowledged at once.
            if seq > nxt || o.duplicate {
                prop_assert!(o.ack_now);
            }
        }
    }
}
