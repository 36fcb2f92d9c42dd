#![forbid(unsafe_code)]
#![warn(missing_docs)]
//! Analytical models of the schedtcp papers.
//!
//! * [`dist`] — flow-size distributions (exponential, Pareto, bounded Pareto, Lomax,
//!   mixtures) with robust truncated moments.
//! * [`mg1`] — M/G/1 response times under PS (paper 003 eqs. (1)–(3)), LAS (eqs. (4)–(5)),
//!   PS+PS / RuN2C (eqs. (6)–(8)), SRPT (Schrage) and FCFS (Pollaczek–Khinchine).
//! * [`bg`] — background transfers with minimal delay impact (paper 004): Erlang B / Engset,
//!   the optimal threshold policy, the optimal implementable policy, wTCP, Theorem 5's bounds
//!   and access control of micro-flows.
//! * [`slowstart`] — the slow-start component of a TCP flow's delay, `T̄^SS(x)` (paper 003,
//!   end of Section II-B), added to the flow-level scheduling delay.
//! * [`pin`] — how often a connection runs over into the next possible initial number of
//!   paper 003's stateless classifier (Section III-A).
//!
//! Inputs are validated and reported as [`ModelError`]; no function returns NaN for a
//! valid-looking input. Capacities are normalised to one (sizes are service times) unless a
//! function says otherwise.

pub mod bg;
pub mod dist;
pub mod error;
pub mod mg1;
pub mod num;
pub mod pin;
pub mod slowstart;

pub use dist::SizeDist;
pub use error::{ModelError, Result};
pub use mg1::Mg1;
