// `cargo fuzz fmt session_input` of fuzz/findings/session_input/not_settled_acceptor_not_idle
Input {
    setup: 255,
    policy: 3,
    chunk: 255,
    window_extra: 65535,
    max_flows: 255,
    ops: vec![
        Write {
            side: Acceptor,
            flow: 111,
            len: 28527,
        },
        Read {
            side: Opener,
            flow: 103,
            max: 26471,
        },
        Write {
            side: Opener,
            flow: 85,
            len: 21845,
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
        Pump {
            rounds: 197,
            chunk: 50432,
        },
        KnownEnd {
            flow: 0,
            end: Some(
                3950211955,
            ),
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
            hint: Some(
                7288921,
            ),
        },
        Write {
            side: Opener,
            flow: 103,
            len: 26471,
        },
        Write {
            side: Acceptor,
            flow: 187,
            len: 48059,
        },
        Transmit {
            side: Opener,
            conn: 117,
            max: 15677,
        },
        Write {
            side: Opener,
            flow: 105,
            len: 26985,
        },
        Write {
            side: Acceptor,
            flow: 229,
            len: 58853,
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
        OpenFlow {
            conn: None,
            class: 111,
            hint: None,
        },
        AddConn {
            owner: None,
        },
        Write {
            side: Acceptor,
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
            len: 1,
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
            max: 22357,
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
            hint: Some(
                1431655765,
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
            conn: None,
            class: 85,
            hint: Some(
                1430213972,
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
        OpenFlow {
            conn: Some(
                84,
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
            class: 93,
            hint: Some(
                1431680341,
            ),
        },
        OpenFlow {
            conn: Some(
                40,
            ),
            class: 85,
            hint: Some(
                911824213,
            ),
        },
        GoAway {
            side: Acceptor,
        },
        KnownEnd {
            flow: 0,
            end: Some(
                4294931315,
            ),
        },
        Deliver {
            from: Opener,
            conn: 247,
            max: 50175,
        },
        Read {
            side: Opener,
            flow: 176,
            max: 29440,
        },
        Deliver {
            from: Opener,
            conn: 95,
            max: 21845,
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
                45,
            ),
            class: 209,
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
        GoAway {
            side: Opener,
        },
        Transmit {
            side: Acceptor,
            conn: 115,
            max: 29580,
        },
        AddConn {
            owner: Some(
                3,
            ),
        },
        Transmit {
            side: Opener,
            conn: 5,
            max: 65527,
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
            side: Opener,
            flow: 27,
            len: 6939,
        },
        Pump {
            rounds: 177,
            chunk: 58853,
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
        GoAway {
            side: Opener,
        },
        Read {
            side: Acceptor,
            flow: 255,
            max: 65535,
        },
        Kill {
            conn: 229,
            only: Some(
                Acceptor,
            ),
        },
        Kill {
            conn: 10,
            only: None,
        },
        Deliver {
            from: Acceptor,
            conn: 233,
            max: 59881,
        },
        Kill {
            conn: 233,
            only: Some(
                Acceptor,
            ),
        },
        Write {
            side: Acceptor,
            flow: 229,
            len: 61925,
        },
        Kill {
            conn: 199,
            only: Some(
                Acceptor,
            ),
        },
        Write {
            side: Opener,
            flow: 103,
            len: 26528,
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
                7288921,
            ),
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
                7288921,
            ),
        },
        Write {
            side: Opener,
            flow: 103,
            len: 26471,
        },
        Write {
            side: Acceptor,
            flow: 187,
            len: 48059,
        },
        Transmit {
            side: Opener,
            conn: 117,
            max: 15677,
        },
        Write {
            side: Opener,
            flow: 105,
            len: 26985,
        },
        Write {
            side: Acceptor,
            flow: 229,
            len: 58853,
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
        OpenFlow {
            conn: None,
            class: 111,
            hint: None,
        },
        AddConn {
            owner: None,
        },
        Write {
            side: Acceptor,
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
            len: 1,
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
            max: 22357,
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
        Reset {
            side: Opener,
            flow: 163,
            code: 370647971,
        },
        Transmit {
            side: Acceptor,
            conn: 255,
            max: 22809,
        },
    ],
}
