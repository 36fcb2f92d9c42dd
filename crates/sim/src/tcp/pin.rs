//! Initial sequence numbers for paper 003's stateless classifier (Section III): senders that
//! pick their ISN among the possible initial numbers (PINs), so that a router classifies a
//! packet by a mask on its sequence number ([`queues::PinScheme`]).

use queues::PinScheme;
use serde::{Deserialize, Serialize};

/// A [`PinScheme`] as scenario files spell it: `{ r = 10, l = 8, th = 14, low_random = 10 }`
/// (R random, L zero and TH threshold bits, R + L + TH = 32, and the random low bits of the
/// ISN). Checked when read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "PinBits", into = "PinBits")]
pub struct Pin(pub PinScheme);

/// The fields of [`Pin`] in a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PinBits {
    /// Random high bits.
    pub r: u32,
    /// Zero bits between the random ones and the threshold bits.
    pub l: u32,
    /// Threshold bits: th = 2^TH bytes.
    pub th: u32,
    /// Random low bits of the ISN (the paper suggests log2 MSS; 0 makes the priority bytes of
    /// every connection exactly 2^TH).
    pub low_random: u32,
}

impl TryFrom<PinBits> for Pin {
    type Error = queues::classifier::SchemeError;
    fn try_from(b: PinBits) -> Result<Self, Self::Error> {
        PinScheme::new(b.r, b.l, b.th, b.low_random).map(Pin)
    }
}

impl From<Pin> for PinBits {
    fn from(p: Pin) -> PinBits {
        let (r, l, th, low_random) = p.0.bits();
        PinBits {
            r,
            l,
            th,
            low_random,
        }
    }
}

/// The initial sequence number of connection `serial`: 0 without a scheme (sequence numbers
/// start at 0, as ns-2's), else the scheme's ISN ([`PinScheme::isn`]) from 32 bits drawn for
/// the connection. The draw is a fixed mixing function of the serial (SplitMix64), not the
/// simulation's random stream: a run's flows do not change when its senders pick PIN ISNs, and
/// two runs that differ only in how the router classifies see the same numbers. A real sender
/// draws from its kernel's random source (paper 003, footnote 4).
#[inline]
pub fn pin_isn(scheme: Option<PinScheme>, serial: u32) -> u32 {
    match scheme {
        None => 0,
        Some(s) => {
            let mut z = u64::from(serial).wrapping_add(0x9e37_79b9_7f4a_7c15);
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            s.isn((z ^ (z >> 31)) as u32)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use queues::PinClass;

    #[test]
    fn bits_are_checked_when_read() {
        #[derive(Deserialize)]
        struct H {
            p: Pin,
        }
        let h: H = toml::from_str("p = { r = 10, l = 8, th = 14, low_random = 10 }").unwrap();
        assert_eq!(h.p.0, PinScheme::paper());
        let bad = toml::from_str::<H>("p = { r = 10, l = 8, th = 13, low_random = 0 }");
        assert!(bad.is_err());
        let bad = toml::from_str::<H>("p = { r = 10, l = 8, th = 14 }");
        assert!(bad.is_err(), "every field is required");
    }

    #[test]
    fn isns_follow_the_scheme_and_differ_between_connections() {
        assert_eq!(pin_isn(None, 7), 0);
        let s = PinScheme::paper();
        let isns: Vec<u32> = (0..1000).map(|i| pin_isn(Some(s), i)).collect();
        assert!(isns.iter().all(|&i| s.is_valid_isn(i)));
        assert!(isns.iter().all(|&i| s.classify(i) == PinClass::Priority));
        let mut distinct = isns.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert!(distinct.len() > 990, "{} distinct of 1000", distinct.len());
        assert_eq!(pin_isn(Some(s), 3), isns[3], "a function of the serial");
    }
}
