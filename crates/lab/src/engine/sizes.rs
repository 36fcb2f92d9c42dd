//! The named flow-size workloads of the policy sweeps (`gittins-sweep` at flow level,
//! `gittins-packet` at packet level): one owner for each workload's distribution, so both
//! levels draw their flows from the same law. A workload is a list of flow types (share,
//! sizes in bytes) and optionally the law every flow follows from half-way on; the flow level
//! reads it as a [`Mix`] of the models crate's distributions, the packet level as one
//! simulator distribution (the mixture of the types).

use crate::engine::flowlevel::Mix;
use crate::engine::run2c::model_sizes;
use sim::workload::{Component, SizeDist};

/// Paper 003's packet, bytes.
pub(crate) const PACKET: f64 = 1500.0;

/// The names [`named`] knows.
pub(crate) const NAMES: [&str; 7] = [
    "exp", "lomax1.1", "lomax1.5", "lomax3", "bp", "d1", "change",
];

/// A named workload: what it is, and its flow types.
#[derive(Debug, Clone)]
pub(crate) struct Named {
    pub name: &'static str,
    /// In words, for summaries.
    pub what: String,
    /// `(share, sizes in bytes)` per flow type.
    pub types: Vec<(f64, SizeDist)>,
    /// The sizes of every flow from the `n/2`-th on, if the workload changes half-way.
    pub after: Option<SizeDist>,
}

/// Lomax `P(S > x) = (1 + cx)^(−α)` of mean `mean` bytes (paper 000, Section 6.2).
fn lomax(alpha: f64, mean: f64) -> SizeDist {
    SizeDist::Pareto {
        alpha,
        c: 1.0 / (mean * (alpha - 1.0)),
    }
}

/// Paper 003's bounded Pareto BP(13, 5000, 1.1) packets, in bytes.
fn bp003() -> SizeDist {
    SizeDist::BoundedPareto {
        k: 13.0 * PACKET,
        p: 5000.0 * PACKET,
        alpha: 1.1,
    }
}

/// The workload `name`; `mean` (bytes) is the mean of the scale-free ones (exponential and
/// Lomax); `bp` and `d1` have paper 003's own means (about 96 kB and 24 kB).
pub(crate) fn named(name: &str, mean: f64) -> anyhow::Result<Named> {
    anyhow::ensure!(
        mean.is_finite() && mean > 0.0,
        "the mean flow size must be a positive number of bytes, got {mean}"
    );
    let mb = mean / 1e6;
    let one = |name, what: String, d: SizeDist| Named {
        name,
        what,
        types: vec![(1.0, d)],
        after: None,
    };
    let w = match name {
        "exp" => one(
            "exp",
            format!("exponential, mean {mb} MB"),
            SizeDist::Exponential { mean },
        ),
        "lomax1.1" => one(
            "lomax1.1",
            format!("Lomax alpha = 1.1, mean {mb} MB"),
            lomax(1.1, mean),
        ),
        "lomax1.5" => one(
            "lomax1.5",
            format!("Lomax alpha = 1.5, mean {mb} MB"),
            lomax(1.5, mean),
        ),
        "lomax3" => one(
            "lomax3",
            format!("Lomax alpha = 3, mean {mb} MB (paper 000's shape)"),
            lomax(3.0, mean),
        ),
        "bp" => one(
            "bp",
            "bounded Pareto BP(13, 5000, 1.1) packets of 1500 B (paper 003)".into(),
            bp003(),
        ),
        "d1" => Named {
            name: "d1",
            what: "paper 003's D1: 80% exponential mean 6 kB, 20% BP(13, 5000, 1.1) packets".into(),
            types: vec![
                (0.8, SizeDist::Exponential { mean: 4.0 * PACKET }),
                (0.2, bp003()),
            ],
            after: None,
        },
        "change" => Named {
            name: "change",
            what: format!(
                "exponential mean {mb} MB, then Lomax alpha = 1.1 mean {mb} MB from half-way \
                 (statistics over the second half)"
            ),
            types: vec![(1.0, SizeDist::Exponential { mean })],
            after: Some(lomax(1.1, mean)),
        },
        other => anyhow::bail!(
            "unknown workload `{other}`: expected one of {}",
            NAMES.join(", ")
        ),
    };
    Ok(w)
}

impl Named {
    /// The flow level's view: each type's models distribution.
    pub(crate) fn mix(&self) -> anyhow::Result<Mix> {
        Ok(Mix {
            types: self
                .types
                .iter()
                .map(|(w, d)| Ok((*w, model_sizes(d)?)))
                .collect::<anyhow::Result<_>>()?,
            after: self.after.as_ref().map(model_sizes).transpose()?,
        })
    }

    /// The packet level's view: one distribution of every flow's size (the mixture of the
    /// types). A workload that changes half-way has none.
    pub(crate) fn sizes(&self) -> anyhow::Result<SizeDist> {
        anyhow::ensure!(
            self.after.is_none(),
            "workload `{}` changes half-way, which one size distribution cannot say",
            self.name
        );
        Ok(match self.types.as_slice() {
            [(_, d)] => d.clone(),
            types => SizeDist::Mixture {
                components: types
                    .iter()
                    .map(|(w, d)| Component {
                        weight: *w,
                        dist: d.clone(),
                    })
                    .collect(),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_levels_see_the_same_law_with_the_same_mean() {
        for name in NAMES.into_iter().filter(|n| *n != "change") {
            let w = named(name, 5e6).expect(name);
            let packet = w.sizes().expect(name);
            let flow = w.mix().expect(name).mean().expect(name);
            let rel = (packet.mean() - flow).abs() / flow;
            assert!(rel < 1e-9, "{name}: {} vs {flow}", packet.mean());
            for x in [1e4, 1e5, 1e6, 1e7] {
                let m = model_sizes(&packet).expect(name);
                assert!((m.sf(x) - packet.sf(x)).abs() < 1e-9, "{name} at {x}");
            }
        }
        let scale_free = ["exp", "lomax1.1", "lomax1.5", "lomax3"];
        for name in scale_free {
            let m = named(name, 5e6).expect(name).sizes().expect(name).mean();
            assert!((m - 5e6).abs() < 1e-3, "{name}: mean {m}");
        }
        // Paper 003's D1: 80% of mean 6 kB, 20% of BP's mean (about 64 packets).
        let d1 = named("d1", 1.0).expect("d1").sizes().expect("d1").mean();
        assert!(
            (d1 - (0.8 * 6000.0 + 0.2 * 64.0 * PACKET)).abs() < 0.02 * d1,
            "{d1}"
        );
    }

    #[test]
    fn a_change_half_way_has_no_single_law_and_bad_names_or_means_are_refused() {
        assert!(named("change", 1e6).expect("change").sizes().is_err());
        assert!(named("change", 1e6).expect("change").mix().is_ok());
        assert!(named("lomax2", 1e6).is_err());
        assert!(named("exp", 0.0).is_err());
        assert!(named("exp", f64::NAN).is_err());
    }
}
