//! Access control of background flows in the session (paper 004, Section III-B): at most M
//! admitted, the rest wait with no connection and no bytes, and a slot frees on completion, on
//! a reset and when a flow's connection is lost for good.

use std::time::Duration;

use gtcp::admission::{AdmissionConfig, Limit, Verdict};
use gtcp::{Config, ConnId, Event, FlowId, Role, Session, SessionError};

const T: Duration = Duration::ZERO;

fn opener(m: u32, max_waiting: usize) -> Session {
    let mut s = Session::new(Role::Opener, Config::default()).unwrap();
    s.set_admission(AdmissionConfig {
        limit: Limit::Fixed(m),
        max_waiting,
    })
    .unwrap();
    s
}

fn events(s: &mut Session) -> Vec<Event> {
    std::iter::from_fn(|| s.poll_event()).collect()
}

fn conn_needed(ev: &[Event]) -> Vec<FlowId> {
    ev.iter()
        .filter_map(|e| match e {
            Event::ConnNeeded { owner } => Some(*owner),
            _ => None,
        })
        .collect()
}

#[test]
fn waiting_flows_take_no_bytes_and_get_no_connection() {
    let mut s = opener(2, 8);
    let (a, va) = s.open_background_flow(T, "bg", 0, None).unwrap();
    let (b, vb) = s.open_background_flow(T, "bg", 0, None).unwrap();
    let (c, vc) = s.open_background_flow(T, "bg", 0, None).unwrap();
    assert_eq!(
        (va, vb, vc),
        (Verdict::Admitted, Verdict::Admitted, Verdict::Waiting(0))
    );
    assert!(s.send_capacity(a).unwrap() > 0);
    assert_eq!(s.send_capacity(c).unwrap(), 0);
    assert_eq!(s.write(c, b"x").unwrap(), 0, "a waiting flow takes nothing");
    assert!(conn_needed(&events(&mut s)).is_empty());
    s.add_connection(ConnId(1), Some(a)).unwrap();
    s.add_connection(ConnId(2), Some(b)).unwrap();
    let a_ = s.admission().unwrap();
    assert_eq!((a_.limit(), a_.active(), a_.waiting()), (2, 2, 1));
}

#[test]
fn a_reset_frees_the_slot_for_the_first_waiting_flow() {
    let mut s = opener(1, 8);
    let (a, _) = s.open_background_flow(T, "bg", 0, None).unwrap();
    let (b, _) = s.open_background_flow(T, "bg", 0, None).unwrap();
    let (c, _) = s.open_background_flow(T, "bg", 0, None).unwrap();
    s.add_connection(ConnId(1), Some(a)).unwrap();
    events(&mut s);
    s.reset(T, a, 1).unwrap();
    let ev = events(&mut s);
    assert_eq!(
        conn_needed(&ev),
        vec![b],
        "the first waiting flow, in arrival order"
    );
    assert!(ev.contains(&Event::FlowWritable(b)));
    assert!(s.send_capacity(b).unwrap() > 0);
    assert_eq!(s.send_capacity(c).unwrap(), 0);
}

#[test]
fn a_waiting_flow_reset_by_its_application_leaves_without_a_trace() {
    let mut s = opener(1, 8);
    let (a, _) = s.open_background_flow(T, "bg", 0, None).unwrap();
    let (b, _) = s.open_background_flow(T, "bg", 0, None).unwrap();
    let (c, _) = s.open_background_flow(T, "bg", 0, None).unwrap();
    s.add_connection(ConnId(1), Some(a)).unwrap();
    events(&mut s);
    s.reset(T, b, 1).unwrap();
    let ev = events(&mut s);
    assert!(ev
        .iter()
        .any(|e| matches!(e, Event::FlowClosed(f) if f.flow == b)));
    assert!(conn_needed(&ev).is_empty(), "the slot is still a's");
    assert!(
        !s.flow_ids().any(|f| f == b),
        "forgotten: the peer never knew it"
    );
    assert_eq!(s.admission().unwrap().waiting(), 1);
    // When a ends, c (not b) starts.
    s.reset(T, a, 1).unwrap();
    assert_eq!(conn_needed(&events(&mut s)), vec![c]);
}

#[test]
fn a_flow_whose_connection_is_lost_for_good_frees_its_slot() {
    let mut s = opener(1, 8);
    let (a, _) = s.open_background_flow(T, "bg", 0, None).unwrap();
    let (b, _) = s.open_background_flow(T, "bg", 0, None).unwrap();
    s.add_connection(ConnId(1), Some(a)).unwrap();
    events(&mut s);
    s.connection_closed(T, ConnId(1));
    // The flow keeps its slot while a replacement is tried ...
    assert_eq!(conn_needed(&events(&mut s)), vec![a]);
    assert_eq!(s.send_capacity(b).unwrap(), 0);
    // ... and frees it when the driver gives up and resets it.
    s.reset(T, a, 4).unwrap();
    assert_eq!(conn_needed(&events(&mut s)), vec![b]);
}

#[test]
fn beyond_the_waiting_bound_a_flow_is_refused_and_not_created() {
    let mut s = opener(1, 1);
    s.open_background_flow(T, "bg", 0, None).unwrap();
    s.open_background_flow(T, "bg", 0, None).unwrap();
    let before: Vec<FlowId> = s.flow_ids().collect();
    let err = s.open_background_flow(T, "bg", 0, None).unwrap_err();
    assert_eq!(err, SessionError::BackgroundFull(1));
    assert_eq!(s.flow_ids().collect::<Vec<_>>(), before);
    assert_eq!(s.admission().unwrap().refused(), 1);
}
