//! The sending half of a TCP NewReno connection, sans I/O.
//!
//! The sender owns the sequence space and the congestion state: *how many* bytes may leave
//! and *when*. It knows nothing of payload: the application (the driver) only moves the end
//! of the send buffer forward with [`Sender::write`], and whoever emits the segments
//! returned by [`Sender::next_segment`] decides what they carry.
//!
//! Implemented: slow start and congestion avoidance (RFC 5681 §3.1), fast retransmit and
//! NewReno fast recovery with partial ACKs (RFC 5681 §3.2, RFC 6582 §3.2, "impatient"
//! timer reset of §4), the retransmission timer (RFC 6298 §5) with exponential back-off
//! and go-back-N after a timeout, Karn's algorithm for RTT samples (RFC 6298 §3), a
//! maximum window and a bounded send buffer. Not implemented: SACK, limited transmit,
//! timestamps, window scaling, FIN (a connection is done when its last byte is ACKed).
//! Sequence numbers are 64-bit byte offsets from 0 and never wrap.

use super::config::TcpParams;
use super::rtt::RttEstimator;
use crate::time::Time;

/// A segment the sender wants to transmit now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    /// Sequence number of the first byte.
    pub seq: u64,
    /// Payload length (≤ MSS).
    pub len: u32,
    /// Whether these bytes were sent before (fast retransmit, partial-ACK retransmission,
    /// or go-back-N after a timeout).
    pub retx: bool,
}

/// What an incoming ACK did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AckEvent {
    /// Acknowledged nothing new and is not a duplicate (old or out of range).
    Ignored,
    /// A duplicate ACK; `entered_recovery` if it triggered fast retransmit.
    Duplicate {
        /// The third duplicate started fast retransmit / fast recovery.
        entered_recovery: bool,
    },
    /// Cumulative ACK of `bytes` new bytes.
    NewData {
        /// Bytes newly acknowledged.
        bytes: u64,
    },
}

/// Connection state of the sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SenderState {
    /// SYN sent, waiting for SYN-ACK.
    SynSent,
    /// Data may flow.
    Established,
}

/// The sending half of a NewReno connection.
#[derive(Debug, Clone)]
pub struct Sender {
    p: TcpParams,
    state: SenderState,
    /// Oldest unacknowledged byte.
    snd_una: u64,
    /// Next byte to send.
    snd_nxt: u64,
    /// Highest byte sent + 1.
    snd_max: u64,
    /// End of the data written by the application (send-buffer tail).
    app_end: u64,
    cwnd: u64,
    ssthresh: u64,
    /// Bytes ACKed in congestion avoidance since the last cwnd increase.
    ca_acked: u64,
    dupacks: u32,
    in_recovery: bool,
    /// RFC 6582 `recover`, exclusive (highest sequence sent when recovery started, + 1).
    recover: u64,
    /// No partial ACK seen yet in this recovery (RFC 6582 §4 timer reset).
    first_partial: bool,
    /// A retransmission of the segment at `snd_una` is owed.
    rtx_pending: bool,
    /// The segment at `snd_una` has already been retransmitted by the timer (RFC 5681
    /// §3.1: ssthresh is then held constant on further timeouts).
    rto_retransmitted: bool,
    rtt: RttEstimator,
    /// Segment being timed: (end sequence, send time) (RFC 6298 §3, Karn).
    timed: Option<(u64, Time)>,
    /// Retransmission timer deadline.
    timer: Option<Time>,
    /// SYN transmissions so far.
    syn_sent: u32,
    syn_sent_at: Time,
    /// The SYN needs (re)sending.
    syn_pending: bool,
    /// Counters.
    retransmits: u64,
    timeouts: u64,
    fast_retransmits: u64,
}

impl Sender {
    /// A sender at `now`. Without a handshake it is established at once; with one it owes
    /// a SYN ([`Sender::take_syn`]).
    pub fn new(p: TcpParams, now: Time) -> Self {
        let state = if p.handshake {
            SenderState::SynSent
        } else {
            SenderState::Established
        };
        let _ = now;
        Sender {
            p,
            state,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            app_end: 0,
            cwnd: p.initial_window.min(p.max_window),
            ssthresh: u64::MAX,
            ca_acked: 0,
            dupacks: 0,
            in_recovery: false,
            recover: 0,
            first_partial: false,
            rtx_pending: false,
            rto_retransmitted: false,
            rtt: RttEstimator::new(&p),
            timed: None,
            timer: None,
            syn_sent: 0,
            syn_sent_at: 0,
            syn_pending: p.handshake,
            retransmits: 0,
            timeouts: 0,
            fast_retransmits: 0,
        }
    }

    // ----- application side (the send buffer) -----

    /// Free room in the send buffer: capacity minus bytes written and not yet ACKed.
    pub fn send_buffer_space(&self) -> u64 {
        self.p
            .send_buffer
            .saturating_sub(self.app_end - self.snd_una)
    }

    /// Appends up to `bytes` to the send buffer; returns how many were accepted.
    pub fn write(&mut self, bytes: u64) -> u64 {
        let n = bytes.min(self.send_buffer_space());
        self.app_end += n;
        n
    }

    /// Bytes written and never transmitted (what `TCP_NOTSENT_LOWAT` watches).
    pub fn notsent(&self) -> u64 {
        self.app_end - self.snd_max
    }

    /// Bytes written and not yet acknowledged.
    pub fn unacked(&self) -> u64 {
        self.app_end - self.snd_una
    }

    /// End of the data written so far.
    pub fn written(&self) -> u64 {
        self.app_end
    }

    // ----- handshake -----

    /// If a SYN is owed, records its transmission at `now` and returns true.
    pub fn take_syn(&mut self, now: Time) -> bool {
        if !self.syn_pending || self.state != SenderState::SynSent {
            return false;
        }
        self.syn_pending = false;
        self.syn_sent += 1;
        self.syn_sent_at = now;
        self.timer = Some(now + self.rtt.rto());
        true
    }

    /// SYN-ACK received at `now`: the connection is established. The SYN's RTT is sampled
    /// if it was sent once (Karn); if it had to be retransmitted the initial window is one
    /// segment (RFC 5681 §3.1) and the RTO restarts at 3 s (RFC 6298 §5.7).
    pub fn on_syn_ack(&mut self, now: Time) {
        if self.state != SenderState::SynSent {
            return;
        }
        self.state = SenderState::Established;
        self.syn_pending = false;
        self.timer = None;
        if self.syn_sent == 1 {
            self.rtt.sample(now - self.syn_sent_at);
        } else {
            self.cwnd = self.p.mss.min(self.p.max_window);
            self.rtt.after_syn_timeout();
        }
    }

    // ----- output -----

    /// The next segment to transmit at `now`, if the window and the data allow one. Call
    /// repeatedly until `None`. Updates sequence state, RTT timing and the timer.
    pub fn next_segment(&mut self, now: Time) -> Option<Segment> {
        if self.state != SenderState::Established {
            return None;
        }
        if self.rtx_pending {
            self.rtx_pending = false;
            if self.snd_max > self.snd_una {
                // Fast retransmit / partial-ACK retransmission: the first unacknowledged
                // segment, regardless of the window (RFC 5681 §3.2 step 2, RFC 6582 §3.2).
                let len = (self.snd_max - self.snd_una).min(self.p.mss) as u32;
                self.on_retransmit();
                if self.timer.is_none() {
                    self.timer = Some(now + self.rtt.rto());
                }
                return Some(Segment {
                    seq: self.snd_una,
                    len,
                    retx: true,
                });
            }
        }
        if self.snd_nxt >= self.app_end {
            return None;
        }
        let window = self.cwnd.min(self.p.max_window);
        let flight = self.snd_nxt - self.snd_una;
        let avail = window.saturating_sub(flight);
        let len = (self.app_end - self.snd_nxt).min(self.p.mss);
        if len > avail {
            // Sender-side silly-window avoidance: never split below what is available.
            return None;
        }
        let seq = self.snd_nxt;
        let retx = seq < self.snd_max;
        self.snd_nxt += len;
        if self.snd_nxt > self.snd_max {
            self.snd_max = self.snd_nxt;
        }
        if retx {
            self.on_retransmit();
        } else if self.timed.is_none() {
            self.timed = Some((self.snd_nxt, now));
        }
        // RFC 6298 §5.1: start the timer when sending data if it is not running.
        if self.timer.is_none() {
            self.timer = Some(now + self.rtt.rto());
        }
        Some(Segment {
            seq,
            len: len as u32,
            retx,
        })
    }

    fn on_retransmit(&mut self) {
        self.retransmits += 1;
        // Karn: a retransmission makes any timing in progress ambiguous.
        self.timed = None;
    }

    // ----- input -----

    /// Processes a cumulative ACK `ack` received at `now` (RFC 5681 §3.2, RFC 6582 §3.2).
    pub fn on_ack(&mut self, ack: u64, now: Time) -> AckEvent {
        if self.state != SenderState::Established || ack > self.snd_max {
            return AckEvent::Ignored;
        }
        if ack < self.snd_una {
            return AckEvent::Ignored;
        }
        if ack == self.snd_una {
            if self.snd_max == self.snd_una {
                return AckEvent::Ignored; // nothing outstanding: a window update, not a dup
            }
            return self.on_dupack();
        }
        let acked = ack - self.snd_una;
        self.snd_una = ack;
        if self.snd_nxt < ack {
            self.snd_nxt = ack; // go-back-N caught up with data the receiver already had
        }
        self.rto_retransmitted = false;
        if let Some((end, t0)) = self.timed {
            if ack >= end {
                self.rtt.sample(now - t0);
                self.timed = None;
            }
        }
        let mut restart_timer = true;
        if self.in_recovery {
            if ack >= self.recover {
                // Full ACK (RFC 6582 §3.2 step 3, option 1).
                let flight = self.snd_max - self.snd_una;
                self.cwnd = self.ssthresh.min(flight.max(self.p.mss) + self.p.mss);
                self.in_recovery = false;
                self.dupacks = 0;
            } else {
                // Partial ACK (step 3, partial): retransmit the first unacknowledged segment,
                // deflate cwnd by the amount acknowledged, add back one SMSS if at least one
                // SMSS was acknowledged. Only the first partial ACK resets the timer (§4).
                self.rtx_pending = true;
                self.cwnd = self.cwnd.saturating_sub(acked);
                if acked >= self.p.mss {
                    self.cwnd += self.p.mss;
                }
                restart_timer = self.first_partial;
                self.first_partial = false;
            }
        } else {
            self.dupacks = 0;
            if self.cwnd < self.ssthresh {
                // Slow start: cwnd += min(N, SMSS) (RFC 5681 §3.1, equation 2).
                self.cwnd += acked.min(self.p.mss);
            } else {
                // Congestion avoidance by byte counting: one SMSS per cwnd of data ACKed
                // (RFC 5681 §3.1, the alternative to equation 3).
                self.ca_acked += acked;
                if self.ca_acked >= self.cwnd {
                    self.ca_acked -= self.cwnd;
                    self.cwnd += self.p.mss;
                }
            }
            // The maximum window also caps cwnd growth (as ns-2's `window_`, Linux's clamp).
            self.cwnd = self.cwnd.min(self.p.max_window.max(self.p.mss));
        }
        if self.snd_una == self.snd_max {
            self.timer = None; // RFC 6298 §5.2
        } else if restart_timer {
            self.timer = Some(now + self.rtt.rto()); // RFC 6298 §5.3
        }
        AckEvent::NewData { bytes: acked }
    }

    fn on_dupack(&mut self) -> AckEvent {
        self.dupacks += 1;
        if self.in_recovery {
            // RFC 5681 §3.2 step 4: inflate by one SMSS per additional duplicate.
            self.cwnd += self.p.mss;
            return AckEvent::Duplicate {
                entered_recovery: false,
            };
        }
        if self.dupacks == self.p.dupack_threshold && self.snd_una >= self.recover {
            // RFC 6582 §3.2 step 2: the ACK covers more than `recover`, enter fast retransmit.
            let flight = self.snd_max - self.snd_una;
            self.ssthresh = (flight / 2).max(2 * self.p.mss);
            self.recover = self.snd_max;
            self.cwnd = self.ssthresh + self.p.dupack_threshold as u64 * self.p.mss;
            self.in_recovery = true;
            self.first_partial = true;
            self.rtx_pending = true;
            self.fast_retransmits += 1;
            return AckEvent::Duplicate {
                entered_recovery: true,
            };
        }
        AckEvent::Duplicate {
            entered_recovery: false,
        }
    }

    /// The retransmission timer expired at `now` (RFC 6298 §5.4–5.7, RFC 5681 §3.1,
    /// RFC 6582 §3.2 step 4). Returns whether anything must be (re)sent.
    pub fn on_timeout(&mut self, now: Time) -> bool {
        self.timer = None;
        self.timeouts += 1;
        self.rtt.back_off();
        if self.state == SenderState::SynSent {
            self.syn_pending = true;
            return true;
        }
        if self.snd_una == self.snd_max {
            return false;
        }
        if !self.rto_retransmitted {
            let flight = self.snd_max - self.snd_una;
            self.ssthresh = (flight / 2).max(2 * self.p.mss);
        }
        self.rto_retransmitted = true;
        self.cwnd = self.p.mss; // loss window
        self.ca_acked = 0;
        self.recover = self.snd_max;
        self.in_recovery = false;
        self.dupacks = 0;
        self.rtx_pending = false;
        self.timed = None;
        self.snd_nxt = self.snd_una; // go-back-N
        let _ = now;
        true
    }

    // ----- observation -----

    /// The retransmission-timer deadline, if running.
    pub fn timer(&self) -> Option<Time> {
        self.timer
    }
    /// Handshake state.
    pub fn state(&self) -> SenderState {
        self.state
    }
    /// Congestion window in bytes.
    pub fn cwnd(&self) -> u64 {
        self.cwnd
    }
    /// Slow-start threshold in bytes (`u64::MAX` until the first loss).
    pub fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
    /// Oldest unacknowledged byte.
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    /// Next byte to send.
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }
    /// Highest byte sent + 1.
    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }
    /// Bytes in flight (`snd_nxt - snd_una`).
    pub fn in_flight(&self) -> u64 {
        self.snd_nxt - self.snd_una
    }
    /// In NewReno fast recovery.
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }
    /// The RTT estimator.
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }
    /// Segments retransmitted (all causes).
    pub fn retransmits(&self) -> u64 {
        self.retransmits
    }
    /// Retransmission timeouts.
    pub fn timeouts(&self) -> u64 {
        self.timeouts
    }
    /// Fast retransmits (entries into fast recovery).
    pub fn fast_retransmits(&self) -> u64 {
        self.fast_retransmits
    }
    /// Whether everything written has been acknowledged.
    pub fn all_acked(&self) -> bool {
        self.snd_una == self.app_end
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::TcpConfig;

    fn sender(cfg: TcpConfig) -> Sender {
        Sender::new(cfg.params().unwrap(), 0)
    }

    fn drain(s: &mut Sender, now: Time) -> Vec<Segment> {
        std::iter::from_fn(|| s.next_segment(now)).collect()
    }

    #[test]
    fn initial_window_then_slow_start() {
        let mut s = sender(TcpConfig {
            mss: 100,
            initial_window: 2,
            ..TcpConfig::default()
        });
        assert_eq!(s.write(10_000), 10_000);
        let segs = drain(&mut s, 0);
        assert_eq!(segs.len(), 2);
        assert_eq!(
            segs[1],
            Segment {
                seq: 100,
                len: 100,
                retx: false
            }
        );
        assert_eq!(s.on_ack(100, 10), AckEvent::NewData { bytes: 100 });
        assert_eq!(s.cwnd(), 300);
        assert_eq!(drain(&mut s, 10).len(), 2);
    }

    #[test]
    fn three_dupacks_fast_retransmit_and_partial_ack() {
        let mut s = sender(TcpConfig {
            mss: 100,
            initial_window: 10,
            ..TcpConfig::default()
        });
        s.write(2_000);
        assert_eq!(drain(&mut s, 0).len(), 10); // 0..1000 in flight
                                                // Segment 0 lost twice over: dupacks for 0.
        for _ in 0..2 {
            assert_eq!(
                s.on_ack(0, 1),
                AckEvent::Duplicate {
                    entered_recovery: false
                }
            );
        }
        assert_eq!(
            s.on_ack(0, 1),
            AckEvent::Duplicate {
                entered_recovery: true
            }
        );
        assert_eq!(s.ssthresh(), 500);
        assert_eq!(s.cwnd(), 800);
        let r = drain(&mut s, 1);
        assert_eq!(
            r[0],
            Segment {
                seq: 0,
                len: 100,
                retx: true
            }
        );
        // Partial ACK up to 300 (segment 300 also lost).
        assert_eq!(s.on_ack(300, 2), AckEvent::NewData { bytes: 300 });
        assert!(s.in_recovery());
        assert_eq!(s.cwnd(), 800 - 300 + 100);
        let r = drain(&mut s, 2);
        assert_eq!(
            r[0],
            Segment {
                seq: 300,
                len: 100,
                retx: true
            }
        );
        // Full ACK.
        s.on_ack(1000, 3);
        assert!(!s.in_recovery());
        assert!(s.cwnd() <= 500);
    }

    #[test]
    fn timeout_goes_back_n_with_loss_window() {
        let mut s = sender(TcpConfig {
            mss: 100,
            initial_window: 4,
            ..TcpConfig::default()
        });
        s.write(400);
        drain(&mut s, 0);
        assert!(s.timer().is_some());
        assert!(s.on_timeout(1_000_000_000));
        assert_eq!(s.cwnd(), 100);
        assert_eq!(s.ssthresh(), 200);
        let r = drain(&mut s, 1_000_000_000);
        assert_eq!(
            r,
            vec![Segment {
                seq: 0,
                len: 100,
                retx: true
            }]
        );
        // The timer restarted with the backed-off RTO (2 s).
        assert_eq!(s.timer(), Some(3_000_000_000));
        // Second timeout: ssthresh held.
        s.on_timeout(3_000_000_000);
        assert_eq!(s.ssthresh(), 200);
    }

    #[test]
    fn send_buffer_bounds_writes() {
        let mut s = sender(TcpConfig {
            mss: 100,
            send_buffer: Some(250),
            ..TcpConfig::default()
        });
        assert_eq!(s.write(1000), 250);
        assert_eq!(s.send_buffer_space(), 0);
        drain(&mut s, 0);
        assert_eq!(s.notsent(), 0);
        s.on_ack(100, 1);
        assert_eq!(s.send_buffer_space(), 100);
    }
}
