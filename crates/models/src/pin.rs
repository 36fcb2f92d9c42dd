//! How often a connection runs over into the next possible initial number (PIN) of paper 003's
//! stateless classifier (Section III-A).
//!
//! A sender following the scheme picks its initial sequence number among PINs spaced
//! `2^(L+TH)` bytes apart; a router gives priority to the first `th = 2^TH` bytes of each PIN
//! block by a mask. A connection that sends more than `2^(L+TH)` bytes runs over into the next
//! block, whose first `th` bytes the mask classifies as priority again: packets of a long flow
//! jump ahead of the flow's earlier packets, which may cost a loss (reordering that triggers a
//! fast retransmit, or a drop). The paper bounds this "at the worst case" by one loss per
//! overflow, i.e. per `2^(L+TH) / MSS` packets: with `TH = 14`, `L = 8` that is `2^22 ≈ 4 MB`,
//! "2800 packets", and a loss probability of `3.6 · 10⁻⁴` (= 1/2800; with MSS = 1460 the ratio
//! is 1460 / 2^22 = 3.48 · 10⁻⁴, the paper rounds 2873 packets to 2800).
//!
//! The worst case is a connection that never ends. For a flow-size distribution the overflows
//! per packet are fewer: a flow of `s` bytes crosses `⌊s / 2^(L+TH)⌋` block boundaries (give
//! or take one, by where in its block the ISN starts), so the mean number of overflows per
//! flow is `Σ_{k ≥ 1} P(S ≥ k · 2^(L+TH))`, and per packet that divided by the mean packets
//! per flow.

use crate::dist::SizeDist;
use crate::error::{self, ModelError, Result};

/// Bytes between two PINs: `2^(L+TH)`.
pub fn block_bytes(l_bits: u32, th_bits: u32) -> Result<f64> {
    if l_bits == 0 || l_bits + th_bits > 32 {
        return Err(ModelError::InvalidParameter {
            name: "l_bits + th_bits",
            value: f64::from(l_bits) + f64::from(th_bits),
            reason: "L must be at least 1 and L + TH at most 32",
        });
    }
    Ok(2f64.powi((l_bits + th_bits) as i32))
}

/// The paper's worst case (Section III-A): one loss per overflow, an overflow every
/// `2^(L+TH)` bytes, i.e. a loss probability per packet of `mss / 2^(L+TH)`.
pub fn worst_case_loss(l_bits: u32, th_bits: u32, mss: f64) -> Result<f64> {
    error::positive("mss", mss)?;
    Ok(mss / block_bytes(l_bits, th_bits)?)
}

/// Mean number of PIN overflows per flow, `Σ_{k ≥ 1} P(S ≥ k · block)`, for flow sizes
/// `sizes` and the PIN block ([`block_bytes`]) in one unit (bytes, or packets of MSS bytes).
/// The sum stops when the tail is below `1e-15` of a flow or past the distribution's upper
/// bound; an unbounded distribution whose tail is still above that after a million blocks is
/// refused.
pub fn overflows_per_flow(sizes: &SizeDist, block: f64) -> Result<f64> {
    let b = error::positive("block", block)?;
    sizes.mean()?;
    let mut sum = 0.0;
    for k in 1..=1_000_000u32 {
        let x = f64::from(k) * b;
        if sizes.upper_bound().is_some_and(|u| x > u) {
            return Ok(sum);
        }
        let p = sizes.sf(x);
        if p < 1e-15 {
            return Ok(sum);
        }
        sum += p;
    }
    Err(ModelError::NoConvergence {
        method: "PIN overflow tail sum",
        iterations: 1_000_000,
        residual: sizes.sf(1e6 * b),
        tolerance: 1e-15,
    })
}

/// Mean PIN overflows per packet: [`overflows_per_flow`] over the mean packets per flow
/// (`E[S] / packet`), sizes, block and packet in one unit.
pub fn overflows_per_packet(sizes: &SizeDist, block: f64, packet: f64) -> Result<f64> {
    error::positive("packet", packet)?;
    Ok(overflows_per_flow(sizes, block)? / (sizes.mean()? / packet))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_papers_estimate() {
        assert_eq!(block_bytes(8, 14).unwrap(), 4_194_304.0);
        let p = worst_case_loss(8, 14, 1460.0).unwrap();
        assert!((p - 3.48e-4).abs() < 0.01e-4, "{p}");
        // The paper's 2800 packets per overflow give its 3.6e-4.
        assert!((1.0f64 / 2800.0 - 3.6e-4).abs() < 0.05e-4);
        assert!(block_bytes(0, 14).is_err());
        assert!(block_bytes(8, 25).is_err());
        assert!(worst_case_loss(8, 14, 0.0).is_err());
    }

    /// A flow of exactly n blocks (and a bit) overflows n times; a flow shorter than a block,
    /// never.
    #[test]
    fn overflows_count_whole_blocks() {
        let b = block_bytes(2, 10).unwrap(); // 4096 bytes
        let short = SizeDist::bounded_pareto(100.0, 4000.0, 1.2).unwrap();
        assert_eq!(overflows_per_flow(&short, b).unwrap(), 0.0);
        assert!(overflows_per_flow(&short, 0.0).is_err());
        // Exponential: Σ e^{-k b / m} = 1 / (e^{b/m} − 1).
        let m = 3.0 * b;
        let e = SizeDist::exponential(m).unwrap();
        let want = 1.0 / ((b / m).exp() - 1.0);
        let got = overflows_per_flow(&e, b).unwrap();
        assert!((got - want).abs() < 1e-9, "{got} vs {want}");
        // Per packet: fewer than the worst case (every packet of an endless flow).
        let per_packet = overflows_per_packet(&e, b, 1000.0).unwrap();
        assert!(per_packet < worst_case_loss(2, 10, 1000.0).unwrap());
        assert!((per_packet - got / (m / 1000.0)).abs() < 1e-12);
    }
}
