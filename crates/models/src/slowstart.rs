//! The slow-start component of a TCP flow's delay (paper 003, end of Section II-B).
//!
//! The flow-level models of [`crate::mg1`] let a flow use its share of the link from its first
//! byte. A TCP flow cannot: its window starts small and doubles every round-trip time. Paper
//! 003 adds the time slow start takes to the scheduling delay of the flow-level models and
//! reports "a good correspondence with the simulation results"; the delay of a flow is then
//! "two main components: slow start and queueing".
//!
//! ## The model (the paper's assumptions)
//!
//! * The flow's window, not the link, limits it: the window is the bottleneck, "not the BDP of
//!   the link" (so a round carries a window's worth of packets and lasts one RTT, however many
//!   packets it carries).
//! * The sender's cycle is one RTT: it sends one window, `w_i` packets, one packet at a time,
//!   and the next window when their acknowledgements are back.
//! * The window starts at the initial window `IW` (the paper: 1) and doubles every round up to
//!   the maximum window `w`: `w_i = min(IW · 2^i, w)`. No loss.
//!
//! A flow of `x` packets that ends while the window still grows needs `n(x)` rounds, the
//! smallest `n` with `Σ_{i<n} w_i ≥ x`; its delay is `n(x) · RTT`. Once the window has reached
//! `w`, every further packet costs `RTT / w`:
//!
//! ```text
//! T̄^SS(x) = n(x) · RTT                   for x ≤ x_SS
//! T̄^SS(x) = T̄^SS(x − 1) + RTT / w        otherwise
//! ```
//!
//! where `x_SS = Σ_{i ≤ m} w_i` is the number of packets sent until the end of the first round
//! whose window is `w` (round `m`).
//!
//! ## Where the paper's printed formula is unclear, and what we derive instead
//!
//! The printed equation reads `T̄^SS(x) = (|log₂ x| + 1) RTT` for `x ≤ 2^{⌈log₂ w⌉+1}`. With
//! `IW = 1` the first `k` rounds carry `2^k − 1` packets, so `n(x) = ⌊log₂ x⌋ + 1`: the bars
//! are a floor, and that is what [`SlowStart::rounds`] computes for `IW = 1` (the general form
//! above holds for any `IW`). The bound `2^{⌈log₂ w⌉+1}` is the number of packets the first
//! `⌈log₂ w⌉ + 1` rounds would carry without the cap, i.e. `x_SS` (plus one) when `w` is a power
//! of two; for other `w` the last growing round is capped at `w` and `x_SS` is smaller. We use
//! `x_SS` as derived from the stated cycle (with `w = 2^k` it is `2^{k+1} − 1`, one below the
//! printed bound: at the printed bound the paper's first line would give a further full round,
//! the second `RTT / w`; we keep the model's own cycle, which is continuous there).
//!
//! The RTT is the flow's base round-trip time: propagation both ways plus the serialisation of
//! one data packet and its acknowledgement on every link. Queueing is the other component (the
//! flow-level models); the burst of a round leaving at the bottleneck's rate (the model's
//! "one packet at a time" ignores it) is part of neither.

use crate::error::{self, ModelError, Result};

/// The slow-start cycle of one TCP flow: base round-trip time, initial and maximum window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlowStart {
    rtt: f64,
    initial_window: u32,
    max_window: u32,
}

impl SlowStart {
    /// A cycle of `rtt` (seconds or any unit; the delays come out in it), windows in packets:
    /// `1 ≤ initial_window ≤ max_window`.
    pub fn new(rtt: f64, initial_window: u32, max_window: u32) -> Result<Self> {
        error::positive("rtt", rtt)?;
        if initial_window == 0 {
            return Err(ModelError::InvalidParameter {
                name: "initial_window",
                value: 0.0,
                reason: "must be at least 1 packet",
            });
        }
        if max_window < initial_window {
            return Err(ModelError::InvalidParameter {
                name: "max_window",
                value: f64::from(max_window),
                reason: "must be at least the initial window",
            });
        }
        Ok(Self {
            rtt,
            initial_window,
            max_window,
        })
    }

    /// The paper's sender: initial window 1.
    pub fn paper(rtt: f64, max_window: u32) -> Result<Self> {
        Self::new(rtt, 1, max_window)
    }

    /// The base round-trip time.
    pub fn rtt(&self) -> f64 {
        self.rtt
    }

    /// Window of round `i` (0-based): `min(IW · 2^i, w)`.
    pub fn window(&self, round: u32) -> u32 {
        let iw = u64::from(self.initial_window);
        let w = iw.checked_shl(round).filter(|&v| v >> round == iw);
        w.map_or(self.max_window, |v| {
            v.min(u64::from(self.max_window)) as u32
        })
    }

    /// `x_SS`: packets sent until the end of the first round whose window is the maximum.
    pub fn slow_start_packets(&self) -> u64 {
        let mut sent = 0u64;
        let mut i = 0;
        loop {
            let w = self.window(i);
            sent += u64::from(w);
            if w == self.max_window {
                return sent;
            }
            i += 1;
        }
    }

    /// Rounds (RTTs) the cycle needs to send `x ≥ 1` packets, `n(x)`: the smallest `n` with
    /// `Σ_{i<n} w_i ≥ x` (for `IW = 1` and `x ≤ x_SS`: `⌊log₂ x⌋ + 1`).
    pub fn rounds(&self, x: u64) -> u64 {
        let mut sent = 0u64;
        let mut n = 0u32;
        while sent < x {
            let w = u64::from(self.window(n));
            n += 1;
            if w == u64::from(self.max_window) {
                // Full windows from here on: the rest in ⌈(x − sent) / w⌉ rounds.
                return u64::from(n) - 1 + (x - sent).div_ceil(w);
            }
            sent += w;
        }
        u64::from(n)
    }

    /// `T̄^SS(x)`: the slow-start delay of a flow of `x` packets (paper 003, end of Section
    /// II-B; see the module documentation). `x = 0` is refused.
    pub fn delay(&self, x: u64) -> Result<f64> {
        if x == 0 {
            return Err(ModelError::InvalidParameter {
                name: "x",
                value: 0.0,
                reason: "a flow has at least one packet",
            });
        }
        let x_ss = self.slow_start_packets();
        Ok(if x <= x_ss {
            self.rounds(x) as f64 * self.rtt
        } else {
            self.rounds(x_ss) as f64 * self.rtt
                + (x - x_ss) as f64 * self.rtt / f64::from(self.max_window)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_checked() {
        assert!(SlowStart::new(0.0, 1, 30).is_err());
        assert!(SlowStart::new(f64::NAN, 1, 30).is_err());
        assert!(SlowStart::new(0.1, 0, 30).is_err());
        assert!(SlowStart::new(0.1, 4, 3).is_err());
        assert!(SlowStart::paper(0.1, 30).unwrap().delay(0).is_err());
    }

    /// The paper's first line: `(⌊log₂ x⌋ + 1) RTT` with an initial window of 1.
    #[test]
    fn paper_first_line_is_floor_log2_plus_one() {
        let s = SlowStart::paper(1.0, 64).unwrap();
        assert_eq!(s.slow_start_packets(), 127);
        for x in 1..=127u64 {
            let want = (x.ilog2() + 1) as f64;
            assert_eq!(s.delay(x).unwrap(), want, "x = {x}");
        }
    }

    /// With w = 2^k the slow-start region ends at 2^{k+1} − 1 (the printed bound
    /// 2^{⌈log₂ w⌉+1} minus one), then every packet adds RTT / w.
    #[test]
    fn after_slow_start_each_packet_costs_rtt_over_w() {
        let s = SlowStart::paper(0.032, 32).unwrap();
        assert_eq!(s.slow_start_packets(), 63);
        assert_eq!(s.delay(63).unwrap(), 6.0 * 0.032);
        let step = 0.032 / 32.0;
        for x in 64..200u64 {
            let d = s.delay(x).unwrap() - s.delay(x - 1).unwrap();
            assert!((d - step).abs() < 1e-12, "x = {x}: {d}");
        }
        // Continuous at the junction: one more packet costs RTT / w, not a round.
        assert!((s.delay(64).unwrap() - (6.0 * 0.032 + step)).abs() < 1e-12);
    }

    /// The simulator's sender of run2c-sim: IW 1, maximum window 30 (not a power of two):
    /// windows 1, 2, 4, 8, 16, 30; slow start ends after 61 packets, in 6 rounds.
    #[test]
    fn window_not_a_power_of_two() {
        let s = SlowStart::paper(1.0, 30).unwrap();
        let w: Vec<u32> = (0..7).map(|i| s.window(i)).collect();
        assert_eq!(w, vec![1, 2, 4, 8, 16, 30, 30]);
        assert_eq!(s.slow_start_packets(), 61);
        assert_eq!(s.delay(31).unwrap(), 5.0);
        assert_eq!(s.delay(32).unwrap(), 6.0);
        assert_eq!(s.delay(61).unwrap(), 6.0);
        assert!((s.delay(91).unwrap() - 7.0).abs() < 1e-12);
    }

    /// A larger initial window (Linux: 10) shifts the steps: 10, 30, 70 packets per 1, 2, 3
    /// rounds.
    #[test]
    fn initial_window_of_ten() {
        let s = SlowStart::new(1.0, 10, 1000).unwrap();
        let r: Vec<u64> = [1, 10, 11, 30, 31, 70, 71].map(|x| s.rounds(x)).to_vec();
        assert_eq!(r, vec![1, 1, 2, 2, 3, 3, 4]);
        // IW = w: one window per round from the start.
        let flat = SlowStart::new(2.0, 4, 4).unwrap();
        assert_eq!(flat.slow_start_packets(), 4);
        assert_eq!(flat.delay(4).unwrap(), 2.0);
        assert_eq!(flat.delay(6).unwrap(), 3.0);
    }

    /// Huge windows do not overflow the doubling.
    #[test]
    fn no_overflow_with_huge_windows() {
        let s = SlowStart::new(1.0, 1 << 30, u32::MAX).unwrap();
        assert_eq!(s.window(40), u32::MAX);
        assert_eq!(s.rounds(1), 1);
        assert!(s.delay(u64::from(u32::MAX) * 3).unwrap().is_finite());
    }
}
