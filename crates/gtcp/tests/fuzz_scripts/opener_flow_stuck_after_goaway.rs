// `cargo fuzz fmt session_input` of fuzz/corpus-seeds/session_input/opener_flow_stuck_after_goaway
Input {
    setup: 5,
    policy: 0,
    chunk: 25,
    window_extra: 12661,
    max_flows: 57,
    ops: vec![
        Pump {
            rounds: 61,
            chunk: 15677,
        },
        GoAway {
            side: Acceptor,
        },
        Write {
            side: Acceptor,
            flow: 55,
            len: 65452,
        },
        Deliver {
            from: Opener,
            conn: 57,
            max: 15677,
        },
        Deliver {
            from: Opener,
            conn: 163,
            max: 43683,
        },
        Reset {
            side: Opener,
            flow: 21,
            code: 387389207,
        },
        Transmit {
            side: Opener,
            conn: 115,
            max: 29555,
        },
        Finish {
            side: Acceptor,
            flow: 255,
        },
        OpenFlow {
            conn: None,
            class: 111,
            hint: None,
        },
        AddConn {
            owner: Some(
                0,
            ),
        },
        Write {
            side: Acceptor,
            flow: 145,
            len: 39313,
        },
        Write {
            side: Acceptor,
            flow: 255,
            len: 65535,
        },
        OpenFlow {
            conn: Some(
                176,
            ),
            class: 0,
            hint: Some(
                3950211955,
            ),
        },
        Write {
            side: Opener,
            flow: 107,
            len: 58853,
        },
        Transmit {
            side: Opener,
            conn: 23,
            max: 5911,
        },
        Read {
            side: Opener,
            flow: 115,
            max: 51084,
        },
        GoAway {
            side: Acceptor,
        },
        Kill {
            conn: 229,
            only: Some(
                Opener,
            ),
        },
        Kill {
            conn: 248,
            only: Some(
                Acceptor,
            ),
        },
        GoAway {
            side: Acceptor,
        },
        Finish {
            side: Opener,
            flow: 27,
        },
        Transmit {
            side: Opener,
            conn: 27,
            max: 6939,
        },
        Transmit {
            side: Acceptor,
            conn: 145,
            max: 26985,
        },
        Write {
            side: Acceptor,
            flow: 255,
            len: 65535,
        },
        GoAway {
            side: Opener,
        },
        Write {
            side: Acceptor,
            flow: 145,
            len: 58853,
        },
        Finish {
            side: Opener,
            flow: 172,
        },
        GoAway {
            side: Opener,
        },
        Pump {
            rounds: 61,
            chunk: 11069,
        },
        Deliver {
            from: Acceptor,
            conn: 21,
            max: 41749,
        },
        Transmit {
            side: Opener,
            conn: 23,
            max: 8983,
        },
        Transmit {
            side: Opener,
            conn: 56,
            max: 111,
        },
        AddConn {
            owner: None,
        },
        Write {
            side: Opener,
            flow: 115,
            len: 41891,
        },
    ],
}
