//! Less-than-best-effort senders: LEDBAT (RFC 6817) and TCP-LP (Kuzmanovic & Knightly,
//! "TCP-LP: a distributed algorithm for low priority data transfer", INFOCOM 2003), the two
//! protocols paper 004 (Section IV) compares access control with.
//!
//! Both read the one-way delay of data packets, which the receiver echoes in its ACKs
//! ([`crate::packet::Packet::echo_owd`]); the [`super::Sender`] feeds each sample to the
//! state kept here and asks it how to move the window. Loss is handled as NewReno does
//! (LEDBAT: RFC 6817 §2.4.2 halves the window on loss, once per RTT, as Reno; TCP-LP: Reno
//! on loss).
//!
//! Simulator only: the Linux kernel this project runs on offers reno, cubic and bbr, so the
//! tunnel cannot carry background flows over either protocol.

use crate::time::Time;
use std::collections::VecDeque;

/// RFC 6817 §2.5 constants.
pub(super) mod ledbat {
    use crate::time::Time;
    /// Minutes of base-delay history (one minimum per minute): BASE_HISTORY = 10.
    pub const BASE_HISTORY: usize = 10;
    /// Samples of the current-delay filter (the minimum of the last ones): CURRENT_FILTER = 4.
    pub const CURRENT_FILTER: usize = 4;
    /// GAIN = 1: at most one segment of increase per RTT, as Reno.
    pub const GAIN: f64 = 1.0;
    /// MIN_CWND = 2 segments.
    pub const MIN_CWND: u64 = 2;
    /// ALLOWED_INCREASE = 1 segment above the flight size.
    pub const ALLOWED_INCREASE: u64 = 1;
    /// The base-delay buckets roll over every minute.
    pub const MINUTE: Time = 60_000_000_000;
}

/// LEDBAT's delay state (RFC 6817 §2.4.2): the base delay is the minimum over the last
/// [`ledbat::BASE_HISTORY`] one-minute buckets, the current delay the minimum of the last
/// [`ledbat::CURRENT_FILTER`] samples, their difference the queuing delay.
///
/// Known failure modes that follow directly from this estimate (and the tests show): a flow
/// arriving on a standing queue counts that queue in its base delay and takes more than its
/// share (the *latecomer advantage*); a route change to a longer path looks like queuing
/// delay until the old minimum ages out of the history, and the flow starves meanwhile.
#[derive(Debug, Clone, Default)]
pub(super) struct Ledbat {
    /// Per-minute minima, oldest first; at most `BASE_HISTORY`.
    base: VecDeque<Time>,
    /// Minute index (`now / MINUTE`) of the newest bucket.
    minute: u64,
    /// Last samples; at most `CURRENT_FILTER`.
    current: VecDeque<Time>,
    /// Fraction of a byte of window change carried to the next ACK.
    carry: f64,
}

impl Ledbat {
    /// A one-way delay sample `owd` at `now` (`update_base_delay`, `update_current_delay`).
    pub fn on_delay(&mut self, owd: Time, now: Time) {
        if self.current.len() == ledbat::CURRENT_FILTER {
            self.current.pop_front();
        }
        self.current.push_back(owd);
        let minute = now / ledbat::MINUTE;
        match self.base.back_mut() {
            Some(b) if minute == self.minute => *b = (*b).min(owd),
            _ => {
                if self.base.len() == ledbat::BASE_HISTORY {
                    self.base.pop_front();
                }
                self.base.push_back(owd);
                self.minute = minute;
            }
        }
    }

    /// Current minus base delay, once a sample came.
    pub fn queuing_delay(&self) -> Option<Time> {
        let current = self.current.iter().min()?;
        let base = self.base.iter().min()?;
        Some(current.saturating_sub(*base))
    }

    /// The window after an ACK of `acked` new bytes in congestion avoidance (RFC 6817
    /// §2.4.2): `cwnd += GAIN · off_target · acked · MSS / cwnd`, `off_target = (TARGET −
    /// queuing_delay) / TARGET`, at most `flight + ALLOWED_INCREASE · MSS`, at least
    /// `MIN_CWND · MSS`. `flight` is the data outstanding before the ACK.
    pub fn congestion_avoidance(
        &mut self,
        cwnd: u64,
        acked: u64,
        flight: u64,
        mss: u64,
        target: Time,
    ) -> u64 {
        let queuing = self.queuing_delay().unwrap_or(0) as f64;
        let off_target = (target as f64 - queuing) / target as f64;
        self.carry += ledbat::GAIN * off_target * acked as f64 * mss as f64 / cwnd.max(1) as f64;
        let whole = self.carry.trunc();
        self.carry -= whole;
        let mut w = (cwnd as f64 + whole).max(0.0) as u64;
        w = w.min(flight + ledbat::ALLOWED_INCREASE * mss);
        w.max(ledbat::MIN_CWND * mss)
    }
}

/// TCP-LP constants (Kuzmanovic & Knightly, Section III).
pub(super) mod tcp_lp {
    /// Smoothing of the one-way delay: `sd ← (1 − γ) sd + γ d`, γ = 1/8.
    pub const GAMMA: f64 = 0.125;
    /// Early congestion when `sd > d_min + δ (d_max − d_min)`, δ = 0.15.
    pub const DELTA: f64 = 0.15;
    /// The inference time-out after a halving, in smoothed RTTs (3, as the paper's
    /// implementation).
    pub const INFERENCE_RTTS: u64 = 3;
}

/// TCP-LP's delay state: the smoothed one-way delay against a threshold between the minimum
/// and maximum delay seen, and the inference phase after a reaction.
///
/// After each reaction the delay range restarts at `[sd, 2 sd]` (the authors' Linux module
/// `tcp_lp.c` and ns-3's `TcpLp::PktsAcked` do the same): until then the range holds only
/// what the flow has seen, which on an idle path is the microseconds between packet sizes or
/// one packet's wait behind another, so its threshold sits within a packet's transmission
/// time of `d_min` and every such wait reads as early congestion.
#[derive(Debug, Clone, Default)]
pub(super) struct TcpLp {
    smoothed: Option<f64>,
    d_min: Option<Time>,
    d_max: Time,
    /// The last sample.
    latest: Time,
    /// The inference time-out runs until then: no window increase, and a further early
    /// indication whose own sample is above the threshold sets the window to one segment.
    pub inference_until: Option<Time>,
    /// `snd_max` at the last reaction: the next one waits until that data is acknowledged
    /// (at most one reaction per window of data).
    pub recover: u64,
    /// Early congestion indications acted on.
    pub reactions: u64,
}

impl TcpLp {
    /// A one-way delay sample; returns whether it is an early congestion indication.
    pub fn on_delay(&mut self, owd: Time) -> bool {
        let d_min = self.d_min.map_or(owd, |m| m.min(owd));
        self.d_min = Some(d_min);
        self.d_max = self.d_max.max(owd);
        self.latest = owd;
        let sd = match self.smoothed {
            Some(s) => s + tcp_lp::GAMMA * (owd as f64 - s),
            None => owd as f64,
        };
        self.smoothed = Some(sd);
        self.d_max > d_min && sd > self.threshold()
    }

    /// `d_min + δ (d_max − d_min)`.
    fn threshold(&self) -> f64 {
        let d_min = self.d_min.unwrap_or(0);
        d_min as f64 + tcp_lp::DELTA * self.d_max.saturating_sub(d_min) as f64
    }

    /// Whether the last sample itself is above the threshold: the queue is there now, not
    /// only in the smoothed delay, which lags the samples by about eight of them.
    pub fn latest_above_threshold(&self) -> bool {
        self.latest as f64 > self.threshold()
    }

    /// After a reaction: the delay range restarts at `[sd, 2 sd]`.
    pub fn restart_range(&mut self) {
        if let Some(sd) = self.smoothed {
            self.d_min = Some(sd as Time);
            self.d_max = 2 * sd as Time;
        }
    }

    /// Whether the inference time-out is running at `now` (the window must not grow).
    pub fn inferring(&self, now: Time) -> bool {
        self.inference_until.is_some_and(|t| now < t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    #[test]
    fn ledbat_base_delay_is_the_minimum_over_the_last_ten_minutes() {
        let mut l = Ledbat::default();
        l.on_delay(50 * MS, 0);
        // Ten later minutes at 80 ms: the 50 ms minimum ages out after the tenth.
        for m in 1..=9 {
            l.on_delay(80 * MS, m * ledbat::MINUTE);
        }
        assert_eq!(l.queuing_delay(), Some(30 * MS));
        l.on_delay(80 * MS, 10 * ledbat::MINUTE);
        assert_eq!(l.queuing_delay(), Some(0));
    }

    #[test]
    fn ledbat_current_delay_is_the_minimum_of_the_last_four_samples() {
        let mut l = Ledbat::default();
        for d in [20, 30, 40, 50, 60] {
            l.on_delay(d * MS, 0);
        }
        assert_eq!(l.queuing_delay(), Some(10 * MS));
    }

    #[test]
    fn ledbat_window_grows_below_target_shrinks_above_and_stays_at_least_min_cwnd() {
        let mss = 1000;
        let target = 25 * MS;
        let mut l = Ledbat::default();
        l.on_delay(10 * MS, 0);
        // No queue: off_target = 1, one MSS per window of ACKs (as Reno).
        let mut w = 10 * mss;
        for _ in 0..10 {
            w = l.congestion_avoidance(w, mss, 20 * mss, mss, target);
        }
        // Each ACK adds MSS²/cwnd: ten ACKs of a 10-segment window add about 0.95 MSS.
        assert!(w > 10_900 && w <= 11 * mss, "{w}");
        // 75 ms of queue: off_target = −2, two MSS less per window.
        for _ in 0..4 {
            l.on_delay(85 * MS, 0);
        }
        let before = w;
        for _ in 0..11 {
            w = l.congestion_avoidance(w, mss, 20 * mss, mss, target);
        }
        assert!(
            w <= before - 3 * mss / 2 && w >= before - 5 * mss / 2,
            "{before} -> {w}"
        );
        for _ in 0..1000 {
            w = l.congestion_avoidance(w, mss, 20 * mss, mss, target);
        }
        assert_eq!(w, ledbat::MIN_CWND * mss);
        // Never above the flight size plus one segment.
        for _ in 0..4 {
            l.on_delay(10 * MS, 0);
        }
        for _ in 0..1000 {
            w = l.congestion_avoidance(w, mss, 5 * mss, mss, target);
        }
        assert_eq!(w, 6 * mss);
    }

    #[test]
    fn tcp_lp_indicates_early_congestion_above_fifteen_percent_of_the_delay_range() {
        let mut lp = TcpLp::default();
        assert!(!lp.on_delay(100 * MS));
        // The maximum seen is 200 ms: the threshold is 115 ms; the smoothed delay climbs
        // from 100 ms by 1/8 of the gap per sample: 112.5 ms (no), then 123.4 ms (yes).
        assert!(!lp.on_delay(200 * MS));
        assert!(lp.on_delay(200 * MS));
        // Back at the minimum the smoothed delay decays below the threshold again.
        let mut last = true;
        for _ in 0..20 {
            last = lp.on_delay(100 * MS);
        }
        assert!(!last);
    }

    #[test]
    fn tcp_lp_range_restarts_at_the_smoothed_delay_after_a_reaction() {
        let mut lp = TcpLp::default();
        lp.on_delay(10 * MS);
        // Samples 10 us apart: a range of 10 us, the threshold 1.5 us above the minimum, which
        // the smoothed delay passes on the second sample.
        assert!(!lp.on_delay(10 * MS + 10_000));
        assert!(lp.on_delay(10 * MS + 10_000));
        lp.restart_range();
        // Now [sd, 2 sd], sd about 10 ms: the threshold is 1.5 ms above it, and one packet's
        // 1.2 ms wait is no indication.
        assert!(!lp.on_delay(11 * MS + 200_000));
        assert!(!lp.on_delay(10 * MS));
    }

    #[test]
    fn tcp_lp_latest_sample_tells_a_standing_queue_from_the_smoothed_lag() {
        let mut lp = TcpLp::default();
        lp.on_delay(10 * MS);
        for _ in 0..20 {
            lp.on_delay(30 * MS);
        }
        // Back at the minimum: the smoothed delay is still above the threshold (13 ms), the
        // sample is not.
        assert!(lp.on_delay(10 * MS));
        assert!(!lp.latest_above_threshold());
        assert!(lp.on_delay(30 * MS));
        assert!(lp.latest_above_threshold());
    }
}
