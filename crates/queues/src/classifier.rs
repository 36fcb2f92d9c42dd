//! The stateless classifier of paper 003, Section III (Figure 3).
//!
//! A 32-bit TCP sequence number is split, from the most significant bit, into R random bits,
//! L bits and TH bits (R + L + TH = 32). A sender following the scheme picks its initial
//! sequence number (ISN) among the possible initial numbers PIN_i: the R high bits random, the
//! L and TH bits zero — except the lowest `low_random_bits` (the paper suggests log2 MSS ≈ 10),
//! which may also be random because the byte space of 2^TH holds about 2^TH / MSS segments.
//! While fewer than th = 2^TH bytes of the connection are sent, the L bits stay zero: the packet
//! is in the priority class. A router decides the class with one mask on the sequence number,
//! keeping no per-flow state.
//!
//! Documented limit (Section III-A): after 2^(L+TH) bytes the sequence number runs over into
//! the next PIN, its L bits are zero again, and the connection's packets are classified as
//! priority once more (for 2^TH bytes, and again after every further 2^(L+TH) bytes). With the
//! paper's L = 8, TH = 14 that is every 2^22 bytes ≈ 4 MB.
//!
//! The paper's sentence "when the sequence number belongs to the low priority range the L
//! intermediate bits will be equal to 0" has the condition reversed: in `[PIN_i, PIN_i + th)`
//! the L bits are zero (priority), in `[PIN_i + th, PIN_{i+1})` they are not. We follow the
//! ranges the paper defines just before (and Figure 3).

/// Class of a packet under the scheme.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PinClass {
    /// Running number below th = 2^TH (the L bits are zero): served first.
    Priority,
    /// Past the threshold.
    Low,
}

/// Why a [`PinScheme`] is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SchemeError {
    /// R + L + TH must be 32, with L ≥ 1 (else no bit tells the classes apart).
    #[error("R + L + TH must be 32 with L >= 1 (got R={r}, L={l}, TH={th})")]
    Widths {
        /// Random bits.
        r: u32,
        /// Zero bits.
        l: u32,
        /// Threshold bits.
        th: u32,
    },
    /// The low random bits must fit inside the TH bits, leaving room for some data.
    #[error("low random bits ({low}) must be below TH ({th})")]
    LowRandom {
        /// Low random bits asked for.
        low: u32,
        /// TH.
        th: u32,
    },
}

/// The division of the sequence number space (Figure 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PinScheme {
    r: u32,
    l: u32,
    th: u32,
    low_random: u32,
}

impl PinScheme {
    /// A scheme with `r` random, `l` zero and `th` threshold bits (`r + l + th = 32`, `l ≥ 1`)
    /// and `low_random` random least significant bits in the ISN (`low_random < th`).
    pub fn new(r: u32, l: u32, th: u32, low_random: u32) -> Result<Self, SchemeError> {
        if l == 0 || r.checked_add(l).and_then(|x| x.checked_add(th)) != Some(32) {
            return Err(SchemeError::Widths { r, l, th });
        }
        if low_random >= th {
            return Err(SchemeError::LowRandom {
                low: low_random,
                th,
            });
        }
        Ok(PinScheme {
            r,
            l,
            th,
            low_random,
        })
    }

    /// The paper's example (Section III-A): TH = 14 (th = 16 KiB, ≈ 12 kB asked for),
    /// L = 8, R = 10, and log2 1460 ≈ 10 low random bits: 2^20 possible ISNs.
    pub fn paper() -> Self {
        PinScheme {
            r: 10,
            l: 8,
            th: 14,
            low_random: 10,
        }
    }

    /// The threshold th = 2^TH in bytes.
    pub fn threshold_bytes(&self) -> u64 {
        1 << self.th
    }

    /// Bytes after which a connection's sequence numbers run over into the next PIN:
    /// 2^(L+TH).
    pub fn overflow_bytes(&self) -> u64 {
        1 << (self.l + self.th)
    }

    /// Number of distinct ISNs the scheme allows: 2^(R + low random bits).
    pub fn isn_choices(&self) -> u64 {
        1 << (self.r + self.low_random)
    }

    /// The widths `(R, L, TH, low random bits)`.
    pub fn bits(&self) -> (u32, u32, u32, u32) {
        (self.r, self.l, self.th, self.low_random)
    }

    /// The running number a stateless router reads from a sequence number: its offset inside
    /// its PIN block, `seq mod 2^(L+TH)`. Below [`PinScheme::threshold_bytes`] exactly when
    /// [`PinScheme::classify`] says [`PinClass::Priority`], so a RuN2C queue with threshold
    /// 2^TH fed these numbers classifies by the mask.
    #[inline]
    pub fn running_number(&self, seq: u32) -> u64 {
        u64::from(seq) & (self.overflow_bytes() - 1)
    }

    /// Mask of the L bits.
    fn l_mask(&self) -> u32 {
        (((1u64 << self.l) - 1) << self.th) as u32
    }

    /// Classifies a packet by its sequence number alone (a mask on the L bits).
    #[inline]
    pub fn classify(&self, seq: u32) -> PinClass {
        if seq & self.l_mask() == 0 {
            PinClass::Priority
        } else {
            PinClass::Low
        }
    }

    /// An ISN following the scheme from 32 random bits (supplied by the caller, who owns the
    /// random source: use a cryptographic one, footnote 4): the R high bits and the
    /// `low_random` low bits of `random` are kept, the others cleared.
    pub fn isn(&self, random: u32) -> u32 {
        let high = if self.r == 0 {
            0
        } else {
            (((1u64 << self.r) - 1) << (self.l + self.th)) as u32
        };
        let low = ((1u64 << self.low_random) - 1) as u32;
        random & (high | low)
    }

    /// Whether `isn` is one the scheme can produce.
    pub fn is_valid_isn(&self, isn: u32) -> bool {
        self.isn(isn) == isn
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_are_checked() {
        assert!(PinScheme::new(10, 8, 14, 10).is_ok());
        assert!(matches!(
            PinScheme::new(10, 8, 13, 0),
            Err(SchemeError::Widths { .. })
        ));
        assert!(matches!(
            PinScheme::new(18, 0, 14, 0),
            Err(SchemeError::Widths { .. })
        ));
        assert!(matches!(
            PinScheme::new(10, 8, 14, 14),
            Err(SchemeError::LowRandom { .. })
        ));
        assert!(PinScheme::new(u32::MAX, 8, 14, 0).is_err());
    }

    #[test]
    fn paper_numbers() {
        let s = PinScheme::paper();
        assert_eq!(s, PinScheme::new(10, 8, 14, 10).unwrap());
        assert_eq!(s.threshold_bytes(), 16_384); // ≥ the 12 kB Section III-A asks for
        assert_eq!(s.overflow_bytes(), 4_194_304); // "2^22 ≈ 4 Mbytes"
        assert_eq!(s.isn_choices(), 1 << 20); // "1 million random values"
    }

    #[test]
    fn generated_isns_have_zero_l_bits_and_keep_the_random_ones() {
        let s = PinScheme::paper();
        for random in [
            0u32,
            u32::MAX,
            0xdead_beef,
            0x0040_0000,
            0x0000_03ff,
            0x003f_fc00,
        ] {
            let isn = s.isn(random);
            assert!(s.is_valid_isn(isn));
            assert_eq!(isn & 0x003f_fc00, 0, "L and high TH bits zero: {isn:#x}");
            assert_eq!(isn & 0xffc0_0000, random & 0xffc0_0000, "R bits random");
            assert_eq!(isn & 0x3ff, random & 0x3ff, "low bits random");
            assert_eq!(s.classify(isn), PinClass::Priority);
        }
        assert!(!s.is_valid_isn(0x0000_4000)); // an L bit set
        assert!(!s.is_valid_isn(0x0000_0400)); // a high TH bit set
    }

    /// Every region of the number space, from an ISN at the start of its PIN, one with the
    /// low random bits all set, and the last PIN (where the 32-bit space wraps).
    #[test]
    fn every_region_of_the_number_space() {
        let s = PinScheme::paper();
        let th = s.threshold_bytes() as u32;
        let over = s.overflow_bytes() as u32;
        for isn in [s.isn(0x1240_0000), s.isn(0x1240_03ff), s.isn(u32::MAX)] {
            let low = isn & 0x3ff; // offset of the ISN inside its PIN
            let at = |offset: u32| s.classify(isn.wrapping_add(offset));
            // [PIN, PIN + th): priority.
            assert_eq!(at(0), PinClass::Priority);
            assert_eq!(at(th - 1 - low), PinClass::Priority);
            // [PIN + th, PIN_next): low.
            assert_eq!(at(th - low), PinClass::Low);
            assert_eq!(at(over / 2), PinClass::Low);
            assert_eq!(at(over - 1 - low), PinClass::Low);
            // Overflow into the next PIN after 2^(L+TH) bytes: priority again for th bytes.
            assert_eq!(at(over - low), PinClass::Priority);
            assert_eq!(at(over + th - 1 - low), PinClass::Priority);
            assert_eq!(at(over + th - low), PinClass::Low);
        }
    }

    #[test]
    fn running_number_agrees_with_the_mask() {
        for s in [PinScheme::paper(), PinScheme::new(9, 8, 15, 0).unwrap()] {
            let th = s.threshold_bytes();
            let isn = s.isn(0xa5a5_a5a5);
            for off in (0..3 * s.overflow_bytes()).step_by(997) {
                let seq = isn.wrapping_add(off as u32);
                let priority = s.running_number(seq) < th;
                assert_eq!(priority, s.classify(seq) == PinClass::Priority, "{off}");
            }
        }
        assert_eq!(PinScheme::paper().bits(), (10, 8, 14, 10));
    }

    #[test]
    fn narrow_schemes_at_the_edges() {
        // No random high bits: a single PIN, every ISN has the top bits zero.
        let s = PinScheme::new(0, 4, 28, 0).unwrap();
        assert_eq!(s.isn(u32::MAX), 0);
        assert_eq!(s.classify((1 << 28) - 1), PinClass::Priority);
        assert_eq!(s.classify(1 << 28), PinClass::Low);
        assert_eq!(s.classify(u32::MAX), PinClass::Low);
        // One L bit, TH = 1: priority for 2 bytes out of 4.
        let s = PinScheme::new(30, 1, 1, 0).unwrap();
        let classes: Vec<_> = (0..5u32).map(|x| s.classify(x)).collect();
        use PinClass::*;
        assert_eq!(classes, vec![Priority, Priority, Low, Low, Priority]);
    }
}
