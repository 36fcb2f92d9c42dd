// `cargo fuzz fmt session_input` of fuzz/findings/session_input/timeout_over_20s
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
        Kill {
            conn: 229,
            only: Some(
                Acceptor,
            ),
        },
        Kill {
            conn: 221,
            only: Some(
                Acceptor,
            ),
        },
        Kill {
            conn: 221,
            only: Some(
                Acceptor,
            ),
        },
        Kill {
            conn: 221,
            only: Some(
                Acceptor,
            ),
        },
        Kill {
            conn: 221,
            only: Some(
                Acceptor,
            ),
        },
        Kill {
            conn: 255,
            only: Some(
                Acceptor,
            ),
        },
        Kill {
            conn: 221,
            only: Some(
                Acceptor,
            ),
        },
        Kill {
            conn: 216,
            only: Some(
                Acceptor,
            ),
        },
        Kill {
            conn: 221,
            only: Some(
                Acceptor,
            ),
        },
        Transmit {
            side: Opener,
            conn: 85,
            max: 21845,
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
            hint: Some(
                2656392533,
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
            class: 89,
            hint: None,
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
        OpenFlow {
            conn: None,
            class: 36,
            hint: Some(
                1946244437,
            ),
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
            class: 0,
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
                93,
            ),
            class: 85,
            hint: Some(
                387389207,
            ),
        },
        Read {
            side: Acceptor,
            flow: 52,
            max: 58796,
        },
        Kill {
            conn: 229,
            only: Some(
                Opener,
            ),
        },
        Transmit {
            side: Opener,
            conn: 23,
            max: 5911,
        },
        Reset {
            side: Acceptor,
            flow: 255,
            code: 724052779,
        },
        Pump {
            rounds: 61,
            chunk: 15661,
        },
        Deliver {
            from: Acceptor,
            conn: 170,
            max: 5539,
        },
        Transmit {
            side: Opener,
            conn: 25,
            max: 12661,
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
            hint: Some(
                1964594517,
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
            class: 36,
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
            class: 36,
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
            hint: None,
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 158,
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
            class: 36,
            hint: None,
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
            hint: Some(
                1431655764,
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
            class: 36,
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
                47,
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
                1426063700,
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
            class: 84,
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
                1807379307,
            ),
        },
        Kill {
            conn: 0,
            only: None,
        },
    ],
}
