//! The cost of a scheduling decision at 10, 1 000 and 10 000 ready flows, for each policy.
//!
//! * `decision/<policy>/<n>` — the pure decision, as the session makes it per chunk:
//!   [`SchedQueue::first`], the served flow's new key from [`Policy::key`] (after one chunk of
//!   service), and its remove + insert; under `fair` also the re-key of the flow owning the
//!   connection that carried the chunk (its virtual remaining shrank). A flow whose transfer
//!   is done is replaced by a fresh one, so the queue always holds exactly `n` ready flows.
//!   Under the policies that learn sizes (`gittins`, `auto`, `mu:srpt`) the key is
//!   [`Policy::key_on`] with the flow's route looked up in a [`LearnedSizes`] trained on the
//!   same size distribution (four routes, one per class, route `c` trained on sizes × 2^c so
//!   the μ-rule ranks them); under `gittins` and `auto` every flow's size is unknown to the
//!   policy, so each key is a Gittins index look-up.
//! * `poll_transmit/<policy>/<n>` — the whole [`Session::poll_transmit`] of one 16 KiB chunk on
//!   an opener session with `n` flows, each with its own connection and bytes ready. Only the
//!   `poll_transmit` call is timed; between calls (untimed) the served flow is acknowledged and
//!   handed exactly the bytes it just sent, so every flow stays ready and the session's memory
//!   stays constant, and the next connection polled is one whose virtual queue holds at least a
//!   chunk (some always does: Σ q_v = Σ unsent ≥ n chunks). `poll_transmit_1k/...`: the same
//!   with a session configured for 1 KiB chunks.
//!
//! Run: `cargo bench -p gtcp --bench policy -- --warm-up-time 1 --measurement-time 2`
//! (results in crates/gtcp/BENCH.md).

use std::collections::VecDeque;
use std::hint::black_box;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use gtcp::policy::{FlowState, LearnedSizes, SchedQueue, SortKey};
use gtcp::wire::{AckFrame, Frame, OpenFrame, DATA_HEADER_LEN};
use gtcp::{Config, ConnId, FlowId, Policy, Role, Session};

const POLICIES: [&str; 8] = [
    "srpt",
    "las",
    "fair",
    "psps",
    "priority:srpt",
    "gittins",
    "auto",
    "mu:srpt",
];
/// Route of a flow of class `c` in the decision bench.
const ROUTES: [&str; 4] = ["r0", "r1", "r2", "r3"];
const SIZES: [usize; 3] = [10, 1_000, 10_000];
/// Bytes of service per decision: the default chunk.
const CHUNK: u64 = 16 * 1024;

/// splitmix64: a deterministic stream, so every run benchmarks the same states.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A transfer size, log-uniform between 1 KiB and 8 MiB (many small, a few large).
    fn size(&mut self) -> u64 {
        let exp = 10.0 + 13.0 * (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        exp.exp2() as u64
    }
}

// ----- (a) the pure decision --------------------------------------------------------------

struct QueueRig {
    policy: Policy,
    queue: SchedQueue,
    states: Vec<FlowState>,
    keys: Vec<SortKey>,
    /// Each flow's size (the policy may not know it).
    sizes: Vec<u64>,
    learned: LearnedSizes,
    arrivals: u64,
    turn: u64,
    /// Round robin over the connections that become ready (connection i is owned by flow i).
    next_conn: usize,
    rng: Rng,
}

impl QueueRig {
    fn new(policy: Policy, n: usize) -> Self {
        let mut rig = QueueRig {
            policy,
            queue: SchedQueue::default(),
            states: Vec::with_capacity(n),
            keys: Vec::with_capacity(n),
            sizes: Vec::with_capacity(n),
            learned: LearnedSizes::default(),
            arrivals: 0,
            turn: 0,
            next_conn: 0,
            rng: Rng(n as u64 ^ 0x5eed),
        };
        let mut train = Rng(0x1ea2);
        for i in 0..4096 {
            let class = i % ROUTES.len();
            let size = train.size() << class;
            rig.learned
                .record(Some(ROUTES[class]), size, policy.uses_index());
        }
        for i in 0..n {
            let (st, size) = rig.fresh();
            let key = rig.key(&st);
            rig.queue.insert(key, id(i));
            rig.states.push(st);
            rig.keys.push(key);
            rig.sizes.push(size);
        }
        // Some history, so the keys are spread as in a busy session.
        for _ in 0..4 * n {
            rig.step();
        }
        rig
    }

    fn fresh(&mut self) -> (FlowState, u64) {
        self.arrivals += 1;
        let class = (self.rng.next() % 4) as u8;
        let size = self.rng.size();
        let st = FlowState {
            arrival: self.arrivals,
            class,
            known_end: (!self.policy.uses_index()).then_some(size),
            ..FlowState::default()
        };
        (st, size)
    }

    fn key(&self, st: &FlowState) -> SortKey {
        if self.policy.learns() {
            let view = self.learned.view(Some(ROUTES[usize::from(st.class)]));
            self.policy.key_on(st, &view)
        } else {
            self.policy.key(st)
        }
    }

    fn rekey(&mut self, i: usize) {
        let key = self.key(&self.states[i]);
        if key != self.keys[i] {
            self.queue.remove(self.keys[i], id(i));
            self.queue.insert(key, id(i));
            self.keys[i] = key;
        }
    }

    /// One chunk: connection `o` may send, the policy's first flow `j` is served.
    fn step(&mut self) -> FlowId {
        let o = self.next_conn;
        self.next_conn = (o + 1) % self.states.len();
        let served = self.queue.first().expect("the queue never empties");
        let j = (served.0 - 1) as usize;
        self.turn += 1;
        let st = &mut self.states[j];
        st.sent += CHUNK;
        st.turn = self.turn;
        if st.sent >= self.sizes[j] {
            // Done: a new flow takes its place.
            (self.states[j], self.sizes[j]) = self.fresh();
        }
        self.rekey(j);
        self.states[o].virtual_sent += CHUNK;
        if self.policy.uses_virtual() {
            self.rekey(o);
        }
        served
    }
}

fn id(i: usize) -> FlowId {
    FlowId(i as u64 + 1)
}

fn bench_decision(c: &mut Criterion) {
    let mut g = c.benchmark_group("decision");
    for name in POLICIES {
        let policy: Policy = name.parse().expect("policy name");
        for n in SIZES {
            let mut rig = QueueRig::new(policy, n);
            g.bench_function(BenchmarkId::new(name, n), |b| {
                b.iter(|| black_box(rig.step()));
            });
            assert_eq!(rig.queue.len(), n, "the bench must not drift");
        }
    }
    g.finish();
}

// ----- (b) the whole poll_transmit ----------------------------------------------------------

struct SessionRig {
    s: Session,
    /// Mirror of each connection's virtual queue (connection i + 1 is owned by flow i + 1).
    vq: Vec<u64>,
    /// Connections whose virtual queue holds at least a chunk, in the order they are polled.
    candidates: VecDeque<usize>,
    queued: Vec<bool>,
    /// Per flow: bytes sent, bytes its own connection carried (FAIR's virtual service), and
    /// where its current transfer ends.
    sent: Vec<u64>,
    vsent: Vec<u64>,
    end: Vec<u64>,
    out: BytesMut,
    fill: Vec<u8>,
    rng: Rng,
    /// Payload bytes per chunk (the session's configured chunk).
    chunk: u64,
}

const CREDIT: u64 = u64::MAX / 4;

impl SessionRig {
    fn new(policy: Policy, n: usize, chunk: u64) -> Self {
        // Bytes each flow keeps ready (a constant: what goes out is handed over again).
        let unsent = 2 * chunk;
        let config = Config {
            policy,
            chunk: chunk as u32,
            max_flows: n,
            ..Config::default()
        };
        let mut s = Session::new(Role::Opener, config).expect("config");
        let mut rng = Rng(n as u64 ^ 0xbe9c);
        let fill = vec![0x5a; unsent as usize];
        let mut end = Vec::with_capacity(n);
        for i in 0..n {
            let size = rng.size();
            let f = s
                .open_flow(Duration::ZERO, None, "bench", (i % 4) as u8, Some(size))
                .expect("open");
            assert_eq!(f, id(i));
            s.add_connection(ConnId(f.0), Some(f)).expect("connect");
            // The receiver grants all the credit the bench needs at once.
            ack(&mut s, f, 0);
            assert_eq!(s.write(f, &fill).expect("write"), unsent as usize);
            end.push(size);
        }
        // Every opening frame goes out first, alone (a poll writes nothing after an opening
        // that does not fit, so it must have room for exactly that frame).
        let mut out = BytesMut::with_capacity(1 << 16);
        for (i, &size) in end.iter().enumerate() {
            let open = Frame::Open(OpenFrame {
                flow: id(i),
                route: "bench".into(),
                class: (i % 4) as u8,
                size_hint: Some(size),
                origin: None,
            });
            out.clear();
            let len = open.encoded_len();
            let written = s.poll_transmit(Duration::ZERO, ConnId(i as u64 + 1), &mut out, len);
            assert_eq!(written, len, "the opening alone");
        }
        while s.poll_event().is_some() {}
        let mut rig = SessionRig {
            s,
            vq: vec![unsent; n],
            candidates: (0..n).collect(),
            queued: vec![true; n],
            sent: vec![0; n],
            vsent: vec![0; n],
            end,
            out,
            fill,
            rng,
            chunk,
        };
        for _ in 0..4 * n {
            let (c, max) = (rig.pick_conn(), rig.max());
            rig.out.clear();
            rig.s
                .poll_transmit(Duration::ZERO, conn(c), &mut rig.out, max);
            rig.recycle(c);
        }
        rig
    }

    /// Room for exactly one chunk.
    fn max(&self) -> usize {
        DATA_HEADER_LEN + self.chunk as usize
    }

    fn pick_conn(&mut self) -> usize {
        let c = self.candidates.pop_front().expect("some vq holds a chunk");
        self.queued[c] = false;
        c
    }

    fn enqueue(&mut self, c: usize) {
        if !self.queued[c] && self.vq[c] >= self.chunk {
            self.queued[c] = true;
            self.candidates.push_back(c);
        }
    }

    /// After connection `c` sent one chunk: acknowledge it, hand the served flow the same bytes
    /// again, and start a new transfer on a flow whose current one is done.
    fn recycle(&mut self, c: usize) {
        let out = &self.out[..];
        let chunk = self.chunk;
        assert_eq!(out.len(), self.max(), "one whole chunk per poll");
        let flow = u64::from_be_bytes(out[1..9].try_into().expect("8 bytes"));
        let offset = u64::from_be_bytes(out[9..17].try_into().expect("8 bytes"));
        let j = (flow - 1) as usize;
        self.sent[j] = offset + chunk;
        self.vsent[c] += chunk;
        self.vq[c] -= chunk;
        ack(&mut self.s, FlowId(flow), self.sent[j]);
        let n = self.s.write(FlowId(flow), &self.fill[..chunk as usize]);
        assert_eq!(n, Ok(chunk as usize));
        self.vq[j] += chunk;
        for f in [j, c] {
            let done = self.sent[f].max(self.vsent[f]);
            if done >= self.end[f] {
                self.end[f] = done + self.rng.size();
                self.s
                    .set_known_end(id(f), Some(self.end[f]))
                    .expect("live flow");
            }
        }
        while self.s.poll_event().is_some() {}
        self.enqueue(c);
        self.enqueue(j);
    }

    fn run(&mut self, iters: u64) -> Duration {
        let mut total = Duration::ZERO;
        for _ in 0..iters {
            let (c, max) = (self.pick_conn(), self.max());
            self.out.clear();
            let start = Instant::now();
            let n = self
                .s
                .poll_transmit(Duration::ZERO, conn(c), &mut self.out, max);
            total += start.elapsed();
            black_box(n);
            self.recycle(c);
        }
        total
    }
}

fn conn(i: usize) -> ConnId {
    ConnId(i as u64 + 1)
}

fn ack(s: &mut Session, flow: FlowId, received: u64) {
    let frame = Frame::Ack(AckFrame {
        flow,
        received,
        credit: CREDIT,
        fin: false,
    });
    s.handle_frame(Duration::ZERO, ConnId(flow.0), frame)
        .expect("ack");
}

/// `poll_transmit` of one default 16 KiB chunk, and of one 1 KiB chunk (where the copy of the
/// payload weighs less and the bookkeeping more).
fn bench_poll_transmit(c: &mut Criterion) {
    poll_transmit_group(c, "poll_transmit", CHUNK);
    poll_transmit_group(c, "poll_transmit_1k", 1024);
}

fn poll_transmit_group(c: &mut Criterion, group: &str, chunk: u64) {
    let mut g = c.benchmark_group(group);
    for name in POLICIES {
        let policy: Policy = name.parse().expect("policy name");
        for n in SIZES {
            let mut rig = SessionRig::new(policy, n, chunk);
            g.bench_function(BenchmarkId::new(name, n), |b| {
                b.iter_custom(|iters| rig.run(iters));
            });
            assert_eq!(rig.s.ready_flows(), n, "the bench must not drift");
        }
    }
    g.finish();
}

criterion_group!(benches, bench_decision, bench_poll_transmit);
criterion_main!(benches);
