//! The session's whole input path, driven by the fuzzer: an opener and an acceptor sharing a
//! few pool connections, with raw bytes injected, applications writing, reading, finishing and
//! resetting, connections added, dying and closing, and the two ends talking in between.
//!
//! The script, its checks after every op and the liveness check at the end are
//! [`gtcp::pair::script`] (one owner: the core's pinned regressions in
//! crates/gtcp/tests/fuzz_regressions.rs replay `cargo fuzz fmt` output through the same
//! [`gtcp::pair::script::run`]). A panic anywhere is a bug.

#![no_main]

use gtcp::pair::script::{run, Input};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: Input| run(input));
