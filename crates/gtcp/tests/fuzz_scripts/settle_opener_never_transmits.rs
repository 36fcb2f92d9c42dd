// `cargo fuzz fmt session_input` of fuzz/corpus-seeds/session_input/settle_opener_never_transmits
Input {
    setup: 254,
    policy: 3,
    chunk: 1,
    window_extra: 15106,
    max_flows: 8,
    ops: vec![
        Write {
            side: Opener,
            flow: 27,
            len: 6939,
        },
        Transmit {
            side: Opener,
            conn: 27,
            max: 6939,
        },
        Kill {
            conn: 248,
            only: Some(
                Opener,
            ),
        },
        Transmit {
            side: Opener,
            conn: 27,
            max: 6939,
        },
        Kill {
            conn: 229,
            only: Some(
                Acceptor,
            ),
        },
        Kill {
            conn: 59,
            only: Some(
                Acceptor,
            ),
        },
        Finish {
            side: Acceptor,
            flow: 255,
        },
        Write {
            side: Acceptor,
            flow: 255,
            len: 26471,
        },
        Write {
            side: Acceptor,
            flow: 229,
            len: 58691,
        },
        Kill {
            conn: 229,
            only: None,
        },
        GoAway {
            side: Acceptor,
        },
        GoAway {
            side: Opener,
        },
        Finish {
            side: Acceptor,
            flow: 145,
        },
        Finish {
            side: Opener,
            flow: 0,
        },
        Write {
            side: Opener,
            flow: 111,
            len: 28527,
        },
        Kill {
            conn: 229,
            only: Some(
                Acceptor,
            ),
        },
        Kill {
            conn: 61,
            only: Some(
                Acceptor,
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
            side: Opener,
            flow: 25,
        },
        Pump {
            rounds: 61,
            chunk: 0,
        },
    ],
}
