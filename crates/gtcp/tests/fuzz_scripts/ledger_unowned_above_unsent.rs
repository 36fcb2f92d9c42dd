// `cargo fuzz fmt session_input` of fuzz/corpus-seeds/session_input/ledger_unowned_above_unsent
Input {
    setup: 254,
    policy: 2,
    chunk: 1,
    window_extra: 15104,
    max_flows: 8,
    ops: vec![
        Write {
            side: Acceptor,
            flow: 255,
            len: 65535,
        },
        Write {
            side: Acceptor,
            flow: 28,
            len: 65288,
        },
        Write {
            side: Opener,
            flow: 250,
            len: 65535,
        },
        Transmit {
            side: Opener,
            conn: 19,
            max: 4883,
        },
        Transmit {
            side: Opener,
            conn: 19,
            max: 4883,
        },
        Transmit {
            side: Opener,
            conn: 19,
            max: 4883,
        },
        Transmit {
            side: Opener,
            conn: 19,
            max: 4883,
        },
        Transmit {
            side: Opener,
            conn: 19,
            max: 4883,
        },
        Transmit {
            side: Opener,
            conn: 19,
            max: 10259,
        },
        GoAway {
            side: Acceptor,
        },
        Reset {
            side: Acceptor,
            flow: 105,
            code: 1734868841,
        },
        Transmit {
            side: Acceptor,
            conn: 137,
            max: 28645,
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
                83,
            ),
            class: 83,
            hint: Some(
                1397969747,
            ),
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
        OpenFlow {
            conn: None,
            class: 83,
            hint: Some(
                1397969747,
            ),
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
        Inject {
            side: Opener,
            conn: 83,
            bytes: vec![
                83,
                83,
                83,
                83,
                83,
                83,
                83,
                61,
                61,
                61,
                255,
                255,
                115,
            ],
        },
        AcceptConn {
            conn: 101,
            owner: Some(
                18446743713881757591,
            ),
        },
        Deliver {
            from: Opener,
            conn: 61,
            max: 15677,
        },
        Deliver {
            from: Acceptor,
            conn: 170,
            max: 5539,
        },
        Transmit {
            side: Opener,
            conn: 181,
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
            len: 9189,
        },
    ],
}
