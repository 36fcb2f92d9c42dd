//! The record layer's cost: bytes per second sealed and opened (AES-256-GCM, 16 KiB records),
//! beside a plain copy of the same bytes (what the data path does anyway).
//!
//! `cargo bench -p tunnel --bench record`; criterion prints GiB/s (throughput in bytes).

use bytes::BytesMut;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use tunnel::record::{RecordLayer, Side};

/// One write batch of the engine: 256 KiB (16 full records).
const BATCH: usize = 256 * 1024;

fn layers() -> (RecordLayer, RecordLayer) {
    let psk = [0x42u8; 32];
    let (s, c) = ([1u8; 32], [2u8; 32]);
    (
        RecordLayer::new(&psk, &s, &c, Side::Client),
        RecordLayer::new(&psk, &s, &c, Side::Server),
    )
}

fn record(c: &mut Criterion) {
    let plain: Vec<u8> = (0..BATCH).map(|i| (i * 31 % 251) as u8).collect();
    let mut g = c.benchmark_group("record");
    g.throughput(Throughput::Bytes(BATCH as u64));
    g.bench_function("copy (baseline)", |b| {
        let mut out = BytesMut::with_capacity(2 * BATCH);
        b.iter(|| {
            out.clear();
            out.extend_from_slice(&plain);
            std::hint::black_box(&out);
        })
    });
    g.bench_function("seal", |b| {
        let (mut client, _) = layers();
        let mut out = BytesMut::with_capacity(2 * BATCH);
        b.iter(|| {
            out.clear();
            client.sealer.seal(&plain, &mut out).unwrap();
            std::hint::black_box(&out);
        })
    });
    g.bench_function("open", |b| {
        // Each iteration opens a fresh batch sealed in the same sequence (sealing untimed).
        let (mut client, mut server) = layers();
        b.iter_batched(
            || {
                let mut wire = BytesMut::with_capacity(2 * BATCH);
                client.sealer.seal(&plain, &mut wire).unwrap();
                wire
            },
            |mut wire| {
                let mut out = BytesMut::new();
                server.opener.open(&mut wire, &mut out).unwrap();
                std::hint::black_box(out)
            },
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

criterion_group!(benches, record);
criterion_main!(benches);
