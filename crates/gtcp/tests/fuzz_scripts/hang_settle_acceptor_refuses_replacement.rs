// `cargo fuzz fmt session_input` of fuzz/corpus-seeds/session_input/hang_settle_acceptor_refuses_replacement
Input {
    setup: 85,
    policy: 4,
    chunk: 145,
    window_extra: 37265,
    max_flows: 145,
    ops: vec![
        OpenFlow {
            conn: None,
            class: 85,
            hint: Some(
                2442236305,
            ),
        },
        Reset {
            side: Opener,
            flow: 85,
            code: 1431655861,
        },
        Pump {
            rounds: 85,
            chunk: 21845,
        },
        OpenFlow {
            conn: None,
            class: 0,
            hint: None,
        },
    ],
}
