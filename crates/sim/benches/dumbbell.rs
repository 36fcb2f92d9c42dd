//! Criterion benchmark of the issue-3 speed scenario (paper 003, setting S1, workload D1).
//!
//! `cargo bench -p sim --bench dumbbell` — throughput is reported in bottleneck packets
//! (forward direction) per second of wall time. The full 300-second run is
//! `cargo run --release -p sim --example dumbbell_speed`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sim::scenario::Scenario;

fn bench(c: &mut Criterion) {
    let sc = Scenario::speed_benchmark(60.0);
    let packets = sc
        .run()
        .expect("benchmark scenario runs")
        .bottleneck
        .tx_packets;
    let mut g = c.benchmark_group("dumbbell_s1_d1");
    g.sample_size(10);
    g.throughput(Throughput::Elements(packets));
    g.bench_function("60s_load0.8", |b| {
        b.iter(|| {
            let r = sc.run().expect("runs");
            assert_eq!(r.bottleneck.tx_packets, packets);
            r.events
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
