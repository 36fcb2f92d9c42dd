// `cargo fuzz fmt session_input` of fuzz/corpus-seeds/session_input/not_settled_opener_not_idle
Input {
    setup: 41,
    policy: 4,
    chunk: 0,
    window_extra: 16409,
    max_flows: 56,
    ops: vec![
        AddConn {
            owner: None,
        },
        OpenFlow {
            conn: Some(
                254,
            ),
            class: 223,
            hint: Some(
                4294967295,
            ),
        },
        OpenFlow {
            conn: Some(
                81,
            ),
            class: 81,
            hint: Some(
                1364283729,
            ),
        },
        GoAway {
            side: Opener,
        },
        Write {
            side: Opener,
            flow: 107,
            len: 27499,
        },
        Write {
            side: Acceptor,
            flow: 23,
            len: 26903,
        },
        Write {
            side: Opener,
            flow: 105,
            len: 26985,
        },
        Finish {
            side: Opener,
            flow: 3,
        },
        GoAway {
            side: Opener,
        },
        Reset {
            side: Opener,
            flow: 107,
            code: 1734829931,
        },
        Transmit {
            side: Opener,
            conn: 103,
            max: 58727,
        },
        Deliver {
            from: Opener,
            conn: 229,
            max: 63717,
        },
        Kill {
            conn: 0,
            only: None,
        },
        Deliver {
            from: Acceptor,
            conn: 23,
            max: 5911,
        },
        Transmit {
            side: Opener,
            conn: 115,
            max: 65395,
        },
        Finish {
            side: Acceptor,
            flow: 255,
        },
        Pump {
            rounds: 43,
            chunk: 11051,
        },
        Reset {
            side: Opener,
            flow: 163,
            code: 931,
        },
    ],
}
