// `cargo fuzz fmt session_input` of fuzz/findings/session_input/not_settled_opener_not_idle_3
Input {
    setup: 17,
    policy: 4,
    chunk: 25,
    window_extra: 65305,
    max_flows: 255,
    ops: vec![
        AddConn {
            owner: None,
        },
        Deliver {
            from: Opener,
            conn: 85,
            max: 21845,
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
                1431680337,
            ),
        },
        OpenFlow {
            conn: Some(
                40,
            ),
            class: 85,
            hint: Some(
                1946244437,
            ),
        },
        Read {
            side: Opener,
            flow: 74,
            max: 21930,
        },
        GoAway {
            side: Acceptor,
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
                165,
            ),
            class: 85,
            hint: Some(
                1431655765,
            ),
        },
        GoAway {
            side: Acceptor,
        },
        GoAway {
            side: Opener,
        },
        OpenFlow {
            conn: Some(
                75,
            ),
            class: 75,
            hint: Some(
                1263225675,
            ),
        },
        Deliver {
            from: Opener,
            conn: 85,
            max: 21845,
        },
        Deliver {
            from: Acceptor,
            conn: 255,
            max: 65535,
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
        Reset {
            side: Opener,
            flow: 85,
            code: 1431656277,
        },
        AddConn {
            owner: Some(
                145,
            ),
        },
        OpenFlow {
            conn: Some(
                165,
            ),
            class: 85,
            hint: Some(
                1431655765,
            ),
        },
        OpenFlow {
            conn: Some(
                118,
            ),
            class: 93,
            hint: Some(
                1431680337,
            ),
        },
        OpenFlow {
            conn: Some(
                38,
            ),
            class: 85,
            hint: Some(
                1946244437,
            ),
        },
        Read {
            side: Opener,
            flow: 170,
            max: 21845,
        },
        GoAway {
            side: Acceptor,
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
                2442236350,
            ),
        },
        OpenFlow {
            conn: Some(
                165,
            ),
            class: 85,
            hint: Some(
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
                4283782485,
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
                75,
            ),
            class: 75,
            hint: Some(
                1263225675,
            ),
        },
        OpenFlow {
            conn: None,
            class: 75,
            hint: Some(
                2147437387,
            ),
        },
        OpenFlow {
            conn: Some(
                255,
            ),
            class: 255,
            hint: Some(
                4294967295,
            ),
        },
        GoAway {
            side: Acceptor,
        },
        Pump {
            rounds: 187,
            chunk: 48106,
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
            hint: Some(
                1431786837,
            ),
        },
        OpenFlow {
            conn: None,
            class: 145,
            hint: Some(
                2442236305,
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
                181,
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
            class: 1,
            hint: None,
        },
        Read {
            side: Opener,
            flow: 74,
            max: 21930,
        },
        GoAway {
            side: Acceptor,
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
                165,
            ),
            class: 85,
            hint: Some(
                1431655765,
            ),
        },
        GoAway {
            side: Acceptor,
        },
        GoAway {
            side: Opener,
        },
        OpenFlow {
            conn: Some(
                75,
            ),
            class: 75,
            hint: Some(
                1263225675,
            ),
        },
        Deliver {
            from: Opener,
            conn: 85,
            max: 21845,
        },
        Deliver {
            from: Acceptor,
            conn: 255,
            max: 65535,
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
        Reset {
            side: Opener,
            flow: 85,
            code: 1431656277,
        },
        AddConn {
            owner: Some(
                145,
            ),
        },
        OpenFlow {
            conn: Some(
                165,
            ),
            class: 85,
            hint: Some(
                1431655765,
            ),
        },
        OpenFlow {
            conn: Some(
                118,
            ),
            class: 93,
            hint: Some(
                1431680337,
            ),
        },
        OpenFlow {
            conn: Some(
                38,
            ),
            class: 85,
            hint: Some(
                1946244437,
            ),
        },
        Read {
            side: Opener,
            flow: 170,
            max: 21845,
        },
        GoAway {
            side: Acceptor,
        },
        OpenFlow {
            conn: None,
            class: 85,
            hint: Some(
                1431655765,
            ),
        },
        GoAway {
            side: Acceptor,
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
            flow: 38,
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
            class: 255,
            hint: Some(
                4294967295,
            ),
        },
        OpenFlow {
            conn: Some(
                75,
            ),
            class: 75,
            hint: Some(
                1263225675,
            ),
        },
        OpenFlow {
            conn: Some(
                75,
            ),
            class: 75,
            hint: Some(
                1263225675,
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
            class: 255,
            hint: Some(
                4294967295,
            ),
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
            conn: None,
            class: 85,
            hint: Some(
                1431644245,
            ),
        },
    ],
}
