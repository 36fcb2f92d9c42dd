// `cargo fuzz fmt session_input` of fuzz/corpus-seeds/session_input/ledger_unowned_above_unsent_3
Input {
    setup: 5,
    policy: 4,
    chunk: 103,
    window_extra: 26471,
    max_flows: 103,
    ops: vec![
        Write {
            side: Opener,
            flow: 103,
            len: 26471,
        },
        Write {
            side: Opener,
            flow: 112,
            len: 26471,
        },
        Write {
            side: Opener,
            flow: 103,
            len: 26471,
        },
        Write {
            side: Opener,
            flow: 103,
            len: 26471,
        },
        Write {
            side: Opener,
            flow: 103,
            len: 26471,
        },
        Write {
            side: Opener,
            flow: 49,
            len: 15673,
        },
        Reset {
            side: Opener,
            flow: 23,
            code: 387389207,
        },
        Transmit {
            side: Opener,
            conn: 115,
            max: 29540,
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
        OpenFlow {
            conn: Some(
                255,
            ),
            class: 229,
            hint: Some(
                4294967295,
            ),
        },
        Finish {
            side: Acceptor,
            flow: 229,
        },
        Kill {
            conn: 248,
            only: Some(
                Acceptor,
            ),
        },
        Finish {
            side: Opener,
            flow: 103,
        },
        Write {
            side: Opener,
            flow: 25,
            len: 14400,
        },
        Write {
            side: Opener,
            flow: 117,
            len: 28013,
        },
        Write {
            side: Acceptor,
            flow: 255,
            len: 28527,
        },
        Read {
            side: Opener,
            flow: 17,
            max: 28433,
        },
        Reset {
            side: Acceptor,
            flow: 1,
            code: 2644340591,
        },
        Reset {
            side: Acceptor,
            flow: 157,
            code: 2644352413,
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
                Opener,
            ),
        },
    ],
}
