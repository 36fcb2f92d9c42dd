//! The output link of the router, sans-IO: a queue discipline in front of a transmitter of a
//! given rate, then a constant one-way propagation delay.
//!
//! Time is the driver's (`now`, nanoseconds since the router started) and only moves forward;
//! a `now` older than one already seen is taken as the latest seen. The link keeps exact
//! virtual time: a packet starts transmission when the transmitter is free (never before it
//! arrived), takes `size / rate` to transmit (store and forward), and is released `delay`
//! after its last bit left. Which packet is transmitted next is decided at the instant the
//! transmitter becomes free, among the packets that had arrived by then, because every offer
//! first serves everything whose transmission started before the offer.

use std::collections::VecDeque;

use queues::{Discipline, DisciplineSpec, DropTail, Nanos, Packet, Run, Run2c};

/// Bound of the delay line (packets that left the transmitter and are still propagating):
/// 65 536 packets (about 95 MB of full-size packets, 1 s at 760 Mbit/s). A packet that would
/// exceed it is dropped and counted in [`LinkStats::delay_line_drops`]; with a rate set, the
/// line holds at most rate × delay, so this bound is only met by unshaped links with long
/// delays.
pub const DELAY_LINE_LIMIT: usize = 1 << 16;

/// What the link does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkConfig {
    /// Transmitter rate in bytes per second; 0: no rate limit (packets are only delayed).
    pub rate_bytes_per_s: u64,
    /// One-way propagation delay added after transmission, nanoseconds.
    pub delay: Nanos,
    /// Buffer of the queue discipline, packets.
    pub buffer_packets: usize,
    /// Queue discipline.
    pub discipline: DisciplineSpec,
    /// RuN2C threshold in bytes of running number (ignored by the other disciplines).
    pub threshold_bytes: u64,
    /// Bound of the delay line, packets ([`DELAY_LINE_LIMIT`] by default).
    pub delay_line_limit: usize,
}

/// Counters of a link.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LinkStats {
    /// Packets offered.
    pub offered: u64,
    /// Packets dropped or pushed out by the discipline.
    pub queue_drops: u64,
    /// Packets dropped because the delay line was full.
    pub delay_line_drops: u64,
    /// Packets released (handed back to forward).
    pub released: u64,
    /// Wire bytes released.
    pub released_bytes: u64,
}

/// The output link: discipline, transmitter, delay line.
pub struct Link<T> {
    cfg: LinkConfig,
    queue: Box<dyn Discipline<T>>,
    /// When the transmitter finishes the packet it holds (in the past when idle).
    free_at: Nanos,
    /// Latest `now` seen.
    clock: Nanos,
    /// Packets propagating, with their release times (non-decreasing).
    line: VecDeque<(Nanos, T)>,
    dropped: Vec<Packet<T>>,
    stats: LinkStats,
}

impl<T: 'static> Link<T> {
    /// An idle link.
    pub fn new(cfg: LinkConfig) -> Self {
        let queue: Box<dyn Discipline<T>> = match cfg.discipline {
            DisciplineSpec::DropTail => Box::new(DropTail::new(cfg.buffer_packets)),
            DisciplineSpec::Run => Box::new(Run::new(cfg.buffer_packets)),
            DisciplineSpec::Run2c { .. } => {
                Box::new(Run2c::new(cfg.buffer_packets, cfg.threshold_bytes))
            }
        };
        Link {
            cfg,
            queue,
            free_at: 0,
            clock: 0,
            line: VecDeque::new(),
            dropped: Vec::new(),
            stats: LinkStats::default(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &LinkConfig {
        &self.cfg
    }

    /// Counters so far.
    pub fn stats(&self) -> LinkStats {
        self.stats
    }

    /// Packets waiting in the queue (not yet transmitted).
    pub fn queued_packets(&self) -> usize {
        self.queue.len_packets()
    }

    /// Packets propagating on the delay line.
    pub fn in_flight_packets(&self) -> usize {
        self.line.len()
    }

    /// Transmission time of `size` bytes.
    fn tx_time(&self, size: u32) -> Nanos {
        if self.cfg.rate_bytes_per_s == 0 {
            return 0;
        }
        let ns = u128::from(size) * 1_000_000_000u128 / u128::from(self.cfg.rate_bytes_per_s);
        u64::try_from(ns).unwrap_or(u64::MAX)
    }

    fn tick(&mut self, now: Nanos) -> Nanos {
        self.clock = self.clock.max(now);
        self.clock
    }

    /// Transmits every packet whose transmission starts at or before `now`.
    fn serve(&mut self, now: Nanos) {
        while self.free_at <= now {
            let start = self.free_at;
            let Some(p) = self.queue.dequeue(start) else {
                break;
            };
            let finish = start.saturating_add(self.tx_time(p.size));
            self.free_at = finish;
            if self.line.len() >= self.cfg.delay_line_limit {
                self.stats.delay_line_drops += 1;
                continue;
            }
            self.line
                .push_back((finish.saturating_add(self.cfg.delay), p.item));
            self.stats.released_bytes += u64::from(p.size);
        }
    }

    /// Offers `pkt` arriving at `now`; the packets the discipline drops (the arrival, or a
    /// stored one pushed out) are appended to `dropped`.
    pub fn offer(&mut self, now: Nanos, pkt: Packet<T>, dropped: &mut Vec<Packet<T>>) {
        let now = self.tick(now);
        self.serve(now);
        if self.queue.is_empty() && self.free_at < now {
            self.free_at = now;
        }
        self.stats.offered += 1;
        let before = self.dropped.len();
        self.queue.enqueue(pkt, now, &mut self.dropped);
        self.stats.queue_drops += (self.dropped.len() - before) as u64;
        dropped.append(&mut self.dropped);
        self.serve(now);
    }

    /// The next packet whose release time has come by `now`, if any.
    pub fn poll(&mut self, now: Nanos) -> Option<T> {
        let now = self.tick(now);
        self.serve(now);
        match self.line.front() {
            Some(&(at, _)) if at <= now => {
                self.stats.released += 1;
                self.line.pop_front().map(|(_, item)| item)
            }
            _ => None,
        }
    }

    /// When [`Link::poll`] may next release a packet: the next release on the delay line, or
    /// the earliest a queued packet can be released (the next transmission start plus the
    /// delay), whichever is first; `None` when the link is empty. A lower bound: a poll then
    /// may return nothing, and the driver asks again.
    pub fn next_wakeup(&self) -> Option<Nanos> {
        let release = self.line.front().map(|&(at, _)| at);
        let start = (!self.queue.is_empty()).then(|| self.free_at.saturating_add(self.cfg.delay));
        match (release, start) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Nanos = 1_000_000;

    fn cfg(rate: u64, delay: Nanos, buffer: usize, discipline: DisciplineSpec) -> LinkConfig {
        LinkConfig {
            rate_bytes_per_s: rate,
            delay,
            buffer_packets: buffer,
            discipline,
            threshold_bytes: 3000,
            delay_line_limit: DELAY_LINE_LIMIT,
        }
    }

    fn pk(item: u32, run: u64) -> Packet<u32> {
        Packet {
            item,
            flow: u64::from(item),
            size: 1000,
            run,
        }
    }

    /// Steps time by `step` until `until`, recording (release time, item).
    fn drain(link: &mut Link<u32>, from: Nanos, until: Nanos, step: Nanos) -> Vec<(Nanos, u32)> {
        replay(link, &[], from, until, step)
    }

    /// Steps time by `step` from `from` until `until`, offering each of `arrivals` (time,
    /// packet; in time order) when its time comes and recording (release time, item).
    fn replay(
        link: &mut Link<u32>,
        arrivals: &[(Nanos, Packet<u32>)],
        from: Nanos,
        until: Nanos,
        step: Nanos,
    ) -> Vec<(Nanos, u32)> {
        let mut out = Vec::new();
        let mut next = arrivals.iter().peekable();
        let mut dropped = Vec::new();
        let mut t = from;
        while t <= until {
            while let Some(&&(at, p)) = next.peek() {
                if at > t {
                    break;
                }
                link.offer(at, p, &mut dropped);
                next.next();
            }
            while let Some(i) = link.poll(t) {
                out.push((t, i));
            }
            t += step;
        }
        out
    }

    #[test]
    fn rate_and_delay_are_exact_on_a_burst() {
        // 1 MB/s: 1000 B take 1 ms; delay 10 ms.
        let mut l = Link::new(cfg(1_000_000, 10 * MS, 100, DisciplineSpec::DropTail));
        let mut d = Vec::new();
        for i in 0..5 {
            l.offer(0, pk(i, 0), &mut d);
        }
        assert!(d.is_empty());
        assert_eq!(l.next_wakeup(), Some(11 * MS));
        assert_eq!(l.poll(11 * MS - 1), None);
        let got = drain(&mut l, 0, 20 * MS, MS / 4);
        let want: Vec<(Nanos, u32)> = (0..5).map(|i| ((11 + i as u64) * MS, i)).collect();
        assert_eq!(got, want);
        assert_eq!(l.next_wakeup(), None);
        let s = l.stats();
        assert_eq!((s.offered, s.released, s.released_bytes), (5, 5, 5000));
    }

    #[test]
    fn idle_link_starts_at_arrival_not_at_the_last_finish() {
        let mut l = Link::new(cfg(1_000_000, 2 * MS, 10, DisciplineSpec::DropTail));
        let arrivals = [(0, pk(0, 0)), (50 * MS, pk(1, 0))];
        // The first left at 1 ms + 2 ms; the second arrived to an idle link at 50 ms.
        assert_eq!(
            replay(&mut l, &arrivals, 0, 60 * MS, MS / 2),
            vec![(3 * MS, 0), (53 * MS, 1)]
        );
    }

    #[test]
    fn unlimited_rate_only_delays() {
        let mut l = Link::new(cfg(0, 5 * MS, 1, DisciplineSpec::DropTail));
        let mut d = Vec::new();
        for i in 0..3 {
            l.offer(i as u64 * 100, pk(i, 0), &mut d);
        }
        assert!(d.is_empty(), "an unshaped link never queues");
        assert_eq!(
            drain(&mut l, 0, 6 * MS, 100),
            vec![(5 * MS, 0), (5 * MS + 100, 1), (5 * MS + 200, 2)]
        );
    }

    #[test]
    fn droptail_drops_the_arrival_when_full() {
        let mut l = Link::new(cfg(1_000_000, 0, 2, DisciplineSpec::DropTail));
        let mut d = Vec::new();
        // Packet 0 goes onto the wire at once; 1 and 2 fill the buffer; 3 is dropped.
        for i in 0..4 {
            l.offer(0, pk(i, 0), &mut d);
        }
        assert_eq!(d.iter().map(|p| p.item).collect::<Vec<_>>(), vec![3]);
        assert_eq!(l.stats().queue_drops, 1);
        let order: Vec<u32> = drain(&mut l, 0, 5 * MS, MS)
            .into_iter()
            .map(|x| x.1)
            .collect();
        assert_eq!(order, vec![0, 1, 2]);
    }

    #[test]
    fn run2c_serves_priority_first_and_pushes_out_the_low_tail() {
        let spec = DisciplineSpec::Run2c {
            threshold_packets: 3,
        };
        let mut l = Link::new(cfg(1_000_000, MS, 2, spec));
        let mut d = Vec::new();
        l.offer(0, pk(0, 9000), &mut d); // on the wire at once (low class)
        l.offer(0, pk(1, 9000), &mut d); // low
        l.offer(0, pk(2, 10_000), &mut d); // low: buffer full (1, 2)
        l.offer(0, pk(3, 0), &mut d); // priority: pushes out the low tail (2)
        assert_eq!(d.iter().map(|p| p.item).collect::<Vec<_>>(), vec![2]);
        let got = drain(&mut l, 0, 10 * MS, MS / 2);
        assert_eq!(got, vec![(2 * MS, 0), (3 * MS, 3), (4 * MS, 1)]);
    }

    #[test]
    fn a_priority_packet_arriving_after_a_transmission_started_waits_for_it() {
        let spec = DisciplineSpec::Run2c {
            threshold_packets: 3,
        };
        let mut l = Link::new(cfg(1_000_000, 0, 10, spec));
        let arrivals = [
            (0, pk(0, 9000)), // 0..1 ms
            (0, pk(1, 9000)), // starts at 1 ms
            // Arrives at 1.5 ms: packet 1 is already on the wire (started at 1 ms).
            (MS + MS / 2, pk(2, 0)),
            (MS + MS / 2, pk(3, 9000)),
            // Arrives at 2.5 ms, while 2 is on the wire: served before 3 (priority).
            (2 * MS + MS / 2, pk(4, 0)),
        ];
        let got = replay(&mut l, &arrivals, 0, 8 * MS, MS / 2);
        assert_eq!(
            got,
            vec![(MS, 0), (2 * MS, 1), (3 * MS, 2), (4 * MS, 4), (5 * MS, 3)]
        );
    }

    #[test]
    fn run_orders_by_running_number() {
        let mut l = Link::new(cfg(1_000_000, 0, 10, DisciplineSpec::Run));
        let mut d = Vec::new();
        for (i, run) in [(0, 50), (1, 40), (2, 30), (3, 0), (4, 20)] {
            l.offer(0, pk(i, run), &mut d);
        }
        let order: Vec<u32> = drain(&mut l, 0, 10 * MS, MS)
            .into_iter()
            .map(|x| x.1)
            .collect();
        assert_eq!(order, vec![0, 3, 4, 2, 1]);
    }

    #[test]
    fn delay_line_bound_drops_and_counts() {
        let mut c = cfg(0, 10 * MS, 10, DisciplineSpec::DropTail);
        c.delay_line_limit = 2;
        let mut l = Link::new(c);
        let mut d = Vec::new();
        for i in 0..3 {
            l.offer(0, pk(i, 0), &mut d);
        }
        assert_eq!(l.in_flight_packets(), 2);
        assert_eq!(l.stats().delay_line_drops, 1);
    }

    #[test]
    fn time_going_backwards_is_taken_as_the_latest_seen() {
        let mut l = Link::new(cfg(1_000_000, 0, 10, DisciplineSpec::DropTail));
        let mut d = Vec::new();
        l.offer(10 * MS, pk(0, 0), &mut d);
        l.offer(5 * MS, pk(1, 0), &mut d); // taken as 10 ms
        assert_eq!(
            drain(&mut l, 0, 15 * MS, MS),
            vec![(11 * MS, 0), (12 * MS, 1)]
        );
    }
}
