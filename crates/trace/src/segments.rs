//! Data-segment sizes (paper 000, Section 5 (iii) and Figure 3): their distribution and the
//! share of full-sized segments.
//!
//! The MSS of a direction of a connection is taken as its largest data segment when at least
//! two of its segments have that size (a bulk sender cuts at its MSS and repeats that size; a
//! direction that sent one request does not say what its MSS is). A segment is full-sized
//! when its size is its direction's MSS. Directions whose MSS cannot be told this way count in
//! [`SegmentSizes::unknown_mss_segments`], never as full-sized.

use std::collections::BTreeMap;

/// Largest payload an IP length field can declare; the histogram has one bin per size.
pub const MAX_PAYLOAD: usize = 65535;

/// Per MSS value: the directions that used it and their segments.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MssRow {
    /// Connection directions with this MSS.
    pub directions: u64,
    /// Their data segments.
    pub segments: u64,
    /// Those of exactly the MSS.
    pub full: u64,
}

/// The distribution of data-segment sizes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentSizes {
    /// `counts[s]`: data segments of `s` payload bytes (`1 ≤ s ≤ MAX_PAYLOAD`).
    pub counts: Vec<u64>,
    /// Per MSS seen.
    pub by_mss: BTreeMap<u32, MssRow>,
    /// Segments of directions whose MSS could not be told.
    pub unknown_mss_segments: u64,
}

impl Default for SegmentSizes {
    fn default() -> Self {
        Self {
            counts: vec![0; MAX_PAYLOAD + 1],
            by_mss: BTreeMap::new(),
            unknown_mss_segments: 0,
        }
    }
}

/// What a direction of a connection tells about its segment sizes (kept per direction while
/// the connection lives).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DirectionSizes {
    /// Data segments.
    pub segments: u64,
    /// Largest data segment.
    pub largest: u32,
    /// Segments of exactly `largest` bytes.
    pub at_largest: u64,
}

impl DirectionSizes {
    /// One data segment of `len` bytes.
    pub fn add(&mut self, len: u32) {
        self.segments += 1;
        if len > self.largest {
            self.largest = len;
            self.at_largest = 1;
        } else if len == self.largest {
            self.at_largest += 1;
        }
    }
}

impl SegmentSizes {
    /// One data segment of `len` bytes (into the histogram).
    pub fn add(&mut self, len: u32) {
        self.counts[(len as usize).min(MAX_PAYLOAD)] += 1;
    }

    /// A direction of a connection ended.
    pub fn direction(&mut self, d: &DirectionSizes) {
        if d.segments == 0 {
            return;
        }
        if d.at_largest >= 2 {
            let row = self.by_mss.entry(d.largest).or_default();
            row.directions += 1;
            row.segments += d.segments;
            row.full += d.at_largest;
        } else {
            self.unknown_mss_segments += d.segments;
        }
    }

    /// All data segments.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Full-sized segments (over every MSS).
    pub fn full(&self) -> u64 {
        self.by_mss.values().map(|r| r.full).sum()
    }

    /// The CDF at every size that occurs: `(size, P(S ≤ size))`.
    pub fn cdf(&self) -> Vec<(u32, f64)> {
        let total = self.total() as f64;
        let mut acc = 0u64;
        let mut out = Vec::new();
        for (s, c) in self.counts.iter().enumerate() {
            if *c > 0 {
                acc += c;
                out.push((s as u32, acc as f64 / total));
            }
        }
        out
    }

    /// Adds another capture's (or window's) sizes.
    pub fn merge(&mut self, o: &SegmentSizes) {
        for (a, b) in self.counts.iter_mut().zip(&o.counts) {
            *a += b;
        }
        for (m, r) in &o.by_mss {
            let row = self.by_mss.entry(*m).or_default();
            row.directions += r.directions;
            row.segments += r.segments;
            row.full += r.full;
        }
        self.unknown_mss_segments += o.unknown_mss_segments;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_sized_needs_the_largest_size_twice() {
        let mut s = SegmentSizes::default();
        let mut bulk = DirectionSizes::default();
        for len in [1448, 1448, 1448, 600] {
            bulk.add(len);
            s.add(len);
        }
        let mut request = DirectionSizes::default();
        request.add(300);
        s.add(300);
        s.direction(&bulk);
        s.direction(&request);
        assert_eq!(s.total(), 5);
        assert_eq!(s.full(), 3);
        assert_eq!(s.unknown_mss_segments, 1);
        assert_eq!(
            s.by_mss[&1448],
            MssRow {
                directions: 1,
                segments: 4,
                full: 3
            }
        );
        assert_eq!(s.cdf(), vec![(300, 0.2), (600, 0.4), (1448, 1.0)]);
    }
}
