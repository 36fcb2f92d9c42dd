//! The Prometheus text endpoint (opt-in): per-session and per-connection byte counters (the
//! invariant), active flows and connections, and a per-flow completion-time histogram.
//!
//! The exposition format is plain text (Prometheus text format 0.0.4); the endpoint answers
//! every HTTP request on its address with the current values.

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

use anyhow::Context;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tracing::info;

use crate::engine::Engine;
use crate::limits::{self, Budget, Gate, Reject, Rejections};

/// Connections the metrics endpoint waits on for a request at once, and answers at once;
/// beyond, a newcomer evicts the one waiting longest for its request (a [`Gate`], as for pool
/// handshakes), so idle sockets cannot lock scrapers out.
pub const METRICS_CONNECTIONS: usize = 16;

/// Of [`METRICS_CONNECTIONS`], those from one source network (an IPv4 /24, an IPv6 /64).
pub const METRICS_PER_SOURCE: usize = 8;

/// Time a metrics client has to send its request, and then to take the whole answer.
pub const METRICS_TIMEOUT: Duration = Duration::from_secs(2);

use crate::histogram::{Histogram, RouteStats, BUCKETS, SIZE_CLASSES};

/// Label sets and values of one metric.
type Rows = Vec<(String, f64)>;

/// A label value as the exposition format wants it (backslash, quote and newline escaped).
fn label_value(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// Appends the `_bucket`, `_sum` and `_count` lines of one histogram with these labels.
fn histogram_lines(out: &mut String, name: &str, labels: &str, h: &Histogram) {
    for (b, c) in BUCKETS.iter().zip(h.counts) {
        let _ = writeln!(out, "{name}_bucket{{{labels},le=\"{b}\"}} {c}");
    }
    let _ = writeln!(out, "{name}_bucket{{{labels},le=\"+Inf\"}} {}", h.count());
    let _ = writeln!(out, "{name}_sum{{{labels}}} {}", h.sum);
    let _ = writeln!(out, "{name}_count{{{labels}}} {}", h.count());
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

    /// Bytes the sessions hold in buffers: handed over and not yet acknowledged, received and
    /// not yet delivered (`schedtcp_memory_bytes`).
    pub fn memory_bytes(&self) -> u64 {
        self.live()
            .iter()
            .map(|e| e.inspect(|s| s.counters().send_buffered_bytes + s.recv_buffered_bytes()))
            .sum()
    }

    /// Whether the sessions hold at least the memory budget (measured at most every
    /// [`limits::MEMORY_REFRESH`]); never without a budget.
    pub fn over_budget(&self) -> bool {
        self.budget
            .get()
            .is_some_and(|b| b.held(|| self.memory_bytes()) >= b.budget)
    }

    fn live(&self) -> Vec<Arc<Engine>> {
        let v = self.engines.lock().unwrap_or_else(|p| p.into_inner());
        v.iter().filter_map(Weak::upgrade).collect()
    }

    /// The current values in Prometheus text format.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let engines = self.live();
        let mut counter = |name: &str, help: &str, kind: &str, rows: Vec<(String, f64)>| {
            let _ = writeln!(
                out,
                "# HELP schedtcp_{name} {help}\n# TYPE schedtcp_{name} {kind}"
            );
            for (labels, v) in rows {
                let _ = writeln!(out, "schedtcp_{name}{{{labels}}} {v}");
            }
        };
        let sessions: Vec<_> = engines
            .iter()
            .map(|e| (e.label.clone(), e.inspect(|s| s.counters())))
            .collect();
        counter(
            "sessions",
            "Sessions this process holds (live, or waiting to expire).",
            "gauge",
            vec![(String::new(), engines.len() as f64)],
        );
        counter(
            "memory_bytes",
            "Bytes held in the sessions' buffers (sent and not yet acknowledged, received and not yet delivered).",
            "gauge",
            vec![(String::new(), self.memory_bytes() as f64)],
        );
        if let Some(b) = self.budget.get() {
            counter(
                "memory_budget_bytes",
                "Above this, new sessions and flows are refused (memory_budget_bytes).",
                "gauge",
                vec![(String::new(), b.budget as f64)],
            );
        }
        if let Some(g) = self.gate.get() {
            counter(
                "unauthenticated_connections",
                "Pool connections in their handshake.",
                "gauge",
                vec![(String::new(), g.occupied() as f64)],
            );
        }
        counter(
            "relayed_sockets",
            "Application (client) or target (server) sockets being relayed.",
            "gauge",
            engines
                .iter()
                .map(|e| (format!("session=\"{}\"", e.label), e.relayed_flows() as f64))
                .collect(),
        );
        let per = |f: fn(&gtcp::SessionCounters) -> u64| {
            sessions
                .iter()
                .map(|(l, c)| (format!("session=\"{l}\""), f(c) as f64))
                .collect::<Vec<_>>()
        };
        let seconds = |f: fn(&gtcp::SessionCounters) -> u64| {
            sessions
                .iter()
                .map(|(l, c)| (format!("session=\"{l}\""), f(c) as f64 / 1e6))
                .collect::<Vec<_>>()
        };
        counter(
            "active_flows",
            "Flows tracked by the session.",
            "gauge",
            per(|c| c.active_flows),
        );
        counter(
            "active_connections",
            "Live pool connections.",
            "gauge",
            per(|c| c.active_conns),
        );
        counter(
            "flows_opened_total",
            "Flows opened.",
            "counter",
            per(|c| c.flows_opened),
        );
        counter(
            "flows_closed_total",
            "Flows closed.",
            "counter",
            per(|c| c.flows_closed),
        );
        counter(
            "flows_reset_total",
            "Flows reset.",
            "counter",
            per(|c| c.flows_reset),
        );
        counter(
            "connections_lost_total",
            "Pool connections that died before both sides were done.",
            "counter",
            per(|c| c.conns_lost),
        );
        counter(
            "bytes_handed_total",
            "Bytes applications on this side handed over.",
            "counter",
            per(|c| c.bytes_handed),
        );
        counter(
            "payload_sent_total",
            "Payload bytes sent on pool connections, re-sends included.",
            "counter",
            per(|c| c.payload_sent),
        );
        counter(
            "resent_bytes_total",
            "Payload bytes sent again after their connection died.",
            "counter",
            per(|c| c.resent_bytes),
        );
        counter(
            "header_sent_total",
            "Framing bytes sent.",
            "counter",
            per(|c| c.header_sent),
        );
        counter(
            "bytes_delivered_total",
            "Bytes delivered to applications on this side.",
            "counter",
            per(|c| c.bytes_delivered),
        );
        counter(
            "orphan_bytes",
            "Bytes owed by no live connection.",
            "gauge",
            per(|c| c.orphan_bytes),
        );
        counter(
            "unsent_bytes",
            "Bytes handed over and not yet sent.",
            "gauge",
            per(|c| c.unsent_bytes),
        );
        let unsent_help = format!(
            "The bound the hand-over rule keeps unsent bytes under: {} x send_buffer per live connection (its own buffer and what the session may lend), send_buffer per flow without one, orphan debt and lost bytes (gtcp::Bounds).",
            1 + gtcp::session::LEND_PER_CONNECTION
        );
        counter(
            "unsent_bound_bytes",
            &unsent_help,
            "gauge",
            per(|c| c.unsent_bound),
        );
        counter(
            "memory_bound_bytes",
            "What a session may hold at most with max_flows live flows: max_flows x memory per flow + the receive budget (gtcp::Bounds::memory_per_session).",
            "gauge",
            engines
                .iter()
                .map(|e| {
                    let b = e.inspect(|s| s.config().bounds());
                    (format!("session=\"{}\"", e.label), b.memory_per_session as f64)
                })
                .collect(),
        );
        counter(
            "starved_seconds_total",
            "Connection-seconds a connection owed bytes (q_v > 0) and the policy had none it could send (plain TCP would have been sending).",
            "counter",
            seconds(|c| c.starved_micros),
        );
        counter(
            "starved_by_credit_seconds_total",
            "Of starved_seconds_total, periods that began with bytes waiting for the receiver's credit.",
            "counter",
            seconds(|c| c.starved_by_credit_micros),
        );
        counter(
            "send_buffered_bytes",
            "Bytes held in send buffers (unsent, or sent and not yet acknowledged).",
            "gauge",
            per(|c| c.send_buffered_bytes),
        );
        // Flow sizes learned per route (gtcp::policy::learned); route "" = the shared estimate.
        let learned: Vec<(String, u64, f64)> = engines
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
                let l = e.label.clone();
                rows.into_iter()
                    .map(move |(r, n, m)| (format!("session=\"{l}\",route=\"{r}\""), n, m))
            })
            .collect();
        counter(
            "route_completed_flows_total",
            "Flows of the route this side completed sending (what the learned sizes are from).",
            "counter",
            learned
                .iter()
                .map(|(l, n, _)| (l.clone(), *n as f64))
                .collect(),
        );
        counter(
            "route_mean_flow_bytes",
            "Learned mean flow size of the route (aged over about its last 1000 flows).",
            "gauge",
            learned.iter().map(|(l, _, m)| (l.clone(), *m)).collect(),
        );
        let admission: Vec<_> = engines
            .iter()
            .filter_map(|e| Some((format!("session=\"{}\"", e.label), e.admission()?)))
            .collect();
        let adm = |f: fn(&crate::engine::AdmissionStatus) -> f64| -> Vec<(String, f64)> {
            admission.iter().map(|(l, a)| (l.clone(), f(a))).collect()
        };
        counter(
            "admission_limit",
            "M: background flows that may be active at once (paper 004, equation (27)).",
            "gauge",
            adm(|a| f64::from(a.limit)),
        );
        counter(
            "admission_active",
            "Background flows active.",
            "gauge",
            adm(|a| a.active as f64),
        );
        counter(
            "admission_waiting",
            "Background flows waiting for admission.",
            "gauge",
            adm(|a| a.waiting as f64),
        );
        counter(
            "admission_refused_total",
            "Background flows refused because the waiting queue was full.",
            "counter",
            adm(|a| a.refused as f64),
        );
        counter(
            "admission_rate_bytes",
            "Background bytes per second (moving average).",
            "gauge",
            adm(|a| a.rate),
        );
        counter(
            "admission_load_bytes",
            "Estimated background arrival load, bytes per second (NaN before a flow finished).",
            "gauge",
            adm(|a| a.load.unwrap_or(f64::NAN)),
        );
        counter(
            "admission_saturations_total",
            "Raises of M the adaptive loop took back because they did not lift the background rate (overload; M then held for a memory).",
            "counter",
            adm(|a| a.saturations as f64),
        );
        counter(
            "admission_undecided_total",
            "Of those, the raises the sequential test left undecided within its bound (decide_within), taken back as the cheaper side.",
            "counter",
            adm(|a| a.undecided as f64),
        );
        counter(
            "admission_check_engaged",
            "1 while the adaptive loop's overload check is engaged (the class fell short of its arrivals over the long memory; raises then go on trial), else 0.",
            "gauge",
            adm(|a| f64::from(u8::from(a.engaged))),
        );
        counter(
            "admission_ceiling",
            "The bar on M set by the last saturation while it holds (NaN: none).",
            "gauge",
            adm(|a| a.ceiling.map_or(f64::NAN, f64::from)),
        );
        let mut conn_rows: Vec<(&str, &str, Rows)> = vec![
            (
                "connection_owner_bytes",
                "Bytes the owning flow handed over (the invariant's right side).",
                Vec::new(),
            ),
            (
                "connection_payload_bytes",
                "Payload bytes the connection carried (the invariant's left side).",
                Vec::new(),
            ),
            (
                "connection_header_bytes",
                "Framing bytes the connection carried.",
                Vec::new(),
            ),
            (
                "connection_adopted_bytes",
                "Payload carried for connections that died.",
                Vec::new(),
            ),
            (
                "connection_virtual_queue_bytes",
                "Bytes the connection still owes (q_v).",
                Vec::new(),
            ),
            (
                "connection_forgiven_bytes",
                "Bytes struck from the virtual queue without being carried (after a reset).",
                Vec::new(),
            ),
        ];
        for e in &engines {
            e.inspect(|s| {
                for (conn, owner) in s.connections() {
                    let Some(c) = s.connection_counters(conn) else {
                        continue;
                    };
                    let owner = owner.map_or(0, |f| f.0);
                    let labels = format!(
                        "session=\"{}\",conn=\"{}\",flow=\"{}\"",
                        e.label, conn.0, owner
                    );
                    let vals = [
                        c.owner_bytes,
                        c.payload_bytes,
                        c.header_bytes,
                        c.adopted_bytes,
                        c.virtual_queue,
                        c.forgiven_bytes,
                    ];
                    for (row, v) in conn_rows.iter_mut().zip(vals) {
                        row.2.push((labels.clone(), v as f64));
                    }
                }
            });
        }
        for (name, help, rows) in conn_rows {
            counter(name, help, "gauge", rows);
        }
        self.rejections.render(&mut out);
        self.config.render(&mut out);
        let _ = writeln!(
            out,
            "# HELP schedtcp_flow_completion_seconds Time from a flow's opening to its close."
        );
        let _ = writeln!(out, "# TYPE schedtcp_flow_completion_seconds histogram");
        for e in &engines {
            let h = e
                .completion
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone();
            histogram_lines(
                &mut out,
                "schedtcp_flow_completion_seconds",
                &format!("session=\"{}\"", e.label),
                &h,
            );
        }
        render_routes(&mut out, &engines);
        out
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
                    "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
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

/// A per-route counter family: name, help, value.
type RouteCount = (&'static str, &'static str, fn(&RouteStats) -> u64);

/// The per-route families: flows opened, closed and reset, bytes each way, and completion
/// times by route and size class, labelled by session and route.
fn render_routes(out: &mut String, engines: &[Arc<Engine>]) {
    let stats: Vec<(String, String, RouteStats)> = engines
        .iter()
        .flat_map(|e| {
            e.route_stats()
                .into_iter()
                .map(|(route, s)| (e.label.clone(), label_value(&route), s))
        })
        .collect();
    let family = |out: &mut String, name: &str, help: &str, kind: &str| {
        let _ = writeln!(
            out,
            "# HELP schedtcp_{name} {help}\n# TYPE schedtcp_{name} {kind}"
        );
    };
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
        family(out, name, help, "counter");
        for (session, route, s) in &stats {
            let _ = writeln!(
                out,
                "schedtcp_{name}{{session=\"{session}\",route=\"{route}\"}} {}",
                get(s)
            );
        }
    }
    family(
        out,
        "route_bytes_total",
        "Bytes of closed flows, by route: sent (handed over by this side's applications) and received (delivered to them).",
        "counter",
    );
    for (session, route, s) in &stats {
        for (direction, v) in [("sent", s.bytes_sent), ("received", s.bytes_received)] {
            let _ = writeln!(
                out,
                "schedtcp_route_bytes_total{{session=\"{session}\",route=\"{route}\",direction=\"{direction}\"}} {v}"
            );
        }
    }
    family(
        out,
        "route_flow_completion_seconds",
        "Time from a flow's opening to its close, by route and size class (bytes both ways).",
        "histogram",
    );
    for (session, route, s) in &stats {
        for ((size, _), h) in SIZE_CLASSES.iter().zip(&s.completion) {
            histogram_lines(
                out,
                "schedtcp_route_flow_completion_seconds",
                &format!("session=\"{session}\",route=\"{route}\",size=\"{size}\""),
                h,
            );
        }
    }
}
