// `cargo fuzz fmt session_input` of fuzz/findings/session_input/not_settled_opener_not_idle_4
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
                1733382481,
            ),
        },
        Transmit {
            side: Opener,
            conn: 27,
            max: 26471,
        },
        Kill {
            conn: 229,
            only: Some(
                Acceptor,
            ),
        },
        Pump {
            rounds: 229,
            chunk: 65509,
        },
        Reset {
            side: Opener,
            flow: 247,
            code: 12960767,
        },
        Write {
            side: Opener,
            flow: 255,
            len: 65535,
        },
        Write {
            side: Opener,
            flow: 131,
            len: 33667,
        },
        Deliver {
            from: Acceptor,
            conn: 131,
            max: 33667,
        },
        Finish {
            side: Opener,
            flow: 23,
        },
        Transmit {
            side: Opener,
            conn: 115,
            max: 65395,
        },
        Read {
            side: Acceptor,
            flow: 137,
            max: 35209,
        },
        GoAway {
            side: Acceptor,
        },
        GoAway {
            side: Acceptor,
        },
        Reset {
            side: Opener,
            flow: 21,
            code: 387389207,
        },
        Read {
            side: Opener,
            flow: 85,
            max: 3981,
        },
        Read {
            side: Acceptor,
            flow: 229,
            max: 58853,
        },
        AddConn {
            owner: None,
        },
        Write {
            side: Opener,
            flow: 227,
            len: 58339,
        },
        OpenFlow {
            conn: Some(
                83,
            ),
            class: 83,
            hint: Some(
                1397969747,
            ),
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
            flow: 145,
        },
        GoAway {
            side: Acceptor,
        },
        Write {
            side: Acceptor,
            flow: 229,
            len: 58853,
        },
        Kill {
            conn: 229,
            only: None,
        },
        Kill {
            conn: 255,
            only: Some(
                Acceptor,
            ),
        },
        GoAway {
            side: Opener,
        },
        Write {
            side: Opener,
            flow: 255,
            len: 65535,
        },
        Write {
            side: Opener,
            flow: 131,
            len: 33667,
        },
        Deliver {
            from: Acceptor,
            conn: 131,
            max: 33667,
        },
        Finish {
            side: Opener,
            flow: 23,
        },
        Transmit {
            side: Opener,
            conn: 115,
            max: 65395,
        },
        Read {
            side: Acceptor,
            flow: 137,
            max: 35209,
        },
        GoAway {
            side: Acceptor,
        },
        GoAway {
            side: Acceptor,
        },
        Reset {
            side: Opener,
            flow: 21,
            code: 387389207,
        },
        Read {
            side: Opener,
            flow: 85,
            max: 3981,
        },
        Read {
            side: Acceptor,
            flow: 229,
            max: 58853,
        },
        AddConn {
            owner: None,
        },
        Write {
            side: Opener,
            flow: 227,
            len: 58339,
        },
        OpenFlow {
            conn: Some(
                83,
            ),
            class: 83,
            hint: Some(
                1397969747,
            ),
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
            flow: 145,
        },
        GoAway {
            side: Acceptor,
        },
        Kill {
            conn: 255,
            only: Some(
                Opener,
            ),
        },
        Write {
            side: Opener,
            flow: 107,
            len: 27499,
        },
        Write {
            side: Opener,
            flow: 27,
            len: 6939,
        },
        Kill {
            conn: 229,
            only: Some(
                Acceptor,
            ),
        },
        Kill {
            conn: 229,
            only: Some(
                Acceptor,
            ),
        },
        Transmit {
            side: Acceptor,
            conn: 147,
            max: 37779,
        },
        Reset {
            side: Acceptor,
            flow: 255,
            code: 4294967295,
        },
        GoAway {
            side: Acceptor,
        },
        GoAway {
            side: Acceptor,
        },
        GoAway {
            side: Acceptor,
        },
        GoAway {
            side: Acceptor,
        },
        GoAway {
            side: Acceptor,
        },
        Kill {
            conn: 255,
            only: Some(
                Opener,
            ),
        },
        Write {
            side: Opener,
            flow: 107,
            len: 27499,
        },
        Write {
            side: Opener,
            flow: 27,
            len: 6939,
        },
        Kill {
            conn: 229,
            only: Some(
                Acceptor,
            ),
        },
        Kill {
            conn: 229,
            only: Some(
                Acceptor,
            ),
        },
        Transmit {
            side: Acceptor,
            conn: 147,
            max: 37779,
        },
        Reset {
            side: Acceptor,
            flow: 255,
            code: 4294967295,
        },
        GoAway {
            side: Acceptor,
        },
        GoAway {
            side: Acceptor,
        },
        GoAway {
            side: Acceptor,
        },
        GoAway {
            side: Acceptor,
        },
        GoAway {
            side: Acceptor,
        },
        GoAway {
            side: Acceptor,
        },
        GoAway {
            side: Acceptor,
        },
        GoAway {
            side: Acceptor,
        },
        GoAway {
            side: Acceptor,
        },
        GoAway {
            side: Opener,
        },
        Transmit {
            side: Opener,
            conn: 23,
            max: 29555,
        },
        Read {
            side: Opener,
            flow: 229,
            max: 65509,
        },
    ],
}
