//! Durations of the configuration schema as seconds (`keepalive_secs = 5`,
//! `period_secs = 0.5`): whole seconds are written as integers, others as decimals; either is
//! read, and a negative, infinite or absurd (over 10⁹ s) value is refused.

use std::time::Duration;

use serde::{de::Error, Deserialize, Deserializer, Serializer};

/// Longest duration a file may give.
const MAX_SECS: f64 = 1e9;

pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    if d.subsec_nanos() == 0 {
        s.serialize_u64(d.as_secs())
    } else {
        s.serialize_f64(d.as_secs_f64())
    }
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    let v = f64::deserialize(d)?;
    if !(0.0..=MAX_SECS).contains(&v) {
        return Err(D::Error::custom(format!(
            "a number of seconds between 0 and {MAX_SECS}, not {v}"
        )));
    }
    Ok(Duration::from_secs_f64(v))
}
