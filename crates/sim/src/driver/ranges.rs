//! Sets of disjoint byte ranges, for the payload bookkeeping of the gtcp drivers.

use std::collections::BTreeMap;

/// A set of bytes kept as disjoint, non-adjacent half-open ranges `[start, end)`.
///
/// Flows are mostly handled in order, so a set usually holds one or two ranges and every
/// operation is a couple of B-tree lookups.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RangeSet {
    /// start → end.
    map: BTreeMap<u64, u64>,
    total: u64,
}

impl RangeSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of bytes in the set.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The lowest range, if any.
    pub fn first(&self) -> Option<(u64, u64)> {
        self.map.first_key_value().map(|(&s, &e)| (s, e))
    }

    /// Whether `[0, end)` is entirely in the set.
    pub fn covers_prefix(&self, end: u64) -> bool {
        end == 0 || self.first().is_some_and(|(s, e)| s == 0 && e >= end)
    }

    /// Adds `[start, end)`; returns how many bytes were new.
    pub fn insert(&mut self, mut start: u64, mut end: u64) -> u64 {
        if start >= end {
            return 0;
        }
        let mut removed = 0;
        // A range starting at or before `start` that touches it?
        if let Some((&s, &e)) = self.map.range(..=start).next_back() {
            if e >= start {
                if e >= end {
                    return 0;
                }
                start = s;
                removed += e - s;
                self.map.remove(&s);
            }
        }
        // Ranges starting inside (start, end] merge in.
        while let Some((&s, &e)) = self.map.range(start..=end).next() {
            removed += e - s;
            end = end.max(e);
            self.map.remove(&s);
        }
        self.map.insert(start, end);
        let added = (end - start) - removed;
        self.total += added;
        added
    }

    /// Removes `[start, end)`; returns how many bytes were removed.
    pub fn remove(&mut self, start: u64, end: u64) -> u64 {
        if start >= end {
            return 0;
        }
        let mut removed = 0;
        // The range that may straddle `start`.
        if let Some((&s, &e)) = self.map.range(..start).next_back() {
            if e > start {
                self.map.insert(s, start);
                if e > end {
                    self.map.insert(end, e);
                    removed += end - start;
                    self.total -= removed;
                    return removed;
                }
                removed += e - start;
            }
        }
        while let Some((&s, &e)) = self.map.range(start..end).next() {
            self.map.remove(&s);
            if e > end {
                self.map.insert(end, e);
                removed += end - s;
                break;
            }
            removed += e - s;
        }
        self.total -= removed;
        removed
    }

    /// The parts of `[start, end)` that are *not* in the set, in order.
    pub fn gaps(&self, start: u64, end: u64, mut f: impl FnMut(u64, u64)) {
        let mut at = start;
        if let Some((_, &e)) = self.map.range(..=start).next_back() {
            at = at.max(e);
        }
        for (&s, &e) in self.map.range(start..end) {
            if s > at {
                f(at, s);
            }
            at = at.max(e);
        }
        if at < end {
            f(at, end);
        }
    }

    /// Removes and returns up to `max` bytes from the start of the lowest range.
    pub fn take_first(&mut self, max: u64) -> Option<(u64, u64)> {
        let (s, e) = self.first()?;
        let n = (e - s).min(max);
        self.map.remove(&s);
        if s + n < e {
            self.map.insert(s + n, e);
        }
        self.total -= n;
        Some((s, s + n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(r: &RangeSet) -> Vec<(u64, u64)> {
        r.map.iter().map(|(&s, &e)| (s, e)).collect()
    }

    #[test]
    fn insert_merges_and_counts() {
        let mut r = RangeSet::new();
        assert_eq!(r.insert(10, 20), 10);
        assert_eq!(r.insert(30, 40), 10);
        assert_eq!(r.insert(15, 35), 10);
        assert_eq!(v(&r), vec![(10, 40)]);
        assert_eq!(r.insert(40, 41), 1);
        assert_eq!(r.insert(0, 5), 5);
        assert_eq!(r.insert(12, 13), 0);
        assert_eq!(v(&r), vec![(0, 5), (10, 41)]);
        assert_eq!(r.total(), 36);
        assert!(!r.covers_prefix(6));
        assert_eq!(r.insert(5, 10), 5);
        assert!(r.covers_prefix(41));
    }

    #[test]
    fn remove_splits() {
        let mut r = RangeSet::new();
        r.insert(0, 100);
        assert_eq!(r.remove(10, 20), 10);
        assert_eq!(r.remove(15, 30), 10);
        assert_eq!(v(&r), vec![(0, 10), (30, 100)]);
        assert_eq!(r.remove(0, 200), 80);
        assert!(r.is_empty());
        assert_eq!(r.total(), 0);
    }

    #[test]
    fn gaps_and_take() {
        let mut r = RangeSet::new();
        r.insert(10, 20);
        r.insert(30, 40);
        let mut g = vec![];
        r.gaps(5, 35, |a, b| g.push((a, b)));
        assert_eq!(g, vec![(5, 10), (20, 30)]);
        let mut g = vec![];
        r.gaps(12, 18, |a, b| g.push((a, b)));
        assert!(g.is_empty());
        assert_eq!(r.take_first(4), Some((10, 14)));
        assert_eq!(r.take_first(100), Some((14, 20)));
        assert_eq!(r.total(), 10);
    }
}
