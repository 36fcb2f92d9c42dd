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
//! maximum window and a bounded send buffer.
//!
//! With `sack` on, loss recovery is RFC 6675's instead of NewReno's: a scoreboard of the
//! SACKed ranges (RFC 2018), recovery entered on the third duplicate ACK or when more than
//! `(DupThresh − 1)·SMSS` bytes above `snd_una` are SACKed (`IsLost`, §4), `pipe` (§4
//! `SetPipe`, in bytes) against cwnd, `NextSeg` rules 1 (retransmit the lowest lost,
//! un-SACKed range above `HighRxt`) and 2 (new data) — rules 3 and 4 (rescue
//! retransmissions) are not implemented —, and recovery ends at the ACK of `RecoveryPoint`.
//! After a timeout the SACKed ranges are kept (our receiver never reneges) and every
//! un-SACKed byte below the highest sent is marked lost, so the same machinery retransmits
//! only the holes, in slow start (as Linux's loss state).
//!
//! Congestion control is NewReno's (RFC 5681) or CUBIC's (RFC 9438), or one of the
//! less-than-best-effort senders of paper 004's Section IV, LEDBAT (RFC 6817) and TCP-LP,
//! which read the one-way delays the receiver echoes ([`Sender::on_delay_sample`]; state
//! and rules in `super::lbe`), see [`CongestionControl`]. Optionally, Linux's restart after
//! idle (RFC 5681 §4.1, RFC 2861; `TcpConfig::restart_after_idle`). Not implemented: limited transmit, timestamps, window scaling,
//! FIN (a connection is done when its last byte is ACKed), HyStart. Sequence numbers are
//! 64-bit byte offsets from 0 and never wrap.

use super::config::{CongestionControl, TcpParams};
use super::lbe::{tcp_lp, Ledbat, TcpLp};
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

/// SACK blocks of one ACK, absolute sequence numbers `[start, end)`; empty blocks are
/// `(0, 0)`. The first is the block holding the most recently received segment (RFC 2018
/// §4).
pub type SackBlocks = [(u64, u64); 3];

/// RFC 9438 constants.
const CUBIC_BETA: f64 = 0.7;
const CUBIC_C: f64 = 0.4;

/// CUBIC's state (RFC 9438 §4), windows in segments.
#[derive(Debug, Clone, Copy, Default)]
struct Cubic {
    /// `W_max`: the window before the last reduction (0 before any).
    w_max: f64,
    /// Start of the current congestion-avoidance epoch.
    epoch: Option<Time>,
    /// `K` of eq. 2, seconds.
    k: f64,
    /// `W_est` of the Reno-friendly region (§4.3).
    w_est: f64,
    /// The window as a real number (cwnd's bytes lose the fraction).
    cwnd: f64,
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
    /// SACK scoreboard: sorted, disjoint, non-adjacent ranges above `snd_una`.
    sacked: Vec<(u64, u64)>,
    sacked_bytes: u64,
    /// RFC 6675 `HighRxt`: retransmissions of this recovery reached this sequence.
    high_rxt: u64,
    /// SACK loss recovery began with a timeout: every un-SACKed byte below `recover` is lost
    /// and cwnd grows in slow start.
    rto_recovery: bool,
    cubic: Cubic,
    ledbat: Ledbat,
    tcp_lp: TcpLp,
    /// ECN: no reduction on an echo before `snd_una` reaches this (RFC 3168 §6.1.2: at
    /// most once per window of data).
    ecn_recover: u64,
    ecn_reductions: u64,
    /// When the last data segment left (Linux's `lsndtime`); `None` before the first.
    last_data_sent: Option<Time>,
    /// Windows cut by the restart after idle so far.
    idle_restarts: u64,
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
            sacked: Vec::new(),
            sacked_bytes: 0,
            high_rxt: 0,
            rto_recovery: false,
            cubic: Cubic::default(),
            ledbat: Ledbat::default(),
            tcp_lp: TcpLp::default(),
            ecn_recover: 0,
            ecn_reductions: 0,
            last_data_sent: None,
            idle_restarts: 0,
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
        if self.p.restart_after_idle && self.snd_una == self.snd_max && self.snd_nxt < self.app_end
        {
            self.restart_after_idle(now);
        }
        let seg = self.output(now);
        if seg.is_some() {
            self.last_data_sent = Some(now);
        }
        seg
    }

    /// RFC 5681 §4.1 / RFC 2861 as Linux does it ([`TcpConfig::restart_after_idle`]): called
    /// before data leaves a connection with nothing outstanding. If no data segment has left
    /// for longer than the current RTO, ssthresh is raised to ¾ cwnd if below it
    /// (`tcp_current_ssthresh`), and cwnd is halved ⌈idle / RTO⌉ − 1 times
    /// (`while ((delta -= rto) > 0 && cwnd > restart_cwnd) cwnd >>= 1`), not below the
    /// restart window min(initial window, cwnd) (`tcp_cwnd_restart`). A CUBIC sender whose
    /// window was cut begins a new epoch when it next leaves slow start (RFC 9438 §4.2: `t`
    /// counts from the start of the current congestion-avoidance stage); Linux's CUBIC
    /// instead shifts its epoch by the idle time (`CA_EVENT_TX_START`), which this sender
    /// does not model.
    ///
    /// [`TcpConfig::restart_after_idle`]: super::TcpConfig::restart_after_idle
    fn restart_after_idle(&mut self, now: Time) {
        let Some(last) = self.last_data_sent else {
            return;
        };
        let rto = self.rtt.rto();
        let mut idle = now.saturating_sub(last);
        if idle <= rto {
            return;
        }
        self.ssthresh = self.ssthresh.max(self.cwnd / 2 + self.cwnd / 4);
        let restart = self.p.initial_window.min(self.p.max_window).min(self.cwnd);
        let mut cwnd = self.cwnd;
        // Linux's loop subtracts one RTO before each test; it ends at the restart window
        // whatever the RTO.
        loop {
            idle = idle.saturating_sub(rto);
            if idle == 0 || cwnd <= restart {
                break;
            }
            cwnd /= 2;
        }
        let cwnd = cwnd.max(restart);
        if cwnd < self.cwnd {
            self.cwnd = cwnd;
            self.cubic.epoch = None;
            self.idle_restarts += 1;
        }
    }

    /// The segment [`Sender::next_segment`] sends, once the restart after idle is done.
    fn output(&mut self, now: Time) -> Option<Segment> {
        if self.p.sack && self.in_recovery {
            return self.next_segment_sack(now);
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

    /// RFC 6675 §5 step (C): send while `cwnd − pipe ≥ 1 segment`, choosing by `NextSeg`
    /// rules 1 and 2. The first retransmission of a recovery goes regardless of `pipe`
    /// (step 4.3).
    fn next_segment_sack(&mut self, now: Time) -> Option<Segment> {
        let lost_edge = self.lost_edge();
        let hole = self.next_lost(lost_edge);
        let forced = std::mem::take(&mut self.rtx_pending);
        let window = self.cwnd.min(self.p.max_window);
        let pipe = self.pipe(lost_edge);
        if let Some((seq, end)) = hole {
            let len = (end - seq).min(self.p.mss);
            if forced || pipe + len <= window {
                self.high_rxt = seq + len;
                self.on_retransmit();
                if self.timer.is_none() {
                    self.timer = Some(now + self.rtt.rto());
                }
                return Some(Segment {
                    seq,
                    len: len as u32,
                    retx: true,
                });
            }
            return None;
        }
        // Rule 2: new data, within cwnd − pipe and the maximum (receive) window.
        if self.snd_max >= self.app_end {
            return None;
        }
        let len = (self.app_end - self.snd_max).min(self.p.mss);
        if pipe + len > window || self.snd_max + len - self.snd_una > self.p.max_window {
            return None;
        }
        let seq = self.snd_max;
        self.snd_max += len;
        self.snd_nxt = self.snd_max;
        if self.timed.is_none() {
            self.timed = Some((self.snd_max, now));
        }
        if self.timer.is_none() {
            self.timer = Some(now + self.rtt.rto());
        }
        Some(Segment {
            seq,
            len: len as u32,
            retx: false,
        })
    }

    /// SACKed bytes in `[a, b)`.
    fn sacked_in(&self, a: u64, b: u64) -> u64 {
        self.sacked
            .iter()
            .map(|&(s, e)| e.min(b).saturating_sub(s.max(a)))
            .sum()
    }

    /// Every un-SACKed byte below this is lost (RFC 6675 `IsLost`: more than
    /// `(DupThresh − 1)·SMSS` bytes above it are SACKed; after a timeout, everything sent).
    fn lost_edge(&self) -> u64 {
        if self.rto_recovery {
            return self.recover.max(self.snd_una);
        }
        let threshold = (self.p.dupack_threshold as u64 - 1) * self.p.mss;
        let mut above = 0;
        for &(s, e) in self.sacked.iter().rev() {
            above += e - s;
            if above > threshold {
                return s;
            }
        }
        self.snd_una
    }

    /// The lowest lost, un-SACKed, not yet retransmitted range `[seq, end)` (`NextSeg` rule
    /// 1), `end` at the next SACKed range or the lost edge.
    fn next_lost(&self, lost_edge: u64) -> Option<(u64, u64)> {
        let mut s = self.high_rxt.max(self.snd_una);
        for &(a, b) in &self.sacked {
            if s >= lost_edge {
                return None;
            }
            if s < a {
                return Some((s, a.min(lost_edge)));
            }
            s = s.max(b);
        }
        (s < lost_edge).then_some((s, lost_edge))
    }

    /// RFC 6675 `SetPipe`, in bytes: outstanding minus SACKed minus the lost bytes not yet
    /// retransmitted.
    fn pipe(&self, lost_edge: u64) -> u64 {
        let out = self.snd_max - self.snd_una - self.sacked_bytes;
        let from = self.high_rxt.max(self.snd_una);
        if lost_edge <= from {
            return out;
        }
        let lost_unsent = (lost_edge - from) - self.sacked_in(from, lost_edge);
        out.saturating_sub(lost_unsent)
    }

    /// Adds the ACK's SACK blocks to the scoreboard and drops what `snd_una` covers.
    fn update_scoreboard(&mut self, blocks: &SackBlocks) {
        for &(s, e) in blocks {
            let (s, e) = (s.max(self.snd_una), e.min(self.snd_max));
            if s >= e {
                continue;
            }
            let i = self.sacked.partition_point(|&(_, re)| re < s);
            let mut j = i;
            let (mut ns, mut ne) = (s, e);
            while j < self.sacked.len() && self.sacked[j].0 <= e {
                ns = ns.min(self.sacked[j].0);
                ne = ne.max(self.sacked[j].1);
                j += 1;
            }
            self.sacked.splice(i..j, std::iter::once((ns, ne)));
        }
        let una = self.snd_una;
        self.sacked.retain(|&(_, e)| e > una);
        if let Some(first) = self.sacked.first_mut() {
            first.0 = first.0.max(una);
        }
        self.sacked_bytes = self.sacked.iter().map(|&(s, e)| e - s).sum();
    }

    /// A congestion event (loss detected by ACKs or by the timer): sets ssthresh (RFC 5681
    /// eq. 4 for NewReno; RFC 9438 §4.6–4.7 for CUBIC: β·cwnd, with fast convergence).
    fn reduce(&mut self, flight: u64) {
        let mss = self.p.mss;
        match self.p.cc {
            // RFC 6817 §2.4.2: LEDBAT halves on loss as Reno; TCP-LP is Reno on loss.
            CongestionControl::NewReno | CongestionControl::Ledbat | CongestionControl::TcpLp => {
                self.ssthresh = (flight / 2).max(2 * mss)
            }
            CongestionControl::Cubic => {
                let w = self.cwnd as f64 / mss as f64;
                self.cubic.w_max = if w < self.cubic.w_max {
                    w * (1.0 + CUBIC_BETA) / 2.0
                } else {
                    w
                };
                self.cubic.epoch = None;
                self.ssthresh = ((self.cwnd as f64 * CUBIC_BETA) as u64).max(2 * mss);
            }
        }
    }

    /// An ACK echoed a congestion-experienced mark (RFC 3168 §6.1.2): the window is reduced
    /// as for a loss (NewReno: half the flight; CUBIC: β·cwnd), without retransmitting, at
    /// most once per window of data, and not during loss recovery (which has reduced it
    /// already). Ignored unless ECN is on.
    pub fn on_ece(&mut self) {
        if !self.p.ecn || self.in_recovery || self.snd_una < self.ecn_recover {
            return;
        }
        self.reduce(self.snd_max - self.snd_una);
        self.cwnd = self.ssthresh;
        self.ca_acked = 0;
        self.ecn_recover = self.snd_max;
        self.ecn_reductions += 1;
    }

    /// Window reductions on an ECN echo so far.
    pub fn ecn_reductions(&self) -> u64 {
        self.ecn_reductions
    }

    /// Windows cut by the restart after idle so far (see
    /// [`TcpConfig::restart_after_idle`](super::TcpConfig::restart_after_idle)).
    pub fn idle_restarts(&self) -> u64 {
        self.idle_restarts
    }

    /// Congestion avoidance on an ACK of `acked` new bytes at `now`.
    fn grow_ca(&mut self, acked: u64, now: Time) {
        match self.p.cc {
            CongestionControl::Ledbat => {
                let flight = self.snd_max - self.snd_una + acked;
                self.cwnd = self.ledbat.congestion_avoidance(
                    self.cwnd,
                    acked,
                    flight,
                    self.p.mss,
                    self.p.ledbat_target,
                );
            }
            CongestionControl::NewReno | CongestionControl::TcpLp => {
                // Byte counting: one SMSS per cwnd of data ACKed (RFC 5681 §3.1, the
                // alternative to equation 3).
                self.ca_acked += acked;
                if self.ca_acked >= self.cwnd {
                    self.ca_acked -= self.cwnd;
                    self.cwnd += self.p.mss;
                }
            }
            CongestionControl::Cubic => {
                let mss = self.p.mss as f64;
                let c = &mut self.cubic;
                if c.epoch.is_none() {
                    // RFC 9438 §4.2: a new epoch; K from eq. 2 (W_max below cwnd: K = 0).
                    c.epoch = Some(now);
                    c.cwnd = self.cwnd as f64 / mss;
                    if c.cwnd < c.w_max {
                        c.k = ((c.w_max - c.cwnd) / CUBIC_C).cbrt();
                    } else {
                        c.k = 0.0;
                        c.w_max = c.cwnd;
                    }
                    c.w_est = c.cwnd;
                }
                let t = crate::time::as_secs(now - c.epoch.unwrap_or(now));
                let rtt = self.rtt.srtt().map_or(0.0, crate::time::as_secs);
                let segs = acked as f64 / mss;
                // §4.3: the Reno-friendly estimate, α = 3(1 − β)/(1 + β).
                let alpha = 3.0 * (1.0 - CUBIC_BETA) / (1.0 + CUBIC_BETA);
                c.w_est += alpha * segs / c.cwnd;
                let w_cubic = |t: f64| CUBIC_C * (t - c.k).powi(3) + c.w_max;
                if w_cubic(t) < c.w_est {
                    c.cwnd = c.w_est;
                } else {
                    // §4.4: (target − cwnd)/cwnd per segment ACKed, target = W_cubic(t + RTT)
                    // clamped to [cwnd, 1.5 cwnd].
                    let target = w_cubic(t + rtt).clamp(c.cwnd, 1.5 * c.cwnd);
                    c.cwnd += (target - c.cwnd) / c.cwnd * segs;
                }
                self.cwnd = self.cwnd.max((c.cwnd * mss) as u64);
            }
        }
    }

    fn on_retransmit(&mut self) {
        self.retransmits += 1;
        // Karn: a retransmission makes any timing in progress ambiguous.
        self.timed = None;
    }

    // ----- input -----

    /// A one-way delay sample `owd` echoed by an ACK arriving at `now` (before the ACK
    /// itself is processed). LEDBAT updates its base and current delays; TCP-LP checks for
    /// an early congestion indication and reacts at most once per window of data: outside an
    /// inference time-out it halves the window and starts one (3 smoothed RTTs); inside it,
    /// if the sample itself is above the threshold (the queue persists), it sets the window
    /// to one segment. Each reaction restarts TCP-LP's delay range. Other senders ignore
    /// delays.
    pub fn on_delay_sample(&mut self, owd: Time, now: Time) {
        match self.p.cc {
            CongestionControl::Ledbat => self.ledbat.on_delay(owd, now),
            CongestionControl::TcpLp => {
                if !self.tcp_lp.on_delay(owd)
                    || self.state != SenderState::Established
                    || self.in_recovery
                    || self.snd_una < self.tcp_lp.recover
                {
                    return;
                }
                let inferring = self.tcp_lp.inferring(now);
                if inferring && !self.tcp_lp.latest_above_threshold() {
                    // The smoothed delay still carries the queue the halving answered.
                    return;
                }
                let mss = self.p.mss;
                self.cwnd = if inferring {
                    mss
                } else {
                    (self.cwnd / 2).max(mss)
                };
                self.ssthresh = self.cwnd.max(2 * mss);
                self.ca_acked = 0;
                let rtt = self.rtt.srtt().unwrap_or(2 * owd);
                self.tcp_lp.inference_until = Some(now + tcp_lp::INFERENCE_RTTS * rtt);
                self.tcp_lp.recover = self.snd_max;
                self.tcp_lp.restart_range();
                self.tcp_lp.reactions += 1;
            }
            CongestionControl::NewReno | CongestionControl::Cubic => {}
        }
    }

    /// Processes a cumulative ACK `ack` received at `now` (RFC 5681 §3.2, RFC 6582 §3.2).
    pub fn on_ack(&mut self, ack: u64, now: Time) -> AckEvent {
        self.on_ack_sack(ack, &[(0, 0); 3], now)
    }

    /// Processes an ACK with its SACK blocks (ignored unless `sack` is on).
    pub fn on_ack_sack(&mut self, ack: u64, sack: &SackBlocks, now: Time) -> AckEvent {
        if self.state != SenderState::Established || ack > self.snd_max {
            return AckEvent::Ignored;
        }
        if self.p.sack {
            return self.on_ack_rfc6675(ack, sack, now);
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
            self.grow(acked, now);
        }
        if self.snd_una == self.snd_max {
            self.timer = None; // RFC 6298 §5.2
        } else if restart_timer {
            self.timer = Some(now + self.rtt.rto()); // RFC 6298 §5.3
        }
        AckEvent::NewData { bytes: acked }
    }

    /// Slow start or congestion avoidance on `acked` new bytes, capped by the maximum window
    /// (as ns-2's `window_`, Linux's clamp).
    fn grow(&mut self, acked: u64, now: Time) {
        if self.p.cc == CongestionControl::TcpLp && self.tcp_lp.inferring(now) {
            return; // TCP-LP: no increase during the inference time-out
        }
        if self.p.cc == CongestionControl::Ledbat && self.cwnd < self.ssthresh {
            // LEDBAT slow start (as TCP's, RFC 6817 §2.4.2 allows no faster) ends at the
            // first loss or once the queuing delay reaches half the target.
            let q = self.ledbat.queuing_delay().unwrap_or(0);
            if 2 * q >= self.p.ledbat_target {
                self.ssthresh = self.cwnd;
            }
        }
        if self.cwnd < self.ssthresh {
            // Slow start: cwnd += min(N, SMSS) (RFC 5681 §3.1, equation 2).
            self.cwnd += acked.min(self.p.mss);
        } else {
            self.grow_ca(acked, now);
        }
        self.cwnd = self.cwnd.min(self.p.max_window.max(self.p.mss));
        if self.p.cc == CongestionControl::Cubic && self.cubic.epoch.is_some() {
            self.cubic.cwnd = self.cubic.cwnd.min(self.cwnd as f64 / self.p.mss as f64);
        }
    }

    /// RFC 6675 §5: ACK processing with the scoreboard.
    fn on_ack_rfc6675(&mut self, ack: u64, sack: &SackBlocks, now: Time) -> AckEvent {
        if ack < self.snd_una {
            return AckEvent::Ignored;
        }
        let acked = ack - self.snd_una;
        if acked > 0 {
            self.snd_una = ack;
            self.snd_nxt = self.snd_nxt.max(ack);
            self.rto_retransmitted = false;
            if let Some((end, t0)) = self.timed {
                if ack >= end {
                    self.rtt.sample(now - t0);
                    self.timed = None;
                }
            }
        }
        self.update_scoreboard(sack);
        let ev = if acked > 0 {
            self.dupacks = 0;
            if self.in_recovery && ack >= self.recover {
                // Step (D)/§5.1: recovery ends; cwnd = ssthresh after a fast recovery.
                self.in_recovery = false;
                if !self.rto_recovery {
                    self.cwnd = self.ssthresh;
                }
                self.rto_recovery = false;
            } else if !self.in_recovery || self.rto_recovery {
                self.grow(acked, now);
            }
            AckEvent::NewData { bytes: acked }
        } else if self.snd_max > self.snd_una {
            self.dupacks += 1;
            AckEvent::Duplicate {
                entered_recovery: false,
            }
        } else {
            return AckEvent::Ignored;
        };
        // §5 step (4): enter recovery on DupThresh duplicates or when IsLost(HighACK + 1).
        let ev = if !self.in_recovery
            && self.snd_max > self.snd_una
            && self.snd_una >= self.recover
            && (self.dupacks >= self.p.dupack_threshold || self.lost_edge() > self.snd_una)
        {
            let flight = if self.p.ssthresh_from_pipe {
                // ns-3: `pipe` once the segment at snd_una is marked lost.
                let edge = self
                    .lost_edge()
                    .max((self.snd_una + self.p.mss).min(self.snd_max));
                self.high_rxt = self.snd_una;
                self.pipe(edge)
            } else {
                self.snd_max - self.snd_una
            };
            self.reduce(flight);
            self.cwnd = self.ssthresh;
            self.recover = self.snd_max;
            self.high_rxt = self.snd_una;
            self.in_recovery = true;
            self.rto_recovery = false;
            self.rtx_pending = true;
            self.fast_retransmits += 1;
            match ev {
                AckEvent::Duplicate { .. } => AckEvent::Duplicate {
                    entered_recovery: true,
                },
                other => other,
            }
        } else {
            ev
        };
        if self.snd_una == self.snd_max {
            self.timer = None; // RFC 6298 §5.2
        } else if acked > 0 {
            self.timer = Some(now + self.rtt.rto()); // RFC 6298 §5.3
        }
        ev
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
            // RFC 6582 §3.2 step 2: fast retransmit only when the cumulative ACK covers more
            // than `recover`. The RFC's `recover` is the highest sequence number sent (the last
            // byte, inclusive); ours is one past it, so "covers more" is `snd_una >= recover`,
            // as ns-3's TcpSocketBase (`m_highRxAckMark >= m_recover`, `m_recover =
            // m_highTxMark`), which ns3-crosscheck compares us with. Linux's Reno is one segment
            // stricter (it holds the old recovery until an ACK *above* `high_seq`,
            // `tcp_try_undo_recovery`); that is not the RFC's rule.
            let flight = self.snd_max - self.snd_una;
            self.reduce(flight);
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
            let flight = if self.p.ssthresh_from_pipe {
                self.pipe(self.lost_edge()) // ns-3: `pipe` before the timeout marks all lost
            } else {
                self.snd_max - self.snd_una
            };
            self.reduce(flight);
        }
        self.rto_retransmitted = true;
        self.cwnd = self.p.mss; // loss window
        self.ca_acked = 0;
        self.recover = self.snd_max;
        self.dupacks = 0;
        self.rtx_pending = false;
        self.timed = None;
        let _ = now;
        if self.p.sack {
            // Every un-SACKed byte sent is lost; retransmit the holes from snd_una.
            self.in_recovery = true;
            self.rto_recovery = true;
            self.high_rxt = self.snd_una;
            return true;
        }
        self.in_recovery = false;
        self.snd_nxt = self.snd_una; // go-back-N
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
    /// Retransmission timeouts (the SYN's included).
    pub fn timeouts(&self) -> u64 {
        self.timeouts
    }
    /// SYN transmissions so far (0 without a handshake).
    pub fn syns_sent(&self) -> u32 {
        self.syn_sent
    }
    /// Fast retransmits (entries into fast recovery).
    pub fn fast_retransmits(&self) -> u64 {
        self.fast_retransmits
    }
    /// LEDBAT's queuing-delay estimate (current − base one-way delay), if a LEDBAT sender
    /// has had a delay sample.
    pub fn ledbat_queuing_delay(&self) -> Option<Time> {
        (self.p.cc == CongestionControl::Ledbat)
            .then(|| self.ledbat.queuing_delay())
            .flatten()
    }
    /// TCP-LP early congestion indications acted on.
    pub fn tcp_lp_reactions(&self) -> u64 {
        self.tcp_lp.reactions
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
    fn an_ecn_echo_halves_the_window_once_per_window_without_retransmitting() {
        let cfg = TcpConfig {
            mss: 100,
            initial_window: 8,
            ecn: true,
            ..TcpConfig::default()
        };
        let mut s = sender(cfg.clone());
        s.write(10_000);
        assert_eq!(drain(&mut s, 0).len(), 8);
        s.on_ece();
        assert_eq!((s.cwnd(), s.ssthresh()), (400, 400), "half the flight");
        assert_eq!(s.ecn_reductions(), 1);
        // More echoes within the same window: no further reduction.
        s.on_ack(300, 1_000);
        s.on_ece();
        assert_eq!(s.cwnd(), 400);
        assert_eq!(s.retransmits(), 0);
        // Once the window that was in flight is acknowledged, an echo reduces again.
        s.on_ack(800, 2_000);
        drain(&mut s, 2_000);
        let before = s.cwnd();
        s.on_ece();
        assert_eq!(s.ecn_reductions(), 2);
        assert!(s.cwnd() < before);
        // Without ECN the echo is ignored.
        let mut t = sender(TcpConfig { ecn: false, ..cfg });
        t.write(1_000);
        drain(&mut t, 0);
        t.on_ece();
        assert_eq!((t.cwnd(), t.ecn_reductions()), (800, 0));
    }

    /// RFC 6582 §3.2 step 2 both ways: after a timeout, duplicates of an ACK below `recover`
    /// (the copies go-back-N resent) start no fast retransmit; duplicates of an ACK that
    /// covers every byte sent before the timeout do.
    #[test]
    fn newreno_fast_retransmit_needs_the_ack_to_cover_recover() {
        let mut s = sender(TcpConfig {
            mss: 100,
            initial_window: 10,
            ..TcpConfig::default()
        });
        s.write(5_000);
        assert_eq!(drain(&mut s, 0).len(), 10); // 0..1000 sent: `recover` will be 1000
        let t = s.timer().expect("the retransmission timer runs");
        assert!(s.on_timeout(t));
        drain(&mut s, t);
        let dups = |s: &mut Sender, ack, now| {
            (0..3).any(|_| {
                s.on_ack(ack, now)
                    == AckEvent::Duplicate {
                        entered_recovery: true,
                    }
            })
        };
        assert_eq!(s.on_ack(500, t + 1), AckEvent::NewData { bytes: 500 });
        assert!(
            !dups(&mut s, 500, t + 2),
            "500 < recover: no fast retransmit"
        );
        assert!(!s.in_recovery());
        assert_eq!(s.on_ack(1000, t + 3), AckEvent::NewData { bytes: 500 });
        drain(&mut s, t + 3);
        assert!(
            dups(&mut s, 1000, t + 4),
            "1000 covers every byte up to recover"
        );
        assert!(s.in_recovery());
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

    fn acked_up_to(s: &mut Sender, ack: u64, sack: SackBlocks, now: Time) -> AckEvent {
        s.on_ack_sack(ack, &sack, now)
    }

    /// ns-3's rule (`ssthresh_from_pipe`): half of `pipe`, not of FlightSize. Segments 0
    /// and 2 of 10 lost, 1, 3 and 4 SACKed: FlightSize 1000, pipe = 1000 − 300 SACKed −
    /// 100 (segment 0, lost) = 600, as ns-3's `BytesInFlight()` after `MarkHeadAsLost`.
    #[test]
    fn sack_ssthresh_from_pipe_halves_pipe() {
        for (rule, ssthresh) in [(false, 500), (true, 300)] {
            let mut s = sender(TcpConfig {
                mss: 100,
                initial_window: 10,
                sack: true,
                ssthresh_from_pipe: rule,
                ..TcpConfig::default()
            });
            s.write(2_000);
            assert_eq!(drain(&mut s, 0).len(), 10);
            acked_up_to(&mut s, 0, [(100, 200), (0, 0), (0, 0)], 1);
            acked_up_to(&mut s, 0, [(300, 400), (100, 200), (0, 0)], 1);
            acked_up_to(&mut s, 0, [(300, 500), (100, 200), (0, 0)], 1);
            assert!(s.in_recovery());
            assert_eq!(
                (s.ssthresh(), s.cwnd()),
                (ssthresh, ssthresh),
                "rule {rule}"
            );
            // The first retransmission goes regardless of the window.
            assert_eq!(drain(&mut s, 1)[0].seq, 0);
        }
    }

    #[test]
    fn sack_enters_recovery_on_is_lost_and_retransmits_each_hole_once() {
        let mut s = sender(TcpConfig {
            mss: 100,
            initial_window: 10,
            sack: true,
            ..TcpConfig::default()
        });
        s.write(2_000);
        assert_eq!(drain(&mut s, 0).len(), 10);
        // Segments 0 and 2 lost: the ACKs of 1, 3, 4 carry SACK blocks.
        acked_up_to(&mut s, 0, [(100, 200), (0, 0), (0, 0)], 1);
        acked_up_to(&mut s, 0, [(300, 400), (100, 200), (0, 0)], 1);
        assert!(!s.in_recovery());
        // 300 bytes SACKed above 0 > (3 − 1)·100: IsLost(0) although only 3 dupacks...
        let ev = acked_up_to(&mut s, 0, [(300, 500), (100, 200), (0, 0)], 1);
        assert_eq!(
            ev,
            AckEvent::Duplicate {
                entered_recovery: true
            }
        );
        assert_eq!(s.ssthresh(), 500);
        assert_eq!(s.cwnd(), 500);
        // pipe = 1000 − 300 SACKed − 200 lost = 500: only the forced first retransmission.
        let r = drain(&mut s, 1);
        assert_eq!(
            r,
            vec![Segment {
                seq: 0,
                len: 100,
                retx: true
            }]
        );
        // Three more SACKs: pipe falls, segment 2 (lost) goes next, then new data.
        acked_up_to(&mut s, 0, [(300, 600), (100, 200), (0, 0)], 2);
        acked_up_to(&mut s, 0, [(300, 700), (100, 200), (0, 0)], 2);
        acked_up_to(&mut s, 0, [(300, 800), (100, 200), (0, 0)], 2);
        // pipe = 1000 − 600 SACKed − 100 lost (segment 2) = 300 < cwnd 500.
        let r = drain(&mut s, 2);
        assert_eq!(
            r[0],
            Segment {
                seq: 200,
                len: 100,
                retx: true
            }
        );
        assert!(r.len() > 1, "{r:?}");
        assert!(r[1..].iter().all(|g| !g.retx && g.seq >= 1000), "{r:?}");
        // A partial ACK keeps recovery; the ACK of RecoveryPoint (1000) ends it with
        // cwnd = ssthresh.
        acked_up_to(&mut s, 200, [(300, 800), (0, 0), (0, 0)], 3);
        assert!(s.in_recovery());
        acked_up_to(&mut s, 1000, [(0, 0); 3], 3);
        assert!(!s.in_recovery());
        assert_eq!(s.cwnd(), 500);
        assert_eq!(s.retransmits(), 2);
    }

    #[test]
    fn cubic_window_follows_the_rfc_9438_curve() {
        // After a loss at W_max = 100 segments, cwnd in congestion avoidance follows
        // W_cubic(t) = C (t − K)^3 + W_max with K = cbrt(W_max (1 − β) / C) (eqs. 1–2), as
        // long as it is above the Reno-friendly estimate. ACKs arrive every 1 ms, one
        // segment each, RTT 0 (no srtt yet: the target is W_cubic(t)).
        let mss = 1000;
        let mut s = sender(TcpConfig {
            mss: mss as u32,
            initial_window: 100,
            congestion_control: CongestionControl::Cubic,
            ..TcpConfig::default()
        });
        s.write(u64::MAX / 4);
        drain(&mut s, 0);
        assert!(s.on_timeout(1_000_000_000));
        assert_eq!(s.ssthresh(), 70 * mss);
        // Jump to congestion avoidance at cwnd = ssthresh (as after fast recovery).
        s.cwnd = s.ssthresh;
        s.timed = None;
        s.snd_nxt = s.snd_una;
        let k = (100.0f64 * 0.3 / 0.4).cbrt();
        let t0 = 2_000_000_000u64;
        let mut ack = s.snd_una;
        let mut worst = 0.0f64;
        for ms in 0..8_000u64 {
            let now = t0 + ms * 1_000_000;
            drain(&mut s, now);
            if s.snd_max() > ack {
                ack += mss.min(s.snd_max() - ack);
                s.on_ack(ack, now);
            }
            let t = ms as f64 / 1e3;
            if ms > 500 {
                let expect = 0.4 * (t - k).powi(3) + 100.0;
                let got = s.cwnd() as f64 / mss as f64;
                worst = worst.max((got - expect).abs() / expect);
            }
        }
        assert!(worst < 0.03, "largest relative gap to W_cubic: {worst}");
    }

    /// Two segments of 100 B, slow start over three rounds of 10 ms to 16 segments, every
    /// byte acknowledged; the last data left at 20 ms and the RTO is 200 ms (`min_rto`).
    fn warmed(restart_after_idle: bool) -> (Sender, Time) {
        let ms = crate::time::millis;
        let mut s = sender(TcpConfig {
            mss: 100,
            initial_window: 2,
            restart_after_idle,
            ..TcpConfig::default()
        });
        for round in 0..3 {
            let now = ms(10.0 * round as f64);
            s.write(s.cwnd());
            for g in drain(&mut s, now) {
                s.on_ack(g.seq + g.len as u64, now + ms(10.0));
            }
            assert!(s.all_acked());
        }
        assert_eq!(
            (s.cwnd(), s.ssthresh(), s.rtt().rto()),
            (1_600, u64::MAX, ms(200.0))
        );
        (s, ms(20.0))
    }

    /// The burst a write of 10 kB sends `idle_ms` after the last data left.
    fn burst_after(s: &mut Sender, last: Time, idle_ms: f64) -> usize {
        let now = last + crate::time::millis(idle_ms);
        s.write(10_000);
        drain(s, now).len()
    }

    #[test]
    fn idle_longer_than_the_rto_restarts_from_half_the_window_per_rto() {
        // Idle 300 ms (one RTO and a half): cwnd halved once; ssthresh stays infinite (as
        // Linux's TCP_INFINITE_SSTHRESH: max(ssthresh, ¾ cwnd)).
        let (mut s, last) = warmed(true);
        assert_eq!(burst_after(&mut s, last, 300.0), 8);
        assert_eq!((s.ssthresh(), s.idle_restarts()), (u64::MAX, 1));
        // With a finite ssthresh below ¾ cwnd (left by an earlier loss), it rises to ¾ cwnd.
        let (mut s, last) = warmed(true);
        s.ssthresh = 800;
        assert_eq!(burst_after(&mut s, last, 300.0), 8);
        assert_eq!(s.ssthresh(), 1_200);
        // Idle 450 ms: ⌈450 / 200⌉ − 1 = 2 halvings.
        let (mut s, last) = warmed(true);
        assert_eq!(burst_after(&mut s, last, 450.0), 4);
        // Idle 10 s: halved down to the restart window, min(IW, cwnd) = 2 segments, no lower.
        let (mut s, last) = warmed(true);
        assert_eq!(burst_after(&mut s, last, 10_000.0), 2);
        assert_eq!(s.cwnd(), 200);
        // Then slow start back towards ssthresh: an ACK of each segment adds one.
        let una = s.snd_una();
        s.on_ack(una + 100, last + crate::time::millis(10_010.0));
        s.on_ack(una + 200, last + crate::time::millis(10_010.0));
        assert_eq!(s.cwnd(), 400);
    }

    #[test]
    fn idle_shorter_than_the_rto_or_the_option_off_keeps_the_window() {
        let (mut s, last) = warmed(true);
        assert_eq!(burst_after(&mut s, last, 150.0), 16);
        assert_eq!((s.ssthresh(), s.idle_restarts()), (u64::MAX, 0));
        let (mut s, last) = warmed(false);
        assert_eq!(burst_after(&mut s, last, 10_000.0), 16);
        assert_eq!(
            (s.cwnd(), s.ssthresh(), s.idle_restarts()),
            (1_600, u64::MAX, 0)
        );
    }

    #[test]
    fn no_restart_while_data_is_outstanding() {
        // Four segments leave at 0; the ACK of the first at 100 ms sets the RTO to 300 ms
        // and restarts the timer (400 ms). At 350 ms no data has left for longer than the
        // RTO, but three segments are outstanding: the connection is not idle.
        let ms = crate::time::millis;
        let mut s = sender(TcpConfig {
            mss: 100,
            initial_window: 4,
            restart_after_idle: true,
            ..TcpConfig::default()
        });
        s.write(400);
        assert_eq!(drain(&mut s, 0).len(), 4);
        s.on_ack(100, ms(100.0));
        assert_eq!(
            (s.cwnd(), s.rtt().rto(), s.timer()),
            (500, ms(300.0), Some(ms(400.0)))
        );
        s.write(10_000);
        assert_eq!(drain(&mut s, ms(350.0)).len(), 2);
        assert_eq!((s.cwnd(), s.idle_restarts()), (500, 0));
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
