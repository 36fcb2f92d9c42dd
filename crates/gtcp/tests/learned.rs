//! A session learns the size of every flow it completes sending, per route, whatever the
//! policy; past the cold start the Gittins index is in use and the μ-rule ranks the routes by
//! their mean.

use gtcp::pair::{FlowSpec, Pair, Side};
use gtcp::policy::learned::COLD_START_FLOWS;
use gtcp::{Config, Policy};

#[test]
fn completed_flows_feed_their_route_estimate() {
    // The pair opens flow i on route `r{i % 3}`; each route's flows have one size per direction.
    let per_route = COLD_START_FLOWS as usize + 4;
    let sizes: Vec<(u64, usize, usize)> = (0..3 * per_route)
        .map(|i| (i as u64 * 3, 100 * (3 - i % 3), 5_000 * (1 + i % 3)))
        .collect();
    let config = Config {
        policy: "gittins".parse::<Policy>().unwrap(),
        ..Config::default()
    };
    let mut pair = Pair::with_flows(config, FlowSpec::from_sizes(sizes), 20_000, 2);
    assert!(pair.run(200_000), "the transfers end");
    pair.check_transfers().unwrap();
    for side in [Side::Acceptor, Side::Opener] {
        let size = |k: usize| match side {
            Side::Acceptor => 5_000.0 * (1 + k) as f64,
            Side::Opener => 100.0 * (3 - k) as f64,
        };
        let mut routes: Vec<_> = pair.session(side).learned_sizes().routes().collect();
        routes.sort_by_key(|r| r.route.map(str::to_owned));
        assert_eq!(routes.len(), 3, "{side:?}");
        for (k, r) in routes.iter().enumerate() {
            assert_eq!(r.route, Some(format!("r{k}").as_str()));
            assert_eq!(r.completed, per_route as u64, "{side:?} r{k}");
            assert!(r.indexed, "{side:?} r{k}: past the cold start");
            let m = r.mean.unwrap();
            assert!(
                (m - size(k)).abs() < 1e-6 * size(k),
                "{side:?} r{k}: mean {m}"
            );
        }
        // μ-rule ranks follow the means.
        let mut by_rank = routes.clone();
        by_rank.sort_by_key(|r| r.rank);
        let order: Vec<_> = by_rank.iter().map(|r| r.route.unwrap()).collect();
        let expected = match side {
            Side::Acceptor => ["r0", "r1", "r2"],
            Side::Opener => ["r2", "r1", "r0"],
        };
        assert_eq!(order, expected, "{side:?}");
    }
}
