//! A discipline named in a configuration file: `droptail`, `run` or `run2c:THRESHOLD_PACKETS`.

use crate::{Discipline, DropTail, Run, Run2c};
use std::fmt;
use std::str::FromStr;

/// Which discipline, as configuration files name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DisciplineSpec {
    /// FIFO dropping arrivals when full.
    DropTail,
    /// RuN: ascending running number, push-out of the largest.
    Run,
    /// RuN2C with the threshold in packets of the driver's segment size (the paper: 20).
    Run2c {
        /// Threshold in full-sized segments.
        threshold_packets: u32,
    },
}

/// Why a discipline name did not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown queue discipline {0:?}: expected \"droptail\", \"run\" or \"run2c:THRESHOLD_PACKETS\""
)]
pub struct SpecError(pub String);

impl FromStr for DisciplineSpec {
    type Err = SpecError;
    fn from_str(s: &str) -> Result<Self, SpecError> {
        let bad = || SpecError(s.to_string());
        match s.trim() {
            "droptail" => Ok(DisciplineSpec::DropTail),
            "run" => Ok(DisciplineSpec::Run),
            other => {
                let n = other.strip_prefix("run2c:").ok_or_else(bad)?;
                let threshold_packets = n.trim().parse().map_err(|_| bad())?;
                Ok(DisciplineSpec::Run2c { threshold_packets })
            }
        }
    }
}

impl fmt::Display for DisciplineSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DisciplineSpec::DropTail => f.write_str("droptail"),
            DisciplineSpec::Run => f.write_str("run"),
            DisciplineSpec::Run2c { threshold_packets } => write!(f, "run2c:{threshold_packets}"),
        }
    }
}

impl DisciplineSpec {
    /// The RuN2C threshold in bytes of running number for segments of `segment_bytes`
    /// payload (0 for the other disciplines).
    pub fn threshold_bytes(&self, segment_bytes: u32) -> u64 {
        match *self {
            DisciplineSpec::Run2c { threshold_packets } => {
                u64::from(threshold_packets) * u64::from(segment_bytes)
            }
            _ => 0,
        }
    }

    /// Builds the discipline with a buffer of `limit` packets; a RuN2C threshold of `n`
    /// packets is `n × segment_bytes` bytes of running number.
    pub fn build<T: 'static>(&self, limit: usize, segment_bytes: u32) -> Box<dyn Discipline<T>> {
        match *self {
            DisciplineSpec::DropTail => Box::new(DropTail::new(limit)),
            DisciplineSpec::Run => Box::new(Run::new(limit)),
            DisciplineSpec::Run2c { .. } => {
                Box::new(Run2c::new(limit, self.threshold_bytes(segment_bytes)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_back() {
        for s in ["droptail", "run", "run2c:20", "run2c:0"] {
            let d: DisciplineSpec = s.parse().unwrap();
            assert_eq!(d.to_string(), s);
        }
        assert_eq!(
            "run2c:20".parse::<DisciplineSpec>().unwrap(),
            DisciplineSpec::Run2c {
                threshold_packets: 20
            }
        );
        for bad in ["", "fifo", "run2c", "run2c:", "run2c:-1", "run2c:x", "RUN"] {
            assert!(bad.parse::<DisciplineSpec>().is_err(), "{bad}");
        }
    }

    #[test]
    fn built_run2c_threshold_is_in_segments() {
        let spec: DisciplineSpec = "run2c:2".parse().unwrap();
        let mut q = spec.build::<u32>(10, 1000);
        let mut d = Vec::new();
        let pk = |item, run| crate::Packet {
            item,
            flow: 0,
            size: 1040,
            run,
        };
        q.enqueue(pk(0, 2000), 0, &mut d); // third segment: low class
        q.enqueue(pk(1, 1000), 0, &mut d); // second segment: priority
        assert_eq!(q.dequeue(0).map(|p| p.item), Some(1));
    }
}
