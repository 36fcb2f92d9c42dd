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
