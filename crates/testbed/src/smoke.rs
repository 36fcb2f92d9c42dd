//! A few seconds end to end: the testbed, plain TCP and the tunnel under two policies on a
//! handful of flows; every byte checked, the invariant read, the namespaces removed.

use std::path::Path;

use anyhow::{bail, Result};

use crate::bed::{list_namespaces, BedConfig, Queue};
use crate::run::{Session, VariantRun};
use crate::workload::{flows, poisson_lomax, Path as FlowPath};

/// What the smoke run saw.
#[derive(Debug)]
pub struct Smoke {
    /// One run per variant.
    pub runs: Vec<VariantRun>,
    /// Download bytes the flows asked for (per variant).
    pub planned_bytes: u64,
    /// Namespaces of the prefix left after cleanup (should be none).
    pub leftover: Vec<String>,
}

/// Runs `n` flows (Poisson, 20/s, Lomax sizes of mean 100 kB) at 2 MB/s under plain TCP,
/// `tcp` and `srpt`, with namespaces named after `prefix`.
pub fn smoke(bin: &Path, prefix: &str, n: usize) -> Result<Smoke> {
    if n == 0 || n > 1000 {
        bail!("smoke: 1 to 1000 flows");
    }
    let mut cfg = BedConfig::new(2_000_000, Queue::Bfifo(60_000));
    cfg.prefix = prefix.into();
    let arrivals = poisson_lomax(n, 20.0, 3.0, 5e-6, 5_000_000, 1)?;
    let plan = flows(&arrivals, FlowPath::Tunnel, 300);
    let planned_bytes = plan.iter().map(|f| f.download).sum();
    let mut s = Session::start(cfg, bin)?;
    let mut runs = Vec::new();
    let result = (|| {
        for v in [None, Some("tcp"), Some("srpt")] {
            runs.push(s.run(v, &plan, 0.0, 60.0)?);
        }
        anyhow::Ok(())
    })();
    s.conclude(result)?;
    let names = crate::bed::namespaces(prefix);
    let leftover = list_namespaces()?
        .into_iter()
        .filter(|n| names.contains(n))
        .collect();
    Ok(Smoke {
        runs,
        planned_bytes,
        leftover,
    })
}
