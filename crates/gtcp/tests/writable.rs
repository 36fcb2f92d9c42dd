//! `FlowWritable` (issue 15; the driver contract's step 1): an application whose write took
//! less than offered is told when room appears, and never waits while its flow has room.
//!
//! A flow's room (`Session::send_capacity`) is its own connection's room, or a send buffer of
//! its own bytes lent from a budget the whole session shares. Room can thus appear without the
//! flow itself doing anything: another connection carries the bytes that held the budget, a
//! connection is added, a reset frees what a flow had lent. The tick loop of
//! `Pair` checks after every tick that no application waiting for `FlowWritable` has room of
//! at least `Session::writable_threshold` (`check_liveness`).

use gtcp::pair::{FlowSpec, Pair, Side, Source};
use gtcp::{Config, Order, Policy, SessionError};
use proptest::prelude::*;

fn policy() -> impl Strategy<Value = Policy> {
    prop_oneof![
        Just(Policy::new(Order::Tcp)),
        Just(Policy::new(Order::Srpt)),
        Just(Policy::new(Order::Las)),
        Just(Policy::new(Order::Fair)),
        Just(Policy::new(Order::Psps { threshold: 30_000 })),
    ]
}

/// Uploads of several send buffers, so applications run short of room again and again, some
/// flows on the lent budget (sent ahead of their connections), some on their own buffers.
fn bulk_specs() -> impl Strategy<Value = Vec<FlowSpec>> {
    prop::collection::vec(
        (
            0u64..30,
            1usize..400_000,
            prop_oneof![Just(0usize), 1usize..100_000],
        ),
        2..10,
    )
    .prop_map(FlowSpec::from_sizes)
}

fn run(policy: Policy, specs: Vec<FlowSpec>, send_buffer: u64, rate: usize) -> Pair {
    let config = Config {
        policy,
        chunk: 4 * 1024,
        send_buffer,
        ..Config::default()
    };
    let mut h = Pair::with_flows(config, specs, rate, 2);
    h.check_liveness = true;
    h.run(50_000);
    h
}

/// A pair with one flow whose opener application ran short of room: it offered more than its
/// send buffer and waits for `FlowWritable`.
fn waiting_for_room(policy: Policy) -> (Pair, gtcp::FlowId) {
    let config = Config {
        policy,
        chunk: 4 * 1024,
        send_buffer: 16 * 1024,
        ..Config::default()
    };
    let mut h = Pair::new(config).expect("config");
    let f = h
        .open_flow(None, "r", 0, None, Source::Pattern)
        .expect("open");
    h.add_connection(Some(f)).expect("connection");
    let took = h.app_write(Side::Opener, f, 1 << 20);
    assert_eq!(took, 16 * 1024, "one send buffer taken");
    assert!(h.apps[0][&f].blocked, "the write took less than offered");
    (h, f)
}

/// Once its bytes go out, room appears and the application is told (and writes again).
#[test]
fn a_short_write_is_told_when_room_appears() {
    for order in [Order::Tcp, Order::Srpt, Order::Fair] {
        let (mut h, f) = waiting_for_room(Policy::new(order));
        h.pump(4, 64 * 1024);
        assert!(
            !h.apps[0][&f].blocked,
            "{order:?}: never told there was room again"
        );
        assert!(h.session_mut(Side::Opener).send_capacity(f).expect("open") >= 8 * 1024);
    }
}

/// A reset from the peer while the application waits for room: it is told (`FlowWritable`),
/// and its next call says the flow takes no more bytes. Before, only `FlowReadable` came, and
/// a driver whose reading half had already ended (the tunnel's relay after the peer's end)
/// kept the application's socket open for good (issue 15: target connections left open after
/// a benchmark aborted its flows).
#[test]
fn a_reset_tells_an_application_waiting_for_room() {
    for order in [Order::Tcp, Order::Srpt] {
        let (mut h, f) = waiting_for_room(Policy::new(order));
        // The acceptor sees the flow open, then resets it (its target went away) while the
        // opener's application still waits: it wrote no more since.
        h.pump(1, 1024);
        assert!(h.apps[0][&f].blocked, "{order:?}: no room yet");
        h.app_reset(Side::Acceptor, f, 9).expect("reset");
        // Only the reset travels (the opener sends nothing meanwhile, so no room appears).
        let conn = h.conn_ids()[0];
        h.handle_events();
        assert!(
            h.transmit(Side::Acceptor, conn, 64 * 1024) > 0,
            "the reset goes out"
        );
        h.deliver(Side::Acceptor, conn, usize::MAX);
        h.handle_events();
        assert!(
            !h.apps[0][&f].blocked,
            "{order:?}: the waiting application was never told"
        );
        let s = h.session_mut(Side::Opener);
        assert!(
            matches!(
                s.send_capacity(f),
                Err(SessionError::Finished(_) | SessionError::UnknownFlow(_))
            ),
            "{order:?}: a reset flow takes no more bytes"
        );
    }
}

/// Room that comes back through the session's lend budget alone. Under SRPT flow W (the
/// shorter) is carried by L's connection while W's own connection sends nothing: W hands over
/// beyond its own buffer, lent from the budget (`LEND_PER_CONNECTION` buffers per connection), until the budget
/// is spent and W's write is short. Once L's connection has carried all of W's bytes, W's own
/// numbers are those of a flow with room, and only the budget holds it; a connection added
/// (a warm spare) brings as many buffers more, and W must be told. Before, `FlowWritable` came
/// only where a flow's own numbers changed, and W waited with room.
#[test]
fn room_freed_in_the_lend_budget_is_announced() {
    // The budget of two connections is 128 KiB, whatever `LEND_PER_CONNECTION` is: well
    // within the peer's initial credit (no acknowledgement comes back here).
    const B: usize = 64 * 1024 / gtcp::session::LEND_PER_CONNECTION as usize;
    let config = Config {
        policy: Policy::new(Order::Srpt),
        chunk: (B / 4) as u32,
        send_buffer: B as u64,
        ..Config::default()
    };
    let mut h = Pair::new(config).expect("config");
    let w = h
        .open_flow(None, "r", 0, Some(10_000_000), Source::Pattern)
        .expect("open W");
    let l = h
        .open_flow(None, "r", 0, Some(1 << 30), Source::Pattern)
        .expect("open L");
    let cw = h.add_connection(Some(w)).expect("W's connection");
    let cl = h.add_connection(Some(l)).expect("L's connection");
    // The openings go out; from now on W's connection sends nothing.
    for c in [cw, cl] {
        h.transmit(Side::Opener, c, 1024);
        h.deliver(Side::Opener, c, usize::MAX);
    }
    h.handle_events();
    let step = B / 4 + 64;
    let mut spent = false;
    for _ in 0..200 {
        h.app_write(Side::Opener, l, 1 << 20);
        if !h.apps[0][&w].blocked {
            h.app_write(Side::Opener, w, 1 << 20);
        }
        let state = h.opener().flow_send_state(w).expect("W");
        if h.apps[0][&w].blocked && state.unsent == 0 {
            spent = true;
            break;
        }
        assert!(
            h.transmit(Side::Opener, cl, step) > 0,
            "L's connection carries"
        );
        h.deliver(Side::Opener, cl, usize::MAX);
        h.handle_events();
    }
    assert!(spent, "W never ran out of lent room");
    let state = h.opener().flow_send_state(w).expect("W");
    assert!(
        state.handover_room < h.opener().writable_threshold(),
        "the budget is spent: {state:?}"
    );
    h.add_connection(None).expect("a warm spare");
    h.handle_events();
    let state = h.opener().flow_send_state(w).expect("W");
    assert!(
        state.handover_room >= h.opener().writable_threshold(),
        "{state:?}"
    );
    assert!(
        !h.apps[0][&w].blocked,
        "W has {} bytes of room and was not told",
        state.handover_room
    );
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64),
        ..ProptestConfig::default()
    })]

    /// Every policy, send buffers of one to sixteen chunks: every application that ran short
    /// of room finishes its upload (so it was told `FlowWritable`), and none ever waited while
    /// its flow had room.
    #[test]
    fn no_application_waits_for_room_its_flow_has(
        policy in policy(), specs in bulk_specs(),
        send_buffer in prop_oneof![Just(8 * 1024u64), Just(16 * 1024), Just(64 * 1024)],
        rate in 2_000usize..30_000,
    ) {
        let h = run(policy, specs.clone(), send_buffer, rate);
        let waits: Vec<&String> = h.idle_breaches.iter().filter(|b| b.contains("FlowWritable")).collect();
        prop_assert!(waits.is_empty(), "{:?}", &waits[..waits.len().min(5)]);
        prop_assert!(h.finished(), "did not finish: {:?} / {:?}", h.opener().counters(), h.acceptor().counters());
        h.check_end().map_err(TestCaseError::fail)?;
    }
}
