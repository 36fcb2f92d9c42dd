//! Reconnect backoff of the client: exponential with jitter and a cap, shared by every pool
//! connection of a session, so a server that refuses or a path that kills connections at once
//! sees a few attempts a second, never a storm.

use std::sync::Mutex;
use std::time::Duration;

use rand::Rng;

/// First delay after a failure (100 ms).
pub const BASE: Duration = Duration::from_millis(100);
/// Largest delay (5 s).
pub const CAP: Duration = Duration::from_secs(5);

/// Consecutive failures to establish (or keep, for a moment) a pool connection.
#[derive(Debug, Default)]
pub struct Backoff {
    failures: Mutex<u32>,
}

impl Backoff {
    fn failures(&self) -> std::sync::MutexGuard<'_, u32> {
        self.failures.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// An attempt failed: a refusal, a failed connect or handshake, or a connection that died
    /// soon after it was established.
    pub fn failed(&self) {
        let mut f = self.failures();
        *f = f.saturating_add(1);
    }

    /// A connection proved itself (closed cleanly, or lived a while): no more waiting.
    pub fn succeeded(&self) {
        *self.failures() = 0;
    }

    /// How long to wait before the next attempt: 0 after a success, else
    /// `min(CAP, BASE × 2^(failures − 1))`, jittered uniformly over its upper half so that
    /// clients cut off together do not come back together.
    pub fn delay(&self) -> Duration {
        let n = *self.failures();
        if n == 0 {
            return Duration::ZERO;
        }
        let d = BASE.saturating_mul(1 << (n - 1).min(16)).min(CAP);
        rand::rng().random_range(d / 2..=d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_grow_exponentially_within_the_cap_and_reset_on_success() {
        let b = Backoff::default();
        assert_eq!(b.delay(), Duration::ZERO);
        let mut upper = BASE;
        for _ in 0..40 {
            b.failed();
            for _ in 0..20 {
                let d = b.delay();
                assert!(
                    d >= upper / 2 && d <= upper,
                    "{d:?} outside [{:?}, {upper:?}]",
                    upper / 2
                );
            }
            upper = (upper * 2).min(CAP);
        }
        b.succeeded();
        assert_eq!(b.delay(), Duration::ZERO);
    }
}
