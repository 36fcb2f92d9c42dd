//! Reconnect backoff of the client: exponential with jitter and a cap, shared by every pool
//! connection of a session, so a server that refuses or a path that kills connections at once
//! sees one attempt per backoff step from the whole client, never a storm.
//!
//! Attempts go ahead in parallel (one per new flow, as plain TCP would have them), each after
//! the backoff's delay, only while the server's last verdict was an acceptance. Otherwise an
//! attempt takes the client's [`turn`](Backoff::turn) and waits the backoff's delay before it
//! starts: attempts start one per backoff step for the whole client. Before anything is known
//! (the first attempt) the turn is held until the attempt ends. Flows waiting for the turn wait
//! each until its own deadline, and go ahead together once an attempt is accepted.
//!
//! The delay grows with failures *in a row*: a failure counts only if what failed (an attempt,
//! or the connection an attempt established) began after the last failure counted was seen,
//! that is, if it was a new try made knowing of that failure. One event
//! that ends many connections at once (a path cut, a middlebox reset, a server restart) is one
//! failure, not one per connection: it says once that the path failed, and counted per
//! connection it would put a client with a few warm connections at the cap's delay, so that
//! flows arriving just after a cut would be reset while the server accepts again at once.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use rand::Rng;

/// First delay after a failure (100 ms).
pub const BASE: Duration = Duration::from_millis(100);
/// Largest delay (5 s).
pub const CAP: Duration = Duration::from_secs(5);

/// Consecutive failures to establish (or keep, for a moment) a pool connection, and whether
/// the server accepted the last attempt.
#[derive(Debug, Default)]
pub struct Backoff {
    state: Mutex<State>,
    turn: tokio::sync::Mutex<()>,
}

#[derive(Debug, Default)]
struct State {
    failures: u32,
    /// When the last failure counted was seen.
    last_failure: Option<Instant>,
    /// The last attempt was accepted, and none failed since.
    open: bool,
}

/// An attempt's turn ([`Backoff::turn`]): the client's other attempts wait until it is
/// dropped.
pub type Turn<'a> = Option<tokio::sync::MutexGuard<'a, ()>>;

impl Backoff {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Something that began at `began` failed: an attempt (a refusal, a failed connect or
    /// handshake), or a connection that died soon after it was established (`began` is then
    /// its establishment). It counts as one more failure in a row only if it began after the
    /// last failure counted was seen (see the module's documentation); either way the
    /// server's last verdict is no longer an acceptance.
    pub fn failed(&self, began: Instant) {
        let mut s = self.state();
        if s.last_failure.is_none_or(|seen| began >= seen) {
            s.failures = s.failures.saturating_add(1);
            s.last_failure = Some(Instant::now());
        }
        s.open = false;
    }

    /// Consecutive failures so far.
    pub fn failures(&self) -> u32 {
        self.state().failures
    }

    /// A connection proved itself (closed cleanly, or lived a while): no more waiting.
    pub fn succeeded(&self) {
        let mut s = self.state();
        s.failures = 0;
        s.last_failure = None;
    }

    /// The server accepted an attempt: the next ones go ahead at once, in parallel.
    pub fn accepted(&self) {
        self.state().open = true;
    }

    /// Nothing is known yet (no attempt accepted, none failed): the first attempt keeps the
    /// turn until it ends.
    pub fn untried(&self) -> bool {
        let s = self.state();
        !s.open && s.failures == 0
    }

    /// How long to wait before the next attempt: 0 after a success, else
    /// `min(CAP, BASE × 2^(failures − 1))`, jittered uniformly over its upper half so that
    /// clients cut off together do not come back together.
    pub fn delay(&self) -> Duration {
        let n = self.state().failures;
        if n == 0 {
            return Duration::ZERO;
        }
        let d = BASE.saturating_mul(1 << (n - 1).min(16)).min(CAP);
        rand::rng().random_range(d / 2..=d)
    }

    /// Waits for an attempt's turn: none is needed while the server accepted the last attempt;
    /// otherwise the client's attempts go one at a time (hold the turn during the attempt,
    /// after its [`delay`](Self::delay)).
    pub async fn turn(&self) -> Turn<'_> {
        if self.state().open {
            return None;
        }
        let turn = self.turn.lock().await;
        // An attempt accepted while this one waited: go ahead with the others.
        (!self.state().open).then_some(turn)
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
            b.failed(Instant::now());
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

    #[tokio::test]
    async fn attempts_go_one_at_a_time_until_one_is_accepted() {
        use std::future::Future;
        let b = Backoff::default();
        // Nothing accepted yet: the first attempt holds the turn, the second waits for it.
        let first = b.turn().await;
        assert!(first.is_some());
        let mut second = Box::pin(b.turn());
        let waker = std::task::Waker::noop();
        let mut cx = std::task::Context::from_waker(waker);
        assert!(second.as_mut().poll(&mut cx).is_pending());
        // The first is accepted: the waiting attempt goes ahead without the turn, and so do
        // later ones.
        b.accepted();
        drop(first);
        assert!(matches!(
            second.as_mut().poll(&mut cx),
            std::task::Poll::Ready(None)
        ));
        assert!(b.turn().await.is_none());
        // A failure: one at a time again.
        b.failed(Instant::now());
        let t = b.turn().await;
        assert!(t.is_some());
        assert!(Box::pin(b.turn()).as_mut().poll(&mut cx).is_pending());
    }

    /// Six connections established before a cut end together: one failure. A try made after
    /// it fails: a second. Parallel attempts begun before that one's end: no more.
    #[test]
    fn one_event_ending_many_connections_is_one_failure() {
        let b = Backoff::default();
        let established = Instant::now();
        for _ in 0..6 {
            b.failed(established);
        }
        assert_eq!(b.failures(), 1);
        let retry = Instant::now();
        let parallel = Instant::now();
        b.failed(retry);
        assert_eq!(b.failures(), 2);
        b.failed(parallel);
        assert_eq!(b.failures(), 2, "began before the last failure was seen");
        assert!(!b.state().open);
        b.succeeded();
        b.failed(established);
        assert_eq!(
            b.failures(),
            1,
            "after a success every failure counts again"
        );
    }
}
