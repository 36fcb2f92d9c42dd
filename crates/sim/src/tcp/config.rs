//! TCP parameters.

use super::Pin;
use crate::time::{millis, Time};
use queues::PinScheme;
use serde::{Deserialize, Serialize};

/// Congestion-window growth and reduction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CongestionControl {
    /// RFC 5681: ssthresh = FlightSize/2, one SMSS per RTT in congestion avoidance.
    #[default]
    NewReno,
    /// RFC 9438 CUBIC: β = 0.7, C = 0.4, fast convergence, the Reno-friendly region
    /// (§4.3); no HyStart.
    Cubic,
    /// RFC 6817 LEDBAT, a less-than-best-effort sender: the window follows the one-way
    /// queuing delay towards a target ([`TcpConfig::ledbat_target_ms`]), see
    /// `crate::tcp::lbe`. Simulator only: the Linux kernel this project runs on offers
    /// reno, cubic and bbr, so the tunnel cannot use it.
    Ledbat,
    /// TCP-LP (Kuzmanovic & Knightly, 2003), a less-than-best-effort sender: Reno plus an
    /// early congestion indication from the smoothed one-way delay, see `crate::tcp::lbe`.
    /// Simulator only, as LEDBAT.
    #[serde(rename = "tcp-lp")]
    TcpLp,
}

/// Parameters of every simulated TCP connection. Times are given in milliseconds in
/// scenario files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TcpConfig {
    /// Maximum segment size: payload bytes of a full segment (SMSS of RFC 5681).
    pub mss: u32,
    /// Header bytes added on the wire to every packet (IP + TCP). ACKs are this big.
    pub header_bytes: u32,
    /// Initial congestion window in segments (RFC 5681 §3.1; RFC 6928 allows 10).
    pub initial_window: u32,
    /// Maximum window in segments: caps cwnd growth and the data in flight, as a fixed
    /// receiver window would (the "maximum window" of ns-2/ns-3 setups). `None`: no cap.
    pub max_window: Option<u32>,
    /// Send-buffer size in bytes: the application (driver) may have at most this many
    /// bytes written but not yet acknowledged. `None`: unbounded.
    pub send_buffer: Option<u64>,
    /// Perform the three-way handshake before sending data.
    pub handshake: bool,
    /// Delayed ACKs (RFC 5681 §4.2): ACK every second full segment, or after this many
    /// milliseconds. `None`: ACK every segment.
    pub delayed_ack_ms: Option<f64>,
    /// Minimum RTO (RFC 6298 §2.4 says 1 s; Linux uses 200 ms).
    pub min_rto_ms: f64,
    /// Maximum RTO after back-off (RFC 6298 §2.5 allows ≥ 60 s).
    pub max_rto_ms: f64,
    /// RTO before any RTT sample (RFC 6298 §2.1: 1 s).
    pub initial_rto_ms: f64,
    /// Clock granularity G of RFC 6298 §2.3.
    pub clock_granularity_ms: f64,
    /// Duplicate ACKs that trigger fast retransmit (RFC 5681 §3.2: 3).
    pub dupack_threshold: u32,
    /// Selective acknowledgements (RFC 2018, 3 blocks per ACK) with RFC 6675 loss
    /// recovery. `false`: NewReno's partial-ACK recovery (RFC 6582), as paper 003's setups.
    pub sack: bool,
    /// With `sack`, count its options on the wire as ns-3 (and Linux without timestamps)
    /// sends them: SYN and SYN-ACK carry SACK-permitted (2 bytes, 4 with padding), an ACK
    /// with n SACK blocks carries 2 + 8n bytes, padded to a multiple of 4 (RFC 2018 §3).
    /// Off by default: every packet has `header_bytes`.
    pub sack_option_bytes: bool,
    /// With `sack`, halve RFC 6675's `pipe` instead of FlightSize (SND.MAX − SND.UNA) when
    /// setting ssthresh on entering fast recovery and on a timeout, as ns-3 does
    /// (`TcpSocketBase::EnterRecovery` and `ReTxTimeout` pass `BytesInFlight()`, its
    /// `pipe`). RFC 6675 §5 (4.2) and RFC 5681 say FlightSize; off by default, for the
    /// ns-3 cross-check's evidence only.
    pub ssthresh_from_pipe: bool,
    /// Congestion control.
    pub congestion_control: CongestionControl,
    /// Explicit congestion notification (RFC 3168): data segments are ECN-capable, the
    /// receiver echoes a congestion-experienced mark on its next ACK (ECE), and the sender
    /// reduces its window as for a loss (without retransmitting), at most once per window
    /// of data (§6.1.2). Marks come from a bottleneck that marks
    /// (`topology.ecn_mark_packets`). Off by default.
    pub ecn: bool,
    /// LEDBAT's target queuing delay in milliseconds (RFC 6817 §2.5: at most 100; 25 is
    /// the common default, paper 004 also runs 60). Used only by LEDBAT senders.
    pub ledbat_target_ms: f64,
    /// Senders pick their initial sequence number among the possible initial numbers of
    /// paper 003's stateless classifier (Section III), `{ r, l, th, low_random }` bits:
    /// see [`crate::tcp::pin_isn`]. `None` (the default): every ISN is 0, as ns-2's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pin_isn: Option<Pin>,
    /// Restart after idle (RFC 5681 §4.1, RFC 2861): when a connection with nothing
    /// outstanding sends data again after no data segment has left for longer than the
    /// current RTO, the window that no ACK clock has validated meanwhile is cut first. The
    /// rule is Linux's (`tcp_slow_start_after_idle_check` and `tcp_cwnd_restart`, on by
    /// default as `net.ipv4.tcp_slow_start_after_idle = 1`): ssthresh becomes
    /// max(ssthresh, ¾ cwnd), cwnd is halved ⌈idle / RTO⌉ − 1 times and never falls below
    /// the restart window min(initial window, cwnd); the connection
    /// then slow-starts back towards ssthresh. RFC 5681 §4.1 sets cwnd to the restart window
    /// outright; Linux's halving per RTO is RFC 2861's decay. ns-3.44's TcpSocketBase does
    /// not restart (its `CA_EVENT_CWND_RESTART` is declared "Not triggered"). Off by
    /// default: a connection keeps its window across any silence.
    pub restart_after_idle: bool,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            mss: 1460,
            header_bytes: 40,
            initial_window: 3,
            max_window: None,
            send_buffer: None,
            handshake: false,
            delayed_ack_ms: None,
            min_rto_ms: 200.0,
            max_rto_ms: 60_000.0,
            initial_rto_ms: 1_000.0,
            clock_granularity_ms: 1.0,
            dupack_threshold: 3,
            sack: false,
            sack_option_bytes: false,
            ssthresh_from_pipe: false,
            congestion_control: CongestionControl::NewReno,
            ecn: false,
            ledbat_target_ms: 25.0,
            pin_isn: None,
            restart_after_idle: false,
        }
    }
}

/// [`TcpConfig`] with times converted to [`Time`], as the state machines use it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TcpParams {
    /// See [`TcpConfig::mss`].
    pub mss: u64,
    /// See [`TcpConfig::header_bytes`].
    pub header_bytes: u32,
    /// Initial window in bytes.
    pub initial_window: u64,
    /// Maximum window in bytes (`u64::MAX` if none).
    pub max_window: u64,
    /// Send buffer in bytes (`u64::MAX` if none).
    pub send_buffer: u64,
    /// See [`TcpConfig::handshake`].
    pub handshake: bool,
    /// Delayed-ACK timeout, if delayed ACKs are on.
    pub delayed_ack: Option<Time>,
    /// Minimum RTO.
    pub min_rto: Time,
    /// Maximum RTO.
    pub max_rto: Time,
    /// Initial RTO.
    pub initial_rto: Time,
    /// Clock granularity.
    pub granularity: Time,
    /// Duplicate-ACK threshold.
    pub dupack_threshold: u32,
    /// See [`TcpConfig::sack`].
    pub sack: bool,
    /// See [`TcpConfig::sack_option_bytes`] (only with `sack`).
    pub sack_option_bytes: bool,
    /// See [`TcpConfig::ssthresh_from_pipe`] (only with `sack`).
    pub ssthresh_from_pipe: bool,
    /// ECN (RFC 3168), see [`TcpConfig::ecn`].
    pub ecn: bool,
    /// See [`TcpConfig::congestion_control`].
    pub cc: CongestionControl,
    /// See [`TcpConfig::ledbat_target_ms`].
    pub ledbat_target: Time,
    /// See [`TcpConfig::pin_isn`].
    pub pin_isn: Option<PinScheme>,
    /// See [`TcpConfig::restart_after_idle`].
    pub restart_after_idle: bool,
}

impl TcpConfig {
    /// Checks the values and converts them.
    pub fn params(&self) -> Result<TcpParams, String> {
        if self.mss == 0 {
            return Err("tcp.mss must be positive".into());
        }
        if self.initial_window == 0 {
            return Err("tcp.initial_window must be at least 1 segment".into());
        }
        if self.max_window == Some(0) {
            return Err("tcp.max_window must be at least 1 segment".into());
        }
        if self.send_buffer == Some(0) {
            return Err("tcp.send_buffer must be positive".into());
        }
        if self.dupack_threshold == 0 {
            return Err("tcp.dupack_threshold must be positive".into());
        }
        let ms = |name: &str, v: f64| -> Result<Time, String> {
            if v.is_finite() && v >= 0.0 {
                Ok(millis(v))
            } else {
                Err(format!(
                    "tcp.{name} must be a finite non-negative number, got {v}"
                ))
            }
        };
        let delayed_ack = match self.delayed_ack_ms {
            Some(v) => Some(ms("delayed_ack_ms", v)?),
            None => None,
        };
        let p = TcpParams {
            mss: self.mss as u64,
            header_bytes: self.header_bytes,
            initial_window: self.initial_window as u64 * self.mss as u64,
            max_window: self
                .max_window
                .map_or(u64::MAX, |w| w as u64 * self.mss as u64),
            send_buffer: self.send_buffer.unwrap_or(u64::MAX),
            handshake: self.handshake,
            delayed_ack,
            min_rto: ms("min_rto_ms", self.min_rto_ms)?,
            max_rto: ms("max_rto_ms", self.max_rto_ms)?,
            initial_rto: ms("initial_rto_ms", self.initial_rto_ms)?,
            granularity: ms("clock_granularity_ms", self.clock_granularity_ms)?,
            dupack_threshold: self.dupack_threshold,
            sack: self.sack,
            sack_option_bytes: self.sack && self.sack_option_bytes,
            ssthresh_from_pipe: self.sack && self.ssthresh_from_pipe,
            ecn: self.ecn,
            cc: self.congestion_control,
            ledbat_target: ms("ledbat_target_ms", self.ledbat_target_ms)?,
            pin_isn: self.pin_isn.map(|p| p.0),
            restart_after_idle: self.restart_after_idle,
        };
        if p.ledbat_target == 0 {
            return Err("tcp.ledbat_target_ms must be positive".into());
        }
        if p.max_rto < p.min_rto {
            return Err("tcp.max_rto_ms must be >= tcp.min_rto_ms".into());
        }
        if p.initial_rto == 0 {
            return Err("tcp.initial_rto_ms must be positive".into());
        }
        Ok(p)
    }
}
