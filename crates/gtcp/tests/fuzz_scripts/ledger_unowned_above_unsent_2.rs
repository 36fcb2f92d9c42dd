// `cargo fuzz fmt session_input` of fuzz/corpus-seeds/session_input/ledger_unowned_above_unsent_2
Input {
    setup: 41,
    policy: 4,
    chunk: 0,
    window_extra: 16409,
    max_flows: 56,
    ops: vec![
        AcceptConn {
            conn: 200,
            owner: Some(
                1945566987609374590,
            ),
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
            conn: 27,
            max: 6939,
        },
        Write {
            side: Opener,
            flow: 109,
            len: 28013,
        },
        Write {
            side: Opener,
            flow: 117,
            len: 57600,
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
            conn: 43,
            max: 12331,
        },
        Transmit {
            side: Acceptor,
            conn: 23,
            max: 5911,
        },
        Transmit {
            side: Opener,
            conn: 23,
            max: 5911,
        },
        Read {
            side: Acceptor,
            flow: 255,
            max: 65421,
        },
        Inject {
            side: Opener,
            conn: 43,
            bytes: vec![
                43,
                48,
                163,
            ],
        },
        Reset {
            side: Opener,
            flow: 21,
            code: 65815,
        },
        Reset {
            side: Acceptor,
            flow: 145,
            code: 2442236305,
        },
        Finish {
            side: Acceptor,
            flow: 189,
        },
        AddConn {
            owner: Some(
                189,
            ),
        },
        OpenFlow {
            conn: None,
            class: 115,
            hint: Some(
                3950211957,
            ),
        },
        Write {
            side: Acceptor,
            flow: 23,
            len: 5911,
        },
        Transmit {
            side: Acceptor,
            conn: 145,
            max: 37265,
        },
        Finish {
            side: Acceptor,
            flow: 189,
        },
        AddConn {
            owner: Some(
                189,
            ),
        },
        OpenFlow {
            conn: None,
            class: 115,
            hint: Some(
                3950211957,
            ),
        },
        Write {
            side: Opener,
            flow: 107,
            len: 58853,
        },
        Transmit {
            side: Opener,
            conn: 57,
            max: 15677,
        },
        Pump {
            rounds: 61,
            chunk: 29501,
        },
        Kill {
            conn: 255,
            only: Some(
                Acceptor,
            ),
        },
        Inject {
            side: Opener,
            conn: 0,
            bytes: vec![],
        },
    ],
}
