// `cargo fuzz fmt session_input` of fuzz/corpus-seeds/session_input/liveness_opener_not_idle_with_data
Input {
    setup: 41,
    policy: 3,
    chunk: 0,
    window_extra: 16409,
    max_flows: 56,
    ops: vec![
        Read {
            side: Opener,
            flow: 27,
            max: 6939,
        },
        Transmit {
            side: Opener,
            conn: 27,
            max: 6939,
        },
        Transmit {
            side: Opener,
            conn: 27,
            max: 6939,
        },
        Transmit {
            side: Opener,
            conn: 153,
            max: 39293,
        },
        Write {
            side: Opener,
            flow: 120,
            len: 58853,
        },
        Kill {
            conn: 229,
            only: Some(
                Acceptor,
            ),
        },
        Kill {
            conn: 248,
            only: Some(
                Opener,
            ),
        },
        GoAway {
            side: Acceptor,
        },
        Finish {
            side: Acceptor,
            flow: 145,
        },
        Finish {
            side: Acceptor,
            flow: 145,
        },
        AddConn {
            owner: Some(
                255,
            ),
        },
        GoAway {
            side: Acceptor,
        },
        Finish {
            side: Opener,
            flow: 109,
        },
        Write {
            side: Acceptor,
            flow: 146,
            len: 0,
        },
    ],
}
