//! # testbed — real kernel TCP through a real bottleneck, on one machine
//!
//! Three network namespaces, *origin*, *router* and *destination*, joined by two veth pairs
//! (the root namespace gets no interface and no route):
//!
//! ```text
//!  origin            router                                    destination
//!  o0 198.18.1.1 ── r0 198.18.1.2 [tbf → bfifo/pfifo]  r1 198.18.2.2 ── d0 198.18.2.1
//!  app, workload,                                              schedtcp server,
//!  schedtcp client                                             target (sink/source)
//! ```
//!
//! The bottleneck is `tbf` (rate, burst) with a `bfifo` or `pfifo` child queue at the
//! router's egress, in both directions (downloads leave through `r0`, uploads through `r1`).
//! The addresses are in 198.18.0.0/15, the range reserved for benchmarking (RFC 2544,
//! RFC 6890: not forwardable, not global); they exist only on the testbed's own veths and
//! each namespace has a route to the other /24 only, never a default route.
//!
//! [`bed::Testbed`] builds and tears down the namespaces (always: on success, on error, on
//! panic through `Drop`, on Ctrl-C through [`interrupt`]; a run that was killed leaves an
//! owner file whose dead owner marks its namespaces as stale, and the next run removes them).
//! [`run::Session`] starts the real `schedtcp` binary in the namespaces: `schedtcp server`
//! in the destination, `schedtcp client` in the origin, and `schedtcp testbed helper ...`
//! for the embedded target (destination) and the workload generator (origin), which opens
//! flows as a [`workload::Plan`] says and records each flow's completion time as the
//! application sees it, with every byte checked end to end.
//!
//! For the alternatives a deployer would run instead of schedtcp, [`run::Session::run_mux`]
//! carries the same flows over [`mux`], a yamux multiplexer (one long-lived connection per
//! lane).
//!
//! Nothing here needs `unsafe`.

#![forbid(unsafe_code)]

pub mod bed;
pub mod fault;
pub mod helper;
pub mod interrupt;
pub mod mux;
pub mod proc;
pub mod router_speed;
pub mod run;
pub mod smoke;
pub mod workload;

pub use bed::{BedConfig, Queue, RouterCounters, RouterQueue, Testbed};
pub use run::{check_policy, find_binary, Session, TunnelSettings, VariantRun};
pub use workload::{FlowResult, Path as FlowPath, Plan, PlannedFlow};
