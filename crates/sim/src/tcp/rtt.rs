//! Retransmission-timeout computation, RFC 6298.

use super::config::TcpParams;
use crate::time::Time;

/// Smoothed RTT, RTT variance and the current RTO with its back-off (RFC 6298 §2, §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RttEstimator {
    srtt: Option<Time>,
    rttvar: Time,
    /// RTO before back-off.
    base_rto: Time,
    /// Number of consecutive back-offs (RFC 6298 §5.5).
    backoff: u32,
    min_rto: Time,
    max_rto: Time,
    granularity: Time,
}

impl RttEstimator {
    /// Before any sample, RTO = the initial RTO (RFC 6298 §2.1).
    pub fn new(p: &TcpParams) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: 0,
            base_rto: p.initial_rto,
            backoff: 0,
            min_rto: p.min_rto,
            max_rto: p.max_rto,
            granularity: p.granularity,
        }
    }

    /// Takes an RTT measurement `r` (RFC 6298 §2.2 for the first, §2.3 afterwards, with
    /// α = 1/8, β = 1/4), clears the back-off (§5.7: the RTO is recomputed from the new
    /// sample) and clamps the result to `[min_rto, max_rto]` (§2.4, §2.5).
    pub fn sample(&mut self, r: Time) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(srtt) => {
                let err = srtt.abs_diff(r);
                // RTTVAR <- (1 - beta) * RTTVAR + beta * |SRTT - R'|
                self.rttvar = (3 * self.rttvar + err) / 4;
                // SRTT <- (1 - alpha) * SRTT + alpha * R'
                self.srtt = Some((7 * srtt + r) / 8);
            }
        }
        let srtt = self.srtt.unwrap_or(r);
        let rto = srtt + self.granularity.max(4 * self.rttvar);
        self.base_rto = rto.clamp(self.min_rto, self.max_rto);
        self.backoff = 0;
    }

    /// Doubles the RTO (RFC 6298 §5.5), up to the maximum.
    pub fn back_off(&mut self) {
        self.backoff = self.backoff.saturating_add(1);
    }

    /// The current RTO, back-off included.
    pub fn rto(&self) -> Time {
        let shift = self.backoff.min(32);
        self.base_rto
            .saturating_mul(1u64 << shift)
            .min(self.max_rto)
    }

    /// RFC 6298 §5.7: after the SYN timed out, data transmission starts with an RTO of at
    /// least 3 s (no back-off) until a sample is taken.
    pub fn after_syn_timeout(&mut self) {
        self.base_rto = self
            .base_rto
            .max(3 * crate::time::NS_PER_SEC)
            .min(self.max_rto);
        self.backoff = 0;
    }

    /// The smoothed RTT, once a sample exists.
    pub fn srtt(&self) -> Option<Time> {
        self.srtt
    }

    /// Number of back-offs in force.
    pub fn backoff(&self) -> u32 {
        self.backoff
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::TcpConfig;
    use crate::time::millis;

    #[test]
    fn rfc6298_formulas() {
        let p = TcpConfig {
            min_rto_ms: 0.0,
            ..TcpConfig::default()
        }
        .params()
        .unwrap();
        let mut e = RttEstimator::new(&p);
        assert_eq!(e.rto(), millis(1000.0));
        e.sample(millis(100.0));
        // SRTT = 100, RTTVAR = 50, RTO = 100 + 4*50 = 300 ms.
        assert_eq!(e.srtt(), Some(millis(100.0)));
        assert_eq!(e.rto(), millis(300.0));
        e.sample(millis(100.0));
        // RTTVAR = 3/4*50 = 37.5, SRTT = 100, RTO = 250 ms.
        assert_eq!(e.rto(), millis(250.0));
        e.back_off();
        e.back_off();
        assert_eq!(e.rto(), millis(1000.0));
        e.sample(millis(100.0));
        assert_eq!(e.backoff(), 0);
    }

    #[test]
    fn clamped_to_min_and_max() {
        let p = TcpConfig::default().params().unwrap();
        let mut e = RttEstimator::new(&p);
        e.sample(millis(1.0));
        assert_eq!(e.rto(), millis(200.0));
        for _ in 0..40 {
            e.back_off();
        }
        assert_eq!(e.rto(), millis(60_000.0));
    }
}
