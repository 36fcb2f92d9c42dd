// `cargo fuzz fmt session_input` of fuzz/findings/session_input/not_settled_opener_not_idle_2
Input {
    setup: 239,
    policy: 3,
    chunk: 64,
    window_extra: 58744,
    max_flows: 229,
    ops: vec![
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
        GoAway {
            side: Acceptor,
        },
        Finish {
            side: Acceptor,
            flow: 145,
        },
        Finish {
            side: Acceptor,
            flow: 145,
        },
        GoAway {
            side: Opener,
        },
        GoAway {
            side: Opener,
        },
        Finish {
            side: Acceptor,
            flow: 145,
        },
        Kill {
            conn: 229,
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
        Finish {
            side: Acceptor,
            flow: 145,
        },
        Finish {
            side: Acceptor,
            flow: 145,
        },
        Finish {
            side: Acceptor,
            flow: 249,
        },
        Finish {
            side: Acceptor,
            flow: 145,
        },
        Finish {
            side: Acceptor,
            flow: 145,
        },
        Pump {
            rounds: 145,
            chunk: 4023,
        },
        Finish {
            side: Acceptor,
            flow: 255,
        },
        GoAway {
            side: Opener,
        },
        Finish {
            side: Acceptor,
            flow: 145,
        },
        Finish {
            side: Opener,
            flow: 103,
        },
        Read {
            side: Opener,
            flow: 103,
            max: 58853,
        },
        Kill {
            conn: 30,
            only: Some(
                Opener,
            ),
        },
    ],
}
