//! The capture reader, the frame decoder and the whole streaming analysis on arbitrary bytes.
//!
//! Properties checked (any violation panics, which libFuzzer reports as a crash):
//! * reading and analysing never panics, whatever the bytes (pcap or pcapng, any link type);
//! * the analyser counts exactly the packets the reader handed over;
//! * a read error points inside the input (its byte offset is at most the input's length);
//! * the analysis is internally consistent: competing flows, routes and bytes never exceed
//!   their totals, and the segment-size histogram holds exactly the data segments counted;
//! * every link type's decoder, on the same bytes as one frame, never panics, and a decoded
//!   segment's payload fits an IP length field.

#![no_main]

use libfuzzer_sys::fuzz_target;
use trace::decode::{decode, linktype};
use trace::{Analyzer, Config};

/// `SegmentSizes::total()` (the sum of all 65 536 counts), computed without a comparison per
/// count: the target's own code is instrumented, so every step of a summing loop calls
/// libFuzzer's comparison hook, which took two thirds of the target's time. Blocks of zeros (all
/// but a few) are told by one `memcmp` each (libc, not instrumented); only the others are summed.
fn histogram_total(counts: &[u64]) -> u64 {
    const BLOCK: usize = 256;
    static ZEROS: [u64; BLOCK] = [0; BLOCK];
    counts
        .chunks(BLOCK)
        .filter(|b| *b != &ZEROS[..b.len()])
        .map(|b| b.iter().sum::<u64>())
        .sum()
}

fuzz_target!(|data: &[u8]| {
    let cfg = Config {
        // Short timeouts and windows exercise expiry and window cuts on small inputs.
        idle_timeout_ns: 1_000_000,
        closed_linger_ns: 100_000,
        window_ns: Some(5_000_000),
        keep_flows: true,
    };
    let mut an = Analyzer::new(cfg);
    let (sum, err) = trace::reader::read(data, "fuzz", false, &mut |p| an.packet(p));
    let r = an.finish();
    assert_eq!(r.counters.packets, sum.packets);
    if let Some(e) = err {
        assert!(e.offset <= data.len() as u64, "{e}");
        assert_eq!(e.packet, sum.packets);
    }
    let t = &r.total;
    assert!(t.flows_competing <= t.flows && t.routes_competing <= t.routes);
    assert!(t.bytes_competing <= t.bytes && t.routes <= t.flows);
    assert_eq!(
        histogram_total(&r.segments.counts),
        r.counters.data_segments
    );
    assert_eq!(r.flows.len() as u64, t.flows);

    for lt in [
        linktype::ETHERNET,
        linktype::RAW,
        linktype::LINUX_SLL,
        linktype::LINUX_SLL2,
        linktype::IPV6,
    ] {
        if let Ok(s) = decode(lt, data) {
            assert!(s.payload_len <= 65535);
        }
    }
});
