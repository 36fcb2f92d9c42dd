// `cargo fuzz fmt session_input` of fuzz/findings/session_input/still_talking_flow_ids_beyond_horizon
Input {
    setup: 109,
    policy: 0,
    chunk: 0,
    window_extra: 21845,
    max_flows: 85,
    ops: vec![
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
        KnownEnd {
            flow: 85,
            end: Some(
                1431655765,
            ),
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
            hint: Some(
                1437947221,
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
            code: 1440044373,
        },
        Reset {
            side: Opener,
            flow: 93,
            code: 1437947221,
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
                2442220965,
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
                1431655861,
            ),
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 40,
            hint: Some(
                626349141,
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
                42,
            ),
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
        KnownEnd {
            flow: 85,
            end: Some(
                1431655765,
            ),
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
            hint: Some(
                1437947221,
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
            code: 1440044373,
        },
        Reset {
            side: Opener,
            flow: 93,
            code: 1437947221,
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
            class: 42,
            hint: Some(
                2442236245,
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
                1430410581,
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
                85,
            ),
            class: 85,
            hint: Some(
                1437947221,
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
            code: 1440044373,
        },
        Reset {
            side: Opener,
            flow: 93,
            code: 1437947221,
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
                85,
            ),
            class: 42,
            hint: Some(
                2442236245,
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
            class: 42,
            hint: Some(
                2442236245,
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
            conn: None,
            class: 85,
            hint: Some(
                2442236305,
            ),
        },
        Reset {
            side: Opener,
            flow: 85,
            code: 1440044373,
        },
        Reset {
            side: Opener,
            flow: 93,
            code: 1437947221,
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
            class: 42,
            hint: Some(
                2442236245,
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
                2773833045,
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
                1431655718,
            ),
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 255,
            hint: Some(
                1431655765,
            ),
        },
        OpenFlow {
            conn: Some(
                37,
            ),
            class: 85,
            hint: Some(
                1431655765,
            ),
        },
        Finish {
            side: Acceptor,
            flow: 145,
        },
        OpenFlow {
            conn: Some(
                145,
            ),
            class: 145,
            hint: Some(
                1435603345,
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
                116,
            ),
            class: 93,
            hint: Some(
                1568067909,
            ),
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
            hint: Some(
                2442220885,
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
            conn: Some(
                85,
            ),
            class: 40,
            hint: Some(
                631941717,
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
                42,
            ),
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
        KnownEnd {
            flow: 85,
            end: Some(
                1431655765,
            ),
        },
        OpenFlow {
            conn: Some(
                85,
            ),
            class: 85,
            hint: Some(
                1437947221,
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
            code: 1440044373,
        },
        Reset {
            side: Opener,
            flow: 93,
            code: 1437947221,
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
            class: 42,
            hint: Some(
                2442236245,
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
                1430410581,
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
                85,
            ),
            class: 85,
            hint: Some(
                1437947221,
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
            code: 1440044373,
        },
        Reset {
            side: Opener,
            flow: 93,
            code: 1437947221,
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
                85,
            ),
            class: 42,
            hint: Some(
                2442236245,
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
            class: 42,
            hint: Some(
                2442236245,
            ),
        },
        OpenFlow {
            conn: Some(
                42,
            ),
            class: 85,
            hint: Some(
                1955697041,
            ),
        },
        Read {
            side: Acceptor,
            flow: 85,
            max: 21845,
        },
        OpenFlow {
            conn: None,
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
                42,
            ),
            class: 85,
            hint: Some(
                2442236305,
            ),
        },
        Deliver {
            from: Acceptor,
            conn: 170,
            max: 65443,
        },
        GoAway {
            side: Opener,
        },
        Finish {
            side: Opener,
            flow: 120,
        },
    ],
}
