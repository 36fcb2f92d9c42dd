//! Ctrl-C and SIGTERM while a testbed runs: the first signal sets a flag that every wait of
//! the orchestrator checks, so the run stops, kills its processes and removes its namespaces;
//! a second signal exits at once (status 130), as a second Ctrl-C should.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use anyhow::{bail, Result};

static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();

/// Installs the handlers (idempotent). Called by [`crate::bed::Testbed::create`].
pub fn install() -> Result<()> {
    if FLAG.get().is_some() {
        return Ok(());
    }
    let flag = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        // Order matters: the conditional exit sees the flag before this signal sets it.
        signal_hook::flag::register_conditional_shutdown(sig, 130, flag.clone())?;
        signal_hook::flag::register(sig, flag.clone())?;
    }
    let _ = FLAG.set(flag);
    Ok(())
}

/// Whether SIGINT or SIGTERM arrived since [`install`].
pub fn interrupted() -> bool {
    FLAG.get().is_some_and(|f| f.load(Ordering::SeqCst))
}

/// An error if a signal arrived.
pub fn check() -> Result<()> {
    if interrupted() {
        bail!("interrupted (SIGINT/SIGTERM): stopping and cleaning up");
    }
    Ok(())
}
