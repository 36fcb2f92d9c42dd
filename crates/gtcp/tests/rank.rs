//! `Session::ranked_flows`: the flows with bytes to send, in the order the policy serves them.

use std::time::Duration;

use gtcp::{Config, FlowId, Policy, Role, Session};

/// An opener under `policy` with flows of these sizes (`None`: unknown), each with a
/// kilobyte handed over; returns the session and the flows in opening order.
fn session(policy: &str, sizes: &[Option<u64>]) -> (Session, Vec<FlowId>) {
    let config = Config {
        policy: policy.parse::<Policy>().unwrap(),
        ..Config::default()
    };
    let mut s = Session::new(Role::Opener, config).unwrap();
    let flows = sizes
        .iter()
        .map(|&size| {
            let f = s.open_flow(Duration::ZERO, None, "r", 0, size).unwrap();
            assert_eq!(s.write(f, &[7u8; 1000]).unwrap(), 1000);
            f
        })
        .collect();
    (s, flows)
}

fn order(s: &Session, n: usize) -> Vec<FlowId> {
    s.ranked_flows(n).iter().map(|r| r.flow).collect()
}

#[test]
fn srpt_ranks_the_least_remaining_first_and_unknown_sizes_last() {
    let (s, f) = session("srpt", &[Some(300_000), None, Some(100_000), Some(200_000)]);
    assert_eq!(order(&s, 10), [f[2], f[3], f[0], f[1]]);
    // The first n only, still in order.
    assert_eq!(order(&s, 2), [f[2], f[3]]);
    assert!(order(&s, 0).is_empty());
    let r = s.ranked_flows(10);
    assert_eq!(
        r.iter().map(|r| r.remaining).collect::<Vec<_>>(),
        [Some(100_000), Some(200_000), Some(300_000), None]
    );
    assert!(r.iter().all(|r| r.sent == 0 && r.unsent == 1000));
    assert_eq!(r[0].route.as_deref(), Some("r"));
}

#[test]
fn size_blind_policies_rank_by_arrival_when_nothing_was_sent() {
    for policy in ["tcp", "las"] {
        let (s, f) = session(policy, &[Some(300_000), None, Some(100_000)]);
        assert_eq!(order(&s, 10), f, "{policy}");
    }
}

#[test]
fn flows_with_nothing_to_send_are_not_ranked() {
    let config = Config {
        policy: "srpt".parse::<Policy>().unwrap(),
        ..Config::default()
    };
    let mut s = Session::new(Role::Opener, config).unwrap();
    let idle = s.open_flow(Duration::ZERO, None, "r", 0, None).unwrap();
    let busy = s.open_flow(Duration::ZERO, None, "r", 0, None).unwrap();
    s.write(busy, &[1u8; 10]).unwrap();
    assert_eq!(order(&s, 10), [busy]);
    assert_ne!(idle, busy);
}
