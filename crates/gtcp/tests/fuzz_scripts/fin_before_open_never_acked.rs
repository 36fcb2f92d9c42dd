// `cargo fuzz fmt session_input` of fuzz/corpus-seeds/session_input/liveness_fin_on_other_conn_before_open_never_acked
Input {
    setup: 239,
    policy: 0,
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
                Opener,
            ),
        },
        Finish {
            side: Opener,
            flow: 145,
        },
        Finish {
            side: Acceptor,
            flow: 145,
        },
        Finish {
            side: Opener,
            flow: 0,
        },
    ],
}
