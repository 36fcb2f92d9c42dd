//! The Prometheus text endpoint (opt-in): per-session and per-connection byte counters (the
//! invariant), active flows and connections, and a per-flow completion-time histogram.
//!
//! The exposition format is plain text (Prometheus text format 0.0.4), written by the
//! `prometheus-client` crate from the sessions' own counters at each scrape (a [`Collector`]:
//! the values live in the core and the engines, never copied into registered metrics); the
//! endpoint answers every HTTP request on its address with the current values. What a scrape
//! costs with thousands of live flows: docs/OPERATIONS.md, "What a scrape costs".

use std::fmt;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

use anyhow::Context;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{
    prometheus_text, DescriptorEncoder, EncodeCounterValue, EncodeGaugeValue, EncodeLabelSet,
    MetricEncoder, NoLabelSet,
};
use prometheus_client::metrics::MetricType;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tracing::info;

use crate::engine::{AdmissionStatus, Engine};
use crate::limits::{self, Budget, Gate, Reject, Rejections};

/// Connections the metrics endpoint waits on for a request at once, and answers at once;
/// beyond, a newcomer evicts the one waiting longest for its request (a [`Gate`], as for pool
/// handshakes), so idle sockets cannot lock scrapers out.
pub const METRICS_CONNECTIONS: usize = 16;

/// Of [`METRICS_CONNECTIONS`], those from one source network (an IPv4 /24, an IPv6 /64).
pub const METRICS_PER_SOURCE: usize = 8;

/// Flows per session the page lists in the policy's order (`schedtcp_ranked_flow_*`): a
/// bounded view of the schedule's head, as `schedtcp status` prints it.
pub const RANKED_FLOWS: usize = 16;

/// Time a metrics client has to send its request, and then to take the whole answer.
pub const METRICS_TIMEOUT: Duration = Duration::from_secs(2);

use crate::histogram::{Histogram, RouteStats, SIZE_CLASSES};

/// A family whose samples are one value of each of a set of `T`s: name, help, type, value.
type Family<'a, T, V> = (&'a str, &'a str, MetricType, fn(&T) -> V);

/// One family of the exposition: a `# HELP` and `# TYPE` line, then one sample per label set.
/// `name` is the sample's name without the `schedtcp_` prefix (a counter's ends in `_total`,
/// which the encoder writes itself).
pub(crate) fn family<L: EncodeLabelSet, V: EncodeGaugeValue + EncodeCounterValue>(
    enc: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    kind: MetricType,
    rows: impl IntoIterator<Item = (L, V)>,
) -> fmt::Result {
    let name = match kind {
        MetricType::Counter => name.strip_suffix("_total").unwrap_or(name),
        _ => name,
    };
    let mut m = enc.encode_descriptor(name, help, None, kind)?;
    for (labels, v) in rows {
        value(&mut m.encode_family(&labels)?, kind, &v)?;
    }
    Ok(())
}

/// A family of one sample without labels (see [`family`]).
pub(crate) fn single<V: EncodeGaugeValue + EncodeCounterValue>(
    enc: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    kind: MetricType,
    v: V,
) -> fmt::Result {
    let name = match kind {
        MetricType::Counter => name.strip_suffix("_total").unwrap_or(name),
        _ => name,
    };
    value(
        &mut enc.encode_descriptor(name, help, None, kind)?,
        kind,
        &v,
    )
}

fn value<V: EncodeGaugeValue + EncodeCounterValue>(
    m: &mut MetricEncoder,
    kind: MetricType,
    v: &V,
) -> fmt::Result {
    match kind {
        MetricType::Counter => m.encode_counter::<NoLabelSet, V, u64>(v, None),
        _ => m.encode_gauge(v),
    }
}

/// A histogram family: one histogram per label set.
fn histograms<'h, L: EncodeLabelSet>(
    enc: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    rows: impl IntoIterator<Item = (L, &'h Histogram)>,
) -> fmt::Result {
    let mut m = enc.encode_descriptor(name, help, None, MetricType::Histogram)?;
    for (labels, h) in rows {
        m.encode_family(&labels)?.encode_histogram::<NoLabelSet>(
            h.sum,
            h.count(),
            &h.buckets(),
            None,
        )?;
    }
    Ok(())
}

/// The endpoint's page, written by [`Registry::render`] at each scrape.
struct Exposition(Registry);

impl fmt::Debug for Exposition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Exposition")
    }
}

impl Collector for Exposition {
    fn encode(&self, mut enc: DescriptorEncoder) -> fmt::Result {
        self.0.encode(&mut enc)
    }
}

/// What the sessions published of what they hold ([`Registry::publish`]).
#[derive(Default)]
struct Published {
    total: AtomicU64,
    sessions: AtomicU64,
}

/// The engines (sessions) a process serves, for the endpoint to read.
#[derive(Default, Clone)]
pub struct Registry {
    engines: Arc<std::sync::Mutex<Vec<Weak<Engine>>>>,
    /// Refusals by reason (`schedtcp_rejected_total`), shared by everything in the process.
    pub rejections: Arc<Rejections>,
    /// (Server) the cap on connections in their handshake.
    gate: Arc<OnceLock<Arc<Gate>>>,
    /// (Server) the memory budget.
    budget: Arc<OnceLock<Budget>>,
    /// (Server) What the sessions held when each last published it (after its last read of a
    /// pool connection, [`Registry::publish`]), and how many sessions publish: the input
    /// path's figures, fresh after every read at a constant cost.
    published: Arc<Published>,
    /// Reloads and the running configuration's hash.
    pub config: Arc<crate::reload::ConfigStatus>,
}

impl Registry {
    pub fn add(&self, e: &Arc<Engine>) {
        let mut v = self.engines.lock().unwrap_or_else(|p| p.into_inner());
        v.retain(|w| w.strong_count() > 0);
        v.push(Arc::downgrade(e));
    }

    /// Shows the server's cap on unauthenticated connections (`schedtcp_unauthenticated_connections`).
    pub fn set_gate(&self, gate: Arc<Gate>) {
        let _ = self.gate.set(gate);
    }

    /// Sets the memory budget (`schedtcp_memory_budget_bytes`); see [`Registry::over_budget`].
    pub fn set_budget(&self, bytes: u64) {
        let _ = self.budget.set(Budget::new(bytes));
    }

    /// Bytes the sessions hold for their peers ([`gtcp::Session::held_bytes`]): handed over
    /// and not yet acknowledged, received and not yet delivered, and the bookkeeping a peer can
    /// multiply (out-of-order segments, flows opened or only named, connections, control
    /// queues) (`schedtcp_memory_bytes`).
    pub fn memory_bytes(&self) -> u64 {
        self.live()
            .iter()
            .map(|e| e.inspect(gtcp::Session::held_bytes))
            .sum()
    }

    /// Whether the sessions hold at least the memory budget (measured at most every
    /// [`limits::MEMORY_REFRESH`]); never without a budget.
    pub fn over_budget(&self) -> bool {
        self.budget
            .get()
            .is_some_and(|b| b.held(|| self.memory_bytes()) >= b.budget)
    }

    /// A session's share of the memory budget counts from now (it publishes what it holds
    /// after each read: [`Registry::publish`]).
    pub fn publish_start(&self) {
        self.published.sessions.fetch_add(1, Ordering::Relaxed);
    }

    /// A session is forgotten: what it published last leaves the total, and its share ends.
    pub fn publish_end(&self, last: u64) {
        self.published.total.fetch_sub(last, Ordering::Relaxed);
        self.published.sessions.fetch_sub(1, Ordering::Relaxed);
    }

    /// A session publishes what it holds now, `held`, having published `before` last (0 at
    /// first). Returns, when it is to take no more input, what it holds and its share: the
    /// sessions together hold at least the memory budget, and this one at least its share of
    /// it, the budget divided among the sessions. A session below its share keeps reading
    /// while another's excess is refused, and as the sessions together hold more than the
    /// budget, one of them is always above its share. Constant time (atomic counters), so a
    /// session publishes after every read.
    pub fn publish(&self, before: u64, held: u64) -> Option<(u64, u64)> {
        let b = self.budget.get()?;
        let p = &self.published;
        let total = if held >= before {
            p.total.fetch_add(held - before, Ordering::Relaxed) + (held - before)
        } else {
            p.total
                .fetch_sub(before - held, Ordering::Relaxed)
                .saturating_sub(before - held)
        };
        self.above_share(b, total, held)
    }

    /// Whether a session that published `held` last is above its share of a spent budget
    /// ([`Registry::publish`]), without publishing: a new pool connection of such a session
    /// is refused.
    pub fn over_share(&self, held: u64) -> Option<(u64, u64)> {
        let b = self.budget.get()?;
        self.above_share(b, self.published.total.load(Ordering::Relaxed), held)
    }

    fn above_share(&self, b: &Budget, total: u64, held: u64) -> Option<(u64, u64)> {
        if total < b.budget {
            return None;
        }
        let share = b.budget / self.published.sessions.load(Ordering::Relaxed).max(1);
        (held >= share).then_some((held, share))
    }

    fn live(&self) -> Vec<Arc<Engine>> {
        let v = self.engines.lock().unwrap_or_else(|p| p.into_inner());
        v.iter().filter_map(Weak::upgrade).collect()
    }

    /// The current values in Prometheus text format (0.0.4), written by `prometheus-client`.
    pub fn render(&self) -> String {
        let mut registry = prometheus_client::registry::Registry::with_prefix("schedtcp");
        registry.register_collector(Box::new(Exposition(self.clone())));
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_text::encode(&mut out, &registry);
        out
    }

    /// Every family of the page.
    fn encode(&self, enc: &mut DescriptorEncoder) -> fmt::Result {
        use MetricType::{Counter, Gauge};
        let engines = self.live();
        let sessions: Vec<_> = engines
            .iter()
            .map(|e| ([("session", e.label.as_str())], e.inspect(|s| s.counters())))
            .collect();
        single(
            enc,
            "sessions",
            "Sessions this process holds (live, or waiting to expire).",
            Gauge,
            engines.len() as u64,
        )?;
        single(
            enc,
            "memory_bytes",
            "Bytes the sessions hold for their peers: buffers (sent and not yet acknowledged, received and not yet delivered) and bookkeeping (out-of-order segments, flows, connections, control queues).",
            Gauge,
            self.memory_bytes(),
        )?;
        if let Some(b) = self.budget.get() {
            single(
                enc,
                "memory_budget_bytes",
                "Above this, new sessions and flows are refused, and input of sessions above their share (memory_budget_bytes).",
                Gauge,
                b.budget,
            )?;
        }
        if let Some(g) = self.gate.get() {
            single(
                enc,
                "unauthenticated_connections",
                "Pool connections in their handshake.",
                Gauge,
                g.occupied() as u64,
            )?;
        }
        family(
            enc,
            "relayed_sockets",
            "Application (client) or target (server) sockets being relayed.",
            Gauge,
            engines
                .iter()
                .map(|e| ([("session", e.label.as_str())], e.relayed_flows() as u64)),
        )?;
        let per =
            |f: fn(&gtcp::SessionCounters) -> u64| sessions.iter().map(move |(l, c)| (*l, f(c)));
        let seconds = |f: fn(&gtcp::SessionCounters) -> u64| {
            sessions.iter().map(move |(l, c)| (*l, f(c) as f64 / 1e6))
        };
        let session_families: [Family<gtcp::SessionCounters, u64>; 15] = [
            (
                "active_flows",
                "Flows tracked by the session.",
                Gauge,
                |c| c.active_flows,
            ),
            ("active_connections", "Live pool connections.", Gauge, |c| {
                c.active_conns
            }),
            ("flows_opened_total", "Flows opened.", Counter, |c| {
                c.flows_opened
            }),
            ("flows_closed_total", "Flows closed.", Counter, |c| {
                c.flows_closed
            }),
            ("flows_reset_total", "Flows reset.", Counter, |c| {
                c.flows_reset
            }),
            (
                "connections_lost_total",
                "Pool connections that died before both sides were done.",
                Counter,
                |c| c.conns_lost,
            ),
            (
                "bytes_handed_total",
                "Bytes applications on this side handed over.",
                Counter,
                |c| c.bytes_handed,
            ),
            (
                "payload_sent_total",
                "Payload bytes sent on pool connections, re-sends included.",
                Counter,
                |c| c.payload_sent,
            ),
            (
                "resent_bytes_total",
                "Payload bytes sent again after their connection died.",
                Counter,
                |c| c.resent_bytes,
            ),
            ("header_sent_total", "Framing bytes sent.", Counter, |c| {
                c.header_sent
            }),
            (
                "bytes_delivered_total",
                "Bytes delivered to applications on this side.",
                Counter,
                |c| c.bytes_delivered,
            ),
            (
                "orphan_bytes",
                "Bytes owed by no live connection.",
                Gauge,
                |c| c.orphan_bytes,
            ),
            (
                "unsent_bytes",
                "Bytes handed over and not yet sent.",
                Gauge,
                |c| c.unsent_bytes,
            ),
            (
                "unsent_bound_bytes",
                "", // written below: it names the lending factor
                Gauge,
                |c| c.unsent_bound,
            ),
            (
                "send_buffered_bytes",
                "Bytes held in send buffers (unsent, or sent and not yet acknowledged).",
                Gauge,
                |c| c.send_buffered_bytes,
            ),
        ];
        let unsent_help = format!(
            "The bound the hand-over rule keeps unsent bytes under: {} x send_buffer per live connection (its own buffer and what the session may lend), send_buffer per flow without one, orphan debt and lost bytes (gtcp::Bounds).",
            1 + gtcp::session::LEND_PER_CONNECTION
        );
        for (name, help, kind, get) in session_families {
            let help = if help.is_empty() { &unsent_help } else { help };
            family(enc, name, help, kind, per(get))?;
        }
        family(
            enc,
            "memory_bound_bytes",
            "What a session may hold at most with max_flows live flows: max_flows x memory per flow + the receive budget (gtcp::Bounds::memory_per_session).",
            Gauge,
            engines.iter().map(|e| {
                let b = e.inspect(|s| s.config().bounds());
                ([("session", e.label.as_str())], b.memory_per_session)
            }),
        )?;
        family(
            enc,
            "starved_seconds_total",
            "Connection-seconds a connection owed bytes (q_v > 0) and the policy had none it could send (plain TCP would have been sending).",
            Counter,
            seconds(|c| c.starved_micros),
        )?;
        family(
            enc,
            "starved_by_credit_seconds_total",
            "Of starved_seconds_total, periods that began with bytes waiting for the receiver's credit.",
            Counter,
            seconds(|c| c.starved_by_credit_micros),
        )?;
        // Flow sizes learned per route (gtcp::policy::learned); route "" = the shared estimate.
        let learned: Vec<(&str, String, u64, f64)> = engines
            .iter()
            .flat_map(|e| {
                let rows = e.inspect(|s| {
                    let r = s.learned_sizes().routes();
                    let f = |r: gtcp::policy::learned::RouteSizes<'_>| {
                        let name = r.route.unwrap_or("").to_owned();
                        (name, r.completed, r.mean.unwrap_or(f64::NAN))
                    };
                    r.map(f).collect::<Vec<_>>()
                });
                let l = e.label.as_str();
                rows.into_iter().map(move |(r, n, m)| (l, r, n, m))
            })
            .collect();
        family(
            enc,
            "route_completed_flows_total",
            "Flows of the route this side completed sending (what the learned sizes are from).",
            Counter,
            learned
                .iter()
                .map(|(l, r, n, _)| ([("session", *l), ("route", r.as_str())], *n)),
        )?;
        family(
            enc,
            "route_mean_flow_bytes",
            "Learned mean flow size of the route (aged over about its last 1000 flows).",
            Gauge,
            learned
                .iter()
                .map(|(l, r, _, m)| ([("session", *l), ("route", r.as_str())], *m)),
        )?;
        let admission: Vec<_> = engines
            .iter()
            .filter_map(|e| Some(([("session", e.label.as_str())], e.admission()?)))
            .collect();
        let admission_families: [Family<AdmissionStatus, f64>; 10] = [
            (
                "admission_limit",
                "M: background flows that may be active at once (paper 004, equation (27)).",
                Gauge,
                |a| f64::from(a.limit),
            ),
            ("admission_active", "Background flows active.", Gauge, |a| a.active as f64),
            (
                "admission_waiting",
                "Background flows waiting for admission.",
                Gauge,
                |a| a.waiting as f64,
            ),
            (
                "admission_refused_total",
                "Background flows refused because the waiting queue was full.",
                Counter,
                |a| a.refused as f64,
            ),
            (
                "admission_rate_bytes",
                "Background bytes per second (moving average).",
                Gauge,
                |a| a.rate,
            ),
            (
                "admission_load_bytes",
                "Estimated background arrival load, bytes per second (NaN before a flow finished).",
                Gauge,
                |a| a.load.unwrap_or(f64::NAN),
            ),
            (
                "admission_saturations_total",
                "Raises of M the adaptive loop took back because they did not lift the background rate (overload; M then held for a memory).",
                Counter,
                |a| a.saturations as f64,
            ),
            (
                "admission_undecided_total",
                "Of those, the raises the sequential test left undecided within its bound (decide_within), taken back as the cheaper side.",
                Counter,
                |a| a.undecided as f64,
            ),
            (
                "admission_check_engaged",
                "1 while the adaptive loop's overload check is engaged (the class fell short of its arrivals over the long memory; raises then go on trial), else 0.",
                Gauge,
                |a| f64::from(u8::from(a.engaged)),
            ),
            (
                "admission_ceiling",
                "The bar on M set by the last saturation while it holds (NaN: none).",
                Gauge,
                |a| a.ceiling.map_or(f64::NAN, f64::from),
            ),
        ];
        for (name, help, kind, get) in admission_families {
            family(
                enc,
                name,
                help,
                kind,
                admission.iter().map(|(l, a)| (*l, get(a))),
            )?;
        }
        // Per live pool connection: (session, conn, owning flow) and its ledger, in the
        // order of `CONNECTION_FAMILIES`.
        let conns: Vec<(&str, u64, u64, [u64; 6])> = engines
            .iter()
            .flat_map(|e| {
                let rows = e.inspect(|s| {
                    s.connections()
                        .filter_map(|(conn, owner)| {
                            let c = s.connection_counters(conn)?;
                            Some((
                                conn.0,
                                owner.map_or(0, |f| f.0),
                                [
                                    c.owner_bytes,
                                    c.payload_bytes,
                                    c.header_bytes,
                                    c.adopted_bytes,
                                    c.virtual_queue,
                                    c.forgiven_bytes,
                                ],
                            ))
                        })
                        .collect::<Vec<_>>()
                });
                let l = e.label.as_str();
                rows.into_iter().map(move |(c, f, v)| (l, c, f, v))
            })
            .collect();
        for (i, (name, help)) in CONNECTION_FAMILIES.iter().enumerate() {
            family(
                enc,
                name,
                help,
                Gauge,
                conns.iter().map(|(session, conn, flow, v)| {
                    (
                        ([("session", *session)], [("conn", *conn), ("flow", *flow)]),
                        v[i],
                    )
                }),
            )?;
        }
        // The first flows in the policy's order, per session.
        let ranked: Vec<(&str, Vec<gtcp::RankedFlow>)> = engines
            .iter()
            .map(|e| {
                (
                    e.label.as_str(),
                    e.inspect(|s| s.ranked_flows(RANKED_FLOWS)),
                )
            })
            .collect();
        let rows = || {
            ranked.iter().flat_map(|(session, flows)| {
                flows.iter().enumerate().map(move |(i, r)| {
                    let labels = (
                        [("session", *session)],
                        (
                            [("rank", i as u64 + 1), ("flow", r.flow.0)],
                            [("route", r.route.as_deref().unwrap_or(""))],
                        ),
                    );
                    (labels, r)
                })
            })
        };
        let sent_help = format!(
            "The flows with bytes to send in the order the policy serves them (rank 1 first; the first {RANKED_FLOWS} per session): bytes sent so far (attained service)."
        );
        let ranked_families: [Family<gtcp::RankedFlow, f64>; 4] = [
            (
                "ranked_flow_sent_bytes",
                &sent_help,
                Gauge,
                |r| r.sent as f64,
            ),
            (
                "ranked_flow_remaining_bytes",
                "Of those flows, bytes left to send where the flow's end is known (NaN: unknown).",
                Gauge,
                |r| r.remaining.map_or(f64::NAN, |b| b as f64),
            ),
            (
                "ranked_flow_unsent_bytes",
                "Of those flows, bytes handed over and not yet sent.",
                Gauge,
                |r| r.unsent as f64,
            ),
            (
                "ranked_flow_ready",
                "Of those flows, 1 if the receiver's credit lets some of its bytes go now, else 0 (it waits for credit).",
                Gauge,
                |r| f64::from(u8::from(r.ready)),
            ),
        ];
        for (name, help, kind, get) in ranked_families {
            family(enc, name, help, kind, rows().map(|(l, r)| (l, get(r))))?;
        }
        self.rejections.encode(enc)?;
        self.config.encode(enc)?;
        let completion: Vec<Histogram> = engines
            .iter()
            .map(|e| {
                e.completion
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .clone()
            })
            .collect();
        histograms(
            enc,
            "flow_completion_seconds",
            "Time from a flow's opening to its close.",
            engines
                .iter()
                .map(|e| [("session", e.label.as_str())])
                .zip(&completion),
        )?;
        encode_routes(enc, &engines)
    }

    /// Binds the endpoint on `addr`, if one is configured, and serves it in the background;
    /// returns the bound address. Binding errors are reported before anything else starts.
    pub async fn start(&self, addr: Option<SocketAddr>) -> anyhow::Result<Option<SocketAddr>> {
        let Some(addr) = addr else { return Ok(None) };
        let listener = TcpListener::bind(addr)
            .await
            .with_context(|| format!("binding metrics endpoint {addr}"))?;
        let bound = listener.local_addr()?;
        info!("metrics on http://{bound}/metrics");
        tokio::spawn(self.clone().serve(listener));
        Ok(Some(bound))
    }

    /// Answers every request on `listener` with the current values. A connection whose request
    /// is there when it is accepted (a scraper sends it with its connection) is answered at
    /// once; a silent one waits in a [`Gate`] of [`METRICS_CONNECTIONS`] places
    /// ([`METRICS_PER_SOURCE`] from one network; a newcomer evicts the one silent longest), so
    /// idle sockets, however fast they come back, only evict each other. Each has
    /// [`METRICS_TIMEOUT`] to ask, as much to wait for one of [`METRICS_CONNECTIONS`] answers
    /// at once, and as much to take it. It survives every error: a failed `accept` pauses the
    /// loop ([`limits::accept_failed`]).
    async fn serve(self, listener: TcpListener) {
        let gate = Gate::new(METRICS_CONNECTIONS, METRICS_PER_SOURCE);
        let answers = Arc::new(tokio::sync::Semaphore::new(METRICS_CONNECTIONS));
        loop {
            let (mut sock, peer) = match listener.accept().await {
                Ok(x) => x,
                Err(e) => {
                    limits::accept_failed(&self.rejections, "metrics endpoint", e).await;
                    continue;
                }
            };
            let mut probe = [std::mem::MaybeUninit::<u8>::uninit(); 1];
            let asked = matches!(socket2::SockRef::from(&sock).peek(&mut probe), Ok(n) if n > 0);
            let ticket = if asked {
                None
            } else {
                match gate.enter(peer.ip()) {
                    Ok(t) => Some(t),
                    Err(_) => {
                        self.rejections.record(Reject::MetricsConnections, || {
                            format!(
                                "metrics endpoint: {} connections still to be closed; closing a new one",
                                METRICS_CONNECTIONS
                            )
                        });
                        continue;
                    }
                }
            };
            let reg = self.clone();
            let answers = answers.clone();
            tokio::spawn(async move {
                // Read (and ignore) the request head, at most 8 KiB; a newer connection may
                // take a silent one's place meanwhile.
                let mut buf = vec![0u8; 8192];
                let evicted = async {
                    match &ticket {
                        Some(t) => t.evicted().await,
                        None => std::future::pending().await,
                    }
                };
                tokio::select! {
                    _ = tokio::time::timeout(METRICS_TIMEOUT, sock.read(&mut buf)) => {}
                    _ = evicted => {
                        reg.rejections.record(Reject::MetricsConnections, || {
                            format!("metrics endpoint: {peer}: no request while newer connections waited; closed")
                        });
                        return;
                    }
                }
                drop((buf, ticket));
                let Ok(Ok(_answering)) =
                    tokio::time::timeout(METRICS_TIMEOUT, answers.acquire_owned()).await
                else {
                    reg.rejections.record(Reject::MetricsConnections, || {
                        format!("metrics endpoint: {peer}: {METRICS_CONNECTIONS} answers in progress for {} s; closed", METRICS_TIMEOUT.as_secs())
                    });
                    return;
                };
                let body = reg.render();
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    prometheus_text::CONTENT_TYPE,
                    body.len()
                );
                let answer = async {
                    sock.write_all(head.as_bytes()).await?;
                    sock.write_all(body.as_bytes()).await?;
                    sock.shutdown().await
                };
                match tokio::time::timeout(METRICS_TIMEOUT, answer).await {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => tracing::debug!("metrics client: {e}"),
                    Err(_) => tracing::debug!("metrics client too slow to take the answer"),
                }
            });
        }
    }
}

/// The per-connection families (labels session, conn, flow), in the order of the values
/// [`Registry::encode`] collects: the ledger of each live pool connection.
const CONNECTION_FAMILIES: [(&str, &str); 6] = [
    (
        "connection_owner_bytes",
        "Bytes the owning flow handed over (the invariant's right side).",
    ),
    (
        "connection_payload_bytes",
        "Payload bytes the connection carried (the invariant's left side).",
    ),
    (
        "connection_header_bytes",
        "Framing bytes the connection carried.",
    ),
    (
        "connection_adopted_bytes",
        "Payload carried for connections that died.",
    ),
    (
        "connection_virtual_queue_bytes",
        "Bytes the connection still owes (q_v).",
    ),
    (
        "connection_forgiven_bytes",
        "Bytes struck from the virtual queue without being carried (after a reset).",
    ),
];

/// A per-route counter family: name, help, value.
type RouteCount = (&'static str, &'static str, fn(&RouteStats) -> u64);

/// The per-route families: flows opened, closed and reset, bytes each way, and completion
/// times by route and size class, labelled by session and route.
fn encode_routes(enc: &mut DescriptorEncoder, engines: &[Arc<Engine>]) -> fmt::Result {
    let stats: Vec<(&str, String, RouteStats)> = engines
        .iter()
        .flat_map(|e| {
            e.route_stats()
                .into_iter()
                .map(|(route, s)| (e.label.as_str(), route, s))
        })
        .collect();
    let counts: [RouteCount; 3] = [
        ("route_flows_opened_total", "Flows opened, by route.", |s| {
            s.opened
        }),
        (
            "route_flows_closed_total",
            "Flows closed (reset ones included), by route.",
            |s| s.closed,
        ),
        (
            "route_flows_reset_total",
            "Flows that ended by a reset, by route.",
            |s| s.reset,
        ),
    ];
    for (name, help, get) in counts {
        family(
            enc,
            name,
            help,
            MetricType::Counter,
            stats.iter().map(|(session, route, s)| {
                ([("session", *session), ("route", route.as_str())], get(s))
            }),
        )?;
    }
    family(
        enc,
        "route_bytes_total",
        "Bytes of closed flows, by route: sent (handed over by this side's applications) and received (delivered to them).",
        MetricType::Counter,
        stats.iter().flat_map(|(session, route, s)| {
            [("sent", s.bytes_sent), ("received", s.bytes_received)].map(|(direction, v)| {
                (
                    [
                        ("session", *session),
                        ("route", route.as_str()),
                        ("direction", direction),
                    ],
                    v,
                )
            })
        }),
    )?;
    histograms(
        enc,
        "route_flow_completion_seconds",
        "Time from a flow's opening to its close, by route and size class (bytes both ways).",
        stats.iter().flat_map(|(session, route, s)| {
            SIZE_CLASSES
                .iter()
                .zip(&s.completion)
                .map(|((size, _), h)| {
                    (
                        [
                            ("session", *session),
                            ("route", route.as_str()),
                            ("size", *size),
                        ],
                        h,
                    )
                })
        }),
    )
}
