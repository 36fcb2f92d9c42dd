// `cargo fuzz fmt session_input` of fuzz/findings/session_input/not_settled_tcp_replacement_inherits_other_flows_debt
Input {
    setup: 69,
    policy: 0,
    chunk: 25,
    window_extra: 12661,
    max_flows: 57,
    ops: vec![
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 87,
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
            class: 40,
            hint: Some(
                1431655765,
            ),
        },
        OpenFlow {
            conn: Some(
                42,
            ),
            class: 85,
            hint: Some(
                2442236350,
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
            class: 85,
            hint: Some(
                959534421,
            ),
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 87,
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
                1431655935,
            ),
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
            hint: Some(
                1431590229,
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
        Deliver {
            from: Acceptor,
            conn: 145,
            max: 37265,
        },
        KnownEnd {
            flow: 85,
            end: Some(
                1431655765,
            ),
        },
        OpenFlow {
            conn: Some(
                118,
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
                1431655765,
            ),
        },
        OpenFlow {
            conn: None,
            class: 85,
            hint: Some(
                2442236350,
            ),
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
            hint: Some(
                1768510805,
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
                1431655873,
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
            conn: Some(
                40,
            ),
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
                1431655764,
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
            conn: None,
            class: 85,
            hint: Some(
                1431655765,
            ),
        },
        OpenFlow {
            conn: Some(
                93,
            ),
            class: 85,
            hint: Some(
                1431655861,
            ),
        },
        OpenFlow {
            conn: None,
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
            flow: 115,
            max: 29555,
        },
        OpenFlow {
            conn: None,
            class: 63,
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
                1429034325,
            ),
        },
        OpenFlow {
            conn: Some(
                209,
            ),
            class: 85,
            hint: Some(
                1431655765,
            ),
        },
        OpenFlow {
            conn: None,
            class: 1,
            hint: None,
        },
        Kill {
            conn: 233,
            only: Some(
                Acceptor,
            ),
        },
        Kill {
            conn: 233,
            only: Some(
                Opener,
            ),
        },
        Transmit {
            side: Opener,
            conn: 140,
            max: 51059,
        },
        GoAway {
            side: Acceptor,
        },
        Pump {
            rounds: 111,
            chunk: 1280,
        },
        Kill {
            conn: 229,
            only: Some(
                Opener,
            ),
        },
        Write {
            side: Acceptor,
            flow: 148,
            len: 27540,
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
                Opener,
            ),
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 40,
            hint: Some(
                1431655765,
            ),
        },
        OpenFlow {
            conn: Some(
                42,
            ),
            class: 85,
            hint: Some(
                2442236305,
            ),
        },
        OpenFlow {
            conn: None,
            class: 42,
            hint: Some(
                2442236305,
            ),
        },
        KnownEnd {
            flow: 85,
            end: Some(
                1431655728,
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
        Reset {
            side: Opener,
            flow: 9,
            code: 0,
        },
    ],
}
