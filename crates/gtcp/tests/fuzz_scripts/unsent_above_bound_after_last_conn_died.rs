// `cargo fuzz fmt session_input` of fuzz/findings/session_input/unsent_above_bound_after_last_conn_died
Input {
    setup: 17,
    policy: 4,
    chunk: 25,
    window_extra: 16409,
    max_flows: 56,
    ops: vec![
        AddConn {
            owner: Some(
                111,
            ),
        },
        Read {
            side: Opener,
            flow: 255,
            max: 65535,
        },
        Write {
            side: Acceptor,
            flow: 205,
            len: 28527,
        },
        Write {
            side: Opener,
            flow: 49,
            len: 15673,
        },
        Pump {
            rounds: 61,
            chunk: 15677,
        },
        GoAway {
            side: Acceptor,
        },
        GoAway {
            side: Acceptor,
        },
        Write {
            side: Opener,
            flow: 109,
            len: 65535,
        },
        Read {
            side: Acceptor,
            flow: 157,
            max: 40349,
        },
        Reset {
            side: Opener,
            flow: 111,
            code: 1869573999,
        },
        GoAway {
            side: Acceptor,
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
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
            hint: Some(
                1431655765,
            ),
        },
        Pump {
            rounds: 85,
            chunk: 21845,
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
            hint: Some(
                1431655765,
            ),
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
            hint: Some(
                1431655765,
            ),
        },
        Read {
            side: Acceptor,
            flow: 195,
            max: 197,
        },
        Write {
            side: Opener,
            flow: 115,
            len: 65535,
        },
        OpenFlow {
            conn: None,
            class: 111,
            hint: None,
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
            hint: Some(
                1431655765,
            ),
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
            hint: Some(
                1431655765,
            ),
        },
        Write {
            side: Opener,
            flow: 85,
            len: 29697,
        },
        Read {
            side: Acceptor,
            flow: 85,
            max: 21845,
        },
        OpenFlow {
            conn: None,
            class: 85,
            hint: Some(
                827675989,
            ),
        },
        OpenFlow {
            conn: None,
            class: 85,
            hint: Some(
                1431655765,
            ),
        },
        OpenFlow {
            conn: Some(
                170,
            ),
            class: 1,
            hint: None,
        },
        Read {
            side: Acceptor,
            flow: 85,
            max: 21845,
        },
        OpenFlow {
            conn: None,
            class: 85,
            hint: None,
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
            hint: Some(
                1431655765,
            ),
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
            hint: Some(
                1431655765,
            ),
        },
        AddConn {
            owner: Some(
                0,
            ),
        },
        Write {
            side: Opener,
            flow: 85,
            len: 21845,
        },
        OpenFlow {
            conn: Some(
                56,
            ),
            class: 111,
            hint: None,
        },
        AddConn {
            owner: None,
        },
        Write {
            side: Opener,
            flow: 115,
            len: 65535,
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
                85,
            ),
            class: 85,
            hint: Some(
                2169853269,
            ),
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
            hint: Some(
                1431655765,
            ),
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
            hint: Some(
                4294967145,
            ),
        },
        Pump {
            rounds: 61,
            chunk: 15677,
        },
        Write {
            side: Opener,
            flow: 109,
            len: 28013,
        },
        Write {
            side: Opener,
            flow: 109,
            len: 28013,
        },
        Write {
            side: Opener,
            flow: 109,
            len: 28013,
        },
        Write {
            side: Opener,
            flow: 109,
            len: 28013,
        },
        Write {
            side: Opener,
            flow: 109,
            len: 28013,
        },
        Write {
            side: Opener,
            flow: 109,
            len: 27948,
        },
        Write {
            side: Opener,
            flow: 109,
            len: 28013,
        },
        Write {
            side: Opener,
            flow: 109,
            len: 28013,
        },
        Write {
            side: Opener,
            flow: 109,
            len: 28013,
        },
        Write {
            side: Opener,
            flow: 109,
            len: 28013,
        },
        Deliver {
            from: Opener,
            conn: 61,
            max: 15677,
        },
        Write {
            side: Acceptor,
            flow: 109,
            len: 65535,
        },
        GoAway {
            side: Opener,
        },
        Write {
            side: Opener,
            flow: 136,
            len: 26985,
        },
        Write {
            side: Opener,
            flow: 111,
            len: 28527,
        },
        Inject {
            side: Acceptor,
            conn: 255,
            bytes: vec![],
        },
        Kill {
            conn: 35,
            only: Some(
                Acceptor,
            ),
        },
        Write {
            side: Opener,
            flow: 5,
            len: 6400,
        },
        Pump {
            rounds: 61,
            chunk: 15677,
        },
        Read {
            side: Acceptor,
            flow: 115,
            max: 65280,
        },
        Write {
            side: Acceptor,
            flow: 255,
            len: 65535,
        },
        Pump {
            rounds: 61,
            chunk: 15677,
        },
        Pump {
            rounds: 115,
            chunk: 65535,
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
        Write {
            side: Opener,
            flow: 136,
            len: 26985,
        },
        Write {
            side: Opener,
            flow: 111,
            len: 28527,
        },
        Inject {
            side: Acceptor,
            conn: 255,
            bytes: vec![],
        },
        Kill {
            conn: 35,
            only: Some(
                Acceptor,
            ),
        },
        Write {
            side: Opener,
            flow: 5,
            len: 6400,
        },
        Pump {
            rounds: 61,
            chunk: 15677,
        },
        Read {
            side: Acceptor,
            flow: 115,
            max: 65280,
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
            side: Opener,
            flow: 105,
            len: 27016,
        },
        Write {
            side: Opener,
            flow: 105,
            len: 26985,
        },
        GoAway {
            side: Acceptor,
        },
        Read {
            side: Opener,
            flow: 0,
            max: 65535,
        },
        Inject {
            side: Opener,
            conn: 145,
            bytes: vec![
                145,
                145,
                145,
                105,
                105,
                105,
                5,
            ],
        },
        Pump {
            rounds: 61,
            chunk: 15677,
        },
        Pump {
            rounds: 115,
            chunk: 65535,
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
        Write {
            side: Opener,
            flow: 136,
            len: 26985,
        },
        Write {
            side: Opener,
            flow: 255,
            len: 27135,
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
        Inject {
            side: Acceptor,
            conn: 139,
            bytes: vec![],
        },
        Kill {
            conn: 248,
            only: Some(
                Opener,
            ),
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
            hint: Some(
                1431655765,
            ),
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
            hint: Some(
                7288665,
            ),
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
            flow: 229,
            len: 65303,
        },
        Kill {
            conn: 23,
            only: None,
        },
        Transmit {
            side: Opener,
            conn: 115,
            max: 29555,
        },
        AddConn {
            owner: Some(
                15,
            ),
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
            hint: Some(
                1431655765,
            ),
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
            hint: Some(
                1429755294,
            ),
        },
        Kill {
            conn: 146,
            only: Some(
                Acceptor,
            ),
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
        OpenFlow {
            conn: Some(
                158,
            ),
            class: 85,
            hint: Some(
                1431655765,
            ),
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
            hint: Some(
                1431655765,
            ),
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
            hint: Some(
                1431655765,
            ),
        },
        Inject {
            side: Acceptor,
            conn: 197,
            bytes: vec![],
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
            hint: Some(
                1431655765,
            ),
        },
        Read {
            side: Opener,
            flow: 115,
            max: 29555,
        },
        Write {
            side: Opener,
            flow: 107,
            len: 21845,
        },
        Kill {
            conn: 23,
            only: Some(
                Opener,
            ),
        },
        Inject {
            side: Opener,
            conn: 0,
            bytes: vec![],
        },
    ],
}
