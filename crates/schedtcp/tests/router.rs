//! The TUN router in a real testbed (root only; elsewhere the test says it skipped): the
//! round-trip time and goodput real kernel TCP measures through `schedtcp router` against
//! the delay and rate it was configured with.

use std::path::Path;

use testbed::bed::can_run;
use testbed::{BedConfig, FlowPath, PlannedFlow, Queue, RouterQueue, Session};

const BIN: &str = env!("CARGO_BIN_EXE_schedtcp");

fn flow(id: usize, at_s: f64, upload: u64) -> PlannedFlow {
    PlannedFlow {
        id,
        at_s,
        download: 0,
        upload,
        path: FlowPath::Direct,
        label: String::new(),
        stop_at_s: None,
    }
}

#[test]
fn router_adds_the_delay_and_rate_it_claims() {
    if !can_run("router_adds_the_delay_and_rate_it_claims") {
        return;
    }
    const RATE: u64 = 2_000_000; // IP bytes per second, origin → destination
    const DELAY_MS: f64 = 20.0;
    const UPLOAD: u64 = 3_000_000;
    let mut cfg = BedConfig::new(RATE, Queue::Pfifo(100));
    cfg.prefix = format!("srt{}", std::process::id() % 100_000);
    cfg.delay_ms = DELAY_MS;
    cfg.congestion_control = "reno".into();
    cfg.router_queue = Some(RouterQueue {
        discipline: "droptail".into(),
        buffer_packets: 100,
    });
    let mut s = Session::start(cfg, Path::new(BIN)).expect("testbed with the router");
    // Five tiny flows one after another (each: connect, one request, the target's digest:
    // two round trips), then one upload alone on the path.
    let mut flows: Vec<PlannedFlow> = (0..5).map(|i| flow(i, 0.2 * i as f64, 1)).collect();
    flows.push(flow(5, 1.2, UPLOAD));
    let run = s.run(None, &flows, 0.0, 30.0);
    let counters = s.stop_router();
    let outcome = run.and_then(|r| {
        let c = counters?.ok_or_else(|| anyhow::anyhow!("the bed ran no router"))?;
        Ok((r, c))
    });
    let dir = s.dir().to_path_buf();
    let (r, c) = match outcome {
        Ok(x) => {
            s.finish(false).expect("teardown");
            x
        }
        Err(e) => {
            let _ = s.finish(true);
            panic!("{e:#} (logs in {})", dir.display());
        }
    };
    assert_eq!(r.failed(), 0, "{:?}", r.results);
    let mut tiny: Vec<f64> = r.results[..5]
        .iter()
        .map(|x| x.completion_s.unwrap())
        .collect();
    tiny.sort_by(f64::total_cmp);
    // The one-way delay is on origin → destination only, so each round trip is 20 ms plus
    // the veths' and the processes' own: well under a millisecond on an idle machine, a few
    // on a loaded one (the fastest of the five probes is the one least disturbed).
    let rtt_ms = tiny[0] * 1e3 / 2.0;
    assert!(
        (DELAY_MS..DELAY_MS + 5.0).contains(&rtt_ms),
        "round trip {rtt_ms:.2} ms, configured one-way delay {DELAY_MS} ms ({tiny:?})"
    );
    // Goodput: payload over completion. A full segment is 1448 payload bytes in a
    // 1500-byte IP packet; the upload spends its first round trips in slow start and the
    // last one waiting for the digest, so it stays below 100% of that; above 75% shows the
    // router is not the slower part (measured here: 0.96 on a lightly loaded machine, 0.84
    // at a load average of 45 on 2 cores, where the endpoints themselves wait for CPU).
    let up = &r.results[5];
    let goodput = UPLOAD as f64 / up.completion_s.unwrap();
    let payload_rate = RATE as f64 * 1448.0 / 1500.0;
    let ratio = goodput / payload_rate;
    assert!(
        (0.75..=1.0).contains(&ratio),
        "goodput {goodput:.0} B/s = {ratio:.3} x the payload rate {payload_rate:.0} B/s"
    );
    // The router saw every packet of the direction it routes.
    assert!(c.offered >= UPLOAD / 1448, "{c:?}");
    assert_eq!(c.offered, c.released + c.queue_drops, "{c:?}");
    eprintln!(
        "router: round trip {rtt_ms:.2} ms (configured {DELAY_MS} ms), goodput {:.3} MB/s = \
         {ratio:.3} x the configured rate's payload; {c:?}",
        goodput / 1e6
    );
}
