//! Scenario files: TOML with every parameter of an experiment, plus an optional `[quick]`
//! table whose keys override the top level in quick mode (used by tests).

use anyhow::{anyhow, Context as _};
use serde::de::DeserializeOwned;

/// Parse `text` into the experiment's parameter type. Unknown keys are rejected by the
/// parameter types (`deny_unknown_fields`), so a typo is an error, not a silent default.
pub fn parse<P: DeserializeOwned>(text: &str, source: &str, quick: bool) -> anyhow::Result<P> {
    let mut table: toml::Table =
        toml::from_str(text).with_context(|| format!("{source}: not valid TOML"))?;
    let overrides = table.remove("quick");
    if quick {
        if let Some(o) = overrides {
            let toml::Value::Table(o) = o else {
                return Err(anyhow!("{source}: `quick` must be a table"));
            };
            for (k, v) in o {
                if !table.contains_key(&k) {
                    return Err(anyhow!(
                        "{source}: [quick] overrides `{k}`, which the scenario does not define"
                    ));
                }
                table.insert(k, v);
            }
        }
    }
    toml::Value::Table(table)
        .try_into()
        .map_err(|e: toml::de::Error| anyhow!("{source}: invalid scenario: {e}"))
}

/// `ensure!` with a uniform message for out-of-range parameters.
#[macro_export]
macro_rules! check_param {
    ($cond:expr, $($msg:tt)+) => {
        // NaN fails every comparison, so a NaN parameter is rejected too.
        let ok: bool = $cond;
        if !ok {
            return Err(anyhow::anyhow!("invalid scenario parameter: {}", format!($($msg)+)));
        }
    };
}

/// Reads a scenario's `[adaptive]` table: the core's adaptive access-control loop
/// ([`gtcp::admission::Adaptive`], the keys of the tunnel's `[admission]`: `window_secs`,
/// `period_secs`, `min_gain`, `shortfall`, `check_floor`, `probe_secs`, `memory_secs`, ...; every
/// key optional, with the core's default). A key the type does not have is refused naming the
/// closest valid one, and the values are checked by the core's own validation.
pub fn adaptive_table(file: &toml::Table) -> anyhow::Result<gtcp::admission::Adaptive> {
    use gtcp::admission::{Adaptive, AdmissionConfig, Limit};
    let a: Adaptive = toml::Value::Table(file.clone())
        .try_into()
        .map_err(|e: toml::de::Error| anyhow!("invalid [adaptive]: {e}"))?;
    tomlkeys::check_table(file, &a, "adaptive")?;
    AdmissionConfig {
        limit: Limit::Adaptive(a),
        ..AdmissionConfig::default()
    }
    .validate()
    .map_err(|e| anyhow!("invalid [adaptive]: {e}"))?;
    Ok(a)
}

/// `deserialize_with` of a parameter type's `adaptive` field ([`adaptive_table`]).
pub(crate) fn deserialize_adaptive<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<gtcp::admission::Adaptive, D::Error> {
    use serde::de::Error;
    let file = <toml::Table as serde::Deserialize>::deserialize(d)?;
    adaptive_table(&file).map_err(|e| D::Error::custom(format!("{e:#}")))
}
