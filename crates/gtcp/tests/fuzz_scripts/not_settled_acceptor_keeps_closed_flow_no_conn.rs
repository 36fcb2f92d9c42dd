// `cargo fuzz fmt session_input` of fuzz/findings/session_input/not_settled_acceptor_keeps_closed_flow_no_conn
Input {
    setup: 69,
    policy: 0,
    chunk: 25,
    window_extra: 65535,
    max_flows: 255,
    ops: vec![
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
            from: Opener,
            conn: 85,
            max: 21845,
        },
        Deliver {
            from: Acceptor,
            conn: 145,
            max: 37265,
        },
        Deliver {
            from: Acceptor,
            conn: 145,
            max: 37265,
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
        AddConn {
            owner: Some(
                197,
            ),
        },
        AddConn {
            owner: Some(
                197,
            ),
        },
        AddConn {
            owner: Some(
                197,
            ),
        },
        AddConn {
            owner: Some(
                197,
            ),
        },
        AddConn {
            owner: Some(
                197,
            ),
        },
        KnownEnd {
            flow: 85,
            end: Some(
                1442840405,
            ),
        },
        Deliver {
            from: Acceptor,
            conn: 37,
            max: 21845,
        },
        OpenFlow {
            conn: None,
            class: 85,
            hint: Some(
                2442236305,
            ),
        },
        OpenFlow {
            conn: None,
            class: 85,
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
                85,
            ),
            class: 85,
            hint: None,
        },
        Pump {
            rounds: 209,
            chunk: 23926,
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
            hint: Some(
                1428706645,
            ),
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
            hint: Some(
                1431644757,
            ),
        },
        Finish {
            side: Opener,
            flow: 163,
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
        Pump {
            rounds: 85,
            chunk: 21845,
        },
        KnownEnd {
            flow: 41,
            end: Some(
                943724800,
            ),
        },
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
                1364283729,
            ),
        },
        GoAway {
            side: Opener,
        },
        Reset {
            side: Opener,
            flow: 31,
            code: 3857049061,
        },
        Kill {
            conn: 72,
            only: Some(
                Acceptor,
            ),
        },
        Reset {
            side: Opener,
            flow: 247,
            code: 12960767,
        },
        Write {
            side: Acceptor,
            flow: 229,
            len: 58853,
        },
        OpenFlow {
            conn: Some(
                0,
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
                1431655861,
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
            class: 85,
            hint: Some(
                2442236305,
            ),
        },
        Reset {
            side: Opener,
            flow: 85,
            code: 1431655765,
        },
        OpenFlow {
            conn: None,
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
                2442236245,
            ),
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 165,
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
                4283782485,
            ),
        },
        OpenFlow {
            conn: Some(
                40,
            ),
            class: 85,
            hint: Some(
                1428510036,
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
        Finish {
            side: Opener,
            flow: 85,
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
            hint: Some(
                1431643733,
            ),
        },
        KnownEnd {
            flow: 85,
            end: Some(
                1442840405,
            ),
        },
        Deliver {
            from: Opener,
            conn: 37,
            max: 21845,
        },
        OpenFlow {
            conn: None,
            class: 85,
            hint: Some(
                2442236305,
            ),
        },
        OpenFlow {
            conn: None,
            class: 85,
            hint: Some(
                2442236305,
            ),
        },
        Reset {
            side: Opener,
            flow: 85,
            code: 1431655765,
        },
        OpenFlow {
            conn: Some(
                84,
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
            conn: Some(
                145,
            ),
            class: 145,
            hint: Some(
                1431671185,
            ),
        },
        Finish {
            side: Acceptor,
            flow: 145,
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
                1442840405,
            ),
        },
    ],
}
