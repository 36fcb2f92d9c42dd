//! Simulated time: integer nanoseconds.
//!
//! Integer time keeps runs bit-for-bit reproducible (no floating-point rounding in event
//! ordering). `u64` nanoseconds cover about 584 years of simulated time.

/// A point in (or a span of) simulated time, in nanoseconds.
pub type Time = u64;

/// Nanoseconds per second.
pub const NS_PER_SEC: u64 = 1_000_000_000;

/// `s` seconds as [`Time`], rounded to the nearest nanosecond (negative or NaN gives 0).
pub fn secs(s: f64) -> Time {
    if s.is_nan() || s <= 0.0 {
        0
    } else {
        (s * NS_PER_SEC as f64).round() as Time
    }
}

/// `ms` milliseconds as [`Time`].
pub fn millis(ms: f64) -> Time {
    secs(ms / 1e3)
}

/// `us` microseconds as [`Time`].
pub fn micros(us: f64) -> Time {
    secs(us / 1e6)
}

/// A [`Time`] in seconds.
pub fn as_secs(t: Time) -> f64 {
    t as f64 / NS_PER_SEC as f64
}

/// Serialisation time of `bytes` on a link of `rate_bps` bits per second, rounded up to
/// the next nanosecond. `rate_bps == 0` means an infinitely fast link (zero time).
#[inline]
pub fn tx_time(bytes: u32, rate_bps: u64) -> Time {
    if rate_bps == 0 {
        0
    } else {
        (bytes as u64 * 8 * NS_PER_SEC).div_ceil(rate_bps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions() {
        assert_eq!(secs(1.5), 1_500_000_000);
        assert_eq!(millis(1.0), 1_000_000);
        assert_eq!(micros(2.0), 2_000);
        assert_eq!(secs(-1.0), 0);
        assert_eq!(secs(f64::NAN), 0);
        assert!((as_secs(250_000_000) - 0.25).abs() < 1e-12);
    }

    #[test]
    fn serialisation_time() {
        // 1500 bytes at 10 Mbit/s = 1.2 ms.
        assert_eq!(tx_time(1500, 10_000_000), 1_200_000);
        // Rounded up.
        assert_eq!(tx_time(1, 3_000_000_000), 3);
        assert_eq!(tx_time(1500, 0), 0);
    }
}
