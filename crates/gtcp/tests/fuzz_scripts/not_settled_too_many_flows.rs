// `cargo fuzz fmt session_input` of fuzz/corpus-seeds/session_input/not_settled_too_many_flows
Input {
    setup: 5,
    policy: 0,
    chunk: 199,
    window_extra: 29977,
    max_flows: 49,
    ops: vec![
        OpenFlow {
            conn: Some(
                85,
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
            conn: Some(
                85,
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
                85,
            ),
            class: 85,
            hint: Some(
                1431622997,
            ),
        },
        Transmit {
            side: Opener,
            conn: 85,
            max: 46421,
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
            class: 85,
            hint: Some(
                1428837717,
            ),
        },
        Finish {
            side: Opener,
            flow: 91,
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
            hint: Some(
                1112888661,
            ),
        },
        OpenFlow {
            conn: None,
            class: 0,
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
                1428706645,
            ),
        },
        Pump {
            rounds: 85,
            chunk: 21845,
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
                85,
            ),
            class: 42,
            hint: Some(
                2442236245,
            ),
        },
        OpenFlow {
            conn: Some(
                163,
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
                1431650901,
            ),
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
            hint: Some(
                1431655845,
            ),
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
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
        AddConn {
            owner: Some(
                191,
            ),
        },
        Reset {
            side: Opener,
            flow: 0,
            code: 0,
        },
    ],
}
