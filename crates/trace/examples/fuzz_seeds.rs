//! Writes the seed corpus of the `trace_decoder` fuzz target (small captures of every format
//! and link type the reader knows, one cut short):
//!
//! ```text
//! cargo run -p trace --example fuzz_seeds -- fuzz/corpus-seeds/trace_decoder
//! ```

use std::path::PathBuf;

use trace::decode::{flags, linktype};
use trace::synth::{ethernet, ipv4, ipv6, sll, sll2, PcapNgWriter, PcapWriter, Tcp};

/// A short connection: handshake, a request, two data segments, a retransmission, FINs.
fn segments() -> Vec<(i64, bool, Tcp)> {
    let t = |sport, dport, seq, flags, len| Tcp {
        sport,
        dport,
        seq,
        flags,
        len,
    };
    vec![
        (0, true, t(40000, 80, 1, flags::SYN, 0)),
        (
            1_000_000,
            false,
            t(80, 40000, 9, flags::SYN | flags::ACK, 0),
        ),
        (2_000_000, true, t(40000, 80, 2, flags::ACK, 100)),
        (3_000_000, false, t(80, 40000, 10, flags::ACK, 1448)),
        (4_000_000, false, t(80, 40000, 1458, flags::ACK, 1448)),
        (5_000_000, false, t(80, 40000, 1458, flags::ACK, 1448)),
        (
            6_000_000,
            false,
            t(80, 40000, 2906, flags::FIN | flags::ACK, 0),
        ),
        (7_000_000, true, t(40000, 80, 102, flags::RST, 0)),
    ]
}

fn main() -> std::io::Result<()> {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "fuzz/corpus-seeds/trace_decoder".into()),
    );
    std::fs::create_dir_all(&dir)?;
    let v4 = |up: bool, t: &Tcp| {
        let (a, b) = ([10, 0, 0, 1], [10, 0, 0, 2]);
        if up {
            ipv4(a, b, t)
        } else {
            ipv4(b, a, t)
        }
    };
    let v6 = |up: bool, t: &Tcp| {
        let (mut a, mut b) = ([0u8; 16], [0u8; 16]);
        a[15] = 1;
        b[15] = 2;
        if up {
            ipv6(a, b, t, true)
        } else {
            ipv6(b, a, t, true)
        }
    };
    type Frame = fn(&[u8]) -> Vec<u8>;
    let raw: Frame = |ip| ip.to_vec();
    let cases: [(&str, i32, Frame, bool); 5] = [
        ("eth-v4.pcap", linktype::ETHERNET, ethernet, false),
        ("sll-v4.pcap", linktype::LINUX_SLL, sll, false),
        ("sll2-v6ext.pcap", linktype::LINUX_SLL2, sll2, true),
        ("raw-v6ext.pcap", linktype::RAW, raw, true),
        ("eth-v6ext.pcap", linktype::ETHERNET, ethernet, true),
    ];
    for (name, lt, frame, six) in cases {
        let mut w = PcapWriter::new(Vec::new(), lt, 96, name.starts_with("sll"))?;
        for (ts, up, t) in segments() {
            let ip = if six { v6(up, &t) } else { v4(up, &t) };
            w.packet(ts, &frame(&ip), u32::from(t.len))?;
        }
        let bytes = w.into_inner();
        std::fs::write(dir.join(name), &bytes)?;
        if name == "eth-v4.pcap" {
            std::fs::write(
                dir.join("eth-v4-truncated.pcap"),
                &bytes[..bytes.len() - 30],
            )?;
        }
    }
    let mut w = PcapNgWriter::new(Vec::new())?;
    let a = w.interface(linktype::ETHERNET, 96, 6)?;
    let b = w.interface(linktype::LINUX_SLL2, 96, 9)?;
    for (i, (ts, up, t)) in segments().into_iter().enumerate() {
        let (id, f): (u32, Frame) = if i % 2 == 0 { (a, ethernet) } else { (b, sll2) };
        w.packet(id, ts, &f(&v4(up, &t)), u32::from(t.len))?;
    }
    std::fs::write(dir.join("two-interfaces.pcapng"), w.into_inner())?;
    Ok(())
}
