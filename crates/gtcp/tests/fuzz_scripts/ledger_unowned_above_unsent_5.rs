// `cargo fuzz fmt session_input` of fuzz/corpus-seeds/session_input/ledger_unowned_above_unsent_5
Input {
    setup: 41,
    policy: 4,
    chunk: 0,
    window_extra: 16409,
    max_flows: 56,
    ops: vec![
        AddConn {
            owner: Some(
                255,
            ),
        },
        Kill {
            conn: 10,
            only: None,
        },
        Read {
            side: Opener,
            flow: 127,
            max: 32639,
        },
        Read {
            side: Opener,
            flow: 27,
            max: 5911,
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
            owner: None,
        },
        Write {
            side: Opener,
            flow: 115,
            len: 60275,
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
                Acceptor,
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
        Kill {
            conn: 234,
            only: Some(
                Acceptor,
            ),
        },
        Kill {
            conn: 255,
            only: Some(
                Opener,
            ),
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
            owner: None,
        },
        Write {
            side: Opener,
            flow: 115,
            len: 60275,
        },
        Write {
            side: Opener,
            flow: 107,
            len: 58853,
        },
        Transmit {
            side: Opener,
            conn: 0,
            max: 5902,
        },
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
            conn: 145,
            max: 6939,
        },
        Reset {
            side: Opener,
            flow: 125,
            code: 1844278587,
        },
        Write {
            side: Opener,
            flow: 255,
            len: 65535,
        },
        Write {
            side: Opener,
            flow: 109,
            len: 28101,
        },
        Read {
            side: Opener,
            flow: 0,
            max: 40417,
        },
        Reset {
            side: Acceptor,
            flow: 254,
            code: 65433,
        },
    ],
}
