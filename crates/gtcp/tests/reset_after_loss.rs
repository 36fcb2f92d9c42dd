//! Resets and unclean connection losses together (issue 15, the churn run's leftovers):
//! whatever flows the applications reset and whichever connections die, every connection
//! closes and both sides forget every flow.

use gtcp::pair::{payload, FlowSpec, Pair, Side, Source};
use gtcp::{Config, Order, Policy, Role, Session};
use proptest::prelude::*;

#[derive(Debug, Clone, Copy)]
enum Act {
    /// Kill the `n`-th live connection (mod their number) on both sides.
    Kill(usize),
    /// Kill it on `side` only; the other side finds it dead `after` ticks later (its
    /// dead-peer timer, or a reset of the socket).
    KillOne(usize, Side, u64),
    /// The application of the `n`-th started flow (mod their number) on `side` resets it.
    Reset(usize, Side),
}

fn run(policy: Policy, specs: Vec<FlowSpec>, mut acts: Vec<(u64, Act)>) -> Pair {
    let config = Config {
        policy,
        chunk: 8 * 1024,
        ..Config::default()
    };
    let mut h = Pair::with_flows(config, specs, 10_000, 2);
    acts.sort_by_key(|a| a.0);
    let mut later = Vec::new();
    let mut acts = acts.into_iter().peekable();
    loop {
        // The next act, or the next end that finds its connection dead.
        later.sort_by_key(|&(at, _, _)| std::cmp::Reverse(at));
        let next_later = later.last().map(|&(at, _, _)| at);
        let next_act = acts.peek().map(|a| a.0);
        let act = match (next_act, next_later) {
            (None, None) => break,
            (Some(a), Some(l)) if l < a => None,
            (None, Some(_)) => None,
            _ => acts.next(),
        };
        let Some((at, act)) = act else {
            let (at, conn, side) = later.pop().expect("peeked");
            while h.now < at && !h.finished() {
                h.step();
            }
            h.kill(conn, Some(side));
            h.handle_events();
            continue;
        };
        while h.now < at && !h.finished() {
            h.step();
        }
        match act {
            Act::KillOne(n, Side::Acceptor, after) => {
                let conns = h.conn_ids();
                if !conns.is_empty() {
                    let c = conns[n % conns.len()];
                    h.kill(c, Some(Side::Acceptor));
                    later.push((at + after, c, Side::Opener));
                }
            }
            Act::KillOne(n, Side::Opener, _) => {
                // The client gives up on it first; what it sends meanwhile on its other
                // connections arrives, then its replacement reaches the server, which drops
                // the old connection for it (as the tunnel's server does).
                let conns = h.conn_ids();
                if !conns.is_empty() {
                    let c = conns[n % conns.len()];
                    h.kill(c, Some(Side::Opener));
                    for other in h.conn_ids() {
                        h.transmit(Side::Opener, other, 10_000);
                    }
                    h.now += h.delay;
                    h.deliver_due();
                    h.kill(c, Some(Side::Acceptor));
                }
            }
            Act::Kill(n) => {
                let conns = h.conn_ids();
                if !conns.is_empty() {
                    h.kill(conns[n % conns.len()], None);
                }
            }
            Act::Reset(n, side) => {
                let ids: Vec<_> = h.ids.iter().flatten().copied().collect();
                if !ids.is_empty() {
                    let _ = h.app_reset(side, ids[n % ids.len()], 7);
                }
            }
        }
        h.handle_events();
    }
    // Ample: the largest scenario needs a few hundred ticks.
    h.run(3_000);
    h
}

fn assert_all_released(h: &mut Pair) {
    // A server keeps a flow whose own reset has not been confirmed until it is (the client
    // does not ask for it); with no connection left, the tunnel's server forgets the whole
    // session after `session_timeout_secs`. That is done here: nothing else may remain.
    if h.acceptor().connections().count() == 0 && !h.acceptor().is_idle() {
        *h.session_mut(Side::Acceptor) =
            Session::new(Role::Acceptor, *h.acceptor().config()).unwrap();
    }
    assert!(
        h.finished(),
        "did not finish: connections {:?}; opener {:?} flows {:?}; acceptor {:?} flows {:?}",
        h.conn_ids(),
        h.opener().counters(),
        h.opener().flow_ids().collect::<Vec<_>>(),
        h.acceptor().counters(),
        h.acceptor().flow_ids().collect::<Vec<_>>(),
    );
    if let Err(e) = h.check_end() {
        panic!("{e}");
    }
}

fn act() -> impl Strategy<Value = (u64, Act)> {
    (
        1u64..80,
        prop_oneof![
            (0usize..8).prop_map(Act::Kill),
            (0usize..8, any::<bool>(), 0u64..10).prop_map(|(n, o, after)| Act::KillOne(
                n,
                if o { Side::Opener } else { Side::Acceptor },
                after
            )),
            (0usize..8, any::<bool>())
                .prop_map(|(n, o)| Act::Reset(n, if o { Side::Opener } else { Side::Acceptor })),
        ],
    )
}

fn specs() -> impl Strategy<Value = Vec<FlowSpec>> {
    prop::collection::vec(
        (
            0u64..40,
            prop_oneof![Just(0usize), 1usize..5_000, 5_000usize..200_000],
            prop_oneof![Just(0usize), 1usize..5_000, 5_000usize..200_000],
        ),
        1..6,
    )
    .prop_map(FlowSpec::from_sizes)
}

proptest! {
    // 48 cases by default (seconds); `PROPTEST_CASES=N` for a longer search.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48),
        max_shrink_iters: 200,
        ..ProptestConfig::default()
    })]

    #[test]
    fn resets_and_losses_leave_nothing_behind(
        tcp in any::<bool>(),
        specs in specs(),
        acts in prop::collection::vec(act(), 1..6),
    ) {
        let policy = Policy::new(if tcp { Order::Tcp } else { Order::Srpt });
        let mut h = run(policy, specs, acts);
        assert_all_released(&mut h);
    }
}

/// The churn run's leftover (issue 15): the client resets a flow, the reset reaches the server,
/// whose confirmation is still queued when the client loses the flow's connection uncleanly
/// (its dead-peer timer fired on a starved process) and re-sends the reset on another flow's
/// connection. The server took the duplicate for a crossed reset of its own and dropped the
/// queued confirmation: the client then waited for it forever, kept the reset flow, the other
/// flow and that connection (kept alive by keepalives) for good.
#[test]
fn a_reset_sent_again_after_an_unclean_loss_is_confirmed_and_everything_closes() {
    let mut h = Pair::new(Config::default()).unwrap();
    h.acceptor_source = Source::Bytes(vec![9u8; 200_000].into());
    let a = h
        .open_flow(None, "r", 0, None, Source::Bytes(vec![1u8; 1000].into()))
        .unwrap();
    let x = h.add_connection(Some(a)).unwrap();
    let b = h
        .open_flow(None, "r", 0, None, Source::Bytes(vec![2u8; 1000].into()))
        .unwrap();
    let y = h.add_connection(Some(b)).unwrap();
    h.app_write(Side::Opener, a, usize::MAX);
    h.app_write(Side::Opener, b, usize::MAX);
    // Both flows open and carry a little (one small round trip).
    h.transmit(Side::Opener, x, 1 << 20);
    h.transmit(Side::Opener, y, 1 << 20);
    h.deliver_due();
    h.handle_events();
    // The client's application resets flow a mid-download; the reset reaches the server,
    // whose confirmation waits for its next poll.
    h.app_reset(Side::Opener, a, 3).unwrap();
    h.transmit(Side::Opener, x, 1 << 20);
    h.deliver(Side::Opener, x, usize::MAX);
    // The client gives up on x (dead peer) before the confirmation came: the reset goes again,
    // on b's connection, and reaches the server before it polled.
    h.kill(x, Some(Side::Opener));
    h.transmit(Side::Opener, y, 1 << 20);
    h.deliver(Side::Opener, y, usize::MAX);
    // The server learns x is gone; then everything runs to its end.
    h.kill(x, Some(Side::Acceptor));
    h.app_finish(Side::Opener, b).unwrap();
    assert!(h.pump(10_000, 64 * 1024), "the pair goes quiet");
    assert_eq!(h.conn_ids(), Vec::new(), "every connection closed");
    let opener: Vec<_> = h.opener().flow_ids().collect();
    let acceptor: Vec<_> = h.acceptor().flow_ids().collect();
    assert!(
        opener.is_empty() && acceptor.is_empty(),
        "flows kept: {opener:?} / {acceptor:?}"
    );
    assert_eq!(h.check_end(), Ok(()));
}

/// A server restarted (or forgot the session) while a download was under way: the flow's
/// replacement connection reaches an acceptor that never saw the flow open, and carries no
/// opening (the old instance had confirmed it). The new instance resets the flow, so the
/// application sees a reset instead of waiting forever for bytes nobody will send; then
/// everything closes on both sides.
#[test]
fn a_replacement_connection_reaching_a_new_acceptor_instance_resets_its_flow() {
    let config = Config::default();
    let mut h = Pair::new(config).unwrap();
    h.acceptor_source = Source::Bytes(vec![9u8; 5_000_000].into());
    let f = h
        .open_flow(None, "r", 0, None, Source::Bytes(vec![1u8; 300_000].into()))
        .unwrap();
    let c = h.add_connection(Some(f)).unwrap();
    h.app_write(Side::Opener, f, usize::MAX);
    // Part of the transfer, both ways.
    h.pump(3, 64 * 1024);
    assert!(h.apps[0][&f].read > 0, "the download started");
    // The server restarts: its connection dies, and a new instance (a fresh session) takes
    // the client's replacement connection.
    h.kill(c, None);
    *h.session_mut(Side::Acceptor) = Session::new(Role::Acceptor, config).unwrap();
    h.apps[1].clear();
    assert!(h.pump(10_000, 64 * 1024), "the pair goes quiet");
    assert!(h.apps[0][&f].reset, "the application sees a reset");
    assert_eq!(
        h.session_mut(Side::Opener)
            .read(std::time::Duration::ZERO, f, 1),
        Err(gtcp::SessionError::UnknownFlow(f)),
        "the client forgot the flow"
    );
    assert_eq!(h.conn_ids(), Vec::new(), "every connection closed");
    assert!(h.opener().is_idle() && h.acceptor().is_idle());
}

/// Pinned case of `resets_and_losses_leave_nothing_behind` (found 2026-11-23): under `tcp`, a
/// flow's connection dies on the server's side (its bytes become orphan debt) and the server's
/// application resets another flow at once. The reset's dropped bytes used to eat the orphan
/// debt instead of the reset flow's own virtual queue: the surviving flow's replacement then
/// inherited nothing, the reset flow's connection kept a queue only its own flow may use, and
/// the surviving download stalled for good.
#[test]
fn a_reset_beside_a_dead_connection_leaves_the_other_flows_bytes_a_carrier() {
    let specs = vec![
        FlowSpec {
            start: 0,
            up: vec![],
            down: vec![],
        },
        FlowSpec {
            start: 12,
            up: vec![],
            down: payload(189_117, 101),
        },
        FlowSpec {
            start: 22,
            up: vec![],
            down: payload(79_665, 102),
        },
    ];
    let acts = vec![
        (28, Act::KillOne(1, Side::Acceptor, 5)),
        (28, Act::Reset(7, Side::Acceptor)),
    ];
    assert_all_released(&mut run(Policy::new(Order::Tcp), specs, acts));
}
